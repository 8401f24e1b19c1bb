#!/usr/bin/env bash
# Host tests of USDT probes (u:PATH:PROVIDER:NAME): tests/host/usdt_target.c
# has sys/sdt.h probes of every argument form readelf -n shows (register,
# memory at an offset, constant, a global by %rip; 1, 2, 4 and 8 bytes,
# signed and unsigned), one at two locations and a semaphore-guarded one,
# fired a known number of times with known values; its semaphore read by
# the program itself while traced and after. libstdc++'s throw, rethrow
# and catch for a C++ program's known exceptions, each throw by its user
# stack against nm and objdump. Then Debian's python3.11
# (when its notes are there), with -p on the running interpreter (and u:*:,
# every object it maps): function__entry's file, function and line for a
# script of known calls, gc__start once per gc.collect() (automatic
# collection disabled), the semaphore read from /proc/PID/mem. Every
# expected value comes from the programs, their sources, readelf, nm and
# objdump.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/lib.sh

KPT=${KPT:-./kptrace}
OUT=.output/tests/host-usdt
mkdir -p "$OUT"
OUT=$(realpath "$OUT")
[ "$(id -u)" = 0 ] || skip_all "host tests need root (BPF, uprobes)"
[ -e /usr/include/sys/sdt.h ] || [ -e /usr/include/x86_64-linux-gnu/sys/sdt.h ] ||
	skip_all "no sys/sdt.h (Debian's systemtap-sdt-dev: make test-deps)"
PY=/usr/bin/python3.11
expect_checks 31
T=$OUT/usdt_target
gcc -O1 -g tests/host/usdt_target.c -o "$T" ||
	{ echo "FAIL - cannot build tests/host/usdt_target.c"; exit 1; }

# the note's argument text of probe $2 in file $1, as readelf prints it
note_args() {
	readelf -n "$1" | awk -v n="$2" '/Name:/ { hit = $2 == n } hit && /Arguments:/ {
		sub(/^ *Arguments: */, ""); print; exit }'
}
# the note's semaphore address of probe $2 in file $1
note_sema() {
	readelf -n "$1" | awk -v n="$2" '/Name:/ { hit = $2 == n } hit && /Semaphore:/ {
		print $NF; exit }'
}
echo "# kpt:mem $(note_args "$T" mem)"
echo "# kpt:reg $(note_args "$T" reg)"
echo "# kpt:imm $(note_args "$T" imm)"
echo "# kpt:global $(note_args "$T" global)"
check "the target's notes hold each form: SIZE@OFF(%REG), SIZE@%REG, SIZE@\$N, SIZE@SYM(%rip)" sh -c "
	note_mem='$(note_args "$T" mem)'; note_reg='$(note_args "$T" reg)'; note_imm='$(note_args "$T" imm)'
	note_glob='$(note_args "$T" global)'
	echo \"\$note_mem\" | grep -qE '(^| )-?[1248]@[0-9]+\\(%r' &&
	echo \"\$note_reg\" | grep -qE '(^| )-?[1248]@%' && echo \"\$note_imm\" | grep -qE '(^| )-?[1248]@\\\$' &&
	echo \"\$note_glob\" | grep -qE '^-4@kpt_rounds\\(%rip\\) -8@kpt_minus\\(%rip\\)$'"

# fields FILE EVENT: what follows "EVENT: (0x...) " on each of its lines
fields() { sed -nE "s/^.* $2: \\(0x[0-9a-f]+\\) (.*)\$/\\1/p" "$1"; }

echo "# every note argument, printed with the note's size and sign"
N=3
kpt "u:$T:kpt:*" -c "$T $N" > "$OUT/all.out" 2> "$OUT/all.err"
MEM="arg1=-5 arg2=250 arg3=-300 arg4=60000 arg5=-70000 arg6=4000000000 arg7=-5000000000 arg8=18000000000000000000"
check "kpt:mem: $N lines, each the program's 8 stack values ($(fields "$OUT/all.out" mem | head -n 1))" \
	[ "$(fields "$OUT/all.out" mem | sort | uniq -c | awk '{ $1 = $1; print }')" = "$N $MEM" ]
want_reg=$(for i in $(seq 0 $((N - 1))); do
	echo "arg1=$i arg2=$((-i)) arg3=$((-100000 - i)) arg4=$(((1 << 40) + i))"; done)
check "kpt:reg: i, -i, -100000-i, 2^40+i for i = 0..$((N - 1)) ($(fields "$OUT/all.out" reg | tr '\n' ';'))" \
	[ "$(fields "$OUT/all.out" reg)" = "$want_reg" ]
check "kpt:imm: the constants -7 and 5, $N times" \
	[ "$(fields "$OUT/all.out" imm | sort | uniq -c | awk '{ $1 = $1; print }')" = "$N arg1=-7 arg2=5" ]
check "kpt:global: the globals where they live, i + 1 and -77 ($(fields "$OUT/all.out" global | tr '\n' ';'))" \
	[ "$(fields "$OUT/all.out" global)" = "$(for i in $(seq 1 $N); do echo "arg1=$i arg2=-77"; done)" ]
check "kpt:twice: both locations, each with its own note's register: i, 10 * i ($(fields "$OUT/all.out" twice | tr '\n' ';'))" \
	[ "$(fields "$OUT/all.out" twice)" = "$(for i in $(seq 0 $((N - 1))); do echo "arg1=$i"; echo "arg1=$((10 * i))"; done)" ]
check "kpt:guarded: its semaphore raised, the program fired it $N times ($(grep guarded "$OUT/all.out" | tail -n 1))" \
	grep -qx "guarded $N" "$OUT/all.out"
check "... and kptrace printed those $N, i = 0..$((N - 1))" \
	[ "$(fields "$OUT/all.out" guarded | tr '\n' ' ')" = "$(for i in $(seq 0 $((N - 1))); do printf 'arg1=%d ' $i; done)" ]
check "the glob's 7 locations (6 probes, kpt:twice at two) counted on stderr" grep -q "kpt:\*': 7 USDT locations" "$OUT/all.err"
"$T" $N > "$OUT/untraced.out"
check "untraced, the program's semaphore stays 0: kpt:guarded fired 0 times" grep -qx "guarded 0" "$OUT/untraced.out"

echo "# arguments named, typed, dereferenced, filtered"
kpt "u:$T:kpt:reg neg=arg2 big=arg4:x64 low=arg1:u8 if neg < -1" -c "$T 4" > "$OUT/named.out"
check "named arguments keep the note's types, a :TYPE overrides, the filter sees them ($(fields "$OUT/named.out" reg | tr '\n' ';'))" \
	[ "$(fields "$OUT/named.out" reg | tr '\n' ';')" = "neg=-2 big=0x10000000002 low=2;neg=-3 big=0x10000000003 low=3;" ]
kpt --json "u:ev $T:k*:twice" -c "$T 2" > "$OUT/ev.out"
check "a named event on a provider glob: group sdt_kpt (the match's provider), event ev_twice, 4 hits" \
	[ "$(grep -c '"group":"sdt_kpt","event":"ev_twice"' "$OUT/ev.out")" = 4 ]
kpt count "u:$T:kpt:mem" -c "$T 7" > "$OUT/count.out"
CNT=$(grep -A2 '^sdt_kpt/mem:' "$OUT/count.out" | tail -n 1 | tr -d ' ')
check "count: 7 hits of kpt:mem ($CNT)" [ "$CNT" = 7 ]

echo "# the semaphore: raised while kptrace is attached, lowered after"
rm -f "$OUT/in"
mkfifo "$OUT/in"
"$T" wait < "$OUT/in" > "$OUT/wait.out" &
TP=$!
exec 7> "$OUT/in"
ask() { echo >&7; wait_for "[ \$(wc -l < '$OUT/wait.out') -ge $1 ]" 10; tail -n 1 "$OUT/wait.out"; }
S0=$(ask 1)
S1=
if kpt_bg "$OUT/sem.err" "u:$T:kpt:guarded" > /dev/null; then
	S1=$(ask 2)
	kpt_stop
fi
S2=$(ask 3)
exec 7>&-
wait $TP
check "the program's semaphore: 0 before, 1 while traced, 0 after ($S0; $S1; $S2)" \
	[ "$S0;$S1;$S2" = "semaphore 0;semaphore 1;semaphore 0" ]

echo "# list and refusals"
kpt list "u:$T" > "$OUT/list.out" 2> "$OUT/list.err"
ok=1
for n in mem reg imm global guarded; do
	loc=$(readelf -n "$T" | awk -v n="$n" '/Name:/ { hit = $2 == n } hit && /Location:/ {
		sub(/,$/, "", $2); print $2; exit }')
	grep -q "^kpt:$n at 0x$(printf '%x' $((loc))) .*semaphore 0x$(printf '%x' $(($(note_sema "$T" $n))))" \
		"$OUT/list.out" || ok=0
done
check "list u:PATH: each probe's location and semaphore as readelf -n says them" test $ok = 1
check "list u:PATH: kpt:mem's 8 arguments, each as read" \
	grep -q '^kpt:mem .*arg1=+[0-9]*(%sp):s8 .*arg8=+[0-9]*(%sp):u64$' "$OUT/list.out"
check "list u:PATH: 7 locations" [ "$(wc -l < "$OUT/list.out")" = 7 ]
KPT_RC=error kpt "u:$T:kpt:imm arg3" > /dev/null 2> "$OUT/arg3.err"
check "an argument past the note's: refused with the note's text" \
	grep -q 'kpt:imm has 2 arguments ("-4@\$-7 -4@\$5"): no arg3' "$OUT/arg3.err"
KPT_RC=error kpt "u:$T:kpt:nope" > /dev/null 2> "$OUT/nope.err"
check "no such probe: refused with the file's probes" \
	grep -q "no USDT probe of $T matches kpt:nope (it has: [a-z:, ]*kpt:global[a-z:, ]*)" "$OUT/nope.err"
KPT_RC=error kpt "u:$T:kpt_nope" > /dev/null 2> "$OUT/noprov.err"
check "PATH:SYMBOL under u: refused, pointing at p:" grep -q 'a function is p:PATH:SYMBOL' "$OUT/noprov.err"

# ---- libstdc++'s probes, a shared library's: found through the program's ldd
X=$OUT/usdt_throw
g++ -O1 tests/host/usdt_throw.cc -o "$X" || { echo "FAIL - cannot build tests/host/usdt_throw.cc"; exit 1; }
LIB=$(ldd "$X" | awk '/libstdc\+\+/ { print $3 }')
kpt count "u:$LIB:libstdcxx:*" -c "$X" > "$OUT/cxx.out" 2> /dev/null
check "libstdc++: throw 7, rethrow 2, catch 9 for the program's 7 throws, 2 rethrows ($(grep -c . "$OUT/cxx.out") lines)" \
	sh -c "grep -q '^caught 9$' '$OUT/cxx.out' && grep -qE '^ +7  sdt_libstdcxx/throw$' '$OUT/cxx.out' &&
	       grep -qE '^ +2  sdt_libstdcxx/rethrow$' '$OUT/cxx.out' && grep -qE '^ +9  sdt_libstdcxx/catch$' '$OUT/cxx.out'"
# by stack (count --by ustack): each throw's user stack, frame by frame,
# against the binaries: the leaf the probe's own address in the libstdc++
# function nm says holds readelf's location of libstdcxx:throw; then
# thrower(int) and main at the return addresses objdump shows after their
# calls (thrower's to __cxa_throw, main's to thrower: the 5-round loop's
# call first, the 2 rounds' after it), then libc's start. 7 in all.
kpt count "u:$LIB:libstdcxx:throw" --by ustack -c "$X" > "$OUT/cxx-stk.out" 2> "$OUT/cxx-stk.err"
readelf -nW "$LIB" > "$OUT/cxx-notes.txt"
nm -D -S --defined-only "$LIB" > "$OUT/cxx-nm.txt"
objdump -d --no-show-raw-insn "$X" > "$OUT/cxx-dis.txt"
check "libstdc++ throw --by ustack: 7 stacks __cxa_throw, thrower(int), main as readelf, nm and objdump place them ($(grep -c '=> main+' "$OUT/cxx-stk.out") main frames)" \
	python3 - "$OUT/cxx-stk.out" "$OUT/cxx-notes.txt" "$OUT/cxx-nm.txt" "$OUT/cxx-dis.txt" <<'PYEOF'
import re, subprocess, sys
out, notes, nm, dis = (open(f).read() for f in sys.argv[1:])
loc = int(re.search(r"Provider: libstdcxx\s+Name: throw\s+Location: (0x[0-9a-f]+)", notes).group(1), 16)
leaf = None
for a, size, name in re.findall(r"^([0-9a-f]+) ([0-9a-f]+) T (\S+?)(?:@@?\S+)?$", nm, re.M):
    if int(a, 16) <= loc < int(a, 16) + int(size, 16):
        leaf = "%s+0x%x" % (name, loc - int(a, 16))
# every instruction (address, text, its function), in address order: a
# call's return address is the next one's, a noreturn call's too
insns, fn = [], None
for l in dis.splitlines():
    m = re.match(r"^([0-9a-f]+) <(\S+)>:$", l) or re.match(r"^ +([0-9a-f]+):\s+(.*)$", l)
    if m and l[0] != " ":
        fn = (m.group(2), int(m.group(1), 16))
    elif m:
        insns.append((int(m.group(1), 16), m.group(2), fn))
def rets(name, callee):
    """name+off of the return address of each of name's calls to callee, in address order"""
    shown = subprocess.run(["c++filt", name], stdout=subprocess.PIPE, text=True).stdout.strip()
    return ["%s+0x%x" % (shown, insns[i + 1][0] - f[1]) for i, (a, ins, f) in enumerate(insns[:-1])
            if f and f[0] == name and re.match(r"call\s+\S+ <%s>" % re.escape(callee), ins)]
thr = rets("_ZL7throweri", "__cxa_throw@plt")
mains = rets("main", "_ZL7throweri")
stacks = {}
for count, frames in re.findall(r"^ +(\d+)\n((?: => .*\n?)+)", out, re.M):
    fr = [re.match(r" => (\S+)", l).group(1) for l in frames.splitlines()]
    stacks[tuple(fr[:3])] = stacks.get(tuple(fr[:3]), 0) + int(count)
    if len(fr) < 5 or not (fr[3].startswith("__libc_start_call_main+") and
                           fr[4].startswith("__libc_start_main+")):
        sys.exit("not libc's start past main: %s" % fr)
want_first = (leaf, thr[0], mains[0])
ok = (leaf and len(thr) == 1 and len(mains) >= 2 and stacks.get(want_first) == 5 and
      sum(stacks.values()) == 7 and
      all(k[:2] == (leaf, thr[0]) and k[2] in mains for k in stacks))
print("stacks %s; want leaf %s, thrower %s, main %s" % (stacks, leaf, thr, mains))
sys.exit(0 if ok else 1)
PYEOF
# u:*: with -c: the objects the program links, found as ld.so finds them,
# here a copy of libstdc++ through the program's DT_RUNPATH ($ORIGIN/lib):
# the reference is the program's own counts and ldd's choice of the copy
mkdir -p "$OUT/lib"
cp "$LIB" "$OUT/lib/"
g++ -O1 tests/host/usdt_throw.cc -Wl,--enable-new-dtags,-rpath,'$ORIGIN/lib' -o "$X.rp" ||
	{ echo "FAIL - cannot build tests/host/usdt_throw.cc with a run path"; exit 1; }
kpt count 'u:*:libstdcxx:*' -c "$X.rp" > "$OUT/cxx-all.out" 2> "$OUT/cxx-all.err"
check "u:*:libstdcxx:* with -c: the libstdc++ ldd picks ($(ldd "$X.rp" | awk '/libstdc\+\+/ { print $3 }')), throw 7, rethrow 2, catch 9; $(grep -o "[0-9]* USDT locations in [0-9]* objects*" "$OUT/cxx-all.err")" \
	sh -c "[ '$(ldd "$X.rp" | awk '/libstdc\+\+/ { print $3 }')' = '$OUT/lib/$(basename "$LIB")' ] &&
	       grep -q \"of -c's program: [0-9]* USDT locations in 1 object\$\" '$OUT/cxx-all.err' &&
	       grep -q '^caught 9$' '$OUT/cxx-all.out' && grep -qE '^ +7  sdt_libstdcxx/throw$' '$OUT/cxx-all.out' &&
	       grep -qE '^ +2  sdt_libstdcxx/rethrow$' '$OUT/cxx-all.out' && grep -qE '^ +9  sdt_libstdcxx/catch$' '$OUT/cxx-all.out'"

# ---- python3.11: -p on a running interpreter
if [ ! -x $PY ] || ! readelf -n $PY 2>/dev/null | grep -q 'Name: function__entry'; then
	for i in 1 2 3 4 5 6 7 8; do skip "no $PY with USDT notes"; done
	finish
	exit
fi
S=$OUT/calls.py
cat > "$S" <<'PYEOF'
import gc, sys
gc.disable()
def f(x):
    return x
def g(x):
    return f(x)
sys.stdin.readline()
list(map(f, range(3)))
list(map(g, range(2)))
for i in range(4):
    gc.collect()
print("done", flush=True)
sys.stdin.readline()
PYEOF
LF=$(grep -n '^def f' "$S" | cut -d: -f1)
LG=$(grep -n '^def g' "$S" | cut -d: -f1)
SEMA=$(note_sema $PY function__entry)
# the semaphore's two bytes in process $1's memory
sema_of() { dd if=/proc/$1/mem bs=1 skip=$((SEMA)) count=2 2>/dev/null | od -An -tu2 | tr -d ' '; }
rm -f "$OUT/pin"
mkfifo "$OUT/pin"
$PY "$S" < "$OUT/pin" > "$OUT/py.out" &
PP=$!
exec 8> "$OUT/pin"
wait_for "[ -r /proc/$PP/mem ] && grep -q python3 /proc/$PP/comm" 10
P0=$(sema_of $PP)
P1=
# python3.11 fires function__entry only while its line probe is enabled too:
# that one is on, its events filtered out
if kpt_bg "$OUT/py.err" -p $PP "u:$PY:python:function__entry file=+0(arg1):ustring func=+0(arg2):ustring line=arg3" \
	"u:$PY:python:line if arg3 < 0" "u:*:python:gc__start" > "$OUT/pytrace.out"; then
	P1=$(sema_of $PP)
	echo >&8
	wait_for "grep -q done '$OUT/py.out'" 10
	kpt_stop
fi
P2=$(sema_of $PP)
echo >&8
exec 8>&-
wait $PP
PRC=$?
grep -F "file=\"$S\"" "$OUT/pytrace.out" | sed -E 's/^.* function__entry: \(0x[0-9a-f]+\) //' > "$OUT/py.entries"
want="func=\"f\" line=$LF
func=\"f\" line=$LF
func=\"f\" line=$LF
func=\"g\" line=$LG
func=\"f\" line=$LF
func=\"g\" line=$LG
func=\"f\" line=$LF"
check "python3.11 -p: function__entry of the script's calls, function and first line exact ($(sed 's/file="[^"]*" //' "$OUT/py.entries" | tr '\n' ';'))" \
	[ "$(sed 's/file="[^"]*" //' "$OUT/py.entries")" = "$want" ]
check "python3.11: gc__start once per gc.collect(): 4 ($(grep -c ' gc__start: ' "$OUT/pytrace.out"))" \
	[ "$(grep -c ' gc__start: ' "$OUT/pytrace.out")" = 4 ]
check "python3.11: u:*:python:gc__start with -p found in the one object of the process's that has it" \
	grep -q "^kptrace: 'u:\*:python:gc__start' of process $PP: 1 USDT location in 1 object$" "$OUT/py.err"
check "python3.11: gc.collect()'s generation 2 in arg1" \
	[ "$(sed -nE 's/^.* gc__start: \(0x[0-9a-f]+\) //p' "$OUT/pytrace.out" | sort -u)" = "arg1=2" ]
check "python3.11: no line event passed the filter" [ "$(grep -c ' line: ' "$OUT/pytrace.out")" = 0 ]
check "python3.11: function__entry's semaphore in /proc/PID/mem: 0 before, 1 while traced, 0 after ($P0; $P1; $P2)" \
	[ "$P0;$P1;$P2" = "0;1;0" ]
check "python3.11: the script ran to its end (exit $PRC)" [ "$PRC" = 0 ]
kpt list "u:$PY:python:gc__*" > "$OUT/pylist.out" 2> /dev/null
check "list u:PATH:PROVIDER:GLOB: python's gc__start and gc__done, gc__start's -4@112(%rsp)-like argument as read" \
	sh -c "[ \$(wc -l < '$OUT/pylist.out') = 2 ] && grep -q '^python:gc__start at .* arg1=[+-][0-9]*(%sp):s32$' '$OUT/pylist.out'"
finish
