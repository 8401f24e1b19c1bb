#!/bin/sh
# Guest script (busybox sh) for the arm64 VM, run by guest-arm64.sh from
# /guest.d: USDT's arm64 argument forms on tests/host/usdt_target.c built by
# the arm64 cross compiler (tests/vm/test.sh adds it as /usdt_target), its
# probes fired 3 times with the values the program uses (as
# tests/host/usdt.sh checks them on x86-64): [sp, N] memory, xN and wN
# registers, constants, a probe at two locations, the semaphore raised.
# kpt:global's adrp-relative form is refused, and left out here.
KREL=$(uname -r)
echo "# expect 5 ok"
ok() { echo "ok - $KREL: $*"; }
bad() { echo "FAIL - $KREL: $*"; }
T=/usdt_target
[ -x $T ] || { bad "no $T (tests/vm/test.sh adds it)"; exit 1; }
# All five in one run (without BPF cookies, before 5.15, a program each)
timeout -s KILL 120 /bin/kptrace "u:$T:kpt:mem" "u:$T:kpt:reg" "u:$T:kpt:imm" \
	"u:$T:kpt:twice" "u:$T:kpt:guarded" -c "$T 3" > /tmp/usdt.out 2> /tmp/usdt.err
fields() { sed -n "s/^.* $1: (0x[0-9a-f]*) \(.*\)\$/\1/p" /tmp/usdt.out; }
MEM="arg1=-5 arg2=250 arg3=-300 arg4=60000 arg5=-70000 arg6=4000000000 arg7=-5000000000 arg8=18000000000000000000"
[ "$(fields mem | sort | uniq -c | awk '{ $1 = $1; print }')" = "3 $MEM" ] &&
	ok "usdt kpt:mem ([sp, N], 1-8 bytes, signed and not): the program's 8 values, 3 times" ||
	{ bad "usdt kpt:mem: $(fields mem | head -n 1)"; sed 's/^/#   /' /tmp/usdt.err | head -3; }
WR=$(for i in 0 1 2; do echo "arg1=$i arg2=$((-i)) arg3=$((-100000 - i)) arg4=$(((1 << 40) + i))"; done)
[ "$(fields reg)" = "$WR" ] && ok "usdt kpt:reg (xN, wN): i, -i, -100000-i, 2^40+i" ||
	bad "usdt kpt:reg: $(fields reg | tr '\n' ';')"
[ "$(fields imm | sort | uniq -c | awk '{ $1 = $1; print }')" = "3 arg1=-7 arg2=5" ] &&
	ok "usdt kpt:imm: the constants -7 and 5, 3 times" || bad "usdt kpt:imm: $(fields imm | head -n 1)"
[ "$(fields twice)" = "$(for i in 0 1 2; do echo "arg1=$i"; echo "arg1=$((10 * i))"; done)" ] &&
	ok "usdt kpt:twice: both locations, each its own note's register" ||
	bad "usdt kpt:twice: $(fields twice | tr '\n' ';')"
grep -qx "guarded 3" /tmp/usdt.out && ok "usdt kpt:guarded: the semaphore raised, fired 3 times" ||
	bad "usdt kpt:guarded: $(grep guarded /tmp/usdt.out | tail -n 1)"
