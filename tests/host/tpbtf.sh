#!/usr/bin/env bash
# Host tests of BTF-typed tracepoints (tp_btf): TP_PROTO's arguments by name
# and member chains (t:sched/sched_process_exit p->exit_code). A workload of
# children exiting with known codes writes each child's pid and code; the
# kernel's own ftrace trace of sched_process_exit (a tracefs instance) gives
# each exit's comm, pid and prio. Both attachments in one run, on the same
# hits: the record's fields (tracepoint program) and the same values read
# from the task (tp_btf) against ftrace, the exit codes against the
# workload's. --dry-run says which attachment each probe takes.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/lib.sh

KPT=${KPT:-./kptrace}
OUT=.output/tests/host-tpbtf
mkdir -p "$OUT"
OUT=$(realpath "$OUT")
TR=/sys/kernel/tracing
EV=sched/sched_process_exit
[ "$(id -u)" = 0 ] || skip_all "host tests need root (BPF, tracefs)"
[ -e /sys/kernel/btf/vmlinux ] || skip_all "no kernel BTF"
[ -e $TR/events/$EV ] && [ -d $TR/instances ] || skip_all "no $EV tracepoint or tracefs instances"
expect_checks 30

echo "# --dry-run: the attachment each probe takes"
kpt --dry-run "t:$EV p->exit_code" > "$OUT/dry-btf.txt" 2>&1
check "t:$EV p->exit_code: tp_btf, the argument TP_PROTO's first" sh -c \
	"grep -q '^attach: tp_btf' '$OUT/dry-btf.txt' && grep -q \"from TP_PROTO's argument 1\" '$OUT/dry-btf.txt'"
kpt --dry-run "t:$EV pid" > "$OUT/dry-tp.txt" 2>&1
check "t:$EV pid (a record field): the tracepoint program" grep -q '^attach: tracepoint' "$OUT/dry-tp.txt"
kpt --dry-run count "t:$EV" > "$OUT/dry-count.txt" 2>&1
kpt --dry-run count --backend tp-btf "t:$EV" > "$OUT/dry-count-btf.txt" 2>&1
check "count t:$EV: auto the tracepoint program (no BTF read), --backend tp-btf tp_btf" sh -c \
	"grep -q '^attach: tracepoint' '$OUT/dry-count.txt' && grep -q '^attach: tp_btf' '$OUT/dry-count-btf.txt'"
KPT_RC=error kpt --dry-run "t:$EV pid p->exit_code" > "$OUT/dry-both.txt" 2>&1
check "a record field and an argument in one probe: refused, saying so" \
	grep -q "reads the record's fields and TP_PROTO's arguments" "$OUT/dry-both.txt"

# children exit with known codes, each writing "PID CODE" first
CODES="3 7 42 0 255"
cat > "$OUT/exits.sh" <<SH
for c in $CODES; do sh -c 'echo "\$\$ '\$c'" >> $OUT/codes; exit '\$c; done
SH

echo "# both attachments on the same exits, against ftrace and the workload"
rm -f "$OUT/codes"
INST=$TR/instances/kpt-tpbtf-$$
mkdir "$INST"
echo 1 > "$INST/events/$EV/enable"
kpt -c "sh $OUT/exits.sh" "t:$EV comm pid prio" \
	"t:btf/exit $EV pid=p->pid comm=p->comm:string prio=p->prio code=p->exit_code" \
	> "$OUT/both.txt" 2> "$OUT/both.err"
echo 0 > "$INST/events/$EV/enable"
cp "$INST/trace" "$OUT/ftrace.txt"
rmdir "$INST"
# "comm=C pid=P prio=N" per exit of the workload's children, sorted; quotes
# off kptrace's strings; the tp_btf probe's arguments are in that order too
PIDS=$(awk '{ print $1 }' "$OUT/codes" 2>/dev/null | sort | tr '\n' ' ')
RE="pid=($(echo $PIDS | tr ' ' '|')) "
tp_lines() {
	sed -nE "s/^.* sched_process_exit: (comm=[^ ]+ pid=[0-9]+ prio=-?[0-9]+).*\$/\1/p" "$1" |
		tr -d '"' | grep -E "$RE" | sort
}
FT=$(tp_lines "$OUT/ftrace.txt")
TP=$(tp_lines "$OUT/both.txt")
BT=$(sed -nE 's/^.* exit: pid=([0-9]+) comm=([^ ]+) prio=(-?[0-9]+) code=.*$/comm=\2 pid=\1 prio=\3/p' \
	"$OUT/both.txt" | tr -d '"' | grep -E "$RE" | sort)
echo "# kpt:children $PIDS"
echo "# kpt:ftrace $(echo "$FT" | head -n 1)"
check "the workload's 5 children ran" [ "$(wc -l < "$OUT/codes" 2>/dev/null)" = 5 ]
check "ftrace's trace has the 5 children's exits" [ "$(echo "$FT" | grep -c pid=)" = 5 ]
check "tracepoint program: each child's comm, pid, prio as ftrace's own trace has them" \
	[ -n "$FT" -a "$TP" = "$FT" ]
check "tp_btf: p->comm, p->pid, p->prio of each child as ftrace's record of the same exit" \
	[ -n "$FT" -a "$BT" = "$FT" ]
# p->exit_code is the wait status: the code << 8
WANT=$(awk '{ print $1, $2 * 256 }' "$OUT/codes" 2>/dev/null | sort)
GOT=$(sed -nE 's/^.* exit: pid=([0-9]+) .* code=(-?[0-9]+)$/\1 \2/p' "$OUT/both.txt" | sort |
	grep -E "^($(echo $PIDS | tr ' ' '|')) " || true)
echo "# kpt:codes $(echo $GOT | tr '\n' ' ')"
check "tp_btf: p->exit_code of each child its code << 8 ($CODES)" [ -n "$WANT" -a "$GOT" = "$WANT" ]

echo "# counts: tp_btf (--backend tp-btf) and the tracepoint program (auto)"
kpt --json count --backend tp-btf -c "sh $OUT/exits.sh" "t:$EV" > "$OUT/count-btf.json" \
	2> "$OUT/count-btf.err"
kpt --json count -c "sh $OUT/exits.sh" "t:$EV" > "$OUT/count-tp.json" 2> "$OUT/count-tp.err"
# the workload's exits: its 5 children and the shell
check "count t:$EV through tp_btf: 6, the workload's exits" \
	grep -q '"count": *6\b' "$OUT/count-btf.json"
check "count t:$EV through the tracepoint program: 6" grep -q '"count": *6\b' "$OUT/count-tp.json"
echo "# the direct histogram through tp_btf: member chains loaded as the verifier checks them"
# the same children, each writing "PID CODE", and the shell its own pid; the
# shell's exit status (its last child's) from an untraced run
cat > "$OUT/exits2.sh" <<SH
echo \$\$ > $OUT/shell.pid
for c in $CODES; do sh -c 'echo "\$\$ '\$c'" >> $OUT/codes2; exit '\$c; done
SH
sh "$OUT/exits2.sh"
SHELL_RC=$?
rm -f "$OUT/codes2" "$OUT/shell.pid"
CODE="t:d $EV c=p->exit_code"
LEAD="t:d $EV g=p->group_leader->pid"
kpt hist --backend tp-btf --dry-run "$CODE" c > "$OUT/dry-hc.txt" 2>&1
kpt hist --backend tp-btf --dry-run "$LEAD" g > "$OUT/dry-hg.txt" 2>&1
check "hist of p->exit_code and of p->group_leader->pid: the direct path, each load checked against BTF" \
	sh -c "grep -q \"^hist: c taken straight from the context.*checked by the verifier against BTF\$\" '$OUT/dry-hc.txt' &&
	       grep -q \"^hist: g taken straight from the context.*checked by the verifier against BTF\$\" '$OUT/dry-hg.txt'"
# hist_of FILE WANT...: FILE's JSON histogram is exactly of the values WANT
# (each value its own row of --linear 0,65536,256 where they are codes << 8:
# count, sum, min, max and each row's count)
hist_of() {
	python3 - "$@" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip() and '"hist"' in l]
want = [int(v) for v in sys.argv[2:]]
h = rows[0]["hist"] if rows else {}
got = (h.get("count"), h.get("sum"), h.get("min"), h.get("max"))
ok = got == (len(want), sum(want), min(want), max(want))
if ok and all(v % 256 == 0 for v in want):
    ok = {b["min"]: b["count"] for b in h["buckets"] if b["count"]} == \
         {v: want.count(v) for v in want}
if not ok:
    print("  want %s\n  got  %s" % (want, h), file=sys.stderr)
sys.exit(0 if ok else 1)
PY
}
kpt hist --json --backend tp-btf --linear 0,65536,256 -c "sh $OUT/exits2.sh" "$CODE" c \
	> "$OUT/hc.json" 2> "$OUT/hc.err"
WANT=$(awk '{ print $2 * 256 }' "$OUT/codes2" 2>/dev/null | tr '\n' ' ')
check "hist of p->exit_code (direct): the 5 children's codes and the shell's status ($SHELL_RC), << 8" \
	hist_of "$OUT/hc.json" $WANT $((SHELL_RC * 256))
rm -f "$OUT/codes2" "$OUT/shell.pid"
kpt hist --json --backend tp-btf -c "sh $OUT/exits2.sh" "$LEAD" g > "$OUT/hg.json" 2> "$OUT/hg.err"
WANT=$(awk '{ print $1 }' "$OUT/codes2" "$OUT/shell.pid" 2>/dev/null | tr '\n' ' ')
check "hist of p->group_leader->pid (direct, two pointers): the 6 exits' own pids (count, sum, min, max)" \
	hist_of "$OUT/hg.json" $WANT
# filtered: the child that exits 0 passes; HITS the 6 exits, FILTERED the
# other 5 (and other tasks' exits, which -c's targeting counts there too)
rm -f "$OUT/codes2" "$OUT/shell.pid"
kpt hist --json --backend tp-btf --linear 0,65536,256 -c "sh $OUT/exits2.sh" "$CODE if c == 0" c \
	> "$OUT/hf.json" 2> "$OUT/hf.err"
HF=$(python3 -c '
import json, sys
for l in open(sys.argv[1]):
    if l.startswith("{\"type\":\"profile\""):
        for p in json.loads(l)["probes"]:
            if p["group"] + "/" + p["event"] == "sched/d":
                print(p["hits"], p["filtered"])' "$OUT/hf.err")
HITS=${HF% *} FILT=${HF#* }
check "hist of p->exit_code if c == 0 (direct): HITS the 6 exits, FILTERED at least 5 ($HF)" \
	[ "${HITS:-}" = 6 -a "${FILT:-0}" -ge 5 ]
check "  and its histogram: one exit, code 0" hist_of "$OUT/hf.json" 0
# a stream of one probe: each record written straight from the arguments
STREAM="t:btf/exit $EV pid=p->pid code=p->exit_code"
kpt --backend tp-btf --dry-run "$STREAM" > "$OUT/dry-st.txt" 2>&1
check "a stream of p->pid, p->exit_code: written straight from TP_PROTO's arguments" \
	grep -q "^stream: the record written straight from TP_PROTO's arguments into the ring buffer, no copy, each load checked by the verifier against BTF$" "$OUT/dry-st.txt"
rm -f "$OUT/codes2" "$OUT/shell.pid"
kpt --backend tp-btf -c "sh $OUT/exits2.sh" "$STREAM" > "$OUT/st.txt" 2> "$OUT/st.err"
WANT=$(awk '{ print $1, $2 * 256 }' "$OUT/codes2" 2>/dev/null; echo "$(cat "$OUT/shell.pid" 2>/dev/null) $((SHELL_RC * 256))")
GOT=$(sed -nE 's/^.* exit: pid=([0-9]+) code=(-?[0-9]+)$/\1 \2/p' "$OUT/st.txt")
check "the stream (direct): each of the 6 exits' pid and code << 8, the workload's" \
	[ -n "$GOT" -a "$(echo "$GOT" | sort)" = "$(echo "$WANT" | sort)" ]
# filtered by one comparison of one of its values: still direct, the
# filter first; only the child that exits 0 printed, the other 5 exits
# FILTERED (and other tasks', which -c's targeting counts there too)
STREAMF="$STREAM if code == 0"
kpt --backend tp-btf --dry-run "$STREAMF" > "$OUT/dry-sf.txt" 2>&1
check "a stream filtered by code == 0: written straight from TP_PROTO's arguments, the filter first" \
	grep -q "^stream: the record written straight from TP_PROTO's arguments into the ring buffer, no copy, the filter's one comparison first, each load checked by the verifier against BTF$" "$OUT/dry-sf.txt"
rm -f "$OUT/codes2" "$OUT/shell.pid"
kpt --json --backend tp-btf -c "sh $OUT/exits2.sh" "$STREAMF" > "$OUT/sf.json" 2> "$OUT/sf.err"
WANT=$(awk '$2 == 0 { print $1, 0 }' "$OUT/codes2" 2>/dev/null)
SF=$(python3 -c '
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    print(r["args"]["pid"], r["args"]["code"])
for l in open(sys.argv[2]):
    if l.startswith("{\"type\":\"profile\""):
        p = json.loads(l)["probes"][0]
        print("counts", p["hits"], p["filtered"])' "$OUT/sf.json" "$OUT/sf.err")
echo "# kpt:filtered stream $(echo $SF)"
check "the filtered stream (direct): the one record the workload's exit 0 ($WANT), HITS the 6 exits, FILTERED at least 5" \
	sh -c "[ -n '$WANT' ] && [ \"\$(echo '$SF' | grep -v ^counts)\" = '$WANT' ] &&
	       set -- \$(echo '$SF' | sed -n 's/^counts //p') && [ \"\${1:-0}\" = 6 -a \"\${2:-0}\" -ge 5 ]"
echo "# \$argN: TP_PROTO's arguments by position, as ftrace's tprobe names them"
# sys_enter's TP_PROTO (regs, id): the record's field id hides the argument's
# name, \$arg2 reaches it; sys_exit's (regs, ret). A static program of 777
# lseeks to offsets 0..776 in a file, which return them.
cat > "$OUT/seeks.c" <<'C'
#include <fcntl.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	int fd = open(argv[argc - 1], O_RDONLY);

	for (int i = 0; i < 777; i++)
		lseek(fd, i, SEEK_SET);
	return 0;
}
C
gcc -O1 -static -o "$OUT/seeks" "$OUT/seeks.c" 2> "$OUT/seeks.cc" ||
	gcc -O1 -o "$OUT/seeks" "$OUT/seeks.c" 2>> "$OUT/seeks.cc"
NR_LSEEK=$(printf '#include <sys/syscall.h>\nSYS_lseek\n' | gcc -E -P - | tail -n 1)
ARGN="t:raw_syscalls/sys_enter nr=\$arg2 if nr == $NR_LSEEK"
kpt --dry-run hist "$ARGN" nr > "$OUT/dry-argn.txt" 2>&1
kpt --dry-run "t:raw_syscalls/sys_enter \$arg2" > "$OUT/dry-argn2.txt" 2>&1
check "\$arg2 at sys_enter: TP_PROTO's id, not the record's field (tp_btf, the direct path; bare, named id)" \
	sh -c "grep -q '^attach: tp_btf' '$OUT/dry-argn.txt' && grep -q '^hist: nr taken straight from the context' '$OUT/dry-argn.txt' &&
	       grep -q \"^  id: s64  (\\\$arg2)\" '$OUT/dry-argn2.txt' && grep -q \"from TP_PROTO's argument 2\" '$OUT/dry-argn2.txt'"
kpt hist --json "$ARGN" nr -c "$OUT/seeks $OUT/seeks.c" > "$OUT/argn.json" 2> "$OUT/argn.err"
check "hist of \$arg2 if nr == $NR_LSEEK: the program's 777 lseeks" python3 -c "
import json, sys
h = [json.loads(l) for l in open(sys.argv[1]) if '\"hist\"' in l][0]['hist']
sys.exit(not (h['count'] == 777 and h['min'] == h['max'] == $NR_LSEEK))" "$OUT/argn.json"
kpt hist --json "t:raw_syscalls/sys_exit ret=\$arg2 nr=\$arg1->orig_ax if nr == $NR_LSEEK" ret \
	-c "$OUT/seeks $OUT/seeks.c" > "$OUT/argr.json" 2> "$OUT/argr.err"
check "hist of sys_exit's \$arg2 (ret) if \$arg1->orig_ax is lseek's: the offsets 0..776 returned" python3 -c "
import json, sys
h = [json.loads(l) for l in open(sys.argv[1]) if '\"hist\"' in l][0]['hist']
sys.exit(not (h['count'] == 777 and h['sum'] == 776 * 777 // 2 and (h['min'], h['max']) == (0, 776)))" "$OUT/argr.json"
KPT_RC=error kpt --dry-run "t:raw_syscalls/sys_enter x=\$arg3" > "$OUT/argn3.txt" 2>&1
check "\$arg3 past sys_enter's two arguments: refused, naming them" \
	grep -q "not found at this probe point: sys_enter(regs, id)" "$OUT/argn3.txt"
KPT_RC=error kpt count -d 1 "t:raw_syscalls/sys_enter \$arg2" --by id > "$OUT/argn-by.txt" 2>&1
check "bare \$arg2 (named id) beside --by id (the record's field): refused, saying to name it" \
	grep -qF ': $arg2 takes the prototype'"'"'s name id, as another argument is named; name it (x=$arg2)' "$OUT/argn-by.txt"
echo "# :struct, a whole struct, against pahole's layout and the record"
if command -v pahole > /dev/null; then
	# pahole's top-level members of struct $1: "OFFSET SIZE NAME" (bitfields: OFFSET:BIT)
	pa_members() {
		pahole -C "$1" 2>/dev/null | awk -F'\t' 'NF >= 2 && $1 == "" && $2 !~ /^[ \/}]/ &&
			match($0, /\/\* +[0-9]+(:[0-9]+)? +[0-9]+ +\*\//) {
			pos = substr($0, RSTART + 2, RLENGTH - 4); split(pos, f, " ")
			decl = substr($0, 1, index($0, ";") - 1); sub(/:[ 0-9]+$/, "", decl)
			sub(/\[[0-9]*\]$/, "", decl); n = split(decl, w, /[ *\t]+/)
			print f[1], f[2], w[n] }'
	}
	# kptrace's top-level ".name=" of one printed struct (nested braces skipped)
	kpt_members() {
		awk '{ s = $0; sub(/^[^{]*\{/, "", s); d = 0; name = ""
			for (i = 1; i <= length(s); i++) { c = substr(s, i, 1)
				if (c == "{" || c == "[") d++
				else if (c == "}" || c == "]") { if (d == 0) break; d-- }
				else if (d == 0 && c == "." && (i == 1 || substr(s, i - 2, 2) == ", ") &&
					 substr(s, i + 1, 1) ~ /[A-Za-z_]/) {
					name = substr(s, i + 1); sub(/=.*/, "", name); print name } }
			exit }'
	}
	PRIO_OFF=$(pa_members task_struct | awk '$3 == "prio" { print $1 }')
	NMEM=$(pahole -C task_struct 2>/dev/null | sed -nE 's/.*members: ([0-9]+) .*/\1/p' | head -n 1)
	kpt -c "sh $OUT/exits.sh" "t:$EV prio" \
		"t:btf/whole $EV p:struct prio2=+$PRIO_OFF(p):s32" \
		"t:btf/avg $EV p->se.avg:struct" > "$OUT/struct.txt" 2> "$OUT/struct.err"
	# task_struct: the members that fit the 512 bytes read, then the rest counted
	WANT=$(pa_members task_struct | awk '$1 + $2 <= 512 { print $3 }' | tr '\n' ' ')
	GOT=$(grep -m1 ' whole: p={' "$OUT/struct.txt" | kpt_members | tr '\n' ' ')
	echo "# kpt:task_struct $GOT"
	check "p:struct (task_struct): the members within its first 512 bytes, in pahole's order and names" \
		[ -n "$WANT" -a "$GOT" = "$WANT" ]
	NPR=$(echo $WANT | wc -w)
	check "p:struct: the $((NMEM - NPR)) members past them counted, of pahole's $NMEM" \
		grep -q "\.\.\.$((NMEM - NPR)) cut}" "$OUT/struct.txt"
	# .prio of each exit: the record's prio and the read at pahole's offset
	BAD=$(awk '/ sched_process_exit: prio=/ { r = $NF; sub(/prio=/, "", r) }
		/ whole: p=\{/ { match($0, /, \.prio=-?[0-9]+/); w = substr($0, RSTART + 8, RLENGTH - 8)
			o = $NF; sub(/prio2=/, "", o); n++
			if (w != r || o != r) bad++ }
		END { print n + 0, bad + 0 }' "$OUT/struct.txt")
	check "p:struct's .prio: the record's prio and +$PRIO_OFF(p) (pahole's offset) on each exit ($BAD: exits, mismatches)" \
		[ "${BAD% *}" -ge 6 -a "${BAD#* }" = 0 ]
	WANT=$(pa_members sched_avg | awk '{ print $3 }' | tr '\n' ' ')
	GOT=$(grep -m1 ' avg: arg1={' "$OUT/struct.txt" | kpt_members | tr '\n' ' ')
	check "p->se.avg:struct (sched_avg, a member): every member, pahole's names in order ($GOT)" \
		[ -n "$WANT" -a "$GOT" = "$WANT" ]
	kpt --json -c "sh -c 'exit 0'" "t:$EV p->se.avg:struct" > "$OUT/struct.json" 2> "$OUT/struct-j.err"
	check "--json: the struct an object of pahole's members, numbers" python3 -c "
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
want = sys.argv[2].split()
o = rows[0]['args']['arg1']
sys.exit(not (list(o) == want and all(isinstance(v, int) for v in o.values())))" "$OUT/struct.json" "$WANT"
else
	env_fault "no pahole (dwarves: make test-deps)"
fi
finish
