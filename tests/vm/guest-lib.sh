#!/bin/sh
# Sourced by the guest scripts (busybox sh) that run kptrace against the
# kernel's own tracing: tests/vm/guest.sh, guest-arm64.sh, module-guest.sh,
# and by lockdown.sh for dmesg_check.
# test.sh adds it as /guest-lib.sh. They set KREL first.

# ok and FAIL lines go to fd 3, the console, even from a function whose
# output a caller redirects (kpt ... > FILE).
exec 3>&1
ok() { echo "ok - $KREL: $*" >&3; }
bad() { echo "FAIL - $KREL: $*" >&3; }

# Every kptrace run is bounded: busybox timeout execs kptrace in its own
# process (the pid a background run's $! names) and kills it after KT
# seconds, exit 137 (SIGKILL: kptrace takes SIGTERM as a stop and exits 0);
# a run that hangs fails here, named, instead of taking the VM's whole time.
KT=120
KPTBG="timeout -s KILL $KT /bin/kptrace"
kpt() {
	timeout -s KILL $KT /bin/kptrace "$@"
	KRC=$?
	[ $KRC = 137 ] && bad "kptrace did not end within ${KT} s (killed): kptrace $*"
	return $KRC
}
KPT=kpt

# SIGINT, then wait at most 20 s: a kptrace that does not stop is a failure,
# not a hung VM run. Leaves the exit status in RC.
stop() {
	local pid=$1 i=0
	kill -INT $pid 2>/dev/null
	while kill -0 $pid 2>/dev/null && [ $i -lt 200 ]; do i=$((i + 1)); sleep 0.1; done
	if kill -0 $pid 2>/dev/null; then
		bad "kptrace (pid $pid) did not stop on SIGINT within 20 s"
		# where it is, for the report: state, signals, kernel stack, syscall
		grep -E '^(State|SigPnd|ShdPnd|SigBlk|SigCgt)' /proc/$pid/status | sed 's/^/#   /'
		echo "#   wchan $(cat /proc/$pid/wchan 2>/dev/null) syscall $(cat /proc/$pid/syscall 2>/dev/null)"
		sed 's/^/#   /' /proc/$pid/stack 2>/dev/null
		kill -KILL $pid
	fi
	wait $pid
	RC=$?
}

# wait_attached FILE WHAT: until kptrace $KP says Attached in FILE, 60 s at
# most; a kptrace that exits first or the bound passing is a failure.
wait_attached() {
	local i=0
	while ! grep -q '^Attached' "$1" 2>/dev/null; do
		if ! kill -0 $KP 2>/dev/null; then
			bad "$2: kptrace exited before attaching: $(head -c 300 "$1")"
			return 1
		fi
		i=$((i + 1))
		if [ $i -gt 600 ]; then
			bad "$2: kptrace did not attach within 60 s: $(head -c 300 "$1")"
			return 1
		fi
		sleep 0.1
	done
}

# gone PATTERN FILE SECS: until no line of FILE matches PATTERN, bounded.
gone() {
	local i=0
	while grep -q "$1" "$2" 2>/dev/null; do
		i=$((i + 1))
		[ $i -gt $(($3 * 10)) ] && return 1
		sleep 0.1
	done
}

# Pids in order of first appearance: two runs of one workload compare.
renumber() {
	awk '{ if (!($1 in n)) n[$1] = ++k; $1 = n[$1]; print }'
}

# The kernel's log: a WARNING, BUG, oops or RCU stall during the boot fails
# it, whatever the script's checks said (loglevel=1 keeps most of them off the
# console test.sh reads). The boot's banner is the positive control: dmesg
# read the log.
dmesg_check() {
	local log faults

	log=$(dmesg)
	faults=$(echo "$log" | grep -E 'WARNING:|BUG:|kernel BUG|Oops|\[#[0-9]+\]|rcu: INFO:|detected stalls? on|blocked for more than')
	if ! echo "$log" | grep -q 'Linux version'; then
		bad "dmesg: no kernel banner, the log was not read: '$(echo "$log" | head -c 200)'"
	elif [ -n "$faults" ]; then
		bad "dmesg: the kernel reported: $(echo "$faults" | head -n 5 | tr '\n' '|' | cut -c1-500)"
	else
		ok "dmesg: no kernel WARNING, BUG, oops or stall in $(echo "$log" | wc -l) lines"
	fi
}
