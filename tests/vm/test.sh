#!/usr/bin/env bash
# VM tests: boot each Debian cloud kernel under qemu (TCG) with the static
# kptrace and run tests/vm/guest.sh there, then tests/vm/lockdown.sh in a
# locked-down boot, after a positive control per kernel (a guest WARNING
# must stop its boot and fail it). Counts the guests' ok/FAIL/skip lines; the
# closing lines say the qemu configuration, the retried boot if any, the time
# per phase and the pinned inputs (tests/vm/pins.txt), and the last one is
# "N passed, N failed, N skipped". A boot fails when its guest kernel reports
# a fault (tests/vm/faults.sh), falls silent, does not run its script to its
# end, or runs fewer checks than the script says it has.
# 5.10 (Debian 11's, the fleet's LTS) has a shorter lane: guest.sh's passes
# against its own kprobe_events, then the smaller guest scripts but
# module-guest.sh, with no positive control or lockdown boot (x86_old_kernel).
# KPT_VM_KERNELS (5.10 6.1 6.12), KPT_VM_TCG (single), KPT_VM_SILENCE (120): see
# tests/vm/run.sh. The kernels boot side by side (KPT_VM_JOBS=1: one after
# the other).
# KPT_VM_ARCH=arm64: the cross-built .output/arm64/kptrace on Debian's arm64
# kernels under qemu-system-aarch64 (tests/vm/run.sh), one boot each running
# tests/vm/guest-arm64.sh and then tests/vm/module-guest.sh (not on 5.10),
# after the arm64 register table's unit test against that build's BPF object.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/lib.sh

VM_ARCH=${KPT_VM_ARCH:-x86}
KERNELS=${KPT_VM_KERNELS:-5.10 6.1 6.12}
case $VM_ARCH in
x86) BIN=./kptrace VMOUT=.output/vm QEMU_BIN=qemu-system-x86_64 ;;
arm64) BIN=.output/arm64/kptrace VMOUT=.output/vm/arm64 QEMU_BIN=qemu-system-aarch64 ;;
*) echo "KPT_VM_ARCH must be x86 or arm64"; exit 1 ;;
esac
[ -x $BIN ] || { echo "build $BIN first"; exit 1; }
ldd_out=$(ldd $BIN 2>&1)
if [[ $ldd_out != *"not a dynamic executable"* ]]; then
	fail "kptrace must be statically linked to run in the initramfs"
fi
# make vm-test builds kptrace only; the host-side BTF tests need this too,
# and the sanitized boot kptrace-san
[ $VM_ARCH != x86 ] || [ -x .output/kptrace-san ] || make -s .output/kptrace-san >&2 ||
	fail "cannot build .output/kptrace-san for the sanitized boot"
BPFTOOL=$(command -v bpftool) || fail "bpftool is not installed (the guests' view of BTF and programs)"
SETPRIV=$(command -v setpriv) || fail "setpriv is not installed (util-linux)"
[ -x .output/tests/test_btfarg ] || make -s .output/tests/test_btfarg >&2 ||
	fail "cannot build .output/tests/test_btfarg for the host-side BTF tests"
[ $VM_ARCH = x86 ] || [ -x .output/tests/test_regs ] || make -s .output/tests/test_regs >&2 ||
	fail "cannot build .output/tests/test_regs for the arm64 register table"

# shellcheck source=tests/vm/faults.sh
. tests/vm/faults.sh
# shellcheck source=tests/vm/pins.sh
. tests/vm/pins.sh
# the inputs are the pinned ones (the kernels: kernels.sh fetches no other)
[ "$VM_ARCH" = x86 ] || vmlinux/arm64-debs.sh .output/arm64/busybox busybox-static >&2 ||
	fail "cannot extract busybox-static:arm64 (vmlinux/arm64-debs.sh)"
pins_check_busybox "$VM_ARCH"
[ "$VM_ARCH" = arm64 ] || pins_check_npm

# Every guest kernel fault fails the run, with its trace: an oops, BUG,
# lockup, RCU stall, hung task or WARNING stops the guest at once (run.sh
# boots it with panic_on_warn and the like and stops qemu at the first fault
# line), and so does a console silent for KPT_VM_SILENCE seconds (120: a
# frozen guest). No symptom is retried. Of the flakes once retried here,
# the int3 oopses at patched sites are qemu's with one host thread per vCPU:
# the kernel's own text patching oopses there without kptrace
# (tests/vm/tcg-stress.sh), and run.sh now runs all vCPUs on one host thread
# (-accel tcg,thread=single). The others (a call to address 0, soft
# lockups, a frozen guest) did not come back in the boots that settled this;
# if one does, it fails the run and its trace says where. The one retry
# left: a kernel that died at boot, before the guest script started, when
# nothing of ours had run and no probe was attached: once per run, its
# trace printed, said in the closing lines.
TCG=${KPT_VM_TCG:-single}
export KPT_VM_TCG=$TCG KPT_VM_BOOT_RETRY=0
RETRIED=''
PHASES=() T_RUN=$(date +%s)
# the run's one retry, taken by the first kernel that needs it (the kernels
# boot side by side: a directory made is the lock)
mkdir -p "$VMOUT"
rm -rf "$VMOUT/.retried"

# phase NAME SECONDS: one line of the closing time table
phase() { PHASES+=("$1 $2s"); echo "# time: $1 $2s"; }

# fault_trace CONSOLE: the first fault and the 40 console lines after it
# (its registers and call trace), as comments: CI keeps only this output,
# not the console file.
fault_trace() {
	grep -a -m1 -A40 -E "$KPT_FAULT_RE" "$1" | sed 's/^/#   console: /'
}

# last_step OUT: what the guest was doing: the script it ran (the "# NAME.sh"
# lines of more-guest.sh and guest-arm64.sh) and its last check
last_step() {
	local s l
	s=$(sed -n 's/^# \([A-Za-z0-9_.-]*\.sh\)\( (uptime.*\)\{0,1\}$/\1/p' "$1" | tail -n 1)
	l=$(grep -E '^(ok|FAIL|skip) ' "$1" | tail -n 1 | cut -c1-120)
	[ -n "$l" ] && l="'$l'" || l='its start'
	echo "${s:+in $s, }after $l"
}

# guest_boot OUT RUN.SH-ARGS...: one guest run; its console kept as OUT's
# .console (escapes and \r stripped). Sets BOOT_RC.
guest_boot() {
	local out=$1; shift
	tests/vm/run.sh --kernel "$k" --log "${out%.out}.raw" "$@" > "$out" 2> "${out%.out}.err"
	BOOT_RC=$?
	tr -d '\r' < "${out%.out}.raw" | sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g; s/\x1bc//g' > "${out%.out}.console"
	rm -f "${out%.out}.raw"
}

# guest NAME OUT RUN.SH-ARGS...: a guest run, judged: its ok/FAIL/skip lines
# counted, then any fault, silence or timeout a failure with its trace.
guest() {
	local name=$1 out=$2 base n_ok n_fail want t0 first when; shift 2
	base=${out%.out}
	rm -f "$base".try1.*
	t0=$(date +%s)
	guest_boot "$out" "$@"
	if [ "$BOOT_RC" = 123 ] && mkdir "$VMOUT/.retried" 2>/dev/null; then
		# died at boot, before /init ran the script: nothing of ours ran
		first=$(kpt_fault_first "$base.console")
		RETRIED="$name: the kernel died at boot, before the guest script (${first:+$(kpt_fault_class "$first") at $(kpt_fault_site "$base.console")})"
		echo "$RETRIED" > "$VMOUT/.retried/what"
		for f in out console err; do mv "$base.$f" "$base.try1.$f"; done
		skip "$name: retried once (the run's one retry): $RETRIED; console $base.try1.console"
		fault_trace "$base.try1.console"
		guest_boot "$out" "$@"
	fi
	phase "$name" $(($(date +%s) - t0))
	grep -E '^(ok|FAIL|skip|#) ' "$out"
	n_ok=$(grep -c '^ok - ' "$out")
	n_fail=$(grep -c '^FAIL - ' "$out")
	PASSED=$((PASSED + n_ok))
	FAILED=$((FAILED + n_fail))
	SKIPPED=$((SKIPPED + $(grep -c '^skip - ' "$out")))
	first=$(kpt_fault_first "$base.console")
	if [ -n "$first" ]; then
		when=$(last_step "$out")
		[ "$BOOT_RC" != 123 ] || when='at boot, before the guest script started'
		fail "$name: the guest kernel's $(kpt_fault_class "$first") at $(kpt_fault_site "$base.console"), $when: '$(echo "$first" | cut -c1-160)' (console $base.console)"
		fault_trace "$base.console"
	elif [ "$BOOT_RC" = 122 ]; then
		fail "$name: the guest fell silent for ${KPT_VM_SILENCE:-120}s, $(last_step "$out"): a frozen guest, stopped (console $base.console)"
		tail -n 15 "$base.console" | sed 's/^/#   console: /'
	elif [ "$BOOT_RC" = 123 ]; then
		fail "$name: the kernel died at boot, before the guest script started, again (console $base.console)"
		tail -n 15 "$base.console" | sed 's/^/#   console: /'
	fi
	# the script says first how many checks it runs
	want=$(sed -n 's/^# expect \([0-9][0-9]*\) ok$/\1/p' "$out" | awk '{ n += $1 } END { if (NR) print n }')
	if [ "$BOOT_RC" != 0 ] || ! grep -q '^# done$' "$out"; then
		fail "$name: the guest script did not run to its end (run.sh exit $BOOT_RC): $(grep -E '^run.sh: (FAULT|SILENT|TIMEOUT|FAIL|error)' "$base.err" | tail -n 2 | tr '\n' ' ' | cut -c1-300)"
	fi
	if [ -z "$want" ]; then
		fail "$name: the guest script did not say how many checks it has"
	elif [ $((n_ok + n_fail)) -lt "$want" ]; then
		# a FAIL is counted already: this is for checks that never ran
		fail "$name: $((n_ok + n_fail)) checks ran, the guest script has $want"
	fi
}

# control K KO: the harness's positive control: a boot whose guest loads
# tests/vm/etn with warn=1 (a WARNING at load) must stop at that WARNING,
# run.sh exit 121, and name etn_init as its site
control() {
	local out=$VMOUT/control-$k.out site first t0
	t0=$(date +%s)
	printf '%s\n' '#!/bin/sh' 'insmod /lib/etn.ko warn=1' 'sleep 30' \
		'echo "the guest ran on after its WARNING"' > "$VMOUT/control-guest-$k.sh"
	guest_boot "$out" --script "$VMOUT/control-guest-$k.sh" --add "$2:/lib/etn.ko" --timeout 120
	phase "$VM_ARCH $k control" $(($(date +%s) - t0))
	first=$(kpt_fault_first "${out%.out}.console")
	site=$(kpt_fault_site "${out%.out}.console")
	if [ "$BOOT_RC" = 121 ] && [ "$(kpt_fault_class "$first")" = WARNING ] && [[ $site == etn_init* ]] &&
		! grep -q 'ran on after' "$out"; then
		pass "$k: a guest WARNING stops the boot and fails it, named: WARNING at $site (run.sh exit 121)"
	else
		fail "$k: the positive control's WARNING (insmod etn.ko warn=1) was not caught as one: run.sh exit $BOOT_RC, '$first' at $site (console ${out%.out}.console)"
	fi
}

# closing: the configuration and what the boots ran on, the time per phase,
# then finish's count line
closing() {
	echo "# vm $VM_ARCH: qemu $("${QEMU_BIN}" --version | sed -n '1s/.*version \([^ ]*\).*/\1/p') -accel tcg,thread=$TCG," \
		"faults stop a boot, console silence after ${KPT_VM_SILENCE:-120}s"
	RETRIED=$(cat "$VMOUT/.retried/what" 2>/dev/null)
	echo "# vm $VM_ARCH: retried boots: ${RETRIED:-none}"
	echo "# vm $VM_ARCH: time: ${PHASES[*]/%/,} total $(($(date +%s) - T_RUN))s"
	pins_print "$VM_ARCH" "$KERNELS" | sed "s/^/# vm $VM_ARCH: pinned: /"
	finish
}

# each_kernel FUNC: FUNC K for each kernel K, side by side: under
# thread=single a boot keeps one host core busy, so the two kernels at once
# use the two cores one thread=multi boot used. Each kernel's lines are
# printed whole, in order, when all are done, and counted from there (what
# pass, fail, skip and guest print is what they count). KPT_VM_JOBS=1: one
# kernel after the other, lines as they come.
each_kernel() {
	local k log pids=() p l
	if [ "${KPT_VM_JOBS:-2}" = 1 ]; then
		for k in $KERNELS; do "$1" "$k"; done
		return
	fi
	for k in $KERNELS; do
		echo "# $VM_ARCH $k: its lines when all kernels are done ($VMOUT/kernel-$k.log)"
		("$1" "$k") > "$VMOUT/kernel-$k.log" 2>&1 &
		pids+=($!)
	done
	for p in "${pids[@]}"; do wait "$p"; done
	for k in $KERNELS; do
		log=$VMOUT/kernel-$k.log
		cat "$log"
		PASSED=$((PASSED + $(grep -c '^ok - ' "$log")))
		FAILED=$((FAILED + $(grep -c '^FAIL - ' "$log")))
		SKIPPED=$((SKIPPED + $(grep -c '^skip - ' "$log")))
		while IFS= read -r l; do PHASES+=("$l"); done < <(sed -n 's/^# time: //p' "$log")
	done
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
	pins_check_arm64_sysroot .output/arm64/sysroot
	# the caller at entry probes: tests/host/unwind_target.c, -O1 with frame
	# pointers (a frameless leaf), and its stacks from aarch64 objdump's call
	# sites, for guest-arm64.sh
	uw=()
	if aarch64-linux-gnu-gcc -O1 -fno-omit-frame-pointer -fno-inline -static \
		tests/host/unwind_target.c -o "$VMOUT/uw1" &&
		aarch64-linux-gnu-objdump -d --no-show-raw-insn "$VMOUT/uw1" |
		tests/vm/arm64-chains.py > "$VMOUT/uw1.want"; then
		uw=(--add "$VMOUT/uw1:/uw1" --add "$VMOUT/uw1.want:/uw1.want")
	else
		fail "arm64: cannot build tests/host/unwind_target.c or its objdump chains"
	fi
	# without frame pointers, unwound from .eh_frame (ustack-arm64.sh): -O2,
	# and -O2 with return addresses signed (pointer authentication)
	for b in "uw2:" "uw2p:-mbranch-protection=standard"; do
		if aarch64-linux-gnu-gcc -O2 -fomit-frame-pointer ${b#*:} -static \
			tests/host/unwind_target.c -o "$VMOUT/${b%%:*}" &&
			aarch64-linux-gnu-objdump -d --no-show-raw-insn "$VMOUT/${b%%:*}" |
			tests/vm/arm64-chains.py --regex > "$VMOUT/${b%%:*}.want"; then
			uw+=(--add "$VMOUT/${b%%:*}:/${b%%:*}" --add "$VMOUT/${b%%:*}.want:/${b%%:*}.want")
		else
			fail "arm64: cannot build tests/host/unwind_target.c -O2 ${b#*:} or its objdump chains"
		fi
	done
	uw+=(--add tests/vm/ustack-arm64.sh:/guest.d/ustack-arm64.sh)
	# USDT's arm64 forms: tests/host/usdt_target.c by the cross compiler,
	# the host's sys/sdt.h (plain asm, the same for every machine)
	mkdir -p "$VMOUT/sdtinc/sys"
	if cp "$(dirname "$(echo '#include <sys/sdt.h>' | cpp -H -o /dev/null 2>&1 |
		awk '/sdt.h$/ { print $2; exit }')")"/sdt*.h "$VMOUT/sdtinc/sys/" &&
		aarch64-linux-gnu-gcc -O1 -g -static -I"$VMOUT/sdtinc" tests/host/usdt_target.c \
			-o "$VMOUT/usdt_target.arm64"; then
		uw+=(--add "$VMOUT/usdt_target.arm64:/usdt_target"
		     --add tests/vm/usdt-arm64.sh:/guest.d/usdt-arm64.sh)
	else
		fail "arm64: cannot build tests/host/usdt_target.c with sys/sdt.h"
	fi
	# tp_btf and :struct, as in x86-64's more-guest.sh boot
	uw+=(--add tests/vm/tpbtf-guest.sh:/guest.d/tpbtf-guest.sh)
	arm64_kernel() {
		local k=$1 ko t0 mod=()
		# module-guest.sh in the same boot (a second one would cost more
		# than its checks), with the tests' own module built for this
		# kernel; not on 5.10, whose headers are not pinned (as x86-64's)
		t0=$(date +%s)
		if [ "$k" = 5.10 ]; then
			:
		elif ko=$(tests/vm/etn/build.sh "$k" 2> "$VMOUT/etn-$k.err"); then
			phase "arm64 $k etn module" $(($(date +%s) - t0))
			control "$k" "$ko"
			mod=(--add "$ko:/lib/etn.ko" --add tests/vm/module-guest.sh:/guest.d/module-guest.sh)
		else
			fail "arm64 $k: cannot build tests/vm/etn's module: $(tail -n 3 "$VMOUT/etn-$k.err" | tr '\n' ' ')"
		fi
		echo "# booting arm64 $k"
		guest "arm64 $k" "$VMOUT/test-$k.out" --script tests/vm/guest-arm64.sh \
			--add $BIN:/bin/kptrace --add tests/vm/guest-lib.sh:/guest-lib.sh "${mod[@]}" \
			"${uw[@]}" --mem 2048 --timeout 300
		# module-guest.sh's "# expect N ok" is counted only if it ran at all
		if [ ${#mod[@]} != 0 ] && ! grep -q '^# module-guest.sh$' "$VMOUT/test-$k.out"; then
			fail "arm64 $k: guest-arm64.sh did not run /guest.d/module-guest.sh"
		fi
	}
	each_kernel arm64_kernel
	closing
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

# more_adds K [SKIP...]: the run.sh --add arguments of K's boot of the
# smaller guest scripts (tests/vm/more-guest.sh), into the array more:
# every tests/vm/*-guest.sh but the SKIPped (basenames) and ftrace-errors.sh,
# and the tools and binaries they take
more_adds() {
	local k=$1 g
	shift
	more=()
	# soak-guest.sh is make soak's, 240 kills, not make test's
	for g in tests/vm/*-guest.sh tests/vm/ftrace-errors.sh; do
		case " more-guest.sh soak-guest.sh $* " in *" $(basename "$g") "*) continue ;; esac
		[ $g = tests/vm/examples-guest.sh ] && [ ${#examples[@]} = 0 ] && continue
		[ -e "$g" ] && more+=(--add "$g:/guest.d/$(basename "$g")")
	done
	# bpftool: the kernel's own view of BTF and of what programs are loaded
	more+=(--add "$BPFTOOL:/bin/bpftool")
	# util-linux's setpriv (caps-guest.sh): busybox's cannot change the uid
	more+=(--add "$SETPRIV:/usr/local/bin/setpriv")
	# ustack-guest.sh's binary without frame pointers (its .eh_frame unwound);
	# each lane's own, as the lanes build them side by side
	if gcc -O2 -fomit-frame-pointer -static tests/host/unwind_target.c -o "$VMOUT/uw2-$k"; then
		more+=(--add "$VMOUT/uw2-$k:/uw2")
	else
		fail "$k: cannot build tests/host/unwind_target.c -O2 -static for ustack-guest.sh"
	fi
	# and linked to libc (run.sh copies the libraries), for walks across mappings
	if gcc -O2 -fomit-frame-pointer tests/host/unwind_target.c -o "$VMOUT/uw2d-$k"; then
		more+=(--add "$VMOUT/uw2d-$k:/uw2d")
	else
		fail "$k: cannot build tests/host/unwind_target.c -O2 for ustack-guest.sh"
	fi
	# why-guest.sh's system calls that fail deep in the kernel
	if gcc -O2 -static tests/vm/why_target.c -o "$VMOUT/why_target-$k"; then
		more+=(--add "$VMOUT/why_target-$k:/why_target")
	else
		fail "$k: cannot build tests/vm/why_target.c -static for why-guest.sh"
	fi
}

# 5.10: guest.sh's passes against this kernel's own kprobe_events (the
# script ends after them there), then the smaller guest scripts as on the
# other kernels, their checks of what 5.10 lacks version-gated, in two boots
# under the same fault rules as the other kernels'. Not module-guest.sh:
# the tests' module needs 5.10's headers, which are not pinned.
x86_old_kernel() {
	local k=$1 offsets=.output/vm/btf-offsets-$1 btf more=()
	: > "$offsets"
	if btf=$(tests/vm/vmlinux-btf.sh "$k" 2> ".output/vm/btf-$k.err"); then
		btf_offsets "$btf" > "$offsets" 2> ".output/vm/btf-offsets-$k.err"
	fi
	[ "$(wc -l < "$offsets")" = 5 ] ||
		fail "$k: bpftool did not give the 5 member offsets guest.sh needs: '$(tr '\n' ' ' < "$offsets")' $(cat ".output/vm/btf-$k.err")"
	echo "# booting $k"
	guest "$k" ".output/vm/test-$k.out" --script tests/vm/guest.sh \
		--add ./kptrace:/bin/kptrace --add tests/vm/guest-lib.sh:/guest-lib.sh --add "$offsets:/etc/kpt-btf-offsets" --timeout 1200
	more_adds "$k" module-guest.sh
	guest "$k more" ".output/vm/more-$k.out" --script tests/vm/more-guest.sh \
		--add ./kptrace:/bin/kptrace --add tests/vm/guest-lib.sh:/guest-lib.sh "${more[@]}" \
		"${examples[@]}" --timeout 1500
}

# etn_dwarf K KO: why-guest.sh's --under ':*etn.c', into the array more:
# the module at its build id's debug path (as a debug package installs one)
# and the functions with code of its etn.c as readelf reads its DWARF
etn_dwarf() {
	local k=$1 ko=$2 id funcs=.output/vm/etn-funcs-$1
	id=$(readelf -n "$ko" | sed -n 's/^ *Build ID: \([0-9a-f]*\)$/\1/p')
	readelf --debug-dump=info "$ko" | awk -v re='etn\\.c$' -f tests/vm/dwfuncs.awk > "$funcs"
	if [ ${#id} -ge 4 ] && [ -s "$funcs" ]; then
		more+=(--add "$ko:/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug"
			--add "$funcs:/etc/kpt-etn-funcs")
	else
		fail "$k: etn.ko's build id ('$id', readelf -n) or its functions ($(wc -l < "$funcs"), readelf --debug-dump=info)"
	fi
}

x86_kernel() {
	local k=$1 offsets btf rc r t0 ko g more=()
	[ "$k" != 5.10 ] || { x86_old_kernel "$k"; return; }
	offsets=.output/vm/btf-offsets-$k
	: > "$offsets"
	t0=$(date +%s)
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
	phase "$k kernel and host-side BTF tests" $(($(date +%s) - t0))
	# The tests' own module (module-guest.sh and the positive control),
	# built against this kernel's Debian headers (tests/vm/etn/build.sh)
	t0=$(date +%s)
	if ko=$(tests/vm/etn/build.sh "$k" 2> ".output/vm/etn-$k.err"); then
		phase "$k etn module" $(($(date +%s) - t0))
		control "$k" "$ko"
	else
		ko=''
		fail "$k: cannot build tests/vm/etn's module: $(tail -n 3 ".output/vm/etn-$k.err" | tr '\n' ' ')"
	fi
	echo "# booting $k"
	# dummy: a module with BTF, for list MOD:* and module BTF arguments.
	# The timeout, like the next boot's, bounds a live guest on a slow
	# machine only (600 s ran out at a load of 16 on 2 cores)
	guest "$k" ".output/vm/test-$k.out" --script tests/vm/guest.sh \
		--add ./kptrace:/bin/kptrace --add tests/vm/guest-lib.sh:/guest-lib.sh --add "$offsets:/etc/kpt-btf-offsets" --module dummy --timeout 1200
	# The smaller guest scripts, one boot for all (tests/vm/more-guest.sh)
	more_adds "$k"
	[ -z "$ko" ] || more+=(--add "$ko:/lib/etn.ko")
	[ -z "$ko" ] || etn_dwarf "$k" "$ko"
	# Its timeout only bounds a live guest on a slow machine (one took 800 s
	# at a load of 12 on 2 cores): a fault stops it in seconds, a frozen
	# guest after KPT_VM_SILENCE, a hung script at more-guest.sh's LIMIT.
	guest "$k more" ".output/vm/more-$k.out" --script tests/vm/more-guest.sh \
		--add ./kptrace:/bin/kptrace --add tests/vm/guest-lib.sh:/guest-lib.sh "${more[@]}" \
		"${examples[@]}" --timeout 1200
	# One more boot, locked down: a clear refusal (tests/vm/lockdown.sh).
	guest "$k lockdown" ".output/vm/lockdown-$k.out" --script tests/vm/lockdown.sh \
		--add ./kptrace:/bin/kptrace --add tests/vm/guest-lib.sh:/guest-lib.sh --append lockdown=confidentiality --timeout 90
	# kptrace built with ASan+UBSan through the paths only a kernel with
	# kprobes runs (tests/vm/sanitized.sh), on one kernel: its lane has the
	# time the other kernel's longer one takes anyway
	if [ "$k" = "${KPT_VM_SAN_KERNEL:-6.12}" ]; then
		local san=(--add .output/kptrace-san:/bin/kptrace --add "$BPFTOOL:/bin/bpftool"
			--add tests/vm/more-guest.sh:/more-guest.sh --add tests/vm/guest-lib.sh:/guest-lib.sh)
		for g in module targeting guidance serve; do
			san+=(--add "tests/vm/$g-guest.sh:/guest.san/$g-guest.sh")
		done
		[ -z "$ko" ] || san+=(--add "$ko:/lib/etn.ko")
		guest "$k san" ".output/vm/san-$k.out" --script tests/vm/sanitized.sh "${san[@]}" \
			--mem 2048 --timeout 1200
	fi
}
each_kernel x86_kernel
closing
