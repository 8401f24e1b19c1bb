#!/usr/bin/env bash
# Host tests of kptrace profile: a CPU clock on each CPU through a perf
# event, stacks counted in the kernel. tests/host/profile_target.c does
# three units of work in spin_a for each in spin_b: the sampled shares must
# be 75% and 25% within the tolerance below; --no-idle leaves the idle
# task out; --folded's samples are the program's CPU time (its rusage) at
# 999 a second.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/lib.sh

KPT=${KPT:-./kptrace}
OUT=.output/tests/host/profile
mkdir -p "$OUT"
OUT=$(realpath "$OUT")
[ "$(id -u)" = 0 ] || skip_all "host tests need root (BPF, perf events)"
expect_checks 9
B=$OUT/profile_target
# frame pointers in leaf functions too (Debian gcc omits them there by default)
gcc -O0 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -fno-inline \
	tests/host/profile_target.c -o "$B" ||
	{ echo "FAIL - cannot build tests/host/profile_target.c"; exit 1; }

# Shares: with about 2000 samples a share's binomial spread is one point;
# the tolerance is five, for the samples taken in neither function (the
# loop, the clock) and a timer's phase against the work units.
TOL=5
# The program under time(1): the CPU time the kernel accounted it (its
# rusage) times 999 is how many samples a 999 Hz clock takes of it.
kpt profile -F 999 -c "/usr/bin/time -f '%e %U %S' -o $OUT/p.time $B 2" --by ustack --folded \
	> "$OUT/p.folded" 2> "$OUT/p.err"
read -r a b total < <(awk '{n=$NF; t+=n; if ($0 ~ /;main;spin_a [0-9]+$/) a+=n; if ($0 ~ /;main;spin_b [0-9]+$/) b+=n}
	END {print a+0, b+0, t+0}' "$OUT/p.folded")
read -r _ user sys < "$OUT/p.time"
want=$(awk -v u="${user:-0}" -v s="${sys:-0}" 'BEGIN { printf "%d", (u + s) * 999 }')
check "profile -F 999 over 2 s of CPU: at least 1000 samples of the program (got $total)" \
	[ "$total" -ge 1000 ]
check "--folded's samples are the program's CPU time (rusage: ${user:-?} s user + ${sys:-?} s system) x 999 = $want, within 15% (got $total)" \
	[ "$want" -gt 0 -a $((total * 100)) -ge $((want * 85)) -a $((total * 100)) -le $((want * 115)) ]
pa=$(( total ? 100 * a / total : 0 ))
pb=$(( total ? 100 * b / total : 0 ))
check "spin_a's share is 75% +- $TOL (got $pa%: $a of $total)" \
	[ $pa -ge $((75 - TOL)) -a $pa -le $((75 + TOL)) ]
check "spin_b's share is 25% +- $TOL (got $pb%: $b of $total)" \
	[ $pb -ge $((25 - TOL)) -a $pb -le $((25 + TOL)) ]
check "each sample's stack is main's call of spin_a or spin_b, root first" \
	grep -qE '(^|;)main;spin_a [0-9]+$' "$OUT/p.folded"

# --no-idle: the idle task's samples left out, the busy program's kept
# (system-wide, -d bounding it; a positive control: the same run without it)
"$B" 3 & BUSY=$!
kpt profile -F 199 -d 1 --by comm > "$OUT/idle.out" 2> "$OUT/idle.err"
kpt profile -F 199 -d 1 --by comm --no-idle > "$OUT/noidle.out" 2> "$OUT/noidle.err"
kill $BUSY 2>/dev/null; wait $BUSY 2>/dev/null
check "profile --by comm (system-wide): the busy program's samples counted" \
	grep -qE '^ +[0-9]+  profile_target$' "$OUT/idle.out"
check "profile --no-idle: the busy program's samples still counted" \
	grep -qE '^ +[0-9]+  profile_target$' "$OUT/noidle.out"
check "profile --no-idle: no sample of the idle task (swapper)" \
	sh -c "! grep -q 'swapper' '$OUT/noidle.out'"

KPT_RC=64 kpt profile 'p:vfs_read' > /dev/null 2> "$OUT/r.err"
check "profile with a definition is refused, saying it takes none" grep -q 'takes no definitions' "$OUT/r.err"

finish
