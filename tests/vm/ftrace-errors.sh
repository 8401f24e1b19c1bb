#!/bin/sh
# Guest script (busybox sh): kptrace against the kernel's own probe event
# parser. The definitions of the kernel's ftrace selftests (test.d/kprobe
# and test.d/dynevent: the syntax errors, argument syntax, probe points,
# multiprobe events, non-unique symbols, %pd/%pD) are each written to this
# kernel's kprobe_events, dynamic_events or uprobe_events and given to
# kptrace. Both must accept it, or both refuse it with the same text (the
# kernel's first; kptrace's explanation may follow) and the caret in the
# same column (error_log's). Prints "ok - ..." / "FAIL - ..." / "skip - ...".
#
# kptrace gives the current kernel's texts (6.12's table). Where an older
# kernel's table words a refusal differently (6.1), the pairs in $W/equiv
# say which older text stands for which current one; a case a kernel cannot
# judge (a feature it lacks: fprobes, BTF arguments and %pd/%pD before 6.5,
# all of which kptrace has on any kernel with BTF) is skipped there.
T=/sys/kernel/tracing
KPT="timeout -s KILL 120 /bin/kptrace"
W=/tmp/fe
mkdir -p $W
KREL=$(uname -r)
echo "# kernel $KREL"

ok() { echo "ok - $KREL: $*"; }
bad() { echo "FAIL - $KREL: $*"; }

# What this kernel's probe events take, from its README.
feat() {
	case $1 in
	btf) grep -q '<argname>' $T/README ;;
	fp) grep -qF 'f[:[<group>/][<event>]] <func-name>' $T/README ;;
	vfs) grep -qF '%pd/%pD' $T/README ;;
	mp) grep -qF 'Create/append/' $T/README ;;
	refctr) grep -qF '(ref_ctr_offset)' $T/README ;;
	ret) grep -qF '%return' $T/README ;;
	# an event name left out after its group, as the kernel answers it
	gev) printf 'p:kptfe/ vfs_read' > $T/kprobe_events 2>/dev/null; local r=$?
		echo > $T/kprobe_events; return $r ;;
	# the refusal of a symbol several functions have (name_show)
	uniq) ! printf 'p:kptfe/u name_show' > $T/kprobe_events 2>/dev/null; local r=$?
		echo > $T/kprobe_events; return $r ;;
	# the boundary check is ftrace's: a kprobe at vfs_read must be on it
	insn) echo 'p:kptfe/insn vfs_read' > $T/kprobe_events &&
		grep -q FTRACE /sys/kernel/debug/kprobes/list; local r=$?
		echo > $T/kprobe_events; return $r ;;
	*) return 0 ;;
	esac
}

# Older texts of the same refusals (6.1's table, or a class 6.1 reports
# for lack of the feature), each with the text kptrace gives: KERNEL|KPTRACE.
cat > $W/equiv <<'EOF'
Maxactive is not for kprobe|Maxactive is only for function exit
Invalid argument number|This variable is not found at this probe point
Invalid $-variable specified|$arg* can be used only on function entry or exit
Invalid $-valiable specified|Invalid $-variable specified
EOF

# The kernel's own probe points: what the selftests compute.
FORK=kernel_clone
grep -q ' [tT] kernel_clone$' /proc/kallsyms || FORK=_do_fork
SYM=_sdata
grep -qw $SYM /proc/kallsyms || SYM=vfs_read
SYMADDR=0x$(grep -m1 -w $SYM /proc/kallsyms | cut -f1 -d' ')
# probepoint.tc: the function's neighbours in kallsyms, as offsets
set -- $(grep -A1 -B1 tracefs_create_dir /proc/kallsyms | cut -f1 -d' ')
dec() { printf '%d' "0x$(echo $1 | tail -c 8)"; }
PP_TARGET=0x$2
PP_PREV=$(($(dec $1) - $(dec $2)))
PP_NEXT=+$(($(dec $3) - $(dec $2)))
PP_OVERFLOW=+$(printf '0x%x' $PP_PREV)
# ... and the next function's own start, past its __pfx_ padding (the
# issue's +80 on 6.12, +64 on 6.1): in the next function, as the kernel takes it
PP_NEXTFN=+$(($(dec $(awk '$3 == "tracefs_create_dir" { f = 1; next }
	f && $3 !~ /^__pfx_/ { print $1; exit }' /proc/kallsyms)) - $(dec $2)))
echo "# probepoint: tracefs_create_dir at $PP_TARGET, next symbol $PP_NEXT, next function $PP_NEXTFN, previous $PP_PREV"
VFS3=$(printf '0x%x' $((0x$(grep -m1 ' [tT] vfs_read$' /proc/kallsyms | cut -f1 -d' ') + 3)))
# a function the kprobe blacklist lists, unique in kallsyms
BLACK=
for f in $(sed -n 's/^[^ \t]*[ \t]*\([a-z_][a-z0-9_]*\)$/\1/p' /sys/kernel/debug/kprobes/blacklist | head -n 200); do
	[ "$(grep -c " [tT] $f\$" /proc/kallsyms)" = 1 ] && BLACK=$f && break
done
echo "# blacklisted: $BLACK"
SH=/bin/busybox

# One case a line: TAGS then the definitions, " ;; " between them. The
# last is judged; those before it are set up first (both must take them).
# TAGS: k, f or u (kprobe_events, dynamic_events, uprobe_events), then
# features it needs (feat), comma-separated.
cat > $W/cases.in <<'EOF'
k p100 vfs_read
k r1a111 vfs_read
k r100000 vfs_read
k p non_exist_func
k p hoge-fuga
k p hoge+1000-1000
k r vfs_read+10
k p:/bar vfs_read
k p:12345678901234567890123456789012345678901234567890123456789012345/bar vfs_read
k p:foo.1/bar vfs_read
k p: vfs_read
k p:foo/12345678901234567890123456789012345678901234567890123456789012345 vfs_read
k p:foo/bar.1 vfs_read
k p vfs_read $retval
k p vfs_read $stack10000
k p vfs_read $arg10000
k p vfs_read $none_var
k p vfs_read %none_reg
k p vfs_read @12345678abcde
k p vfs_read @+10
k p vfs_read arg1=\x
k p vfs_read arg1=\"abcd
k p vfs_read +0@0)
k p vfs_read +0ab1(@0)
k p vfs_read +0(+0(@0)
k p vfs_read +0($comm)
k p vfs_read &1
k p vfs_read +0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(@0))))))))))))))
k p vfs_read +0(@11):u8[10
k p vfs_read +0(@11):u8[10]a
k p vfs_read +0(@11):u8[10a]
k p vfs_read +0(@11):u8[256]
k p vfs_read @11:unknown_type
k p vfs_read $stack0:string
k p vfs_read @11:b10@a/16
k p vfs_read arg123456789012345678901234567890=@11
k p vfs_read =@11
k p vfs_read var.1=@11
k p vfs_read var1=@11 var1=@12
k p vfs_read +1234567(+1234567(+1234567(+1234567(+1234567(+1234567(@1234))))))
k p vfs_read arg1=
k,insn p vfs_read ;; p vfs_read+3
k,insn p @VFS3@
k p vfs_read%hoge
k,ret p vfs_read+10%return
k,mp p:kprobes/testevent @FORK@ ;; r:kprobes/testevent do_exit
k,mp p:kprobes/testevent @FORK@ abcd=\1 ;; p:kprobes/testevent @FORK@ bcd=\1
k,mp p:kprobes/testevent @FORK@ abcd=\1 ;; p:kprobes/testevent @FORK@ abcd=\1:u8
k,mp p:kprobes/testevent @FORK@ abcd=\1 ;; p:kprobes/testevent @FORK@ abcd=\"foo"
k,mp p:kprobes/testevent @FORK@ abcd=\1 ;; p:kprobes/testevent @FORK@ abcd=\1
k,mp p:kprobes/testevent @FORK@ ;; p:kprobes/testevent do_exit
k,mp p:kprobes/testevent @FORK@ ;; p:kprobes/testevent do_exit ;; p:kprobes/testevent @FORK@ $stack
k,mp p:kprobes/testevent @FORK@ a=%di:u32 ;; p:kprobes/testevent do_exit a=%si:u32
k,btf p vfs_read args=$arg*
k,btf p vfs_read +0($arg*)
k,btf p vfs_read $arg* $arg*
k,btf p vfs_read+20 $arg*
k,btf p vfs_read hoge
k,btf p kfree $arg10
k,btf p schedule $arg10000
k,btf p schedule $arg1
k,btf r kfree $retval
k,btf p vfs_read file->f_mode count
k,btf p vfs_read file->hoge
k,btf p vfs_read file-.foo
k,btf p vfs_read file:string
k,btf p vfs_read file.f_mode
k,btf p vfs_read count->x
k,btf r vfs_read $arg*
k,btf r vfs_read $retval->x
k,gev p:foo/ vfs_read
k p nosuchmod:vfs_read
k p vfs_read %ax
k p vfs_read %ex
k p vfs_read @@SYM@
k p vfs_read @@SYMADDR@
k p vfs_read @@SYM@+10
k p vfs_read @@SYM@-10
k p vfs_read @
k p vfs_read @deaqswdefr
k p vfs_read @@SYM@*10
k p vfs_read @@SYM@/10
k p vfs_read @@SYM@%10
k p vfs_read @@SYM@&10
k p vfs_read @@SYM@|10
k p vfs_read $stack
k p vfs_read $stack0
k p vfs_read $stack1
k p vfs_read $stackp
k p vfs_read $stack0+10
k p vfs_read $stack1-10
k r vfs_read $retval
k p vfs_read $comm
k p vfs_read +0(%ax)
k p vfs_read -0(%ax)
k p vfs_read +10($stack)
k p vfs_read +0($stack1)
k p vfs_read +10(@@SYM@-10)
k p vfs_read +0(+10(+20($stack)))
k p vfs_read +(%ax)
k p vfs_read (%ax+10)
k p vfs_read -(%ax)
k p vfs_read (%ax)
k p vfs_read +10($comm)
k p vfs_read +0(%ax)+10
k p vfs_read varname=%ax
k,btf p vfs_read varname=varname2=%ax
k p vfs_read %ax:x16
k p vfs_read %ax::x16
k p vfs_read %ax:y16
k p vfs_read $comm:string
k p vfs_read +0($stack):string
k p vfs_read $comm:x64
k p vfs_read $stack:string
k p vfs_read %ax:string
k p vfs_read \"hoge":u32
k p:testprobe tracefs_create_dir
k p:testprobe @PP_TARGET@
k p:testprobe tracefs_create_dir@PP_NEXT@
k p:testprobe tracefs_create_dir@PP_NEXTFN@
k p:testprobe tracefs_create_dir@PP_PREV@
k p:testprobe tracefs_create_dir@PP_OVERFLOW@
k,uniq p:test_non_unique name_show
k p jiffies
k p @BLACK@
k,vfs p:testprobe dput name=$arg1:%pd
k,vfs p:testprobe dput $arg1:%pd
k,vfs p:testprobe vfs_read name=$arg1:%pD
k,vfs p:testprobe vfs_read $arg1:%pD
k,vfs p:testprobe vfs_read name=$arg1:%pdx
f,fp f100 vfs_read
f,fp f non_exist_func
f,fp f vfs_read+10
f,fp f:/bar vfs_read
f,fp f:foo.1/bar vfs_read
f,fp f: vfs_read
f,fp f:foo/bar.1 vfs_read
f,fp f vfs_read $stack10000
f,fp f vfs_read $arg10000
f,fp f vfs_read $retval $arg1
f,fp f vfs_read $none_var
f,fp f vfs_read %ax
f,fp f vfs_read @12345678abcde
f,fp f vfs_read @+10
f,fp f vfs_read arg1=\x
f,fp f vfs_read arg1=\"abcd
f,fp f vfs_read +0@0)
f,fp f vfs_read +0ab1(@0)
f,fp f vfs_read +0(+0(@0)
f,fp f vfs_read +0($comm)
f,fp f vfs_read &1
f,fp f vfs_read +0(@11):u8[10
f,fp f vfs_read @11:unknown_type
f,fp f vfs_read $stack0:string
f,fp f vfs_read var1=@11 var1=@12
f,fp f vfs_read arg1=
f,fp,mp f:fprobes/testevent @FORK@ ;; f:fprobes/testevent do_exit%return
f,fp,mp f:fprobes/testevent @FORK@ abcd=\1 ;; f:fprobes/testevent @FORK@ bcd=\1
f,fp,mp f:fprobes/testevent @FORK@ abcd=\1 ;; f:fprobes/testevent @FORK@ abcd=\1
f,fp f vfs_read%hoge
f,fp,btf f vfs_read args=$arg*
f,fp,btf f vfs_read $arg* $arg*
f,fp,btf f vfs_read hoge
f,fp,btf f kfree $arg10
f,fp,btf f kfree%return $retval
f,fp,btf f vfs_read%return $retval->foo
f,fp,btf f vfs_read file->foo
f,fp,btf f vfs_read file-.foo
f,fp,btf f vfs_read file:string
f,fp,vfs f:testprobe dput name=$arg1:%pd
f,fp,vfs f:testprobe vfs_read $arg1:%pD
u p /non_exist_file:100
u p /sys:100
u p @SH@:10a
u p @SH@:10(1a)
u p @SH@:10(10
u p @SH@:10(10)a
u p @SH@:10 @+ab
u p @SH@:10 @symbol
u p @SH@:10%hoge
EOF
sed -e "s|@FORK@|$FORK|g" -e "s|@SYM@|$SYM|g" -e "s|@SYMADDR@|$SYMADDR|g" \
    -e "s|@PP_TARGET@|$PP_TARGET|g" -e "s|@PP_NEXT@|$PP_NEXT|g" -e "s|@PP_PREV@|$PP_PREV|g" \
    -e "s|@PP_OVERFLOW@|$PP_OVERFLOW|g" -e "s|@PP_NEXTFN@|$PP_NEXTFN|g" -e "s|@VFS3@|$VFS3|g" -e "s|@BLACK@|$BLACK|g" \
    -e "s|@SH@|$SH|g" $W/cases.in > $W/cases
# the checks: the cases whose features this kernel has (gev and uniq are
# judged on any: older()), and the three after them
have=,gev,uniq,
for f in btf fp vfs mp refctr ret insn; do feat $f && have="$have$f,"; done
n=$(awk -v have="$have" '{ k = split($1, t, ","); for (i = 2; i <= k; i++)
	if (!index(have, "," t[i] ",")) next; c++ } END { print c + 0 }' $W/cases)
feat mp && n=$((n + 1))
echo "# expect $((n + 2)) ok"

clear_events() {
	echo > $T/kprobe_events
	echo > $T/dynamic_events
	echo > $T/uprobe_events
}

# The kernel's verdict on the definitions in $W/defs (one a line; all but
# the last set up first): KRC 0 or 1, KMSG and KCOL from error_log's last
# entry (empty and -1 when it logged nothing).
kernel_verdict() {
	local file=$1 n i=0 def
	clear_events
	n=$(wc -l < $W/defs)
	KRC=0 KMSG= KCOL=-1
	while IFS= read -r def; do
		i=$((i + 1))
		[ $i = $n ] && echo > $T/error_log
		if ! printf '%s' "$def" >> $T/$file 2>/dev/null; then
			[ $i = $n ] || { KRC=2; KMSG="setup refused: $def"; return; }
			KRC=1
		fi
	done < $W/defs
	clear_events
	# tracefs files have no size: read it
	[ $KRC = 1 ] && grep -q . $T/error_log || return
	# "[ ts] trace_kprobe: error: MSG" / "  Command: CMD" / "  ...^"
	KMSG=$(tail -n 3 $T/error_log | sed -n '1s/^\[[^]]*\] [a-z_]*: error: //p')
	KCOL=$(($(tail -n 1 $T/error_log | wc -c) - 13))
}

# kptrace's verdict: PRC, PMSG and PCOL from its first "error:" and caret.
kptrace_verdict() {
	# the definitions as separate words, whatever they hold
	set --
	while IFS= read -r def; do set -- "$@" "$def"; done < $W/defs
	timeout 60 $KPT -c true "$@" > $W/out 2> $W/err
	PRC=$?
	PMSG=$(sed -n 's/^kptrace: error: //p' $W/err | head -n 1)
	PCOL=$(awk '/^kptrace: error: / && !n { n = NR } n && NR == n + 2 { print length($0) - 3; exit }' $W/err)
	[ -n "$PCOL" ] || PCOL=-1
}

# kptrace's text is the kernel's, or the current one of an older text.
same_text() {
	case $PMSG in "$KMSG"*) return 0 ;; esac
	while IFS='|' read -r old new; do
		[ "$KMSG" = "$old" ] && case $PMSG in "$new"*) return 0 ;; esac
	done < $W/equiv
	return 1
}

# older FEAT WHAT FILE: a case an older kernel answers otherwise, as it
# answers it (feat's probe), where kptrace answers as current kernels do:
# the kernel's answer must be the older one and kptrace's the current one.
# Returns 1 for a FEAT that is not such a behaviour.
older() {
	local lacks kwant ptext
	case $1 in
	gev) lacks="refuses an event name left out after its group (later kernels name the event after its probe point)"
	     kwant=1 ptext= ;;
	uniq) lacks="takes a symbol several functions have (later kernels refuse it: which is meant is not said)"
	      kwant=0 ptext='The symbol is not unique' ;;
	*) return 1 ;;
	esac
	kernel_verdict $3
	kptrace_verdict
	if [ $KRC = $kwant ] && { { [ -z "$ptext" ] && [ $PRC = 0 ] && grep -q '^Attached' $W/err; } ||
		{ [ -n "$ptext" ] && [ $PRC = 1 ] && [ "${PMSG#"$ptext"}" != "$PMSG" ]; }; }; then
		ok "$2: version-gated: this kernel $lacks; kptrace answers as they do: ${ptext:-takes it}"
	else
		bad "$2: this kernel $lacks (its answer: exit $KRC, '$KMSG'); kptrace: exit $PRC, '$PMSG', want ${ptext:-taken}"
	fi
}

judge() {
	local tags=$1 what=$2 file f
	case $tags in
	k*) file=kprobe_events ;;
	f*) file=dynamic_events ;;
	u*) file=uprobe_events ;;
	esac
	for f in $(echo "${tags#?}" | tr ',' ' '); do
		if ! feat $f; then
			older $f "$what" $file ||
				echo "skip - $KREL: $what: this kernel's probe events lack '$f'"
			return
		fi
	done
	kernel_verdict $file
	kptrace_verdict
	if [ $KRC = 2 ]; then
		bad "$what: the kernel refused the setup ($KMSG)"
	elif [ $KRC = 0 ] && [ $PRC = 0 ] && grep -q '^Attached' $W/err; then
		ok "$what: both accept it"
	elif [ $KRC = 0 ]; then
		bad "$what: the kernel accepts it, kptrace (exit $PRC): $(grep -v '^Attach' $W/err | head -n 3 | tr '\n' ' ')"
	elif [ $PRC != 1 ]; then
		bad "$what: the kernel refuses it ($KMSG at $KCOL), kptrace exit $PRC: $(head -n 3 $W/err | tr '\n' ' ')"
	elif [ -z "$KMSG" ]; then
		ok "$what: both refuse it (the kernel logs no reason; kptrace: $PMSG)"
	elif same_text && [ "$PCOL" = "$KCOL" ]; then
		ok "$what: both refuse it: $KMSG, at $KCOL"
	else
		bad "$what: kernel: '$KMSG' at $KCOL; kptrace: '$PMSG' at $PCOL"
	fi
}

n=0
while IFS= read -r line; do
	tags=${line%% *}
	rest=${line#* }
	echo "$rest" | sed 's/ ;; /\n/g' > $W/defs
	judge "$tags" "$(echo "$rest" | sed 's/ ;; / then /g')" < /dev/null
	n=$((n + 1))
done < $W/cases
echo "# $n cases"

# A multiprobe event's lines: one event name, each probe point's own line,
# as the kernel's trace shows them (kprobe_multiprobe.tc). Both tracers at
# once on one workload, compared from the pid on.
norm() {
	sed -n 's/^ *\(dd\)-\([0-9][0-9]*\) *\[[0-9]*\] [^ ]* *[0-9.]*: \(.*\)$/\2 \3/p' | sort
}
I=$T/instances/kptfe
two_tracers() { # definitions...
	clear_events
	for d in "$@"; do
		case $d in f*) printf '%s\n' "$d" >> $T/dynamic_events ;;
		*) printf '%s\n' "$d" >> $T/kprobe_events ;; esac
	done
	mkdir $I
	echo 1 > $I/events/kpt/enable
	echo 1 > $I/tracing_on
	rm -f $W/kpt.err
	$KPT "$@" > $W/kpt.out 2> $W/kpt.err &
	KP=$!
	i=0
	while ! grep -q '^Attached' $W/kpt.err 2>/dev/null && [ $i -lt 600 ] && kill -0 $KP 2>/dev/null; do
		i=$((i + 1)); sleep 0.1
	done
	# dd: its reads are read(2)s (busybox cat's are sendfile(2)s)
	dd if=/etc/hostname of=/dev/null bs=64 2>/dev/null
	dd if=/etc/passwd of=/dev/null bs=64 2>/dev/null
	sleep 0.3
	kill -INT $KP
	i=0
	while kill -0 $KP 2>/dev/null && [ $i -lt 200 ]; do i=$((i + 1)); sleep 0.1; done
	kill -KILL $KP 2>/dev/null
	wait $KP
	echo 0 > $I/tracing_on
	norm < $I/trace > $W/ref
	echo 0 > $I/events/kpt/enable
	rmdir $I
	clear_events
	norm < $W/kpt.out > $W/got
}

if feat mp; then
	two_tracers 'p:kpt/multi do_sys_openat2 a=%di:s32' 'p:kpt/multi ksys_read a=%di:s32'
	if [ -s $W/ref ] && diff $W/ref $W/got > $W/diff &&
	   grep -q 'multi: (do_sys_openat2+' $W/got && grep -q 'multi: (ksys_read+' $W/got; then
		ok "one event, two probe points: $(wc -l < $W/got) lines equal the kernel's ($(head -n 1 $W/got | cut -c1-80))"
	else
		bad "one event, two probe points: differs from the kernel's ($(wc -l < $W/ref) lines, kptrace $(wc -l < $W/got)):"
		head -n 12 $W/diff | cut -c1-200 | sed 's/^/#   /'
	fi
fi

# A glob leaves out the names several functions have, which kprobe_events
# refuses by name (name_show: the kernel's own test of it), and says so.
$KPT --dry-run 'p name_*' > $W/glob.out 2> $W/glob.err
if grep -q 'skipped: names several functions have' $W/glob.err &&
   ! grep -q '^kprobes/p_name_show_0:' $W/glob.out && grep -q '^kprobes/p_name_' $W/glob.out; then
	ok "a glob leaves name_show out: $(grep "'name_\\*'" $W/glob.err | cut -c1-150)"
else
	bad "a glob and name_show: $(head -c 300 $W/glob.err) $(grep -c '^kprobes/' $W/glob.out) probes"
fi

# %pd/%pD (kprobe_args_vfs.tc): the kernel's lines where it has them; on
# older kernels, the name the workload opened (kptrace's from BTF).
VFSDEFS='p:kpt/vfsr vfs_read name=$arg1:%pD'
if feat vfs; then
	two_tracers "$VFSDEFS" 'p:kpt/vfsd dput $arg1:%pd'
	if grep -q 'vfsr: .* name="hostname"' $W/ref && diff $W/ref $W/got > $W/diff; then
		ok "%pd/%pD: $(wc -l < $W/got) lines equal the kernel's ($(grep -m1 'name="hostname"' $W/got | cut -c1-80))"
	else
		bad "%pd/%pD: differs from the kernel's ($(wc -l < $W/ref) lines, kptrace $(wc -l < $W/got)):"
		head -n 12 $W/diff | cut -c1-200 | sed 's/^/#   /'
	fi
else
	$KPT -c 'dd if=/etc/hostname of=/dev/null bs=64' "$VFSDEFS" > $W/vfs.out 2> $W/vfs.err
	if grep -q '^ *dd-[0-9]* .* vfsr: (vfs_read+0x[0-9a-f]*/0x[0-9a-f]*) name="hostname"$' $W/vfs.out; then
		ok "%pD from BTF where the kernel has none: $(grep -m1 'name="hostname"' $W/vfs.out | sed 's/.*: (//' | cut -c1-80)"
	else
		bad "%pD: $(head -n 3 $W/vfs.out) $(tail -n 3 $W/vfs.err)"
	fi
fi
