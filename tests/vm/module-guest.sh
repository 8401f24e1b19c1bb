#!/bin/sh
# Guest script (busybox sh), issue 24: a module's function traced the way the
# seed article does it. tests/vm/etn is the tests' own misc device, built by
# tests/vm/etn/build.sh against this kernel's Debian headers and added as
# /lib/etn.ko; etn_write(file, buf, count, pos) takes every write whole and
# moves *pos past it. The writes below are known to the byte, so each line
# is checked twice: against the kernel's own kprobe_events on the same
# writes, and against the counts and offsets computed here. First kptrace
# is started before the module is there (kprobe_events takes MOD:SYM then
# too): it waits, attaches as etn loads, detaches as it goes, twice over.
# The same definitions on x86-64 and arm64 ($argN, BTF names), but for the
# register forms, each architecture's. Prints "ok - ..." / "FAIL - ...".
T=/sys/kernel/tracing
W=/tmp/kpt-mod
KO=/lib/etn.ko
LIST=/sys/kernel/debug/kprobes/list
mkdir -p $W
KREL=$(uname -r)
echo "# kernel $KREL"
echo "# expect 19 ok"
# ok/bad, $KPTBG, stop, wait_attached, renumber
. /guest-lib.sh || { echo "FAIL - $KREL: no /guest-lib.sh (tests/vm/test.sh adds it)"; exit 1; }
KPT=$KPTBG
# etn_write's count and pos, and any function's first argument, by register
# as this architecture's kprobe_events names them
case $(uname -m) in
x86_64) RCOUNT=%dx RPOS=%cx RARG1=%di ;;
aarch64) RCOUNT=%x2 RPOS=%x3 RARG1=%x0 ;;
*) bad "no register forms for $(uname -m)"; exit 1 ;;
esac
[ -e $T/kprobe_events ] || mount -t tracefs nodev $T

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

# until FILE has N lines matching PATTERN, SECS at most
await() {
	local i=0
	while [ "$(grep -c "$2" "$1" 2>/dev/null)" -lt $3 ]; do
		i=$((i + 1))
		[ $i -gt $(($4 * 10)) ] && return 1
		sleep 0.1
	done
}

# kptrace first, the module after, as kprobe_events takes MOD:SYM before
# MOD is there: kptrace waits, attaches as it loads, detaches as it goes,
# attaches again as it comes back. Two rounds of the writes, one per load.
DDEF="p:etn:etn_write count=$RCOUNT:u64 pos=+0($RPOS):s64"
# the return with the entry's count: its entry saver attached late too, first
DRET='r:etn:etn_write ret=$retval:s64 count=$arg3:u64'
rm -f $W/wait.err
$KPT "$DDEF" "$DRET" > $W/wait.out 2> $W/wait.err &
KP=$!
if wait_attached $W/wait.err "waiting for etn" &&
   grep -q '^Attached 0 probes in [0-9]* ms; 3 wait for module etn to load$' $W/wait.err &&
   [ "$(grep -c 'etn_write' $LIST)" = 0 ]; then
	ok "kptrace '$DDEF' '$DRET' before etn loads: '$(grep '^Attached' $W/wait.err)', nothing in $LIST"
else
	bad "kptrace before etn loads: $(tr '\n' '|' < $W/wait.err | cut -c1-300); $(grep -c etn_write $LIST) in $LIST"
fi
rounds=0
for round in 1 2; do
	insmod $KO || bad "insmod $KO, round $round"
	n=$((round * 2))
	if await $W/wait.err "module etn loaded: kprobes/r_etn_etn_write_0 attached to etn:etn_write" $round 10 &&
	   [ "$(grep -c '^kptrace: module etn loaded: kprobes/[pr]_etn_etn_write_0 attached to etn:etn_write$' $W/wait.err)" = $n ]; then
		work
		rounds=$((rounds + 1))
	else
		bad "etn loaded (round $round): kptrace did not say it attached both within 10 s: $(tail -n 3 $W/wait.err | tr '\n' '|')"
	fi
	rmmod etn || bad "rmmod etn, round $round: $(rmmod etn 2>&1)"
	if await $W/wait.err "module etn unloaded: kprobes/r_etn_etn_write_0 detached" $round 10 &&
	   [ "$(grep -c '^kptrace: module etn unloaded: kprobes/[pr]_etn_etn_write_0 detached from etn:etn_write; attached again as it loads$' $W/wait.err)" = $n ] &&
	   [ "$(grep -c etn_write $LIST)" = 0 ] && kill -0 $KP 2>/dev/null; then
		ok "rmmod etn (round $round): kptrace says both detached, $LIST has none, kptrace goes on"
	else
		bad "rmmod etn (round $round): $(tail -n 2 $W/wait.err | tr '\n' '|'); $(grep -c etn_write $LIST) in $LIST"
	fi
done
stop $KP
[ $RC = 0 ] || bad "kptrace waiting for etn: exit $RC: $(tail -n 3 $W/wait.err | tr '\n' '|')"
cat $W/want $W/want > $W/want2
sed -n 's/.* p_etn_etn_write_0: (etn_write+0x[0-9a-f]*\/0x[0-9a-f]* \[etn\]) count=\([0-9]*\) pos=\([0-9-]*\)$/\1 \2/p' \
	$W/wait.out > $W/wait.cp
if [ $rounds = 2 ] && cmp -s $W/want2 $W/wait.cp; then
	ok "attached as etn loaded, twice: the $(wc -l < $W/wait.cp) writes' counts and offsets as written"
else
	bad "attached as etn loaded: '$(tr '\n' ',' < $W/wait.cp)', want '$(tr '\n' ',' < $W/want2)'"
fi
awk '{ print $1, $1 }' $W/want2 > $W/want2.ret
sed -n 's/.* r_etn_etn_write_0: ([^ ]* <- etn_write) ret=\([0-9-]*\) count=\([0-9]*\)$/\1 \2/p' \
	$W/wait.out > $W/wait.ret
if [ $rounds = 2 ] && cmp -s $W/want2.ret $W/wait.ret; then
	ok "the kretprobe attached as etn loaded, twice: each \$retval the entry's count ($(tr '\n' ',' < $W/wait.ret))"
else
	bad "the kretprobe attached as etn loaded: '$(tr '\n' ',' < $W/wait.ret)', want '$(tr '\n' ',' < $W/want2.ret)'"
fi

# Issue 37: a call right after insmod is traced. The module's load wakes
# the watch (its uevent), and a plain MOD:SYM attaches before kallsyms is
# read again; a look once a second missed it 4 times in 5. Three loads, a
# 3-byte write 0.2 s after each: three lines, count 3, pos 0.
rm -f $W/soon.err
$KPT "p:etn:etn_write count=$RCOUNT:u64 pos=+0($RPOS):s64" > $W/soon.out 2> $W/soon.err &
KP=$!
if wait_attached $W/soon.err "waiting for etn (soon)"; then
	for round in 1 2 3; do
		insmod $KO || bad "insmod $KO (soon, round $round)"
		sleep 0.2
		printf abc > /dev/etn
		# unloaded once kptrace has said so: the line names etn_write
		await $W/soon.err "module etn loaded: kprobes/p_etn_etn_write_0 attached" $round 10
		rmmod etn || bad "rmmod etn (soon, round $round)"
		await $W/soon.err "module etn unloaded: kprobes/p_etn_etn_write_0 detached" $round 10
	done
	stop $KP
	n=$(grep -c ' p_etn_etn_write_0: (etn_write+0x[0-9a-f]*/0x[0-9a-f]* \[etn\]) count=3 pos=0$' $W/soon.out)
	if [ "$n" = 3 ] && [ $RC = 0 ]; then
		ok "a write 0.2 s after insmod, 3 loads: the 3 writes traced, count=3 pos=0"
	else
		bad "a write 0.2 s after insmod, 3 loads: $n of the 3 writes traced (exit $RC): $(tr '\n' '|' < $W/soon.err | cut -c1-400)"
	fi
fi

# A module that never loads: said at the end, the run otherwise normal.
$KPT -d 1 "p:kpt_nosuchmod:fn $RARG1" > $W/never.out 2> $W/never.err
rc=$?
if [ $rc = 0 ] && grep -q '^kptrace: kprobes/p_kpt_nosuchmod_fn_0: module kpt_nosuchmod never loaded: kpt_nosuchmod:fn was not traced$' $W/never.err; then
	ok "a module that never loads: '$(grep 'never loaded' $W/never.err)'"
else
	bad "a module that never loads: exit $rc: $(tr '\n' '|' < $W/never.err | cut -c1-300)"
fi

# serve has no one to watch for modules: a job on one not loaded is refused.
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
echo "w: count 'p:etn:etn_write' --by comm" > $W/jobs.kpt
$KPT serve -f $W/jobs.kpt --listen 127.0.0.1:9436 > $W/serve.out 2>&1
rc=$?
if [ $rc != 0 ] && grep -q '^kptrace: error: module etn is not loaded, and serve does not wait for one' $W/serve.out &&
   grep -q 'job w could not start' $W/serve.out; then
	ok "serve, a job on etn not loaded: refused, '$(grep -m1 error $W/serve.out | cut -c1-100)'"
else
	bad "serve, a job on etn not loaded: exit $rc: $(tr '\n' '|' < $W/serve.out | cut -c1-300)"
fi

# The module, loaded as the seed article loads its driver.
if insmod $KO && [ -c /dev/etn ] && grep -q ' etn_write\s*\[etn\]' /proc/kallsyms; then
	ok "insmod etn.ko: /dev/etn, etn_write in kallsyms ($(grep ' etn_write' /proc/kallsyms | cut -d' ' -f2-))"
else
	bad "insmod $KO: $(ls -l /dev/etn 2>&1) $(grep -c '\[etn\]' /proc/kallsyms) symbols of etn; $(dmesg | tail -n 3 | tr '\n' ' ')"
fi

# A loaded module's misspelt function is refused at once, under a caret.
$KPT --dry-run 'p:etn:etn_wrte' > $W/typo.out 2>&1
if [ $? != 0 ] && grep -q "no symbol 'etn_wrte' in module 'etn'" $W/typo.out &&
   grep -q "did you mean 'etn_write'" $W/typo.out && grep -q '^    \^$' $W/typo.out; then
	ok "'p:etn:etn_wrte' with etn loaded: refused, '$(head -n 1 $W/typo.out | cut -c1-120)'"
else
	bad "'p:etn:etn_wrte' with etn loaded: $(tr '\n' '|' < $W/typo.out | cut -c1-300)"
fi

# Entry: both at once, the very definition the seed article writes.
DEF="p etn:etn_write count=$RCOUNT:u64 pos=+0($RPOS):s64"
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
# (kptrace's shorthand: no event name has a ':', so "p:MOD:SYM count" is MOD's SYM)
BDEF='p:etn:etn_write count pos'
if [ ! -e /sys/kernel/btf/etn ]; then
	bad "module BTF: no /sys/kernel/btf/etn: etn.ko was built without BTF or the kernel refused it ($(dmesg | grep -i btf | tail -n 2 | tr '\n' ' '))"
	bad "module BTF return probe: no /sys/kernel/btf/etn"
else
	if echo 'p:kpt/probe etn:etn_write count' > $T/kprobe_events 2>/dev/null; then
		echo 'p etn:etn_write count pos' > $W/btfref.defs
	else
		echo "# this kernel's kprobe_events takes no BTF names of a module's function" \
			"($(tail -n 3 $T/error_log | head -n 1 | sed 's/.*error: //')): register forms as the reference"
		echo "p etn:etn_write count=$RCOUNT:u64 pos=$RPOS:x64" > $W/btfref.defs
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

# A probe attached at start is watched as well: etn unloaded under it is
# detached and said (its kprobe would be dead), loaded again attached again.
rm -f $W/again.err
$KPT "$DDEF" > $W/again.out 2> $W/again.err &
KP=$!
if wait_attached $W/again.err "etn loaded at start" && work && rmmod etn &&
   await $W/again.err "^kptrace: module etn unloaded: kprobes/p_etn_etn_write_0 detached" 1 10 &&
   [ "$(grep -c etn_write $LIST)" = 0 ] && insmod $KO &&
   await $W/again.err "^kptrace: module etn loaded: kprobes/p_etn_etn_write_0 attached" 1 10; then
	work
	ok "etn unloaded and loaded again under a probe attached at start: detached, attached again, said"
else
	bad "etn unloaded under a probe attached at start: $(tr '\n' '|' < $W/again.err | cut -c1-400)"
fi
stop $KP
sed -n 's/.* p_etn_etn_write_0: (etn_write+0x[0-9a-f]*\/0x[0-9a-f]* \[etn\]) count=\([0-9]*\) pos=\([0-9-]*\)$/\1 \2/p' \
	$W/again.out > $W/again.cp
if [ $RC = 0 ] && cmp -s $W/want2 $W/again.cp; then
	ok "before and after etn came back: the $(wc -l < $W/again.cp) writes' counts and offsets as written"
else
	bad "before and after etn came back: exit $RC, '$(tr '\n' ',' < $W/again.cp)', want '$(tr '\n' ',' < $W/want2)'"
fi

# Nothing left behind: no kprobe on etn, no event, and the module unloads.
left=$(grep -c 'etn_write' $LIST)
if [ "$left" = 0 ] && ! grep -q etn $T/kprobe_events && rmmod etn && [ ! -e /dev/etn ]; then
	ok "nothing of kptrace left on etn_write ($LIST, kprobe_events); rmmod etn"
else
	bad "left behind: $left kprobes on etn_write, kprobe_events '$(cat $T/kprobe_events)'; rmmod: $(rmmod etn 2>&1)"
fi
