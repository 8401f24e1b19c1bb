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
expect_checks 10

echo "# --dry-run: the attachment each probe takes"
kpt --dry-run "t:$EV p->exit_code" > "$OUT/dry-btf.txt" 2>&1
check "t:$EV p->exit_code: tp_btf, the argument TP_PROTO's first" sh -c \
	"grep -q '^attach: tp_btf' '$OUT/dry-btf.txt' && grep -q \"from TP_PROTO's argument 1\" '$OUT/dry-btf.txt'"
kpt --dry-run "t:$EV pid" > "$OUT/dry-tp.txt" 2>&1
check "t:$EV pid (a record field): the tracepoint program" grep -q '^attach: tracepoint' "$OUT/dry-tp.txt"
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

echo "# counts: tp_btf (auto) and the tracepoint program (--backend tracepoint)"
kpt --json count -c "sh $OUT/exits.sh" "t:$EV" > "$OUT/count-btf.json" 2> "$OUT/count-btf.err"
kpt --json count --backend tracepoint -c "sh $OUT/exits.sh" "t:$EV" > "$OUT/count-tp.json" \
	2> "$OUT/count-tp.err"
# the workload's exits: its 5 children and the shell
check "count t:$EV through tp_btf: 6, the workload's exits" \
	grep -q '"count": *6\b' "$OUT/count-btf.json"
check "count t:$EV through the tracepoint program: 6" grep -q '"count": *6\b' "$OUT/count-tp.json"
finish
