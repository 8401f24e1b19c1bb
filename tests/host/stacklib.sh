# Stacks as the host suites compare them (sourced by stacks.sh, nobtf.sh, lazytab.sh):
# stacks_of reads ftrace's or kptrace's text, count_rows count's rows,
# gdb_stacks is gdb's reference at a function's entry, to_main cuts
# kptrace's -U stacks to gdb's form.

# ftrace's or kptrace's text: each stack of a task whose comm is $2, one
# line per stack, frames joined by '|', in the order printed. ftrace's
# first frame is its own event handler (trace_event_raw_event_EVENT,
# ftrace_syscall_enter), where kptrace's stack starts at its caller:
# with $3 = ftrace, that frame is checked and dropped; $3 = user: the
# user stacks.
stacks_of() {
	python3 - "$1" "$2" "${3:-}" <<'PY'
import re, sys
path, comm, mode = sys.argv[1], sys.argv[2], sys.argv[3]
# "<stack trace>" or, with mode user, "<user stack trace>" lines of a task
# whose comm is comm (any task: comm "*"), each followed by its frames
head = "<user stack trace>" if mode == "user" else "<stack trace>"
out, cur = [], None
for line in open(path, errors="replace"):
    line = line.rstrip("\n")
    if line.startswith(" => "):
        if cur is not None:
            cur.append(line[4:])
        continue
    if cur is not None:
        out.append(cur)
        cur = None
    m = re.match(r"\s*(.+)-\d+\s+\[\d+\].*: " + re.escape(head) + "$", line)
    if m and comm in ("*", m.group(1)):
        cur = []
if cur is not None:
    out.append(cur)
for st in out:
    if mode == "ftrace":
        top = st.pop(0) if st else ""
        if not re.match(r"(trace_event_raw_event_|ftrace_syscall_(enter|exit))", top):
            print("BAD-TOP:" + top)
            continue
    print("|".join(st))
PY
}

# gdb_stacks BIN FUNC ARGS...: gdb's backtrace at each hit of FUNC's first
# instruction (break *FUNC, the uprobe's place), one line per hit, frames
# NAME+0xOFF (gdb's info symbol of each frame's pc) joined by '|', down to
# main (where gdb's backtrace ends). gdb unwinds by the binary's CFI.
gdb_stacks() {
	local bin=$1 fn=$2 at=(-ex 'break main' -ex run -ex delete -ex "break *$2")
	shift 2
	# a library's function is set once the library is loaded: at main
	[ "$fn" = main ] && at=(-ex 'break *main' -ex 'starti')
	gdb -batch -nx -ex 'set pagination off' -ex 'set confirm off' "${at[@]}" -ex 'python
import re
def frames():
    f, out = gdb.newest_frame(), []
    while f is not None:
        # a tail call frame is inferred by gdb (DWARF call sites): the
        # stack holds no return address for it
        if f.type() == gdb.TAILCALL_FRAME:
            f = f.older()
            continue
        s = gdb.execute("info symbol 0x%x" % f.pc(), to_string=True)
        m = re.match(r"(\S+)(?: \+ (\d+))? in section", s)
        name = m.group(1).replace("[cold]", ".cold") if m else ""
        out.append("%s+0x%x" % (name, int(m.group(2) or 0)) if m else "[unknown]")
        f = f.older()
    return "|".join(out)
while True:
    try:
        gdb.execute("continue", to_string=True)
        print("STACK:" + frames())
    except gdb.error:
        break
' --args "$bin" "$@" 2>/dev/null | sed -n 's/^STACK://p'
}

# count's (and profile's) rows in kptrace's text: a count line, then its
# frames; one line per row, "COUNT frame|frame...", in the order printed
count_rows() {
	python3 - "$1" <<'PY'
import sys
rows, cur = [], None
for line in open(sys.argv[1]):
    line = line.rstrip("\n")
    if line.strip().isdigit():
        cur = [int(line), []]
        rows.append(cur)
    elif line.startswith(" => ") and cur:
        cur[1].append(line[4:])
for n, fr in rows:
    print("%d %s" % (n, "|".join(fr)))
PY
}

# kptrace's -U stacks (stacks_of's lines) as gdb_stacks prints them: the
# binary after each frame left out, cut after main (a [cut short] mark kept)
to_main() {
	# each frame's name+offset alone: its file and source line dropped
	sed -E 's/\[cut short\]/[cut_short]/g; s/ [^|]*//g; s/\[cut_short\]/[cut short]/g' | sed -E '
		s/(^|\|)(main\+0x[0-9a-f]+)\|(.*\|)?\[cut short\]$/\1\2|[cut short]/; t
		s/(^|\|)(main\+0x[0-9a-f]+)\|.*/\1\2/'
}
