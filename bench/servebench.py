# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""The serve scenario (issue 20): kptrace serve on loopback, measured from
outside as a Prometheus server sees it.

- series: a count --by a over bench_fn's calls (a = the call's index), with
  100, 1,000 and 10,000 calls made: each scrape's wall time (the client's:
  request to last byte) and its size;
- overhead: the lseek loop's cost per call with a histogram job attached,
  scraped every SCRAPE_S seconds by a thread against not scraped, the two
  alternated REPEATS times;
- rss: serve's steady RSS with the issue's four jobs as this host can run
  them (no kprobes here: the latency and the errno count through the
  syscalls' tracepoints), after 20 scrapes.
"""
import os
import random
import re
import signal
import socket
import subprocess
import threading
import time
import urllib.request

SERIES = [100, 1000, 10000]
SCRAPES = 20            # per series count
SCRAPE_S = 1.0          # the scraper's period in the overhead runs
LSEEK_CALLS = 10000000  # ~5 s of the lseek loop: some five scrapes a run


def _free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Serve:
    """kptrace serve of a job file, started until it says it serves."""

    def __init__(self, kpt, jobs, out):
        self.port = _free_port()
        self.path = os.path.join(out, "serve.kpt")
        self.err = os.path.join(out, "serve.err")
        with open(self.path, "w") as f:
            f.write(jobs)
        self.proc = subprocess.Popen([kpt, "serve", "-f", self.path, "--listen",
                                      "127.0.0.1:%d" % self.port],
                                     stdout=subprocess.DEVNULL, stderr=open(self.err, "w"))
        t0 = time.time()
        while time.time() - t0 < 60:
            if "serving http" in open(self.err).read():
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.1)
        self.stop()
        raise RuntimeError("serve did not start: %s" % open(self.err).read()[-400:])

    def scrape(self):
        """(wall seconds, bytes) of one /metrics."""
        t0 = time.perf_counter()
        body = urllib.request.urlopen("http://127.0.0.1:%d/metrics" % self.port, timeout=30).read()
        return time.perf_counter() - t0, len(body), body.decode(errors="replace")

    def rss_kb(self):
        with open("/proc/%d/status" % self.proc.pid) as f:
            m = re.search(r"^VmRSS:\s+(\d+)", f.read(), re.M)
        return int(m.group(1)) if m else None

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def _series(kpt, work, out, log):
    rows = []
    for n in SERIES:
        job = "calls: count 'p:%s:bench_fn a=%%di:u64' --by a --max-keys %d\n" % (work, 2 * n)
        sv = Serve(kpt, job, out)
        try:
            subprocess.run([work, str(n)], stdout=subprocess.DEVNULL, check=True, timeout=120)
            times, size, got = [], 0, 0
            for _ in range(SCRAPES):
                t, size, text = sv.scrape()
                times.append(t)
            got = len(re.findall(r"^kptrace_calls_total\{", text, re.M))
            rows.append({"calls": n, "series": got, "scrape_s": times, "bytes": size,
                         "rss_kb": sv.rss_kb()})
            log("  %d series: scrape %.1f ms median, %d bytes" %
                (got, 1e3 * sorted(times)[len(times) // 2], size))
        finally:
            sv.stop()
    return rows


def _overhead(kpt, work, out, repeats, log):
    job = "offsets: hist 't:syscalls/sys_enter_lseek offset' offset\n"
    sv = Serve(kpt, job, out)
    runs = []
    try:
        order = [True, False] * repeats
        random.shuffle(order)
        for scraped in order:
            stop = threading.Event()
            n = [0]

            def scraper():
                while not stop.wait(SCRAPE_S):
                    sv.scrape()
                    n[0] += 1
            th = threading.Thread(target=scraper) if scraped else None
            if th:
                th.start()
            try:
                r = subprocess.run([work, "--lseek", str(LSEEK_CALLS)], stdout=subprocess.PIPE,
                                   check=True, timeout=180)
            finally:
                stop.set()
                if th:
                    th.join()
            kv = dict(f.split("=", 1) for f in r.stdout.decode().split())
            runs.append({"scraped": scraped, "ns_per_call": float(kv["ns_per_call"]),
                         "scrapes": n[0]})
            log("  %s: %.0f ns/call (%d scrapes)" %
                ("scraped" if scraped else "not scraped", float(kv["ns_per_call"]), n[0]))
    finally:
        sv.stop()
    return runs


def _rss(kpt, out, log):
    jobs = ("kmalloc_bytes: hist kmalloc --by comm\n"
            "read_latency:  latency --from 't:syscalls/sys_enter_read' --to 't:syscalls/sys_exit_read'\n"
            "open_errors:   count 't:syscalls/sys_exit_openat ret:errno if ret < 0' --by comm,ret\n"
            "lseek_offsets: hist 't:syscalls/sys_enter_lseek offset' offset --linear 0,65536,4096\n")
    sv = Serve(kpt, jobs, out)
    try:
        for _ in range(SCRAPES):
            sv.scrape()
            time.sleep(0.05)
        kb = sv.rss_kb()
        log("  four jobs: RSS %s kB after %d scrapes" % (kb, SCRAPES))
        return {"rss_kb": kb, "jobs": 4}
    finally:
        sv.stop()


def scenario_serve(args, log, kpt, work, out):
    log("== serve: scrape time by series, a probe's cost scraped and not, RSS")
    res = {"series": _series(kpt, work, out, log)}
    res["overhead"] = _overhead(kpt, work, out, max(args.repeats, 3), log)
    res["rss"] = _rss(kpt, out, log)
    return res
