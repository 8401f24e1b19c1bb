#!/usr/bin/env bash
# kptrace diff on real runs (issue 21, "Diff"): uprobes on
# tests/host/diff_target.c's workloads, whose differences are known by
# construction: 2 ms against 3 ms sleeps, N against 2N calls, argument values
# that differ between runs. Then the false-positive rate on pairs of the same
# workload, and the refusals of bad inputs. --svg: the picture of each diff,
# well-formed (xmllint), its bars against the input JSON (a latency's fine
# buckets merged to at most 48 rows as the check merges them here), the
# verdicts and P as the text says them, rendered in headless Chromium to a
# PNG (kept in .output/tests/host/diff); an unwritable path refused first.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/lib.sh

# KPT=.output/kptrace-san: the same checks on the ASan+UBSan build
KPT=${KPT:-./kptrace}
OUT=.output/tests/host/diff
mkdir -p "$OUT"
T=$(realpath "$OUT")/diff_target
gcc -O0 -g tests/host/diff_target.c -o "$T" || { echo "cannot build target"; exit 1; }
[ "$(id -u)" = 0 ] || skip_all "host tests need root (BPF, uprobes)"
expect_checks 66

# dif NAME ARGS...: kptrace diff ARGS, bounded; stdout in $OUT/NAME.out,
# stderr in $OUT/NAME.err; DRC its exit status. UBSan's reports recorded.
dif() {
	local name=$1; shift
	timeout -k 5 30 $KPT diff "$@" > "$OUT/$name.out" 2> "$OUT/$name.err"
	DRC=$?
	kpt_ubsan "$OUT/$name.err" diff "$@"
}

# has FILE REGEX DESC: pass when FILE matches the extended regex, else fail showing FILE
has() {
	if grep -qE -- "$2" "$1"; then pass "$3"; else fail "$3: $(head -c 800 "$1")"; fi
}

# jget FILE EXPR: EXPR in Python over the first JSON line of FILE (r)
jget() {
	python3 -c 'import json,sys; r=json.loads(open(sys.argv[1]).readline()); print(eval(sys.argv[2]))' "$1" "$2"
}

cat > "$OUT/diff_svg.py" <<'EOF'
# diff_svg.py WHAT SVG TEXT A.json B.json: diff --svg's picture against the
# diff's text output and the two input files; prints what differs, exits 1 then.
import json, math, re, sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"

def fail(msg):
    print("diff_svg:", msg)
    sys.exit(1)

def panels(svg):
    out = []
    for g in ET.parse(svg).getroot().iter(NS + "g"):
        if g.get("class") != "panel":
            continue
        texts = list(g.iter(NS + "text"))
        bars = {run: [r.find(NS + "title").text for r in g.iter(NS + "rect")
                      if r.get("class") == "bar " + run] for run in "ab"}
        out.append({"title": texts[0].text, "texts": ["".join(t.itertext()) for t in texts],
                    "verdict": [t.text for t in texts if t.get("class") == "verdict"],
                    "bars": bars, "pct": [e for e in g.iter() if e.get("class") == "pct"],
                    "rows": sum(1 for t in texts if re.fullmatch(r"\d+ / \d+", t.text or ""))})
    return out

def text_rows(txt):
    """The text's table rows: (P, VERDICT, KEY), in order."""
    rows = []
    for line in open(txt).read().splitlines():
        m = re.search(r"  (\S+)  (DIFFERS|same\*?|\(only in [AB]\)) +(\S.*)$", line)
        if m:
            rows.append(m.groups())
    return rows

def runs(a, b):
    return [[json.loads(l) for l in open(f) if l.strip()] for f in (a, b)]

def counts(bars, run):
    tip = ": %s " % run.upper()
    return [(t.rsplit(tip, 1)[0], int(t.rsplit(tip, 1)[1])) for t in bars[run]]

def head(p, want):
    """The panel's verdict and P as the text's row says them."""
    pv, verdict, key = want
    if p["verdict"] != [verdict]:
        fail("%s: verdict %r, the text %r" % (p["title"], p["verdict"], verdict))
    if not any(t.startswith("P %s" % pv) for t in p["texts"]):
        fail("%s: no 'P %s' in %r" % (p["title"], pv, p["texts"][:4]))

def fine_bucket(v):
    if v < 64:
        return v
    e = v.bit_length() - 1
    return 64 * (e - 5) + ((v >> (e - 6)) & 63)

def check_latency(svg, txt, a, b, merged=None):
    ps, rows, (ra, rb) = panels(svg), text_rows(txt), runs(a, b)
    if len(ps) != 1 or len(rows) != 1:
        fail("%d panels, %d text rows: want one of each" % (len(ps), len(rows)))
    p = ps[0]
    head(p, rows[0])
    fine = [{fine_bucket(int(lo)): c for lo, c in r[0]["hist"]["fine"]} for r in (ra, rb)]
    lo = min(min(f) for f in fine)
    span = max(max(f) for f in fine) - lo + 1
    per = math.ceil(span / 48) if span > 48 else 1
    nrows = math.ceil(span / per)
    if merged and per == 1:
        fail("%d fine buckets: too few to be merged, the check wants more than 48" % span)
    if p["rows"] != nrows or nrows > 48:
        fail("%d rows, want %d (%d fine buckets, %d a row)" % (p["rows"], nrows, span, per))
    for run, f, r in (("a", fine[0], ra), ("b", fine[1], rb)):
        want = [sum(f.get(lo + k * per + i, 0) for i in range(per)) for k in range(nrows)]
        got = [c for _, c in counts(p["bars"], run)]
        if got != [c for c in want if c]:
            fail("bars %s %r, the fine buckets merged %r" % (run, got, [c for c in want if c]))
        if sum(got) != r[0]["hist"]["count"]:
            fail("bars %s add up to %d, the run's count is %d" %
                 (run, sum(got), r[0]["hist"]["count"]))
    if len(p["pct"]) != 6:
        fail("%d percentile lines, want p50, p90, p99 of both runs" % len(p["pct"]))
    for name in (a, b):
        if name not in p["texts"]:
            fail("the legend does not name %s" % name)
    print("%d rows of %d fine buckets each, %d + %d bars as the inputs, %s P %s" %
          (nrows, per, len(p["bars"]["a"]), len(p["bars"]["b"]), rows[0][1], rows[0][0]))

def key_of(row):
    return " ".join("%s=%s" % kv for kv in sorted((row.get("key") or {}).items())) or "(all)"

def check_hist(svg, txt, a, b):
    ps, rows, (ra, rb) = panels(svg), text_rows(txt), runs(a, b)
    if len(ps) != len(rows):
        fail("%d panels, the text has %d keys" % (len(ps), len(rows)))
    for p, want in zip(ps, rows):
        if not p["title"].endswith(" " + want[2]):
            fail("panel %r, the text's key %r (its order)" % (p["title"], want[2]))
        head(p, want)
        for run, rs in (("a", ra), ("b", rb)):
            mine = [r for r in rs if key_of(r) == want[2]]
            got = [c for _, c in counts(p["bars"], run)]
            exp = [k["count"] for k in mine[0]["hist"]["buckets"] if k["count"]] if mine else []
            if got != exp:
                fail("%s: bars %s %r, the input's buckets %r" % (want[2], run, got, exp))
    print("%d panels in the text's order, bars as the inputs' buckets" % len(ps))

def check_count(svg, txt, a, b):
    ps, rows, (ra, rb) = panels(svg), text_rows(txt), runs(a, b)
    if len(ps) != 1:
        fail("%d panels, want one for the count table" % len(ps))
    p = ps[0]
    for run, rs in (("a", ra), ("b", rb)):
        got = dict(counts(p["bars"], run))
        exp = {key_of(r): r["count"] for r in rs if r["count"]}
        if got != exp:
            fail("bars %s %r, the input's counts %r" % (run, got, exp))
    for pv, verdict, key in rows:
        if "%s  P %s" % (verdict, pv) not in p["texts"]:
            fail("no '%s  P %s' for %s" % (verdict, pv, key))
    print("one panel, %d keys' bars as the inputs, verdicts as the text" % len(rows))

{"latency": check_latency, "hist": check_hist, "count": check_count}[sys.argv[1]](*sys.argv[2:])
EOF

# svgcheck WHAT NAME A B: $OUT/NAME.svg against $OUT/NAME.out and the inputs
svgcheck() { python3 "$OUT/diff_svg.py" "$1" "$OUT/$2.svg" "$OUT/$2.out" "$3" "$4" ${5:+"$5"}; }

# in_range V LO HI: LO <= V <= HI (decimals)
in_range() { python3 -c 'import sys; v,lo,hi=map(float,sys.argv[1:]); sys.exit(0 if lo<=v<=hi else 1)' "$@"; }

# lat FILE MS: latency of dt_work over 60 calls of MS ms, as JSON in FILE
lat() { kpt latency --json -o "$1" -c "$T sleep $2 60" "$T:dt_work" 2>> "$OUT/kpt.log"; }

echo "# a: 2 ms against 3 ms"
lat "$OUT/ms2.json" 2
lat "$OUT/ms3.json" 3
dif a "$OUT/ms2.json" "$OUT/ms3.json"
cat "$OUT/a.out"
check "2 ms vs 3 ms: exit 1 (differs)" [ "$DRC" = 1 ]
has "$OUT/a.out" '^latency latency/dt_work_0_ret \(on the fine buckets\)$' "2 ms vs 3 ms: titled, on the fine buckets"
has "$OUT/a.out" ' DIFFERS +\(all\)$' "2 ms vs 3 ms: the key is called DIFFERS"
has "$OUT/a.out" '^60 -> 60 x1\.00 ' "2 ms vs 3 ms: 60 -> 60 calls"
dif a-json --json "$OUT/ms2.json" "$OUT/ms3.json"
p=$(jget "$OUT/a-json.out" 'r["p"]')
ratio=$(jget "$OUT/a-json.out" 'r["p50_ratio"]')
check "2 ms vs 3 ms: p < 0.01 (p = $p)" in_range "${p:-1}" 0 0.0099999
check "2 ms vs 3 ms: p50 ratio in 1.3-1.7 ($ratio)" in_range "${ratio:-0}" 1.3 1.7
check "2 ms vs 3 ms --json: verdict differs, on the fine buckets" \
	[ "$(jget "$OUT/a-json.out" 'r["verdict"], r["buckets"], r["test"]')" = "('differs', 'fine', 'ks')" ]

echo "# b: the same workload twice, 10 pairs of 1000 calls: false positives"
# 1000 calls of 1 ms: p99 stands on its 10 slowest calls, which the rule
# before (a quantile counted with 10 events above it) let decide, calling 7
# of 15 such pairs different; p90 stands on 100 and counts
fp=0 bad=0 sig=0 old=0 small=0 ps=
for i in $(seq 1 10); do
	kpt latency --json -o "$OUT/same-$i-a.json" -c "$T sleep 1 1000" "$T:dt_work" 2>> "$OUT/kpt.log"
	kpt latency --json -o "$OUT/same-$i-b.json" -c "$T sleep 1 1000" "$T:dt_work" 2>> "$OUT/kpt.log"
	dif same-$i --json "$OUT/same-$i-a.json" "$OUT/same-$i-b.json"
	[ "$(jget "$OUT/same-$i.out" 'r["significant"]' 2>/dev/null)" = True ] && sig=$((sig + 1))
	# the rule before: significant and p50, p90 or p99 moved 5% as printed
	[ "$(jget "$OUT/same-$i.out" 'r["significant"] and max(abs(r[q + "_ratio"] - 1) for q in ("p50", "p90", "p99")) >= 0.05' 2>/dev/null)" = True ] &&
		old=$((old + 1))
	[ "$(jget "$OUT/same-$i.out" 'min(r["count"])' 2>/dev/null)" -ge 1000 ] 2> /dev/null || small=$((small + 1))
	case $DRC in
	0) ;;
	1) fp=$((fp + 1)) ;;
	*) bad=$((bad + 1)) ;;
	esac
	ps="$ps $(jget "$OUT/same-$i.out" '"%.3g" % r["p"]' 2>/dev/null)"
done
echo "p-values of the 10 pairs:$ps"
# runs are not samples of one distribution: the bulk moves by a fine bucket or so
# from run to run, which KS sees (p < 0.01 in most pairs); the quantiles' moves
# beyond their confidence intervals are what keep it "same*"
check "same workload: $fp of 10 pairs called different (at most 1; KS p < 0.01 in $sig; the rule before: $old)" \
	[ "$fp" -le 1 ]
check "same workload: every run 1000 calls or more, p99 on 10 events ($small not)" [ "$small" = 0 ]
check "same workload: every diff exited 0 or 1 ($bad did not)" [ "$bad" = 0 ]

echo "# c: counts"
cnt() { kpt count --json -o "$1" -c "$T spin $2" "p:spin $T:dt_spin" 2>> "$OUT/kpt.log"; }
cnt "$OUT/c1000.json" 1000
cnt "$OUT/c2000.json" 2000
cnt "$OUT/c1000b.json" 1000
dif c-diff "$OUT/c1000.json" "$OUT/c2000.json"
cat "$OUT/c-diff.out"
check "count 1000 vs 2000: exit 1" [ "$DRC" = 1 ]
has "$OUT/c-diff.out" '^1000 -> 2000 x2\.00 .* DIFFERS +\(all\)$' "count 1000 vs 2000: the row, x2.00, DIFFERS"
has "$OUT/c-diff.out" 'conditional binomial test of B given A \+ B' "count: the test said in the footer"
# --threshold moves the verdict: 1000 against 1100 calls is p 0.03
cnt "$OUT/c1100.json" 1100
dif c-t01 "$OUT/c1000.json" "$OUT/c1100.json"
p=$(grep -oE '^1000 -> 1100 x1\.10 +[0-9.e-]+' "$OUT/c-t01.out" | awk '{print $NF}')
check "count 1000 vs 1100: p between 0.01 and 0.05 (p = $p)" in_range "${p:-1}" 0.01 0.05
check "count 1000 vs 1100 at --threshold 0.01 (the default): exit 0, same (exit $DRC)" \
	sh -c "[ $DRC = 0 ] && grep -q ' same  *(all)\$' '$OUT/c-t01.out'"
dif c-t05 --threshold 0.05 "$OUT/c1000.json" "$OUT/c1100.json"
check "count 1000 vs 1100 at --threshold 0.05: exit 1, DIFFERS (exit $DRC)" \
	sh -c "[ $DRC = 1 ] && grep -q ' DIFFERS  *(all)\$' '$OUT/c-t05.out'"
dif c-same "$OUT/c1000.json" "$OUT/c1000b.json"
check "count 1000 vs 1000: exit 0" [ "$DRC" = 0 ]
has "$OUT/c-same.out" '^1000 -> 1000 x1\.00 +1\.000 +same +\(all\)$' "count 1000 vs 1000: p 1, same"
# -i: a run's tables, one an interval, summed per key
kpt count --json -i 1 -o "$OUT/c-iv.json" -c "sh -c '$T spin 1000; sleep 1.3; $T spin 1000'" \
	"p:spin $T:dt_spin" 2>> "$OUT/kpt.log"
dif c-iv "$OUT/c-iv.json" "$OUT/c2000.json"
n=$(grep -c . "$OUT/c-iv.json")
check "count -i 1 ($n tables) vs one of 2000: summed, the same (exit $DRC)" \
	sh -c "[ $DRC = 0 ] && [ $n -ge 2 ] && grep -q '^2000 -> 2000 ' '$OUT/c-iv.out'"
has "$OUT/c-iv.out" "Interval output \(-i\): each key's tables summed, $n in A, 1 in B" \
	"count -i: the summing said"

echo "# d: keys in one run only"
hv() { kpt hist --json -o "$1" -c "$T vals 50 $2" "p:v $T:dt_val x=%di:u64" x --by x 2>> "$OUT/kpt.log"; }
hv "$OUT/v12.json" "1 2"
hv "$OUT/v23.json" "2 3"
dif d "$OUT/v12.json" "$OUT/v23.json"
cat "$OUT/d.out"
has "$OUT/d.out" '^ *50 -> - .*\(only in A\)  x=1$' "x=1 listed, only in A"
has "$OUT/d.out" '^ *- -> 50 .*\(only in B\)  x=3$' "x=3 listed, only in B"
has "$OUT/d.out" '^ *50 -> 50 .* same +x=2$' "x=2 in both, the same"
check "50 events of a key in one run only: significant, exit 1" [ "$DRC" = 1 ]

echo "# g: 3.1 times the calls; p99 30 times slower (issue 37)"
# the audit's pair was called same*: KS weighs the shape only, and p99 of a
# few thousand calls did not count. By construction: 1000 then 3100 calls of
# the same 100 us sleep; 1000 calls each, every 50th of B a 100 ms sleep (2%:
# p99's interval all slow calls, 4 times A's upper end, the second slowest of
# its 1000, which this host delays to 12 ms when loaded)
mix() { kpt latency --json -o "$1" -c "$T mix 100 $2 100000 $3" "$T:dt_wait" 2>> "$OUT/kpt.log"; }
mix "$OUT/g1000.json" 1000 0
mix "$OUT/g3100.json" 3100 0
mix "$OUT/g-slow.json" 1000 50
dif g-count "$OUT/g1000.json" "$OUT/g3100.json"
cat "$OUT/g-count.out"
check "latency of 1000 vs 3100 calls alike: exit 1, DIFFERS (exit $DRC)" \
	sh -c "[ $DRC = 1 ] && grep -q '^1000 -> 3100 x3\.10 .* DIFFERS  *(all)\$' '$OUT/g-count.out'"
has "$OUT/g-count.out" '^A hist or latency key DIFFERS too when its COUNT does' "a count's change: said why"
dif g-count-json --json "$OUT/g1000.json" "$OUT/g3100.json"
check "1000 vs 3100 --json: count_p below 1e-100, count_moved" \
	[ "$(jget "$OUT/g-count-json.out" 'r["count_p"] < 1e-100 and r["count_moved"]')" = True ]
dif g-tail "$OUT/g1000.json" "$OUT/g-slow.json"
cat "$OUT/g-tail.out"
check "p99 of 1000 calls each, 2% at 100 ms: exit 1, DIFFERS (exit $DRC)" \
	sh -c "[ $DRC = 1 ] && grep -q '^1000 -> 1000 x1\.00 .* DIFFERS  *(all)\$' '$OUT/g-tail.out'"
dif g-tail-json --json "$OUT/g1000.json" "$OUT/g-slow.json"
r99=$(jget "$OUT/g-tail-json.out" 'round(r["p99_ratio"], 1)')
check "p99 of 1000 calls each: x$r99, tail_jump" \
	[ "$(jget "$OUT/g-tail-json.out" 'r["p99_ratio"] >= 4 and r["tail_jump"]')" = True ]

echo "# e: bad inputs"
printf 'Attaching 1 probe...\n' > "$OUT/text.json"
: > "$OUT/empty.json"
head -n 1 "$OUT/c1000.json" | sed 's/"type":"count",//' > "$OUT/notype.json"
dif e-text "$OUT/text.json" "$OUT/ms2.json"
check "not JSON: exit 2" [ "$DRC" = 2 ]
has "$OUT/e-text.err" "^kptrace diff: $OUT/text.json:1: not JSON: .*\(column [0-9]+\); kptrace diff reads what kptrace --json writes$" \
	"not JSON: FILE:1: and jansson's text and column"
head -c 200 "$OUT/ms2.json" > "$OUT/cut.json"
dif e-cut "$OUT/cut.json" "$OUT/ms2.json"
check "a file cut mid-line: exit 2" [ "$DRC" = 2 ]
has "$OUT/e-cut.err" "^kptrace diff: $OUT/cut.json:1: not JSON: " "a file cut mid-line: FILE:1: not JSON"
# a run without events writes an empty file: no keys, each of the other run's new
cnt "$OUT/c0.json" 0
check "count of a run without calls: an empty file" sh -c "[ -e '$OUT/c0.json' ] && [ ! -s '$OUT/c0.json' ]"
dif e-empty "$OUT/c0.json" "$OUT/c1000.json"
check "no calls, then 1000: exit 1, (only in B) ($DRC: $(head -c 200 "$OUT/e-empty.err"))" \
	sh -c "[ $DRC = 1 ] && grep -q '^ *- -> 1000 .*(only in B)  (all)\$' '$OUT/e-empty.out'"
has "$OUT/e-empty.out" '^A has no rows \(the run saw no events\): every key of B differs\.$' \
	"no calls, then 1000: said why"
dif e-empty-b "$OUT/ms2.json" "$OUT/empty.json"
check "a latency, then an empty file: exit 1 ($DRC)" [ "$DRC" = 1 ]
dif e-empty2 "$OUT/c0.json" "$OUT/empty.json"
check "both empty: exit 0, said ($DRC)" sh -c "[ $DRC = 0 ] && grep -q '^Neither file has rows' '$OUT/e-empty2.out'"
# the same field bucketed log2 and --linear: refused, both layouts named
hl() { kpt hist --json -o "$1" -c "$T vals 50 100 5000 30000" "p:v $T:dt_val x=%di:u64" x "${@:2}" 2>> "$OUT/kpt.log"; }
hl "$OUT/hl.json"
hl "$OUT/hlin.json" --linear 0,40000,4000
dif e-layout "$OUT/hl.json" "$OUT/hlin.json"
check "log2 vs --linear 0,40000,4000: exit 2 ($DRC), nothing on stdout" \
	sh -c "[ $DRC = 2 ] && [ ! -s '$OUT/e-layout.out' ]"
has "$OUT/e-layout.err" "^kptrace diff: hist uprobes/v \(all\): the buckets differ: $OUT/hl.json has log2 rows, $OUT/hlin.json linear rows 4000 wide \(" \
	"log2 vs --linear: both layouts named"
hl "$OUT/hlin2.json" --linear 0,40000,1000
dif e-layout2 "$OUT/hlin2.json" "$OUT/hlin.json"
check "--linear steps 1000 vs 4000: exit 2, named ($(head -c 300 "$OUT/e-layout2.err"))" \
	sh -c "[ $DRC = 2 ] && grep -q 'linear rows 1000 wide, .* linear rows 4000 wide' '$OUT/e-layout2.err'"
kpt latency --json -o "$OUT/lv.json" -c "$T vals 50 1" "$T:dt_val" 2>> "$OUT/kpt.log"
dif e-kind "$OUT/hl.json" "$OUT/lv.json"
check "hist vs latency: exit 2, nothing to compare ($(head -c 300 "$OUT/e-kind.err"))" \
	sh -c "[ $DRC = 2 ] && grep -q 'nothing to compare' '$OUT/e-kind.err'"
dif e-notype "$OUT/notype.json" "$OUT/c1000.json"
check "a row without \"type\": exit 2" [ "$DRC" = 2 ]
has "$OUT/e-notype.err" "^kptrace diff: $OUT/notype.json:1: not a kptrace row: no \"type\"$" \
	"a row without \"type\": FILE:1: and the member named"
dif e-common "$OUT/ms2.json" "$OUT/c1000.json"
check "nothing in common: exit 2, what each file holds ($(head -c 300 "$OUT/e-common.err"))" \
	sh -c "[ $DRC = 2 ] && grep -qx 'kptrace diff: $OUT/ms2.json has latency of dt_work_0_ret, $OUT/c1000.json count of spin: nothing to compare' '$OUT/e-common.err'"
dif e-missing "$OUT/ms2.json" "$OUT/no-such.json"
check "a missing file: exit 2, named ($(head -c 200 "$OUT/e-missing.err"))" \
	sh -c "[ $DRC = 2 ] && grep -q '^kptrace diff: $OUT/no-such.json: No such file or directory$' '$OUT/e-missing.err'"

echo "# f: --svg"
if ! command -v xmllint > /dev/null || ! command -v chromium > /dev/null; then
	env_fault "xmllint or chromium is not installed: --svg's pictures not checked"
	expect_checks $((EXPECTED - 17))
else
	rm -f "$OUT"/*.svg "$OUT"/*.png
	dif f-lat --svg "$OUT/f-lat.svg" "$OUT/ms2.json" "$OUT/ms3.json"
	check "--svg: the text and exit status as without it (exit $DRC)" \
		sh -c "[ $DRC = 1 ] && cmp -s '$OUT/f-lat.out' '$OUT/a.out'"
	check "--svg latency: well-formed" xmllint --noout "$OUT/f-lat.svg"
	check "--svg latency: verdict and P as the text, fine buckets merged to <= 48 rows as the inputs'" \
		svgcheck latency f-lat "$OUT/ms2.json" "$OUT/ms3.json"
	check "--svg latency: rendered" render_png "$OUT/f-lat.svg" "$OUT/f-lat.png" 3b7ddd
	# 2 ms against 8 ms: some 130 fine buckets apart, merged into at most 48 rows
	lat "$OUT/ms8.json" 8
	dif f-wide --svg "$OUT/f-wide.svg" "$OUT/ms2.json" "$OUT/ms8.json"
	check "--svg latency 2 ms vs 8 ms: merged to <= 48 rows, every event in its row" \
		svgcheck latency f-wide "$OUT/ms2.json" "$OUT/ms8.json" merged
	check "--svg latency 2 ms vs 8 ms: rendered" render_png "$OUT/f-wide.svg" "$OUT/f-wide.png" e8743b
	dif f-json --json --svg "$OUT/f-json.svg" "$OUT/ms2.json" "$OUT/ms3.json"
	check "--svg with --json: the JSON as without it, the same picture" \
		sh -c "cmp -s '$OUT/f-json.out' '$OUT/a-json.out' && cmp -s '$OUT/f-json.svg' '$OUT/f-lat.svg'"
	dif f-hist --svg "$OUT/f-hist.svg" "$OUT/v12.json" "$OUT/v23.json"
	check "--svg hist --by: well-formed" xmllint --noout "$OUT/f-hist.svg"
	check "--svg hist --by: a panel per key in the text's order, bars as the inputs'" \
		svgcheck hist f-hist "$OUT/v12.json" "$OUT/v23.json"
	check "--svg hist --by: keys in one run drawn \"50 / -\" and \"- / 50\", as the text" sh -c \
		"grep -q '>50 / -</text>' '$OUT/f-hist.svg' && grep -q '>- / 50</text>' '$OUT/f-hist.svg' && ! grep -q '>0 / 50</text>' '$OUT/f-hist.svg'"
	check "--svg hist --by: rendered" render_png "$OUT/f-hist.svg" "$OUT/f-hist.png" e8743b
	dif f-count --svg "$OUT/f-count.svg" "$OUT/c1000.json" "$OUT/c2000.json"
	check "--svg count: well-formed" xmllint --noout "$OUT/f-count.svg"
	check "--svg count: one panel, A's and B's bar and the verdict per key" \
		svgcheck count f-count "$OUT/c1000.json" "$OUT/c2000.json"
	check "--svg count: (all): A 1000 and (all): B 2000" sh -c \
		"grep -q '<title>(all): A 1000</title>' '$OUT/f-count.svg' && grep -q '<title>(all): B 2000</title>' '$OUT/f-count.svg'"
	check "--svg count: rendered" render_png "$OUT/f-count.svg" "$OUT/f-count.png" e8743b
	dif f-new --svg "$OUT/f-new.svg" "$OUT/c0.json" "$OUT/c1000.json"
	check "--svg count, a key in B only: \"- / 1000\" as the text's \"- -> 1000\" (exit $DRC)" sh -c \
		"grep -q '>- / 1000</text>' '$OUT/f-new.svg' && ! grep -q '>0 / 1000</text>' '$OUT/f-new.svg'"
	# a file name holding XML's characters: in the legend, escaped
	ODD="$OUT/a<b&c\"d.json"
	cp "$OUT/c1000.json" "$ODD"
	dif f-odd --svg "$OUT/f-odd.svg" "$ODD" "$OUT/c2000.json"
	check "--svg, a file named <&\": well-formed, its name escaped in the legend" sh -c \
		"xmllint --noout '$OUT/f-odd.svg' && grep -q 'a&lt;b&amp;c&quot;d.json</text>' '$OUT/f-odd.svg'"
	rm -f "$ODD"
fi
# an unwritable path: said before either file is read (B does not exist)
dif f-nodir --svg /nonexistent/dir/x.svg "$OUT/ms2.json" "$OUT/no-such.json"
check "--svg unwritable: exit 2, the path and why ($(head -c 200 "$OUT/f-nodir.err"))" \
	sh -c "[ $DRC = 2 ] && grep -qx 'kptrace diff: --svg: cannot write /nonexistent/dir/x.svg: No such file or directory' '$OUT/f-nodir.err'"
check "--svg unwritable: refused before the files are read, nothing on stdout" \
	sh -c "! grep -q no-such '$OUT/f-nodir.err' && [ ! -s '$OUT/f-nodir.out' ]"
ln -sf /tmp/kpt-diff-elsewhere.svg "$OUT/f-link.svg"
rm -f /tmp/kpt-diff-elsewhere.svg
dif f-link --svg "$OUT/f-link.svg" "$OUT/ms2.json" "$OUT/ms3.json"
check "--svg through a symbolic link: refused, nothing written there" sh -c \
	"[ $DRC = 2 ] && grep -q 'cannot write .*symbolic link' '$OUT/f-link.err' && [ ! -e /tmp/kpt-diff-elsewhere.svg ] && [ ! -s '$OUT/f-link.out' ]"
rm -f "$OUT/f-link.svg"
finish
