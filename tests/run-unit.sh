#!/usr/bin/env bash
# Run each unit test binary; each ends with "N passed, N failed".
set -uo pipefail
rc=0
for t in "$@"; do
	echo "# ${t#.output/tests/}"
	"$t" || rc=1
done
exit $rc
