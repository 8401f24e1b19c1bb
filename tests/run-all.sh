#!/usr/bin/env bash
# make test: unit, fuzz, host and VM suites; sums their "N passed, N failed"
# lines into the closing line CI reads. A suite that exits non-zero with no
# failure in its summary (killed, crashed, stopped by set -u) counts as one
# failure there. KPT_STRICT=1: a missing environment (not root, no tracefs, a
# module that will not load) fails instead of skipping.
set -uo pipefail
cd "$(dirname "$0")/.."
export KPT_STRICT=${KPT_STRICT:-1}
LOG=.output/tests/all.log
mkdir -p .output/tests
: > "$LOG"
rc=0

# summary FILE: the suite's summed "P F S" from its own summary lines
summary() {
	awk '/^[0-9]+ passed, [0-9]+ failed/ { p += $1; f += $3; s += ($5 == "" ? 0 : $5) }
	     END { print p + 0, f + 0, s + 0 }' "$1"
}

TIMES=()
# counted NAME STATUS: the suite's log summed into all.log; a suite that
# exited non-zero with no failure counted is one failure
counted() {
	local name=$1 status=$2 p f s
	read -r p f s < <(summary ".output/tests/$name.log")
	if [ "$status" != 0 ]; then
		rc=1
		if [ "$f" = 0 ]; then
			echo "FAIL - suite $name exited $status with no failure counted (crashed, killed or cut short)" |
				tee -a ".output/tests/$name.log"
			f=1
		fi
		echo "=== $name FAILED"
	fi
	echo "$name: $p passed, $f failed, $s skipped" >> "$LOG"
}

suite() {
	local name=$1 status t0=$SECONDS; shift
	echo "=== $name"
	"$@" 2>&1 | tee ".output/tests/$name.log"
	status=${PIPESTATUS[0]}
	TIMES+=("$name $((SECONDS - t0))s")
	echo "# time: $name $((SECONDS - t0))s"
	counted "$name" "$status"
}

# The VM suites (qemu's TCG, CPU-bound) run beside the host suites, which
# mostly wait on their workloads, under SCHED_IDLE: a host suite's task
# that wakes takes its core at once, so the guests get only the time the
# host suites leave (at nice 10 they took it from them: host-stacks 162 s
# against 70). They start after the fuzzers, which keep both cores busy
# for a minute, longer than a starved guest's soft-lockup bound. Printed
# and counted after the host suites. KPT_VM_BESIDE=0: after them instead.
VM_BG=''
vm_suites() {
	local t0=$SECONDS
	tests/vm/test.sh > .output/tests/vm.log 2>&1
	echo "$? $((SECONDS - t0))" > .output/tests/vm.status
	t0=$SECONDS
	env KPT_VM_ARCH=arm64 tests/vm/test.sh > .output/tests/vm-arm64.log 2>&1
	echo "$? $((SECONDS - t0))" > .output/tests/vm-arm64.status
}
vm_beside() {
	[ "${KPT_SKIP_VM:-0}" != 1 ] && [ "${KPT_VM_BESIDE:-1}" = 1 ] || return 0
	rm -f .output/tests/vm.status .output/tests/vm-arm64.status
	echo "=== vm, vm-arm64: started beside the host suites (SCHED_IDLE), reported after them"
	vm_suites_bg() { chrt --idle -p 0 $BASHPID; vm_suites; }
	vm_suites_bg &
	VM_BG=$!
}

# collected NAME [WHERE]: a suite that ran in the background (vm_suites,
# side_stream), printed and counted as suite() does; its seconds are its
# own, overlapped with others'
collected() {
	local name=$1 status secs where=${2:-beside the host suites}
	echo "=== $name (ran $where)"
	cat ".output/tests/$name.log"
	read -r status secs < ".output/tests/$name.status" 2>/dev/null || { status=1 secs=0; }
	TIMES+=("$name ${secs}s (beside)")
	echo "# time: $name ${secs}s, $where"
	counted "$name" "$status"
}

# src/'s folders are layers: no upward include, none without its folder, no cycle
suite layers tests/layers.sh
suite unit tests/run-unit.sh .output/tests/test_* .output/tests/san/test_*
# a smoke: the regressions and 10 s of search each (make fuzz: the campaign)
suite fuzz tests/fuzz/run.sh 10
vm_beside
# The differential, aggregation, bad-input, stacks, serve and budget suites
# run once, on kptrace built with ASan+UBSan (the same -O2): any report
# fails the run (tests/lib.sh collects them). The same code as the static
# build's, which every other suite and the VM's run; a second, plain run
# of these six could fail only where the two builds differ (static
# glibc), which the VM suites cover.
SAN="env KPT=.output/kptrace-san"
# Beside the others: suites whose kptrace runs trace their own workloads and
# that check nothing machine-wide (programs left, tracefs, CPU shares): diff
# and the SVG and Perfetto pictures. They mostly wait (-d, renders), so the
# two streams take ~140 s less than one; printed and counted after the
# first stream, where they stood. (badinput is not one: it checks that no
# case adds a line to uprobe_events, which run.sh's references do.)
side_stream() {
	local t0
	for s in "host-diff tests/host/diff.sh" "host-svg tests/host/svg.sh" \
		 "host-perfetto tests/host/perfetto.sh"; do
		set -- $s
		t0=$SECONDS
		"${@:2}" > ".output/tests/$1.log" 2>&1
		echo "$? $((SECONDS - t0))" > ".output/tests/$1.status"
	done
}
SIDE=(host-diff host-svg host-perfetto)
for s in "${SIDE[@]}"; do rm -f ".output/tests/$s.status"; done
side_stream &
SIDE_PID=$!
suite host-san $SAN tests/host/run.sh
suite host-agg-san $SAN tests/host/agg.sh
suite host-badinput-san $SAN tests/host/badinput.sh
suite host-stacks-san $SAN tests/host/stacks.sh
suite host-lazytab tests/host/lazytab.sh
suite host-everyday tests/host/everyday.sh
suite host-pairs tests/host/pairs.sh
suite host-serve-san $SAN tests/host/serve.sh
suite host-harden tests/host/harden.sh
suite host-list tests/host/list.sh
suite host-values tests/host/values.sh
suite host-targeting tests/host/targeting.sh
suite host-containers tests/host/containers.sh
suite host-grammar tests/host/grammar.sh
suite host-usdt tests/host/usdt.sh
suite host-tpbtf tests/host/tpbtf.sh
suite host-nobtf tests/host/nobtf.sh
suite host-guidance tests/host/guidance.sh
suite host-tchart tests/host/tchart.sh
suite host-globs tests/host/globs.sh
suite host-stop tests/host/stop.sh
# The suites that measure CPU shares and costs run with nothing beside them
echo "=== waiting for the side stream (pid $SIDE_PID)"
wait "$SIDE_PID"
for s in "${SIDE[@]}"; do collected "$s" "beside the other host suites"; done
suite host-profile tests/host/profile.sh
suite host-pmu tests/host/pmu.sh
suite host-cost tests/host/cost.sh
suite host-budget-san $SAN tests/host/budget.sh
# last: it rebuilds ./kptrace (make's nothing-to-do and VERSION checks)
suite host-install tests/host/install.sh
if [ "${KPT_SKIP_VM:-0}" = 1 ]; then
	echo "skip - VM tests (KPT_SKIP_VM=1)"
	echo "vm: 0 passed, 0 failed, 1 skipped" >> "$LOG"
	echo "vm-arm64: 0 passed, 0 failed, 1 skipped" >> "$LOG"
elif [ -n "$VM_BG" ]; then
	echo "=== waiting for the VM suites (pid $VM_BG)"
	wait "$VM_BG"
	collected vm
	collected vm-arm64
else
	suite vm tests/vm/test.sh
	# the cross-built arm64 kptrace on Debian's arm64 kernels (~2 min)
	suite vm-arm64 env KPT_VM_ARCH=arm64 tests/vm/test.sh
fi

echo "=== totals"
# where the time went, suite by suite (the VM suites' own phases are in vm.log)
echo "time: ${TIMES[*]/%/,} total ${SECONDS}s"
column -t "$LOG" 2>/dev/null || cat "$LOG"
# The failed checks by name, next to the totals: CI shows only the output's
# end, where the suites' own FAIL lines are long gone.
for f in .output/tests/*.log; do
	[ "$f" = "$LOG" ] && continue
	grep -h '^FAIL - ' "$f" 2>/dev/null | cut -c1-200 | sed "s|^|$(basename "$f" .log): |"
done | head -n 20
# Per layer, so that a lost one shows (its checks would be a rounding error
# in the total): unit, fuzz, host (host-*), vm (vm, vm-arm64). A layer where
# no check ran says so. The last line is the total, the one CI reads.
awk '{ l = $1; sub(/:$/, "", l); sub(/-.*/, "", l)
       if (!(l in seen)) { seen[l] = 1; order[++n] = l }
       p[l] += $2; f[l] += $4; s[l] += $6; P += $2; F += $4; S += $6 }
     END { for (i = 1; i <= n; i++) { l = order[i]
             printf "layer %s: %d passed, %d failed, %d skipped%s\n", l, p[l], f[l], s[l],
                    p[l] + f[l] == 0 ? " (no check ran)" : "" }
           printf "%d passed, %d failed, %d skipped\n", P, F, S; exit (F > 0) }' "$LOG" || rc=1
exit $rc
