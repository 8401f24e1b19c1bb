#!/usr/bin/env bash
# kptrace list on this kernel: prototypes against an independent printer of
# bpftool's raw BTF dump (and a few signatures known by heart), tracepoint
# fields against the format files, globs against /proc/kallsyms and
# available_events, a glob matching nothing, and the text listing of
# everything against the JSON one.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/lib.sh

KPT=${KPT:-./kptrace}
OUT=.output/tests/host
mkdir -p "$OUT"
T=/sys/kernel/tracing
[ "$(id -u)" = 0 ] || skip_all "list tests need root (tracefs)"
[ -r /sys/kernel/btf/vmlinux ] || skip_all "no kernel BTF"
expect_checks 18

echo "# functions with their BTF prototypes"
kpt list 'vfs_*' > "$OUT/l-vfs.txt" 2> "$OUT/l-vfs.err"
for want in \
	'ssize_t vfs_read(struct file *file, char *buf, size_t count, loff_t *pos)' \
	'ssize_t vfs_write(struct file *file, const char *buf, size_t count, loff_t *pos)' \
	'int vfs_fsync(struct file *file, int datasync)'; do
	check "known signature: $want" grep -qxF "$want" "$OUT/l-vfs.txt"
done
kpt list 'schedule' > "$OUT/l-sch.txt" 2>&1
check "no parameters print as (void): $(head -1 "$OUT/l-sch.txt")" grep -qxF 'void schedule(void)' "$OUT/l-sch.txt"

# Every function of the kernel, as JSON, against prototypes printed here
# from bpftool's raw dump (types: INT, TYPEDEF, STRUCT/UNION/ENUM/FWD, PTR,
# one CONST on the base type; functions with other shapes are left out).
bpftool btf dump file /sys/kernel/btf/vmlinux > "$OUT/btf.raw"
kpt list --json > "$OUT/l-all.json" 2> "$OUT/l-all.err"
if python3 - "$OUT/btf.raw" "$OUT/l-all.json" <<'EOF'
import json, re, sys
types = {}
cur = None
for line in open(sys.argv[1]):
    m = re.match(r"\[(\d+)\] (\w+) '([^']*)'(.*)", line)
    if m:
        cur = {"kind": m.group(2), "name": m.group(3), "rest": m.group(4), "params": []}
        types[int(m.group(1))] = cur
        continue
    m = re.match(r"\t'([^']*)' type_id=(\d+)", line)
    if m and cur and cur["kind"] == "FUNC_PROTO":
        cur["params"].append((m.group(1), int(m.group(2))))
def attr(t, k):
    return int(re.search(k + r"=(\d+)", t["rest"]).group(1))
class Skip(Exception): pass
def base(tid):
    if tid == 0: return "void"
    t = types[tid]
    k, n = t["kind"], t["name"]
    if n == "(anon)": raise Skip
    if k in ("INT", "TYPEDEF", "FLOAT"): return n
    if k in ("STRUCT", "UNION"): return k.lower() + " " + n
    if k in ("ENUM", "ENUM64"): return "enum " + n
    if k == "FWD": return ("union " if "fwd_kind=union" in t["rest"] else "struct ") + n
    if k == "CONST":
        inner = t and attr(t, "type_id")
        if inner and types[inner]["kind"] in ("CONST", "VOLATILE", "PTR", "RESTRICT", "TYPE_TAG"): raise Skip
        return "const " + base(inner)
    raise Skip
def decl(tid, name):
    stars = ""
    while tid and types[tid]["kind"] == "PTR":
        stars += "*"
        tid = attr(types[tid], "type_id")
    if tid and types[tid]["kind"] in ("FUNC_PROTO", "ARRAY", "VOLATILE", "RESTRICT", "TYPE_TAG"):
        raise Skip
    b = base(tid)
    s = stars + name
    return b + (" " + s if s else "")
want = {}
for tid, t in types.items():
    if t["kind"] != "FUNC" or t["name"] in want: continue
    fp = types[attr(t, "type_id")]
    try:
        ps = []
        for i, (pn, pt) in enumerate(fp["params"]):
            if pt == 0 and i == len(fp["params"]) - 1: ps.append("..."); continue
            ps.append(decl(pt, "" if pn == "(anon)" else pn))
        want[t["name"]] = decl(attr(fp, "ret_type_id"), t["name"] + "(" + (", ".join(ps) or "void") + ")")
    except Skip:
        want[t["name"]] = None
rows = [json.loads(l) for l in open(sys.argv[2])]
funcs = [r for r in rows if r["type"] == "function" and r["module"] is None]
compared = bad = 0
for r in funcs:
    w = want.get(r["name"], "missing")
    if w == "missing":
        assert not r["btf"], ("listed with BTF but no FUNC", r)
        continue
    assert r["btf"], ("has a BTF FUNC but listed without", r["name"])
    if w is None: continue
    compared += 1
    if r["proto"] != w:
        bad += 1
        if bad < 5: print("MISMATCH", repr(r["proto"]), "want", repr(w))
    # params in JSON: the names of the FUNC_PROTO, in order
assert bad == 0, bad
assert compared > 20000, compared
print("compared", compared, "prototypes of", len(funcs), "functions; identical")
EOF
then pass "every listed function's prototype equals the one printed from bpftool's raw BTF dump (independent printer)"
else fail "prototypes differ from bpftool's BTF"; fi

# Functions listed = kallsyms text symbols (available_filter_functions where
# readable), blacklist and padding out, each name once; glob by fnmatch.
if python3 - "$OUT/l-all.json" <<'EOF'
import json, sys, fnmatch
rows = [json.loads(l) for l in open(sys.argv[1])]
got = sorted(r["name"] for r in rows if r["type"] == "function" and r["module"] is None)
try:
    src = [l.split()[0] for l in open("/sys/kernel/tracing/available_filter_functions") if "[" not in l]
except OSError:
    src = [l.split()[2] for l in open("/proc/kallsyms")
           if len(l.split()) == 3 and l.split()[1] in "tTwW"
           and not l.split()[2].startswith(("__pfx_", "__cfi_"))]
try:
    bl = {l.split()[1] for l in open("/sys/kernel/debug/kprobes/blacklist")}
except OSError:
    bl = set()
want = sorted(set(src) - bl)
assert got == want, (len(got), len(want), sorted(set(got) ^ set(want))[:10])
assert len(got) == len(set(got))
print(len(got), "functions, as the kernel lists them")
EOF
then pass "list with no GLOB: every traceable function once, sorted ($(grep -c '"function"' "$OUT/l-all.json"))"
else fail "the function set differs from the kernel's"; fi

kpt list '*.cold' > "$OUT/l-cold.txt" 2> "$OUT/l-cold.err"
check "functions without BTF (compiler clones) say so: all $(wc -l < "$OUT/l-cold.txt") '*.cold' ($(head -1 "$OUT/l-cold.txt"))" \
	bash -c "grep -qE '\.cold \(no BTF\)$' $OUT/l-cold.txt && ! grep -vqE '\.cold \(no BTF\)$' $OUT/l-cold.txt"

echo "# globs"
kpt list 'vfs_rea?' > "$OUT/l-g1.txt" 2> "$OUT/l-g1.err"
check "'vfs_rea?' lists exactly vfs_read ($(wc -l < "$OUT/l-g1.txt") line)" \
	test "$(sed 's/(.*//; s/.* //' "$OUT/l-g1.txt")" = "vfs_read"
kpt list 'vfs_[rw]*v' > "$OUT/l-g2.txt" 2> "$OUT/l-g2.err"
check "bracket globs: vfs_[rw]*v = vfs_readv vfs_writev ($(sed 's/(.*//; s/.* //' "$OUT/l-g2.txt" | tr '\n' ' '))" \
	test "$(sed 's/(.*//; s/.* //' "$OUT/l-g2.txt" | tr '\n' ' ')" = "vfs_readv vfs_writev "
n=$(awk '/\(no BTF\)$/ { print $1; next } { sub(/\(.*/, ""); n = split($0, w, /[ *]+/); print w[n] }' "$OUT/l-vfs.txt" | grep -cv '^vfs_')
check "every 'vfs_*' line is a vfs_ function ($n others; $(wc -l < "$OUT/l-vfs.txt") lines)" test "$n" = 0

echo "# tracepoints with their fields"
kpt list 'sched/sched_switch' > "$OUT/l-ss.txt" 2> "$OUT/l-ss.err"
want="sched/sched_switch {$(sed -n 's/^\tfield:\([^;]*\);.*/\1/p' $T/events/sched/sched_switch/format | grep -v common_ | sed 's/^/ /; s/$/;/' | tr -d '\n') }"
check "sched/sched_switch: the format file's fields ($want)" test "$(cat "$OUT/l-ss.txt")" = "$want"
kpt list --json 'sched/*' > "$OUT/l-sched.json" 2> "$OUT/l-sched.err"
if python3 - "$OUT/l-sched.json" "$T/events/sched" <<'EOF'
import json, os, re, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
d = sys.argv[2]
evs = sorted(e for e in os.listdir(d) if os.path.isdir(os.path.join(d, e)))
assert [r["event"] for r in rows] == evs, ([r["event"] for r in rows], evs)
for r in rows:
    assert r["type"] == "tracepoint" and r["group"] == "sched"
    fmt = open(os.path.join(d, r["event"], "format")).read()
    assert r["id"] == int(re.search(r"ID: (\d+)", fmt).group(1))
    want = [(m[0], int(m[1]), int(m[2]), m[3] == "1") for m in
            re.findall(r"\tfield:([^;]*);\toffset:(\d+);\tsize:(\d+);\tsigned:(\d);", fmt)
            if " common_" not in m[0]]
    got = [(f["decl"], f["offset"], f["size"], f["signed"]) for f in r["fields"]]
    assert got == want, (r["event"], got, want)
print(len(rows), "sched tracepoints")
EOF
then pass "sched/*: every sched tracepoint, fields with offsets, sizes and signedness as in their format files ($(wc -l < "$OUT/l-sched.json"))"
else fail "sched/* fields differ from the format files"; fi
# All tracepoints: the same set as available_events, each a well-formed line
kpt list '*/*' > "$OUT/l-tp.txt" 2> "$OUT/l-tp.err"
check "'*/*': every tracepoint of available_events ($(wc -l < "$OUT/l-tp.txt")), tracepoints only" \
	test "$(sed 's/ .*//' "$OUT/l-tp.txt" | sort)" = "$(tr ':' '/' < $T/available_events | sort)"
kpt list 'kmalloc' > "$OUT/l-km.txt" 2> "$OUT/l-km.err"
check "a plain GLOB also matches tracepoint events: kmalloc -> kmem/kmalloc" grep -q '^kmem/kmalloc { ' "$OUT/l-km.txt"
kpt list 'sched:sched_switch' > "$OUT/l-colon.txt" 2> "$OUT/l-colon.err"
check "SUBSYS:EVENT works as SUBSYS/EVENT" cmp -s "$OUT/l-colon.txt" "$OUT/l-ss.txt"

echo "# nothing matching"
KPT_RC=error kpt list 'no_such_function_*' > "$OUT/l-none.txt" 2> "$OUT/l-none.err"
rc=$?
check "a glob matching nothing: exit $rc, nothing on stdout, a message ($(cat "$OUT/l-none.err"))" \
	bash -c "[ $rc = 1 ] && [ ! -s $OUT/l-none.txt ] && grep -q \"no traceable kernel function or tracepoint matches\" $OUT/l-none.err"
# a usage error: argp's status, 64 (EX_USAGE)
KPT_RC=64 kpt list 'a' 'b' > /dev/null 2> "$OUT/l-two.err"
rc=$?
check "two GLOBs are refused (exit $rc, a usage error)" bash -c "[ $rc = 64 ] && grep -q 'one GLOB' $OUT/l-two.err"

echo "# everything, as text"
# The text listing of everything: one line per function and tracepoint of
# the JSON listing, in its order (how fast is for make bench, not here).
kpt list > "$OUT/l-all.txt" 2> "$OUT/l-all-txt.err"
if python3 - "$OUT/l-all.json" "$OUT/l-all.txt" <<'EOF'
import json, re, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
lines = open(sys.argv[2]).read().splitlines()
assert len(lines) == len(rows), (len(lines), len(rows))
def name(r):
    return r["name"] if r["type"] == "function" else r["group"] + "/" + r["event"]
for r, l in zip(rows, lines):
    if r["type"] == "function" and r["btf"]:
        want = r["proto"]
    elif r["type"] == "function":
        want = r["name"] + " (no BTF)"
    else:
        want = name(r) + " {"
    assert l == want if r["type"] == "function" else l.startswith(want), (l, r)
print(len(lines), "lines, as the JSON listing")
EOF
then pass "list of everything: a line per entry of the JSON listing ($(wc -l < "$OUT/l-all.json")), the same"
else fail "list of everything: the text differs from the JSON listing"; fi

finish
