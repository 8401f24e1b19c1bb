#!/usr/bin/env bash
# Build tests/vm/etn (the tests' own module) for a VM kernel, against Debian's
# linux-headers of that very kernel: the headers, their -common part and the
# kbuild tools are apt-get downloaded and extracted under
# .output/vm/headers/<name>/ (nothing installed), then the kernel's own build
# system makes the module. Prints the .ko's path. Idempotent: the headers are
# fetched again only when kernels.sh fetched another kernel, the module made
# again only when its source changed.
# KPT_VM_ARCH=arm64: for Debian's arm64 kernels, under .output/vm/arm64/
# (headers/<name>/, etn/<name>/): the arm64 headers with the host's own
# kbuild tools of the same version, cross-compiled by aarch64-linux-gnu-gcc.
# Usage: tests/vm/etn/build.sh 6.1|6.12
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
K=${1:?usage: build.sh 6.1|6.12}
VM_ARCH=${KPT_VM_ARCH:-x86}
die() { echo "etn/build.sh: $VM_ARCH $K: error: $*" >&2; exit 1; }
# HQ: the headers' apt architecture, if not the host's; TQ: the kbuild tools',
# always the host's (fixdep, modpost, ... run here)
case $VM_ARCH in
x86) VMOUT="$ROOT/.output/vm" HQ='' TQ='' KMAKE=() ;;
arm64)
	# The headers' .kernelvariables say CC = $(CROSS_COMPILE)gcc-12 and turn
	# off kbuild's compiler check; Debian built the kernel with its native
	# gcc-12 (12.2.0), the cross one is the same release, and no gcc plugin
	# is configured, so the module is compiled with the kernel's own flags.
	VMOUT="$ROOT/.output/vm/arm64" HQ=:arm64 TQ=:$(dpkg --print-architecture)
	KMAKE=(ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-)
	command -v aarch64-linux-gnu-gcc-12 >/dev/null ||
		die "aarch64-linux-gnu-gcc-12 not found (apt-get install gcc-aarch64-linux-gnu)" ;;
*) die "KPT_VM_ARCH must be x86 or arm64" ;;
esac
KDIR="$VMOUT/kernels/$K"
HDIR="$VMOUT/headers/$K"
MDIR="$VMOUT/etn/$K"

[[ -f $KDIR/version ]] || "$ROOT/tests/vm/kernels.sh" "$K" >&2
KREL=$(cat "$KDIR/version")
VER=$(awk '{print $2}' "$KDIR/package")
HPKG=linux-headers-$KREL

# The headers' package, its -common part and the kbuild tools it depends on
# (scripts/, modpost, the kernel's gcc wrapper flags), at the image's version.
fetch_headers() {
	local deps stage p
	deps=$(apt-cache show "$HPKG$HQ=$VER" 2>/dev/null | sed -n 's/^Depends: //p' | head -n 1 |
		tr ',' '\n' | sed -n 's/^ *\(linux-headers-[^ ]*-common\|linux-kbuild-[^ ]*\).*/\1/p')
	[[ $(echo "$deps" | wc -l) == 2 ]] ||
		die "apt cannot say what $HPKG=$VER depends on: '$deps' (apt-get update?)"
	echo "etn/build.sh: $VM_ARCH $K: fetching $HPKG $VER and $(echo $deps)" >&2
	mkdir -p "$VMOUT/headers"
	stage=$(mktemp -d "$VMOUT/headers/.stage-$K.XXXXXX")
	# linux-kbuild-6.1 is one package for every 6.1 build: its version is
	# the image's own all the same (Depends: >= it), as apt offers it; the
	# -common part is Architecture: all
	(cd "$stage" && apt-get download -q -o APT::Sandbox::User=root "$HPKG$HQ=$VER" \
		$(for p in $deps; do case $p in linux-kbuild-*) p=$p$TQ ;; esac; echo "$p=$VER"; done) >/dev/null) ||
		{ rm -rf "$stage"; die "apt-get download $HPKG$HQ=$VER $deps failed"; }
	for p in "$stage"/*.deb; do dpkg-deb -x "$p" "$stage/x"; done
	rm -f "$stage"/*.deb
	# scripts/ and tools/ are relative links into usr/lib: they hold inside
	# the extracted tree. The Makefile includes the -common one by its
	# installed, absolute path: point it at this tree's.
	sed -i "s|^include /usr/src/|include $HDIR/usr/src/|" "$stage/x/usr/src/$HPKG/Makefile"
	echo "$HPKG $VER" >"$stage/x/package"
	rm -rf "$HDIR" && mv "$stage/x" "$HDIR" && rm -rf "$stage"
}

mkdir -p "$VMOUT"
exec 9>"$VMOUT/.etn-$K.lock"
flock -w 600 9 || die "timed out waiting for another build.sh of $K"
rm -rf "$VMOUT/headers/.stage-$K".*
if [[ ! -f $HDIR/package || $(cat "$HDIR/package") != "$HPKG $VER" ]]; then
	fetch_headers
	rm -rf "$MDIR"
fi
SRC=$HDIR/usr/src/$HPKG

# Module BTF (CONFIG_DEBUG_INFO_BTF_MODULES, both kernels) is pahole's split
# BTF over the kernel's own: kbuild makes it only where the headers hold a
# vmlinux with the BTF of the kernel that will load the module (the kernel
# refuses a module whose BTF names another base's types). 6.12's headers
# ship one; 6.1's do not: the one unpacked from the same image serves (on
# arm64 the raw BTF cut out of it).
command -v pahole >/dev/null || die "pahole not found (apt-get install dwarves): no module BTF"
if [[ ! -f $SRC/vmlinux ]]; then
	cp "$("$ROOT/tests/vm/vmlinux-btf.sh" "$K")" "$SRC/vmlinux.tmp" && mv "$SRC/vmlinux.tmp" "$SRC/vmlinux"
fi
# 6.1's kbuild package has no resolve_btfids; it fills in the BTF ids of
# BTF_ID() sets, and etn has none: nothing for it to do.
extra=()
[[ -x $SRC/tools/bpf/resolve_btfids/resolve_btfids ]] || extra+=(RESOLVE_BTFIDS=true)

mkdir -p "$MDIR"
cp -p "$ROOT/tests/vm/etn/etn.c" "$ROOT/tests/vm/etn/Kbuild" "$MDIR/"
if ! make -s -C "$SRC" M="$MDIR" "${KMAKE[@]}" "${extra[@]}" modules >"$MDIR/build.log" 2>&1; then
	tail -n 20 "$MDIR/build.log" >&2
	die "make -C $SRC M=$MDIR modules failed (log $MDIR/build.log)"
fi
[[ -f $MDIR/etn.ko ]] || die "no etn.ko after the build (log $MDIR/build.log)"
grep -q 'Skipping BTF' "$MDIR/build.log" && die "kbuild made etn.ko without BTF: $(grep -m1 Skipping "$MDIR/build.log")"
echo "$MDIR/etn.ko"
