#!/usr/bin/env bash
# src/'s folders are layers, lowest first; a file includes its own folder's
# headers and those of folders below it, by folder ("util/svg.h"), and no
# two modules (a .c and its .h) include each other through any chain.
# Headers outside src/ (include/'s ABI, the build's generated ones) are
# not ranked. Prints each violation, then "N upward, N unqualified, N cycles".
set -uo pipefail
cd "$(dirname "$0")/.."

exec python3 - "$@" <<'EOF'
import os, re, sys

# Lowest first: a folder may include only itself and those before it.
LAYERS = [["util"], ["lang"], ["sys"], ["prepare"], ["load"], ["out"], ["agg"], ["run"],
          ["cmd"], ["serve", "diff"], [""]]
rank = {d: i for i, ds in enumerate(LAYERS) for d in ds}
EXTERNAL = set(os.listdir("include")) | {"kptrace.skel.h", "kptrace_compat.skel.h", "bpf_id.h", "version.h"}
inc_re = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)

files = []
for root, _, names in os.walk("src"):
    files += [os.path.join(root, n) for n in names if n.endswith((".c", ".h"))]
files.sort()

def folder(path):
    return os.path.dirname(os.path.relpath(path, "src"))

def module(path):
    return os.path.splitext(os.path.relpath(path, "src"))[0]

upward = unqualified = 0
problems = []
edges = {}
for f in files:
    d = folder(f)
    if d not in rank:
        problems.append(f"{f}: folder '{d}' is not a layer (tests/layers.sh's LAYERS)")
        upward += 1
        continue
    text = open(f, encoding="utf-8", errors="replace").read()
    for m in inc_re.finditer(text):
        name = m.group(1)
        line = text.count("\n", 0, m.start()) + 1
        if name in EXTERNAL:
            continue
        target = os.path.join("src", name)
        if "/" not in name or not os.path.exists(target):
            problems.append(f"{f}:{line}: unqualified include \"{name}\" (name its folder under src/)")
            unqualified += 1
            continue
        td = os.path.dirname(name)
        if td not in rank or rank[td] > rank[d]:
            problems.append(f"{f}:{line}: upward include \"{name}\" ({d or 'src'} is below {td})")
            upward += 1
        src, dst = module(f), os.path.splitext(name)[0]
        if src != dst:
            edges.setdefault(src, set()).add(dst)

# Cycles between modules: a strongly connected component of more than one.
index, low, stack, on, sccs, counter = {}, {}, [], set(), [], [0]
def strong(v):
    index[v] = low[v] = counter[0]; counter[0] += 1
    stack.append(v); on.add(v)
    for w in sorted(edges.get(v, ())):
        if w not in index:
            strong(w); low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop(); on.discard(w); comp.append(w)
            if w == v:
                break
        if len(comp) > 1:
            sccs.append(sorted(comp))
sys.setrecursionlimit(10000)
for v in sorted(edges):
    if v not in index:
        strong(v)
for c in sccs:
    problems.append("cycle: " + " <-> ".join(c))

for p in problems:
    print("FAIL - " + p)
print(f"{len(files)} files, {sum(len(e) for e in edges.values())} module includes")
print(f"{upward} upward, {unqualified} unqualified, {len(sccs)} cycles")
bad = upward + unqualified + len(sccs)
print(f"{0 if bad else 1} passed, {1 if bad else 0} failed, 0 skipped")
sys.exit(1 if bad else 0)
EOF
