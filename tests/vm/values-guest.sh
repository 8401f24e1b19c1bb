#!/bin/sh
# Guest script (busybox sh), issue 26 item 23: an untyped $retval. kptrace
# types it from BTF on every kernel with BTF, as 6.5+'s kprobe_events does,
# so the same command prints the same value on a fleet of mixed kernels:
# do_sys_openat2's -ENOENT is "-2" here on 6.1 and 6.12 alike. 6.1's own
# kprobe_events, without that typing, prints 0xfffffffffffffffe (the
# README's "Known differences from ftrace"): checked against the kernel's
# own event and its format. Prints "ok - ..." / "FAIL - ...".
T=/sys/kernel/tracing
KPT=/bin/kptrace
W=/tmp/kpt-values
mkdir -p $W
KREL=$(uname -r)
echo "# kernel $KREL"
echo "# expect 3 ok"
KPT="timeout -s KILL 120 $KPT"
ok() { echo "ok - $KREL: $*"; }
bad() { echo "FAIL - $KREL: $*"; }
[ -e $T/kprobe_events ] || mount -t tracefs nodev $T

DEF='r:kpt/rv do_sys_openat2 $retval'

# The kernel's own: the event's type for $retval, and what it prints for a
# failed open (cat's of /nonexistent; its other opens succeed).
echo "$DEF" >> $T/kprobe_events
ktype=$(sed -n 's/.*field:\([^;]*\) arg1;.*/\1/p' $T/events/kpt/rv/format)
echo > $T/trace
echo 1 > $T/events/kpt/rv/enable
# by its pid: ftrace prints the comm it cached for the pid, which can be the
# forking shell's (sh-303 for cat's -2, in 1 run of 8 on 6.12)
sh -c "echo \$\$ > $W/cat.pid; exec cat /nonexistent" 2>/dev/null
echo 0 > $T/events/kpt/rv/enable
cpid=$(cat $W/cat.pid)
kval=$(grep -e "-$cpid  *\[.* rv: " $T/trace | sed -n 's/.* arg1=\([^ ]*\)$/\1/p' | grep -v '^3$\|^0x3$' | head -n 1)
# what to read if the kernel's own event has no value: its hits and misses
# (kprobe_profile), its lines
kseen="cat's pid $cpid; kprobe_profile: $(grep 'kpt/rv' $T/kprobe_profile | tr -s ' ');"
kseen="$kseen $(grep -c ' rv: ' $T/trace) rv lines: $(grep ' rv: ' $T/trace | head -n 4 | tr -s ' ' | tr '\n' '|')"
echo "-:kpt/rv" >> $T/kprobe_events
# BTF typing of $retval came with BTF arguments (6.5), which the kernel's
# README shows as <argname>: 5.10 and 6.1 have neither, 6.12 both
kbtf=no
grep -q '<argname>' $T/README && kbtf=yes
case "$kbtf:$ktype:$kval" in
no:u64:0xfffffffffffffffe | no:"unsigned long":0xfffffffffffffffe)
	ok "the kernel's kprobe_events types \$retval $ktype (no BTF typing: its README has no BTF arguments): -ENOENT prints $kval, a known difference (README)" ;;
yes:s64:-2 | yes:long:-2)
	ok "the kernel's kprobe_events types \$retval $ktype from BTF: -ENOENT prints $kval" ;;
*)
	bad "the kernel's kprobe_events (BTF arguments: $kbtf): \$retval typed '$ktype', -ENOENT printed '$kval' (neither a BTF-less u64 0xfffffffffffffffe nor a BTF s64 -2): $kseen" ;;
esac

# kptrace: -2 on every kernel, its --dry-run saying the type it took, which
# is the one the kernel's BTF gives do_sys_openat2's return (bpftool's dump:
# FUNC -> FUNC_PROTO ret_type_id -> INT size and encoding)
btype=$(bpftool btf dump file /sys/kernel/btf/vmlinux format raw 2>/dev/null | awk '
	/^\[[0-9]+\] FUNC .do_sys_openat2. / { sub(/.*type_id=/, ""); proto = "[" $1 "]"; next }
	{ line[$1] = $0 }
	END { split(line[proto], a, "ret_type_id="); split(a[2], b, " "); r = line["[" b[1] "]"]
	      if (r !~ / INT /) { print "?"; exit }
	      match(r, /size=[0-9]+/); sz = substr(r, RSTART + 5, RLENGTH - 5) * 8
	      print (r ~ /encoding=SIGNED/ ? "s" : "u") sz }')
$KPT --dry-run "$DEF" > $W/dry.out 2>&1
got=$(sed -n 's/^  arg1: \([su][0-9]*\).*/\1/p' $W/dry.out | head -n 1)
if [ -n "$got" ] && [ "$got" = "$btype" ]; then
	ok "kptrace --dry-run '$DEF': arg1 is $got, the kernel's BTF's return type of do_sys_openat2 (bpftool)"
else
	bad "kptrace --dry-run '$DEF': arg1 '$got', the kernel's BTF (bpftool) says '$btype': $(grep -m1 'arg1' $W/dry.out) $(tail -n 2 $W/dry.out)"
fi
$KPT -c 'cat /nonexistent' "$DEF" > $W/rv.out 2> $W/rv.err
rc=$?
if [ $rc = 0 ] && grep -q ' cat-.* rv: .* arg1=-2$' $W/rv.out && ! grep -q 'arg1=0x' $W/rv.out; then
	ok "kptrace '$DEF': -ENOENT prints -2, as on every kernel with BTF"
else
	bad "kptrace '$DEF' (exit $rc): $(grep ' rv: ' $W/rv.out | head -n 4) $(tail -n 2 $W/rv.err)"
fi
