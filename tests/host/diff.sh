#!/usr/bin/env bash
# kptrace diff on real runs (issue 21, "Diff"): uprobes on
# tests/host/diff_target.c's workloads, whose differences are known by
# construction: 2 ms against 3 ms sleeps, N against 2N calls, argument values
# that differ between runs. Then the false-positive rate on pairs of the same
# workload, and the refusals of bad inputs.
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
expect_checks 28

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

echo "# b: the same workload twice, 10 pairs: false positives"
fp=0 bad=0 sig=0 ps=
for i in $(seq 1 10); do
	lat "$OUT/same-$i-a.json" 2
	lat "$OUT/same-$i-b.json" 2
	dif same-$i --json "$OUT/same-$i-a.json" "$OUT/same-$i-b.json"
	[ "$(jget "$OUT/same-$i.out" 'r["significant"]' 2>/dev/null)" = True ] && sig=$((sig + 1))
	case $DRC in
	0) ;;
	1) fp=$((fp + 1)) ;;
	*) bad=$((bad + 1)) ;;
	esac
	ps="$ps $(jget "$OUT/same-$i.out" '"%.3g" % r["p"]' 2>/dev/null)"
done
echo "p-values of the 10 pairs:$ps"
# runs are not samples of one distribution: the bulk moves by a fine bucket or so
# from run to run, which KS sees; the --min-shift floor is what keeps it "same*"
check "same workload: $fp of 10 pairs called different (at most 1; KS p < 0.01 in $sig, under the 5% floor)" \
	[ "$fp" -le 1 ]
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

echo "# e: bad inputs"
printf 'Attaching 1 probe...\n' > "$OUT/text.json"
: > "$OUT/empty.json"
head -n 1 "$OUT/c1000.json" | sed 's/"type":"count",//' > "$OUT/notype.json"
dif e-text "$OUT/text.json" "$OUT/ms2.json"
check "not JSON: exit 2" [ "$DRC" = 2 ]
has "$OUT/e-text.err" "^kptrace diff: $OUT/text.json:1: not JSON: .*\(column [0-9]+\); kptrace diff reads what kptrace --json writes$" \
	"not JSON: FILE:1: and jansson's text and column"
dif e-empty "$OUT/ms2.json" "$OUT/empty.json"
check "an empty file: exit 2" [ "$DRC" = 2 ]
has "$OUT/e-empty.err" "^kptrace diff: $OUT/empty.json: empty file" "an empty file: said so"
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
finish
