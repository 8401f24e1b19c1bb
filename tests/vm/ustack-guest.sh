#!/bin/sh
# Guest script (busybox sh) for issue 38: user stacks through code without
# frame pointers, unwound from the binary's own .eh_frame in BPF. /uw2 is
# tests/host/unwind_target.c built -O2 -fomit-frame-pointer -static
# (tests/vm/test.sh adds it): at uw_leaf, "/uw2 2 rare" calls it from
# uw_middle twice, through uw_tail twice (a tail call: uw_middle is the
# caller on the stack) and from uw_rare (called from uw_middle.cold) twice,
# all under uw_outer and main: the workload's chains, by name, are the
# reference. The walk loads on 6.1's verifier too (its 512-byte call chains
# and callbacks), so every stack is whole on every kernel.
KREL=$(uname -r)
. /guest-lib.sh
W=/tmp/kpt-ustack
mkdir -p $W
echo "# expect 6 ok"
# The walk by unwind tables takes bpf_loop() and bpf_find_vma() (5.17): a
# kernel without them (their ids in its own BTF) walks by frame pointers
# only, and each check is version-gated there: kptrace must say so, and
# mark every stack of this frameless code cut short, none passed off as whole.
UWALK=yes
grep -q BPF_FUNC_find_vma /sys/kernel/btf/vmlinux && grep -q BPF_FUNC_loop /sys/kernel/btf/vmlinux || UWALK=no
# uw_gated WHAT N CUT ERR: on such a kernel, N stacks, CUT of them marked
uw_gated() {
	[ $UWALK = no ] || return 1
	if [ "$2" -gt 0 ] && [ "$3" = "$2" ] &&
		grep -q "is the main BPF object's, and this kernel has no bpf_loop() (Linux 5.17)" "$4"; then
		ok "$1: version-gated: this kernel lacks bpf_loop() and bpf_find_vma() (5.17), which the walk by unwind tables takes; kptrace says so, and marks every stack cut short ($3 of $2)"
	else
		bad "$1: this kernel lacks bpf_loop() and bpf_find_vma(): want kptrace's warning naming them and every stack cut short: $3 of $2 cut; $(tail -n 3 "$4" | tr '\n' ' ')"
	fi
}

if [ ! -x /uw2 ]; then
	bad "no /uw2 (tests/vm/test.sh adds it): no user stacks without frame pointers"
	exit 1
fi
WANT="main;uw_outer;uw_middle.cold;uw_rare;uw_leaf 2
main;uw_outer;uw_middle;uw_leaf 4"
# the names from main on, counted, as --folded prints them (root first)
kpt count --by ustack --folded -c "/uw2 2 rare" p:/uw2:uw_leaf > $W/f.out 2> $W/f.err
GOT=$(sed -n 's/^.*;\(main;\)/\1/p' $W/f.out | sort)
if uw_gated "count --by ustack --folded at uw_leaf" "$(grep -c . $W/f.out)" "$(grep -c '^\[cut short\];' $W/f.out)" $W/f.err; then
	:
elif [ "$GOT" = "$WANT" ] && ! grep -q 'cut short' $W/f.out; then
	ok "count --by ustack --folded at uw_leaf of an -O2 frameless static binary: the workload's chains, whole"
else
	bad "count --by ustack --folded at uw_leaf: '$(tr '\n' '|' < $W/f.out)' want '$(echo "$WANT" | tr '\n' '|')'; $(tail -n 3 $W/f.err | tr '\n' ' ')"
fi
# -U: each stack from uw_leaf down to main, none cut short
kpt -U -c "/uw2 1 rare" p:/uw2:uw_leaf > $W/u.out 2> $W/u.err
N=$(grep -c '<user stack trace>' $W/u.out)
FIRST=$(grep -A1 '<user stack trace>' $W/u.out | grep -c '^ => uw_leaf+0x0 ')
WHOLE=$(grep -c '^ => main+' $W/u.out)
CUTU=$(grep -c '^ => \[cut short\]' $W/u.out)
if uw_gated "-U at uw_leaf" "$N" "$CUTU" $W/u.err; then
	:
elif [ "$N" = 3 ] && [ "$FIRST" = 3 ] && [ "$WHOLE" = 3 ] && [ "$CUTU" = 0 ]; then
	ok "-U at uw_leaf: 3 stacks from uw_leaf, each whole down to main"
else
	bad "-U at uw_leaf: $N stacks, $FIRST from uw_leaf, $WHOLE through main, $CUTU cut short: $(head -c 600 $W/u.out | tr '\n' '|') $(tail -n 3 $W/u.err | tr '\n' ' ')"
fi
# Across mappings: /uw2d is the -O2 build linked to libc (found where the
# guest has no ld.so.conf, as ld.so finds it), naps of 10 ms. At a kprobe
# at hrtimer_nanosleep (on its ftrace site: interrupts on) every nap is
# whole. At sched_switch interrupts are off and bpf_find_vma() answers once
# a run: the other mappings come from /proc/PID/maps, read at the walk's
# first ask (each 100 ms): the naps before are cut short, the others whole.
if [ ! -x /uw2d ]; then
	bad "no /uw2d (tests/vm/test.sh adds it): no walk across mappings"
	exit 1
fi
naps() {
	kpt count --backend kprobe --by ustack --folded -c "/uw2d 60 nap" "$1" > $W/k.out 2> $W/k.err
	WHOLE=$(sed -n 's/^_start;.*;\(main;uw_outer;uw_middle;uw_nap;nanosleep;clock_nanosleep\) \([0-9]*\)$/\2/p' $W/k.out)
	ALL=$(awk '{ n += $NF } END { print n + 0 }' $W/k.out)
	OTHER=$(grep -v '^_start;' $W/k.out | grep -vc '^\[cut short\];')
	if uw_gated "$1 --by ustack" "$(grep -c . $W/k.out)" "$(grep -c '^\[cut short\];' $W/k.out)" $W/k.err; then
		:
	elif [ "${WHOLE:-0}" -ge "$2" ] && [ "$ALL" = 60 ] && [ "$OTHER" = 0 ]; then
		ok "$1 --by ustack across libc and an -O2 binary: ${WHOLE:-0} of the 60 naps whole to _start (want >= $2), the others cut short"
	else
		bad "$1 --by ustack: ${WHOLE:-0} whole of $ALL (want >= $2 of 60), $OTHER neither whole nor cut: $(head -c 600 $W/k.out | tr '\n' '|') $(tail -n 3 $W/k.err | tr '\n' ' ')"
	fi
}
naps p:hrtimer_nanosleep 60
naps 't:sched/sched_switch if prev_state == 1' 30
# Not told of /uw2d (no -c, no -p, its comm a filter only): a probe started
# before it reads its table once a walk meets it (each 100 ms): the naps before are
# cut short, the others whole. At the kprobe on its ftrace site
# (bpf_find_vma()) and at sched_switch (interrupts off: the mappings from
# /proc/PID/maps, a round before the table: want 20 whole, not 30).
# lazy DEF WANT: at DEF, at least WANT of the 60 naps whole
lazy() {
	rm -f $W/l.err	# the last call's "Attached" would be read before kptrace truncates it
	$KPTBG count --backend kprobe --by ustack --folded --comm uw2d "$1" > $W/l.out 2> $W/l.err &
	KP=$!
	wait_attached $W/l.err "lazily read tables at $1" || return
	/uw2d 60 nap
	stop $KP
	WHOLE=$(sed -n 's/^_start;.*;\(main;uw_outer;uw_middle;uw_nap;nanosleep;clock_nanosleep\) \([0-9]*\)$/\2/p' $W/l.out)
	ALL=$(awk '{ n += $NF } END { print n + 0 }' $W/l.out)
	OTHER=$(grep -v '^_start;' $W/l.out | grep -vc '^\[cut short\];')
	if uw_gated "$1 --by ustack, /uw2d not named" "$(grep -c . $W/l.out)" "$(grep -c '^\[cut short\];' $W/l.out)" $W/l.err; then
		:
	elif [ "${WHOLE:-0}" -ge $2 ] && [ "$ALL" = 60 ] && [ "$OTHER" = 0 ] && [ $RC = 0 ]; then
		ok "$1 --by ustack, /uw2d named nowhere: its table read as the walk met it, ${WHOLE:-0} of the 60 naps whole to _start (want >= $2), the others cut short"
	else
		bad "$1 --by ustack, /uw2d named nowhere: ${WHOLE:-0} whole of $ALL (want >= $2 of 60), $OTHER neither whole nor cut, exit $RC: $(head -c 600 $W/l.out | tr '\n' '|') $(tail -n 3 $W/l.err | tr '\n' ' ')"
	fi
}
lazy p:hrtimer_nanosleep 30
lazy 't:sched/sched_switch if prev_state == 1' 20
