#!/bin/sh
# Guest script (busybox sh) for tests/vm/test.sh: real kprobes and kretprobes.
# The kernel's own kprobe_events is the reference: for a table of definitions,
# both tracers watch the same workload and must print the same lines apart
# from the timestamp, CPU and flags columns. Prints "ok - ..." / "FAIL - ...".
T=/sys/kernel/tracing
KPT=/bin/kptrace
W=/tmp/kpt
mkdir -p $W
KREL=$(uname -r)
echo "# kernel $KREL"

ok() { echo "ok - $KREL: $*"; }

# SIGINT, then wait at most 20 s: a kptrace that does not stop is a failure,
# not a hung VM run. Leaves the exit status in RC.
stop() {
	local pid=$1 i=0
	kill -INT $pid 2>/dev/null
	while kill -0 $pid 2>/dev/null && [ $i -lt 200 ]; do i=$((i + 1)); sleep 0.1; done
	if kill -0 $pid 2>/dev/null; then
		echo "FAIL - $KREL: kptrace (pid $pid) did not stop on SIGINT within 20 s"
		# where it is, for the report: state, signals, kernel stack, syscall
		grep -E '^(State|SigPnd|ShdPnd|SigBlk|SigCgt)' /proc/$pid/status | sed 's/^/#   /'
		echo "#   wchan $(cat /proc/$pid/wchan 2>/dev/null) syscall $(cat /proc/$pid/syscall 2>/dev/null)"
		sed 's/^/#   /' /proc/$pid/stack 2>/dev/null
		kill -KILL $pid
	fi
	wait $pid
	RC=$?
}
bad() { echo "FAIL - $KREL: $*"; }

# Addresses for the raw-address forms: a function, and a constant string.
ADDR=0x$(grep -m1 ' [tT] do_sys_openat2$' /proc/kallsyms | cut -d' ' -f1)
BANNER=0x$(grep -m1 ' linux_banner$' /proc/kallsyms | cut -d' ' -f1)

# Entry probes: both tracers run at once on one workload, so even stack and
# pointer values must agree. The last one tests ftrace's default event name.
cat > $W/entry.defs <<EOF
p:kpt/open do_sys_openat2 dfd=%di:s32 path=+0(%si):string flags=+0(%dx):x64
p:kpt/args do_sys_openat2 a1=\$arg1:s32 a2=\$arg2:x64 how=\$arg3:x64
p:kpt/regs do_sys_openat2 a=%di:x32 b=%si:u64 c=%dx:s16 d=%cx:x8 ip=%ip:x64 ax=%ax:u8
p:kpt/stack do_sys_openat2 s0=\$stack0:x64 s1=\$stack1 sp=\$stack:x64 ra=\$stack0:symbol
p:kpt/comm do_sys_openat2 c=\$comm n=+0(%si):u8[4]
p:kpt/char do_sys_openat2 ch=+1(%si):char c0=+0(%si):char
p:kpt/ustr do_sys_openat2 p=+0(%si):ustring q=+u0(%si):string r=+u1(%si):u8
p:kpt/bits do_sys_openat2 hi=+0(%dx):b4@12/32 lo=+0(%dx):b3@0/64 m=+8(%dx):b16@0/16
p:kpt/imm do_sys_openat2 i=\\1234 x=\\0x10:x16 n=\\-7:s8
p:kpt/addr $ADDR dfd=%di:s32
p:kpt/read vfs_read count=%dx:u64 pos=+0(%cx):s64
p:kpt/mem do_sys_openat2 b=@linux_banner:string v=@linux_banner+6:x32 a=@$BANNER:u64 sv=+0(@$BANNER):x8
p do_sys_openat2 %di:s32
f:kpt/fopen do_sys_openat2 dfd=\$arg1:s32 path=+0(\$arg2):string
EOF
# Return probes: two kretprobes on one function see each other's trampoline
# as the return address (ftrace then prints "[unknown/kretprobe'd]"), so these
# run one tracer after the other on the same deterministic workload, one per
# function, and pids are compared by order of appearance.
cat > $W/ret.defs <<EOF
r:kpt/openret do_sys_openat2 ret=\$retval:s64
f:kpt/fret ksys_write%return ret=\$retval:s64
r:kpt/readret vfs_read ret=\$retval:s64 ret32=\$retval:x32
r ksys_read \$retval:s32
EOF

# The workload: processes named cat and dd opening and reading files.
workload() {
	cat /etc/hostname > /dev/null
	cat /etc/passwd /etc/group > /dev/null
	cat /nonexistent 2>/dev/null
	dd if=/etc/passwd of=/dev/null bs=64 2>/dev/null
}

# Keep the workload's lines, from the pid on (dropping comm, CPU, flags, time).
norm() {
	sed -n 's/^ *\(cat\|dd\)-\([0-9][0-9]*\) *\[[0-9]*\] [^ ]* *[0-9.]*: \(.*\)$/\2 \3/p'
}
# Pids renumbered by first appearance, for runs that are not the same run.
renumber() {
	awk '{ if (!($1 in n)) n[$1] = ++k; $1 = n[$1]; print }'
}

# The reference records into a fresh tracefs instance per pass, removed after:
# 6.1 has oopsed (reset_disabled_cpu_buffer) when the main buffer was reset.
I=$T/instances/kptref
ftrace_start() {
	echo > $T/kprobe_events
	echo > $T/dynamic_events
	# One at a time: an older kernel may lack a type (char came in 6.2);
	# what the reference refuses is skipped, not failed. fprobes (f:, 6.4+)
	# are dynamic_events only.
	: > $W/refused
	while read -r def; do
		file=$T/kprobe_events
		case $def in f*) file=$T/dynamic_events ;; esac
		if ! echo "$def" >> $file 2>/dev/null; then
			echo "$def" >> $W/refused
			echo "# the reference refuses: $def ($(tail -n 1 $T/error_log | cut -c1-120))"
		fi
	done < "$1"
	mkdir $I
	echo 1 > $I/events/kprobes/enable
	echo 1 > $I/events/kpt/enable
	echo 1 > $I/tracing_on
}

ftrace_stop() {
	echo 0 > $I/tracing_on
	grep -v '^#' $I/trace | norm > "$1"
	echo 0 > $I/events/enable
	rmdir $I
	echo > $T/kprobe_events
	echo > $T/dynamic_events
}

kpt_start() {
	# no "Attached" left from the last run: the wait below would see it
	# before this kptrace truncates the file, and signal it while starting
	rm -f $W/kpt.err
	$KPT ${KPT_FLAGS:-} -f "$1" > $W/kpt.out 2> $W/kpt.err &
	KP=$!
	i=0
	while ! grep -q '^Attached' $W/kpt.err 2>/dev/null; do
		i=$((i + 1))
		if [ $i -gt 600 ] || ! kill -0 $KP 2>/dev/null; then
			bad "kptrace did not attach: $(cat $W/kpt.err)"
			break
		fi
		sleep 0.1
	done
}

kpt_stop() {
	sleep 0.3
	stop $KP
	norm < $W/kpt.out > "$1"
	if [ $RC != 0 ]; then
		bad "kptrace exit status $RC: $(tail -n 5 $W/kpt.err)"
	fi
}

compare() {
	for ev in "$@"; do
		grep " $ev: " $W/ref | sort > $W/ref.$ev
		grep " $ev: " $W/got | sort > $W/got.$ev
		if grep -q "[:/]$ev " $W/refused; then
			echo "skip - $KREL: $ev: this kernel's kprobe_events lacks it"
		elif [ ! -s $W/ref.$ev ]; then
			bad "$ev: ftrace recorded nothing"
		elif diff $W/ref.$ev $W/got.$ev > $W/diff.$ev; then
			ok "$ev: $(wc -l < $W/got.$ev) lines equal ftrace's ($(head -n 1 $W/got.$ev | cut -c1-110))"
		else
			bad "$ev: differs from ftrace:"
			head -n 8 $W/diff.$ev | cut -c1-300 | sed 's/^/#   /'
		fi
	done
}

# Pass 1: entry probes, both tracers at once.
ftrace_start $W/entry.defs
kpt_start $W/entry.defs
workload
ftrace_stop $W/ref
kpt_stop $W/got
echo "# entry: kptrace $(wc -l < $W/got) workload lines, ftrace $(wc -l < $W/ref)"
compare open args regs stack comm char ustr bits imm addr read mem p_do_sys_openat2_0 fopen

# An fprobe glob: one fprobe per traceable match, with ftrace's names.
$KPT --dry-run 'f vfs_rea*%return $retval' > $W/fg.out 2>&1
if grep -q '^fprobes/vfs_read__exit: f:fprobes/vfs_read__exit vfs_read%return \$retval$' $W/fg.out; then
	ok "fprobe glob: $(grep -c '^fprobes/.*__exit: ' $W/fg.out) functions, named as ftrace names them"
else
	bad "fprobe glob: $(head -n 4 $W/fg.out)"
fi

# Pass 1b: arguments by name from BTF. 6.5+'s kprobe_events takes the same
# definitions (CONFIG_PROBE_EVENTS_BTF_ARGS); where it does not (6.1), the
# reference runs their register forms (UAPI layouts only: open_how).
cat > $W/btf.defs <<EOF
p:kpt/bopen do_sys_openat2 dfd filename:string how->flags how->mode
p:kpt/bargs do_sys_openat2 \$arg*
p:kpt/bargn do_sys_openat2 \$arg2:string \$arg1
p:kpt/bread vfs_read file->f_flags count pos
p:kpt/bchain vfs_read file->f_path.dentry->d_name.name:string count
EOF
cat > $W/btfreg.defs <<EOF
p:kpt/bopen do_sys_openat2 dfd=%di:s32 filename=+0(%si):string arg3=+0(%dx):u64 arg4=+8(%dx):u64
p:kpt/bargs do_sys_openat2 dfd=%di:s32 filename=%si:x64 how=%dx:x64
p:kpt/bargn do_sys_openat2 filename=+0(%si):string dfd=%di:s32
EOF
if echo 'p:kpt/probe do_sys_openat2 dfd' > $T/kprobe_events 2>/dev/null; then
	BTFREF=$W/btf.defs
else
	BTFREF=$W/btfreg.defs
	echo "# this kernel's kprobe_events has no BTF arguments: register forms as the reference"
fi
echo > $T/kprobe_events
ftrace_start $BTFREF
kpt_start $W/btf.defs
workload
ftrace_stop $W/ref
kpt_stop $W/got
echo "# btf: kptrace $(wc -l < $W/got) workload lines, ftrace $(wc -l < $W/ref)"
compare bopen bargs bargn
if [ $BTFREF = $W/btf.defs ]; then
	compare bread bchain
else
	for ev in bread bchain; do
		if grep -q " $ev: .*count=" $W/got; then
			ok "$ev: kptrace resolves it from this kernel's BTF ($(grep -m1 " $ev: " $W/got | cut -c1-110))"
		else
			bad "$ev: no lines: $(tail -n 3 $W/kpt.err)"
		fi
	done
fi

# symstr is checked against kptrace's own symbol type, not the reference:
# 6.12's kprobe_events oopsed in __sprint_symbol writing a symstr (seen under
# TCG), which would take the whole VM run down.
$KPT -d 2 'p:ss do_sys_openat2 a=$stack0:symbol b=$stack0:symstr' > $W/ss.out 2> $W/ss.err &
KP=$!
i=0
while ! grep -q '^Attached' $W/ss.err 2>/dev/null && [ $i -lt 600 ]; do i=$((i + 1)); sleep 0.1; done
cat /etc/hostname > /dev/null
wait $KP
if [ -s $W/ss.out ] && ! sed -n 's/.* a=\([^ ]*\) b="\([^"]*\)"$/\1 \2/p' $W/ss.out |
	awk '$1 != $2 { bad = 1 } END { exit bad }' ||
   ! grep -q ' b="' $W/ss.out; then
	bad "symstr: $(head -n 3 $W/ss.out)"
else
	ok "symstr prints the symbol as a string ($(grep -m1 ' ss: ' $W/ss.out | sed 's/.* b=//'))"
fi

# Return probes: the reference, then kptrace, on the same workload; pids
# renumbered by order of appearance into $W/ref and $W/got.
one_after_other() {
	ftrace_start "$1"
	workload
	ftrace_stop $W/ref.raw
	kpt_start "$1"
	workload
	kpt_stop $W/got.raw
	renumber < $W/ref.raw > $W/ref
	renumber < $W/got.raw > $W/got
}

# Pass 2: return probes, one tracer after the other.
one_after_other $W/ret.defs
echo "# return: kptrace $(wc -l < $W/got) workload lines, ftrace $(wc -l < $W/ref)"
compare openret readret r_ksys_read_0 fret

# Return probes with entry arguments (6.9+'s kprobe_events has them too).
cat > $W/bret.defs <<EOF
r:kpt/bret do_sys_openat2 \$retval
r:kpt/bretargs vfs_read \$retval count file->f_flags
EOF
one_after_other $W/bret.defs
if [ -s $W/refused ]; then
	# no reference: dd's 64-byte reads are known, each with its own count
	n=$(grep -c ' bretargs: .* count=64 ' $W/got)
	if [ "$n" -ge 2 ] && grep -q ' bret: .* arg1=' $W/got; then
		ok "return probes with entry arguments: $n dd reads with count=64 ($(grep -m1 ' bretargs: ' $W/got | cut -c1-100))"
	else
		bad "return probes with entry arguments: $(head -n 3 $W/got) $(tail -n 3 $W/kpt.err)"
	fi
else
	compare bret bretargs
fi

# Pass 2b: a run of one probe whose arguments are registers as they are: its
# records written straight into the ring buffer (--dry-run says so), through
# kprobes, fentry and kprobe.multi (both tracers at once) and a kretprobe and
# fexit (one after the other), against the reference.
echo 'p:kpt/dent do_sys_openat2 dfd=%di:s32 fn=%si:x64 how=%dx:x64 d16=%di:u16 f8=%si:x8' > $W/dent.defs
echo 'r:kpt/dret vfs_read ret=$retval:s64 r32=%ax:x32' > $W/dret.defs
direct_said() {
	$KPT --dry-run "$@" 2>&1 | grep -q '^stream: the record written straight from the registers' ||
		bad "not a direct stream: $* ($($KPT --dry-run "$@" 2>&1 | tail -n 2))"
}
DBACKENDS="kprobe fentry"
grep -q ' register_fprobe_ips$' /proc/kallsyms && DBACKENDS="$DBACKENDS kprobe-multi"
for b in $DBACKENDS; do
	direct_said --backend $b -f $W/dent.defs
	echo "# direct stream through $b"
	ftrace_start $W/dent.defs
	KPT_FLAGS="--backend $b" kpt_start $W/dent.defs
	workload
	ftrace_stop $W/ref
	kpt_stop $W/got
	compare dent
done
for b in kprobe fentry; do
	direct_said --backend $b -f $W/dret.defs
	echo "# direct stream through $b, a return"
	KPT_FLAGS="--backend $b" one_after_other $W/dret.defs
	compare dret
done


# SIGKILL leaves no probe behind: the kernel lists every registered kprobe.
LIST=/sys/kernel/debug/kprobes/list
# Trampolines: ftrace lists the functions it calls them from.
sigkill_leaves() {
	local backend=$1 list=$2
	rm -f $W/kill.err	# see kpt_start
	$KPT --backend $backend 'p:kill vfs_read' 'r:killr vfs_read' > /dev/null 2> $W/kill.err &
	KP=$!
	i=0
	while ! grep -q '^Attached' $W/kill.err 2>/dev/null && [ $i -lt 600 ]; do i=$((i + 1)); sleep 0.1; done
	before=$(grep -c '^vfs_read\b' $list)
	[ $backend = kprobe ] && before=$(grep -c 'vfs_read' $list)
	kill -KILL $KP
	wait $KP 2>/dev/null
	sleep 0.5
	after=$(grep -c 'vfs_read' $list)
	if [ "$before" -ge 1 ] && [ "$after" = 0 ]; then
		ok "SIGKILL leaves no $backend attached ($before in $list while running, $after after)"
	else
		bad "SIGKILL, $backend: vfs_read $before in $list while running, $after after"
	fi
}
sigkill_leaves kprobe $LIST
sigkill_leaves fentry $T/enabled_functions

# Kernel-side misses come from the link where the kernel reports them (6.7+).
$KPT --backend kprobe -d 1 'p:m vfs_read' 'r:mr vfs_read' > /dev/null 2> $W/m.err
m=$(awk '$1 == "kprobes/m" { print $3 }' $W/m.err)
mr=$(awk '$1 == "kprobes/mr" { print $3 }' $W/m.err)
case "$KREL" in
6.1.*) want='^-$' ;;
*) want='^[0-9][0-9]*$' ;;
esac
if echo "$m" | grep -q "$want" && echo "$mr" | grep -q "$want"; then
	ok "profile MISSES column: '$m' '$mr' (numbers where the kernel reports nmissed)"
else
	bad "profile MISSES column: '$m' '$mr', want $want: $(cat $W/m.err)"
fi

# r1: sets maxactive: two sleepers at once, one kretprobe instance, one miss.
$KPT 'r1:sl hrtimer_nanosleep ret=$retval:s32' > $W/sl.out 2> $W/sl.err &
KP=$!
i=0
while ! grep -q '^Attached' $W/sl.err 2>/dev/null && [ $i -lt 600 ]; do i=$((i + 1)); sleep 0.1; done
sleep 1 & s1=$!
sleep 1 & s2=$!
wait $s1 $s2
sleep 0.2
stop $KP
line=$(grep 'kprobes/sl ' $W/sl.err)
set -- $line
# of the two concurrent sleepers exactly one got the instance
n=$(grep -cE -- "-($s1|$s2) +\[.* sl: " $W/sl.out)
if [ "${3:-x}" -ge 1 ] 2>/dev/null && [ "$n" = 1 ]; then
	ok "r1: maxactive 1 with two sleepers: 1 of 2 returns traced, misses $3 (kernel nmissed)"
else
	bad "r1: maxactive: profile '$line', $n sleeper events: $(cat $W/sl.out)"
fi
if grep -q kptrace_ $T/kprobe_events; then
	bad "r1: kretprobe left in kprobe_events after exit: $(cat $T/kprobe_events)"
else
	ok "r1: nothing left in kprobe_events after exit"
fi
# SIGKILL leaves a disabled event with no program; the next run removes it.
$KPT 'r4:k hrtimer_nanosleep' > /dev/null 2> $W/k.err &
KP=$!
i=0
while ! grep -q '^Attached' $W/k.err 2>/dev/null && [ $i -lt 600 ]; do i=$((i + 1)); sleep 0.1; done
kill -KILL $KP
wait $KP 2>/dev/null
left=$(grep -c kptrace_ $T/kprobe_events)
$KPT --dry-run 'p vfs_read' > /dev/null 2>&1
$KPT -d 0.1 'p:x vfs_read' > /dev/null 2>&1
if [ "$left" = 1 ] && ! grep -q kptrace_ $T/kprobe_events; then
	ok "r4: after SIGKILL the next run removes the stale kretprobe"
else
	bad "r4: stale kretprobes: $left after SIGKILL, then: $(cat $T/kprobe_events)"
fi

# hist kmalloc through the tracepoint and through kprobes, on one workload.
# the workload: kptrace itself, renamed (kallsyms and BTF reads allocate)
cp /bin/kptrace $W/kptkm
# One after the other: the second loads while the first's probes are live,
# not while they are being patched in.
$KPT hist kmalloc --json --comm kptkm -o $W/km_tp.json > /dev/null 2> $W/km_tp.err &
KT=$!
i=0
while [ $i -lt 600 ] && ! grep -q '^Attached' $W/km_tp.err; do i=$((i + 1)); sleep 0.1; done
$KPT hist kmalloc --no-tracepoint --json --comm kptkm -o $W/km_kp.json > /dev/null 2> $W/km_kp.err &
KK=$!
i=0
while [ $i -lt 900 ] && ! { grep -q '^Attached' $W/km_tp.err && grep -q '^Attached' $W/km_kp.err; }; do
	i=$((i + 1)); sleep 0.1
done
for i in 1 2 3; do $W/kptkm --dry-run 'p vfs_read' > /dev/null 2>&1; done
sleep 0.3
stop $KT
stop $KK
tp=$(sed -n 's/.*"count":\([0-9]*\),"sum".*/\1/p' $W/km_tp.json | tail -n 1)
kp=$(sed -n 's/.*"count":\([0-9]*\),"sum".*/\1/p' $W/km_kp.json | tail -n 1)
if [ -n "$tp" ] && [ -n "$kp" ] && [ "$tp" -gt 10 ] &&
   [ $((kp * 100)) -ge $((tp * 90)) ] && [ $((kp * 100)) -le $((tp * 110)) ]; then
	ok "hist kmalloc: tracepoint $tp and kprobes $kp events agree within 10%"
else
	bad "hist kmalloc: tracepoint '$tp' vs kprobes '$kp': $(tail -n 4 $W/km_kp.err) $(tail -n 4 $W/km_tp.err)"
fi
# The same shape: each log2 bucket's share of the events within 10 points.
buckets() {
	tr '}' '\n' < "$1" | sed -n 's/.*"min":\([0-9]*\),"max":[0-9]*,"count":\([0-9]*\).*/\1 \2/p'
}
buckets $W/km_tp.json > $W/b_tp
buckets $W/km_kp.json > $W/b_kp
if [ -s $W/b_tp ] && awk -v ta="$tp" -v tb="$kp" '
	FNR == NR { A[$1] = $2; next } { B[$1] = $2 }
	END { bad = 0
	      for (k in A) { d = A[k] / ta - B[k] / tb; if (d < 0) d = -d
			     if (d > 0.10) { bad = 1; print "# bucket " k ": " A[k] " vs " B[k] } }
	      exit bad }' $W/b_tp $W/b_kp; then
	ok "hist kmalloc: the two sources give the same distribution shape ($(tr '\n' ' ' < $W/b_tp))"
else
	bad "hist kmalloc: shapes differ: $(tr '\n' ' ' < $W/b_tp) / $(tr '\n' ' ' < $W/b_kp)"
fi

# latency of a kernel function: dd's reads, each one paired.
sz=$(wc -c < /etc/passwd)
$KPT latency --json --comm dd -o $W/lat.json vfs_read > /dev/null 2> $W/lat.err &
KP=$!
i=0
while ! grep -q '^Attached' $W/lat.err 2>/dev/null && [ $i -lt 600 ]; do i=$((i + 1)); sleep 0.1; done
dd if=/etc/passwd of=/dev/null bs=64 2>/dev/null
sleep 0.2
stop $KP
n=$(sed -n 's/.*"count":\([0-9]*\),"sum".*/\1/p' $W/lat.json | tail -n 1)
want=$(( (sz + 63) / 64 + 1 ))
if [ "$n" = "$want" ] && grep -q '"p99"' $W/lat.json; then
	ok "latency vfs_read: $n calls for a $sz-byte file read 64 bytes at a time, with percentiles"
else
	bad "latency vfs_read: '$n' calls, want $want: $(head -c 300 $W/lat.json) $(tail -n 3 $W/lat.err)"
fi

# latency over a glob: every traceable match, the blacklisted ones skipped.
$KPT latency -d 1 'vfs_rea*' > $W/g.out 2> $W/g.err
rc=$?
n=$(sed -n "s/.*latency vfs_rea\*: \([0-9]*\) functions.*/\1/p" $W/g.err)
if [ $rc = 0 ] && [ "${n:-0}" -ge 2 ] && grep -q "^Attached $((n * 2)) probes" $W/g.err; then
	ok "latency 'vfs_rea*': $n functions attached and detached"
else
	bad "latency 'vfs_rea*': rc=$rc $(head -c 400 $W/g.err)"
fi
$KPT latency -d 1 '*notifier_call_chain' > $W/g.out 2> $W/g.err
rc=$?
if [ $rc = 0 ] && grep -q 'skipped: the kernel blacklists them' $W/g.err; then
	ok "latency '*notifier_call_chain': blacklisted matches skipped and reported ($(grep -h 'functions' $W/g.err | tr '\n' ' '))"
else
	bad "latency '*notifier_call_chain': rc=$rc $(head -c 400 $W/g.err)"
fi

# Backends: one definition forced through each mechanism the kernel has
# gives the same lines: values, and the probed address (kprobe.multi and
# fentry report it past an ENDBR, where the kernel puts a kprobe), and at a
# return the caller (fexit reads it from the trampoline's frame).
cat > $W/bk.defs <<EOF
p:kpt/bk do_sys_openat2 dfd filename:string how->flags
r:kpt/bkr vfs_read \$retval count file->f_flags
p:kpt/bkreg vfs_read count=%dx:u64 pos=+0(%cx):s64 c=\$comm
EOF
BACKENDS="kprobe fentry"
grep -q ' register_fprobe_ips$' /proc/kallsyms && BACKENDS="$BACKENDS kprobe-multi"
for b in $BACKENDS; do
	KPT_FLAGS="--backend $b" kpt_start $W/bk.defs
	workload
	kpt_stop $W/bk.raw
	renumber < $W/bk.raw | sort > $W/bk.$b
	echo "# $b: $(grep '^Attached' $W/kpt.err)"
	case $b in
	fentry) grep -q '^Attached 4 probes.*(4 through fentry/fexit)' $W/kpt.err ||
		bad "--backend fentry: not all through trampolines: $(grep '^Attached' $W/kpt.err)" ;;
	esac
done
for b in $BACKENDS; do
	[ $b = kprobe ] && continue
	if [ -s $W/bk.kprobe ] && diff $W/bk.kprobe $W/bk.$b > $W/bk.diff; then
		ok "kprobe and $b give the same lines: $(wc -l < $W/bk.kprobe) ($(grep -m1 bkr $W/bk.kprobe | cut -c1-100))"
	else
		bad "kprobe and $b differ:"
		grep '^[-+][^-+]' $W/bk.diff | head -n 8 | cut -c1-300 | sed 's/^/#   /'
	fi
done
case "$BACKENDS" in
*kprobe-multi*) ;;
*)	$KPT --backend kprobe-multi -d 1 'p:x vfs_read' > /dev/null 2> $W/bk.err
	if [ $? != 0 ] && grep -q 'no kprobe.multi' $W/bk.err; then
		ok "--backend kprobe-multi on a kernel without it: refused plainly ($(head -c 120 $W/bk.err))"
	else
		bad "--backend kprobe-multi without it: $(cat $W/bk.err)"
	fi ;;
esac

# hist of an argument, the return value or a tracepoint field taken straight
# from the context (no record built) through each mechanism: the generic
# path's histogram (the same definition with a filter that passes
# everything), exactly. same_direct DEF FIELD [OPTION...]: against
# $W/hg.json, the generic run's. A run of one histogram has its parameters
# as the verifier's constants (kpt_dh); a glob's histograms, one a function,
# each their own buckets, read theirs from the probe table (CONSTS=0).
DD='dd if=/dev/zero of=/dev/null bs=3 count=500'
same_direct() {
	local def=$1 field=$2 what consts
	shift 2
	what="hist $def${*:+, $*}"
	$KPT hist --dry-run "$@" "$def" $field > $W/hd.dry 2>&1
	$KPT hist --json "$@" -c "$DD" "$def" $field > $W/hd.json 2> $W/hd.err
	consts=$(grep -c "^hist: $field taken straight.*, its parameters constants to the verifier$" $W/hd.dry)
	if ! grep -q "^hist: $field taken straight from the context" $W/hd.dry ||
	   [ "$consts" != "${CONSTS:-1}" ]; then
		bad "$what: not the direct path${CONSTS:+ from the probe table}: $(grep '^hist' $W/hd.dry | sort | uniq -c | tr '\n' ' ')"
	elif grep -q '"count":[1-9]' $W/hg.json && cmp -s $W/hg.json $W/hd.json; then
		ok "$what, direct: the generic path's histogram ($(sed 's/.*\("count":[0-9]*\).*/\1/' $W/hd.json | tr '\n' ' ' | sed 's/ $//'))"
	else
		bad "$what: direct $(head -c 300 $W/hd.json) $(tail -n 2 $W/hd.err) vs generic $(head -c 300 $W/hg.json) $(tail -n 2 $W/hg.err)"
	fi
}
for hd in "p:h vfs_read count=%dx:u64|count" "r:h vfs_read ret=\$retval:s64|ret"; do
	def=${hd%|*}
	field=${hd#*|}
	$KPT hist --json --backend kprobe -c "$DD" "$def if $field != 7777777" $field > $W/hg.json 2> $W/hg.err
	for b in $BACKENDS; do
		same_direct "$def" $field --backend $b
	done
done
def='p:h vfs_read* count=%dx:u64'
$KPT hist --json --backend kprobe -c "$DD" "$def if count != 7777777" count > $W/hg.json 2> $W/hg.err
for b in $BACKENDS; do
	CONSTS=0 same_direct "$def" count --backend $b
done
# Tracepoint fields, read with plain loads of the record's words on both
# kernels (a u64, an s64, an s32 in a word's lower half).
for hd in "t:h syscalls/sys_enter_read count|count" "t:h syscalls/sys_exit_read ret|ret" \
	  "t:h syscalls/sys_exit_read __syscall_nr|__syscall_nr"; do
	def=${hd%|*}
	field=${hd#*|}
	$KPT hist --json -c "$DD" "$def if $field != 7777777" $field > $W/hg.json 2> $W/hg.err
	same_direct "$def" $field
done

# auto: a few probes through trampolines; what they cannot take (a stack
# read) through a kprobe beside them, chosen per probe.
$KPT --dry-run 'p:a vfs_read count' 'r:b vfs_read $retval' 'p:c vfs_read s=$stack0' > $W/auto.out 2>&1
if [ "$(grep '^attach:' $W/auto.out | tr '\n' ' ')" = "attach: fentry (BPF trampoline) attach: fexit (BPF trampoline) attach: kprobe " ]; then
	ok "auto: fentry, fexit and a kprobe for the stack read"
else
	bad "auto backends: $(grep -e '^attach' -e error $W/auto.out | tr '\n' ' ')"
fi
$KPT latency vfs_read -c 'dd if=/dev/zero of=/dev/null bs=1 count=500' > $W/lat.out 2> $W/lat.err
if grep -q '(2 through fentry/fexit)' $W/lat.err && grep -q '^count 500,' $W/lat.out; then
	ok "latency vfs_read through fentry/fexit: $(grep -m1 '^count' $W/lat.out | cut -c1-90)"
else
	bad "latency through fentry/fexit: $(cat $W/lat.err $W/lat.out | head -n 12)"
fi

# A function the kernel's trampolines may refuse: do_mmap has 8 arguments
# (9 on 6.12); before 6.6 a trampoline saves at most 6. auto then falls back
# to a kprobe; forced, it is an error with nothing left attached.
$KPT 'p:mm do_mmap len=%dx:u64' -c 'cat /etc/hostname' > $W/mm.out 2> $W/mm.err
rc=$?
n=$(grep -c ' mm: (do_mmap+' $W/mm.out)
if [ $rc = 0 ] && [ "$n" -ge 1 ] && grep -q 'using kprobes' $W/mm.err; then
	ok "auto, trampoline refused: fell back to a kprobe, $n events ($(grep -m1 'using kprobes' $W/mm.err | cut -c1-150))"
elif [ $rc = 0 ] && [ "$n" -ge 1 ] && grep -q 'through fentry/fexit' $W/mm.err; then
	ok "auto: do_mmap (8+ arguments) through fentry, $n events"
else
	bad "auto on do_mmap: rc=$rc n=$n $(head -c 400 $W/mm.err)"
fi
$KPT --backend fentry 'p:mm do_mmap len=%dx:u64' -c 'cat /etc/hostname' > $W/mm.out 2> $W/mm.err
rc=$?
if [ $rc != 0 ] && grep -q 'trampolines cannot take this function.*nothing was left attached' $W/mm.err; then
	ok "--backend fentry refused plainly: $(grep error $W/mm.err | cut -c1-140)"
elif [ $rc = 0 ] && grep -q 'through fentry/fexit' $W/mm.err; then
	ok "--backend fentry on do_mmap: attached"
else
	bad "--backend fentry on do_mmap: rc=$rc $(head -c 400 $W/mm.err)"
fi
grep -q . $T/kprobe_events && bad "kprobe_events left: $(head -n 3 $T/kprobe_events)"

# A glob over a few hundred functions: attached (kprobe.multi where the
# kernel has it: one link), run, detached, nothing left in ftrace.
$KPT -d 2 'p:tcp_*' > $W/glob.out 2> $W/glob.err
rc=$?
n=$(sed -n 's/^Attached \([0-9]*\) probes.*/\1/p' $W/glob.err)
left=$(grep -c '^tcp_' $T/enabled_functions 2>/dev/null)
if [ $rc = 0 ] && [ "${n:-0}" -ge 100 ] && [ "${left:-0}" = 0 ]; then
	ok "glob 'tcp_*': $(grep '^Attached' $W/glob.err); $(grep -m1 "'tcp_\*'" $W/glob.err | cut -c1-100); nothing left enabled"
else
	bad "glob 'tcp_*': rc=$rc attached '${n}' left ${left}: $(tail -n 4 $W/glob.err)"
fi
$KPT --dry-run 'p:tcp_*' > $W/gd.out 2>&1
m=$(grep -c '^attach: kprobe.multi' $W/gd.out)
echo "# dry-run: $m of $(grep -c '^attach:' $W/gd.out) probes would attach through kprobe.multi"

# A module function's arguments by name, from the module's own BTF.
if grep -q ' dummy_dev_init\s*\[dummy\]' /proc/kallsyms; then
	$KPT --dry-run 'p dummy:dummy_dev_init dev->mtu dev->name:string' > $W/mod.out 2>&1
	if grep -q '^attach:' $W/mod.out && grep -q 'mtu' $W/mod.out &&
	   ! grep -q 'error' $W/mod.out; then
		ok "module BTF: dummy:dummy_dev_init dev->mtu resolves ($(grep -m1 'mtu' $W/mod.out | cut -c1-90))"
	else
		bad "module BTF: $(head -c 300 $W/mod.out)"
	fi
else
	echo "skip - $KREL: module BTF: the dummy module is not loaded"
fi

# Kernels differ: "A|B" takes the one this kernel has; a function the
# compiler only left as a clone is that clone; a misspelt one is suggested.
$KPT --dry-run 'p:km __kmalloc_noprof|__kmalloc' > $W/alt.out 2>&1
if grep -qE '^  kprobe at 0x[0-9a-f]+ \(__kmalloc(_noprof)?\)$' $W/alt.out &&
   ! grep -q error $W/alt.out; then
	ok "alternatives: __kmalloc_noprof|__kmalloc is $(sed -n 's/^  kprobe at .*(\(.*\))$/\1/p' $W/alt.out) here"
else
	bad "alternatives: $(head -c 300 $W/alt.out)"
fi
clone=$(grep -E ' [tT] [a-z_0-9]+\.(constprop|isra|part)\.[0-9]+$' /proc/kallsyms | awk '{print $3}' |
	while read -r c; do b=${c%%.*}; grep -q " $b\$" /proc/kallsyms || { echo "$c"; break; }; done)
if [ -n "$clone" ]; then
	$KPT --dry-run "p:cl ${clone%%.*}" > $W/clone.out 2>&1
	if grep -q "^  kprobe at .*($clone)" $W/clone.out && ! grep -q error $W/clone.out; then
		ok "clones: ${clone%%.*} is $clone in this kernel"
	else
		bad "clones: ${clone%%.*} ($clone): $(head -c 300 $W/clone.out)"
	fi
fi
$KPT 'p vfs_raed' > $W/dym.out 2>&1
if grep -q "did you mean 'vfs_read'" $W/dym.out; then
	ok "a misspelt function: $(head -n 1 $W/dym.out | cut -c1-100)"
else
	bad "a misspelt function: $(head -c 300 $W/dym.out)"
fi

# Start-up without kallsyms (src/resolve.h): a histogram and a latency of a
# function named plainly never read /proc/kallsyms (~5 MB the kernel formats:
# most of a kprobe run's start-up). So they run where the kernel hides its
# addresses from everyone (kptr_restrict=2: kallsyms lists zeros), which a
# run that reads kallsyms refuses. A stream of them reads it once attached,
# for its symbols: there it says the addresses print in hex, and goes on.
# Wait (60 s at most) until kptrace $KP says Attached in file $1, or exits.
wait_attached() {
	i=0
	while ! grep -q '^Attached' "$1" 2>/dev/null && [ $i -lt 600 ] && kill -0 $KP 2>/dev/null; do
		i=$((i + 1)); sleep 0.1
	done
}
bg_run() {
	rm -f $W/rc.err
	$KPT "$@" > $W/rc.out 2> $W/rc.err &
	KP=$!
	wait_attached $W/rc.err
	cat /etc/hostname > /dev/null
	sleep 0.5
	stop $KP
}
KR=$(cat /proc/sys/kernel/kptr_restrict)
echo 2 > /proc/sys/kernel/kptr_restrict
if grep -q '^0000000000000000 [tT] vfs_read$' /proc/kallsyms; then
	bg_run hist --backend kprobe 'p:kpt/kh vfs_read count=%dx:u64' count
	if [ $RC = 0 ] && grep -q '^count [1-9]' $W/rc.out; then
		ok "hist of a function by name, kallsyms hidden: not needed ($(grep -m1 '^count' $W/rc.out))"
	else
		bad "hist of a function by name, kallsyms hidden: rc=$RC: $(head -c 300 $W/rc.err)"
	fi
	bg_run latency vfs_read
	if [ $RC = 0 ] && grep -q '^count [1-9]' $W/rc.out; then
		ok "latency of a function by name, kallsyms hidden: not needed ($(grep -m1 '^count' $W/rc.out))"
	else
		bad "latency of a function by name, kallsyms hidden: rc=$RC: $(head -c 300 $W/rc.err)"
	fi
	bg_run --backend kprobe 'p:kpt/ks vfs_read count=%dx:u64'
	if [ $RC = 0 ] && grep -q 'addresses are hidden.*print in hex' $W/rc.err &&
	   grep -q ' ks: (0x[0-9a-f]*) count=' $W/rc.out; then
		ok "a stream, kallsyms hidden: said, addresses in hex ($(grep -m1 ' ks: ' $W/rc.out | cut -c1-90))"
	else
		bad "a stream, kallsyms hidden: rc=$RC: $(head -c 300 $W/rc.err) $(grep -m1 ' ks: ' $W/rc.out)"
	fi
else
	bad "kptr_restrict=2 left kallsyms' addresses readable: $(grep -m1 ' vfs_read$' /proc/kallsyms)"
fi
echo $KR > /proc/sys/kernel/kptr_restrict

# A name two static functions share: the kernel refuses a kprobe by it
# (6.7+ and stable kernels), after kptrace tried it without kallsyms and
# again with it; said once, with the way out, nothing attached.
amb=$(grep -E ' [tT] [a-z][a-z0-9_]*_show$' /proc/kallsyms | awk '{ print $3 }' | sort | uniq -d | head -n 1)
$KPT --backend kprobe -d 1 "p:kpt/amb $amb" > $W/amb.out 2> $W/amb.err
rc=$?
if [ -z "$amb" ]; then
	echo "skip - $KREL: no function name shared by two static functions found"
elif [ $rc != 0 ] && grep -q "at $amb: .*several functions have this name" $W/amb.err &&
     [ "$(grep -c '^Attaching' $W/amb.err)" = 1 ] && ! grep -q Attached $W/amb.err; then
	ok "a name shared by static functions ($amb): $(grep error $W/amb.err | cut -c1-120)"
else
	bad "a name shared by static functions ($amb): rc=$rc: $(head -c 400 $W/amb.err)"
fi

# Refusals: nothing attached, a clear message, non-zero exit.
refuse() {
	name=$1 pattern=$2
	shift 2
	$KPT "$@" > $W/r.out 2> $W/r.err
	rc=$?
	if [ $rc != 0 ] && grep -q "$pattern" $W/r.err && ! grep -q Attached $W/r.err; then
		ok "$name"
	else
		bad "$name: rc=$rc: $(head -c 300 $W/r.err)"
	fi
}
refuse "a blacklisted function is refused" 'blacklist' 'p notifier_call_chain'
refuse "a missing symbol is refused" 'no symbol' 'p no_such_function_kpt'
refuse "a data symbol is refused" 'not a function' 'p jiffies'
refuse "a bad definition is refused with a caret" '\^' 'p do_sys_openat2 x=+0(%si:string'
refuse "one bad probe attaches none" 'nothing was left attached' \
	'p:ok1 vfs_read' 'p:bad1 do_sys_openat2+1'

# The largest configuration through this kernel's verifier.
args=""
i=1
while [ $i -le 124 ]; do args="$args a$i=%di:u8"; i=$((i + 1)); done
deep='+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(%si)))))))))))))):u8'
$KPT -d 2 "p:max do_sys_openat2$args d=$deep s=+0(%si):string arr=+0(%si):u8[64] sa=+0(%si):string[4]" \
	> $W/max.out 2> $W/max.err &
KP=$!
wait_attached $W/max.err
cat /etc/hostname > /dev/null
wait $KP
if grep -q ' max: (do_sys_openat2' $W/max.out; then
	ok "128 arguments, 14 dereferences, 64-element arrays: verified, attached, fired"
else
	bad "maximal configuration: $(head -c 400 $W/max.err)"
fi

# ---- kptrace list (src/list.c) and latency --pmu (src/pmu.c) ----
# list: a prototype from this kernel's BTF; the function set of
# available_filter_functions (blacklist out); module functions with their
# module's BTF; tracepoint fields from the format file.
$KPT list vfs_read > $W/l.out 2> $W/l.err
if grep -qxF 'ssize_t vfs_read(struct file *file, char *buf, size_t count, loff_t *pos)' $W/l.out; then
	ok "list vfs_read: $(cat $W/l.out)"
else
	bad "list vfs_read: $(cat $W/l.out $W/l.err)"
fi
t0=$(date +%s)
$KPT list > $W/lall.out 2> $W/lall.err
rc=$?
t1=$(date +%s)
n=$(sed -n "s/.*list '\*': \([0-9]*\) functions.*/\1/p" $W/lall.err)
m=$(sed 's/ *$//' $T/available_filter_functions | sort -u | wc -l)
nbl=$(wc -l < /sys/kernel/debug/kprobes/blacklist 2>/dev/null || echo 0)
if [ $rc = 0 ] && [ "${n:-0}" -le "$m" ] && [ "${n:-0}" -ge $((m - nbl)) ] && [ "$n" -gt 1000 ]; then
	ok "list: $n functions of the $m in available_filter_functions ($nbl blacklisted), $((t1 - t0)) s under TCG ($(cat $W/lall.err))"
else
	bad "list: rc=$rc n=$n m=$m nbl=$nbl: $(cat $W/lall.err)"
fi
mod=$(sed -n 's/.*\[\([a-z0-9_]*\)\]$/\1/p' $T/available_filter_functions | head -n 1)
if [ -n "$mod" ] && [ -e /sys/kernel/btf/$mod ]; then
	$KPT list "$mod:*" > $W/lm.out 2> $W/lm.err
	if grep -q "^[a-z].*(.*) \[$mod\]$" $W/lm.out && ! grep -qv "\[$mod\]" $W/lm.out; then
		ok "list '$mod:*': module functions with prototypes from /sys/kernel/btf/$mod ($(grep -m1 '(' $W/lm.out))"
	else
		bad "list '$mod:*': $(head -c 300 $W/lm.out) $(cat $W/lm.err)"
	fi
else
	echo "skip - $KREL: list MOD:*: no loaded module with BTF (${mod:-none})"
fi
want="sched/sched_switch {$(sed -n 's/^	field:\([^;]*\);.*/\1/p' $T/events/sched/sched_switch/format | grep -v common_ | sed 's/^/ /; s/$/;/' | tr -d '\n') }"
$KPT list sched/sched_switch > $W/lt.out 2> $W/lt.err
if [ "$(cat $W/lt.out)" = "$want" ]; then
	ok "list sched/sched_switch: the format file's fields"
else
	bad "list sched/sched_switch: '$(cat $W/lt.out)' want '$want'"
fi

# latency --pmu through kprobes: a sleep in the kernel switches out at least
# once per call; hardware counters as qemu provides them (TCG: none).
# (busybox by its path: a process of its own, whatever sh runs in-process)
$KPT latency --json --comm busybox --pmu context-switches,cpu-clock -o $W/pmu.json hrtimer_nanosleep \
	> /dev/null 2> $W/pmu.err &
KP=$!
i=0
while ! grep -q '^Attached' $W/pmu.err 2>/dev/null && [ $i -lt 600 ] && kill -0 $KP 2>/dev/null; do
	i=$((i + 1)); sleep 0.1
done
for i in 1 2 3 4 5; do /bin/busybox sleep 0.05; done
stop $KP
lat=$(sed -n 's/^{[^{]*"hist":{"buckets":\[[^]]*\],"count":\([0-9]*\),.*/\1/p' $W/pmu.json)
cs=$(sed -n 's/.*"event":"context-switches","unit":null,"hist":{"buckets":\[[^]]*\],"count":\([0-9]*\),"sum":[0-9]*,"min":\([0-9]*\),.*/\1 \2/p' $W/pmu.json)
mig=$(sed -n 's/.*"migrated":\([0-9]*\),.*/\1/p' $W/pmu.json)
set -- $cs
if [ "${lat:-0}" = 5 ] && [ "$(( ${1:-0} + ${mig:-99} ))" = 5 ] && [ "${1:-0}" -ge 1 ] && [ "${2:-0}" -ge 1 ]; then
	ok "latency hrtimer_nanosleep --pmu: 5 sleeps, context-switches >= 1 in each of the $1 counted ($mig returned on another CPU)"
else
	bad "latency --pmu: lat=$lat cs='$cs' mig=$mig: $(head -c 600 $W/pmu.json) $(tail -n 3 $W/pmu.err)"
fi
if [ -e /sys/bus/event_source/devices/cpu ]; then
	$KPT latency -d 1 --pmu cycles,instructions vfs_read > $W/hw.out 2> $W/hw.err
	if [ $? = 0 ] && grep -q '^  cycles' $W/hw.out; then
		ok "latency --pmu cycles,instructions: this VM has a PMU ($(grep -m1 '^  cycles' $W/hw.out))"
	else
		bad "latency --pmu cycles: $(cat $W/hw.err)"
	fi
else
	refuse "no PMU in this VM ($(dmesg | grep -m1 'Performance Events' | cut -c1-70)): --pmu cycles is refused, clearly" \
		'cycles: no hardware PMU on this machine' latency --pmu cycles vfs_read
fi
