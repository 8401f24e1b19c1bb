#!/usr/bin/env bash
# Host tests of unwind tables read as the walk meets binaries: a program
# kptrace is not told of (no -p, no -c, no uprobe in it), built -O2
# -fomit-frame-pointer and started after kptrace, whose first part
# (uw_warm, from main) spins long enough for the table to arrive; its
# second part's stacks (uw_spin from uw_middle, getppid from uw_middle)
# must equal gdb's bt at the same function, whole: under a system-wide
# profile (a timer: interrupts off, mappings from /proc/PID/maps) and a
# syscall tracepoint with -U (bpf_find_vma()). A library it loads with
# dlopen() after its mappings were read, at sched_switch (interrupts off).
# With no room for its table
# (--unwind-rows): said once, its stacks marked [cut short]. The same
# program without .eh_frame: its stacks marked [cut short], its file read
# once, not again each 100 ms.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/lib.sh
. tests/host/stacklib.sh

KPT=${KPT:-./kptrace}
OUT=.output/tests/host/lazytab
mkdir -p "$OUT"
OUT=$(realpath "$OUT")
[ "$(id -u)" = 0 ] || skip_all "host tests need root (BPF, perf events, tracepoints)"
command -v gdb > /dev/null || skip_all "no gdb: no reference for the stacks"
expect_checks 12

B=$OUT/lz-o2
gcc -O2 -g -fomit-frame-pointer tests/host/unwind_target.c -o "$B" ||
	{ echo "FAIL - cannot build tests/host/unwind_target.c at -O2"; exit 1; }
# the workload: N calls of each part, a millisecond or so of CPU each
N=1500

# gdb's stacks at uw_spin's and getppid's first instruction, each frame
# NAME+0xOFF, down to main
gdb_stacks "$B" uw_spin 2 spin | sort -u > "$OUT/spin.ref"
gdb_stacks "$B" getppid 2 spin | sort -u > "$OUT/getppid.ref"

# late_check NAME LEAF REF GOT: each stack of the program's second part in
# GOT ("COUNT frame|frame...", to_main's form) has LEAF on top, then REF's
# frames after its first (gdb's from uw_middle on), whole; at least 50
# hits. The second part's: LEAF uw_spin's (called there only), or a stack
# whose second frame is uw_middle's (unwound by libc's table, read at start).
late_check() {
	local name=$1 leaf=$2 ref=$3 got=$4 ok=0
	python3 - "$ref" "$got" "$leaf" "$OUT/$name.n" <<'PY' || ok=1
import sys
refs = [l.rstrip("\n").split("|") for l in open(sys.argv[1]) if l.strip()]
ref = [r[1:] for r in refs if len(r) > 1 and r[1].startswith("uw_middle+")]
assert len(ref) == 1, refs
ref = ref[0]
leaf = sys.argv[3]
good = 0
bad = []
for line in open(sys.argv[2]):
    n, st = line.rstrip("\n").split(" ", 1)
    g = st.split("|")
    if leaf == "uw_spin" and not g[0].startswith(leaf + "+") or \
       leaf != "uw_spin" and not (len(g) > 1 and g[1].startswith("uw_middle+")):
        continue
    if g[0].startswith(leaf + "+") and g[1:] == ref:
        good += int(n)
    else:
        bad.append(line.strip())
open(sys.argv[4], "w").write("%d whole, %d rows otherwise\n" % (good, len(bad)))
assert not bad, (bad[:3], ref)
assert good >= 50, good
PY
	check "$name: the second part's stacks are gdb's at $leaf, whole ($(cat "$OUT/$name.n" 2> /dev/null))" \
		[ $ok = 0 ]
}

# "COUNT stack" lines into to_main's form, the count kept
rows_to_main() {
	while read -r n st; do printf '%s %s\n' "$n" "$(printf '%s\n' "$st" | to_main)"; done
}

# --- a system-wide profile: the timer's walks take /proc/PID/maps' mappings
if [ -s "$OUT/spin.ref" ]; then
	kpt_bg "$OUT/prof.err" profile -F 199 --by ustack -v > "$OUT/prof.out" &&
		{ "$B" $N spin & PID=$!; wait $PID; kpt_stop INT; }
	count_rows "$OUT/prof.out" | rows_to_main > "$OUT/prof.got"
	late_check prof uw_spin "$OUT/spin.ref" "$OUT/prof.got"
	check "profile: -v says $B's table was read late, for pid $PID" \
		grep -qE "^kptrace: unwind table of $B: [0-9]+ rows, from \.eh_frame, read late \(pid $PID's walk met it\)$" \
		"$OUT/prof.err"
	check "profile: and not at start" sh -c "! grep 'unwind table of $B:' '$OUT/prof.err' | grep -qv 'read late'"
else
	fail "no gdb reference at uw_spin: no profile check"
fi

# --- a syscall tracepoint with -U: bpf_find_vma() gives the walk the file
if [ -s "$OUT/getppid.ref" ]; then
	kpt_bg "$OUT/tp.err" -U -v t:syscalls/sys_enter_getppid > "$OUT/tp.out" &&
		{ "$B" $N spin & PID=$!; wait $PID; kpt_stop INT; }
	stacks_of "$OUT/tp.out" lz-o2 user | to_main | sort | uniq -c |
		sed -E 's/^ *([0-9]+) /\1 /' > "$OUT/tp.got"
	late_check tp getppid "$OUT/getppid.ref" "$OUT/tp.got"
	check "tracepoint: -v says $B's table was read late, for pid $PID" \
		grep -qE "^kptrace: unwind table of $B: [0-9]+ rows, from \.eh_frame, read late \(pid $PID's walk met it\)$" \
		"$OUT/tp.err"
else
	fail "no gdb reference at getppid: no tracepoint check"
fi

# --- a library loaded after the mappings were read (dlopen()), where
# interrupts are off (sched_switch: bpf_find_vma() answers once a run, the
# walk takes /proc/PID/maps' mappings): a pc in none of them has them read
# again (at most once a second), then the library's table. lazytab_dl.c
# naps 60 times in dl_warm, then loads lazytab_lib.c and naps 240 times
# through it: each of those stacks is gdb's at clock_nanosleep from its
# caller on, whole, or a part of it marked [cut short] (before the
# mappings and table came: a second or so); at least 100 whole.
DL=$OUT/lz-dl
LIB=$OUT/libuwl.so
if gcc -O2 -g -fomit-frame-pointer -fPIC -shared tests/host/lazytab_lib.c -o "$LIB" &&
	gcc -O2 -g -fomit-frame-pointer tests/host/lazytab_dl.c -o "$DL"; then
	gdb_stacks "$DL" clock_nanosleep 1 "$LIB" | sort -u | cut -d'|' -f2- > "$OUT/dl.ref"
	kpt_bg "$OUT/dl.err" -U -v --comm lz-dl 't:sched/sched_switch if prev_state == 1' \
		> "$OUT/dl.out" && { "$DL" 60 "$LIB"; kpt_stop INT; }
	stacks_of "$OUT/dl.out" lz-dl user | to_main > "$OUT/dl.got"
	dl_ok=0
	python3 - "$OUT/dl.ref" "$OUT/dl.got" > "$OUT/dl.n" <<'PY' || dl_ok=1
import sys
refs = [l.rstrip("\n").split("|") for l in open(sys.argv[1]) if l.strip()]
ref = [r for r in refs if "dl_run+" in "|".join(r)]
assert len(ref) == 1, refs
ref = ref[0]
whole = cut = 0
for line in open(sys.argv[2]):
    g = line.rstrip("\n").split("|")
    assert g[0].startswith("clock_nanosleep+"), g
    g = g[1:]
    if len(g) > 1 and g[1].startswith("dl_warm+"):
        continue    # the first part's
    if g == ref:
        whole += 1
        continue
    assert g[-1] == "[cut short]", (g, ref)
    # a frame in the library before its mapping was known: a bare address
    body = g[:-1]
    while body and body[-1] == "[unknown]":
        body.pop()
    assert ref[:len(body)] == body, (g, ref)
    cut += 1
print("%d whole, %d cut" % (whole, cut))
assert whole + cut == 240 and whole >= 100, (whole, cut)
PY
	check "dlopen()'d library at sched_switch: its 240 naps' stacks gdb's, whole, or a part marked [cut short]; at least 100 whole ($(cat "$OUT/dl.n"))" \
		[ $dl_ok = 0 ]
	check "dlopen()'d library: -v says its table was read late" \
		grep -qE "^kptrace: unwind table of $LIB: [0-9]+ rows, from \.eh_frame, read late " "$OUT/dl.err"
else
	fail "cannot build tests/host/lazytab_lib.c or lazytab_dl.c"
fi

# --- no room left (--unwind-rows under the table's rows): said once, the
# binary named, its stacks as without a table: each marked [cut short]
kpt_bg "$OUT/room.err" -U --unwind-rows 10 --comm lz-o2 t:syscalls/sys_enter_getppid \
	> "$OUT/room.out" && { "$B" 300 spin; kpt_stop INT; }
rows=$(readelf --debug-dump=frames "$B" 2> /dev/null | grep -c 'DW_CFA_advance_loc')
check "--unwind-rows 10: one warning, naming $B's table (readelf: $rows row advances) as finding no room" \
	sh -c "[ \$(grep -c 'no room for the unwind table' '$OUT/room.err') = 1 ] &&
		grep -q 'no room for the unwind table of $B ([0-9]* rows;' '$OUT/room.err' && [ $rows -gt 10 ]"
stacks_of "$OUT/room.out" lz-o2 user | to_main > "$OUT/room.got"
mid=$(grep -c '^getppid+[^|]*|uw_middle+' "$OUT/room.got")
check "--unwind-rows 10: each of the 300 stacks through uw_middle marked [cut short] ($mid)" \
	sh -c "[ $mid = 300 ] && [ \$(grep '^getppid+[^|]*|uw_middle+' '$OUT/room.got' | grep -c '|\[cut short\]\$') = 300 ]"

# --- no table at all: marked [cut short], the file read once -------------
# strace counts kptrace's opens of the file while the program runs 1.5 s:
# the table's read and the symbolizer's, where one each 100 ms would be 15
NOEH=$OUT/lz-noeh
if objcopy -R .eh_frame -R .eh_frame_hdr "$B" "$NOEH" && [ -s "$OUT/spin.ref" ]; then
	# LeakSanitizer cannot run under ptrace: off for this run of a
	# sanitized build (its other checks stay)
	ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0" \
		kpt_bg "$OUT/noeh.err" profile -F 199 --by ustack -v > "$OUT/noeh.out" &&
		{
			strace -f -qq -e trace=openat -o "$OUT/noeh.strace" -p "$KP_KPT" &
			ST=$!
			sleep 0.5
			"$NOEH" $N spin
			kpt_stop INT
			wait $ST
		}
	count_rows "$OUT/noeh.out" | rows_to_main > "$OUT/noeh.got"
	spin=$(awk '$2 ~ /^uw_spin\+/ { s += $1 } END { print s + 0 }' "$OUT/noeh.got")
	cut=$(awk '$2 ~ /^uw_spin\+/ && /\[cut short\]$/ { s += $1 } END { print s + 0 }' \
		"$OUT/noeh.got")
	check "no .eh_frame: each of the $spin profile hits in uw_spin is marked [cut short] ($cut), at least 50" \
		sh -c "[ $spin -ge 50 ] && [ $cut = $spin ]"
	opens=$(grep -c "\"$NOEH\"" "$OUT/noeh.strace")
	check "no .eh_frame: kptrace opened the file at most 5 times in the run ($opens), not again each 100 ms" \
		sh -c "[ $opens -ge 1 ] && [ $opens -le 5 ]"
	check "no .eh_frame: -v names no table of it" sh -c "! grep -q 'unwind table of $NOEH' '$OUT/noeh.err'"
else
	fail "cannot strip .eh_frame from $B (or no gdb reference)"
fi

finish
