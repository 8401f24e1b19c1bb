#!/usr/bin/env bash
# Host tests of globs over tracepoints and over a binary's functions:
# tests/host/globs_target.c calls glob_a1 3 times, glob_a2 5, glob_b 7 (and
# makes 7 getppid and 3 lseek system calls); count's one table over the
# matches, --top over all of it, --by probe,comm, latency per function,
# matches lacking a field skipped, no match refused with a caret, --dry-run's
# list; a C++ program's functions by their demangled names and globs over
# them (tests/host/stacks_cxx.cc), against nm -C. Every expected count
# comes from what the program does, and every
# expected list of tracepoints from tracefs's own directory, never from
# kptrace.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/lib.sh

KPT=${KPT:-./kptrace}
OUT=.output/tests/host/globs
mkdir -p "$OUT"
OUT=$(realpath "$OUT")
[ "$(id -u)" = 0 ] || skip_all "host tests need root (BPF, uprobes, tracepoints)"
expect_checks 47
T=$OUT/globs_target
# static: its start-up makes no lseek or getppid of a dynamic linker's
gcc -static -O0 -fno-inline -g tests/host/globs_target.c -o "$T" ||
	{ echo "FAIL - cannot build tests/host/globs_target.c"; exit 1; }
EV=/sys/kernel/tracing/events
[ -d $EV/syscalls ] || EV=/sys/kernel/debug/tracing/events
[ -d $EV/syscalls ] || skip_all "no tracefs with syscalls/ events"

# rows FILE: count's table as "COUNT KEY...", one a line, as printed
rows() { awk '/^ +[0-9]+  / { $1 = $1; print }' "$1"; }
# sorted FILE: the counts never grow down the table
sorted() { rows "$1" | awk '{ if (NR > 1 && $1 > last) bad = 1; last = $1 } END { exit bad }'; }
# caret_under FILE WORD: the caret line's '^' sits under WORD in the line above it
caret_under() {
	awk -v w="$2" '/^ *\^$/ { if (index(prev, w) == index($0, "^")) ok = 1 } { prev = $0 }
		END { exit !ok }' "$1"
}

echo "# a uprobe glob over the program's functions"
kpt count "p:$T:glob_a*" -c "$T calls" > "$OUT/a.out" 2> "$OUT/a.err"
check "count 'p:PROG:glob_a*': two rows, 5 glob_a2 then 3 glob_a1 ($(rows "$OUT/a.out" | tr '\n' ';'))" \
	[ "$(rows "$OUT/a.out" | tr '\n' ';')" = "5 uprobes/p_globs_glob_a2_0;3 uprobes/p_globs_glob_a1_0;" ]
check "the glob's matches counted on stderr (2 functions)" \
	grep -q "glob_a\*': 2 functions$" "$OUT/a.err"

# __glob_a2 is glob_a2's alias: one address, probed once, by its public name
kpt count "p:$T:*glob_a*" -c "$T calls" > "$OUT/alias.out" 2> "$OUT/alias.err"
check "count 'p:PROG:*glob_a*' (an alias matches too): still 5 glob_a2, 3 glob_a1 ($(rows "$OUT/alias.out" | tr '\n' ';'))" \
	[ "$(rows "$OUT/alias.out" | tr '\n' ';')" = "5 uprobes/p_globs_glob_a2_0;3 uprobes/p_globs_glob_a1_0;" ]

# --top over the whole table: glob_b's 7 is the largest of every match
kpt count "p:$T:glob_*" --top 1 -c "$T calls" > "$OUT/top.out" 2> "$OUT/top.err"
check "count 'p:PROG:glob_*' --top 1: one row, 7 glob_b ($(rows "$OUT/top.out" | tr '\n' ';'))" \
	[ "$(rows "$OUT/top.out" | tr '\n' ';')" = "7 uprobes/p_globs_glob_b_0;" ]
kpt count "p:$T:glob_*" -c "$T calls" > "$OUT/all.out" 2> "$OUT/all.err"
rows "$OUT/all.out" > "$OUT/all.rows"
check "count 'p:PROG:glob_*': rows 7 glob_b, 5 glob_a2, 3 glob_a1 ($(tr '\n' ';' < "$OUT/all.rows"))" \
	sh -c "grep -qx '7 uprobes/p_globs_glob_b_0' '$OUT/all.rows' &&
	       grep -qx '5 uprobes/p_globs_glob_a2_0' '$OUT/all.rows' &&
	       grep -qx '3 uprobes/p_globs_glob_a1_0' '$OUT/all.rows'"
check "count 'p:PROG:glob_*': the table sorted by count" sorted "$OUT/all.out"
check "glob_ifunc, an IFUNC (its symbol the resolver), skipped with a note" \
	grep -q "1 IFUNC symbol skipped" "$OUT/all.err"
check "no probe on the IFUNC's symbol (glob_ifunc)" \
	sh -c "! grep -q 'p_globs_glob_ifunc_0 ' '$OUT/all.err'"
check "its positive control: glob_b's probe in the same run's profile" \
	grep -q 'p_globs_glob_b_0 ' "$OUT/all.err"
KPT_RC=error kpt count "p:$T:glob_ifun?" > /dev/null 2> "$OUT/ifunc.err"
check "a glob matching only the IFUNC: refused, saying so, the caret under the glob" \
	eval "grep -q 'only IFUNC symbols' '$OUT/ifunc.err' && caret_under '$OUT/ifunc.err' 'glob_ifun?'"

# --by probe,comm: the probe a column where --by puts it
kpt count "p:$T:glob_a*" --by probe,comm -c "$T calls" > "$OUT/by.out" 2> "$OUT/by.err"
check "--by probe,comm: COUNT probe comm ($(grep -m1 COUNT "$OUT/by.out" | tr -s ' '))" \
	grep -qE '^ +COUNT +probe +comm$' "$OUT/by.out"
check "--by probe,comm: 5 glob_a2 globs_target, 3 glob_a1 globs_target ($(rows "$OUT/by.out" | tr '\n' ';'))" \
	[ "$(rows "$OUT/by.out" | tr '\n' ';')" = "5 uprobes/p_globs_glob_a2_0 globs_target;3 uprobes/p_globs_glob_a1_0 globs_target;" ]
kpt count "p:$T:glob_a*" --by comm,probe -c "$T calls" > "$OUT/by2.out" 2> "$OUT/by2.err"
check "--by comm,probe: COUNT comm probe, 5 globs_target glob_a2 first" \
	sh -c "grep -qE '^ +COUNT +comm +probe$' '$OUT/by2.out' &&
	       [ \"\$(awk '/^ +[0-9]+  / { \$1 = \$1; print; exit }' '$OUT/by2.out')\" = '5 globs_target uprobes/p_globs_glob_a2_0' ]"

# latency over the glob: a histogram per function, its count the calls
kpt latency "$T:glob_a*" -c "$T calls" > "$OUT/lat.out" 2> "$OUT/lat.err"
check "latency 'PROG:glob_a*': two histograms, @glob_a1 and @glob_a2 ($(grep '^@' "$OUT/lat.out" | tr '\n' ' '))" \
	[ "$(grep '^@' "$OUT/lat.out" | tr '\n' ' ')" = "@glob_a1: @glob_a2: " ]
check "latency: @glob_a1 counts 3 calls, @glob_a2 5" \
	sh -c "awk '/^@/ { h = \$1 } /^count [0-9]+, sum/ { print h, \$2 }' '$OUT/lat.out' |
	       tr '\n' ';' | grep -qx '@glob_a1: 3,;@glob_a2: 5,;'"

echo "# tracepoint globs"
# every sys_enter_ event tracefs has: the expected number of matches
NSYS=$(find $EV/syscalls -mindepth 1 -maxdepth 1 -type d -name 'sys_enter_*' | wc -l)
kpt count 't:syscalls/sys_enter_*' -c "$T syscalls" > "$OUT/sys.out" 2> "$OUT/sys.err"
rows "$OUT/sys.out" > "$OUT/sys.rows"
check "count 't:syscalls/sys_enter_*': a probe per sys_enter_ event tracefs has ($NSYS)" \
	grep -q "'syscalls/sys_enter_\*': $NSYS tracepoints" "$OUT/sys.err"
check "the program's 7 getppid: exactly 7 ($(grep getppid "$OUT/sys.rows"))" \
	grep -qx '7 syscalls/sys_enter_getppid' "$OUT/sys.rows"
check "the program's 3 lseek: exactly 3 ($(grep lseek "$OUT/sys.rows"))" \
	grep -qx '3 syscalls/sys_enter_lseek' "$OUT/sys.rows"
check "one table, sorted by count, every row a sys_enter_ probe ($(wc -l < "$OUT/sys.rows") rows)" \
	eval "sorted '$OUT/sys.out' &&
	       ! grep -vq '^[0-9]* syscalls/sys_enter_[a-z0-9_]*$' '$OUT/sys.rows'"
echo "# attach: $(grep -m1 '^Attached' "$OUT/sys.err")"

# a field some matches lack: those skipped, the others counted
ls -d $EV/syscalls/sys_enter_l*/ | while read -r d; do
	grep -qE 'field:[^;]* fd;' "$d/format" && basename "$d"
done | sort > "$OUT/lfd.want"
NOFD=$(( $(ls -d $EV/syscalls/sys_enter_l*/ | wc -l) - $(wc -l < "$OUT/lfd.want") ))
# the probes attached from --json's profile, which lists each (the table
# puts those that never fired on one line)
kpt count --json 't:syscalls/sys_enter_l* fd' -c "$T syscalls" > "$OUT/lfd.out" 2> "$OUT/lfd.err"
python3 - "$OUT/lfd.err" <<'PY' | sort > "$OUT/lfd.got"
import json, sys
for l in open(sys.argv[1]):
    if l.startswith('{"type":"profile"'):
        print("\n".join(p["event"] for p in json.loads(l)["probes"]))
PY
check "'t:syscalls/sys_enter_l* fd': the $NOFD matches without fd skipped, with a note" \
	grep -q "kptrace: $NOFD glob match.* skipped" "$OUT/lfd.err"
check "the matches attached are those whose format has fd ($(tr '\n' ' ' < "$OUT/lfd.want"))" \
	cmp -s "$OUT/lfd.want" "$OUT/lfd.got"
jrows() { sed -n 's/^{"group":"\([^"]*\)","event":"\([^"]*\)","type":"count","count":\([0-9]*\).*/\3 \1\/\2/p' "$1"; }
check "and lseek's 3 counted ($(jrows "$OUT/lfd.out" | tr '\n' ';'))" \
	[ "$(jrows "$OUT/lfd.out" | tr '\n' ';')" = "3 syscalls/sys_enter_lseek;" ]

# the filter's field: getppid has no fd, skipped; the positive control is
# the getppid row of the run above
kpt count 't:syscalls/sys_enter_[gl]* if fd >= 0' -c "$T syscalls" > "$OUT/flt.out" 2> "$OUT/flt.err"
check "a filter on fd: getppid (no fd) skipped, noted" \
	eval "grep -q '^kptrace: [0-9]* glob match.* skipped' '$OUT/flt.err' &&
	      ! grep -q '^syscalls/sys_enter_getppid ' '$OUT/flt.err' &&
	      grep -q '^syscalls/sys_enter_lseek ' '$OUT/flt.err'"
check "a filter on fd: only lseek's 3 counted ($(rows "$OUT/flt.out" | tr '\n' ';'))" \
	[ "$(rows "$OUT/flt.out" | tr '\n' ';')" = "3 syscalls/sys_enter_lseek;" ]

# --by probe,comm over tracepoints
kpt count 't:syscalls/sys_enter_[gl]*' --by probe,comm -c "$T syscalls" > "$OUT/tby.out" 2> "$OUT/tby.err"
rows "$OUT/tby.out" > "$OUT/tby.rows"
check "--by probe,comm: 7 sys_enter_getppid globs_target, 3 sys_enter_lseek globs_target" \
	sh -c "grep -qx '7 syscalls/sys_enter_getppid globs_target' '$OUT/tby.rows' &&
	       grep -qx '3 syscalls/sys_enter_lseek globs_target' '$OUT/tby.rows'"
kpt count 't:syscalls/sys_enter_[gl]*' --top 1 -c "$T syscalls" > "$OUT/ttop.out" 2> "$OUT/ttop.err"
check "--top 1 over the tracepoints: the largest row of all ($(head -1 "$OUT/tby.rows" | cut -d' ' -f1,2))" \
	[ "$(rows "$OUT/ttop.out")" = "$(head -1 "$OUT/tby.rows" | cut -d' ' -f1,2)" ]

# no match: refused, the caret under the half that matched nothing
KPT_RC=error kpt count 't:syscalls/sys_enter_nosuch*' > "$OUT/none.out" 2> "$OUT/none.err"
check "a glob no tracepoint matches: refused, saying so" grep -q 'no tracepoint matches' "$OUT/none.err"
check "its caret under the event glob" caret_under "$OUT/none.err" 'sys_enter_nosuch*'
KPT_RC=error kpt count 't:nosuch_*/*' > /dev/null 2> "$OUT/nosys.err"
check "no subsystem matches: refused, the caret under the subsystem" \
	eval "grep -q 'no subsystem matches' '$OUT/nosys.err' && caret_under '$OUT/nosys.err' 'nosuch_*'"
check "nothing on stdout for a refusal" [ ! -s "$OUT/none.out" ]

# --dry-run: how many, and each match explained
ls -d $EV/sched/sched_wak*/ | xargs -n1 basename | sed 's|^|sched/|' | sort > "$OUT/dry.want"
kpt --dry-run 't:sched/sched_wak*' > "$OUT/dry.out" 2> "$OUT/dry.err"
check "--dry-run: how many matches ($(wc -l < "$OUT/dry.want"))" \
	grep -q "'sched/sched_wak\*': $(wc -l < "$OUT/dry.want") tracepoints" "$OUT/dry.err"
check "--dry-run: each match explained ($(tr '\n' ' ' < "$OUT/dry.want"))" \
	sh -c "grep -oE '^sched/[a-z_]+:' '$OUT/dry.out' | tr -d : | sort | cmp -s - '$OUT/dry.want'"
kpt --dry-run 't:*/sched_switch' > "$OUT/any.out" 2> "$OUT/any.err"
check "'t:*/sched_switch': the one tracepoint of that name" \
	[ "$(grep -oE '^[a-z_]+/[a-z_]+:' "$OUT/any.out")" = "sched/sched_switch:" ]

echo "# a kernel glob named as a function (issue 37): 'p:vfs_open *path'"
# ftrace reads it as an event vfs_open on every function *path matches;
# the user meant a probe on vfs_open: refused, with that reading
KPT_RC=error kpt explain 'p:vfs_open *path' > "$OUT/fn.out" 2> "$OUT/fn.err"
check "explain 'p:vfs_open *path': refused, did you mean a probe on vfs_open" \
	grep -q "^kptrace: error: 'vfs_open' is a kernel function: as written, this is an event named vfs_open on the [0-9]* functions '\*path' matches. Did you mean \`p vfs_open ...\`" "$OUT/fn.err"
check "... the caret under the event's name, nothing explained" \
	eval "caret_under '$OUT/fn.err' 'vfs_open' && [ ! -s '$OUT/fn.out' ]"
# a group says the name is meant; the count said again after the screens
kpt explain 'p:kprobes/vfs_open *path' > "$OUT/fng.out" 2> "$OUT/fng.err"
N=$(sed -n "s/^kptrace: '\*path': \([0-9]*\) functions.*/\1/p" "$OUT/fng.err")
check "'p:kprobes/vfs_open *path': taken, the $N matches explained" \
	[ -n "$N" -a "$(grep -c '^kprobes/vfs_open_[A-Za-z0-9_]*: ' "$OUT/fng.out")" = "$N" ]
check "... and counted again at the end: '$N probes explained above, $N of them a glob's matches'" \
	[ "$(tail -n 1 "$OUT/fng.out")" = "$N probes explained above, $N of them a glob's matches (a probe each)" ]

echo "# overlapping globs (issue 37): a function both match is probed once"
# glob_a2 matches both: refused before as "the exact same probe event"
kpt count "p:$T:glob_a*" "p:$T:*_a2" -c "$T calls" > "$OUT/ovl.out" 2> "$OUT/ovl.err"
check "count 'p:PROG:glob_a*' 'p:PROG:*_a2': 5 glob_a2, 3 glob_a1, as the program calls them ($(rows "$OUT/ovl.out" | tr '\n' ';'))" \
	[ "$(rows "$OUT/ovl.out" | tr '\n' ';')" = "5 uprobes/p_globs_glob_a2_0;3 uprobes/p_globs_glob_a1_0;" ]
check "... said on stderr: defined alike, traced once" \
	grep -q "p_globs_glob_a2_0: defined by definition 1 and definition 2 alike: traced once" "$OUT/ovl.err"
kpt count 't:syscalls/sys_enter_lsee*' 't:syscalls/sys_enter_*seek' --by probe -c "$T syscalls" \
	> "$OUT/tovl.out" 2> "$OUT/tovl.err"
check "count 't:syscalls/sys_enter_lsee*' 't:syscalls/sys_enter_*seek': the program's 3 lseek, once ($(rows "$OUT/tovl.out" | tr '\n' ';'))" \
	[ "$(rows "$OUT/tovl.out" | grep lseek | tr '\n' ';')" = "3 syscalls/sys_enter_lseek;" ]
# two globs that define the match differently are two events of one name:
# refused as the kernel refuses a second event of a name
KPT_RC=error kpt count 't:syscalls/sys_enter_lsee* fd' 't:syscalls/sys_enter_*seek' -c "$T syscalls" \
	> "$OUT/dovl.out" 2> "$OUT/dovl.err"
check "overlapping globs defining the match differently: refused, the event named" \
	grep -q "already used by another event" "$OUT/dovl.err"

echo "# C++ functions by their source names (issue 37): 'p:PROG:shop::Cart::total'"
# stacks_cxx.cc calls shop::checkout(char const*), shop::checkout(int) and
# shop::Cart::total(int) const once per round; addresses and names from nm -C
C=$OUT/cxx_target
g++ -O0 -fno-inline -no-pie tests/host/stacks_cxx.cc -o "$C" ||
	{ echo "FAIL - cannot build tests/host/stacks_cxx.cc"; exit 1; }
nm -C "$C" > "$OUT/nm-C.txt"
addr=$(awk '/ [Tt] shop::Cart::total\(int\) const$/ { print $1 }' "$OUT/nm-C.txt" | sed 's/^0*//')
kpt -c "$C 3" "p:$C:shop::Cart::total" > "$OUT/cxx.out" 2> "$OUT/cxx.err"
check "'p:PROG:shop::Cart::total': 3 events at nm -C's shop::Cart::total(int) const (0x$addr)" \
	[ -n "$addr" -a "$(grep -c ": (0x$addr)$" "$OUT/cxx.out")" = 3 ]
kpt count -c "$C 3" "r:$C:shop::Cart::total" > "$OUT/cxxr.out" 2> "$OUT/cxxr.err"
check "'r:PROG:shop::Cart::total': its 3 returns counted" \
	[ "$(awk '/^ +[0-9]+$/ { print $1 }' "$OUT/cxxr.out")" = 3 ]
KPT_RC=error kpt count -c "$C 1" "p:$C:shop::checkout" > /dev/null 2> "$OUT/over.err"
nover=$(grep -c ' [Tt] shop::checkout(' "$OUT/nm-C.txt")
check "'p:PROG:shop::checkout' ($nover overloads in nm -C): refused, each named" sh -c "
	grep -q \"'shop::checkout' is more than one function\" '$OUT/over.err' &&
	grep ' [Tt] shop::checkout(' '$OUT/nm-C.txt' | cut -d' ' -f3- | while read -r n; do
		grep -qF \"\$n (\" '$OUT/over.err' || exit 1; done"
kpt count -c "$C 3" "p:$C:shop::checkout*" > "$OUT/cglob.out" 2> "$OUT/cglob.err"
check "'p:PROG:shop::checkout*': nm -C's $nover functions, 3 calls each" \
	[ "$nover" = 2 -a "$(rows "$OUT/cglob.out" | awk '$1 == 3' | wc -l)" = "$nover" ]
nt=$(grep -c ' [Tt] [A-Za-z_:]*::total(' "$OUT/nm-C.txt")
kpt count -c "$C 2" "p:$C:*::total" > "$OUT/ctot.out" 2> "$OUT/ctot.err"
check "'p:PROG:*::total': nm -C's $nt function, 2 calls" \
	[ "$nt" = 1 -a "$(awk '/^ +[0-9]+$/ { print $1 }' "$OUT/ctot.out")" = 2 ]
KPT_RC=error kpt count -c "$C 1" "p:$C:shop::nothere" > /dev/null 2> "$OUT/cno.err"
check "'p:PROG:shop::nothere': no such function, said" \
	grep -q "no function 'shop::nothere' in $C" "$OUT/cno.err"

finish
