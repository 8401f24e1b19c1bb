#!/usr/bin/env python3
# tests/vm/test.sh's reference for guest-arm64.sh: from aarch64 objdump -d of
# tests/host/unwind_target.c's binary (stdin), the stacks a probe at
# uw_leaf's and uw_middle's first instruction sees with "1 rare", as
# FUNC+0xOFF frames down to main, each return address the instruction
# after its caller's bl. "PROBED|frame|frame...", one line per stack.
import re
import sys

funcs, cur = {}, None
for line in sys.stdin.read().splitlines():
    m = re.match(r"^([0-9a-f]+) <(.+)>:$", line)
    if m:
        cur = m.group(2)
        funcs[cur] = (int(m.group(1), 16), [])
        continue
    m = re.match(r"^\s+([0-9a-f]+):\s+bl\s+[0-9a-f]+ <(\w+)>", line)
    if cur and m:
        funcs[cur][1].append((int(m.group(1), 16), m.group(2)))


def ret(caller, callee):
    start, calls = funcs[caller]
    addr = [a for a, c in calls if c == callee]
    if len(addr) != 1:
        sys.exit("%s calls %s %d times" % (caller, callee, len(addr)))
    return "%s+0x%x" % (caller, addr[0] + 4 - start)


def chain(*fns):
    return [ret(fns[i + 1], fns[i]) for i in range(len(fns) - 1)]


up = ["uw_middle", "uw_outer", "main"]
for path in (["uw_leaf", "uw_rare"], ["uw_leaf"], ["uw_leaf", "uw_tail"]):
    print("uw_leaf|" + "|".join(["uw_leaf+0x0"] + chain(*(path + up))))
print("uw_middle|" + "|".join(["uw_middle+0x0"] + chain(*up)))
