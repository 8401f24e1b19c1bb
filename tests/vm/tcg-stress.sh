#!/bin/sh
# Guest script (busybox sh), not part of make test: the reproducer that
# settled why guests oopsed under TCG. Kernel text patched and unpatched over
# and over while both vCPUs run it: first ftrace's own kprobe on vfs_read
# enabled and disabled 150 times (no kptrace at all), then kptrace's
# fentry/fexit pair on vfs_read attached and detached 15 times.
#   KPT_VM_TCG=multi tests/vm/run.sh --kernel 6.12 --script tests/vm/tcg-stress.sh \
#     --add ./kptrace:/bin/kptrace --timeout 900
# Under -accel tcg,thread=multi the first phase alone oopsed every boot
# (int3 at a static call or jump label being patched: __schedule,
# wake_up_new_task, try_to_wake_up); under thread=single no boot did.
T=/sys/kernel/tracing
echo "# expect 2 ok"
dd if=/dev/zero of=/tmp/f bs=4096 count=4 2>/dev/null
for _ in 1 2; do (while :; do cat /tmp/f > /dev/null; done) & done
i=0
while [ $i -lt 150 ]; do
	echo 'p:kpt_stress vfs_read' > $T/kprobe_events || echo "FAIL - kprobe_events write"
	echo 1 > $T/events/kprobes/kpt_stress/enable
	echo 0 > $T/events/kprobes/kpt_stress/enable
	echo > $T/kprobe_events
	i=$((i + 1))
	[ $((i % 25)) = 0 ] && echo "# ftrace kprobe: $i cycles, uptime $(cut -d' ' -f1 /proc/uptime)"
done
echo "ok - 150 cycles of ftrace's kprobe on vfs_read"
i=0
while [ $i -lt 15 ]; do
	timeout -s KILL 60 /bin/kptrace latency vfs_read -d 1 > /tmp/l.out 2> /tmp/l.err
	rc=$?
	[ $rc = 0 ] && grep -q 'through fentry/fexit' /tmp/l.err ||
		echo "FAIL - kptrace latency rc=$rc $(head -c 200 /tmp/l.err)"
	i=$((i + 1))
	[ $((i % 5)) = 0 ] && echo "# kptrace fentry/fexit: $i cycles, uptime $(cut -d' ' -f1 /proc/uptime)"
done
echo "ok - 15 cycles of kptrace latency vfs_read through fentry/fexit"
echo "# done"
