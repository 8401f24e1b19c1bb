#!/bin/sh
# Guest script (busybox sh), booted with lockdown=confidentiality by
# tests/vm/test.sh: kptrace must say that the kernel is locked down, exit
# non-zero (not a crash), and attach nothing.
KREL=$(uname -r)
# bounded: a kptrace that hangs is killed (exit 137) and fails its check
KPT="timeout -s KILL 60 /bin/kptrace"
ok() { echo "ok - $KREL lockdown: $*"; }
bad() { echo "FAIL - $KREL lockdown: $*"; }
# the ok lines of a passing run (tests/vm/test.sh fails a run with fewer)
echo "# expect 6 ok"

mode=$(cat /sys/kernel/security/lockdown 2>/dev/null)
case "$mode" in
*"[confidentiality]"*) ok "the kernel reports lockdown: $mode" ;;
*) bad "lockdown=confidentiality not in effect: '$mode'"; echo "# done"; exit 0 ;;
esac

# $1: name; the rest: kptrace's arguments
refused() {
	local name=$1 rc
	shift
	$KPT "$@" > /tmp/ld.out 2> /tmp/ld.err
	rc=$?
	if [ $rc -ge 1 ] && [ $rc -lt 128 ] && grep -q 'the kernel is locked down' /tmp/ld.err &&
	   grep -q 'kprobes' /tmp/ld.err && ! grep -q Attaching /tmp/ld.err; then
		ok "$name: exit $rc, '$(head -c 110 /tmp/ld.err)...'"
	else
		bad "$name: exit $rc: $(cat /tmp/ld.err)"
	fi
}
refused "kprobe" -d 1 'p:a vfs_read count=%dx:u64'
refused "kretprobe with maxactive (tracefs)" -d 1 'r4:b vfs_read'
refused "tracepoint" -d 1 't:sched/sched_process_exec filename'
refused "hist kmalloc" -d 1 hist kmalloc
# for the record: tracefs itself is refused under confidentiality
echo "# kprobe_events: $(cat /sys/kernel/tracing/kprobe_events 2>&1 | head -c 100)"

# The kernel's log: a WARNING, BUG, oops or RCU stall in this boot fails it
# (loglevel=1 keeps them off the console). The boot's own banner is the
# positive control: dmesg read something.
log=$(dmesg)
faults=$(echo "$log" | grep -E 'WARNING:|BUG:|kernel BUG|Oops|\[#[0-9]+\]|rcu: INFO:|detected stalls? on|blocked for more than')
if ! echo "$log" | grep -q 'Linux version'; then
	bad "dmesg: no kernel banner, the log was not read: '$(echo "$log" | head -c 200)'"
elif [ -n "$faults" ]; then
	bad "dmesg: the kernel reported: $(echo "$faults" | head -n 5 | tr '\n' '|' | cut -c1-500)"
else
	ok "dmesg: no kernel WARNING, BUG, oops or stall in $(echo "$log" | wc -l) lines"
fi
echo "# done"
