#!/usr/bin/env bash
# Host tests of --svg: the pictures of hist, latency (bars and an -i heatmap)
# and count, each well-formed (xmllint), its structure checked against the
# text or JSON of the same run (a bar per non-empty row, its count in its
# tooltip; a heat cell per interval and row), hist's bars against the
# workload's own calls, and rendered in headless
# Chromium to a PNG of the stated size that is not blank. The PNGs stay in
# .output/tests/host/svg as artefacts. Bad input: --svg refused in trace
# mode, and an unwritable path refused before anything attaches.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/lib.sh

KPT=${KPT:-./kptrace}
OUT=.output/tests/host/svg
mkdir -p "$OUT"
OUTA=$(realpath "$OUT")
B=$OUTA/target-svg
gcc -O0 -fno-inline -no-pie -g tests/host/target.c -o "$B" || { echo "cannot build target"; exit 1; }
[ "$(id -u)" = 0 ] || skip_all "host tests need root (BPF, uprobes)"
command -v xmllint > /dev/null || skip_all "xmllint is not installed (libxml2-utils)"
command -v chromium > /dev/null || skip_all "chromium is not installed"
expect_checks 41
rm -f "$OUT"/*.svg "$OUT"/*.png "$OUT"/*.txt "$OUT"/*.json

DEF="p:sz $B:kpt_size n=%di:u64 k=+0(%si):u8"

cat > "$OUT/svg_check.py" <<'EOF'
# svg_check.py WHAT SVG [DATA]: the picture's structure against the run's
# own text or JSON; prints what differs, exits 1 then.
import json, re, sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"

def panels(svg):
    root = ET.parse(svg).getroot()
    assert root.tag == NS + "svg", root.tag
    for a in ("width", "height", "viewBox"):
        assert a in root.attrib, "root has no " + a
    out = []
    for g in root.iter(NS + "g"):
        if g.get("class") != "panel":
            continue
        title = next(t for t in g.iter(NS + "text")).text
        bars = [r.find(NS + "title").text for r in g.iter(NS + "rect") if r.get("class") == "bar"]
        cells = [(float(r.get("x")), r.find(NS + "title").text, r.get("fill"))
                 for r in g.iter(NS + "rect") if r.get("class") == "cell"]
        pct = [e for e in g.iter() if e.get("class") == "pct"]
        texts = ["".join(t.itertext()) for t in g.iter(NS + "text")]
        out.append({"title": title, "bars": bars, "cells": cells, "pct": pct, "texts": texts})
    return out

ROW = re.compile(r"^(\S.*?)\s+(\d+) \|[@ ]*\|$")

def text_hists(txt):
    """The text's histograms: [(time or None, title, [(label, count)], stats)]."""
    hs, time = [], None
    for line in open(txt).read().splitlines():
        if re.fullmatch(r"\d\d:\d\d:\d\d", line):
            time = line
        elif line.startswith("@"):
            hs.append([time, line, [], None, None])
            time = None
        elif hs and ROW.match(line):
            m = ROW.match(line)
            hs[-1][2].append((m.group(1), int(m.group(2))))
        elif hs and line.startswith("count ") and hs[-1][3] is None:
            hs[-1][3] = line
        elif hs and line.startswith("count ") and hs[-1][4] is None:
            hs[-1][4] = line
    return hs

def fail(msg):
    print("svg_check:", msg)
    sys.exit(1)

def count_of(stats):
    return int(re.match(r"count (\d+),", stats).group(1))

def sums_agree(hs):
    """Each text histogram's rows sum to its "count N" line."""
    for time, title, rows, stats, _ in hs:
        if stats and sum(c for _, c in rows) != count_of(stats):
            fail("%s %s: rows sum to %d, %r" % (time, title, sum(c for _, c in rows), stats))

def rank(q, total):
    """hist_rank(): nearest rank, ceil(q * total) in [1, total]."""
    x = q * total
    x -= x * 2.0 ** -40
    r = int(x)
    if r < x:
        r += 1
    return min(max(r, 1), total)

def edges(label):
    """A row label's [lo, hi) edges as text: "[2, 4)" -> 2, 4; "[7]" -> 7, 8."""
    m = re.fullmatch(r"\[(\S+), (\S+)\)", label)
    if m:
        return m.group(1), m.group(2)
    m = re.fullmatch(r"\[(-?\d+)\]", label)
    if m:
        return m.group(1), str(int(m.group(1)) + 1)
    fail("a row label I cannot read: %r" % label)

def check_bars(svg, txt):
    ps, hs = panels(svg), text_hists(txt)
    if len(ps) != len(hs):
        fail("%d panels, the text has %d histograms" % (len(ps), len(hs)))
    for p, (_, title, rows, stats, summary) in zip(ps, hs):
        want = ["%s: %d" % (l, c) for l, c in rows if c]
        if p["title"] != title:
            fail("panel %r, text %r" % (p["title"], title))
        if p["bars"] != want:
            fail("%s: bars %r, text rows %r" % (title, p["bars"], want))
        if stats not in p["texts"]:
            fail("%s: no stats line %r" % (title, stats))
        if summary:     # latency: p50, p90, p99 as its summary line says them
            for name in ("p50", "p90", "p99"):
                v = re.search(name + r" (\S+?),", summary).group(1)
                if name + " " + v not in p["texts"]:
                    fail("%s: no '%s %s' in %r" % (title, name, v, p["texts"]))
        elif rows:      # another histogram: the row of each one's nearest rank
            total = sum(c for _, c in rows)
            for name, q in (("p50", 0.5), ("p90", 0.9), ("p99", 0.99)):
                cum, want = 0, None
                for l, c in rows:
                    cum += c
                    if want is None and cum >= rank(q, total):
                        want = l
                if name + " " + want not in p["texts"]:
                    fail("%s: no '%s %s' in %r" % (title, name, want, p["texts"]))
        if len(p["pct"]) != 3:
            fail("%s: %d percentile marks" % (title, len(p["pct"])))
    sums_agree(hs)
    print("%d panels, %d bars as the text" % (len(ps), sum(len(p["bars"]) for p in ps)))

def check_json(svg, js):
    ps = panels(svg)
    lines = [json.loads(l) for l in open(js) if l.strip()]
    if len(ps) != len(lines):
        fail("%d panels, %d JSON histograms" % (len(ps), len(lines)))
    for p, j in zip(ps, lines):
        want = [b["count"] for b in j["hist"]["buckets"] if b["count"]]
        got = [int(t.rsplit(": ", 1)[1]) for t in p["bars"]]
        if got != want:
            fail("bars %r, JSON buckets %r" % (got, want))
        if not any(t.startswith("count %d," % j["hist"]["count"]) for t in p["texts"]):
            fail("no stats line with count %d" % j["hist"]["count"])
    print("%d bars as the JSON's buckets" % sum(len(p["bars"]) for p in ps))

def check_heat(svg, txt):
    ps, hs = panels(svg), text_hists(txt)
    if len(ps) != 1:
        fail("%d panels, want one heatmap" % len(ps))
    cells = ps[0]["cells"]
    cols = sorted(set(x for x, _, _ in cells))
    stamps = re.findall(r"(?m)^\d\d:\d\d:\d\d$", open(txt).read())
    if len(cols) != len(hs) or len(stamps) != len(hs):
        fail("%d columns, the text printed %d intervals under %d times" %
             (len(cols), len(hs), len(stamps)))
    # the picture's rows, lowest first: every non-empty text row, none but
    # those between the lowest and highest, each starting where the one
    # under it ends
    ys = {}
    for r in ET.parse(svg).getroot().iter(NS + "rect"):
        if r.get("class") == "cell":
            ys[r.find(NS + "title").text.split(", ", 1)[1].rsplit(": ", 1)[0]] = float(r.get("y"))
    labels = sorted(ys, key=lambda l: -ys[l])
    if not labels:
        fail("no cells")
    seen = set(l for _, _, rows, _, _ in hs for l, c in rows if c)
    if not seen <= set(labels) or labels[0] not in seen or labels[-1] not in seen:
        fail("rows %r, the text's non-empty rows %r" % (labels, sorted(seen)))
    for lo, hi in zip(labels, labels[1:]):
        if edges(lo)[1] != edges(hi)[0]:
            fail("row %s then row %s: not continuous" % (lo, hi))
    if len(cells) != len(cols) * len(labels):
        fail("%d cells, want %d intervals x %d rows" % (len(cells), len(cols), len(labels)))
    sums_agree(hs)
    for i, (time, _, rows, stats, _) in enumerate(hs):
        mine = sorted(t for x, t, _ in cells if x == cols[i])
        want = dict(rows)
        t0 = mine[0].split(", ")[0]
        if t0 != time:
            fail("column %d is %s, the text's interval %s" % (i, t0, time))
        got = {t.split(", ", 1)[1].rsplit(": ", 1)[0]: int(t.rsplit(": ", 1)[1]) for t in mine}
        for l in labels:
            if got.get(l) != want.get(l, 0):
                fail("interval %d, %s: cell %r, text %r" % (i, l, got.get(l), want.get(l, 0)))
        if stats and sum(got.values()) != count_of(stats):
            fail("interval %d: cells sum to %d, %r" % (i, sum(got.values()), stats))
    white = [t for x, t, f in cells if f == "#ffffff" and not t.endswith(": 0")]
    if white:
        fail("white cells with calls: %r" % white[:3])
    if not ps[0]["pct"]:
        fail("no percentile lines")
    print("%d intervals x %d rows = %d cells as the text" % (len(cols), len(labels), len(cells)))

def check_count(svg, txt):
    ps = panels(svg)
    rows = []
    for line in open(txt).read().splitlines():
        m = re.match(r"^\s*(\d+)  (.*)$", line)
        if m:
            rows.append("%s: %s" % (m.group(2), m.group(1)))
    if len(ps) != 1 or ps[0]["bars"] != rows:
        fail("bars %r, text rows %r" % ([p["bars"] for p in ps], rows))
    # the value axis: 0 and even steps up to the largest row, within a step of it
    top = max(int(r.rsplit(": ", 1)[1]) for r in rows)
    ticks = [int("".join(t.itertext())) for g in ET.parse(svg).getroot().iter(NS + "g")
             if g.get("class") == "panel" for t in g.iter(NS + "text")
             if t.get("class") == "tick"]
    steps = set(b - a for a, b in zip(ticks, ticks[1:]))
    if len(ticks) < 2 or ticks[0] != 0 or len(steps) != 1 or not \
            ticks[-1] <= top < ticks[-1] + steps.pop():
        fail("axis ticks %r for rows up to %d" % (ticks, top))
    if "COUNT" not in ps[0]["texts"]:
        fail("no axis name COUNT")
    print("%d count bars as the text's rows, axis %r" % (len(rows), ticks))

def number(t):
    """A label's edge as a number: "512" -> 512, "1K" -> 1024."""
    m = re.fullmatch(r"(-?\d+)([KMGTP]?)", t)
    if not m:
        fail("an edge I cannot read: %r" % t)
    return int(m.group(1)) << (10 * " KMGTP".index(m.group(2) or " "))

def check_workload(svg):
    """target dist's calls, n = 0..999 and 7 three times: each bar's count
    the number of those in its [lo, hi), every call in a bar."""
    vals = list(range(1000)) + [7] * 3
    ps = panels(svg)
    if len(ps) != 1:
        fail("%d panels, want 1" % len(ps))
    total = 0
    for bar in ps[0]["bars"]:
        label, count = bar.rsplit(": ", 1)
        lo, hi = map(number, edges(label))
        want = sum(1 for v in vals if lo <= v < hi)
        if int(count) != want:
            fail("bar %s: %s, the workload made %d" % (label, count, want))
        total += int(count)
    if total != len(vals):
        fail("the bars hold %d calls, the workload made %d" % (total, len(vals)))
    print("%d bars, each the workload's count" % len(ps[0]["bars"]))

{"bars": check_bars, "json": check_json, "heat": check_heat,
 "count": check_count, "workload": check_workload}[sys.argv[1]](*sys.argv[2:])
EOF

# render NAME COLOUR: NAME.svg to NAME.png, checked (tests/lib.sh's render_png)
render() { render_png "$OUTA/$1.svg" "$OUTA/$1.png" "$2"; }

well_formed() { xmllint --noout "$1"; }

# --- hist: the text and the JSON of the same deterministic workload ---
kpt hist -c "$B dist" "$DEF" n --svg "$OUT/hist.svg" > "$OUT/hist.txt"
check "hist: well-formed" well_formed "$OUT/hist.svg"
check "hist: a bar per non-empty text row, LABEL: COUNT" \
	python3 "$OUT/svg_check.py" bars "$OUT/hist.svg" "$OUT/hist.txt"
kpt hist -c "$B dist" "$DEF" n --json -o "$OUT/hist.json" --svg "$OUT/histj.svg"
check "hist --json: well-formed" well_formed "$OUT/histj.svg"
check "hist --json: the bars are the JSON's buckets" \
	python3 "$OUT/svg_check.py" json "$OUT/histj.svg" "$OUT/hist.json"
check "hist: each bar's count the workload's (n = 0..999 and 7 three times)" \
	python3 "$OUT/svg_check.py" workload "$OUT/hist.svg"
check "hist: rendered" render hist e8743b

# --- hist --by: a panel per key ---
kpt hist -c "$B dist" "$DEF" n --by k --svg "$OUT/hist-by.svg" > "$OUT/hist-by.txt"
check "hist --by: well-formed" well_formed "$OUT/hist-by.svg"
check "hist --by: a panel per key, as the text" \
	python3 "$OUT/svg_check.py" bars "$OUT/hist-by.svg" "$OUT/hist-by.txt"
check "hist --by: two keys" [ "$(grep -c 'class="panel"' "$OUT/hist-by.svg")" = 2 ]
check "hist --by: rendered" render hist-by e8743b

# --- latency: bars and p50/p90/p99 ---
kpt latency -c "$B sleep" "$B:kpt_sleep" --svg "$OUT/latency.svg" > "$OUT/latency.txt"
check "latency: well-formed" well_formed "$OUT/latency.svg"
check "latency: bars, stats and p50/p90/p99 as the text" \
	python3 "$OUT/svg_check.py" bars "$OUT/latency.svg" "$OUT/latency.txt"
check "latency: us on the axis" grep -q '>latency (us)<' "$OUT/latency.svg"
check "latency: rendered" render latency e8743b
kpt latency --unit ms -c "$B sleep" "$B:kpt_sleep" --svg "$OUT/latency-ms.svg" \
	> "$OUT/latency-ms.txt"
check "latency --unit ms: labels as the text" \
	python3 "$OUT/svg_check.py" bars "$OUT/latency-ms.svg" "$OUT/latency-ms.txt"
check "latency --unit ms: ms on the axis" grep -q '>latency (ms)<' "$OUT/latency-ms.svg"

# --- latency -i: a heatmap, a column per interval printed ---
kpt latency -i 1 -d 3.5 -c "sh -c 'while :; do $B sleep > /dev/null; $B recurse; done'" \
	"$B:kpt_sleep" --svg "$OUT/heat.svg" > "$OUT/heat.txt"
check "heat: well-formed" well_formed "$OUT/heat.svg"
check "heat: at least 3 intervals printed" [ "$(grep -c '^@kpt_sleep:' "$OUT/heat.txt")" -ge 3 ]
check "heat: a cell per interval and row, the text's counts and times" \
	python3 "$OUT/svg_check.py" heat "$OUT/heat.svg" "$OUT/heat.txt"
check "heat: rendered" render heat 800026

# --- hist -i: 3 calls of 12345 in the first interval, then 1s only: the
# rows from [1] to [8K, 16K) with the empty ones between; -d 3 of -i 1 is
# three intervals, the last report the third's (no sliver of a fourth) ---
kpt hist -i 1 -d 3 -c "sh -c '$B 3 clean; sleep 1.3; exec $B spin'" "p:ng $B:kpt_neg v=%di:u64" v \
	--svg "$OUT/heat-gap.svg" > "$OUT/heat-gap.txt"
check "hist -i: well-formed" well_formed "$OUT/heat-gap.svg"
check "hist -i -d 3: three intervals, each under its time" \
	[ "$(grep -c '^@v:' "$OUT/heat-gap.txt"):$(grep -c '^[0-9][0-9]:[0-9][0-9]:[0-9][0-9]$' "$OUT/heat-gap.txt")" = 3:3 ]
check "hist -i: rows continuous, cells and counts as the text" \
	python3 "$OUT/svg_check.py" heat "$OUT/heat-gap.svg" "$OUT/heat-gap.txt"
check "hist -i: the empty rows between kept" grep -q '<title>[0-9:]*, \[512, 1K): 0</title>' \
	"$OUT/heat-gap.svg"
check "hist -i: rendered" render heat-gap 800026

# --- count: a bar per printed row after --top ---
# several comms making syscalls meanwhile, for rows to rank
( while :; do ls / > /dev/null; cat /proc/self/stat > /dev/null; date > /dev/null; done ) &
LOAD=$!
kpt count --by comm --top 10 't:raw_syscalls/sys_enter' -d 2 --svg "$OUT/count.svg" \
	> "$OUT/count.txt"
kill $LOAD 2> /dev/null
wait $LOAD 2> /dev/null
check "count: well-formed" well_formed "$OUT/count.svg"
check "count: a bar per printed row, comm: COUNT" \
	python3 "$OUT/svg_check.py" count "$OUT/count.svg" "$OUT/count.txt"
check "count: several rows, at most --top" \
	[ "$(grep -c 'class="bar"' "$OUT/count.svg")" -ge 3 -a "$(grep -c 'class="bar"' "$OUT/count.svg")" -le 10 ]
check "count: rendered" render count 3b7ddd

# a comm holding XML's characters: a hard link of the target (the same
# inode, so its uprobe fires) under that name
ODD='a<b&c"d'
rm -f "$OUTA/$ODD"
ln "$B" "$OUTA/$ODD"
kpt count -c "'$OUTA/$ODD' dist" "$DEF" --by comm --svg "$OUT/count-odd.svg" > "$OUT/count-odd.txt"
check "count, comm <&\": well-formed" well_formed "$OUT/count-odd.svg"
check "count, comm <&\": escaped, read back whole" \
	python3 "$OUT/svg_check.py" count "$OUT/count-odd.svg" "$OUT/count-odd.txt"
check "count, comm <&\": the comm in a tooltip" \
	grep -q '<title>a&lt;b&amp;c&quot;d: 1003</title>' "$OUT/count-odd.svg"
check "count, comm <&\": rendered" render count-odd 3b7ddd
rm -f "$OUTA/$ODD"

# --- bad input ---
KPT_RC=64 kpt "$DEF" --svg "$OUT/x.svg" > /dev/null 2> "$OUT/trace.err"
check "trace mode: --svg refused" grep -q -- '--svg is for hist, latency and count' "$OUT/trace.err"
check "trace mode: no file" [ ! -e "$OUT/x.svg" ]
KPT_RC=64 kpt hist "$DEF" n --by kstack --folded --svg "$OUT/x.svg" > /dev/null \
	2> "$OUT/folded.err"
check "--folded: --svg refused" grep -q -- '--svg draws the tables' "$OUT/folded.err"
rm -f "$OUT/ran"
KPT_RC=error kpt hist -c "touch $OUTA/ran" "$DEF" n --svg /nonexistent/dir/x.svg \
	> /dev/null 2> "$OUT/nodir.err"
check "unwritable --svg: the message" grep -qx \
	'kptrace: error: --svg: cannot write /nonexistent/dir/x.svg: No such file or directory' \
	"$OUT/nodir.err"
check "unwritable --svg: refused before attaching" bash -c "! grep -q Attach '$OUT/nodir.err'"
check "unwritable --svg: the command never ran" [ ! -e "$OUT/ran" ]
ln -sf /tmp/kpt-svg-elsewhere "$OUT/link.svg"
KPT_RC=error kpt hist -c "$B dist" "$DEF" n --svg "$OUT/link.svg" > /dev/null 2> "$OUT/link.err"
check "--svg through a symbolic link refused" grep -q 'cannot write .*symbolic link' "$OUT/link.err"
check "--svg through a symbolic link: nothing written there" [ ! -e /tmp/kpt-svg-elsewhere ]
rm -f "$OUT/link.svg"

finish
