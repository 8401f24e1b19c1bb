# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""The VM scenarios of kptrace's benchmark: kernel functions through real
kprobes, fentry and kprobe.multi, in qemu (this host's kernel has no
kprobes). bench/bench.py calls scenario_vm(); each kernel is one boot of
tests/vm/run.sh running bench/vm/guest.sh, which prints a RESULT line per
run; they are parsed here into results.json's "vm" part. A kernel whose boot
fails or times out is recorded with its error and the others go on: the host
results are never lost to a VM failure.
"""
import os
import re
import shutil
import subprocess
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(ROOT, ".output", "bench")
# the guest's memory when bpftrace goes in: its libraries (~200 MB) live in
# the initramfs, unpacked into RAM, and it runs LLVM
BPFTRACE_MEM_MB = 3072


# Boots per kernel: a guest kernel under TCG dies now and then at a
# text_poke() int3 ("Oops: int3" in a function nothing probes), a fault of
# the emulation, not of what runs; such a boot is run again once, from the
# start, and reported. Any other failure is not retried.
BOOTS = 2


def guest_oops(kernel):
    """The console's first kernel oops or panic line, else None."""
    try:
        with open(os.path.join(ROOT, ".output", "vm", "%s.log" % kernel), errors="replace") as f:
            for line in f:
                m = re.search(r"(Oops: .*|Kernel panic - .*|BUG: .*)$", line.rstrip())
                if m:
                    return m.group(1)[:160]
    except OSError:
        pass
    return None


def params(quick):
    """What the guest runs. Scale: 1, 100 and 1,000 functions through
    kprobe.multi where the kernel has it, else kprobes; on 6.12 also through
    kprobes, for comparison. More than 100 kprobes get one run only: under
    TCG attaching and detaching 1,000 of them takes ~2 minutes. Why: kptrace
    why, ftrace's function_graph and the floor over 100 and 1,000 functions
    beneath vfs_read (where the kernel has kprobe.multi)."""
    if quick:
        return {"REPEATS": 2, "CALLS": 20000, "SCALE_NS": "1 100", "SCALE_CALLS": 20000,
                "SCALE_REPEATS": 1, "SCALE_BACKENDS": "",
                "WHY_NS": "100 1000", "WHY_CALLS": 20000, "WHY_REPEATS": 2}
    return {"REPEATS": 7, "CALLS": 100000, "SCALE_NS": "1 100 1000", "SCALE_CALLS": 50000,
            "SCALE_REPEATS": 3, "SCALE_BACKENDS": "",
            "WHY_NS": "100 1000", "WHY_CALLS": 50000, "WHY_REPEATS": 5}


def scale_backends(kernel, p):
    # 6.1 has no kprobe.multi: the guest picks kprobes; 6.12 does both
    if kernel == "6.12" and not p["SCALE_BACKENDS"]:
        return "kprobe-multi kprobe"
    return p["SCALE_BACKENDS"]


def _value(v):
    try:
        return float(v) if "." in v else int(v)
    except ValueError:
        return v


def parse_line(line):
    """'RESULT k=v k=v ...' -> dict (a key given twice: the last one)."""
    rec = {}
    for tok in line.split()[1:]:
        k, sep, v = tok.partition("=")
        if sep:
            rec[k] = _value(v)
    if "attached" not in rec:
        return rec
    att = str(rec["attached"])
    m = re.search(r"in_(\d+)_ms", att)
    if m:
        rec["attach_ms"] = int(m.group(1))
    m = re.search(r"\((\d+)_through_(kprobe\.multi|fentry/fexit)\)", att)
    rec["through"] = m.group(2) if m else "kprobe"
    return rec


def run_kernel(kernel, p, timeout, log, res):
    """One boot: fills res with "info", "runs" and "errors" (the tracers' last
    words on failed runs) as they come, and "error" when the boot did not
    complete."""
    conf = dict(p, SCALE_BACKENDS=scale_backends(kernel, p))
    cpath = os.path.join(OUT, "vm-%s.conf" % kernel)
    with open(cpath, "w") as f:
        for k, v in conf.items():
            f.write('%s="%s"\n' % (k, v))
    argv = [os.path.join(ROOT, "tests/vm/run.sh"), "--kernel", kernel,
            "--script", os.path.join(HERE, "guest.sh"),
            "--add", os.path.join(ROOT, "kptrace") + ":/bin/kptrace",
            "--add", os.path.join(OUT, "vmdrive") + ":/bin/vmdrive",
            "--add", os.path.join(OUT, "baseline") + ":/bin/baseline",
            "--add", cpath + ":/bench.conf", "--timeout", str(timeout)]
    bt = shutil.which("bpftrace")
    if bt:
        # dynamically linked (LLVM, clang: ~200 MB of libraries, which
        # run.sh copies along): room for them in the initramfs, as RAM
        argv += ["--add", os.path.realpath(bt) + ":/usr/bin/bpftrace", "--mem", str(BPFTRACE_MEM_MB)]
    res.update(kernel=kernel, params=conf, info={}, runs=[], errors=[])
    errpath = os.path.join(OUT, "vm-%s.err" % kernel)
    outpath = os.path.join(OUT, "vm-%s.out" % kernel)
    t0 = time.time()
    done = False
    with open(errpath, "w") as err, open(outpath, "w") as out:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=err, cwd=ROOT)
        try:
            rc = _follow(proc, kernel, res, out, log, timeout)
        except BaseException:
            proc.terminate()   # run.sh's timeout takes qemu down with it
            proc.wait(30)
            raise
    done = res["info"].get("done") is not None
    res["seconds"] = round(time.time() - t0, 1)
    res["rc"] = rc
    if rc != 0 or not done:
        with open(errpath) as f:
            # run.sh's own verdict, not the console tail it repeats on a timeout
            tail = [l for l in f.read().splitlines() if l.startswith(("run.sh:", "qemu-system"))][-3:]
        res["error"] = "run.sh exit %s%s: %s" % (rc, "" if done else ", the guest script did not finish",
                                                " | ".join(tail)[-800:])
        log("  vm %-5s FAILED: %s (console: .output/vm/%s.log)" % (kernel, res["error"], kernel))


def _follow(proc, kernel, res, out, log, timeout):
    """The guest's lines as they come; returns run.sh's exit status."""
    for raw in iter(proc.stdout.readline, b""):
        line = raw.decode(errors="replace").rstrip("\n")
        out.write(line + "\n")
        # console noise may precede a line: take it from its keyword on
        i = max(line.find("RESULT "), line.find("INFO "))
        if i < 0:
            continue
        line = line[i:]
        if line.startswith("RESULT "):
            rec = parse_line(line)
            res["runs"].append(rec)
            log("  vm %-5s %s" % (kernel, brief(rec)))
        elif line.startswith("INFO err:"):
            res["errors"].append(line[10:])
            log("  vm %-5s %s" % (kernel, line))
        else:
            res["info"].update(parse_line(line) if "=" in line else {line.split()[1]: True})
            log("  vm %-5s %s" % (kernel, line))
    try:
        return proc.wait(timeout + 120)   # run.sh bounds qemu by --timeout itself
    except subprocess.TimeoutExpired:
        proc.terminate()
        return proc.wait(30)


def brief(r):
    if "error" in r:
        return "%s: ERROR %s" % (r.get("config"), r["error"])
    out = "%s rep %s: %.0f ns/call" % (r.get("config"), r.get("rep"), r.get("ns_per_call", 0))
    if "startup_ms" in r:
        out += ", start %.0f ms, stop %.0f ms" % (r["startup_ms"], r.get("stop_ms", 0))
    if "attach_ms" in r:
        out += ", attach %d ms" % r["attach_ms"]
    if "events" in r:
        out += ", events %s/%s" % (r["events"], r.get("calls"))
    if r.get("lost"):
        out += " lost %s" % r["lost"]
    if r.get("cold_hits"):
        out += ", cold hits %s" % r["cold_hits"]
    if r.get("rc"):
        out += ", rc %s" % r["rc"]
    return out


def scenario_vm(args, log, res):
    """Fills res (results.json's "vm") kernel by kernel, so that an
    interrupted run keeps the boots that completed."""
    kernels = args.vm_kernels.split()
    p = params(args.quick)
    if args.vm_repeats:
        p["REPEATS"] = args.vm_repeats
    log("== kernel functions in qemu (TCG): kernels %s, %d repeats of %d calls, scale %s"
        % (" ".join(kernels), p["REPEATS"], p["CALLS"], p["SCALE_NS"]))
    res.update(params=p, kernels={})
    for k in kernels:
        oopses = []
        for boot in range(1, BOOTS + 1):
            kres = res["kernels"][k] = {"kernel": k, "runs": [], "info": {}}
            try:
                run_kernel(k, p, args.vm_timeout, log, kres)
            except (OSError, subprocess.SubprocessError) as e:
                kres["error"] = str(e)[:800]
                log("  vm %-5s FAILED: %s" % (k, e))
            oops = guest_oops(k) if kres.get("error") else None
            if not oops or boot == BOOTS:
                break
            kept = os.path.join(ROOT, ".output", "vm", "%s-boot%d.log" % (k, boot))
            shutil.copyfile(os.path.join(ROOT, ".output", "vm", "%s.log" % k), kept)
            oopses.append({"oops": oops, "console": os.path.relpath(kept, ROOT),
                           "runs_done": len(kres["runs"])})
            log("  vm %-5s the guest kernel died (%s): its runs dropped, booting once more "
                "(console kept: %s)" % (k, oops, os.path.relpath(kept, ROOT)))
        kres["oopsed_boots"] = oopses
