#!/usr/bin/env bash
# Boot a Debian cloud kernel in qemu (TCG: no KVM here) with a throwaway busybox initramfs,
# run one guest script as root, and exit with that script's exit code.
#
# usage: tests/vm/run.sh --kernel 5.10|6.1|6.12 --script GUEST_SCRIPT
#          [--add HOSTPATH[:GUESTPATH]]...  (GUESTPATH defaults to /<basename>; dynamically
#                                            linked ELF files get their shared libs copied too)
#          [--module NAME]...               (load kernel module NAME + deps before the script;
#                                            none are needed for tracing/BPF: all built in)
#          [--timeout SECS (180)] [--append 'extra kernel cmdline'] [--smp N (2)]
#          [--mem MB (1024)] [--log FILE (the console log below)]
# exit: guest script's rc; 121 the guest kernel reported a fault (tests/vm/faults.sh: an
#   oops, BUG, lockup, RCU stall, hung task or WARNING; qemu is stopped at the first one, its
#   trace printed); 122 the console fell silent for KPT_VM_SILENCE s (120; a frozen guest);
#   123 the kernel died (a fault or not) before the guest script started; 124 on timeout;
#   125 if the guest never reported an rc.
# Full console log: --log FILE, else .output/vm/<kernel>.log (one per kernel: boots that run
# side by side each need their own --log). Guest output is also streamed to stdout.
# KPT_VM_TCG=single|multi (single): qemu's TCG threads, -accel tcg,thread=...: one host thread
#   for all vCPUs, or one each. Under multi the guest kernel's own text patching (static
#   calls, jump labels, ftrace) oopses now and then with an int3 at the patched site, with
#   no kptrace at all: tests/vm/tcg-stress.sh reproduces it in under a minute.
# KPT_VM_BOOT_RETRY=1 (the default; test.sh sets 0 and decides itself): a kernel that dies
#   before the guest script starts is booted once more.
# KPT_VM_ARCH=arm64: Debian's arm64 kernel in qemu-system-aarch64 with an arm64 busybox
# (extracted from its .deb by vmlinux/arm64-debs.sh); logs in .output/vm/arm64/.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
VM_ARCH=${KPT_VM_ARCH:-x86}
TCG=${KPT_VM_TCG:-single}
SILENCE=${KPT_VM_SILENCE:-120}
[[ $TCG == single || $TCG == multi ]] || { echo "run.sh: error: KPT_VM_TCG must be single or multi" >&2; exit 2; }
[[ $SILENCE =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: error: KPT_VM_SILENCE must be whole seconds" >&2; exit 2; }
# shellcheck source=tests/vm/faults.sh
. "$ROOT/tests/vm/faults.sh"
die() { echo "run.sh: error: $*" >&2; exit 2; }
# What differs by architecture: where its kernels and logs are, qemu, the console, busybox.
case $VM_ARCH in
  x86)
    OUTDIR="$ROOT/.output/vm" QEMU=qemu-system-x86_64 CONSOLE=ttyS0 QEMU_PKG=qemu-system-x86
    QEMU_MACHINE=(-accel "tcg,thread=$TCG" -cpu max) ;;
  arm64)
    # pauth-impdef: plain -cpu max emulates QARMA5 pointer authentication, 3-4x slower
    OUTDIR="$ROOT/.output/vm/arm64" QEMU=qemu-system-aarch64 CONSOLE=ttyAMA0 QEMU_PKG=qemu-system-arm
    # shellcheck disable=SC2054  # the commas are qemu's, inside one option
    QEMU_MACHINE=(-machine virt -cpu max,pauth-impdef=on -accel "tcg,thread=$TCG") ;;
  *) die "KPT_VM_ARCH must be x86 or arm64" ;;
esac

KERNEL='' SCRIPT='' LOG='' TIMEOUT=180 APPEND='' SMP=2 MEM=1024 ADDS=() MODS=()
while (($#)); do
  case "$1" in
    --kernel)  KERNEL=${2:?--kernel needs a value}; shift 2 ;;
    --script)  SCRIPT=${2:?--script needs a value}; shift 2 ;;
    --add)     ADDS+=("${2:?--add needs a value}"); shift 2 ;;
    --module)  MODS+=("${2:?--module needs a value}"); shift 2 ;;
    --timeout) TIMEOUT=${2:?--timeout needs a value}; shift 2 ;;
    --append)  APPEND=${2?--append needs a value}; shift 2 ;;
    --smp)     SMP=${2:?--smp needs a value}; shift 2 ;;
    --mem)     MEM=${2:?--mem needs a value}; shift 2 ;;
    --log)     LOG=${2:?--log needs a value}; shift 2 ;;
    -h|--help) sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
[[ $KERNEL == 5.10 || $KERNEL == 6.1 || $KERNEL == 6.12 ]] || die "--kernel must be 5.10, 6.1 or 6.12"
[[ -f $SCRIPT ]] || die "--script '$SCRIPT' is not a file"
[[ $TIMEOUT =~ ^[0-9]+$ ]] || die "--timeout must be whole seconds"
[[ $SMP =~ ^[1-9][0-9]*$ ]] || die "--smp must be a CPU count"
[[ $MEM =~ ^[1-9][0-9]*$ ]] || die "--mem must be whole MB"
for t in "$QEMU" busybox cpio gzip timeout; do
  command -v "$t" >/dev/null || die "$t not found (apt-get install -y --no-install-recommends $QEMU_PKG busybox-static cpio)"
done

mkdir -p "$OUTDIR"
# arm64's busybox first: vmlinux/arm64-debs.sh also makes apt know arm64, which
# kernels.sh needs to find its kernels
if [[ $VM_ARCH == arm64 ]]; then
  "$ROOT/vmlinux/arm64-debs.sh" "$ROOT/.output/arm64/busybox" busybox-static >&2 ||
    die "cannot extract busybox-static:arm64"
fi
KDIR="$OUTDIR/kernels/$KERNEL"
[[ -f $KDIR/vmlinuz ]] || "$ROOT/tests/vm/kernels.sh" "$KERNEL" >&2   # idempotent, apt only; keep stdout = guest output
KREL=$(cat "$KDIR/version")

WORK=$(mktemp -d "$OUTDIR/run-$KERNEL.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
R="$WORK/root"
mkdir -p "$R"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,etc,root,lib/modules}

# busybox must be static: the initramfs has no libc of its own. Its applets: the
# host's busybox lists them (the same Debian version as the arm64 one).
if [[ $VM_ARCH == arm64 ]]; then
  BB="$ROOT/.output/arm64/busybox/bin/busybox"
else
  BB=$(readlink -f "$(command -v busybox)")
  ldd "$BB" >/dev/null 2>&1 && die "$BB is dynamically linked; install busybox-static"
fi
cp "$BB" "$R/bin/busybox"
for a in $(busybox --list-full); do [[ -e $R/$a ]] || ln -s /bin/busybox "$R/$a"; done

cp "$SCRIPT" "$R/test.sh" && chmod 755 "$R/test.sh"

# Copy a host file into the guest; for dynamic ELF binaries also their libs + loader,
# at the same paths, so e.g. a kptrace linked against libbpf/libelf/libz just runs.
copy_libs() {
  local libs
  libs=$(ldd "$1" 2>/dev/null | grep -o '/[^ ]*') || return 0   # not a dynamic ELF
  for lib in $libs; do
    [[ -e $R$lib ]] || { mkdir -p "$R$(dirname "$lib")"; cp -L "$lib" "$R$lib"; }
  done
}
for spec in "${ADDS[@]}"; do
  src=${spec%%:*}; dst=${spec#*:}; [[ $spec == *:* ]] || dst="/$(basename "$src")"
  [[ -e $src ]] || die "--add '$src' does not exist"
  mkdir -p "$R$(dirname "$dst")"
  cp -a "$src" "$R$dst"
  if [[ -f $src ]]; then copy_libs "$src"; fi
done

# Modules: resolve deps from modules.dep (made by kernels.sh), decompress on the host
# (6.12 ships .ko.xz, which busybox insmod can't read), load deps-first in /init.
mdir="$KDIR/lib/modules/$KREL"
add_module() {  # $1 = path relative to $mdir, e.g. kernel/fs/overlayfs/overlay.ko.xz
  local rel=$1 base dep
  base=$(basename "${rel%.xz}"); base=${base%.zst}
  grep -qxF "$base" "$R/etc/modules" 2>/dev/null && return 0
  # shellcheck disable=SC2013  # modules.dep deps are space-separated words on one line
  for dep in $(awk -F': *' -v m="$rel" '$1 == m {print $2}' "$mdir/modules.dep"); do
    add_module "$dep"
  done
  case $rel in
    *.xz)  xz -dc "$mdir/$rel" ;;
    *.zst) zstd -qdc "$mdir/$rel" ;;
    *)     cat "$mdir/$rel" ;;
  esac >"$R/lib/modules/$base"
  echo "$base" >>"$R/etc/modules"
}
for m in "${MODS[@]}"; do
  want=${m//-/_}
  rel=$(awk -F: -v w="$want" '{n=$1; sub(/.*\//,"",n); sub(/\.ko.*/,"",n); gsub(/-/,"_",n); if (n==w) {print $1; exit}}' "$mdir/modules.dep")
  [[ -n $rel ]] || die "module '$m' not found for $KREL (built in, or misspelt?)"
  add_module "$rel"
done
touch "$R/etc/modules"

# libbpf (__kconfig externs) and bpftool look for /boot/config-$(uname -r); CONFIG_IKCONFIG is off.
mkdir -p "$R/boot" && cp "$KDIR/config" "$R/boot/config-$KREL"

echo kptrace-vm >"$R/etc/hostname"
echo 'root:x:0:0:root:/root:/bin/sh' >"$R/etc/passwd"
echo 'root:x:0:' >"$R/etc/group"

cat >"$R/init" <<'EOF'
#!/bin/sh
# PID 1. No set -e: a failed mount should be reported, not kill init (= kernel panic).
export PATH=/usr/local/sbin:/usr/local/bin:/sbin:/bin:/usr/sbin:/usr/bin HOME=/root
# CONFIG_DEVTMPFS_MOUNT is off and the cpio has no /dev/console, so the kernel couldn't give us
# a console: mount devtmpfs first, then point stdio at it.
mount -t devtmpfs devtmpfs /dev
exec </dev/console >/dev/console 2>&1
m() { mkdir -p "$3"; mount -t "$1" "$2" "$3" || echo "init: warning: mount -t $1 $3 failed"; }
m proc proc /proc
m sysfs sysfs /sys
m tracefs tracefs /sys/kernel/tracing
m debugfs debugfs /sys/kernel/debug          # kprobes/blacklist, kprobes/list
m securityfs securityfs /sys/kernel/security # lockdown state
m bpf bpffs /sys/fs/bpf
m cgroup2 cgroup2 /sys/fs/cgroup
m tmpfs tmpfs /tmp
m devpts devpts /dev/pts
hostname -F /etc/hostname
for mod in $(cat /etc/modules); do insmod "/lib/modules/$mod" || echo "init: warning: insmod $mod failed"; done
ulimit -l unlimited   # pre-5.11-style memlock accounting must not limit BPF maps
echo KPTRACE-VM-START
cd /
sh /test.sh
echo "KPTRACE-VM-EXIT=$?"
poweroff -f
EOF
chmod 755 "$R/init"

INITRD="$WORK/initrd.gz"
(cd "$R" && find . -print0 | cpio --null -o -H newc -R 0:0 --quiet) | gzip -1 >"$INITRD"

LOG=${LOG:-$OUTDIR/$KERNEL.log}
# Stream only what the guest prints after init starts the test (hides SeaBIOS/escape-code
# noise), but always show qemu errors and kernel panics/oopses. The log keeps everything.
filter() {
  tr -d '\r' | sed -u 's/\x1b\[[0-9;?]*[a-zA-Z]//g; s/\x1bc//g' | awk '
    # markers may be glued to preceding text (BIOS output, a script without final newline)
    /KPTRACE-VM-START$/ { on = 1; next }
    match($0, /KPTRACE-VM-EXIT=[0-9]+$/) {
      if (on && RSTART > 1) print substr($0, 1, RSTART - 1)
      print substr($0, RSTART); on = 0; fflush(); next }
    on || /^qemu-system|Kernel panic|BUG:|Oops/ { print; fflush() }'
}
# Faults reach the console as they happen: loglevel=5 lets through what the kernel prints at
# KERN_WARNING and above (a WARNING's splat, RCU stalls, hung tasks, lockups, oopses, and the
# registers and call traces at the default level 4); printk.time=1 stamps each kernel line,
# which is how tests/vm/faults.sh tells them from the guest's own. Each kind then panics
# (panic_on_warn, softlockup_panic, hung_task_panic, oops=panic, panic_on_rcu_stall): the
# guest stops at its first fault, its trace on the console. panic=-1 + -no-reboot turn a
# panic into a qemu exit instead of a hang; -net none skips the iPXE ROM.
CMDLINE="console=$CONSOLE panic=-1 quiet loglevel=5 printk.time=1 panic_on_warn=1 softlockup_panic=1"
CMDLINE+=" hung_task_panic=1 oops=panic sysctl.kernel.panic_on_rcu_stall=1 rdinit=/init"
# x86: the IO-APIC timer check counts timer ticks in a delay loop at boot; a
# TCG guest starved of its host CPU (the VM suites run niced beside the
# host suites) misses them and panics "IO-APIC + timer doesn't work!"
# before anything of ours runs. Cloud images boot with it off for that.
[[ $CONSOLE != ttyS0 ]] || CMDLINE+=" no_timer_check"
# x86: the guest's TSC is the host's own (TCG reads it with rdtsc), but the guest measures
# its rate against the emulated PIT, and one starved of its host CPU measured 276 MHz for
# the host's 2596: its clock ran 9.4 times fast until the clocksource watchdog caught it,
# and RCU took its own kthread's wait, 24 s of that clock, for a stall. tsc_early_khz= gives
# it the rate the host kernel uses (its log's; only when its clocksource is the TSC); the
# guest still refines it against its HPET.
host_tsc_khz() {
  [[ $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null) == tsc ]] || return 0
  dmesg 2>/dev/null | sed -n 's/.*tsc: \(Refined TSC clocksource calibration: \|Detected \)\([0-9]*\)\.\([0-9][0-9][0-9]\) MHz.*/\2\3/p' | tail -n 1
}
if [[ $CONSOLE == ttyS0 ]]; then
  TSC_KHZ=$(host_tsc_khz)
  [[ -z $TSC_KHZ ]] || CMDLINE+=" tsc_early_khz=$TSC_KHZ"
fi
CMDLINE+=" $APPEND"

QPID=''
# timeout(1) leads a process group of its own, qemu in it: the group goes down with run.sh
trap 'rm -rf "$WORK"; [[ -z $QPID ]] || kill -KILL -- "-$QPID" 2>/dev/null' EXIT
trap 'exit 143' TERM INT

# boot_once: one qemu run, its console in $LOG and (filtered) on stdout. Watches the console
# while it runs: stops qemu a few seconds after the kernel's first fault line (once the trace
# has reached the console: 3 s without a new byte, 20 s at most) or after SILENCE seconds
# without a byte. Sets QRC (qemu's exit, 124 its timeout) and WHY (fault, silent or empty).
boot_once() {
  local size last=-1 now quiet_since fault_at='' tpid
  set +e
  : >"$LOG"
  timeout -k 10 "$TIMEOUT" "$QEMU" "${QEMU_MACHINE[@]}" -m "$MEM" -smp "$SMP" \
    -nographic -no-reboot -net none \
    -kernel "$KDIR/vmlinuz" -initrd "$INITRD" -append "$CMDLINE" </dev/null >"$LOG" 2>&1 &
  QPID=$!
  tail -n +1 -s 0.2 -f --pid="$QPID" "$LOG" | filter &
  tpid=$!
  WHY='' LONGEST=0 quiet_since=$(date +%s)
  while kill -0 "$QPID" 2>/dev/null; do
    sleep 1
    now=$(date +%s) size=$(stat -c %s "$LOG")
    if ((size != last)); then
      ((now - quiet_since > LONGEST)) && LONGEST=$((now - quiet_since))
      last=$size quiet_since=$now
    fi
    if [[ -z $fault_at ]] && grep -aqE "$KPT_FAULT_RE" "$LOG"; then
      fault_at=$now
      echo "run.sh: FAULT: the guest kernel reported '$(kpt_fault_first "$LOG" | cut -c1-160)'" \
        "after $((now - start))s; stopping qemu once its trace is out" >&2
    fi
    if [[ -n $fault_at ]] && ((now - quiet_since >= 3 || now - fault_at >= 20)); then
      WHY=fault; break
    fi
    if ((now - quiet_since >= SILENCE)); then
      WHY=silent; break
    fi
  done
  [[ -z $WHY ]] || kill -TERM "$QPID" 2>/dev/null
  wait "$QPID"
  QRC=$?
  QPID=''
  wait "$tpid" 2>/dev/null
  # a fault that came in the last second of the boot (a panic ends qemu at once)
  [[ -n $WHY ]] || ! grep -aqE "$KPT_FAULT_RE" "$LOG" || WHY=fault
  set -e
}

start=$(date +%s)
# A boot that dies before /init starts the script (seen now and then under TCG with one
# host thread per vCPU: an int3 of the kernel's own text patching, taken as an oops during
# the initcalls) ran nothing of ours: with KPT_VM_BOOT_RETRY=1, boot once more, saying so.
# A crash or a hang after the script started is the test's result and is never retried.
for boot in 1 2; do
  boot_once
  [[ $WHY == silent ]] && break
  ((QRC == 124 || QRC == 137)) && break
  grep -aq 'KPTRACE-VM-START' "$LOG" && break
  ((boot == 2)) || [[ ${KPT_VM_BOOT_RETRY:-1} != 1 ]] && break
  cp "$LOG" "$LOG.boot$boot"
  echo "run.sh: WARNING: the kernel died before the guest script started (qemu rc=$QRC;" \
    "console: $LOG.boot$boot); booting again" >&2
  tr -d '\r' <"$LOG" | grep -a -m1 -E "$KPT_FAULT_RE|Kernel panic" >&2 || true
done
secs=$(($(date +%s) - start))

tail_log() { echo "---- last 30 console lines ($LOG) ----" >&2; tr -d '\r' <"$LOG" | sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g; s/\x1bc//g' | tail -n 30 >&2; }
if [[ $WHY == fault ]]; then
  echo "run.sh: FAULT: kernel $KERNEL ($(kpt_fault_class "$(kpt_fault_first "$LOG")") at" \
    "$(kpt_fault_site "$LOG")) after ${secs}s: '$(kpt_fault_first "$LOG" | cut -c1-160)'" >&2
  tail_log
  grep -aq 'KPTRACE-VM-START' "$LOG" && exit 121
  echo "run.sh: FAIL: the kernel died before the guest script started" >&2
  exit 123
fi
if [[ $WHY == silent ]]; then
  echo "run.sh: SILENT: the guest's console printed nothing for ${SILENCE}s (kernel $KERNEL," \
    "after ${secs}s): a frozen guest; qemu stopped" >&2
  tail_log; exit 122
fi
if ((QRC == 124 || QRC == 137)); then
  echo "run.sh: TIMEOUT: guest did not finish within ${TIMEOUT}s (kernel $KERNEL)" >&2
  tail_log; exit 124
fi
if ! grep -aq 'KPTRACE-VM-START' "$LOG"; then
  echo "run.sh: FAIL: the kernel died before the guest script started (qemu rc=$QRC)" >&2
  tail_log; exit 123
fi
rc=$(tr -d '\r' <"$LOG" | sed -n 's/.*KPTRACE-VM-EXIT=\([0-9]*\)$/\1/p' | tail -n1)
if [[ -z $rc ]]; then
  echo "run.sh: FAIL: guest never printed KPTRACE-VM-EXIT (qemu rc=$QRC; panic or init crash?)" >&2
  tail_log; exit 125
fi
echo "run.sh: kernel $KREL: guest script exit $rc, boot+run ${secs}s (tcg thread=$TCG," \
  "longest console silence ${LONGEST}s)" >&2
exit "$rc"
