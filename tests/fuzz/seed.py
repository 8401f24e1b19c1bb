#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""
Seed corpora for the libFuzzer harnesses, written to tests/fuzz/corpus/:

  spec/    the definition of every good and bad row of tests/unit/test_spec.c
           (caret removed), plus a few built at the parser's limits;
  filter/  the expression of every row of tests/unit/test_filter.c's good,
           bad (caret removed) and rows tables, its evaluation rows that use
           globs, its run("...") calls, plus a few with a record after the
           NUL (see fuzz_filter.c);
  decode/  hand-made probe layouts and records in fuzz_decode.c's input
           layout: every type, arrays, faults, strings, each probe kind,
           raw layouts, and a few malformed records.

Files are named by the SHA-1 of their content, as libFuzzer names them.
Run from anywhere: python3 tests/fuzz/seed.py [--check]. --check only
reports whether the committed corpus matches what would be written.
"""
import hashlib
import os
import re
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
UNIT = os.path.join(ROOT, "tests", "unit")
CORPUS = os.path.join(HERE, "corpus")


# ---- C string literals ----

def c_unescape(body):
    """The bytes of a C string literal's body (between the quotes)."""
    out = bytearray()
    i = 0
    simple = {"n": 10, "t": 9, "r": 13, "a": 7, "b": 8, "f": 12, "v": 11,
              "\\": 92, "'": 39, '"': 34, "?": 63}
    while i < len(body):
        c = body[i]
        if c != "\\":
            out += c.encode()
            i += 1
            continue
        i += 1
        c = body[i]
        if c in simple:
            out.append(simple[c])
            i += 1
        elif c == "x":
            j = i + 1
            while j < len(body) and body[j] in "0123456789abcdefABCDEF":
                j += 1
            out.append(int(body[i + 1:j], 16) & 0xFF)
            i = j
        elif c in "01234567":
            j = i
            while j < len(body) and j < i + 3 and body[j] in "01234567":
                j += 1
            out.append(int(body[i:j], 8) & 0xFF)
            i = j
        else:
            raise ValueError("unknown escape \\" + c)
    return bytes(out)


STR_RE = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
WS_RE = re.compile(r'(?:\s|//[^\n]*|/\*.*?\*/)*', re.S)


def literal_run(src, pos):
    """Adjacent string literals from pos (after blanks): (bytes, end) or (None, pos)."""
    out = None
    while True:
        p = WS_RE.match(src, pos).end()
        m = STR_RE.match(src, p)
        if not m:
            return out, pos
        out = (out or b"") + c_unescape(m.group(1))
        pos = m.end()


def table_rows(src, name):
    """First field of each row of every 'NAME[] = { {...}, ... };' table."""
    rows = []
    for m in re.finditer(r'\b' + re.escape(name) + r'\[\]\s*=\s*\{', src):
        pos, depth = m.end(), 1
        while depth:
            c = src[pos]
            if c == '"':
                pos = STR_RE.match(src, pos).end()
                continue
            if c == "'":
                pos = re.compile(r"'(?:[^'\\]|\\.)*'").match(src, pos).end()
                continue
            if src.startswith("//", pos) or src.startswith("/*", pos):
                pos = WS_RE.match(src, pos).end()
                continue
            if c == "{":
                depth += 1
                if depth == 2:
                    text, _ = literal_run(src, pos + 1)
                    if text is not None:
                        rows.append(text)
            elif c == "}":
                depth -= 1
            pos += 1
    return rows


def uncaret(b):
    i = b.find(b"^")
    return b if i < 0 else b[:i] + b[i + 1:]


# ---- spec ----

def spec_seeds():
    src = open(os.path.join(UNIT, "test_spec.c")).read()
    seeds = table_rows(src, "good") + [uncaret(r) for r in table_rows(src, "bad")]
    # at the limits: 128 arguments and one more, 14 dereferences and one
    # more, an argument of 255 bytes, the longest definition and one more
    seeds.append(b"p vfs_read" + b" %ax" * 128)
    seeds.append(b"p vfs_read" + b" %ax" * 129)
    seeds.append(b"p vfs_read " + b"+0(" * 14 + b"%ax" + b")" * 14)
    seeds.append(b"p vfs_read " + b"+0(" * 15 + b"%ax" + b")" * 15 + b":string")
    seeds.append(b"p vfs_read " + b"+0(" * 12 + b"@jiffies" + b")" * 12 + b":u8[2]")
    seeds.append(b'p vfs_read \\"' + b"x" * 252 + b'"')
    seeds.append(b"p:ev vfs_read " + b" ".join(b"a%d=+%d(%%si):u%d" % (i, i, 8 << (i % 4))
                                              for i in range(40)))
    long_def = b"p vfs_read"
    while 4096 - len(long_def) > 210:
        long_def += b' \\"' + b"y" * 200 + b'"'
    long_def += b' \\"' + b"z" * (4096 - len(long_def) - 4) + b'"'
    seeds.append(long_def)
    seeds.append(long_def + b" ")
    seeds.append(b"r4096:grp/ev /usr/lib/x86_64-linux-gnu/libc.so.6:malloc%return "
                 b"r=$retval:x64 if r == 0 && comm ~ \"py*\"")
    seeds.append(b"t:sched/sched_switch prev_comm:string c=$comm n=+0(next_pid):u8[4] "
                 b"if prev_pid > 0 || comm == 'x'")
    return seeds


# ---- filter ----

HDR = struct.Struct("<HHIQQIIII16s")

# fuzz_filter.c's fake probe, in order: (name, type, size, count, is_data)
FILTER_ARGS = [
    ("u8v", "n", 1, 0), ("s32v", "n", 4, 0), ("u64v", "n", 8, 0), ("x32v", "n", 4, 0),
    ("path", "s", 4, 0), ("ch", "n", 1, 0), ("s8v", "n", 1, 0), ("s16v", "n", 2, 0),
    ("u16v", "n", 2, 0), ("s64v", "n", 8, 0), ("u32v", "n", 4, 0), ("arr", "n", 1, 4),
    ("sym", "n", 8, 0), ("imm", "d", 4, 0), ("name", "s", 4, 0), ("x64v", "n", 8, 0),
    ("cm", "s", 4, 0), ("bits", "n", 1, 0), ("addr", "n", 8, 0), ("x8v", "n", 1, 0),
    ("x16v", "n", 2, 0),
]


def filter_tail(tid, tgid, cpu, comm, values):
    """The record after the expression's NUL, in fill_from_tail()'s order."""
    out = struct.pack("<III", tid, tgid, cpu) + comm.ljust(16, b"\0")[:16]
    for name, kind, size, count in FILTER_ARGS:
        if kind == "d":
            continue
        v = values.get(name, 0)
        if kind == "s":
            if v is None:
                out += b"\x01"          # fault
            else:
                out += b"\x00" + struct.pack("<H", len(v)) + v
            continue
        vals = v if isinstance(v, list) else [v] * max(count, 1)
        out += b"\x00" + b"".join(x.to_bytes(size, "little", signed=x < 0) for x in vals)
    return out


def filter_seeds():
    src = open(os.path.join(UNIT, "test_filter.c")).read()
    seeds = table_rows(src, "good") + table_rows(src, "rows")
    # of the evaluation rows, the globs: the numeric ones repeat good[]'s shapes
    seeds += [r for r in table_rows(src, "sem") if b"~" in r]
    seeds += [uncaret(r) for r in table_rows(src, "bad")]
    for m in re.finditer(r'\brun\(', src):
        text, _ = literal_run(src, m.end())
        if text is not None:
            seeds.append(text)
    # records the fuzzer can steer the evaluator with
    base = {"u8v": 200, "s32v": -5, "u64v": 2**64 - 1, "x32v": 0x80000010,
            "path": b"/usr/bin/python3", "name": b"bash", "cm": b"cat", "s8v": -128}
    seeds.append(b"path ~ '*py*' && comm ~ 'p?th[a-z]n' && s32v < 0\0" +
                 filter_tail(1234, 1200, 3, b"python", base))
    seeds.append(b"name ~ '*a*a*a*a*a*a*a*a*a*a*a*a*a*a*ab'\0" +
                 filter_tail(1, 1, 0, b"x", dict(base, name=b"a" * 255 + b"b")))
    seeds.append(b"path ~ '*[!a-c]x' || cm != 'cat' || !(u8v & 0x80)\0" +
                 filter_tail(0, 0, 0, b"", dict(base, path=None, cm=b"c\0t")))
    seeds.append(b"comm ~ '*\\[*' && cpu >= -1 && pid != 0x7fffffff\0" +
                 filter_tail(7, 2**31 - 1, 2**32 - 1, b"a[b" * 6, base))
    return seeds


# ---- decode ----

T = {n: i + 1 for i, n in enumerate(
    "u8 u16 u32 u64 s8 s16 s32 s64 x8 x16 x32 x64 char string ustring symbol symstr".split())}
SLOT = {"u8": 1, "u16": 2, "u32": 4, "u64": 8, "s8": 1, "s16": 2, "s32": 4, "s64": 8,
        "x8": 1, "x16": 2, "x32": 4, "x64": 8, "char": 1, "string": 4, "ustring": 4,
        "symbol": 8, "symstr": 8}
KIND = {"kprobe": 0, "kretprobe": 1, "uprobe": 2, "uretprobe": 3, "tracepoint": 4}
F_KSYMS, F_RAW, F_HDR_ASIS, F_ANY_PROBE, F_RETURN = 0x08, 0x10, 0x20, 0x40, 0x80
PROBE_INDEX = 3


class Arg:
    def __init__(self, typ, values=None, count=0, size=None, data=None, fault=False):
        self.typ, self.values, self.count, self.data, self.fault = typ, values, count, data, fault
        self.size = size if size is not None else SLOT[typ]


def decode_seed(kind, args, flags=F_KSYMS, addr=0xffffffff81000100, ip=None,
                tid=1234, comm=b"cat", ts=2200682000, cpu=1, raw=False, mangle=None):
    """One input: layout header, per-argument bytes, then the record."""
    n = len(args)
    pos = HDR.size + (n + 7) // 8
    slots = []
    for a in args:
        slots.append(pos)
        if a.data is None:
            pos += a.size * max(a.count, 1)
    fixed = pos
    lay = struct.pack("<BBHQ", KIND[kind] | flags | (F_RAW if raw else 0), n,
                      fixed if raw else 0, addr)
    for a, slot in zip(args, slots):
        # raw: the type's number; packed: 1 + n % 17 is the type
        t = T[a.typ] if raw else T[a.typ] - 1
        if a.data is not None:
            t |= 0x80 | (a.data << 5)
        if raw:
            lay += struct.pack("<BBBH", t, a.count, a.size, slot)
        else:
            cnt = 0x80 | a.count if a.count else 0
            sz = 0 if a.size == SLOT[a.typ] else {1: 0, 2: 1, 4: 2, 8: 3}[a.size] | 4
            lay += struct.pack("<BBBH", t, cnt, sz, 0)
    body = bytearray(fixed - HDR.size)
    strings = bytearray()
    for i, (a, slot) in enumerate(zip(args, slots)):
        if a.data is not None:
            continue
        if a.fault:
            body[i // 8] |= 1 << (i % 8)
        vals = a.values if isinstance(a.values, list) else [a.values] * max(a.count, 1)
        for e, v in enumerate(vals):
            off = slot - HDR.size + e * a.size
            if a.typ in ("string", "ustring") or (a.typ == "symstr" and a.size == 4):
                if v is None:
                    dl = fixed + len(strings)       # fault: length 0
                else:
                    dl = (len(v) + 1) << 16 | (fixed + len(strings))
                    strings += v + b"\0"
                body[off:off + 4] = struct.pack("<I", dl)
            else:
                body[off:off + a.size] = (v or 0).to_bytes(a.size, "little", signed=(v or 0) < 0)
    size = HDR.size + len(body) + len(strings)
    hdr = HDR.pack(1, PROBE_INDEX, size, ts, ip if ip is not None else addr, tid,
                   max(tid - 34, 0), cpu, 0, comm)
    rec = bytearray(hdr + body + strings)
    if mangle:
        mangle(rec)
    return lay + bytes(rec)


def poke(rec, off, b):
    rec[off:off + len(b)] = b


def decode_seeds():
    S = decode_seed
    seeds = [
        # the README's two probes
        S("kprobe", [Arg("s32", -100), Arg("string", b"/etc/hostname"), Arg("x64", 0x8000)]),
        S("kretprobe", [Arg("s64", 3)], flags=F_KSYMS | F_RETURN,
          ip=0xffffffff810001f0),
        S("kretprobe", [Arg("s64", -2)], flags=F_KSYMS | F_RETURN, ip=0xffffffff81000400),
        # every type, once, and as a 3-element array
        S("kprobe", [Arg(t, 0x41 if t != "string" and t not in ("ustring",) else b"v")
                     for t in T if t not in ("symstr",)] + [Arg("symstr", 0xffffffffc0001010)],
          flags=F_KSYMS | F_ANY_PROBE),
        S("kprobe", [Arg(t, [1, 0xffffffff81000123, 0] if SLOT[t] == 8 else [1, 2, 0],
                         count=3)
                     for t in T if t not in ("string", "ustring", "symstr")], flags=0),
        S("uprobe", [Arg("string", [b"a", None, b"b\nc"], count=3), Arg("u8", [1, 2, 3, 4],
                     count=4), Arg("char", 0), Arg("ustring", None), Arg("u32", 7, fault=True)],
          flags=0, addr=0x401106, ip=0x401106),
        S("uretprobe", [Arg("s32", -1), Arg("symbol", 0xffffffff81000100),
                        Arg("symstr", 0xffffffff810001e4), Arg("symstr", b"sym", size=4)],
          flags=F_KSYMS | F_RETURN, addr=0x401106, ip=0x401234),
        S("tracepoint", [Arg("u64", 96), Arg("string", b"kmalloc"), Arg("symbol", 0)],
          flags=F_KSYMS),
        # JSON escapes: quotes, control bytes, invalid and valid UTF-8, immediates
        S("kprobe", [Arg("string", b'q"\\\x01\x1f\x7f\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80'
                                   b"\xc0\xaf\xed\xa0\x80\xff"),
                     Arg("string", data=1), Arg("char", 0x22), Arg("char", 0xe9),
                     Arg("string", data=2), Arg("string", data=3), Arg("ustring", b"")],
          comm=b'c"o\\m\x01m\xff'),
        # an idle task, a zero ip, no ksyms
        S("kprobe", [Arg("x8", 0xff)], flags=0, tid=0, comm=b"swapper/0", ip=0),
        # 128 arguments, some faulted
        S("kprobe", [Arg("u8", i, fault=i % 5 == 0) for i in range(128)], flags=F_KSYMS),
        # a long string
        S("kprobe", [Arg("string", b"x" * 4095), Arg("x16", 0xbeef)]),
        # the raw layout, valid and not
        S("kprobe", [Arg("u16", 0x1234), Arg("string", b"raw"), Arg("s8", -1, count=2)],
          raw=True),
        S("kprobe", [Arg("u16", 0x1234), Arg("string", b"raw")], raw=True,
          mangle=lambda r: poke(r, len(r) - 1, b"z")),          # unterminated
        S("kprobe", [Arg("string", b"abc")],                     # data_loc far out
          mangle=lambda r: poke(r, HDR.size + 1, struct.pack("<I", 0x7fff << 16 | 10))),
        S("kprobe", [Arg("u32", 5)], flags=F_KSYMS | F_HDR_ASIS,  # wrong size field
          mangle=lambda r: poke(r, 4, b"\xff\0\0\0")),
    ]
    return seeds


# ---- output ----

def usdt_seeds():
    src = open(os.path.join(UNIT, "test_usdt.c")).read()
    seeds = table_rows(src, "specs")
    # whole argument lists as notes hold them (python3.11's, usdt_target.c's)
    seeds += [b"8@%rbp 8@%r12 -4@%eax", b"-4@112(%rsp)", b"8@%rbx 8@%r15",
              b"-1@31(%rsp) 1@30(%rsp) -2@28(%rsp) 2@26(%rsp) -4@20(%rsp) 4@16(%rsp) "
              b"-8@8(%rsp) 8@(%rsp)", b"-4@kpt_rounds(%rip) -8@kpt_minus(%rip)",
              b"-4@$-7 -4@$5", b"8@%rdx 8@-80(%rbx)", b""]
    return seeds


def write(kind, seeds, check):
    d = os.path.join(CORPUS, kind)
    want = {}
    for s in seeds:
        want[hashlib.sha1(s).hexdigest()] = s
    have = set(os.listdir(d)) if os.path.isdir(d) else set()
    if check:
        same = have == set(want) and all(
            open(os.path.join(d, h), "rb").read() == want[h] for h in want)
        print("%-7s %4d seeds: %s" % (kind, len(want), "up to date" if same else "differ"))
        return same
    os.makedirs(d, exist_ok=True)
    for h in have - set(want):
        os.unlink(os.path.join(d, h))
    for h, s in want.items():
        with open(os.path.join(d, h), "wb") as f:
            f.write(s)
    print("%-7s %4d seeds" % (kind, len(want)))
    return True


def main():
    check = "--check" in sys.argv[1:]
    ok = write("spec", spec_seeds(), check)
    ok &= write("filter", filter_seeds(), check)
    ok &= write("decode", decode_seeds(), check)
    ok &= write("usdt", usdt_seeds(), check)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
