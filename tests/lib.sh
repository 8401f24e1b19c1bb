# Shared shell test helpers: counts and the closing "N passed, N failed" line.
PASSED=0
FAILED=0
SKIPPED=0

pass() { PASSED=$((PASSED + 1)); echo "ok - $*"; }
fail() { FAILED=$((FAILED + 1)); echo "FAIL - $*"; }
skip() { SKIPPED=$((SKIPPED + 1)); echo "skip - $*"; }

# check DESC CMD...: pass when CMD succeeds.
check() {
	local desc=$1; shift
	if "$@"; then pass "$desc"; else fail "$desc"; fi
}

# wait_for 'shell condition' SECONDS: poll, bounded.
wait_for() {
	local cond=$1 secs=$2 i
	for i in $(seq 1 $((secs * 10))); do
		eval "$cond" && return 0
		sleep 0.1
	done
	return 1
}

skip_all() {
	echo "skip - $*"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
}

finish() {
	echo "$PASSED passed, $FAILED failed, $SKIPPED skipped"
	[ "$FAILED" = 0 ]
}
