#!/bin/sh
# Guest script (busybox sh): kptrace(8)'s EXAMPLES run as the page prints
# them (issue 23), on a kernel with kprobes: the kernel-function examples
# the development host refuses, and every other one this guest can run
# (busybox has no bash: bash's readline examples are host-install's).
# test.sh adds the commands tests/man-examples.sh extracted as
# /etc/kpt-examples, and docs/jobs.kpt where the page's serve examples read it.
W=/tmp/kpt-examples
mkdir -p $W
KREL=$(uname -r)
. /guest-lib.sh
EX=/etc/kpt-examples
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up

# what runs here: every example but those needing a program this guest lacks
: > $W/run
n=0
while IFS='	' read -r block cmd; do
	case $cmd in
	*/bin/bash:*) [ -x /bin/bash ] || { echo "# not run here (no /bin/bash; host-install runs it): $cmd"; continue; } ;;
	esac
	printf '%s\t%s\n' "$block" "$cmd" >> $W/run
	n=$((n + 1))
done < $EX
echo "# expect $((n + 1)) ok"
if [ $n -ge 8 ]; then
	ok "examples: $n of kptrace(8)'s $(wc -l < $EX) run here"
else
	bad "examples: $n of kptrace(8)'s $(wc -l < $EX) to run here, want 8 or more: $(tr '\t\n' ' |' < $EX | cut -c1-300)"
fi

# something for the examples to see: file opens, one failing, reads,
# kmallocs, a lseek (dd's skip)
( i=0; while [ $i -lt 1500 ]; do
	dd if=$EX of=/dev/null bs=100 count=2 skip=1 2> /dev/null
	cat /etc/kptrace/jobs.kpt $W/nope > /dev/null 2>&1
	i=$((i + 1)); sleep 0.2
done ) &
LOAD=$!

# serve_example CMD: started, scraped once every job serves, stopped
serve_example() {
	local i=0 jobs
	# exec: $! is the kptrace that stop() interrupts, not a shell around it
	eval "exec timeout -s KILL $KT $1" > $W/out 2> $W/err &
	SV=$!
	while [ $i -lt 600 ] && ! grep -q 'serving http' $W/err; do
		kill -0 $SV 2> /dev/null || break
		i=$((i + 1)); sleep 0.2
	done
	# a keyed job has no series before its first event (an open that
	# fails, from LOAD): scraped again until each has one, for 10 s at most
	jobs=$(sed -n 's/^\([a-z_]*\):.*/\1/p' /etc/kptrace/jobs.kpt)
	i=0
	while :; do
		wget -q -O $W/metrics http://127.0.0.1:9435/metrics
		local wrc=$? missing=
		for j in $jobs; do
			grep -q "^kptrace_$j" $W/metrics || { missing=$j; break; }
		done
		[ -z "$missing" ] || [ $i -ge 25 ] && break
		i=$((i + 1)); sleep 0.4
	done
	stop $SV
	[ -z "$missing" ] || RC="$RC, no kptrace_$missing metric"
	[ $wrc = 0 ] || RC="$RC, wget $wrc"
}

# One example runs exactly as printed, the first "-d 30", started now in the
# background (its turn waits for it and judges it); the others' -d past 3
# run as -d 3: what an example shows needs no more, and the page's waits,
# one after the other, were a third of this boot.
cd $W
LIT=$(awk -F'\t' '$2 ~ / -d 30( |$)/ { print NR; exit }' $W/run)
if [ -n "$LIT" ]; then
	lit=$(sed -n "${LIT}p" $W/run | cut -f2-)
	( eval "timeout -s KILL $KT $lit" > $W/lit.out 2> $W/lit.err < /dev/null
	  echo $? > $W/lit.rc ) &
	LITPID=$!
fi
i=0
while IFS='	' read -r block cmd; do
	i=$((i + 1))
	shown=$cmd
	[ "$i" = "$LIT" ] || cmd=$(echo "$cmd" | sed -E 's/ -d ([4-9]|[1-9][0-9]+)( |$)/ -d 3\2/')
	[ "$cmd" = "$shown" ] || shown="$shown (as -d 3)"
	echo "# $shown"
	case $cmd in
	*--listen*)
		serve_example "$cmd"
		want=0 ;;
	*)
		if [ "$i" = "$LIT" ]; then
			wait $LITPID
			RC=$(cat $W/lit.rc)
			mv $W/lit.out $W/out; mv $W/lit.err $W/err
		else
			eval "timeout -s KILL $KT $cmd" > $W/out 2> $W/err < /dev/null
			RC=$?
		fi
		want=0
		# diff's 1 says the runs differ, as diff(1)'s
		case $cmd in "kptrace diff "*) [ $RC = 1 ] && want=1 ;; esac
		[ -s $W/out ] || case $cmd in *'>'*) ;; *) RC="$RC, nothing on stdout" ;; esac
		sed 's/^/#   /' $W/out | head -n 6 ;;
	esac
	if [ "$RC" = $want ] && ! grep -q 'error:' $W/err; then
		ok "kptrace(8)'s example runs as printed: $shown"
	else
		bad "kptrace(8)'s example: $shown: exit $RC: $(tail -c 400 $W/err | tr '\n' ' ')"
	fi
done < $W/run
kill $LOAD 2> /dev/null
wait $LOAD 2> /dev/null
exit 0
