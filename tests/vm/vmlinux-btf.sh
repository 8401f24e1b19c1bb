#!/usr/bin/env bash
# The VM kernel's vmlinux (an ELF with its .BTF section), decompressed from
# the bzImage kernels.sh fetched, for the host-side BTF tests of that kernel.
# Prints its path. Usage: tests/vm/vmlinux-btf.sh 6.1|6.12
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
K=$1
KDIR="$ROOT/.output/vm/kernels/$K"
[[ -f $KDIR/vmlinuz ]] || "$ROOT/tests/vm/kernels.sh" "$K" >&2
OUT="$KDIR/vmlinux"
if [[ ! -s $OUT || $OUT -ot $KDIR/vmlinuz ]]; then
	# The boot protocol's header says where the compressed kernel is
	# (payload_offset, payload_length), and its magic what compressed it.
	python3 - "$KDIR/vmlinuz" "$OUT.payload" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
setup_sects = d[0x1f1] or 4
start = (setup_sects + 1) * 512
off, length = struct.unpack_from("<II", d, 0x248)
open(sys.argv[2], "wb").write(d[start + off:start + off + length])
PY
	magic=$(head -c 4 "$OUT.payload" | od -An -tx1 | tr -d ' \n')
	case $magic in
	28b52ffd) zstd -q -d -c "$OUT.payload" > "$OUT.tmp" 2>/dev/null || true ;;
	02214c18) lz4 -q -d -c "$OUT.payload" > "$OUT.tmp" 2>/dev/null || true ;;
	fd377a58) xz -q -d -c "$OUT.payload" > "$OUT.tmp" 2>/dev/null || true ;;
	1f8b*) gzip -q -d -c "$OUT.payload" > "$OUT.tmp" 2>/dev/null || true ;;
	*) echo "vmlinux-btf.sh: $K: unknown compression (magic $magic)" >&2; exit 1 ;;
	esac
	rm -f "$OUT.payload"
	[[ $(head -c 4 "$OUT.tmp" | od -An -tx1 | tr -d ' \n') == 7f454c46 ]] ||
		{ echo "vmlinux-btf.sh: $K: the payload did not decompress to an ELF" >&2; rm -f "$OUT.tmp"; exit 1; }
	mv "$OUT.tmp" "$OUT"
fi
echo "$OUT"
