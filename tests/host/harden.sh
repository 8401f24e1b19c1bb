#!/usr/bin/env bash
# Hardening on this machine's kernel, with uprobes on tests/host/target.c:
# exact loss accounting with the consumer stopped (SIGSTOP), 256 probes in
# one run and a low open-file limit, refusals without privilege, and -o
# never following a planted link or truncating someone else's file.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/lib.sh

KPT=$(realpath "${KPT:-./kptrace}")
OUT=.output/tests/host/harden
rm -rf "$OUT"
mkdir -p "$OUT"
OUT=$(realpath "$OUT")
BIN=$OUT/target
gcc -O0 -fno-inline -no-pie -g tests/host/target.c -o "$BIN" || { echo "cannot build target"; exit 1; }
[ "$(id -u)" = 0 ] || skip_all "hardening tests need root (BPF, uprobes, setpriv)"
expect_checks 38

# kptrace's BPF programs (names kpt_*) and what tracefs lists of this
# suite's target: compared before and after each run ("nothing left
# attached"). Programs another process holds open (a kptrace of someone
# else's, by its fdinfo) are not ours, and left out; ours while they run,
# and any nobody holds, are in. The positive control: a running kptrace of
# ours changes it.
kpt_state() {
	bpftool -j prog show 2>/dev/null | python3 -c '
import json, os, re, sys
me = int(sys.argv[1])
def ours(pid):
    while pid > 1:
        if pid == me:
            return True
        try:
            pid = int(open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            return False
    return False
holders = {}
for d in os.listdir("/proc"):
    if not d.isdigit():
        continue
    try:
        for f in os.listdir("/proc/%s/fdinfo" % d):
            m = re.search(r"^prog_id:\s*(\d+)", open("/proc/%s/fdinfo/%s" % (d, f)).read(), re.M)
            if m:
                holders.setdefault(int(m.group(1)), set()).add(int(d))
    except OSError:
        pass
print("\n".join(sorted("prog %d" % p["id"] for p in json.load(sys.stdin)
                      if p.get("name", "").startswith("kpt_")
                      and (not holders.get(p["id"]) or any(ours(h) for h in holders[p["id"]])))))' $$
	grep -F "$BIN" /sys/kernel/tracing/uprobe_events 2>/dev/null
	cat /sys/kernel/tracing/kprobe_events 2>/dev/null
}
BASE=$(kpt_state)
# new_state: what kpt_state has that BASE had not (BASE may hold a program
# another kptrace was just freeing, gone since)
new_state() { comm -13 <(sort <<< "$BASE") <(kpt_state | sort); }
# nothing_left: nothing new; a freed program leaves bpftool's list a moment
# after its last fd closes, so wait for that, bounded
nothing_left() {
	wait_for '[ -z "$(new_state)" ]' 5 ||
		{ echo "  (left 5 s after: $(new_state | tr '\n' ' '); before: $(tr '\n' ' ' <<< "$BASE"))"; return 1; }
}

# Field N of probe NAME's row in the exit profile (2 hits, 3 misses, 4 drops).
profile_field() {
	awk -v p="uprobes/$2" -v n="$3" '$1 == p { print $n }' "$1"
}

# kptrace on kpt_neg (once per round of the target) as probe NAME, into a
# 4 KiB ring buffer (about 50 records); once attached the shell function
# WORKLOAD runs ($kp: kptrace's own pid), then SIGINT, on which kptrace
# drains what the ring holds. Sets rc, delivered, drops, and running (the
# state while attached).
small_ring() {
	local name=$1 workload=$2
	running=
	if kpt_bg "$OUT/$name.err" --buffer-size 4K -o "$OUT/$name.out" "p:$name $BIN:kpt_neg v=%di:s32"; then
		kp=$KP_KPT
		running=$(kpt_state)
		$workload
	fi
	kpt_stop
	rc=$RC
	delivered=$(grep -c " $name: (0x.* v=" "$OUT/$name.out")
	drops=$(profile_field "$OUT/$name.err" "$name" 4)
}

echo "# loss accounting with the consumer stopped"
# N rounds, N events into 4 KiB: the rest must be counted as dropped.
N=5000
stopped_consumer() {
	kill -STOP $kp
	"$BIN" $N clean
	kill -CONT $kp
	# the consumer checks the counters each second
	wait_for "grep -q 'events lost so far' $OUT/loss.err" 5 ||
		problem "SIGSTOP: no 'events lost so far' warning within 5 s of SIGCONT"
}
small_ring loss stopped_consumer
check "kptrace's programs are seen while it runs (the control of 'nothing left attached')" \
	test -n "$(comm -13 <(sort <<< "$BASE") <(sort <<< "$running"))"
hits=$(profile_field "$OUT/loss.err" loss 2)
printed=$(sed -n 's/^\([0-9]*\) events printed.*/\1/p' "$OUT/loss.err")
lost_line=$(grep -c "^$printed events printed, $drops LOST (ring buffer full" "$OUT/loss.err")
# the warning while running: before the profile's header
warned=$(awk '/^PROBE /{exit} /events lost so far: the ring buffer was full/{n++} END{print n+0}' "$OUT/loss.err")
last_warned=$(awk '/^PROBE /{exit} /events lost so far/{v=$3} END{print v+0}' "$OUT/loss.err")
echo "  N=$N delivered=$delivered dropped=$drops hits=$hits printed=$printed warned=$warned (last said $last_warned)"
check "SIGSTOP: exit 0 after SIGCONT + SIGINT" test "$rc" = 0
check "SIGSTOP: delivered + dropped == N exactly ($delivered + ${drops:-?} == $N)" \
	test "$((delivered + ${drops:-0}))" = "$N"
check "SIGSTOP: some were delivered and some dropped (4 KiB buffer)" \
	test "$delivered" -gt 0 -a "${drops:-0}" -gt 0
check "SIGSTOP: hits == N and the summary's count == the lines written" \
	test "${hits:-x}:${printed:-x}" = "$N:$delivered"
check "SIGSTOP: a loss warning while running, with the exact count" \
	test "$warned" -ge 1 -a "$last_warned" = "${drops:-x}"
check "SIGSTOP: the exit summary says '$printed events printed, $drops LOST'" test "$lost_line" = 1
check "SIGSTOP: nothing left attached" nothing_left

echo "# a small ring read while it fills: records wrap past its end"
# 60 bursts of 10 (one process each, so the consumer keeps up) wrap the
# ring a dozen times, and each wrapping record is put back together
# (src/run/ringbuf.c) before the decoder holds it to the record ABI (a bad one
# is "malformed").
bursts() { for i in $(seq 1 60); do "$BIN" 10 clean > /dev/null; done; }
small_ring wrap bursts
check "4 KiB ring: delivered + dropped == 600 ($delivered + ${drops:-?}), rc $rc" \
	test "$rc:$((delivered + ${drops:-0}))" = "0:600"
check "4 KiB ring: wrapped many times ($delivered records), none malformed" \
	test "$delivered" -ge 300 -a "$(grep -c malformed "$OUT/wrap.err")" = 0

echo "# 256 probes in one run"
# One round of the target calls kpt_args6, kpt_args8 and kpt_neg once,
# kpt_struct twice (with NULL) and kpt_str three times; R rounds.
R=3
funcs=(kpt_args6 kpt_args8 kpt_struct kpt_str kpt_neg)
per_round=(1 1 2 3 1)
: > "$OUT/many.defs"
declare -A want
for i in $(seq 0 255); do
	f=$((i % 5))
	kind=p
	[ $((i % 4)) = 3 ] && kind=r
	if [ $kind = r ]; then args='ret=$retval:s64'; else args="a=%di:x64 b=%si:u32"; fi
	echo "$kind:m$i $BIN:${funcs[$f]} $args" >> "$OUT/many.defs"
	want[m$i]=$((per_round[f] * R))
done
kpt -f "$OUT/many.defs" -c "$BIN $R" > "$OUT/many.out" 2> "$OUT/many.err"
rc=$?
bad=0
total=0
for i in $(seq 0 255); do
	lines=$(grep -c " m$i: (" "$OUT/many.out")
	hits=$(profile_field "$OUT/many.err" m$i 2)
	total=$((total + lines))
	if [ "$lines:$hits" != "${want[m$i]}:${want[m$i]}" ]; then
		[ $bad -lt 5 ] && echo "  m$i: $lines lines, ${hits:-no} hits, want ${want[m$i]}"
		bad=$((bad + 1))
	fi
done
check "256 probes: exit 0 ($(grep -m1 Attached "$OUT/many.err"))" test "$rc" = 0
check "256 probes: every probe's lines and hits are exact ($total lines; $bad probes wrong)" \
	test "$bad" = 0
check "256 probes: nothing left attached after exit" nothing_left

# A low open-file limit: refused before anything is loaded, naming the limit.
(ulimit -n 20; KPT_RC=error kpt -f "$OUT/many.defs" -c "$BIN 1") > /dev/null 2> "$OUT/nofile.err"
rc=$?
check "ulimit -n 20: exit $rc (a refusal)" test "$rc" = 1
check "ulimit -n 20: the message names the open-file limit: $(head -c 160 "$OUT/nofile.err")" \
	grep -q 'open-file limit (ulimit -n) is 20; raise it' "$OUT/nofile.err"
check "ulimit -n 20: nothing attached" bash -c "! grep -q Attaching '$OUT/nofile.err'"
check "ulimit -n 20: nothing left loaded" nothing_left
# A soft limit below the need with a hard limit above it: raised, and runs.
# (100 probes: detaching uprobes costs this kernel about 0.13 s each)
head -n 100 "$OUT/many.defs" > "$OUT/soft.defs"
want100=0
for i in $(seq 0 99); do want100=$((want100 + want[m$i] / R)); done
(ulimit -Sn 64 && ulimit -Hn 4096 && kpt -f "$OUT/soft.defs" -c "$BIN 1") > "$OUT/soft.out" 2> "$OUT/soft.err"
rc=$?
got=$(grep -c ' m[0-9]*: (' "$OUT/soft.out")
check "soft limit 64, hard 4096: raised, 100 probes run (exit $rc, $got of $want100 lines)" \
	test "$rc:$got" = "0:$want100"

echo "# privilege"
# nobody [SETPRIV OPTIONS] -- ARGS: a copy of kptrace run as nobody, through kpt
nobody() {
	local opts=()
	while [ "$1" != -- ]; do opts+=("$1"); shift; done
	shift
	KPT="setpriv --reuid=65534 --regid=65534 --clear-groups ${opts[*]} $OUT/kptrace" kpt "$@"
}
cp "$KPT" "$OUT/kptrace"
chmod 755 "$OUT" "$OUT/kptrace"
KPT_RC=error nobody -- -d 1 "p:np $BIN:kpt_neg" > /dev/null 2> "$OUT/nobody.err"
rc=$?
check "unprivileged: exit $rc (a refusal)" test "$rc" = 1
check "unprivileged: names the missing capabilities: $(head -c 120 "$OUT/nobody.err")" \
	grep -q 'lacks CAP_BPF and CAP_PERFMON.*or CAP_SYS_ADMIN' "$OUT/nobody.err"
check "unprivileged: nothing attached" nothing_left
KPT_RC=error nobody --inh-caps=+bpf --ambient-caps=+bpf -- -d 1 "p:np $BIN:kpt_neg" \
	> /dev/null 2> "$OUT/bpfonly.err"
rc=$?
check "CAP_BPF alone: exit $rc, names CAP_PERFMON only" \
	bash -c "[ $rc = 1 ] && grep -q 'lacks CAP_PERFMON:' '$OUT/bpfonly.err'"
# CAP_BPF and CAP_PERFMON, the documented non-root way, as nobody. What the
# kernel grants such a user is the host's: the references are its own
# verdicts, without kptrace. Tracefs readable by nobody (its mode): a
# tracepoint counts the workload's one exit_group; root's (0700, the
# default): the refusal names that, not a missing mount. A bare
# perf_event_open of the uprobe as nobody (perf_uprobe.py) succeeds: the
# uprobe traces the workload's 5 calls; refused: so is kptrace, saying it.
CAPS=(--inh-caps=+bpf,+perfmon --ambient-caps=+bpf,+perfmon)
PY=$(command -v /usr/bin/python3 python3 | head -n 1)
cp tests/host/perf_uprobe.py "$OUT/perf_uprobe.py"
if setpriv --reuid=65534 --regid=65534 --clear-groups test -r /sys/kernel/tracing/events; then
	nobody "${CAPS[@]}" -- count -c "$BIN 5 clean" t:syscalls/sys_enter_exit_group \
		> "$OUT/caps-tp.out" 2> "$OUT/caps-tp.err"
	check "CAP_BPF+CAP_PERFMON, tracefs readable: the workload's 1 exit_group counted" \
		grep -qE '^ +1$' "$OUT/caps-tp.out"
else
	KPT_RC=error nobody "${CAPS[@]}" -- -d 1 t:syscalls/sys_enter_exit_group \
		> /dev/null 2> "$OUT/caps-tp.err"
	check "CAP_BPF+CAP_PERFMON, tracefs root's (nobody cannot read it): refused, saying so: $(head -c 100 "$OUT/caps-tp.err")" \
		grep -q 'tracing is not readable by this user (Permission denied): run kptrace as root, or let the user read it' \
		"$OUT/caps-tp.err"
fi
verdict=$(setpriv --reuid=65534 --regid=65534 --clear-groups "${CAPS[@]}" "$PY" "$OUT/perf_uprobe.py" \
	"$BIN" kpt_neg 2>&1)
if [ "$verdict" = ok ]; then
	KPT="setpriv --reuid=65534 --regid=65534 --clear-groups ${CAPS[*]} $OUT/kptrace" \
		kpt_bg "$OUT/caps-u.err" -d 3 "p:np $BIN:kpt_neg v=%di:s32" > "$OUT/caps-u.out" &&
		{ "$BIN" 5 clean > /dev/null; kpt_stop INT; }
	check "CAP_BPF+CAP_PERFMON, the kernel grants the uprobe: the workload's 5 calls traced" \
		test "$(grep -c ' np: (0x.* v=12345' "$OUT/caps-u.out")" = 5
else
	KPT_RC=error nobody "${CAPS[@]}" -- -d 1 "p:np $BIN:kpt_neg v=%di:s32" > /dev/null \
		2> "$OUT/caps-u.err"
	check "CAP_BPF+CAP_PERFMON, the kernel refuses the uprobe (perf_event_open: ${verdict:0:40}): refused, root named" \
		grep -q 'has CAP_BPF and CAP_PERFMON but not CAP_SYS_ADMIN.*run kptrace as root' "$OUT/caps-u.err"
fi
nobody -- --dry-run "p:np $BIN:kpt_neg v=%di:s32" > "$OUT/nobody-dry.out" 2>&1
check "unprivileged --dry-run still explains (no privilege needed)" \
	grep -q '^print fmt:' "$OUT/nobody-dry.out"

echo "# -o: no planted links, no predictable paths"
D=$OUT/odir
mkdir -p "$D"
echo precious > "$D/victim"
ln -s "$D/victim" "$D/link"
KPT_RC=error kpt -o "$D/link" -c "$BIN 1" "p:o $BIN:kpt_neg" > /dev/null 2> "$OUT/olink.err"
rc=$?
check "-o SYMLINK: refused (exit $rc) with a clear message" \
	bash -c "[ $rc = 1 ] && grep -q 'refusing to write events to $D/link: it is a symbolic link' '$OUT/olink.err'"
check "-o SYMLINK: the link's target is untouched" test "$(cat "$D/victim")" = precious
check "-o SYMLINK: refused before attaching anything" \
	bash -c "! grep -q Attaching '$OUT/olink.err'"
ln -s "$D/nonexistent" "$D/dangling"
KPT_RC=error kpt -o "$D/dangling" -c "$BIN 1" "p:o $BIN:kpt_neg" > /dev/null 2> "$OUT/odang.err"
check "-o dangling SYMLINK: refused, nothing created through it" \
	bash -c "[ $? = 1 ] && [ ! -e '$D/nonexistent' ] && grep -q 'symbolic link' '$OUT/odang.err'"
ln "$D/victim" "$D/hardlink"
KPT_RC=error kpt -o "$D/hardlink" -c "$BIN 1" "p:o $BIN:kpt_neg" > /dev/null 2> "$OUT/ohard.err"
check "-o HARDLINK: refused, the other name's content untouched" \
	bash -c "[ $? = 1 ] && grep -q 'other hard links' '$OUT/ohard.err' && [ \"\$(cat '$D/victim')\" = precious ]"
# A file planted by another user in a sticky world-writable directory (/tmp).
S=$OUT/sticky
mkdir -p "$S" && chmod 1777 "$S"
echo planted > "$S/out" && chown 65534:65534 "$S/out"
KPT_RC=error kpt -o "$S/out" -c "$BIN 1" "p:o $BIN:kpt_neg" > /dev/null 2> "$OUT/oplant.err"
check "-o a file of another user in a sticky directory: refused, not truncated" \
	bash -c "[ $? = 1 ] && grep -q 'belongs to another user' '$OUT/oplant.err' && [ \"\$(cat '$S/out')\" = planted ]"
rm -f "$D/new"
kpt -o "$D/new" -c "$BIN 2" "p:o $BIN:kpt_neg" > /dev/null 2> "$OUT/onew.err"
check "-o NEWFILE: created 0600 with the events ($(stat -c %a "$D/new" 2>/dev/null), $(grep -c ' o: (' "$D/new" 2>/dev/null) lines)" \
	test "$(stat -c %a "$D/new" 2>/dev/null):$(grep -c ' o: (' "$D/new" 2>/dev/null)" = "600:2"
printf 'old content that is longer than the events\n%.0s' $(seq 100) > "$D/mine"
kpt -o "$D/mine" -c "$BIN 1" "p:o $BIN:kpt_neg" > /dev/null 2> "$OUT/omine.err"
check "-o an existing file of ours: truncated and rewritten" \
	test "$(grep -c . "$D/mine")" = 1
kpt -o /dev/null -c "$BIN 1" "p:o $BIN:kpt_neg" > /dev/null 2> "$OUT/onull.err"
rc=$?
check "-o /dev/null (a device) still works (exit $rc, $(profile_field "$OUT/onull.err" o 2) hits)" \
	test "$rc:$(profile_field "$OUT/onull.err" o 2)" = 0:1
# kptrace never makes a file of its own in a shared directory: no such path,
# and no temporary-file call, in its sources, but for the two known and
# safe: JITs' perf-PID.map read in /tmp (perf's convention), and a debug
# file written beside its final name in the user's debuginfod cache.
check "no /tmp path, mkstemp, tmpfile or tmpnam in src/ (but perf maps read, the cache's file)" \
	bash -c "[ -f src/sys/usym.c ] && ! grep -rnE '\"/tmp|\\b(mkstemp|mkostemp|tmpfile|tmpnam|tempnam)\\(' src |
		grep -vE '^src/sys/usym\.[ch]:[0-9]+:.*perf_map_dir|^src/sys/debuginfod\.c:[0-9]+:	fd = mkstemp\(tmp\);'"
check "-o: nothing left attached after all of it" nothing_left

# Another tool's perf events on a tracepoint kptrace traces: the kernel
# hands the event to them only when every BPF program on the tracepoint
# returns non-zero. The reference: perf stat's counts of a workload's
# lseek(2) calls (1003 each run) and forks, alone and while a kptrace -c
# runs (its own programs on task_newtask follow -c's forks).
perf_pair() {
	perf stat -x, -e syscalls:sys_enter_lseek,task:task_newtask -o "$1" -- \
		sh -c "$BIN seek; $BIN seek & wait" &&
		awk -F, '/sys_enter_lseek|task_newtask/ { printf "%s%s", s, $1; s = "/" }' "$1"
}
# perf record -a: an event per CPU, CPU 0's beside the one kptrace's program
# is attached through; the target's lseeks among everyone's.
perf_rec() {
	perf record -q -a -e syscalls:sys_enter_lseek -o "$1" -- "$BIN" seek > /dev/null 2>&1 &&
		perf script -i "$1" -F comm 2> /dev/null | grep -c '^ *target *$'
}
if command -v perf > /dev/null; then
	alone=$(perf_pair "$OUT/perf-alone.csv")
	ralone=$(perf_rec "$OUT/perf-alone.data")
	beside=
	rbeside=
	if kpt_bg "$OUT/pb.err" count 't:syscalls/sys_enter_lseek' -c "sleep 30" > "$OUT/pb.out"; then
		beside=$(perf_pair "$OUT/perf-beside.csv")
		rbeside=$(perf_rec "$OUT/perf-beside.data")
		kill -INT $KP 2>/dev/null
		wait $KP
	fi
	check "perf stat beside kptrace on the same tracepoints sees what it sees alone (lseeks/forks: $alone alone, $beside beside)" \
		test "$alone" = "2006/2" -a "$beside" = "$alone"
	check "perf record -a beside kptrace on the same tracepoint sees the target's 1003 lseeks ($ralone alone, $rbeside beside)" \
		test "$ralone" = 1003 -a "$rbeside" = 1003
else
	skip "perf is not installed (linux-perf): perf beside kptrace"
	skip "perf is not installed (linux-perf): perf record beside kptrace"
fi
finish
