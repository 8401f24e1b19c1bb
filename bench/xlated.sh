#!/usr/bin/env bash
# The verifier's view of a fixed set of configurations: for each, the
# programs kptrace loads and their xlated instruction counts (bpftool), one
# "CONFIG PROGRAM INSNS" line each. Run before and after a change that should
# leave the BPF side as it was, and diff the two outputs. The kprobe, fentry
# and kprobe.multi configurations need a kernel that has them (the VM:
# bench/xlated.sh --vm K boots one).
#
# usage: bench/xlated.sh [KPTRACE]          this host: uprobes, tracepoints
#        bench/xlated.sh --vm 6.1|6.12 [KPTRACE]
set -uo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = --vm ]; then
	k=${2:?--vm needs a kernel}
	kpt=${3:-./kptrace}
	tests/vm/run.sh --kernel "$k" --script bench/xlated.sh --add "$kpt:/bin/kptrace" \
		--add "$(command -v bpftool):/bin/bpftool" --timeout 600 | grep -E '^[a-z0-9_.-]+ kpt_'
	exit "${PIPESTATUS[0]}"
fi
KPT=${1:-./kptrace}
[ -x "$KPT" ] || KPT=/bin/kptrace
W=$(mktemp -d /tmp/kpt-xlated.XXXXXX)
trap 'rm -rf "$W"' EXIT

# progs PID: "NAME INSNS" of the programs kptrace PID holds open
progs() {
	local fd id
	for fd in /proc/$1/fdinfo/*; do
		id=$(sed -n 's/^prog_id:[[:space:]]*//p' "$fd" 2>/dev/null)
		[ -n "$id" ] || continue
		bpftool prog show id "$id" 2>/dev/null |
			awk '{ for (i = 1; i < NF; i++) { if ($i == "name") n = $(i + 1);
			       if ($i == "xlated") x = $(i + 1) } }
			     END { sub("B$", "", x); if (n != "") print n, x / 8 }'
	done | sort -u
}

# child PID: the first child of PID (the guest's busybox has no pgrep)
child() {
	local d
	for d in /proc/[0-9]*; do
		grep -q "^PPid:[[:space:]]*$1\$" "$d/status" 2>/dev/null && { echo "${d#/proc/}"; return; }
	done
}

# one NAME ARGS...: start kptrace, wait for "Attached", list, stop
one() {
	local name=$1 i p; shift
	timeout 60 "$KPT" -o /dev/null "$@" > /dev/null 2> "$W/err" &
	p=$!
	for i in $(seq 1 300); do
		grep -q '^Attached' "$W/err" && break
		kill -0 $p 2>/dev/null || break
		sleep 0.1
	done
	if grep -q '^Attached' "$W/err"; then
		# GNU timeout forks kptrace; busybox's execs it and forks its watchdog
		for q in $p $(child $p); do progs $q; done | sort -u | sed "s/^/$name /"
	else
		echo "$name ERROR $(head -c 300 "$W/err" | tr '\n' ' ')"
	fi
	kill -INT $p 2>/dev/null	# timeout(1) passes it on to kptrace
	wait
}

if grep -qw register_kprobe /proc/kallsyms; then
	one kprobe-stream 'p:vfs_read count=%dx:u64 file=%di'
	one kprobe-string 'p:do_sys_openat2 path=+0(%si):string'
	one kprobe-hist --backend kprobe hist 'p:ksys_lseek a=%di:u64' a
	one kprobe-hist-keyed --backend kprobe hist --by comm 'p:ksys_lseek a=%di:u64' a
	one kprobe-latency --backend kprobe latency vfs_read
	one fentry-stream --backend fentry 'p:vfs_read count=%dx:u64 file=%di'
	one fentry-hist --backend fentry hist 'p:ksys_lseek a=%di:u64' a
	one multi-stream --backend kprobe-multi 'p:vfs_read count=%dx:u64 file=%di'
	one multi-latency --backend kprobe-multi latency 'vfs_read*'
	one tracepoint-hist hist kmalloc
else
	BIN=$W/target
	gcc -O0 -fno-inline -no-pie -g tests/host/target.c -o "$BIN" || exit 1
	one uprobe-stream "p:a $BIN:kpt_args6 a=%di b=%si c=%dx"
	one uprobe-string "p:a $BIN:kpt_struct s=+0(+16(%di)):string"
	one uprobe-hist hist "p:a $BIN:kpt_size n=%di:u64" n
	one uprobe-hist-keyed hist --by k "p:a $BIN:kpt_size n=%di:u64 k=+0(%si):u8" n
	one uprobe-latency latency "$BIN:kpt_sleep"
	one uprobe-filter "p:a $BIN:kpt_size n=%di:u64 t=+0(%si):ustring if n > 10 && t ~ \"b*\""
	one tracepoint-stream 't:syscalls/sys_enter_lseek fd offset whence'
	one tracepoint-hist hist kmalloc
fi
# tp_btf (x86-64's pt_regs names): a direct histogram, filtered, a latency,
# a stream and a latency each filtered (the static bench's command lines)
if [ "$(uname -m)" = x86_64 ] && [ -e /sys/kernel/btf/vmlinux ]; then
	one tpbtf-hist --backend tp-btf hist 't:raw_syscalls/sys_enter nr=regs->orig_ax' nr
	one tpbtf-hist-filter --backend tp-btf hist 't:raw_syscalls/sys_enter nr=regs->orig_ax if nr == 8' nr
	one tpbtf-latency --backend tp-btf latency --from t:raw_syscalls/sys_enter --to t:raw_syscalls/sys_exit
	one tpbtf-stream-filter --backend tp-btf 't:raw_syscalls/sys_enter nr=regs->orig_ax fd=regs->di if nr == 8'
	one tpbtf-latency-filter --backend tp-btf latency \
		--from 't:raw_syscalls/sys_enter nr=regs->orig_ax if nr == 8' \
		--to 't:raw_syscalls/sys_exit nr=regs->orig_ax if nr == 8'
fi
