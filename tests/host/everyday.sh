#!/usr/bin/env bash
# Host tests of issue 19's everyday questions, on tests/host/everyday_target.c's
# known workloads: statistics per key (count --sum/--avg/--min/--max, --sort)
# against the values the program passes, computed here; latency between two
# events (--from/--to, by thread and by --key) against the program's own
# clock and its known pairs.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/lib.sh

KPT=${KPT:-./kptrace}
OUT=.output/tests/host/everyday
mkdir -p "$OUT"
OUT=$(realpath "$OUT")
[ "$(id -u)" = 0 ] || skip_all "host tests need root (BPF, uprobes)"
expect_checks 32
B=$OUT/everyday_target
# static: no loader's reads of shared libraries among the program's own
gcc -O0 -g -static tests/host/everyday_target.c -o "$B" ||
	gcc -O0 -g tests/host/everyday_target.c -o "$B" ||
	{ echo "FAIL - cannot build tests/host/everyday_target.c"; exit 1; }

# --- statistics per key ---------------------------------------------------
# ev_val(tag, v): tag 1 with 1..100, tag 2 with -5..5, tag 3 ten times 1000
DEF="p:$B:ev_val tag=%di:s32 v=%si:s64"
kpt count "$DEF" --by tag --sum v --avg v --min v --max v -c "$B values" > "$OUT/st.out" 2> "$OUT/st.err"
# the rows, in order: COUNT SUM AVG MIN MAX tag
awk '$1 ~ /^[0-9]+$/ && NF == 6' "$OUT/st.out" > "$OUT/st.rows"
python3 - > "$OUT/st.want" <<'PY'
vals = {1: list(range(1, 101)), 2: list(range(-5, 6)), 3: [1000] * 10}
rows = []
for t, v in vals.items():
    s = sum(v)
    avg = int(s / len(v))        # toward zero, as bpftrace's avg()
    rows.append((s, len(v), avg, min(v), max(v), t))
for s, n, a, lo, hi, t in sorted(rows, reverse=True):   # by SUM, the first given
    print(n, s, a, lo, hi, t)
PY
check "count --sum --avg --min --max: each tag's statistics exact, sorted by SUM" \
	cmp -s <(tr -s ' ' < "$OUT/st.rows" | sed 's/^ //') "$OUT/st.want"
cmp -s <(tr -s ' ' < "$OUT/st.rows" | sed 's/^ //') "$OUT/st.want" ||
	{ echo "# got:"; cat "$OUT/st.rows"; echo "# want:"; cat "$OUT/st.want"; } | sed 's/^/#   /'
check "the header names the columns: COUNT SUM AVG MIN MAX tag" \
	grep -qE '^ +COUNT +SUM +AVG +MIN +MAX +tag$' "$OUT/st.out"

kpt count "$DEF" --by tag --min v --sort min -c "$B values" > "$OUT/smin.out" 2> "$OUT/smin.err"
check "--sort min: the largest least value first (signed: 1000, 1, -5)" \
	[ "$(awk '$1 ~ /^[0-9]+$/ {print $2}' "$OUT/smin.out" | paste -sd' ')" = "1000 1 -5" ]
kpt count "$DEF" --by tag --max v --sort count -c "$B values" > "$OUT/scnt.out" 2> "$OUT/scnt.err"
check "--sort count: by the count (100, 11, 10)" \
	[ "$(awk '$1 ~ /^[0-9]+$/ {print $1}' "$OUT/scnt.out" | paste -sd' ')" = "100 11 10" ]

kpt --json count "$DEF" --by tag --sum v --avg v -c "$B values" > "$OUT/st.json" 2> "$OUT/st.json.err"
check "--json: count, sum and avg per row (tag 2: 11, 0, 0; tag 1: 100, 5050, 50)" python3 -c '
import json, sys
rows = {int(r["key"]["tag"]): r for r in map(json.loads, open(sys.argv[1]))}
assert (rows[2]["count"], rows[2]["sum"], rows[2]["avg"]) == (11, 0, 0), rows[2]
assert (rows[1]["count"], rows[1]["sum"], rows[1]["avg"]) == (100, 5050, 50), rows[1]
assert "min" not in rows[1], rows[1]
' "$OUT/st.json"

# bytes read per process, from the syscall's return: 7 x 4096 + 3 x 100
kpt count 't:syscalls/sys_exit_read ret' --by comm --sum ret -c "$B reads" \
	--filter 'ret > 0' > "$OUT/rd.out" 2> "$OUT/rd.err"
check "count --sum ret of sys_exit_read: 10 reads, 28972 bytes for the program" \
	grep -qE '^ +10 +28972 +everyday_target$' "$OUT/rd.out"

# --- latency between two events --------------------------------------------
# by thread: clock_nanosleep's entry to its exit (glibc's nanosleep() makes
# it), ten calls, 2 and 20 ms asked; each pair inside the program's own
# measure of the call
kpt --json latency --from 't:syscalls/sys_enter_clock_nanosleep' \
	--to 't:syscalls/sys_exit_clock_nanosleep' \
	-c "$B sleeps" --unit ns > "$OUT/sl.json" 2> "$OUT/sl.err"
grep -v '^{' "$OUT/sl.json" > "$OUT/sl.own"
check "--from sys_enter_clock_nanosleep --to sys_exit_clock_nanosleep (glibc's nanosleep): 10 pairs, each inside the program's own time of its call" python3 -c '
import json, sys
h = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")][0]["hist"]
own = [int(l) for l in open(sys.argv[2])]
assert h["count"] == 10, h["count"]
assert h["min"] >= 2000000 and h["max"] <= max(own), (h["min"], h["max"], max(own))
assert 5 * 2000000 + 5 * 20000000 <= h["sum"] <= sum(own), (h["sum"], sum(own))
' "$OUT/sl.json" "$OUT/sl.own"
grep -q '"type":"latency"' "$OUT/sl.json" || problem "latency --from/--to --json: no latency object: $(head -c 300 "$OUT/sl.json")"

# by --key: begin(1) begin(2) end(1) end(2) pair by id (20 and 15 ms), not
# by thread; end(99) has no start; 5 is begun twice
PAIR=(--from "p:$B:ev_begin id=%di:u64" --to "p:$B:ev_end id=%di:u64")
kpt latency "${PAIR[@]}" --key id --by id --unit us -c "$B pairs" > "$OUT/pk.out" 2> "$OUT/pk.err"
python3 - "$OUT/pk.out" > "$OUT/pk.got" <<'PY'
import re, sys
# "@ev_begin_0->ev_end_0[ID]:" then rows; the summary line "count N, ..., min X, max Y";
# one pair on the title's line, "@ev_begin_0->ev_end_0[ID]: count 1, X"
cur = None
for line in open(sys.argv[1]):
    m = re.match(r"@\S+\[(\d+)\]: count 1, (\d+)", line)
    if m:
        print(m.group(1), 1, m.group(2), m.group(2))
        continue
    m = re.match(r"@\S+\[(\d+)\]:", line)
    if m:
        cur = m.group(1)
    m = re.match(r"count (\d+).*min (\d+).*max (\d+)", line)
    if m and cur:
        print(cur, m.group(1), m.group(2), m.group(3))
        cur = None
PY
check "--key id: id 1 timed once over 20 ms, id 2 once over 15 ms, id 5 once (its second start)" python3 -c '
import sys
rows = {r.split()[0]: list(map(int, r.split()[1:])) for r in open(sys.argv[1])}
assert rows["1"][0] == 1 and rows["1"][1] >= 20000, rows
assert rows["2"][0] == 1 and 15000 <= rows["2"][1] < rows["1"][1], rows
assert rows["5"][0] == 1 and 1000 <= rows["5"][1] < 15000, rows
assert "99" not in rows, rows
' "$OUT/pk.got"
check "the profile counts the end without a start (99) and the start replaced (5)" \
	sh -c "grep -q ', 1 --to ends without their start' '$OUT/pk.err' &&
		grep -q ', 1 --from starts NEVER ENDED' '$OUT/pk.err'"
# the thread as the key pairs begin(2) with end(1): the control for --key
kpt latency "${PAIR[@]}" --unit us -c "$B pairs" > "$OUT/pt.out" 2> "$OUT/pt.err"
check "by thread (no --key) the same pairs time begin(2) to end(1): 2 starts replaced" \
	grep -q ', 2 --from starts NEVER ENDED' "$OUT/pt.err"
# --by of --from's fields: by thread, begin(2) pairs with end(1) and the
# second begin(5) with end(5); the start's id is the start's, not the end's
kpt latency --from "p:$B:ev_begin bid=%di:u64" --to "p:$B:ev_end eid=%di:u64" --by bid,eid \
	--unit us -c "$B pairs" > "$OUT/pb.out" 2> "$OUT/pb.err"
check "--by bid,eid (bid --from's, eid --to's): the rows [2, 1] and [5, 5], one pair each" \
	[ "$(sed -n 's/^@.*\[\(.*\)\]: count 1, .*$/\1/p' "$OUT/pb.out" | paste -sd'|')" = "2, 1|5, 5" ]
check "--by bid,eid: a key of one pair is one line, its time on the title's (no rows, no summary)" \
	sh -c "[ \$(grep -c '^@.*\]: count 1, [0-9.]*us\$' '$OUT/pb.out') = 2 ] && ! grep -qE '^(count |\[)' '$OUT/pb.out'"
# a string of the start and an errno of the end: open latency by path and result
OPEN=(--from 't:syscalls/sys_enter_openat filename:ustring' --to 't:syscalls/sys_exit_openat ret:errno')
kpt --json latency "${OPEN[@]}" --by filename,ret -c "$B opens" > "$OUT/po.json" 2> "$OUT/po.err"
check "--by filename,ret over sys_enter/exit_openat: the missing path 3 times -ENOENT, /dev/zero twice a descriptor" python3 -c '
import json, sys
rows = {}
for line in open(sys.argv[1]):
    o = json.loads(line)
    if o.get("type") == "latency":
        k = o["key"]
        rows[(k["filename"], k["ret"])] = o["hist"]["count"]
assert rows.get(("/nonexistent/kptrace-everyday", "-ENOENT")) == 3, rows
zero = [n for (f, r), n in rows.items() if f == "/dev/zero" and r.isdigit()]
assert zero == [2], rows
assert len(rows) == 2, rows
' "$OUT/po.json"
KPT_RC=error kpt latency "${OPEN[@]}" --by nosuch -c "$B opens" > /dev/null 2> "$OUT/r5.err"
check "--by of neither side's argument: refused, naming both events" \
	grep -q "not comm, .* argument of syscalls/sys_exit_openat (nor of --from's sys_enter_openat)" "$OUT/r5.err"
# the --from side filtered: only the missing path starts a pair
kpt latency --from 't:syscalls/sys_enter_openat filename:ustring if filename ~ "/nonexistent/*"' \
	--to 't:syscalls/sys_exit_openat ret:errno' --by filename,ret -c "$B opens" \
	> "$OUT/pf.out" 2> "$OUT/pf.err"
check "a filter on --from: one row, the missing path's 3 pairs; /dev/zero's ends unmatched, --from's filter named" \
	sh -c "[ \"\$(grep -c '^@' '$OUT/pf.out')\" = 1 ] &&
		grep -q '^@.*\[/nonexistent/kptrace-everyday, -ENOENT\]:' '$OUT/pf.out' &&
		grep -q '^count 3, sum' '$OUT/pf.out' &&
		grep -q \", 2 --to ends without their start (begun before tracing; or their start skipped by --from's filter\" '$OUT/pf.err'"
KPT_RC=error kpt latency "${PAIR[@]}" --key nosuch -c "$B pairs" > /dev/null 2> "$OUT/r4.err"
check "--key of no argument: refused, naming it and the side" grep -q "\-\-from .* no scalar argument 'nosuch'" "$OUT/r4.err"

# --- a BTF chain's name in a table -----------------------------------------
# unnamed, file->f_flags is ftrace's arg1 (kprobetrace.rst: argN when no
# name is given); in a table it is named after its last member, as a bare
# $argN is after its parameter. This host has no kprobes: --dry-run's plan,
# the members and their types as bpftool reads them from the kernel's BTF.
BTFC=$(bpftool btf dump file /sys/kernel/btf/vmlinux format c 2> /dev/null |
	awk '/^struct (file|path) \{/,/^\};/' | grep -cE '^\s+(unsigned int f_flags|struct dentry \*dentry);')
kpt count --dry-run 'p:vfs_read file->f_flags $arg1->f_path.dentry' --by f_flags,dentry \
	> "$OUT/bn.out" 2> "$OUT/bn.err"
check "count --by f_flags,dentry of file->f_flags \$arg1->f_path.dentry: keys named after the members (f_flags: u32, dentry: x64, as BTF types them: $BTFC of 2 found)" \
	sh -c "[ '$BTFC' = 2 ] && grep -q '^  f_flags: u32  (file->f_flags)\$' '$OUT/bn.out' && grep -q '^  dentry: x64  (\$arg1->f_path.dentry)\$' '$OUT/bn.out'"
kpt --dry-run 'p:vfs_read file->f_flags' > "$OUT/bs.out" 2> "$OUT/bs.err"
check "the stream keeps ftrace's arg1 for file->f_flags (its print fmt: arg1=%u)" \
	grep -q '^print fmt: "(%lx) arg1=%u", REC->__probe_ip, REC->arg1$' "$OUT/bs.out"

# --- strings as keys ------------------------------------------------------
# ev_str(s, n): "alpha" x3 (n 1), "beta" x5 (n 10), strings of 16, 20 and
# 32 characters once (n their length), "" once, and two
# 80-character strings sharing their first 70 x2 each (n 100): cut to 47
# bytes, one key
SDEF="p:$B:ev_str s=+0(%di):ustring n=%si:s64"
X47=$(printf 'x%.0s' $(seq 47))
kpt count "$SDEF" --by s --sum n -c "$B strs" > "$OUT/sk.out" 2> "$OUT/sk.err"
awk '$1 ~ /^[0-9]+$/' "$OUT/sk.out" | tr -s ' ' | sed 's/^ //' > "$OUT/sk.rows"
# sorted by SUM, the first statistic given
printf '%s\n' "4 400 $X47" "5 50 beta" "1 32 thirty-two-characters-long-xxxx" \
	"1 20 twenty-characters-xx" "1 16 sixteen-chars-xx" "3 3 alpha" "1 0" > "$OUT/sk.want"
check "count --by s --sum n: each string its row, exact; the two long ones one row of their first 47 bytes" \
	diff -u "$OUT/sk.want" "$OUT/sk.rows"
check "the profile counts the 4 keys cut" grep -q ', 4 string keys CUT to their first 47 bytes' "$OUT/sk.err"
kpt count "$SDEF" --by comm,s -c "$B strs" > "$OUT/sk2.out" 2> "$OUT/sk2.err"
check "--by comm,s: comm and the string, both" grep -Eq '^ +5 +everyday_target +beta$' "$OUT/sk2.out"
kpt count --json "$SDEF" --by s -c "$B strs" > "$OUT/sk.json" 2> "$OUT/sk-j.err"
check "--json: the string key as a JSON string" python3 -c '
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
got = {r["key"]["s"]: r["count"] for r in rows}
sys.exit(0 if got == {"alpha": 3, "beta": 5, "": 1, "x" * 47: 4, "sixteen-chars-xx": 1,
                      "twenty-characters-xx": 1, "thirty-two-characters-long-xxxx": 1} else 1)' "$OUT/sk.json"
kpt hist "$SDEF" n --by s -c "$B strs" > "$OUT/sh.out" 2> "$OUT/sh.err"
check "hist n --by s: a histogram per string (beta: 5 of 10)" \
	sh -c "grep -A1 '^@n\[beta\]:\$' '$OUT/sh.out' | grep -Eq '^\[8, 16\) +5 '"

# --time: each clock against the host's own readings around the run
NAPS="t:syscalls/sys_enter_clock_nanosleep"
for t in mono boot wall delta; do
	python3 -c 'import time; print(*(time.clock_gettime_ns(c) for c in (time.CLOCK_MONOTONIC, time.CLOCK_BOOTTIME, time.CLOCK_REALTIME)))' > "$OUT/t-$t.before"
	kpt --json --time $t "$NAPS" --comm everyday_target -c "$B sleeps" > "$OUT/t-$t.json" 2> "$OUT/t-$t.err"
	python3 -c 'import time; print(*(time.clock_gettime_ns(c) for c in (time.CLOCK_MONOTONIC, time.CLOCK_BOOTTIME, time.CLOCK_REALTIME)))' > "$OUT/t-$t.after"
done
kpt --time wall "$NAPS" --comm everyday_target -c "$B sleeps" > "$OUT/t-wall.txt" 2> "$OUT/t-wallt.err"
check "--time mono, boot, wall: the 10 sleeps' times on that clock, inside the run's own readings of it" python3 - "$OUT" <<'PY'
import json, sys
out = sys.argv[1]
for i, t in enumerate(("mono", "boot", "wall")):
    lo = int(open("%s/t-%s.before" % (out, t)).read().split()[i])
    hi = int(open("%s/t-%s.after" % (out, t)).read().split()[i])
    ts = [json.loads(l)["ts"] for l in open("%s/t-%s.json" % (out, t)) if l.startswith("{")]
    assert len(ts) == 10 and all(lo <= x <= hi for x in ts) and ts == sorted(ts), (t, lo, ts, hi)
PY
check "--time wall: ISO 8601 with microseconds and the UTC offset, the JSON's \"time\" its ts in local time" python3 - "$OUT" <<'PY'
import datetime, json, re, sys
out = sys.argv[1]
rows = [json.loads(l) for l in open(out + "/t-wall.json") if l.startswith("{")]
for r in rows:
    want = datetime.datetime.fromtimestamp((r["ts"] + 500) // 1000 / 1e6).astimezone().isoformat(timespec="microseconds")
    assert r["time"] == want, (r["time"], want)
lines = [l for l in open(out + "/t-wall.txt") if "sys_enter_clock_nanosleep" in l]
iso = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}[+-]\d\d:\d\d"
assert len(lines) == 10 and all(re.search(r"\] \.\.\.\.\. %s: sys_enter_clock_nanosleep:" % iso, l) for l in lines), lines[:2]
PY
check "--time delta: the first 0, then each at least its sleep after the one before (2 ms, then 20 ms)" python3 - "$OUT/t-delta.json" <<'PY'
import json, sys
d = [json.loads(l)["ts"] for l in open(sys.argv[1]) if l.startswith("{")]
assert len(d) == 10 and d[0] == 0, d
assert all(x >= 2000000 for x in d[1:6]) and all(x >= 20000000 for x in d[6:]), d
assert sum(d) < 5 * 10**9, d
PY
KPT_RC=64 kpt --time wall count "$DEF" > /dev/null 2> "$OUT/r0.err"
check "--time in count: refused, for streamed events" grep -q -- "--time is for streamed events" "$OUT/r0.err"

# refusals
KPT_RC=64 kpt count "$DEF" --sum v --max tag > /dev/null 2> "$OUT/r1.err"
check "--sum v --max tag: refused, the statistics are of one field" grep -q 'of one field' "$OUT/r1.err"
KPT_RC=64 kpt hist "$DEF" v --sum v > /dev/null 2> "$OUT/r2.err"
check "hist --sum: refused, for count" grep -q "are for 'kptrace count'" "$OUT/r2.err"
KPT_RC=error kpt count "$DEF" --by tag --sum nosuch -c "$B values" > /dev/null 2> "$OUT/r3.err"
check "--sum of no argument: refused, naming it" grep -q "no argument 'nosuch'" "$OUT/r3.err"

# --- attached to, and detached from, calls in flight ---------------------
# A process already running ev_spin tens of thousands of times a second:
# calls that enter while kptrace attaches or detaches must not pair one
# call's entry with another's return (an entry whose return was not hooked
# yet, then at the end a return whose entry was no longer seen, made a 1 s
# "call" of a 20 us one).
hot_run() {
	"$B1" hot 4 &
	local hp=$!
	sleep 0.5
	kpt "$@"
	wait $hp
}
# Optimised and dynamic: its calls' uprobes are single-stepped, not emulated,
# and the windows are wide enough to catch calls in every run.
gcc -O1 -g -no-pie tests/host/everyday_target.c -o "$B-o1" ||
	{ echo "FAIL - cannot build tests/host/everyday_target.c with -O1"; exit 1; }
B1=$B-o1
"$B1" hot 7 &
HP=$!
sleep 0.5
for i in 1 2 3; do
	kpt latency "$B1:ev_spin" -d 1 > "$OUT/hot$i.out" 2> "$OUT/hot$i.err"
done
wait $HP
# a pairing check, not a timing one: a wrong pair spans the run (1 s), a
# call of ev_spin takes microseconds, preempted some milliseconds
check "latency of a running process, 3 runs: no call of microseconds measured at 0.5 s or more" \
	python3 - "$OUT"/hot{1,2,3}.out <<'PY'
import re, sys
for f in sys.argv[1:]:
    m = re.search(r"^count (\d+), sum .* max ([0-9.]+)us$", open(f).read(), re.M)
    print("# %s: count %s, max %s us" % (f.split("/")[-1], m.group(1), m.group(2)))
    assert int(m.group(1)) > 1000 and float(m.group(2)) < 500000
PY
# the same with --from/--to by thread: each start's tag is its end's value
hot_run latency --from "p:hot_in $B1:ev_spin tag=%di:s32" --to "r:hot_out $B1:ev_spin ret=\$retval:s32" \
	--by tag,ret -d 1 > "$OUT/hotpair.out" 2> "$OUT/hotpair.err"
check "latency --from/--to of a running process: every pair's start tag is its end's value" \
	python3 - "$OUT/hotpair.out" <<'PY'
import re, sys
keys = re.findall(r"^@\S*\[(-?\d+), (-?\d+)\]:(?: count 1, \S+)?$", open(sys.argv[1]).read(), re.M)
bad = [k for k in keys if k[0] != k[1]]
print("# %d keys, mismatched: %s" % (len(keys), bad[:5]))
assert len(keys) == 8 and not bad
PY

finish
