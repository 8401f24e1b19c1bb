#!/usr/bin/env bash
# make soak-serve (not in make test): kptrace serve scraped every second and
# its job file reloaded every minute (a job added, then removed again) for
# SOAK_SECONDS (default 1800) while everyday_target makes known calls each
# second. Checks that every counter of the kept jobs is monotonic, that the
# kept job's count is exactly the calls made, and that the RSS after the
# first minute stays within 1 MB.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/lib.sh

KPT=$(realpath "${KPT:-./kptrace}")
SECS=${SOAK_SECONDS:-1800}
OUT=.output/tests/host/soak-serve
rm -rf "$OUT"
mkdir -p "$OUT"
OUT=$(realpath "$OUT")
[ "$(id -u)" = 0 ] || skip_all "serve needs root (BPF, uprobes)"
expect_checks 3
B=$OUT/everyday_target
gcc -O0 -g -static tests/host/everyday_target.c -o "$B" ||
	{ echo "FAIL - cannot build tests/host/everyday_target.c"; exit 1; }
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
VAL="p:$B:ev_val tag=%di:s32 v=%si:s64"
cat > "$OUT/base.kpt" <<EOF
vals:  count '$VAL' --by tag
vhist: hist '$VAL' v
naps:  latency --from 't:syscalls/sys_enter_clock_nanosleep' --to 't:syscalls/sys_exit_clock_nanosleep'
EOF
cp "$OUT/base.kpt" "$OUT/jobs.kpt"
timeout -k 5 $((SECS + 120)) $KPT serve -f "$OUT/jobs.kpt" --listen 127.0.0.1:$PORT \
	2> "$OUT/serve.err" &
SV=$!
wait_for "grep -q 'serving http' '$OUT/serve.err'" 60 || { fail "serve did not start"; finish; }
SVK=$(pgrep -P $SV | head -n 1)
python3 - "$PORT" "$SECS" "$B" "$OUT" "$SVK" "$VAL" > "$OUT/soak.out" 2>&1 <<'PY'
import os, re, signal, subprocess, sys, time, urllib.request
port, secs, b, out, pid, val = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4], int(sys.argv[5]), sys.argv[6]
base = open(out + "/base.kpt").read()
sample = re.compile(r'^(kptrace_(?:vals|vhist)\S*) (\d+)$', re.M)
last, rss, calls, bad, reloads = {}, [], 0, [], 0
t0 = time.time()
n = 0
while time.time() - t0 < secs:
    n += 1
    subprocess.run([b, "values"], check=True)
    calls += 1
    text = urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=10).read().decode()
    for name, v in sample.findall(text):
        v = int(v)
        if v < last.get(name, 0):
            bad.append("%s went from %d to %d at scrape %d" % (name, last[name], v, n))
        last[name] = v
    m = re.search(r'^process_resident_memory_bytes (\d+)$', text, re.M)
    rss.append((time.time() - t0, int(m.group(1))))
    if n % 60 == 0:
        # every minute: a job added, or the one added removed
        extra = "" if (n // 60) % 2 == 0 else "more: count '%s' --by tag\n" % val
        open(out + "/jobs.kpt", "w").write(base + extra)
        os.kill(pid, signal.SIGHUP)
        reloads += 1
    time.sleep(max(0, n - (time.time() - t0)))
tag1 = last.get('kptrace_vals_total{probe="p_everyday_ev_val_0",tag="1"}')
steady = [r for t, r in rss if t >= 60] or [r for _, r in rss]
print("scrapes %d, reloads %d, calls %d, vals tag 1 %s, RSS %d..%d kB after the first minute" %
      (n, reloads, calls, tag1, min(steady) // 1024, max(steady) // 1024))
print("monotonic: %s" % ("yes" if not bad else "; ".join(bad[:5])))
print("exact: %s" % ("yes" if tag1 == calls * 100 else "no: %s of %d" % (tag1, calls * 100)))
print("rss-flat: %s" % ("yes" if max(steady) - min(steady) <= 1 << 20 else "no"))
PY
cat "$OUT/soak.out" | sed 's/^/# /'
check "every counter of the kept jobs monotonic over the soak" grep -q '^monotonic: yes' "$OUT/soak.out"
check "the kept job's count exactly the calls made" grep -q '^exact: yes' "$OUT/soak.out"
check "RSS within 1 MB after the first minute" grep -q '^rss-flat: yes' "$OUT/soak.out"
kill -TERM $SVK 2>/dev/null
wait $SV
finish
