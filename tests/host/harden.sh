#!/usr/bin/env bash
# Hardening on this machine's kernel, with uprobes on tests/host/target.c:
# exact loss accounting with the consumer stopped (SIGSTOP), 256 probes in
# one run and a low open-file limit, refusals without privilege, and -o
# never following a planted link or truncating someone else's file.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/lib.sh

KPT=$(realpath ./kptrace)
OUT=.output/tests/host/harden
rm -rf "$OUT"
mkdir -p "$OUT"
OUT=$(realpath "$OUT")
BIN=$OUT/target
gcc -O0 -fno-inline -no-pie -g tests/host/target.c -o "$BIN" || { echo "cannot build target"; exit 1; }
[ "$(id -u)" = 0 ] || skip_all "hardening tests need root (BPF, uprobes, setpriv)"

# kptrace's BPF programs (names kpt_*) and what tracefs lists: compared
# before and after each run ("nothing left attached").
kpt_state() {
	bpftool -j prog show 2>/dev/null | python3 -c '
import json, sys
print(" ".join(sorted(str(p["id"]) for p in json.load(sys.stdin) if p.get("name", "").startswith("kpt_"))))'
	cat /sys/kernel/tracing/uprobe_events /sys/kernel/tracing/kprobe_events 2>/dev/null
}
BASE=$(kpt_state)
nothing_left() {
	local now
	now=$(kpt_state)
	[ "$now" = "$BASE" ] || { echo "  (state now: $now; before: $BASE)"; return 1; }
}

# Field N of probe NAME's row in the exit profile (2 hits, 3 misses, 4 drops).
profile_field() {
	awk -v p="uprobes/$2" -v n="$3" '$1 == p { print $n }' "$1"
}

# kptrace on kpt_neg (once per round of the target) as probe NAME, into a
# 4 KiB ring buffer (about 50 records); once attached the shell function
# WORKLOAD runs ($kp: kptrace's pid), then SIGINT. Sets rc, delivered, drops.
small_ring() {
	local name=$1 workload=$2
	"$KPT" --buffer-size 4K -o "$OUT/$name.out" "p:$name $BIN:kpt_neg v=%di:s32" \
		2> "$OUT/$name.err" &
	kp=$!
	if wait_for "grep -q Attached $OUT/$name.err" 15; then
		$workload
		sleep 0.5
		kill -INT $kp
	fi
	wait $kp
	rc=$?
	delivered=$(grep -c " $name: (0x.* v=" "$OUT/$name.out")
	drops=$(profile_field "$OUT/$name.err" "$name" 4)
}

echo "# loss accounting with the consumer stopped"
# N rounds, N events into 4 KiB: the rest must be counted as dropped.
N=5000
stopped_consumer() {
	kill -STOP $kp
	"$BIN" $N clean
	kill -CONT $kp
	# the consumer checks the counters each second: give it two
	wait_for "grep -q 'events lost so far' $OUT/loss.err" 5
}
small_ring loss stopped_consumer
hits=$(profile_field "$OUT/loss.err" loss 2)
printed=$(sed -n 's/^\([0-9]*\) events printed.*/\1/p' "$OUT/loss.err")
lost_line=$(grep -c "^$printed events printed, $drops LOST (ring buffer full" "$OUT/loss.err")
# the warning while running: before the profile's header
warned=$(awk '/^PROBE /{exit} /events lost so far: the ring buffer was full/{n++} END{print n+0}' "$OUT/loss.err")
last_warned=$(awk '/^PROBE /{exit} /events lost so far/{v=$3} END{print v+0}' "$OUT/loss.err")
echo "  N=$N delivered=$delivered dropped=$drops hits=$hits printed=$printed warned=$warned (last said $last_warned)"
check "SIGSTOP: exit 0 after SIGCONT + SIGINT" test "$rc" = 0
check "SIGSTOP: delivered + dropped == N exactly ($delivered + ${drops:-?} == $N)" \
	test "$((delivered + ${drops:-0}))" = "$N"
check "SIGSTOP: some were delivered and some dropped (4 KiB buffer)" \
	test "$delivered" -gt 0 -a "${drops:-0}" -gt 0
check "SIGSTOP: hits == N and the summary's count == the lines written" \
	test "${hits:-x}:${printed:-x}" = "$N:$delivered"
check "SIGSTOP: a loss warning while running, with the exact count" \
	test "$warned" -ge 1 -a "$last_warned" = "${drops:-x}"
check "SIGSTOP: the exit summary says '$printed events printed, $drops LOST'" test "$lost_line" = 1
check "SIGSTOP: nothing left attached" nothing_left

echo "# a small ring read while it fills: records wrap past its end"
# 60 bursts of 10 (one process each, so the consumer keeps up) wrap the
# ring a dozen times, and each wrapping record is put back together
# (src/ringbuf.c) before the decoder holds it to the record ABI (a bad one
# is "malformed").
bursts() { for i in $(seq 1 60); do "$BIN" 10 clean > /dev/null; done; }
small_ring wrap bursts
check "4 KiB ring: delivered + dropped == 600 ($delivered + ${drops:-?}), rc $rc" \
	test "$rc:$((delivered + ${drops:-0}))" = "0:600"
check "4 KiB ring: wrapped many times ($delivered records), none malformed" \
	test "$delivered" -ge 300 -a "$(grep -c malformed "$OUT/wrap.err")" = 0

echo "# 256 probes in one run"
# One round of the target calls kpt_args6, kpt_args8 and kpt_neg once,
# kpt_struct twice (with NULL) and kpt_str three times; R rounds.
R=3
funcs=(kpt_args6 kpt_args8 kpt_struct kpt_str kpt_neg)
per_round=(1 1 2 3 1)
: > "$OUT/many.defs"
declare -A want
for i in $(seq 0 255); do
	f=$((i % 5))
	kind=p
	[ $((i % 4)) = 3 ] && kind=r
	if [ $kind = r ]; then args='ret=$retval:s64'; else args="a=%di:x64 b=%si:u32"; fi
	echo "$kind:m$i $BIN:${funcs[$f]} $args" >> "$OUT/many.defs"
	want[m$i]=$((per_round[f] * R))
done
"$KPT" -f "$OUT/many.defs" -c "$BIN $R" > "$OUT/many.out" 2> "$OUT/many.err"
rc=$?
bad=0
total=0
for i in $(seq 0 255); do
	lines=$(grep -c " m$i: (" "$OUT/many.out")
	hits=$(profile_field "$OUT/many.err" m$i 2)
	total=$((total + lines))
	if [ "$lines:$hits" != "${want[m$i]}:${want[m$i]}" ]; then
		[ $bad -lt 5 ] && echo "  m$i: $lines lines, ${hits:-no} hits, want ${want[m$i]}"
		bad=$((bad + 1))
	fi
done
check "256 probes: exit 0 ($(grep -m1 Attached "$OUT/many.err"))" test "$rc" = 0
check "256 probes: every probe's lines and hits are exact ($total lines; $bad probes wrong)" \
	test "$bad" = 0
check "256 probes: nothing left attached after exit" nothing_left

# A low open-file limit: refused before anything is loaded, naming the limit.
bash -c "ulimit -n 20; exec '$KPT' -f '$OUT/many.defs' -c '$BIN 1'" > /dev/null 2> "$OUT/nofile.err"
rc=$?
check "ulimit -n 20: exit $rc (non-zero, not a signal)" test "$rc" -ne 0 -a "$rc" -lt 128
check "ulimit -n 20: the message names the open-file limit: $(head -c 160 "$OUT/nofile.err")" \
	grep -q 'open-file limit (ulimit -n) is 20; raise it' "$OUT/nofile.err"
check "ulimit -n 20: nothing attached" bash -c "! grep -q Attaching '$OUT/nofile.err'"
check "ulimit -n 20: nothing left loaded" nothing_left
# A soft limit below the need with a hard limit above it: raised, and runs.
# (100 probes: detaching uprobes costs this kernel about 0.13 s each)
head -n 100 "$OUT/many.defs" > "$OUT/soft.defs"
want100=0
for i in $(seq 0 99); do want100=$((want100 + want[m$i] / R)); done
bash -c "ulimit -Hn 4096; ulimit -Sn 64; exec '$KPT' -f '$OUT/soft.defs' -c '$BIN 1'" \
	> "$OUT/soft.out" 2> "$OUT/soft.err"
rc=$?
got=$(grep -c ' m[0-9]*: (' "$OUT/soft.out")
check "soft limit 64, hard 4096: raised, 100 probes run (exit $rc, $got of $want100 lines)" \
	test "$rc:$got" = "0:$want100"

echo "# privilege"
nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
cp "$KPT" "$OUT/kptrace"
chmod 755 "$OUT" "$OUT/kptrace"
nobody "$OUT/kptrace" -d 1 "p:np $BIN:kpt_neg" > /dev/null 2> "$OUT/nobody.err"
rc=$?
check "unprivileged: exit $rc (non-zero, not a signal)" test "$rc" -ne 0 -a "$rc" -lt 128
check "unprivileged: names the missing capabilities: $(head -c 120 "$OUT/nobody.err")" \
	grep -q 'lacks CAP_BPF and CAP_PERFMON.*or CAP_SYS_ADMIN' "$OUT/nobody.err"
check "unprivileged: nothing attached" nothing_left
nobody --inh-caps=+bpf --ambient-caps=+bpf "$OUT/kptrace" -d 1 "p:np $BIN:kpt_neg" \
	> /dev/null 2> "$OUT/bpfonly.err"
rc=$?
check "CAP_BPF alone: exit $rc, names CAP_PERFMON only" \
	bash -c "[ $rc = 1 ] && grep -q 'lacks CAP_PERFMON:' '$OUT/bpfonly.err'"
nobody "$OUT/kptrace" --dry-run "p:np $BIN:kpt_neg v=%di:s32" > "$OUT/nobody-dry.out" 2>&1
check "unprivileged --dry-run still explains (no privilege needed)" \
	grep -q '^print fmt:' "$OUT/nobody-dry.out"

echo "# -o: no planted links, no predictable paths"
D=$OUT/odir
mkdir -p "$D"
echo precious > "$D/victim"
ln -s "$D/victim" "$D/link"
"$KPT" -o "$D/link" -c "$BIN 1" "p:o $BIN:kpt_neg" > /dev/null 2> "$OUT/olink.err"
rc=$?
check "-o SYMLINK: refused (exit $rc) with a clear message" \
	bash -c "[ $rc = 1 ] && grep -q 'refusing to write events to $D/link: it is a symbolic link' '$OUT/olink.err'"
check "-o SYMLINK: the link's target is untouched" test "$(cat "$D/victim")" = precious
check "-o SYMLINK: refused before attaching anything" \
	bash -c "! grep -q Attaching '$OUT/olink.err'"
ln -s "$D/nonexistent" "$D/dangling"
"$KPT" -o "$D/dangling" -c "$BIN 1" "p:o $BIN:kpt_neg" > /dev/null 2> "$OUT/odang.err"
check "-o dangling SYMLINK: refused, nothing created through it" \
	bash -c "[ $? = 1 ] && [ ! -e '$D/nonexistent' ] && grep -q 'symbolic link' '$OUT/odang.err'"
ln "$D/victim" "$D/hardlink"
"$KPT" -o "$D/hardlink" -c "$BIN 1" "p:o $BIN:kpt_neg" > /dev/null 2> "$OUT/ohard.err"
check "-o HARDLINK: refused, the other name's content untouched" \
	bash -c "[ $? = 1 ] && grep -q 'other hard links' '$OUT/ohard.err' && [ \"\$(cat '$D/victim')\" = precious ]"
# A file planted by another user in a sticky world-writable directory (/tmp).
S=$OUT/sticky
mkdir -p "$S" && chmod 1777 "$S"
echo planted > "$S/out" && chown 65534:65534 "$S/out"
"$KPT" -o "$S/out" -c "$BIN 1" "p:o $BIN:kpt_neg" > /dev/null 2> "$OUT/oplant.err"
check "-o a file of another user in a sticky directory: refused, not truncated" \
	bash -c "[ $? = 1 ] && grep -q 'belongs to another user' '$OUT/oplant.err' && [ \"\$(cat '$S/out')\" = planted ]"
rm -f "$D/new"
"$KPT" -o "$D/new" -c "$BIN 2" "p:o $BIN:kpt_neg" > /dev/null 2> "$OUT/onew.err"
check "-o NEWFILE: created 0600 with the events ($(stat -c %a "$D/new" 2>/dev/null), $(grep -c ' o: (' "$D/new" 2>/dev/null) lines)" \
	test "$(stat -c %a "$D/new" 2>/dev/null):$(grep -c ' o: (' "$D/new" 2>/dev/null)" = "600:2"
printf 'old content that is longer than the events\n%.0s' $(seq 100) > "$D/mine"
"$KPT" -o "$D/mine" -c "$BIN 1" "p:o $BIN:kpt_neg" > /dev/null 2> "$OUT/omine.err"
check "-o an existing file of ours: truncated and rewritten" \
	test "$(grep -c . "$D/mine")" = 1
"$KPT" -o /dev/null -c "$BIN 1" "p:o $BIN:kpt_neg" > /dev/null 2> "$OUT/onull.err"
check "-o /dev/null (a device) still works" test $? = 0
# kptrace never makes a file of its own in a shared directory: no such path,
# and no temporary-file call, in its sources.
check "no /tmp path, mkstemp, tmpfile or tmpnam in src/" \
	bash -c "! grep -nE '\"/tmp|\\b(mkstemp|mkostemp|tmpfile|tmpnam|tempnam)\\(' src/*.c src/*.h"
check "-o: nothing left attached after all of it" nothing_left

finish
