# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""The stop scenario (issue 37): how long a count over every
syscalls/sys_enter_* tracepoint (some 360) takes to return after its
deadline, kptrace against bpftrace, in one run.

Each run counts for DURATION_S seconds by its own clock: kptrace's -d from
its "Attached" line, bpftrace's interval probe from attachment (its BEGIN
probe, which fires once everything is attached, prints the mark). Measured
from outside: the wall time from the mark to the tool's exit, less the
duration, is what a user waits after the deadline. For kptrace also the
time until its kptrace-detach process ends (the kernel done detaching).
"""
import os
import subprocess
import time

DURATION_S = 3
GLOB = "syscalls/sys_enter_*"


def _pids_named(name):
    out = []
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                with open("/proc/%s/comm" % p) as f:
                    if f.read().strip() == name:
                        out.append(int(p))
            except OSError:
                pass
    return out


def _one(argv, mark, log_path):
    """(seconds from mark to exit, exit status); mark: text on stderr or stdout."""
    with open(log_path, "w") as log:
        p = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT)
    t_mark = None
    deadline = time.time() + 120
    while p.poll() is None and time.time() < deadline:
        if t_mark is None and mark in open(log_path).read():
            t_mark = time.time()
        time.sleep(0.01)
    if p.poll() is None:
        p.kill()
        p.wait()
        raise RuntimeError("%s did not stop within 120 s" % argv[0])
    t_exit = time.time()
    if t_mark is None:
        raise RuntimeError("%s never printed %r: %s" % (argv[0], mark, open(log_path).read()[-300:]))
    return t_exit - t_mark, p.returncode


def scenario_stop(args, log, kpt, out):
    repeats = 1 if args.quick else 3
    runs = []
    log("== stop: count over %s for %d s, time from the deadline to the exit" % (GLOB, DURATION_S))
    for rep in range(repeats):
        for tool in ("kptrace", "bpftrace"):
            r = {"tool": tool, "rep": rep}
            path = os.path.join(out, "stop-%s.log" % tool)
            try:
                if tool == "kptrace":
                    before = set(_pids_named("kptrace-detach"))
                    took, rc = _one([kpt, "count", "-d", str(DURATION_S), "t:" + GLOB],
                                    "Attached", path)
                    t0 = time.time()
                    mine = set(_pids_named("kptrace-detach")) - before
                    while mine & set(_pids_named("kptrace-detach")) and time.time() - t0 < 120:
                        time.sleep(0.05)
                    r["detached_s"] = took - DURATION_S + (time.time() - t0)
                else:
                    prog = ("BEGIN { printf(\"READY\\n\"); } tracepoint:%s { @[probe] = count(); } "
                            "interval:s:%d { exit(); }" % (GLOB.replace("/", ":"), DURATION_S))
                    took, rc = _one(["bpftrace", "-e", prog], "READY", path)
                r["after_deadline_s"] = took - DURATION_S
                r["exit"] = rc
            except (RuntimeError, OSError, subprocess.SubprocessError) as e:
                r["error"] = str(e)[:400]
            runs.append(r)
            log("  %-8s rep %d: %s" % (tool, rep, r.get("error") or
                                        "%.2f s after the deadline%s" % (
                                            r["after_deadline_s"],
                                            ", detached %.2f s after" % r["detached_s"]
                                            if "detached_s" in r else "")))
    return {"duration_s": DURATION_S, "glob": GLOB, "runs": runs}
