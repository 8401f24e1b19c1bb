#!/usr/bin/env bash
# Fetch the Debian cloud kernels the VM tests boot, into .output/vm/kernels/<name>/:
#   vmlinuz  config  [System.map]  version (= uname -r)  package (= "pkg pkgver")
#   lib/modules/<uname -r>/  (with modules.dep, so run.sh --module can resolve deps)
# Exactly the versions tests/vm/pins.txt pins; idempotent: fetched again only when the pin
# changed.
# Only apt is used (the only network we have); 5.10 is Debian 11's, fetched through a private
# apt state (pins_apt_opts). Usage: tests/vm/kernels.sh [5.10|6.1|6.12]...
# KPT_VM_ARCH=arm64: Debian's arm64 cloud kernels instead, into .output/vm/arm64/kernels/
# (apt must know arm64: vmlinux/arm64-debs.sh adds it).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
VM_ARCH=${KPT_VM_ARCH:-x86}
case $VM_ARCH in
  x86)   OUT="$ROOT/.output/vm/kernels" DEB_ARCH=amd64 ;;
  arm64) OUT="$ROOT/.output/vm/arm64/kernels" DEB_ARCH=arm64 ;;
  *) echo "kernels.sh: error: KPT_VM_ARCH must be x86 or arm64" >&2; exit 1 ;;
esac
die() { echo "kernels.sh: error: $*" >&2; exit 1; }

# shellcheck source=tests/vm/pins.sh
. "$ROOT/tests/vm/pins.sh"

# name -> the Debian package and version tests/vm/pins.txt pins for it (what
# apt would pick today: tests/vm/pins.sh check). arm64's are a foreign
# architecture's: PKG:arm64.
fetch() {
  local name=$1 pkg ver q='' dest stage krel
  [[ $name == 5.10 || $name == 6.1 || $name == 6.12 ]] ||
    die "unknown kernel '$name' (expected 5.10, 6.1 or 6.12)"
  read -r pkg ver < <(pins_get kernel "$DEB_ARCH" "$name") ||
    die "tests/vm/pins.txt pins no $DEB_ARCH kernel $name"
  [[ $DEB_ARCH == "$(dpkg --print-architecture)" ]] || q=":$DEB_ARCH"
  pkg+=$q
  dest="$OUT/$name"
  if [[ -f $dest/package && $(cat "$dest/package") == "$pkg $ver" && -f $dest/vmlinuz ]]; then
    echo "kernel $name: $pkg $ver (cached, $(cat "$dest/version"))"
    return
  fi
  pins_apt_opts "$name" || die "no apt state for kernel $name"
  apt-cache "${PINS_APT[@]}" madison "$pkg" 2>/dev/null | awk -F' *[|] *' -v v="$ver" '$2 == v { f = 1 } END { exit !f }' ||
    die "apt has no $pkg=$ver, the version tests/vm/pins.txt pins (apt offers:" \
      "$(apt-cache "${PINS_APT[@]}" madison "$pkg" 2>/dev/null | awk -F' *[|] *' '{ print $2 }' | tr '\n' ' ')); after" \
      "'apt-get update', tests/vm/pins.sh check says what moved, tests/vm/pins.sh update pins it"
  echo "kernel $name: fetching $pkg $ver"
  stage=$(mktemp -d "$OUT/.stage-$name.XXXXXX")
  # apt-get download as root wants the _apt user to write the cwd; sandbox off avoids the warning.
  (cd "$stage" && apt-get "${PINS_APT[@]}" download -q -o APT::Sandbox::User=root "$pkg=$ver" >/dev/null) ||
    { rm -rf "$stage"; die "apt-get download $pkg=$ver failed"; }
  dpkg-deb -x "$stage"/*.deb "$stage/x"
  krel=$(find "$stage/x/lib/modules" -mindepth 1 -maxdepth 1 -printf '%f\n' | head -n1)
  [[ -f $stage/x/boot/vmlinuz-$krel ]] || { rm -rf "$stage"; die "$pkg has no boot/vmlinuz-$krel"; }
  mkdir -p "$stage/k/lib"
  mv "$stage/x/boot/vmlinuz-$krel" "$stage/k/vmlinuz"
  mv "$stage/x/boot/config-$krel" "$stage/k/config"
  # Debian's System.map is a one-line placeholder (the real one is in -dbg); keep only a real
  # one. In the guest, /proc/kallsyms is the authoritative symbol table anyway.
  if [[ -f $stage/x/boot/System.map-$krel ]] && ! grep -q 'The real System.map' "$stage/x/boot/System.map-$krel"; then
    mv "$stage/x/boot/System.map-$krel" "$stage/k/System.map"
  fi
  mv "$stage/x/lib/modules" "$stage/k/lib/modules"
  # The .deb ships no modules.dep (postinst runs depmod); generate it so module deps resolve.
  if ! command -v depmod >/dev/null; then
    echo "kernel $name: installing kmod for depmod"
    apt-get install -y -q --no-install-recommends kmod >/dev/null || die "cannot install kmod (depmod)"
  fi
  depmod -b "$stage/k" "$krel"
  echo "$krel" >"$stage/k/version"
  echo "$pkg $ver" >"$stage/k/package"
  rm -rf "$dest" && mv "$stage/k" "$dest" && rm -rf "$stage"   # swap in whole: never half-unpacked
  echo "kernel $name: $pkg $ver -> $krel"
}

mkdir -p "$OUT"
# Parallel run.sh calls may each auto-fetch: serialize (bounded wait), then clear leftovers.
exec 9>"$OUT/.lock"
flock -w 600 9 || die "timed out waiting for another kernels.sh (lock $OUT/.lock)"
rm -rf "$OUT"/.stage-*   # leftovers of an interrupted run
names=("$@"); ((${#names[@]})) || names=(6.1 6.12)
for n in "${names[@]}"; do fetch "$n"; done
