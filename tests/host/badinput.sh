#!/usr/bin/env bash
# Bad input corpus (tests/host/badinput.txt, run by badinput.py): every class
# of malformed definition, filter and option is refused with exit 1, or 64
# for a usage error argp reports (not a crash, not a sanitizer's exit or
# report), a message (with a caret under the right column for definitions
# and filters), and nothing attached. Needs root for the "nothing attached"
# part (bpftool, tracefs); the refusals themselves don't.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/lib.sh

OUT=.output/tests/host
mkdir -p "$OUT"
BIN=$(realpath "$OUT")/target-bad
gcc -O0 -fno-inline -no-pie -g tests/host/target.c -o "$BIN" || { echo "cannot build target"; exit 1; }
[ "$(id -u)" = 0 ] || skip_all "bad input corpus: needs root (bpftool, tracefs)"
# every corpus line is a case: fewer checks is a corpus read short
expect_checks "$(grep -cvE '^[[:space:]]*(#|$)' tests/host/badinput.txt)"
# badinput.py prints a line per case and its own count last; that count
# becomes this suite's, so finish() adds the sanitizer reports lib.sh's
# options write to $KPT_SANDIR (which badinput.py also names per case) and
# prints the one closing line. KPT_SANDIR is lib.sh's, not exported.
KPT_SANDIR=$KPT_SANDIR python3 -u tests/host/badinput.py "${KPT:-./kptrace}" "$BIN" tests/host/badinput.txt |
	tee "$OUT/badinput.log" | grep -vE '^[0-9]+ passed, [0-9]+ failed$'
rc=${PIPESTATUS[0]}
counts=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$OUT/badinput.log" | tail -n 1)
if [ -z "$counts" ]; then
	fail "badinput.py ended (exit $rc) without its count"
else
	set -- $counts
	PASSED=$((PASSED + $1))
	FAILED=$((FAILED + $3))
	[ "$rc" = 0 ] || [ "$3" != 0 ] || fail "badinput.py exit $rc with no case failed"
fi
finish
