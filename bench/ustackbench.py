# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""The user-stack scenario (issue 38): the cost of a user stack per event
at a uprobe 13 frames deep (to _start), in a binary with frame pointers
and in the same built without them, kptrace against perf and bpftrace, in
one run.

The workload (bench/ustack_workload.c) makes N calls to us_leaf(). A
configuration's CPU per event: the CPU time of its run (the tool's and
the workload's, rusage of the children) with N calls less that with 0
calls (the tool's start-up and exit), over N, less the untraced loop's.
The jobs: kptrace `count --by ustack --folded` (frame pointers, or the
binaries' .eh_frame walked in BPF) and `count` alone (the uprobe with no
stack); bpftrace `@[ustack] = count()` (frame pointers only); perf record
of the same uprobe (`perf probe -x`) with `--call-graph fp`, `dwarf`
(8 KiB of stack copied per event; perf report unwinds it later, not
counted, its own CPU given apart) and none. Within a repeat every
configuration runs once, in a shuffled order.
"""
import os
import random
import re
import resource
import subprocess

BUILDS = {"fp": "-O2 -fno-omit-frame-pointer", "nofp": "-O2 -fomit-frame-pointer"}
# (tool, build) pairs run each repeat; "none" is the untraced loop
CONFIGS = [("none", "fp"), ("none", "nofp"), ("kptrace", "fp"), ("kptrace", "nofp"),
           ("kptrace-nostack", "nofp"), ("bpftrace", "fp"), ("perf-fp", "fp"),
           ("perf-dwarf", "nofp"), ("perf-nostack", "nofp")]


def _build(src, out):
    bins = {}
    for b, flags in BUILDS.items():
        path = os.path.join(out, "us_%s" % b)
        subprocess.run(["gcc"] + flags.split() + ["-o", path, src], check=True)
        bins[b] = path
    return bins


def _perf_probe(path):
    """perf's uprobe event at us_leaf of path: its name (probe_us_fp:us_leaf_us_fp;
    perf wants event names unique across groups)."""
    base = os.path.basename(path)
    group = "probe_" + base
    subprocess.run(["perf", "probe", "-q", "-d", group + ":*"], capture_output=True)
    p = subprocess.run(["perf", "probe", "-q", "-x", path, "us_leaf_%s=us_leaf" % base],
                       capture_output=True, text=True)
    if p.returncode:
        raise RuntimeError("perf probe -x %s: %s" % (path, p.stderr[-300:]))
    return "%s:us_leaf_%s" % (group, base)


def _argv(tool, path, n, kpt, out, events):
    cmd = "%s %d" % (path, n)
    if tool == "none":
        return [path, str(n)]
    if tool == "kptrace":
        return [kpt, "count", "--by", "ustack", "--folded", "-c", cmd, "p:%s:us_leaf" % path]
    if tool == "kptrace-nostack":
        return [kpt, "count", "-c", cmd, "p:%s:us_leaf" % path]
    if tool == "bpftrace":
        return ["bpftrace", "-e", "uprobe:%s:us_leaf { @[ustack] = count(); }" % path, "-c", cmd]
    mode = tool.split("-")[1]
    graph = [] if mode == "nostack" else ["--call-graph", mode]
    return ["perf", "record", "-q", "-e", events[path]] + graph + [
        "-o", os.path.join(out, "ustack-%s.data" % mode), "--", path, str(n)]


def _one(argv, log_path):
    """(CPU seconds of the run's processes, its output)"""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(log_path, "w") as log:
        p = subprocess.run(argv, stdout=log, stderr=subprocess.STDOUT, timeout=300)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    text = open(log_path, errors="replace").read()
    if p.returncode or "ns_per_call" not in text:
        raise RuntimeError("exit %d: %s" % (p.returncode, text[-300:]))
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, text


def _report(out, mode, log_path):
    """CPU seconds of perf report's reading of the run's file: perf's
    unwinding (dwarf) and naming, which it leaves until then."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(log_path, "w") as log:
        subprocess.run(["perf", "report", "--stdio", "-q", "-g", "caller",
                        "-i", os.path.join(out, "ustack-%s.data" % mode)],
                       stdout=log, stderr=subprocess.STDOUT, timeout=600, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def scenario_ustack(args, log, kpt, out, src):
    n = 5000 if args.quick else 50000
    repeats = 1 if args.quick else args.repeats
    bins = _build(src, out)
    events = {}
    runs = []
    log("== ustack: a user stack per event at us_leaf, 13 frames deep, %d calls" % n)
    try:
        for b in ("fp", "nofp"):
            events[bins[b]] = _perf_probe(bins[b])
        for rep in range(repeats):
            order = CONFIGS[:]
            random.shuffle(order)
            for tool, b in order:
                r = {"tool": tool, "build": b, "rep": rep, "calls": n}
                path = os.path.join(out, "ustack-%s-%s.log" % (tool, b))
                try:
                    r["cpu_s"], text = _one(_argv(tool, bins[b], n, kpt, out, events), path)
                    if tool in ("perf-fp", "perf-dwarf"):
                        r["report_cpu_s"] = _report(out, tool.split("-")[1], path + ".report")
                    r["cpu0_s"], _ = _one(_argv(tool, bins[b], 0, kpt, out, events), path + "0")
                    if tool == "kptrace":
                        # the folded rows: whole from _start, or cut short
                        rows = re.findall(r"^(\S+) (\d+)$", text, re.M)
                        r["whole"] = sum(int(c) for s, c in rows if s.startswith("_start;"))
                        r["stacks"] = sum(int(c) for s, c in rows)
                except (RuntimeError, OSError, subprocess.SubprocessError) as e:
                    r["error"] = str(e)[:400]
                runs.append(r)
                log("  %-16s %-4s rep %d: %s" % (tool, b, rep, r.get("error") or
                                                  "%.3f s CPU, %.3f s with 0 calls" %
                                                  (r["cpu_s"], r["cpu0_s"])))
    finally:
        for ev in events.values():
            subprocess.run(["perf", "probe", "-q", "-d", ev.split(":")[0] + ":*"],
                           capture_output=True)
    return {"calls": n, "depth": 13, "runs": runs}
