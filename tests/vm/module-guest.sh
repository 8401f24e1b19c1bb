#!/bin/sh
# Guest script (busybox sh), issue 24: a module's function traced the way the
# seed article does it. tests/vm/etn is the tests' own misc device, built by
# tests/vm/etn/build.sh against this kernel's Debian headers and added as
# /lib/etn.ko; etn_write(file, buf, count, pos) takes every write whole and
# moves *pos past it. The writes below are known to the byte, so each line
# is checked twice: against the kernel's own kprobe_events on the same
# writes, and against the counts and offsets computed here.
# Prints "ok - ..." / "FAIL - ...".
T=/sys/kernel/tracing
W=/tmp/kpt-mod
KO=/lib/etn.ko
LIST=/sys/kernel/debug/kprobes/list
mkdir -p $W
KREL=$(uname -r)
echo "# kernel $KREL"
echo "# expect 7 ok"
ok() { echo "ok - $KREL: $*"; }
bad() { echo "FAIL - $KREL: $*"; }
KPT="timeout -s KILL 120 /bin/kptrace"
[ -e $T/kprobe_events ] || mount -t tracefs nodev $T

# until kptrace (pid $KP) says Attached in FILE, 60 s at most
wait_attached() {
	local i=0
	while ! grep -q '^Attached' "$1" 2>/dev/null; do
		kill -0 $KP 2>/dev/null || { bad "$2: kptrace exited before attaching: $(head -c 300 "$1")"; return 1; }
		i=$((i + 1))
		[ $i -gt 600 ] && { bad "$2: kptrace did not attach within 60 s: $(head -c 300 "$1")"; return 1; }
		sleep 0.1
	done
}
# SIGINT, 20 s at most; the exit status in RC
stop() {
	local i=0
	kill -INT $1 2>/dev/null
	while kill -0 $1 2>/dev/null && [ $i -lt 200 ]; do i=$((i + 1)); sleep 0.1; done
	kill -0 $1 2>/dev/null && { bad "kptrace (pid $1) did not stop on SIGINT within 20 s"; kill -KILL $1; }
	wait $1
	RC=$?
}

# The writes: sh's printf (3 bytes at 0), then dd's blocks at its seek=
# offsets. WANT: each write's count and *pos, in order.
work() {
	printf abc > /dev/etn
	dd if=/dev/zero of=/dev/etn bs=100 count=3 seek=5 conv=notrunc 2>/dev/null
	dd if=/dev/zero of=/dev/etn bs=4096 count=2 seek=3 conv=notrunc 2>/dev/null
}
printf '3 0\n100 500\n100 600\n100 700\n4096 12288\n4096 16384\n' > $W/want

# A line's pid and what follows the event's name, comm and timing dropped.
norm() {
	sed -n 's/^ *\(sh\|dd\)-\([0-9][0-9]*\) *\[[0-9]*\] [^ ]* *[0-9.]*: \(.*\)$/\2 \3/p'
}
renumber() {
	awk '{ if (!($1 in n)) n[$1] = ++k; $1 = n[$1]; print }'
}

# The reference: DEFS into kprobe_events, recorded in an instance of its own
# (as guest.sh does: 6.1 has oopsed resetting the main buffer).
I=$T/instances/kptmod
ref_start() {
	echo > $T/kprobe_events
	cat "$1" >> $T/kprobe_events || bad "kprobe_events refused: $(cat "$1") ($(tail -n 2 $T/error_log | tr '\n' ' '))"
	mkdir $I
	echo 1 > $I/events/kprobes/enable
	echo 1 > $I/tracing_on
}
ref_stop() {
	echo 0 > $I/tracing_on
	grep -v '^#' $I/trace | norm > "$1"
	echo 0 > $I/events/enable
	rmdir $I
	echo > $T/kprobe_events
}
kpt_start() {
	rm -f $W/kpt.err
	$KPT "$@" > $W/kpt.out 2> $W/kpt.err &
	KP=$!
	wait_attached $W/kpt.err "kptrace $*"
}
kpt_stop() {
	stop $KP
	norm < $W/kpt.out > "$1"
	[ $RC = 0 ] || bad "kptrace exit status $RC: $(tail -n 3 $W/kpt.err | tr '\n' ' ')"
}
# same WHAT: REF and GOT equal, sorted, and not empty
same() {
	sort "$2" > "$2.s"; sort "$3" > "$3.s"
	if [ -s "$2.s" ] && diff "$2.s" "$3.s" > $W/diff; then
		ok "$1: $(wc -l < "$3.s") lines equal kprobe_events' ($(head -n 1 "$3.s" | cut -c1-100))"
	else
		bad "$1: differs from kprobe_events' ($(wc -l < "$2.s") lines against $(wc -l < "$3.s")): $(head -n 8 $W/diff | tr '\n' '|' | cut -c1-500)"
	fi
}

# The module, loaded as the seed article loads its driver.
if insmod $KO && [ -c /dev/etn ] && grep -q ' etn_write\s*\[etn\]' /proc/kallsyms; then
	ok "insmod etn.ko: /dev/etn, etn_write in kallsyms ($(grep ' etn_write' /proc/kallsyms | cut -d' ' -f2-))"
else
	bad "insmod $KO: $(ls -l /dev/etn 2>&1) $(grep -c '\[etn\]' /proc/kallsyms) symbols of etn; $(dmesg | tail -n 3 | tr '\n' ' ')"
fi

# Entry: both at once, the very definition the seed article writes.
DEF='p etn:etn_write count=%dx:u64 pos=+0(%cx):s64'
echo "$DEF" > $W/entry.defs
ref_start $W/entry.defs
kpt_start "$DEF"
work
ref_stop $W/ref
kpt_stop $W/got
same "'$DEF'" $W/ref $W/got
sed -n 's/.* p_etn_etn_write_0: (etn_write+0x[0-9a-f]*\/0x[0-9a-f]* \[etn\]) count=\([0-9]*\) pos=\([0-9-]*\)$/\1 \2/p' \
	$W/kpt.out > $W/got.cp
if cmp -s $W/want $W/got.cp; then
	ok "'$DEF': the $(wc -l < $W/want) writes' counts and offsets as written ($(tr '\n' ',' < $W/got.cp))"
else
	bad "'$DEF': counts and offsets '$(tr '\n' ',' < $W/got.cp)', want '$(tr '\n' ',' < $W/want)'"
fi

# Return: one tracer after the other (two kretprobes on one function see
# each other's trampoline as the return address), pids renumbered.
RDEF='r etn:etn_write ret=$retval:s64'
echo "$RDEF" > $W/ret.defs
ref_start $W/ret.defs
work
ref_stop $W/ref.raw
kpt_start "$RDEF"
work
kpt_stop $W/got.raw
renumber < $W/ref.raw > $W/ref
renumber < $W/got.raw > $W/got
same "'$RDEF'" $W/ref $W/got
cut -d' ' -f1 $W/want > $W/want.ret
sed -n 's/.* r_etn_etn_write_0: (.*) ret=\([0-9-]*\)$/\1/p' $W/kpt.out > $W/got.ret
if cmp -s $W/want.ret $W/got.ret; then
	ok "'$RDEF': each \$retval the write's count ($(tr '\n' ',' < $W/got.ret))"
else
	bad "'$RDEF': \$retval '$(tr '\n' ',' < $W/got.ret)', want the counts '$(tr '\n' ',' < $W/want.ret)'"
fi

# By name from the module's own BTF (kbuild made it: /sys/kernel/btf/etn),
# a return probe with the entry's count beside it. Where this kernel's
# kprobe_events takes no BTF names (6.1), the reference runs the register
# forms of the same fields.
BDEF='p etn:etn_write count pos'
if [ ! -e /sys/kernel/btf/etn ]; then
	bad "module BTF: no /sys/kernel/btf/etn: etn.ko was built without BTF or the kernel refused it ($(dmesg | grep -i btf | tail -n 2 | tr '\n' ' '))"
	bad "module BTF return probe: no /sys/kernel/btf/etn"
else
	if echo 'p:kpt/probe etn:etn_write count' > $T/kprobe_events 2>/dev/null; then
		echo "$BDEF" > $W/btfref.defs
	else
		echo "# this kernel's kprobe_events takes no BTF names of a module's function" \
			"($(tail -n 3 $T/error_log | head -n 1 | sed 's/.*error: //')): register forms as the reference"
		echo 'p etn:etn_write count=%dx:u64 pos=%cx:x64' > $W/btfref.defs
	fi
	echo > $T/kprobe_events
	ref_start $W/btfref.defs
	kpt_start "$BDEF" 'r:kpt/wret etn:etn_write $retval count'
	work
	ref_stop $W/ref
	kpt_stop $W/got.all
	grep ' p_etn_etn_write_0: ' $W/got.all > $W/got
	same "module BTF '$BDEF'" $W/ref $W/got
	# 6.1 and 6.12 alike: \$retval typed from BTF (ssize_t), count the entry's
	sed -n 's/.* wret: (.*) arg1=\([0-9-]*\) count=\([0-9]*\)$/\1 \2/p' $W/kpt.out > $W/got.rc
	awk '{ print $1, $1 }' $W/want > $W/want.rc
	if cmp -s $W/want.rc $W/got.rc; then
		ok "module BTF 'r:kpt/wret etn:etn_write \$retval count': \$retval = count, $(wc -l < $W/got.rc) writes"
	else
		bad "module BTF 'r:kpt/wret etn:etn_write \$retval count': '$(tr '\n' ',' < $W/got.rc)', want '$(tr '\n' ',' < $W/want.rc)' $(tail -n 2 $W/kpt.err | tr '\n' ' ')"
	fi
fi

# Nothing left behind: no kprobe on etn, no event, and the module unloads.
left=$(grep -c 'etn_write' $LIST)
if [ "$left" = 0 ] && ! grep -q etn $T/kprobe_events && rmmod etn && [ ! -e /dev/etn ]; then
	ok "nothing of kptrace left on etn_write ($LIST, kprobe_events); rmmod etn"
else
	bad "left behind: $left kprobes on etn_write, kprobe_events '$(cat $T/kprobe_events)'; rmmod: $(rmmod etn 2>&1)"
fi
