#!/bin/sh
# Guest script (busybox sh), issue 36: the documented non-root way, as a
# kernel with kprobes grants it. nobody with CAP_BPF and CAP_PERFMON
# (util-linux's setpriv as /usr/local/bin/setpriv: busybox's cannot change
# the uid) traces a kernel function through each backend this kernel has;
# the reference is the workload's known reads (dd reading 777 bytes at a
# time of a 1000-byte file: 777, 223, then 0 at its end), and nobody
# without the capabilities is the control (refused, nothing read).
# Prints "ok - ..." / "FAIL - ...".
W=/tmp/kpt-caps
mkdir -p $W
chmod 755 $W
KREL=$(uname -r)
echo "# kernel $KREL"
. /guest-lib.sh || { echo "FAIL - $KREL: no /guest-lib.sh (tests/vm/test.sh adds it)"; exit 1; }
BACKENDS="kprobe fentry"
grep -q ' register_fprobe_ips$' /proc/kallsyms && BACKENDS="$BACKENDS kprobe-multi"
# Debian's perf_event_paranoid 3 asks CAP_SYS_ADMIN of perf_event_open,
# which kprobes attach through: refused at 3, saying so, traced at 2
PARANOID=$(cat /proc/sys/kernel/perf_event_paranoid)
n=2
[ "$PARANOID" -gt 2 ] && n=3
for b in $BACKENDS; do n=$((n + 1)); done
echo "# expect $n ok"
ok() { echo "ok - $KREL: $*"; }
bad() { echo "FAIL - $KREL: $*"; }
head -c 1000 /dev/zero | tr '\0' x > $W/mark
chmod 644 $W/mark
NOBODY="/usr/local/bin/setpriv --reuid=65534 --regid=65534 --clear-groups"
CAPS="--inh-caps=+bpf,+perfmon --ambient-caps=+bpf,+perfmon"
WORK="dd if=$W/mark of=/dev/null bs=777"
DEF='r:vfs_read ret=$retval:s64'

# the control: without the capabilities, a refusal naming them
timeout -s KILL 120 $NOBODY /bin/kptrace -d 1 "$DEF" > $W/none.out 2> $W/none.err
rc=$?
if [ $rc = 1 ] && grep -q 'lacks CAP_BPF and CAP_PERFMON' $W/none.err && ! grep -q 'ret=' $W/none.out; then
	ok "nobody without capabilities: refused, naming CAP_BPF and CAP_PERFMON"
else
	bad "nobody without capabilities: exit $rc, $(head -c 300 $W/none.err)"
fi
# traced B WHAT: kptrace --backend B started as nobody with the two
# capabilities, stopped by SIGINT after dd (not -c: a command's processes
# are followed through tracepoints, whose formats tracefs, root's 0700
# here, does not show nobody: checked below)
traced() {
	local b=$1 kp rc got i=0
	rm -f $W/$b.err
	$NOBODY $CAPS timeout -s KILL 120 /bin/kptrace --backend $b --comm dd "$DEF" \
		> $W/$b.out 2> $W/$b.err &
	kp=$!
	while ! grep -q '^Attached' $W/$b.err 2>/dev/null && kill -0 $kp 2>/dev/null && [ $i -lt 600 ]; do
		i=$((i + 1)); sleep 0.1
	done
	$WORK 2> /dev/null
	sleep 0.3
	kill -INT $kp 2>/dev/null
	wait $kp
	rc=$?
	[ $b = fentry ] && fentry_gate "$b: nobody with CAP_BPF+CAP_PERFMON" $rc $W/$b.err && return
	got=$(sed -n 's/^ *dd-.* ret=\([0-9-]*\)$/\1/p' $W/$b.out | tr '\n' ' ')
	if [ $rc = 0 ] && [ "$got" = "777 223 0 " ]; then
		ok "$b: nobody with CAP_BPF+CAP_PERFMON$2 traces dd's 3 reads (777 223 0)"
	else
		bad "$b: nobody with CAP_BPF+CAP_PERFMON$2: exit $rc, dd's reads '$got' (want 777 223 0): $(grep -v '^Attach' $W/$b.err | head -n 3 | tr '\n' ' ')"
	fi
}
# refused B WHY TEXT: kptrace --backend B as nobody with the capabilities
# exits 1 with TEXT in its message
refused() {
	timeout -s KILL 120 $NOBODY $CAPS /bin/kptrace --backend $1 -d 1 "$DEF" \
		> $W/$1.out 2> $W/$1.err
	rc=$?
	if [ $rc = 1 ] && grep -q "$3" $W/$1.err; then
		ok "$1: nobody, $2: refused, saying so"
	else
		bad "$1: nobody, $2: exit $rc, $(head -c 300 $W/$1.err)"
	fi
}
# kprobe.multi attaches by address: what kallsyms shows nobody decides it
hidden=no
$NOBODY head -n 1 /proc/kallsyms | grep -q '^0000000000000000 ' && hidden=yes
for b in $BACKENDS; do
	if [ $b = kprobe-multi ] && [ $hidden = yes ]; then
		refused $b "kallsyms' addresses hidden from it" \
			'attaches by address, and kallsyms hides them from this user'
	elif [ $b = kprobe ] && [ "$PARANOID" -gt 2 ]; then
		refused $b "perf_event_paranoid $PARANOID" "kernel.perf_event_paranoid is $PARANOID"
		echo 2 > /proc/sys/kernel/perf_event_paranoid
		traced $b ", perf_event_paranoid 2,"
		echo $PARANOID > /proc/sys/kernel/perf_event_paranoid
	else
		traced $b
	fi
done
# -c as nobody, tracefs root's (its mode, the reference): refused, saying so
mode=$(stat -c %a /sys/kernel/tracing)
timeout -s KILL 120 $NOBODY $CAPS /bin/kptrace -c "$WORK" "$DEF" > $W/c.out 2> $W/c.err
rc=$?
if [ "$mode" = 700 ] && [ $rc = 1 ] && grep -q 'tracing is not readable by this user' $W/c.err; then
	ok "-c as nobody, tracefs $mode: refused, naming tracefs"
elif [ "$mode" != 700 ]; then
	bad "tracefs's mode is $mode, not root's 700: this check's premise"
else
	bad "-c as nobody, tracefs $mode: exit $rc, $(head -c 300 $W/c.err)"
fi
