#!/usr/bin/env bash
# Regenerate vmlinux/<arch>/vmlinux.h from a kernel's BTF. The BPF programs
# take helper and map types from it and read no kernel struct through it
# (their registers are bpf/scratch.bpf.h's struct kpt_regs, the kprobe ABI's
# layout), so any recent BTF-enabled kernel will do; the checked-in header
# came from the development VM's 6.18 kernel.
#   vmlinux/gen.sh [BTF-FILE (default /sys/kernel/btf/vmlinux)] [ARCH (default x86)]
set -euo pipefail
btf=${1:-/sys/kernel/btf/vmlinux}
arch=${2:-x86}
dir=$(dirname "$0")/$arch
[ -r "$btf" ] || { echo "gen.sh: cannot read $btf (a kernel with CONFIG_DEBUG_INFO_BTF)" >&2; exit 1; }
mkdir -p "$dir"
bpftool btf dump file "$btf" format c > "$dir/vmlinux.h.tmp"
mv "$dir/vmlinux.h.tmp" "$dir/vmlinux.h"
echo "wrote $dir/vmlinux.h from $btf"
