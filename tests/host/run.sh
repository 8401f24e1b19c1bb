#!/usr/bin/env bash
# Host tests: the real verifier, real uprobes, on this machine's kernel.
# The kernel's own uprobe_events tracer is the reference: for each definition
# both tracers watch the same run of tests/host/target and must print the
# same lines apart from the timestamp, CPU and flags columns.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/lib.sh

# KPT=.output/kptrace-san: the same checks on the ASan+UBSan build
KPT=${KPT:-./kptrace}
OUT=.output/tests/host
mkdir -p "$OUT"
BIN=$(realpath "$OUT")/target
gcc -O0 -fno-inline -no-pie -g tests/host/target.c -o "$BIN" || { echo "cannot build target"; exit 1; }

if [ "$(id -u)" != 0 ]; then
	skip_all "host tests need root (BPF, uprobes)"
fi
# the checks below: 67, and the refusal of kprobes where the kernel has none
NOKPROBES=0
grep -qw register_kprobe /proc/kallsyms || NOKPROBES=1
expect_checks $((67 + NOKPROBES))
TRACEFS=/sys/kernel/tracing
[ -e $TRACEFS/uprobe_events ] || mount -t tracefs nodev $TRACEFS 2>/dev/null
# Without the kernel's tracer there is no reference: each differential case
# is an environment fault (a failure under make test), never a quiet skip.
HAVE_FTRACE=0
[ -w $TRACEFS/uprobe_events ] && HAVE_FTRACE=1

# File offset of a symbol in $BIN, as uprobe_events wants it: its vaddr less
# the vaddr - offset of the LOAD segment holding it.
foff() {
	local vaddr off va memsz
	vaddr=$((16#$(readelf -sW "$BIN" | awk -v f="$1" '$8 == f { print $2 }')))
	while read -r off va memsz; do
		if [ $vaddr -ge $((va)) ] && [ $vaddr -lt $((va + memsz)) ]; then
			printf '0x%x' $((vaddr - va + off))
			return
		fi
	done < <(readelf -lW "$BIN" | awk '$1 == "LOAD" { print $2, $3, $6 }')
}

# Normalise a trace line: drop CPU, flags and timestamp; keep comm-pid and
# the rest (both tracers name the task that hit the probe).
norm() {
	sed -nE 's/^ *([^ ].*)-([0-9]+) +(\([ 0-9-]+\) +)?\[[0-9]+\] [^ ]+ +[0-9]+\.[0-9]+: (.*)$/\1-\2 \4/p'
}

ftrace_clear() {
	echo 0 > $TRACEFS/tracing_on
	echo 0 > $TRACEFS/events/enable 2>/dev/null
	grep -E '^[pr]:kpttest/' $TRACEFS/uprobe_events 2>/dev/null | sed -E 's/^[pr]:([^ ]+).*/-:\1/' |
		while read -r l; do echo "$l" >> $TRACEFS/uprobe_events; done
	: > $TRACEFS/trace
}

# judge LABEL NAME RC PASSED: kptrace's lines ($OUT/NAME.got, its exit code
# RC) against ftrace's ($OUT/NAME.ref).
judge() {
	local label=$1 name=$2 rc=$3 passed=$4
	if [ $rc != 0 ]; then
		fail "$label: kptrace exit $rc: $(head -c 600 "$OUT/$name.err")"
	elif [ ! -s "$OUT/$name.ref" ]; then
		fail "$label: ftrace recorded nothing"
	elif ! diff -u "$OUT/$name.ref" "$OUT/$name.got" > "$OUT/$name.diff"; then
		fail "$label: differs from ftrace's:"
		head -20 "$OUT/$name.diff"
	else
		pass "$label: $(wc -l < "$OUT/$name.got") $passed"
	fi
}

# diff_case NAME 'FETCHARGS...' FUNC [p|r [TARGET-ARGS]]: same definition through both
# tracers. The target runs "clean" (no NULL pointers) unless told otherwise: where
# a scalar read faults the kernel's tracer prints stale bytes and kptrace (fault).
diff_case() {
	local name=$1 args=$2 func=$3 kind=${4:-p} targs=${5:-2 clean} off def
	off=$(foff "$func")
	def="$kind:kpttest/$name $BIN:$off $args"
	if [ $HAVE_FTRACE = 0 ]; then
		env_fault "$name: no writable $TRACEFS/uprobe_events (tracefs not mounted?): no reference"
		return
	fi
	ftrace_clear
	if ! echo "$def" >> $TRACEFS/uprobe_events 2>"$OUT/ftrace.err"; then
		fail "$name: the kernel refuses: $def ($(tail -n 2 $TRACEFS/error_log | tr '\n' ' '))"
		return
	fi
	echo 1 > $TRACEFS/events/kpttest/$name/enable
	echo 1 > $TRACEFS/tracing_on
	kpt -c "$BIN $targs" "$def" > "$OUT/$name.kpt" 2> "$OUT/$name.err"
	local rc=$?
	echo 0 > $TRACEFS/tracing_on
	grep -v '^#' $TRACEFS/trace | norm > "$OUT/$name.ref"
	ftrace_clear
	norm < "$OUT/$name.kpt" > "$OUT/$name.got"
	judge "$name" "$name" $rc "lines equal ftrace's ($def)"
}

echo "# differential: kptrace vs the kernel's uprobe_events"
diff_case regs 'a=%di b=%si:u16 c=%dx:s32 d=%cx:x64 e=%r8:s64 f=%r9:u8' kpt_args6
diff_case widths 'a8=%di:s8 a16=%di:x16 a32=%di:x32 s64=%dx:s64 u64=%cx:u64 ch=%r9:char' kpt_args6
diff_case defaults '%di %si %dx' kpt_args6
diff_case stack 'ret=$stack0 s1=$stack1:s64 s2=$stack2:u32 sp=$stack' kpt_args8
diff_case deref 'id=+0(%di):s32 name=+4(%di):string path=+0(+16(%di)):string' kpt_struct
diff_case nested 'inner=+0(+64(%di)):s32 ipath=+0(+16(+64(%di))):string iname=+4(+64(%di)):string' kpt_struct
diff_case neg_offs 'back=-4(+64(%di)):s32 b2=-16(+64(%di)):x64' kpt_struct
diff_case ustring 'u=+0(%di):ustring' kpt_str
diff_case arrays 'arr=+28(%di):u16[4] ids=+0(%di):x8[4]' kpt_struct
diff_case strarr 'strs=+40(%di):string[3]' kpt_struct
diff_case bitfield 'mode=+24(%di):b4@0/32 level=+24(%di):b8@4/32 rest=+24(%di):b20@12/32' kpt_struct
diff_case str_faults 'name=+4(%di):string p=+0(+16(%di)):string' kpt_struct p '2 nulls'
diff_case neg_imm 'i=\-1:s8 j=\0xffffffff:s32 k=\18446744073709551615:u64' kpt_neg
diff_case retval 'ret=$retval:s32' kpt_neg r
diff_case retstr 'ret=+0($retval):string' kpt_str r
diff_case comm 'c=$comm' kpt_neg
diff_case imm 'i=\1234 h=\0x10:x8 n=\-5:s32' kpt_neg
diff_case longstr 's=+0(%di):string' kpt_str
diff_case fileoffs "m=@+$(foff kpt_magic):string m4=@+$(foff kpt_magic):x32" kpt_neg

# Which of the cases above the handler streamed straight from the registers
# into the ring buffer (a run of one probe whose arguments are all argument
# registers, %ax or $retval as they are: regs, widths, defaults, retval) and
# which took the generic path (a memory read, a stack slot, a filter, two
# probes): each path's records met the reference above. --dry-run prints
# the stream line for the direct path and nothing for the generic one, so a
# run that failed, or explained fewer events than it was given, is "error".
path_of() {
	kpt --dry-run "$@" > "$OUT/path.out" 2>&1
	if [ $? != 0 ] || [ "$(grep -c '^print fmt:' "$OUT/path.out")" != $# ]; then
		echo error
	elif grep -q '^stream: the record written straight from the registers' "$OUT/path.out"; then
		echo direct
	else
		echo generic
	fi
}
got=""
for d in "p:a $BIN:kpt_args6 a=%di b=%si:u16 c=%dx:s32 d=%cx:x64 e=%r8:s64 f=%r9:u8" \
	 "p:a $BIN:kpt_args6 a8=%di:s8 a16=%di:x16 s64=%dx:s64 u64=%cx:u64 ch=%r9:char" \
	 "p:a $BIN:kpt_args6 %di %si %dx" "r:a $BIN:kpt_neg ret=\$retval:s32" \
	 "p:a $BIN:kpt_args6 \$arg1:s8 \$arg6:char" "p:a $BIN:kpt_args6"; do
	got="$got$(path_of "$d") "
done
for d in "p:a $BIN:kpt_args8 ret=\$stack0 a=%di" "p:a $BIN:kpt_struct id=+0(%di):s32" \
	 "p:a $BIN:kpt_args6 a=%di if a > 0" "p:a $BIN:kpt_args6 a=%di b=%bx" \
	 "p:a $BIN:kpt_args6 \$arg1 \$arg2 \$arg3 \$arg4 \$arg5 \$arg6 \$arg1 \$arg2 \$arg3"; do
	got="$got$(path_of "$d") "
done
got="$got$(path_of "p:a $BIN:kpt_args6 a=%di" "p:b $BIN:kpt_neg b=%di")"
check "direct stream: registers, widths, defaults, \$retval, \$argN, no argument; not a stack slot, memory, a filter, %bx, 9 arguments, two probes ($got)" \
	test "$got" = "direct direct direct direct direct direct generic generic generic generic generic generic"

# A PIE: the kernel prints where the function is mapped in the process; kptrace
# reads it from /proc/PID/maps, so the process must outlive its events' output
# (a short-lived one gets the ELF address: kptrace-definitions(5), KNOWN
# DIFFERENCES FROM FTRACE).
BIN_NOPIE=$BIN
BIN=$(realpath "$OUT")/target-pie
gcc -O0 -fno-inline -fpie -pie -g tests/host/target.c -o "$BIN"
diff_case pie_entry 'v=%di:s32' kpt_neg
diff_case pie_ret 'ret=$retval:s32' kpt_neg r '2 clean linger'
BIN=$BIN_NOPIE

# A tracepoint's fields (read from the handler's copy of the record's first
# words, or from the record), against the kernel's own event in the trace
# buffer, value by value: its print format names two fields differently and
# prints a char[] bare. kptrace traces the whole system: KEEP (an extended
# regex on the normalised line: comm-pid, then the fields) keeps the events
# the kernel's filter keeps, by the same fields, and every one of them is
# compared, none cut by count.
# 1003 ignored real-time signals the target sends itself (not its exit's
# SIGCHLD); 20 execs of itself (not the first, of its own path): a
# __data_loc string and a field in the record's last, partial word.
tp_case() {
	local name=$1 ev=$2 args=$3 filter=$4 keep=$5 targs=$6 ren=$7 kfilter=${8:-} onepid=${9:-}
	local bin=$OUT/kpt${name}
	cp "$BIN" "$bin"
	if [ $HAVE_FTRACE = 0 ]; then
		env_fault "tracepoint $name: no writable $TRACEFS: no reference"
		return
	fi
	if [ ! -e $TRACEFS/events/$ev/enable ]; then
		skip "tracepoint $name: no $ev here"
		return
	fi
	ftrace_clear
	echo "$filter" > $TRACEFS/events/$ev/filter
	echo 1 > $TRACEFS/events/$ev/enable
	echo 1 > $TRACEFS/tracing_on
	kpt -c "$bin $targs" "t:kpttest/$name $ev $args${kfilter:+ if $kfilter}" \
		> "$OUT/$name.kpt" 2> "$OUT/$name.err"
	local rc=$?
	echo 0 > $TRACEFS/tracing_on
	echo 0 > $TRACEFS/events/$ev/enable
	echo 0 > $TRACEFS/events/$ev/filter
	grep -v '^#' $TRACEFS/trace | norm | sed -E "s/^([^ ]+) [^ ]+: /\1 /; $ren" > "$OUT/$name.ref"
	ftrace_clear
	norm < "$OUT/$name.kpt" | sed -E 's/^([^ ]+) [^ ]+: /\1 /; s/="([^"]*)"/=\1/g' |
		grep -E -e "$keep" > "$OUT/$name.got"
	# ONEPID=N: the workload is one process making N events, and the kernel's
	# filter cannot tell it from others making them meanwhile (runc execs
	# /proc/self/exe too): the reference is that process's events, N of them
	if [ -n "$onepid" ]; then
		local pid
		pid=$(sed -n '1s/^[^ ]*-\([0-9]*\) .*/\1/p' "$OUT/$name.got")
		grep -E "^[^ ]*-${pid:-none} " "$OUT/$name.ref" > "$OUT/$name.ref1"
		mv "$OUT/$name.ref1" "$OUT/$name.ref"
		if [ "$(wc -l < "$OUT/$name.ref")" != "$onepid" ]; then
			fail "tracepoint $name: the kernel's trace has $(wc -l < "$OUT/$name.ref") events of pid ${pid:-?}, the workload made $onepid"
			return
		fi
	fi
	judge "tracepoint $name" "$name" $rc "events' fields equal the kernel's ($ev $args${kfilter:+ if $kfilter})"
}
tp_case sig signal/signal_generate 'sig errno code comm pid group result' \
	'comm == "kptsig"' ' comm=kptsig ' signal 's/ grp=/ group=/; s/ res=/ result=/'
tp_case exec sched/sched_process_exec 'filename pid old_pid' \
	'filename ~ "*/self/exe"' '^[^ ]+ filename=[^ ]*/self/exe ' 'exec 20' '' '' 20
# a filter on fields the definition does not list, as ftrace's event filters
# see every field: fetched for it, not printed (the reference's are cut)
tp_case sigf signal/signal_generate 'sig comm' \
	'comm == "kptsigf" && code == -1 && errno == 0' ' comm=kptsigf$' signal \
	's/ (errno|code|pid|grp|res)=[^ ]*//g' 'code == -1 && errno == 0'
# a code address the kernel prints with %ps (%pS: +off/size) prints alike;
# the sleeps' timers only (the tick's may start in the target's context);
# hrtimer_start has no comm field: the filter's comm is the task's, the
# comm column kptrace's lines are kept by
tp_case hrt timer/hrtimer_start 'function expires softexpires' \
	'comm == "kpthrt"' '^kpthrt-[0-9]+ function=hrtimer_wakeup ' sleep \
	'/function=hrtimer_wakeup /!d; s/^([^ ]+) hrtimer=[^ ]* /\1 /; s/ mode=.*$//'
# and, as in ftrace, the event's own field before a built-in of that name:
# signal_generate's comm is the receiver's, the built-in the sender's (sh)
if [ -e $TRACEFS/events/signal/signal_generate ]; then
	got=$(kpt -c "sh -c 'sleep 5 & sleep 1; kill -USR1 \$!; wait'" \
		't:s signal/signal_generate sig if comm == "sleep"' 2> "$OUT/tpcomm.err" |
		sed -E 's/^.*: //' | tr '\n' ';')
	check "tracepoint filter: comm is the event's field (the receiver), not the task's ($got)" \
		test "$got" = "sig=10;"
else
	skip "tracepoint filter on comm: no signal/signal_generate here"
fi

echo "# a uretprobe's function in processes gone before their lines are read"
# Issue 37: a PIE's function is at another address in each process. Three
# short runs under a system-wide kptrace: by the time it reads their
# records they have exited, and their maps with them. The kernel's own
# uretprobe on the same function, at the same time, prints each run's
# run-time address, as kptrace must (it printed the ELF's, 0x1334).
PIE=$(realpath "$OUT")/target-pie
if ! gcc -O0 -fno-inline -pie -fPIE -g tests/host/target.c -o "$PIE"; then
	fail "cannot build a PIE of tests/host/target.c"
elif [ $HAVE_FTRACE = 0 ]; then
	env_fault "pie_ret: no writable $TRACEFS/uprobe_events: no reference"
else
	def="r:kpttest/pieret $PIE:$(BIN=$PIE foff kpt_neg) ret=\$retval:s32"
	ftrace_clear
	if echo "$def" >> $TRACEFS/uprobe_events 2> "$OUT/ftrace.err"; then
		echo 1 > $TRACEFS/events/kpttest/pieret/enable
		echo 1 > $TRACEFS/tracing_on
		if kpt_bg "$OUT/pieret.err" "$def" > "$OUT/pieret.kpt"; then
			for i in 1 2 3; do "$PIE" 2 clean > /dev/null; done
			sleep 0.5
			kpt_stop
		fi
		echo 0 > $TRACEFS/tracing_on
		grep -v '^#' $TRACEFS/trace | norm > "$OUT/pieret.ref"
		ftrace_clear
		norm < "$OUT/pieret.kpt" > "$OUT/pieret.got"
		judge "uretprobe in a PIE, 3 processes gone before their lines are read" pieret \
			"${RC:-1}" "lines equal ftrace's ($(grep -m1 -o '(.*)' "$OUT/pieret.got"))"
	else
		fail "pie_ret: the kernel refuses: $def"
	fi
fi

echo "# values the reference cannot give (uprobe_events has no \$argN)"
expect_line() {
	local name=$1 def=$2 want=$3 got
	kpt -c "$BIN" "$def" > "$OUT/$name.out" 2> "$OUT/$name.err"
	got=$(head -n 1 "$OUT/$name.out" | sed -E 's/^.*: \([^)]*\) ?//')
	if [ "$got" = "$want" ]; then
		pass "$name: $want"
	else
		fail "$name: want '$want' got '$got' ($(head -c 400 "$OUT/$name.err"))"
	fi
}
expect_line args1to6 "p:a $BIN:kpt_args6 \$arg1:s8 \$arg2:u16 \$arg3:s32 \$arg4:x64 \$arg5:s64 \$arg6:char" \
	"arg1=-5 arg2=65535 arg3=-2000000000 arg4=0xfedcba9876543210 arg5=-1 arg6='K'"
expect_line args7to8 "p:a $BIN:kpt_args8 \$arg7:u8 \$arg8:u8 \$arg1:u8" "arg1=7 arg2=8 arg3=1"
# entry arguments at a return: saved per thread and call depth, so a
# recursion's returns each see their own call's arguments
got=$(kpt -c "$BIN recurse" "r:e $BIN:kpt_sleep ret=\$retval:s64 usec=\$arg1:s64 depth=\$arg2:s32" 2>"$OUT/edata.err" |
	sed -E 's/^.*: \([^)]*\) ?//' | sort | uniq -c | awk '{ $1 = $1; print }' | tr '\n' ';')
check "uretprobe entry arguments pair with their own call in a recursion ($got)" \
	test "$got" = "5 ret=0 usec=1000 depth=0;5 ret=1 usec=1000 depth=1;5 ret=2 usec=1000 depth=2;5 ret=3 usec=1000 depth=3;"
check "the entry probe saving them is in the profile" grep -qE 'uprobes/e__entry +20 ' "$OUT/edata.err"
expect_line symbol_target "p:s $BIN:kpt_str+4 s=+0(%di):string" 's="hello world"'
expect_line scalar_fault "p:a $BIN:kpt_struct id=+0(%di):s32 a=+28(%di):u16[2] n=+4(%di):string" \
	"id=42 a={1,2} n=\"obj-name\""
got=$(kpt -c "$BIN" "p:a $BIN:kpt_struct id=+0(%di):s32 a=+28(%di):u16[2] b=+24(%di):b4@0/32" 2> "$OUT/faults.err" |
	sed -E 's/^.*: \([^)]*\) ?//' | tr '\n' ';')
check "faulted scalars, arrays and bitfields print (fault), never stale bytes ($got)" \
	test "$got" = "id=42 a={1,2} b=3;id=(fault) a=(fault) b=(fault);"

echo "# output formats and options"
kpt --json -c "$BIN" "p:j $BIN:kpt_struct id=+0(%di):s32 name=+4(%di):string arr=+28(%di):u16[4] f=+24(%di):x32" \
	> "$OUT/json.out" 2> "$OUT/json.err"
if python3 - "$OUT/json.out" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert len(rows) == 2, rows
a = rows[0]["args"]
assert a["id"] == 42 and a["name"] == "obj-name" and a["arr"] == [1, 2, 65535, 4], a
assert a["f"] == "0xabcde5a3", a
assert rows[1]["args"]["id"] is None, rows[1]
EOF
then pass "--json: typed values, faults as null"; else fail "--json: $(head -c 300 "$OUT/json.out")"; fi

kpt -o "$OUT/o.txt" -c "$BIN 3" "p:o $BIN:kpt_neg v=%di:s32" 2> "$OUT/o.err"
check "-o FILE gets the events" test "$(grep -c 'o: (0x' "$OUT/o.txt")" = 3

cat > "$OUT/defs.txt" <<EOF
# a comment, then two probes, then one removed
p:one $BIN:kpt_neg v=%di:s32

p:two $BIN:kpt_str s=+0(%di):string
-:two
EOF
kpt -f "$OUT/defs.txt" -c "$BIN" > "$OUT/f.out" 2> "$OUT/f.err"
check "-f: comments, blank lines and -:EVENT" \
	test "$(grep -c ' one: ' "$OUT/f.out"):$(grep -c ' two: ' "$OUT/f.out")" = "1:0"

kpt --dry-run "p:d $BIN:kpt_struct id=+0(%di):s32 p=+0(+16(%di)):string" > "$OUT/dry.out" 2>&1
check "--dry-run prints the format" grep -q 'print fmt:' "$OUT/dry.out"
check "--dry-run attaches nothing" bash -c "! grep -q 'Attached' '$OUT/dry.out'"

# -p: while a spinner hits the probe every millisecond, -p of another
# process sees nothing, -p of the spinner sees it (and only it).
"$BIN" spin & other=$!
kpt -p $$ -d 1 "p:pp $BIN:kpt_neg v=%di:s32" > "$OUT/p.out" 2> "$OUT/p.err"
rc=$?
kpt -p $other -d 1 "p:pp $BIN:kpt_neg v=%di:s32" > "$OUT/p2.out" 2> "$OUT/p2.err"
rc2=$?
kill $other 2>/dev/null; wait $other 2>/dev/null
n=$(wc -l < "$OUT/p2.out")
mine=$(norm < "$OUT/p2.out" | grep -cE "^target-$other pp: \(0x[0-9a-f]+\) v=1$")
check "-p PID filters in the kernel: another pid's run exits 0 with no event (rc $rc, $(wc -l < "$OUT/p.out") lines)" \
	test "$rc:$(wc -c < "$OUT/p.out")" = "0:0"
check "-p PID: the same run on the spinner's pid sees its events, only its (rc $rc2, $mine of $n)" \
	test "$rc2:$((n > 0)):$mine" = "0:1:$n"

echo "# profile, loss accounting, signals"
kpt -c "$BIN 5" "p:h $BIN:kpt_neg v=%di:s32" > /dev/null 2> "$OUT/prof.err"
check "exit profile counts hits" grep -qE 'uprobes/h +5 ' "$OUT/prof.err"
gone() {
	wait_for "[ -z \"\$(still_loaded $*)\" ]" 10
	still_loaded "$@"
}
# a run that did not attach: end it (bounded), its status already recorded
abandon() {
	[ -n "$KP_KPT" ] && kill -KILL $(tree_of $KP_KPT) 2>/dev/null
	kill $KP 2>/dev/null
	wait $KP 2>/dev/null
}
uprobe_events() { cat $TRACEFS/uprobe_events 2>/dev/null; }
# SIGINT, SIGTERM and SIGHUP each stop it: exit 0, the profile, its
# programs (it had some) gone, uprobe_events as it was.
for sig in INT TERM HUP; do
	ue=$(uprobe_events)
	if kpt_bg "$OUT/sig$sig.err" "p:s$sig $BIN:kpt_neg" > /dev/null; then
		mine=$(held_by $KP_KPT)
		kpt_stop $sig
		left=$(gone $mine)
		same=$([ "$(uprobe_events)" = "$ue" ] && echo same || echo changed)
		check "SIG$sig: exit 0, a profile, its programs gone, uprobe_events $same (rc $RC; had:$mine; left:$left)" \
			test "$RC:$(grep -c PROBE "$OUT/sig$sig.err"):${mine:+x}:$left:$same" = "0:1:x::same"
	else
		abandon
		fail "SIG$sig: kptrace did not attach: $(head -c 300 "$OUT/sig$sig.err")"
	fi
done
# SIGPIPE: the reader goes away (| head -n 1); kptrace ends by itself,
# cleanly: its own status (not head's), one line, nothing left loaded.
before=" $(prog_ids) "
ue=$(uprobe_events)
kpt -c "$BIN 2000" "p:pipe $BIN:kpt_neg v=%di:s32" 2> "$OUT/pipe.err" | head -n 1 > "$OUT/pipe.out"
rc=${PIPESTATUS[0]}
if wait_for '[ -z "$(orphans "$before")" ]' 10; then left=""; else left=$(orphans "$before"); fi
same=$([ "$(uprobe_events)" = "$ue" ] && echo same || echo changed)
check "SIGPIPE (| head -n 1): kptrace's exit 0, one line, nothing left loaded, uprobe_events $same (rc $rc, left:$left)" \
	test "$rc:$(wc -l < "$OUT/pipe.out"):$left:$same" = "0:1::same"
# SIGKILL to kptrace itself (not to timeout): the kernel drops what it held.
# Where KPT is a wrapper, its processes too: a kptrace left running would
# keep the suite's lock (an inherited fd) and its probes.
ue=$(uprobe_events)
if kpt_bg "$OUT/kill.err" "p:kill $BIN:kpt_neg" > /dev/null && [ -n "$KP_KPT" ]; then
	mine=$(held_by $KP_KPT)
	kill -KILL $(tree_of $KP_KPT)
	wait $KP 2>/dev/null
	rc=$?
	left=$(gone $mine)
	same=$([ "$(uprobe_events)" = "$ue" ] && echo same || echo changed)
	check "SIGKILL leaves no kptrace program loaded, uprobe_events $same (rc $rc; had:$mine; left:$left)" \
		test "$rc:${mine:+x}:$left:$same" = "137:x::same"
else
	abandon
	fail "SIGKILL: kptrace did not attach (or no pid of its own): $(head -c 300 "$OUT/kill.err")"
fi
echo "# refusals"
# refuse NAME ARGS...: exit 1 (a refusal, not a crash) and stderr matching
# $REFUSE_RE; with $CARET, the last argument (the definition) is echoed and
# a caret stands under the first occurrence of $CARET in it.
refuse() {
	local name=$1 where; shift
	KPT_RC=error kpt "$@" > "$OUT/r.out" 2> "$OUT/r.err"
	local rc=$?
	where=ok
	if [ -n "${CARET:-}" ]; then
		where=$(python3 - "$OUT/r.err" "${!#}" "$CARET" <<'PY'
import sys
err, text, tok = open(sys.argv[1]).read().split("\n"), sys.argv[2], sys.argv[3]
col = text.find(tok)
for i, l in enumerate(err[:-1]):
    if l == "  " + text:
        nxt = err[i + 1]
        print("ok" if nxt == "  " + " " * col + "^" else
              "caret at column %d, want %d (under %r)" % (len(nxt) - 3, col, tok))
        break
else:
    print("the definition is not echoed")
PY
)
	fi
	if [ $rc = 1 ] && grep -q -e "$REFUSE_RE" "$OUT/r.err" && [ "$where" = ok ]; then
		pass "$name"
	else
		fail "$name: rc=$rc, ${where}, stderr: $(head -c 300 "$OUT/r.err")"
	fi
}
REFUSE_RE='Invalid register name' CARET=%foo refuse "bad register: a caret under it" "p $BIN:kpt_neg x=%foo"
REFUSE_RE='Unknown type' CARET=u7 refuse "bad type: a caret under it" "p $BIN:kpt_neg x=%di:u7"
REFUSE_RE='no function' CARET= refuse "unknown uprobe symbol" "p $BIN:no_such_function"
if [ $NOKPROBES = 1 ]; then
	REFUSE_RE='no kprobe support' CARET= refuse "kprobes on a kernel without them: said plainly" \
		'p do_sys_openat2 dfd=%di'
fi

echo "# fentry/fexit: chosen per probe, refused plainly where the kernel has no trampolines"
kpt --backend fentry --dry-run 'p:a vfs_read count' 'r:b vfs_read $retval' 'p:c vfs_read %di' \
	> "$OUT/fe.out" 2>&1
check "--backend fentry --dry-run: fentry, fexit, fentry" \
	test "$(grep '^attach:' "$OUT/fe.out" | tr '\n' ' ')" = \
	"attach: fentry (BPF trampoline) attach: fexit (BPF trampoline) attach: fentry (BPF trampoline) "
if [ $NOKPROBES = 1 ]; then
	REFUSE_RE='cannot go through fentry/fexit, and this kernel has no kprobes: it reads a register' \
		CARET= refuse "--backend fentry: a probe a trampoline cannot take, no kprobes: said plainly" \
		--backend fentry 'p:vfs_read %sp'
else
	# with kprobes, the probe a trampoline cannot take goes through one, and says why
	kpt --backend fentry --dry-run 'p:vfs_read %sp' > "$OUT/fek.out" 2>&1
	check "--backend fentry: a probe a trampoline cannot take goes through a kprobe, said" \
		grep -q '^not fentry: .*register' "$OUT/fek.out"
fi
# Whether this kernel takes trampolines is what the run finds out: exit 0
# (attached) or 1 (refused) are both answers, judged below, not by kpt.
fe_before=" $(prog_ids) "
KPT_PROBLEMS=$OUT/fe.problems kpt --backend fentry -d 1 'p:vfs_read count' > "$OUT/fe.out" 2> "$OUT/fe.err"
rc=$?
if [ $rc = 0 ]; then
	check "--backend fentry: attached through a trampoline" grep -q 'through fentry/fexit' "$OUT/fe.err"
elif [ $rc = 1 ]; then
	check "--backend fentry where the kernel refuses trampolines: said plainly" \
		grep -q 'the kernel refused fentry/fexit programs (.*) on vfs_read' "$OUT/fe.err"
else
	fail "--backend fentry: exit $rc, neither attached nor refused: $(head -c 300 "$OUT/fe.err")"
fi
if wait_for '[ -z "$(orphans "$fe_before")" ]' 10; then left=""; else left=$(orphans "$fe_before"); fi
check "--backend fentry: no kptrace program left loaded (left:$left)" test -z "$left"

echo "# the default ring buffer: 1M per CPU, 1M to 32M"
want=$(python3 -c 'import os; w = (1 << 20) * os.cpu_count(); r = 1 << 20
while r < w and r < 32 << 20: r <<= 1
print(r)')
got=
if kpt_bg "$OUT/rb.err" "p $BIN:kpt_neg x=%di" > /dev/null; then
	# this kptrace's ring buffer: the kpt_events map among the maps it
	# holds open (other kptraces may have theirs)
	ids=$(for p in $(tree_of $KP_KPT); do cat /proc/$p/fdinfo/* 2>/dev/null; done |
		sed -n 's/^map_id:[[:space:]]*//p' | tr '\n' ' ')
	got=$(bpftool -j map show 2>/dev/null | python3 -c '
import json, sys
ids = set(int(i) for i in sys.argv[1].split())
print(" ".join(str(m["max_entries"]) for m in json.load(sys.stdin)
               if m.get("name") == "kpt_events" and m["id"] in ids))' "$ids")
	kpt_stop INT
else
	abandon
fi
check "default ring buffer for $(nproc) CPUs: $want bytes (got $got)" test "$got" = "$want"

echo "# maximal configurations through this kernel's verifier, each counting what the workload does"
# 128 arguments, the deepest dereference, the longest array; the target's
# one round: kpt_struct(&o), then kpt_struct(NULL), every read a fault
args=""
for i in $(seq 1 124); do args="$args a$i=%di:u8"; done
# (60 bytes: an argument is at most 63 after NAME=, as ftrace's MAX_ARGSTR_LEN)
deep='+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+64(%di))))))))))))))'
kpt --json -c "$BIN" "p:max $BIN:kpt_struct$args deep=$deep s=+0(+16(%di)):string arr=+28(%di):u16[64] strs=+40(%di):string[3]" \
	> "$OUT/max.out" 2> "$OUT/max.err"
if python3 - "$OUT/max.out" <<'EOF2'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
assert len(rows) == 2, len(rows)
a, b = rows[0]["args"], rows[1]["args"]
assert len(a) == 128 and list(a)[:124] == ["a%d" % i for i in range(1, 125)], list(a)
assert len(set(a["a%d" % i] for i in range(1, 125))) == 1, "a1..a124: one register"
assert a["s"] == "/etc/hostname" and a["strs"] == ["zero", "one", ""], a
assert len(a["arr"]) == 64 and a["arr"][:4] == [1, 2, 65535, 4], a["arr"]
# inner.id, 7, read as the 13th pointer: its target faults
assert a["deep"] is None, a["deep"]
# through NULL: a fetch faults as a whole, and a string array's elements
# are pointers each read (and faulting) on its own (ftrace prints the first
# as (fault), then stale bytes: kptrace-definitions(5), KNOWN DIFFERENCES)
assert all(b[k] is None for k in ("s", "arr", "deep")) and b["strs"] == [None] * 3, b
EOF2
then pass "128 arguments, 14 dereferences, arrays of 64: load, attach, both calls' values"
else fail "128 arguments, 14 dereferences, arrays of 64: $(head -c 400 "$OUT/max.out") $(head -c 300 "$OUT/max.err")"; fi

# The largest filter the compiler takes: 16 operations in each of its two
# programs (KPT_MAX_PRED), 4 string constants in each (KPT_MAX_PRED_STR),
# '(' nested 32 deep, 33 nodes in all. Before the fetch: comm, pid, tid,
# cpu, all true for the target (its comm "kptmax"); after: of "dist"'s
# 0..999 ("small" below 500, "big" from 500) and 3 x 7 ("seven"), the odd
# values 11..989 but 501: 245 small (11..499), 244 big (503..989).
MAXB=$OUT/kptmax
cp "$BIN" "$MAXB"
P=$(printf '%.0s(' $(seq 32)); Q=$(printf '%.0s)' $(seq 32))
FPRE="comm != \"nope0\" && comm != \"nope1\" && comm ~ \"kptm*\" && !(comm == \"nope2\") && pid > 0 && tid > 0 && cpu < 4096 && ${P}pid != 1$Q"
FPOST='n >= 10 && n <= 989 && (tag == "small" || tag == "big" || tag ~ "sev*") && tag != "zzz" && !(n == 501) && n & 1'
FMAX="$FPRE && $FPOST"
# the values the filter keeps, in the workload's order
WANT_N=$(python3 -c 'print(",".join(str(n) for n in list(range(1000)) + [7] * 3 if 10 <= n <= 989 and n != 501 and n & 1))')
# 125 arguments besides n, k and tag: the record at its most arguments
pad=""
for i in $(seq 1 62); do pad="$pad r$i=%di:u8 m$i=+0(%si):u8"; done
pad="$pad r63=%si:u64"
SZ="$MAXB:kpt_size n=%di:u64 k=+0(%si):u8 tag=+0(%si):ustring$pad"
kpt --dry-run "p:fmax $SZ if $FMAX" > "$OUT/fmax.dry" 2>&1
kpt --json -c "$MAXB dist" "p:fmax $SZ if $FMAX" > "$OUT/fmax.json" 2> "$OUT/fmax.err"
if python3 - "$OUT/fmax.json" "$WANT_N" "$OUT/fmax.dry" <<'EOF2'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
want = [int(n) for n in sys.argv[2].split(",")]
dry = open(sys.argv[3]).read()
assert "filter, before fetching: comm !=" in dry and "filter, after fetching: n >= 10" in dry, dry[-600:]
assert [r["args"]["n"] for r in rows] == want, [r["args"]["n"] for r in rows][:20]
assert all(len(r["args"]) == 128 and r["comm"] == "kptmax" for r in rows)
assert all(r["args"]["tag"] == ("small" if r["args"]["n"] < 500 else "big") and
           r["args"]["k"] == ord(r["args"]["tag"][0]) for r in rows)
EOF2
then pass "filter at its maxima (16 + 16 operations, 4 + 4 strings, 32 levels), 128 arguments: the 489 values it keeps"
else fail "filter at its maxima: $(head -c 300 "$OUT/fmax.json") $(tail -c 400 "$OUT/fmax.dry") $(head -c 300 "$OUT/fmax.err")"; fi
REFUSE_RE='Too many terms in predicate expression' CARET='tid != 1' \
	refuse "filter: one operation more than its maxima is refused" "p:fmax $SZ if $FMAX && tid != 1"

# hist: the most linear buckets (KPT_LINEAR_MAX 4096: 0..4093 one value
# each, under- and overflow), through the filter above: one count each
kpt hist --json --linear 0,4094,1 -c "$MAXB dist" "p:fmax $SZ if $FMAX" n > "$OUT/hmax.json" 2> "$OUT/hmax.err"
json_max() {
	local name=$1 file=$2 expr=$3 err=$4
	if python3 - "$file" "$expr" "$WANT_N" "${PID_REF:-0}" <<'EOF2'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
want = [int(n) for n in sys.argv[3].split(",")]
pid = int(sys.argv[4])
def ones(h):
    return [(b["min"], b["max"], b["count"]) for b in h["buckets"] if b["count"]]
sys.exit(0 if eval(sys.argv[2], {"rows": rows, "want": want, "pid": pid, "ones": ones}) else 1)
EOF2
	then pass "$name"; else fail "$name: $(head -c 600 "$file") $(head -c 300 "$err")"; fi
}
json_max "hist at its maxima: 4096 linear buckets, the filter at its maxima, 128 arguments: one count per kept value" \
	"$OUT/hmax.json" 'len(rows) == 1 and ones(rows[0]["hist"]) == [(n, n, 1) for n in want] and rows[0]["hist"]["count"] == 489 and rows[0]["hist"]["sum"] == sum(want)' \
	"$OUT/hmax.err"
REFUSE_RE='--linear: 4097 buckets, at most 4096' CARET= \
	refuse "hist: one linear bucket more is refused" hist --linear 0,4095,1 "p:fmax $SZ" n

# keyed hist: the most keys (KPT_MAX_KEYS 4: k, pid, tid, cpu), the most
# buckets and the filter; pinned to one CPU, the target telling its pid
CPU=$(($(nproc) - 1))
kpt hist --json --by k,pid,tid,cpu --linear 0,4094,1 -c "taskset -c $CPU $MAXB dist pid" \
	"p:fmax $SZ if $FMAX" n > "$OUT/kmax.json" 2> "$OUT/kmax.err"
PID_REF=$(sed -n 's/^target pid //p' "$OUT/kmax.err")
PID_REF=$PID_REF json_max "keyed hist at its maxima: 4 keys (k, pid, tid, cpu), 4096 buckets, the filter: per key exact (pid ${PID_REF:-?})" \
	"$OUT/kmax.json" "sorted((r['key']['k'], r['key']['pid'], r['key']['tid'], r['key']['cpu'], ones(r['hist'])) for r in rows) == \
		sorted([('98', str(pid), str(pid), '$CPU', [(n, n, 1) for n in want if n >= 500]), ('115', str(pid), str(pid), '$CPU', [(n, n, 1) for n in want if n < 500])]) and pid > 0" \
	"$OUT/kmax.err"
REFUSE_RE='--by: at most 4 keys' CARET= \
	refuse "--by: a fifth key is refused" hist --by k,pid,tid,cpu,comm "p:fmax $SZ" n

# latency: "sleep" sleeps 1, 2 and 4 ms in turn, 30 calls; the entry's
# filter at its maxima (comm both before and after the fetch) keeps the 2
# and 4 ms ones: 20 calls. Keyed by the widest key (comm, pid, tid: 4
# words); each call lasts at least its sleep.
LPOST='(usec == 2000 || usec == 4000 || comm == "zz0") && (depth < 1 || comm == "zz1") && !(usec == 3000 || comm == "zz2" || comm == "zz3")'
lpad=""
for i in $(seq 1 63); do lpad="$lpad r$i=%di:u8 q$i=%si:s32"; done
LAT="$MAXB:kpt_sleep usec=%di:s64 depth=%si:s32$lpad if $FPRE && $LPOST"
kpt latency --json --by comm,pid,tid -o "$OUT/lmax.json" -c "$MAXB sleep pid" "$LAT" > "$OUT/lmax.ref" 2> "$OUT/lmax.err"
PID_REF=$(sed -n 's/^target pid //p' "$OUT/lmax.err")
PID_REF=$PID_REF json_max "latency at its maxima: the entry's filter (16 + 16), 128 arguments, keys comm,pid,tid: 20 calls of >= 2 ms (pid ${PID_REF:-?})" \
	"$OUT/lmax.json" "[(r['key'], r['hist']['count']) for r in rows] == [({'comm': 'kptmax', 'pid': str(pid), 'tid': str(pid)}, 20)] and rows[0]['hist']['min'] >= 2e6 and pid > 0" \
	"$OUT/lmax.err"

# latency --pmu: the most counters (KPT_PMU_MAX 4), software ones, with the
# filter; pinned, so no call is left out: 20 calls counted by each, every
# 2-4 ms sleep switching out at least once
kpt latency --json --pmu cpu-clock,page-faults,context-switches,task-clock -o "$OUT/pmax.json" \
	-c "taskset -c $CPU $MAXB sleep" "$LAT" > "$OUT/pmax.ref" 2> "$OUT/pmax.err"
json_max "latency --pmu at its maxima: 4 counters, the filter: 20 calls each, >= 1 context switch a call, none left out" \
	"$OUT/pmax.json" "len(rows) == 1 and rows[0]['hist']['count'] == 20 and \
		[(p['event'], p['hist']['count']) for p in rows[0]['pmu']] == [(e, 20) for e in ('cpu-clock', 'page-faults', 'context-switches', 'task-clock')] and \
		rows[0]['pmu'][2]['hist']['min'] >= 1 and rows[0]['pmu_left_out'] == {'migrated': 0, 'multiplexed': 0, 'failed': 0}" \
	"$OUT/pmax.err"
REFUSE_RE='--pmu: at most 4 counters' CARET= \
	refuse "--pmu: a fifth counter is refused" latency --pmu cpu-clock,page-faults,context-switches,task-clock,minor-faults "$MAXB:kpt_sleep"

# A tracepoint at its maxima: 128 fields (each of signal_generate's seven,
# then copies), the filter at its maxima on the event's own fields and the
# built-ins it does not hide (tid, cpu). "signal" sends 1003 ignored
# signals to itself, i-th: 34 + i % 10, by kill (code 0), sigqueue (-1,
# to the group) or tgkill (-6) in turn; kept: sigqueue's (i % 3 == 1) but
# signal 34: 300, each ignored (result 1, to the group 1, errno 0).
SG=signal/signal_generate
if [ -e $TRACEFS/events/$SG ]; then
	TPB=$OUT/kptmaxtp
	cp "$BIN" "$TPB"
	targs="sig errno code comm pid group result"
	for i in $(seq 1 17); do
		for f in sig errno code comm pid group result; do targs="$targs $f$i=$f"; done
	done
	targs="$targs sig18=sig code18=code"
	TPRE='tid > 0 && cpu < 4096 && tid != 1 && tid != 2 && tid != 3 && cpu != 4097 && cpu != 4098 && !(tid == 4)'
	TPOST='comm == "kptmaxtp" && comm != "x1" && (comm ~ "kpt*" || comm ~ "zz*") && code == -1 && sig != 34 && errno == 0 && !(result == 99)'
	WANT_SIG=$(python3 -c 'print(",".join(str(34 + i % 10) for i in range(1003) if i % 3 == 1 and i % 10))')
	kpt --json -c "$TPB signal" "t:kpttest/tpmax $SG $targs if $TPRE && $TPOST" > "$OUT/tpmax.json" 2> "$OUT/tpmax.err"
	if python3 - "$OUT/tpmax.json" "$WANT_SIG" <<'EOF2'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
want = [int(s) for s in sys.argv[2].split(",")]
assert len(want) == 300
assert [r["args"]["sig"] for r in rows] == want, [r["args"]["sig"] for r in rows][:20]
for r in rows:
    a = r["args"]
    assert len(a) == 128, len(a)
    assert r["comm"] == "kptmaxtp" and r["pid"] == r["tid"] == a["pid"], r
    assert (a["errno"], a["code"], a["comm"], a["group"], a["result"]) == (0, -1, "kptmaxtp", 1, 1), a
    for k, v in a.items():
        base = k.rstrip("0123456789")
        assert v == a[base], (k, v, base, a[base])
EOF2
	then pass "tracepoint at its maxima: 128 fields, the filter at its maxima: the 300 signals it keeps, every field"
	else fail "tracepoint at its maxima: $(head -c 600 "$OUT/tpmax.json") $(head -c 300 "$OUT/tpmax.err")"; fi
else
	skip "tracepoint at its maxima: no $SG here"
fi

finish
