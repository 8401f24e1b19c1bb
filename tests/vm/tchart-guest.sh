#!/bin/sh
# Guest script (busybox sh) for kptrace timechart on this kernel: its raw
# tracepoint programs load and attach (task_struct's layout from this
# kernel's BTF), and follow -c's shell and the processes it forks. The
# reference is the kernel's own scheduler accounting: the shell's
# /proc/PID/schedstat (time on a CPU, ns), read by the shell as it ends.
W=/tmp/kpt-tchart
mkdir -p $W
KREL=$(uname -r)
echo "# kernel $KREL"
echo "# expect 4 ok"
ok() { echo "ok - $KREL: $*"; }
bad() { echo "FAIL - $KREL: $*"; }
KPT="timeout -s KILL 120 /bin/kptrace"

# spin in the shell itself, sleep in a child, then the shell's own run time
cat > $W/work.sh <<'EOF'
read -r run0 wait n < /proc/$$/schedstat
i=0
while [ $i -lt 20000 ]; do i=$((i + 1)); done
sleep 0.3
read -r run wait n < /proc/$$/schedstat
echo "$$ $run $run0" > /tmp/kpt-tchart/ss
EOF
$KPT timechart -c "sh $W/work.sh" --json -o $W/tc.json 2> $W/tc.err
rc=$?
if [ $rc = 0 ] && grep -q '"processes"' $W/tc.json; then
	ok "timechart -c: ran, attached on this kernel's raw tracepoints"
else
	bad "timechart -c: exit $rc: $(tail -c 300 $W/tc.err)"
fi
read -r pid ref ref0 < $W/ss
# one process's object of the JSON summary: its fields on one line each
tr '{' '\n' < $W/tc.json | grep "\"pid\":$pid," > $W/sh.json
run=$(sed -n 's/.*"run_ns":\([0-9]*\).*/\1/p' $W/sh.json)
sleep_ns=$(sed -n 's/.*"sleep_ns":\([0-9]*\).*/\1/p' $W/sh.json)
# the shell runs on after its read (the echo, its exit): 20 ms and 5% more at
# most; schedstat counts from the fork too, before kptrace attached and
# released it: at least its count less what it had as the script began.
# kptrace's times are the clocksource's, schedstat's the scheduler clock's:
# one TSC where the clocksource is the TSC; where it is not (5.10 here marks
# the guest's TSC unsynchronized and takes the HPET), two clocks, the
# scheduler's kept near the other at each tick: 1% and two ticks (8 ms) less
# allowed for that (a run of 670 ms against 675 failed on it without).
slack=0
[ "$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)" = tsc ] ||
	slack=$(((ref - ref0) / 100 + 8000000))
if [ -n "$run" ] && [ "$run" -ge $((ref - ref0 - slack)) ] && [ "$run" -le $((ref + ref / 20 + 20000000)) ]; then
	ok "timechart: the shell ran $run ns, its schedstat $ref ns before its last lines ($ref0 as it began; $slack ns allowed below)"
else
	bad "timechart: the shell ran '$run' ns, its schedstat $ref ns, $ref0 as it began (want between their difference less $slack and $ref + 20 ms + 5%): $(tail -c 300 $W/tc.err)"
fi
if [ -n "$sleep_ns" ] && [ "$sleep_ns" -ge 300000000 ]; then
	ok "timechart: the shell slept $sleep_ns ns, waiting for sleep 0.3"
else
	bad "timechart: the shell slept '$sleep_ns' ns, want 300 ms at least"
fi
kids=$(tr '{' '\n' < $W/tc.json | grep -c "\"ppid\":$pid,")
if [ "$kids" -ge 1 ]; then
	ok "timechart: the shell's children ($kids) under it"
else
	bad "timechart: no process under the shell $pid: $(head -c 400 $W/tc.json)"
fi
