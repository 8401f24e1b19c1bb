#!/usr/bin/env python3
# Runs tests/host/badinput.txt: every malformed definition, filter and option
# must be refused cleanly. For each case:
#   - the exit status is 1, kptrace's refusal, or for a command-line usage
#     error (COL 'usage') argp's 64 (EX_USAGE, with its "Try `kptrace
#     --help'" line): not a signal (a crash, an abort), not a sanitizer's
#     exit (99, as tests/lib.sh sets it);
#   - no sanitizer report: lib.sh sends them to files in $KPT_SANDIR, a new
#     one fails the case that wrote it;
#   - stderr matches the case's message pattern (a kptrace message: no raw
#     libbpf noise, no sanitizer report);
#   - for definitions and filters (a caret column given), stderr shows the
#     offending text with a caret line whose '^' is under that column;
#   - nothing was attached: no "Attaching" line, no new kptrace BPF program
#     that no live process holds (once the case has exited, one held by a
#     process is another kptrace's: other suites may run), and no
#     uprobe_events or kprobe_events line that was not there before the case
#     (lines naming another pid's group, kptrace_PID/ or libbpf_PID_, are
#     that process's).
#
# usage: badinput.py KPTRACE TARGET CORPUS [--show]
#   --show prints each case's stderr (to review messages by eye).
#
# Corpus lines (tab-separated; '#' comments): NAME, COL, PATTERN, ARG...
#   COL: '-' for a refusal without a caret, 'usage' for argp's usage errors
#        (no caret, exit 64), else a Python integer expression, the caret's
#        column; B is len(TARGET), for definitions that hold its path.
#   PATTERN: a Python regex searched in stderr.
#   ARG macros: {BIN} the target path; {NL} {CR} newline, carriage return;
#   {CTL:HH} the byte 0xHH; {REP:N:TEXT} TEXT N times; {FILE:CONTENT} a
#   fresh file holding CONTENT (macros expanded inside), replaced by its path.
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

kpt, target, corpus = sys.argv[1:4]
# argp's closing line for a usage error (naming the program as invoked)
ARGP_HINT = re.compile(r"^Try `(\S+) --help' or `\1 --usage' for more information\.$", re.M)
show = "--show" in sys.argv[4:]
tmpdir = tempfile.mkdtemp(prefix="kpt-badinput.")
nfile = 0
TRACEFS = "/sys/kernel/tracing"
SANDIR = os.environ.get("KPT_SANDIR")
SAN_EXIT = 99     # exitcode= in tests/lib.sh's ASAN/UBSAN/LSAN_OPTIONS
USAGE_EXIT = 64   # argp's argp_err_exit_status, EX_USAGE


def expand(arg):
    global nfile
    inner = re.compile(r"\{(BIN|NL|CR|CTL:[0-9a-fA-F]{2}|REP:[0-9]+:[^{}]*)\}")

    def one(m):
        t = m.group(1)
        if t == "BIN":
            return target
        if t == "NL":
            return "\n"
        if t == "CR":
            return "\r"
        if t.startswith("CTL:"):
            return chr(int(t[4:], 16))
        _, n, text = t.split(":", 2)
        return text * int(n)

    arg = inner.sub(one, arg)

    def mkfile(m):
        global nfile
        nfile += 1
        path = os.path.join(tmpdir, "defs%d" % nfile)
        with open(path, "wb") as f:
            f.write(m.group(1).encode("latin-1"))
        return path

    return re.sub(r"\{FILE:([^{}]*)\}", mkfile, arg, flags=re.S)


def kpt_progs():
    """ids of loaded BPF programs named kpt_*"""
    try:
        out = subprocess.run(["bpftool", "-j", "prog", "show"], capture_output=True,
                             timeout=30).stdout
        return {p["id"] for p in json.loads(out or b"[]") if p.get("name", "").startswith("kpt_")}
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return set()


def held_progs():
    """ids of the BPF programs some live process holds (a program, link or
    perf event fd: fdinfo's prog_id)"""
    held = set()
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        d = "/proc/%s/fdinfo" % pid
        try:
            fds = os.listdir(d)
        except OSError:
            continue
        for fd in fds:
            try:
                with open(os.path.join(d, fd)) as f:
                    for l in f:
                        if l.startswith("prog_id:"):
                            held.add(int(l.split()[1]))
            except (OSError, ValueError, IndexError):
                pass
    return held


def left_progs(base):
    """the kptrace programs new since base that no live process holds,
    after a bounded wait: the kernel frees a program shortly after its last
    holder exits"""
    for _ in range(50):
        left = kpt_progs() - base
        if left:
            left -= held_progs()
        if not left:
            return left
        time.sleep(0.1)
    return left


def tracefs_state():
    s = {}
    for f in ("uprobe_events", "kprobe_events"):
        try:
            with open(os.path.join(TRACEFS, f)) as fh:
                s[f] = fh.read().split("\n")
        except OSError:
            s[f] = None
    return s


OWNED = re.compile(r"(?:kptrace_|libbpf_)([0-9]+)[/_]")


def tracefs_changes(before, after, pid):
    """lines of uprobe_events/kprobe_events added or removed since before,
    but for lines naming a pid other than the case's (another process's
    events: kptrace names its group kptrace_PID, libbpf its libbpf_PID_)"""
    out = []
    for f in before:
        if before[f] is None or after[f] is None:
            if before[f] != after[f]:
                out.append("%s appeared or went" % f)
            continue
        for sign, lines in (("+", set(after[f]) - set(before[f])),
                            ("-", set(before[f]) - set(after[f]))):
            for l in sorted(lines):
                m = OWNED.search(l)
                if m and int(m.group(1)) != pid:
                    continue
                out.append("%s %s%s" % (f, sign, l))
    return out


def san_reports():
    """the sanitizer report files in $KPT_SANDIR"""
    try:
        return set(os.listdir(SANDIR)) if SANDIR else set()
    except OSError:
        return set()


def san_summary(names):
    out = []
    for n in sorted(names):
        try:
            with open(os.path.join(SANDIR, n), errors="replace") as f:
                lines = [l.strip() for l in f if re.search(r"ERROR|runtime error|SUMMARY", l)]
        except OSError:
            lines = []
        out.append("%s: %s" % (n, " ".join(lines[:2])[:300]))
    return "; ".join(out)


def caret_col(err):
    """(text line, column of '^') of the last caret line in err, or None"""
    lines = err.split("\n")
    for i in range(len(lines) - 1, 0, -1):
        m = re.fullmatch(r"  ([ \t]*)\^", lines[i])
        if m:
            return lines[i - 1][2:], len(m.group(1))
    return None


passed = failed = 0
base_progs = kpt_progs()
seen_san = san_reports()
names = set()
with open(corpus, encoding="utf-8") as fh:
    for lineno, line in enumerate(fh, 1):
        line = line.rstrip("\n")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) < 3:
            print("FAIL - %s:%d: malformed corpus line" % (corpus, lineno))
            failed += 1
            continue
        name, col, pat, args = fields[0], fields[1], fields[2], fields[3:]
        if name in names:
            print("FAIL - %s:%d: duplicate case name %s" % (corpus, lineno, name))
            failed += 1
        names.add(name)
        argv = [kpt] + [expand(a) for a in args]
        tfs = tracefs_state()
        p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             stdin=subprocess.DEVNULL)
        try:
            _, err = p.communicate(timeout=15)
            rc, err = p.returncode, err.decode("utf-8", "replace")
        except subprocess.TimeoutExpired:
            p.kill()
            p.communicate()
            rc, err = None, "(timed out after 15 s)"
        problems = []
        if rc is None:
            problems.append("hung")
        elif rc < 0:
            problems.append("killed by signal %s" % signal.Signals(-rc).name)
        elif rc == 0:
            problems.append("exit 0")
        elif rc == SAN_EXIT:
            problems.append("exit %d (a sanitizer's)" % rc)
        elif rc >= 128:
            problems.append("exit %d (a signal's status)" % rc)
        elif col == "usage":
            if rc != USAGE_EXIT or not ARGP_HINT.search(err):
                problems.append("exit %d, not %d with argp's hint (a usage error)" %
                                (rc, USAGE_EXIT))
        elif rc != 1:
            problems.append("exit %d, not 1 (kptrace's refusal)" % rc)
        new_san = san_reports() - seen_san
        if new_san:
            seen_san |= new_san
            problems.append("sanitizer report %s" % san_summary(new_san))
        if not re.search(pat, err):
            problems.append("stderr does not match /%s/" % pat)
        if re.search(r"AddressSanitizer|runtime error|libbpf:|Segmentation|Aborted", err):
            problems.append("crash or raw library output in stderr")
        if col not in ("-", "usage"):
            want = eval(col, {"__builtins__": {}}, {"B": len(target)})
            got = caret_col(err)
            if got is None:
                problems.append("no caret line")
            elif got[1] != want:
                problems.append("caret at column %d, want %d (under %r)" %
                                (got[1], want, got[0][want:want + 12]))
        if "Attaching" in err:
            problems.append("it went as far as attaching")
        progs = left_progs(base_progs)
        if progs:
            problems.append("kptrace programs left loaded: %s" % sorted(progs))
        changed = tracefs_changes(tfs, tracefs_state(), p.pid)
        if changed:
            problems.append("uprobe_events/kprobe_events changed: %s" % "; ".join(changed)[:300])
        first = err.strip().split("\n")[0][:110] if err.strip() else "(no stderr)"
        if problems:
            failed += 1
            print("FAIL - %s: %s; rc=%s; stderr: %s" % (name, "; ".join(problems), rc,
                                                        err.strip()[:600]))
        else:
            passed += 1
            print("ok - %s: rc %d, %s" % (name, rc, first))
        if show:
            print("   | " + err.rstrip("\n").replace("\n", "\n   | "))
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
