#!/usr/bin/env bash
# make test: unit, host and VM suites; sums their "N passed, N failed" lines
# into the closing line CI reads.
set -uo pipefail
cd "$(dirname "$0")/.."
LOG=.output/tests/all.log
mkdir -p .output/tests
: > "$LOG"
rc=0

suite() {
	local name=$1; shift
	echo "=== $name"
	"$@" 2>&1 | tee -a "$LOG" | tee ".output/tests/$name.log"
	[ "${PIPESTATUS[0]}" = 0 ] || { echo "=== $name FAILED"; rc=1; }
}

suite unit tests/run-unit.sh .output/tests/test_* .output/tests/san/test_*
suite fuzz tests/fuzz/run.sh 20
suite host tests/host/run.sh
suite host-agg tests/host/agg.sh
suite host-badinput tests/host/badinput.sh
# the differential, aggregation and bad-input suites again on kptrace built
# with ASan+UBSan: any report fails the run (the sanitizers exit non-zero)
suite host-san env KPT=.output/kptrace-san tests/host/run.sh
suite host-agg-san env KPT=.output/kptrace-san tests/host/agg.sh
suite host-badinput-san env KPT=.output/kptrace-san tests/host/badinput.sh
suite host-harden tests/host/harden.sh
suite host-list tests/host/list.sh
suite host-pmu tests/host/pmu.sh
if [ "${KPT_SKIP_VM:-0}" = 1 ]; then
	echo "skip - VM tests (KPT_SKIP_VM=1)" | tee -a "$LOG"
else
	suite vm tests/vm/test.sh
fi

# Every suite ends with "N passed, N failed[, N skipped]": add them up.
awk '/^[0-9]+ passed, [0-9]+ failed/ { p += $1; f += $3; s += ($5 == "" ? 0 : $5) }
     /^skip - / { s++ }
     END { printf "%d passed, %d failed, %d skipped\n", p, f, s }' "$LOG"
awk '/^[0-9]+ passed, [0-9]+ failed/ { f += $3 } END { exit f > 0 }' "$LOG" || rc=1
exit $rc
