#!/usr/bin/env bash
# Regenerate vmlinux/<arch>/vmlinux.h from a kernel's BTF. The BPF programs
# take helper and map types from it and read no kernel struct through it
# (their registers are bpf/scratch.bpf.h's struct kpt_regs, the kprobe ABI's
# layout), so any recent BTF-enabled kernel will do; the checked-in x86
# header came from the development VM's 6.18 kernel, the arm64 one from
# Debian's 6.12 arm64 cloud kernel (tests/vm/kernels.sh with KPT_VM_ARCH=arm64).
#   vmlinux/gen.sh [BTF-FILE or arm64 Image (default /sys/kernel/btf/vmlinux)] [ARCH (default x86)]
# An arm64 Image (/boot/vmlinuz-*, uncompressed) holds its raw BTF as a blob
# of its .BTF section: it is cut out of the Image first.
set -euo pipefail
btf=${1:-/sys/kernel/btf/vmlinux}
arch=${2:-x86}
dir=$(dirname "$0")/$arch
[ -r "$btf" ] || { echo "gen.sh: cannot read $btf (a kernel with CONFIG_DEBUG_INFO_BTF)" >&2; exit 1; }
mkdir -p "$dir"
tmp=$(mktemp)
trap 'rm -f "$tmp" "$dir/vmlinux.h.tmp"' EXIT
python3 "$(dirname "$0")/btf-blob.py" "$btf" "$tmp"
bpftool btf dump file "$tmp" format c > "$dir/vmlinux.h.tmp"
mv "$dir/vmlinux.h.tmp" "$dir/vmlinux.h"
echo "wrote $dir/vmlinux.h from $btf"
