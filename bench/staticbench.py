# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""The static probes scenario (issue 42): a tracepoint's jobs through its
two attachments, the classic tracepoint program (its record) and the
BTF-typed one (tp_btf, TP_PROTO's arguments), and a USDT probe's per-hit
cost, each against the hand-written libbpf floor (bench/baseline.bpf.c)
and bpftrace, in one shuffled repeat loop.

  tracepoint  raw_syscalls/sys_enter (pair: to raw_syscalls/sys_exit), kept
              to lseek by a filter on the system call's number in every
              tool, through both attachments: syscalls/sys_enter_lseek, 1b's
              tracepoint, has no btf_trace_ prototype, and raw_syscalls/
              sys_enter is the one tracepoint both attachments reach, with
              the same hits (every system call of the machine) and the same
              filter, so that they differ in the attachment only.
              kptrace --backend tracepoint (the record's id) and --backend
              tp-btf (regs->orig_ax: the record's field shadows TP_PROTO's
              id); the floor's programs on either; bpftrace's tracepoint:
              (0.17 types no rawtracepoint:, so its row serves both).
              hist: of the number (the one value every tool reads on both
              attachments: kptrace cannot index the record's args[]);
              stream: the call's fd, offset, whence; pair: entry to exit by
              thread. `workload --lseek N`, as 1b. Others' lseek calls pass
              the filter too: every call seen is at least the calls made
              (hist, pair), or exactly, in the lines that name the
              workload's thread (stream).
  usdt        the workload's SDT probe kptbench:hit (`workload --usdt N`, no
              semaphore) counted: kptrace count u:PATH:kptbench:hit, the
              floor's counter on a uprobe at the note's address, bpftrace
              usdt:PATH:kptbench:hit { @ = count(); }. Only the workload
              fires it: every call seen is exactly the calls made.

The cost is the workload's CPU time over its loop a call (as the pair
scenario's: the programs run in the calling task, and the time it waits
for a CPU others took does not count), the middle of LOOPS loops run
one after the other, less the untraced loop's of the same repeat (the
middle of as many), the wall time's kept beside; BPF ns: the tool's programs'
run time over a further window with kernel BPF statistics on, a call of
the workload (tracepoint: every system call of the machine in that window
runs the programs too, filtered out at their start, and counts in it).
"""
import os
import re
import subprocess
import time

ENTER, EXIT = "raw_syscalls/sys_enter", "raw_syscalls/sys_exit"
ATTACH = {"tp": "tracepoint", "btf": "tp-btf"}
TP_MODES = ["hist", "stream", "pair"]
USDT_PROVIDER, USDT_NAME = "kptbench", "hit"
USDT_CALLS = 40000
USDT_STATS_CALLS = 5000
LOOPS = 3               # the workload's loops a configuration runs, the middle one kept


def _configs():
    """(job, config) of a repeat: tracepoint configs TOOL-MODE-ATTACH
    (bpftrace's without an attachment: tracepoint: only)."""
    out = [("tracepoint", "untraced")]
    out += [("tracepoint", "libbpf-nop-" + a) for a in ATTACH]
    for m in TP_MODES:
        out += [("tracepoint", "%s-%s-%s" % (t, m, a)) for t in ("kptrace", "libbpf") for a in ATTACH]
        out.append(("tracepoint", "bpftrace-" + m))
    out += [("usdt", c) for c in ("untraced", "libbpf-nop", "kptrace-count", "libbpf-count",
                                  "bpftrace-count")]
    return out


def _kptrace_tp(H, mode, att, out, nr):
    """kptrace's argv on either attachment: the classic one filters on the
    record's id, tp_btf on TP_PROTO's id at sys_enter ($arg2: the record's
    field has the name), as the floor does, and on regs->orig_ax at
    sys_exit, whose TP_PROTO has no number."""
    if att == "tp":
        enter, exitp = "%s if id == %d" % (ENTER, nr), "%s if id == %d" % (EXIT, nr)
        fields, key = "args:u64[3]", "id"
    else:
        enter = "%s nr=$arg2 if nr == %d" % (ENTER, nr)
        exitp = "%s nr=regs->orig_ax if nr == %d" % (EXIT, nr)
        fields, key = "fd=regs->di offset=regs->si whence=regs->dx", "nr"
    argv = [H.KPT, "--backend", ATTACH[att]]
    if mode == "hist":
        return argv + ["hist", "t:" + enter, key]
    if mode == "pair":
        return argv + ["latency", "--from", "t:" + enter, "--to", "t:" + exitp]
    # the fields before the filter
    head, _, filt = enter.partition(" if ")
    return argv + ["-o", out.name, "t:%s/%sstream %s %s if %s" % (H.GROUP, att, head, fields, filt)]


def _bpftrace_script(H, mode, usdt, nr=None):
    begin = 'BEGIN { cat("%s"); }\n' % H.FIFO
    if usdt:
        return begin + "usdt:%s:%s:%s { @ = count(); }\n" % (H.WORK, USDT_PROVIDER, USDT_NAME)
    enter = "tracepoint:%s /args->id == %d/" % (ENTER.replace("/", ":"), nr)
    if mode == "hist":
        return begin + enter + " { @ = hist(args->id); }\n"
    if mode == "stream":
        return begin + enter + (' { printf("%s-%d [%03d] %llu: tpstream: fd=%u offset=%lld '
                                'whence=%u\\n", comm, tid, cpu, nsecs, args->args[0], '
                                'args->args[1], args->args[2]); }\n')
    return (begin + enter + " { @start[tid] = nsecs; }\n" +
            "tracepoint:%s /args->id == %d && @start[tid]/ { @ns = hist(nsecs - @start[tid]); "
            "delete(@start[tid]); }\n" % (EXIT.replace("/", ":"), nr))


def usdt_offset(H, binary, provider, name):
    """The file offset of PROVIDER:NAME's one location in binary's
    .note.stapsdt (readelf -n), as a uprobe takes it; refused when the
    probe is not there once, or has a semaphore (the floor raises none)."""
    out = subprocess.run(["readelf", "-nW", binary], stdout=subprocess.PIPE, check=True).stdout.decode()
    found = re.findall(r"Provider: (\S+)\s+Name: (\S+)\s+Location: (0x[0-9a-f]+), Base: \S+, "
                       r"Semaphore: (0x[0-9a-f]+)", out)
    locs = [(int(loc, 16), int(sem, 16)) for p, n, loc, sem in found if (p, n) == (provider, name)]
    if len(locs) != 1 or locs[0][1]:
        raise RuntimeError("%s: want one location of USDT probe %s:%s without a semaphore, "
                           "readelf -n shows %s" % (binary, provider, name, locs or "none"))
    return H.vaddr_offset(binary, locs[0][0])


def _tool(H, job, config, out, nr):
    parts = config.split("-")
    tool, mode = parts[0], parts[1]
    if job == "usdt":
        if tool == "kptrace":
            argv = [H.KPT, "count", "u:%s:%s:%s" % (H.WORK, USDT_PROVIDER, USDT_NAME)]
            return H.Proc(config, argv, "stderr:Attached", out=out, is_kptrace=True)
        if tool == "libbpf":
            off = usdt_offset(H, H.WORK, USDT_PROVIDER, USDT_NAME)
            return H.Proc(config, [H.BASE, mode, H.WORK, "0x%x" % off], "stderr:Attached", out=out)
        return H.Proc(config, ["bpftrace", "-o", out.name, "-e", _bpftrace_script(H, mode, True)],
                      "fifo", out=subprocess.DEVNULL)
    if tool == "kptrace":
        return H.Proc(config, _kptrace_tp(H, mode, parts[2], out, nr), "stderr:Attached", out=out,
                      is_kptrace=True)
    if tool == "libbpf":
        argv = [H.BASE, mode, {"tp": "raw", "btf": "btf"}[parts[2]], str(nr)]
        return H.Proc(config, argv + (["-o", out.name] if mode == "stream" else []),
                      "stderr:Attached", out=out)
    return H.Proc(config, ["bpftrace", "-o", out.name, "-e", _bpftrace_script(H, mode, False, nr)],
                  "fifo", out=subprocess.DEVNULL)


def _workload(H, job, n):
    """The job's loop: its figures, and its pid (its one thread's tid,
    which a streamed line names)."""
    argv = [H.WORK, "--lseek" if job == "tracepoint" else "--usdt", str(n)]
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        out, err = p.communicate(timeout=H.WORK_TIMEOUT)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        raise
    if p.returncode:
        raise subprocess.CalledProcessError(p.returncode, argv, out, err)
    w = {k: float(v) for k, v in (f.split("=", 1) for f in out.decode().split())}
    w["pid"] = p.pid
    return w


def _loops(H, job, n):
    """LOOPS runs of the job's loop, one after the other: the figures of
    the run in the middle by CPU time a call, with every run's calls,
    pids and CPU time a call. A loop the host slowed (its untraced loop
    takes ~153 or ~210 ns a call in spells) is one of three, whoever
    runs; a tool whose loops differ by its own doing keeps its middle
    one, not its best."""
    ws = [_workload(H, job, n) for _ in range(LOOPS)]
    mid = dict(sorted(ws, key=lambda w: w["cpu_ns_per_call"])[len(ws) // 2])
    mid["calls"] = sum(w["calls"] for w in ws)
    mid["pids"] = [w["pid"] for w in ws]
    mid["loops_ns"] = [w["cpu_ns_per_call"] for w in ws]     # in the order run
    return mid


def _own_lines(text, event, pids):
    """(lines of event streamed by the threads pids, all its lines): a
    line starts COMM-TID [CPU], kptrace's, the floor's and bpftrace's."""
    lines = [l for l in text.splitlines() if (": %s: " % event) in l]
    own = re.compile(r"-(?:%s)\s+\[" % "|".join(str(p) for p in pids))
    return sum(1 for l in lines if own.search(l)), len(lines)


def _seen(H, config, proc, outpath, pids):
    """(events the tool counted, a stream's lines of every process, events
    it says it lost or the kernel did not run it for). A filtered probe's
    HITS are every system call, so kptrace's are its histograms' counts,
    its lines, or its count; a stream's are the workload's lines."""
    tool, mode = config.split("-")[:2]
    err = "".join(proc.stderr_lines)
    with open(outpath, errors="replace") as f:
        text = f.read()
    if mode == "nop":
        return None, None, None  # an empty program counts nothing
    if tool == "kptrace":
        rows, lost = H.kptrace_lost(err)
        if not rows:
            return None, None, None
        if mode == "stream":
            return _own_lines(text, "%sstream" % config.split("-")[2], pids) + (lost,)
        if mode == "count":
            m = re.search(r"^\S+:\n\s+COUNT\n\s+(\d+)$", text, re.M)
            return (int(m.group(1)) if m else None), None, lost
        counts = re.findall(r"^count (\d+), sum ", text, re.M)
        return (sum(int(c) for c in counts) if counts else None), None, lost
    if tool == "libbpf":
        m = re.search(r"events=(\d+) drops=(\d+)", err)
        if not m:
            return None, None, None
        if mode == "stream":
            return _own_lines(text, "tpstream", pids) + (int(m.group(2)),)
        return int(m.group(1)), None, int(m.group(2))
    lost = sum(int(x) for x in re.findall(r"Lost (\d+) events", text + err))
    if mode == "stream":
        return _own_lines(text, "tpstream", pids) + (lost,)
    if mode == "count":
        m = re.search(r"^@: (\d+)$", text, re.M)
        return (int(m.group(1)) if m else None), None, lost
    return sum(int(x) for x in re.findall(r"^\[.*?\)?\s+(\d+) \|", text, re.M)), None, lost


def _one(H, job, config, rep, n, stats_n, stats, nr):
    rec = {"rep": rep, "job": job, "config": config, "loadavg": os.getloadavg()[0]}
    if config == "untraced":
        w = _loops(H, job, n)
        rec["loops_ns"] = w["loops_ns"]
        return H.cpu_timed(rec, w)
    outpath = os.path.join(H.OUT, "static.out")
    made, pids = 0, []
    with open(outpath, "w") as out:
        proc = _tool(H, job, config, out, nr)
        try:
            rec["startup_ms"] = proc.start()
            time.sleep(H.IDLE_S)
            m = H.mem_status(proc.pid())
            rec.update(hwm_kb=m.get("VmHWM"), rss_kb=m.get("VmRSS"), map_rss_kb=m.get("map_rss"))
            w = _loops(H, job, n)
            H.cpu_timed(rec, w)
            rec["loops_ns"] = w["loops_ns"]
            made, pids = w["calls"], w["pids"]
            fd = H.enable_bpf_stats() if stats else None
            if fd is not None:
                try:
                    s0 = H.prog_stats(proc.pid())
                    ws = _workload(H, job, stats_n)
                    s1 = H.prog_stats(proc.pid())
                finally:
                    os.close(fd)
                made += ws["calls"]
                pids.append(ws["pid"])
                if s0 and s1 and s1[1] > s0[1]:
                    rec["bpf_runs_per_call"] = (s1[1] - s0[1]) / ws["calls"]
                    rec["bpf_ns_per_call"] = (s1[0] - s0[0]) / ws["calls"]
            if config.split("-")[1] == "stream":
                H.settle(outpath)
        finally:
            rec["exit"] = proc.stop()
    rec["expected"] = made
    events, total, lost = _seen(H, config, proc, outpath, pids)
    rec["events"], rec["lost"] = events, lost
    # others' lseek calls pass the filter too (a stream's lines name the
    # workload's); only the workload fires the USDT probe
    rec["unfiltered"] = job == "tracepoint" and total is None
    if events is not None:
        rec["surplus"] = (total - events if total is not None else
                          events + (lost or 0) - made)
    os.unlink(outpath)
    return rec


def scenario_static(args, H):
    """H: bench.py's module (Proc, the tools' paths, BPF statistics)."""
    nr = int(_workload(H, "tracepoint", 1)["nr"])     # SYS_lseek, as the workload calls it
    tp_calls = args.tp_calls
    usdt_calls = USDT_CALLS // 5 if args.quick else USDT_CALLS
    stats = args.bpf_stats and H.enable_bpf_stats_probe()
    configs, usdt_error = _configs(), None
    try:
        usdt_offset(H, H.WORK, USDT_PROVIDER, USDT_NAME)
    except (RuntimeError, subprocess.SubprocessError, OSError) as e:
        # a workload built before systemtap-sdt-dev was installed: rebuild it
        usdt_error = "%s (workload.c built without sys/sdt.h? install systemtap-sdt-dev, " \
                     "rm .output/bench/workload, make bench-build)" % e
        H.log("  static: no USDT rows: " + usdt_error)
        configs = [c for c in configs if c[0] != "usdt"]
    H.log("== static probes: %s and %s through the classic tracepoint and tp_btf (%d lseek "
          "calls), USDT %s:%s (%d firings): %d configurations x %d repeats"
          % (ENTER, EXIT, tp_calls, USDT_PROVIDER, USDT_NAME, usdt_calls, len(configs), args.repeats))

    def one(job, config, rep):
        if job == "tracepoint":
            return _one(H, job, config, rep, tp_calls, H.TP_STATS_CALLS, stats, nr)
        return _one(H, job, config, rep, usdt_calls, USDT_STATS_CALLS, stats, nr)
    runs = H.job_loop(configs, args.repeats, 5000, one)
    return {"loops": LOOPS,
            "tracepoint": {"enter": ENTER, "exit": EXIT, "nr": nr, "calls": tp_calls,
                           "stats_calls": H.TP_STATS_CALLS if stats else 0},
            "usdt": {"probe": "%s:%s" % (USDT_PROVIDER, USDT_NAME), "calls": usdt_calls,
                     "stats_calls": USDT_STATS_CALLS if stats else 0, "error": usdt_error},
            "runs": runs}
