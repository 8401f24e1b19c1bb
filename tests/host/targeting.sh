#!/usr/bin/env bash
# Host tests of who is traced and for how long (issue 26, items 4-7):
# kptrace never traces itself, on every path of the handler; -d and a
# signal end a run whose reader is slow or stalled (detached at once, a
# bounded drain); -c follows the command's processes and threads in the
# kernel, through uprobes and tracepoints; -p's process must exist, and its
# exit ends the run unless --keep-running.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/lib.sh

KPT=${KPT:-./kptrace}
OUT=.output/tests/targeting
mkdir -p "$OUT"
OUT=$(realpath "$OUT")
T=$OUT/target
gcc -O0 -fno-inline -no-pie -g -pthread tests/host/targeting_target.c -o "$T" ||
	{ echo "cannot build the target"; exit 1; }

if [ "$(id -u)" != 0 ]; then
	skip_all "targeting tests need root (BPF, uprobes, tracepoints)"
fi
[ -e /sys/kernel/tracing/events/syscalls ] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
[ -e /sys/kernel/tracing/events/syscalls/sys_enter_lseek ] ||
	skip_all "no syscalls tracepoints in this kernel"
expect_checks 28
KPT_TIMEOUT=30

# hist_count FILE: the events a hist --json counted.
hist_count() {
	python3 -c 'import json,sys; print(sum(json.loads(l)["hist"]["count"] for l in open(sys.argv[1]) if l.strip()))' "$1"
}
# pids_of FILE: "pid:lines ..." of a --json stream.
pids_of() {
	python3 -c '
import json, sys
c = {}
for l in open(sys.argv[1]):
    if l.strip():
        p = json.loads(l)["pid"]
        c[p] = c.get(p, 0) + 1
print(" ".join("%d:%d" % (p, c[p]) for p in sorted(c)))' "$1"
}
# stop_int: one SIGINT to the kptrace kpt_bg started, then kpt_stop. To
# kptrace itself: timeout(1) passes a signal on to its child and to its
# process group too, two SIGINTs, and a second SIGINT means "exit now".
stop_int() {
	kill -INT "$KP_KPT" 2>/dev/null
	kpt_stop 0
}
# progs_of PID: the ids of the BPF programs a process holds (its fds' fdinfo).
progs_of() {
	cat /proc/"$1"/fdinfo/* 2>/dev/null | awk '$1 == "prog_id:" { print $2 }' | sort -un | tr '\n' ' '
}
# gone IDS...: none of these programs is loaded any more (and there were some).
gone() {
	[ $# -gt 0 ] || return 1
	bpftool prog show -j 2>/dev/null | python3 -c '
import json, sys
ids = set(int(i) for i in sys.argv[1:])
sys.exit(1 if ids & set(p["id"] for p in json.load(sys.stdin)) else 0)' "$@"
}
now() { date +%s.%N; }
since() { python3 -c 'import sys; print("%.1f" % (float(sys.argv[2]) - float(sys.argv[1])))' "$1" "$(now)"; }

echo "# -c follows the command's processes and threads"
MARK="p:m $T:kpt_mark v=%di:s32"
LSEEK='t:syscalls/sys_enter_lseek if fd == 4242'
WANT="1:1 2:1 3:1 4:3 6:1"
kpt count --json --by v -c "$T tree" "$MARK" > "$OUT/tree-u.json" 2> "$OUT/tree-u.err"
got=$(by_key "$OUT/tree-u.json" v)
check "uprobe: the command, its threads, a fork, a fork's fork and an exec ($got; want $WANT)" \
	test "$got" = "$WANT"
kpt count --json --by offset -c "$T tree" "$LSEEK" > "$OUT/tree-t.json" 2> "$OUT/tree-t.err"
got=$(by_key "$OUT/tree-t.json" offset)
check "tracepoint: the same processes and threads ($got; want $WANT)" test "$got" = "$WANT"
# the direct paths, which read no probe table: a histogram of a register,
# a stream of registers written straight into the ring buffer
kpt --dry-run hist "$MARK" v > "$OUT/hd.dry" 2>&1
kpt hist --json -c "$T tree" "$MARK" v > "$OUT/tree-h.json" 2> "$OUT/tree-h.err"
got=$(hist_count "$OUT/tree-h.json")
check "direct histogram: 7 values ($got), taken straight from the context" \
	bash -c "[ '$got' = 7 ] && grep -q 'straight from the context' '$OUT/hd.dry'"
kpt --dry-run "$MARK" > "$OUT/sd.dry" 2>&1
kpt --json -c "$T tree" "$MARK" > "$OUT/tree-s.json" 2> "$OUT/tree-s.err"
got=$(wc -l < "$OUT/tree-s.json")
check "direct stream: 7 events ($got), written straight into the ring buffer" \
	bash -c "[ '$got' = 7 ] && grep -q 'straight from the registers' '$OUT/sd.dry'"
# the issue's own reproduction: sh's two cats are the command's (-o: the
# cats' own output, by copy_file_range() on a file, takes no position lock)
kpt -o "$OUT/sh.out" -c "sh -c 'cat /etc/hostname; cat /etc/hostname'" \
	't:syscalls/sys_enter_openat filename:ustring if filename == "/etc/hostname"' \
	> /dev/null 2> "$OUT/sh.err"
got=$(grep -c '^ *cat-' "$OUT/sh.out")
check "-c \"sh -c 'cat; cat'\": both cats' opens ($got of 2)" test "$got" = 2

echo "# -c: the command exits, what it started runs on"
rm -f "$OUT/go"
kpt count --json --by v -c "$T daemon $OUT/go" "$MARK" > "$OUT/d1.json" 2> "$OUT/d1.err"
touch "$OUT/go"
wait_for "! pgrep -f '^$T daemon' > /dev/null" 20 || problem "the first daemon did not end"
check "kptrace stops when the command exits, and says what it left running" \
	grep -q 'the command exited; 1 process it started still runs' "$OUT/d1.err"
got=$(by_key "$OUT/d1.json" v)
check "what it left running is not traced after ($got; want 1:1)" test "$got" = "1:1"
rm -f "$OUT/go"
kpt_bg "$OUT/d2.err" count --json --by v --keep-running -c "$T daemon $OUT/go" "$MARK" \
	> "$OUT/d2.json"
wait_for "grep -q 'the command exited; still tracing' '$OUT/d2.err'" 20 ||
	problem "--keep-running: no word of the command's exit: $(cat "$OUT/d2.err")"
touch "$OUT/go"
# the daemon's mark, once its process is gone (the target's own comm)
wait_for "! pgrep -f '^$T daemon' > /dev/null" 20 || problem "the daemon did not end"
stop_int
got=$(by_key "$OUT/d2.json" v)
check "--keep-running: what the command started is traced on ($got; want 1:1 5:1)" \
	test "$got" = "1:1 5:1"

echo "# -p: the process's threads; its exit ends the run"
"$T" spin > "$OUT/spin.out" & SPIN=$!
wait_for "[ \$(grep -c '^tid' '$OUT/spin.out') = 3 ]" 10 || problem "spin did not start its threads"
kpt count --json --by tid -p $SPIN -d 1 "$MARK" > "$OUT/p.json" 2> "$OUT/p.err"
want=$(awk '$1 == "tid" { print $2 }' "$OUT/spin.out" | sort -n | tr '\n' ' ')
got=$(python3 -c 'import json,sys; print(" ".join(sorted((json.loads(l)["key"]["tid"] for l in open(sys.argv[1]) if l.strip()), key=int)))' "$OUT/p.json")
check "-p PID counts each of its three threads (tids $got; want $want)" test "$got " = "$want"
# a probe only other tasks hit (a getppid loop of ours beside it, bounded):
# said apart from one none hit, with the hits -p filtered
python3 -c 'import os, time
t = time.time() + 4
while time.time() < t:
    os.getppid()
    time.sleep(0.001)' & GP=$!
kpt count -p $SPIN -d 1 "$MARK" t:syscalls/sys_enter_getppid t:syscalls/sys_enter_acct \
	> /dev/null 2> "$OUT/po.err"
kill $GP 2> /dev/null; wait $GP 2> /dev/null
check "-p: a probe only other tasks hit said so, its hits filtered; one none hit, never fired: $(grep fired "$OUT/po.err" | tr '\n' '|')" \
	sh -c "grep -qE '^fired only in tasks not traced: 1 probe \(syscalls/sys_enter_getppid [1-9][0-9]* hits\): -p, -c, -t and --cgroup trace their own tasks only$' '$OUT/po.err' &&
		grep -qx 'never fired: 1 probe (syscalls/sys_enter_acct)' '$OUT/po.err'"
kpt_bg "$OUT/pe.err" -p $SPIN "$MARK" > /dev/null
kill $SPIN; wait $SPIN 2>/dev/null
KPT_RC=0 kpt_stop 0
check "-p: the process's exit ends the run (exit $RC), and is said" \
	grep -q "process $SPIN (target) exited" "$OUT/pe.err"
"$T" spin > "$OUT/spin.out" & SPIN=$!
kpt_bg "$OUT/pk.err" --keep-running -p $SPIN "$MARK" > "$OUT/pk.out"
kill $SPIN; wait $SPIN 2>/dev/null
wait_for "grep -q 'exited; still tracing' '$OUT/pk.err'" 20
alive=0; kill -0 "$KP_KPT" 2>/dev/null && alive=1
stop_int
check "--keep-running: kptrace goes on after the process's exit (alive $alive), a signal ends it (exit $RC)" \
	test "$alive:$RC" = "1:0"
KPT_RC=error kpt -p 999999 -d 1 "$MARK" > /dev/null 2> "$OUT/nx.err"
check "-p 999999: refused, no such process" grep -q -- '-p 999999: no such process' "$OUT/nx.err"
KPT_RC=error kpt -t 999999 -d 1 "$MARK" > /dev/null 2> "$OUT/nxt.err"
check "-t 999999: refused, no such thread" grep -q -- '-t 999999: no such thread' "$OUT/nxt.err"
"$T" spin > "$OUT/spin.out" & SPIN=$!
wait_for "[ \$(grep -c '^tid' '$OUT/spin.out') = 3 ]" 10
tid=$(awk '$1 == "tid" && $2 != '$SPIN' { print $2; exit }' "$OUT/spin.out")
KPT_RC=error kpt -p "$tid" -d 1 "$MARK" > /dev/null 2> "$OUT/thr.err"
check "-p of a thread: refused, naming its process" grep -q "a thread of process $SPIN" "$OUT/thr.err"
kill $SPIN; wait $SPIN 2>/dev/null

echo "# kptrace never traces itself"
# kptrace probing its own code: a copy of its own (its own inode, so no
# other kptrace's calls count), whose kpt_ring_poll() it calls every 50 ms
# while it runs. Each run alone must count none; with another kptrace from
# the same copy running (the positive control), that one's calls count.
SELF=$OUT/kptrace-self
cp "$KPT" "$SELF"
POLL="p:self $SELF:kpt_ring_poll t=%si:u32"
self_case() {	# NAME COUNTER ARGS...: COUNTER FILE prints what ARGS counted
	local name=$1 counter=$2 alone with; shift 2
	KPT="$SELF" kpt -d 1 "$@" > "$OUT/self-$name.1" 2> "$OUT/self-$name.1.err"
	alone=$($counter "$OUT/self-$name.1")
	KPT="$SELF" kpt_bg "$OUT/self-other.err" -d 20 't:syscalls/sys_enter_lseek if fd == 4242' \
		> /dev/null
	KPT="$SELF" kpt -d 1 "$@" > "$OUT/self-$name.2" 2> "$OUT/self-$name.2.err"
	with=$($counter "$OUT/self-$name.2")
	stop_int
	check "$name: its own calls not counted (alone: ${alone:-?}), another kptrace's are (${with:-?})" \
		test "${alone:-x}" = 0 -a "${with:-0}" -gt 0
}
lines() { wc -l < "$1"; }
kpt --dry-run "$POLL" > "$OUT/self.dry" 2>&1
check "the stream case is a direct stream" grep -q 'straight from the registers' "$OUT/self.dry"
self_case "direct stream" lines --json "$POLL"
self_case "generic stream (a filter)" lines --json "$POLL if t == 50"
self_case "direct histogram" hist_count hist --json "$POLL" t
self_case "count by pid" lines count --json --by pid "$POLL"
self_case "latency" hist_count latency --json "$SELF:kpt_ring_poll"
# a tracepoint: its own writes of each event would be events (the feedback
# loop of t:syscalls/sys_enter_write), its own syscalls counted
kpt_bg "$OUT/w.err" --json -d 1 -o "$OUT/w.json" 't:syscalls/sys_enter_write'
me=$KP_KPT
dd if=/dev/zero of=/dev/null bs=1 count=2000 2> /dev/null & DD=$!
kpt_stop 0
wait $DD
got=$(pids_of "$OUT/w.json")
check "t:syscalls/sys_enter_write: none of its own writes (pid $me), dd's are there" \
	bash -c "[[ ' $got' != *' $me:'* ]] && [ \$(wc -l < '$OUT/w.json') -gt 0 ]"
kpt_bg "$OUT/rs.err" count --json --by pid -d 1 't:raw_syscalls/sys_enter' > "$OUT/rs.json"
me=$KP_KPT
kpt_stop 0
check "count of every syscall by pid: other processes' counted, kptrace's own (pid $me) not" \
	python3 -c '
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
sys.exit(0 if rows and all(r["key"]["pid"] != sys.argv[2] for r in rows) else 1)' \
	"$OUT/rs.json" "$me"

# An interrupt that lands on kptrace's thread is not kptrace's: kptrace kept
# busy on CPU 0 printing a stream of dd's writes (from CPU 1), while a loop
# on CPU 0 sleeps; each sleep's end is a timer interrupt waking the sleeper,
# mostly on kptrace. ftrace's own sched_wakeup events of the sleeps, in an
# instance over a window holding kptrace's, are the reference; the kernel
# may skip a hit where another BPF program ran (NOT RUN, counted).
SI=/sys/kernel/tracing/instances/kpt_tgt_irq
rmdir "$SI" 2> /dev/null
if [ "$(nproc)" -ge 2 ] && [ -e /sys/kernel/tracing/events/sched/sched_wakeup ] && mkdir "$SI"; then
	echo 'comm == "sleep"' > "$SI/events/sched/sched_wakeup/filter"
	echo 1 > "$SI/events/sched/sched_wakeup/enable"
	KPT_SAVED=$KPT KPT="taskset -c 0 $KPT"
	kpt_bg "$OUT/irq.err" --buffer-size 64M -d 60 't:syscalls/sys_enter_write if fd == 1' \
		't:sched/sched_wakeup if comm == "sleep"' > "$OUT/irq.out"
	KPT=$KPT_SAVED
	taskset -c 1 dd if=/dev/zero of=/dev/null bs=1 count=600000 2> /dev/null & DD=$!
	taskset -c 0 sh -c 'for i in $(seq 100); do sleep 0.002; done'
	wait $DD
	kpt_stop
	echo 0 > "$SI/events/sched/sched_wakeup/enable"
	w=$(grep -c ' sched_wakeup: ' "$SI/trace")
	on=$(grep ' sched_wakeup: ' "$SI/trace" | grep -c -- "-${KP_KPT:-x} *\[")
	rmdir "$SI"
	got=$(grep -c 'sched_wakeup:' "$OUT/irq.out")
	nr=$(sed -n 's/.*, \([0-9]*\) hits NOT RUN by the kernel.*/\1/p' "$OUT/irq.err" | grep . || echo 0)
	check "wakeups in an interrupt on kptrace's thread are counted (ftrace: $w wakeups of the sleeps, $on of them on kptrace; kptrace $got, $nr hits not run)" \
		[ "$on" -ge 1 -a "$got" -le "$w" -a $((got + nr)) -ge "$w" ]
else
	env_fault "no second CPU, sched_wakeup tracepoint or tracefs instance for interrupts on kptrace"
fi

echo "# -d and signals under a slow or stalled reader"
# the issue's reproduction as written: a shell loop reads a line at a time
# (a read(2) per byte, each an event of the probe itself)
t0=$(now)
kpt_bg "$OUT/slow.err" -d 1 't:syscalls/sys_enter_read count' > >(while IFS= read -r l; do :; done)
had=$(progs_of "$KP_KPT")
kpt_stop 0
check "-d 1 | while read: ends (exit $RC, $(since $t0) s after starting), its programs ($had) gone" \
	bash -c "[ $RC = 0 ] && $(declare -f gone); gone $had"
# a reader that never reads: the pipe fills, then every write waits
stall_run() {	# NAME [ARGS...]: kptrace streaming reads into a stalled FIFO
	local name=$1; shift
	rm -f "$OUT/stall"
	mkfifo "$OUT/stall"
	exec 7<> "$OUT/stall"	# a reader that holds the pipe open and reads nothing
	kpt_bg "$OUT/$name.err" "$@" 't:syscalls/sys_enter_read count' > "$OUT/stall"
	# after attaching: on a busy machine a workload started first can end
	# before kptrace sees it; stall_end stops it
	dd if=/dev/zero of=/dev/null bs=1 count=30000000 2> /dev/null & DD=$!
	STALLED=$KP_KPT
	HAD=$(progs_of "$STALLED")
}
stall_end() {
	kill $DD 2>/dev/null; wait $DD 2>/dev/null
	exec 7>&-
}
# the pipe is full: half its 64 KiB or more are waiting and no more come
# in a quarter of a second (kptrace's write waits). Where a pipe stops
# short of 64 KiB depends on how the writes fall into its pages: 58826
# bytes seen, and 46,500.
pipe_full() {
	python3 -c '
import fcntl, os, struct, sys, termios, time
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_NONBLOCK)
def waiting():
    return struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"))[0]
n = waiting()
time.sleep(0.25)
sys.exit(0 if n >= 32768 and waiting() == n else 1)' "$OUT/stall"
}
stall_run stall-d -d 1
kpt_stop 0
check "-d 1 into a stalled reader: ends (exit $RC), its programs ($HAD) gone, the unprinted counted" \
	bash -c "[ $RC = 0 ] && $(declare -f gone); gone $HAD && grep -q 'NOT PRINTED: the output did not keep up' '$OUT/stall-d.err'"
stall_end
stall_run stall-int
wait_for pipe_full 20 || problem "the stalled pipe did not fill"
stop_int
check "SIGINT with a stalled reader: ends (exit $RC), its programs ($HAD) gone, the unprinted counted" \
	bash -c "[ $RC = 0 ] && $(declare -f gone); gone $HAD && grep -q 'NOT PRINTED' '$OUT/stall-int.err'"
stall_end
# a second SIGINT while it drains: at once. kptrace is stopped between the
# two, so the second comes while it drains, whatever the machine's speed.
stall_run stall-int2
wait_for pipe_full 20 || problem "the stalled pipe did not fill"
kill -INT "$STALLED"
wait_for "grep -q 'the output is not keeping up' '$OUT/stall-int2.err'" 10 ||
	problem "no word of the slow output after SIGINT: $(cat "$OUT/stall-int2.err")"
kill -STOP "$STALLED"; kill -INT "$STALLED"; kill -CONT "$STALLED"
KPT_RC=130 kpt_stop 0
check "a second SIGINT while draining exits at once (exit $RC, no profile)" \
	bash -c "! grep -q '^PROBE' '$OUT/stall-int2.err'"
stall_end

finish
