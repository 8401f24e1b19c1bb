#!/bin/sh
# Guest script (busybox sh) for tests/vm/test.sh's more-guest.sh boot:
# several probes of a kind in one run, which a kernel without BPF cookies
# (before 5.15) tells apart by a program each (bpf/kptrace.bpf.c's slots)
# and, for kprobes past them, by the running kprobe. Each run is checked
# against the workload's known counts: dd's 3 reads, and /uw2's calls
# (tests/host/unwind_target.c: for N, uw_outer, uw_middle and uw_tail N
# times each, uw_leaf 2N).
W=/tmp/kpt-ident
mkdir -p $W
KREL=$(uname -r)
echo "# expect 6 ok"
ok() { echo "ok - $KREL: $*"; }
bad() { echo "FAIL - $KREL: $*"; }
KPT="timeout -s KILL 300 /bin/kptrace"
[ -x /uw2 ] || { bad "no /uw2 (tests/vm/test.sh adds it)"; exit 1; }

# dd reading 777 bytes of a 1000-byte file: 3 reads (777, 223, 0 at its end)
head -c 1000 /dev/zero | tr '\0' x > $W/mark
WORK="dd if=$W/mark of=/dev/null bs=777 count=3"
# rows: "COUNT probe comm" of F, the count of probe P and comm C
row() { sed -n "s|^ *\([0-9]*\) *$2 *$3\$|\1|p" "$1"; }

# lat FROM TO N WHAT: a latency between two tracepoints over dd's reads
# must count N pairs
lat() {
	$KPT latency -c "$WORK" --from "$1" --to "$2" > $W/lat.out 2> $W/lat.err
	rc=$?
	c=$(sed -n 's/^count \([0-9]*\), sum.*/\1/p' $W/lat.out | head -n 1)
	if [ $rc = 0 ] && [ "$c" = "$3" ]; then
		ok "latency --from $1 --to $2: $4, $3 pairs"
	else
		bad "latency --from $1 --to $2: exit $rc, '$c' pairs, want $3 ($4): $(tail -c 300 $W/lat.err | tr "\n" " ")"
	fi
}

# two tracepoints: a latency from one to the other, and a count of both
lat t:syscalls/sys_enter_read t:syscalls/sys_exit_read 3 "dd's 3 reads"
$KPT count -c "$WORK" t:syscalls/sys_enter_read t:syscalls/sys_exit_read --by probe,comm \
	> $W/tc.out 2> $W/tc.err
rc=$?
a=$(row $W/tc.out syscalls/sys_enter_read dd) b=$(row $W/tc.out syscalls/sys_exit_read dd)
if [ $rc = 0 ] && [ "$a" = 3 ] && [ "$b" = 3 ]; then
	ok "count of two tracepoints --by probe,comm: sys_enter_read and sys_exit_read 3 dd each"
else
	bad "count of two tracepoints: exit $rc, '$a' and '$b', want 3 and 3: $(head -c 300 $W/tc.out | tr "\n" "|") $(tail -c 300 $W/tc.err | tr "\n" " ")"
fi

# two definitions on one tracepoint (one attachment runs both, the end's
# work first): each of dd's reads ends the last one's pair
lat t:syscalls/sys_enter_read t:syscalls/sys_enter_read 2 "from each of dd's 3 reads to the next"

# uprobes: a glob (uw_leaf, uw_middle, uw_middle.cold, uw_outer, uw_tail),
# and two probes on one function's entry
$KPT count -c "/uw2 5" 'p:/uw2:uw_[lmot]*' --by probe > $W/ug.out 2> $W/ug.err
rc=$?
got=$(for f in leaf middle outer tail; do row $W/ug.out "uprobes/p_[a-z0-9_]*uw_${f}_0" ""; done | tr '\n' ' ')
if [ $rc = 0 ] && [ "$got" = "10 5 5 5 " ]; then
	ok "count 'p:/uw2:uw_[lmot]*' --by probe: uw_leaf 10, uw_middle, uw_outer and uw_tail 5 each"
else
	bad "uprobe glob: exit $rc, got '$got', want '10 5 5 5': $(head -c 300 $W/ug.out | tr "\n" "|") $(tail -c 300 $W/ug.err | tr "\n" " ")"
fi
$KPT count -c "/uw2 5" 'p:one /uw2:uw_leaf' 'p:two /uw2:uw_leaf x=%ax' --by probe \
	> $W/u2.out 2> $W/u2.err
rc=$?
a=$(row $W/u2.out uprobes/one "") b=$(row $W/u2.out uprobes/two "")
if [ $rc = 0 ] && [ "$a" = 10 ] && [ "$b" = 10 ]; then
	ok "two uprobes on uw_leaf's entry in one run: 10 calls each"
else
	bad "two uprobes on uw_leaf: exit $rc, '$a' and '$b', want 10 and 10: $(head -c 300 $W/u2.out | tr "\n" "|") $(tail -c 300 $W/u2.err | tr "\n" " ")"
fi

# more kprobes than a run has slots (16): without cookies, those past
# them are told apart by the running kprobe (x86-64's kallsyms has it),
# here vfs_read, the last; ksys_read has a slot
K="ksys_read ksys_write vfs_write vfs_open vfs_statx vfs_unlink vfs_rename vfs_fsync vfs_mkdir
vfs_rmdir vfs_link vfs_symlink vfs_readlink vfs_truncate vfs_fallocate vfs_llseek vfs_read"
set --
for f in $K; do set -- "$@" "p:$f"; done
$KPT count -c "$WORK" "$@" --by probe,comm > $W/kg.out 2> $W/kg.err
rc=$?
a=$(row $W/kg.out kprobes/p_ksys_read_0 dd) b=$(row $W/kg.out kprobes/p_vfs_read_0 dd)
if [ $rc = 0 ] && [ "$a" = 3 ] && [ "$b" = 3 ]; then
	ok "count of 17 kprobes in one run --by probe,comm: ksys_read and vfs_read 3 dd each"
else
	bad "count of 17 kprobes: exit $rc, ksys_read '$a' and vfs_read '$b', want 3 and 3: $(tail -c 300 $W/kg.err | tr "\n" " ")"
fi
