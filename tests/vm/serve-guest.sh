#!/bin/sh
# Guest script (busybox sh) for kptrace serve on real kernel functions: a
# job file of a kretprobe's count and sum, a function's latency and
# kmalloc's histogram, scraped with busybox wget while dd makes known
# reads; the numbers against what the program read.
W=/tmp/kpt-serve
mkdir -p $W
KREL=$(uname -r)
echo "# kernel $KREL"
echo "# expect 5 ok"
ok() { echo "ok - $KREL: $*"; }
# the initramfs's loopback is down until brought up
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
bad() { echo "FAIL - $KREL: $*"; }

# dd reading 777 bytes of a 1000-byte file, three times over: 2 reads of
# 1000 bytes in all, and its end
head -c 1000 /dev/zero | tr '\0' x > $W/mark
WORK="dd if=$W/mark of=/dev/null bs=777 count=3"
cat > $W/jobs.kpt <<'JOBS'
reads: count 'r:vfs_read ret=$retval:s64 if ret > 0' --by comm --sum ret --comm dd
lat:   latency vfs_read --comm dd
kmal:  hist kmalloc
JOBS
timeout -s KILL 240 /bin/kptrace serve -f $W/jobs.kpt --listen 127.0.0.1:9435 2> $W/serve.err &
SV=$!
i=0
while [ $i -lt 240 ] && ! grep -q 'serving http' $W/serve.err; do
	kill -0 $SV 2> /dev/null || break
	sleep 0.5
	i=$((i + 1))
done
if ! grep -q 'serving http' $W/serve.err; then
	bad "serve did not start: $(tail -c 400 $W/serve.err | tr "\n" " ")"
	kill -9 $SV 2> /dev/null
	exit 0
fi
$WORK 2> /dev/null
wget -q -O $W/m.txt http://127.0.0.1:9435/metrics
rc=$?
[ $rc = 0 ] || echo "# wget: $(wget -O /dev/null http://127.0.0.1:9435/metrics 2>&1 | tail -n 2 | tr "\n" " ")"
if [ $rc = 0 ] && grep -Eq '^kptrace_reads_total\{probe="[^"]*",comm="dd"\} 2$' $W/m.txt &&
	grep -Eq '^kptrace_reads_ret\{probe="[^"]*",comm="dd"\} 1000$' $W/m.txt; then
	ok "serve: count --sum ret of r:vfs_read, dd's 2 reads of 1000 bytes"
else
	bad "serve: want dd's 2 reads of 1000 bytes (wget $rc): $(grep '^kptrace_reads' $W/m.txt | tr "\n" "|")"
fi
# latency vfs_read --comm dd: dd's 3 reads (777 bytes, the 223 left, 0 at
# the end; busybox's dd is static: no loader reads)
got=$(sed -n 's/^kptrace_lat_seconds_count{probe="vfs_read"} \([0-9]*\)$/\1/p' $W/m.txt)
if [ "$got" = 3 ]; then
	ok "serve: latency vfs_read, dd's 3 reads counted"
else
	bad "serve: latency vfs_read: '$got' calls, want dd's 3 reads: $(grep '^kptrace_lat_seconds_count' $W/m.txt)"
fi
inf=$(sed -n 's/^kptrace_kmal_bucket{probe="[^"]*",le="+Inf"} \([0-9]*\)$/\1/p' $W/m.txt | head -n 1)
cnt=$(sed -n 's/^kptrace_kmal_count{probe="[^"]*"} \([0-9]*\)$/\1/p' $W/m.txt | head -n 1)
if [ -n "$inf" ] && [ "$inf" = "$cnt" ] && [ "$inf" -gt 0 ]; then
	ok "serve: hist kmalloc, $inf allocations, +Inf equal to _count"
else
	bad "serve: hist kmalloc: +Inf '$inf', _count '$cnt': $(grep '^kptrace_kmal' $W/m.txt | head -n 3 | tr "\n" "|")"
fi
# SIGTERM: a clean stop (under ASan, tests/vm/sanitized.sh, LeakSanitizer
# judges it at exit: a leak is exit 99 and a report)
kill -TERM $SV
i=0
while kill -0 $SV 2> /dev/null && [ $i -lt 200 ]; do i=$((i + 1)); sleep 0.1; done
kill -9 $SV 2> /dev/null
wait $SV
rc=$?
if [ $rc = 0 ]; then
	ok "serve: SIGTERM, exit 0 within $((i / 10)) s"
else
	bad "serve: SIGTERM, exit $rc (137: still running after 20 s): $(tail -c 400 $W/serve.err | tr "\n" " ")"
fi
# what a kretprobe of perf's leaves is nothing: no kptrace event in tracefs
if ! grep -q kptrace /sys/kernel/tracing/kprobe_events 2> /dev/null; then
	ok "serve: its stop leaves no kptrace kprobe event"
else
	bad "serve: its stop left: $(grep kptrace /sys/kernel/tracing/kprobe_events | head -n 3)"
fi
