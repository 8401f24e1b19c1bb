#!/bin/sh
# Guest script (busybox sh): who is traced, through real kprobes, fentry and
# kprobe.multi (the host has none): kptrace never sees itself (the issue's
# -d 1 'p:vfs_read count=%dx:u64', which printed its own reads of
# /proc/kallsyms), and -c follows the command's processes. Prints
# "ok - ..." / "FAIL - ..." and exits non-zero on a failure.
W=/tmp/kpt-tg
mkdir -p $W
KREL=$(uname -r)
FAILED=0
echo "# kernel $KREL"
. /guest-lib.sh || { echo "FAIL - $KREL: no /guest-lib.sh (tests/vm/test.sh adds it)"; exit 1; }
# after guest-lib.sh, whose KPT is a function (not for runs put in the background)
KPT="timeout -s KILL 120 /bin/kptrace"
ok() { echo "ok - $KREL: $*"; }
bad() { echo "FAIL - $KREL: $*"; FAILED=1; }
# four checks a backend: kprobe; fentry, or one gated line without its
# helpers (5.17); kprobe.multi where the kernel has it (6.12's CONFIG_FPROBE)
n=8
fentry_helpers || n=5
grep -q ' register_fprobe_ips$' /proc/kallsyms && n=$((n + 4))
echo "# expect $n ok"
# the bpf() syscall's function (kptrace's own map reads go through it)
sys_bpf

# kptrace's programs loaded now, as the kernel lists them (bpftool)
kpt_progs() { bpftool prog show 2>/dev/null | grep -c ' name kpt_'; }
# until no kptrace-detach (what kptrace leaves its child to close) runs, 60 s at most
detached() {
	local i=0
	while cat /proc/[0-9]*/comm 2>/dev/null | grep -qx kptrace-detach && [ $i -lt 600 ]; do
		i=$((i + 1)); sleep 0.1
	done
}

# busy N: N reads (vfs_read) by another process than kptrace, in the
# background: dd reads a byte a time (busybox's cat would sendfile)
busy() { dd if=/dev/zero of=/dev/null bs=1 count=$1 2> /dev/null & }

# run_bg OUT ERR ARGS...: kptrace in the background, KP its pid; it ends by -d.
# ERR goes first: the previous backend's "Attached" in it would be read
# before the new kptrace's shell truncates it, and dd would run unwatched.
run_bg() {
	local out=$1 err=$2; shift 2
	rm -f $out $err
	$KPT "$@" > $out 2> $err &
	KP=$!
}

for be in kprobe fentry kprobe-multi; do
	# the backend this kernel has: --dry-run says, or refuses
	$KPT --backend $be --dry-run 'p:vfs_read count=%dx:u64' > $W/dry 2>&1
	rc=$?
	[ $be = fentry ] && fentry_gate "$be: kptrace's own reads, -c, what is left loaded" $rc $W/dry && continue
	if [ $rc != 0 ]; then
		echo "# $be: $(tail -n 1 $W/dry)"
		continue
	fi
	# the issue's reproduction, with other processes' reads for the control
	run_bg $W/self.out $W/self.err --backend $be -d 3 'p:vfs_read count=%dx:u64'
	i=0
	while ! grep -q '^Attached' $W/self.err 2>/dev/null && [ $i -lt 600 ]; do i=$((i + 1)); sleep 0.1; done
	busy 20
	loaded=$(kpt_progs)
	wait $KP; rc=$?
	wait
	own=$(grep -c -- "-$KP *\[" $W/self.out)
	other=$(grep -v -- "-$KP *\[" $W/self.out | grep -c 'vfs_read')
	if [ $rc = 0 ] && [ "$own" = 0 ] && [ "$other" -gt 0 ]; then
		ok "$be: p:vfs_read: none of kptrace's own reads ($other of others')"
	else
		bad "$be: p:vfs_read: exit $rc, $own lines of kptrace's own (pid $KP), $other of others': $(tail -n 3 $W/self.err)"
	fi
	# the direct histogram: $SYSBPF is kptrace's alone here (its map
	# reads each second); another kptrace's are the control. Its argument
	# by name where the kernel's BTF has it (__sys_bpf's, not 5.10's
	# wrapper's): the run reads the BTF, and tells others' hits from
	# kptrace's by their stack (kpt_own_by_stack())
	H="p:$SYSBPF $SYSBPF_ARG"
	[ -e /sys/kernel/btf/vmlinux ] && [ $SYSBPF = __sys_bpf ] && H="p:$SYSBPF ${SYSBPF_ARG%%=*}"
	$KPT --backend $be hist -d 2 "$H" ${SYSBPF_ARG%%=*} --json > $W/h1.json 2> $W/h1.err
	alone=$(sed -n 's/.*"hist":{.*"count":\([0-9]*\),"sum".*/\1/p' $W/h1.json)
	# (the other attached first and stopped after: its start takes seconds
	# under TCG, more under ASan)
	run_bg $W/other.out $W/other.err 't:sched/sched_process_exec'
	other=$KP
	i=0
	while ! grep -q '^Attached' $W/other.err 2>/dev/null && [ $i -lt 600 ]; do i=$((i + 1)); sleep 0.1; done
	$KPT --backend $be hist -d 2 "$H" ${SYSBPF_ARG%%=*} --json > $W/h2.json 2> $W/h2.err
	with=$(sed -n 's/.*"hist":{.*"count":\([0-9]*\),"sum".*/\1/p' $W/h2.json)
	kill -INT $other
	wait $other
	$KPT --backend $be --dry-run hist "$H" ${SYSBPF_ARG%%=*} > $W/dry.h 2>&1
	if [ "$alone" = 0 ] && [ "${with:-0}" -gt 0 ] && grep -q 'straight from the context' $W/dry.h; then
		ok "$be: hist of $H: its own calls not counted (alone $alone), another kptrace's are ($with)"
	else
		bad "$be: hist of $H: alone ${alone:-?} (want 0), with another kptrace ${with:-?} (want > 0): $(tail -n 2 $W/h1.err)"
	fi
	# -c: both cats of sh -c 'cat; cat'
	$KPT --backend $be -o $W/c.out -c "sh -c 'cat /etc/hostname; cat /etc/hostname'" \
		'p:do_sys_openat2 path=+0(%si):string' > /dev/null 2> $W/c.err
	rc=$?
	n=$(grep '^ *cat-' $W/c.out | grep -c 'path="/etc/hostname"')
	if [ $rc = 0 ] && [ "$n" = 2 ]; then
		ok "$be: -c \"sh -c 'cat; cat'\": both cats' opens"
	else
		bad "$be: -c \"sh -c 'cat; cat'\": exit $rc, $n of 2 cats' opens: $(tail -n 3 $W/c.err)"
	fi
	# nothing left loaded once every run and its kptrace-detach are done;
	# the control: the same count saw the programs while one ran
	# (the kernel frees a program a grace period after its last link: 10 s at most)
	detached
	i=0
	while [ "$(kpt_progs)" != 0 ] && [ $i -lt 100 ]; do i=$((i + 1)); sleep 0.1; done
	left=$(kpt_progs)
	if [ "$loaded" -gt 0 ] && [ "$left" = 0 ]; then
		ok "$be: no kptrace program left loaded after the runs ($loaded while one ran, bpftool)"
	else
		bad "$be: kptrace programs loaded: $loaded while running (want > 0), $left after (want 0): $(bpftool prog show 2>&1 | grep -A1 ' name kpt_' | head -n 4 | tr '\n' ' ')"
	fi
done
exit $FAILED
