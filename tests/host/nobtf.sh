#!/usr/bin/env bash
# Host tests of a kernel without BTF: /sys/kernel/btf/vmlinux hidden from
# kptrace alone (a mount namespace of its own, /dev/null bound over it).
# With none: the register/offset grammar, tracepoint fields, hist, count,
# latency and -K run (the workload's counts, the kernel's stacktrace trigger);
# names, -> chains, :struct, fentry, tp_btf and timechart are refused with
# the fix. With --btf and the kernel's BTF copied first: offsets as pahole
# gives them, timechart's pids as the workload's, -U through .eh_frame as
# gdb's bt. Wrong files refused, named: not BTF, a minimized BTF, another
# kernel's (Debian 6.12's, tests/vm/vmlinux-btf.sh).
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/lib.sh
. tests/host/stacklib.sh

KPT0=$(realpath "${KPT:-./kptrace}")
OUT=.output/tests/host/nobtf
mkdir -p "$OUT"
OUT=$(realpath "$OUT")
T=/sys/kernel/tracing
[ "$(id -u)" = 0 ] || skip_all "host tests need root (BPF, mounts, tracefs)"
[ -s /sys/kernel/btf/vmlinux ] || skip_all "no kernel BTF to hide"
command -v unshare > /dev/null || skip_all "no unshare (util-linux)"
expect_checks 28

cp /sys/kernel/btf/vmlinux "$OUT/vmlinux.btf"
# the BTF hidden in a mount namespace of the run's own: nobody else's view changes
cat > "$OUT/hide" <<'SH'
#!/bin/sh
mount --bind /dev/null /sys/kernel/btf/vmlinux || exit 97
exec "$@"
SH
chmod +x "$OUT/hide"
HIDDEN="unshare -m $OUT/hide $KPT0"
KPT=$HIDDEN
check "the namespace hides the BTF from its run only (empty inside, whole outside)" sh -c \
	"unshare -m '$OUT/hide' sh -c '[ ! -s /sys/kernel/btf/vmlinux ]' && [ -s /sys/kernel/btf/vmlinux ]"

# refused LABEL PATTERN... -- ARGS: a refusal (exit 1) whose message has each pattern
refused() {
	local label=$1 pats=() p
	shift
	while [ "$1" != -- ]; do pats+=("$1"); shift; done
	shift
	KPT_RC=error kpt "$@" > /dev/null 2> "$OUT/refused.err"
	for p in "${pats[@]}"; do
		grep -qF -- "$p" "$OUT/refused.err" || { fail "$label: no '$p' in: $(head -c 300 "$OUT/refused.err")"; return; }
	done
	pass "$label"
}
FIX=("--btf FILE" "CONFIG_DEBUG_INFO_BTF")

echo "# no BTF: what ftrace's grammar needs none of runs"
WL="sh -c 'for i in 1 2 3 4 5 6 7; do /bin/true; done'"
kpt --json count -c "$WL" t:sched/sched_process_exec > "$OUT/count.json" 2> "$OUT/count.err"
check "count t:sched/sched_process_exec: 8, the workload's execs (sh and 7 true)" \
	grep -q '"count": *8\b' "$OUT/count.json"
kpt --json hist -c "dd if=/dev/zero of=/dev/null bs=4096 count=10" \
	't:syscalls/sys_enter_write count' --filter 'count == 4096' > "$OUT/hist.json" 2> "$OUT/hist.err"
check "hist of a tracepoint field: dd's 10 writes of 4096 bytes in [4096, 8191]" \
	grep -q '"min": *4096, *"max": *8191, *"count": *10\b' "$OUT/hist.json"
kpt latency -c "sh -c 'sleep 0.01; sleep 0.01; sleep 0.01'" --from t:syscalls/sys_enter_clock_nanosleep \
	--to t:syscalls/sys_exit_clock_nanosleep > "$OUT/lat.txt" 2> "$OUT/lat.err"
check "latency --from/--to on tracepoints: 3 calls, the workload's 3 sleeps" \
	grep -q '^count 3, ' "$OUT/lat.txt"
kpt --dry-run 'p:do_sys_openat2 dfd=%di name=+0(%si):string $arg3 +8($arg3):x64' \
	> "$OUT/regs.txt" 2> "$OUT/regs.err"
check "p: with registers, +OFF(...), \$argN: accepted, as ftrace takes them" \
	grep -q 'from \$arg3 = %dx' "$OUT/regs.txt"

# -K against the kernel's stacktrace trigger, on a comm of the test's own
cp /bin/true "$OUT/kptnobtf-t"
INST=$T/instances/kpt_nobtf_$$
if mkdir "$INST" 2>/dev/null; then
	E=sched/sched_process_exec
	echo stacktrace > "$INST/events/$E/trigger" && echo 1 > "$INST/events/$E/enable"
	kpt -K -c "sh -c '$OUT/kptnobtf-t; $OUT/kptnobtf-t'" "t:$E" > "$OUT/k.out" 2> "$OUT/k.err"
	echo 0 > "$INST/events/$E/enable"
	echo '!stacktrace' > "$INST/events/$E/trigger"
	cp "$INST/trace" "$OUT/ftrace.txt"
	rmdir "$INST"
	stacks_of "$OUT/ftrace.txt" kptnobtf-t ftrace | sort > "$OUT/k.ref"
	stacks_of "$OUT/k.out" kptnobtf-t | sort > "$OUT/k.got"
	check "-K: the 2 execs' stacks as the kernel's stacktrace trigger's" \
		sh -c "[ \$(wc -l < '$OUT/k.ref') = 2 ] && cmp -s '$OUT/k.ref' '$OUT/k.got'"
else
	env_fault "no tracefs instance at $INST: no reference for -K"
fi

echo "# no BTF: what needs it is refused with the fix"
refused "dfd=dfd (a name): refused, saying what is missing and the fix" \
	"needs the kernel's BTF" "/sys/kernel/btf/vmlinux" "${FIX[@]}" -- \
	--dry-run 'p:do_sys_openat2 dfd=dfd'
check "dfd=dfd: the caret under the argument, not the function" \
	sh -c "[ \"\$(sed -n 3p '$OUT/refused.err')\" = \"\$(printf '%20s' '^')\" ]"
refused "how->flags (a -> chain): refused with the fix" "${FIX[@]}" -- \
	--dry-run 'p:do_sys_openat2 fl=how->flags'
refused "how:struct: refused with the fix" "${FIX[@]}" -- --dry-run 'p:do_sys_openat2 how:struct'
refused "p->exit_code (TP_PROTO's argument): refused with the fix" "${FIX[@]}" -- \
	--dry-run 't:sched/sched_process_exit p->exit_code'
refused "--backend fentry: refused, the kernel's BTF ids named" \
	"--backend fentry" "BTF ids" "/sys/kernel/btf/vmlinux" -- \
	--dry-run --backend fentry 'p:do_sys_openat2 dfd=%di'
refused "timechart (task_struct's offsets): refused with the fix" "${FIX[@]}" -- timechart -d 1
B=$OUT/uw-o2
gcc -O2 -g -fomit-frame-pointer tests/host/unwind_target.c -o "$B" ||
	echo "# cannot build tests/host/unwind_target.c"
kpt -U -c "$B 2 rare" "p:$B:uw_middle" > "$OUT/u-none.out" 2> "$OUT/u-none.err"
check "-U: runs, warning that stacks are walked by frame pointers only, and the fix" \
	sh -c "grep -q 'frame pointers only' '$OUT/u-none.err' && grep -qF -- '--btf FILE' '$OUT/u-none.err'"

echo "# --btf FILE (the kernel's BTF copied): as with the kernel's own"
BTF=(--btf "$OUT/vmlinux.btf")
OFF=$(pahole -C file 2> /dev/null | awk '$2 == "f_pos;" { print $(NF - 2) }')
DEF='p:vfs_read pos=file->f_pos:s64 count=count'
kpt --dry-run "${BTF[@]}" "$DEF" > "$OUT/dry-btf.txt" 2> "$OUT/dry-btf.err"
check "file->f_pos: read at pahole's offset of struct file's f_pos ($OFF)" \
	sh -c "[ -n '$OFF' ] && grep -q \"value + $(printf '0x%x' "${OFF:-0}") \" '$OUT/dry-btf.txt'"
check "count=count: \$arg3 = %dx, typed size_t's u64 as BTF says" \
	grep -q 'count: u64  (count=count)' "$OUT/dry-btf.txt"
refused "tp_btf under --btf: refused, the running kernel's BTF ids named" \
	"cannot go through tp_btf" "BTF ids" -- \
	--dry-run "${BTF[@]}" 't:sched/sched_process_exit p->exit_code'
kpt "${BTF[@]}" --json count -c "$WL" t:sched/sched_process_exec > "$OUT/count-btf.json" \
	2> "$OUT/count-btf.err"
check "--btf: count t:sched/sched_process_exec: 8, the workload's" \
	grep -q '"count": *8\b' "$OUT/count-btf.json"
kpt timechart "${BTF[@]}" -c "sh -c 'echo \$\$ > $OUT/tc.pid; sleep 0.1'" > "$OUT/tc.txt" \
	2> "$OUT/tc.err"
P=$(cat "$OUT/tc.pid" 2> /dev/null)
check "--btf: timechart's rows: the workload's shell by its own pid ($P), sleep its child" \
	sh -c "[ -n '$P' ] && grep -qE '^ +$P +[0-9]+ +sh ' '$OUT/tc.txt' &&
		grep -qE '^ +[0-9]+ +$P +sleep ' '$OUT/tc.txt'"
if command -v gdb > /dev/null && [ -x "$B" ]; then
	gdb_stacks "$B" uw_middle 2 rare | sort > "$OUT/u.ref"
	kpt "${BTF[@]}" -U -c "$B 2 rare" "p:$B:uw_middle" > "$OUT/u-btf.out" 2> "$OUT/u-btf.err"
	stacks_of "$OUT/u-btf.out" "*" user | to_main | sort > "$OUT/u-btf.got"
	check "--btf: -U at uw_middle's entry (-O2, no frame pointers) equals gdb's bt" \
		sh -c "[ -s '$OUT/u.ref' ] && cmp -s '$OUT/u.ref' '$OUT/u-btf.got'"
	stacks_of "$OUT/u-none.out" "*" user | to_main | sort > "$OUT/u-none.got"
	check "no BTF: the same stacks cut short, marked (the control)" \
		sh -c "grep -q 'cut short' '$OUT/u-none.got' && ! cmp -s '$OUT/u.ref' '$OUT/u-none.got'"
else
	env_fault "no gdb (or no -O2 build): no reference for -U"
	env_fault "no gdb (or no -O2 build): no reference for -U"
fi

SIG='ssize_t vfs_read(struct file *file, char *buf, size_t count, loff_t *pos)'
kpt list "${BTF[@]}" vfs_read > "$OUT/list-btf.txt" 2> "$OUT/list-btf.err"
check "--btf: list vfs_read prints its signature (the kernel's source): $SIG" \
	grep -qxF "$SIG" "$OUT/list-btf.txt"
kpt list vfs_read > "$OUT/list-none.txt" 2> "$OUT/list-none.err"
check "no BTF: list vfs_read lists it '(no BTF)', warning with the fix, no libbpf noise" \
	sh -c "grep -qx 'vfs_read (no BTF)' '$OUT/list-none.txt' &&
		grep -qF -- '--btf FILE' '$OUT/list-none.err' && ! grep -q '^libbpf' '$OUT/list-none.err'"

echo "# wrong files: refused, named"
head -c 8192 /dev/urandom > "$OUT/junk.bin"
refused "random bytes: not BTF, the file named" "--btf $OUT/junk.bin: not BTF" -- \
	--btf "$OUT/junk.bin" --dry-run t:sched/sched_process_exec
refused "a missing file: named, with the system's reason" \
	"--btf $OUT/none.btf: No such file" -- --btf "$OUT/none.btf" --dry-run t:sched/sched_process_exec
# kptrace's object has no CO-RE relocation: min_core_btf keeps nothing of vmlinux's
if bpftool gen min_core_btf "$OUT/vmlinux.btf" "$OUT/min.btf" .output/kptrace.bpf.o \
	> /dev/null 2>&1; then
	refused "bpftool gen min_core_btf's for kptrace's object: not a whole vmlinux BTF" \
		"--btf $OUT/min.btf: not a whole vmlinux BTF" -- \
		--btf "$OUT/min.btf" --dry-run t:sched/sched_process_exec
else
	env_fault "bpftool gen min_core_btf failed (no .output/kptrace.bpf.o?)"
fi
V612=$(tests/vm/vmlinux-btf.sh 6.12 2> "$OUT/v612.err")
if [ -s "$V612" ]; then
	refused "Debian 6.12's vmlinux (another kernel's BTF): not this kernel's, the file named" \
		"--btf $V612: not this kernel's BTF" "/proc/kallsyms" -- \
		--btf "$V612" --dry-run 'p:vfs_read count=count'
else
	env_fault "no 6.12 vmlinux (tests/vm/vmlinux-btf.sh: $(tail -n 1 "$OUT/v612.err"))"
fi
check "nothing left mounted over the BTF: the host's /sys/kernel/btf/vmlinux whole" \
	cmp -s /sys/kernel/btf/vmlinux "$OUT/vmlinux.btf"
finish
