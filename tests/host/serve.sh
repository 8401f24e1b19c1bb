#!/usr/bin/env bash
# Host tests of kptrace serve (issue 20): a job file's jobs (uprobes on
# tests/host/everyday_target.c and tracepoints of its syscalls) scraped on
# loopback while the program makes known calls: the counters and every
# histogram bucket exact against the calls, the exposition clean for
# promtool, a real Prometheus server's queries equal to them, SIGHUP
# reloads that keep running jobs and refuse a bad file, bad job files
# reported at FILE:LINE:COLUMN, and SIGKILL leaving nothing attached.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/lib.sh

KPT=$(realpath "${KPT:-./kptrace}")
OUT=.output/tests/host/serve
rm -rf "$OUT"
mkdir -p "$OUT"
OUT=$(realpath "$OUT")
[ "$(id -u)" = 0 ] || skip_all "serve tests need root (BPF, uprobes)"
expect_checks 34
B=$OUT/everyday_target
gcc -O0 -g -static tests/host/everyday_target.c -o "$B" ||
	gcc -O0 -g tests/host/everyday_target.c -o "$B" ||
	{ echo "FAIL - cannot build tests/host/everyday_target.c"; exit 1; }

# get URL [ACCEPT]: the body on stdout, "HTTP STATUS CONTENT-TYPE" on fd 3
get() {
	python3 - "$@" <<'PY'
import sys, urllib.request, urllib.error
req = urllib.request.Request(sys.argv[1])
if len(sys.argv) > 2:
    req.add_header("Accept", sys.argv[2])
try:
    r = urllib.request.urlopen(req, timeout=10)
    body, st, ct = r.read(), r.status, r.headers.get("Content-Type", "")
except urllib.error.HTTPError as e:
    body, st, ct = e.read(), e.code, e.headers.get("Content-Type", "")
sys.stdout.buffer.write(body)
sys.stderr.write("HTTP %d %s\n" % (st, ct))
PY
}
# a free loopback port
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

VAL="p:$B:ev_val tag=%di:s32 v=%si:s64"
cat > "$OUT/jobs.kpt" <<EOF
# the test's jobs: ev_val(tag, v) of everyday_target's "values"
vals:   count '$VAL' --by tag
vhist:  hist '$VAL' v        # a signed log2 histogram
vfour:  hist '$VAL' v --le-every 4   # the same, one le in four
vsum:   count '$VAL' --by tag \\
              --sum v
opens:  count 't:syscalls/sys_enter_openat filename:ustring if filename == "/nonexistent/kptrace-everyday"'
never:  count 'p:$B:ev_end'         # not called: its 0 is there from the start
bounded: count '$VAL' --by v --max-keys 16   # 106 values: the rest overflow
bhist:  hist '$VAL' v --by v --max-keys 16   # the same, a histogram per key
naps:   latency --from 't:syscalls/sys_enter_clock_nanosleep' --to 't:syscalls/sys_exit_clock_nanosleep' --comm everyday_target
EOF

# --- the job file checked, good and bad -----------------------------------
kpt serve -f "$OUT/jobs.kpt" --check > "$OUT/check.out" 2> "$OUT/check.err"
check "serve --check: the file's 9 jobs, all good" grep -q ": 9 jobs, all good" "$OUT/check.out"
kpt serve -f docs/jobs.kpt --check > "$OUT/example.out" 2> "$OUT/example.err"
check "docs/jobs.kpt, the example job file: 4 jobs, all good" grep -q "docs/jobs.kpt: 4 jobs, all good" "$OUT/example.out"
if command -v systemd-analyze > /dev/null; then
	# the unit as make install writes it: ExecStart's path a binary that is there
	sed "s|/usr/sbin/kptrace|$KPT|" docs/kptrace.service > "$OUT/kptrace.service"
	systemd-analyze verify --man=no "$OUT/kptrace.service" > "$OUT/unit.out" 2>&1
	check "docs/kptrace.service: systemd-analyze verify finds nothing (exit $?)" \
		sh -c "[ ! -s '$OUT/unit.out' ]"
	sed 's/^/#   /' "$OUT/unit.out" | head -n 5
else
	skip "no systemd-analyze: docs/kptrace.service not verified"
fi
# bad JOBLINE WANT-REGEX: the message for a file of that one line, and where
bad() {
	printf '%s\n' "# a comment" "$1" > "$OUT/bad.kpt"
	KPT_RC=error kpt serve -f "$OUT/bad.kpt" --check > /dev/null 2> "$OUT/bad.err"
	grep -Eq "$2" "$OUT/bad.err" && grep -q '^ *\^$' "$OUT/bad.err"
}
check "a job in trace mode: refused at its word, line 2 column 7, with a caret" \
	bad "x:    'p:$B:ev_val'" "bad.kpt:2:7: error: .*hist, latency or count"
check "an option's bad value: at the word argp names (--unit xs)" \
	bad "y: latency $B:ev_val --unit xs" "bad.kpt:2:$((${#B} + 27)): error: --unit: 'xs' is not ns"
check "-c in a job: refused (a job traces every process)" \
	bad "z: count '$VAL' -c true" "bad.kpt:2:4: error: -c, -p and -t are for one run"
check "an unterminated quote: at the quote" bad "q: count 'p:x" "bad.kpt:2:10: error: .*quote"

# --- serving ---------------------------------------------------------------
PORT=$(free_port)
ue=$(cat /sys/kernel/tracing/uprobe_events 2>/dev/null)
timeout -k 5 300 $KPT serve -f "$OUT/jobs.kpt" --listen 127.0.0.1:$PORT 2> "$OUT/serve.err" &
SV=$!
if ! wait_for "grep -q 'serving http' '$OUT/serve.err'" 60; then
	fail "serve did not start: $(tail -c 600 "$OUT/serve.err")"
	kill $SV 2>/dev/null
	finish
fi
SVK=$(pgrep -P $SV | head -n 1)
get "http://127.0.0.1:$PORT/healthz" > "$OUT/healthz" 2> "$OUT/healthz.st"
check "/healthz: 200 ok once every job is attached" \
	sh -c "grep -q 'HTTP 200' '$OUT/healthz.st' && grep -qx ok '$OUT/healthz'"
"$B" values
"$B" opens
"$B" sleeps > "$OUT/sleeps.out"
get "http://127.0.0.1:$PORT/metrics" > "$OUT/m1.txt" 2> "$OUT/m1.st"
check "/metrics: text format 0.0.4" grep -q 'HTTP 200 text/plain; version=0.0.4' "$OUT/m1.st"
check "count --by tag: kptrace_vals_total per tag, exact (100, 11, 10)" python3 - "$OUT/m1.txt" <<'PY'
import re, sys
got = {m.group(1): int(m.group(2)) for m in re.finditer(r'^kptrace_vals_total\{probe="[^"]*",tag="(\d+)"\} (\d+)$', open(sys.argv[1]).read(), re.M)}
assert got == {"1": 100, "2": 11, "3": 10}, got
PY
check "hist v: every le bucket the exact count of values <= le, +Inf, _count and _sum" python3 - "$OUT/m1.txt" <<'PY'
import re, sys
vals = list(range(1, 101)) + list(range(-5, 6)) + [1000] * 10
text = open(sys.argv[1]).read()
b = re.findall(r'^kptrace_vhist_bucket\{probe="[^"]*",le="([^"]+)"\} (\d+)$', text, re.M)
assert len(b) > 60, len(b)
for le, n in b:
    want = len(vals) if le == "+Inf" else sum(1 for v in vals if v <= float(le))
    assert int(n) == want, (le, n, want)
assert re.search(r'^kptrace_vhist_count\{probe="[^"]*"\} 121$', text, re.M)
assert re.search(r'^kptrace_vhist_sum\{probe="[^"]*"\} 15050$', text, re.M)
PY
check "hist v --le-every 4: one le in four of vhist's, 0 among them, each count exact" python3 - "$OUT/m1.txt" <<'PY'
import re, sys
vals = list(range(1, 101)) + list(range(-5, 6)) + [1000] * 10
text = open(sys.argv[1]).read()
les = lambda job: [le for le in re.findall(r'^kptrace_%s_bucket\{probe="[^"]*",le="([^"]+)"\} \d+$' % job, text, re.M)]
fine, four = les("vhist"), les("vfour")
z = fine.index("0")
assert four == [le for i, le in enumerate(fine[:-1]) if abs(i - z) % 4 == 0] + ["+Inf"], four
for le, n in re.findall(r'^kptrace_vfour_bucket\{probe="[^"]*",le="([^"]+)"\} (\d+)$', text, re.M):
    want = len(vals) if le == "+Inf" else sum(1 for v in vals if v <= float(le))
    assert int(n) == want, (le, n, want)
PY
check "count --sum v (signed): the gauge kptrace_vsum_v per tag (5050, 0, 10000)" python3 - "$OUT/m1.txt" <<'PY'
import re, sys
got = {m.group(1): m.group(2) for m in re.finditer(r'^kptrace_vsum_v\{probe="[^"]*",tag="(\d+)"\} (\S+)$', open(sys.argv[1]).read(), re.M)}
assert got == {"1": "5050", "2": "0", "3": "10000"}, got
PY
check "a tracepoint's filtered count: kptrace_opens_total 3 (the missing path's opens)" \
	grep -Eq '^kptrace_opens_total\{probe="sys_enter_openat"\} 3$' "$OUT/m1.txt"
check "--max-keys 16 of 106 values: at most 16 series and __overflow__, 121 in all" python3 - "$OUT/m1.txt" <<'PY'
import re, sys
rows = re.findall(r'^kptrace_bounded_total\{probe="[^"]*",v="([^"]+)"\} (\d+)$', open(sys.argv[1]).read(), re.M)
keys = [v for v, n in rows if v != "__overflow__"]
over = [int(n) for v, n in rows if v == "__overflow__"]
assert 0 < len(keys) <= 16 and over and over[0] > 0, rows
assert sum(int(n) for _, n in rows) == 121, rows
PY
check "hist --by v --max-keys 16: at most 8 keys' series and __overflow__'s, 121 and 15050 in all" python3 - "$OUT/m1.txt" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
inf = re.findall(r'^kptrace_bhist_bucket\{probe="[^"]*",v="([^"]+)",le="\+Inf"\} (\d+)$', text, re.M)
sums = re.findall(r'^kptrace_bhist_sum\{probe="[^"]*",v="([^"]+)"\} (\S+)$', text, re.M)
keys = [v for v, n in inf if v != "__overflow__"]
over = [int(n) for v, n in inf if v == "__overflow__"]
assert 0 < len(keys) <= 8 and over and over[0] > 0, inf
assert sum(int(n) for _, n in inf) == 121, inf
assert sum(float(n) for _, n in sums) == 15050, sums
PY
check "a count nothing hit: its series, 0" grep -Eq '^kptrace_never_total\{probe="[^"]*"\} 0$' "$OUT/m1.txt"
check "latency --from/--to: 10 sleeps, 5 of them (2 ms) within le=0.016777215 s" python3 - "$OUT/m1.txt" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
b = dict(re.findall(r'^kptrace_naps_seconds_bucket\{probe="[^"]*",le="([^"]+)"\} (\d+)$', text, re.M))
assert b["+Inf"] == "10" and b["0.016777215"] == "5", b
s = float(re.search(r'^kptrace_naps_seconds_sum\{[^}]*\} (\S+)$', text, re.M).group(1))
assert 0.11 <= s < 1.0, s
PY
check "BPF run time and runs per job's program, the kernel's (vals: runs >= its 121 hits, time > 0)" python3 - "$OUT/m1.txt" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
runs = [int(v) for v in re.findall(r'^kptrace_bpf_runs_total\{kptrace_job="vals",program="[^"]*"\} (\d+)$', text, re.M)]
secs = [float(v) for v in re.findall(r'^kptrace_bpf_run_seconds_total\{kptrace_job="vals",program="[^"]*"\} (\S+)$', text, re.M)]
assert runs and sum(runs) >= 121 and sum(secs) > 0, (runs, secs)
PY
check "each probe's COST: its share of its program's time, > 0, no more than the job's programs'" \
	python3 - "$OUT/m1.txt" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
for job in ("vals", "vhist", "vsum"):
    p = [float(v) for v in re.findall(r'^kptrace_probe_bpf_run_seconds_total\{kptrace_job="%s",probe="[^"]*"\} (\S+)$' % job, text, re.M)]
    progs = [float(v) for v in re.findall(r'^kptrace_bpf_run_seconds_total\{kptrace_job="%s",program="[^"]*"\} (\S+)$' % job, text, re.M)]
    assert p and all(v > 0 for v in p) and sum(p) <= sum(progs) * 1.000001 + 1e-9, (job, p, progs)
PY
check "health: each probe's hits (ev_val's three jobs: 121 each)" \
	[ "$(grep -Ec '^kptrace_probe_hits_total\{kptrace_job="(vals|vhist|vsum)",probe="[^"]*"\} 121$' "$OUT/m1.txt")" = 3 ]
if command -v promtool > /dev/null; then
	promtool check metrics < "$OUT/m1.txt" > "$OUT/promtool.out" 2>&1
	check "promtool check metrics: no findings (exit $?)" \
		sh -c "[ ! -s '$OUT/promtool.out' ]"
	[ -s "$OUT/promtool.out" ] && sed 's/^/#   /' "$OUT/promtool.out" | head -n 20
else
	env_fault "no promtool (Debian's prometheus package)"
fi
get "http://127.0.0.1:$PORT/metrics" "application/openmetrics-text; version=1.0.0" > "$OUT/om.txt" 2> "$OUT/om.st"
check "OpenMetrics when asked: its content type, # TYPE without _total, # EOF last" \
	sh -c "grep -q 'HTTP 200 application/openmetrics-text' '$OUT/om.st' &&
		grep -qx '# TYPE kptrace_vals counter' '$OUT/om.txt' && [ \"\$(tail -n 1 '$OUT/om.txt')\" = '# EOF' ]"

# --- a real Prometheus scraping it -------------------------------------------
if command -v prometheus > /dev/null; then
	PP=$(free_port)
	cat > "$OUT/prom.yml" <<EOF
global: { scrape_interval: 1s }
scrape_configs:
  - job_name: kptrace
    static_configs: [ { targets: ['127.0.0.1:$PORT'] } ]
EOF
	timeout -k 5 240 prometheus --config.file="$OUT/prom.yml" --storage.tsdb.path="$OUT/tsdb" \
		--web.listen-address=127.0.0.1:$PP > "$OUT/prom.log" 2>&1 &
	PR=$!
	# query EXPR: the API's first value, or nothing
	query() {
		python3 - "http://127.0.0.1:$PP/api/v1/query" "$1" <<'PY'
import json, sys, urllib.parse, urllib.request
try:
    r = json.load(urllib.request.urlopen(sys.argv[1] + "?" + urllib.parse.urlencode({"query": sys.argv[2]}), timeout=5))
    print(r["data"]["result"][0]["value"][1])
except Exception:
    pass
PY
	}
	wait_for '[ -n "$(query "sum(kptrace_vals_total)")" ]' 90
	check "Prometheus: sum(kptrace_vals_total) is the 121 calls" [ "$(query 'sum(kptrace_vals_total)')" = 121 ]
	check "Prometheus: up{job=\"kptrace\"} is 1 (scraped without error)" [ "$(query 'up{job="kptrace"}')" = 1 ]
	q=$(query 'histogram_quantile(0.9, sum by (le) (kptrace_naps_seconds_bucket))')
	check "Prometheus: histogram_quantile(0.9) of the sleeps in the 20 ms ones' bucket ($q)" \
		python3 -c 'import sys; q = float(sys.argv[1]); assert 0.016777215 < q <= 0.033554431, q' "$q"
	kill $PR 2>/dev/null
	wait $PR 2>/dev/null
else
	env_fault "no prometheus (Debian's prometheus package)"
fi

# --- reload ------------------------------------------------------------------
# a new job added, vhist removed, the rest as they were: vals keeps its counts
{ grep -v '^vhist:' "$OUT/jobs.kpt"; echo "more: count '$VAL' --by tag"; } > "$OUT/jobs2.kpt"
cp "$OUT/jobs.kpt" "$OUT/jobs.orig"
cp "$OUT/jobs2.kpt" "$OUT/jobs.kpt"
kill -HUP $SVK
wait_for "grep -q 'jobs running$' <(grep -A3 SIGHUP '$OUT/serve.err')" 30
"$B" values
get "http://127.0.0.1:$PORT/metrics" > "$OUT/m2.txt" 2> "$OUT/m2.st"
check "SIGHUP: the kept job counts on (vals tag 1: 200), the new one from its start (100), vhist gone" \
	sh -c "grep -Eq '^kptrace_vals_total\{probe=\"[^\"]*\",tag=\"1\"\} 200$' '$OUT/m2.txt' &&
		grep -Eq '^kptrace_more_total\{probe=\"[^\"]*\",tag=\"1\"\} 100$' '$OUT/m2.txt' &&
		! grep -q '^kptrace_vhist' '$OUT/m2.txt' && grep -q '^kptrace_reloads_total 1$' '$OUT/m2.txt'"
printf 'vals: count %s --by tag\nbroken: trace\n' "'$VAL'" > "$OUT/jobs.kpt"
kill -HUP $SVK
wait_for "grep -q 'reload refused' '$OUT/serve.err'" 30
get "http://127.0.0.1:$PORT/metrics" > "$OUT/m3.txt" 2> "$OUT/m3.st"
check "SIGHUP with a bad file: refused at its line, said in a metric, every job goes on" \
	sh -c "grep -q 'jobs.kpt:2:9: error' '$OUT/serve.err' && grep -q '^kptrace_reload_failures_total 1$' '$OUT/m3.txt' &&
		grep -q '^kptrace_last_reload_success 0$' '$OUT/m3.txt' && grep -q '^kptrace_more_total' '$OUT/m3.txt' &&
		grep -q '^kptrace_jobs 9$' '$OUT/m3.txt'"

# --- bad clients: garbage, a stalled head, more connections than the limit ---
python3 - "$PORT" > "$OUT/clients.out" 2>&1 <<'PY'
import socket, sys
port = int(sys.argv[1])
def conn():
    return socket.create_connection(("127.0.0.1", port), timeout=15)
def answer(s):
    r = b""
    try:
        while True:
            d = s.recv(4096)
            if not d:
                break
            r += d
    except OSError:
        pass
    return r.split(b"\r\n")[0]
s = conn(); s.sendall(b"\x00\x01garbage\r\n\r\n")
print("garbage:", answer(s))
stall = conn(); stall.sendall(b"GET /metr")       # never finished
idle, busy = [], 0
for _ in range(200):                              # past the connection limit
    try:
        idle.append(conn())
    except OSError:
        busy += 1
# the limit's own answer to the ones past it, read without blocking on the rest
n503 = 0
for c in idle:
    c.settimeout(0.05)
    try:
        n503 += c.recv(64).startswith(b"HTTP/1.1 503")
    except OSError:
        pass
print("past the limit: %d answered 503, %d not connected" % (n503, busy))
for c in idle:
    c.close()
stall.close()
PY
# a request a byte a second: cut at the 10 s timeout (408), while scrapes
# beside it are answered (each well under the timeout: nothing waits on it)
python3 - "$PORT" > "$OUT/slow.out" 2>&1 <<'PY'
import socket, sys, threading, time, urllib.request
port = int(sys.argv[1])
res = {}
def slow():
    s = socket.create_connection(("127.0.0.1", port), timeout=30)
    t0, sent = time.time(), 0
    try:
        for b in b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"y" * 40:
            s.sendall(bytes([b]))
            sent += 1
            time.sleep(1)
            if time.time() - t0 > 20:
                break
    except OSError:
        pass
    s.settimeout(5)
    try:
        r = s.recv(4096)
    except OSError:
        r = b""
    res["slow"] = (round(time.time() - t0), sent, r.split(b"\r\n")[0])
t = threading.Thread(target=slow)
t.start()
worst = 0
for _ in range(12):
    t1 = time.time()
    urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=10).read()
    worst = max(worst, time.time() - t1)
    time.sleep(1)
t.join(40)
secs, sent, first = res.get("slow", (0, 0, b""))
print("slow client: cut after %d s, %d bytes sent, answered %r" % (secs, sent, first))
print("scrapes beside it: 12, the slowest %.2f s" % worst)
ok = 9 <= secs <= 16 and first in (b"HTTP/1.1 408 Request Timeout", b"") and worst < 5
sys.exit(0 if ok else 1)
PY
check "a client sending a byte a second: cut at the timeout; 12 scrapes beside it answered" \
	test $? = 0
sed 's/^/#   /' "$OUT/slow.out"
get "http://127.0.0.1:$PORT/healthz" > "$OUT/healthz2" 2> "$OUT/healthz2.st"
check "bad clients (garbage: 400; a stalled head; 200 connections, those past the limit 503): served after" \
	sh -c "grep -q \"garbage: b'HTTP/1.1 400\" '$OUT/clients.out' &&
		grep -Eq 'past the limit: [1-9][0-9]* answered 503' '$OUT/clients.out' &&
		grep -q 'HTTP 200' '$OUT/healthz2.st' && kill -0 $SVK"
sed 's/^/#   /' "$OUT/clients.out"

# --- SIGKILL leaves nothing attached ---------------------------------------------
# the control: the programs serve holds while it runs (its fdinfo's ids),
# each of them then gone once it is killed (the kernel frees a program a
# moment after its last fd goes)
held=$(held_by $SVK)
check "serve holds its jobs' programs while it runs (ids:$held)" [ -n "$held" ]
kill -KILL $SVK
wait $SV 2>/dev/null
wait_for "[ \"\$(cat /sys/kernel/tracing/uprobe_events 2>/dev/null)\" = \"\$ue\" ]" 10
check "SIGKILL: uprobe_events as before serve" [ "$(cat /sys/kernel/tracing/uprobe_events 2>/dev/null)" = "$ue" ]
wait_for "[ -z \"\$(still_loaded $held)\" ]" 10
left=$(still_loaded $held)
check "SIGKILL: no program serve held is left loaded (left:$left)" [ -z "$left" ]

# --- SIGTERM: a clean stop, judged (under ASan, LeakSanitizer's report too) ----------
PORT=$(free_port)
printf "vals: count '%s' --by tag\nvhist: hist '%s' v\n" "$VAL" "$VAL" > "$OUT/term.kpt"
timeout -k 5 120 $KPT serve -f "$OUT/term.kpt" --listen 127.0.0.1:$PORT 2> "$OUT/term.err" &
SV=$!
if wait_for "grep -q 'serving http' '$OUT/term.err'" 60; then
	"$B" values
	get "http://127.0.0.1:$PORT/metrics" > /dev/null 2>&1
	SVK=$(pgrep -P $SV | head -n 1)
	held=$(held_by $SVK)
	kill -TERM $SVK
	wait $SV
	rc=$?
	kpt_ubsan "$OUT/term.err" serve
	wait_for "[ -z \"\$(still_loaded $held)\" ]" 10
	check "SIGTERM: serve exits 0 and its programs (ids:$held) go (exit $rc, left:$(still_loaded $held))" \
		sh -c "[ $rc = 0 ] && [ -n '$held' ] && [ -z '$(still_loaded $held)' ]"
else
	fail "serve (for SIGTERM) did not start: $(tail -c 600 "$OUT/term.err")"
	kill $SV 2>/dev/null
fi
finish
