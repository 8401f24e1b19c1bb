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

# dym_check: "did you mean" for a kernel function offers only what the
# kernel takes. Two ok/FAIL lines. The words: a notrace near-miss (a text
# symbol of kallsyms that tracefs's available_filter_functions does not list
# and the kprobe blacklist does not hold, a 'q' appended), and where the
# kernel has no __sys_bpf but a notrace __do_sys_bpf, __sys_bpf itself.
# Neither may be answered with that notrace name, and what is suggested
# must be in available_filter_functions; the suggestion (else vfs_raed's),
# given back to kptrace, attaches, and the kernel's kprobe_events takes it.
dym_check() {
	local aff=/sys/kernel/tracing/available_filter_functions n w s got='' sug='' fails=''
	cat /sys/kernel/debug/kprobes/blacklist > $W/dym.bl 2>/dev/null
	awk 'FILENAME == ARGV[1] { if (NF == 1) tr[$1] = 1; next }
	FILENAME == ARGV[2] { bl[$2] = 1; next }
	NF == 3 && ($2 == "t" || $2 == "T") && !($3 in tr) && !($3 in bl) &&
		$3 ~ /^[a-z][a-z0-9_]+$/ && length($3) >= 10 && length($3) <= 30 { print $3 }' \
		$aff $W/dym.bl /proc/kallsyms > $W/dym.notrace
	n=$(head -n 1 $W/dym.notrace)
	set -- "$n" "${n}q"
	if ! grep -q ' __sys_bpf$' /proc/kallsyms && grep -q ' [tT] __do_sys_bpf$' /proc/kallsyms &&
		! grep -qx __do_sys_bpf $aff; then
		set -- "$@" __do_sys_bpf __sys_bpf
	fi
	[ -n "$n" ] || set --
	while [ $# -ge 2 ]; do
		n=$1 w=$2
		shift 2
		kpt --dry-run "p:$w" > $W/dym.out 2>&1
		s=$(sed -n "s/.*did you mean '\([^']*\)'.*/\1/p" $W/dym.out | head -n 1)
		if [ $KRC = 0 ] || ! grep -q "no symbol '$w' in this kernel" $W/dym.out; then
			fails="$fails $w: exit $KRC, $(head -c 200 $W/dym.out);"
		elif [ "$s" = "$n" ] || { [ -n "$s" ] && ! grep -qx "$s" $aff; }; then
			fails="$fails $w: suggests '$s' (notrace $n);"
		fi
		got="$got $w->'$s'"
		[ -n "$sug" ] || sug=$s
	done
	if [ -z "$got" ]; then
		bad "did you mean: no text symbol of kallsyms outside available_filter_functions to miss"
	elif [ -z "$fails" ]; then
		ok "did you mean never names a notrace function, and names a traceable one if any:$got"
	else
		bad "did you mean named what the kernel refuses:$fails"
	fi
	if [ -z "$sug" ]; then
		kpt --dry-run 'p:vfs_raed' > $W/dym.out 2>&1
		sug=$(sed -n "s/.*did you mean '\([^']*\)'.*/\1/p" $W/dym.out | head -n 1)
	fi
	kpt -d 1 "p:$sug" > /dev/null 2> $W/dym.err
	echo "p:kpt/dym $sug" >> /sys/kernel/tracing/kprobe_events 2> /dev/null
	w=$?
	echo '-:kpt/dym' >> /sys/kernel/tracing/kprobe_events 2> /dev/null
	if [ -n "$sug" ] && [ $KRC = 0 ] && grep -q '^Attached' $W/dym.err && [ $w = 0 ]; then
		ok "did you mean's '$sug' attaches given back to kptrace, and kprobe_events takes it"
	else
		bad "did you mean's '$sug': kptrace exit $KRC ($(grep -v '^Attached' $W/dym.err | head -c 200)), kprobe_events $w"
	fi
}

# kpt_start FILE: kptrace on FILE's definitions in the background ($KPS its
# pids), attached; with ONE_EACH set (a kernel without BPF cookies, where a
# run takes at most ONE_EACH probes on one function: load/ident.h), a FILE
# of more definitions than that runs each in a kptrace of its own, all at
# once. kpt_stop OUT: stops them, their lines through the caller's norm
# into OUT.
kpt_start() {
	local n=0 def
	# no "Attached" left from the last run: the wait below would see it
	# before this kptrace truncates the file, and signal it while starting
	rm -f $W/kpt.err $W/kpt.err.* $W/kpt.out.*
	KPT_SPLIT=
	[ -z "${ONE_EACH:-}" ] || [ "$(grep -c . "$1")" -le "$ONE_EACH" ] || KPT_SPLIT=1
	if [ -z "$KPT_SPLIT" ]; then
		$KPTBG ${KPT_FLAGS:-} -f "$1" > $W/kpt.out 2> $W/kpt.err &
		KP=$!
		KPS=$KP
		wait_attached $W/kpt.err "kptrace ${KPT_FLAGS:-}-f $1"
		return
	fi
	KPS=
	while read -r def; do
		n=$((n + 1))
		echo "$def" > $W/one.$n.defs
		$KPTBG ${KPT_FLAGS:-} -f $W/one.$n.defs > $W/kpt.out.$n 2> $W/kpt.err.$n &
		KP=$!
		KPS="$KPS $KP"
		wait_attached $W/kpt.err.$n "kptrace ${KPT_FLAGS:-}-f $1 (its line $n alone)"
		echo "# $1: line $n's kptrace attached"	# the console's not silent
	done < "$1"
}

# The workload ran to its end before SIGINT: kptrace must drain every
# record it made before it exits.
kpt_stop() {
	local p rc=0
	for p in $KPS; do
		stop $p
		[ $RC = 0 ] || rc=$RC
	done
	RC=$rc
	if [ -n "$KPT_SPLIT" ]; then
		cat $W/kpt.out.* > $W/kpt.out
		cat $W/kpt.err.* > $W/kpt.err
	fi
	norm < $W/kpt.out > "$1"
	if [ $RC != 0 ]; then
		bad "kptrace exit status $RC: $(tail -n 5 $W/kpt.err)"
	fi
}
