#!/usr/bin/env bash
# The VM kernel's vmlinux (an ELF with its .BTF section), decompressed from
# the bzImage kernels.sh fetched, for the host-side BTF tests of that kernel.
# KPT_VM_ARCH=arm64: the raw BTF cut out of the arm64 Image (uncompressed,
# its .BTF section whole), which pahole and bpftool take as well.
# Prints its path. Usage: tests/vm/vmlinux-btf.sh 6.1|6.12
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
K=$1
VM_ARCH=${KPT_VM_ARCH:-x86}
case $VM_ARCH in
x86) KDIR="$ROOT/.output/vm/kernels/$K" ;;
arm64) KDIR="$ROOT/.output/vm/arm64/kernels/$K" ;;
*) echo "vmlinux-btf.sh: KPT_VM_ARCH must be x86 or arm64" >&2; exit 1 ;;
esac
[[ -f $KDIR/vmlinuz ]] || "$ROOT/tests/vm/kernels.sh" "$K" >&2
OUT="$KDIR/vmlinux"
if [[ $VM_ARCH == arm64 ]]; then
	if [[ ! -s $OUT || $OUT -ot $KDIR/vmlinuz ]]; then
		python3 "$ROOT/vmlinux/btf-blob.py" "$KDIR/vmlinuz" "$OUT.tmp" ||
			{ echo "vmlinux-btf.sh: $K: no BTF in $KDIR/vmlinuz" >&2; rm -f "$OUT.tmp"; exit 1; }
		mv "$OUT.tmp" "$OUT"
	fi
	echo "$OUT"
	exit 0
fi
if [[ ! -s $OUT || $OUT -ot $KDIR/vmlinuz ]]; then
	# The boot protocol's header says where the compressed kernel is
	# (payload_offset, payload_length), and its magic what compressed it.
	# The build appends the decompressed size, 4 bytes little-endian (gzip's
	# own trailer ends with it): cut off where a decompressor would call it
	# trailing garbage, and what decompresses must be that long.
	want=$(python3 - "$KDIR/vmlinuz" "$OUT.payload" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
setup_sects = d[0x1f1] or 4
start = (setup_sects + 1) * 512
off, length = struct.unpack_from("<II", d, 0x248)
p = d[start + off:start + off + length]
size, = struct.unpack_from("<I", p, len(p) - 4)
if p[:2] != b"\x1f\x8b":
    p = p[:-4]
open(sys.argv[2], "wb").write(p)
print(size)
PY
	) || { echo "vmlinux-btf.sh: $K: cannot read the payload of $KDIR/vmlinuz" >&2; exit 1; }
	magic=$(head -c 4 "$OUT.payload" | od -An -tx1 | tr -d ' \n')
	case $magic in
	28b52ffd) unpack=(zstd -q -d -c) ;;
	02214c18) unpack=(lz4 -q -d -c) ;;
	fd377a58) unpack=(xz -q -d -c) ;;
	1f8b*) unpack=(gzip -q -d -c) ;;
	*) echo "vmlinux-btf.sh: $K: unknown compression (magic $magic)" >&2; exit 1 ;;
	esac
	if ! "${unpack[@]}" "$OUT.payload" > "$OUT.tmp"; then
		echo "vmlinux-btf.sh: $K: ${unpack[0]} could not decompress the kernel" >&2
		rm -f "$OUT.payload" "$OUT.tmp"; exit 1
	fi
	rm -f "$OUT.payload"
	got=$(stat -c %s "$OUT.tmp")
	[[ $got == "$want" ]] ||
		{ echo "vmlinux-btf.sh: $K: decompressed $got bytes, the kernel's header says $want" >&2; rm -f "$OUT.tmp"; exit 1; }
	[[ $(head -c 4 "$OUT.tmp" | od -An -tx1 | tr -d ' \n') == 7f454c46 ]] ||
		{ echo "vmlinux-btf.sh: $K: the payload did not decompress to an ELF" >&2; rm -f "$OUT.tmp"; exit 1; }
	mv "$OUT.tmp" "$OUT"
fi
echo "$OUT"
