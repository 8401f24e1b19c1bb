# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""The pair scenario (issue 39): the per-call cost of `kptrace latency`
with several --from and --to, and with one tracepoint at both ends,
against bpftrace's script for the same pairing and the hand-written
libbpf floor (bench/baseline.bpf.c), in one shuffled repeat loop.

Two jobs, each with a workload of its own (bench/workload.c):

  multi   --from sys_enter_lseek --from sys_enter_pread64 --to
          sys_exit_lseek --to sys_exit_pread64, by thread: any start is
          ended by any end (kptrace: a histogram per end; bpftrace
          @ns[probe]; the floor: the same two programs on the four
          tracepoints, one histogram). `workload --pair N`: N system calls
          on /dev/null, lseek and pread64 in turn. Unfiltered, as the
          tracepoint scenario (1b): others' calls are seen too, so every
          call is seen when the pairs counted are at least the calls made.
  switch  sched/sched_switch at both ends by CPU (cpudist): each switch
          ends the slice its CPU ran and starts the next (kptrace --key cpu,
          one program doing the end then the start; bpftrace and the floor
          one program, lookup then update). `workload --pingpong N`: two
          threads pinned to one CPU pass a byte through two pipes, two
          context switches a round trip, counted by their rusage; the cost
          is per context switch. Every switch is seen when the pairs
          counted are at least the kernel's own count of the switches on
          every CPU (/proc/stat ctxt) while the workloads ran, less one per
          CPU (its first switch may end nothing) and less the tool's own
          (kptrace leaves out the hits of its own process). Not over the
          tool's whole run: outside the workloads, a few switches a second
          here ran no program of any tool, the floor's empty one included,
          without a recursion miss counted (a kernel detail).

The cost is the workload's CPU time (CLOCK_PROCESS_CPUTIME_ID over its
loop, every thread's) a call, less the untraced loop's of the same repeat:
the tracepoints' programs run in the calling (or switching) task, and
the time the workload waits for a CPU others took (qemu guests of other
jobs on this host's two CPUs) does not count; the wall time is kept beside.

Each run: the tool started (start-up: launch to attached), idle for a
second (RSS), the workload, then a further workload with kernel BPF
statistics on (the programs' run time per call: per system call, or per
context switch on the machine), the tool stopped, its pairs counted;
*others*: the pairs beyond those the workloads' windows required (the
idle second's, others' calls).
"""
import os
import re
import subprocess
import time

JOBS = ["multi", "switch"]
TOOLS = ["libbpf-nop", "kptrace", "libbpf", "bpftrace"]
MULTI_FROM = ["syscalls/sys_enter_lseek", "syscalls/sys_enter_pread64"]
MULTI_TO = ["syscalls/sys_exit_lseek", "syscalls/sys_exit_pread64"]
SWITCH = "sched/sched_switch"
SWITCH_ROUNDS = 50000       # round trips of the ping-pong: 100,000 switches
SWITCH_STATS_ROUNDS = 10000


def _configs():
    """(job, config) of a repeat: untraced, the empty program on the
    job's tracepoints, and each tool doing the job."""
    out = []
    for job in JOBS:
        out.append((job, "untraced"))
        for t in TOOLS:
            out.append((job, t if t == "libbpf-nop" else "%s-%s" % (t, job)))
    return out


def _bpftrace_script(job, fifo):
    begin = 'BEGIN { cat("%s"); }\n' % fifo

    def tp(names):
        return ",".join("tracepoint:%s" % n.replace("/", ":") for n in names)
    if job == "multi":
        return (begin + "%s { @start[tid] = nsecs; }\n" % tp(MULTI_FROM) +
                "%s /@start[tid]/ { @ns[probe] = hist(nsecs - @start[tid]); "
                "delete(@start[tid]); }\n" % tp(MULTI_TO))
    return (begin + "%s { if (@start[cpu]) { @ns = hist(nsecs - @start[cpu]); } "
            "@start[cpu] = nsecs; }\n" % tp([SWITCH]))


def _tool(H, job, config, out):
    tool = config.split("-")[0]
    if config == "libbpf-nop":
        tps = MULTI_FROM + MULTI_TO if job == "multi" else [SWITCH]
        return H.Proc(config, [H.BASE, "nop", "tracepoint", ",".join(tps)], "stderr:Attached", out=out)
    if tool == "kptrace":
        if job == "multi":
            argv = [H.KPT, "latency"]
            for d in MULTI_FROM:
                argv += ["--from", "t:" + d]
            for d in MULTI_TO:
                argv += ["--to", "t:" + d]
        else:
            argv = [H.KPT, "latency", "--key", "cpu", "--from", "t:" + SWITCH, "--to", "t:" + SWITCH]
        return H.Proc(config, argv, "stderr:Attached", out=out, is_kptrace=True)
    if tool == "libbpf":
        if job == "multi":
            argv = [H.BASE, "pair", "tracepoint", ",".join(MULTI_FROM), ",".join(MULTI_TO)]
        else:
            argv = [H.BASE, "switch", "tracepoint", SWITCH]
        return H.Proc(config, argv, "stderr:Attached", out=out)
    if tool == "bpftrace":
        return H.Proc(config, ["bpftrace", "-o", out.name, "-e", _bpftrace_script(job, H.FIFO)],
                      "fifo", out=subprocess.DEVNULL)
    raise ValueError(config)


def _workload(H, job, n, pid=None):
    """The job's workload; with pid (the tool's), the context switches on
    the machine while it ran (switches) and the tool's own (own)."""
    argv = [H.WORK, "--pair" if job == "multi" else "--pingpong", str(n)]
    c0, o0 = _ctxt(), pid and _own_switches(pid)
    r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=H.WORK_TIMEOUT, check=True)
    c1, o1 = _ctxt(), pid and _own_switches(pid)
    kv = dict(f.split("=", 1) for f in r.stdout.decode().split())
    w = {k: float(v) for k, v in kv.items()}
    w["switches"], w["own"] = c1 - c0, (o1 - o0) if pid else 0
    return w


def _ctxt():
    """The kernel's count of context switches, every CPU's (sched_switch's hits)."""
    with open("/proc/stat") as f:
        for line in f:
            if line.startswith("ctxt "):
                return int(line.split()[1])
    return None


def _own_switches(pid):
    """The context switches of process pid's threads so far."""
    n = 0
    try:
        tasks = os.listdir("/proc/%d/task" % pid)
    except OSError:
        return 0
    for t in tasks:
        try:
            with open("/proc/%d/task/%s/status" % (pid, t)) as f:
                for line in f:
                    if line.startswith(("voluntary_ctxt_switches:", "nonvoluntary_ctxt_switches:")):
                        n += int(line.split()[1])
        except OSError:
            pass
    return n


def _pairs(H, config, proc, outpath):
    """(pairs the tool counted, events it says it lost or the kernel did not
    run it for): kptrace's histograms' counts (its probe table's HITS are
    hits, not pairs); the others' as bench.py reads their histograms."""
    if not config.startswith("kptrace-"):
        return H.events_seen(config, proc, outpath, "tracepoint")
    err = "".join(proc.stderr_lines)
    text = open(outpath, errors="replace").read()
    counts = re.findall(r"^count (\d+), sum ", text, re.M)
    rows, lost = H.kptrace_lost(err)
    if not counts or not rows:
        return None, None
    return sum(int(c) for c in counts), lost


def _one(H, job, config, rep, n, stats_n, stats):
    rec = {"rep": rep, "job": job, "config": config, "loadavg": os.getloadavg()[0]}
    if config == "untraced":
        return H.cpu_timed(rec, _workload(H, job, n))
    outpath = os.path.join(H.OUT, "pair.out")
    ncpu = os.cpu_count() or 1
    with open(outpath, "w") as out:
        proc = _tool(H, job, config, out)
        try:
            rec["startup_ms"] = proc.start()
            time.sleep(H.IDLE_S)
            m = H.mem_status(proc.pid())
            rec.update(hwm_kb=m.get("VmHWM"), rss_kb=m.get("VmRSS"), map_rss_kb=m.get("map_rss"))
            w = _workload(H, job, n, proc.pid())
            made = H.cpu_timed(rec, w)["calls"]
            # switch: every switch on the machine while the workloads ran
            window, own = w["switches"], w["own"]
            if stats:
                fd = H.enable_bpf_stats()
                if fd is not None:
                    try:
                        s0 = H.prog_stats(proc.pid())
                        ws = _workload(H, job, stats_n, proc.pid())
                        s1 = H.prog_stats(proc.pid())
                    finally:
                        os.close(fd)
                    made += ws["calls"]
                    window, own = window + ws["switches"], own + ws["own"]
                    if s0 and s1 and s1[1] > s0[1]:
                        runs, t = s1[1] - s0[1], s1[0] - s0[0]
                        if job == "multi":
                            # each call two events, one program each (its
                            # entry's, its exit's): others' calls ran too
                            rec["bpf_runs_per_call"] = runs / ws["calls"]
                            rec["bpf_ns_per_call"] = 2 * t / runs
                        else:
                            # per context switch on the machine, every
                            # program the tool runs for it
                            rec["bpf_runs_per_call"] = runs / ws["switches"]
                            rec["bpf_ns_per_call"] = t / ws["switches"]
            rec["hwm_end_kb"] = H.mem_status(proc.pid()).get("VmHWM")
        finally:
            rc = proc.stop()
    rec["exit"] = rc
    rec["made"] = made
    rec["events"], rec["lost"] = _pairs(H, config, proc, outpath)
    rec["unfiltered"] = True
    if job == "switch":
        # the workload's own (rusage) in made; every CPU's in the window
        rec["window_switches"], rec["own_switches"] = window, own
        rec["expected"] = window - ncpu - own
    else:
        rec["expected"] = made
    if rec["events"] is not None:     # None: an empty program counts nothing
        rec["surplus"] = rec["events"] + (rec["lost"] or 0) - rec["expected"]
    os.unlink(outpath)
    return rec


def scenario_pair(args, H):
    """H: bench.py's module (Proc, the tools' paths, BPF statistics)."""
    n_multi = args.tp_calls
    rounds = SWITCH_ROUNDS // 5 if args.quick else SWITCH_ROUNDS
    stats = args.bpf_stats and H.enable_bpf_stats_probe()
    configs = _configs()
    H.log("== pairs: several --from/--to (%d lseek and pread64 calls) and sched_switch at both "
          "ends (%d ping-pong round trips): %d configurations x %d repeats"
          % (n_multi, rounds, len(configs), args.repeats))

    def one(job, config, rep):
        if job == "multi":
            return _one(H, job, config, rep, n_multi, H.TP_STATS_CALLS, stats)
        return _one(H, job, config, rep, rounds, SWITCH_STATS_ROUNDS, stats)
    runs = H.job_loop(configs, args.repeats, 4000, one)
    return {"multi": {"from": MULTI_FROM, "to": MULTI_TO, "calls": n_multi,
                      "stats_calls": H.TP_STATS_CALLS if stats else 0},
            "switch": {"tracepoint": SWITCH, "rounds": rounds,
                       "stats_rounds": SWITCH_STATS_ROUNDS if stats else 0},
            "runs": runs}
