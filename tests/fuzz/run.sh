#!/usr/bin/env bash
# Run each libFuzzer harness for SECONDS (make fuzz: FUZZ_SECONDS, default
# 300; make fuzz-smoke and make test: 10) and end with "N passed, N
# failed", one per harness. The harnesses are built by make (fuzz-build)
# into .output/fuzz/bin.
#
# Each harness runs on a fresh copy of its committed corpus in
# .output/fuzz/corpus/NAME (what it finds stays there; the committed corpus
# is never grown), plus tests/fuzz/regressions/NAME, read-only: a reproducer
# of a bug not fixed yet fails the run at once. FUZZ_KEEP_CORPUS=1 keeps the
# previous run's copy instead (resume a long campaign). Crashes, timeouts
# and OOMs are written to .output/fuzz/artifacts/NAME-*, logs to
# .output/fuzz/logs/NAME.log; on failure the log's report is printed.
# FUZZ_JOBS harnesses run at once (default: nproc).
#
#   tests/fuzz/run.sh SECONDS [NAME...]     NAME: spec, filter, decode, jobs, http, usdt, elf, diff, ehframe
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2

secs=${1:-}
case "$secs" in
'' | *[!0-9]*)
	echo "usage: $0 SECONDS [spec|filter|decode|jobs|http|usdt|elf|diff|ehframe ...]" >&2
	exit 2
	;;
esac
shift
names=("$@")
[ ${#names[@]} -gt 0 ] || names=(spec filter decode jobs http usdt elf diff ehframe)

BIN=${FUZZ_BIN:-.output/fuzz/bin}
WORK=.output/fuzz
mkdir -p "$WORK/corpus" "$WORK/artifacts" "$WORK/logs"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:symbolize=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# Longest input per harness: past SPEC_TEXT_MAX for definitions; a few
# records' worth of layout + record for decode.
max_len() {
	case $1 in
	spec) echo 4200 ;;
	filter) echo 2048 ;;
	decode) echo 8192 ;;
	jobs) echo 8192 ;;
	http) echo 9000 ;;	# past the default header limit, 8192
	usdt) echo 512 ;;
	elf) echo 16384 ;;	# the seeds' small programs, 1-8 KB
	diff) echo 16384 ;;	# two files of a few tables each
	ehframe) echo 8192 ;;	# a small program's .eh_frame, 1-2 KB
	esac
}

# fuzz_one NAME: one harness's run; its "ok"/"FAIL" lines on stdout
fuzz_one() {
	local name=$1 bin=$BIN/fuzz_$1 log=$WORK/logs/$1.log corpus=$WORK/corpus/$1
	local dirs dict rc runs eps cov size a
	if [ ! -x "$bin" ]; then
		echo "FAIL - fuzz_$name: $bin not built (make fuzz-build)"
		return
	fi
	[ "${FUZZ_KEEP_CORPUS:-0}" = 1 ] || rm -rf "$corpus"
	mkdir -p "$corpus"
	cp -n tests/fuzz/corpus/"$name"/* "$corpus"/ 2>/dev/null
	dirs=("$corpus")
	[ -d "tests/fuzz/regressions/$name" ] && dirs+=("tests/fuzz/regressions/$name")
	dict=()
	[ -f "tests/fuzz/$name.dict" ] && dict=("-dict=tests/fuzz/$name.dict")
	rm -f "$WORK/artifacts/$name"-*

	"$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-max_len="$(max_len "$name")" -print_final_stats=1 \
		-artifact_prefix="$WORK/artifacts/$name-" "${dict[@]}" "${dirs[@]}" \
		>"$log" 2>&1
	rc=$?

	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	eps=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
	size=$(find "$corpus" -type f | wc -l)
	if [ "$rc" = 0 ]; then
		echo "ok - fuzz_$name: ${secs}s, ${runs:-?} runs, ${eps:-?} exec/s, ${cov:-cov: ?}," \
			"corpus $size"
	else
		echo "FAIL - fuzz_$name: exit $rc, log $log"
		# the report: from the sanitizer's or libFuzzer's first line on
		sed -n '/^==[0-9]*==\|^[^ ]*: invariant\|runtime error\|^INFO: libFuzzer: \|ERROR: libFuzzer/,$p' \
			"$log" | grep -v '^stat::\|^MS: \|^0x' | head -60 | sed 's/^/  /'
		for a in "$WORK/artifacts/$name"-*; do
			[ -e "$a" ] && echo "  reproducer: $a (run: $bin $a)"
		done
	fi
}

# Side by side, FUZZ_JOBS at a time (default: a core each; each harness is
# one thread), their lines printed in NAME order once all have run.
jobs=${FUZZ_JOBS:-$(nproc)}
for name in "${names[@]}"; do
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
		wait -n
	done
	fuzz_one "$name" > "$WORK/logs/$name.result" &
done
wait
passed=0
failed=0
for name in "${names[@]}"; do
	cat "$WORK/logs/$name.result"
	if grep -q '^ok - ' "$WORK/logs/$name.result"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
	fi
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
