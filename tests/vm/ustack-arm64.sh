#!/bin/sh
# Guest script (busybox sh, arm64) for issue 38: user stacks through code
# without frame pointers, unwound from the binary's own .eh_frame in BPF
# (bpf/unwind.bpf.h). /uw2 is tests/host/unwind_target.c built -O2
# -fomit-frame-pointer -static, /uw2p the same with -mbranch-protection=
# standard (return addresses signed on the stack where the CPU has pointer
# authentication); tests/vm/test.sh adds each with its reference, the call
# chains aarch64 objdump's call sites give (tests/vm/arm64-chains.py
# --regex: uw_tail's tail call leaves no frame, main calls uw_outer from
# two sites). At uw_leaf (frameless: its return address in the link
# register) and uw_middle's first instruction, -U's stacks to main are
# objdump's, none cut short, and --folded's names from main are counted.
KREL=$(uname -r)
. /guest-lib.sh
W=/tmp/kpt-ustack-arm64
mkdir -p $W
# the walk takes bpf_loop() and bpf_find_vma() (5.17): without them (5.10)
# kptrace must say at start that it walks by frame pointers only, and why
if ! grep -q BPF_FUNC_find_vma /sys/kernel/btf/vmlinux; then
	echo "# expect 1 ok"
	kpt -U -c "/uw2 1 rare" "p:/uw2:uw_leaf" > $W/gate.out 2> $W/gate.err
	if grep -q "walked by frame pointers only.*is the main BPF object's, and this kernel has no bpf_loop() (Linux 5.17)" $W/gate.err; then
		ok "version-gated: no bpf_find_vma() in this kernel's BTF: -U says it walks by frame pointers only, naming bpf_loop() and bpf_find_vma()"
	else
		bad "no bpf_find_vma() here, and -U did not say it walks by frame pointers only: $(head -c 300 $W/gate.err)"
	fi
	exit 0
fi
echo "# expect 6 ok"
# the CPU's pointer authentication, as the kernel gives it to user space
PAC="no pointer authentication on this CPU (no paca in /proc/cpuinfo): return addresses unsigned"
grep -q '^Features.* paca' /proc/cpuinfo && PAC="return addresses signed (paca in /proc/cpuinfo)"

# match GOT WANT: every stack of GOT ("frame frame...") is one of WANT's
# patterns, each pattern is some stack's, and there are as many of each
match() {
	[ -s "$2" ] && [ "$(grep -c . "$1")" = "$(grep -c . "$2")" ] &&
		! grep -vxEf "$2" "$1" > /dev/null || return 1
	while read -r p; do
		grep -qxE "$p" "$1" || return 1
	done < "$2"
}

for b in uw2 uw2p; do
	if [ ! -x /$b ] || [ ! -s /$b.want ]; then
		bad "no /$b or /$b.want (tests/vm/test.sh adds them): no arm64 stacks without frame pointers"
		continue
	fi
	what="-O2 -fomit-frame-pointer"
	[ $b = uw2p ] && what="$what -mbranch-protection=standard, $PAC"
	for fn in uw_leaf uw_middle; do
		kpt -U -c "/$b 1 rare" "p:/$b:$fn" > $W/$b-$fn.out 2> $W/$b-$fn.err
		ustacks $W/$b-$fn.out | tr '|' ' ' | sort > $W/$b-$fn.got
		grep "^$fn " /$b.want | cut -d' ' -f2- > $W/$b-$fn.want
		if match $W/$b-$fn.got $W/$b-$fn.want; then
			ok "-U at $fn of $b ($what): objdump's call chains to main ($(tail -n 1 $W/$b-$fn.got))"
		else
			bad "-U at $fn of $b ($what): want $(tr '\n' ',' < $W/$b-$fn.want) got $(tr '\n' ',' < $W/$b-$fn.got) $(head -c 300 $W/$b-$fn.err)"
		fi
	done
	kpt count --by ustack --folded -c "/$b 2 rare" "p:/$b:uw_leaf" > $W/$b-f.out 2> $W/$b-f.err
	sed 's/^.*;main;/main;/' $W/$b-f.out | sort > $W/$b-f.got
	sed -n 's/^folded //p' /$b.want | sort > $W/$b-f.want
	if [ -s $W/$b-f.want ] && cmp -s $W/$b-f.want $W/$b-f.got && ! grep -q 'cut short' $W/$b-f.out; then
		ok "count --by ustack --folded at uw_leaf of $b ($what): $(tr '\n' ',' < $W/$b-f.got)"
	else
		bad "--folded at uw_leaf of $b ($what): want $(tr '\n' ',' < $W/$b-f.want) got $(tr '\n' ',' < $W/$b-f.out) $(head -c 300 $W/$b-f.err)"
	fi
done
