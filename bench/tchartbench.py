# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""The timechart scenario (issue 44): the cost per context switch of
`kptrace timechart` against `perf sched record` on one workload, and what
each keeps.

The workload is perf's own `perf bench sched pipe -l N`: two processes
passing a token through a pipe, each round trip a few context switches
(counted from /proc/stat's ctxt over the untraced run). Per repeat, in a
shuffled order: untraced, under `kptrace timechart -c` (its summary to
/dev/null), under `perf sched record -o FILE --` (the file's size kept,
scaled to 60 s of the workload). The overhead is the traced run's usecs
per round trip less the untraced one's, per context switch.
"""
import os
import random
import re
import subprocess
import time

LOOPS = 100000


def _ctxt():
    with open("/proc/stat") as f:
        for line in f:
            if line.startswith("ctxt "):
                return int(line.split()[1])
    return 0


def _bench(argv, loops):
    """(usecs per round trip, context switches machine-wide, wall s)."""
    c0, t0 = _ctxt(), time.time()
    out = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300,
                         text=True)
    c1, t1 = _ctxt(), time.time()
    m = re.search(r"([0-9.]+) usecs/op", out.stdout)
    if not m:
        raise RuntimeError("%s: no usecs/op: %s" % (argv[0], (out.stdout + out.stderr)[-300:]))
    return float(m.group(1)), c1 - c0, t1 - t0


def scenario_timechart(args, log, kpt, out):
    repeats = 2 if args.quick else 5
    loops = LOOPS // 4 if args.quick else LOOPS
    work = ["perf", "bench", "sched", "pipe", "-l", str(loops)]
    data = os.path.join(out, "tchart-perf.data")
    runs = []
    log("== timechart: %s, untraced / kptrace timechart -c / perf sched record" % " ".join(work))
    for rep in range(repeats):
        tools = ["none", "kptrace", "perf"]
        random.shuffle(tools)
        for tool in tools:
            r = {"tool": tool, "rep": rep}
            try:
                if tool == "none":
                    argv = work
                elif tool == "kptrace":
                    argv = [kpt, "timechart", "-o", "/dev/null", "-c", " ".join(work)]
                else:
                    argv = ["perf", "sched", "record", "-o", data, "--"] + work
                r["usecs_per_op"], r["ctxt"], r["wall_s"] = _bench(argv, loops)
                if tool == "perf":
                    r["file_bytes"] = os.path.getsize(data)
                    os.unlink(data)
            except (RuntimeError, OSError, subprocess.SubprocessError) as e:
                r["error"] = str(e)[:400]
            runs.append(r)
            log("  %-8s rep %d: %s" % (tool, rep, r.get("error") or
                                        "%.3f usecs/op, %d switches" % (r["usecs_per_op"],
                                                                         r["ctxt"])))
    return {"loops": loops, "workload": " ".join(work), "runs": runs}
