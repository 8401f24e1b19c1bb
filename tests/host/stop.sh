#!/usr/bin/env bash
# Host tests of a run's end: -d's tables are the deadline's and a signal's
# the signal's, however long the kernel takes to detach (one RCU grace
# period per tracepoint: 360 sys_enter_ tracepoints took 21 s, counting all
# along); kptrace returns without waiting for that, a child process closing
# the links (their time is bench/'s); a stream prints nothing from after the
# deadline; the exit profile's table over a glob. The references are the
# workload's (tests/host/stop_target.c): system calls at rates known by
# construction, or a count it made before it sent the signal itself.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/lib.sh

KPT=${KPT:-./kptrace}
OUT=.output/tests/host/stop
rm -rf "$OUT"
mkdir -p "$OUT"
OUT=$(realpath "$OUT")
[ "$(id -u)" = 0 ] || skip_all "host tests need root (BPF, tracepoints)"
[ -d /sys/kernel/tracing/events/syscalls ] || skip_all "no syscalls tracepoints in tracefs"
expect_checks 14
T=$OUT/stop_target
gcc -O2 -Wall tests/host/stop_target.c -o "$T" || { echo "FAIL - cannot build stop_target"; exit 1; }
GLOB='t:syscalls/sys_enter_*'
# The workload under SCHED_FIFO where it can be: its pacing is the
# reference, and a shared machine's load would otherwise hold it off for
# longer than 5% of a window (a catch-up after the deadline)
FIFO=
chrt -f 1 true 2>/dev/null && FIFO="chrt -f 1"
# within GOT WANT PCT: GOT is WANT to PCT percent
within() { awk -v g="$1" -v w="$2" -v p="$3" 'BEGIN { d = g - w; exit (d < 0 ? -d : d) > w * p / 100 }'; }
# at_most X MAX: 0 < X <= MAX
at_most() { awk -v x="$1" -v m="$2" 'BEGIN { exit !(x > 0 && x <= m) }'; }
# holders IDS...: the names of the processes holding programs IDS, once each
holders() {
	local f id p
	for id in "$@"; do
		for f in $(grep -lx "prog_id:[[:space:]]*$id" /proc/[0-9]*/fdinfo/* 2>/dev/null); do
			p=${f#/proc/}
			cat /proc/${p%%/*}/comm 2>/dev/null
		done
	done | sort -u | tr '\n' ' ' | sed 's/ $//'
}
# count_of OUT SYSCALL: the count table's row of syscalls/sys_enter_SYSCALL (0: none)
count_of() { awk -v p="syscalls/sys_enter_$2" '$2 == p { n = $1 } END { print n + 0 }' "$1"; }

echo "# count -d 3 over $GLOB: each count the workload's rate times 3 s"
# the workload runs before, through and after the run (-p: its calls alone)
$FIFO "$T" rates 60 & W=$!
sleep 0.3
ids= left= by=
if kpt_bg "$OUT/d3.err" count -d 3 -p $W "$GLOB" > "$OUT/d3.out"; then
	ids=$(held_by $KP)
	wait $KP
	RC=$?
	left=$(still_loaded $ids)
	by=$(holders $left)
	kpt_judge $RC count -d 3 -p $W "$GLOB"
fi
kill $W 2>/dev/null; wait $W 2>/dev/null
# 3 s of each rate: getppid 3000/s, getpgid 1000/s, the loop's
# clock_nanosleep 1000/s, getsid 250/s, sched_get_priority_max 100/s
for pair in getppid:9000 getpgid:3000 clock_nanosleep:3000 getsid:750 sched_get_priority_max:300; do
	sc=${pair%:*} want=${pair#*:}
	got=$(count_of "$OUT/d3.out" $sc)
	check "count -d 3: sys_enter_$sc $got, the workload's $want within 5%" within "$got" "$want" 5
done
# kptrace returned without waiting out the kernel's detach: its program
# still loaded then, held by the kptrace-detach process alone, which lets
# it go by itself (bounded: 360 grace periods took 21 s here)
check "count -d 3 over 360 tracepoints returned before the kernel detached them: program${left:- (none)} held by '$by'" \
	test -n "$left" -a "$by" = kptrace-detach
for i in $(seq 1 1200); do
	[ -z "$(still_loaded $ids)" ] && break
	sleep 0.1
done
check "... and kptrace-detach let them go (still loaded:$(still_loaded $ids))" test -z "$(still_loaded $ids)"

echo "# SIGINT: the count is the workload's before it sent the signal"
# The workload sends kptrace SIGINT after 2000 getppid (one a millisecond),
# then makes 3000 more, which must not be counted. A second signal would be
# kptrace's "exit now": none is sent (not kpt_stop).
rm -f "$OUT/fifo"
mkfifo "$OUT/fifo"
$FIFO "$T" signal "$OUT/fifo" 2000 3000 > "$OUT/sig.target" & W=$!
if kpt_bg "$OUT/sig.err" count -p $W "$GLOB" > "$OUT/sig.out"; then
	echo "$KP_KPT" > "$OUT/fifo"
	wait $KP
	RC=$?
	kpt_judge $RC count -p $W "$GLOB"
else
	echo 0 > "$OUT/fifo"
fi
wait $W
got=$(count_of "$OUT/sig.out" getppid)
check "SIGINT after the workload's 2000 getppid: counted $got (2000, or a call or two it made before kptrace's handler ran)" \
	test "$got" -ge 2000 -a "$got" -le 2005

echo "# a stream -d 2: nothing from after the deadline"
$FIFO "$T" rates 60 & W=$!
sleep 0.3
kpt -d 2 -p $W "$GLOB" > "$OUT/s1.out" 2> "$OUT/s1.err"
kill $W 2>/dev/null; wait $W 2>/dev/null
got=$(grep -c ' sys_enter_getppid: ' "$OUT/s1.out")
check "stream -d 2: $got getppid lines, the workload's 6000 within 5%" within "$got" 6000 5
span=$(awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { t = $i + 0; break }
	     if (!n++) first = t; last = t } END { printf "%.3f", last - first }' "$OUT/s1.out")
check "stream -d 2: its events span the 2 s, to 5% (first to last: $span s)" \
	at_most "$span" 2.1

echo "# the exit profile over the glob"
# d3.err: most of the 360 probes never fired (-p), sched_get_priority_max's
# name is longer than the 32 columns the table began with
check "the profile's rows: the probes that fired, most hits first ($(awk '/^PROBE /{p=1; next} p && /^syscalls/{n++} END{print n+0}' "$OUT/d3.err") rows)" \
	python3 - "$OUT/d3.err" <<'PY'
import sys
lines = open(sys.argv[1]).read().splitlines()
i = next(i for i, l in enumerate(lines) if l.startswith("PROBE "))
rows = [l.split() for l in lines[i + 1:] if l.startswith("syscalls/")]
hits = [int(r[1]) for r in rows]
assert rows and all(h > 0 for h in hits) and hits == sorted(hits, reverse=True), hits
assert any(r[0] == "syscalls/sys_enter_sched_get_priority_max" for r in rows), rows
PY
check "the never-fired: one line with their count, one for those that fired in other tasks only, which with the rows make 360" \
	python3 - "$OUT/d3.err" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
n = int(re.search(r"'syscalls/sys_enter_\*': (\d+) tracepoints", "\n".join(lines)).group(1))
i = next(i for i, l in enumerate(lines) if l.startswith("PROBE "))
rows = [l for l in lines[i + 1:] if l.startswith("syscalls/")]
never = [l for l in lines if l.startswith("never fired: ")]
others = [l for l in lines if l.startswith("fired only in tasks not traced: ")]
assert len(never) == 1 and len(others) <= 1, (never, others)
counts = [int(re.match(r"[^:]*: (\d+) probe", l).group(1)) for l in never + others]
assert sum(counts) + len(rows) == n, (never, others, len(rows), n)
PY
check "the columns aligned: each row's HITS ends where the header's does, the long name too" \
	python3 - "$OUT/d3.err" <<'PY'
import sys
lines = open(sys.argv[1]).read().splitlines()
i = next(i for i, l in enumerate(lines) if l.startswith("PROBE "))
head = lines[i]
end = head.index("HITS") + 4
rows = [l for l in lines[i + 1:] if l.startswith("syscalls/")]
bad = [l for l in rows if not l[:end].rstrip().endswith(l.split()[1]) or l[end:end + 1] != " "]
assert rows and not bad, bad[:3]
PY

# --json: the profile line keeps every probe, the never-fired too
$FIFO "$T" rates 60 & W=$!
kpt count --json -d 1 -p $W "$GLOB" > /dev/null 2> "$OUT/j.err"
kill $W 2>/dev/null; wait $W 2>/dev/null
check "--json profile: every one of the 360 probes, those with no hits too" \
	python3 - "$OUT/j.err" <<'PY'
import json, re, sys
text = open(sys.argv[1]).read()
n = int(re.search(r"'syscalls/sys_enter_\*': (\d+) tracepoints", text).group(1))
prof = [json.loads(l) for l in text.splitlines() if l.startswith('{"type":"profile"')][0]
assert len(prof["probes"]) == n and any(p["hits"] == 0 for p in prof["probes"]), len(prof["probes"])
PY

finish
