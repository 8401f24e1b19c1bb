#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""kptrace's benchmark harness (bench/README.md says what and why).

Runs every scenario side by side, REPEATS times, each repeat in a shuffled
order, and writes the raw measurements and their summary to
.output/bench/results.json; bench/report.py prints the table and draws the
SVG from that file.

Everything it probes is its own: uprobes on .output/bench/workload only, a
tracefs instance and a uprobe_events group of its own (kptbench), removed on
exit; and, for the tracepoint and stacks scenarios, syscalls/sys_enter_lseek,
which every process's lseek(2) hits (unfiltered, so every count is "at least");
the pair scenario (bench/pairbench.py) the lseek and pread64 tracepoints and
sched/sched_switch, unfiltered too; the static scenario (bench/staticbench.py)
raw_syscalls/sys_enter and sys_exit, kept to lseek by every tool's filter,
and the workload's own USDT probe. Every process it starts is bounded by a
timeout; kptrace is only ever stopped with SIGINT, then SIGTERM.
"""
import argparse
import ctypes
import fcntl
import json
import os
import platform
import random
import re
import signal
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "vm"))
sys.dont_write_bytecode = True   # no bench/__pycache__ in the work tree
import report  # noqa: E402  (the summary and the table live there)
import vmbench  # noqa: E402  (the kprobe scenarios, in qemu)
import servebench  # noqa: E402  (kptrace serve, scraped)
import stopbench  # noqa: E402  (the end of a run over 360 tracepoints)
import tchartbench  # noqa: E402  (timechart against perf sched record)
import ustackbench  # noqa: E402  (user stacks without frame pointers, against perf's dwarf)
import pairbench  # noqa: E402  (latency pairings: several --from/--to, one tracepoint at both ends)
import staticbench  # noqa: E402  (tracepoints through tp_btf and the classic program; USDT)

OUT = os.path.join(ROOT, ".output", "bench")
KPT = os.path.join(ROOT, "kptrace")
WORK = os.path.join(OUT, "workload")
BASE = os.path.join(OUT, "baseline")
DECODER = os.path.join(OUT, "decoder")
FIFO = os.path.join(OUT, "ready.fifo")
TRACEFS = "/sys/kernel/tracing"
GROUP = "kptbench"
INSTANCE = os.path.join(TRACEFS, "instances", GROUP)
FUNC = "bench_fn"
ARGS3 = "a=%di:u64 b=%si:u32 s=+0(%dx):ustring"
TP = "syscalls/sys_enter_lseek"     # the tracepoint scenario's event
TP_FIELDS = "fd offset whence"
# The tracepoint's ftrace row: our instance's buffer, per CPU, for those runs
# only. trace_pipe (text formatted in the kernel, read by cat) drains slower
# than the lseek loop fills it (~1M events/s): with the default 1.4 MB per CPU
# the kernel overwrote over half of a 200,000-call run. 16 MB holds a run.
TP_FTRACE_BUFFER_KB = 16384

START_TIMEOUT = 30.0    # launch to "attached"
STOP_TIMEOUT = 20.0     # SIGINT to exit (drain, print)
WORK_TIMEOUT = 180.0    # one workload run
# "steady" RSS is read this long after attaching, then the loop runs: kptrace
# holds the kernel's BPF statistics 100 ms from attach and 100 ms of each
# second after (src/load/costwin.h), so a loop started 1.25 s on and done in
# 0.75 s times the steady state between windows (bench/README.md: what the
# windows add)
IDLE_S = 1.25
STATS_CALLS = 5000      # calls run with BPF run-time stats on
TP_STATS_CALLS = 20000  # the same, lseek loop (cheaper per call)

running = []            # processes to stop on the way out
SCENARIOS = ["overhead", "tracepoint", "stacks", "pair", "static", "decoder", "throughput", "serve", "stop",
             "timechart", "ustack", "vm"]


def log(msg):
    print(msg, flush=True)


# ---------------------------------------------------------------- processes

class Proc:
    """A tracer under test: started, waited on until attached, stopped."""

    def __init__(self, name, argv, marker, out=None, env=None, is_kptrace=False):
        self.name, self.argv, self.marker, self.out = name, argv, marker, out
        self.env, self.is_kptrace = env, is_kptrace
        self.p = None
        self.ready_t = None
        self.stderr_lines, self.stdout_lines = [], []
        self.threads = []
        self.ready = threading.Event()

    def _reader(self, stream, sink, key):
        for raw in iter(stream.readline, b""):
            line = raw.decode(errors="replace")
            if key and not self.ready.is_set() and line.startswith(key):
                self.ready_t = time.perf_counter()
                self.ready.set()
            sink.append(line)
        stream.close()

    def start(self):
        kind, _, key = self.marker.partition(":")
        stdout = subprocess.PIPE if kind == "stdout" else (self.out or subprocess.DEVNULL)
        if kind == "fifo":
            if os.path.exists(FIFO):
                os.unlink(FIFO)
            os.mkfifo(FIFO)
        env = dict(os.environ, **(self.env or {}))
        self.t0 = time.perf_counter()
        self.p = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL, stdout=stdout,
                                  stderr=subprocess.PIPE, env=env, cwd=ROOT)
        running.append(self)
        for stream, sink, k in ((self.p.stderr, self.stderr_lines, key if kind == "stderr" else None),
                                (self.p.stdout, self.stdout_lines, key if kind == "stdout" else None)):
            if stream is None:
                continue
            t = threading.Thread(target=self._reader, args=(stream, sink, k), daemon=True)
            t.start()
            self.threads.append(t)
        deadline = self.t0 + START_TIMEOUT
        if kind == "fifo":
            # bpftrace's BEGIN { cat(FIFO) } opens the FIFO once every probe is
            # attached (BEGIN's output is handled in its event loop, which
            # starts after the attachment): our non-blocking open for writing
            # succeeds from that moment on, and our close gives it EOF.
            while time.perf_counter() < deadline and self.p.poll() is None:
                try:
                    fd = os.open(FIFO, os.O_WRONLY | os.O_NONBLOCK)
                except OSError:
                    time.sleep(0.0005)
                    continue
                self.ready_t = time.perf_counter()
                os.close(fd)
                self.ready.set()
                break
        else:
            while time.perf_counter() < deadline and self.p.poll() is None:
                if self.ready.wait(0.01):
                    break
        if not self.ready.is_set():
            err = "".join(self.stderr_lines)[-600:]
            self.stop()
            raise RuntimeError("%s did not attach within %.0f s: %s" % (self.name, START_TIMEOUT, err))
        return (self.ready_t - self.t0) * 1e3

    def pid(self):
        return self.p.pid

    def stop(self):
        if self.p is None:
            return None
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGINT)
            try:
                self.p.wait(STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                self.p.send_signal(signal.SIGTERM)
                try:
                    self.p.wait(10)
                except subprocess.TimeoutExpired:
                    if not self.is_kptrace:   # kptrace is never SIGKILLed
                        self.p.kill()
                    self.p.wait(30)
        if self.marker.startswith("fifo"):
            # a bpftrace that never reached its BEGIN is still in open(): free it
            try:
                fd = os.open(FIFO, os.O_RDWR | os.O_NONBLOCK)
                os.close(fd)
            except OSError:
                pass
        for t in self.threads:
            t.join(10)
        if self in running:
            running.remove(self)
        return self.p.returncode


def run_workload(calls, rate=0, threads=1, lseek=False):
    """bench_fn's loop, or with lseek the tracepoint scenario's lseek(/dev/null) loop."""
    argv = [WORK, "--lseek", str(calls)] if lseek else [WORK, str(calls), str(rate), str(threads)]
    r = subprocess.run(argv, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=WORK_TIMEOUT, check=True)
    kv = dict(f.split("=", 1) for f in r.stdout.decode().split())
    return {k: float(v) for k, v in kv.items()}


def settle(path, quiet_s=0.4, limit_s=8.0):
    """Give a consumer the time to catch up before it is stopped: wait until
    its output file has not grown for quiet_s (bpftrace drops what is still
    in its perf buffers when it exits; kptrace drains its ring first)."""
    t0 = time.time()
    last, since = -1, time.time()
    while time.time() - t0 < limit_s:
        size = os.stat(path).st_size
        if size != last:
            last, since = size, time.time()
        elif time.time() - since >= quiet_s:
            return
        time.sleep(0.1)


def mem_status(pid):
    """VmHWM, VmRSS, and the RSS of BPF map mmaps (a ring buffer's pages), in kB."""
    res = {}
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith(("VmHWM:", "VmRSS:")):
                    res[line.split(":")[0]] = int(line.split()[1])
        maps_kb, cur = 0, None
        with open("/proc/%d/smaps" % pid) as f:
            for line in f:
                if re.match(r"^[0-9a-f]+-[0-9a-f]+ ", line):
                    cur = line.split()[-1] if len(line.split()) >= 6 else ""
                elif line.startswith("Rss:") and cur == "anon_inode:bpf-map":
                    maps_kb += int(line.split()[1])
        res["map_rss"] = maps_kb
    except OSError:
        pass
    return res


# ------------------------------------------------------- BPF run-time stats

SYS_BPF = 321            # x86_64
BPF_ENABLE_STATS = 32
_libc = ctypes.CDLL(None, use_errno=True)


def enable_bpf_stats():
    """BPF_ENABLE_STATS: run time counted while the returned fd is open."""
    attr = ctypes.create_string_buffer(16)   # enable_stats.type = BPF_STATS_RUN_TIME (0)
    fd = _libc.syscall(SYS_BPF, BPF_ENABLE_STATS, attr, 4)
    return fd if fd >= 0 else None


def prog_stats(pid):
    """Total (run_time_ns, run_cnt) of the BPF programs process pid holds."""
    ids, stats = set(), {}
    fddir = "/proc/%d/fdinfo" % pid
    try:
        names = os.listdir(fddir)
    except OSError:
        return None
    for n in names:
        try:
            with open(os.path.join(fddir, n)) as f:
                info = dict(l.rstrip("\n").split(":\t", 1) for l in f if ":\t" in l)
        except OSError:
            continue
        if "prog_id" not in info:
            continue
        pid_ = int(info["prog_id"])
        ids.add(pid_)
        if "run_time_ns" in info:
            stats[pid_] = (int(info["run_time_ns"]), int(info["run_cnt"]))
    for i in ids - set(stats):
        # a link's fdinfo names its program but has no counters
        r = subprocess.run(["bpftool", "-j", "prog", "show", "id", str(i)],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=30)
        try:
            j = json.loads(r.stdout)
            stats[i] = (int(j.get("run_time_ns", 0)), int(j.get("run_cnt", 0)))
        except ValueError:
            pass
    return (sum(v[0] for v in stats.values()), sum(v[1] for v in stats.values()))


# ------------------------------------------------------ uprobe_events (ftrace)

def tracefs_write(path, text, append=False):
    # os.open: Python's "a" mode seeks, which tracefs files refuse
    fd = os.open(path, os.O_WRONLY | (os.O_APPEND if append else os.O_TRUNC))
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def file_offset(binary, sym):
    """bench_fn's file offset, as uprobe_events wants it."""
    out = subprocess.run(["readelf", "-sW", binary], stdout=subprocess.PIPE, check=True).stdout.decode()
    vaddr = next(int(l.split()[1], 16) for l in out.splitlines()
                 if len(l.split()) >= 8 and l.split()[7] == sym)
    return vaddr_offset(binary, vaddr)


def vaddr_offset(binary, vaddr):
    """The file offset of binary's address vaddr (its LOAD segments)."""
    out = subprocess.run(["readelf", "-lW", binary], stdout=subprocess.PIPE, check=True).stdout.decode()
    for l in out.splitlines():
        f = l.split()
        if f and f[0] == "LOAD":
            off, va, memsz = int(f[1], 16), int(f[2], 16), int(f[5], 16)
            if va <= vaddr < va + memsz:
                return vaddr - va + off
    raise RuntimeError("no LOAD segment of %s holds 0x%x" % (binary, vaddr))


class Ftrace:
    """The kernel's own uprobe_events, in a tracefs instance of ours so that
    nothing of it shows in the top-level buffer others may be reading."""

    def __init__(self):
        self.ok = os.access(os.path.join(TRACEFS, "uprobe_events"), os.W_OK)
        # the tracepoint scenario's event, enabled in our instance only
        self.tp_ok = os.path.isdir(os.path.join(TRACEFS, "events", *TP.split("/")))
        self.tp_enable = os.path.join(INSTANCE, "events", *TP.split("/")) + "/enable"
        self.events = []

    def cleanup(self):
        if not os.path.isdir(TRACEFS):
            return
        if os.path.exists(self.tp_enable):
            tracefs_write(self.tp_enable, "0")
        for ev in os.listdir(os.path.join(INSTANCE, "events", GROUP)) if os.path.isdir(
                os.path.join(INSTANCE, "events", GROUP)) else []:
            en = os.path.join(INSTANCE, "events", GROUP, ev, "enable")
            if os.path.exists(en):
                tracefs_write(en, "0")
        try:
            with open(os.path.join(TRACEFS, "uprobe_events")) as f:
                mine = [l.split()[0].split(":", 1)[1] for l in f if l.split() and
                        l.split()[0].split(":", 1)[-1].startswith(GROUP + "/")]
        except OSError:
            mine = []
        for ev in mine:
            try:
                tracefs_write(os.path.join(TRACEFS, "uprobe_events"), "-:%s\n" % ev, append=True)
            except OSError as e:
                log("warning: cannot remove uprobe event %s: %s" % (ev, e))
        if os.path.isdir(INSTANCE):
            try:
                os.rmdir(INSTANCE)
            except OSError as e:
                log("warning: cannot remove %s: %s" % (INSTANCE, e))

    def setup(self, uprobe=True):
        """Our instance; with uprobe, the uprobe event kptbench/stream too."""
        self.cleanup()
        os.mkdir(INSTANCE)
        if uprobe:
            off = file_offset(WORK, FUNC)
            tracefs_write(os.path.join(TRACEFS, "uprobe_events"),
                          "p:%s/stream %s:0x%x %s\n" % (GROUP, WORK, off, ARGS3), append=True)
            self.enable = os.path.join(INSTANCE, "events", GROUP, "stream", "enable")
        tracefs_write(os.path.join(INSTANCE, "tracing_on"), "1")

    def overruns(self):
        n = 0
        cpus = os.path.join(INSTANCE, "per_cpu")
        for c in os.listdir(cpus):
            with open(os.path.join(cpus, c, "stats")) as f:
                for l in f:
                    if l.startswith("overrun:"):
                        n += int(l.split()[1])
        return n


class FtraceProc:
    """ftrace 'started': an event (our uprobe event, or the tracepoint) enabled
    in our instance, trace_pipe read to a file."""

    def __init__(self, ft, out, enable=None, name="uprobe_events", buffer_kb=None):
        self.ft, self.out, self.name = ft, out, name
        self.enable = enable or ft.enable
        self.buffer_kb, self.saved_kb = buffer_kb, None
        self.is_kptrace = False

    def start(self):
        if self.buffer_kb:
            size = os.path.join(INSTANCE, "buffer_size_kb")
            with open(size) as f:
                self.saved_kb = f.read().split()[0]
            tracefs_write(size, str(self.buffer_kb))
        tracefs_write(os.path.join(INSTANCE, "trace"), "")
        self.overrun0 = self.ft.overruns()
        self.cat = subprocess.Popen(["cat", os.path.join(INSTANCE, "trace_pipe")],
                                    stdout=self.out, stderr=subprocess.DEVNULL)
        tracefs_write(self.enable, "1")
        running.append(self)
        return None

    def pid(self):
        return None

    def stop(self):
        tracefs_write(self.enable, "0")
        # let the reader drain what is buffered, then stop it
        last, t = -1, time.time()
        while time.time() - t < 10:
            size = os.fstat(self.out.fileno()).st_size
            if size == last:
                break
            last = size
            time.sleep(0.2)
        self.cat.send_signal(signal.SIGINT)
        try:
            self.cat.wait(10)
        except subprocess.TimeoutExpired:
            self.cat.kill()
            self.cat.wait()
        self.drops = self.ft.overruns() - self.overrun0
        if self.saved_kb:
            tracefs_write(os.path.join(INSTANCE, "buffer_size_kb"), self.saved_kb)
        if self in running:
            running.remove(self)
        return 0


# ------------------------------------------------------------------ tools

def bpftrace_script(kind, mech="uprobe"):
    begin = 'BEGIN { cat("%s"); }\n' % FIFO
    if mech == "stacks":
        probe = "tracepoint:%s" % TP.replace("/", ":")
        if kind == "kstream":
            return begin + probe + ' { printf("%s", kstack); }\n'
        if kind == "kcount":
            return begin + probe + " { @[kstack] = count(); }\n"
        raise ValueError(kind)
    if kind == "kmalloc":
        return begin + "tracepoint:%s { @ = hist(args->bytes_req); }\n" % KMALLOC_TP.replace("/", ":")
    if mech == "tracepoint":
        probe = "tracepoint:%s" % TP.replace("/", ":")
        if kind == "stream":
            return begin + probe + (' { printf("%s-%d [%03d] %llu: tpstream: fd=%u offset=%lld whence=%u\\n", '
                                    'comm, tid, cpu, nsecs, args->fd, args->offset, args->whence); }\n')
        if kind == "hist":
            return begin + probe + " { @ = hist(args->offset); }\n"
        if kind == "countcg":
            return begin + probe + " { @[cgroup] = count(); }\n"
        if kind == "pair":
            return (begin + probe + " { @start[tid] = nsecs; }\n"
                    "tracepoint:%s /@start[tid]/ { @ns = hist(nsecs - @start[tid]); "
                    "delete(@start[tid]); }\n" % TP_EXIT.replace("/", ":"))
        raise ValueError(kind)
    probe = "uprobe:%s:%s" % (WORK, FUNC)
    if kind == "stream":
        return begin + probe + (' { printf("%s-%d [%03d] %llu: stream: (%llx) a=%llu b=%u s=\\"%s\\"\\n", '
                                'comm, tid, cpu, nsecs, reg("ip"), arg0, (uint32)arg1, str(arg2)); }\n')
    if kind == "hist":
        return begin + probe + " { @a = hist(arg0); }\n"
    return (begin + probe + " { @start[tid] = nsecs; }\n"
            "uretprobe:%s:%s /@start[tid]/ { @ns = hist(nsecs - @start[tid]); delete(@start[tid]); }\n"
            % (WORK, FUNC))


def make_tool(config, outfile, bufsize=None, rb_pages=None, mech="uprobe"):
    """config is 'TOOL-MODE'; returns a Proc (or FtraceProc) writing to outfile.
    mech "tracepoint": the same jobs on the tracepoint TP (stream, hist, nop)."""
    tool, mode = config.split("-", 1)
    target = "%s:%s" % (WORK, FUNC)
    if mech == "stacks":
        if tool == "kptrace":
            if mode == "kstream":
                # the fields the floor's record carries too (bpftrace's printf has none)
                argv = [KPT, "--buffer-size", STACKS_RING, "-K", "-o", outfile.name,
                        "t:%s %s" % (TP, TP_FIELDS)]
            else:
                argv = [KPT, "count", "t:%s" % TP, "--by", "kstack"]
            return Proc(config, argv, "stderr:Attached", out=outfile, is_kptrace=True)
        if tool == "libbpf":
            if mode == "nop":
                return Proc(config, [BASE, "nop", "tracepoint", TP], "stderr:Attached", out=outfile)
            argv = [BASE, "kstream" if mode == "kstream" else "stackid", "tracepoint", TP]
            if mode == "kstream":
                argv += ["-b", str(report.parse_size(STACKS_RING))]
            return Proc(config, argv + ["-o", outfile.name], "stderr:Attached", out=outfile)
        if tool == "bpftrace":
            # its perf buffers: pages per CPU, the same bytes in all
            pages = report.parse_size(STACKS_RING) // ((os.cpu_count() or 1) * 4096)
            env = {"BPFTRACE_PERF_RB_PAGES": str(pages)} if mode == "kstream" else {}
            return Proc(config, ["bpftrace", "-o", outfile.name, "-e", bpftrace_script(mode, mech)],
                        "fifo", out=subprocess.DEVNULL, env=env)
        raise ValueError(config)
    if mech == "tracepoint":
        if tool == "kptrace":
            if mode == "stream":
                argv = [KPT, "-o", outfile.name, "t:%s/tpstream %s %s" % (GROUP, TP, TP_FIELDS)]
            elif mode == "kmalloc":
                argv = [KPT, "hist", "kmalloc"]
            elif mode == "pair":
                argv = [KPT, "latency", "--from", "t:" + TP, "--to", "t:" + TP_EXIT]
            elif mode in ("count", "countcg"):
                argv = [KPT, "count", "t:" + TP] + (["--by", "container"] if mode == "countcg" else [])
            else:
                argv = [KPT, "hist", "t:%s/tphist %s offset" % (GROUP, TP), "offset"]
            return Proc(config, argv, "stderr:Attached", out=outfile, is_kptrace=True)
        if tool == "libbpf":
            argv = [BASE, mode, "tracepoint", TP] + (["-o", outfile.name] if mode == "stream" else [])
            return Proc(config, argv, "stderr:Attached", out=outfile)
        if tool == "bpftrace":
            return Proc(config, ["bpftrace", "-o", outfile.name, "-e", bpftrace_script(mode, mech)],
                        "fifo", out=subprocess.DEVNULL)
        raise ValueError(config)
    if tool == "kptrace":
        bs = ["--buffer-size", bufsize] if bufsize else []
        if mode == "stream":
            argv = [KPT] + bs + ["-o", outfile.name, "p:%s/stream %s %s" % (GROUP, target, ARGS3)]
        elif mode == "hist":
            argv = [KPT, "hist", "p:%s/hist %s a=%%di:u64" % (GROUP, target), "a"]
        elif mode.startswith("budget"):
            cap = "1%" if mode == "budget1pct" else "1000000000/s"
            argv = [KPT, "--budget", cap, "hist", "p:%s/hist %s a=%%di:u64" % (GROUP, target), "a"]
        else:
            argv = [KPT, "latency", target]
        return Proc(config, argv, "stderr:Attached", out=outfile, is_kptrace=True)
    if tool == "libbpf":
        argv = [BASE, mode, WORK, FUNC] + (["-o", outfile.name] if mode == "stream" else [])
        if bufsize:
            argv += ["-b", str(report.parse_size(bufsize))]
        return Proc(config, argv, "stderr:Attached", out=outfile)
    if tool == "bpftrace":
        env = {"BPFTRACE_PERF_RB_PAGES": str(rb_pages)} if rb_pages else {}
        return Proc(config, ["bpftrace", "-o", outfile.name, "-e", bpftrace_script(mode)],
                    "fifo", out=subprocess.DEVNULL, env=env)
    if tool == "funclatency":
        return Proc(config, ["stdbuf", "-oL", "funclatency", target], "stdout:Tracing")
    raise ValueError(config)


def events_seen(config, proc, outpath, mech="uprobe"):
    """(events the tool reports or printed, events it says it lost)."""
    tool, mode = config.split("-", 1)
    err = "".join(getattr(proc, "stderr_lines", []))
    event = "tpstream" if mech == "tracepoint" else "stream"
    if mech == "stacks":
        return stacks_seen(tool, mode, err, outpath)
    if tool == "kptrace":
        rows = re.findall(r"^(\S+/\S+)\s+(\d+)\s+(\S+)\s+(\d+)\s+(\d+)", err, re.M)
        if not rows:
            return None, None
        hits, drops = int(rows[0][1]), int(rows[0][3])
        if mode == "stream":
            return count_lines(outpath, ": %s: " % event), drops
        return hits, drops
    if config == "libbpf-nop":
        return None, None        # an empty program counts nothing
    if tool == "libbpf":
        m = re.search(r"events=(\d+) drops=(\d+)", err)
        return (int(m.group(1)), int(m.group(2))) if m else (None, None)
    if tool == "bpftrace":
        text = open(outpath, errors="replace").read()
        lost = sum(int(x) for x in re.findall(r"Lost (\d+) events", text + err))
        if mode == "stream":
            return text.count(": %s: " % event), lost
        if mode == "countcg":
            return sum(int(x) for x in re.findall(r"^@\[\d+\]: (\d+)", text, re.M)), lost
        return sum(int(x) for x in re.findall(r"^\[.*?\)?\s+(\d+) \|", text, re.M)), lost
    if tool == "funclatency":
        out = "".join(proc.stdout_lines)
        return sum(int(x) for x in re.findall(r"->\s*\d+\s*:\s*(\d+)", out)), 0
    if tool == "uprobe_events":
        return count_lines(outpath, " stream: "), getattr(proc, "drops", None)
    if tool == "ftrace":     # a syscall event's line: "...: sys_lseek(fd: 4, offset: 1, whence: 0)"
        return count_lines(outpath, ": sys_lseek("), getattr(proc, "drops", None)
    return None, None


def stacks_seen(tool, mode, err, outpath):
    """(events seen with a kernel stack of at least one frame, events lost):
    an event whose stack is missing is not seen, so a tool that walked no
    stack cannot look fast."""
    if mode == "nop":
        return None, None        # an empty program counts nothing
    if tool == "kptrace":
        rows = re.findall(r"^(\S+/\S+)\s+(\d+)\s+(\S+)\s+(\d+)\s+(\d+)", err, re.M)
        if not rows:
            return None, None
        lost = int(rows[0][3])
        # stacks not walked, or counted under the lost stack: lost, not seen
        lost += sum(int(x) for x in re.findall(
            r"(\d+) (?:stacks NOT CAPTURED|events counted under a LOST stack)", err))
    elif tool == "libbpf":
        m = re.search(r"events=(\d+) drops=(\d+)", err)
        if not m:
            return None, None
        lost = int(m.group(2))
    elif tool == "bpftrace":
        lost = sum(int(x) for x in re.findall(r"Lost (\d+) events", err))
    else:
        return None, None
    with open(outpath, errors="replace") as f:
        lines = f.read().splitlines()
    seen = 0
    if tool == "bpftrace":
        lost += sum(int(x) for x in re.findall(r"Lost (\d+) events", "\n".join(lines)))
        for i, l in enumerate(lines[:-1]):
            if mode == "kstream":
                # printf("%s", kstack): an empty line, then a frame per line
                seen += not l and lines[i + 1][:1].isspace() and bool(lines[i + 1].strip())
            else:
                # @[kstack] = count(): "@[", a frame per line, "]: COUNT"
                m = re.match(r"^\]: (\d+)$", lines[i + 1])
                if m and l[:1].isspace() and l.strip():
                    seen += int(m.group(1))
        return seen, lost
    for i, l in enumerate(lines[:-1]):
        framed = lines[i + 1].startswith(" => ")
        if mode == "kstream":
            # the "<stack trace>" line (ftrace's, the floor's alike), then " => FRAME"
            seen += framed and l.endswith(("<stack trace>", "<stack trace>:"))
        else:
            # a count alone on its line, then its stack's frames
            m = re.match(r"^\s*(\d+)$", l)
            if m and framed:
                seen += int(m.group(1))
    return seen, lost


def kptrace_lost(err):
    """kptrace's probe table on stderr (PROBE HITS MISSES DROPS FAULTS rows)
    and the events it lost: its drops, and the hits the kernel did not run
    its programs for."""
    rows = re.findall(r"^(\S+/\S+)\s+(\d+)\s+(\S+)\s+(\d+)\s+(\d+)", err, re.M)
    lost = sum(int(r[3]) for r in rows)
    lost += sum(int(x) for x in re.findall(r"(\d+) hits NOT RUN by the kernel", err))
    return rows, lost


def cpu_timed(rec, w):
    """rec with workload run w's CPU time a call (the cost: the programs run
    in the calling task, the time it waited for a CPU does not count), its
    wall time's and its calls."""
    rec["ns_per_call"], rec["wall_ns_per_call"] = w["cpu_ns_per_call"], w["ns_per_call"]
    rec["calls"] = w["calls"]
    return rec


def job_loop(configs, repeats, seed, one):
    """Each repeat, every (job, config) once in a shuffled order; one(job,
    config, rep) measures one, an error its record."""
    runs = []
    for rep in range(repeats):
        order = configs[:]
        random.Random(seed + rep).shuffle(order)
        for job, config in order:
            try:
                rec = one(job, config, rep)
            except (RuntimeError, subprocess.SubprocessError, OSError) as e:
                rec = {"rep": rep, "job": job, "config": config, "error": str(e)[:800]}
            runs.append(rec)
            log("  rep %d %-10s %-18s %s" % (rep, job, config, report.brief_run(rec)))
    return runs


def count_lines(path, needle):
    n = 0
    with open(path, "rb") as f:
        for line in f:
            if needle.encode() in line:
                n += 1
    return n


# -------------------------------------------------------------- scenarios

OVERHEAD_CONFIGS = [
    "untraced",
    "libbpf-nop",
    "kptrace-stream", "libbpf-stream", "bpftrace-stream", "uprobe_events-stream",
    "kptrace-hist", "libbpf-hist", "bpftrace-hist",
    "kptrace-latency", "libbpf-latency", "bpftrace-latency", "funclatency-latency",
    # issue 22: kptrace-hist under a budget it never reaches (its cost against
    # kptrace-hist's), and under 1% of a CPU with the loop saturating the probe
    "kptrace-budget", "kptrace-budget1pct",
]


# The same jobs through the tracepoint syscalls/sys_enter_lseek, driven by
# workload --lseek (no latency: kptrace latency pairs functions).
TRACEPOINT_CONFIGS = [
    "untraced",
    "libbpf-nop",
    "kptrace-stream", "libbpf-stream", "bpftrace-stream", "ftrace-stream",
    "kptrace-hist", "libbpf-hist", "bpftrace-hist",
    # the kmalloc histogram (kptrace hist kmalloc, the kmem:kmalloc
    # tracepoint): start-up and memory only, the lseek loop allocates nothing
    "kptrace-kmalloc", "bpftrace-kmalloc",
    # two-event latency: sys_enter_lseek to sys_exit_lseek per thread
    # (issue 19: kptrace latency --from/--to against bpftrace's @start[tid])
    "kptrace-pair", "libbpf-pair", "bpftrace-pair",
    # counts per container (issue 40): --by container against the same
    # count unkeyed and bpftrace's @[cgroup] = count()
    "kptrace-count", "kptrace-countcg", "bpftrace-countcg",
]
TP_EXIT = "syscalls/sys_exit_lseek"
KMALLOC_TP = "kmem/kmalloc"

# Kernel stacks on the same tracepoint and loop: each event with its stack
# (kstream), and the count per stack (kcount); the floor's empty program
# for the tracepoint's own cost.
# The streamed stacks' buffer, the same bytes for every tool: the floor's
# fixed records (room for 127 frames, ~1 kB) fill its 4 MB default in ~15 ms
# of the loop, and a consumer descheduled that long by the other jobs on
# this host lost most of a run; kptrace's 2 MB default lost some too.
STACKS_RING = "16M"
STACKS_CONFIGS = [
    "untraced",
    "libbpf-nop",
    "kptrace-kstream", "libbpf-kstream", "bpftrace-kstream",
    "kptrace-kcount", "libbpf-kcount", "bpftrace-kcount",
]


def one_overhead_run(config, rep, calls, ft, stats, mech="uprobe"):
    """One configuration of scenario 1 (mech "uprobe": bench_fn's loop) or of
    its tracepoint variant (mech "tracepoint": the lseek loop; every process's
    lseek hits the tracepoint, so the tools see at least the calls made, and
    the BPF time is per program run, not per call of the workload)."""
    lseek = mech in ("tracepoint", "stacks")
    stats_calls = TP_STATS_CALLS if lseek else STATS_CALLS
    rec = {"rep": rep, "config": config, "loadavg": os.getloadavg()[0]}
    if config == "untraced":
        n = max(calls * 2, 500000) if lseek else max(calls * 100, 2000000)
        w = run_workload(n, lseek=lseek)
        rec["ns_per_call"] = w["ns_per_call"]
        return rec
    outpath = os.path.join(OUT, "run.out")
    with open(outpath, "w") as out:
        if config.startswith("uprobe_events"):
            proc = FtraceProc(ft, out)
        elif config == "ftrace-stream":
            proc = FtraceProc(ft, out, enable=ft.tp_enable, name="ftrace", buffer_kb=TP_FTRACE_BUFFER_KB)
        else:
            proc = make_tool(config, out, mech=mech)
        try:
            rec["startup_ms"] = proc.start()
            if proc.pid():
                time.sleep(IDLE_S)
                m = mem_status(proc.pid())
                rec.update(hwm_kb=m.get("VmHWM"), rss_kb=m.get("VmRSS"), map_rss_kb=m.get("map_rss"))
            if config.endswith("-kmalloc"):
                rec["exit"] = proc.stop()
                return rec      # start-up and memory only
            w = run_workload(calls, lseek=lseek)
            rec["ns_per_call"] = w["ns_per_call"]
            expected = calls
            if stats and proc.pid():
                fd = enable_bpf_stats()
                if fd is not None:
                    try:
                        s0 = prog_stats(proc.pid())
                        run_workload(stats_calls, lseek=lseek)
                        s1 = prog_stats(proc.pid())
                    finally:
                        os.close(fd)
                    expected += stats_calls
                    if s0 and s1:
                        runs = s1[1] - s0[1]
                        rec["bpf_runs_per_call"] = runs / stats_calls
                        if lseek:
                            # one program per hit, and other processes' lseeks
                            # run it too: time per run is time per hit
                            rec["bpf_ns_per_call"] = (s1[0] - s0[0]) / runs if runs > 0 else None
                        else:
                            rec["bpf_ns_per_call"] = (s1[0] - s0[0]) / stats_calls
            if proc.pid():
                rec["hwm_end_kb"] = mem_status(proc.pid()).get("VmHWM")
                if config.endswith(("-stream", "-kstream")):
                    settle(outpath)
        finally:
            rc = proc.stop()
        rec["exit"] = rc
        rec["expected"] = expected
        rec["events"], rec["lost"] = events_seen(config, proc, outpath, mech)
        if lseek:
            # unfiltered: others' lseeks are seen too; "every call seen" is >=
            rec["unfiltered"] = True
            if rec["events"] is not None:
                # what the tool saw or says it lost, beyond the calls made
                rec["surplus"] = rec["events"] + (rec["lost"] or 0) - expected
    os.unlink(outpath)
    return rec


def overhead_loop(configs, args, calls, ft, stats, mech, seed):
    runs = []
    for rep in range(args.repeats):
        order = configs[:]
        random.Random(seed + rep).shuffle(order)
        for config in order:
            try:
                rec = one_overhead_run(config, rep, calls, ft, stats, mech)
            except (RuntimeError, subprocess.SubprocessError, OSError) as e:
                rec = {"rep": rep, "config": config, "error": str(e)[:800]}
            runs.append(rec)
            log("  rep %d %-22s %s" % (rep, config, report.brief_run(rec)))
    return runs


def scenario_overhead(args, ft):
    configs = [c for c in OVERHEAD_CONFIGS if not (c.startswith("uprobe_events") and not ft.ok)]
    stats = args.bpf_stats and enable_bpf_stats_probe()
    log("== per-hit overhead, start-up and memory: %d configurations x %d repeats, %d calls each"
        % (len(configs), args.repeats, args.calls))
    runs = overhead_loop(configs, args, args.calls, ft, stats, "uprobe", 1000)
    return {"calls": args.calls, "stats_calls": STATS_CALLS if stats else 0, "runs": runs}


def scenario_tracepoint(args, ft):
    """Scenario 1's stream and hist (and the empty program) through the
    tracepoint syscalls/sys_enter_lseek, driven by workload --lseek."""
    configs = [c for c in TRACEPOINT_CONFIGS if not (c == "ftrace-stream" and not ft.tp_ok)]
    stats = args.bpf_stats and enable_bpf_stats_probe()
    log("== per-hit overhead through the tracepoint %s: %d configurations x %d repeats, %d calls each"
        % (TP, len(configs), args.repeats, args.tp_calls))
    runs = overhead_loop(configs, args, args.tp_calls, ft, stats, "tracepoint", 2000)
    return {"tracepoint": TP, "calls": args.tp_calls, "ftrace_buffer_kb": TP_FTRACE_BUFFER_KB,
            "stats_calls": TP_STATS_CALLS if stats else 0, "runs": runs}


def scenario_stacks(args):
    """Kernel stacks through the tracepoint syscalls/sys_enter_lseek (each
    event's, and counted per stack), then the user-stack symbolizer's rate."""
    stats = args.bpf_stats and enable_bpf_stats_probe()
    log("== kernel stacks through the tracepoint %s: %d configurations x %d repeats, %d calls each"
        % (TP, len(STACKS_CONFIGS), args.repeats, args.tp_calls))
    runs = overhead_loop(STACKS_CONFIGS, args, args.tp_calls, None, stats, "stacks", 3000)
    log("== user-stack symbolization: usym_addr() on live processes' code, one core")
    usym, sample, out = [], [], ""
    try:
        # the overhead runs are kept when this fails
        r = subprocess.run([DECODER, "usym", str(args.decoder_seconds), str(args.repeats)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300, check=True)
        out = r.stdout.decode(errors="replace")
    except subprocess.SubprocessError as e:
        err = getattr(e, "stderr", None) or b""
        sample.append("ERROR %s %s" % (e, err.decode(errors="replace").strip()))
        log("  usym: " + sample[-1])
    for line in out.splitlines():
        if line.startswith("usym "):
            kv = dict(f.split("=", 1) for f in line.split()[1:])
            usym.append({"target": kv["target"], "frames": int(kv["frames"]),
                         "named": int(kv["named"]), "cpu_s": float(kv["cpu_s"]),
                         "frames_per_cpu_s": float(kv["frames_per_cpu_s"]),
                         "cold_ms": float(kv["cold_ms"])})
            log("  %s" % line)
        else:
            sample.append(line)
    return {"tracepoint": TP, "calls": args.tp_calls, "ring": STACKS_RING,
            "stats_calls": TP_STATS_CALLS if stats else 0, "runs": runs,
            "usym": {"addresses": 4096, "runs": usym, "sample": sample}}


def enable_bpf_stats_probe():
    fd = enable_bpf_stats()
    if fd is None:
        log("  (BPF_ENABLE_STATS refused: no in-kernel program times)")
        return False
    os.close(fd)
    return True


def scenario_decoder(args):
    log("== decoder throughput: output_text()/output_json() on pre-built records, one core")
    r = subprocess.run([DECODER, str(args.decoder_seconds), str(args.repeats)],
                       stdout=subprocess.PIPE, timeout=300, check=True)
    runs, sample = [], []
    for line in r.stdout.decode(errors="replace").splitlines():
        if line.startswith("format="):
            kv = dict(f.split("=", 1) for f in line.split())
            runs.append({"format": kv["format"], "lines": int(kv["lines"]),
                         "cpu_s": float(kv["cpu_s"]), "wall_s": float(kv["wall_s"]),
                         "lines_per_cpu_s": float(kv["lines_per_cpu_s"])})
            log("  %s" % line)
        else:
            sample.append(line)
    return {"runs": runs, "sample": sample}


def scenario_throughput(args):
    ncpu = os.cpu_count() or 1
    sizes = ["8K", "64K", "512K", "4M"] if not args.quick else ["8K", "4M"]
    per = args.throughput_calls
    loads = [(1, 10000), (1, 20000), (1, 0), (2, 0), (4, 0)]
    if args.quick:
        loads = [(1, 10000), (2, 0)]
    points = []
    log("== throughput without loss: %s buffers, loads %s (threads, calls/s per thread; 0: flat out)"
        % ("/".join(sizes), loads))
    for tool in ("kptrace", "bpftrace"):
        for size in sizes:
            nbytes = report.parse_size(size)
            pages = max(1, nbytes // (ncpu * 4096))     # bpftrace: pages per CPU, same total
            for threads, rate in loads:
                n = max(2000, int(rate * args.throughput_seconds)) if rate else per
                pt = {"tool": tool, "buffer": size, "buffer_bytes": nbytes, "threads": threads,
                      "target_rate": rate * threads, "calls_per_thread": n}
                if tool == "bpftrace":
                    pt["perf_rb_pages_per_cpu"] = pages
                outpath = os.path.join(OUT, "tput.out")
                w = None
                try:
                    with open(outpath, "w") as out:
                        proc = make_tool("%s-stream" % tool, out, bufsize=size if tool == "kptrace" else None,
                                         rb_pages=pages if tool == "bpftrace" else None)
                        try:
                            proc.start()
                            w = run_workload(n, rate, threads)
                            settle(outpath)
                        finally:
                            pt["exit"] = proc.stop()
                    pt["generated"] = int(w["calls"])
                    pt["rate"] = w["rate"]
                    pt["delivered"], pt["dropped"] = events_seen("%s-stream" % tool, proc, outpath)
                    if tool == "kptrace":
                        rows = re.findall(r"^(\S+/\S+)\s+(\d+)", "".join(proc.stderr_lines), re.M)
                        pt["hits"] = int(rows[0][1]) if rows else None
                except (RuntimeError, subprocess.SubprocessError, OSError) as e:
                    pt["error"] = str(e)[:800]
                if os.path.exists(outpath):
                    os.unlink(outpath)
                points.append(pt)
                log("  %-8s %-5s %s" % (tool, size, report.brief_point(pt)))
    return {"points": points}


# ------------------------------------------------------------------- main

def versions():
    def cmd(argv):
        try:
            r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=30)
            return r.stdout.decode(errors="replace").strip().splitlines()[0]
        except (OSError, IndexError, subprocess.SubprocessError):
            return None

    def deb(pkg):
        """Its version, "not installed" where dpkg has none (whose error
        cmd() would take for a version)."""
        r = subprocess.run(["dpkg-query", "-W", "-f=${Version}", pkg], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL)
        return r.stdout.decode(errors="replace").strip() or None if not r.returncode \
            else "not installed"

    return {
        "kernel": platform.release(),
        "cpus": os.cpu_count(),
        "kptrace_commit": cmd(["git", "-C", ROOT, "describe", "--always", "--dirty"]),
        "bpftrace": cmd(["bpftrace", "--version"]),
        "libbpf_tools": deb("libbpf-tools"),
        "libbpf": deb("libbpf1"),
        "clang": cmd(["clang", "--version"]),
        "kprobes": bool(re.search(r"\sregister_kprobe$", open("/proc/kallsyms").read(), re.M)),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=int(os.environ.get("BENCH_REPEATS", 5)))
    ap.add_argument("--calls", type=int, default=int(os.environ.get("BENCH_CALLS", 40000)),
                    help="workload calls per overhead run")
    ap.add_argument("--tp-calls", type=int, default=int(os.environ.get("BENCH_TP_CALLS", 200000)),
                    help="lseek calls per tracepoint overhead run")
    ap.add_argument("--throughput-calls", type=int, default=30000,
                    help="calls per thread at an unpaced throughput point")
    ap.add_argument("--throughput-seconds", type=float, default=1.0,
                    help="length of a paced throughput point")
    ap.add_argument("--decoder-seconds", type=float, default=1.0)
    ap.add_argument("--only", default=os.environ.get("BENCH_ONLY", ",".join(SCENARIOS)),
                    help="comma-separated scenarios, of %s (tracepoint: scenario 1 through "
                    "syscalls/sys_enter_lseek; stacks: kernel stacks there, and the user-stack "
                    "symbolizer; pair: latency with several --from/--to and sched_switch at both "
                    "ends; static: raw_syscalls through tp_btf and the classic tracepoint, and a "
                    "USDT probe; vm: kprobes in qemu, bench/vm/; BENCH_VM=0 drops it)"
                    % ",".join(SCENARIOS))
    ap.add_argument("--vm-kernels", default=os.environ.get("BENCH_VM_KERNELS", "6.12 6.1"),
                    help="kernels booted for the vm scenario (tests/vm/run.sh --kernel)")
    ap.add_argument("--vm-timeout", type=int, default=1200, help="seconds per VM boot, at most")
    ap.add_argument("--vm-repeats", type=int, default=0, help="repeats in the VM (default 7, --quick 2)")
    ap.add_argument("--no-bpf-stats", dest="bpf_stats", action="store_false",
                    help="do not turn BPF run-time stats on (BPF_ENABLE_STATS) for a short window per run")
    ap.add_argument("--quick", action="store_true", default=os.environ.get("BENCH_QUICK") == "1",
                    help="2 repeats, fewer calls and points: a smoke run")
    ap.add_argument("-o", "--output", default=os.path.join(OUT, "results.json"))
    args = ap.parse_args()
    if args.quick:
        args.repeats, args.calls, args.throughput_calls = min(args.repeats, 2), 5000, 5000
        args.tp_calls = min(args.tp_calls, 40000)
        args.decoder_seconds = 0.3
    only = set(args.only.split(","))
    unknown = only - set(SCENARIOS)
    if unknown:
        ap.error("--only: unknown scenario %s (of %s)" % (",".join(sorted(unknown)), ",".join(SCENARIOS)))
    if os.environ.get("BENCH_VM") == "0":
        only.discard("vm")

    if os.geteuid() != 0:
        sys.exit("bench: needs root (BPF, uprobes)")
    for f in (KPT, WORK, BASE, DECODER) + ((os.path.join(OUT, "vmdrive"),) if "vm" in only else ()):
        if not os.access(f, os.X_OK):
            sys.exit("bench: %s missing: run 'make bench'" % f)
    os.makedirs(OUT, exist_ok=True)
    lock = open(os.path.join(OUT, "bench.lock"), "w")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        sys.exit("bench: another bench run holds %s" % lock.name)

    def on_signal(sig, frame):
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, on_signal)

    ft = Ftrace()
    t0 = time.time()
    res = {"meta": versions(), "params": {k: v for k, v in vars(args).items() if k != "output"}}
    res["meta"]["date"] = time.strftime("%Y-%m-%d %H:%M:%S %z")
    res["meta"]["loadavg_start"] = os.getloadavg()
    if only == {"vm"} and os.path.exists(args.output):
        # bench-vm: the VM part replaces its own in the last results; the
        # host's scenarios (and their parameters) stay as they were measured
        with open(args.output) as f:
            prev = json.load(f)
        for k in ("params", "overhead", "tracepoint", "stacks", "pair", "static", "decoder", "throughput", "serve",
                  "stop", "timechart", "ustack"):
            if k in prev:
                res[k] = prev[k]
        res["meta"]["host_results_date"] = prev.get("meta", {}).get("date")
        # a kernel this run does not boot keeps its last results
        # (--vm-kernels 6.12 after a 6.12 boot failed, say)
        prev_kernels = {k: v for k, v in prev.get("vm", {}).get("kernels", {}).items()
                        if k not in args.vm_kernels.split()}
    else:
        prev_kernels = {}
    try:
        ft.ok = ft.ok and "overhead" in only
        ft.tp_ok = ft.tp_ok and "tracepoint" in only
        if ft.ok or ft.tp_ok:
            try:
                ft.setup(uprobe=ft.ok)
            except (OSError, RuntimeError, subprocess.SubprocessError) as e:
                log("bench: ftrace unusable (%s): its rows are left out" % e)
                ft.cleanup()
                ft.ok = ft.tp_ok = False
        if "overhead" in only:
            res["overhead"] = scenario_overhead(args, ft)
        if "tracepoint" in only:
            res["tracepoint"] = scenario_tracepoint(args, ft)
        if "stacks" in only:
            res["stacks"] = scenario_stacks(args)
        if "pair" in only:
            res["pair"] = pairbench.scenario_pair(args, sys.modules[__name__])
        if "static" in only:
            res["static"] = staticbench.scenario_static(args, sys.modules[__name__])
        if "decoder" in only:
            res["decoder"] = scenario_decoder(args)
        if "throughput" in only:
            res["throughput"] = scenario_throughput(args)
        if "serve" in only:
            res["serve"] = servebench.scenario_serve(args, log, KPT, WORK, OUT)
        if "stop" in only:
            res["stop"] = stopbench.scenario_stop(args, log, KPT, OUT)
        if "timechart" in only:
            res["timechart"] = tchartbench.scenario_timechart(args, log, KPT, OUT)
        if "ustack" in only:
            res["ustack"] = ustackbench.scenario_ustack(args, log, KPT, OUT,
                                                        os.path.join(HERE, "ustack_workload.c"))
        if "vm" in only:
            # the host's results first, should the VM part be cut short
            save(res, args.output, t0)
            res["vm"] = {}   # filled as each kernel's boot ends
            try:
                vmbench.scenario_vm(args, log, res["vm"])
            finally:
                for k, v in prev_kernels.items():
                    res["vm"].setdefault("kernels", {})[k] = v
    except KeyboardInterrupt:
        log("bench: interrupted; stopping what runs")
        res["interrupted"] = True
    finally:
        for p in list(running):
            try:
                p.stop()
            except Exception as e:  # the cleanup must go on
                log("warning: stopping %s: %s" % (p.name, e))
        if ft.ok or ft.tp_ok:
            ft.cleanup()
        if os.path.exists(FIFO):
            os.unlink(FIFO)
    save(res, args.output, t0)
    if res.get("interrupted"):
        return 1
    failed = [k for k, v in res.get("vm", {}).get("kernels", {}).items() if v.get("error")]
    if failed:
        log("bench: the VM scenario FAILED on %s (host results kept): %s" %
            (", ".join(failed), " / ".join(res["vm"]["kernels"][k]["error"][:300] for k in failed)))
        return 3
    return 0


def save(res, path, t0):
    res["meta"]["loadavg_end"] = os.getloadavg()
    res["meta"]["seconds"] = round(time.time() - t0, 1)
    res["summary"] = report.summarize(res)
    with open(path + ".tmp", "w") as f:
        json.dump(res, f, indent=1)
    os.replace(path + ".tmp", path)
    log("bench: %s written (%.0f s)" % (path, time.time() - t0))


if __name__ == "__main__":
    sys.exit(main())
