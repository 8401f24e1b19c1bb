#!/usr/bin/env bash
# Host tests of the kernel's probe grammar that need a kernel (uprobes here):
# uprobe reference counters (PATH:OFFSET(REF_CTR_OFFSET), the USDT
# semaphore) and events of several probe points, each against the kernel's
# own uprobe_events with the same definitions. tests/host/grammar_target.c
# calls its probe site only while its semaphore is non-zero, as USDT does.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/lib.sh

KPT=${KPT:-./kptrace}
OUT=.output/tests/host-grammar
mkdir -p "$OUT"
BIN=$(realpath "$OUT")/grammar_target
gcc -O0 -fno-inline -no-pie -g tests/host/grammar_target.c -o "$BIN" || { echo "cannot build target"; exit 1; }
expect_checks 22

if [ "$(id -u)" != 0 ]; then
	skip_all "host tests need root (BPF, uprobes)"
fi
TRACEFS=/sys/kernel/tracing
[ -e $TRACEFS/uprobe_events ] || mount -t tracefs nodev $TRACEFS 2>/dev/null
[ -w $TRACEFS/uprobe_events ] || skip_all "no writable uprobe_events: the kernel is the reference here"

# File offset of symbol $1 in $BIN (a function, or the semaphore in .probes):
# its vaddr less the vaddr - offset of the LOAD segment holding it.
foff() {
	local vaddr off va filesz
	vaddr=$((16#$(readelf -sW "$BIN" | awk -v f="$1" '$8 == f { print $2 }')))
	while read -r off va filesz; do
		if [ $vaddr -ge $((va)) ] && [ $vaddr -lt $((va + filesz)) ]; then
			printf '0x%x' $((vaddr - va + off))
			return
		fi
	done < <(readelf -lW "$BIN" | awk '$1 == "LOAD" { print $2, $3, $5 }')
}
SITE=$(foff kpt_site)
TICK=$(foff kpt_tick)
TOCK=$(foff kpt_tock)
REF=$(foff kpt_sema)
# where uprobe lines say the probe fired: the ELF address (-no-pie)
TOCKV=$(readelf -sW "$BIN" | awk '$8 == "kpt_tock" { sub(/^0+/, "", $2); print $2 }')
echo "# kpt_site at $SITE, kpt_sema at file offset $REF"

# pid and what follows the timestamp, sorted: the lines of two tracers of one run
norm() {
	sed -nE 's/^ *.*-([0-9]+) +(\([ 0-9-]+\) +)?\[[0-9]+\] [^ ]+ +[0-9]+\.[0-9]+: (.*)$/\1 \3/p' | sort
}

ftrace_clear() {
	echo 0 > $TRACEFS/tracing_on
	[ -e $TRACEFS/events/kpttest/enable ] && echo 0 > $TRACEFS/events/kpttest/enable
	grep -E '^[pr]:kpttest/' $TRACEFS/uprobe_events 2>/dev/null | sed -E 's/^[pr]:([^ ]+).*/-:\1/' |
		sort -u | while read -r l; do echo "$l" >> $TRACEFS/uprobe_events; done
	: > $TRACEFS/trace
}
trap ftrace_clear EXIT

# The target's "sema N" lines: wait, bounded, for N to be its value.
sema_is() {
	wait_for "tail -n 1 '$OUT/target.out' 2>/dev/null | grep -qx 'sema $1'" 10
}

start_target() {
	: > "$OUT/target.out"
	"$BIN" wait 40 > "$OUT/target.out" &
	TP=$!
	sema_is 0 || problem "the target did not start: $(cat "$OUT/target.out")"
}

# SIGINT to kptrace itself: timeout(1), kpt_stop's target, passes a signal
# on to its child and to its whole process group, so a busy kptrace can see
# it twice, which means "exit now" (130), not "drain and stop".
kpt_int() {
	kill -INT $KP_KPT 2>/dev/null
	wait $KP
	RC=$?
	kpt_judge $RC $KP_ARGS
}

stop_target() {
	kill $TP 2>/dev/null
	wait $TP 2>/dev/null
}

# ---- 1. a reference counter: the semaphore is 1 while kptrace is attached
start_target
kpt_bg "$OUT/ref.err" "p:kpt/site $BIN:kpt_site($REF) v=%di:s32" "p:kpt/tick $BIN:kpt_tick" > "$OUT/ref.out"
UP=0
sema_is 1 && UP=1
check "PATH:SYM(REF_CTR_OFFSET): the kernel counts the semaphore up while kptrace is attached" test $UP = 1
check "... so the target calls its site, and kptrace prints it" \
	wait_for "grep -q ' site: (0x[0-9a-f]*) v=[0-9]' '$OUT/ref.out'" 10
kpt_int
check "... and back down when it detaches (exit $RC)" eval 'test $UP = 1 && sema_is 0'

# The same without a reference counter: the semaphore stays 0 and the site
# is never called, over rounds kptrace sees (kpt_tick: every round, twice).
kpt_bg "$OUT/noref.err" "p:kpt/site $BIN:kpt_site v=%di:s32" "p:kpt/tick $BIN:kpt_tick" > "$OUT/noref.out"
if wait_for "[ \$(grep -c ' tick: ' '$OUT/noref.out') -ge 2 ]" 10; then
	kpt_int
	check "without one, the semaphore stays 0 over the rounds kptrace saw tick in (exit $RC)" \
		test "$(tail -n 1 "$OUT/target.out")" = "sema 0" -a "$(grep -c ' site: ' "$OUT/noref.out")" = 0
else
	kpt_int
	fail "without a reference counter: kptrace saw no round of the target ($(head -c 300 "$OUT/noref.err"))"
fi

# ---- 2. against uprobe_events: the kernel's own probe counts it up too;
# with both attached (one uprobe, two consumers: counted once), every line
# kptrace prints is one the kernel printed
ftrace_clear
DEF="p:kpttest/site $BIN:$SITE($REF) v=%di:s32"
if echo "$DEF" >> $TRACEFS/uprobe_events 2> "$OUT/ftrace.err"; then
	echo 1 > $TRACEFS/events/kpttest/site/enable
	echo 1 > $TRACEFS/tracing_on
	check "uprobe_events takes the same definition: the semaphore is 1 ($DEF)" sema_is 1
	kpt_bg "$OUT/both.err" "$DEF" > "$OUT/both.out"
	wait_for "[ \$(grep -c ' site: ' '$OUT/both.out') -ge 3 ]" 10
	kpt_int
	check "kptrace detached: the kernel's probe still holds it, 1 (exit $RC)" \
		eval "test -s '$OUT/both.out' && sema_is 1"
	echo 0 > $TRACEFS/tracing_on
	norm < $TRACEFS/trace > "$OUT/both.ref"
	norm < "$OUT/both.out" > "$OUT/both.got"
	check "kptrace's $(wc -l < "$OUT/both.got") lines are the kernel's ($(head -n 1 "$OUT/both.got"))" \
		test -s "$OUT/both.got" -a -z "$(comm -13 "$OUT/both.ref" "$OUT/both.got")"
	ftrace_clear
	check "the kernel's probe removed: 0, nothing of kptrace's holds it" \
		eval "test -s '$OUT/both.out' && sema_is 0"
else
	fail "uprobe_events refuses $DEF: $(tail -n 3 $TRACEFS/error_log | tr '\n' ' ')"
fi
stop_target

# ---- 3. one event, two probe points (kprobe_multiprobe.tc, on uprobes): the
# lines of one run of the target, both tracers at once
ftrace_clear
D1="p:kpttest/multi $BIN:$TICK v=%di:s32"
D2="p:kpttest/multi $BIN:$TOCK v=%di:s32"
if echo "$D1" >> $TRACEFS/uprobe_events && echo "$D2" >> $TRACEFS/uprobe_events; then
	echo 1 > $TRACEFS/events/kpttest/multi/enable
	echo 1 > $TRACEFS/tracing_on
	kpt -c "$BIN count 3" "$D1" "$D2" > "$OUT/multi.out" 2> "$OUT/multi.err"
	echo 0 > $TRACEFS/tracing_on
	norm < $TRACEFS/trace > "$OUT/multi.ref"
	norm < "$OUT/multi.out" > "$OUT/multi.got"
	check "two probe points under one event: kptrace's lines equal the kernel's ($(wc -l < "$OUT/multi.got") lines)" \
		eval "test -s '$OUT/multi.ref' && diff '$OUT/multi.ref' '$OUT/multi.got'"
	check "... both points print as the one event ($(grep -c ' multi: ' "$OUT/multi.got") lines)" \
		test "$(grep -c ' multi: (0x[0-9a-f]*) v=' "$OUT/multi.got")" = 6
else
	fail "uprobe_events refuses a second probe on one event: $(tail -n 3 $TRACEFS/error_log | tr '\n' ' ')"
fi
ftrace_clear

# "-:EVENT PROBEPOINT" in a -f file removes that probe point only
printf '%s\n%s\n-:kpttest/multi %s\n' "$D1" "$D2" "$BIN:$TICK" > "$OUT/rm.defs"
kpt -c "$BIN count 3" -f "$OUT/rm.defs" > "$OUT/rm.out" 2> "$OUT/rm.err"
norm < "$OUT/rm.out" > "$OUT/rm.got"
check "-:EVENT PROBEPOINT removes that one: 3 lines, kpt_tock's ($(head -n 1 "$OUT/rm.got"))" \
	test "$(grep -c "multi: (0x$TOCKV) v=" "$OUT/rm.got")" = 3 -a "$(wc -l < "$OUT/rm.got")" = 3
printf '%s\n%s\n-:kpttest/multi\n%s\n' "$D1" "$D2" "$D2" > "$OUT/rm2.defs"
kpt -c "$BIN count 3" -f "$OUT/rm2.defs" > "$OUT/rm2.out" 2> "$OUT/rm2.err"
check "-:EVENT removes every probe point of it: 3 lines after adding one back" \
	test "$(norm < "$OUT/rm2.out" | wc -l)" = 3

# The refusals of appending, as uprobe_events logs them
KPT_RC=error kpt "p:kpttest/multi $BIN:$TICK v=%di:s32" "r:kpttest/multi $BIN:$TOCK v=%di:s32" \
	> /dev/null 2> "$OUT/diff.err"
check "a return probe appended to an entry event: the kernel's refusal" \
	grep -q '^kptrace: error: Probe type is different from existing probe$' "$OUT/diff.err"

# ---- 4. one definition, two parsers (issue 37): uprobe_events takes it and
# so does kptrace (which runs it: `-c true`), or both refuse it with the
# kernel's text (kptrace's own words may follow) and the caret in the same
# column. The kernel's creation is its parse; uprobe_register() runs at
# enable time, so a definition the kernel only refuses there is judged by
# enabling it.
# verdict DEF: KRC (0 taken, 1 refused), KMSG and KCOL (error_log's caret);
# PRC, PMSG and PCOL, kptrace's.
verdict() {
	local def=$1 ev
	ftrace_clear
	echo > $TRACEFS/error_log
	KMSG= KCOL=-1 KRC=0
	if printf '%s\n' "$def" >> $TRACEFS/uprobe_events 2> /dev/null; then
		ev=${def%% *}
		ev=${ev#*:}
		echo 1 > $TRACEFS/events/$ev/enable 2> /dev/null || KRC=2
		echo 0 > $TRACEFS/events/$ev/enable 2> /dev/null
	else
		KRC=1
		KMSG=$(tail -n 3 $TRACEFS/error_log | sed -n '1s/^\[[^]]*\] [a-z_]*: error: //p')
		KCOL=$(($(tail -n 1 $TRACEFS/error_log | wc -c) - 13))
	fi
	ftrace_clear
	KPT_RC=$([ $KRC = 0 ] && echo 0 || echo error) kpt -c true "$def" > "$OUT/verdict.out" \
		2> "$OUT/verdict.err"
	PRC=$?
	PMSG=$(sed -n 's/^kptrace: error: //p' "$OUT/verdict.err" | head -n 1)
	PCOL=$(awk '/^kptrace: error: / && !n { n = NR } n && NR == n + 2 { print length($0) - 3; exit }' \
		"$OUT/verdict.err")
}
# same WHAT DEF VERDICT: both take it, or both refuse it alike, as VERDICT says
same() {
	local what=$1 def=$2 want=$3
	verdict "$def"
	if [ "$want" = take ] && { [ $KRC != 0 ] || [ $PRC != 0 ]; }; then
		fail "$what: kernel $KRC '$KMSG' at $KCOL; kptrace $PRC '$PMSG' at $PCOL, want both to take it"
	elif [ "$want" = refuse ] && [ $KRC != 1 ]; then
		fail "$what: the kernel takes it ($KRC), want a refusal"
	elif [ $KRC = 0 ] && [ $PRC = 0 ]; then
		pass "$what: both take it"
	elif [ $KRC = 1 ] && [ $PRC = 1 ] && [ -n "$KMSG" ] && [ "${PMSG#"$KMSG"}" != "$PMSG" ] &&
	     [ "$KCOL" = "$PCOL" ]; then
		pass "$what: both refuse it: $KMSG, at $KCOL"
	else
		fail "$what: kernel $KRC '$KMSG' at $KCOL; kptrace $PRC '$PMSG' at $PCOL ($(head -n 2 "$OUT/verdict.err" | tr '\n' ' '))"
	fi
}
IMM=
for i in $(seq 1 128); do IMM="$IMM a$i=\\$i"; done
same "128 immediates at $BIN:10, an offset in no executable segment (dynevent_limitations.tc)" \
	"p:kpttest/imm $BIN:10$IMM" take
check "... kptrace says where it fires: in no executable segment, a note" \
	grep -q '^kptrace: note: offset 0xa of .* is in no executable segment' "$OUT/verdict.err"
same "a file no ELF, at an offset in it" "p:kpttest/txt /etc/hostname:1" take
same "an argument past 63 bytes (MAX_ARGSTR_LEN), the caret where its body starts" \
	"p:kpttest/long $BIN:$TICK +1234567(+1234567(+1234567(+1234567(+1234567(+1234567(@1234))))))" \
	refuse
same "an argument of 63 bytes" \
	"p:kpttest/fits $BIN:$TICK x=+1234567(+1234567(+1234567(+1234567(+1234567(+1234567(%di))))))" take
same "\$arg10000 on a uprobe" "p:kpttest/argn $BIN:$TICK \$arg10000" refuse
same "args=\$arg*: the kernel's own words for it" "p:kpttest/args $BIN:$TICK args=\$arg*" refuse
same "+0(\$arg*)" "p:kpttest/args $BIN:$TICK +0(\$arg*)" refuse
verdict "p:kpttest/past $BIN:0x7fffffff"
check "an offset past the file's end: uprobe_register() refuses it at enable, kptrace at once" \
	eval "test $KRC = 2 -a $PRC = 1 && grep -q 'Failed to register probe event (offset 0x7fffffff is past the end' '$OUT/verdict.err'"

finish
