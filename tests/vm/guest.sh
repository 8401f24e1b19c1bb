#!/bin/sh
# Guest script (busybox sh) for tests/vm/test.sh: real kprobes and kretprobes.
# The kernel's own kprobe_events is the reference: for a table of definitions,
# both tracers watch the same workload and must print the same lines apart
# from the timestamp, CPU and flags columns. Prints "ok - ..." / "FAIL - ...",
# "# expect N ok" first (test.sh fails a run with fewer checks) and "# done"
# last.
T=/sys/kernel/tracing
W=/tmp/kpt
mkdir -p $W
KREL=$(uname -r)
echo "# kernel $KREL"
# The checks this script runs on each kernel (each an ok or FAIL line).
case $KREL in
5.10.*) echo "# expect 33 ok" ;;
6.1.*) echo "# expect 100 ok" ;;
6.12.*) echo "# expect 111 ok" ;;
esac
# Before 5.15 (the kernel's history: BPF cookies came in 5.15) a kptrace
# run takes at most 16 probes on one function (a program each: load/ident.h):
# a file of more runs a kptrace per definition, all at once (kpt_start), and
# the script ends after the ftrace-differential passes (OLD_KERNEL)
case $KREL in
[1-4].* | 5.[0-9].* | 5.1[0-4].*) OLD_KERNEL=1 ;;
*) OLD_KERNEL= ;;
esac

# ok/bad, the bounded kpt and $KPTBG, stop, wait_attached, gone, renumber
. /guest-lib.sh || { echo "FAIL - $KREL: no /guest-lib.sh (tests/vm/test.sh adds it)"; exit 1; }
# a kptrace a definition (OLD_KERNEL) lives while the others load: 14 of
# them took 15 s each under TCG on a busy host
[ -z "$OLD_KERNEL" ] || KPTBG="timeout -s KILL 900 /bin/kptrace"
ONE_EACH=${OLD_KERNEL:+16}

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

# Where the reference refuses a definition (an older kernel lacks a type or
# a kind of event: char came in 6.2, fprobes in 6.4, entry arguments at a
# return in 6.9), it runs the same probe in a form that kernel has, and xf
# turns those lines into the ones the original gives: the expectation
# kptrace's lines are compared with. EVENT DEFINITION.
cat > $W/subst <<EOF
char p:kpt/char do_sys_openat2 ch=+1(%si):u8 c0=+0(%si):u8
fopen p:kpt/fopen do_sys_openat2 dfd=\$arg1:s32 path=+0(\$arg2):string
fret r:kpt/fret ksys_write ret=\$retval:s64
bretargs r:kpt/bretargs vfs_read arg1=\$retval:s64
EOF
# xf EVENT ref|got: the substitute's lines (ref) as the original's, or
# kptrace's (got) as far as the substitute sees, stdin to stdout.
xf() {
	case "$1.$2" in
	# ftrace prints a char as '%c'
	char.ref) awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^(ch|c0)=[0-9]+$/) {
			split($i, kv, "="); $i = sprintf("%s=\047%c\047", kv[1], kv[2] + 0) }
		print }' ;;
	# a kretprobe on 6.1 has no entry arguments: those are checked by hand
	bretargs.got) sed 's/ count=[0-9]* arg3=[0-9]*$//' ;;
	*) cat ;;
	esac
}

# The reference records into a fresh tracefs instance per pass, removed after:
# 6.1 has oopsed (reset_disabled_cpu_buffer) when the main buffer was reset.
I=$T/instances/kptref
ftrace_start() {
	echo > $T/kprobe_events
	echo > $T/dynamic_events
	# One at a time, so that a refusal is of one definition; fprobes (f:)
	# are dynamic_events only. $W/refused: EVENT SUBSTITUTE, or EVENT -.
	: > $W/refused
	while read -r def; do
		file=$T/kprobe_events
		case $def in f*) file=$T/dynamic_events ;; esac
		echo "$def" >> $file 2>/dev/null && continue
		why=$(tail -n 3 $T/error_log | head -n 1 | sed 's/.*error: //' | cut -c1-80)
		ev=$(echo "$def" | sed -n 's/^[^ :]*:\([^ ]*\/\)\{0,1\}\([^ /]*\) .*/\2/p')
		sub=$(grep "^${ev:-.} " $W/subst | cut -d' ' -f2-)
		if [ -n "$sub" ] && echo "$sub" >> $T/kprobe_events 2>/dev/null; then
			echo "$ev $sub" >> $W/refused
			echo "# the reference refuses: $def ($why): runs '$sub' instead"
		else
			echo "${ev:-$def} -" >> $W/refused
			echo "# the reference refuses: $def ($why), with no substitute"
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

# kpt_start and kpt_stop: guest-lib.sh's, a definition each past ONE_EACH

# A return's caller, version-gated before 5.15 (OLD_KERNEL): there a
# kretprobe's program sees the registers at kretprobe_trampoline, and the
# caller is in the kernel's kretprobe_instance, out of the program's reach
# (5.19's rethooks restore it first); compared without it, said in the line.
gate_caller() {
	[ -n "$OLD_KERNEL" ] && grep -q " $1: (.* <- " $W/ref.$1 || return 1
	sed -i 's/^\([0-9]* [^ ]*: (\)[^ ]* <- /\1CALLER <- /' $W/ref.$1 $W/got.$1
}

compare() {
	local ev sub how
	for ev in "$@"; do
		sub=$(grep "^$ev " $W/refused | cut -d' ' -f2-)
		if [ -z "$sub" ]; then
			grep " $ev: " $W/ref | sort > $W/ref.$ev
			grep " $ev: " $W/got | sort > $W/got.$ev
			how="ftrace's"
		else
			grep " $ev: " $W/ref | xf $ev ref | sort > $W/ref.$ev
			grep " $ev: " $W/got | xf $ev got | sort > $W/got.$ev
			how="ftrace's through '$sub'"
		fi
		gate_caller $ev && how="$how but the caller (gated: 5.10's kretprobe programs see the trampoline)"
		if [ "$sub" = - ]; then
			bad "$ev: this kernel's kprobe_events refuses it and the test has no substitute"
		elif [ ! -s $W/ref.$ev ]; then
			bad "$ev: ftrace recorded nothing"
		elif diff $W/ref.$ev $W/got.$ev > $W/diff.$ev; then
			ok "$ev: $(wc -l < $W/got.$ev) lines equal $how ($(head -n 1 $W/got.$ev | cut -c1-110))"
		else
			bad "$ev: differs from $how:"
			head -n 14 $W/diff.$ev | cut -c1-300 | sed 's/^/#   /'
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
# reference runs their register forms: UAPI layouts (open_how), and the
# offsets in struct file, path, dentry and qstr that tests/vm/test.sh read
# from this kernel's BTF with bpftool (/etc/kpt-btf-offsets).
cat > $W/btf.defs <<EOF
p:kpt/bopen do_sys_openat2 dfd filename:string how->flags how->mode
p:kpt/bargs do_sys_openat2 \$arg*
p:kpt/bargn do_sys_openat2 \$arg2:string \$arg1
p:kpt/bread vfs_read file->f_flags count pos
p:kpt/bchain vfs_read file->f_path.dentry->d_name.name:string count
EOF
FILE_F_FLAGS= FILE_F_PATH= PATH_DENTRY= DENTRY_D_NAME= QSTR_NAME=
[ -r /etc/kpt-btf-offsets ] && . /etc/kpt-btf-offsets
cat > $W/btfreg.defs <<EOF
p:kpt/bopen do_sys_openat2 dfd=%di:s32 filename=+0(%si):string arg3=+0(%dx):u64 arg4=+8(%dx):u64
p:kpt/bargs do_sys_openat2 dfd=%di:s32 filename=%si:x64 how=%dx:x64
p:kpt/bargn do_sys_openat2 filename=+0(%si):string dfd=%di:s32
p:kpt/bread vfs_read arg1=+${FILE_F_FLAGS:-?}(%di):u32 count=%dx:u64 pos=%cx:x64
p:kpt/bchain vfs_read arg1=+0(+$((DENTRY_D_NAME + QSTR_NAME))(+$((FILE_F_PATH + PATH_DENTRY))(%di))):string count=%dx:u64
EOF
if echo 'p:kpt/probe do_sys_openat2 dfd' > $T/kprobe_events 2>/dev/null; then
	BTFREF=$W/btf.defs
else
	BTFREF=$W/btfreg.defs
	echo "# this kernel's kprobe_events has no BTF arguments: register forms as the reference"
	[ -n "$FILE_F_FLAGS" ] && [ -n "$QSTR_NAME" ] ||
		bad "bread, bchain: no offsets from the host in /etc/kpt-btf-offsets: '$(cat /etc/kpt-btf-offsets)'"
fi
echo > $T/kprobe_events
ftrace_start $BTFREF
kpt_start $W/btf.defs
workload
ftrace_stop $W/ref
kpt_stop $W/got
echo "# btf: kptrace $(wc -l < $W/got) workload lines, ftrace $(wc -l < $W/ref)"
compare bopen bargs bargn bread bchain

# symstr: the symbol's text as a string. The reference is ftrace's own
# symbol type of the same value ("%pS" both), not its symstr: 6.12's
# kprobe_events oopsed in __sprint_symbol writing a symstr (seen under TCG),
# which would take the whole VM run down. Both tracers at once.
echo 'p:kpt/ss do_sys_openat2 a=$stack0:symbol' > $W/ssref.defs
echo 'p:kpt/ss do_sys_openat2 a=$stack0:symbol b=$stack0:symstr' > $W/ss.defs
ftrace_start $W/ssref.defs
kpt_start $W/ss.defs
workload
ftrace_stop $W/ref
kpt_stop $W/got
sed 's/ a=\([^ ]*\)$/ a=\1 b="\1"/' $W/ref | sort > $W/ref.ss
sort $W/got > $W/got.ss
if grep -q ' ss: .* a=[a-zA-Z0-9_.]*+0x' $W/ref.ss && diff $W/ref.ss $W/got.ss > $W/diff.ss; then
	ok "symstr: $(wc -l < $W/got.ss) lines, each ftrace's symbol as a string ($(head -n 1 $W/got.ss | sed 's/.* b=//'))"
else
	bad "symstr against ftrace's symbol: $(head -n 6 $W/diff.ss | tr '\n' ' ' | cut -c1-400) ($(head -n 1 $W/ref.ss))"
fi

# Return probes: the reference, then kptrace, on the same workload; pids
# renumbered by order of appearance into $W/ref and $W/got. DEFS [REFDEFS]:
# the reference runs REFDEFS where given.
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

# Pass 2: return probes, one tracer after the other.
one_after_other $W/ret.defs
echo "# return: kptrace $(wc -l < $W/got) workload lines, ftrace $(wc -l < $W/ref)"
compare openret readret r_ksys_read_0 fret

# Return probes with entry arguments (6.9+'s kprobe_events has them too).
cat > $W/bret.defs <<EOF
r:kpt/bret do_sys_openat2 \$retval
r:kpt/bretargs vfs_read \$retval count file->f_flags
EOF
# A bare $retval is typed from BTF (do_sys_openat2 and vfs_read return a
# long), as 6.5+'s kprobe_events types it; before (6.1) its default is x64,
# so there the reference gets the type written out.
if [ $BTFREF = $W/btf.defs ]; then
	one_after_other $W/bret.defs
else
	sed 's/ \$retval / arg1=$retval:s64 /; s/ \$retval$/ arg1=$retval:s64/' $W/bret.defs > $W/bretref.defs
	one_after_other $W/bret.defs $W/bretref.defs
fi
compare bret bretargs
# By hand too (6.1's kretprobes have no entry arguments): each read the
# workload's cat and dd make is of a file opened O_RDONLY, which x86-64
# opens O_LARGEFILE (f_flags 0x8000, named arg3 as ftrace names a chain);
# dd reads /etc/passwd 64 bytes at a time, in order: full blocks, the rest,
# 0 at its end.
sz=$(wc -c < /etc/passwd)
awk -v sz=$sz 'BEGIN { for (n = sz; n >= 64; n -= 64) print "arg1=64 count=64 arg3=32768"
	if (n) print "arg1=" n " count=64 arg3=32768"; print "arg1=0 count=64 arg3=32768" }' > $W/bra.want
sed -n 's/^ *dd-[0-9][0-9]* .* bretargs: ([^)]*) //p' $W/kpt.out > $W/bra.got
nflags=$(grep ' bretargs: ' $W/kpt.out | grep -vc ' arg3=32768$')
if cmp -s $W/bra.want $W/bra.got && [ "$nflags" = 0 ] && grep -q ' bretargs: ' $W/kpt.out; then
	ok "return probes with entry arguments: dd's $(wc -l < $W/bra.got) reads of a $sz-byte file as computed, every read's f_flags 0x8000"
else
	bad "return probes with entry arguments: dd's reads '$(tr '\n' ' ' < $W/bra.got)', want '$(tr '\n' ' ' < $W/bra.want)'; $nflags reads without arg3=32768"
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
# kptrace's fentry/fexit programs take bpf_get_func_arg_cnt() (Linux 5.17)
DBACKENDS="kprobe fentry"
[ -z "$OLD_KERNEL" ] || DBACKENDS=kprobe
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
for b in ${DBACKENDS% kprobe-multi}; do
	direct_said --backend $b -f $W/dret.defs
	echo "# direct stream through $b, a return"
	KPT_FLAGS="--backend $b" one_after_other $W/dret.defs
	compare dret
done



# "did you mean" offers only functions the kernel takes (guest-lib.sh)
dym_check

# Before 5.15 the passes against the kernel's own kprobe_events are the
# script (OLD_KERNEL): what follows needs newer kernels' features
if [ -n "$OLD_KERNEL" ]; then
	dmesg_check
	echo "# done"
	exit 0
fi

# SIGKILL leaves no probe behind: the kernel lists every registered kprobe.
LIST=/sys/kernel/debug/kprobes/list
# Trampolines: ftrace lists the functions it calls them from.
sigkill_leaves() {
	local backend=$1 list=$2
	rm -f $W/kill.err	# see kpt_start
	$KPTBG --backend $backend 'p:kill vfs_read' 'r:killr vfs_read' > /dev/null 2> $W/kill.err &
	KP=$!
	wait_attached $W/kill.err "SIGKILL, $backend"
	before=$(grep -c '^vfs_read\b' $list)
	[ $backend = kprobe ] && before=$(grep -c 'vfs_read' $list)
	kill -KILL $KP
	wait $KP 2>/dev/null
	# the kernel detaches as the killed process's files are released
	gone vfs_read $list 10
	after=$(grep -c 'vfs_read' $list)
	if [ "$before" -ge 1 ] && [ "$after" = 0 ]; then
		ok "SIGKILL leaves no $backend attached ($before in $list while running, $after after)"
	else
		bad "SIGKILL, $backend: vfs_read $before in $list while running, $after 10 s after"
	fi
}
sigkill_leaves kprobe $LIST
sigkill_leaves fentry $T/enabled_functions

# Kernel-side misses come from the link where the kernel reports them (6.7+).
# dd's reads: a probe that never fires is on the profile's never-fired line,
# without columns
$KPT --backend kprobe -c 'dd if=/dev/zero of=/dev/null bs=1 count=50' 'p:m vfs_read' 'r:mr vfs_read' \
	> /dev/null 2> $W/m.err
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
# Not under $KPTBG: busybox timeout's watchdog sleeps in hrtimer_nanosleep
# too, and took the one instance (stop bounds this run).
/bin/kptrace 'r1:sl hrtimer_nanosleep ret=$retval:s32' > $W/sl.out 2> $W/sl.err &
KP=$!
wait_attached $W/sl.err "r1 maxactive"
sleep 1 & s1=$!
sleep 1 & s2=$!
wait $s1 $s2
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
$KPTBG 'r4:k hrtimer_nanosleep' > /dev/null 2> $W/k.err &
KP=$!
wait_attached $W/k.err "r4 after SIGKILL"
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

# hist kmalloc through the tracepoint and through kprobes, on one workload,
# against ftrace's own kmem:kmalloc events of the same processes in the
# same window: their bytes_req, bucketed here by hand (log2: [0], [1],
# [2,3], [4,7], ...), bucket for bucket.
# the workload: kptrace itself, renamed (kallsyms and BTF reads allocate)
cp /bin/kptrace $W/kptkm
KM=$T/instances/kptkm
mkdir $KM
echo 4096 > $KM/buffer_size_kb
echo 'comm == "kptkm"' > $KM/events/kmem/kmalloc/filter
echo 1 > $KM/events/kmem/kmalloc/enable
# One after the other: the second loads while the first's probes are live,
# not while they are being patched in.
$KPTBG hist kmalloc --json --comm kptkm -o $W/km_tp.json > /dev/null 2> $W/km_tp.err &
KTP=$!
KP=$KTP wait_attached $W/km_tp.err "hist kmalloc"
$KPTBG hist kmalloc --no-tracepoint --json --comm kptkm -o $W/km_kp.json > /dev/null 2> $W/km_kp.err &
KK=$!
KP=$KK wait_attached $W/km_kp.err "hist kmalloc --no-tracepoint"
# --backend kprobe: no BPF test load (sys/kfeat.c) in it, whose verifier
# state is a 16384-byte kmalloc that 6.12's kmem:kmalloc recorded twice
# and its kprobes once (12 and 6, measured)
for i in 1 2 3; do $W/kptkm --backend kprobe --dry-run 'p vfs_read' > /dev/null 2>&1; done
stop $KTP
tprc=$RC
stop $KK
kprc=$RC
echo 0 > $KM/events/kmem/kmalloc/enable
grep -v '^#' $KM/trace | sed -n 's/.* kmalloc: .* bytes_req=\([0-9]*\) .*/\1/p' |
	awk '{ v = $1; b = v; if (v >= 2) { b = 2; while (b * 2 <= v) b *= 2 }; n[b]++ }
	     END { for (b in n) print b, n[b] }' | sort -n > $W/b_ft
lost=$(cat $KM/per_cpu/cpu*/stats | awk '/^(overrun|dropped events):/ { n += $NF } END { print n + 0 }')
rmdir $KM
# kptrace's buckets: "min" and "count" of each non-empty one
buckets() {
	tr '}' '\n' < "$1" | sed -n 's/.*"min":\([0-9]*\),"max":[0-9]*,"count":\([1-9][0-9]*\)$/\1 \2/p' | sort -n
}
nft=$(awk '{ n += $2 } END { print n + 0 }' $W/b_ft)
for src in tp kp; do
	case $src in tp) what="the tracepoint" rc=$tprc ;; kp) what="kprobes" rc=$kprc ;; esac
	buckets $W/km_$src.json > $W/b_$src
	if [ "$lost" = 0 ] && [ "$nft" -gt 10 ] && [ "$rc" = 0 ] && cmp -s $W/b_ft $W/b_$src; then
		ok "hist kmalloc through $what: ftrace's $nft kmem:kmalloc events of the workload, bucket for bucket ($(tr '\n' ' ' < $W/b_ft))"
	else
		bad "hist kmalloc through $what (exit $rc): '$(tr '\n' ' ' < $W/b_$src)', ftrace's '$(tr '\n' ' ' < $W/b_ft)' ($lost lost): $(tail -n 3 $W/km_$src.err)"
	fi
done

# latency of a kernel function: dd's reads, each one paired.
sz=$(wc -c < /etc/passwd)
$KPTBG latency --json --comm dd -o $W/lat.json vfs_read > /dev/null 2> $W/lat.err &
KP=$!
wait_attached $W/lat.err "latency vfs_read"
dd if=/etc/passwd of=/dev/null bs=64 2>/dev/null
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
# everything), exactly, and that histogram the workload's, computed by hand.
# same_direct DEF FIELD [OPTION...]: against $W/hg.json, the generic run's,
# and $WANT. A run of one histogram has its parameters as the verifier's
# constants (kpt_dh); a glob's histograms, one a function, each their own
# buckets, read theirs from the probe table (CONSTS=0).
DD='dd if=/dev/zero of=/dev/null bs=3 count=500'
# The workload: dd's 500 reads of 3 bytes, each returning 3. The syscall's
# exit also sees the one read of kptrace's -c child, on the pipe it waits on
# until the probes are attached (src/run/run.c): entered before, it returns 1
# after; vfs_read's probes, entered before they were attached, do not see it.
H500='"buckets":[{"min":2,"max":3,"count":500}],"count":500,"sum":1500,"min":3,"max":3'
H501='"buckets":[{"min":1,"max":1,"count":1},{"min":2,"max":3,"count":500}],"count":501,"sum":1501,"min":1,"max":3'
HNR='"buckets":[{"min":0,"max":0,"count":501}],"count":501,"sum":0,"min":0,"max":0'
# hist_of FILE [EVENT]: the histogram of a --json line, less its avg
hist_of() {
	grep "\"event\":\"${2:-h}\"" "$1" | tail -n 1 |
		sed -n 's/.*"hist":{\("buckets":\[[^]]*\],"count":[0-9]*,"sum":[0-9-]*,"min":[0-9-]*,"max":[0-9-]*\).*/\1/p'
}
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
	elif [ "$(hist_of $W/hg.json ${HEV:-h})" != "$WANT" ]; then
		bad "$what: the generic path's histogram is not the workload's: '$(hist_of $W/hg.json ${HEV:-h})', want '$WANT' ($(tail -n 2 $W/hg.err))"
	elif cmp -s $W/hg.json $W/hd.json; then
		ok "$what, direct: the generic path's histogram, the workload's ($(echo "$WANT" | sed 's/.*\],//'))"
	else
		bad "$what: direct $(head -c 300 $W/hd.json) $(tail -n 2 $W/hd.err) vs generic $(head -c 300 $W/hg.json) $(tail -n 2 $W/hg.err)"
	fi
}
# The generic path's reference: a filter of two terms (one comparison is
# direct too); a direct histogram filtered by one comparison on every backend
# (each verifier), against the generic path's with that term doubled.
for hd in "p:h vfs_read count=%dx:u64|count" "r:h vfs_read ret=\$retval:s64|ret"; do
	def=${hd%|*}
	field=${hd#*|}
	$KPT hist --json --backend kprobe -c "$DD" "$def if $field != 7777777 && $field != 7777776" $field > $W/hg.json 2> $W/hg.err
	for b in $BACKENDS; do
		WANT=$H500 same_direct "$def" $field --backend $b
	done
	$KPT hist --json --backend kprobe -c "$DD" "$def if $field == 3 && $field == 3" $field > $W/hg.json 2> $W/hg.err
	for b in $BACKENDS; do
		WANT=$H500 same_direct "$def if $field == 3" $field --backend $b
	done
done
# a glob: vfs_read's own histogram is the workload's
def='p:h vfs_read* count=%dx:u64'
$KPT hist --json --backend kprobe -c "$DD" "$def if count != 7777777 && count != 7777776" count > $W/hg.json 2> $W/hg.err
for b in $BACKENDS; do
	HEV=h_vfs_read WANT=$H500 CONSTS=0 same_direct "$def" count --backend $b
done
# Tracepoint fields, read with plain loads of the record's words on both
# kernels (a u64, an s64, an s32 in a word's lower half); then filtered by
# one comparison (sys_exit_read's: the -c child's one read of 1 rejected).
for hd in "t:h syscalls/sys_enter_read count|count|$H500" "t:h syscalls/sys_exit_read ret|ret|$H501" \
	  "t:h syscalls/sys_exit_read __syscall_nr|__syscall_nr|$HNR" \
	  "t:h syscalls/sys_enter_read count if count == 3|count|$H500" \
	  "t:h syscalls/sys_exit_read ret if ret >= 2|ret|$H500"; do
	def=${hd%%|*}
	field=${hd#*|}
	WANT=${field#*|}
	field=${field%%|*}
	case "$def" in
	*" if "*) $KPT hist --json -c "$DD" "$def && ${def#* if }" $field > $W/hg.json 2> $W/hg.err ;;
	*) $KPT hist --json -c "$DD" "$def if $field != 7777777 && $field != 7777776" $field \
		> $W/hg.json 2> $W/hg.err ;;
	esac
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
# what kptrace did not close in half a second its kptrace-detach closes
# after it has returned (6.1's 368 kprobes: one grace period each)
i=0
while cat /proc/[0-9]*/comm 2>/dev/null | grep -qx kptrace-detach && [ $i -lt 1200 ]; do
	i=$((i + 1)); sleep 0.1
done
left=$(grep -c '^tcp_' $T/enabled_functions 2>/dev/null)
if [ $rc = 0 ] && [ "${n:-0}" -ge 100 ] && [ "${left:-0}" = 0 ]; then
	ok "glob 'tcp_*': $(grep '^Attached' $W/glob.err); $(grep -m1 "'tcp_\*'" $W/glob.err | cut -c1-100); nothing left enabled"
else
	bad "glob 'tcp_*': rc=$rc attached '${n}' left ${left}: $(tail -n 4 $W/glob.err)"
fi
$KPT --dry-run 'p:tcp_*' > $W/gd.out 2>&1
m=$(grep -c '^attach: kprobe.multi' $W/gd.out)
echo "# dry-run: $m of $(grep -c '^attach:' $W/gd.out) probes would attach through kprobe.multi"

# A module function's arguments by name, from the module's own BTF, fired:
# a dummy device made now runs dummy_dev_init, its dev with the name given
# and ether_setup()'s MTU, 1500. test.sh loads the module (--module dummy):
# its absence is a failure.
if grep -q ' dummy_dev_init\s*\[dummy\]' /proc/kallsyms; then
	rm -f $W/mod.err
	$KPTBG 'p dummy:dummy_dev_init dev->mtu dev->name:string' > $W/mod.out 2> $W/mod.err &
	KP=$!
	wait_attached $W/mod.err "module BTF"
	ip link add kptd0 type dummy || bad "module BTF: ip link add kptd0 type dummy failed"
	stop $KP
	n=$(grep -c ' p_dummy_dummy_dev_init_0: (dummy_dev_init+0x[0-9a-f]*/0x[0-9a-f]* \[dummy\]) arg1=1500 arg2="kptd0"$' $W/mod.out)
	if [ $RC = 0 ] && [ "$n" = 1 ] && [ "$(grep -c ' p_dummy_dummy_dev_init_0: ' $W/mod.out)" = 1 ]; then
		ok "module BTF: dummy:dummy_dev_init dev->mtu dev->name:string, fired by ip link add: $(grep -m1 ' p_dummy' $W/mod.out | sed 's/.*: (/(/')"
	else
		bad "module BTF: exit $RC, '$(cat $W/mod.out | cut -c1-200)' $(tail -n 3 $W/mod.err)"
	fi
	ip link del kptd0 2>/dev/null
else
	bad "module BTF: the dummy module is not loaded ($(grep -c '\[dummy\]' /proc/kallsyms) symbols of it)"
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

# Start-up without kallsyms (src/prepare/resolve.h): a histogram and a latency of a
# function named plainly never read /proc/kallsyms (~5 MB the kernel formats:
# most of a kprobe run's start-up). So they run where the kernel hides its
# addresses from everyone (kptr_restrict=2: kallsyms lists zeros), which a
# run that reads kallsyms refuses. A stream of them reads it once attached,
# for its symbols: there it says the addresses print in hex, and goes on.
bg_run() {
	rm -f $W/rc.err
	$KPTBG "$@" > $W/rc.out 2> $W/rc.err &
	KP=$!
	wait_attached $W/rc.err "kallsyms hidden: kptrace $*"
	cat /etc/hostname > /dev/null
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
	# one call prints on the title's line ("TITLE count 1, V"), more below it
	if [ $RC = 0 ] && grep -qE '(^|[: ])count [1-9]' $W/rc.out; then
		ok "latency of a function by name, kallsyms hidden: not needed ($(grep -m1 -E '(^|[: ])count' $W/rc.out))"
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
	if [ $rc = 1 ] && grep -q "$pattern" $W/r.err && ! grep -q Attached $W/r.err; then
		ok "$name"
	else
		bad "$name: rc=$rc: $(head -c 300 $W/r.err)"
	fi
}
refuse "a blacklisted function is refused" 'blacklist' 'p notifier_call_chain'
refuse "a missing symbol is refused" 'no symbol' 'p no_such_function_kpt'
refuse "a data symbol is refused" 'not a function' 'p jiffies'
refuse "one bad probe attaches none" 'nothing was left attached' \
	'p:ok1 vfs_read' 'p:bad1 do_sys_openat2+1'

# A malformed definition: refused with the kernel's own message and the
# caret under the column the kernel's error_log puts it, for the same text.
baddef='p do_sys_openat2 x=+0(%si:string'
echo > $T/error_log
if echo "$baddef" >> $T/kprobe_events 2>/dev/null; then
	bad "the kernel takes '$baddef': no reference for its error"
else
	kmsg=$(sed -n 's/.* trace_kprobe: error: //p' $T/error_log | tail -n 1)
	# the caret's column in the command: "  Command: " then the text
	kcol=$(awk '/^  Command: / { getline; print index($0, "^") - 12 }' $T/error_log | tail -n 1)
	$KPT "$baddef" > $W/r.out 2> $W/r.err
	rc=$?
	msg=$(sed -n 's/^kptrace: error: //p' $W/r.err | head -n 1)
	col=$(awk -v d="  $baddef" '$0 == d { getline; print index($0, "^") - 3; exit }' $W/r.err)
	if [ $rc = 1 ] && [ -n "$kcol" ] && [ "$col" = "$kcol" ] && [ "$msg" = "$kmsg" ] &&
	   ! grep -q Attached $W/r.err; then
		ok "a malformed definition: the kernel's message '$kmsg', the caret at its column $kcol"
	else
		bad "a malformed definition: exit $rc, '$msg' at column '$col'; the kernel: '$kmsg' at column '$kcol'"
	fi
fi
echo > $T/error_log

# through BACKEND ERRFILE: kptrace's Attached line says every probe went
# through BACKEND.
through() {
	local a n
	a=$(grep '^Attached' "$2")
	n=$(echo "$a" | sed -n 's/^Attached \([0-9]*\) probe.*/\1/p')
	case $1 in
	kprobe) [ -n "$n" ] && ! echo "$a" | grep -q ' through ' ;;
	fentry) echo "$a" | grep -q "($n through fentry/fexit)" ;;
	kprobe-multi) echo "$a" | grep -q "($n through kprobe.multi)" ;;
	esac
}

# ---- The largest configurations through this kernel's verifier, through
# each mechanism it has: kprobes, fentry/fexit (a trampoline takes a
# function of at most 6 arguments on 6.1: do_sys_openat2 and vfs_read have
# 4), kprobe.multi where the kernel has it. Each must load, attach and count
# exactly what its workload does.
MBACKENDS="kprobe fentry"
grep -q ' register_fprobe_ips$' /proc/kallsyms && MBACKENDS="$MBACKENDS kprobe-multi"

# A stream at its maxima (include/kptrace.h): 128 arguments, 14 nested
# dereferences, a 64-element array, strings. The workload: cat opens
# /etc/hostname once; dfd is AT_FDCWD, -100, 156 as a u8.
args=""
i=1
while [ $i -le 124 ]; do args="$args a$i=%di:u8"; i=$((i + 1)); done
deep='+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(%si)))))))))))))):u8'
want_a=$(i=1; while [ $i -le 124 ]; do printf ' a%d=156' $i; i=$((i + 1)); done)
want_arr=$(printf '/etc/hostname' | od -An -tu1 | tr -s ' ' | sed 's/^ //; s/ *$//; s/ /,/g')
for b in $MBACKENDS; do
	$KPT --backend $b -c 'cat /etc/hostname' \
		"p:max do_sys_openat2$args d=$deep s=+0(%si):string arr=+0(%si):u8[64] sa=+0(%si):string[4]" \
		> $W/max.out 2> $W/max.err
	rc=$?
	n=$(grep -c ' max: (do_sys_openat2' $W/max.out)
	line=$(grep ' max: (do_sys_openat2' $W/max.out | grep ' s="/etc/hostname" ')
	if [ $rc = 0 ] && [ "$n" = 1 ] && echo "$line" | grep -qF "$want_a d=" &&
	   echo "$line" | grep -qF " arr={$want_arr,0," && through $b $W/max.err; then
		ok "a stream at its maxima through $b (128 arguments, 14 nested dereferences, u8[64], string[4]): cat's one open, a1..a124=156, its path"
	else
		bad "a stream at its maxima through $b: rc=$rc, $n events: $(echo "$line" | cut -c1-200) $(head -c 400 $W/max.err)"
	fi
done

# The filter at its maxima (include/kptrace.h): 16 operations in each of its
# two programs (pre: pid, tid, CPU, comm; post: the arguments), 4 different
# strings of 31 bytes in each, nested 8 deep; 33 nodes, all the parser
# holds. Every term is true for dd's reads of /dev/zero, whose dentry is
# named "zero".
s31() { printf '%031d' 0 | tr 0 "$1"; }
G1='[abcdefghijklmnopqrstuvwxyz_]d*'
G2='[abcdefghijklmnopqrstuvwxyz_]e*'
PRE="(pid == 1 || (comm != \"$(s31 b)\" && (pid != 1 && (tid != 1 && (CPU < 4096 && (comm ~ \"$G1\" && (comm != \"$(s31 c)\" && !(comm == \"$(s31 d)\"))))))))"
POST="(count == 7777 || (count != 0 && (count < 4096 && (count >= 3 && (n ~ \"$G2\" && (n != \"$(s31 e)\" && (n != \"$(s31 f)\" && !(n == \"$(s31 g)\"))))))))"
MDEF='vfs_read count n=file->f_path.dentry->d_name.name:string'
# Histograms at theirs: 4096 linear buckets (under- and overflow included),
# and 4 keys; latencies with keys of 4 words and with 4 counters (software
# ones: TCG has no PMU). Each through every mechanism: dd's 500 reads of 3 bytes.
for b in $MBACKENDS; do
	$KPT hist --json --backend $b --linear 0,4094,1 -c "$DD" "p:h $MDEF if $PRE && $POST" count \
		> $W/mh.json 2> $W/mh.err
	rc=$?
	if [ $rc = 0 ] && through $b $W/mh.err &&
	   [ "$(hist_of $W/mh.json)" = '"buckets":[{"min":3,"max":3,"count":500}],"count":500,"sum":1500,"min":3,"max":3' ]; then
		ok "hist at its maxima through $b (4096 linear buckets, the filter's 33 nodes): dd's 500 reads of 3 bytes"
	else
		bad "hist at its maxima through $b: exit $rc: $(head -c 300 $W/mh.json) $(grep -e error -e '^Attached' $W/mh.err | head -c 300)"
	fi
	$KPT hist --json --backend $b --linear 0,4094,1 --by pid,tid,cpu,count -c "$DD" \
		"p:h $MDEF if $PRE && $POST" count > $W/mk.json 2> $W/mk.err
	rc=$?
	# one key per CPU dd ran on: its pid, tid and count are dd's
	keys=$(grep -c '"key":{"pid":"\([0-9]*\)","tid":"\1","cpu":"[0-9]*","count":"3"},"hist":{"buckets":\[{"min":3,"max":3,"count":[0-9]*}\]' $W/mk.json)
	n=$(sed -n 's/.*"hist":{"buckets":\[[^]]*\],"count":\([0-9]*\),.*/\1/p' $W/mk.json | awk '{ n += $1 } END { print n + 0 }')
	if [ $rc = 0 ] && through $b $W/mk.err && [ "$n" = 500 ] && [ "$keys" -ge 1 ] &&
	   [ "$keys" = "$(grep -c '"key":' $W/mk.json)" ]; then
		ok "keyed hist at its maxima through $b (4 keys, 4096 buckets, the filter's maxima): 500 reads of 3 bytes under $keys keys"
	else
		bad "keyed hist at its maxima through $b: exit $rc, $n events, $keys keys: $(head -c 300 $W/mk.json) $(grep -e error -e '^Attached' $W/mk.err | head -c 300)"
	fi
	# latency: --pmu does not combine with --by, so one run with each; its
	# keys cannot be an entry argument: comm, pid and tid fill the 4 words
	$KPT latency --json --backend $b --by comm,pid,tid -c "$DD" "$MDEF if $PRE && $POST" \
		> $W/ml.json 2> $W/ml.err
	rc=$?
	n=$(sed -n 's/^{[^{]*"type":"latency","key":{[^}]*},"hist":{"buckets":\[[^]]*\],"count":\([0-9]*\),.*/\1/p' $W/ml.json |
		awk '{ n += $1 } END { print n + 0 }')
	if [ $rc = 0 ] && through $b $W/ml.err && [ "$n" = 500 ]; then
		ok "keyed latency at its maxima through $b (4 words of keys, the filter's maxima): 500 calls under $(grep -c '"key":' $W/ml.json) keys"
	else
		bad "keyed latency at its maxima through $b: exit $rc, $n calls: $(head -c 300 $W/ml.json) $(grep -e error -e '^Attached' $W/ml.err | head -c 300)"
	fi
	$KPT latency --json --backend $b --pmu context-switches,cpu-clock,task-clock,page-faults \
		-c "$DD" "$MDEF if $PRE && $POST" > $W/mp.json 2> $W/mp.err
	rc=$?
	n=$(sed -n 's/^{[^{]*"type":"latency","hist":{"buckets":\[[^]]*\],"count":\([0-9]*\),.*/\1/p' $W/mp.json)
	# each counter: the calls it counted and those it left out, all 500
	left=$(sed -n 's/.*"pmu_left_out":{"migrated":\([0-9]*\),"multiplexed":\([0-9]*\),"failed":\([0-9]*\)}.*/\1 \2 \3/p' $W/mp.json |
		awk '{ print $1 + $2 + $3 }')
	pmu=$(grep -o '"event":"[a-z-]*","unit":[a-z"]*,"hist":{"buckets":\[[^]]*\],"count":[0-9]*' $W/mp.json |
		sed 's/"event":"\([a-z-]*\)".*"count":\([0-9]*\)$/\1=\2/' | tr '\n' ' ')
	npmu=$(echo "$pmu" | awk -v l="${left:-x}" '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[2] + l == 500) k++ } } END { print k + 0 }')
	if [ $rc = 0 ] && through $b $W/mp.err && [ "$n" = 500 ] && [ "$npmu" = 4 ]; then
		ok "latency --pmu at its maxima through $b (4 counters, the filter's maxima): 500 calls, each counter's $pmu+ $left left out"
	else
		bad "latency --pmu at its maxima through $b: exit $rc, $n calls, counters '$pmu', $left left out: $(head -c 200 $W/mp.json) $(grep -e error -e '^Attached' $W/mp.err | head -c 300)"
	fi
done
# The control: the same filter with one term false for every read drops
# them all (each counted FILTERED), so the runs above did filter.
NOPOST=$(echo "$POST" | sed 's/count >= 3/count >= 4/')
$KPT hist --json --backend kprobe --linear 0,4094,1 -c "$DD" "p:h $MDEF if $PRE && $NOPOST" count \
	> $W/mn.json 2> $W/mn.err
rc=$?
if [ $rc = 0 ] && grep -q '"hist":{"buckets":\[\],"count":0,' $W/mn.json &&
   grep -q '"group":"kprobes","event":"h","hits":500,"misses":[^,]*,"drops":0,"faults":0,"filtered":500,' $W/mn.err; then
	ok "the filter at its maxima with one term false: all 500 reads filtered out"
else
	bad "the filter at its maxima with one term false: exit $rc: $(head -c 200 $W/mn.json) $(grep -o '"probes":[^]]*' $W/mn.err)"
fi

# ---- kptrace list (src/cmd/list.c) and latency --pmu (src/load/pmu.c) ----
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
$KPTBG latency --json --comm busybox --pmu context-switches,cpu-clock -o $W/pmu.json hrtimer_nanosleep \
	> /dev/null 2> $W/pmu.err &
KP=$!
wait_attached $W/pmu.err "latency --pmu"
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

# Issue 37: fexit on a function the kernel's own kretprobe also holds, both
# at once on one dd. The kretprobe leaves its trampoline as the function's
# return address: fexit read it and printed "[unknown/kretprobe'd]" where
# the kernel's event, registered first, prints the caller.
echo 'r:kpt/vfsret vfs_read ret=$retval:s64' > $T/kprobe_events
mkdir $I
echo 'comm == "dd"' > $I/events/kpt/vfsret/filter
echo 1 > $I/events/kpt/enable
echo 1 > $I/tracing_on
rm -f $W/kr.err
$KPTBG --backend fentry --comm dd 'r:kpt/vfsret vfs_read ret=$retval:s64' > $W/kr.out 2> $W/kr.err &
KP=$!
if wait_attached $W/kr.err "kptrace --backend fentry r:vfs_read under the kernel's kretprobe"; then
	dd if=/etc/passwd of=/dev/null bs=64 2>/dev/null
	stop $KP
	echo 0 > $I/tracing_on
	grep -v '^#' $I/trace | norm | sort > $W/kr.ref
	norm < $W/kr.out | sort > $W/kr.got
	if [ $RC = 0 ] && grep -q 'through fentry/fexit' $W/kr.err && [ -s $W/kr.got ] &&
	   cmp -s $W/kr.ref $W/kr.got; then
		ok "fexit under the kernel's kretprobe on vfs_read: $(wc -l < $W/kr.got) lines equal its ($(head -n 1 $W/kr.got | cut -c1-80))"
	else
		bad "fexit under the kernel's kretprobe on vfs_read (exit $RC, $(grep '^Attached' $W/kr.err)): $(diff $W/kr.ref $W/kr.got | head -n 6 | tr '\n' '|' | cut -c1-400)"
	fi
fi
echo 0 > $I/events/enable
rmdir $I
echo > $T/kprobe_events


# Issue 37: two globs matching one function, path_lookupat, attach it once
# and count it once: as many as the kernel's own kretprobe on it counts at
# the same time in one process (ls -l's stats), held on a fifo until both
# are on.
rm -f $W/go $W/ready; mkfifo $W/go
sh -c ": > $W/ready; read x < $W/go; exec ls -l /etc /bin" > /dev/null &
P=$!
# its start-up's lookups before either tracer: it is at the fifo
i=0
while [ ! -e $W/ready ] && [ $i -lt 100 ]; do i=$((i + 1)); sleep 0.1; done
sleep 0.5
echo 'r:kpt/pl path_lookupat' > $T/kprobe_events
mkdir $I
echo "common_pid == $P" > $I/events/kpt/pl/filter
echo 1 > $I/events/kpt/enable
echo 1 > $I/tracing_on
rm -f $W/ov.err
$KPTBG count --by probe -p $P 'r:path_lookupa*' 'r:*_lookupat' > $W/ov.out 2> $W/ov.err &
KP=$!
if wait_attached $W/ov.err "kptrace count 'r:path_lookupa*' 'r:*_lookupat'"; then
	echo go > $W/go
	wait $P
	stop $KP
	echo 0 > $I/tracing_on
	want=$(grep -c ' pl: ' $I/trace)
	got=$(sed -n 's/^ *\([0-9][0-9]*\)  *kprobes\/r_path_lookupat_0$/\1/p' $W/ov.out)
	if [ $RC = 0 ] && [ "$want" -gt 0 ] && [ "$got" = "$want" ] &&
	   grep -q 'r_path_lookupat_0: defined by definition 1 and definition 2 alike: traced once' $W/ov.err; then
		ok "count 'r:path_lookupa*' 'r:*_lookupat': path_lookupat once, $got returns, as the kernel's kretprobe counts"
	else
		bad "count 'r:path_lookupa*' 'r:*_lookupat': got '$got', the kernel's $want (exit $RC): $(grep -v '^ *$' $W/ov.err | head -n 4 | tr '\n' '|' | cut -c1-300) $(tr '\n' '|' < $W/ov.out | cut -c1-200)"
	fi
else
	echo go > $W/go
fi
echo 0 > $I/events/enable
rmdir $I
echo > $T/kprobe_events

dmesg_check
echo "# done"
