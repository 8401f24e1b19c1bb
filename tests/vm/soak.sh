#!/usr/bin/env bash
# make soak: tests/vm/soak-guest.sh in a VM per kernel (default 6.12; set
# KPT_VM_KERNELS), SOAK_KILLS SIGKILLs (default 240) at random moments, then
# nothing of kptrace may remain. One vCPU: under TCG with two, live kernel
# text patching (kprobes on a function another vCPU is running) has oopsed
# the guest; that is qemu's, not what this soak is about. Not in make test.
# Ends with "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/lib.sh

KERNELS=${KPT_VM_KERNELS:-6.12}
KILLS=${SOAK_KILLS:-240}
[ -x ./kptrace ] || { echo "build ./kptrace first"; exit 1; }
BPFTOOL=$(command -v bpftool) || { echo "bpftool not found"; exit 1; }
mkdir -p .output/vm
script=.output/vm/soak-guest.sh
{ echo "KILLS=$KILLS"; cat tests/vm/soak-guest.sh; } > "$script"
for k in $KERNELS; do
	log=.output/vm/soak-$k.out
	echo "# soak on $k: $KILLS kills"
	start=$(date +%s)
	tests/vm/run.sh --kernel "$k" --script "$script" --smp 1 --add ./kptrace:/bin/kptrace \
		--add "$BPFTOOL:/bin/bpftool" --timeout "${SOAK_TIMEOUT:-3000}" > "$log" 2> ".output/vm/soak-$k.err"
	rc=$?
	grep -E '^(ok|FAIL|skip|#) ' "$log"
	echo "# $k: $(( $(date +%s) - start )) s"
	n_ok=$(grep -c '^ok - ' "$log")
	PASSED=$((PASSED + n_ok))
	FAILED=$((FAILED + $(grep -c '^FAIL - ' "$log")))
	if [ "$rc" != 0 ] || [ "$n_ok" = 0 ]; then
		fail "$k: the soak did not complete (run.sh exit $rc): $(tail -n 5 ".output/vm/soak-$k.err")"
	fi
done
finish
