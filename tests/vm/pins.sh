#!/usr/bin/env bash
# The VM tests' pinned inputs (tests/vm/pins.txt): sourced by kernels.sh and
# test.sh for pins_get and the checks; run for the maintainer's two commands:
#   tests/vm/pins.sh check    what apt offers today against each pin
#   tests/vm/pins.sh update   rewrite pins.txt's kernel and busybox lines to it
PINS_FILE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/pins.txt

# pins_get KIND ARCH NAME: "PACKAGE VERSION" of that pin, or nothing
pins_get() {
	awk -v k="$1" -v a="$2" -v n="$3" '!/^#/ && $1 == k && $2 == a && $3 == n { print $4, $5; exit }' "$PINS_FILE"
}

# pins_of KIND ARCH: "PACKAGE=VERSION" lines of every pin of that kind
pins_of() {
	awk -v k="$1" -v a="$2" '!/^#/ && $1 == k && $2 == a { print $4 "=" $5 }' "$PINS_FILE"
}

# pins_apt_opts NAME: the apt options that see kernel NAME's Debian release.
# 5.10 is Debian 11's: a private apt state (its own sources list, lists and
# cache under .output/vm/apt-bullseye) with a bullseye main source, updated
# here when it has no lists yet, so the machine's own lists stay bookworm's.
# Sets the array PINS_APT (empty for the machine's own release).
pins_apt_opts() {
	local d
	PINS_APT=()
	[ "$1" = 5.10 ] || return 0
	d=$(cd "$(dirname "$PINS_FILE")/../.." && pwd)/.output/vm/apt-bullseye
	PINS_APT=(-o "Dir::Etc::sourcelist=$d/sources.list" -o Dir::Etc::sourceparts=/dev/null
		-o "Dir::State::Lists=$d/lists" -o "Dir::Cache=$d/cache")
	compgen -G "$d/lists/*_Packages*" >/dev/null && [ "${2:-}" != update ] && return 0
	mkdir -p "$d/lists/partial" "$d/cache/archives/partial"
	echo 'deb http://deb.debian.org/debian bullseye main' > "$d/sources.list"
	apt-get -q "${PINS_APT[@]}" update >/dev/null ||
		{ echo "pins.sh: apt-get update of the private bullseye state ($d) failed" >&2; return 1; }
}

# pins_deb_arch x86|arm64: Debian's name of it
pins_deb_arch() { [ "$1" = arm64 ] && echo arm64 || echo amd64; }

# pins_print VM_ARCH "KERNELS": one line per input the run used, as the
# closing lines give them
pins_print() {
	local a p v k hdr root
	a=$(pins_deb_arch "$1")
	root=$(cd "$(dirname "$PINS_FILE")/../.." && pwd)
	for k in $2; do
		read -r p v < <(pins_get kernel "$a" "$k")
		hdr=$root/.output/vm/headers/$k/package
		[ "$1" = x86 ] || hdr=$root/.output/vm/arm64/headers/$k/package
		echo "kernel $k $p=$v, headers $( [ -f "$hdr" ] && awk '{ print $1 }' "$hdr" || echo '(not fetched)')=$v"
	done
	echo "busybox $(pins_of busybox "$a" | paste -sd ' ')"
	[ "$1" = arm64 ] && echo "arm64 sysroot $(pins_of sysroot arm64 | paste -sd ' ')"
	echo "npm $(pins_of npm - | paste -sd ' ') (tests/host/perfetto_load/package-lock.json)"
}

# pins_check_busybox VM_ARCH: the busybox the guests get is the pinned one
# (x86: the host's busybox-static; arm64: what vmlinux/arm64-debs.sh extracted)
pins_check_busybox() {
	local want have root
	root=$(cd "$(dirname "$PINS_FILE")/../.." && pwd)
	want=$(pins_of busybox "$(pins_deb_arch "$1")")
	if [ "$1" = arm64 ]; then
		have=$(cat "$root/.output/arm64/busybox/.stamp" 2>/dev/null)
	else
		have=busybox-static=$(dpkg-query -W -f '${Version}' busybox-static 2>/dev/null)
	fi
	if [ "$have" = "$want" ]; then
		pass "$1 busybox for the guests is the pinned $want"
	else
		fail "$1 busybox for the guests is '$have', tests/vm/pins.txt pins '$want' (tests/vm/pins.sh check)"
	fi
}

# pins_check_arm64_sysroot DIR: the cross build's arm64 packages are the
# pinned ones (DIR/.stamp, written by vmlinux/arm64-debs.sh)
pins_check_arm64_sysroot() {
	local want have
	want=$(pins_of sysroot arm64 | sort)
	have=$(sort "$1/.stamp" 2>/dev/null)
	if [ "$have" = "$want" ]; then
		pass "the arm64 build's sysroot holds the pinned packages ($(paste -sd ' ' <<< "$want"))"
	else
		fail "the arm64 build's sysroot is '$(paste -sd ' ' <<< "$have")', tests/vm/pins.txt pins '$(paste -sd ' ' <<< "$want")' (tests/vm/pins.sh check)"
	fi
}

# pins_check_npm: pins.txt's npm line says what the lock file pins
pins_check_npm() {
	local root want have
	root=$(cd "$(dirname "$PINS_FILE")/../.." && pwd)
	want=$(pins_of npm - | sed 's/^\(.*\)=\(.*\)$/\1 \2/')
	have=$(python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))["packages"]
print("@paulirish/trace_engine", d["node_modules/@paulirish/trace_engine"]["version"])' \
		"$root/tests/host/perfetto_load/package-lock.json" 2>/dev/null)
	if [ "$have" = "$want" ]; then
		pass "the npm trace consumer's lock file pins the version tests/vm/pins.txt names ($want)"
	else
		fail "tests/host/perfetto_load/package-lock.json pins '$have', tests/vm/pins.txt '$want'"
	fi
}

# pins_latest KIND ARCH NAME PKG: what apt would pick today, "PACKAGE VERSION"
# (6.1: what the linux-image-cloud-ARCH metapackage pulls in, bookworm's
# default; 5.10: the same metapackage in bullseye, through pins_apt_opts;
# 6.12: the newest 6.12 cloud build bookworm carries, only ever "-unsigned"
# there, which qemu -kernel boots do not mind)
pins_latest() {
	local q='' p
	[ "$2" = "$(dpkg --print-architecture)" ] || q=:$2
	pins_apt_opts "$3" || return 1
	case $1/$3 in
	kernel/6.1 | kernel/5.10) p=$(apt-cache "${PINS_APT[@]}" depends "linux-image-cloud-$2$q" 2>/dev/null |
		awk '/Depends: linux-image-[0-9]/ { print $2; exit }') ;;
	kernel/6.12) p=$(apt-cache search --names-only "^linux-image-6\\.12\\..*-cloud-$2-unsigned\$" 2>/dev/null |
		awk '{ print $1 }' | sort -V | tail -n 1) ;;
	*) p=$4 ;;
	esac
	p=${p%:"$2"}
	[ -n "$p" ] || return 1
	echo "$p $(apt-cache "${PINS_APT[@]}" policy "$p$q" 2>/dev/null | awk '/Candidate:/ { print $2 }')"
}

pins_main() {
	local kind arch name pkg ver latest tmp moved=0
	case ${1:-} in
	check | update) ;;
	*) echo "usage: tests/vm/pins.sh check|update" >&2; return 2 ;;
	esac
	# bullseye's lists are private: refresh them as the maintainer's apt-get update does bookworm's
	pins_apt_opts 5.10 update || return 1
	tmp=$(mktemp)
	while IFS= read -r line; do
		read -r kind arch name pkg ver <<< "$line"
		case $line in \#* | '') echo "$line" >> "$tmp"; continue ;; esac
		if [ "$kind" = npm ] || ! latest=$(pins_latest "$kind" "$arch" "$name" "$pkg"); then
			echo "$line" >> "$tmp"; continue
		fi
		if [ "$latest" != "$pkg $ver" ]; then
			moved=1
			echo "$kind $arch $name: pinned $pkg=$ver, apt offers ${latest/ /=}"
			read -r pkg ver <<< "$latest"
		fi
		printf '%-9s %-6s %-5s %-48s %s\n' "$kind" "$arch" "$name" "$pkg" "$ver" >> "$tmp"
	done < "$PINS_FILE"
	[ $moved = 1 ] || echo "every pin is what apt offers today"
	if [ "$1" = update ]; then cat "$tmp" > "$PINS_FILE"; fi
	rm -f "$tmp"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	pins_main "$@"
fi
