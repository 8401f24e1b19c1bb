#!/usr/bin/env bash
# Boot a Debian cloud kernel in qemu (TCG: no KVM here) with a throwaway busybox initramfs,
# run one guest script as root, and exit with that script's exit code.
#
# usage: tests/vm/run.sh --kernel 6.1|6.12 --script GUEST_SCRIPT
#          [--add HOSTPATH[:GUESTPATH]]...  (GUESTPATH defaults to /<basename>; dynamically
#                                            linked ELF files get their shared libs copied too)
#          [--module NAME]...               (load kernel module NAME + deps before the script;
#                                            none are needed for tracing/BPF: all built in)
#          [--timeout SECS (180)] [--append 'extra kernel cmdline'] [--smp N (2)]
#          [--mem MB (1024)]
# exit: guest script's rc; 124 on timeout; 125 if the guest never reported an rc (panic...).
# Full console log: .output/vm/<kernel>.log. Guest output is also streamed to stdout.
# KPT_VM_ARCH=arm64: Debian's arm64 kernel in qemu-system-aarch64 with an arm64 busybox
# (extracted from its .deb by vmlinux/arm64-debs.sh); logs in .output/vm/arm64/.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
VM_ARCH=${KPT_VM_ARCH:-x86}
die() { echo "run.sh: error: $*" >&2; exit 2; }
# What differs by architecture: where its kernels and logs are, qemu, the console, busybox.
case $VM_ARCH in
  x86)
    OUTDIR="$ROOT/.output/vm" QEMU=qemu-system-x86_64 CONSOLE=ttyS0 QEMU_PKG=qemu-system-x86
    QEMU_MACHINE=(-accel tcg -cpu max) ;;
  arm64)
    # pauth-impdef: plain -cpu max emulates QARMA5 pointer authentication, 3-4x slower
    OUTDIR="$ROOT/.output/vm/arm64" QEMU=qemu-system-aarch64 CONSOLE=ttyAMA0 QEMU_PKG=qemu-system-arm
    # shellcheck disable=SC2054  # the commas are qemu's, inside one option
    QEMU_MACHINE=(-machine virt -cpu max,pauth-impdef=on -accel tcg,thread=multi) ;;
  *) die "KPT_VM_ARCH must be x86 or arm64" ;;
esac

KERNEL='' SCRIPT='' TIMEOUT=180 APPEND='' SMP=2 MEM=1024 ADDS=() MODS=()
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
    -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
[[ $KERNEL == 6.1 || $KERNEL == 6.12 ]] || die "--kernel must be 6.1 or 6.12"
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

LOG="$OUTDIR/$KERNEL.log"
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
# loglevel=1 keeps printk off the console (tests can still read dmesg); panic=-1 + -no-reboot
# turn a panic into a qemu exit instead of a hang; -net none skips the iPXE ROM.
CMDLINE="console=$CONSOLE panic=-1 quiet loglevel=1 rdinit=/init $APPEND"
start=$(date +%s)
# A boot that dies before /init starts the script (seen once in a while under
# TCG: an int3 of the kernel's own text patching, taken as an oops during the
# initcalls) ran nothing of ours: boot once more, saying so. A crash or a hang
# after the script started is the test's result and is never retried.
for boot in 1 2; do
  set +e
  timeout -k 10 "$TIMEOUT" "$QEMU" "${QEMU_MACHINE[@]}" -m "$MEM" -smp "$SMP" \
    -nographic -no-reboot -net none \
    -kernel "$KDIR/vmlinuz" -initrd "$INITRD" -append "$CMDLINE" </dev/null 2>&1 |
    tee "$LOG" | filter
  qrc=${PIPESTATUS[0]}
  set -e
  ((qrc == 124 || qrc == 137)) && break
  grep -q 'KPTRACE-VM-START' "$LOG" && break
  ((boot == 2)) && break
  cp "$LOG" "$LOG.boot$boot"
  echo "run.sh: WARNING: the kernel died before the guest script started (qemu rc=$qrc;" \
    "console: $LOG.boot$boot); booting again" >&2
  tr -d '\r' <"$LOG" | grep -m1 -E 'Oops|Kernel panic|BUG:' >&2 || true
done
secs=$(($(date +%s) - start))

tail_log() { echo "---- last 30 console lines ($LOG) ----" >&2; tr -d '\r' <"$LOG" | sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g; s/\x1bc//g' | tail -n 30 >&2; }
if ((qrc == 124 || qrc == 137)); then
  echo "run.sh: TIMEOUT: guest did not finish within ${TIMEOUT}s (kernel $KERNEL)" >&2
  tail_log; exit 124
fi
rc=$(tr -d '\r' <"$LOG" | sed -n 's/.*KPTRACE-VM-EXIT=\([0-9]*\)$/\1/p' | tail -n1)
if [[ -z $rc ]]; then
  echo "run.sh: FAIL: guest never printed KPTRACE-VM-EXIT (qemu rc=$qrc; panic or init crash?)" >&2
  tail_log; exit 125
fi
echo "run.sh: kernel $KREL: guest script exit $rc, boot+run ${secs}s" >&2
exit "$rc"
