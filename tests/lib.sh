# Shared shell test helpers: counts, the closing "N passed, N failed" line,
# and the one way a suite runs kptrace (kpt, kpt_bg, kpt_stop).
PASSED=0
FAILED=0
SKIPPED=0
EXPECTED=0

# What goes wrong in a kptrace run is appended to $KPT_PROBLEMS, one line
# each, and counted by finish(): a run inside $(...) or a pipeline is a
# subshell, whose own counters would be lost.
KPT_PROBLEMS=$(mktemp /tmp/kpt-problems.XXXXXX)
# ASan's and LSan's reports go to files of their own (whatever the test does
# with stderr, and also from runs that expect a refusal); finish() fails on
# any. UBSan, built in with ASan, writes to stderr all the same: kpt and
# kpt_stop read its "runtime error" lines there.
KPT_SANDIR=$(mktemp -d /tmp/kpt-san.XXXXXX)
export ASAN_OPTIONS="log_path=$KPT_SANDIR/asan:exitcode=99${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="log_path=$KPT_SANDIR/ubsan:print_stacktrace=1:exitcode=99${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
export LSAN_OPTIONS="exitcode=99${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

pass() { PASSED=$((PASSED + 1)); echo "ok - $*"; }
fail() { FAILED=$((FAILED + 1)); echo "FAIL - $*"; }
skip() { SKIPPED=$((SKIPPED + 1)); echo "skip - $*"; }
problem() { echo "$*" >> "$KPT_PROBLEMS"; }

# check DESC CMD...: pass when CMD succeeds.
check() {
	local desc=$1; shift
	if "$@"; then pass "$desc"; else fail "$desc"; fi
}

# wait_for 'shell condition' SECONDS: poll, bounded.
wait_for() {
	local cond=$1 secs=$2 i
	for i in $(seq 1 $((secs * 10))); do
		eval "$cond" && return 0
		sleep 0.1
	done
	return 1
}

# expect_checks N: the suite runs at least N checks; finish() fails when
# fewer ran (a loop that silently ran nothing, a section cut short).
expect_checks() { EXPECTED=$1; }

# make test (KPT_STRICT=1) runs as root on a machine that has what the
# suites need: a missing piece of the environment there is a failure with
# its reason, elsewhere a skip.
env_fault() {
	if [ "${KPT_STRICT:-0}" = 1 ]; then fail "environment: $*"; else skip "$*"; fi
}

skip_all() {
	if [ "${KPT_STRICT:-0}" = 1 ]; then
		echo "FAIL - environment: $*"
		echo "0 passed, 1 failed, 0 skipped"
		exit 1
	fi
	echo "skip - $*"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
}

# KPT_TIMEOUT bounds every run: a kptrace that hangs fails its suite instead
# of hanging it.
KPT_TIMEOUT=${KPT_TIMEOUT:-60}

# kpt_judge RC ARGS...: record a run whose exit status is not what KPT_RC
# asks for: 0 (the default), a number, or "error" (a refusal: exit 1, as
# kptrace exits on every error but a usage error, argp's 64; never a signal
# or a sanitizer's 99).
kpt_judge() {
	local rc=$1 want=${KPT_RC:-0}; shift
	if [ "$rc" = "$want" ]; then
		return 0
	elif [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		problem "kptrace did not end within ${KPT_TIMEOUT}s (killed): kptrace $*"
	elif [ "$want" = error ]; then
		[ "$rc" = 1 ] || problem "kptrace exit $rc, want 1 (a refusal): kptrace $*"
	else
		problem "kptrace exit $rc, want $want: kptrace $*"
	fi
}

# kpt ARGS...: $KPT ARGS in the foreground, bounded, its status judged.
# Returns kptrace's exit status.
kpt() {
	local rc err
	err=$(mktemp /tmp/kpt-err.XXXXXX)
	# stderr to a file, passed on after: a pipe (tee) would be held open by
	# whatever -c's command leaves running, and wait for it without bound
	timeout -k 5 "$KPT_TIMEOUT" $KPT "$@" 2> "$err"
	rc=$?
	cat "$err" >&2
	kpt_judge $rc "$@"
	kpt_ubsan "$err" "$@"
	rm -f "$err"
	return $rc
}

# kpt_ubsan ERRFILE ARGS...: record UBSan's reports in a run's stderr.
kpt_ubsan() {
	local f=$1; shift
	grep -q 'runtime error:' "$f" 2>/dev/null &&
		problem "UBSan: $(grep -m1 'runtime error:' "$f" | cut -c1-300): kptrace $*"
	return 0
}

# by_key FILE KEY: "value:count ..." of count --json rows, summed by KEY's
# value (numbers in their order, names in theirs).
by_key() {
	python3 - "$1" "$2" <<'EOF'
import json, sys
c = {}
for l in open(sys.argv[1]):
    if l.strip():
        r = json.loads(l)
        k = r["key"][sys.argv[2]]
        c[k] = c.get(k, 0) + r["count"]
num = all(str(k).isdigit() for k in c)
print(" ".join("%s:%d" % (k, c[k]) for k in sorted(c, key=lambda x: int(x) if num else x)))
EOF
}

# kpt_nr_bpf: NR_BPF, bpf(2)'s number here, for the checks of kptrace's
# own calls (kpt_bpf_calls' filter and its callers' probes), computed once.
kpt_nr_bpf() {
	[ -n "${NR_BPF:-}" ] || NR_BPF=$(printf '#include <sys/syscall.h>\nSYS_bpf\n' | gcc -E -P - | tail -n 1)
}

# kpt_bpf_calls EVENT ERR ARGS...: kpt_bg ERR ARGS (stdout the caller's)
# until it ends, a second kptrace run beside it (the control), while a
# tracefs instance keeps the kernel's own raw_syscalls/EVENT of bpf(2):
# BPF_OWN the first kptrace's there, BPF_OTHERS everyone else's. Returns 1,
# nothing run, without such an event or instance.
kpt_bpf_calls() {
	local ev=$1 err=$2 si=/sys/kernel/tracing/instances/kpt_bpf_calls me all
	shift 2
	rmdir "$si" 2> /dev/null
	{ [ -e /sys/kernel/tracing/events/raw_syscalls/$ev ] && mkdir "$si"; } || return 1
	kpt_nr_bpf
	echo "id == $NR_BPF" > "$si/events/raw_syscalls/$ev/filter"
	echo 1 > "$si/events/raw_syscalls/$ev/enable"
	kpt_bg "$err" "$@"
	me=$KP_KPT
	$KPT count -d 1 't:sched/sched_process_exec' > /dev/null 2>&1
	wait $KP
	echo 0 > "$si/events/raw_syscalls/$ev/enable"
	BPF_OWN=$(grep -c -- "-${me:-x} *\[" "$si/trace")
	all=$(grep -c " $ev: " "$si/trace")
	BPF_OTHERS=$((all - BPF_OWN))
	rmdir "$si"
}

# kpt_bg ERRFILE ARGS...: $KPT ARGS in the background, stderr to ERRFILE,
# stdout where the caller sends it; KP is its pid (timeout's, which passes
# signals on; KP_KPT is kptrace's own). Waits, bounded, for "Attached";
# returns non-zero (recorded) when kptrace died or never attached.
kpt_bg() {
	local err=$1; shift
	rm -f "$err"
	KP_ERR=$err
	KP_ARGS="$*"
	timeout -k 5 "$KPT_TIMEOUT" $KPT "$@" 2> "$err" &
	KP=$!
	KP_KPT=
	local i
	for i in $(seq 1 200); do
		grep -q '^Attached' "$err" 2>/dev/null && break
		kill -0 $KP 2>/dev/null || break
		sleep 0.1
	done
	KP_KPT=$(pgrep -P $KP 2>/dev/null | head -n 1)
	if ! grep -q '^Attached' "$err" 2>/dev/null; then
		problem "kptrace did not attach within 20 s: kptrace $KP_ARGS: $(head -c 400 "$err")"
		return 1
	fi
	return 0
}

# ---- kptrace's BPF programs, by id (bpftool's list, /proc's fdinfo) ----
# The kptrace programs loaded now (ids), which of them a process holds
# (its program, link and perf event fds name them), and which of the ids
# given are still loaded: "nothing left" is about this suite's kptrace
# (other kptraces may be running: theirs are held by a live process). The
# kernel frees a program once its last reference goes, which can lag the
# process's exit: waited for, bounded.
prog_ids() {
	bpftool -j prog show 2>/dev/null | python3 -c '
import json, sys
print(" ".join(str(p["id"]) for p in json.load(sys.stdin) if p.get("name", "").startswith("kpt_")))'
}
# held_by PID: the kptrace programs PID and its descendants hold (a
# wrapper's child: KPT may be a script)
held_by() {
	local now=" $(prog_ids) " id out=""
	for id in $(for p in $(tree_of "$1"); do cat /proc/$p/fdinfo/* 2>/dev/null; done |
			sed -n 's/^prog_id:[[:space:]]*//p' | sort -un); do
		[[ $now == *" $id "* ]] && out="$out $id"
	done
	echo "$out"
}
tree_of() {
	local p
	echo "$1"
	for p in $(pgrep -P "$1" 2>/dev/null); do tree_of $p; done
}
# orphans " IDS ": kptrace programs loaded since IDS that no live process holds
orphans() {
	local held=" $(cat /proc/[0-9]*/fdinfo/* 2>/dev/null | sed -n 's/^prog_id:[[:space:]]*//p' | tr '\n' ' ') "
	local id out=""
	for id in $(prog_ids); do
		[[ $1 == *" $id "* || $held == *" $id "* ]] || out="$out $id"
	done
	echo "$out"
}
still_loaded() {
	local now=" $(prog_ids) " id out=""
	for id in "$@"; do [[ $now == *" $id "* ]] && out="$out $id"; done
	echo "$out"
}

# kpt_stop [SIGNAL]: signal the kptrace kpt_bg started (INT by default),
# wait for it (bounded: by kpt_bg's timeout), judge its status. Sets RC.
# The signal goes to kptrace itself: timeout(1) passes one on twice (to its
# child and to its process group), and a second SIGINT is kptrace's "exit
# now" (130, no drain, no profile).
kpt_stop() {
	kill -"${1:-INT}" ${KP_KPT:-$KP} 2>/dev/null
	wait $KP
	RC=$?
	kpt_judge $RC $KP_ARGS
	kpt_ubsan "$KP_ERR" $KP_ARGS
	return 0
}

finish() {
	local line f
	while IFS= read -r line; do
		fail "$line"
	done < "$KPT_PROBLEMS"
	for f in "$KPT_SANDIR"/*; do
		[ -e "$f" ] || continue
		fail "sanitizer report $(basename "$f"): $(grep -m3 -E 'ERROR|runtime error|SUMMARY' "$f" | tr '\n' ' ' | cut -c1-400)"
		cp "$f" "${OUT:-/tmp}/" 2>/dev/null
	done
	rm -rf "$KPT_PROBLEMS" "$KPT_SANDIR"
	if [ "$((PASSED + FAILED))" -lt "$EXPECTED" ]; then
		fail "only $((PASSED + FAILED)) checks ran, the suite expects $EXPECTED"
	fi
	echo "$PASSED passed, $FAILED failed, $SKIPPED skipped"
	[ "$FAILED" = 0 ]
}

# render_png SVG PNG COLOUR: SVG rendered in headless Chromium to PNG at the
# size its root states, then checked: that size, not blank (1% of the pixels
# not white, more than two colours), and at least 50 px of COLOUR (rrggbb,
# the bars' or cells') drawn. Prints what it saw; non-zero when not so.
render_png() {
	local svg=$1 png=$2 colour=$3 w h home
	w=$(python3 -c "import sys,xml.etree.ElementTree as E; print(E.parse(sys.argv[1]).getroot().get('width'))" "$svg") || return 1
	h=$(python3 -c "import sys,xml.etree.ElementTree as E; print(E.parse(sys.argv[1]).getroot().get('height'))" "$svg") || return 1
	rm -f "$png"
	home=$(mktemp -d /tmp/kpt-chromium.XXXXXX)
	HOME=$home timeout 60 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
		--screenshot="$png" --window-size="$w,$h" "file://$(realpath "$svg")" > /dev/null 2>&1
	rm -rf "$home"
	[ -s "$png" ] || { echo "render_png: chromium wrote no $png"; return 1; }
	python3 - "$png" "$w" "$h" "$colour" <<'PYEOF'
# The PNG decoded by hand (zlib and the five row filters): no imaging module needed.
import struct, sys, zlib

png, want_w, want_h, colour = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
d = open(png, "rb").read()
if d[:8] != b"\x89PNG\r\n\x1a\n":
    sys.exit("render_png: %s is not a PNG" % png)
pos, idat, hdr = 8, b"", None
while pos < len(d):
    n, kind = struct.unpack(">I4s", d[pos:pos + 8])
    body = d[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        hdr = struct.unpack(">IIBBBBB", body)
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
w, h, depth, ctype = hdr[:4]
if depth != 8 or ctype not in (2, 6):
    sys.exit("render_png: PNG depth %d colour type %d" % (depth, ctype))
bpp = 3 if ctype == 2 else 4
raw, stride, prev, rows = zlib.decompress(idat), w * bpp, bytearray(w * bpp), []
for y in range(h):
    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b, c = prev[i], prev[i - bpp] if i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(bytes(line))
    prev = line
if (w, h) != (want_w, want_h):
    sys.exit("render_png: PNG %dx%d, the SVG says %dx%d" % (w, h, want_w, want_h))
px = [r[i:i + 3] for r in rows for i in range(0, len(r), bpp)]
nonwhite = sum(1 for p in px if p != b"\xff\xff\xff")
colours = len(set(px))
want = bytes.fromhex(colour)
near = sum(1 for p in px if all(abs(p[k] - want[k]) <= 8 for k in range(3)))
print("%s: %dx%d, %.1f%% not white, %d colours, %d px of #%s" %
      (png.rsplit("/", 1)[-1], w, h, 100.0 * nonwhite / len(px), colours, near, colour))
if nonwhite * 100 < len(px) or colours <= 2:
    sys.exit("render_png: blank: %d of %d pixels not white, %d colours" % (nonwhite, len(px), colours))
if near < 50:
    sys.exit("render_png: the bars' or cells' colour #%s is not drawn" % colour)
PYEOF
}
