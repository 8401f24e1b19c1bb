#!/bin/sh
# Guest script (busybox sh) for issue 39's pairings through real kernel
# functions: fileslower as latency --from/--to over vfs_read's entry and
# return, --over printing the one slow read with its file's name (the
# start's) and its result (the end's), through each backend this kernel has;
# and tcpconnlat, a connect()'s start to its handshake's end by the socket.
W=/tmp/kpt-pairs
mkdir -p $W
KREL=$(uname -r)
echo "# kernel $KREL"
. /guest-lib.sh || { echo "FAIL - $KREL: no /guest-lib.sh (tests/vm/test.sh adds it)"; exit 1; }
ok() { echo "ok - $KREL: $*"; }
bad() { echo "FAIL - $KREL: $*"; }
BACKENDS="kprobe fentry"
grep -q ' register_fprobe_ips$' /proc/kallsyms && BACKENDS="$BACKENDS kprobe-multi"
n=0
for b in $BACKENDS; do n=$((n + 3)); done
# without fentry's helpers its two runs are refused: one gated line each
fentry_helpers || n=$((n - 1))
# the direct pairs through kpt_tp2: a kernel with BPF cookies (5.15)
case $KREL in
[1-4].* | 5.[0-9].* | 5.1[0-4].*) TP2= ;;
*) TP2=1; n=$((n + 2)) ;;
esac
echo "# expect $n ok"
KPT="timeout -s KILL 120 /bin/kptrace"

head -c 1000 /dev/zero | tr '\0' x > $W/mark
rm -f $W/slowfifo
mkfifo $W/slowfifo
# dd's read of the fifo waits the writer's 3 s; its 3 reads of mark do not
WORK="sh -c 'dd if=$W/slowfifo of=/dev/null bs=1 count=1 2>/dev/null; dd if=$W/mark of=/dev/null bs=777 count=3 2>/dev/null'"

for b in $BACKENDS; do
	(exec 4>$W/slowfifo; sleep 3; echo x >&4) &
	wr=$!
	eval "$KPT latency --backend $b -c \"$WORK\" --over 1s \
		--from 'p:vfs_read name=file->f_path.dentry->d_name.name:string' \
		--to 'r:vfs_read ret=\$retval:s64'" > $W/$b.slow 2> $W/$b.slow.err
	rc=$?
	# a kptrace that failed never started dd, the fifo's reader: the
	# writer still waits in its open(), and would for ever
	kill $wr 2> /dev/null
	wait $wr
	[ $b = fentry ] && fentry_gate "fileslower --backend fentry" $rc $W/$b.slow.err && continue
	lines=$(grep -c '=>' $W/$b.slow)
	if [ $rc = 0 ] && [ "$lines" = 1 ] && grep -q 'name="slowfifo" => .* ret=1$' $W/$b.slow; then
		ok "fileslower --over 1s --backend $b: one line, the fifo's read, its name and ret=1"
	else
		bad "fileslower --over 1s --backend $b: exit $rc, $lines lines, want the fifo's read: $(head -c 400 $W/$b.slow | tr "\n" " ") $(tail -c 300 $W/$b.slow.err | tr "\n" " ")"
	fi
	c=$(sed -n 's/^count \([0-9]*\), sum.*/\1/p' $W/$b.slow | head -n 1)
	if [ "${c:-0}" -ge 4 ] && ! grep -q 'name="mark"' $W/$b.slow; then
		ok "fileslower --backend $b: mark's fast reads timed ($c calls in all), none printed"
	else
		bad "fileslower --backend $b: $c calls, want at least dd's 4; a mark line: $(grep -c 'name="mark"' $W/$b.slow)"
	fi
done
# tcpconnlat: tcp_v4_connect()'s entry to tcp_finish_connect()'s (the
# SYN-ACK taken; in whichever task's softirq) keyed by the socket, the
# whole machine's: N connections of busybox nc to a busybox nc listening
# on the loopback, each paired once
ip link set lo up
nc -ll -p 7777 -e /bin/true &
NCS=$!
N=5
for b in $BACKENDS; do
	rm -f $W/tc.err	# a stale "Attached" would be read before kptrace truncates it
	if [ $b = fentry ] && ! fentry_helpers; then
		$KPT latency --backend $b --key sk --from 'p:tcp_v4_connect sk=$arg1:x64' \
			--to 'p:tcp_finish_connect sk=$arg1:x64' > $W/tc.out 2> $W/tc.err
		fentry_gate "tcpconnlat --backend fentry" $? $W/tc.err
		continue
	fi
	$KPT latency --backend $b --key sk --from 'p:tcp_v4_connect sk=$arg1:x64' \
		--to 'p:tcp_finish_connect sk=$arg1:x64' > $W/tc.out 2> $W/tc.err &
	kp=$!
	i=0
	while ! grep -q '^Attached' $W/tc.err 2>/dev/null && kill -0 $kp 2>/dev/null && [ $i -lt 600 ]; do
		i=$((i + 1)); sleep 0.1
	done
	made=0
	while [ $made -lt $N ]; do
		nc 127.0.0.1 7777 < /dev/null > /dev/null 2>&1 || break
		made=$((made + 1))
	done
	sleep 0.5
	kill -INT $kp
	wait $kp
	rc=$?
	c=$(sed -n 's/^count \([0-9]*\), sum.*/\1/p' $W/tc.out | head -n 1)
	if [ $rc = 0 ] && [ $made = $N ] && [ "$c" = $N ] && ! grep -q 'NEVER ENDED' $W/tc.err; then
		ok "tcpconnlat --backend $b: tcp_v4_connect to tcp_finish_connect by sk, nc's $N connections = $c pairs"
	else
		bad "tcpconnlat --backend $b: exit $rc, $made of $N connections made, $c pairs: $(head -c 300 $W/tc.out | tr "\n" " ") $(tail -c 300 $W/tc.err | tr "\n" " ")"
	fi
done
kill $NCS 2>/dev/null

# the direct pairs on tracepoints (kpt_tp2): by thread, dd's 100 one-byte
# reads; sched_switch at both ends by cpu, the end and the next start in
# one go, while two shell loops keep both CPUs switching: as many pairs as
# its hits but the first of each CPU, which ended nothing, and each CPU's
# last start open at the end
if [ -n "$TP2" ]; then
	$KPT latency --from t:syscalls/sys_enter_read --to t:syscalls/sys_exit_read \
		-c "dd if=/dev/zero of=/dev/null bs=1 count=100" > $W/rd.out 2> $W/rd.err
	rc=$?
	c=$(sed -n 's/^count \([0-9]*\), sum.*/\1/p' $W/rd.out | head -n 1)
	if [ $rc = 0 ] && [ "$c" = 100 ]; then
		ok "sys_enter_read to sys_exit_read by thread, direct: dd's 100 reads = $c pairs"
	else
		bad "sys_enter_read to sys_exit_read by thread: exit $rc, $c pairs, want dd's 100: $(tail -c 300 $W/rd.err | tr "\n" " ")"
	fi
	for l in 1 2; do (i=0; while [ $i -lt 20000 ]; do i=$((i + 1)); done) & done
	$KPT latency -d 2 --key cpu --from t:sched/sched_switch --to t:sched/sched_switch \
		> $W/sw.out 2> $W/sw.err
	rc=$?
	wait
	c=$(sed -n 's/^count \([0-9]*\), sum.*/\1/p' $W/sw.out | head -n 1)
	h=$(sed -n 's/^sched\/sched_switch_to  *\([0-9]*\) .*/\1/p' $W/sw.err)
	u=$(sed -n 's/.*, \([0-9]*\) --to ends without their start.*/\1/p' $W/sw.err)
	o=$(sed -n 's/.*, \([0-9]*\) --from starts still open at the end.*/\1/p' $W/sw.err)
	cpus=$(grep -c '^processor' /proc/cpuinfo)
	if [ $rc = 0 ] && [ "${c:-0}" -gt 0 ] && [ $((${c:-0} + ${u:-0})) = "${h:-x}" ] &&
	   [ "${u:-0}" -ge 1 ] && [ "${u:-0}" -le $cpus ] && [ "${o:-0}" = "${u:-0}" ]; then
		ok "sched_switch at both ends by cpu, in one go: $c pairs of $h hits, $u CPUs' first switches ending nothing, $o starts open"
	else
		bad "sched_switch at both ends by cpu: exit $rc, $c pairs of $h hits, $u ends without a start, $o open, $cpus CPUs: $(tail -c 400 $W/sw.err | tr "\n" " ")"
	fi
fi
echo "# done"
