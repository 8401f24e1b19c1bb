#!/usr/bin/env bash
# VM tests: boot each Debian cloud kernel under qemu (TCG) with the static
# kptrace and run tests/vm/guest.sh there. Counts the guest's ok/FAIL lines
# and ends with "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/lib.sh

KERNELS=${KPT_VM_KERNELS:-6.1 6.12}
[ -x ./kptrace ] || { echo "build ./kptrace first"; exit 1; }
ldd_out=$(ldd ./kptrace 2>&1)
if [[ $ldd_out != *"not a dynamic executable"* ]]; then
	fail "kptrace must be statically linked to run in the initramfs"
fi

for k in $KERNELS; do
	log=.output/vm/test-$k.out
	mkdir -p .output/vm
	# BTF arguments against this kernel's own BTF, on the host: the unit
	# tests of src/btfarg.c with the VM kernel's vmlinux.
	if btf=$(tests/vm/vmlinux-btf.sh "$k" 2> ".output/vm/btf-$k.err") &&
	   [ -x .output/tests/test_btfarg ]; then
		r=$(.output/tests/test_btfarg --btf "$btf" 2> ".output/vm/btf-$k.log" | tail -n 1)
		check "BTF arguments resolve against $k's BTF as against this host's ($r)" \
			test "${r#* passed, }" = "0 failed"
	else
		fail "$k: no vmlinux with BTF for the host-side tests: $(cat ".output/vm/btf-$k.err")"
	fi
	echo "# booting $k"
	for try in 1 2; do
		# dummy: a module with BTF, for list MOD:*
		tests/vm/run.sh --kernel "$k" --script tests/vm/guest.sh --add ./kptrace:/bin/kptrace \
			--module dummy --timeout 300 > "$log" 2> ".output/vm/test-$k.err"
		rc=$?
		# A guest kernel oops gets one more boot, reported either way: under
		# TCG, 6.1 has oopsed in its ftrace ring buffer reset and once in the
		# verifier's krealloc while kmalloc kprobes were being attached.
		# (also when the script went on: an oops may take one kptrace with it)
		if ! grep -qE 'Oops|BUG:' ".output/vm/$k.log" || [ $try = 2 ]; then
			break
		fi
		echo "# $k: the guest kernel oopsed (.output/vm/$k.log: $(grep -m1 -E 'RIP:' \
			".output/vm/$k.log" | cut -c1-80)); booting again"
		cp ".output/vm/$k.log" ".output/vm/$k.oops.log"
	done
	grep -E '^(ok|FAIL|skip|#) ' "$log"
	n_ok=$(grep -c '^ok - ' "$log")
	n_fail=$(grep -c '^FAIL - ' "$log")
	PASSED=$((PASSED + n_ok))
	FAILED=$((FAILED + n_fail))
	SKIPPED=$((SKIPPED + $(grep -c '^skip - ' "$log")))
	if [ "$rc" != 0 ] || [ "$n_ok" = 0 ]; then
		fail "$k: the VM run did not complete (run.sh exit $rc): $(tail -n 5 ".output/vm/test-$k.err")"
	fi

	# One more boot, locked down: a clear refusal (tests/vm/lockdown.sh).
	log=.output/vm/lockdown-$k.out
	tests/vm/run.sh --kernel "$k" --script tests/vm/lockdown.sh --add ./kptrace:/bin/kptrace \
		--append lockdown=confidentiality --timeout 90 > "$log" 2> ".output/vm/lockdown-$k.err"
	rc=$?
	grep -E '^(ok|FAIL|skip|#) ' "$log"
	n_ok=$(grep -c '^ok - ' "$log")
	PASSED=$((PASSED + n_ok))
	FAILED=$((FAILED + $(grep -c '^FAIL - ' "$log")))
	if [ "$rc" != 0 ] || [ "$n_ok" -lt 5 ]; then
		fail "$k lockdown: the VM run did not complete (run.sh exit $rc): $(tail -n 5 ".output/vm/lockdown-$k.err")"
	fi
done
finish
