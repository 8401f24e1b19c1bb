#!/bin/sh
# Guest script (busybox sh), issue 36: probe sites that can hang the machine
# (kptrace-definitions(5), UNSAFE PROBE SITES). Each class refused with its
# reason, and a safe neighbour accepted and attached. The reference for
# what the kernel itself refuses is its own kprobe_events on the same site:
# where the kernel takes a site kptrace refuses, the refusal is kptrace's
# (and says so); where the kernel refuses it (its blacklist), kptrace says
# the kernel's reason before loading anything. Nothing refused is ever
# attached: the kernel's kprobes/list has none of it.
T=/sys/kernel/tracing
W=/tmp/kpt-safety
LIST=/sys/kernel/debug/kprobes/list
mkdir -p $W
KREL=$(uname -r)
echo "# kernel $KREL"
echo "# expect 11 ok"
. /guest-lib.sh || { echo "FAIL - $KREL: no /guest-lib.sh (tests/vm/test.sh adds it)"; exit 1; }
[ -e $T/kprobe_events ] || mount -t tracefs nodev $T

# kernel_takes DEF: kprobe_events takes DEF (defined, never enabled, removed)
kernel_takes() {
	echo > $T/kprobe_events
	if echo "$1" >> $T/kprobe_events 2>/dev/null; then
		echo > $T/kprobe_events
		return 0
	fi
	return 1
}
# none_attached FUNC: the kernel has no kprobe on FUNC
none_attached() {
	! grep -q " $1+0x0" $LIST 2>/dev/null
}
# refused WHAT DEF REASON [OPTIONS...]: kptrace exits non-zero, its error
# says REASON and what to do instead, and nothing is attached on DEF's function
refused() {
	local what=$1 def=$2 reason=$3 fn
	shift 3
	fn=$(echo "$def" | sed 's/^[pr]:\([^ ]*\).*/\1/')
	# bounded: a kptrace that takes it runs 1 s, not until it is killed
	kpt -d 1 "$@" "$def" > $W/out 2> $W/err
	if [ $KRC != 0 ] && grep -q "$reason" $W/err && grep -qE 'Instead: |blacklists it|ftrace cannot trace it' $W/err &&
	   none_attached "$fn"; then
		ok "$what: kptrace refuses '$def' ($(grep -o "$reason[^:;.]*" $W/err | head -n 1 | cut -c1-80)), nothing attached"
		return 0
	fi
	bad "$what: kptrace '$def' exit $KRC: $(head -c 400 $W/err | tr '\n' '|')"
	return 1
}
# attaches WHAT DEF...: kptrace attaches DEF for 1 s and exits 0
attaches() {
	local what=$1
	shift
	kpt -d 1 "$@" > $W/out 2> $W/err
	if [ $KRC = 0 ] && grep -q '^Attached 1 probe' $W/err; then
		ok "$what: kptrace $* attaches and exits 0 ($(grep '^Attached' $W/err))"
	else
		bad "$what: kptrace $* exit $KRC: $(head -c 400 $W/err | tr '\n' '|')"
	fi
}

# 1. lock, a return: the kernel takes it; kptrace does not (bcc#2300)
if kernel_takes 'r:kptsafe/t _raw_spin_lock'; then
	refused "lock return (the kernel takes it)" 'r:_raw_spin_lock' 'a return probe on .* can hang the machine: it is a spinning lock'
else
	bad "kprobe_events refuses r:_raw_spin_lock: $(tail -n 1 $T/error_log)"
fi
# 2. latency is a return too; a sleeping lock is fine
kpt latency --dry-run _raw_spin_lock_irqsave > $W/out 2> $W/err
if [ $KRC != 0 ] && grep -q "a return probe on '_raw_spin_lock_irqsave' can hang the machine" $W/err; then
	ok "kptrace latency _raw_spin_lock_irqsave: refused (a latency ends at a return)"
else
	bad "kptrace latency _raw_spin_lock_irqsave: exit $KRC: $(head -c 300 $W/err | tr '\n' '|')"
fi
attaches "a sleeping lock's return, the neighbour" 'r:mutex_lock'
# 3. lock, the entry: allowed, and it runs; the run's every probe by
# kprobe (vfs_read alone would take fentry), none on a trampoline
kpt --dry-run 'p:_raw_spin_lock' 'p:vfs_read' > $W/dry 2> $W/err
if kernel_takes 'p:kptsafe/t _raw_spin_lock' && [ $KRC = 0 ] &&
   [ "$(grep -c '^attach: kprobe$' $W/dry)" = 2 ] &&
   grep -q '^safety: .*at its entry: allowed, the run.s probes all by kprobe' $W/dry; then
	attaches "a lock's entry (--dry-run: with vfs_read, both by kprobe)" count 'p:_raw_spin_lock'
else
	bad "p:_raw_spin_lock p:vfs_read --dry-run: exit $KRC: $(grep -E '^(attach|not f|safety)' $W/dry | tr '\n' '|') $(head -c 200 $W/err)"
fi

# 4. a glob over locks: the lock functions skipped and counted, the rest kept.
# The reference: available_filter_functions' matches, split by the lock rule.
G='*spin_lock*'
LOCKRE='^(_raw_(spin|read|write)_|.*queued_spin_lock_slowpath$|__pv_queued_spin_unlock|queued_(read|write)_lock_slowpath$|do_raw_(spin|read|write)_)'
grep -q . /sys/kernel/debug/kprobes/blacklist 2>/dev/null || bad "no kprobe blacklist to read"
sed 's/ .*//' $T/available_filter_functions | grep 'spin_lock' | sort -u > $W/aff
awk '{ print $2 }' /sys/kernel/debug/kprobes/blacklist | sort -u > $W/bl
grep -E "$LOCKRE" $W/aff | grep -vxF -f $W/bl > $W/want.skip
kpt --dry-run "r:$G" > $W/dry 2> $W/err
skipped=$(sed -n "s/^kptrace: '\*spin_lock\*': skipped \([0-9]*\) match.*/\1/p" $W/err)
kept=$(sed -n 's/^kprobes\/r_\(.*\)_0: r:.*/\1/p' $W/dry)
if [ $KRC = 0 ] && [ "$skipped" = "$(wc -l < $W/want.skip)" ] && [ -n "$kept" ] &&
   ! echo "$kept" | grep -qE "$LOCKRE"; then
	ok "r:$G: $skipped lock functions skipped, as available_filter_functions' matches give; $(echo "$kept" | wc -l) others kept ($(echo $kept | cut -c1-60))"
else
	bad "r:$G: exit $KRC, skipped '$skipped', want $(wc -l < $W/want.skip); kept '$(echo $kept | cut -c1-200)'; $(grep -v '^kptrace: note' $W/err | head -c 300 | tr '\n' '|')"
fi

# 5. NMI: a handler the kernel takes, and one it blacklists (its reason first)
if kernel_takes 'p:kptsafe/t ghes_notify_nmi'; then
	refused "NMI handler (the kernel takes it)" 'p:ghes_notify_nmi' 'can hang the machine: it is an NMI handler'
else
	bad "kprobe_events refuses p:ghes_notify_nmi: $(tail -n 1 $T/error_log)"
fi
if ! kernel_takes 'p:kptsafe/t nmi_handle'; then
	refused "NMI handler (the kernel refuses it too)" 'p:nmi_handle' 'the kernel blacklists it'
else
	bad "kprobe_events takes p:nmi_handle: not blacklisted on this kernel"
fi
# a function ftrace cannot trace (notrace: in no available_filter_functions),
# which the kernel refuses as it attaches: its reason, not a guess
if ! grep -q '^trace_call_bpf$' $T/available_filter_functions && ! kernel_takes 'p:kptsafe/t trace_call_bpf'; then
	refused "notrace (the kernel refuses it too)" 'p:trace_call_bpf' 'ftrace cannot trace it: notrace or noinstr'
else
	bad "trace_call_bpf: traceable here, or kprobe_events takes it"
fi

# 6. tracing: kptrace's own ring buffer; the bpf() syscall side is fine
if kernel_takes 'p:kptsafe/t bpf_ringbuf_reserve'; then
	refused "the ring buffer kptrace writes (the kernel takes it)" 'p:bpf_ringbuf_reserve' "can hang the machine: it is tracing's and BPF's own path"
else
	bad "kprobe_events refuses p:bpf_ringbuf_reserve: $(tail -n 1 $T/error_log)"
fi
sys_bpf
attaches "the bpf() syscall, the neighbour" "p:$SYSBPF"

# 7. --unsafe takes it, with a note (explained only: never run here)
kpt --dry-run --unsafe 'r:_raw_spin_lock' > $W/dry 2> $W/err
if [ $KRC = 0 ] && grep -q '^kptrace: note: --unsafe: a return probe on _raw_spin_lock can hang the machine' $W/err &&
   grep -q '^unsafe: taken by --unsafe: it is a spinning lock' $W/dry; then
	ok "--unsafe --dry-run r:_raw_spin_lock: taken, with a note and the reason"
else
	bad "--unsafe --dry-run r:_raw_spin_lock: exit $KRC: $(head -c 300 $W/err | tr '\n' '|')"
fi
echo > $T/kprobe_events
exit 0
