#!/bin/sh
# Guest script (busybox sh): containers on a pure cgroup v2 kernel, through
# real kprobes and fentry (the host has neither, and is v1 with a unified
# mount): --by container/cgroup keys and --container/--cgroup filters,
# against two cgroups of ours, one named as docker names its scopes, each
# running dd with a known number of 1-byte reads. Prints "ok - ..." /
# "FAIL - ..." and exits non-zero on a failure.
W=/tmp/kpt-ctr
mkdir -p $W
KREL=$(uname -r)
. /guest-lib.sh || { echo "FAIL - $KREL: no /guest-lib.sh (tests/vm/test.sh adds it)"; exit 1; }
# after guest-lib.sh, whose KPT is a function (not for runs put in the background)
KPT="timeout -s KILL 120 /bin/kptrace"
FAILED=0
ok() { echo "ok - $KREL: $*"; }
bad() { echo "FAIL - $KREL: $*"; FAILED=1; }
echo "# kernel $KREL"
# fentry refused for want of its helpers: one gated line for its three
if fentry_helpers; then echo "# expect 6 ok"; else echo "# expect 4 ok"; fi

V2=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
if [ -z "$V2" ]; then
	mkdir -p /sys/fs/cgroup && mount -t cgroup2 none /sys/fs/cgroup && V2=/sys/fs/cgroup
fi
ID=4b1d0000c0ffee00000000000000000000000000000000000000000000000042
CA=$V2/system.slice/docker-$ID.scope
CB=$V2/kpt-b
mkdir -p $CA $CB || { bad "cannot make cgroups under $V2"; exit 1; }
NA=300 NB=170

# reads CGROUP N: N 1-byte reads by dd, in CGROUP from its first
# instruction; its pid in RP (job numbers would count the earlier runs')
reads() { sh -c "echo \$\$ > $1/cgroup.procs && exec dd if=/dev/zero of=/dev/null bs=1 count=$2" 2> /dev/null & RP=$!; }

# sums FILE KEY: "key:count ..." of count --json rows
sums() {
	sed -n "s/.*\"count\":\([0-9]*\),\"key\":{.*\"$2\":\"\([^\"]*\)\".*/\2:\1/p" $1 | sort | tr '\n' ' '
}

# run_both OUT ERR ARGS...: kptrace on 1-byte vfs_reads of dd while both
# cgroups read, stopped by SIGINT once they are done
run_both() {
	local out=$1 err=$2 i=0; shift 2
	# the last backend's "Attached" would be read before this kptrace
	# truncates ERR: dd would run before it attached
	rm -f $err
	$KPT count --comm dd "$@" 'p:vfs_read count=%dx:u64 if count == 1' > $out 2> $err &
	KP=$!
	while ! grep -q '^Attached' $err 2>/dev/null && [ $i -lt 600 ]; do i=$((i + 1)); sleep 0.1; done
	reads $CA $NA
	local pa=$RP
	reads $CB $NB
	wait $pa $RP
	sleep 0.5
	kill -INT $KP
	wait $KP
}

for be in kprobe fentry; do
	$KPT --backend $be --dry-run 'p:vfs_read count=%dx:u64' > $W/dry 2>&1
	rc=$?
	[ $be = fentry ] && fentry_gate "$be: --by container, --container, --cgroup" $rc $W/dry && continue
	if [ $rc != 0 ]; then
		bad "$be: refused on this kernel: $(tail -n 1 $W/dry)"
		continue
	fi
	run_both $W/by.json $W/by.err --backend $be --json --by container,cgroup
	got=$(sums $W/by.json container)
	want="/kpt-b:$NB 4b1d0000c0ff:$NA "
	if [ "$got" = "$want" ]; then
		ok "$be: --by container: the docker-named scope by its short id, a plain cgroup by path ($got)"
	else
		bad "$be: --by container: got '$got', want '$want': $(tail -n 2 $W/by.err)"
	fi
	run_both $W/f1.json $W/f1.err --backend $be --json --container 4b1d
	got=$(sed -n 's/.*"count":\([0-9]*\).*/\1/p' $W/f1.json)
	if [ "$got" = $NA ]; then
		ok "$be: --container 4b1d: its $NA reads only"
	else
		bad "$be: --container 4b1d: got '$got', want $NA: $(tail -n 2 $W/f1.err)"
	fi
	run_both $W/f2.json $W/f2.err --backend $be --json --cgroup $CB
	got=$(sed -n 's/.*"count":\([0-9]*\).*/\1/p' $W/f2.json)
	if [ "$got" = $NB ]; then
		ok "$be: --cgroup $CB: its $NB reads only"
	else
		bad "$be: --cgroup $CB: got '$got', want $NB: $(tail -n 2 $W/f2.err)"
	fi
done
rmdir $CA $CB $V2/system.slice 2>/dev/null
exit $FAILED
