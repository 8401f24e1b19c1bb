#!/usr/bin/env bash
# Bad input corpus (tests/host/badinput.txt, run by badinput.py): every class
# of malformed definition, filter and option is refused with a non-zero exit
# that is not a crash, a message (with a caret under the right column for
# definitions and filters), and nothing attached. Needs root for the
# "nothing attached" part (bpftool, tracefs); the refusals themselves don't.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/lib.sh

OUT=.output/tests/host
mkdir -p "$OUT"
BIN=$(realpath "$OUT")/target-bad
gcc -O0 -fno-inline -no-pie -g tests/host/target.c -o "$BIN" || { echo "cannot build target"; exit 1; }
[ "$(id -u)" = 0 ] || skip_all "bad input corpus: needs root (bpftool, tracefs)"
exec python3 tests/host/badinput.py "${KPT:-./kptrace}" "$BIN" tests/host/badinput.txt
