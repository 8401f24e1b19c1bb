#!/bin/sh
# Guest script of the VM benchmark (bench/README.md), run by bench/vm/vmbench.py
# through tests/vm/run.sh: busybox sh, as root, in qemu (TCG) on a Debian
# kernel with real kprobes. Prints one "RESULT key=value..." line per run and
# "INFO ..." lines; the host parses them. /bench.conf sets REPEATS, CALLS,
# SCALE_NS, SCALE_CALLS, SCALE_REPEATS, SCALE_BACKENDS (empty: chosen here),
# WHY_NS (empty: no why runs), WHY_CALLS, WHY_REPEATS.
#
# The probed function is ksys_lseek(fd, offset, whence): only lseek(2) calls
# it, and only vmdrive's loop calls lseek here.
. /bench.conf
T=/sys/kernel/tracing
D=/bin/vmdrive
K=/bin/kptrace
B=/bin/baseline
BT=/usr/bin/bpftrace	# when the host put it in (bench/vm/vmbench.py)
HOT=ksys_lseek
DEF="p:kptbench/hot $HOT fd=%di:u32 off=%si:s64 whence=%dx:u32"
HDEF="p:kptbench/hist $HOT a=%di:u64"
W=/tmp/bench
I=$T/instances/kptbench
mkdir -p $W
KREL=$(uname -r)

multi=no
grep -q ' register_fprobe_ips$' /proc/kallsyms && multi=yes
echo "INFO kernel=$KREL kprobe_multi=$multi cpus=$(nproc)"
if ! grep -q "^$HOT\$" $T/available_filter_functions; then
	echo "INFO error=${HOT}_not_traceable"
	exit 1
fi

# ---------------------------------------------------------- per-hit overhead

# Count of lines of the streamed event in a file (kptrace, the floor and
# ftrace all print the trace line "...: hot: ...").
lines() { cat "$1" 2>/dev/null | grep -c ': hot: '; }
# HITS of the first probe row of kptrace's exit profile.
hits() { awk '$1 ~ /^kptbench\// || $1 ~ /^latency\// { print $2; exit }' "$1"; }

ftrace_run() {
	echo "$DEF" >> $T/kprobe_events
	# a fresh instance per run, as tests/vm/guest.sh (6.1 has oopsed when
	# the top-level buffer was reset); 4 MB per CPU (kptrace: 4 MB in all;
	# no overruns in the runs reported)
	mkdir $I
	echo 4096 > $I/buffer_size_kb
	cat $I/trace_pipe > $W/run.out &
	cp=$!
	echo 1 > $I/events/kptbench/hot/enable
	r=$($D loop $CALLS)
	echo 0 > $I/events/kptbench/hot/enable
	# let cat drain what is buffered, then stop it
	n=-1 i=0
	while [ "$n" != "$(lines $W/run.out)" ] && [ $i -lt 100 ]; do
		n=$(lines $W/run.out); i=$((i + 1)); sleep 0.3
	done
	kill $cp; wait $cp 2>/dev/null
	lost=$(awk '/^overrun:/ { s += $2 } END { print s + 0 }' $I/per_cpu/cpu*/stats)
	rmdir $I
	echo "-:kptbench/hot" >> $T/kprobe_events
	echo "$r events=$n lost=$lost"
}

# bpftrace doing each job as the host's bench.py has it do it on the uprobe:
# its BEGIN opens the FIFO vmdrive waits on (VMDRIVE_READY_FIFO), once every
# probe is attached. A ring as large as the others' (16 MB: 2048 pages per
# CPU on 2 CPUs), so that its consumer, emulated too, keeps up.
BT_FIFO=$W/ready
bt_script() {
	begin="BEGIN { cat(\"$BT_FIFO\"); }"
	case $1 in
	stream) printf "%s\n" "$begin kprobe:$HOT { printf(\"%s-%d [%03d] %llu: hot: (%llx) fd=%u off=%lld whence=%u\\n\", comm, tid, cpu, nsecs, reg(\"ip\"), (uint32)arg0, (int64)arg1, (uint32)arg2); }" ;;
	hist)   printf "%s\n" "$begin kprobe:$HOT { @a = hist(arg0); }" ;;
	latency) printf "%s %s\n" "$begin kprobe:$HOT { @start[tid] = nsecs; }" \
		"kretprobe:$HOT /@start[tid]/ { @ns = hist(nsecs - @start[tid]); delete(@start[tid]); }" ;;
	esac
}
# The total count of a histogram bpftrace printed ("[a, b)   N |@@@|").
bt_count() { awk '/^\[/ { split($0, x, "|"); n = split(x[1], y, " "); s += y[n] } END { print s + 0 }' "$1"; }

# One run of CONFIG, its RESULT line's fields on stdout.
one() {
	rm -f $W/run.out $W/err
	case $1 in
	untraced)
		# 4x the calls: the loop is cheap untraced
		$D loop $((CALLS * 4)) ;;
	kprobe_events-stream)
		ftrace_run ;;
	libbpf-*)
		mode=${1#libbpf-}
		# a 16 MB ring: under TCG the floor's consumer (an fprintf per
		# record) falls behind, and with 4 MB it dropped a fifth of the
		# records, which would have made its cost look lower
		r=$($D run $CALLS $W/err $B $mode kernel $HOT -o $W/run.out -b 16777216)
		ev=$(sed -n 's/^events=\([0-9]*\) drops=\([0-9]*\).*/\1 lost=\2/p' $W/err)
		[ $mode = nop ] && ev="- lost=0"
		echo "$r events=${ev:-none}" ;;
	kptrace-*)
		mode=${1#kptrace-}
		backend=${mode#*-}
		mode=${mode%%-*}
		[ $backend = multi ] && backend=kprobe-multi
		case $mode in
		# the floor's ring size: under TCG the consumer, emulated like
		# the loop, reads slower than the loop writes, and with the 2 MB
		# default a quarter of the records were dropped (counted)
		stream)  r=$($D run $CALLS $W/err $K --backend $backend --buffer-size 16M \
			     -o $W/run.out "$DEF")
			 ev=$(lines $W/run.out) ;;
		hist)    r=$($D run $CALLS $W/err $K hist --backend $backend -o $W/run.out "$HDEF" a)
			 ev=$(sed -n 's/^count \([0-9]*\),.*/\1/p' $W/run.out | head -n 1) ;;
		latency) r=$($D run $CALLS $W/err $K latency --backend $backend -o $W/run.out $HOT)
			 ev=$(sed -n 's/^count \([0-9]*\),.*/\1/p' $W/run.out | head -n 1) ;;
		esac
		drops=$(awk '$1 ~ /^(kptbench|latency)\// { s += $4 } END { print s + 0 }' $W/err)
		att=$(grep -m1 '^Attached' $W/err | tr ' ' '_')
		echo "$r events=${ev:-none} lost=$drops hits=$(hits $W/err) attached=$att" ;;
	bpftrace-*)
		mode=${1#bpftrace-}
		rm -f $BT_FIFO && mkfifo $BT_FIFO
		r=$(BPFTRACE_PERF_RB_PAGES=$((4096 / $(nproc))) VMDRIVE_READY_FIFO=$BT_FIFO \
		    VMDRIVE_DRAIN_FILE=$W/run.out \
		    $D run $CALLS $W/err $BT -o $W/run.out -e "$(bt_script $mode)")
		case $mode in
		stream) ev=$(lines $W/run.out) ;;
		*)      ev=$(bt_count $W/run.out) ;;
		esac
		lost=$(cat $W/run.out $W/err | sed -n 's/.*Lost \([0-9]*\) events.*/\1/p' |
			awk '{ s += $1 } END { print s + 0 }')
		echo "$r events=$ev lost=$lost" ;;
	esac
}

CONFIGS="untraced kprobe_events-stream libbpf-nop libbpf-stream libbpf-hist libbpf-latency
kptrace-stream-kprobe kptrace-stream-fentry kptrace-hist-kprobe kptrace-hist-fentry
kptrace-latency-kprobe kptrace-latency-fentry"
[ $multi = yes ] && CONFIGS="$CONFIGS kptrace-stream-multi"
[ -x $BT ] && CONFIGS="$CONFIGS bpftrace-stream bpftrace-hist bpftrace-latency"
echo "INFO bpftrace=$([ -x $BT ] && $BT --version | tr ' ' _ || echo none)"

# kptrace and the floor: the programs' own run time too (vmdrive.c)
export VMDRIVE_STATS=1
rep=0
while [ $rep -lt "$REPEATS" ]; do
	# a shuffled order per repeat: drift falls on every configuration alike
	for c in $(echo $CONFIGS | tr ' ' '\n' | shuf); do
		r=$(one $c 2>&1 | tr '\n' ' ')
		echo "RESULT part=overhead rep=$rep config=$c calls=$CALLS $r"
		# a run that failed leaves its tracer's last words
		case $r in *error=*|*rc=[1-9]*)
			tail -n 3 $W/err 2>/dev/null | sed 's/^/INFO err: /' ;;
		esac
	done
	rep=$((rep + 1))
done

# -------------------------------------------------------------------- scale
unset VMDRIVE_STATS

# Cold functions: traceable, never called while the benchmark runs (ext4
# and jbd2 with no ext4 mounted, xfrm and tcp with no network), names unique
# in available_filter_functions (a kprobe by name must resolve to one
# function) and not on the kprobe blacklist.
sed -n 's/^0x[0-9a-f]*-0x[0-9a-f]*[[:space:]]*\([^ ]*\).*/\1/p' \
	/sys/kernel/debug/kprobes/blacklist > $W/black 2>/dev/null
sed 's/ .*//' $T/available_filter_functions | grep -E '^(ext4|jbd2|xfrm|tcp)_' |
	grep -v '[.]' | sort | uniq -u | grep -vxF -f $W/black > $W/cold
echo "INFO cold_candidates=$(wc -l < $W/cold)"

if [ -z "$SCALE_BACKENDS" ]; then
	SCALE_BACKENDS=kprobe
	[ $multi = yes ] && SCALE_BACKENDS=kprobe-multi
fi
# Detaching kprobes one by one is slow under TCG (1,000 took ~90 s on 6.12
# in a trial run, 100 ~8 s): allow it, bounded.
export VMDRIVE_STOP_S=300
for backend in $SCALE_BACKENDS; do
	for n in $SCALE_NS; do
		# "kprobe:1000" in SCALE_BACKENDS: that backend only up to 1000
		case $backend in *:*) [ $n -gt ${backend#*:} ] && continue ;; esac
		b=${backend%%:*}
		{ echo "$DEF"; head -n $((n - 1)) $W/cold | awk '{ printf "p:kptbench/c%d %s\n", NR, $1 }'; } > $W/defs
		# more than 100 kprobes: one run (~2 min each at 1,000 under TCG)
		reps=$SCALE_REPEATS
		[ $b = kprobe ] && [ $n -gt 100 ] && reps=1
		rep=0
		while [ $rep -lt $reps ]; do
			rm -f $W/run.out $W/err
			u=$($D loop $((SCALE_CALLS * 4)) | sed -n 's/.*ns_per_call=\([0-9.]*\).*/\1/p')
			r=$($D run $SCALE_CALLS $W/err $K --backend $b -o $W/run.out -f $W/defs 2>&1 | tr '\n' ' ')
			att=$(grep -m1 '^Attached' $W/err | tr ' ' '_')
			cold=$(awk '$1 ~ /^kptbench\/c[0-9]/ { s += $2 } END { print s + 0 }' $W/err)
			# which "cold" functions ran after all, and how often (top 3)
			top=$(awk '$1 ~ /^kptbench\/c[0-9]/ && $2 > 0 { print $2, $1 }' $W/err |
				sort -rn | head -n 3 | while read -r h ev; do
					echo "$(grep -m1 "^p:$ev " $W/defs | cut -d' ' -f2):$h"
				done | tr '\n' ',')
			echo "RESULT part=scale rep=$rep config=scale-$b-$n backend=$b functions=$n" \
				"calls=$SCALE_CALLS untraced_ns=$u $r events=$(lines $W/run.out)" \
				"hits=$(hits $W/err) cold_hits=$cold cold_top=${top:-none} attached=$att"
			case $r in *error=*|*rc=[1-9]*)
				grep -v '^kptbench/' $W/err | tail -n 3 | sed 's/^/INFO err: /' ;;
			esac
			rep=$((rep + 1))
		done
	done
done
# ---------------------------------------------------------------------- why
# kptrace why (issue 43) over N functions beneath a root whose calls do not
# match: vfs_read() of 8 bytes of /dev/zero (vmdrive with VMDRIVE_READ=1)
# succeeds, so --error prints nothing and each call costs its log alone.
# --under: the functions called beneath the root (function_graph's view of
# 20 calls) and cold ones up to N, so that only the set's size varies. The
# same root and set for ftrace's function_graph (set_graph_function,
# set_ftrace_filter) and for the floor (baseline multicount: kprobe.multi
# entry and return programs that only count). Without kprobe.multi (6.1)
# why takes at most 64 functions, a kprobe each: nothing to measure.
WROOT=vfs_read
why_under() { tr '\n' ' ' < $W/under-$1; }

# The names function_graph shows beneath the root in 20 of vmdrive's calls,
# each at least once a call (an interrupt's are not), unique and not
# blacklisted as the cold ones, less what kptrace refuses (its --dry-run
# names them one at a time: the trust issue's lock and tracing internals).
why_hot() {
	echo 0 > $T/tracing_on
	echo > $T/trace
	echo $WROOT > $T/set_graph_function
	echo function_graph > $T/current_tracer
	sh -c "echo \$\$ > $T/set_ftrace_pid; echo 1 > $T/tracing_on; exec $D loop 20" > /dev/null
	echo 0 > $T/tracing_on
	cat $T/trace > $W/graph
	echo nop > $T/current_tracer
	echo > $T/set_ftrace_pid
	echo > $T/set_graph_function
	sed 's/ .*//' $T/available_filter_functions | sort | uniq -u > $W/uniq
	sed -n 's/^[^|]*|  *\([A-Za-z_][A-Za-z0-9_]*\)() {.*/\1/p
		s/^[^|]*|  *\([A-Za-z_][A-Za-z0-9_]*\)();.*/\1/p' $W/graph |
		sort | uniq -c | awk '$1 >= 20 { print $2 }' | grep -vx $WROOT |
		grep -xF -f $W/uniq | grep -vxF -f $W/black > $W/hot
	i=0
	while [ $i -lt 20 ] && [ -s $W/hot ]; do
		$K why $WROOT --error --under "$(tr '\n' ' ' < $W/hot)" --dry-run > /dev/null 2> $W/err &&
			break
		bad=$(sed -n "s/.*on '\([^']*\)' can hang the machine.*/\1/p
			s/.*'\([^']*\)' cannot be probed.*/\1/p" $W/err | head -n 1)
		[ -n "$bad" ] || break
		echo "INFO why_refused=$bad"
		grep -vxF "$bad" $W/hot > $W/hot.new
		mv $W/hot.new $W/hot
		i=$((i + 1))
	done
}

# function_graph in a tracefs instance of ours where the kernel gives one
# both the tracer and set_graph_function, else the top-level one (6.12's
# instances have the tracer but refuse set_graph_function, and without it the
# filtered functions are traced wherever they are called); the trace is not
# read (overwritten when full): the cost is recording. Prints where it ran,
# the filter's size, the events it wrote.
fgraph_run() {
	d=$T
	mkdir $I 2>/dev/null && grep -qw function_graph $I/available_tracers &&
		[ -e $I/set_graph_function ] && echo $WROOT > $I/set_graph_function 2>/dev/null && d=$I
	echo 0 > $d/tracing_on
	cat $W/all-$1 > $d/set_ftrace_filter
	echo $WROOT > $d/set_graph_function
	echo function_graph > $d/current_tracer
	echo 1 > $d/tracing_on
	r=$($D loop $WHY_CALLS)
	echo 0 > $d/tracing_on
	nf=$(wc -l < $d/set_ftrace_filter)
	ev=$(cat $d/per_cpu/cpu*/stats | awk '/^(entries|overrun):/ { s += $2 } END { print s + 0 }')
	echo nop > $d/current_tracer
	echo > $d/set_graph_function
	echo > $d/set_ftrace_filter
	[ -d $I ] && rmdir $I
	echo "$r where=$([ $d = $T ] && echo top || echo instance) filtered=$nf fg_events=$ev"
}

why_one() {
	rm -f $W/run.out $W/err
	case $1 in
	untraced)
		$D loop $((WHY_CALLS * 4)) ;;
	kptrace)
		r=$(VMDRIVE_STATS=1 $D run $WHY_CALLS $W/err $K why $WROOT --error \
			--under "$(why_under $2)" -o $W/run.out)
		printed=$(sed -n 's/.*why: \([0-9]*\) calls printed.*/\1/p' $W/err | head -n 1)
		att=$(grep -m1 '^Attached' $W/err | tr ' ' '_')
		# a call that matched after all (another process's vfs_read that
		# failed): the first one's header, to say whose
		first=$(grep -m1 '^# why: ' $W/run.out | cut -c 1-100 | tr ' =' '_:')
		echo "$r hits=$(awk '$1 == "why/root" { print $2; exit }' $W/err)" \
			"printed=${printed:-none} out_bytes=$(wc -c < $W/run.out) first=${first:-none}" \
			"attached=$att" ;;
	ftrace)
		fgraph_run $2 ;;
	floor)
		r=$(VMDRIVE_STATS=1 $D run $WHY_CALLS $W/err $B multicount kernel $W/all-$2)
		echo "$r $(sed -n 's/^events=\([0-9]*\) drops=[0-9]* returns=\([0-9]*\)/entries=\1 returns=\2/p' $W/err)" ;;
	esac
}

if [ -n "$WHY_NS" ] && [ $multi = no ]; then
	echo "INFO why=skipped_no_kprobe_multi"
elif [ -n "$WHY_NS" ]; then
	export VMDRIVE_READ=1
	why_hot
	nh=$(wc -l < $W/hot)
	echo "INFO why_root=$WROOT why_hot=$nh why_hot_names=$(tr '\n' ',' < $W/hot)"
	cfgs=untraced
	for n in $WHY_NS; do
		{ cat $W/hot; grep -vxF -f $W/hot $W/cold | head -n $((n - nh)); } > $W/under-$n
		{ echo $WROOT; cat $W/under-$n; } > $W/all-$n
		cfgs="$cfgs kptrace:$n ftrace:$n floor:$n"
	done
	rep=0
	while [ $rep -lt "$WHY_REPEATS" ]; do
		for c in $(echo $cfgs | tr ' ' '\n' | shuf); do
			tool=${c%%:*}
			n=${c#*:}
			[ $tool = untraced ] && n=0
			r=$(why_one $tool $n 2>&1 | tr '\n' ' ')
			echo "RESULT part=why rep=$rep config=why-$tool-$n tool=$tool functions=$n" \
				"hot=$nh calls=$WHY_CALLS $r"
			case $r in *error=*|*rc=[1-9]*)
				grep -v '^why/' $W/err 2>/dev/null | tail -n 3 | sed 's/^/INFO err: /' ;;
			esac
		done
		rep=$((rep + 1))
	done
	unset VMDRIVE_READ
fi
echo "INFO done"
