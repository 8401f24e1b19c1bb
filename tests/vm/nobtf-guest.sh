#!/bin/sh
# Guest script (busybox sh), issue 41: kprobes on a kernel whose BTF is
# hidden from kptrace (a mount namespace of its own, /dev/null bound over
# /sys/kernel/btf/vmlinux; the kernel's kprobe_events keeps its own). With
# --btf and the BTF copied first, BTF arguments attach through kprobes (not
# fentry: no BTF ids) and read what the kernel's kprobe_events reads at the
# same calls, dd's 3 one-byte reads; with none, the register form does, and
# the name is refused with the fix. Prints "ok - ..." / "FAIL - ...".
T=/sys/kernel/tracing
W=/tmp/kpt-nobtf
mkdir -p $W
KREL=$(uname -r)
echo "# kernel $KREL"
echo "# expect 6 ok"
ok() { echo "ok - $KREL: $*"; }
bad() { echo "FAIL - $KREL: $*"; }
[ -e $T/kprobe_events ] || mount -t tracefs nodev $T

cp /sys/kernel/btf/vmlinux $W/vmlinux.btf
cat > $W/hide <<'SH'
#!/bin/sh
mount --bind /dev/null /sys/kernel/btf/vmlinux || exit 97
exec "$@"
SH
chmod +x $W/hide
HIDDEN="timeout -s KILL 120 unshare -m $W/hide /bin/kptrace"
if unshare -m $W/hide sh -c '[ ! -s /sys/kernel/btf/vmlinux ]' && [ -s /sys/kernel/btf/vmlinux ]; then
	ok "the BTF hidden in kptrace's mount namespace only"
else
	bad "unshare -m and a bind mount do not hide /sys/kernel/btf/vmlinux"
fi

# a member through BTF where the kernel's kprobe_events takes one (6.5+)
KARGS='count=%dx:u64'
BARGS='count=count'
if echo 'p:kpt/probe vfs_read file->f_flags' >> $T/kprobe_events 2>/dev/null; then
	echo '-:kpt/probe' >> $T/kprobe_events
	KARGS="$KARGS flags=file->f_flags:x32"
	BARGS="$BARGS flags=file->f_flags:x32"
fi
echo "# the kernel's: $KARGS; kptrace's: $BARGS"

$HIDDEN --dry-run --btf $W/vmlinux.btf "p:vfs_read $BARGS" > $W/dry 2>&1
grep -q '^attach: kprobe' $W/dry && grep -q '^not fentry: .*BTF ids' $W/dry &&
	ok "--btf: kprobes, not fentry, the kernel's BTF ids named" ||
	{ bad "--btf: not kprobes with the reason"; sed 's/^/#   /' $W/dry | head -8; }

# both of kptrace's runs under the kernel's own events: their lines by pid
echo "p:kpt/nb vfs_read $KARGS" >> $T/kprobe_events
echo "p:kpt/nr vfs_read count=%dx:u64" >> $T/kprobe_events
echo > $T/trace
for e in nb nr; do
	echo 'count == 1 && comm == "dd"' > $T/events/kpt/$e/filter
	echo 1 > $T/events/kpt/$e/enable
done
DD="dd if=/dev/zero of=/dev/null bs=1 count=3"
$HIDDEN --btf $W/vmlinux.btf -c "$DD" --filter 'count == 1' "p:kptb/nb vfs_read $BARGS" \
	> $W/nb.out 2> $W/nb.err
$HIDDEN -c "$DD" --filter 'count == 1' 'p:kptb/nr vfs_read count=%dx:u64' > $W/nr.out 2> $W/nr.err
for e in nb nr; do
	echo 0 > $T/events/kpt/$e/enable
done
cp $T/trace $W/ftrace
echo '-:kpt/nb' >> $T/kprobe_events
echo '-:kpt/nr' >> $T/kprobe_events
# "dd-PID (vfs_read+OFF/SIZE) count=1 ..." of event $2's dd reads
lines() {
	sed -n "s/^ *\(dd-[0-9]*\) .* $2: \((.*\)\$/\1 \2/p" $1 | sort
}
for e in nb nr; do
	P=$(lines $W/$e.out $e | head -n 1 | cut -d' ' -f1)
	GOT=$(lines $W/$e.out $e)
	WANT=$(lines $W/ftrace $e | grep "^$P ")
	what="--btf, p:vfs_read $BARGS"
	[ $e = nr ] && what="no BTF, p:vfs_read count=%dx:u64"
	if [ -n "$P" ] && [ "$(echo "$WANT" | grep -c .)" = 3 ] && [ "$GOT" = "$WANT" ]; then
		ok "$what: dd's 3 reads as the kernel's kprobe_events printed them"
	else
		bad "$what: '$(echo $GOT)', the kernel's '$(echo $WANT)'"
		sed 's/^/#   /' $W/$e.err | head -5
	fi
done

$HIDDEN --dry-run 'p:vfs_read count=count' > $W/none 2>&1
grep -q 'needs the kernel.s BTF' $W/none && grep -q -- '--btf FILE' $W/none &&
	grep -q 'CONFIG_DEBUG_INFO_BTF' $W/none &&
	ok "no BTF: count=count refused, the fix named" ||
	{ bad "no BTF: count=count not refused with the fix"; sed 's/^/#   /' $W/none | head -4; }
$HIDDEN --dry-run --btf $W/vmlinux.btf --backend fentry 'p:vfs_read count=count' > $W/fentry 2>&1
grep -q -- '--backend fentry: .*BTF ids' $W/fentry &&
	ok "--btf --backend fentry: refused, the kernel's BTF ids named" ||
	{ bad "--btf --backend fentry: not refused"; sed 's/^/#   /' $W/fentry | head -4; }
rm -f $W/vmlinux.btf
