#!/usr/bin/env bash
# Host tests of in-kernel aggregation (hist, count, latency, filters) through
# uprobes on tests/host/target.c's deterministic workloads, and hist kmalloc
# through this kernel's kmem:kmalloc tracepoint. Every expected histogram and
# count is computed here from what the workload does, never from kptrace.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/lib.sh

# KPT=.output/kptrace-san: the same checks on the ASan+UBSan build
KPT=${KPT:-./kptrace}
OUT=.output/tests/host
mkdir -p "$OUT"
B=$(realpath "$OUT")/target-agg
gcc -O0 -fno-inline -no-pie -g tests/host/target.c -o "$B" || { echo "cannot build target"; exit 1; }
[ "$(id -u)" = 0 ] || skip_all "host tests need root (BPF, uprobes)"
expect_checks 86

# The workloads' values, as tests/host/target.c makes them, and the
# histogram kptrace must print of them, computed here (hist.c's layout:
# log2 rows [0], [1], [2^(k-1), 2^k - 1]; linear rows (..., lo-1],
# [lo + i*step, lo + (i+1)*step - 1] ..., [hi, ...); the empty rows between
# the first and the last non-empty one kept).
cat > "$OUT/agg_model.py" <<'EOF'
import json, sys
# "dist": kpt_size(i, i < 500 ? "small" : "big") for 0..999, then 3 x (7, "seven")
DIST = list(range(1000)) + [7] * 3
# keyed by the tag's first byte ('s' 115, 'b' 98)
DIST_BY_K = {"115": list(range(500)) + [7] * 3, "98": list(range(500, 1000))}
# its $retval: n + the tag's first byte
DIST_RET = [i + (115 if i < 500 else 98) for i in range(1000)] + [7 + 115] * 3
# %di as s8: the low byte, sign-extended
DIST_S8 = [(v & 0xff) - 256 * ((v >> 7) & 1) for v in DIST]
# "signal": 1003 ignored signals to itself, SIGRTMIN (34) + i % 10, by kill
# (SI_USER 0), sigqueue (SI_QUEUE -1), raise (tgkill: SI_TKILL -6) in turn,
# each ignored (result TRACE_SIGNAL_IGNORED 1); then its exit's SIGCHLD (17,
# CLD_EXITED 1) to kptrace, whose SIG_DFL ignores it (1).
SIG = {"sig": [34 + i % 10 for i in range(1003)] + [17],
       "code": [(0, -1, -6)[i % 3] for i in range(1003)] + [1],
       "result": [1] * 1004}

def want_hist(vals, layout="log2"):
    if layout == "log2":
        assert min(vals) >= 0
        idx = lambda v: v.bit_length()
        rows = [{"min": 0, "max": 0}] + [{"min": 1 << (k - 1), "max": (1 << k) - 1} for k in range(1, 65)]
    else:
        lo, hi, step = map(int, layout.split(","))
        n = (hi - lo) // step
        idx = lambda v: 0 if v < lo else n + 1 if v >= hi else 1 + (v - lo) // step
        rows = [{"max": lo - 1}] + [{"min": lo + i * step, "max": lo + (i + 1) * step - 1}
                                    for i in range(n)] + [{"min": hi}]
    counts = [0] * len(rows)
    for v in vals:
        counts[idx(v)] += 1
    used = [i for i, c in enumerate(counts) if c]
    return {"buckets": [dict(rows[i], count=counts[i]) for i in range(used[0], used[-1] + 1)],
            "count": len(vals), "sum": sum(vals), "min": min(vals), "max": max(vals)}

def hist_is(h, vals, layout="log2"):
    """h (a JSON histogram) is exactly the one of vals: every row, count, sum, min, max."""
    want = want_hist(vals, layout)
    got = {k: h.get(k) for k in want}
    if got != want:
        print("  want %s\n  got  %s" % (json.dumps(want)[:700], json.dumps(got)[:700]), file=sys.stderr)
    return got == want

def merged_is(rows, vals):
    """rows' histograms added up (keys and <overflow>) are exactly the one of vals."""
    want = want_hist(vals)
    b, n, tot = {}, 0, 0
    for r in rows:
        h = r["hist"]
        for x in h["buckets"]:
            b[(x["min"], x["max"])] = b.get((x["min"], x["max"]), 0) + x["count"]
        n, tot = n + h["count"], tot + h["sum"]
    got = ({k: c for k, c in b.items() if c}, n, tot, min(r["hist"]["min"] for r in rows),
           max(r["hist"]["max"] for r in rows))
    exp = ({(x["min"], x["max"]): x["count"] for x in want["buckets"] if x["count"]},
           want["count"], want["sum"], want["min"], want["max"])
    if got != exp:
        print("  want %s\n  got  %s" % (exp, got), file=sys.stderr)
    return got == exp

def load(f):
    return [json.loads(l) for l in open(f) if l.strip()]
EOF

# json_check NAME FILE EXPR: EXPR, Python over the JSON lines of FILE (rows),
# with the model above.
json_check() {
	local name=$1 file=$2 expr=$3
	if PYTHONPATH=$OUT python3 - "$file" "$expr" <<'EOF'
import sys
from agg_model import *
rows = load(sys.argv[1])
sys.exit(0 if eval(sys.argv[2]) else 1)
EOF
	then pass "$name"; else fail "$name: $(head -c 600 "$file")"; fi
}

# Counter NAME (hits, misses, drops, faults, filtered) of probe GROUP/EVENT
# in the exit profile of ERRFILE: its table, or with --json its JSON line.
profile_field() {
	python3 - "$@" <<'EOF'
import json, sys
err, probe, name = sys.argv[1:4]
cols = ["hits", "misses", "drops", "faults", "filtered"]
for line in open(err):
    if line.startswith('{"type":"profile"'):
        for p in json.loads(line)["probes"]:
            if p["group"] + "/" + p["event"] == probe:
                print(p[name])
    elif line.split()[:1] == [probe]:
        print(line.split()[1 + cols.index(name)])
EOF
}
# Member NAME (the run's totals) of the --json exit profile in ERRFILE
profile_total() {
	python3 -c 'import json, sys
print(next(json.loads(l)[sys.argv[2]] for l in open(sys.argv[1]) if l.startswith("{\"type\":\"profile\"")))' "$1" "$2"
}
count_total() { python3 -c 'import json,sys; print(sum(json.loads(l)["count"] for l in sys.stdin if l.strip()))'; }

# caret_at FILE TEXT COL: FILE shows TEXT (two spaces in) and under it a
# caret at TEXT's column COL (0-based).
caret_at() {
	python3 - "$@" <<'EOF'
import sys
lines = open(sys.argv[1]).read().split("\n")
text, col = "  " + sys.argv[2], int(sys.argv[3])
sys.exit(0 if text in lines[:-1] and lines[lines.index(text) + 1] == " " * (2 + col) + "^" else 1)
EOF
}

SIZE="p:sz $B:kpt_size n=%di:u64 k=+0(%si):u8 tag=+0(%si):ustring"

echo "# hist: exact log2, linear, keyed"
kpt hist --json -c "$B dist" "$SIZE" n > "$OUT/h.json" 2> "$OUT/h.err"
json_check "log2 histogram of 0..999 + 3x7 is exact" "$OUT/h.json" 'hist_is(rows[0]["hist"], DIST)'
kpt hist --json --linear 0,1000,100 -c "$B dist" "$SIZE" n > "$OUT/l.json" 2> "$OUT/l.err"
json_check "linear histogram (0,1000,100) is exact" "$OUT/l.json" 'hist_is(rows[0]["hist"], DIST, "0,1000,100")'
kpt hist --json --by k -c "$B dist" "$SIZE" n > "$OUT/k.json" 2> "$OUT/k.err"
json_check "keyed histogram (--by an argument) is exact per key" "$OUT/k.json" \
	'sorted(r["key"]["k"] for r in rows) == ["115", "98"] and all(hist_is(r["hist"], DIST_BY_K[r["key"]["k"]]) for r in rows)'
kpt hist --json --by comm -c "$B dist" "$SIZE" n > "$OUT/c.json" 2> "$OUT/c.err"
json_check "keyed histogram (--by comm)" "$OUT/c.json" \
	'[r["key"]["comm"] for r in rows] == ["target-agg"] and hist_is(rows[0]["hist"], DIST)'

kpt hist --json --by n,comm --max-keys 16 -c "$B dist" "$SIZE" n > "$OUT/ko.json" 2> "$OUT/ko.err"
json_check "hist --by n --max-keys 16: at most 8 keys, the rest under <overflow>, exact added up" \
	"$OUT/ko.json" 'len(rows) <= 9 and rows[-1]["key"] == {"n": "<overflow>", "comm": "<overflow>"} and merged_is(rows, DIST)'
n=$(grep -c '"<overflow>"' "$OUT/ko.json")
check "hist --max-keys: the overflow said at exit, with its count, once ($n rows)" \
	test "$n:$(profile_total "$OUT/ko.err" past_max_keys 2>&1 | sed 's/^[1-9][0-9]*$/N/')" = 1:N

echo "# hist straight from the context (no record built): both paths against the workload's own values"
# same_hist NAME DIRECT GENERIC FIELD WORKLOAD VALUES [hist options]: GENERIC
# is the same value with something that needs the generic path (a memory
# read, a filter of two terms); --dry-run says which path each takes. Each run's
# histogram must be VALUES' (a Python expression of agg_model.py), row by
# row, and the two identical. A run of one histogram: the direct one's
# parameters are the verifier's constants (kpt_dh).
same_hist() {
	local name=$1 d=$2 g=$3 field=$4 work=$5 vals=$6 layout=log2 prev= a
	shift 6
	for a in "$@"; do [ "$prev" = --linear ] && layout=$a; prev=$a; done
	kpt hist --dry-run "$@" "$d" "$field" > "$OUT/dd.txt" 2>&1
	kpt hist --dry-run "$@" "$g" "$field" > "$OUT/dg.txt" 2>&1
	if ! grep -q "^hist: $field taken straight from the context.*, its parameters constants to the verifier$" "$OUT/dd.txt" ||
	   grep -q "^hist: .* straight" "$OUT/dg.txt"; then
		fail "$name: --dry-run does not show the direct path for the first definition only: $(tail -n 2 "$OUT/dd.txt" "$OUT/dg.txt" | tr '\n' ' ')"
		return
	fi
	kpt hist --json -c "$work" "$@" "$d" "$field" > "$OUT/hd.json" 2> "$OUT/hd.err"
	kpt hist --json -c "$work" "$@" "$g" "$field" > "$OUT/hg.json" 2> "$OUT/hg.err"
	if PYTHONPATH=$OUT python3 - "$OUT/hd.json" "$OUT/hg.json" "$vals" "$layout" <<'EOF'
import sys
from agg_model import *
d, g = (load(f)[0]["hist"] for f in sys.argv[1:3])
vals = eval(sys.argv[3])
ok_d, ok_g = hist_is(d, vals, sys.argv[4]), hist_is(g, vals, sys.argv[4])
sys.exit(0 if ok_d and ok_g and d == g else 1)
EOF
	then pass "$name: direct and generic each the workload's exact histogram"
	else fail "$name: $(head -c 400 "$OUT/hd.json") vs $(head -c 400 "$OUT/hg.json") $(head -c 200 "$OUT/hd.err")"; fi
}
same_hist "u64 register, log2" "p:d $B:kpt_size n=%di:u64" \
	"p:g $B:kpt_size n=%di:u64 k=+0(%si):u8" n "$B dist" DIST
same_hist "s8 of a register (sign-extended), linear" "p:d $B:kpt_size n=%di:s8" \
	"p:g $B:kpt_size n=%di:s8 if n >= -128 && n <= 127" n "$B dist" DIST_S8 --linear -128,128,16
same_hist "\$arg1 as u16 with a register beside it" "p:d $B:kpt_size n=\$arg1:u16 t=%si" \
	"p:g $B:kpt_size n=\$arg1:u16 t=+0(%si):ustring" n "$B dist" DIST
same_hist "\$retval at a uretprobe" "r:d $B:kpt_size v=\$retval:s32" \
	"r:g $B:kpt_size v=\$retval:s32 if v != -1 && v != -2" v "$B dist" DIST_RET

echo "# a histogram filtered by one comparison: direct, its rejected hits FILTERED"
# filtered_hist NAME DEF FIELD WORKLOAD PROBE ALL PASS [VAL]: DEF's hist of
# FIELD takes the direct path (--dry-run) and is the histogram of VAL (a
# Python lambda, the identity if none) of the filtered values of ALL
# (agg_model.py) for which PASS (a lambda) holds; HITS is ALL's calls and
# FILTERED the rest of them. DEF with its filter doubled into two terms
# takes the generic path, which must count the same.
filtered_hist() {
	local name=$1 d=$2 field=$3 work=$4 probe=$5 all=$6 pass=$7 val=${8:-lambda v: v} g
	g="$d && ${d#* if }"
	kpt hist --dry-run "$d" "$field" > "$OUT/fd.txt" 2>&1
	kpt hist --dry-run "$g" "$field" > "$OUT/fg.txt" 2>&1
	if ! grep -q "^hist: $field taken straight from the context into its bucket, the filter's one comparison from the context too, no record built, its parameters constants to the verifier$" "$OUT/fd.txt" ||
	   grep -q "^hist: .* straight" "$OUT/fg.txt"; then
		fail "$name: --dry-run does not show the direct path for one comparison only: $(tail -n 3 "$OUT/fd.txt" "$OUT/fg.txt" | tr '\n' ' ')"
		return
	fi
	for p in d g; do
		[ $p = d ] && def=$d || def=$g
		kpt hist --json -c "$work" "$def" "$field" > "$OUT/fh$p.json" 2> "$OUT/fh$p.err"
		counters="$(profile_field "$OUT/fh$p.err" "$probe" hits):$(profile_field "$OUT/fh$p.err" "$probe" filtered)"
		json_check "$name ($([ $p = d ] && echo direct || echo generic)): the exact histogram of what passes, HITS:FILTERED $counters the workload's calls:rejected" \
			"$OUT/fh$p.json" "hist_is(rows[0]['hist'], [($val)(v) for v in $all if ($pass)(v)]) and '$counters' == '%d:%d' % (len($all), len([v for v in $all if not ($pass)(v)]))"
	done
}
filtered_hist "u64 register, if n >= 500" "p:d $B:kpt_size n=%di:u64 if n >= 500" n "$B dist" \
	uprobes/d DIST 'lambda v: v >= 500'
# signed: compared as u64, the negative ones would pass too
filtered_hist "s8 of a register, signed, if n >= 64" "p:d $B:kpt_size n=%di:s8 if n >= 64" n "$B dist" \
	uprobes/d DIST_S8 'lambda v: v >= 64'
filtered_hist "\$retval, if v == 122" "r:d $B:kpt_size v=\$retval:s32 if v == 122" v "$B dist" \
	uprobes/d DIST_RET 'lambda v: v == 122'
# a glob's histograms, one a function: the filter's constants are a run of
# one probe's (kpt_dh), so the generic path, as exact
kpt hist --dry-run "p:d $B:kpt_s* n=%di:u64 if n >= 500" n > "$OUT/fgl.txt" 2>&1
kpt hist --json -c "$B dist" "p:d $B:kpt_s* n=%di:u64 if n >= 500" n > "$OUT/fgl.json" 2> "$OUT/fgl.err"
ndirect=$(grep -c "^hist: .* straight" "$OUT/fgl.txt")
counters="$(profile_field "$OUT/fgl.err" uprobes/d_kpt_size hits):$(profile_field "$OUT/fgl.err" uprobes/d_kpt_size filtered)"
json_check "kpt_s*, if n >= 500: $ndirect of 4 functions direct (a run of one's only), kpt_size's exact, HITS:FILTERED $counters 1003:503" \
	"$OUT/fgl.json" "$ndirect == 0 and rows[0]['event'] == 'd_kpt_size' and hist_is(rows[0]['hist'], [v for v in DIST if v >= 500]) and '$counters' == '1003:503'"
PR=syscalls/sys_enter_getpriority
if [ -e /sys/kernel/tracing/events/$PR ]; then
	filtered_hist "a tracepoint field, if who != 7" "t:d $PR who if who != 7" who "$B prio" \
		syscalls/d DIST 'lambda v: v != 7'
	filtered_hist "a tracepoint field filtered by another's, if who <= 9" "t:d $PR which who if who <= 9" \
		which "$B prio" syscalls/d DIST 'lambda v: v <= 9' 'lambda v: 0'
else
	env_fault "a filtered tracepoint histogram: no $PR tracepoint here"
fi

# kptrace leaves out its own hits, a direct filtered histogram's too, whose
# filter is checked first (a rejected hit spared the task lookup): bpf(2)
# calls system-wide, which kptrace makes each round, and a second
# kptrace's (the control), against the kernel's own trace of them in a
# tracefs instance over a window holding the first kptrace's. Through
# tp_btf, where the kernel's BTF is read anyway, a passing hit is told
# from kptrace's by the task stack it runs on, the last other process's
# one kept per CPU (kpt_own_by_stack()): the same count.
self_hist() {	# TAG NAME ARGS...: the histogram of kptrace's ARGS against ftrace's
	local tag=$1 name=$2 got; shift 2
	if ! kpt_bpf_calls sys_enter "$OUT/self.err" hist --json -d 2 "$@" > "$OUT/self-$tag.json"; then
		env_fault "no raw_syscalls/sys_enter tracepoint or tracefs instance for kptrace's own calls"
		return
	fi
	got=$(python3 -c 'import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if "\"hist\"" in l]
print(rows[0]["hist"]["count"] if rows else 0)' "$OUT/self-$tag.json")
	check "a system-wide direct histogram of bpf(2) if id == $NR_BPF, $name: kptrace's own calls left out, a second kptrace's counted (ftrace: $BPF_OWN of kptrace's, $BPF_OTHERS others'; counted $got)" \
		[ "$BPF_OWN" -ge 5 -a "$BPF_OTHERS" -ge 5 -a "$got" -ge 5 -a "$got" -le "$BPF_OTHERS" ]
}
kpt_nr_bpf
self_hist tp "classic tracepoint" "t:raw_syscalls/sys_enter if id == $NR_BPF" id
if [ -e /sys/kernel/btf/vmlinux ]; then
	self_hist btf "tp_btf, told by the stack" --backend tp-btf \
		"t:raw_syscalls/sys_enter nr=\$arg2 if nr == $NR_BPF" nr
else
	skip "tp_btf's own hits: no kernel BTF"
fi
# --comm compares a record's comm: no direct path, the values still counted.
# The same run with another comm counts nothing: HITS says the calls came.
kpt hist --json --comm target-agg -c "$B dist" "p:d $B:kpt_size n=%di:u64" n > "$OUT/hc.json" 2> "$OUT/hc.err"
json_check "--comm: the generic path, the same exact log2 histogram" "$OUT/hc.json" 'hist_is(rows[0]["hist"], DIST)'
kpt hist --json --comm nosuchcomm -c "$B dist" "p:d $B:kpt_size n=%di:u64" n > "$OUT/hc2.json" 2> "$OUT/hc2.err"
hits=$(profile_field "$OUT/hc2.err" uprobes/d hits)
json_check "--comm of another process: nothing counted of its ${hits:-no} hits (1003 calls)" "$OUT/hc2.json" \
	"rows[0]['hist']['count'] == 0 and rows[0]['hist']['buckets'] == [] and '${hits:-}' == '1003'"
LS=syscalls/sys_enter_lseek
if [ -e /sys/kernel/tracing/events/$LS ]; then
	same_hist "a tracepoint field" "t:d $LS offset" \
		"t:g $LS offset if offset != 123456789 && offset != 123456788" offset "$B seek" DIST
	# A tracepoint's fields by name, as bpftrace's args->: hist FIELD and
	# --by KEY append the fields the definition does not list.
	kpt hist --json -c "$B seek" "t:d $LS offset" offset > "$OUT/ti1.json" 2> "$OUT/ti1.err"
	kpt hist --json -c "$B seek" "t:d $LS" offset > "$OUT/ti2.json" 2> "$OUT/ti2.err"
	json_check "hist 't:$LS' offset: the field taken by name, the workload's exact histogram" \
		"$OUT/ti2.json" 'hist_is(rows[0]["hist"], DIST) and rows == load(sys.argv[1].replace("ti2", "ti1"))'
	kpt count --json --by whence -c "$B seek" "t:d $LS offset if offset < 10" > "$OUT/ti3.json" 2> "$OUT/ti3.err"
	json_check "count --by whence 't:$LS offset if offset < 10': a key by name, put before the filter" \
		"$OUT/ti3.json" "[(r['key']['whence'], r['count']) for r in rows] == [('0', 13)]"
	# a filter on a field the definition does not list: recorded for it,
	# neither printed nor taken as the value
	kpt count --json --by whence -c "$B seek" "t:d $LS if offset < 10" > "$OUT/ti5.json" 2> "$OUT/ti5.err"
	json_check "count --by whence 't:$LS if offset < 10': the filter's field unlisted, the same count" \
		"$OUT/ti5.json" "[(r['key']['whence'], r['count']) for r in rows] == [('0', 13)]"
	kpt --json -c "$B seek" "t:d $LS fd if offset < 10 && offset != 3" > "$OUT/ti6.json" 2> "$OUT/ti6.err"
	json_check "streaming 't:$LS fd if offset < 10 && offset != 3': 12 events, fd their only field" \
		"$OUT/ti6.json" "len(rows) == 12 and all(list(r['args']) == ['fd'] for r in rows)"
	KPT_RC=error kpt hist "t:d $LS if offset < 10" > /dev/null 2> "$OUT/ti7.err"
	check "hist 't:$LS if offset < 10' with no field: refused, the filter's field not taken as the value" \
		grep -q 'has no numeric argument' "$OUT/ti7.err"
	KPT_RC=error kpt hist "t:d $LS" nosuch > /dev/null 2> "$OUT/ti4.err"
	nosuch_refused() {
		grep -q "has no field 'nosuch' (it has: .*offset" "$OUT/ti4.err" &&
			caret_at "$OUT/ti4.err" "t:d $LS nosuch" $((${#LS} + 5))
	}
	check "hist 't:$LS' nosuch: refused, the fields listed, the caret under the name (column $((${#LS} + 5)))" \
		nosuch_refused
else
	env_fault "tracepoint fields: no $LS tracepoint here"
fi
# Fields of 4 bytes at either half of a record's 8-byte word, read with a
# plain load of the word; and one whose word runs past the record's last
# field, which the kernel would refuse to attach a program that loads: read
# through the helper. 1003 signals and the target's exit (SIGCHLD).
# Linear histograms: each value its own row.
SG="signal/signal_generate"
if [ -e /sys/kernel/tracing/events/$SG ]; then
	for f in "sig 0,64,1" "code -8,8,1" "result 0,8,1"; do
		set -- $f
		same_hist "$SG $1 (s32 at $(sed -n "s/.*field:[a-z_ ]* $1;.*offset:\([0-9]*\);.*/\1/p" \
			/sys/kernel/tracing/events/$SG/format))" "t:d $SG $1" "t:g $SG $1 if $1 != 123456789 && $1 != 123456788" \
			"$1" "$B signal" "SIG['$1']" --linear "$2"
	done
else
	env_fault "fields at either half of a word: no $SG tracepoint here"
fi
# tp_btf: TP_PROTO's arguments and their member chains on the direct path,
# each load checked by the verifier against BTF. The workload's own values
# are the reference: its 1003 lseeks (8) and their offsets; its 1004 signals'
# numbers and codes (SIG); the classic tracepoint's histogram of the same
# workload's calls is the other. x86-64's pt_regs names (orig_ax, si).
RS=raw_syscalls/sys_enter
if [ "$(uname -m)" = x86_64 ] && [ -e /sys/kernel/btf/vmlinux ] && [ -e /sys/kernel/tracing/events/$RS ] &&
   [ -e /sys/kernel/tracing/events/$SG ]; then
	# tpbtf_direct NAME DEF FIELD: --dry-run shows DEF's hist of FIELD direct through tp_btf
	tpbtf_direct() {
		kpt hist --backend tp-btf --dry-run "$2" "$3" > "$OUT/bd.txt" 2>&1
		grep -q "^attach: tp_btf" "$OUT/bd.txt" &&
		grep -q "^hist: $3 taken straight from the context into its bucket.*, its parameters constants to the verifier, each load through TP_PROTO's arguments checked by the verifier against BTF$" "$OUT/bd.txt" ||
		{ fail "$1: --dry-run does not show the tp_btf direct path: $(grep -E '^(attach|hist)' "$OUT/bd.txt" | tr '\n' ' ')"; return 1; }
	}
	NR="t:d $RS nr=regs->orig_ax"
	if tpbtf_direct "$RS regs->orig_ax" "$NR" nr; then
		kpt hist --json --backend tp-btf --linear 0,512,1 -c "$B seek" "$NR" nr > "$OUT/bn.json" 2> "$OUT/bn.err"
		kpt hist --json --backend tracepoint --linear 0,512,1 -c "$B seek" "t:d $RS id" id \
			> "$OUT/bt.json" 2> "$OUT/bt.err"
		json_check "tp_btf $RS regs->orig_ax, direct: the workload's 1003 lseeks (8), and every row the classic tracepoint's id histogram of its calls" \
			"$OUT/bn.json" "[b['count'] for b in rows[0]['hist']['buckets'] if b['min'] == 8] == [1003] and rows[0]['hist'] == load(sys.argv[1].replace('bn.json', 'bt.json'))[0]['hist']"
	fi
	# filtered on the number, the value another argument: the lseeks'
	# offsets; HITS the workload's calls (the classic tracepoint's count
	# above), FILTERED all but its 1003 lseeks, and other tasks' calls, which
	# -c's targeting counts there too
	OFF="t:d $RS nr=regs->orig_ax off=regs->si if nr == 8"
	if tpbtf_direct "$RS regs->si if nr == 8" "$OFF" off; then
		kpt hist --json --backend tp-btf -c "$B seek" "$OFF" off > "$OUT/bo.json" 2> "$OUT/bo.err"
		calls=$(PYTHONPATH=$OUT python3 -c "from agg_model import *; print(load('$OUT/bt.json')[0]['hist']['count'])" 2>/dev/null)
		hits=$(profile_field "$OUT/bo.err" raw_syscalls/d hits)
		filtered=$(profile_field "$OUT/bo.err" raw_syscalls/d filtered)
		json_check "tp_btf $RS regs->si if nr == 8, direct: the lseeks' offsets exact, HITS ${hits:-?} the workload's ${calls:-?} calls, FILTERED ${filtered:-?} at least all but its 1003 lseeks" \
			"$OUT/bo.json" "hist_is(rows[0]['hist'], DIST) and ${calls:-0} > 1003 and ${hits:--1} == ${calls:-0} and ${filtered:--1} >= ${calls:-0} - 1003"
	fi
	# a member of the siginfo TP_PROTO points to (kernel_siginfo's anonymous
	# struct), which --dry-run takes direct; a kernel that types info as a
	# scalar (it may be SEND_SIG_PRIV: btf_ctx_access()) refuses the loads,
	# and the run takes the generic path: the same values either way
	SIGNO="t:d $SG s=info->si_signo"
	if tpbtf_direct "$SG info->si_signo" "$SIGNO" s; then
		kpt hist --json --backend tp-btf --linear 0,64,1 -c "$B signal" "$SIGNO" s > "$OUT/bs.json" 2> "$OUT/bs.err"
		kpt hist --json --backend tracepoint --linear 0,64,1 -c "$B signal" "t:d $SG sig" sig > "$OUT/bg.json" 2> "$OUT/bg.err"
		json_check "tp_btf $SG info->si_signo: the workload's signals, and the classic tracepoint's sig histogram" \
			"$OUT/bs.json" "hist_is(rows[0]['hist'], SIG['sig'], '0,64,1') and rows[0]['hist'] == load(sys.argv[1].replace('bs.json', 'bg.json'))[0]['hist']"
	fi
	CODE="t:d $SG c=info->si_code if c != 1"
	kpt hist --json --backend tp-btf --linear -8,8,1 -c "$B signal" "$CODE" c > "$OUT/bc.json" 2> "$OUT/bc.err"
	hits=$(profile_field "$OUT/bc.err" signal/d hits)
	filtered=$(profile_field "$OUT/bc.err" signal/d filtered)
	json_check "tp_btf $SG info->si_code if c != 1: the codes that pass, HITS ${hits:-?} the workload's 1004 signals, FILTERED ${filtered:-?} at least its SIGCHLD (CLD_EXITED 1)" \
		"$OUT/bc.json" "hist_is(rows[0]['hist'], [v for v in SIG['code'] if v != 1], '-8,8,1') and ${hits:--1} == 1004 and ${filtered:--1} >= 1"
	# what the direct loads cannot take: the generic path, saying why
	kpt hist --backend tp-btf --dry-run "t:d $RS nr=regs->orig_ax p=+8(regs->si):u64 if nr == 8" p \
		> "$OUT/bx.txt" 2>&1
	check "tp_btf: an offset of its own around the BTF members, the generic path, --dry-run says why" \
		grep -q "^hist: the generic path (fetch, record slots), not the direct one: p is offsets or dereferences of its own around the BTF members$" "$OUT/bx.txt"
	# a count of the workload's lseeks, on the direct path (-v: the run
	# says where the kernel refused it and it took the generic one)
	LSK="t:d $RS nr=regs->orig_ax if nr == 8"
	kpt count --backend tp-btf --dry-run "$LSK" > "$OUT/bk.txt" 2>&1
	kpt count -v --json --backend tp-btf -c "$B seek" "$LSK" > "$OUT/bk.json" 2> "$OUT/bk.err"
	grep -q "^attach: tp_btf" "$OUT/bk.txt" &&
	grep -q "^count: counted beside the probe's HITS, the filter's one comparison from the context, no record built, no map lookup, its parameters constants to the verifier$" "$OUT/bk.txt" &&
	! grep -q "takes the generic path" "$OUT/bk.err" &&
	json_check "tp_btf $RS count if nr == 8, direct: the workload's 1003 lseeks" \
		"$OUT/bk.json" "[r['count'] for r in rows] == [1003]" ||
	fail "tp_btf count if nr == 8: not the direct path: $(grep -E '^(attach|count)' "$OUT/bk.txt" | tr '\n' ' ') $(grep 'generic path' "$OUT/bk.err")"
	# the kernel refusing a count's filter loads (si_code above): the
	# generic path, the same count
	kpt count -v --json --backend tp-btf -c "$B signal" "$CODE" > "$OUT/bk2.json" 2> "$OUT/bk2.err"
	json_check "tp_btf $SG count if c != 1: the workload's signals whose code is not 1 ($(grep -c 'takes the generic path' "$OUT/bk2.err") fallback to the generic path)" \
		"$OUT/bk2.json" "[r['count'] for r in rows] == [len([v for v in SIG['code'] if v != 1])]"
else
	env_fault "tp_btf's direct histogram: not x86-64, no kernel BTF, or no $RS or $SG tracepoint"
fi
# The pid of an exec chain is the target's own, one per run: it says which.
SE="sched/sched_process_exec"
if [ -e /sys/kernel/tracing/events/$SE ]; then
	for f in pid old_pid; do
		kpt hist --dry-run "t:d $SE $f" $f > "$OUT/dd.txt" 2>&1
		kpt hist --json -c "$B exec 1003" "t:d $SE $f" $f > "$OUT/he.json" 2> "$OUT/he.err"
		pid=$(sed -n 's/^exec chain pid //p' "$OUT/he.err")
		grep -q "^hist: $f taken straight from the context" "$OUT/dd.txt" &&
		json_check "$SE $f (offset $(sed -n "s/.*field:[a-z_ ]* $f;.*offset:\([0-9]*\);.*/\1/p" \
			/sys/kernel/tracing/events/$SE/format) of a $(awk -F'[:;]' '/offset/ {e = $4 + $6} END {print e}' \
			/sys/kernel/tracing/events/$SE/format)-byte record), direct: the target's pid ${pid:-?}, 1004 times" \
			"$OUT/he.json" "hist_is(rows[0]['hist'], [${pid:-0}] * 1004)" ||
		fail "$SE $f: not the direct path: $(tail -n 3 "$OUT/dd.txt")"
	done
else
	env_fault "a field at the record's end: no $SE tracepoint here"
fi

echo "# count"
kpt count --json --by k -c "$B dist" "$SIZE" > "$OUT/n.json" 2> "$OUT/n.err"
json_check "count --by an argument is exact" "$OUT/n.json" \
	'sorted((r["key"]["k"], r["count"]) for r in rows) == [("115", 503), ("98", 500)]'
kpt count --json --sum n --by n --max-keys 16 -c "$B dist" "$SIZE" > "$OUT/no.json" 2> "$OUT/no.err"
json_check "count --sum n --by n --max-keys 16: <overflow> a row, count and sum exact in all" "$OUT/no.json" \
	'len(rows) <= 17 and [r["key"] for r in rows].count({"n": "<overflow>"}) == 1 and sum(r["count"] for r in rows) == 1003 and sum(r["sum"] for r in rows) == sum(DIST)'
kpt count --top 1 --by k -c "$B dist" "$SIZE" > "$OUT/t.txt" 2> "$OUT/t.err"
check "count --top 1 prints the largest only" \
	test "$(grep -cE '^ +[0-9]+ ' "$OUT/t.txt"):$(grep -E '^ +[0-9]+ ' "$OUT/t.txt" | awk '{print $1}')" = "1:503"
# a count without keys beside its probe's HITS: on the direct path where its
# value (--sum's) and filter come straight from the registers, else on the
# generic one (a string fetched); the workload's 1003 calls, its values DIST
REG="p:sz $B:kpt_size n=%di:u64"
# count_paths WHAT WANT ARGS...: --dry-run says the path WANT (direct or
# generic), and the run's JSON goes to $OUT/cw.json
count_paths() {
	local what=$1 want=$2
	shift 2
	kpt count --dry-run "$@" > "$OUT/cw.dry" 2>&1
	kpt count --json -c "$B dist" "$@" > "$OUT/cw.json" 2> "$OUT/cw.err"
	if [ "$want" = direct ]; then
		grep -q '^count: counted beside the probe.s HITS.*no map lookup' "$OUT/cw.dry"
	else
		grep -q '^count: the generic path (fetch, record slots), counted beside' "$OUT/cw.dry"
	fi || fail "$what: --dry-run does not say the $want path: $(grep '^count' "$OUT/cw.dry")"
}
count_paths "count of a uprobe" direct "$REG"
json_check "count without keys, direct: the workload's 1003 calls" "$OUT/cw.json" \
	'[r["count"] for r in rows] == [1003] and rows[0]["key"] == {}'
count_paths "count --sum of a register" direct --sum n "$REG"
json_check "count --sum n without keys, direct: 1003 calls, their sum" "$OUT/cw.json" \
	'[(r["count"], r["sum"]) for r in rows] == [(1003, sum(DIST))]'
count_paths "count of a register filtered" direct "$REG if n >= 500"
json_check "count without keys, filtered on the direct path: the 500 calls of n >= 500" \
	"$OUT/cw.json" '[r["count"] for r in rows] == [len([v for v in DIST if v >= 500])]'
count_paths "count --sum beside a string" generic --sum n "$SIZE"
json_check "count --sum n without keys, generic path: 1003 calls, their sum" "$OUT/cw.json" \
	'[(r["count"], r["sum"]) for r in rows] == [(1003, sum(DIST))]'
kpt count --json -c "$B dist" "$REG" "p:sz2 $B:kpt_size" > "$OUT/cw2.json" 2> "$OUT/cw2.err"
json_check "two counts without keys, each beside its HITS: 1003 calls each" "$OUT/cw2.json" \
	'sorted((r["event"], r["count"]) for r in rows) == [("sz", 1003), ("sz2", 1003)]'
# --sum in a run of two: the generic path (the handler reads no count's value)
count_paths "count --sum of a register, two probes" generic --sum n "$REG" "p:sz2 $B:kpt_size n=%di:u64"
json_check "two counts --sum n without keys: 1003 calls each, their sum" "$OUT/cw.json" \
	'sorted((r["event"], r["count"], r["sum"]) for r in rows) == [("sz", 1003, sum(DIST)), ("sz2", 1003, sum(DIST))]'

echo "# latency"
# The target prints each call's own measured duration (ns) on its stdout: the
# reference for the same run kptrace measured (its JSON goes to -o).
kpt latency --json -o "$OUT/lat2.json" -c "$B sleep" "$B:kpt_sleep" > "$OUT/lat2.ref" 2> "$OUT/lat2.err"
if python3 - "$OUT/lat2.json" "$OUT/lat2.ref" <<'EOF'
import json, math, sys
row = [json.loads(l) for l in open(sys.argv[1]) if l.strip()][0]["hist"]
ref = sorted(float(l) for l in open(sys.argv[2]) if l.strip())
assert row["count"] == len(ref) == 30, (row["count"], len(ref))
def rank(q):  # nearest rank
    return ref[max(1, math.ceil(q * len(ref))) - 1]
# stated: <= 1/128 from the buckets; 1% more for where each tracer reads its
# clock. The target's own interval encloses both probes' traps and any
# preemption between its clock and theirs (a loaded machine: seen 2.5% on one
# call), so it can only be longer: more room below than above.
for key, q in (("p50", .5), ("p90", .9), ("p99", .99)):
    got, want = row[key], rank(q)
    assert -(1 / 128 + 0.05) <= (got - want) / want <= 1 / 128 + 0.01, (key, got, want)
print("percentiles", {k: row[k] for k in ("p50", "p90", "p99")}, "reference", rank(.5), rank(.9), rank(.99))
EOF
then pass "latency percentiles within 1/128 (+1% clock placement) of the measured durations"
else fail "latency percentiles: $(cat "$OUT/lat2.json" | head -c 400)"; fi
kpt latency --json -c "$B recurse" "$B:kpt_sleep" > "$OUT/rec.json" 2> "$OUT/rec.err"
json_check "latency under recursion: 20 nested calls paired (none unmatched), all >= 1 ms" \
	"$OUT/rec.json" 'rows[0]["hist"]["count"] == 20 and rows[0]["hist"]["min"] >= 1e6'
kpt latency --json -o "$OUT/lf.json" -c "$B sleep" "$B:kpt_sleep usec=%di:s64 if usec >= 2000" > /dev/null 2> "$OUT/lf.err"
json_check "latency with a filter at entry: only the 2 and 4 ms calls" "$OUT/lf.json" \
	'rows[0]["hist"]["count"] == 20 and rows[0]["hist"]["min"] >= 2e6'
# (the profile printed: the run ended and reported, unmatched returns included)
check "recursion: no unmatched returns reported (exit 0; the profile printed)" \
	test "$(profile_total "$OUT/rec.err" unmatched 2>&1)" = 0
# the runs above without a filter took the direct path; a filtered entry
# takes the generic one (its return, unfiltered, stays direct)
kpt latency --dry-run "$B:kpt_sleep" > "$OUT/ld.txt" 2>&1
kpt latency --dry-run "$B:kpt_sleep usec=%di:s64 if usec >= 0" > "$OUT/lg.txt" 2>&1
check "latency: both halves timed straight from the context, but a filtered entry (--dry-run)" \
	test "$(grep -c '^latency: timed straight' "$OUT/ld.txt"):$(grep -c '^latency: timed straight' "$OUT/lg.txt")" = 2:1
kpt latency --json -c "$B recurse" "$B:kpt_sleep usec=%di:s64 if usec >= 0" > "$OUT/recg.json" 2> "$OUT/recg.err"
json_check "latency under recursion, the generic path (a filter passing all): 20 paired, all >= 1 ms" \
	"$OUT/recg.json" 'rows[0]["hist"]["count"] == 20 and rows[0]["hist"]["min"] >= 1e6'

echo "# filters, every operator, exact counts (values 0..999 and 3x7; tags small/big/seven)"
# Each run's HITS is the workload's 1003 calls, so a count of 0 is the
# filter's doing, not a run that saw nothing.
count_where() {
	local expr=$1 want=$2 got hits
	got=$(kpt count --json -c "$B dist" "$SIZE if $expr" 2> "$OUT/f.err" | count_total)
	hits=$(profile_field "$OUT/f.err" uprobes/sz hits)
	if [ "$got:$hits" = "$want:1003" ]; then pass "if $expr: $got of $hits"
	else fail "if $expr: want $want of 1003 got '$got' of '${hits:-}' $(head -c 300 "$OUT/f.err")"; fi
}
count_where 'n == 7' 4
count_where 'n != 7' 999
count_where 'n < 10' 13
count_where 'n <= 10' 14
count_where 'n > 990' 9
count_where 'n >= 990' 10
count_where 'n & 512' 488
count_where 'tag == "big"' 500
count_where 'tag != "big"' 503
count_where 'tag ~ "sm*"' 500
count_where 'tag ~ "*ve*"' 3
count_where 'tag ~ "?ig"' 500
count_where 'tag ~ "[bs]*"' 1003
count_where '!(n < 500) && tag == "big"' 500
count_where '(n < 2 || n > 997) && !(tag ~ "s*")' 2
count_where 'comm ~ "target*" && n < 100' 103
count_where 'comm == "target-agg"' 1003
count_where 'comm == "nope"' 0
count_where 'k == 115' 503
kpt count --json --filter 'n < 100' -c "$B dist" "$SIZE if tag ~ \"s*\"" > "$OUT/ff.json" 2> "$OUT/ff.err"
json_check "--filter and 'if' both apply" "$OUT/ff.json" 'sum(r["count"] for r in rows) == 103'
kpt hist --json -c "$B dist" "$SIZE if n >= 500" n > "$OUT/hf.json" 2> "$OUT/hf.err"
json_check "a filtered histogram counts what passes" "$OUT/hf.json" \
	'hist_is(rows[0]["hist"], [v for v in DIST if v >= 500])'
# A value missing at the end of the definition: the caret just past it.
DEF="$SIZE if n =="
KPT_RC=error kpt -c "$B dist" "$DEF" > /dev/null 2> "$OUT/fe.err"
rc=$?
bad_filter_refused() {
	[ "$rc" = 1 ] && grep -q "^kptrace: error: Missing value after '=='" "$OUT/fe.err" &&
		caret_at "$OUT/fe.err" "$DEF" ${#DEF} && ! grep -q Attached "$OUT/fe.err"
}
check "a bad filter is refused (exit $rc), the caret at the missing value (column ${#DEF})" bad_filter_refused

echo "# hist kmalloc through this kernel's kmem:kmalloc tracepoint, against ftrace's count"
T=/sys/kernel/tracing
if [ -e $T/events/kmem/kmalloc/enable ]; then
	# Both count only one process (by comm), over the same run of it: the
	# same events, so the same count, exactly. Runs the kernel skipped while
	# another BPF program held the CPU (NOT RUN) are of any process, before
	# the comm filter: reported beside, never added in.
	cp "$(command -v ls)" "$OUT/kptkm"
	if kpt_bg "$OUT/km.err" hist kmalloc --json --comm kptkm -o "$OUT/km.json" > /dev/null; then
		echo 0 > $T/tracing_on
		echo > $T/trace
		echo 'comm == "kptkm"' > $T/events/kmem/kmalloc/filter
		echo 1 > $T/events/kmem/kmalloc/enable
		echo 1 > $T/tracing_on
		for i in 1 2 3 4 5; do "$OUT/kptkm" -laR /usr/share/doc > /dev/null 2>&1; done
		echo 0 > $T/tracing_on
		echo 0 > $T/events/kmem/kmalloc/enable
		echo 0 > $T/events/kmem/kmalloc/filter
		written=$(sed -n 's/.*entries-in-buffer\/entries-written: [0-9]*\/\([0-9]*\).*/\1/p' $T/trace)
	fi
	kpt_stop
	notrun=$(sed -n 's/.*, \([0-9]*\) hits NOT RUN by the kernel.*/\1/p' "$OUT/km.err")
	json_check "hist kmalloc counts what the kernel's tracer counts, exactly (${written:-no} events; ${notrun:-0} runs of any process reported not run)" \
		"$OUT/km.json" "rows[0]['hist']['count'] == ${written:-0} > 100 and rows[0]['hist']['max'] > 0"
else
	env_fault "no kmem:kmalloc tracepoint in this kernel"
fi
# km_round NAME KPTRACE-ARGS: kptrace (by comm kptkm) beside ftrace's own
# kmem:kmalloc events of the same comm over the same two runs of kptkm;
# ftrace's text in $OUT/NAME.trace, kptrace's output in $OUT/NAME.out
km_round() {
	local name=$1; shift
	: > "$OUT/$name.trace"
	kpt_bg "$OUT/$name.err" "$@" --comm kptkm > "$OUT/$name.out" || return
	echo 0 > $T/tracing_on
	echo > $T/trace
	echo 'comm == "kptkm"' > $T/events/kmem/kmalloc/filter
	echo 1 > $T/events/kmem/kmalloc/enable
	echo 1 > $T/tracing_on
	for i in 1 2; do "$OUT/kptkm" -la /usr/share/doc /usr/lib > /dev/null 2>&1; done
	echo 0 > $T/tracing_on
	echo 0 > $T/events/kmem/kmalloc/enable
	echo 0 > $T/events/kmem/kmalloc/filter
	grep ' kmalloc: ' $T/trace > "$OUT/$name.trace"
	# every event the kernel wrote still in its buffer, or no reference
	grep -q 'entries-in-buffer/entries-written: \([0-9]*\)/\1 ' $T/trace ||
		{ fail "$name: ftrace's buffer overflowed: $(grep -m1 entries-in-buffer $T/trace)"; : > "$OUT/$name.trace"; }
	kpt_stop
}
if [ -e $T/events/kmem/kmalloc/enable ]; then
	# --slack: bytes_alloc - bytes_req of each event, as ftrace printed both
	km_round ks hist kmalloc --slack --json
	read -r n lo hi < <(sed -n 's/.* bytes_req=\([0-9]*\) bytes_alloc=\([0-9]*\) .*/\1 \2/p' "$OUT/ks.trace" |
		awk '{ d = $2 - $1; if (!n++ || d < lo) lo = d; if (d > hi) hi = d } END { print n + 0, lo + 0, hi + 0 }')
	json_check "hist kmalloc --slack: count, min and max of ftrace's bytes_alloc - bytes_req ($n events, $lo to $hi)" \
		"$OUT/ks.out" "rows[0]['hist']['count'] == $n > 100 and rows[0]['hist']['min'] == $lo and rows[0]['hist']['max'] == $hi"
	# call sites: kptrace's symbolized rows, ftrace's %pS of the same field
	km_round kc count --top 5 --by call_site 't:kmem/kmalloc call_site'
	sed -n 's/.* call_site=\([^ ]*\) .*/\1/p' "$OUT/kc.trace" | sort | uniq -c | sort -rn > "$OUT/kc.ref"
	check "count --by call_site: each of the top 5 rows is ftrace's %pS of that call site, with its count" \
		python3 - "$OUT/kc.out" "$OUT/kc.ref" <<'PY'
import re, sys
ref = {s: int(n) for n, s in (l.split() for l in open(sys.argv[2]))}
rows = [l.split() for l in open(sys.argv[1]) if re.match(r"^ +[0-9]+  \S+\+0x[0-9a-f]+/0x[0-9a-f]+$", l)]
assert len(rows) == min(5, len(ref)) > 0, (rows, len(ref))
for n, site in rows:
    assert ref.get(site) == int(n), (site, n, ref.get(site))
PY
else
	env_fault "no kmem:kmalloc tracepoint in this kernel: no reference for --slack"
	env_fault "no kmem:kmalloc tracepoint in this kernel: no reference for call sites"
fi

echo "# a tracepoint run reads kallsyms (~40 ms) only if it may print a symbol"
# Bytes the run had read (/proc/PID/io rchar) once attached: /proc/kallsyms
# is megabytes, everything else a tracepoint run reads a few kilobytes
# (never 0: a live kptrace has read its definitions' files). "none" when
# the run did not attach or its io could not be read, which every check
# below fails on.
rchar_attached() {
	local n=
	kpt_bg "$OUT/rc.err" "$@" > /dev/null && n=$(sed -n 's/^rchar: //p' /proc/$KP_KPT/io 2>/dev/null)
	kpt_stop
	echo "${n:-none}"
}
read_little() { [ "$1" != none ] && [ "$1" -gt 0 ] && [ "$1" -lt "$2" ]; }
ks=$(wc -c < /proc/kallsyms)
n=$(rchar_attached -o /dev/null 't:kb/a syscalls/sys_enter_lseek fd offset')
check "fields printed as numbers: kallsyms not read ($n bytes read; kallsyms is $ks)" read_little "$n" $((ks / 4))
# the positive control: the same measure sees kallsyms read
n=$(rchar_attached -o /dev/null 't:kb/b kmem/kmalloc call_site:symbol')
check "a :symbol field: kallsyms read ($n bytes read; kallsyms is $ks)" test "$n" != none -a "$n" -ge $((ks / 2))
# an aggregation prints its keys only: call_site (%pS, a symbol) is not one;
# a system-wide direct histogram reads the kernel's BTF (task_struct's
# layout, for its self check by the stack), so kallsyms' bytes are beyond it
bs=$(wc -c < /sys/kernel/btf/vmlinux)
n=$(rchar_attached hist kmalloc)
check "hist kmalloc: kallsyms not read for call_site, never printed ($n bytes read; BTF $bs)" \
	read_little "$n" $((bs + ks / 4))
# nor the kernel's BTF (~6 MB read and parsed) a stream: the BPF programs read
# registers through our own struct kpt_regs, which needs no CO-RE relocation
n=$(rchar_attached -o /dev/null "p:kb/r $B:kpt_size n=%di:u64 t=%si")
check "a uprobe streaming registers: kallsyms and the kernel's BTF not read ($n bytes read; BTF $bs)" \
	read_little "$n" $(( (bs < ks ? bs : ks) / 4 ))
kpt --dry-run 't:kmem/kmalloc bytes_req call_site:x32' > "$OUT/tpd.out" 2>&1
check "--dry-run: an untyped field has its format's type, a typed one its own" \
	bash -c "grep -q '^  bytes_req: u64' $OUT/tpd.out && grep -q '^  call_site: x32' $OUT/tpd.out"

echo "# targeting"
# HITS: the workload's calls came (the comm filter is after the count)
kpt count --json --comm nosuchcomm -c "$B dist" "$SIZE" > "$OUT/cm.json" 2> "$OUT/cm.err"
hits=$(profile_field "$OUT/cm.err" uprobes/sz hits)
check "--comm filters in the kernel (0 counted for another comm, of ${hits:-no} hits)" \
	test ! -s "$OUT/cm.json" -a "${hits:-}" = 1003
kpt count --json --comm target-agg -c "$B dist" "$SIZE" > "$OUT/cm2.json" 2> "$OUT/cm2.err"
json_check "--comm counts its own" "$OUT/cm2.json" 'sum(r["count"] for r in rows) == 1003'

# -t and --cgroup: a long-running target, counted only where it is. The
# runs that count nothing show its calls FILTERED: they came, and the
# target filter dropped them.
CG=""
for d in /sys/fs/cgroup/unified /sys/fs/cgroup; do
	[ -e $d/cgroup.procs ] && grep -q cgroup2 <(stat -f -c %T $d 2>/dev/null; mount | grep " $d type cgroup2") && CG=$d && break
done
if [ -n "$CG" ] && mkdir -p $CG/kpttest 2>/dev/null; then
	sh -c "echo \$\$ > $CG/kpttest/cgroup.procs; exec $B spin" & tp=$!
	# running the target (execed), in its cgroup: then it calls kpt_neg each ms
	if ! wait_for "[ \"\$(readlink /proc/$tp/exe)\" = '$B' ] && grep -qx $tp $CG/kpttest/cgroup.procs" 10; then
		fail "-t/--cgroup: the spinning target did not start in $CG/kpttest within 10 s"
	fi
	targeted() {	# targeted NAME ARGS...: "counted:filtered"
		local name=$1 c; shift
		c=$(kpt count --json "$@" -d 1 "p:n $B:kpt_neg" 2> "$OUT/$name.err" | count_total)
		echo "$c:$(profile_field "$OUT/$name.err" uprobes/n filtered)"
	}
	in_t=$(targeted tg1 -t $tp)
	other_t=$(targeted tg2 -t 1)
	in_cg=$(targeted tg3 --cgroup $CG/kpttest)
	root_cg=$(targeted tg4 --cgroup $CG)
	kill $tp 2>/dev/null; wait $tp 2>/dev/null
	rmdir $CG/kpttest 2>/dev/null
	check "-t TID counts that thread only (counted:filtered $in_t; tid 1: $other_t)" \
		bash -c "[ ${in_t%%:*} -gt 0 ] && [ ${other_t%%:*} = 0 ] && [ ${other_t#*:} -gt 0 ]"
	check "--cgroup counts that cgroup only (counted:filtered $in_cg; its parent: $root_cg)" \
		bash -c "[ ${in_cg%%:*} -gt 0 ] && [ ${root_cg%%:*} = 0 ] && [ ${root_cg#*:} -gt 0 ]"
else
	env_fault "-t/--cgroup: no writable cgroup v2 hierarchy"
fi

# -i clears the histogram each interval (its value stats in kpt_hstat, not
# beside HITS): the intervals add up to the run, and HITS is the whole run's.
# Two runs of the sleep workload (30 sleeps of 1, 2 and 4 ms), the second
# once the first's 30 are printed: in two intervals at least, whatever the
# timing, and 60 in all only if each interval was cleared.
iv_total() { python3 -c 'import json,sys; print(sum(json.loads(l)["hist"]["count"] for l in open(sys.argv[1]) if l.strip()))' "$1" 2>/dev/null; }
if kpt_bg "$OUT/hi.err" hist --json -i 0.05 -o "$OUT/hi.json" "p:d $B:kpt_sleep us=%di:u64" us > /dev/null; then
	"$B" sleep > /dev/null
	wait_for '[ "$(iv_total "$OUT/hi.json")" = 30 ]' 10 || problem "hist -i: the first 30 calls not printed within 10 s"
	"$B" sleep > /dev/null
	wait_for '[ "$(iv_total "$OUT/hi.json")" = 60 ]' 10 || problem "hist -i: 60 calls not printed within 10 s"
fi
kpt_stop
hits=$(profile_field "$OUT/hi.err" uprobes/d hits)
json_check "hist -i: the intervals' counts and sums add up to the run's ($(grep -c '"count":[1-9]' "$OUT/hi.json") tables not empty, HITS ${hits:-?})" \
	"$OUT/hi.json" "sum(r['hist']['count'] for r in rows) == 60 == ${hits:-0} and sum(r['hist']['sum'] for r in rows) == 140000 and len([r for r in rows if r['hist']['count']]) > 1 and min(r['hist']['min'] for r in rows if r['hist']['count']) == 1000 and max(r['hist']['max'] for r in rows if r['hist']['count']) == 4000"

# count -i in text: each interval's table under its time, cleared. Runs of
# 5 and then 7 calls of kpt_neg (one a round), the second once the first's
# are printed.
iv_tables() {	# the counts of each interval table of $1, one line each ("-" for an empty table)
	awk '/^[0-9][0-9]:[0-9][0-9]:[0-9][0-9]$/ { if (t) print (c == "" ? "-" : c); t = 1; c = ""; next }
	     t && /^ +[0-9]+ *$/ { c = c (c == "" ? "" : "+") $1 }
	     END { if (t) print (c == "" ? "-" : c) }' "$1"
}
iv_sum() { iv_tables "$1" | tr -c '0-9\n' '\n' | awk '{ s += $1 } END { print s + 0 }'; }
if kpt_bg "$OUT/iv.err" count -i 0.05 "p:n $B:kpt_neg" > "$OUT/iv.txt"; then
	"$B" 5 clean
	wait_for '[ "$(iv_sum "$OUT/iv.txt")" = 5 ]' 10 || problem "count -i: the first 5 calls not printed within 10 s"
	"$B" 7 clean
	wait_for '[ "$(iv_sum "$OUT/iv.txt")" = 12 ]' 10 || problem "count -i: 12 calls not printed within 10 s"
fi
kpt_stop
tables=$(iv_tables "$OUT/iv.txt" | grep -cv '^-$')
hits=$(profile_field "$OUT/iv.err" uprobes/n hits)
check "count -i: a table under its time each interval, cleared: 5 + 7 in $tables tables ($(iv_tables "$OUT/iv.txt" | grep -v '^-$' | tr '\n' ' '); HITS ${hits:-?})" \
	bash -c "[ $(iv_sum "$OUT/iv.txt"):${hits:-} = 12:12 ] && [ $tables -ge 2 ]"

finish
