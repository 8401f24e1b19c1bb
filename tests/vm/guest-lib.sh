#!/bin/sh
# Sourced by the guest scripts (busybox sh) that run kptrace against the
# kernel's own tracing: tests/vm/guest.sh, guest-arm64.sh, the smaller
# *-guest.sh scripts (those that keep their own ok/bad and KPT define them
# after sourcing it), and by lockdown.sh for dmesg_check.
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

# kptrace's fentry/fexit programs take bpf_get_func_arg_cnt() and
# bpf_get_func_ret() (Linux 5.17); on a kernel without them it refuses
# --backend fentry. fentry_helpers: whether this kernel has both, by their
# ids in its own BTF's enum bpf_func_id, not by its version.
fentry_helpers() {
	grep -q BPF_FUNC_get_func_arg_cnt /sys/kernel/btf/vmlinux 2>/dev/null &&
		grep -q BPF_FUNC_get_func_ret /sys/kernel/btf/vmlinux 2>/dev/null
}

# fentry_gate WHAT RC ERRFILE: on a kernel without the helpers, the check
# WHAT is version-gated: kptrace must have exited 1 (RC) with a refusal in
# ERRFILE naming both helpers and the fix, said here as ok or FAIL.
# Returns 1 on a kernel with them: the caller checks its run as usual.
fentry_gate() {
	fentry_helpers && return 1
	if [ "$2" = 1 ] && grep -q 'lack bpf_get_func_arg_cnt() and bpf_get_func_ret()' "$3" &&
		grep -q 'use --backend kprobe' "$3"; then
		ok "$1: version-gated: this kernel lacks bpf_get_func_arg_cnt() and bpf_get_func_ret() (5.17), which kptrace's fentry programs take; refused, naming them and --backend kprobe"
	else
		bad "$1: this kernel lacks bpf_get_func_arg_cnt() and bpf_get_func_ret(): want exit 1 and a refusal naming them and --backend kprobe, got exit $2: $(head -c 300 "$3" | tr '\n' ' ')"
	fi
}

# sys_bpf: the bpf() system call's function, into SYSBPF, and its first
# argument, in a register, as NAME=FETCH, into SYSBPF_ARG: __sys_bpf(cmd,
# ...) where kallsyms has it (5.13+); before, its body is __do_sys_bpf(),
# notrace, so the syscall's wrapper __x64_sys_bpf(regs).
sys_bpf() {
	if grep -q ' __sys_bpf$' /proc/kallsyms; then
		SYSBPF=__sys_bpf SYSBPF_ARG=cmd=%di:u32
	else
		SYSBPF=__x64_sys_bpf SYSBPF_ARG=regs=%di:u64
	fi
}

# ustacks OUT: -U's user stacks in OUT, one a line, "frame|frame...", each
# frame as printed without its "(file)", cut after main's frame.
ustacks() {
	awk '/<user stack trace>/ { if (s != "") print s; s = ""; on = 1; next }
	on && /^ => / { f = substr($0, 5); sub(/ \(.*\)$/, "", f)
		s = (s == "" ? f : s "|" f); next }
	{ if (s != "") print s; s = ""; on = 0 }
	END { if (s != "") print s }' "$1" | sed 's/\(|main+0x[0-9a-f]*\)|.*/\1/'
}
