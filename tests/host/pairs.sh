#!/usr/bin/env bash
# Host tests of latency --from/--to pairings (issue 39) on
# tests/host/pairs_target.c's known workloads: several starts and ends,
# globs paired by name, one tracepoint at both ends keyed by cpu, and
# --key fields the definitions do not list. References: the program's own
# counts, and for sched_switch the kernel's own ftrace buffer.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/lib.sh

KPT=${KPT:-./kptrace}
OUT=.output/tests/host/pairs
mkdir -p "$OUT"
OUT=$(realpath "$OUT")
[ "$(id -u)" = 0 ] || skip_all "host tests need root (BPF, uprobes)"
expect_checks 29
B=$OUT/pairs_target
gcc -O0 -g -static tests/host/pairs_target.c -o "$B" ||
	gcc -O0 -g tests/host/pairs_target.c -o "$B" ||
	{ echo "FAIL - cannot build tests/host/pairs_target.c"; exit 1; }

# kptrace in the background (tests/lib.sh's kpt_bg) for events outside the
# workload's own tasks (a wakeup in an interrupt, a switch in the previous
# task): the workload runs once it has attached, and ends before -d does
bg() {
	local out=$1; shift
	kpt_bg "$out.err" "$@" > "$out.out"
}
# the hits the kernel did not run kptrace's program for (another BPF
# program ran on that CPU: the profile says so), each at most one pair lost
not_run() {
	sed -n 's/.*, \([0-9]*\) hits NOT RUN by the kernel.*/\1/p; s/.*"not_run":\([0-9]*\).*/\1/p' "$1" |
		head -n 1 | grep . || echo 0
}
# "count N, ..." of the histogram titled $2 (a fixed string) in file $1
hist_count() {
	awk -v t="$2" 'index($0, t) == 1 { on = 1; if (match($0, /: count [0-9]+/)) {
		print substr($0, RSTART + 8, RLENGTH - 8); exit } next }
		on && /^count / { print $2 + 0; exit }' "$1" | tr -d ,
}

# the kernel's own sched events, an ftrace instance's: ftrace_on FILTER
# [EVENT...] (FILTER empty: all; the events sched_switch unless named)
# starts recording them, ftrace_off FILE stops and keeps them
T=/sys/kernel/tracing
[ -d $T/instances ] || T=/sys/kernel/debug/tracing
I=$T/instances/kpt_pairs
ftrace_on() {
	local f=$1 e; shift
	rmdir "$I" 2>/dev/null
	mkdir "$I" || { env_fault "cannot make an ftrace instance at $I"; return 1; }
	echo 8192 > "$I/buffer_size_kb"
	echo 1 > "$I/options/record-tgid"
	for e in "${@:-sched_switch}"; do
		[ -z "$f" ] || echo "$f" > "$I/events/sched/$e/filter"
		echo 1 > "$I/events/sched/$e/enable"
	done
}
ftrace_off() {
	echo 0 > "$I/events/enable"
	cat "$I/trace" > "$1"
	cat "$I/per_cpu/cpu"*/stats | sed -n 's/^overrun: //p' | paste -sd+ | bc > "$1.overrun"
	rmdir "$I"
}

# runqlat NAME DESC: the workload's 4 forks and 6 sleeps (run by the
# caller) as ftrace's buffer shows them (NAME.ftrace: its sched_wakeup and
# sched_wakeup_new events, filtered as kptrace's starts are: under load a
# task of the workload may sleep once more than planned) are NAME's pairs;
# a wakeup of a task not yet off its CPU has no switch to end it: the next
# start under its pid replaces it, or it stays open; each is said
runqlat_check() {
	local n r o m w
	n=$(hist_count "$OUT/$1.out" '@sched_wakeup|sched_wakeup_new->sched_switch:')
	r=$(sed -n 's/.*, \([0-9]*\) --from starts NEVER ENDED.*/\1/p' "$OUT/$1.err")
	o=$(sed -n 's/.*, \([0-9]*\) --from starts still open at the end.*/\1/p' "$OUT/$1.err")
	m=$(not_run "$OUT/$1.err")
	w=$(grep -cE ' sched_wakeup(_new)?: ' "$OUT/$1.ftrace")
	check "$2: ftrace's $w wakeups of the workload (4 forks + 6 sleeps planned; ftrace lost $(cat "$OUT/$1.ftrace.overrun")) = pairs (or starts replaced, or open, or not run): $n + ${r:-0} + ${o:-0} + $m" \
		[ "$(cat "$OUT/$1.ftrace.overrun")" = 0 -a "$w" -ge 10 -a $((${n:-0} + ${r:-0} + ${o:-0})) -le "$w" \
		-a $((${n:-0} + ${r:-0} + ${o:-0} + m)) -ge "$w" -a "${n:-0}" -ge $((w - 2)) ]
}

# runqlat: both wakeups start the clock (a second --from adds, it does
# not replace the first)
ftrace_on 'comm == "pairs_target"' sched_wakeup sched_wakeup_new || exit
bg "$OUT/rq" latency -d 2 --key pid=next_pid \
	--from 't:sched/sched_wakeup comm if comm == "pairs_target"' \
	--from 't:sched/sched_wakeup_new comm if comm == "pairs_target"' \
	--to 't:sched/sched_switch'
"$B" wake
wait $KP
ftrace_off "$OUT/rq.ftrace"
runqlat_check rq "runqlat, sched_wakeup and sched_wakeup_new to sched_switch by pid=next_pid (fields unlisted)"

# the same by the prio of the program run SCHED_FIFO 7 (99 - 7), each
# definition filtered by one comparison of a field: direct pairs
ftrace_on 'prio == 92' sched_wakeup sched_wakeup_new || exit
bg "$OUT/rqp" latency -d 2 --key pid=next_pid \
	--from 't:sched/sched_wakeup if prio == 92' --from 't:sched/sched_wakeup_new if prio == 92' \
	--to 't:sched/sched_switch if next_prio == 92'
chrt -f 7 "$B" wake
wait $KP
ftrace_off "$OUT/rqp.ftrace"
runqlat_check rqp "runqlat filtered by prio, the direct pairs"

# gethostlatency: two functions start, both returns end, by thread
kpt latency --from "p:$B:lookup_a" --from "p:$B:lookup_b" --to "r:$B:lookup_a" \
	--to "r:$B:lookup_b" --unit us -c "$B hosts" > "$OUT/gh.out" 2> "$OUT/gh.err"
check "two --from functions, two --to returns: lookup_a's 3 calls and lookup_b's 2, each >= 2 ms" python3 - "$OUT/gh.out" <<'PY'
import re, sys
got, title = {}, None
for line in open(sys.argv[1]):
    m = re.match(r"@p_pairs_lookup_a_0\|p_pairs_lookup_b_0->(\S+):$", line)
    title = m.group(1) if m else title
    m = re.match(r"count (\d+), sum \S+, avg \S+, min ([\d.]+)us", line)
    if m and title:
        got[title] = (int(m.group(1)), float(m.group(2)))
        title = None
assert sorted(v[0] for v in got.values()) == [2, 3], got
assert all(v[1] >= 2000 for v in got.values()), got
PY

# syscount -L: globs on both sides pair by what the wildcard matched
kpt latency --from 't:syscalls/sys_enter_get*' --to 't:syscalls/sys_exit_get*' \
	-c "$B sys" > "$OUT/sc.out" 2> "$OUT/sc.err"
check "--from sys_enter_get* --to sys_exit_get*: getppid's 7 calls and getuid's 5, each its own pair" \
	[ "$(hist_count "$OUT/sc.out" '@sys_enter_getppid->sys_exit_getppid:')/$(hist_count "$OUT/sc.out" '@sys_enter_getuid->sys_exit_getuid:')" = 7/5 ]
check "the get* pairs without a call: left out, counted in one line, no '(no events)' each" \
	sh -c "grep -qE '^\([0-9]+ --from/--to pairs without a call left out: --zeros shows them\)$' '$OUT/sc.out' &&
		! grep -q '(no events)' '$OUT/sc.out'"
KPT_RC=error kpt latency --from 't:syscalls/sys_enter_get*' --to 't:syscalls/sys_exit_get*' \
	--from 't:syscalls/sys_enter_read' -d 1 > "$OUT/sc2.out" 2> "$OUT/sc2.err"
check "globs on both sides with a plain --from beside them: refused, saying which" \
	grep -q "error: --from syscalls/sys_enter_read: globs on both --from and --to pair their matches by name" "$OUT/sc2.err"
kpt latency --from 't:syscalls/sys_enter_getppid' --from 't:syscalls/sys_enter_getuid' \
	--to 't:syscalls/sys_exit_get*' -c "$B sys" > "$OUT/sc3.out" 2> "$OUT/sc3.err"
sc3=$(hist_count "$OUT/sc3.out" '@sys_enter_getppid|sys_enter_getuid->sys_exit_getppid:')/$(hist_count "$OUT/sc3.out" '@sys_enter_getppid|sys_enter_getuid->sys_exit_getuid:')
check "a glob on one side only: every start pairs with every end, nothing refused (getppid's 7 + getuid's 5: $sc3)" \
	sh -c "! grep -q 'error' '$OUT/sc3.err' && [ '$sc3' = 7/5 ]"

# the bench's multi job on the workload: four tracepoints, each with a
# program of its own that knows its probe without the attachment's cookie,
# a helper call a hit (bpftool's dump of the programs kptrace holds: four
# slot programs, no bpf_get_attach_cookie call), the pairs exact
bg "$OUT/mu" latency -d 30 --comm pairs_target \
	--from t:syscalls/sys_enter_getppid --from t:syscalls/sys_enter_getuid \
	--to t:syscalls/sys_exit_getppid --to t:syscalls/sys_exit_getuid
for id in $(held_by $KP); do
	bpftool prog show id "$id" | sed -n 's/^[0-9]*: \([a-z_]*\) *name \([a-z_0-9]*\).*/# \1 \2/p'
	bpftool prog dump xlated id "$id"
done > "$OUT/mu.xlated" 2>&1
"$B" sys
kpt_stop
mu=$(hist_count "$OUT/mu.out" '@sys_enter_getppid|sys_enter_getuid->sys_exit_getppid:')/$(hist_count "$OUT/mu.out" '@sys_enter_getppid|sys_enter_getuid->sys_exit_getuid:')
check "two --from and two --to tracepoints: getppid's 7 calls and getuid's 5 ($mu)" [ "$mu" = 7/5 ]
check "  each tracepoint a program of its own, none reading the cookie (bpftool: $(grep -c '^# tracepoint kpt_tp_s' "$OUT/mu.xlated") kpt_tp_s*, $(grep -c 'bpf_get_attach_cookie' "$OUT/mu.xlated") cookie calls)" \
	sh -c "[ \$(grep -c '^# tracepoint kpt_tp_s[0-3]\$' '$OUT/mu.xlated') = 4 ] &&
		[ \$(grep -c '^# tracepoint' '$OUT/mu.xlated') = 4 ] &&
		! grep -q 'bpf_get_attach_cookie' '$OUT/mu.xlated'"

# a pair through tp_btf (TP_PROTO's regs->orig_ax, x86-64's pt_regs
# names), by the thread and by a value, filtered by one comparison: the
# direct pair path, against the workload's 1000 lseeks and the classic
# tracepoint's counts of the same run's hits
if [ "$(uname -m)" = x86_64 ] && [ -e /sys/kernel/btf/vmlinux ]; then
	E0=raw_syscalls/sys_enter X0=raw_syscalls/sys_exit
	BE="$E0 nr=regs->orig_ax" BX="$X0 nr=regs->orig_ax"
	kpt --dry-run --backend tp-btf latency --from "t:$BE if nr == 8" --to "t:$BX if nr == 8" \
		> "$OUT/bp-dry.txt" 2>&1
	kpt --dry-run --backend tp-btf latency --key fd --from "t:$E0 fd=regs->di if fd == 1000" \
		--to "t:$X0 fd=regs->di if fd == 1000" > "$OUT/bpk-dry.txt" 2>&1
	check "tp_btf pairs by the thread and by regs->di, each filtered by one comparison: both ends on the direct path, loads checked against BTF" \
		sh -c "[ \"\$(grep -c \"^latency: timed straight from the context, no record built, the filter's one comparison from the context too, each load through TP_PROTO's arguments checked by the verifier against BTF\$\" '$OUT/bp-dry.txt' '$OUT/bpk-dry.txt' | cut -d: -f2 | tr '\n' ' ')\" = '2 2 ' ]"
	kpt --json --backend tp-btf latency --from "t:$BE if nr == 8" --to "t:$BX if nr == 8" \
		-c "$B seek" > "$OUT/bp.json" 2> "$OUT/bp.err"
	kpt --json --backend tracepoint latency --from 't:raw_syscalls/sys_enter if id == 8' \
		--to 't:raw_syscalls/sys_exit if id == 8' -c "$B seek" > "$OUT/bpc.json" 2> "$OUT/bpc.err"
	# by a value, no target (an end of any task's start is generic): the
	# workload's lseeks are on fd 1000, which nothing else of this host uses
	kpt_bg "$OUT/bpk.err" --json --backend tp-btf latency -d 2 --key fd \
		--from "t:$E0 fd=regs->di if fd == 1000" --to "t:$X0 fd=regs->di if fd == 1000" \
		> "$OUT/bpk.json"
	"$B" seek
	wait $KP
	kpt --dry-run --backend tp-btf latency --key fd --from "t:$E0 fd=regs->di if fd == 1000" \
		--to "t:$X0 fd=regs->di if fd == 1000" -c "$B seek" > "$OUT/bpt-dry.txt" 2>&1
	# pcount JSON ERR: the pairs, then each probe's hits, filtered,
	# unmatched; the run's starts never ended and open
	pcount() {
		python3 - "$@" <<'PY'
import json, sys
h = [json.loads(l)["hist"]["count"] for l in open(sys.argv[1]) if '"hist"' in l]
p = [json.loads(l) for l in open(sys.argv[2]) if l.startswith('{"type":"profile"')][0]
e = {q["event"]: q for q in p["probes"]}
print(h[0] if h else 0, *[e[n][k] for n in ("sys_enter", "sys_exit") for k in ("hits", "filtered")],
      p["unmatched"], p["pairs_never_ended"], p["pairs_open"])
PY
	}
	read -r n eh ef xh xf u r o < <(pcount "$OUT/bp.json" "$OUT/bp.err")
	read -r cn ceh cef cxh cxf cu cr co < <(pcount "$OUT/bpc.json" "$OUT/bpc.err")
	echo "# kpt:tp_btf $n pairs, enter $eh hits $ef filtered, exit $xh/$xf, $u unmatched, $r replaced, $o open"
	echo "# kpt:classic $cn pairs, enter $ceh hits $cef filtered, exit $cxh/$cxf, $cu unmatched, $cr replaced, $co open"
	check "tp_btf pair by the thread, filtered: the workload's 1000 lseeks = $n pairs, as the classic tracepoint's $cn" \
		[ "${n:-0}" = 1000 -a "${cn:-0}" = 1000 ]
	check "  its hits the classic tracepoint's on the same workload ($eh/$xh, $ceh/$cxh), none unmatched, replaced or open" \
		[ "${eh:-0}" -ge 1000 -a "$eh/$xh" = "$ceh/$cxh" -a "$u/$r/$o" = 0/0/0 -a "$cu/$cr/$co" = 0/0/0 ]
	check "  FILTERED at least the workload's other calls at each end (enter $ef, exit $xf >= $((eh - 1000)))" \
		[ "${ef:-0}" -ge $((eh - 1000)) -a "${xf:-0}" -ge $((xh - 1000)) ]
	read -r n eh ef xh xf u r o < <(pcount "$OUT/bpk.json" "$OUT/bpk.err")
	check "tp_btf pair by regs->di (the fd), filtered by it: the workload's 1000 lseeks on fd 1000 = $n pairs, none unmatched, replaced or open" \
		[ "${n:-0}" = 1000 -a "$u/$r/$o" = 0/0/0 ]
	check "  by a value with a target (-c): its end the generic path's, --dry-run says why" \
		grep -q "^latency: the generic path (fetch, record slots), not the direct one: an end of any task's start" "$OUT/bpt-dry.txt"
else
	env_fault "tp_btf pairs: x86-64's pt_regs and kernel BTF"
fi

# switch_pairs FTRACE FIELD VALUE: the slices of the tasks whose FIELD
# (comm or prio) is VALUE as ftrace's buffer shows them: a switch in opens
# one on its CPU, the next switch out of such a task there ends it; with
# FIELD "any", every switch ends its CPU's open slice and opens the next,
# and "LOW HIGH CPUS" are printed: the pairs between the trace's two marks
# (the workload's run, inside kptrace's), all of them, and the CPUs with a
# switch between the marks. kptrace leaves out its own hits: a switch from
# one of its threads (the event is the previous task's: its tgid, where
# ftrace recorded one, else its pid or its comm) neither ends nor starts.
switch_pairs() {
	python3 - "$1" "${KP_KPT:-0}" "$(basename "$KPT" | cut -c1-15)" "$2" "${3:-}" <<'PY'
import re, sys
path, kpt, kcomm, field, value = sys.argv[1:]
open_on, pairs, marks, low, cpus = {}, 0, 0, 0, set()
for line in open(path):
    if "tracing_mark_write" in line:
        marks += 1
        continue
    m = re.search(r"-\d+\s+\(\s*(\d+|-+)\)\s+\[(\d+)\].*prev_comm=(.*?) prev_pid=(\d+) "
                  r"prev_prio=(\d+) .*next_comm=(.*?) next_pid=\d+ next_prio=(\d+)", line)
    if not m:
        continue
    tgid, cpu, prev, prev_pid, prev_prio, nxt, next_prio = m.groups()
    own = kpt in (tgid, prev_pid) or prev == kcomm
    if field == "any":
        if own:
            continue
        if open_on.get(cpu):
            pairs += 1
            low += open_on[cpu] == 1 and marks == 1
        open_on[cpu] = 1 if marks == 1 else 2
        if marks == 1:
            cpus.add(cpu)
        continue
    prev_v, next_v = (prev, nxt) if field == "comm" else (prev_prio, next_prio)
    # a start (switch in) stays open until an end on its CPU closes it
    if prev_v == value and open_on.get(cpu):
        pairs += 1
        open_on[cpu] = False
    if next_v == value:
        open_on[cpu] = not own
print("%d %d %d" % (low, pairs, len(cpus)) if field == "any" else pairs)
PY
}

# cpudist: sched_switch at both ends (one program: the end, then the
# start), by cpu; the reference: the kernel's own sched_switch events in an
# ftrace instance, the switches in of the program followed by its switch
# out on that CPU. By comm (kpt_handle() for each end), then by the prio of
# the program run SCHED_FIFO 7 (99 - 7: one comparison of a field, the
# direct pair), then unfiltered (the direct pair: bench/pairbench.py's).
ftrace_on 'prev_comm == "pairs_target" || next_comm == "pairs_target"' || exit
bg "$OUT/cd" latency -d 2 --key cpu \
	--from 't:sched/sched_switch if next_comm == "pairs_target"' \
	--to 't:sched/sched_switch if prev_comm == "pairs_target"'
"$B" cpu > /dev/null
wait $KP
ftrace_off "$OUT/cd.ftrace"
want=$(switch_pairs "$OUT/cd.ftrace" comm pairs_target)
got=$(hist_count "$OUT/cd.out" '@sched_switch->sched_switch_to:')
m=$(not_run "$OUT/cd.err")
check "cpudist: sched_switch at both ends by cpu, the program's slices as ftrace's buffer shows them ($want; got ${got:-0}, $m hits not run)" \
	[ "${want:-0}" -gt 0 -a "${got:-0}" -le "${want:-0}" -a $((${got:-0} + m)) -ge "${want:-0}" ]

ftrace_on 'prev_prio == 92 || next_prio == 92' || exit
bg "$OUT/cdp" latency -d 2 --key cpu --from 't:sched/sched_switch if next_prio == 92' \
	--to 't:sched/sched_switch if prev_prio == 92'
chrt -f 7 "$B" cpu > /dev/null
wait $KP
ftrace_off "$OUT/cdp.ftrace"
want=$(switch_pairs "$OUT/cdp.ftrace" prio 92)
got=$(hist_count "$OUT/cdp.out" '@sched_switch->sched_switch_to:')
m=$(not_run "$OUT/cdp.err")
$KPT latency --dry-run --key cpu --from 't:sched/sched_switch if next_prio == 92' \
	--to 't:sched/sched_switch if prev_prio == 92' > "$OUT/cdp.dry" 2>&1
check "cpudist filtered by prio, the direct pair: the program's slices as ftrace's buffer shows them ($want; got ${got:-0}, $m hits not run)" \
	sh -c "[ '${want:-0}' -gt 0 -a '${got:-0}' -le '${want:-0}' -a $((${got:-0} + m)) -ge '${want:-0}' ] &&
		grep -q 'in one go' '$OUT/cdp.dry'"

# unfiltered: every switch on the machine; between the trace's marks
# kptrace is attached, and the whole trace holds all it can have seen
ftrace_on '' || exit
bg "$OUT/cda" latency --key cpu --from t:sched/sched_switch --to t:sched/sched_switch
echo kpt-pairs-begin > "$I/trace_marker"
"$B" cpu > /dev/null
sleep 1
echo kpt-pairs-end > "$I/trace_marker"
kill -INT "$KP_KPT" 2>/dev/null
wait $KP
ftrace_off "$OUT/cda.ftrace"
read -r low high ncpu < <(switch_pairs "$OUT/cda.ftrace" any)
got=$(hist_count "$OUT/cda.out" '@sched_switch->sched_switch_to:')
m=$(not_run "$OUT/cda.err")
u=$(sed -n 's/.*, \([0-9]*\) --to ends without their start.*/\1/p' "$OUT/cda.err")
o=$(sed -n 's/.*, \([0-9]*\) --from starts still open at the end.*/\1/p' "$OUT/cda.err")
check "cpudist unfiltered, the direct pair: the switches ftrace saw while kptrace ran ($low <= got ${got:-0} + $m not run, ${got:-0} <= $high; ftrace lost $(cat "$OUT/cda.ftrace.overrun"))" \
	[ "$(cat "$OUT/cda.ftrace.overrun")" = 0 -a "${low:-0}" -gt 0 -a $((${got:-0} + m)) -ge "${low:-0}" -a "${got:-0}" -le "${high:-0}" ]
check "cpudist unfiltered: one end without its start and one start open at the end per CPU that switched (ftrace: $ncpu of $(nproc); kptrace: ${u:-0} and ${o:-0})" \
	[ "${u:-0}" -ge "${ncpu:-1}" -a "${u:-0}" -le "$(nproc)" -a "${o:-0}" -ge "${ncpu:-1}" -a "${o:-0}" -le "$(nproc)" ]
check "a tracepoint at both ends: no 'File exists', no name clash" \
	sh -c "! grep -qE 'File exists|already used' '$OUT/cd.err'"

# the causes: lookup_a() returns 1, 2, 3; the --to filter keeps the first,
# so the second start is replaced by the third, which never ends
kpt latency --from "p:$B:lookup_a" --to "r:$B:lookup_a ret=\$retval if ret == 1" \
	-c "$B hosts" > "$OUT/why.out" 2> "$OUT/why.err"
check "unpaired by cause: 1 start replaced, --to's filter named as the cause (2 ends skipped), 1 start still open" \
	sh -c "grep -q \", 1 --from starts NEVER ENDED: the next start under their key replaced them, and --to's filter skipped 2 ends, theirs among them (filter --from instead\" '$OUT/why.err' &&
		grep -q ', 1 --from starts still open at the end' '$OUT/why.err'"

# --over: work(2), work(5) and work(7) sleep 50 ms, the 7 others return at
# once: 3 lines, each with its start's n and its end's ret (10 * n). The
# reference is each run's own times of its calls (a fast call preempted
# 25 ms on a loaded host is slow too): every call the program timed at
# 26 ms or more printed, none it timed under 25 ms (the uprobes' own time
# is inside the program's), each as "n:10n", at least the three sleepers.
W=(--from "p:$B:work n=%di:s32" --to "r:$B:work ret=\$retval:s32" --over 25ms)
# over_judge ERR GOT: GOT ("n:ret ...", kptrace's calls) against ERR's "work N NS" lines
over_judge() {
	python3 - "$1" "$2" <<'PY'
import re, sys
times = {int(m.group(1)): int(m.group(2)) for m in re.finditer(r"^work (\d+) (\d+)$", open(sys.argv[1]).read(), re.M)}
got = [tuple(map(int, w.split(":"))) for w in sys.argv[2].split()]
ns = [n for n, _ in got]
assert len(times) == 10, times
assert all(r == 10 * n for n, r in got), got
assert {2, 5, 7} <= set(ns) and len(ns) == len(set(ns)), got
assert all(times[n] >= 25_000_000 for n in ns), (got, times)
assert all(n in ns for n, t in times.items() if t >= 26_000_000), (got, times)
PY
}
kpt latency "${W[@]}" -c "$B slow" > "$OUT/ov.out" 2> "$OUT/ov.err"
got=$(sed -n 's/^@p_pairs_work_0->p_pairs_work_0_to [0-9.]*us: pairs_target-.* n=\([0-9]*\) => pairs_target-.* ret=\([0-9]*\)$/\1:\2/p' "$OUT/ov.out" | paste -sd' ')
check "--over 25ms: the slow calls of the program's 10 ($got), one line each with n and ret of both ends" \
	over_judge "$OUT/ov.err" "$got"
kpt --json latency "${W[@]}" --perfetto "$OUT/ov.pf.json" -c "$B slow" > "$OUT/ov.json" 2> "$OUT/ov.json.err"
got=$(python3 - "$OUT/ov.json" <<'PY'
import json, sys
calls = [o for o in map(json.loads, open(sys.argv[1])) if o.get("type") == "call"]
ok = all(c["dur_ns"] >= 25_000_000 and c["end"]["ts"] - c["start"]["ts"] == c["dur_ns"] for c in calls)
print(" ".join("%d:%d" % (c["start"]["args"]["n"], c["end"]["args"]["ret"]) for c in calls) if ok else "bad")
PY
)
check "--over --json: the same calls ($got), each over 25 ms, start and end objects with their arguments" \
	over_judge "$OUT/ov.json.err" "$got"
got=$(python3 - "$OUT/ov.pf.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"] if isinstance(d, dict) else d
xs = sorted((e for e in ev if e["ph"] == "X"), key=lambda e: e["ts"])
ok = all(e["args"]["dur_ns"] >= 25_000_000 and e["dur"] * 1000 == e["args"]["dur_ns"] for e in xs)
print(" ".join("%d:%d" % (e["args"]["start"]["n"], e["args"]["end"]["ret"]) for e in xs) if ok else "bad")
PY
)
check "--over --perfetto: the same calls ($got) as slices, each its start's n and its end's ret in args" \
	over_judge "$OUT/ov.json.err" "$got"

# --by of fields neither definition lists: the start's which_clock, the
# end's ret; the program's 8 sleeps of 1 ms (CLOCK_REALTIME, 0 returned)
kpt latency --from 't:syscalls/sys_enter_clock_nanosleep' --to 't:syscalls/sys_exit_clock_nanosleep' \
	--by which_clock,ret -c "$B cpu" > "$OUT/bf.out" 2> "$OUT/bf.err"
check "--by which_clock,ret, fields unlisted: one row [0, 0], the program's 8 sleeps" \
	[ "$(grep -c '^@' "$OUT/bf.out")/$(hist_count "$OUT/bf.out" '@sys_enter_clock_nanosleep->sys_exit_clock_nanosleep[0, 0]:')" = 1/8 ]

# a serve job prints no lines: --over is for one run
printf '%s\n' "o: latency --from 'p:$B:work' --to 'r:$B:work' --over 1ms" > "$OUT/over.kpt"
KPT_RC=error kpt serve -f "$OUT/over.kpt" --check > /dev/null 2> "$OUT/over.err"
check "a serve job with --over: refused, its lines are for one run" \
	grep -q 'error: .*--over and --dry-run are for one run' "$OUT/over.err"

# a function's own entry argument as a key (its return has none): the
# program's 10 calls, one per n, 2, 5 and 7 at least their 50 ms sleep
kpt --json latency "$B:work n=%di:s32" --by n -c "$B slow" > "$OUT/fk.json" 2> "$OUT/fk.err"
check "latency FUNC n=%di --by n: 10 rows n=0..9, one call each; n=2, 5, 7 at least their 50 ms" python3 - "$OUT/fk.json" <<'PY'
import json, sys
rows = {int(o["key"]["n"]): o["hist"] for o in map(json.loads, open(sys.argv[1]))
        if o.get("type") == "latency"}
assert sorted(rows) == list(range(10)) and all(h["count"] == 1 for h in rows.values()), rows
assert all(rows[n]["min"] >= 50_000_000 for n in (2, 5, 7)), rows   # ns
PY

# memleak: malloc's return starts, free ends, keyed by the pointer, by the
# start's user stack: leak_here()'s 20 blocks open at exit, churn()'s 30
# lifetimes (the program's own counts)
kpt --json latency --from "r:$B:malloc ptr=\$retval" --to "p:$B:free ptr=%di" --key ptr \
	--by ustack -c "$B leak" > "$OUT/ml.json" 2> "$OUT/ml.err"
check "memleak: 20 starts open from leak_here()'s stack, 30 lifetimes from churn()'s, none from the other's" python3 - "$OUT/ml.json" <<'PY'
import json, sys
opened, timed = {}, {}
for line in open(sys.argv[1]):
    o = json.loads(line)
    if o.get("type") not in ("open", "latency"):
        continue
    syms = {f.get("symbol") for f in o["key"]["ustack"]}
    for fn in ("leak_here", "churn"):
        if fn in syms:
            d = opened if o["type"] == "open" else timed
            d[fn] = d.get(fn, 0) + (o["count"] if o["type"] == "open" else o["hist"]["count"])
assert opened == {"leak_here": 20} and timed == {"churn": 30}, (opened, timed)
PY

# offcpu_sleeps OUT ERR SWITCHES [KEY]: sleeper()'s sleeps under the start's
# (the sleeper's) user stack, as many as the kernel's voluntary switches
# (3 to 5 of its 5 waits; each hit NOT RUN at most one pair less); KEY a
# further key each row has
offcpu_sleeps() {
	python3 - "$1" "$(not_run "$2")" "${3:-0}" "${4:-}" <<'PY'
import json, sys
n, not_run, sw, key, rows = 0, int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], []
for line in open(sys.argv[1]):
    o = json.loads(line)
    if o.get("type") != "latency":
        continue
    assert not key or key in o["key"], o["key"].keys()
    syms = [f.get("symbol") for f in o["key"]["ustack"]]
    rows.append((o["hist"]["count"], syms))
    if "sleeper" in syms:
        n += o["hist"]["count"]
assert 3 <= sw <= 5 and sw - not_run <= n <= sw, (n, not_run, sw, rows)
PY
}

# offcputime: --by ustack is the start's (the sleeper switching out), not
# the end's (the writer's wakeup); to_kstack is the end's
bg "$OUT/off" --json latency -d 2 --key prev_pid=pid --by ustack,to_kstack \
	--from 't:sched/sched_switch if prev_comm == "pairs_target"' --to 't:sched/sched_wakeup'
"$B" off 2> "$OUT/off.work" &
wait $KP
wait
sw=$(sed -n 's/^switches //p' "$OUT/off.work")
check "offcputime: sleeper()'s sleeps under the start's (the sleeper's) user stack, as many as the kernel's voluntary switches (${sw:-none} of 5); the waker's under to_kstack" \
	offcpu_sleeps "$OUT/off.out" "$OUT/off.err" "$sw" to_kstack

# offcputime -c: -c chooses the starts; the wakeups that end them run in
# other tasks (the writer's), and count all the same
timeout -k 5 60 $KPT --json latency -c "$B off" --key prev_pid=pid --by ustack \
	--from 't:sched/sched_switch' --to 't:sched/sched_wakeup' > "$OUT/offc.out" 2> "$OUT/offc.err"
sw=$(sed -n 's/^switches //p' "$OUT/offc.err")
check "offcputime -c: the sleeper's sleeps ended by other tasks' wakeups, as many as its voluntary switches (${sw:-none} of 5)" \
	offcpu_sleeps "$OUT/offc.out" "$OUT/offc.err" "$sw"

# tcpconnlat: one tracepoint at both ends, SYN_SENT (2) to ESTABLISHED (1)
# by the socket's address, of connections to a port of this run's own: the
# workload's 7 connect()s to its own listener on the loopback
PORT=$((40000 + $$ % 20000))
bg "$OUT/tc" latency -d 3 --key skaddr \
	--from "t:sock/inet_sock_set_state if newstate == 2 && dport == $PORT" \
	--to "t:sock/inet_sock_set_state if oldstate == 2 && newstate == 1 && dport == $PORT"
python3 - 7 $PORT > "$OUT/tc.work" <<'PY'
import socket, sys, threading
n, port = int(sys.argv[1]), int(sys.argv[2])
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", port))
s.listen(64)
def accept():
    for _ in range(n):
        s.accept()[0].close()
t = threading.Thread(target=accept)
t.start()
made = 0
for _ in range(n):
    socket.create_connection(("127.0.0.1", port)).close()
    made += 1
t.join()
print(made)
PY
wait $KP
n=$(hist_count "$OUT/tc.out" '@inet_sock_set_state->inet_sock_set_state_to:')
m=$(not_run "$OUT/tc.err")
check "tcpconnlat, inet_sock_set_state at both ends by skaddr: the workload's $(cat "$OUT/tc.work") connects = ${n:-0} pairs (not run: $m)" \
	[ "$(cat "$OUT/tc.work")" = 7 -a "${n:-0}" -le 7 -a $((${n:-0} + m)) -ge 7 ]

# kptrace leaves out its own hits; a run of direct pairs on tracepoints
# checks after each hit's filter (a rejected hit spared the task lookup):
# bpf(2) calls system-wide, which kptrace makes each second, and a second
# kptrace's (the control), against the kernel's own trace of them in a
# tracefs instance over a window holding the first kptrace's
kpt_nr_bpf
if kpt_bpf_calls sys_exit "$OUT/self.err" latency -d 3 \
	--from "t:raw_syscalls/sys_enter if id == $NR_BPF" \
	--to "t:raw_syscalls/sys_exit if id == $NR_BPF" > "$OUT/self.out"; then
	n=$(hist_count "$OUT/self.out" '@sys_enter->sys_exit:')
	check "direct pairs of bpf(2) system-wide: kptrace's own calls left out, a second kptrace's counted (ftrace: $BPF_OWN of kptrace's, $BPF_OTHERS others'; pairs ${n:-0})" \
		[ "$BPF_OWN" -ge 5 -a "$BPF_OTHERS" -ge 5 -a "${n:-0}" -ge 5 -a "${n:-0}" -le "$BPF_OTHERS" ]
else
	env_fault "no raw_syscalls tracepoints or tracefs instance for kptrace's own calls"
fi

finish
