#!/usr/bin/env bash
# Values as a user means them (issue 26): negative values in their own log2
# buckets, through the direct and the generic path; a tracepoint's byte
# arrays read and printed as arrays, as the kernel's own trace buffer shows
# them; an array of string pointers (execve's argv) read up to its NULL; a
# count over many probes as one sorted table. Workloads with values known in
# advance: tests/host/values_target.c.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/lib.sh

KPT=${KPT:-./kptrace}
OUT=.output/tests/host/values
mkdir -p "$OUT"
VT=$(realpath "$OUT")/values_target
# static: the process opens nothing the suite does not know of (no ld.so)
gcc -static -O0 -fno-inline -g tests/host/values_target.c -o "$VT" || { echo "cannot build target"; exit 1; }
[ "$(id -u)" = 0 ] || skip_all "host tests need root (BPF, uprobes, tracepoints)"
TR=/sys/kernel/tracing
[ -e $TR/events ] || TR=/sys/kernel/debug/tracing
[ -e $TR/events ] || skip_all "no tracefs"
expect_checks 7

# py FILE EXPR [ARGS...]: EXPR (Python) over FILE's NDJSON rows is true.
py() {
	local file=$1 expr=$2
	shift 2
	python3 - "$file" "$expr" "$@" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
args = sys.argv[3:]

def slog2_rows(vals):
    """A signed log2 histogram's buckets, the mirror of log2 written out:
    (-2^k, -2^(k-1)] below 0, [0], [2^(k-1), 2^k) above, first to last
    non-empty, empty ones between included."""
    def idx(v):
        return 64 - (-v).bit_length() if v < 0 else 64 + v.bit_length()
    def rng(i):
        if i < 64:
            k = 64 - i
            return max(1 - 2 ** k, -2 ** 63), -2 ** (k - 1)
        k = i - 64
        return (0, 0) if k == 0 else (2 ** (k - 1), 2 ** k - 1)
    c = {}
    for v in vals:
        c[idx(v)] = c.get(idx(v), 0) + 1
    return [{"min": rng(i)[0], "max": rng(i)[1], "count": c.get(i, 0)}
            for i in range(min(c), max(c) + 1)]

def want_hist(vals):
    return {"buckets": slog2_rows(vals), "count": len(vals), "sum": sum(vals),
            "min": min(vals), "max": max(vals), "avg": int(sum(vals) / len(vals))}

sys.exit(0 if eval(sys.argv[2]) else 1)
EOF
}

# jcheck DESC FILE EXPR [ARGS]: py as a check, the file shown on failure.
jcheck() {
	local desc=$1 file=$2
	shift 2
	if py "$file" "$@"; then pass "$desc"; else fail "$desc: $(head -c 700 "$file")"; fi
}

# direct_or_not DEF FIELD: "direct" when --dry-run says hist takes FIELD straight from the context.
direct_or_not() {
	if kpt hist --dry-run "$1" "$2" 2>&1 | grep -q "^hist: $2 taken straight from the context"; then
		echo direct
	else
		echo generic
	fi
}

echo "# 1. negative values: buckets of their own, mirroring the positive side"
# values_target.c's svals, in its order: both ends of s64 and both sides of 0
SVALS="-9223372036854775808 -9223372036854775807 -4611686018427387905 -1025 -1024 -1000 -8 -7 -5
-4 -3 -2 -2 -1 -1 -1 0 0 1 2 3 4 1000 1024 4611686018427387905 9223372036854775807 9223372036854775807"
SV="$VT:kpt_sval"
for path in "p:d $SV v=%di:s64" "p:g $SV v=%di:s64 if v != 5"; do
	want=generic; [ "${path#p:d}" != "$path" ] && want=direct
	got=$(direct_or_not "$path" v)
	kpt hist --json -c "$VT svals" "$path" v > "$OUT/sv-$want.json" 2> "$OUT/sv-$want.err"
	jcheck "hist of s64 values ($want path: $got): every value in its mirrored bucket, sum/min/max/avg exact" \
		"$OUT/sv-$want.json" 'args[0] == args[1] and rows[0]["hist"] == want_hist([int(x) for x in args[2].split()])' \
		"$want" "$got" "$SVALS"
done
check "the direct and the generic path give the same signed histogram" \
	cmp -s "$OUT/sv-direct.json" <(sed 's/"event":"g"/"event":"d"/' "$OUT/sv-generic.json")

# The issue's reproduction, on a process whose opens are known: 7 x -ENOENT,
# 3 x -EISDIR, 2 x fd 3, through the tracepoint (direct) and with a filter.
OPENS="-2 -2 -2 -2 -2 -2 -2 -21 -21 -21 3 3"
TP=syscalls/sys_exit_openat
if [ -e $TR/events/$TP ]; then
	for path in "t:$TP" "t:$TP if ret != 12345"; do
		want=generic; [ "$path" = "t:$TP" ] && want=direct
		got=$(direct_or_not "$path" ret)
		kpt hist --json -c "$VT opens" "$path" ret > "$OUT/op-$want.json" 2> "$OUT/op-$want.err"
		jcheck "hist '$path' ret ($want path: $got): -ENOENT x 7 in (-4, -2], -EISDIR x 3 in (-32, -16], fd 3 x 2" \
			"$OUT/op-$want.json" 'args[0] == args[1] and rows[0]["hist"] == want_hist([int(x) for x in args[2].split()])' \
			"$want" "$got" "$OPENS"
	done
	kpt hist -c "$VT opens" "t:$TP" ret > "$OUT/op.txt" 2> "$OUT/op.err"
	check "the text rows: (-32, -16] 3, (-4, -2] 7, [-1] and [0] empty, [2, 4) 2; min -21" \
		bash -c "grep -Eq '^\(-32, -16\] +3 \|' $OUT/op.txt && grep -Eq '^\(-4, -2\] +7 \|' $OUT/op.txt &&
			 grep -Eq '^\[-1\] +0 \|' $OUT/op.txt && grep -Eq '^\[0\] +0 \|' $OUT/op.txt &&
			 grep -Eq '^\[2, 4\) +2 \|' $OUT/op.txt &&
			 grep -q '^count 12, sum -71, avg -5, min -21, max 3$' $OUT/op.txt"
else
	env_fault "no $TP tracepoint"
fi
# an unsigned value keeps log2's rows: no negative row, the same [0] as before
kpt hist --json -c "$VT svals" "p:u $SV v=%di:u8" v > "$OUT/u8.json" 2> "$OUT/u8.err"
jcheck "hist of the same values as u8: log2's buckets, from [0], none negative" "$OUT/u8.json" \
	'[b["min"] for b in rows[0]["hist"]["buckets"]] == [0, 1, 2, 4, 8, 16, 32, 64, 128] and rows[0]["hist"]["count"] == 27'

finish
