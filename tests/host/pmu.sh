#!/usr/bin/env bash
# latency --pmu on this kernel, through uprobes on tests/host/pmu_target.c:
# per-call counter deltas of functions whose counts are known (page faults of
# fresh pages, context switches of a sleep, none of a computation, the clock
# against the latency itself), calls that migrate left out, the hardware PMU
# where there is one and a clear refusal where there is none, and no PMU code
# in the programs without --pmu.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/lib.sh

KPT=./kptrace
OUT=.output/tests/host
mkdir -p "$OUT"
B=$(realpath "$OUT")/pmu-target
# -O0 -fno-inline: every call is a call (no folding of identical calls)
gcc -O0 -fno-inline -g -no-pie tests/host/pmu_target.c -o "$B" || { echo "cannot build target"; exit 1; }
[ "$(id -u)" = 0 ] || skip_all "PMU tests need root (BPF, uprobes, perf_event_open)"
NCPU=$(nproc)
CPU=$((NCPU - 1))	# pinned: a per-CPU counter sees the call on one CPU

json_check() {
	local name=$1 file=$2 expr=$3
	if python3 - "$file" "$expr" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
r = rows[0] if rows else {}
lat = r.get("hist", {})
pmu = {p["event"]: p["hist"] for p in r.get("pmu", [])}
left = r.get("pmu_left_out", {})
ok = eval(sys.argv[2], {"rows": rows, "r": r, "lat": lat, "pmu": pmu, "left": left, "abs": abs})
sys.exit(0 if ok else 1)
EOF
	then pass "$name"; else fail "$name: $(head -c 1500 "$file")"; fi
}

echo "# software counters, known per-call counts"
$KPT latency --json --pmu page-faults,minor-faults,major-faults,context-switches \
	-c "taskset -c $CPU $B touch 100 20" "$B:kpt_touch" > "$OUT/pf.json" 2> "$OUT/pf.err"
json_check "page-faults: 100 fresh pages touched per call -> min >= 100, p50 = 100 (20 calls)" "$OUT/pf.json" \
	'lat["count"] == 20 and pmu["page-faults"]["count"] == 20 and pmu["page-faults"]["min"] >= 100 and pmu["page-faults"]["p50"] == 100'
json_check "minor-faults likewise, major-faults p50 = 0" "$OUT/pf.json" \
	'pmu["minor-faults"]["p50"] == 100 and pmu["major-faults"]["p50"] == 0'
json_check "a computation on resident memory: context-switches p50 = 0" "$OUT/pf.json" \
	'pmu["context-switches"]["p50"] == 0 and left == {"migrated": 0, "multiplexed": 0, "failed": 0}'

$KPT latency --json --pmu context-switches,cpu-clock,page-faults \
	-c "taskset -c $CPU $B nap 2000 20" "$B:kpt_nap" > "$OUT/cs.json" 2> "$OUT/cs.err"
json_check "context-switches: a 2 ms sleep switches out every call (min >= 1 of 20)" "$OUT/cs.json" \
	'pmu["context-switches"]["count"] == 20 and pmu["context-switches"]["min"] >= 1'
json_check "cpu-clock: per-call deltas sum to the latencies' sum (within 1%), each >= 2 ms" "$OUT/cs.json" \
	'abs(pmu["cpu-clock"]["sum"] - lat["sum"]) <= 0.01 * lat["sum"] and pmu["cpu-clock"]["min"] >= 2000000'

$KPT latency --json --pmu context-switches,page-faults,cpu-clock \
	-c "taskset -c $CPU $B spin 100000 40" "$B:kpt_spin" > "$OUT/sp.json" 2> "$OUT/sp.err"
json_check "a pure computation: p50 of context-switches and page-faults = 0, cpu-clock p50 = latency p50 (2%)" "$OUT/sp.json" \
	'pmu["context-switches"]["p50"] == 0 and pmu["page-faults"]["p50"] == 0 and abs(pmu["cpu-clock"]["p50"] - lat["p50"]) <= 0.02 * lat["p50"] + 2000'

$KPT latency --pmu page-faults,cpu-clock -c "taskset -c $CPU $B touch 100 5" "$B:kpt_touch" > "$OUT/pf.txt" 2> "$OUT/pf.txt.err"
check "text: a summary line per counter under the latency ($(grep -c '^  [a-z]' "$OUT/pf.txt") lines)" \
	bash -c "grep -qE '^  page-faults +count 5, avg 10[0-9], p50 100, ' $OUT/pf.txt && grep -qE '^  cpu-clock +count 5, avg [0-9.]+us, p50 [0-9.]+us' $OUT/pf.txt"

if [ "$NCPU" -ge 2 ]; then
	$KPT latency --json --pmu context-switches -c "$B hop 20" "$B:kpt_hop" > "$OUT/hop.json" 2> "$OUT/hop.err"
	json_check "a call that returns on another CPU: latency counted, counters left out (migrated 20)" "$OUT/hop.json" \
		'lat["count"] == 20 and pmu["context-switches"]["count"] == 0 and left["migrated"] == 20'
	$KPT latency --pmu cs -c "$B hop 3" "$B:kpt_hop" > "$OUT/hop.txt" 2> /dev/null
	check "text: the migrated calls are reported" grep -q '(3 calls returned on another CPU than they entered on' "$OUT/hop.txt"
else
	skip "migration: one CPU"
fi

echo "# a sysfs PMU event"
if [ -e /sys/bus/event_source/devices/msr/events/tsc ]; then
	# The TSC runs at one rate: ticks per latency nanosecond agree between
	# 2 ms sleeps and short computations.
	$KPT latency --json --pmu msr/tsc/ -c "taskset -c $CPU $B nap 2000 10" "$B:kpt_nap" > "$OUT/tsc1.json" 2> "$OUT/tsc1.err"
	$KPT latency --json --pmu msr/tsc/ -c "taskset -c $CPU $B spin 300000 10" "$B:kpt_spin" > "$OUT/tsc2.json" 2> "$OUT/tsc2.err"
	if python3 - "$OUT/tsc1.json" "$OUT/tsc2.json" <<'EOF'
import json, sys
rate = []
for f in sys.argv[1:]:
    r = json.loads(open(f).readline())
    t = r["pmu"][0]["hist"]
    assert t["count"] == r["hist"]["count"] == 10, (t["count"], r["hist"]["count"])
    rate.append(t["p50"] / r["hist"]["p50"])
print("TSC ticks per ns:", rate)
assert 0.2 < rate[0] < 10 and abs(rate[0] - rate[1]) <= 0.03 * rate[0], rate
EOF
	then pass "msr/tsc/ (sysfs PMU/EVENT/): ticks per ns agree for sleeps and computations"
	else fail "msr/tsc/: $(head -c 600 "$OUT/tsc1.json") $(head -c 600 "$OUT/tsc2.json")"; fi
else
	skip "no msr/tsc PMU event"
fi

echo "# hardware counters"
if [ -e /sys/bus/event_source/devices/cpu ] || [ -e /sys/bus/event_source/devices/cpu_core ]; then
	$KPT latency --json --pmu cycles,instructions -c "taskset -c $CPU $B spin 100000 10" "$B:kpt_spin" > "$OUT/hw.json" 2> "$OUT/hw.err"
	json_check "instructions >= the loop's 100000 iterations, cycles > 0" "$OUT/hw.json" \
		'pmu["instructions"]["p50"] >= 100000 and pmu["cycles"]["p50"] > 0'
else
	$KPT latency --pmu cycles,page-faults -c "$B spin 10 1" "$B:kpt_spin" > "$OUT/hw.txt" 2> "$OUT/hw.err"
	rc=$?
	check "no hardware PMU here: --pmu cycles exits $rc with '$(cat "$OUT/hw.err")'" \
		bash -c "[ $rc != 0 ] && grep -qF 'kptrace: error: cycles: no hardware PMU on this machine' $OUT/hw.err && grep -q '(perf_event_open: No such file or directory)' $OUT/hw.err"
	check "... before loading or attaching anything" bash -c "! grep -q Attach $OUT/hw.err"
	$KPT latency --pmu page-faults,instructions "$B:kpt_spin" > /dev/null 2> "$OUT/hw2.err"
	check "the refused counter is the one named, not the first" grep -q '^kptrace: error: instructions: ' "$OUT/hw2.err"
fi

echo "# refusals"
refuse() {
	local desc=$1 want=$2 rc; shift 2
	"$@" > /dev/null 2> "$OUT/ref.err"
	rc=$?
	if [ $rc != 0 ] && grep -qF -- "$want" "$OUT/ref.err"; then
		pass "$desc (exit $rc: $(head -1 "$OUT/ref.err"))"
	else
		fail "$desc (exit $rc: $(head -1 "$OUT/ref.err"))"
	fi
}
refuse "an unknown event" "unknown event 'bogus'" $KPT latency --pmu bogus "$B:kpt_spin"
refuse "more than 4 counters" "at most 4 counters" $KPT latency --pmu cs,page-faults,cpu-clock,task-clock,migrations "$B:kpt_spin"
refuse "--pmu with --by" "does not combine with --by" $KPT latency --by comm --pmu cs "$B:kpt_spin"
refuse "--pmu outside latency" "--pmu is for 'kptrace latency'" $KPT hist --pmu cs "p:$B:kpt_spin n=%di:u64"
refuse "a PMU that does not exist" "no PMU 'nosuchpmu' on this machine" $KPT latency --pmu nosuchpmu/x/ "$B:kpt_spin"

echo "# without --pmu, no PMU code runs"
xlated_calls() {	# kpt_entry of our kptrace: its calls of the PMU functions
	local args=$1 pid id n
	$KPT latency $args "$B:kpt_nap" > /dev/null 2>&1 &
	pid=$!
	sleep 1
	# our programs: the bpf-prog fds of this kptrace (fdinfo prog_id)
	id=$(for f in /proc/$pid/fdinfo/*; do sed -n 's/^prog_id:\t*//p' "$f"; done 2>/dev/null |
		while read -r i; do
			bpftool prog show id "$i" 2>/dev/null | grep -q ' name kpt_entry ' && echo "$i"
		done | head -1)
	n=$(bpftool prog dump xlated id "$id" 2>/dev/null | grep -c 'call .*kpt_pmu_\(enter\|exit\)')
	kill -INT $pid; wait $pid 2>/dev/null
	echo "${id:-none}:$n"
}
without=$(xlated_calls "")
with=$(xlated_calls "--pmu cs")
check "kpt_entry as loaded calls kpt_pmu_enter/exit only with --pmu (prog $without without, $with with: id:calls)" \
	test "${without%%:*}" != none -a "${with%%:*}" != none -a "${without#*:}" = 0 -a "${with#*:}" -ge 2

finish
