#!/usr/bin/env bash
# make bench: install the peers if missing (Debian, as root), run every
# scenario (bench/bench.py: the host's, then the VM's in qemu), then print
# the table and draw the chart (bench/report.py). Arguments go to bench.py
# (--quick, --repeats N, --only ..., --vm-kernels ...).
set -euo pipefail
export PYTHONDONTWRITEBYTECODE=1
cd "$(dirname "$0")/.."

if [ "$(id -u)" != 0 ]; then
	echo "bench: needs root (BPF, uprobes, tracefs)" >&2
	exit 1
fi
missing=$(for p in bpftrace libbpf-tools linux-perf python3 binutils coreutils systemtap-sdt-dev qemu-system-x86 busybox-static cpio; do
	dpkg -s "$p" >/dev/null 2>&1 || echo "$p"; done)
if [ -n "$missing" ]; then
	echo "bench: installing" $missing
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
[ -e /sys/kernel/tracing/uprobe_events ] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || true

# A whole run is bounded (each step also has its own timeout in bench.py; a
# VM boot is bounded by tests/vm/run.sh --timeout). No --kill-after: timeout
# signals the whole process group, kptrace included, and kptrace is only ever
# stopped with SIGINT or SIGTERM.
rc=0
timeout --signal=TERM 2700 python3 bench/bench.py "$@" || rc=$?
# the table of what was measured, also when the VM part failed (exit 3) or
# the run was cut short: results.json is written after the host scenarios
if [ -f .output/bench/results.json ]; then
	python3 bench/report.py .output/bench/results.json
fi
if [ $rc != 0 ]; then
	echo "bench: FAILED (bench.py exit $rc$([ $rc = 3 ] && echo ': a VM boot failed, see above'))" >&2
fi
exit $rc
