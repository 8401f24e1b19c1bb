#!/usr/bin/env bash
# Host tests of stacks: -K's kernel stacks against the kernel's own
# stacktrace trigger on the same tracepoint and workload; count --by kstack
# and --folded against the per-event stacks; -U's user stacks of a known
# call chain (tests/host/stacks_target.c) in a non-PIE, a PIE, a static
# binary, a shared library and C++ (names demangled, as c++filt prints
# them), and of a process that exits at once, against the call sites
# objdump finds in the binaries; -U and --by ustack --folded at each
# function's entry of tests/host/unwind_target.c (-O1 with frame pointers,
# -O2 without: unwound from .eh_frame, or .debug_frame, the binary's or its
# debug file's), libc's getppid and malloc and Debian's bash against gdb's bt.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/lib.sh
. tests/host/stacklib.sh

KPT=${KPT:-./kptrace}
OUT=.output/tests/host/stacks
mkdir -p "$OUT"
OUT=$(realpath "$OUT")
[ "$(id -u)" = 0 ] || skip_all "host tests need root (BPF, uprobes, tracefs)"
expect_checks 114

# frame pointers and no inlining: the chain is the source's
CFL="-O0 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls -fno-inline"
S=tests/host/stacks_target.c
gcc $CFL -no-pie $S -o "$OUT/stk-nopie" &&
	gcc $CFL -fPIE -pie $S -o "$OUT/stk-pie" &&
	gcc $CFL -fPIC -shared tests/host/stacks_lib.c -o "$OUT/libstacks.so" &&
	gcc $CFL -DSTACKS_LIB -no-pie $S -L"$OUT" -lstacks -Wl,-rpath,"$OUT" -o "$OUT/stk-lib" ||
	{ echo "FAIL - cannot build tests/host/stacks_target.c"; exit 1; }
gcc -O1 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls -no-pie \
	tests/host/stacks_inline.c -o "$OUT/stk-inline" ||
	{ echo "FAIL - cannot build tests/host/stacks_inline.c"; exit 1; }
gcc $CFL -no-pie tests/host/stacks_jit.c -o "$OUT/stk-jit" ||
	{ echo "FAIL - cannot build tests/host/stacks_jit.c"; exit 1; }
g++ $CFL -no-pie tests/host/stacks_cxx.cc -o "$OUT/stk-cxx" ||
	{ echo "FAIL - cannot build tests/host/stacks_cxx.cc"; exit 1; }
HAVE_STATIC=1
gcc $CFL -static $S -o "$OUT/stk-static" 2> "$OUT/static.err" || HAVE_STATIC=0

T=/sys/kernel/tracing
[ -e $T/instances ] || mount -t tracefs nodev $T 2>/dev/null
INST=$T/instances/kpt_stacks_$$
cleanup() {
	for e in sched/sched_process_exec syscalls/sys_enter_openat; do
		echo 0 > "$INST/events/$e/enable" 2>/dev/null
		echo '!stacktrace' > "$INST/events/$e/trigger" 2>/dev/null
	done
	rmdir "$INST" 2>/dev/null
	[ -n "${KI:-}" ] && [ -d "$KI" ] && { echo 0 > "$KI/events/kmem/kmalloc/enable"; rmdir "$KI"; }
}
trap cleanup EXIT

# --- kernel stacks: -K against the kernel's stacktrace trigger ---------
if ! mkdir "$INST" 2>/dev/null; then
	env_fault "no tracefs instance at $INST: no reference for kernel stacks"
else
	for ev in sched/sched_process_exec syscalls/sys_enter_openat; do
		echo stacktrace > "$INST/events/$ev/trigger" && echo 1 > "$INST/events/$ev/enable" ||
			{ fail "$ev: the kernel's stacktrace trigger could not be set"; continue; }
		kpt_bg "$OUT/k.err" -K "t:$ev" --comm stk-nopie > "$OUT/k.out" || continue
		for i in 1 2 3; do "$OUT/stk-nopie" 1; done
		# the trigger's stacks are in the buffer already; kptrace's within its drain
		kpt_stop INT
		echo 0 > "$INST/events/$ev/enable"
		echo '!stacktrace' > "$INST/events/$ev/trigger"
		cat "$INST/trace" > "$OUT/ftrace.txt"
		echo > "$INST/trace"
		stacks_of "$OUT/ftrace.txt" stk-nopie ftrace | sort > "$OUT/ref.st"
		stacks_of "$OUT/k.out" stk-nopie | sort > "$OUT/got.st"
		n=$(wc -l < "$OUT/ref.st")
		check "$ev: the kernel's trigger saw the workload (3 execs: at least 3 stacks, got $n)" \
			[ "$n" -ge 3 ]
		check "$ev: no ftrace stack without its own handler on top" \
			sh -c "! grep -q '^BAD-TOP' '$OUT/ref.st'"
		check "$ev: kptrace -K's stacks equal the kernel's stacktrace trigger's, frame by frame" \
			cmp -s "$OUT/ref.st" "$OUT/got.st"
		cmp -s "$OUT/ref.st" "$OUT/got.st" ||
			diff "$OUT/ref.st" "$OUT/got.st" | head -n 10 | sed 's/^/#   /'
	done
fi

# -K3: three frames below the tracing's own, the first three of -K's
kpt_bg "$OUT/k3.err" -K3 t:sched/sched_process_exec --comm stk-nopie > "$OUT/k3.out" &&
	{ "$OUT/stk-nopie" 1; "$OUT/stk-nopie" 1; kpt_stop INT; }
stacks_of "$OUT/k3.out" stk-nopie | sort -u > "$OUT/k3.st"
kpt_bg "$OUT/kf.err" -K t:sched/sched_process_exec --comm stk-nopie > "$OUT/kf.out" &&
	{ "$OUT/stk-nopie" 1; kpt_stop INT; }
want3=$(stacks_of "$OUT/kf.out" stk-nopie | head -n 1 | cut -d'|' -f1-3)
check "-K3: each stack is -K's first three frames ($want3)" \
	sh -c "[ -n '$want3' ] && [ \"\$(cat '$OUT/k3.st')\" = '$want3' ]"

# --- count --by kstack and --folded: the per-event stacks, counted -----
EV=t:sched/sched_process_exec
kpt_bg "$OUT/c.err" count "$EV" --by kstack --comm stk-nopie > "$OUT/count.out" &&
	{ for i in 1 2 3 4; do "$OUT/stk-nopie" 1; done; kpt_stop INT; }
count_rows "$OUT/count.out" > "$OUT/count.st"
kpt_bg "$OUT/k2.err" -K "$EV" --comm stk-nopie > "$OUT/k2.out" &&
	{ for i in 1 2 3 4; do "$OUT/stk-nopie" 1; done; kpt_stop INT; }
stacks_of "$OUT/k2.out" stk-nopie | sort | uniq -c | awk '{c=$1; $1=""; sub(/^ /, ""); print c, $0}' \
	> "$OUT/k2.counted"
check "count --by kstack: one row per stack, each count the number of -K's events with that stack" \
	cmp -s "$OUT/k2.counted" <(sort "$OUT/count.st")
check "count --by kstack: 4 execs counted (got $(awk '{s+=$1} END {print s+0}' "$OUT/count.st"))" \
	[ "$(awk '{s+=$1} END {print s+0}' "$OUT/count.st")" = 4 ]
kpt_bg "$OUT/f.err" count "$EV" --by kstack --folded --comm stk-nopie > "$OUT/folded.out" &&
	{ for i in 1 2 3 4 5; do "$OUT/stk-nopie" 1; done; kpt_stop INT; }
fold_total=$(awk '{s+=$NF} END {print s+0}' "$OUT/folded.out")
check "--folded: the counts add up to the 5 execs (got $fold_total)" [ "$fold_total" = 5 ]
# a folded line is the -K stack reversed, root first
want=$(head -n 1 "$OUT/k2.counted" | cut -d' ' -f2- | tr '|' '\n' | tac | paste -sd';')
check "--folded: root;...;leaf is -K's stack, the root first" \
	grep -qxF "$want 5" "$OUT/folded.out"
check "--folded: nothing but folded lines on stdout" \
	sh -c "! grep -vqE '^[^ ].* [0-9]+$' '$OUT/folded.out'"

# --- count --by kstack: rows alike by name show offsets (issue 37) ----
# ls -laR allocates from two call sites of ext4_htree_fill_tree into the
# same callees: by name, two rows of one stack. Those rows' kernel frames
# carry offsets, as the kernel's stacktrace trigger prints them with
# options/sym-offset on (sym+0xoff/0xsize), which is the reference here.
KM=kmem/kmalloc
cp "$(command -v ls)" "$OUT/kptks"
KI=$T/instances/kpt_stacks_ko_$$
if mkdir "$KI" 2>/dev/null; then
	echo 1 > "$KI/options/sym-offset"
	echo 4096 > "$KI/buffer_size_kb"
	echo 'comm == "kptks"' > "$KI/events/$KM/filter"
	echo 'stacktrace if comm == "kptks"' > "$KI/events/$KM/trigger" && echo 1 > "$KI/events/$KM/enable"
	kpt_bg "$OUT/ko.err" count "t:$KM" --by kstack --comm kptks > "$OUT/ko.out" &&
		{ "$OUT/kptks" -laR /usr/share/doc "$OUT" > /dev/null 2>&1; kpt_stop INT; }
	echo 0 > "$KI/events/$KM/enable"
	echo '!stacktrace if comm == "kptks"' > "$KI/events/$KM/trigger"
	cat "$KI/trace" > "$OUT/ko-ftrace.txt"
	rmdir "$KI"
	stacks_of "$OUT/ko-ftrace.txt" kptks ftrace | sort -u > "$OUT/ko-ref.st"
	python3 - "$OUT/ko.out" > "$OUT/ko.st" <<'PY'
import sys
rows, cur = [], None
for line in open(sys.argv[1]):
    line = line.rstrip("\n")
    if line.strip().isdigit():
        cur = []
        rows.append(cur)
    elif line.startswith(" => ") and cur is not None:
        cur.append(line[4:])
for fr in rows:
    print("|".join(fr))
PY
	# by name: each frame's sym+0xoff/0xsize cut to sym
	sed -E 's/\+0x[0-9a-f]+\/0x[0-9a-f]+//g' "$OUT/ko-ref.st" | sort -u > "$OUT/ko-ref.names"
	grep '+0x' "$OUT/ko.st" > "$OUT/ko.off"
	noff=$(grep -c . "$OUT/ko.off")
	check "count --by kstack: no two rows read alike ($(grep -c . "$OUT/ko.st") rows, $noff with offsets, at least 2)" \
		sh -c "[ $noff -ge 2 ] && [ -z \"\$(sort '$OUT/ko.st' | uniq -d)\" ]"
	check "count --by kstack: each row with offsets is a stack of the kernel's trigger (sym-offset), frame by frame" \
		sh -c "[ $noff -ge 2 ] && [ -z \"\$(sort -u '$OUT/ko.off' | comm -23 - '$OUT/ko-ref.st')\" ]"
	check "count --by kstack: each row without offsets is a stack of the kernel's trigger by name" \
		sh -c "[ -z \"\$(grep -v '+0x' '$OUT/ko.st' | sort -u | comm -23 - '$OUT/ko-ref.names')\" ]"
else
	env_fault "no tracefs instance at $KI: no reference for kernel stacks"
	expect_checks $((EXPECTED - 3))
fi

# --- user stacks: -U against the call sites in the binaries ----------
# The return address of CALLER's call to CALLEE, as an offset into CALLER,
# from objdump's disassembly (not from kptrace's symbolizer).
ret_off() {
	objdump -d --no-show-raw-insn "$1" | python3 -c '
import re, sys
caller, callee = sys.argv[1], sys.argv[2]
start = found = None
# all of it first: an early exit would end objdump by SIGPIPE (pipefail)
for line in sys.stdin.read().splitlines():
    m = re.match(r"^([0-9a-f]+) <(.+)>:$", line)
    if m:
        start = int(m.group(1), 16) if m.group(2) == caller else None
        continue
    m = re.match(r"^\s+([0-9a-f]+):", line)
    if start is None or not m:
        continue
    if found:
        print("0x%x" % (int(m.group(1), 16) - start)); sys.exit(0)
    if re.search(r"\bcall\w*\s.*<%s(@plt)?>" % re.escape(callee), line):
        found = True
sys.exit(1)' "$2" "$3"
}

# a2l BIN FUNC OFF: addr2line -f -i's frames at FUNC+OFF (nm's address),
# innermost first, one "FUNC FILE:LINE" a line; nothing without DWARF
a2l() {
	local a
	a=$(nm "$1" | awk -v f="$2" '$3 == f && $2 ~ /^[tT]$/ { print $1; exit }')
	[ -n "$a" ] || return 0
	addr2line -f -i -e "$1" "$(printf '0x%x' $((0x$a + $3)))" | sed 's/ (discriminator [0-9]*)$//' |
		paste -d' ' - - | grep -v '??'
}
# loc BIN FUNC OFF: " FILE:LINE" of FUNC+OFF, as -U prints it after a frame
loc() { a2l "$@" | tail -n 1 | sed 's/^[^ ]* / /'; }

# ustack_case NAME BIN PROBE_FILE FUNC CALLS "CALLER:CALLEE:FILE ..." [ARGS]
# -U on PROBE_FILE:FUNC while BIN runs CALLS times: each event's frames
# begin FUNC+0x0, then each listed caller at its call's return address;
# each name as binutils' c++filt demangles it (a C name as it is), then
# the line addr2line gives (of the call: the return address less one).
ustack_case() {
	local name=$1 bin=$2 pfile=$3 func=$4 calls=$5 chain=$6 args=${7:-}
	local want c caller callee file off
	want="$(c++filt "$func")+0x0 ($pfile)$(loc "$pfile" "$func" 0)"
	for c in $chain; do
		IFS=: read -r caller callee file <<< "$c"
		off=$(ret_off "$file" "$caller" "$callee") ||
			{ fail "$name: objdump finds no call of $callee in $caller"; return; }
		want="$want|$(c++filt "$caller")+$off ($file)$(loc "$file" "$caller" $((off - 1)))"
	done
	kpt -U -c "$bin $calls $args" "p:$pfile:$func" > "$OUT/u-$name.out" 2> "$OUT/u-$name.err"
	stacks_of "$OUT/u-$name.out" "*" user > "$OUT/u-$name.st"
	local n depth
	n=$(wc -l < "$OUT/u-$name.st")
	depth=$(echo "$want" | tr '|' '\n' | wc -l)
	check "$name: -U printed a user stack for each of the $calls calls (got $n)" [ "$n" = "$calls" ]
	check "$name: each stack begins with the call chain, exact: $want" \
		sh -c "[ \$(cut -d'|' -f1-$depth '$OUT/u-$name.st' | grep -cxF '$want') = $calls ]"
	check "$name: the frames below main are libc's start (__libc_start_call_main)" \
		sh -c "[ \$(grep -c '|__libc_start_call_main+' '$OUT/u-$name.st') = $calls ]"
	check "$name: no [unknown] frame in the chain" \
		sh -c "! cut -d'|' -f1-$depth '$OUT/u-$name.st' | grep -q unknown"
}

B=$OUT/stk-nopie
ustack_case nopie "$B" "$B" st_inner 3 "st_middle:st_inner:$B st_outer:st_middle:$B main:st_outer:$B"
B=$OUT/stk-pie
ustack_case pie "$B" "$B" st_inner 3 "st_middle:st_inner:$B st_outer:st_middle:$B main:st_outer:$B"
# one call, then exit: the frames are named after the process is gone
ustack_case exits-at-once "$B" "$B" st_inner 1 \
	"st_middle:st_inner:$B st_outer:st_middle:$B main:st_outer:$B"
B=$OUT/stk-lib
L=$OUT/libstacks.so
ustack_case shared-lib "$B" "$L" lib_inner 2 "lib_outer:lib_inner:$L main:lib_outer:$B" lib
if [ $HAVE_STATIC = 1 ]; then
	B=$OUT/stk-static
	ustack_case static "$B" "$B" st_inner 2 \
		"st_middle:st_inner:$B st_outer:st_middle:$B main:st_outer:$B"
else
	env_fault "no static libc to build a static binary: $(head -c 200 "$OUT/static.err")"
fi

# C++ and Rust names demangled in text, JSON and folded output, as c++filt
# demangles them; --no-demangle keeps them as in the binary
B=$OUT/stk-cxx
TOTAL=_ZNK4shop4Cart5totalEi CO_I=_ZN4shop8checkoutEi CO_S=_ZN4shop8checkoutEPKc
PAY=_RNvCs1234_7mycrate3pay
ustack_case cxx "$B" "$B" $TOTAL 2 "$CO_I:$TOTAL:$B $CO_S:$CO_I:$B $PAY:$CO_S:$B main:$PAY:$B"
kpt --json -U -c "$B 1" "p:$B:$TOTAL" > "$OUT/cxx.json" 2> "$OUT/cxx.json.err"
check "--json -U: C++ and Rust symbols as c++filt prints them" python3 -c '
import json, sys
u = json.loads(open(sys.argv[1]).readline())["ustack"]
want = sys.argv[2:]
assert [f["symbol"] for f in u[:len(want)]] == want, (u, want)
' "$OUT/cxx.json" "$(c++filt $TOTAL)" "$(c++filt $CO_I)" "$(c++filt $CO_S)" "$(c++filt $PAY)"
kpt count --by ustack --folded -c "$B 3" "p:$B:$TOTAL" > "$OUT/cxxf.out" 2> "$OUT/cxxf.err"
want="main;$(c++filt $PAY);$(c++filt $CO_S);$(c++filt $CO_I);$(c++filt $TOTAL) 3"
check "count --by ustack --folded: demangled, ...;$want" grep -qF ";$want" "$OUT/cxxf.out"
kpt --no-demangle -U -c "$B 1" "p:$B:$TOTAL" > "$OUT/cxxraw.out" 2> "$OUT/cxxraw.err"
check "--no-demangle: the names as in the binary ($TOTAL, $CO_I)" \
	sh -c "grep -qF ' => $TOTAL+0x0 ($B) ' '$OUT/cxxraw.out' &&
		grep -q '^ => $CO_I+0x' '$OUT/cxxraw.out'"

# inlined frames: il_mid and il_leaf exist in il_outer only as DWARF says;
# each frame and its line against addr2line -f -i on the same address
B=$OUT/stk-inline
off=$(ret_off "$B" il_outer il_sink)
want="il_sink+0x0 ($B)$(loc "$B" il_sink 0)"
while read -r fn at; do
	if [ "$fn" = il_outer ]; then
		want="$want|il_outer+$off ($B) $at"
	else
		want="$want|$fn [inlined] ($B) $at"
	fi
done < <(a2l "$B" il_outer $((off - 1)))
kpt -U -c "$B 2" "p:$B:il_sink" > "$OUT/u-inline.out" 2> "$OUT/u-inline.err"
stacks_of "$OUT/u-inline.out" "*" user | cut -d'|' -f1-4 > "$OUT/u-inline.st"
check "-U, inlined frames: each stack begins as addr2line -i reads it: $want" \
	sh -c "[ \$(grep -cxF '$want' '$OUT/u-inline.st') = 2 ]"
kpt --json -U -c "$B 1" "p:$B:il_sink" > "$OUT/inline.json" 2> "$OUT/inline.json.err"
check "--json -U: file, line and inlined of each frame as addr2line -i gives them" python3 -c '
import json, sys
u = json.loads(open(sys.argv[1]).readline())["ustack"]
want = [l.split(" ") for l in sys.argv[2].split("\n")]
got = [[f["symbol"], "%s:%d" % (f["file"], f["line"]), f["inlined"]] for f in u[:len(want)]]
want = [[w[0], w[1], w[0] not in ("il_sink", "il_outer")] for w in want]
assert got == want, (got, want)
assert u[1]["offset"] is None and u[3]["offset"] == int(sys.argv[3], 16), u
' "$OUT/inline.json" "$(a2l "$B" il_sink 0; a2l "$B" il_outer $((off - 1)))" "$off"
kpt count --by ustack --folded -c "$B 3" "p:$B:il_sink" > "$OUT/if.out" 2> "$OUT/if.err"
check "--folded: inlined functions are frames too (main;il_outer;il_mid;il_leaf;il_sink 3)" \
	grep -qE '(^|;)main;il_outer;il_mid;il_leaf;il_sink 3$' "$OUT/if.out"

# JIT code: a frame in no file named from the process's /tmp/perf-PID.map,
# the entry and its offset the program's own (its call returns at byte 16)
B=$OUT/stk-jit
kpt -U -c "$B 2" "p:$B:jit_target" > "$OUT/u-jit.out" 2> "$OUT/u-jit.err"
jpid=$(sed -n 's/^ *stk-jit-\([0-9]*\) .*<user stack trace>$/\1/p' "$OUT/u-jit.out" | head -n 1)
stacks_of "$OUT/u-jit.out" "*" user | cut -d'|' -f2 > "$OUT/u-jit.st"
check "-U through JIT code: jitted_fn+0x10 (/tmp/perf-$jpid.map), the map the program wrote" \
	[ -n "$jpid" -a "$(grep -cxF "jitted_fn+0x10 (/tmp/perf-$jpid.map)" "$OUT/u-jit.st")" = 2 ]
rm -f "/tmp/perf-$jpid.map"
kpt -U -c "$B 1 nomap" "p:$B:jit_target" > "$OUT/u-jitn.out" 2> "$OUT/u-jitn.err"
check "... and without a map, that frame is [unknown] at its address" \
	sh -c "grep -qE '^ => \[unknown\] <0x[0-9a-f]+>$' '$OUT/u-jitn.out'"

# serve_debuginfod DIR NAME ID: Debian's debuginfod serving DIR's files on
# loopback (its log OUT/NAME.log), once it serves build id ID; its port and
# pid in DFD_PORT and DFD_PID
serve_debuginfod() {
	local i
	DFD_PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	debuginfod -F "$1" -p "$DFD_PORT" -d "$OUT/$2.sqlite" -t 0 -g 0 > "$OUT/$2.log" 2>&1 &
	DFD_PID=$!
	for i in $(seq 60); do
		[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$DFD_PORT/buildid/$3/debuginfo")" = 200 ] &&
			break
		sleep 0.5
	done
}

# debuginfod: a stripped binary's debug file served by Debian's debuginfod
# from a folder of ours on loopback, fetched by build id once, cached; a
# server that accepts but never answers costs one bounded wait, said
debuginfod_case() {
	local srv=$OUT/dfd-srv full=$OUT/dfd-srv/stk-full B=$OUT/stk-stripped id dead want
	rm -rf "$srv" "$OUT/dfd-cache" && mkdir -p "$srv" && cp "$OUT/stk-nopie" "$full" &&
		strip -o "$B" "$full" || { fail "debuginfod: cannot lay out the files"; return; }
	id=$(readelf -n "$B" | awk '/Build ID/ { print $3 }')
	serve_debuginfod "$srv" dfd "$id"
	local port=$DFD_PORT dpid=$DFD_PID i
	want="st_inner+0x0 ($B)$(loc "$full" st_inner 0)"
	want="$want|st_middle+$(ret_off "$full" st_middle st_inner) ($B)$(loc "$full" st_middle $(($(ret_off "$full" st_middle st_inner) - 1)))"
	# by file offset: the stripped binary has no symbol for it (non-PIE: vaddr - 0x400000)
	local probe="p:$B:$(printf '0x%x' $((0x$(nm "$full" | awk '$3 == "st_inner" { print $1 }') - 0x400000)))"
	for i in 1 2; do
		DEBUGINFOD_URLS="http://127.0.0.1:$port" DEBUGINFOD_CACHE_PATH="$OUT/dfd-cache" \
			kpt -U -c "$B 1" "$probe" > "$OUT/dfd$i.out" 2> "$OUT/dfd$i.err"
	done
	kill "$dpid" 2>/dev/null
	wait "$dpid" 2>/dev/null
	check "debuginfod: both runs name the stripped binary's frames from its debug file, lines too: $want" \
		check_chain "$want" "$OUT/dfd1.out" "$OUT/dfd2.out"
	check "debuginfod: cached as elfutils' client does (CACHE/$id/debuginfo, the served file)" \
		cmp -s "$OUT/dfd-cache/$id/debuginfo" "$full"
	check "debuginfod: fetched once for two runs (the server's log: $(grep -c "UA:kptrace.*GET /buildid/$id/debuginfo 200" "$OUT/dfd.log") GET)" \
		[ "$(grep -c "UA:kptrace.*GET /buildid/$id/debuginfo 200" "$OUT/dfd.log")" = 1 ]
	# a server that takes the connection and never answers
	python3 -c 'import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8); print(s.getsockname()[1], flush=True)
time.sleep(60)' > "$OUT/dead.port" &
	local spid=$!
	for i in $(seq 20); do [ -s "$OUT/dead.port" ] && break; sleep 0.2; done
	dead=$(cat "$OUT/dead.port")
	# a fresh cache: a miss is remembered there (as elfutils' client does)
	rm -rf "$OUT/dfd-cache2"
	DEBUGINFOD_URLS="http://127.0.0.1:$dead" DEBUGINFOD_CACHE_PATH="$OUT/dfd-cache2" \
		kpt -U -c "$B 1" "$probe" > "$OUT/dfd-dead.out" 2> "$OUT/dfd-dead.err"
	kill "$spid" 2>/dev/null
	check "debuginfod: a server that never answers is given the stated wait once, and said" \
		[ "$(grep -c "server http://127.0.0.1:$dead did not answer within 2000 ms" "$OUT/dfd-dead.err")" = 1 ]
}
# check_chain WANT OUT...: each OUT's one user stack begins with WANT
check_chain() {
	local want=$1 f
	shift
	for f; do
		[ "$(stacks_of "$f" "*" user | cut -d'|' -f1-2 | grep -cxF "$want")" = 1 ] || return 1
	done
}
if command -v debuginfod > /dev/null; then
	debuginfod_case
else
	env_fault "no debuginfod (Debian's debuginfod package): no reference server"
fi

# --json: the frames as objects
B=$OUT/stk-pie
kpt --json -U -c "$B 1" "p:$B:st_inner" > "$OUT/u.json" 2> "$OUT/u.json.err"
check "--json -U: ustack[0] is st_inner at offset 0 in $B, ustack[1] st_middle" python3 -c '
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])][0]
u = ev["ustack"]
assert u[0]["symbol"] == "st_inner" and u[0]["offset"] == 0 and u[0]["binary"] == sys.argv[2], u[0]
assert u[1]["symbol"] == "st_middle" and u[1]["binary"] == sys.argv[2], u[1]
assert all("file_offset" in f for f in u[:4]), u[:4]
' "$OUT/u.json" "$B"

# count --by ustack --folded: the chain root first, one line, the calls' count
B=$OUT/stk-nopie
kpt count --by ustack --folded -c "$B 4" "p:$B:st_inner" > "$OUT/uf.out" 2> "$OUT/uf.err"
check "count --by ustack --folded: ...;main;st_outer;st_middle;st_inner 4" \
	grep -qE '(^|;)main;st_outer;st_middle;st_inner 4$' "$OUT/uf.out"

# a stack past the kernel's 127 frames: cut, and said so (the positive
# control: the 3-frame chain above is not)
B=$OUT/stk-nopie
kpt -U -c "$B 1 deep" "p:$B:st_inner" > "$OUT/deep.out" 2> "$OUT/deep.err"
n=$(stacks_of "$OUT/deep.out" "*" user | head -n 1 | tr '|' '\n' | grep -vcxF '[cut short]')
check "-U under 200 frames of recursion: 127 frames, the kernel's most (got $n)" [ "$n" = 127 ]
check "and marked [cut short] after them" \
	[ "$(grep '^ => ' "$OUT/deep.out" | tail -n 1)" = ' => [cut short]' ]
check "the exit profile says 1 stack was TRUNCATED at its depth" \
	grep -q '1 stacks TRUNCATED at their depth' "$OUT/deep.err"
check "and says nothing of it where no stack was cut" sh -c "! grep -q TRUNCATED '$OUT/u-nopie.err'"
check "no stack of the chains above (frame pointers, each whole) is marked cut short" \
	sh -c "! grep -ql 'cut short' '$OUT'/u-*.out '$OUT'/g-o1-*.out && ! grep -qi 'cut short' '$OUT'/u-*.err"

# --- stacks as compilers leave them, against gdb's backtrace ----------
# gdb_case NAME BIN [LIB:]FUNC ARGS...: FUNC's stacks at its entry in BIN
# (or LIB), run with ARGS, through -U and count --by ustack --folded,
# against gdb's. $ALSO: more probes, that do not fire, or options. $GDB_BIN:
# the binary gdb runs instead (BIN's unstripped build), $PROBE: the probe
# instead of FUNC's by name (a stripped BIN's by offset).
gdb_case() {
	local name=$1 bin=$2 fn=$3 pfile=$2 probe
	shift 3
	case $fn in *:*) pfile=${fn%%:*}; fn=${fn#*:} ;; esac
	probe=${PROBE:-p:$pfile:$fn}
	gdb_stacks "${GDB_BIN:-$bin}" "$fn" "$@" | sort > "$OUT/g-$name.ref"
	kpt -U -c "$bin $*" "$probe" ${ALSO:-} > "$OUT/g-$name.out" 2> "$OUT/g-$name.err"
	stacks_of "$OUT/g-$name.out" "*" user | to_main | sort > "$OUT/g-$name.got"
	check "$name: -U at $fn's entry equals gdb's bt there, each of its $(wc -l < "$OUT/g-$name.ref") hits" \
		sh -c "[ -s '$OUT/g-$name.ref' ] && cmp -s '$OUT/g-$name.ref' '$OUT/g-$name.got'"
	cmp -s "$OUT/g-$name.ref" "$OUT/g-$name.got" ||
		diff "$OUT/g-$name.ref" "$OUT/g-$name.got" | head -n 6 | sed 's/^/#   /'
	# folded: the names root first, from main, counted
	sed -E 's/\+0x[0-9a-f]+//g' "$OUT/g-$name.ref" | awk -F'|' '{
		s = $NF; for (i = NF - 1; i >= 1; i--) s = s ";" $i; print s }' |
		sort | uniq -c | awk '{print $2, $1}' > "$OUT/gf-$name.ref"
	kpt count --by ustack --folded -c "$bin $*" "$probe" ${ALSO:-} 2> "$OUT/gf-$name.err" |
		sed -E 's/^(.*;)?(main;|main )/\2/' | sort > "$OUT/gf-$name.got"
	check "$name: count --by ustack --folded at $fn's entry: gdb's stacks, counted" \
		cmp -s "$OUT/gf-$name.ref" "$OUT/gf-$name.got"
	cmp -s "$OUT/gf-$name.ref" "$OUT/gf-$name.got" ||
		diff "$OUT/gf-$name.ref" "$OUT/gf-$name.got" | head -n 6 | sed 's/^/#   /'
}

# The caller at a function's first instruction: the return address is at
# the stack pointer and the frame pointer still the caller's, so a
# frame-pointer walk alone skips the caller. -O1 with frame pointers: gcc
# gives the leaves (uw_leaf, libc's getppid) no frame.
B=$OUT/uw-o1
if ! command -v gdb > /dev/null; then
	env_fault "no gdb: no reference for the stacks at function entries"
elif gcc -O1 -g -fno-omit-frame-pointer -fno-inline tests/host/unwind_target.c -o "$B"; then
	LIBC=$(ldd "$B" | awk '/libc\.so/ {print $3}')
	for fn in uw_leaf uw_tail uw_rare uw_middle uw_outer main; do
		gdb_case "o1-$fn" "$B" "$fn" 2 rare
	done
	# a caller in another binary than the function's; the binary probed
	# too (uw_rare, not run without "rare"), so that its frames are named
	# after the process is gone (the symbolizer finds probed files by id)
	ALSO="p:$B:uw_rare" gdb_case o1-getppid "$B" "$LIBC:getppid" 2
else
	fail "cannot build tests/host/unwind_target.c at -O1"
fi

# Without frame pointers (-O2 -fomit-frame-pointer: a tail call, a .cold
# split), unwound from the binaries' .eh_frame in BPF: at each function's
# entry, gdb's backtrace exactly, through -U and --by ustack --folded; libc's
# getppid and malloc called from the frameless code (libc is Debian's -O2
# build), and Debian's bash at echo_builtin (a stripped -O2 binary: its
# static functions are [unknown] to both).
B=$OUT/uw-o2
if command -v gdb > /dev/null &&
	gcc -O2 -g -fomit-frame-pointer tests/host/unwind_target.c -o "$B"; then
	LIBC=$(ldd "$B" | awk '/libc\.so/ {print $3}')
	for fn in uw_leaf uw_tail uw_rare uw_middle uw_outer main; do
		gdb_case "o2-$fn" "$B" "$fn" 2 rare
	done
	ALSO="p:$B:uw_rare" gdb_case o2-getppid "$B" "$LIBC:getppid" 2
	# no probe in the binary: its frames named by the unwinder's files
	gdb_case o2-malloc "$B" "$LIBC:malloc" 2 alloc
	printf 'echo a > /dev/null\nf() { echo b > /dev/null; }\nf\ng() { f; }\ng\n' > "$OUT/echo.sh"
	gdb_case bash-echo /bin/bash echo_builtin "$OUT/echo.sh"
	check "o2: no stack of the -O2 binaries and bash is marked cut short" \
		sh -c "! grep -ql 'cut short' '$OUT'/g-o2-*.out '$OUT'/g-bash-*.out"
else
	fail "cannot build tests/host/unwind_target.c at -O2 (or no gdb)"
fi

# The control: the same -O2 binary without its .eh_frame (no table to
# read) is walked by frame pointers, which it has not: each -U stack is a
# part of gdb's marked [cut short] and counted in the exit profile, never a
# part passed off as whole.
B=$OUT/uw-o2-noeh
if [ -s "$OUT/g-o2-uw_leaf.ref" ] &&
	objcopy -R .eh_frame -R .eh_frame_hdr "$OUT/uw-o2" "$B"; then
	fn=uw_leaf
	kpt -U -c "$B 2 rare" "p:$B:$fn" > "$OUT/noeh.out" 2> "$OUT/noeh.err"
	stacks_of "$OUT/noeh.out" "*" user | to_main > "$OUT/noeh.got"
	cut=$(grep -c '|\[cut short\]$' "$OUT/noeh.got")
	check "o2 without .eh_frame: each of the 6 -U stacks is a part of gdb's marked [cut short] ($cut cut)" \
		python3 -c '
import sys
ref = [l.rstrip("\n").split("|") for l in open(sys.argv[1])]
got = [l.rstrip("\n").split("|") for l in open(sys.argv[2])]
assert len(got) == 6, len(got)
for g in got:
    assert g[-1] == "[cut short]", g
    assert any(r[:len(g) - 1] == g[:-1] for r in ref), g
' "$OUT/g-o2-uw_leaf.ref" "$OUT/noeh.got"
	check "o2 without .eh_frame: the exit profile counts the $cut stacks CUT SHORT" \
		grep -q "$cut user stacks printed CUT SHORT" "$OUT/noeh.err"
else
	fail "cannot strip .eh_frame from the -O2 build (or it has no gdb reference)"
fi

# Without .eh_frame for its code (-fno-asynchronous-unwind-tables -g: gcc
# writes .debug_frame only; crt's _start and the PLT keep .eh_frame),
# unwound from .debug_frame: at the leaf, gdb's backtrace exactly, through
# -U and --by ustack --folded; then stripped (no .debug_frame, no symbols
# left), from its debug file's (compressed, as Debian's are), fetched by
# build id from debuginfod serving a folder of ours, as for file:line.
B=$OUT/uw-df
if command -v gdb > /dev/null &&
	gcc -O2 -fomit-frame-pointer -fno-asynchronous-unwind-tables -g tests/host/unwind_target.c \
		-o "$B"; then
	check "df: readelf -S: .debug_frame, and no .eh_frame FDE covers main or a uw_ function" \
		python3 - "$B" <<'PY'
import re, subprocess, sys
b = sys.argv[1]
assert re.search(r"\] \.debug_frame ", subprocess.run(["readelf", "-SW", b], capture_output=True,
                 text=True).stdout)
eh = subprocess.run(["readelf", "--debug-dump=frames", b], capture_output=True, text=True).stdout
eh = eh.split("Contents of the .debug_frame section")[0]
fdes = [(int(x, 16), int(y, 16)) for x, y in re.findall(r"pc=([0-9a-f]+)\.\.([0-9a-f]+)", eh)]
fns = [int(a, 16) for a, n in (l.split()[::2] for l in subprocess.run(["nm", b],
       capture_output=True, text=True).stdout.splitlines() if len(l.split()) == 3)
       if n == "main" or n.startswith("uw_")]
assert fdes and len(fns) >= 8, (fdes, fns)
assert not [f for f in fns if any(x <= f < y for x, y in fdes)], "covered by .eh_frame"
PY
	ALSO=-v gdb_case df-uw_leaf "$B" uw_leaf 2 rare
	check "df: -v says the table is .eh_frame's (crt's, the PLT's) and .debug_frame's" \
		grep -qE "unwind table of $B: [0-9]+ rows, from \.eh_frame and \.debug_frame \([0-9]+ FDEs\)$" \
		"$OUT/g-df-uw_leaf.err"
	grep -F "unwind table of $B: " "$OUT/g-df-uw_leaf.err" | sed 's/^/#   /'
	check "df: no stack cut short" sh -c "! grep -q 'cut short' '$OUT/g-df-uw_leaf.out'"
	srv=$OUT/df-srv
	rm -rf "$srv" "$OUT/df-cache" && mkdir -p "$srv" &&
		objcopy --only-keep-debug --compress-debug-sections "$B" "$srv/uw-df.debug" &&
		strip -o "$B-s" "$B"
	id=$(readelf -n "$B-s" | awk '/Build ID/ { print $3 }')
	serve_debuginfod "$srv" df-dfd "$id"
	off=$(printf '0x%x' $((0x$(nm "$B" | awk '$3 == "uw_leaf" { print $1 }'))))
	DEBUGINFOD_URLS="http://127.0.0.1:$DFD_PORT" DEBUGINFOD_CACHE_PATH="$OUT/df-cache" \
		ALSO=-v GDB_BIN=$B PROBE="p:$B-s:$off" gdb_case df-stripped "$B-s" uw_leaf 2 rare
	kill "$DFD_PID" 2> /dev/null
	wait "$DFD_PID" 2> /dev/null
	check "df stripped: no .debug_frame nor .symtab left in it" \
		sh -c "! readelf -SW '$B-s' | grep -qE '\.debug_frame|\.symtab'"
	check "df stripped: -v says the table is its debug file's .debug_frame, as fetched" \
		grep -qF "from .eh_frame and .debug_frame of $OUT/df-cache/$id/debuginfo (" \
		"$OUT/g-df-stripped.err"
	grep -F "unwind table of $B-s: " "$OUT/g-df-stripped.err" | sed 's/^/#   /'
else
	fail "cannot build tests/host/unwind_target.c -fno-asynchronous-unwind-tables (or no gdb)"
fi

# Where interrupts are off (sched_switch here; kprobes, profile's timer),
# the kernel's bpf_find_vma() answers once a run: past the first frame's
# mapping the walk takes the process's mappings from /proc/PID/maps, read
# at its first ask. -p's -O2 process naps 10 ms 300 times; each stack of
# its sleeps is gdb's at clock_nanosleep from the caller on, whole, or,
# before its mappings came (the first round, 100 ms), a part of it marked
# [cut short]: most are whole. Then the same process in a mount namespace
# of its own, its binary at a path the host does not have: its tables are
# read through /proc/PID/root.
B=$OUT/uw-o2
# nap_case NAME WHAT: -p $NAP's sleeps against nap.ref, then $NAP stopped
nap_case() {
	kpt -U -p $NAP -d 2 't:sched/sched_switch if prev_state == 1' > "$OUT/$1.out" 2> "$OUT/$1.err"
	kill $NAP 2> /dev/null
	wait $NAP 2> /dev/null
	stacks_of "$OUT/$1.out" "*" user | to_main > "$OUT/$1.got"
	check "$2 at sched_switch (interrupts off): each sleep's -U stack gdb's from clock_nanosleep's caller, whole, or a part marked [cut short] before its mappings came ($(grep -vc 'cut short' "$OUT/$1.got") whole, $(grep -c 'cut short' "$OUT/$1.got") cut)" \
		python3 - "$OUT/nap.ref" "$OUT/$1.got" <<'PY'
import sys
ref = open(sys.argv[1]).read().split()
assert len(ref) == 1, ref
ref = ref[0].split("|")
whole = cut = 0
for line in open(sys.argv[2]):
    g = line.rstrip("\n").split("|")
    assert g[0].startswith("clock_nanosleep+"), g
    g = g[1:]
    if g[-1] == "[cut short]":
        assert ref[:len(g) - 1] == g[:-1], (g, ref)
        cut += 1
    else:
        assert g == ref, (g, ref)
        whole += 1
assert whole >= 50 and cut < whole, (whole, cut)
PY
}
if [ -s "$OUT/g-o2-uw_leaf.ref" ]; then
	gdb_stacks "$B" clock_nanosleep 2 nap | cut -d'|' -f2- | sort -u > "$OUT/nap.ref"
	"$B" 300 nap & NAP=$!
	nap_case nap o2
	# unshare -m's mounts are private: the tmpfs and its copy are the namespace's only
	rm -rf "$OUT/nsdir" && mkdir -p "$OUT/nsdir"
	unshare -m sh -c 'mount -t tmpfs kpt-ns "$1" && cp "$2" "$1/uw-ns" && exec "$1/uw-ns" 300 nap' \
		sh "$OUT/nsdir" "$B" & NAP=$!
	sleep 0.2
	if [ -e "$OUT/nsdir/uw-ns" ] || ! [ -e "/proc/$NAP/root$OUT/nsdir/uw-ns" ]; then
		fail "the namespace's copy of $B is not only the namespace's: no check through /proc/PID/root"
		kill $NAP 2> /dev/null
	else
		nap_case nap-ns "o2 in a mount namespace of its own (its binary not on the host's path)"
	fi
else
	fail "no gdb reference of the -O2 build: no check at sched_switch"
fi

# --- a ring too small for the stacks: whole or counted --------------------
# The reader stopped (SIGSTOP) while the workload fires N times into a 4 KiB
# ring (a dozen stack records): every event is printed whole or counted as
# dropped on its probe's row, never cut or garbled. The references: the
# workload's N, the kernel's stacktrace trigger (-K) and objdump (-U).
# drops EVENT FILE: the DROPS column of EVENT's row in the exit profile
drops() { awk -v e="$1" '$1 ~ ("/" e "$") && NF >= 8 { print $4 }' "$2"; }
# overrun NAME N ARGS...: kptrace ARGS in the background, stopped while
# stk-nopie runs "N sys" (-K) or N (-U), then let go and stopped
overrun() {
	local name=$1 n=$2 mode=$3; shift 3
	kpt_bg "$OUT/$name.err" --buffer-size 4K "$@" > "$OUT/$name.out" || return
	kill -STOP "$KP_KPT"
	"$OUT/stk-nopie" "$n" $mode
	kill -CONT "$KP_KPT"
	kpt_stop INT
}
if [ -d "$INST" ]; then
	ev=syscalls/sys_enter_getppid
	echo stacktrace > "$INST/events/$ev/trigger" && echo 1 > "$INST/events/$ev/enable"
	"$OUT/stk-nopie" 3 sys
	echo 0 > "$INST/events/$ev/enable"
	echo '!stacktrace' > "$INST/events/$ev/trigger"
	# a tracepoint with one probe is called straight (a static call), with
	# two through __traceiter_*: whether that frame is there depends on who
	# else has the tracepoint at that moment, so neither side keeps it
	stacks_of "$INST/trace" stk-nopie ftrace | sed 's/^__traceiter_[^|]*|//' |
		sort -u > "$OUT/getppid.ref"
	echo > "$INST/trace"
	N=5000
	overrun ko $N sys -K "t:$ev" --comm stk-nopie
	stacks_of "$OUT/ko.out" stk-nopie | sed 's/^__traceiter_[^|]*|//' > "$OUT/ko.st"
	n=$(wc -l < "$OUT/ko.st")
	d=$(drops sys_enter_getppid "$OUT/ko.err")
	check "-K, 4 KiB ring, reader stopped: printed + dropped == the $N calls ($n + ${d:-?}), both > 0" \
		test "$((n + ${d:-0}))" = $N -a "$n" -gt 0 -a "${d:-0}" -gt 0
	check "-K, the kernel's trigger saw getppid's stack ($(head -n 1 "$OUT/getppid.ref"))" \
		sh -c "[ -s '$OUT/getppid.ref' ] && ! grep -q '^BAD-TOP' '$OUT/getppid.ref'"
	check "-K, overrun: each of the $n printed stacks is the kernel trigger's, frame by frame" \
		sh -c "[ $n -gt 0 ] && ! grep -vxF -f '$OUT/getppid.ref' '$OUT/ko.st'"
	check "-K, overrun: nothing malformed, the loss said ('${d:-?} LOST')" \
		sh -c "! grep -q malformed '$OUT/ko.err' && grep -q ' ${d:-x} LOST' '$OUT/ko.err'"
else
	env_fault "no tracefs instance at $INST: no reference for the -K overrun"
fi
B=$OUT/stk-nopie
want="st_inner+0x0 ($B)$(loc "$B" st_inner 0)"
for c in "st_middle:st_inner" "st_outer:st_middle" "main:st_outer"; do
	off=$(ret_off "$B" "${c%%:*}" "${c#*:}")
	want="$want|${c%%:*}+$off ($B)$(loc "$B" "${c%%:*}" $((off - 1)))"
done
N=2000
overrun uo $N "" -U "p:$B:st_inner"
stacks_of "$OUT/uo.out" "*" user | cut -d'|' -f1-4 > "$OUT/uo.st"
n=$(wc -l < "$OUT/uo.st")
d=$(drops 'p_[^ ]*st_inner_0' "$OUT/uo.err")
check "-U, 4 KiB ring, reader stopped: printed + dropped == the $N calls ($n + ${d:-?}), both > 0" \
	test "$((n + ${d:-0}))" = $N -a "$n" -gt 0 -a "${d:-0}" -gt 0
check "-U, overrun: each of the $n printed stacks begins with objdump's call chain, exact" \
	sh -c "[ $n -gt 0 ] && [ \$(grep -cxF '$want' '$OUT/uo.st') = $n ]"
check "-U, overrun: nothing malformed" sh -c "! grep -q malformed '$OUT/uo.err'"

# refusals: where stacks do not apply, a usage error that says what to give
KPT_RC=64 kpt count "$EV" -K > /dev/null 2> "$OUT/r1.err"
check "count -K is refused, naming --by kstack" grep -q 'give --by kstack' "$OUT/r1.err"
KPT_RC=64 kpt count "$EV" --folded > /dev/null 2> "$OUT/r2.err"
check "--folded without a stack key is refused" grep -q 'folded prints aggregated stacks' "$OUT/r2.err"
KPT_RC=64 kpt -K200 "$EV" > /dev/null 2> "$OUT/r3.err"
check "-K200: past the kernel's 127 frames is refused" grep -q -- '-K' "$OUT/r3.err"

finish
