#!/bin/sh
# Guest script of the VM benchmark (bench/README.md), run by bench/vm/vmbench.py
# through tests/vm/run.sh: busybox sh, as root, in qemu (TCG) on a Debian
# kernel with real kprobes. Prints one "RESULT key=value..." line per run and
# "INFO ..." lines; the host parses them. /bench.conf sets REPEATS, CALLS,
# SCALE_NS, SCALE_CALLS, SCALE_REPEATS, SCALE_BACKENDS (empty: chosen here).
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
echo "INFO done"
