#!/usr/bin/env bash
# Extract Debian's arm64 packages into a directory, for the cross build
# (make kptrace-arm64: libbpf, libelf, zlib, libtraceevent, jansson) and the
# arm64 VM tests (busybox-static). Extracted, never installed: installing
# them pulls in arm64 libc and upgrades host packages, and busybox-static's
# arm64 build conflicts with the host's. Adds arm64 to dpkg's architectures
# (root) the first time, as CI's fresh machine needs. Idempotent: DIR is
# replaced whole only when apt resolves other versions.
#   vmlinux/arm64-debs.sh DIR PKG...
set -euo pipefail
die() { echo "arm64-debs.sh: error: $*" >&2; exit 1; }
(($# >= 2)) || die "usage: $0 DIR PKG..."
dir=$1; shift
mkdir -p "$(dirname "$dir")"
dir=$(cd "$(dirname "$dir")" && pwd)/$(basename "$dir")

# one at a time: make's parallel jobs and the VM suite may all ask
exec 9>"$dir.lock"
flock -w 600 9 || die "timed out waiting for another arm64-debs.sh ($dir.lock)"

candidate() { apt-cache policy "$1:arm64" 2>/dev/null | awk '/Candidate:/ { print $2 }'; }

if ! dpkg --print-foreign-architectures | grep -qx arm64; then
	[ "$(id -u)" = 0 ] || die "apt knows no arm64 packages: as root, dpkg --add-architecture arm64 && apt-get update"
	echo "arm64-debs.sh: dpkg --add-architecture arm64" >&2
	dpkg --add-architecture arm64
fi
if [[ $(candidate "$1") == "" || $(candidate "$1") == "(none)" ]]; then
	[ "$(id -u)" = 0 ] || die "apt has no arm64 package lists: as root, apt-get update"
	echo "arm64-debs.sh: apt-get update (arm64 package lists)" >&2
	apt-get update -qq
fi

want='' debs=()
for p in "$@"; do
	v=$(candidate "$p")
	[[ -n $v && $v != "(none)" ]] || die "apt has no arm64 candidate for $p"
	want+="$p=$v"$'\n'
	debs+=("$p:arm64=$v")
done
[[ -f $dir/.stamp && $(cat "$dir/.stamp") == "$(printf '%s' "$want")" ]] && exit 0

stage=$(mktemp -d "$dir.stage.XXXXXX")
trap 'rm -rf "$stage"' EXIT
mkdir "$stage/debs" "$stage/root"
# apt-get download as root wants the _apt user to write the cwd: sandbox off
(cd "$stage/debs" && apt-get download -q -o APT::Sandbox::User=root "${debs[@]}" > /dev/null) ||
	die "apt-get download failed: ${debs[*]}"
for deb in "$stage"/debs/*.deb; do dpkg-deb -x "$deb" "$stage/root"; done
printf '%s' "$want" > "$stage/root/.stamp"
rm -rf "$dir" && mv "$stage/root" "$dir"	# swapped in whole: never half-extracted
echo "arm64-debs.sh: $(echo "$want" | tr '\n' ' ')-> $dir" >&2
