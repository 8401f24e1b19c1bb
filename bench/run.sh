#!/usr/bin/env bash
# make bench: install the peers if missing (Debian, as root), run every
# scenario (bench/bench.py), then print the table and draw the chart
# (bench/report.py). Arguments go to bench.py (--quick, --repeats N, --only ...).
set -euo pipefail
export PYTHONDONTWRITEBYTECODE=1
cd "$(dirname "$0")/.."

if [ "$(id -u)" != 0 ]; then
	echo "bench: needs root (BPF, uprobes, tracefs)" >&2
	exit 1
fi
missing=$(for p in bpftrace libbpf-tools python3 binutils coreutils; do
	dpkg -s "$p" >/dev/null 2>&1 || echo "$p"; done)
if [ -n "$missing" ]; then
	echo "bench: installing" $missing
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
[ -e /sys/kernel/tracing/uprobe_events ] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || true

# A whole run is bounded (each step also has its own timeout in bench.py).
# No --kill-after: timeout signals the whole process group, kptrace included,
# and kptrace is only ever stopped with SIGINT or SIGTERM.
timeout --signal=TERM 1200 python3 bench/bench.py "$@"
python3 bench/report.py .output/bench/results.json
