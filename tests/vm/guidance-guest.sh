#!/bin/sh
# Guest script (busybox sh) for the messages of issue 26 that need real
# kprobes (tests/host/guidance.sh has the rest): the kernel-missed warning
# names a kretprobe's own cause where a kretprobe missed, and --dry-run on a
# kernel with kprobes says nothing went unchecked. Prints "ok - ..." /
# "FAIL - ...".
KPT=/bin/kptrace
W=/tmp/kpt-guide
mkdir -p $W
KREL=$(uname -r)
echo "# kernel $KREL"
ok() { echo "ok - $KREL: $*"; }
bad() { echo "FAIL - $KREL: $*"; }

# r1: keeps one return instance: four sleepers at once in do_nanosleep, the
# kretprobe misses three returns (kprobe_profile's nmissed)
$KPT -d 3 -o $W/nap.out 'r1:kpt/nap do_nanosleep' 2> $W/nap.err &
kp=$!
i=0
while ! grep -q '^Attached' $W/nap.err 2>/dev/null && [ $i -lt 200 ]; do i=$((i + 1)); sleep 0.1; done
for n in 1 2 3 4; do sleep 1 & done
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

# --dry-run where kprobes exist: no "not checked" line (the host, without
# kprobes, checks that it says what it could not check)
if $KPT --dry-run 'p:vfs_read count=%dx:u64' > $W/dr.out 2>&1 &&
   grep -q 'kprobe at 0x' $W/dr.out && ! grep -q '^not checked' $W/dr.out; then
	ok "--dry-run of a kprobe on a kernel with kprobes: nothing left unchecked"
else
	bad "--dry-run of a kprobe: $(head -c 400 $W/dr.out)"
fi
