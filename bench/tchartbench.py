# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""The timechart scenario (issue 44): the cost per context switch of
`kptrace timechart` against `perf sched record` on one workload, and what
each keeps.

The workload is perf's own `perf bench sched pipe -l N`: two processes
passing a token through a pipe, each round trip a few context switches.
Per repeat, in a shuffled order: untraced, under `kptrace timechart -c`
(its summary to /dev/null), under `perf sched record -o FILE --` (the
file's size kept, scaled to 60 s of the workload). The cost is CPU time,
not wall time (which this shared host's other load swings by 2x): the
CPU time of the tracer and the workload (their rusage, user and system:
the tracepoints' programs run in the switching task, perf's writing in
perf) less the untraced workload's, per context switch the workload made
(its rusage's voluntary and involuntary switches).
"""
import os
import random
import re
import resource
import subprocess
import time

LOOPS = 100000


def _bench(argv):
    """(usecs per round trip, CPU s of all it ran, its context switches, wall s)."""
    r0, t0 = resource.getrusage(resource.RUSAGE_CHILDREN), time.time()
    out = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300,
                         text=True)
    r1, t1 = resource.getrusage(resource.RUSAGE_CHILDREN), time.time()
    m = re.search(r"([0-9.]+) usecs/op", out.stdout)
    if not m:
        raise RuntimeError("%s: no usecs/op: %s" % (argv[0], (out.stdout + out.stderr)[-300:]))
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    sw = (r1.ru_nvcsw - r0.ru_nvcsw) + (r1.ru_nivcsw - r0.ru_nivcsw)
    return float(m.group(1)), cpu, sw, t1 - t0


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
                r["usecs_per_op"], r["cpu_s"], r["switches"], r["wall_s"] = _bench(argv)
                if tool == "perf":
                    r["file_bytes"] = os.path.getsize(data)
                    os.unlink(data)
            except (RuntimeError, OSError, subprocess.SubprocessError) as e:
                r["error"] = str(e)[:400]
            runs.append(r)
            log("  %-8s rep %d: %s" % (tool, rep, r.get("error") or
                                        "%.3f usecs/op, %.3f s CPU, %d switches" % (
                                            r["usecs_per_op"], r["cpu_s"], r["switches"])))
    return {"loops": loops, "workload": " ".join(work), "runs": runs}
