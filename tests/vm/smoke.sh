#!/bin/sh
# Guest script (busybox sh): prove the VM can do kprobes at all, using the kernel's own
# ftrace kprobe_events. Its trace output is the reference kptrace's output is diffed against.
# usage (host): tests/vm/run.sh --kernel 6.1 --script tests/vm/smoke.sh
set -eu
T=/sys/kernel/tracing

echo "uname: $(uname -r)"
test -e /sys/kernel/btf/vmlinux || { echo "FAIL: no /sys/kernel/btf/vmlinux"; exit 1; }
echo "btf: /sys/kernel/btf/vmlinux $(wc -c </sys/kernel/btf/vmlinux) bytes"
echo "lockdown: $(cat /sys/kernel/security/lockdown 2>/dev/null || echo n/a)"

echo 'p:myprobe do_sys_openat2 dfd=%di:s32 path=+0(%si):string flags=+0(%dx):x64' >$T/kprobe_events
# shellcheck disable=SC2016  # $retval is kprobe_events syntax, not a shell variable
echo 'r:myret do_sys_openat2 ret=$retval:s64' >>$T/kprobe_events
echo >$T/trace                       # start from an empty buffer
echo 1 >$T/events/kprobes/myprobe/enable
echo 1 >$T/events/kprobes/myret/enable
cat /etc/hostname
echo 0 >$T/events/kprobes/myprobe/enable
echo 0 >$T/events/kprobes/myret/enable

echo "---- trace ----"
cat $T/trace
echo "---- myprobe/format ----"
cat $T/events/kprobes/myprobe/format
echo "---- myret/format ----"
cat $T/events/kprobes/myret/format

# Fail loudly if the probes never fired for our cat.
grep -q 'myprobe:.*path="/etc/hostname"' $T/trace || { echo "FAIL: no myprobe hit for /etc/hostname"; exit 1; }
grep -q 'myret:' $T/trace || { echo "FAIL: no myret hit"; exit 1; }
echo >$T/kprobe_events
echo "SMOKE OK"
