#!/bin/sh
# Guest script (busybox sh) for issue 39's pairings through real kernel
# functions: fileslower as latency --from/--to over vfs_read's entry and
# return, --over printing the one slow read with its file's name (the
# start's) and its result (the end's), through each backend this kernel has.
W=/tmp/kpt-pairs
mkdir -p $W
KREL=$(uname -r)
echo "# kernel $KREL"
BACKENDS="kprobe fentry"
grep -q ' register_fprobe_ips$' /proc/kallsyms && BACKENDS="$BACKENDS kprobe-multi"
n=0
for b in $BACKENDS; do n=$((n + 2)); done
echo "# expect $n ok"
ok() { echo "ok - $KREL: $*"; }
bad() { echo "FAIL - $KREL: $*"; }
KPT="timeout -s KILL 120 /bin/kptrace"

head -c 1000 /dev/zero | tr '\0' x > $W/mark
rm -f $W/slowfifo
mkfifo $W/slowfifo
# dd's read of the fifo waits the writer's 3 s; its 3 reads of mark do not
WORK="sh -c 'dd if=$W/slowfifo of=/dev/null bs=1 count=1 2>/dev/null; dd if=$W/mark of=/dev/null bs=777 count=3 2>/dev/null'"

for b in $BACKENDS; do
	(exec 4>$W/slowfifo; sleep 3; echo x >&4) &
	eval "$KPT latency --backend $b -c \"$WORK\" --over 1s \
		--from 'p:vfs_read name=file->f_path.dentry->d_name.name:string' \
		--to 'r:vfs_read ret=\$retval:s64'" > $W/$b.slow 2> $W/$b.slow.err
	rc=$?
	wait
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
echo "# done"
