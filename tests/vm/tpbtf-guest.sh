#!/bin/sh
# Guest script (busybox sh), issue 42: BTF-typed tracepoints (tp_btf) on
# this kernel (6.1's BTF names TP_PROTO by __traceiter_EVENT only). Children
# exit with known codes: p->exit_code is each code << 8; the record's
# comm/pid/prio (tracepoint program) and p->comm/p->pid/p->prio (tp_btf) of
# the same exits in one run against the kernel's own trace of them (a
# tracefs instance); :struct's .prio against the record's prio; the direct
# histogram and stream of p->exit_code, their loads this kernel's
# verifier's to take.
T=/sys/kernel/tracing
EV=sched/sched_process_exit
W=/tmp/kpt-tpbtf
mkdir -p $W
KREL=$(uname -r)
echo "# kernel $KREL"
echo "# expect 9 ok"
ok() { echo "ok - $KREL: $*"; }
bad() { echo "FAIL - $KREL: $*"; }
KPT="timeout -s KILL 120 /bin/kptrace"
[ -e $T/events ] || mount -t tracefs nodev $T

$KPT --dry-run "t:$EV p->exit_code" > $W/dry 2>&1
grep -q '^attach: tp_btf' $W/dry && ok "t:$EV p->exit_code: tp_btf" ||
	{ bad "t:$EV p->exit_code: not tp_btf"; sed 's/^/#   /' $W/dry | head -5; }

cat > $W/exits.sh <<SH
for c in 3 7 42 0 255; do sh -c 'echo "\$\$ '\$c'" >> $W/codes; exit '\$c; done
SH
rm -f $W/codes
I=$T/instances/kpt-tpbtf
mkdir $I
echo 1 > $I/events/$EV/enable
$KPT -c "sh $W/exits.sh" "t:$EV comm pid prio" \
	"t:btf/exit $EV comm=p->comm:string pid=p->pid prio=p->prio code=p->exit_code" \
	"t:btf/whole $EV p->se.avg:struct p:struct" > $W/out 2> $W/err
echo 0 > $I/events/$EV/enable
cp $I/trace $W/ftrace
rmdir $I
PIDS=$(cut -d' ' -f1 $W/codes | tr '\n' '|')
PIDS=${PIDS%|}
# "comm=C pid=P prio=N" of the children's exits, quotes off kptrace's strings
lines() {
	sed -n "s/^.* $2: \(comm=[^ ]* pid=[0-9]* prio=-*[0-9]*\).*$/\1/p" $1 | tr -d '"' |
		grep -E "pid=($PIDS) " | sort
}
FT=$(lines $W/ftrace sched_process_exit)
if [ "$(echo "$FT" | grep -c pid=)" = 5 ] && [ "$(lines $W/out sched_process_exit)" = "$FT" ]; then
	ok "the tracepoint program's comm, pid, prio of 5 exits: the kernel's trace's"
else
	bad "the tracepoint program's fields differ from the kernel's trace"; sed 's/^/#   /' $W/err | head -5
fi
[ "$(lines $W/out exit)" = "$FT" ] && [ -n "$FT" ] &&
	ok "tp_btf's p->comm, p->pid, p->prio of the same exits: the kernel's trace's" ||
	bad "tp_btf's p->comm, p->pid, p->prio differ from the kernel's trace"
WANT=$(awk '{ print $1, $2 * 256 }' $W/codes | sort)
GOT=$(sed -n 's/^.* exit: .* pid=\([0-9]*\) .* code=\(-*[0-9]*\)$/\1 \2/p' $W/out | grep -E "^($PIDS) " | sort)
[ -n "$WANT" ] && [ "$GOT" = "$WANT" ] && ok "p->exit_code of each child: its code << 8" ||
	bad "p->exit_code: '$(echo $GOT)', want '$(echo $WANT)'"
# :struct's .prio (task_struct's first members fit the 512 bytes read) and the record's
BAD=$(awk '/ sched_process_exit: comm=/ { r = $NF; sub(/prio=/, "", r) }
	/ whole: arg1=\{/ { match($0, /, \.prio=-?[0-9]+/); w = substr($0, RSTART + 8, RLENGTH - 8)
		n++; if (w != r || $0 !~ /\.last_update_time=[0-9]+/) bad++ }
	END { print n + 0, bad + 0 }' $W/out)
[ "${BAD% *}" -ge 6 ] && [ "${BAD#* }" = 0 ] &&
	ok ":struct: sched_avg whole, task_struct's .prio the record's on each exit ($BAD)" ||
	{ bad ":struct: $BAD (exits, mismatches)"; grep -m1 ' whole:' $W/out | cut -c1-300 | sed 's/^/#   /'; }

# hist of p->exit_code on the direct path (-v would say the kernel refused
# it): the 5 children's codes and the shell's (its last child's 255), << 8
rm -f $W/codes
$KPT -v hist --json --backend tp-btf --linear 0,65536,256 -c "sh $W/exits.sh" \
	"t:d $EV c=p->exit_code" c > $W/hist 2> $W/hist.err
WANT=$(awk '{ s += $2 * 256 } END { print NR + 1, s + 255 * 256 }' $W/codes)
GOT=$(sed -n 's/.*"count":\([0-9]*\),"sum":\([0-9]*\),.*/\1 \2/p' $W/hist)
if grep -q 'takes the generic path' $W/hist.err; then
	bad "hist of p->exit_code: the kernel refused the direct loads"
	grep -B3 'END PROG' $W/hist.err | sed 's/^/#   /' | head -5
elif [ -n "$GOT" ] && [ "$GOT" = "$WANT" ]; then
	ok "hist of p->exit_code, direct: count and sum ($GOT) the 6 exits' codes << 8"
else
	bad "hist of p->exit_code: '$GOT', want '$WANT'"; grep -v '^libbpf' $W/hist.err | head -5 | sed 's/^/#   /'
fi

# a stream of one probe, written straight from the arguments: each child's
# pid and code << 8
rm -f $W/codes
$KPT -v --backend tp-btf -c "sh $W/exits.sh" "t:btf/exit $EV pid=p->pid code=p->exit_code" \
	> $W/stream 2> $W/stream.err
WANT=$(awk '{ print $1, $2 * 256 }' $W/codes | sort)
PIDS=$(cut -d' ' -f1 $W/codes | tr '\n' '|')
GOT=$(sed -n 's/^.* exit: pid=\([0-9]*\) code=\(-*[0-9]*\)$/\1 \2/p' $W/stream | grep -E "^(${PIDS%|}) " | sort)
if grep -q 'takes the generic path' $W/stream.err; then
	bad "stream of p->exit_code: the kernel refused the direct loads"
elif [ -n "$WANT" ] && [ "$GOT" = "$WANT" ]; then
	ok "stream of p->pid, p->exit_code, direct: each child's"
else
	bad "stream of p->exit_code: '$(echo $GOT)', want '$(echo $WANT)'"; grep -v '^libbpf' $W/stream.err | head -5 | sed 's/^/#   /'
fi

# the same stream filtered by one comparison, still direct: the one child
# that exits 0
rm -f $W/codes
$KPT -v --backend tp-btf -c "sh $W/exits.sh" "t:btf/exit $EV pid=p->pid code=p->exit_code if code == 0" \
	> $W/fstream 2> $W/fstream.err
WANT=$(awk '$2 == 0 { print $1, 0 }' $W/codes)
GOT=$(sed -n 's/^.* exit: pid=\([0-9]*\) code=\(-*[0-9]*\)$/\1 \2/p' $W/fstream)
if grep -q 'takes the generic path' $W/fstream.err; then
	bad "stream of p->exit_code if code == 0: the kernel refused the direct loads"
elif [ -n "$WANT" ] && [ "$GOT" = "$WANT" ]; then
	ok "stream of p->pid, p->exit_code if code == 0, direct: the one child that exits 0"
else
	bad "filtered stream of p->exit_code: '$(echo $GOT)', want '$WANT'"; grep -v '^libbpf' $W/fstream.err | head -5 | sed 's/^/#   /'
fi

# $argN: TP_PROTO's arguments by position, as ftrace's tprobe names them;
# where this kernel has tprobes (6.12: CONFIG_FPROBE_EVENTS), its own tprobe
# on the same exits in the same run is the reference too: $arg1 the same
# task pointer, named p, and p->pid, p->exit_code (its tprobes take no
# $argN-> chain) what kptrace's $arg1->pid, $arg1->exit_code read
rm -f $W/codes
TPR=""
if echo 't:kptpos/ex sched_process_exit $arg1 pid=p->pid code=p->exit_code' \
	>> $T/dynamic_events 2> /dev/null; then
	TPR=$T/instances/kpt-tprobe
	mkdir $TPR && echo 1 > $TPR/events/kptpos/ex/enable
fi
$KPT --backend tp-btf -c "sh $W/exits.sh" "t:btf/pos $EV \$arg1 pid=\$arg1->pid code=\$arg1->exit_code" \
	> $W/pos 2> $W/pos.err
PIDS=$(cut -d' ' -f1 $W/codes | tr '\n' '|')
# "PID CODE" of the children's exits in FILE, the task pointer kept in $W/ptrs.FILE
pos_lines() {
	sed -n "s/^.* $2: .*p=\(0x[0-9a-f]*\) pid=\([0-9]*\) code=\(-*[0-9]*\)$/\2 \3 \1/p" $1 |
		grep -E "^(${PIDS%|}) " | sort > $1.rows
	cut -d' ' -f1,2 $1.rows
}
WANT=$(awk '{ print $1, $2 * 256 }' $W/codes | sort)
GOT=$(pos_lines $W/pos pos)
FTP="no tprobes here"
if [ -n "$TPR" ]; then
	echo 0 > $TPR/events/kptpos/ex/enable
	cp $TPR/trace $W/tprobe
	rmdir $TPR
	echo "-:kptpos/ex" >> $T/dynamic_events
	pos_lines $W/tprobe ex > /dev/null
	cmp -s $W/tprobe.rows $W/pos.rows && FTP="ftrace's tprobe: the same pid, code and p of each" ||
		FTP="ftrace's tprobe DIFFERS: $(cat $W/tprobe.rows | tr '\n' ';')"
fi
if [ -n "$WANT" ] && [ "$GOT" = "$WANT" ] && [ "${FTP#*DIFFERS}" = "$FTP" ]; then
	ok "\$arg1, \$arg1->pid, \$arg1->exit_code: each child's pid and code << 8 ($FTP)"
else
	bad "\$arg1: '$(echo $GOT)', want '$(echo $WANT)'; $FTP"
	grep -v '^libbpf' $W/pos.err | head -5 | sed 's/^/#   /'
fi
