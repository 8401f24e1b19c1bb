#!/bin/sh
# Guest script (busybox sh), booted with lockdown=confidentiality by
# tests/vm/test.sh: kptrace must say that the kernel is locked down, exit
# non-zero (not a crash), and attach nothing.
KREL=$(uname -r)
# dmesg_check; its ok and bad are this script's own, below
. /guest-lib.sh || { echo "FAIL - $KREL lockdown: no /guest-lib.sh (tests/vm/test.sh adds it)"; exit 1; }
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

dmesg_check
echo "# done"
