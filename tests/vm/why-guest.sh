#!/bin/sh
# Guest script (busybox sh) for kptrace why (issue 43): bpf(BPF_MAP_CREATE)
# of an array map with an 8-byte key, which array_map_alloc_check() refuses
# with -EINVAL (kernel/bpf/arraymap.c: an array's key is a u32), made by
# /why_target (tests/vm/why_target.c). The references are the kernel's
# source for the origin and its ftrace function_graph tracer for the tree:
# the same call traced with set_graph_function on the root and
# set_ftrace_filter on the same globs, compared function by function and
# nesting by nesting (and the origin's return value, where 6.5+'s
# funcgraph-retval prints it). A call that does not fail prints nothing.
W=/tmp/kpt-why
mkdir -p $W
KREL=$(uname -r)
T=/sys/kernel/tracing
echo "# kernel $KREL"
. /guest-lib.sh || { echo "FAIL - $KREL: no /guest-lib.sh (tests/vm/test.sh adds it)"; exit 1; }
BACKENDS="kprobe fentry"
MULTI=
grep -q ' register_fprobe_ips$' /proc/kallsyms && MULTI=1 BACKENDS="$BACKENDS kprobe-multi"
# 13 checks, one a backend (2 or 3), and without kprobe.multi the refusal of many;
# --under ':GLOB's refusal, and with the tests' module (test.sh adds it but
# on 5.10) its functions and tree
SRC=1
[ -e /lib/etn.ko ] && SRC=4
echo "# expect $((16 + SRC)) ok"
ok() { echo "ok - $KREL: $*"; }
bad() { echo "FAIL - $KREL: $*"; }
KPT="timeout -s KILL 120 /bin/kptrace"
# the bpf() syscall's function (guest-lib.sh's sys_bpf); map_create(), which
# the kernel inlines into it before 5.13, where kallsyms has it
sys_bpf
ROOT=$SYSBPF
MC=
grep -q ' map_create$' /proc/kallsyms && MC=map_create
UNDER="array_map_alloc* $MC security_bpf*"

# tree FILE: "DEPTH NAME" per call of a function_graph listing (ftrace's or
# kptrace's: " CPU) DURATION |  " then two spaces a level), in order; a
# module's function by its name alone (ftrace's "etn_write [etn]()",
# kptrace's "etn:etn_write()")
tree() {
	sed -n 's/ \[[A-Za-z0-9_]*\]()/()/; s/|  \( *\)[A-Za-z0-9_]*:\([A-Za-z_]\)/|  \1\2/
		s/^[^|]*|  \( *\)\([A-Za-z_][A-Za-z0-9_.]*\)() {.*/\1 \2/p
		s/^[^|]*|  \( *\)\([A-Za-z_][A-Za-z0-9_.]*\)();.*/\1 \2/p' "$1" |
		awk '{ print (index($0, $NF) - 2) / 2, $NF }'
}

# ftrace ROOT "GLOBS" OUT CMD...: ftrace's function_graph of one run of
# CMD, its pid's calls alone, into OUT.trace and OUT.tree
[ -e $T/available_tracers ] || mount -t tracefs nodev $T
ftrace() {
	local root=$1 globs=$2 out=$3
	shift 3
	echo 0 > $T/tracing_on
	echo > $T/trace
	echo "$root $globs" > $T/set_ftrace_filter
	echo $root > $T/set_graph_function
	echo function_graph > $T/current_tracer
	[ -e $T/options/funcgraph-retval ] && echo 1 > $T/options/funcgraph-retval
	sh -c "echo \$\$ > $T/set_ftrace_pid; echo 1 > $T/tracing_on; exec \"\$@\"" sh "$@" > $out.run 2>&1
	echo 0 > $T/tracing_on
	cat $T/trace > $out.trace
	echo nop > $T/current_tracer
	echo > $T/set_ftrace_pid
	echo > $T/set_graph_function
	echo > $T/set_ftrace_filter
	tree $out.trace > $out.tree
}

ftrace $ROOT "$UNDER" $W/ft /why_target

$KPT why $ROOT --error --under "$UNDER" -o $W/why.out --perfetto $W/why.pf -c /why_target \
	> $W/why.run 2> $W/why.err
rc=$?
tree $W/why.out > $W/why.tree
calls=$(grep -c '^# why: ' $W/why.out)
if [ $rc = 0 ] && [ "$calls" = 1 ] && [ -s $W/ft.tree ] && cmp -s $W/ft.tree $W/why.tree; then
	ok "why $ROOT --error: the call tree is ftrace function_graph's, $(wc -l < $W/ft.tree) calls in the same nesting ($(tr '\n' ' ' < $W/ft.tree))"
else
	bad "why $ROOT --error: exit $rc, $calls trees; kptrace's: $(tr '\n' ' ' < $W/why.tree); ftrace's: $(tr '\n' ' ' < $W/ft.tree); $(tail -c 300 $W/why.err | tr '\n' ' ')"
fi

# --perfetto: the same tree as slices, nested by their own times as
# Perfetto nests them ("DEPTH NAME" as tree() gives them), the origin's
# slice marked and its return the errno
slices() {
	awk 'index($0, "\"ph\":\"X\"") {
		n = $0; sub(/.*"name":"/, "", n); sub(/".*/, "", n)
		t = $0; sub(/.*"ts":/, "", t); sub(/,.*/, "", t)
		d = $0; sub(/.*"dur":/, "", d); sub(/,.*/, "", d)
		while (sp > 0 && end[sp] <= t + 0) sp--
		print sp + 0, n
		end[++sp] = t + d }' "$1"
}
slices $W/why.pf > $W/pf.tree
if [ -s $W/ft.tree ] && cmp -s $W/ft.tree $W/pf.tree &&
	grep -q '"name":"array_map_alloc_check".*"ret":-22,"origin":true' $W/why.pf; then
	ok "why --perfetto: $(wc -l < $W/pf.tree) slices nested by their times as ftrace's tree, the origin's marked with -22"
else
	bad "why --perfetto: slices $(tr '\n' ' ' < $W/pf.tree); ftrace's: $(tr '\n' ' ' < $W/ft.tree); origin: $(grep -o '"name":"array_map_alloc_check"[^}]*}' $W/why.pf | head -c 300)"
fi

# the origin: the kernel's source says array_map_alloc_check(); ftrace's
# return value says -22 where the kernel prints them
ftret=ok
if [ -e $T/options/funcgraph-retval ]; then
	grep -q 'array_map_alloc_check(); /\* = -22 \*/' $W/ft.trace || ftret="ftrace's line: $(grep array_map_alloc_check $W/ft.trace)"
fi
if grep -q '^# origin: array_map_alloc_check = -22 (EINVAL),' $W/why.out &&
	[ "$(grep -c '<== origin' $W/why.out)" = 1 ] &&
	grep -q 'array_map_alloc_check(); /\* = -22 (EINVAL) \*/  <== origin' $W/why.out &&
	[ "$ftret" = ok ]; then
	ok "why $ROOT --error: the origin is array_map_alloc_check = -22 (EINVAL), as the source and ftrace say"
else
	bad "why $ROOT --error: origin: $(grep -e '^# origin' -e '<== origin' $W/why.out | tr '\n' ' '); ftrace: $ftret"
fi

# --json: the origin's stack from the root, as ftrace's nesting has it
want=$(awk '{ s[$1] = $2 } $2 == "array_map_alloc_check" { for (i = 0; i <= $1; i++) printf "%s\"%s\"", i ? "," : "", s[i]; exit }' $W/ft.tree)
$KPT why $ROOT --error --under "$UNDER" --json -o $W/why.json -c /why_target > /dev/null 2> $W/why.json.err
rc=$?
if [ $rc = 0 ] && [ "$(grep -c '^{"why":' $W/why.json)" = 1 ] && [ -n "$want" ] &&
	grep -q "\"origin\":\"array_map_alloc_check\",\"origin_stack\":\[$want\]" $W/why.json; then
	ok "why --json: one object, the origin's stack [$want] as ftrace's nesting"
else
	bad "why --json: exit $rc, want origin_stack [$want]: $(head -c 400 $W/why.json) $(tail -c 200 $W/why.json.err | tr '\n' ' ')"
fi

# a call that does not fail: nothing printed
$KPT why $ROOT --error --under "$UNDER" -o $W/good.out -c '/why_target good' > $W/good.run 2> $W/good.err
rc=$?
if [ $rc = 0 ] && grep -q ' = [0-9]' $W/good.run && [ ! -s $W/good.out ] &&
	grep -q 'why: 0 calls printed' $W/good.err; then
	ok "why $ROOT --error over a call that succeeds: nothing printed"
else
	bad "why over a good call: exit $rc, $(head -c 300 $W/good.out) $(cat $W/good.run) $(tail -c 300 $W/good.err | tr '\n' ' ')"
fi

# each backend this kernel has, on few functions (fentry's 16 programs)
FEW="$MC array_map_alloc_check security_bpf"
ftrace $ROOT "$FEW" $W/ftfew /why_target
for b in $BACKENDS; do
	$KPT why $ROOT --error --under "$FEW" --backend $b -o $W/$b.out -c /why_target > $W/$b.run 2> $W/$b.err
	rc=$?
	[ $b = fentry ] && fentry_gate "why --backend $b" $rc $W/$b.err && continue
	tree $W/$b.out > $W/$b.tree
	if [ $rc = 0 ] && [ -s $W/ftfew.tree ] && cmp -s $W/ftfew.tree $W/$b.tree &&
		grep -q 'array_map_alloc_check(); /\* = -22 (EINVAL) \*/  <== origin' $W/$b.out; then
		ok "why --backend $b: ftrace's tree ($(tr '\n' ' ' < $W/ftfew.tree)), the origin array_map_alloc_check"
	else
		bad "why --backend $b: exit $rc; kptrace's: $(tr '\n' ' ' < $W/$b.tree); ftrace's: $(tr '\n' ' ' < $W/ftfew.tree); $(tail -c 300 $W/$b.err | tr '\n' ' ')"
	fi
done

# without kprobe.multi, a kprobe a function: more than 64 refused, saying
# why, before anything is attached (security_*: hundreds, as the kernel's
# own list of traceable functions counts them)
if [ -z "$MULTI" ]; then
	n=$(grep -c '^security_' $T/available_filter_functions)
	$KPT why $ROOT --error --under 'security_*' -c /why_target > $W/many.out 2> $W/many.err
	rc=$?
	if [ $rc = 1 ] && [ "$n" -gt 64 ] && ! grep -q Attach $W/many.err &&
		grep -q 'error: why --under: [0-9]* functions, and this kernel has no kprobe.multi .*at most 64' $W/many.err; then
		ok "why --under 'security_*' ($n functions) without kprobe.multi: refused, saying why"
	else
		bad "why over $n functions without kprobe.multi: exit $rc: $(tail -c 300 $W/many.err | tr '\n' ' ')"
	fi
fi

# --slower: a call that succeeds, slower than 1 ns as every call is: its
# tree, longer than the failing one's (the map made), as ftrace's
ftrace $ROOT "$UNDER" $W/ftgood /why_target good
$KPT why $ROOT --slower 1ns --under "$UNDER" -o $W/slow.out -c '/why_target good' > $W/slow.run 2> $W/slow.err
rc=$?
tree $W/slow.out > $W/slow.tree
if [ $rc = 0 ] && [ "$(grep -c '^# why: ' $W/slow.out)" = 1 ] && ! grep -q origin $W/slow.out &&
	[ -s $W/ftgood.tree ] && cmp -s $W/ftgood.tree $W/slow.tree; then
	ok "why $ROOT --slower 1ns: the good call's tree is ftrace's, $(wc -l < $W/slow.tree) calls, no origin"
else
	bad "why --slower 1ns: exit $rc; kptrace's: $(tr '\n' ' ' < $W/slow.tree); ftrace's: $(tr '\n' ' ' < $W/ftgood.tree); $(tail -c 300 $W/slow.err | tr '\n' ' ')"
fi

# a log past its 128 entries: an open(2) of a path 80 directories deep,
# inode_permission() once a directory (ftrace counts them, N), fails
# -ENOENT at its last name; the first 64 calls kept, 2N - 128 entries and
# returns counted as not kept, the tree marked and the run's count said.
# Where ftrace sees no such calls (5.10's compiler inlined it into the
# walk, fs/namei.c's own), __d_lookup_rcu(), fs/dcache.c's, once a name.
D=$W/d
i=0
while [ $i -lt 80 ]; do D=$D/d; i=$((i + 1)); done
mkdir -p $D
for F in inode_permission __d_lookup_rcu; do
	ftrace do_sys_openat2 $F $W/ftdeep cat $D/missing
	# the root's calls alone: an exec's inode_permission() may come before it
	awk '$1 == 0 && $2 == "do_sys_openat2" { on = 1 } on' $W/ftdeep.tree > $W/ftdeep.root
	n=$(grep -c "^1 $F\$" $W/ftdeep.root)
	[ "$n" -gt 64 ] && break
done
$KPT why do_sys_openat2 --error --under $F -o $W/deep.out -c "cat $D/missing" > $W/deep.run 2> $W/deep.err
rc=$?
tree $W/deep.out > $W/deep.tree
head -n 65 $W/ftdeep.root > $W/ftdeep.first
kept=$(grep -c "$F();" $W/deep.out)
if [ $rc = 0 ] && [ "$n" -gt 64 ] && [ "$kept" = 64 ] && cmp -s $W/ftdeep.first $W/deep.tree &&
	grep -q "^# cut short: $((2 * n - 128)) entries and returns past the log's bounds" $W/deep.out &&
	grep -q 'why: 1 calls printed, 1 of them cut short' $W/deep.err; then
	ok "why over a log past its bounds: ftrace's first 64 of $n calls of $F kept, $((2 * n - 128)) entries and returns counted, marked"
else
	bad "why past the log's bounds: exit $rc, ftrace $n calls of $F, kptrace kept $kept: $(grep '^#' $W/deep.out | tr '\n' ' ') $(tail -c 300 $W/deep.err | tr '\n' ' ')"
fi
# The root's entry arguments: do_sys_openat2's of /why_target open's two
# openat(2)s, which fail -ENOENT, fetched by BTF names; the references are
# the kernel's own kprobe_events fetching the same arguments by their
# registers at the same calls, and the workload's own arguments (it prints
# them: its dfd, path)
OPENARGS='dfd filename:ustring flags=how->flags'
echo 'p:kptref/openroot do_sys_openat2 dfd=%di:s32 filename=+0(%si):ustring flags=+0(%dx):u64' > $T/kprobe_events
echo 0 > $T/tracing_on
echo > $T/trace
echo 1 > $T/events/kptref/openroot/enable
echo 1 > $T/tracing_on
$KPT why "do_sys_openat2 $OPENARGS" --error --under path_openat -o $W/args.out \
	--perfetto $W/args.pf -c '/why_target open' > $W/args.run 2> $W/args.err
rc=$?
echo 0 > $T/tracing_on
echo 0 > $T/events/kptref/openroot/enable
grep 'kpt-why-nope' $T/trace | sed -n 's/.* openroot: ([^)]*) //p' | sort > $W/args.ft
echo '-:kptref/openroot' >> $T/kprobe_events
sed -n 's/^# why: do_sys_openat2(\(.*\)) = -2 (ENOENT) in .*/\1/p' $W/args.out | sort > $W/args.kpt
# the workload's "openat(DFD, "PATH", FLAGS) = -2": dfd=DFD filename="PATH"
sed -n 's/^openat(\(-*[0-9]*\), \("[^"]*"\), .*) = -2$/dfd=\1 filename=\2/p' $W/args.run | sort > $W/args.wl
if [ $rc = 0 ] && [ "$(wc -l < $W/args.ft)" = 2 ] && cmp -s $W/args.ft $W/args.kpt &&
	[ "$(wc -l < $W/args.wl)" = 2 ] && [ "$(cut -d' ' -f1-2 $W/args.kpt)" = "$(cat $W/args.wl)" ]; then
	ok "why 'do_sys_openat2 $OPENARGS': each tree's header has the root's arguments as kprobe_events fetched them ($(tr '\n' ';' < $W/args.ft)), the workload's dfd and path"
else
	bad "why's root arguments: exit $rc; kptrace's: $(tr '\n' ';' < $W/args.kpt); kprobe_events': $(tr '\n' ';' < $W/args.ft); the workload's: $(tr '\n' ';' < $W/args.wl); $(tail -c 300 $W/args.err | tr '\n' ' ')"
fi

# --perfetto: the root's slices carry them, as the workload passed them
pfargs=$(grep -o '"name":"do_sys_openat2"[^}]*' $W/args.pf | grep -o '"dfd":[^}]*' | sort | tr '\n' ';')
wlargs=$(sed -n 's/^dfd=\(.*\) filename=\(.*\)/"dfd":\1,"filename":\2/p' $W/args.wl | tr '\n' ';')
if [ -n "$wlargs" ] && [ "$(echo "$pfargs" | sed 's/,"flags":[0-9]*;/;/g')" = "$wlargs" ]; then
	ok "why --perfetto: the root's slices' args are the workload's ($wlargs)"
else
	bad "why --perfetto's root arguments: $pfargs; the workload's: $wlargs"
fi

# --filter on the root's arguments, in the kernel at its entry: the call
# from AT_FDCWD alone, in --json; and the definition's own "if" (the other
# call alone) through kprobes
$KPT why "do_sys_openat2 $OPENARGS" --error --filter 'dfd == -100' --json -o $W/filt.json \
	-c '/why_target open' > $W/filt.run 2> $W/filt.err
rc=$?
want=$(sed -n 's/^dfd=\(-100\) filename=\(.*\)/"args":{"dfd":\1,"filename":\2,/p' $W/args.wl)
if [ $rc = 0 ] && [ "$(grep -c '^{"why":' $W/filt.json)" = 1 ] && [ -n "$want" ] &&
	grep -qF "$want" $W/filt.json; then
	ok "why --filter 'dfd == -100' --json: the one call from AT_FDCWD, its args ${want%,}"
else
	bad "why --filter: exit $rc, want $want: $(head -c 400 $W/filt.json) $(tail -c 200 $W/filt.err | tr '\n' ' ')"
fi
$KPT why "do_sys_openat2 $OPENARGS if dfd != -100" --error --backend kprobe -o $W/if.out \
	-c '/why_target open' > $W/if.run 2> $W/if.err
rc=$?
want=$(grep -v '^dfd=-100 ' $W/args.wl)
if [ $rc = 0 ] && [ "$(grep -c '^# why: ' $W/if.out)" = 1 ] && [ -n "$want" ] &&
	grep -qF "# why: do_sys_openat2($want flags=" $W/if.out; then
	ok "why 'do_sys_openat2 ... if dfd != -100' --backend kprobe: the one call from a directory's descriptor ($want)"
else
	bad "why ... if dfd != -100: exit $rc, want $want: $(grep '^# why' $W/if.out | tr '\n' ' ') $(tail -c 200 $W/if.err | tr '\n' ' ')"
fi
# --budget: the root's calls left out whole, never a part of one. The
# workload's own count of its failing calls is the reference: each is
# printed or said left out; every tree printed is ftrace's tree of one call
# (tree() of them all is ftrace's, once a tree); 5/s logs at most 5 a
# second (GCRA's one at the start, one a CPU racing it and one each time
# the controller rewrites the bucket, at most once a second: 6 * T + 4)
whole() {
	local i=0
	: > $2.want
	while [ $i -lt "$1" ]; do cat $W/ft.tree >> $2.want; i=$((i + 1)); done
	tree $2.out > $2.tree
	cmp -s $2.want $2.tree
}
$KPT why $ROOT --error --under "$UNDER" --budget 5/s -o $W/bud.out -c '/why_target loop 500' \
	> $W/bud.run 2> $W/bud.err
rc=$?
made=$(sed -n 's/^\([0-9]*\) calls failed in .*/\1/p' $W/bud.run)
secs=$(sed -n 's/.* calls failed in \([0-9.]*\) s$/\1/p' $W/bud.run)
printed=$(grep -c '^# why: ' $W/bud.out)
left=$(sed -n 's/.*why: [0-9]* calls printed, \([0-9]*\) calls left out whole by --budget.*/\1/p' $W/bud.err)
max=$(awk -v s="$secs" 'BEGIN { printf "%d", 6 * s + 4 }')
if [ $rc = 0 ] && [ "$made" = 500 ] && [ "$printed" -ge 1 ] && [ "$printed" -le "$max" ] &&
	[ -n "$left" ] && [ $((printed + left)) = 500 ] && whole "$printed" $W/bud; then
	ok "why --budget 5/s over 500 failing calls in $secs s: $printed trees (at most $max), each ftrace's whole, $left said left out whole"
else
	bad "why --budget 5/s: exit $rc, $made calls in $secs s, $printed trees (at most $max), $left left out; trees: $(tr '\n' ' ' < $W/bud.tree | head -c 200); $(tail -c 300 $W/bud.err | tr '\n' ' ')"
fi

# a share of one CPU: the why job's run time (all its probes') past it, the
# root's calls are sampled and paused, whole; the floor its probes' hits
# cost alone said where past it
$KPT why $ROOT --error --under "$UNDER" --budget 0.01% -o $W/bpct.out -c '/why_target loop 1000' \
	> $W/bpct.run 2> $W/bpct.err
rc=$?
made=$(sed -n 's/^\([0-9]*\) calls failed in .*/\1/p' $W/bpct.run)
printed=$(grep -c '^# why: ' $W/bpct.out)
left=$(sed -n 's/.*why: [0-9]* calls printed, \([0-9]*\) calls left out whole by --budget.*/\1/p' $W/bpct.err)
if [ $rc = 0 ] && [ "$made" = 1000 ] && [ "$printed" -ge 1 ] && [ -n "$left" ] &&
	[ "$left" -gt 0 ] && [ $((printed + left)) = 1000 ] && whole "$printed" $W/bpct &&
	grep -q 'budget: why/root at [0-9]* hits/s, past its [0-9]*/s: recording 1 in' $W/bpct.err &&
	grep -qE '^COST: .*(within|OVER) --budget 0\.01%' $W/bpct.err; then
	ok "why --budget 0.01% over 1000 failing calls: $printed trees, each ftrace's whole, $left left out whole, $(grep -o '[^;]*--budget 0.01%$' $W/bpct.err)"
else
	bad "why --budget 0.01%: exit $rc, $made calls, $printed trees, $left left out; $(tail -c 400 $W/bpct.err | tr '\n' ' ')"
fi

# --under ':GLOB', the functions of source files by DWARF. This guest has no
# vmlinux debug file: refused, saying where kptrace looked (none of those
# paths exists here) and the fix
$KPT why $ROOT --error --under ':kernel/bpf/*' -c /why_target > $W/nodw.out 2> $W/nodw.err
rc=$?
paths="/usr/lib/debug/boot/vmlinux-$KREL, /usr/lib/debug/lib/modules/$KREL/vmlinux, /boot/vmlinux-$KREL"
if [ $rc = 1 ] && ! ls /usr/lib/debug/boot/vmlinux-$KREL /usr/lib/debug/lib/modules/$KREL/vmlinux /boot/vmlinux-$KREL 2> /dev/null &&
	grep -qF "error: why --under ':kernel/bpf/*': no DWARF of this kernel found (looked by build id (/usr/lib/debug/.build-id/, debuginfod: DEBUGINFOD_URLS unset), $paths)" $W/nodw.err &&
	grep -qF ": install linux-image-$KREL-dbg, or set DEBUGINFOD_URLS" $W/nodw.err && ! grep -q Attach $W/nodw.err; then
	ok "why --under ':kernel/bpf/*' without the kernel's DWARF: refused, naming where it looked and the fix"
else
	bad "why --under ':kernel/bpf/*' without DWARF: exit $rc: $(tail -c 500 $W/nodw.err | tr '\n' ' ')"
fi

# The tests' module, built -g, at its build id's debug path (test.sh adds
# it there, as a debug package installs one) and test.sh's readelf list of
# its DWARF's functions with code (/etc/kpt-etn-funcs): ':*etn.c' resolves
# to those the kernel can trace (available_filter_functions' [etn] ones),
# and why's tree over pwrite(2)s to /dev/etn is ftrace's function_graph's
if [ -e /lib/etn.ko ]; then
	loaded=
	lsmod | grep -q '^etn ' || { insmod /lib/etn.ko && loaded=1; }
	sed -n 's/^\([A-Za-z0-9_.]*\) \[etn\]$/\1/p' $T/available_filter_functions | sort -u > $W/etn.aff
	grep -Fxf $W/etn.aff /etc/kpt-etn-funcs | sort -u > $W/etn.want
	$KPT why vfs_write --slower 1ns --under ':*etn.c' --dry-run > $W/src.dry 2> $W/src.err
	rc=$?
	sed -n 's/^why\/[^:]*: p:why\/[^ ]* etn:\([^ ]*\).*/\1/p' $W/src.dry | sort -u > $W/src.got
	if [ $rc = 0 ] && [ -s $W/etn.want ] && cmp -s $W/etn.want $W/src.got &&
		grep -qF "why --under ':*etn.c': 1 source files, $(sort -u /etc/kpt-etn-funcs | wc -l) functions with code" $W/src.err; then
		ok "why --under ':*etn.c': etn.ko's DWARF's functions the kernel traces ($(tr '\n' ' ' < $W/etn.want)of $(tr '\n' ' ' < /etc/kpt-etn-funcs))"
	else
		bad "why --under ':*etn.c': exit $rc, kptrace's $(tr '\n' ' ' < $W/src.got); want $(tr '\n' ' ' < $W/etn.want) (readelf's $(tr '\n' ' ' < /etc/kpt-etn-funcs)); $(tail -c 400 $W/src.err | tr '\n' ' ')"
	fi
	# the same from the .ko at modules.dep's path, as depmod installs it,
	# with the copy at its build id's path moved away
	dbg=$(ls /usr/lib/debug/.build-id/*/*.debug)
	mkdir -p /lib/modules/$KREL/extra
	cp /lib/etn.ko /lib/modules/$KREL/extra/etn.ko && mv $dbg $W/etn.debug
	[ -e /lib/modules/$KREL/modules.dep ] && cp /lib/modules/$KREL/modules.dep $W/modules.dep
	echo 'extra/etn.ko:' >> /lib/modules/$KREL/modules.dep
	$KPT why vfs_write --slower 1ns --under ':*etn.c' --dry-run > $W/dep.dry 2> $W/dep.err
	rc=$?
	sed -n 's/^why\/[^:]*: p:why\/[^ ]* etn:\([^ ]*\).*/\1/p' $W/dep.dry | sort -u > $W/dep.got
	if [ $rc = 0 ] && [ -n "$dbg" ] && [ ! -e "$dbg" ] && [ -s $W/etn.want ] && cmp -s $W/etn.want $W/dep.got; then
		ok "why --under ':*etn.c' by modules.dep's /lib/modules/$KREL/extra/etn.ko: the same $(tr '\n' ' ' < $W/dep.got)"
	else
		bad "why --under ':*etn.c' by modules.dep: exit $rc, kptrace's $(tr '\n' ' ' < $W/dep.got); want $(tr '\n' ' ' < $W/etn.want); $(tail -c 400 $W/dep.err | tr '\n' ' ')"
	fi
	mv $W/etn.debug $dbg
	rm -f /lib/modules/$KREL/extra/etn.ko /lib/modules/$KREL/modules.dep
	[ -e $W/modules.dep ] && mv $W/modules.dep /lib/modules/$KREL/modules.dep
	# pwrite(2): the harness's own shell writes before the exec
	PW=__x64_sys_pwrite64
	ftrace $PW "$(tr '\n' ' ' < $W/etn.want)" $W/ftetn /why_target etn 3
	$KPT why $PW --slower 1ns --under ':*etn.c' -o $W/src.out -c '/why_target etn 3' > $W/src.run 2> $W/src.err
	rc=$?
	tree $W/src.out > $W/src.tree
	n=$(grep -c '^1 etn_write$' $W/ftetn.tree)
	if [ $rc = 0 ] && [ "$n" = 3 ] && cmp -s $W/ftetn.tree $W/src.tree; then
		ok "why $PW --under ':*etn.c': ftrace's tree, $(wc -l < $W/ftetn.tree) calls ($(tr '\n' ' ' < $W/ftetn.tree))"
	else
		bad "why $PW --under ':*etn.c': exit $rc; kptrace's: $(tr '\n' ' ' < $W/src.tree); ftrace's ($n etn_write): $(tr '\n' ' ' < $W/ftetn.tree); $(tail -c 300 $W/src.err | tr '\n' ' ')"
	fi
	[ -z "$loaded" ] || rmmod etn
fi
echo "# done"
