#!/bin/sh
# Guest script (busybox sh) for tests/vm/test.sh: the smaller guest scripts
# (tests/vm/*-guest.sh but guest.sh and soak-guest.sh, and ftrace-errors.sh),
# added under /guest.d, run one after the other in one boot. Each prints its own
# "# expect N ok"; test.sh adds them up. Then the kernel's log, as guest.sh
# reads it, and "# done".
#
# Each script's lines reach the console as they come, a "# alive" line every
# 30 s says the guest still runs, and a script past LIMIT seconds is killed
# after what it waits on is printed: a hang is named and explained, and a
# guest whose lines stop altogether is a frozen kernel (test.sh tells them apart).
KREL=$(uname -r)
LIMIT=${MORE_LIMIT:-300}
up() { cut -d. -f1 /proc/uptime; }

# hang_report PGID: what the script's processes wait on, and the kernel's
# blocked tasks, before they are killed
hang_report() {
	echo "# $1 is past ${LIMIT}s: its processes and where they wait"
	for p in /proc/[0-9]*; do
		[ "$(cut -d' ' -f5 $p/stat 2>/dev/null)" = "$1" ] || continue
		echo "#   pid ${p#/proc/} $(tr '\0' ' ' < $p/cmdline | cut -c1-120)" \
			"state $(sed -n 's/^State:\t//p' $p/status) wchan $(cat $p/wchan 2>/dev/null)"
		sed 's/^/#     /' $p/stack 2>/dev/null
	done
	echo w > /proc/sysrq-trigger 2>/dev/null
	dmesg | sed -n '/sysrq: Show Blocked State/,$p' | tail -n 80 | sed 's/^/#   dmesg: /'
}

# run_one SCRIPT: runs it in a session of its own, bounded by LIMIT;
# its output in /tmp/more.out too, its exit status in /tmp/more.rc
run_one() {
	local t=0 pgid
	rm -f /tmp/more.pid /tmp/more.rc
	( setsid sh -c 'echo $$ > /tmp/more.pid; exec sh "$0"' $1 2>&1; echo $? > /tmp/more.rc ) |
		tee /tmp/more.out &
	while [ ! -e /tmp/more.rc ]; do
		sleep 1
		t=$((t + 1))
		[ $((t % 30)) = 0 ] && echo "# alive: $(basename $1) at ${t}s, uptime $(up)s"
		if [ $t = $LIMIT ] && pgid=$(cat /tmp/more.pid 2>/dev/null); then
			hang_report $pgid
			kill -9 -$pgid 2>/dev/null
		fi
	done
	wait
}

for s in ${GUEST_D:-/guest.d}/*.sh; do
	start=$(up)
	echo "# $(basename $s) (uptime ${start}s)"
	run_one $s
	rc=$(cat /tmp/more.rc)
	echo "# $(basename $s): exit $rc after $(($(up) - start))s, uptime $(up)s"
	# a script's own FAIL lines say why it exits non-zero; else this does
	if [ "$rc" = 137 ]; then
		echo "FAIL - $KREL: $(basename $s) did not end within ${LIMIT}s: killed (what it waited on is above)"
	elif [ "$rc" != 0 ] && ! grep -q '^FAIL - ' /tmp/more.out; then
		echo "FAIL - $KREL: $(basename $s) exited $rc with no FAIL line"
	fi
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
[ "${MORE_DONE:-1}" = 0 ] || echo "# done"
