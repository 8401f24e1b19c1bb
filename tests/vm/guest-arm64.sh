#!/bin/sh
# Guest script (busybox sh) for KPT_VM_ARCH=arm64 tests/vm/test.sh: the
# arm64 kptrace on Debian's arm64 kernels. As tests/vm/guest.sh does on
# x86-64, the kernel's own kprobe_events is the reference: both tracers
# watch the same workload and must print the same lines but for the
# timestamp, CPU and flags columns; here with arm64's registers (%x0..%x30,
# %sp, %pc, %pstate) and calling convention. Prints "ok - ..." / "FAIL -
# ...", "# expect N ok" first and "# done" last. Not "*-guest.sh": the x86-64
# "more" boot of tests/vm/test.sh runs every script of that name.
T=/sys/kernel/tracing
W=/tmp/kpt
mkdir -p $W
KREL=$(uname -r)
echo "# kernel $KREL ($(uname -m))"
# What the kernel has, which the checks follow: BPF trampolines (6.12, not
# 6.1 or 5.10); -U at entry probes (bpf_find_vma(), which 6.1's verifier
# refuses there); BPF cookies (5.15: before, a run takes 16 probes, a
# program each); without them, current_kprobe in kallsyms (NOIDENT where
# not: a kernel built without CONFIG_KALLSYMS_ALL, where a run of more
# kprobes than that is refused, saying so); the old kretprobe
# trampoline (OLDRET: a kretprobe program sees it, not the caller); a BTF
# function do_sys_openat2 (BTFOPEN), in its BTF's strings.
TRAMP=0 UW=0 NOCOOKIE= NOIDENT= OLDRET= BTFOPEN=
grep -q ' register_ftrace_direct$' /proc/kallsyms && TRAMP=1
case $KREL in 6.1.*) ;; *) grep -q BPF_FUNC_find_vma /sys/kernel/btf/vmlinux && UW=1 ;; esac
grep -q BPF_FUNC_get_attach_cookie /sys/kernel/btf/vmlinux || NOCOOKIE=1
[ -n "$NOCOOKIE" ] && ! grep -q ' current_kprobe$' /proc/kallsyms && NOIDENT=1
grep -q ' kretprobe_trampoline$' /proc/kallsyms && OLDRET=1
tr '\0' '\n' < /sys/kernel/btf/vmlinux | grep -qx do_sys_openat2 && BTFOPEN=1
echo "# expect $((30 + TRAMP * 2 + UW * 3)) ok"

# ok/bad, the bounded kpt and $KPTBG, stop, wait_attached, gone, renumber
. /guest-lib.sh || { echo "FAIL - $KREL: no /guest-lib.sh (tests/vm/test.sh adds it)"; exit 1; }
# no file here has more definitions than a run takes without cookies
ONE_EACH=${NOCOOKIE:+16}

workload() {
	cat /etc/hostname > /dev/null
	cat /etc/passwd /etc/group > /dev/null
	cat /nonexistent 2>/dev/null
	dd if=/etc/passwd of=/dev/null bs=64 2>/dev/null
}
norm() {
	sed -n 's/^ *\(cat\|dd\)-\([0-9][0-9]*\) *\[[0-9]*\] [^ ]* *[0-9.]*: \(.*\)$/\2 \3/p'
}

# The reference in a tracefs instance of its own (see guest.sh).
I=$T/instances/kptref
ftrace_start() {
	echo > $T/kprobe_events
	while read -r def; do
		echo "$def" >> $T/kprobe_events 2>/dev/null ||
			echo "# the reference refuses: $def ($(tail -n 3 $T/error_log | head -n 1 | cut -c1-100))"
	done < "$1"
	mkdir $I
	for g in kprobes kpt; do
		[ -d $I/events/$g ] && echo 1 > $I/events/$g/enable
	done
	echo 1 > $I/tracing_on
}
ftrace_stop() {
	echo 0 > $I/tracing_on
	grep -v '^#' $I/trace | norm > "$1"
	echo 0 > $I/events/enable
	rmdir $I
	echo > $T/kprobe_events
}
compare() {
	local ev
	for ev in "$@"; do
		grep " $ev: " $W/ref | sort > $W/ref.$ev
		grep " $ev: " $W/got | sort > $W/got.$ev
		how="ftrace's"
		# OLDRET: the caller out of a kretprobe program's reach (as guest.sh)
		if [ -n "$OLDRET" ] && grep -q " $ev: (.* <- " $W/ref.$ev; then
			sed -i 's/^\([0-9]* [^ ]*: (\)[^ ]* <- /\1CALLER <- /' $W/ref.$ev $W/got.$ev
			how="ftrace's but the caller (gated: a kretprobe program sees the old kretprobe_trampoline)"
		fi
		if [ ! -s $W/ref.$ev ]; then
			bad "$ev: ftrace recorded nothing"
		elif diff $W/ref.$ev $W/got.$ev > $W/diff.$ev; then
			ok "$ev: $(wc -l < $W/got.$ev) lines equal $how ($(head -n 1 $W/got.$ev | cut -c1-110))"
		else
			bad "$ev: differs from ftrace's:"
			head -n 14 $W/diff.$ev | cut -c1-300 | sed 's/^/#   /'
		fi
	done
}
# both tracers at once: the same hits, so even sp, pc and pstate agree
at_once() {
	ftrace_start "${2:-$1}"
	kpt_start "$1"
	workload
	ftrace_stop $W/ref
	kpt_stop $W/got
}
# returns: one tracer after the other (two kretprobes on one function see
# each other's trampoline), pids renumbered by order of appearance
one_after_other() {
	ftrace_start "${2:-$1}"
	workload
	ftrace_stop $W/ref.raw
	kpt_start "$1"
	workload
	kpt_stop $W/got.raw
	renumber < $W/ref.raw > $W/ref
	renumber < $W/got.raw > $W/got
}

# Entry probes: arm64's registers, its calling convention's $argN, the stack.
cat > $W/entry.defs <<EOF
p:kpt/open do_sys_openat2 dfd=%x0:s32 path=+0(%x1):string flags=+0(%x2):x64
p:kpt/args do_sys_openat2 a1=\$arg1:s32 a2=\$arg2:x64 how=\$arg3:x64 a7=\$arg7:x64 a8=\$arg8:x64
p:kpt/regs do_sys_openat2 a=%x0:x32 b=%x1:u64 c=%x2:s16 d=%x3:x8 lr=%x30:x64 pc=%pc:x64 ps=%pstate:x64 sp=%sp:x64
p:kpt/stack do_sys_openat2 s0=\$stack0:x64 s1=\$stack1 sp=\$stack:x64
p:kpt/read vfs_read count=%x2:u64 pos=+0(%x3):s64 a8=\$arg4:x64
p do_sys_openat2 %x0:s32
EOF
at_once $W/entry.defs
echo "# entry: kptrace $(wc -l < $W/got) workload lines, ftrace $(wc -l < $W/ref)"
compare open args regs stack read p_do_sys_openat2_0

# Past x7, the calling convention's arguments are on the stack from slot 0:
# kptrace's $arg9 is $stack0 (arm64's kprobe_events reads 0 for it,
# regs_get_kernel_argument() stopping at x7: a difference the README lists).
echo 'p:kpt/a9 vfs_read a9=$arg9:x64 s0=$stack0:x64 a10=$arg10:x64 s1=$stack1:x64' > $W/a9.defs
kpt_start $W/a9.defs
workload
kpt_stop $W/got
n=$(grep -c ' a9: ' $W/got)
bad9=$(awk '/ a9: / { split($4, a, "="); split($5, b, "="); split($6, c, "="); split($7, d, "=")
	if (a[2] != b[2] || c[2] != d[2]) print }' $W/got | head -n 2)
if [ "$n" -ge 2 ] && [ -z "$bad9" ]; then
	ok "\$arg9 and \$arg10 are stack slots 0 and 1: $n lines ($(head -n 1 $W/got | cut -c1-100))"
else
	bad "\$arg9/\$arg10 against \$stack0/\$stack1: $n lines, $bad9"
fi

# BTF argument names through arm64's calling convention; the reference is
# the same definitions where kprobe_events has BTF arguments (6.12), else
# their register forms.
cat > $W/btf.defs <<EOF
p:kpt/bopen do_sys_openat2 dfd filename:string how->flags how->mode
p:kpt/bargs do_sys_openat2 \$arg*
p:kpt/bread vfs_read count pos
EOF
cat > $W/btfreg.defs <<EOF
p:kpt/bopen do_sys_openat2 dfd=%x0:s32 filename=+0(%x1):string arg3=+0(%x2):u64 arg4=+8(%x2):u64
p:kpt/bargs do_sys_openat2 dfd=%x0:s32 filename=%x1:x64 how=%x2:x64
p:kpt/bread vfs_read count=%x2:u64 pos=%x3:x64
EOF
BTFREF=$W/btfreg.defs
if echo 'p:kpt/probe do_sys_openat2 dfd' > $T/kprobe_events 2>/dev/null; then
	BTFREF=$W/btf.defs
else
	echo "# this kernel's kprobe_events has no BTF arguments: register forms as the reference"
fi
echo > $T/kprobe_events
if [ -n "$BTFOPEN" ]; then
	at_once $W/btf.defs $BTFREF
	compare bopen bargs bread
else
	# gated: kptrace refuses BTF names of a function the kernel's BTF lacks
	for ev in bopen bargs; do
		grep "^p:kpt/$ev " $W/btf.defs > $W/one.defs
		kpt --dry-run -f $W/one.defs > $W/nb.out 2>&1
		if [ $KRC = 1 ] && grep -q "no BTF function 'do_sys_openat2' in this kernel" $W/nb.out; then
			ok "$ev: gated: this kernel's BTF has no do_sys_openat2 (its strings), and kptrace refuses its names: $(grep -m1 error $W/nb.out | cut -c1-110)"
		else
			bad "$ev: a BTF without do_sys_openat2: exit $KRC, $(head -c 300 $W/nb.out)"
		fi
	done
	grep '^p:kpt/bread ' $W/btf.defs > $W/bread.defs
	grep '^p:kpt/bread ' $BTFREF > $W/bread.ref
	at_once $W/bread.defs $W/bread.ref
	compare bread
fi

# Return probes: $retval is x0, as %x0 is at a return.
cat > $W/ret.defs <<EOF
r:kpt/openret do_sys_openat2 ret=\$retval:s64
r:kpt/readret vfs_read ret=\$retval:s64 x0=%x0:x32
EOF
one_after_other $W/ret.defs
compare openret readret

# One probe whose arguments are registers as they are: its records written
# straight into the ring buffer, all eight argument registers' words, through
# each mechanism the kernel has (both tracers at once; a return after).
echo 'p:kpt/dent do_sys_openat2 dfd=%x0:s32 fn=%x1:x64 how=%x2:x64 x7=%x7:x64 d16=%x0:u16' > $W/dent.defs
echo 'r:kpt/dret vfs_read ret=$retval:s64 r32=%x0:x32' > $W/dret.defs
direct_said() {
	kpt --dry-run "$@" 2>&1 | grep -q '^stream: the record written straight from the registers' ||
		bad "not a direct stream: $* ($(kpt --dry-run "$@" 2>&1 | tail -n 2))"
}
DBACKENDS=kprobe
grep -q ' register_ftrace_direct$' /proc/kallsyms && DBACKENDS="kprobe fentry"
for b in $DBACKENDS; do
	direct_said --backend $b -f $W/dent.defs
	echo "# direct stream through $b"
	KPT_FLAGS="--backend $b" at_once $W/dent.defs
	compare dent
done
direct_said --backend kprobe -f $W/dret.defs
KPT_FLAGS="--backend kprobe" one_after_other $W/dret.defs
compare dret

# Mechanisms as the kernel allows, probed at run time: fentry where BPF
# trampolines attach (6.12), a clear refusal where not (6.1); kprobe.multi
# on neither (no CONFIG_FPROBE).
echo 'p:kpt/fent do_sys_openat2 dfd=%x0:s32 path=+0(%x1):string' > $W/fent.defs
if grep -q ' register_ftrace_direct$' /proc/kallsyms; then
	KPT_FLAGS="--backend fentry" at_once $W/fent.defs
	compare fent
else
	kpt -d 1 --backend fentry -f $W/fent.defs > $W/fe.out 2> $W/fe.err
	rc=$?
	if fentry_gate "--backend fentry" $rc $W/fe.err; then
		:
	elif [ $rc != 0 ] && grep -q 'trampolines cannot.*nothing was left attached' $W/fe.err; then
		ok "--backend fentry refused where trampolines do not attach (exit $rc: $(grep -m1 trampolines $W/fe.err | cut -c1-120))"
	else
		bad "--backend fentry on a kernel without trampolines: exit $rc: $(tail -n 3 $W/fe.err)"
	fi
fi
kpt -d 1 --backend kprobe-multi 'p:m vfs_read' > $W/km.out 2> $W/km.err
rc=$?
if [ $rc != 0 ] && grep -qi 'multi' $W/km.err; then
	ok "--backend kprobe-multi refused: no kprobe.multi here (exit $rc: $(grep -i -m1 multi $W/km.err | cut -c1-120))"
else
	bad "--backend kprobe-multi: exit $rc: $(tail -n 3 $W/km.err)"
fi
# auto: many functions, which would take kprobe.multi where it attaches
kpt -d 1 'p:g vfs_*' > $W/g.out 2> $W/g.err
rc=$?
if [ -n "$NOIDENT" ] && [ "$(grep -c ' [tT] vfs_' /proc/kallsyms)" -gt 16 ]; then
	if [ $rc = 1 ] && grep -q 'no BPF cookies.*gives 16 probes a program each.*from kallsyms: this kernel.s has no.*run at most 16 probes' $W/g.err; then
		ok "auto backend on a glob of more than 16: gated: no BPF cookies and no current_kprobe in kallsyms, refused naming the limit: $(grep -m1 error $W/g.err | cut -c1-120)"
	else
		bad "auto backend on a glob, no cookies nor current_kprobe: exit $rc: $(tail -n 3 $W/g.err)"
	fi
elif [ $rc = 0 ] && grep -q '^Attached' $W/g.err; then
	ok "auto backend on a glob: $(grep -m1 '^Attached' $W/g.err | cut -c1-100)"
else
	bad "auto backend on a glob: exit $rc: $(tail -n 3 $W/g.err)"
fi

# A histogram and a latency of dd's reads: 64 bytes each, 17 and the EOF.
head -c 1056 /bin/busybox > $W/data
want=18
$KPTBG hist --json --comm dd -o $W/hist.json 'p:vfs_read count=%x2:u64' count > /dev/null 2> $W/hist.err &
KP=$!
wait_attached $W/hist.err "hist vfs_read count"
dd if=$W/data of=/dev/null bs=64 2>/dev/null
stop $KP
n=$(sed -n 's/.*"count":\([0-9]*\),"sum".*/\1/p' $W/hist.json | tail -n 1)
if [ "$n" = "$want" ] && grep -q '"sum":'$((want * 64))'[,}]' $W/hist.json; then
	ok "hist vfs_read count=%x2: $n reads of 64 bytes"
else
	bad "hist vfs_read count=%x2: '$n' reads, want $want: $(head -c 400 $W/hist.json) $(tail -n 3 $W/hist.err)"
fi
# an entry and a return: two kprobes (without cookies, a program each)
$KPTBG latency --json --comm dd -o $W/lat.json vfs_read > /dev/null 2> $W/lat.err &
KP=$!
wait_attached $W/lat.err "latency vfs_read"
dd if=$W/data of=/dev/null bs=64 2>/dev/null
stop $KP
n=$(sed -n 's/.*"count":\([0-9]*\),"sum".*/\1/p' $W/lat.json | tail -n 1)
if [ "$n" = "$want" ] && grep -q '"p99"' $W/lat.json; then
	ok "latency vfs_read: $n calls, with percentiles"
else
	bad "latency vfs_read: '$n' calls, want $want: $(head -c 300 $W/lat.json) $(tail -n 3 $W/lat.err)"
fi
# a glob of kernel functions, the probe a column: dd's reads in vfs_read's
# row (without cookies and current_kprobe, a program each)
$KPTBG count --comm dd -o $W/kg.out 'p:vfs_rea*' --by probe > /dev/null 2> $W/kg.err &
KP=$!
wait_attached $W/kg.err "count 'p:vfs_rea*'"
dd if=$W/data of=/dev/null bs=64 2>/dev/null
stop $KP
n=$(sed -n 's/^ *\([0-9]*\) *kprobes\/p_vfs_read_0$/\1/p' $W/kg.out)
if [ "$n" = "$want" ]; then
	ok "count 'p:vfs_rea*' --by probe: $n reads in vfs_read's row ($(grep -m1 '^Attached' $W/kg.err))"
else
	bad "count 'p:vfs_rea*': vfs_read '$n', want $want: $(head -c 300 $W/kg.out | tr '\n' '|') $(tail -n 3 $W/kg.err)"
fi

# Returns through fexit where the kernel has trampolines (6.12), unless what
# they print or key on is where the function returns to, which an arm64
# trampoline does not give: a streamed r: line stays a kretprobe on both
# kernels, and --dry-run says why a return is not fexit.
if grep -q ' register_ftrace_direct$' /proc/kallsyms; then
	RMECH=fexit RTRAMP=1
	RWHY=
else
	RMECH=kretprobe RTRAMP=0
	RWHY='^not fexit: this kernel has no BPF trampolines'
fi
# where fexit programs lack the helpers kptrace's take, that is the reason
# given first, for every return
LACK=
fentry_helpers || LACK="^not fexit: this kernel's fentry/fexit programs lack bpf_get_func_arg_cnt() and bpf_get_func_ret()"
[ -z "$LACK" ] || RWHY=$LACK
# ntramp FILE: how many probes its Attached line says went through trampolines
ntramp() {
	local k
	k=$(sed -n 's/^Attached.*(\([0-9]*\) through fentry\/fexit).*/\1/p' "$1")
	echo ${k:-0}
}
kpt --dry-run 'r:vfs_read ret=$retval' > $W/rs.out 2>&1
if grep -q '^attach: kretprobe$' $W/rs.out &&
	grep -q "${LACK:-^not fexit: its record shows where the function returns to}" $W/rs.out; then
	ok "a streamed r: is a kretprobe: $(grep -m1 '^not fexit' $W/rs.out | cut -c1-110)"
else
	bad "streamed r: --dry-run: $(grep -e '^attach' -e '^not ' -e error $W/rs.out | tr '\n' ' ')"
fi
kpt latency --dry-run vfs_read --by kstack > $W/rk.out 2>&1
if grep -q '^attach: kretprobe$' $W/rk.out &&
	grep -q "${LACK:-^not fexit: its key is a kernel stack}" $W/rk.out; then
	ok "latency --by kstack's return is a kretprobe: $(grep -m1 '^not fexit' $W/rk.out | cut -c1-100)"
else
	bad "latency --by kstack --dry-run: $(grep -e '^attach' -e '^not ' -e error $W/rk.out | tr '\n' ' ')"
fi
kpt hist --dry-run 'r:vfs_read ret=$retval' ret > $W/rh.out 2>&1
if grep -q "^attach: $RMECH" $W/rh.out && { [ -z "$RWHY" ] || grep -q "$RWHY" $W/rh.out; }; then
	ok "hist of a return: $(grep -m1 '^attach' $W/rh.out) $(grep -m1 '^not fexit' $W/rh.out)"
else
	bad "hist of a return, want $RMECH: $(grep -e '^attach' -e '^not ' -e error $W/rh.out | tr '\n' ' ')"
fi
# dd's reads return 64 bytes 16 times, then 32, then 0 at the EOF: 1056
$KPTBG hist --json --comm dd -o $W/rhist.json 'r:vfs_read ret=$retval:s64' ret > /dev/null 2> $W/rhist.err &
KP=$!
wait_attached $W/rhist.err "hist vfs_read's return"
dd if=$W/data of=/dev/null bs=64 2>/dev/null
stop $KP
n=$(sed -n 's/.*"count":\([0-9]*\),"sum".*/\1/p' $W/rhist.json | tail -n 1)
if [ "$n" = "$want" ] && grep -q '"sum":1056[,}]' $W/rhist.json &&
	[ "$(ntramp $W/rhist.err)" = $RTRAMP ]; then
	ok "hist vfs_read's \$retval through $RMECH: $n returns, 1056 bytes ($(grep -m1 '^Attached' $W/rhist.err))"
else
	bad "hist vfs_read's \$retval through $RMECH: '$n' returns, want $want: $(head -c 300 $W/rhist.json) $(tail -n 3 $W/rhist.err)"
fi
# latency's two halves, above: fentry and fexit where the kernel has them
if [ "$(ntramp $W/lat.err)" = $((RTRAMP * 2)) ]; then
	ok "latency vfs_read's mechanisms as the kernel has them: $(grep -m1 '^Attached' $W/lat.err)"
else
	bad "latency vfs_read, want its return through $RMECH: $(grep -m1 '^Attached' $W/lat.err)"
fi

# SIGKILL leaves nothing attached: the kernel lists every kprobe, and ftrace
# the functions it calls trampolines from.
sigkill_leaves() {
	local backend=$1 list=$2
	rm -f $W/kill.err
	echo 'p:kill vfs_read' > $W/kill.defs
	echo 'r:killr vfs_read' >> $W/kill.defs
	$KPTBG --backend $backend -f $W/kill.defs > /dev/null 2> $W/kill.err &
	KP=$!
	wait_attached $W/kill.err "SIGKILL, $backend"
	before=$(grep -c vfs_read $list)
	kill -KILL $KP
	wait $KP 2>/dev/null
	gone vfs_read $list 10
	after=$(grep -c vfs_read $list)
	if [ "$before" -ge 1 ] && [ "$after" = 0 ] && ! grep -q kptrace_ $T/kprobe_events; then
		ok "SIGKILL leaves no $backend attached ($before in $list while running, $after after)"
	else
		bad "SIGKILL, $backend: vfs_read $before in $list while running, $after 10 s after"
	fi
}
sigkill_leaves kprobe /sys/kernel/debug/kprobes/list
grep -q ' register_ftrace_direct$' /proc/kallsyms && sigkill_leaves fentry $T/enabled_functions

# The grammar is arm64's: an x86-64 register refused with a caret and the
# list of this one's.
kpt --dry-run 'p:a vfs_read x=%di' > $W/reg.out 2> $W/reg.err
rc=$?
if [ $rc != 0 ] && grep -qF "Invalid register name '%di' (not in arm64's struct pt_regs: %x0..%x30 %sp %pc %pstate)" $W/reg.err &&
	grep -q '^ *\^' $W/reg.err; then
	ok "%di refused, with a caret and arm64's registers: $(grep -m1 Invalid $W/reg.err | cut -c1-120)"
else
	bad "%di on arm64: exit $rc: $(cat $W/reg.err | head -n 5)"
fi
dym_check

# --help's examples are in this architecture's registers, and paste
ex=$(kpt --help 2>&1 | grep -m1 "kptrace --dry-run 'p:" | sed "s/.*--dry-run '\([^']*\)'.*/\1/")
if [ "$ex" = 'p:vfs_read count=%x2:u64' ] && kpt --dry-run "$ex" > $W/ex.out 2>&1 &&
	grep -q 'from register %x2 (pt_regs+0x10)' $W/ex.out; then
	ok "--help's example '$ex' is arm64's and explains as $(grep -m1 'from register' $W/ex.out | sed 's/^ *//')"
else
	bad "--help's --dry-run example: '$ex': $(head -n 8 $W/ex.out 2>/dev/null)"
fi

# The caller at entry probes (bpf/stack.bpf.h): tests/host/unwind_target.c
# at -O1 with frame pointers, where uw_leaf has no frame; the stacks at
# uw_leaf's and uw_middle's first instruction, where the link register holds
# the return address, against the call sites aarch64 objdump finds
# (tests/vm/arm64-chains.py, on the host). -U's and --folded's. Not on 6.1,
# whose verifier refuses bpf_find_vma() there: the caller is a bare address,
# which names nothing once this short process is gone (the loader's fallback).
if [ $UW = 0 ]; then
	:
elif [ -x /uw1 ] && [ -s /uw1.want ]; then
	for fn in uw_leaf uw_middle; do
		kpt -U -c "/uw1 1 rare" "p:/uw1:$fn" > $W/uw-$fn.out 2> $W/uw-$fn.err
		ustacks $W/uw-$fn.out | sort > $W/uw-$fn.got
		grep "^$fn|" /uw1.want | cut -d'|' -f2- | sort > $W/uw-$fn.want
		if [ -s $W/uw-$fn.want ] && cmp -s $W/uw-$fn.want $W/uw-$fn.got; then
			ok "-U at $fn's entry: objdump's call chains, caller included ($(tail -n 1 $W/uw-$fn.got))"
		else
			bad "-U at $fn's entry: want $(tr '\n' ' ' < $W/uw-$fn.want), got $(tr '\n' ' ' < $W/uw-$fn.got) $(head -c 300 $W/uw-$fn.err)"
		fi
	done
	# folded: the names of the same chains, root first from main, counted
	kpt count --by ustack --folded -c "/uw1 2 rare" p:/uw1:uw_leaf 2> $W/uwf.err |
		sed 's/^.*;main;/main;/' | sort > $W/uwf.got
	grep '^uw_leaf|' /uw1.want | cut -d'|' -f2- | sed 's/+0x[0-9a-f]*//g' |
		awk -F'|' '{ s = $NF; for (i = NF - 1; i >= 1; i--) s = s ";" $i; print s " 2" }' |
		sort > $W/uwf.want
	if cmp -s $W/uwf.want $W/uwf.got; then
		ok "count --by ustack --folded at uw_leaf's entry: $(tr '\n' ',' < $W/uwf.got)"
	else
		bad "--folded at uw_leaf's entry: want $(tr '\n' ' ' < $W/uwf.want), got $(tr '\n' ' ' < $W/uwf.got) $(head -c 300 $W/uwf.err)"
	fi
else
	bad "no /uw1 or /uw1.want (tests/vm/test.sh adds them): no -U at entry probes"
fi

# The scripts tests/vm/test.sh adds under /guest.d (module-guest.sh), in
# this boot: each says its own "# expect N ok", and is bounded, a hung one
# failing here, named.
for s in /guest.d/*.sh; do
	[ -e "$s" ] || continue
	echo "# $(basename $s)"
	# its lines on the console as they come: a guest that stops at a
	# kernel fault mid-script still shows how far the script got
	( timeout -s KILL 300 sh $s 2>&1; echo $? > $W/sub.rc ) | tee $W/sub.out
	rc=$(cat $W/sub.rc)
	[ $rc = 0 ] || grep -q '^FAIL - ' $W/sub.out || bad "$(basename $s) exited $rc with no FAIL line"
done
echo "# done"
