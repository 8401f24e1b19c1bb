#!/bin/sh
# Guest script (busybox sh) for issue 19's everyday questions through real
# kernel functions: latency --from/--to between a kprobe and a kretprobe
# (the same pairs latency FUNC makes, counted alike), a count over a glob
# of kernel functions with the probe a column, the --from side's
# string as a --by key beside the --to side's errno, and count --sum of a
# return value, through each backend this kernel has.
W=/tmp/kpt-every
mkdir -p $W
KREL=$(uname -r)
echo "# kernel $KREL"
# kptrace's fentry/fexit programs take bpf_get_func_arg_cnt() and
# bpf_get_func_ret(), which came in Linux 5.17 (the kernel's history):
# before, the backend is refused and auto takes kprobes, each saying why
case $KREL in
[1-4].* | 5.[0-9].* | 5.1[0-6].*) BACKENDS="kprobe" OLD_TRAMP=2 ;;
*) BACKENDS="kprobe fentry" OLD_TRAMP=0 ;;
esac
grep -q ' register_fprobe_ips$' /proc/kallsyms && BACKENDS="$BACKENDS kprobe-multi"
n=$((OLD_TRAMP + 1))
for b in $BACKENDS; do n=$((n + 5)); done
echo "# expect $n ok"
ok() { echo "ok - $KREL: $*"; }
bad() { echo "FAIL - $KREL: $*"; }
KPT="timeout -s KILL 120 /bin/kptrace"

# the marker: dd reading 777 bytes of a 1000-byte file, three times over
head -c 1000 /dev/zero | tr '\0' x > $W/mark
WORK="dd if=$W/mark of=/dev/null bs=777 count=3"

for b in $BACKENDS; do
	# vfs_read's entry to its return by thread, the reads of dd only: its
	# three (777 bytes, the 223 left, 0 at the end; busybox's dd is static:
	# no loader reads), through --from/--to and through latency's own pairing
	$KPT latency --backend $b -c "$WORK" --from 'p:vfs_read' --to 'r:vfs_read' \
		> $W/$b.pair 2> $W/$b.pair.err
	rc1=$?
	$KPT latency --backend $b -c "$WORK" vfs_read > $W/$b.lat 2> $W/$b.lat.err
	rc2=$?
	# the histogram's summary: "count N, sum ..."
	c1=$(sed -n 's/^count \([0-9]*\), sum.*/\1/p' $W/$b.pair | head -n 1)
	c2=$(sed -n 's/^count \([0-9]*\), sum.*/\1/p' $W/$b.lat | head -n 1)
	if [ $rc1 = 0 ] && [ $rc2 = 0 ] && [ "$c1" = 3 ] && [ "$c2" = 3 ]; then
		ok "latency --from p:vfs_read --to r:vfs_read --backend $b: dd's 3 reads, 3 pairs (latency vfs_read: 3)"
	else
		bad "latency --from/--to --backend $b: exit $rc1/$rc2, $c1 pairs and latency's $c2, want dd's 3 reads: $(tail -c 300 $W/$b.pair.err | tr "\n" " ")"
	fi
	# do_filp_open's path at the start, its result at the end: three cats
	# of a file that is not there are one row, -ENOENT, 3 pairs
	$KPT latency --backend $b -c "sh -c 'cat $W/nope; cat $W/nope; cat $W/nope; cat $W/mark'" \
		--from 'p:do_filp_open path=+0(+0(%si)):string' --to 'r:do_filp_open ret=$retval:errno' \
		--by path,ret > $W/$b.pby 2> $W/$b.pby.err
	rc=$?
	c=$(sed -n "\|^@.*\[$W/nope, -ENOENT\]:\$|,/^count/s/^count \([0-9]*\), sum.*/\1/p" $W/$b.pby)
	if [ $rc = 0 ] && [ "$c" = 3 ]; then
		ok "latency --from p:do_filp_open path --to r:do_filp_open ret --by path,ret --backend $b: [$W/nope, -ENOENT] 3 pairs"
	else
		bad "--by path,ret --backend $b: exit $rc, want [$W/nope, -ENOENT] with count 3, got '$c': $(grep '^@' $W/$b.pby | head -n 4 | tr "\n" "|") $(tail -c 300 $W/$b.pby.err | tr "\n" " ")"
	fi
	# a glob of kernel functions as one table, the probe a column: dd's
	# three reads in vfs_read's row, and a function it never calls not a row
	$KPT count --backend $b -c "$WORK" 'p:vfs_rea*' --by probe,comm > $W/$b.glob 2> $W/$b.glob.err
	rc=$?
	if [ $rc = 0 ] && grep -Eq '^ +3 +kprobes/p_vfs_read_0 +dd$' $W/$b.glob && ! grep -q 'vfs_readv' $W/$b.glob &&
		grep -Eq '^ +COUNT +probe +comm$' $W/$b.glob; then
		ok "count 'p:vfs_rea*' --by probe,comm --backend $b: one table, 3 vfs_read dd"
	else
		bad "count 'p:vfs_rea*' --by probe,comm --backend $b: exit $rc: $(head -c 400 $W/$b.glob | tr "\n" "|") $(tail -c 300 $W/$b.glob.err | tr "\n" " ")"
	fi
	# --perfetto: a slice per read dd made (3), named by the function, each
	# with its entry's argument, the histogram counting the same 3
	$KPT latency --backend $b -c "$WORK" 'vfs_read count=$arg3:u64' --perfetto $W/$b.trace \
		> $W/$b.pf 2> $W/$b.pf.err
	rc=$?
	c=$(sed -n 's/^count \([0-9]*\), sum.*/\1/p' $W/$b.pf | head -n 1)
	x=$(grep -c '"name":"vfs_read","cat":"kptrace","ph":"X"' $W/$b.trace 2>/dev/null)
	a=$(grep -c '"ph":"X".*"dur_ns":[0-9]*,"count":[0-9]*}}' $W/$b.trace 2>/dev/null)
	if [ $rc = 0 ] && [ "$c" = 3 ] && [ "$x" = 3 ] && [ "$a" = 3 ] &&
		tail -n 1 $W/$b.trace | grep -q '^]}$'; then
		ok "latency vfs_read --perfetto --backend $b: dd's 3 reads, 3 slices, each with its count, 3 counted"
	else
		bad "latency --perfetto --backend $b: exit $rc, $x slices ($a with count=), $c counted, want dd's 3 reads: $(tail -c 300 $W/$b.pf.err | tr "\n" " ")"
	fi
	# the bytes dd read: 777 + 223 (the file's rest) + 0 at its end
	$KPT count --backend $b -c "$WORK" 'r:vfs_read ret=$retval:s64 if ret > 0' --by comm --sum ret \
		> $W/$b.sum 2> $W/$b.sum.err
	rc=$?
	if [ $rc = 0 ] && grep -qE '^ +2 +1000 +dd$' $W/$b.sum; then
		ok "count --sum ret of r:vfs_read --backend $b: dd read 1000 bytes in 2 reads"
	else
		bad "count --sum --backend $b: exit $rc, want '2 1000 dd': $(head -c 300 $W/$b.sum | tr "\n" " ") $(tail -c 200 $W/$b.sum.err | tr "\n" " ")"
	fi
done

if [ $OLD_TRAMP != 0 ]; then
	$KPT count --backend fentry -c "$WORK" p:vfs_read > $W/old.out 2> $W/old.err
	rc=$?
	if [ $rc != 0 ] && grep -q "lack bpf_get_func_arg_cnt() and bpf_get_func_ret().*use --backend kprobe" $W/old.err; then
		ok "--backend fentry before 5.17: refused, naming the helpers the kernel lacks and the way out"
	else
		bad "--backend fentry before 5.17: exit $rc, want a refusal naming the helpers: $(tail -c 300 $W/old.err | tr "\n" " ")"
	fi
	$KPT --dry-run count p:vfs_read > $W/old.dry 2>&1
	$KPT count -c "$WORK" p:vfs_read --by comm > $W/old.auto 2> $W/old.auto.err
	rc=$?
	if [ $rc = 0 ] && grep -qE '^ +3 +dd$' $W/old.auto && grep -q '^attach: kprobe$' $W/old.dry &&
		grep -q '^not fentry: this kernel.s fentry/fexit programs lack' $W/old.dry; then
		ok "auto before 5.17: kprobes, dd's 3 reads, --dry-run saying why not fentry"
	else
		bad "auto before 5.17: exit $rc: $(head -c 200 $W/old.auto | tr "\n" " ") $(grep -E '^(attach|not fentry)' $W/old.dry | tr "\n" " ")"
	fi
fi

# two probes on one function's entry in one run, each counting dd's 3
# reads (before 5.15, without BPF cookies, a program each: load/ident.h)
$KPT count -c "$WORK" 'p:one vfs_read' 'p:two vfs_read n=%dx' --by probe,comm > $W/dup.out \
	2> $W/dup.err
rc=$?
if [ $rc = 0 ] && grep -Eq '^ +3 +kprobes/one +dd$' $W/dup.out &&
	grep -Eq '^ +3 +kprobes/two +dd$' $W/dup.out; then
	ok "two probes on vfs_read's entry in one run: dd's 3 reads each"
else
	bad "two probes on vfs_read's entry: exit $rc, want 3 dd each: $(head -c 300 $W/dup.out | tr "\n" "|") $(tail -c 300 $W/dup.err | tr "\n" " ")"
fi
