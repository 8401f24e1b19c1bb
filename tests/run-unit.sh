#!/usr/bin/env bash
# Run each unit test binary; each ends with "N passed, N failed". A binary
# that dies without that line (a sanitizer's abort, a crash) or exits non-zero
# with no failure counted is one failure of its own, so the total shows it.
set -uo pipefail
rc=0
for t in "$@"; do
	name=${t#.output/tests/}
	echo "# $name"
	out=$("$t" 2>&1)
	status=$?
	[ -z "$out" ] || printf '%s\n' "$out" | grep -v -E '^[0-9]+ passed, [0-9]+ failed'
	summary=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -n 1)
	if [ $status != 0 ]; then
		rc=1
		if [ -z "$summary" ] || [ "$(echo "$summary" | awk '{print $3}')" = 0 ]; then
			echo "FAIL - $name: exit $status without a failure counted (crashed or aborted)"
			summary="$(echo "${summary:-0 passed, 0 failed}" | awk '{print $1}') passed, 1 failed"
		fi
	fi
	echo "${summary:-0 passed, 0 failed}"
done
exit $rc
