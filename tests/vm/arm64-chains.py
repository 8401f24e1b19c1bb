#!/usr/bin/env python3
# tests/vm/test.sh's reference for guest-arm64.sh and ustack-arm64.sh: from
# aarch64 objdump -d of tests/host/unwind_target.c's binary (stdin), the
# stacks a probe at uw_leaf's and uw_middle's first instruction sees with
# "1 rare", as FUNC+0xOFF frames down to main, each return address the
# instruction after its caller's bl. "PROBED|frame|frame...", one line per
# stack. With --regex (the -O2 builds): "PROBED frame frame...", each frame
# an extended regex, where a function reached by a tail call (a b, not a
# bl) leaves no frame of its own, a call may be in the caller's .cold part,
# and a caller with several call sites to its callee (main's, duplicated
# at -O2) may return to any of them; then uw_leaf's stacks as "--folded"
# counts "2 rare": "folded NAME;NAME... N", the names from main, stacks of
# the same names merged.
import re
import sys

REGEX = "--regex" in sys.argv[1:]
funcs, cur = {}, None
for line in sys.stdin.read().splitlines():
    m = re.match(r"^([0-9a-f]+) <(.+)>:$", line)
    if m:
        cur = m.group(2)
        funcs[cur] = (int(m.group(1), 16), [], [])
        continue
    m = re.match(r"^\s+([0-9a-f]+):\s+(bl|b)\s+[0-9a-f]+ <([\w.]+)>", line)
    if cur and m:
        funcs[cur][1 if m.group(2) == "bl" else 2].append((int(m.group(1), 16), m.group(3)))


def ret(caller, callee):
    where = [caller] + ([caller + ".cold"] if REGEX and caller + ".cold" in funcs else [])
    sites = [(f, a - funcs[f][0] + 4) for f in where for a, c in funcs[f][1] if c == callee]
    if len(sites) != 1 and not (REGEX and sites):
        sys.exit("%s calls %s %d times" % (caller, callee, len(sites)))
    if len(sites) == 1:
        f, off = sites[0]
        return re.escape(f) + r"\+0x%x" % off if REGEX else "%s+0x%x" % (f, off)
    return "(%s)" % "|".join(re.escape(f) + r"\+0x%x" % off for f, off in sites)


def tail(caller, callee):
    return REGEX and not any(c == callee for _, c in funcs[caller][1]) and \
        any(c == callee for _, c in funcs[caller][2])


def chain(*fns):
    return [ret(fns[i + 1], fns[i]) for i in range(len(fns) - 1) if not tail(fns[i + 1], fns[i])]


up = ["uw_middle", "uw_outer", "main"]
sep = " " if REGEX else "|"
first = (lambda f: re.escape(f) + r"\+0x0") if REGEX else (lambda f: f + "+0x0")
folded = {}
for path in (["uw_leaf", "uw_rare"], ["uw_leaf"], ["uw_leaf", "uw_tail"]):
    frames = chain(*(path + up))
    print("uw_leaf" + sep + sep.join([first("uw_leaf")] + frames))
    if REGEX:
        names = [re.match(r"\(?([\w.\\]+?)\\\+", f).group(1).replace("\\", "")
                 for f in frames]
        key = ";".join(reversed(["uw_leaf"] + names))
        folded[key] = folded.get(key, 0) + 2
print("uw_middle" + sep + sep.join([first("uw_middle")] + chain(*up)))
for key in sorted(folded):
    print("folded %s %d" % (key, folded[key]))
