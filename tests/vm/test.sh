#!/usr/bin/env bash
# VM tests: boot each Debian cloud kernel under qemu (TCG) with the static
# kptrace and run tests/vm/guest.sh there, then tests/vm/lockdown.sh in a
# locked-down boot. Counts the guests' ok/FAIL/skip lines and ends with
# "N passed, N failed, N skipped". A boot fails when its guest kernel
# reports a fault on the console, when its script did not run to its end, or
# when fewer checks ran than the script says it has.
# KPT_VM_ARCH=arm64: the cross-built .output/arm64/kptrace on Debian's arm64
# kernels under qemu-system-aarch64 (tests/vm/run.sh), one boot each running
# tests/vm/guest-arm64.sh and then tests/vm/module-guest.sh, after the arm64
# register table's unit test against that build's BPF object.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/lib.sh

KERNELS=${KPT_VM_KERNELS:-6.1 6.12}
VM_ARCH=${KPT_VM_ARCH:-x86}
case $VM_ARCH in
x86) BIN=./kptrace VMOUT=.output/vm ;;
arm64) BIN=.output/arm64/kptrace VMOUT=.output/vm/arm64 ;;
*) echo "KPT_VM_ARCH must be x86 or arm64"; exit 1 ;;
esac
[ -x $BIN ] || { echo "build $BIN first"; exit 1; }
ldd_out=$(ldd $BIN 2>&1)
if [[ $ldd_out != *"not a dynamic executable"* ]]; then
	fail "kptrace must be statically linked to run in the initramfs"
fi
# make vm-test builds kptrace only; the host-side BTF tests need this too
[ -x .output/tests/test_btfarg ] || make -s .output/tests/test_btfarg >&2 ||
	fail "cannot build .output/tests/test_btfarg for the host-side BTF tests"
[ $VM_ARCH = x86 ] || [ -x .output/tests/test_regs ] || make -s .output/tests/test_regs >&2 ||
	fail "cannot build .output/tests/test_regs for the arm64 register table"

# What a guest kernel prints on its console when it is hurt: an oops (die()'s
# counter, "[#1]", is on every one: "Oops: 0000 [#1]", "int3: 0000 [#1]",
# "general protection fault, ...: 0000 [#1]"), a BUG, a panic, and what
# reaches the console at loglevel=1 of WARNINGs, RCU stalls and hung tasks
# (the guest scripts read those from dmesg themselves).
FAULTS='\[#[0-9]+\]|BUG:|kernel BUG|Kernel panic|WARNING:|rcu: INFO:|detected stalls? on CPU|blocked for more than'
# The one fault retried: under TCG the kernel's own text patching (text_poke
# planting an int3 at a site being patched: a kprobe's, ftrace's, a static
# key's) is now and then taken as an int3 oops in code nothing probes (seen
# in bench/vm runs and at boot, tests/vm/run.sh). 6.7+ prefix it "Oops: ".
FLAKE='(^|[^A-Za-z0-9_])int3: [0-9a-f]{4} \[#1\]'
# Its other face under two TCG vCPUs (tests/vm/soak.sh runs one vCPU for
# it): a call through a site being patched fetching its next instruction at
# address 0, "RIP: 0010:0x0" (seen in do_sys_openat2's and vfs_read's entry).
FLAKE0='BUG: kernel NULL pointer dereference, address: 0000000000000000'
# And a third, seen once in CI (stop 28, 6.1's "more" boot, during
# stacks-guest.sh, whose fentry run patches one site for ftrace's kprobes,
# kptrace's kprobe and a direct trampoline at once) and never in 11 runs
# here, two of them on one host core: a vCPU stuck in the kernel for good,
# "soft lockup ... stuck for 49s!" until the boot's timeout. Retried once
# like the others, its call trace printed: a second one fails.
FLAKE_LOCKUP='watchdog: BUG: soft lockup - CPU#[0-9]+ stuck for'

# And a fourth, seen once in CI (stop 32, 6.1's "more" boot, early in
# ftrace-errors.sh, after everyday-guest.sh's fentry runs): the guest fell
# silent for good, no fault, no line, until the boot's timeout. more-guest.sh
# prints a line with the guest's uptime at least every 30 s and reports a hung
# script itself (what it waits on, then a FAIL); a boot that timed out with its
# last uptime more than FROZEN_AFTER seconds short of its timeout froze as a
# whole: retried once like the faults above, a second one fails.
FROZEN_AFTER=120

# last_uptime OUT: the guest's uptime in its last line that says it
last_uptime() {
	sed -n 's/^# .*uptime \([0-9][0-9]*\)s)\{0,1\}$/\1/p' "$1" | tail -n 1
}

# guest_froze OUT TIMEOUT: the boot timed out and the guest's uptime lines
# had stopped long before
guest_froze() {
	local last
	[ "$BOOT_RC" = 124 ] || return 1
	last=$(last_uptime "$1")
	[ -n "$last" ] && [ $(($2 - last)) -gt $FROZEN_AFTER ]
}

# tcg_flake CONSOLE: the console's first kernel fault is the known flake
tcg_flake() {
	local first
	first=$(kernel_faults "$1" | head -n 1)
	echo "$first" | grep -qE "$FLAKE|$FLAKE_LOCKUP" && return 0
	echo "$first" | grep -qF "$FLAKE0" && grep -q 'RIP: 0010:0x0$' "$1" &&
		grep -q '#PF: supervisor instruction fetch in kernel mode' "$1"
}

# kernel_faults CONSOLE: the kernel's fault lines, not the guest's own lines
# (its checks quote dmesg).
kernel_faults() {
	grep -vE '^(ok|FAIL|skip|#) ' "$1" | grep -E "$FAULTS"
}

# fault_trace CONSOLE: the first fault and the 40 console lines after it
# (its registers and call trace), as comments: CI keeps only this output,
# not the console file.
fault_trace() {
	grep -vE '^(ok|FAIL|skip|#) ' "$1" | grep -m1 -A40 -E "$FAULTS" | sed 's/^/#   console: /'
}

# guest_boot OUT RUN.SH-ARGS...: one guest run, its console kept as
# OUT's .console. Sets BOOT_RC and BOOT_FAULT (the console's first fault
# line, or empty).
guest_boot() {
	local out=$1; shift
	tests/vm/run.sh --kernel "$k" "$@" > "$out" 2> "${out%.out}.err"
	BOOT_RC=$?
	# run.sh's console log is one per kernel: each boot keeps its own copy
	tr -d '\r' < "$VMOUT/$k.log" | sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g' > "${out%.out}.console"
	BOOT_FAULT=$(kernel_faults "${out%.out}.console" | head -n 1 | cut -c1-200)
	if grep -q 'died before the guest script started' "${out%.out}.err"; then
		cp "$VMOUT/$k.log.boot1" "${out%.out}.boot1.console" 2>/dev/null
	fi
}

# keep_try OUT TRY: a retried boot's output, console and errors kept as try TRY's
keep_try() {
	local base=${1%.out}

	mv "$1" "$base.try$2.out"
	mv "$base.console" "$base.try$2.console"
	mv "$base.err" "$base.try$2.err"
}

# guest NAME OUT RUN.SH-ARGS...: a guest run, judged. Retried only after
# the known TCG flake, at most twice (seen twice in a row on 6.12's first
# boot, 28 s and 41 s into it, int3 oopses in ttwu_do_activate and
# __schedule): each retry a skip, reported, its try's log kept and its lines
# printed. Any other fault, or the flake a third time, fails.
guest() {
	local name=$1 out=$2 try base n_ok n_fail want rip timeout froze=0; shift 2
	base=${out%.out}
	timeout=$(echo "$*" | sed -n 's/.*--timeout \([0-9][0-9]*\).*/\1/p')
	rm -f "$base".try[12].* "$base.boot1.console"
	for try in 1 2 3; do
		guest_boot "$out" "$@"
		if [ $try -lt 3 ] && [ $froze = 0 ] && guest_froze "$out" "${timeout:-180}"; then
			froze=1
			keep_try "$out" $try
			skip "$name: retried: the guest froze, silent from uptime $(last_uptime "$base.try$try.out")s to the boot's timeout (${timeout:-180}s), no kernel fault (console $base.try$try.console, $(grep -c '^FAIL - ' "$base.try$try.out") FAIL lines in that try)"
			grep -E '^(ok|FAIL|skip) ' "$base.try$try.out" | sed "s/^/#   try $try: /"
			grep -E '^# ' "$base.try$try.out" | tail -n 3 | sed "s/^/#   try $try: /"
			continue
		fi
		if [ $try -lt 3 ] && [ -n "$BOOT_FAULT" ] && tcg_flake "$base.console"; then
			keep_try "$out" $try
			rip=$(grep -m1 'RIP: ' "$base.try$try.console" | cut -c1-100)
			skip "$name: retried: the guest kernel took the TCG text-patching flake ('$BOOT_FAULT', $rip; console $base.try$try.console, $(grep -c '^FAIL - ' "$base.try$try.out") FAIL lines in that try)"
			grep -E '^(ok|FAIL|skip) ' "$base.try$try.out" | sed "s/^/#   try $try: /"
			fault_trace "$base.try$try.console"
			continue
		fi
		break
	done
	grep -E '^(ok|FAIL|skip|#) ' "$out"
	n_ok=$(grep -c '^ok - ' "$out")
	n_fail=$(grep -c '^FAIL - ' "$out")
	PASSED=$((PASSED + n_ok))
	FAILED=$((FAILED + n_fail))
	SKIPPED=$((SKIPPED + $(grep -c '^skip - ' "$out")))
	if grep -q 'died before the guest script started' "$base.err"; then
		skip "$name: booted twice: the kernel died before the guest script started ($(grep -A1 'died before' "$base.err" | tail -n 1 | cut -c1-150); console $base.boot1.console)"
	fi
	if [ -n "$BOOT_FAULT" ]; then
		fail "$name: the guest kernel reported '$BOOT_FAULT' ($(grep -m1 'RIP: ' "$base.console" | cut -c1-100); console $base.console)"
		fault_trace "$base.console"
	fi
	# the script says first how many checks it runs
	want=$(sed -n 's/^# expect \([0-9][0-9]*\) ok$/\1/p' "$out" | awk '{ n += $1 } END { if (NR) print n }')
	if [ "$BOOT_RC" != 0 ] || ! grep -q '^# done$' "$out"; then
		fail "$name: the guest script did not run to its end (run.sh exit $BOOT_RC): $(tail -n 5 "$base.err" | tr '\n' ' ')"
	fi
	if [ -z "$want" ]; then
		fail "$name: the guest script did not say how many checks it has"
	elif [ $((n_ok + n_fail)) -lt "$want" ]; then
		# a FAIL is counted already: this is for checks that never ran
		fail "$name: $((n_ok + n_fail)) checks ran, the guest script has $want"
	fi
}

# The member offsets guest.sh's register forms of BTF chains need (on a
# kernel whose kprobe_events has no BTF arguments), read from the kernel's
# BTF by bpftool: not by kptrace's own walk. NAME=BYTES lines.
btf_offsets() {
	bpftool btf dump file "$1" format raw | awk '
	BEGIN { want["file.f_flags"] = "FILE_F_FLAGS"; want["file.f_path"] = "FILE_F_PATH"
		want["path.dentry"] = "PATH_DENTRY"; want["dentry.d_name"] = "DENTRY_D_NAME"
		want["qstr.name"] = "QSTR_NAME" }
	/^\[/ { s = $2 == "STRUCT" ? $3 : ""; gsub("\047", "", s); next }
	s != "" { m = $1; gsub("\047", "", m); k = s "." m
		  if ((k in want) && !(k in got)) { sub("bits_offset=", "", $3); got[k] = $3 / 8 } }
	END { for (k in want) if (k in got) print want[k] "=" got[k] }'
}

# arm64: the register table from the cross build's own BTF, then a boot per
# kernel (~30-50 s each under TCG)
if [ $VM_ARCH = arm64 ]; then
	r=$(.output/tests/test_regs --btf .output/arm64/kptrace.bpf.o 2>&1 | tail -n 1)
	if [[ $r =~ ^[1-9][0-9]*\ passed,\ 0\ failed$ ]]; then
		pass "arm64 register names resolve against the arm64 BPF object's struct kpt_regs ($r)"
	else
		fail "arm64 register table against .output/arm64/kptrace.bpf.o: $(.output/tests/test_regs --btf .output/arm64/kptrace.bpf.o 2>&1 | grep -m3 CHECK | tr '\n' ' ' | cut -c1-400)"
	fi
	mkdir -p $VMOUT
	for k in $KERNELS; do
		# module-guest.sh in the same boot (a second one would cost more
		# than its checks), with the tests' own module built for this kernel
		mod=()
		if ko=$(tests/vm/etn/build.sh "$k" 2> "$VMOUT/etn-$k.err"); then
			mod=(--add "$ko:/lib/etn.ko" --add tests/vm/module-guest.sh:/guest.d/module-guest.sh)
		else
			fail "arm64 $k: cannot build tests/vm/etn's module: $(tail -n 3 "$VMOUT/etn-$k.err" | tr '\n' ' ')"
		fi
		echo "# booting arm64 $k"
		guest "arm64 $k" "$VMOUT/test-$k.out" --script tests/vm/guest-arm64.sh \
			--add $BIN:/bin/kptrace --add tests/vm/guest-lib.sh:/guest-lib.sh "${mod[@]}" --mem 2048 --timeout 300
		# its "# expect 18 ok" is counted only if it ran at all
		if [ ${#mod[@]} != 0 ] && ! grep -q '^# module-guest.sh$' "$VMOUT/test-$k.out"; then
			fail "arm64 $k: guest-arm64.sh did not run /guest.d/module-guest.sh"
		fi
	done
	finish
	exit
fi

# kptrace(8)'s examples for examples-guest.sh, as the page prints them,
# and the job file its serve examples read
mkdir -p .output/vm
examples=(--add docs/jobs.kpt:/etc/kptrace/jobs.kpt
	--add docs/jobs.kpt:/usr/share/doc/kptrace/examples/jobs.kpt)
if tests/man-examples.sh > .output/vm/examples.txt 2> .output/vm/examples.err &&
	[ -s .output/vm/examples.txt ]; then
	examples+=(--add .output/vm/examples.txt:/etc/kpt-examples)
else
	fail "cannot read kptrace(8)'s examples (tests/man-examples.sh): $(head -c 300 .output/vm/examples.err)"
	examples=()
fi

for k in $KERNELS; do
	offsets=.output/vm/btf-offsets-$k
	: > "$offsets"
	# BTF arguments against this kernel's own BTF, on the host: the unit
	# tests of src/prepare/btfarg.c with the VM kernel's vmlinux.
	if btf=$(tests/vm/vmlinux-btf.sh "$k" 2> ".output/vm/btf-$k.err"); then
		btf_offsets "$btf" > "$offsets" 2> ".output/vm/btf-offsets-$k.err"
		[ "$(wc -l < "$offsets")" = 5 ] ||
			fail "$k: bpftool did not give the 5 member offsets guest.sh needs: '$(tr '\n' ' ' < "$offsets")' $(tail -n 2 ".output/vm/btf-offsets-$k.err" | tr '\n' ' ')"
		.output/tests/test_btfarg --btf "$btf" > ".output/vm/btf-$k.out" 2> ".output/vm/btf-$k.log"
		rc=$?
		r=$(tail -n 1 ".output/vm/btf-$k.out")
		if [ $rc = 0 ] && [[ $r =~ ^[1-9][0-9]*\ passed,\ 0\ failed$ ]]; then
			pass "BTF arguments resolve against $k's BTF as against this host's ($r)"
		else
			fail "BTF arguments against $k's BTF: exit $rc, '$r': $(grep -m3 -e FAIL -e CHECK ".output/vm/btf-$k.out" ".output/vm/btf-$k.log" | tr '\n' ' ' | cut -c1-400)"
		fi
	else
		fail "$k: no vmlinux with BTF for the host-side tests: $(cat ".output/vm/btf-$k.err")"
	fi
	echo "# booting $k"
	# dummy: a module with BTF, for list MOD:* and module BTF arguments
	guest "$k" ".output/vm/test-$k.out" --script tests/vm/guest.sh \
		--add ./kptrace:/bin/kptrace --add tests/vm/guest-lib.sh:/guest-lib.sh --add "$offsets:/etc/kpt-btf-offsets" --module dummy --timeout 600
	# The smaller guest scripts, one boot for all (tests/vm/more-guest.sh);
	# soak-guest.sh is make soak's, 240 kills, not make test's
	more=()
	for g in tests/vm/*-guest.sh tests/vm/ftrace-errors.sh; do
		case $g in tests/vm/more-guest.sh|tests/vm/soak-guest.sh) continue ;; esac
		[ $g = tests/vm/examples-guest.sh ] && [ ${#examples[@]} = 0 ] && continue
		[ -e "$g" ] && more+=(--add "$g:/guest.d/$(basename "$g")")
	done
	# The tests' own module for module-guest.sh, built against this
	# kernel's Debian headers (tests/vm/etn/build.sh)
	if ko=$(tests/vm/etn/build.sh "$k" 2> ".output/vm/etn-$k.err"); then
		more+=(--add "$ko:/lib/etn.ko")
	else
		fail "$k: cannot build tests/vm/etn's module: $(tail -n 3 ".output/vm/etn-$k.err" | tr '\n' ' ')"
	fi
	guest "$k more" ".output/vm/more-$k.out" --script tests/vm/more-guest.sh \
		--add ./kptrace:/bin/kptrace --add tests/vm/guest-lib.sh:/guest-lib.sh "${more[@]}" \
		"${examples[@]}" --timeout 900
	# One more boot, locked down: a clear refusal (tests/vm/lockdown.sh).
	guest "$k lockdown" ".output/vm/lockdown-$k.out" --script tests/vm/lockdown.sh \
		--add ./kptrace:/bin/kptrace --append lockdown=confidentiality --timeout 90
done
finish
