#!/bin/sh
# Guest script (busybox sh) for tests/vm/test.sh: the smaller guest scripts
# (tests/vm/*-guest.sh but guest.sh and soak-guest.sh, and ftrace-errors.sh),
# added under /guest.d, run one after the other in one boot. Each prints its own
# "# expect N ok"; test.sh adds them up. Then the kernel's log, as guest.sh
# reads it, and "# done".
KREL=$(uname -r)
for s in /guest.d/*.sh; do
	echo "# $(basename $s)"
	# each is bounded: a hung script fails here, named, not the boot
	timeout -s KILL 600 sh $s > /tmp/more.out 2>&1
	rc=$?
	cat /tmp/more.out
	# a script's own FAIL lines say why it exits non-zero; else this does
	[ $rc = 0 ] || grep -q '^FAIL - ' /tmp/more.out ||
		echo "FAIL - $KREL: $(basename $s) exited $rc with no FAIL line"
done
echo "# expect 1 ok"
log=$(dmesg)
faults=$(echo "$log" | grep -E 'WARNING:|BUG:|kernel BUG|Oops|\[#[0-9]+\]|rcu: INFO:|detected stalls? on|blocked for more than')
if ! echo "$log" | grep -q 'Linux version'; then
	echo "FAIL - $KREL: dmesg: no kernel banner, the log was not read"
elif [ -n "$faults" ]; then
	echo "FAIL - $KREL: dmesg: the kernel reported: $(echo "$faults" | head -n 5 | tr '\n' '|' | cut -c1-500)"
else
	echo "ok - $KREL: dmesg: no kernel WARNING, BUG, oops or stall after the smaller guest scripts"
fi
echo "# done"
