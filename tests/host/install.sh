#!/usr/bin/env bash
# kptrace as a system tool (issue 23): make install / uninstall under
# DESTDIR and PREFIX, the man pages (lint, rendering, the options of every
# --help against kptrace(8) both ways and README.md's in both, its examples
# run as printed where this kernel can run them), the bash completion driven
# as bash drives it, --version and the rebuild it implies, and the .deb
# built, linted, installed into a test root, run there and removed.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/lib.sh
# run by make test: its jobserver and level are not this make's
unset MAKEFLAGS MFLAGS MAKELEVEL

KPT=${KPT:-./kptrace}
OUT=.output/tests/host/install
rm -rf "$OUT"
mkdir -p "$OUT"
OUT=$(realpath "$OUT")
[ "$(id -u)" = 0 ] || skip_all "install tests need root (dpkg --root, kptrace list)"
for t in mandoc groff man lintian dpkg-deb nm gcc; do
	command -v $t > /dev/null || skip_all "$t missing (make test-deps)"
done
expect_checks 61
MK="make --no-print-directory"

echo "# make install DESTDIR=... PREFIX=/usr"
D=$OUT/root
$MK install DESTDIR="$D" PREFIX=/usr > "$OUT/install.log" 2>&1
check "make install exits 0" test $? = 0
for f in usr/sbin/kptrace usr/share/man/man8/kptrace.8.gz \
	usr/share/man/man5/kptrace-definitions.5.gz usr/share/bash-completion/completions/kptrace \
	usr/lib/systemd/system/kptrace.service \
	usr/share/doc/kptrace/examples/jobs.kpt; do
	check "installed: /$f" test -f "$D/$f"
done
check "nothing else installed" test "$(find "$D" -type f | wc -l)" = 6
check "the binary is executable, the rest 0644" \
	test "$(stat -c %a "$D/usr/sbin/kptrace" "$D/usr/lib/systemd/system/kptrace.service" |
		tr '\n' ' ')" = "755 644 "
check "the unit's ExecStart is the installed binary" \
	grep -q '^ExecStart=/usr/sbin/kptrace serve ' "$D/usr/lib/systemd/system/kptrace.service"
check "the installed binary runs: --version" grep -q '^kptrace ' <("$D/usr/sbin/kptrace" --version)
# as a new user meets them: man finds the pages where they landed, and bash
# completes kptrace from the installed file (complete -p, then a completion)
check "man kptrace finds the installed kptrace(8)" \
	grep -q '^ *kptrace - ' <(LC_ALL=C MANWIDTH=80 man --manpath="$D/usr/share/man" kptrace 2> /dev/null)
check "man 5 kptrace-definitions finds the installed page" \
	grep -q '^ *kptrace-definitions - ' \
		<(LC_ALL=C MANWIDTH=80 man --manpath="$D/usr/share/man" 5 kptrace-definitions 2> /dev/null)
check "the installed completion: complete -F _kptrace kptrace, la<Tab> -> latency" \
	test "$(bash -c '. "$1"; complete -p kptrace; COMP_WORDS=(kptrace la); COMP_CWORD=1
		COMP_LINE="kptrace la"; COMP_POINT=10; _kptrace; echo "${COMPREPLY[*]}"' _ \
		"$D/usr/share/bash-completion/completions/kptrace" 2>&1 | tr '\n' '|')" = \
		"complete -F _kptrace kptrace|latency|"
$MK uninstall DESTDIR="$D" PREFIX=/usr > /dev/null 2>&1
check "make uninstall: no file left (only empty directories)" test -z "$(find "$D" ! -type d)"
L=$OUT/local
$MK install DESTDIR="$L" > /dev/null 2>&1
check "default PREFIX /usr/local: sbin, and the unit's ExecStart follows it" \
	grep -q '^ExecStart=/usr/local/sbin/kptrace serve ' \
		"$L/usr/local/lib/systemd/system/kptrace.service"
$MK uninstall DESTDIR="$L" > /dev/null 2>&1
check "make uninstall (default PREFIX): no file left" test -z "$(find "$L" ! -type d)"

echo "# man pages"
for m in docs/kptrace.8 docs/kptrace-definitions.5; do
	check "mandoc -T lint $m: nothing" test -z "$(mandoc -T lint "$m" 2>&1)"
	check "groff -ww -z $m: nothing" test -z "$(groff -ww -z -man "$m" 2>&1)"
	MANWIDTH=80 man -l "$m" > "$OUT/$(basename "$m").txt" 2> "$OUT/man.err"
	check "man -l $m renders, no warning" test -s "$OUT/$(basename "$m").txt" -a ! -s "$OUT/man.err"
done
check "kptrace(8) has its sections" python3 - "$OUT/kptrace.8.txt" <<'PY'
import sys
t = open(sys.argv[1]).read()
want = ["NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "OUTPUT FIELDS", "OVERHEAD", "EXIT STATUS",
        "ENVIRONMENT", "FILES", "EXAMPLES", "SEE ALSO"]
missing = [s for s in want if "\n" + s + "\n" not in t]
assert not missing, missing
for s in ["bpftrace(8)", "perf-probe(1)", "ftrace", "bench/README.md"]:
    assert s in t, s
PY
check "kptrace-definitions(5) has its sections" python3 - "$OUT/kptrace-definitions.5.txt" <<'PY'
import sys
t = open(sys.argv[1]).read()
want = ["PROBE FORMS", "FETCH ARGUMENTS", "TYPES", "BTF NAMES", "FILTERS", "KNOWN DIFFERENCES FROM FTRACE"]
missing = [s for s in want if "\n" + s + "\n" not in t]
assert not missing, missing
PY
check "the synopsis names every subcommand of --help" python3 - "$OUT/kptrace.8.txt" "$($KPT --help)" <<'PY'
import re, sys
man, help = open(sys.argv[1]).read(), sys.argv[2]
subs = set(re.findall(r"^\s*(?:or:\s+kptrace \[OPTION...\]\s+|Usage: kptrace \[OPTION...\]\s+)\[?([a-z]+)", help, re.M))
syn = re.sub(r"\s+", " ", man.split("\nDESCRIPTION\n")[0])  # justified: spaces vary
assert subs >= {"hist", "latency", "count", "profile", "list", "serve", "diff", "explain"}, subs
missing = [s for s in subs if "kptrace " + s not in syn and "[" + s + "]" not in syn]
assert not missing, missing
PY

# kptrace(8)'s examples as the page prints them (tests/man-examples.sh), the
# blocks side by side, a block's commands in order. Those this kernel
# refuses for want of kprobes, that read a file not here (the job files), and
# those reading what they write run in the VM (tests/vm/examples-guest.sh).
tests/man-examples.sh docs/kptrace.8 > "$OUT/examples.txt"
EXD=$OUT/ex
rm -rf "$EXD"
mkdir -p "$EXD/bin"
ln -s "$(realpath "$KPT")" "$EXD/bin/kptrace"
# bash's readline, for its examples: interactive shells fed a line
( for i in $(seq 1 40); do
	printf 'echo kpt-example\nexit\n' | bash --norc -i > /dev/null 2>&1; sleep 0.5
done ) &
FEED=$!
# example N CMD: runs it in $EXD, its verdict in $EXD/N.verdict:
# "ran", "vm WHY" or "fail WHY"
example() {
	local n=$1 cmd=$2 rc f
	f=$(sed -n "s/.* -f \([^ ]*\).*/\1/p" <<< "$cmd")
	if [ -n "$f" ] && [ ! -e "$f" ]; then
		echo "vm: reads $f, not here" > "$EXD/$n.verdict"; return
	fi
	(cd "$EXD" && PATH=$EXD/bin:$PATH eval "timeout -s KILL 60 $cmd" > "$EXD/$n.out" 2> "$EXD/$n.err" < /dev/null)
	rc=$?
	if [ $rc = 1 ] && grep -q 'has no kprobe support' "$EXD/$n.err"; then
		echo "vm: a kernel function, no kprobes here" > "$EXD/$n.verdict"
	elif [ $rc != 0 ] && ! { [ $rc = 1 ] && [[ $cmd == "kptrace diff "* ]]; }; then
		echo "fail: exit $rc: $(tail -c 300 "$EXD/$n.err" | tr '\n' ' ')" > "$EXD/$n.verdict"
	elif grep -q 'error:' "$EXD/$n.err"; then
		echo "fail: an error said: $(grep -m1 'error:' "$EXD/$n.err")" > "$EXD/$n.verdict"
	elif [ ! -s "$EXD/$n.out" ] && [[ $cmd != *">"* ]]; then
		echo "fail: nothing on stdout" > "$EXD/$n.verdict"
	else
		echo ran > "$EXD/$n.verdict"
	fi
}
pids=()
for b in $(cut -f1 "$OUT/examples.txt" | uniq); do
	(
		vm=()	# what the VM's commands of this block write (> FILE)
		while IFS=$'\t' read -r n blk cmd; do
			[ "$blk" = "$b" ] || continue
			for f in "${vm[@]}"; do
				[[ " $cmd " == *" $f "* ]] && echo "vm: reads $f, the VM's" > "$EXD/$n.verdict"
			done
			[ -e "$EXD/$n.verdict" ] || example "$n" "$cmd"
			if grep -q '^vm:' "$EXD/$n.verdict" && [[ $cmd == *">"* ]]; then
				vm+=("${cmd##*> }")
			fi
		done < <(awk '{ print NR "\t" $0 }' "$OUT/examples.txt")
	) &
	pids+=($!)
done
wait "${pids[@]}"
kill $FEED 2> /dev/null
wait $FEED 2> /dev/null
n=0 here=0
while IFS=$'\t' read -r blk cmd; do
	n=$((n + 1))
	v=$(cat "$EXD/$n.verdict" 2> /dev/null || echo "fail: no verdict")
	case $v in
	ran) here=$((here + 1)); pass "kptrace(8)'s example runs as printed: $cmd" ;;
	vm:*) echo "# in the VM (tests/vm/examples-guest.sh), ${v#vm: }: $cmd" ;;
	*) fail "kptrace(8)'s example: $cmd: ${v#fail: }" ;;
	esac
done < "$OUT/examples.txt"
check "kptrace(8)'s examples: $here of $n run here, the rest need kprobes or a job file" \
	test "$n" -ge 12 -a "$here" -ge 6

# the options of kptrace's, serve's and diff's --help; of kptrace(8)'s OPTIONS tags
{ $KPT --help; $KPT serve --help; $KPT diff --help; } > "$OUT/help.txt" 2>&1
cat > "$OUT/opts.py" <<'PY'
import re, sys
# an option as a page or a command line writes it: --long, or -x alone
OPT = re.compile(r"(?<![\w-])(--[a-z][a-z-]*|-[A-Za-z?](?![\w-]))")
def help_opts(path):
    opts = set()
    for l in open(path):
        # an option's line: at column 2 (a short option) or up to 6; wrapped text is deeper
        m = re.match(r"^ {2}(-[^-\s]), (--[a-z][a-z-]*)", l) or re.match(r"^ {2,6}(--[a-z][a-z-]*)", l)
        if m:
            opts.update(g for g in m.groups() if g)
    return opts
def man_opts(path):
    src = open(path).read()
    sec = src.split("\n.SH OPTIONS\n", 1)[1].split("\n.SH ", 1)[0]
    lines, opts = sec.split("\n"), set()
    for i, l in enumerate(lines[:-1]):
        if l != ".TP":
            continue
        tag = re.sub(r"\\f[BIRP]", "", lines[i + 1]).replace("\\-", "-")
        opts.update(OPT.findall(tag))
    return opts
# the options README.md shows: in its commands (code lines starting with
# kptrace) and its `code` spans, definitions in quotes left out
def readme_opts(path):
    opts, block = set(), False
    for l in open(path):
        if l.startswith("```"):
            block = not block
            continue
        spans = ([l] if re.match(r"^(# )?kptrace ", l) else []) if block else re.findall(r"`([^`]*)`", l)
        for t in spans:
            t = re.sub(r"'[^']*'", "", t)
            opts.update(OPT.findall(t))
    return opts
h, m = help_opts(sys.argv[1]), man_opts(sys.argv[2])
if sys.argv[3] == "readme-in-both":
    r = readme_opts(sys.argv[4])
    missing = sorted(r - (h & m))
    print("%d options in README.md; not in both --help and kptrace(8): %s" % (len(r), missing))
    sys.exit(1 if missing or len(r) < 10 else 0)
missing = sorted(h - m) if sys.argv[3] == "help-in-man" else sorted(m - h)
print("%d options in --help, %d in kptrace(8); not there: %s" % (len(h), len(m), missing))
sys.exit(1 if missing or len(h) < 50 else 0)
PY
check "every option of --help (kptrace, serve, diff) is in kptrace(8)" \
	python3 "$OUT/opts.py" "$OUT/help.txt" docs/kptrace.8 help-in-man
check "every option kptrace(8) describes is in a --help" \
	python3 "$OUT/opts.py" "$OUT/help.txt" docs/kptrace.8 man-in-help
# README.md is for users: its options are documented in kptrace(8), not there
check "every option README.md shows is in kptrace(8) and a --help" \
	python3 "$OUT/opts.py" "$OUT/help.txt" docs/kptrace.8 readme-in-both README.md
# the completion's lists are written out too: they must not drift from --help
bash -c '. docs/kptrace.bash; echo $_kptrace_options $_kptrace_serve_options $_kptrace_diff_options' \
	> "$OUT/comp-opts.txt"
check "the completion offers every long option of --help, and no other" python3 - "$OUT/help.txt" \
	"$OUT/comp-opts.txt" <<'PY'
import re, sys
h = set(re.findall(r"^ {2,6}(?:-[^-\s], )?(--[a-z][a-z-]*)", open(sys.argv[1]).read(), re.M))
c = set(open(sys.argv[2]).read().split())
assert len(h) > 50 and h == c, ("not offered:", sorted(h - c), "not in --help:", sorted(c - h))
PY

echo "# --version"
# as the Makefile says it: a tag, else 0.1 and the commit, else VERSION, else 0.1+unknown
V=$(git describe --tags --dirty 2>/dev/null | sed 's/^v//')
[ -n "$V" ] || { h=$(git describe --always --dirty 2>/dev/null) && V=0.1-g$h; } ||
	V=$(cat VERSION 2>/dev/null) || V=0.1+unknown
$KPT --version > "$OUT/version.txt"
check "--version: git describe's version ($V)" test "$(sed -n 1p "$OUT/version.txt")" = "kptrace $V"
LV=$(dpkg-query -W -f '${Version}' libbpf-dev | sed 's/^[0-9]*://' | cut -d. -f1,2)
check "--version: libbpf's version ($LV)" grep -qx "libbpf $LV (linked statically)" "$OUT/version.txt"
check "--version: the embedded BPF object's SHA-256" \
	grep -qx "BPF object sha256:$(sha256sum < .output/kptrace.bpf.o | cut -d' ' -f1)" "$OUT/version.txt"
$MK kptrace > "$OUT/make1.log" 2>&1
check "make with nothing changed rebuilds nothing" test -z "$(grep -E '^  (CC|LINK|GEN)' "$OUT/make1.log")"
$MK kptrace VERSION=9.9-install-test > "$OUT/make2.log" 2>&1
check "a new version recompiles version.o alone and relinks" \
	test "$(grep -E '^  (CC|LINK)' "$OUT/make2.log" | awk '{print $2}' | tr '\n' ' ')" = ".output/obj/cmd/version.o kptrace "
# the first thing `make` showed was glibc's warning of dlopen() in static
# links, from libtraceevent's plugin loader (issue 37): left out now
check "the static link warns of nothing: no libtraceevent plugin loader, no dlopen warning" \
	sh -c "! grep -i warning '$OUT/make2.log' && ! nm kptrace | grep -q ' tep_load_plugins\$'"
check "... and --version says it" test "$($KPT --version | head -1)" = "kptrace 9.9-install-test"
$MK kptrace > /dev/null 2>&1
check "... and back" test "$($KPT --version | head -1)" = "kptrace $V"

echo "# bash completion"
cat > "$OUT/comp.c" <<'EOF'
int kpt_comp_alpha(int x) { return x + 1; }
int kpt_comp_beta(int x) { return x * 2; }
int main(int argc, char **argv) { (void)argv; return kpt_comp_alpha(argc) + kpt_comp_beta(argc); }
EOF
gcc -O0 -g "$OUT/comp.c" -o "$OUT/comp-bin" || { echo "cannot build comp-bin"; exit 1; }
# comp WORDS...: COMPREPLY for the last word, one per line, as bash would set it
cat > "$OUT/comp.sh" <<'EOF'
. docs/kptrace.bash
COMP_WORDS=("$@")
COMP_CWORD=$(($# - 1))
COMP_LINE="$*"
COMP_POINT=${#COMP_LINE}
_kptrace
printf '%s\n' "${COMPREPLY[@]}"
EOF
export XDG_CACHE_HOME=$OUT/xdg
comp() { PATH=$PWD:$PATH bash "$OUT/comp.sh" "$@"; }
# (not comp | grep -q: grep's early exit would be comp's SIGPIPE, a failure under pipefail)
has() { local want=$1; shift; grep -qxF -- "$want" <<< "$(comp "$@")"; }
exactly() { local want=$1; shift; test "$(comp "$@" | tr '\n' ' ')" = "$want"; }
t0=$(date +%s%N)
check "a subcommand prefix: la -> latency" exactly "latency " kptrace la
t1=$(date +%s%N)
check "an option prefix: --ba -> --backend" exactly "--backend " kptrace --ba
check "an option prefix: --no- -> --no-tracepoint --no-demangle --no-idle" exactly "--no-tracepoint --no-demangle --no-idle " kptrace --no-
check "a subcommand's own options: serve --l -> --listen" exactly "--listen " kptrace serve --l
check "--backend's values" exactly "auto fentry kprobe-multi kprobe " kptrace --backend ''
check "--backend=f (bash splits at =) -> fentry" exactly "fentry " kptrace --backend = f
check "--unit's values" exactly "ns us ms " kptrace latency --unit ''
check "--by keys after a comma: comm,p -> comm,pid comm,probe" exactly "comm,pid comm,probe " \
	kptrace count --by comm,p
check "--sort's values" exactly "sum " kptrace count --sort s
check "--by: the definition's argument names too" exactly "ret " \
	kptrace count "'t:syscalls/sys_exit_read ret if ret > 0'" --by r
check "--by: NAME=, not p:EVENT's symbol" exactly "dfd " \
	kptrace count "'p:ev do_sys_openat2 dfd=%di:s32 path=+0(%si):string'" --by d
rm -rf "$XDG_CACHE_HOME"
t2=$(date +%s%N)
check "a kernel function prefix: latency vfs_re -> vfs_read among them" has vfs_read kptrace latency vfs_re
t3=$(date +%s%N)
C=$XDG_CACHE_HOME/kptrace/$(uname -r)-$(cat /proc/sys/kernel/random/boot_id)
check "the lists cached for this boot and kernel" test -s "$C/functions"
check "p:vfs_re, split at ':' as bash splits it -> vfs_read" has vfs_read kptrace p : vfs_re
check "in an open quote: 'p:vfs_re -> p:vfs_read" has p:vfs_read kptrace "'p:vfs_re"
check "a tracepoint: t:sched/sched_sw -> sched/sched_switch" has sched/sched_switch kptrace t : sched/sched_sw
check "list sched/sched_sw -> sched/sched_switch" has sched/sched_switch kptrace list sched/sched_sw
P=$($KPT list --json vfs_read 2> /dev/null | grep -o '"params":.*' | grep -o '"name":"[^"]*"' |
	cut -d'"' -f4 | tr '\n' ' ')
check "vfs_read's parameters as kptrace list says ($P)" test -n "$P"
check "a function's parameters: 'p:vfs_read ' -> them all" \
	test "$(comp kptrace "'p:vfs_read " | sed 's/^p:vfs_read //' | tr '\n' ' ')" = "$P"
check "a parameter prefix: 'p:vfs_read c -> count" exactly "p:vfs_read count " kptrace "'p:vfs_read c"
check "a tracepoint's fields: 't:sched/sched_switch next_p' -> next_pid next_prio" \
	exactly "t:sched/sched_switch next_pid t:sched/sched_switch next_prio " kptrace "'t:sched/sched_switch next_p"
check "a binary's symbols after PATH: -> kpt_comp_alpha kpt_comp_beta" \
	exactly "kpt_comp_alpha kpt_comp_beta " kptrace p : "$OUT/comp-bin" : kpt_comp_
check "... and in an open quote" \
	has "r:$OUT/comp-bin:kpt_comp_beta" kptrace "'r:$OUT/comp-bin:kpt_comp_b"
# a prefix with a warm cache: the whole completion, bash started included
t4=$(date +%s%N)
for i in 1 2 3 4 5 6 7 8 9 10; do comp kptrace p : vfs_re > /dev/null; done
t5=$(date +%s%N)
for i in 1 2 3 4 5 6 7 8 9 10; do comp kptrace la > /dev/null; done
t6=$(date +%s%N)
echo "# completion: cold cache (kptrace list of $(wc -l < "$C/functions") functions)" \
	"$(((t3 - t2) / 1000000)) ms; warm prefix p:vfs_re $(((t5 - t4) / 10000000)) ms a call," \
	"of which bash starting and sourcing the file $(((t6 - t5) / 10000000)) ms" \
	"(a subcommand's, no lookup: $(((t1 - t0) / 1000000)) ms once)"
unset XDG_CACHE_HOME

echo "# make deb"
$MK deb > "$OUT/deb.log" 2>&1
check "make deb exits 0" test $? = 0
DEBV=$(echo "$V" | sed 's/-/+/; s/-/./g')
DEB=.output/kptrace_${DEBV}_$(dpkg --print-architecture).deb
check "the .deb is named for git describe's version: $DEB" test -s "$DEB"
dpkg-deb -c "$DEB" > "$OUT/deb-c.txt"
check "dpkg-deb -c: binary, man pages, completion, unit, example, copyright" python3 - "$OUT/deb-c.txt" <<'PY'
import sys
files = {l.split()[-1] for l in open(sys.argv[1])}
want = {"./usr/sbin/kptrace", "./usr/share/man/man8/kptrace.8.gz",
        "./usr/share/man/man5/kptrace-definitions.5.gz", "./usr/share/bash-completion/completions/kptrace",
        "./lib/systemd/system/kptrace.service", "./usr/share/doc/kptrace/examples/jobs.kpt",
        "./usr/share/doc/kptrace/copyright", "./usr/share/doc/kptrace/changelog.gz"}
assert want <= files, want - files
PY
check "control: version $DEBV, no Depends" \
	test "$(dpkg-deb -f "$DEB" Version Depends Pre-Depends)" = "Version: $DEBV"
lintian "$DEB" > "$OUT/lintian.txt" 2>&1
cat "$OUT/lintian.txt"
check "lintian: no E: line" test -z "$(grep '^E:' "$OUT/lintian.txt")"
R=$OUT/dpkgroot
mkdir -p "$R/var/lib/dpkg/info" "$R/var/lib/dpkg/updates" "$R/var/log"
touch "$R/var/lib/dpkg/status"
dpkg --root="$R" -i "$DEB" > "$OUT/dpkg-i.log" 2>&1
check "dpkg --root installs it" \
	test "$(dpkg-query --admindir="$R/var/lib/dpkg" -W -f '${Status}' kptrace)" = "install ok installed"
check "it runs there: kptrace --version" test "$("$R/usr/sbin/kptrace" --version | head -1)" = "kptrace $V"
check "it runs there: kptrace list vfs_read" \
	grep -qF 'ssize_t vfs_read(' <("$R/usr/sbin/kptrace" list vfs_read 2> /dev/null)
check "it runs there: serve --check of the shipped example job file" \
	"$R/usr/sbin/kptrace" serve -f "$R/usr/share/doc/kptrace/examples/jobs.kpt" --check
dpkg --root="$R" -P kptrace > "$OUT/dpkg-P.log" 2>&1
check "dpkg -P removes it: nothing left outside dpkg's database" \
	test -z "$(find "$R" ! -type d ! -path "$R/var/*")" -a \
		"$(find "$R" -mindepth 1 -maxdepth 1)" = "$R/var"
finish
