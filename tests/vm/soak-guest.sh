#!/bin/sh
# Guest script (busybox sh) for tests/vm/soak.sh: SIGKILL kptrace at random
# moments, during loading and attaching, while it runs, and while it
# detaches after a SIGINT, KILLS times; then nothing of kptrace may remain:
# no BPF program, map or link (bpftool), no kprobe (debugfs kprobes/list),
# at most the documented disabled rN: leftovers in kprobe_events, which the
# next run must remove; and that next run must start and trace cleanly.
# KILLS is set by soak.sh in a line above this one.
KILLS=${KILLS:-240}
KREL=$(uname -r)
KPT=/bin/kptrace
T=/sys/kernel/tracing
LIST=/sys/kernel/debug/kprobes/list
W=/tmp/soak
mkdir -p $W
ok() { echo "ok - $KREL soak: $*"; }
bad() { echo "FAIL - $KREL soak: $*"; }
echo "# kernel $KREL, $KILLS kills wanted"

# Every kind of probe kptrace makes: perf kprobe and kretprobe, a tracefs
# kretprobe (r2:), a tracepoint, a uprobe (on kptrace's own main).
set -- 'p:s/a vfs_read count=%dx:u64' 'r:s/b vfs_read ret=$retval:s64' \
	'r2:s/c do_sys_openat2 ret=$retval:s64' 't:s/d sched/sched_process_exec filename' \
	'p:s/e /bin/kptrace:main' 'p:s/f vfs_write count=%dx:u64 if comm != "kptrace"' 'p:s/g do_sys_openat2 dfd=%di:s32' \
	'r:s/h ksys_read ret=$retval:s64' 'p:s/i vfs_open'

# a light workload: reads, opens and execs, with a pause each time
( while :; do read x < /etc/hostname; cat /etc/hostname > /dev/null; usleep 20000; done ) &
WL=$!

kpt_progs() { bpftool prog show 2>/dev/null | grep -c ' name kpt_'; }
kpt_maps() { bpftool map show 2>/dev/null | grep -cE ' name kpt'; }
links() { bpftool link show 2>/dev/null | grep -cE '^[0-9]+: '; }
# registered and live (an rN: leftover is registered but [DISABLED])
kprobes() { grep -E 'vfs_|do_sys_openat2|ksys_read' $LIST 2>/dev/null | grep -vc DISABLED; }

attach=0 running=0 detach=0 loading=0 exited=0 tries=0 kills=0 maxleft=0
start=$(cut -d' ' -f1 /proc/uptime)
while [ $kills -lt $KILLS ] && [ $tries -lt $((KILLS * 2)) ]; do
	tries=$((tries + 1))
	phase=$((tries % 4))
	rm -f $W/err	# a stale "Attached" would be read before kptrace truncates it
	$KPT "$@" > /dev/null 2> $W/err &
	K=$!
	if [ $phase = 0 ]; then
		# any moment of the start: parse, load (verifier), attach
		usleep $(( (RANDOM % 2500) * 1000 ))
	elif [ $phase = 3 ]; then
		# aimed at the attach loop: shortly after "Attaching"
		n=0
		while ! grep -q '^Attaching' $W/err && [ $n -lt 3000 ]; do usleep 5000; n=$((n + 1)); done
		usleep $(( (RANDOM % 80) * 1000 ))
	else
		n=0
		while ! grep -q '^Attached' $W/err && [ $n -lt 1500 ]; do usleep 20000; n=$((n + 1)); done
		if [ $phase = 1 ]; then
			usleep $(( (RANDOM % 500) * 1000 ))
		else
			kill -INT $K
			usleep $(( (RANDOM % 300) * 1000 ))
		fi
	fi
	# where it was when the SIGKILL came
	if grep -q '^PROBE' $W/err || ! kill -0 $K 2>/dev/null; then
		exited=$((exited + 1))
	elif grep -q '^Attached' $W/err; then
		if [ $phase = 2 ]; then detach=$((detach + 1)); else running=$((running + 1)); fi
	elif grep -q '^Attaching' $W/err; then
		attach=$((attach + 1))
	else
		loading=$((loading + 1))
	fi
	kill -KILL $K 2>/dev/null && kills=$((kills + 1))
	wait $K 2>/dev/null
	# right after the kill: the process is gone, so must its objects be
	left=$(( $(kpt_progs) + $(kprobes) ))
	[ $left -gt $maxleft ] && maxleft=$left
	if [ $((tries % 40)) = 0 ]; then
		echo "# $tries tries, $kills kills at $(cut -d' ' -f1 /proc/uptime) s"
	fi
done
end=$(cut -d' ' -f1 /proc/uptime)
kill $WL
wait $WL 2>/dev/null
echo "# $kills kills in $tries runs: $loading while loading, $attach while attaching," \
	"$running while running, $detach while detaching; $exited ended before their kill;" \
	"${start}..${end} s"
[ $kills -ge $KILLS ] && ok "$kills SIGKILLs ($loading loading, $attach attaching, $running running, $detach detaching)" ||
	bad "only $kills kills in $tries runs"
[ $attach -gt 0 ] && [ $running -gt 0 ] && [ $detach -gt 0 ] &&
	ok "kills landed in every phase (attach $attach, run $running, detach $detach)" ||
	bad "a phase was never hit: attach $attach, run $running, detach $detach"

p=$(kpt_progs) m=$(kpt_maps) l=$(links) k=$(kprobes)
stale=$(grep -c kptrace_ $T/kprobe_events)
if [ "$p:$m:$l:$k:$maxleft" = "0:0:0:0:0" ]; then
	ok "after all kills: 0 kptrace programs, 0 maps, 0 links, 0 kprobes (and 0 after each kill)"
else
	bad "left behind: $p programs, $m maps, $l links, $k kprobes; at most $maxleft right after a kill"
	bpftool prog show | grep -A1 ' name kpt_' | head
fi
echo "# $stale disabled rN: kretprobes in kprobe_events (documented: the next run removes them)"
enabled=$(grep -l 1 $T/events/kptrace_*/*/enable 2>/dev/null | wc -l)
[ "$enabled" = 0 ] && ok "none of the leftover kprobe_events is enabled" ||
	bad "$enabled leftover events enabled"

# the next run starts cleanly, traces, and removes the leftovers
( usleep 1500000; cat /etc/hostname > /dev/null; cat /etc/passwd > /dev/null ) &
$KPT -d 3 "$@" > $W/clean.out 2> $W/clean.err
rc=$?
ev=$(grep -c ' a: (' $W/clean.out)
if [ $rc = 0 ] && [ "$ev" -gt 0 ] && ! grep -q 'error' $W/clean.err; then
	ok "the next run starts cleanly: exit 0, $ev vfs_read events, $(grep -c . $W/clean.out) lines"
else
	bad "the next run: exit $rc, $ev events: $(head -5 $W/clean.err)"
fi
p=$(kpt_progs) l=$(links) k=$(kprobes) stale=$(grep -c kptrace_ $T/kprobe_events)
[ "$p:$l:$k:$stale" = "0:0:0:0" ] &&
	ok "after it: nothing left (programs, links, kprobes, kprobe_events all 0)" ||
	bad "after the clean run: $p programs, $l links, $k kprobes, $stale kprobe_events"
n=$(dmesg | grep -cE 'Oops|BUG:|WARNING:')
[ "$n" = 0 ] && ok "no kernel Oops, BUG or WARNING in dmesg" ||
	bad "dmesg: $(dmesg | grep -E 'Oops|BUG:|WARNING:' | head -3)"
