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
TRACEFS=/sys/kernel/tracing
[ -e $TRACEFS/uprobe_events ] || mount -t tracefs nodev $TRACEFS 2>/dev/null
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

# Normalise a trace line: drop comm, CPU, flags and timestamp; keep pid and the rest.
norm() {
	sed -nE 's/^ *.*-([0-9]+) +(\([ 0-9-]+\) +)?\[[0-9]+\] [^ ]+ +[0-9]+\.[0-9]+: (.*)$/\1 \3/p'
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
		skip "$name: no writable uprobe_events"
		return
	fi
	ftrace_clear
	if ! echo "$def" >> $TRACEFS/uprobe_events 2>"$OUT/ftrace.err"; then
		fail "$name: the kernel refuses: $def ($(tail -n 2 $TRACEFS/error_log | tr '\n' ' '))"
		return
	fi
	echo 1 > $TRACEFS/events/kpttest/$name/enable
	echo 1 > $TRACEFS/tracing_on
	timeout 30 $KPT -c "$BIN $targs" "$def" > "$OUT/$name.kpt" 2> "$OUT/$name.err"
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
# probes): each path's records met the reference above.
path_of() {
	if $KPT --dry-run "$@" 2>&1 | grep -q '^stream: the record written straight from the registers'; then
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
# (a short-lived one gets the ELF address: see README, Known differences).
BIN_NOPIE=$BIN
BIN=$(realpath "$OUT")/target-pie
gcc -O0 -fno-inline -fpie -pie -g tests/host/target.c -o "$BIN"
diff_case pie_entry 'v=%di:s32' kpt_neg
diff_case pie_ret 'ret=$retval:s32' kpt_neg r '2 clean linger'
BIN=$BIN_NOPIE

# A tracepoint's fields (read from the handler's copy of the record's first
# words, or from the record), against the kernel's own event in the trace
# buffer, value by value: its print format names two fields differently and
# prints a char[] bare; each keeps the events its filter (and grep) keep.
# 1003 ignored real-time signals the target sends itself (not its exit's
# SIGCHLD); 20 execs of itself (not the first, of its own path): a
# __data_loc string and a field in the record's last, partial word.
tp_case() {
	local name=$1 ev=$2 args=$3 filter=$4 keep=$5 targs=$6 ren=$7 kfilter=${8:-}
	local bin=$OUT/kpt${name}
	cp "$BIN" "$bin"
	if [ ! -e $TRACEFS/events/$ev/enable ]; then
		skip "tracepoint $name: no $ev here"
		return
	fi
	ftrace_clear
	echo "$filter" > $TRACEFS/events/$ev/filter
	echo 1 > $TRACEFS/events/$ev/enable
	echo 1 > $TRACEFS/tracing_on
	timeout 30 $KPT -c "$bin $targs" "t:kpttest/$name $ev $args${kfilter:+ if $kfilter}" \
		> "$OUT/$name.kpt" 2> "$OUT/$name.err"
	local rc=$?
	echo 0 > $TRACEFS/tracing_on
	echo 0 > $TRACEFS/events/$ev/enable
	echo 0 > $TRACEFS/events/$ev/filter
	grep -v '^#' $TRACEFS/trace | norm | sed -E "s/^([0-9]+) [^ ]+: /\1 /; $ren" > "$OUT/$name.ref"
	ftrace_clear
	norm < "$OUT/$name.kpt" | sed -E 's/^([0-9]+) [^ ]+: /\1 /; s/="([^"]*)"/=\1/g' | grep -e "$keep" |
		head -n "$(wc -l < "$OUT/$name.ref")" > "$OUT/$name.got"
	judge "tracepoint $name" "$name" $rc "events' fields equal the kernel's ($ev $args${kfilter:+ if $kfilter})"
}
tp_case sig signal/signal_generate 'sig errno code comm pid group result' \
	'comm == "kptsig"' 'comm=kptsig ' signal 's/ grp=/ group=/; s/ res=/ result=/'
tp_case exec sched/sched_process_exec 'filename pid old_pid' \
	'filename ~ "*/self/exe"' '/self/exe ' 'exec 20' ''
# a filter on fields the definition does not list, as ftrace's event filters
# see every field: fetched for it, not printed (the reference's are cut)
tp_case sigf signal/signal_generate 'sig comm' \
	'comm == "kptsigf" && code == -1 && errno == 0' 'comm=kptsigf$' signal \
	's/ (errno|code|pid|grp|res)=[^ ]*//g' 'code == -1 && errno == 0'
# a code address the kernel prints with %ps (%pS: +off/size) prints alike;
# the sleeps' timers only: the tick's may start in the target's context
# before its exec, which kptrace sees (its pid) and ftrace not (its comm)
tp_case hrt timer/hrtimer_start 'function expires softexpires' \
	'comm == "kpthrt"' 'function=hrtimer_wakeup ' sleep \
	'/function=hrtimer_wakeup /!d; s/^([0-9]+) hrtimer=[^ ]* /\1 /; s/ mode=.*$//'
# and, as in ftrace, the event's own field before a built-in of that name:
# signal_generate's comm is the receiver's, the built-in the sender's (sh)
if [ -e $TRACEFS/events/signal/signal_generate ]; then
	got=$(timeout 30 $KPT -c "sh -c 'sleep 5 & sleep 1; kill -USR1 \$!; wait'" \
		't:s signal/signal_generate sig if comm == "sleep"' 2> "$OUT/tpcomm.err" |
		sed -E 's/^.*: //' | tr '\n' ';')
	check "tracepoint filter: comm is the event's field (the receiver), not the task's ($got)" \
		test "$got" = "sig=10;"
fi

echo "# values the reference cannot give (uprobe_events has no \$argN)"
expect_line() {
	local name=$1 def=$2 want=$3 got
	got=$(timeout 30 $KPT -c "$BIN" "$def" 2> "$OUT/$name.err" | head -n 1 | sed -E 's/^.*: \([^)]*\) ?//')
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
got=$(timeout 30 $KPT -c "$BIN recurse" "r:e $BIN:kpt_sleep ret=\$retval:s64 usec=\$arg1:s64 depth=\$arg2:s32" 2>"$OUT/edata.err" |
	sed -E 's/^.*: \([^)]*\) ?//' | sort | uniq -c | awk '{ $1 = $1; print }' | tr '\n' ';')
check "uretprobe entry arguments pair with their own call in a recursion ($got)" \
	test "$got" = "5 ret=0 usec=1000 depth=0;5 ret=1 usec=1000 depth=1;5 ret=2 usec=1000 depth=2;5 ret=3 usec=1000 depth=3;"
check "the entry probe saving them is in the profile" grep -qE 'uprobes/e__entry +20 ' "$OUT/edata.err"
expect_line symbol_target "p:s $BIN:kpt_str+4 s=+0(%di):string" 's="hello world"'
expect_line scalar_fault "p:a $BIN:kpt_struct id=+0(%di):s32 a=+28(%di):u16[2] n=+4(%di):string" \
	"id=42 a={1,2} n=\"obj-name\""
got=$(timeout 30 $KPT -c "$BIN" "p:a $BIN:kpt_struct id=+0(%di):s32 a=+28(%di):u16[2] b=+24(%di):b4@0/32" 2>/dev/null |
	sed -n 2p | sed -E 's/^.*: \([^)]*\) ?//')
check "faulted scalars, arrays and bitfields print (fault), never stale bytes ($got)" \
	test "$got" = "id=(fault) a=(fault) b=(fault)"

echo "# output formats and options"
$KPT --json -c "$BIN" "p:j $BIN:kpt_struct id=+0(%di):s32 name=+4(%di):string arr=+28(%di):u16[4] f=+24(%di):x32" \
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

$KPT -o "$OUT/o.txt" -c "$BIN 3" "p:o $BIN:kpt_neg v=%di:s32" 2> "$OUT/o.err"
check "-o FILE gets the events" test "$(grep -c 'o: (0x' "$OUT/o.txt")" = 3

cat > "$OUT/defs.txt" <<EOF
# a comment, then two probes, then one removed
p:one $BIN:kpt_neg v=%di:s32

p:two $BIN:kpt_str s=+0(%di):string
-:two
EOF
$KPT -f "$OUT/defs.txt" -c "$BIN" > "$OUT/f.out" 2> "$OUT/f.err"
check "-f: comments, blank lines and -:EVENT" \
	test "$(grep -c ' one: ' "$OUT/f.out"):$(grep -c ' two: ' "$OUT/f.out")" = "1:0"

$KPT --dry-run "p:d $BIN:kpt_struct id=+0(%di):s32 p=+0(+16(%di)):string" > "$OUT/dry.out" 2>&1
check "--dry-run prints the format" grep -q 'print fmt:' "$OUT/dry.out"
check "--dry-run attaches nothing" bash -c "! grep -q 'Attached' '$OUT/dry.out'"

# -p: a process that is not the target sees nothing; the target is seen.
"$BIN" 1000000 & other=$!
$KPT -p $$ -d 1 "p:pp $BIN:kpt_neg v=%di:s32" > "$OUT/p.out" 2>/dev/null
kill $other 2>/dev/null; wait $other 2>/dev/null
check "-p PID filters in the kernel (0 events from another pid)" test ! -s "$OUT/p.out"

echo "# profile, loss accounting, signals"
$KPT -c "$BIN 5" "p:h $BIN:kpt_neg v=%di:s32" > /dev/null 2> "$OUT/prof.err"
check "exit profile counts hits" grep -qE 'uprobes/h +5 ' "$OUT/prof.err"
$KPT "p:sig $BIN:kpt_neg" > /dev/null 2> "$OUT/sig.err" & kp=$!
wait_for "grep -q Attached $OUT/sig.err" 10
kill -INT $kp; wait $kp; rc=$?
check "SIGINT: clean exit 0 and a profile" test "$rc:$(grep -c PROBE "$OUT/sig.err")" = "0:1"
# The programs this kptrace loaded (ids new since it started: other kptraces
# may be running) are gone once it is SIGKILLed.
prog_ids() {
	bpftool -j prog show 2>/dev/null | python3 -c '
import json, sys
print(" ".join(str(p["id"]) for p in json.load(sys.stdin) if p.get("name", "").startswith("kpt_")))'
}
# SIGTERM and SIGHUP stop it as SIGINT does: exit 0, the profile, nothing left.
for sig in TERM HUP; do
	before=" $(prog_ids) "
	$KPT "p:s$sig $BIN:kpt_neg" > /dev/null 2> "$OUT/sig$sig.err" & kp=$!
	wait_for "grep -q Attached $OUT/sig$sig.err" 20
	mine=""
	for id in $(prog_ids); do [[ $before == *" $id "* ]] || mine="$mine $id"; done
	kill -$sig $kp; wait $kp; rc=$?
	left=""
	for id in $mine; do [[ " $(prog_ids) " == *" $id "* ]] && left="$left $id"; done
	check "SIG$sig: exit 0, a profile, its programs gone (had:$mine; left:$left)" \
		test "$rc:$(grep -c PROBE "$OUT/sig$sig.err"):${mine:+x}:$left" = "0:1:x:"
done
# SIGPIPE: the reader goes away (| head -n 1); kptrace ends by itself, cleanly.
before=" $(prog_ids) "
timeout 30 bash -c "$KPT -c '$BIN 2000' 'p:pipe $BIN:kpt_neg v=%di:s32' 2> '$OUT/pipe.err' | head -n 1" > "$OUT/pipe.out"
rc=$?
sleep 0.3
left=""
for id in $(prog_ids); do [[ $before == *" $id "* ]] || left="$left $id"; done
check "SIGPIPE (| head -n 1): one line, no hang, nothing left loaded (rc $rc, left:$left)" \
	test "$rc:$(wc -l < "$OUT/pipe.out"):$left" = "0:1:"
before=" $(prog_ids) "
$KPT "p:kill $BIN:kpt_neg" > /dev/null 2> "$OUT/kill.err" & kp=$!
wait_for "grep -q Attached $OUT/kill.err" 10
mine=""
for id in $(prog_ids); do [[ $before == *" $id "* ]] || mine="$mine $id"; done
kill -KILL $kp; wait $kp 2>/dev/null
sleep 0.5
after=" $(prog_ids) "
left=""
for id in $mine; do [[ $after == *" $id "* ]] && left="$left $id"; done
check "SIGKILL leaves no kptrace program loaded (had:$mine; left:$left)" \
	test -n "$mine" -a -z "$left"

echo "# refusals"
refuse() {
	local name=$1; shift
	"$KPT" "$@" > "$OUT/r.out" 2> "$OUT/r.err"
	local rc=$?
	if [ $rc != 0 ] && grep -q "$REFUSE_RE" "$OUT/r.err"; then
		pass "$name"
	else
		fail "$name: rc=$rc stderr: $(head -c 300 "$OUT/r.err")"
	fi
}
REFUSE_RE='\^' refuse "bad register gets a caret" "p $BIN:kpt_neg x=%foo"
REFUSE_RE='\^' refuse "bad type gets a caret" "p $BIN:kpt_neg x=%di:u7"
REFUSE_RE='no function' refuse "unknown uprobe symbol" "p $BIN:no_such_function"
if ! grep -qw register_kprobe /proc/kallsyms; then
	REFUSE_RE='no kprobe support' refuse "kprobes on a kernel without them: said plainly" \
		'p do_sys_openat2 dfd=%di'
fi

echo "# fentry/fexit: chosen per probe, refused plainly where the kernel has no trampolines"
$KPT --backend fentry --dry-run 'p:a vfs_read count' 'r:b vfs_read $retval' 'p:c vfs_read %di' \
	> "$OUT/fe.out" 2>&1
check "--backend fentry --dry-run: fentry, fexit, fentry" \
	test "$(grep '^attach:' "$OUT/fe.out" | tr '\n' ' ')" = \
	"attach: fentry (BPF trampoline) attach: fexit (BPF trampoline) attach: fentry (BPF trampoline) "
REFUSE_RE='cannot go through fentry/fexit, and this kernel has no kprobes: it reads a register' \
	refuse "--backend fentry: a probe a trampoline cannot take, no kprobes: said plainly" --backend fentry \
	'p:vfs_read %sp'
$KPT --backend fentry -d 1 'p:vfs_read count' > "$OUT/fe.out" 2> "$OUT/fe.err"
rc=$?
if [ $rc = 0 ]; then
	check "--backend fentry: attached through a trampoline" grep -q 'through fentry/fexit' "$OUT/fe.err"
else
	check "--backend fentry where the kernel refuses trampolines: said plainly" \
		grep -q 'the kernel refused fentry/fexit programs (.*) on vfs_read' "$OUT/fe.err"
fi
check "--backend fentry: no kptrace program left loaded" \
	test "$(bpftool prog show 2>/dev/null | grep -c ' name kpt_')" = 0

echo "# the default ring buffer: 1M per CPU, 1M to 32M"
$KPT -d 2 "p $BIN:kpt_neg x=%di" > /dev/null 2>&1 &
rp=$!
want=$(python3 -c 'import os; w = (1 << 20) * os.cpu_count(); r = 1 << 20
while r < w and r < 32 << 20: r <<= 1
print(r)')
got=
for i in $(seq 1 50); do
	got=$(bpftool map show name kpt_events 2>/dev/null | sed -n 's/.*max_entries \([0-9]*\).*/\1/p')
	[ -n "$got" ] && break
	sleep 0.1
done
wait $rp
check "default ring buffer for $(nproc) CPUs: $want bytes (got $got)" test "$got" = "$want"

echo "# maximal configuration through this kernel's verifier"
args=""
for i in $(seq 1 124); do args="$args a$i=%di:u8"; done
deep='+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+64(%di)))))))))))))):s32'
$KPT -c "$BIN" "p:max $BIN:kpt_struct$args deep=$deep s=+0(+16(%di)):string arr=+28(%di):u16[64] strs=+40(%di):string[3]" \
	> "$OUT/max.out" 2> "$OUT/max.err"
check "128 arguments, 14 dereferences, arrays of 64 load, attach and fire" \
	grep -q 'max: (0x' "$OUT/max.out"

finish
