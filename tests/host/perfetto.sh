#!/usr/bin/env bash
# --perfetto (issue 21): every timed call of latency a complete event of the
# Trace Event Format, every streamed event an instant, through uprobes on
# tests/host/target.c's workloads. Checked against the same run's histogram
# (count and sum, to the nanosecond), the program's own measure of each
# call, the entry arguments each slice carries, under recursion the nesting
# per thread, and the instants against the same run's --json events.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/lib.sh

KPT=${KPT:-./kptrace}
OUT=.output/tests/host/perfetto
rm -rf "$OUT"
mkdir -p "$OUT"
OUT=$(realpath "$OUT")
B=$OUT/target-pf
gcc -O0 -fno-inline -no-pie -g tests/host/target.c -o "$B" || { echo "cannot build target"; exit 1; }
P=$OUT/pf-tgt
gcc -O0 -fno-inline -no-pie -g -pthread tests/host/perfetto_target.c -o "$P" ||
	{ echo "cannot build perfetto_target"; exit 1; }
[ "$(id -u)" = 0 ] || skip_all "host tests need root (BPF, uprobes)"
expect_checks 17

# the target prints each call's own duration (ns): 30 sleeps of 1, 2 and 4 ms
kpt latency --perfetto "$OUT/sleep.trace.json" --json -o "$OUT/sleep.json" -c "$B sleep" \
	"$B:kpt_sleep usec=%di:s64" > "$OUT/sleep.ref" 2> "$OUT/sleep.err"
check "30 calls: 30 slices, their durations adding up to the histogram's sum to the ns" \
	python3 - "$OUT/sleep.trace.json" "$OUT/sleep.json" <<'PY'
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
h = json.loads(open(sys.argv[2]).readline())["hist"]
x = [e for e in ev if e["ph"] == "X"]
assert len(x) == h["count"] == 30, (len(x), h["count"])
assert sum(e["args"]["dur_ns"] for e in x) == h["sum"], (sum(e["args"]["dur_ns"] for e in x), h["sum"])
assert all(e["name"] == "kpt_sleep" and e["cat"] == "kptrace" for e in x)
PY
# between the sleep asked for and the program's own measure of the call: a
# bound on both sides that no scheduling delay can break (the program may be
# preempted for ms between the return probe and its clock read)
check "each slice inside the program's own time of that call, ts and dur the ns in microseconds" \
	python3 - "$OUT/sleep.trace.json" "$OUT/sleep.ref" <<'PY'
import json, sys
from decimal import Decimal
raw = open(sys.argv[1]).read()
x = sorted((e for e in json.loads(raw, parse_float=Decimal)["traceEvents"] if e["ph"] == "X"),
           key=lambda e: e["ts"])
own = [int(l) for l in open(sys.argv[2]) if l.strip()]
assert len(own) == len(x) == 30
for i, (e, o) in enumerate(zip(x, own)):
    d = e["args"]["dur_ns"]
    asked = [1000000, 2000000, 4000000][i % 3]
    assert asked <= d <= o, (i, asked, d, o)
    assert e["ts"] * 1000 == e["args"]["ts_ns"] and e["dur"] * 1000 == d, e
PY
check "each slice's entry argument: the program's 1, 2, 4 ms in its order, never shorter" \
	python3 - "$OUT/sleep.trace.json" <<'PY'
import json, sys
x = sorted((e for e in json.load(open(sys.argv[1]))["traceEvents"] if e["ph"] == "X"),
           key=lambda e: e["args"]["ts_ns"])
assert [e["args"]["usec"] for e in x] == [1000, 2000, 4000] * 10, [e["args"] for e in x]
assert all(e["args"]["dur_ns"] >= e["args"]["usec"] * 1000 for e in x)
PY
check "the thread's and the process's names (target-pf), and the lost events' counter, 0" \
	python3 - "$OUT/sleep.trace.json" <<'PY'
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
pid = [e for e in ev if e["ph"] == "X"][0]["pid"]
m = {(e["name"], e["pid"]): e["args"]["name"] for e in ev if e["ph"] == "M"}
assert m == {("thread_name", pid): "target-pf", ("process_name", pid): "target-pf"}, m
c = [e for e in ev if e["ph"] == "C"]
assert len(c) == 1 and c[0]["name"] == "lost events" and c[0]["args"] == {"lost": 0}, c
PY

# a hot function, 50000 calls back to back (~70k/s here): with the default
# buffer every call a slice, none lost (a 4 KB ring lost half of them)
kpt latency --perfetto "$OUT/hot.trace.json" --json -o "$OUT/hot.json" -d 30 \
	-c "$P hot 50000" "$P:pf_func n=%di:s64" > /dev/null 2> "$OUT/hot.err"
check "50000 hot calls: 50000 slices, their sum the histogram's, the lost counter 0" \
	python3 - "$OUT/hot.trace.json" "$OUT/hot.json" <<'PY'
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
h = json.loads(open(sys.argv[2]).readline())["hist"]
x = [e for e in ev if e["ph"] == "X"]
assert len(x) == h["count"] == 50000, (len(x), h["count"])
assert sum(e["args"]["dur_ns"] for e in x) == h["sum"], (sum(e["args"]["dur_ns"] for e in x), h["sum"])
c = [e["args"]["lost"] for e in ev if e["ph"] == "C"]
assert c and max(c) == 0, c
PY

# a ring buffer of 4 KB, lost records throughout: the counter read as the run
# goes, a sample when it changed (at most two a 100 ms), the total at the end
kpt latency --buffer-size 4096 --perfetto "$OUT/lost.trace.json" --json -d 30 \
	-c "$P hot 300000" "$P:pf_func n=%di:s64" > /dev/null 2> "$OUT/lost.err"
check "lost events: samples as the run went, growing, bounded, the last the profile's lost" \
	python3 - "$OUT/lost.trace.json" "$OUT/lost.err" <<'PY'
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
prof = [json.loads(l) for l in open(sys.argv[2]) if l.startswith('{"type":"profile"')][0]
x = [e["args"]["ts_ns"] for e in ev if e["ph"] == "X"]
c = sorted((e["args"]["lost"], e["ts"]) for e in ev if e["ph"] == "C")
assert all(e["name"] == "lost events" for e in ev if e["ph"] == "C")
assert sorted(c, key=lambda s: s[1]) == c, c
assert c[-1][0] == prof["lost"] > 0, (c[-1], prof["lost"])
during = {v for v, ts in c if v and ts * 1000 < max(x)}
assert len(during) >= 3, c
span = (c[-1][1] - min(x) / 1000) / 1e6
assert len(c) <= 2 * (span / 0.1) + 3, (len(c), span)
PY

# threads renamed worker1 and worker2 call; the main thread, pf-tgt, never does
kpt latency --perfetto "$OUT/thr.trace.json" -d 30 -c "$P thr" "$P:pf_func n=%di:s64" \
	> /dev/null 2> "$OUT/thr.err"
check "threads: each named by its own comm, the process by its main thread's (pf-tgt)" \
	python3 - "$OUT/thr.trace.json" <<'PY'
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
x = [e for e in ev if e["ph"] == "X"]
assert len(x) == 20 and len({e["pid"] for e in x}) == 1, len(x)
pid = x[0]["pid"]
t = {e["tid"]: e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
p = {e["pid"]: e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "process_name"}
assert p == {pid: "pf-tgt"}, p
assert sorted(t.values()) == ["worker1", "worker2"] and pid not in t, t
for e in x:
    assert t[e["tid"]] == "worker%d" % e["args"]["n"], e
PY

# recursion: 5 calls of kpt_sleep, each nested 4 deep, on one thread
kpt latency --perfetto "$OUT/rec.trace.json" -c "$B recurse" "$B:kpt_sleep depth=%si:s32" \
	> /dev/null 2> "$OUT/rec.err"
check "recursion: 20 slices, 5 chains of 4, each inside its caller, none partly overlapping" \
	python3 - "$OUT/rec.trace.json" <<'PY'
import json, sys
x = [e for e in json.load(open(sys.argv[1]))["traceEvents"] if e["ph"] == "X"]
assert len(x) == 20 and len({e["tid"] for e in x}) == 1, len(x)
iv = [(e["args"]["ts_ns"], e["args"]["ts_ns"] + e["args"]["dur_ns"]) for e in x]
inside = lambda a, b: b[0] <= a[0] and a[1] <= b[1] and a != b
for a in iv:
    for b in iv:
        assert a == b or a[1] <= b[0] or b[1] <= a[0] or inside(a, b) or inside(b, a), (a, b)
depth = sorted(sum(inside(a, b) for b in iv) for a in iv)
assert depth == [0] * 5 + [1] * 5 + [2] * 5 + [3] * 5, depth
# the program's depth argument counts down: each slice carries its own call's
for e, a in zip(x, iv):
    assert sum(inside(a, b) for b in iv) == 3 - e["args"]["depth"], (e, a)
PY

# --from/--to: the slice carries --from's arguments
kpt latency --perfetto "$OUT/pair.trace.json" --from "p:s $B:kpt_sleep usec=%di:s64" \
	--to "r:e $B:kpt_sleep" -c "$B sleep" > /dev/null 2> "$OUT/pair.err"
check "--from/--to: 30 slices named s->e, each with its --from's usec, in order" \
	python3 - "$OUT/pair.trace.json" <<'PY'
import json, sys
x = sorted((e for e in json.load(open(sys.argv[1]))["traceEvents"] if e["ph"] == "X"),
           key=lambda e: e["args"]["ts_ns"])
assert [e["name"] for e in x] == ["s->e"] * 30, x[:2]
assert [e["args"]["usec"] for e in x] == [1000, 2000, 4000] * 10, [e["args"] for e in x]
PY

# streamed events: each an instant, the same events --json prints, on its clock
for clk in mono wall; do
	kpt --time $clk --perfetto "$OUT/ev-$clk.trace.json" --json -o "$OUT/ev-$clk.json" \
		-c "$B sleep" "p:$B:kpt_sleep usec=%di:s64 depth=%si:s32" > /dev/null \
		2> "$OUT/ev-$clk.err"
	check "--time $clk: 30 instants, each an event of --json's: its ts (ns and us) and args" \
		python3 - "$OUT/ev-$clk.trace.json" "$OUT/ev-$clk.json" <<'PY'
import json, sys
from decimal import Decimal
ev = json.loads(open(sys.argv[1]).read(), parse_float=Decimal)["traceEvents"]
i = [e for e in ev if e["ph"] == "I"]
j = [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
assert len(i) == len(j) == 30, (len(i), len(j))
for a, b in zip(i, j):
    assert a["args"]["ts_ns"] == b["ts"] and a["ts"] * 1000 == b["ts"], (a, b)
    assert {k: v for k, v in a["args"].items() if k != "ts_ns"} == b["args"], (a, b)
    assert (a["pid"], a["tid"], a["s"], a["name"], a["cat"]) == \
        (b["pid"], b["tid"], "t", b["event"], b["group"]), (a, b)
names = {e["args"]["name"] for e in ev if e["ph"] == "M"}
assert names == {"target-pf"}, names
PY
done

# a real consumer: Chrome DevTools' Performance-panel trace engine, in node
. tests/host/perfetto_load.sh
pf_load() {
	local d=$1 rc
	shift
	perfetto_load "$@" > "$OUT/load.out" 2>&1
	rc=$?
	case $rc in
	0) pass "$d: $(cat "$OUT/load.out")" ;;
	77) env_fault "$d: $(cat "$OUT/load.out")" ;;
	*) fail "$d: exit $rc: $(tail -c 600 "$OUT/load.out" | tr '\n' ' ')" ;;
	esac
}
pf_load "DevTools' trace engine draws the 30 slices, named" "$OUT/sleep.trace.json" \
	--expect-slices 30 --expect-instants 0
pf_load "DevTools' trace engine nests the recursion 4 deep" "$OUT/rec.trace.json" \
	--expect-slices 20 --expect-depth 4
pf_load "DevTools' trace engine draws the 30 instants" "$OUT/ev-mono.trace.json" \
	--expect-slices 0 --expect-instants 30
head -c 3000 "$OUT/sleep.trace.json" > "$OUT/cut.trace.json"
perfetto_load "$OUT/cut.trace.json" > "$OUT/cut.out" 2>&1
rc=$?
check "DevTools' trace engine refuses a cut trace (the check can fail): $(head -c 200 "$OUT/cut.out")" \
	test $rc = 1

KPT_RC=64 kpt count --perfetto "$OUT/x.json" "p:$B:kpt_sleep" > /dev/null 2> "$OUT/r1.err"
check "--perfetto in count: refused, for streams, latency and why" \
	grep -q -- "--perfetto is for streamed events (each an instant), 'kptrace latency' (every call a slice) and 'kptrace why'" "$OUT/r1.err"
KPT_RC=error kpt latency --perfetto /nonexistent/dir/x.json -c "$B sleep" "$B:kpt_sleep" \
	> /dev/null 2> "$OUT/r2.err"
check "--perfetto to a path that cannot be written: refused before attaching" \
	sh -c "grep -q 'cannot write /nonexistent/dir/x.json' '$OUT/r2.err' && ! grep -q Attaching '$OUT/r2.err'"
finish
