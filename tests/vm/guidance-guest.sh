#!/bin/sh
# Guest script (busybox sh) for the messages of issue 26 that need real
# kprobes (tests/host/guidance.sh has the rest): the kernel-missed warning
# names only the causes of the mechanism that missed (a kretprobe's
# instances; a tracepoint's runs skipped under another BPF program), and
# --dry-run on a kernel with kprobes says nothing went unchecked. Prints "ok - ..." /
# "FAIL - ...".
KPT="timeout -s KILL 120 /bin/kptrace"
W=/tmp/kpt-guide
mkdir -p $W
KREL=$(uname -r)
echo "# kernel $KREL"
# and 2 more where the kernel counts skipped tracepoint runs (6.7+; 5.10
# and 6.1 do not: one skip there), as kptrace reads it from the kernel
echo "# expect 3 ok"
ok() { echo "ok - $KREL: $*"; }
bad() { echo "FAIL - $KREL: $*"; }

# r1: keeps one return instance: four sleepers at once in do_nanosleep, the
# kretprobe misses three returns (kprobe_profile's nmissed). SIGINT as soon
# as the kernel counts them, before kptrace's once-a-second look: the
# warning must come from the misses read before detaching (a tracefs
# kretprobe's are gone after).
rm -f $W/nap.err
$KPT -o $W/nap.out 'r1:kpt/nap do_nanosleep' 2> $W/nap.err &
kp=$!
i=0
while ! grep -q '^Attached' $W/nap.err 2>/dev/null && [ $i -lt 200 ]; do i=$((i + 1)); sleep 0.1; done
for n in 1 2 3 4; do sleep 2 & done
i=0
while ! awk '$1 ~ /^kpt[0-9]+_r/ && $3 >= 3 { f = 1 } END { exit !f }' /sys/kernel/tracing/kprobe_profile &&
      [ $i -lt 500 ]; do
	i=$((i + 1)); usleep 20000
done
kill -INT $kp
wait $kp
rc=$?
if [ $rc != 0 ]; then
	bad "r1:do_nanosleep run exit $rc: $(tail -c 300 $W/nap.err)"
elif grep -q 'MISSED by the kernel (kretprobe instances exhausted: raise rN:' $W/nap.err; then
	ok "a kretprobe that ran out of instances: the profile names rN:"
else
	bad "no kretprobe cause for r1:'s misses: $(tail -c 400 $W/nap.err)"
fi
if grep -q 'warning: the kernel missed .*kretprobe instances exhausted' $W/nap.err &&
   ! grep 'warning: the kernel missed' $W/nap.err | grep -q 'another BPF program'; then
	ok "the kretprobe's warning names its causes, no other mechanism's"
else
	bad "the kretprobe's warning: $(grep 'warning: the kernel missed' $W/nap.err)"
fi

# A tracepoint program's runs skipped (bpf_prog_active): a kprobe's program
# (through a kprobe: fentry's takes no bpf_prog_active) reads a kernel
# address in x86-64's guard hole, unmapped, so each hit faults inside it,
# and the fault's tracepoint, exceptions/page_fault_kernel, is the other
# kptrace's. (Nested under a tracepoint's program instead, perf's own
# recursion guard drops the inner event unseen.)
if [ -d /sys/kernel/tracing/events/exceptions/page_fault_kernel ]; then
	# stopped once the other has run (not by -d: the other's start takes
	# seconds under TCG, more under ASan)
	$KPT -o /dev/null 't:exceptions/page_fault_kernel address' 2> $W/tp.err &
	ka=$!
	i=0
	while ! grep -q '^Attached' $W/tp.err 2>/dev/null && [ $i -lt 200 ]; do i=$((i + 1)); sleep 0.1; done
	$KPT -d 1 -o /dev/null --backend kprobe 'p:kpt/hole vfs_read v=@0xffff800000000000:u64' \
		2> $W/hole.err &
	kb=$!
	i=0
	while ! grep -q '^Attached' $W/hole.err 2>/dev/null && [ $i -lt 200 ]; do i=$((i + 1)); sleep 0.1; done
	for n in 1 2 3 4 5 6 7 8 9 10; do cat /proc/version > /dev/null; done
	wait $kb
	kill -INT $ka
	wait $ka
	warn=$(grep -m1 'warning: the kernel missed' $W/tp.err)
	# the link info's missed count (its MISSES column, "-" without it) and
	# the skipped runs of perf-event programs came in one series (6.7):
	# without it the kernel skips them uncounted, nothing to name
	counted=$(awk '$1 == "kpt/hole" { print ($3 == "-") ? "no" : "yes" }' $W/hole.err)
	if ! grep -q 'argument reads faulted' $W/hole.err; then
		bad "the guard-hole read did not fault: $(tail -c 300 $W/hole.err)"
	elif [ "$counted" = no ]; then
		echo "skip - $KREL: this kernel counts no skipped runs of perf-event programs (6.7+)"
	else
		echo "# expect 2 ok"
		if [ -z "$warn" ]; then
			bad "no skipped tracepoint run reported: $(tail -c 400 $W/tp.err)"
		elif echo "$warn" | grep -qE 'kretprobe|rN:|recursion|fentry'; then
			bad "a tracepoint run's warning names other mechanisms' causes: $warn"
		elif echo "$warn" | grep -q 'another BPF program was running on that CPU'; then
			ok "a tracepoint run's warning names its cause only: another BPF program"
		else
			bad "a tracepoint run's warning: $warn"
		fi
	fi
	if [ "$counted" = no ]; then
		:
	elif grep -qE 'hits NOT RUN by the kernel: another BPF program was running on that CPU: the probe fired inside it, or in an interrupt while it ran$' $W/tp.err; then
		ok "a tracepoint run's profile: NOT RUN, with its cause"
	else
		bad "a tracepoint run's profile: $(tail -n 1 $W/tp.err)"
	fi
else
	bad "no exceptions/page_fault_kernel tracepoint"
fi

# --dry-run where kprobes exist: no "not checked" line (the host, without
# kprobes, checks that it says what it could not check)
if $KPT --dry-run 'p:vfs_read count=%dx:u64' > $W/dr.out 2>&1 &&
   grep -q 'kprobe at 0x' $W/dr.out && ! grep -q '^not checked' $W/dr.out; then
	ok "--dry-run of a kprobe on a kernel with kprobes: nothing left unchecked"
else
	bad "--dry-run of a kprobe: $(head -c 400 $W/dr.out)"
fi
