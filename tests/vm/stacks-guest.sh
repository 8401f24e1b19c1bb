#!/bin/sh
# Guest script (busybox sh) for issue 18: kptrace -K's kernel stacks against
# the kernel's own. For one marker read (dd reading 777 bytes of a 1000-byte
# file), kptrace -K prints a stack after its p:vfs_read and r:vfs_read events,
# through each backend this kernel has, while the kernel's stacktrace trigger
# on the same kprobe events records its own; both are compared frame by
# frame, by function name. Prints "# expect N ok" first, then "ok - ..." /
# "FAIL - ...".
T=/sys/kernel/tracing
W=/tmp/kpt-stk
mkdir -p $W
KREL=$(uname -r)
echo "# kernel $KREL"
. /guest-lib.sh || { echo "FAIL - $KREL: no /guest-lib.sh (tests/vm/test.sh adds it)"; exit 1; }
ok() { echo "ok - $KREL: $*"; }
bad() { echo "FAIL - $KREL: $*"; }
# every kptrace run is bounded: a hung one is killed (exit 137), named
KPT="timeout -s KILL 120 /bin/kptrace"

if ! /bin/kptrace --help 2>&1 | grep -qE '^ *-K,'; then
	bad "kptrace has no -K (kernel stacks): $(/bin/kptrace --help 2>&1 | head -n 1)"
	exit 1
fi

BACKENDS="kprobe fentry"
grep -q ' register_fprobe_ips$' /proc/kallsyms && BACKENDS="$BACKENDS kprobe-multi"
# four checks (-K on p: and r:, count and latency --by kstack) per backend:
# kprobe and fentry; 6.12 has kprobe.multi too (CONFIG_FPROBE), 6.1
# (Debian's) has not; fentry without its helpers one gated line; and one
# of profile
n=1
for b in $BACKENDS; do n=$((n + 4)); done
fentry_helpers || n=$((n - 3))
echo "# expect $n ok"

# The marker: the only read of 777 bytes, by a dd that kptrace -c starts
# (its pid names the same call on both sides).
head -c 1000 /dev/zero | tr '\0' x > $W/mark
WORK="dd if=$W/mark of=/dev/null bs=777 count=1"

# The reference: the kernel's kprobe events on the same function, their
# stacktrace trigger filtered to the marker (the event too, so its line names
# the pid and the event before each stack).
cleanup() {
	for e in ref_p ref_r; do
		[ -d $T/events/kpt_stk/$e ] || continue
		echo 0 > $T/events/kpt_stk/$e/enable
		# a trigger is removed by its command alone, whatever its filter
		echo '!stacktrace' > $T/events/kpt_stk/$e/trigger 2>/dev/null
		echo "-:kpt_stk/$e" >> $T/kprobe_events
	done
}
cleanup
if ! echo 'p:kpt_stk/ref_p vfs_read count=%dx:u64' >> $T/kprobe_events ||
   ! echo 'r:kpt_stk/ref_r vfs_read ret=$retval:s64' >> $T/kprobe_events; then
	bad "the kernel refused the reference kprobe events: $(tail -n 3 $T/error_log)"
	exit 1
fi
echo 'count == 777' > $T/events/kpt_stk/ref_p/filter
echo 'stacktrace if count == 777' > $T/events/kpt_stk/ref_p/trigger
echo 'ret == 777' > $T/events/kpt_stk/ref_r/filter
echo 'stacktrace if ret == 777' > $T/events/kpt_stk/ref_r/trigger
echo 0 > $T/options/sym-offset
echo 1 > $T/events/kpt_stk/ref_p/enable
echo 1 > $T/events/kpt_stk/ref_r/enable

# stacks < TRACE: one line per stack, "EVENT PID FRAME...", each stack
# after the last event line of its pid; frames without +OFF/SIZE (the top
# frame's offsets differ by construction: the trigger unwinds to the
# __fentry__ call's return address, vfs_read+0x5 on 6.1 and +0x9 on 6.12,
# a BPF program's regs say vfs_read+0x1 / +0x5), " [MOD]" kept as "[MOD]".
stacks() {
	sed -n -e 's/^ *.*-\([0-9][0-9]*\) *\[[0-9]*\] [^ ]* *[0-9.]*: \(.*\)$/\1 \2/p' -e '/^ => /p' |
	awk 'function flush() { if (ev != "") print ev, pid fr; ev = "" }
	/^ => / { if (ev == "") next
		  f = substr($0, 5); sub(/\+0x[0-9a-f]+\/0x[0-9a-f]+/, "", f); sub(/ \[/, "[", f)
		  fr = fr " " f; next }
	$2 == "<stack" { flush(); pid = $1; ev = (pid in last) ? last[pid] : "?"; fr = ""; next }
	{ flush(); e = $2; sub(/:$/, "", e); last[$1] = e }
	END { flush() }'
}

# The kernel's own frames above the probed function (or, at a return, above
# its caller), seen in both VMs' traces (issue 18's report), dropped from
# the top of the reference only:
#   a kprobe: kprobe_trace_func, kprobe_dispatcher, aggr_pre_handler (a
#     second kprobe at the address: kptrace's), kprobe_ftrace_handler, then
#     the ftrace trampoline, which the trace prints unnamed (0xffffffffc04860c8
#     on 6.1, in "ftrace_trampoline [__builtin__ftrace]"), or, where another
#     ftrace user shares the site (kptrace's fentry or kprobe.multi),
#     arch_ftrace_ops_list_func and ftrace_regs_call;
#   a kretprobe: kretprobe_trace_func, kretprobe_dispatcher,
#     kretprobe_rethook_handler, rethook_trampoline_handler,
#     arch_rethook_trampoline_callback, arch_rethook_trampoline;
#   before rethook (5.10): ftrace_ops_assist_func (a kprobe's ftrace_ops),
#     __kretprobe_trampoline_handler, trampoline_handler.
internal() {
	awk 'BEGIN { n = split("kprobe_trace_func kprobe_dispatcher aggr_pre_handler " \
		"kprobe_ftrace_handler arch_ftrace_ops_list_func ftrace_ops_list_func " \
		"ftrace_ops_assist_func ftrace_regs_call kretprobe_trace_func kretprobe_dispatcher " \
		"kretprobe_rethook_handler rethook_trampoline_handler " \
		"arch_rethook_trampoline_callback arch_rethook_trampoline " \
		"__kretprobe_trampoline_handler trampoline_handler", w, " ")
		for (i = 1; i <= n; i++) drop[w[i]] = 1 }
	{ i = 3; while (i <= NF && ($i in drop || $i ~ /^0x[0-9a-f]+$/)) i++
	  s = $1 " " $2; for (; i <= NF; i++) s = s " " $i; print s }'
}

# A kernel whose unwinder does not recover a return address a kretprobe
# replaced (5.13 taught x86's to) ends its stacks there, marked so: the
# reference stops at "[unknown/kretprobe'd]". kretprobed WHAT TOP REF MINE:
# kptrace's stack is the same (its programs' stacks come from the same
# unwinder: at a kretprobe, nothing past the trampoline), or the
# reference's frames before the mark start it and it starts at TOP.
KRETD="[unknown/kretprobe'd]"
kretprobed() {
	local pre=${3%%"$KRETD"*}
	pre=${pre% }
	if [ "$4" = "$3" ]; then
		ok "$1: version-gated: the kernel's unwinder stops at a return address a kretprobe replaced (recovered from 5.13), kptrace's stack as the kernel's, frame by frame ($4)"
		return
	fi
	case "$4 " in
	"$2 "*)
		if [ -z "$pre" ] || [ "${4#"$pre"}" != "$4" ]; then
			ok "$1: version-gated: the kernel's unwinder stops at a return address a kretprobe replaced (recovered from 5.13); its frames before it ('$pre') start kptrace's stack, which starts at $2 ($4)"
			return
		fi ;;
	esac
	bad "$1: kptrace's frames '$4', the kernel's '$3' (it stops at a kretprobe'd return address: want the same, or its frames before that first and $2 first)"
}

# same KIND BACKEND TOP: kptrace's stack after its stk_KIND event against the
# kernel's after ref_KIND for the same pid; TOP is the reference's first
# frame once the kernel's own are dropped (vfs_read at entry, its caller
# ksys_read at the return): else the reference itself is not what issue 18
# measured.
same() {
	local kind=$1 b=$2 top=$3 mine pid ref what
	what="-K --backend $b $kind:vfs_read"
	mine=$(grep -m1 "^stk_$kind " $W/$b.kst)
	pid=$(echo "$mine" | cut -d' ' -f2)
	ref=$(grep -m1 "^ref_$kind $pid " $W/$b.rst)
	mine=$(echo "$mine" | cut -d' ' -f3-)
	ref=$(echo "$ref" | cut -d' ' -f3-)
	if [ -z "$pid" ]; then
		bad "$what: no stack after kptrace's marker event: $(head -c 400 $W/$b.out | tr "\n" " ") $(tail -c 300 $W/$b.err | tr "\n" " ")"
	elif [ -z "$ref" ]; then
		bad "$what: the kernel's trigger recorded no stack for pid $pid: $(grep -v "^#" $W/$b.ref | head -c 600 | tr "\n" " ")"
	elif [ "${ref#*"$KRETD"}" != "$ref" ]; then
		kretprobed "$what" "$top" "$ref" "$mine"
	elif [ "${ref%% *}" != "$top" ]; then
		bad "$what: the kernel's stack does not start at $top once its own frames are dropped: $ref ($(grep -m1 "^ref_$kind $pid " $W/$b.rst))"
	elif [ -z "$mine" ]; then
		bad "$what: kptrace's stack has no frames; the kernel's: $ref"
	elif [ "$mine" = "$ref" ]; then
		ok "$what: the kernel's stack, frame by frame ($mine)"
	else
		bad "$what: kptrace's frames '$mine', the kernel's '$ref'"
	fi
}

# key_frames < OUT: each row's frames of count/latency --by kstack, one
# line per row, the frames (' => F') after it joined by spaces
key_frames() {
	awk 'function flush() { if (fr != "") print substr(fr, 2); fr = "" }
	/^ => / { fr = fr " " substr($0, 5); next }
	{ flush() } END { flush() }'
}

# keyed BACKEND: count --by kstack of the marker read has one row, counted
# once, whose frames are the kernel trigger's for p:vfs_read (the -K run's
# reference); latency --by kstack of dd's reads (busybox is static: each
# a read(2), no loader's pread): every row's path, frame by frame, is the
# trigger's r:vfs_read stack of the marker read.
keyed() {
	local b=$1 ref rows
	ref=$(grep -m1 "^ref_p " $W/$b.rst | cut -d' ' -f3-)
	$KPT count --backend $b -c "$WORK" 'p:kpt/cnt vfs_read count=%dx:u64 if count == 777' \
		--by kstack > $W/$b.cnt 2> $W/$b.cnt.err
	rows=$(grep -cE '^ +[0-9]+$' $W/$b.cnt)
	if [ "$rows" != 1 ] || ! grep -qE '^ +1$' $W/$b.cnt; then
		bad "count --by kstack --backend $b: want one row counted once, got: $(head -c 500 $W/$b.cnt | tr "\n" " ") $(tail -c 200 $W/$b.cnt.err)"
	elif [ "${ref#*"$KRETD"}" != "$ref" ]; then
		kretprobed "count --by kstack --backend $b" vfs_read "$ref" "$(key_frames < $W/$b.cnt)"
	elif [ -n "$ref" ] && [ "$(key_frames < $W/$b.cnt)" = "$ref" ]; then
		ok "count --by kstack --backend $b: the row's stack is the kernel trigger's ($ref)"
	else
		bad "count --by kstack --backend $b: frames '$(key_frames < $W/$b.cnt)', the kernel's '$ref'"
	fi
	$KPT latency --backend $b -c "$WORK" vfs_read --by kstack > $W/$b.lat 2> $W/$b.lat.err
	rows=$(key_frames < $W/$b.lat | wc -l)
	ref=$(grep -m1 "^ref_r " $W/$b.rst | cut -d' ' -f3-)
	if [ "${ref#*"$KRETD"}" != "$ref" ] && [ "$rows" = 1 ]; then
		kretprobed "latency --by kstack --backend $b" ksys_read "$ref" "$(key_frames < $W/$b.lat)"
	elif [ -n "$ref" ] && [ "$rows" -ge 1 ] && ! key_frames < $W/$b.lat | grep -qvxF "$ref"; then
		ok "latency --by kstack --backend $b: each of $rows calling paths is the kernel trigger's r:vfs_read stack ($ref)"
	else
		bad "latency --by kstack --backend $b: want every path the kernel's '$ref': $(key_frames < $W/$b.lat | head -n 3 | tr "\n" "|") $(tail -c 200 $W/$b.lat.err)"
	fi
}

# Both tracers at once on one dd, so both stacks are of the same call. Only
# the stacks are compared: the event lines are not (with two return probes
# on vfs_read, one sees the other's trampoline as its return address and
# prints "[unknown/kretprobe'd]"; the unwinder recovers the real caller in
# both stacks, seen in the VMs).
for b in $BACKENDS; do
	echo > $T/trace
	$KPT -K --backend $b -o $W/$b.out -c "$WORK" \
		'p:kpt/stk_p vfs_read count=%dx:u64 if count == 777' \
		'r:kpt/stk_r vfs_read ret=$retval:s64 if ret == 777' 2> $W/$b.err
	rc=$?
	cp $T/trace $W/$b.ref
	[ $b = fentry ] && fentry_gate "-K, count and latency --by kstack --backend $b" $rc $W/$b.err && continue
	if [ $rc != 0 ]; then
		bad "-K --backend $b: kptrace exit $rc: $(tail -c 400 $W/$b.err | tr "\n" " ")"
		bad "-K --backend $b: (r:vfs_read not compared)"
		continue
	fi
	stacks < $W/$b.out > $W/$b.kst
	stacks < $W/$b.ref | internal > $W/$b.rst
	same p $b vfs_read
	same r $b ksys_read
	keyed $b
done
cleanup

# profile: a CPU clock's samples through a perf_event program (loaded and
# verified on this kernel), counted by comm and kernel stack; a busy shell
# is the positive control
( i=0; while [ $i -lt 300000 ]; do i=$((i + 1)); done ) &
busy=$!
$KPT profile -F 199 -d 1 --by comm,kstack --no-idle > $W/prof.out 2> $W/prof.err
rc=$?
kill $busy 2>/dev/null
if [ $rc = 0 ] && grep -qE '^ +[0-9]+  sh$' $W/prof.out && ! grep -q swapper $W/prof.out; then
	ok "profile -F 199 --no-idle: the busy shell sampled ($(grep -m1 -E '^ +[0-9]+  sh$' $W/prof.out | tr -s ' '))"
else
	bad "profile -F 199 --no-idle: exit $rc, want the busy sh's samples and no idle task: $(head -c 300 $W/prof.out | tr "\n" " ") $(tail -c 300 $W/prof.err | tr "\n" " ")"
fi
