#!/usr/bin/env bash
# Values as a user means them (issue 26): negative values in their own log2
# buckets, through the direct and the generic path; a tracepoint's byte
# arrays read and printed as arrays, as the kernel's own trace buffer shows
# them; an array of string pointers (execve's argv) read up to its NULL; a
# count over many probes as one sorted table. Workloads with values known in
# advance: tests/host/values_target.c.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/lib.sh

KPT=${KPT:-./kptrace}
OUT=.output/tests/host/values
mkdir -p "$OUT"
VT=$(realpath "$OUT")/values_target
# static: the process opens nothing the suite does not know of (no ld.so)
gcc -static -O0 -fno-inline -g tests/host/values_target.c -o "$VT" || { echo "cannot build target"; exit 1; }
[ "$(id -u)" = 0 ] || skip_all "host tests need root (BPF, uprobes, tracepoints)"
TR=/sys/kernel/tracing
[ -e $TR/events ] || TR=/sys/kernel/debug/tracing
[ -e $TR/events ] || skip_all "no tracefs"
expect_checks 46

# py FILE EXPR [ARGS...]: EXPR (Python) over FILE's NDJSON rows is true.
py() {
	local file=$1 expr=$2
	shift 2
	python3 - "$file" "$expr" "$@" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
args = sys.argv[3:]

def slog2_rows(vals):
    """A signed log2 histogram's buckets, the mirror of log2 written out:
    (-2^k, -2^(k-1)] below 0, [0], [2^(k-1), 2^k) above, first to last
    non-empty, empty ones between included."""
    def idx(v):
        return 64 - (-v).bit_length() if v < 0 else 64 + v.bit_length()
    def rng(i):
        if i < 64:
            k = 64 - i
            return max(1 - 2 ** k, -2 ** 63), -2 ** (k - 1)
        k = i - 64
        return (0, 0) if k == 0 else (2 ** (k - 1), 2 ** k - 1)
    c = {}
    for v in vals:
        c[idx(v)] = c.get(idx(v), 0) + 1
    return [{"min": rng(i)[0], "max": rng(i)[1], "count": c.get(i, 0)}
            for i in range(min(c), max(c) + 1)]

def iss_kernel(path):
    """inet_sock_set_state in the kernel's own trace: ports and the
    addresses as the text its print fmt makes (%pI4, %pI6c)."""
    import re
    pat = r"sport=(\d+) dport=(\d+) saddr=(\S+) daddr=(\S+) saddrv6=(\S+) daddrv6=(\S+)"
    return sorted((int(a), int(b), *rest) for a, b, *rest in re.findall(pat, open(path).read()))

def iss_kpt(rows):
    """The same from kptrace's --json rows: the addresses as it writes them."""
    return sorted((x["args"]["sport"], x["args"]["dport"],
                   *(x["args"][f] for f in ("saddr", "daddr", "saddr_v6", "daddr_v6")))
                  for x in rows)

def kernel_table(fmt, field):
    """A tracepoint's __print_symbolic(REC->FIELD, ...) table from its format file."""
    import re
    m = re.search(r"__print_symbolic\(REC->%s, (.*?\})\)" % field, open(fmt).read())
    return {int(v): n for v, n in re.findall(r'\{ (\d+), "([^"]+)" \}', m.group(1))} if m else {}

def keys(rows, a, b):
    """Each count row's key parts a and b, as text."""
    return [(x["key"][a], x["key"][b]) for x in rows if x.get("key")]

def want_hist(vals):
    return {"buckets": slog2_rows(vals), "count": len(vals), "sum": sum(vals),
            "min": min(vals), "max": max(vals), "avg": int(sum(vals) / len(vals))}

sys.exit(0 if eval(sys.argv[2]) else 1)
EOF
}

# jcheck DESC FILE EXPR [ARGS]: py as a check, the file shown on failure.
jcheck() {
	local desc=$1 file=$2
	shift 2
	if py "$file" "$@"; then pass "$desc"; else fail "$desc: $(head -c 700 "$file")"; fi
}

# direct_or_not DEF FIELD: "direct" when --dry-run says hist takes FIELD straight from the context.
direct_or_not() {
	if kpt hist --dry-run "$1" "$2" 2>&1 | grep -q "^hist: $2 taken straight from the context"; then
		echo direct
	else
		echo generic
	fi
}

echo "# 1. negative values: buckets of their own, mirroring the positive side"
# values_target.c's svals, in its order: both ends of s64 and both sides of 0
SVALS="-9223372036854775808 -9223372036854775807 -4611686018427387905 -1025 -1024 -1000 -8 -7 -5
-4 -3 -2 -2 -1 -1 -1 0 0 1 2 3 4 1000 1024 4611686018427387905 9223372036854775807 9223372036854775807"
SV="$VT:kpt_sval"
for path in "p:d $SV v=%di:s64" "p:g $SV v=%di:s64 if v != 5 && v != 6"; do
	want=generic; [ "${path#p:d}" != "$path" ] && want=direct
	got=$(direct_or_not "$path" v)
	kpt hist --json -c "$VT svals" "$path" v > "$OUT/sv-$want.json" 2> "$OUT/sv-$want.err"
	jcheck "hist of s64 values ($want path: $got): every value in its mirrored bucket, sum/min/max/avg exact" \
		"$OUT/sv-$want.json" 'args[0] == args[1] and rows[0]["hist"] == want_hist([int(x) for x in args[2].split()])' \
		"$want" "$got" "$SVALS"
done
check "the direct and the generic path give the same signed histogram" \
	cmp -s "$OUT/sv-direct.json" <(sed 's/"event":"g"/"event":"d"/' "$OUT/sv-generic.json")

# The issue's reproduction, on a process whose opens are known: 7 x -ENOENT,
# 3 x -EISDIR, 2 x fd 3, through the tracepoint (direct) and with a filter.
OPENS="-2 -2 -2 -2 -2 -2 -2 -21 -21 -21 3 3"
TP=syscalls/sys_exit_openat
if [ -e $TR/events/$TP ]; then
	for path in "t:$TP" "t:$TP if ret != 12345 && ret != 12346"; do
		want=generic; [ "$path" = "t:$TP" ] && want=direct
		got=$(direct_or_not "$path" ret)
		kpt hist --json -c "$VT opens" "$path" ret > "$OUT/op-$want.json" 2> "$OUT/op-$want.err"
		jcheck "hist '$path' ret ($want path: $got): -ENOENT x 7 in (-4, -2], -EISDIR x 3 in (-32, -16], fd 3 x 2" \
			"$OUT/op-$want.json" 'args[0] == args[1] and rows[0]["hist"] == want_hist([int(x) for x in args[2].split()])' \
			"$want" "$got" "$OPENS"
	done
	kpt hist -c "$VT opens" "t:$TP" ret > "$OUT/op.txt" 2> "$OUT/op.err"
	check "the text rows: (-32, -16] 3, (-4, -2] 7, [-1] and [0] empty, [2, 4) 2; min -21" \
		bash -c "grep -Eq '^\(-32, -16\] +3 \|' $OUT/op.txt && grep -Eq '^\(-4, -2\] +7 \|' $OUT/op.txt &&
			 grep -Eq '^\[-1\] +0 \|' $OUT/op.txt && grep -Eq '^\[0\] +0 \|' $OUT/op.txt &&
			 grep -Eq '^\[2, 4\) +2 \|' $OUT/op.txt &&
			 grep -q '^count 12, sum -71, avg -5, min -21, max 3$' $OUT/op.txt"
else
	env_fault "no $TP tracepoint"
fi
# an unsigned value keeps log2's rows: no negative row, the same [0] as before
kpt hist --json -c "$VT svals" "p:u $SV v=%di:u8" v > "$OUT/u8.json" 2> "$OUT/u8.err"
jcheck "hist of the same values as u8: log2's buckets, from [0], none negative" "$OUT/u8.json" \
	'[b["min"] for b in rows[0]["hist"]["buckets"]] == [0, 1, 2, 4, 8, 16, 32, 64, 128] and rows[0]["hist"]["count"] == 27'

echo "# 2. a tracepoint's addresses and byte arrays, against the kernel's own trace buffer"
ISS=sock/inet_sock_set_state
if [ -e $TR/events/$ISS ] && [ -d $TR/instances ]; then
	# a port of this run's own: both tracers see only its connection
	PORT=$((20000 + $$ % 20000))
	INST=$TR/instances/kpt-values-$$
	mkdir "$INST"
	echo "sport == $PORT || dport == $PORT" > "$INST/events/$ISS/filter"
	echo 1 > "$INST/events/$ISS/enable"
	if kpt_bg "$OUT/iss.err" --json "t:$ISS sport dport saddr daddr saddr_v6 daddr_v6 if sport == $PORT || dport == $PORT" > "$OUT/iss.json"; then
		"$VT" tcp $PORT || problem "the loopback connection to port $PORT failed"
		# the kernel's own lines are there as soon as the workload is done;
		# kptrace's, once the consumer has read them
		wait_for "[ \$(grep -c '\"event\"' $OUT/iss.json) -ge \$(grep -c inet_sock_set_state $INST/trace) ]" 10
		# SIGINT to kptrace itself: timeout(1) passes a signal on twice (to
		# its child, then to its process group), and a second SIGINT is
		# kptrace's "exit now" (130)
		kill -INT "$KP_KPT"
		kpt_stop 0
	fi
	echo 0 > "$INST/events/$ISS/enable"
	cp "$INST/trace" "$OUT/iss.trace"
	rmdir "$INST"
	jcheck "$ISS: saddr, daddr (__u8[4]) and saddr_v6, daddr_v6 (__u8[16]) the text the kernel's own trace prints for them (%pI4, %pI6c), untyped: issue 19" \
		"$OUT/iss.json" 'len(iss_kernel(args[0])) >= 4 and iss_kernel(args[0]) == iss_kpt(rows)' \
		"$OUT/iss.trace"
	kpt -c "$VT tcp" "t:$ISS saddr daddr:u8[4] daddr_v6:u8[16] sport:u8[2]" > "$OUT/iss.txt" 2> "$OUT/iss-t.err"
	check "$ISS text: saddr=127.0.0.1 (its %pI4), daddr:u8[4] an array as ftrace prints one, daddr_v6:u8[16] 16 elements, sport:u8[2] the field's bytes" \
		grep -Eq "saddr=127\.0\.0\.1 daddr=\{[0-9,]+\} daddr_v6=\{([0-9]+,){15}[0-9]+\} sport=\{[0-9]+,[0-9]+\}$" "$OUT/iss.txt"
	# a filter compares the field as ftrace's event filters do, as a number
	# of its size: 127.0.0.1 is the u32 16777343 (little-endian)
	kpt --json -c "$VT tcp" "t:$ISS daddr" > "$OUT/iss-all.json" 2> "$OUT/iss-all.err"
	kpt count --json -c "$VT tcp" "t:$ISS if daddr == 16777343" > "$OUT/iss-f.json" 2> "$OUT/iss-f.err"
	jcheck "$ISS if daddr == 16777343: the field only a filter reads is ftrace's u32, the events to 127.0.0.1 counted" \
		"$OUT/iss-f.json" '(lambda a: 0 < len([x for x in a if x["args"]["daddr"] == "127.0.0.1"]) < len(a) and rows[0]["count"] == len([x for x in a if x["args"]["daddr"] == "127.0.0.1"]))([__import__("json").loads(l) for l in open(args[0]) if l.strip()])' \
		"$OUT/iss-all.json"
	KPT_RC=error kpt --dry-run "t:$ISS saddr:u8[8]" > /dev/null 2> "$OUT/iss-big.err"
	check "$ISS saddr:u8[8]: refused, the field is 4 bytes" grep -q "field 'saddr' (__u8 saddr\[4\]) is 4 bytes" "$OUT/iss-big.err"
else
	env_fault "no $ISS tracepoint or no tracefs instances"
fi

echo "# 3. execve's argv:ustring[6]: the strings argv points at, up to its NULL"
EXE=syscalls/sys_enter_execve
if [ -e $TR/events/$EXE ]; then
	# the -c child's exec of "values_target exec", then the target's own
	# exec of "values_target exec-done bb '' dddd" (and its NULL)
	kpt --json -c "$VT exec" "t:$EXE argv:ustring[6]" > "$OUT/argv.json" 2> "$OUT/argv.err"
	jcheck "$EXE argv:ustring[6] --json: each exec's argv, up to its NULL, nothing faulted" \
		"$OUT/argv.json" '[x["args"]["argv"] for x in rows] == [[args[0], "exec"], ["values_target", "exec-done", "bb", "", "dddd"]] and not any("faults" in x for x in rows)' "$VT"
	kpt -c "$VT exec" "t:$EXE argv:ustring[6]" > "$OUT/argv.txt" 2> "$OUT/argv-t.err"
	check "$EXE argv:ustring[6] text: argv={\"values_target\",\"exec-done\",\"bb\",\"\",\"dddd\"}" \
		grep -q 'values_target.*: sys_enter_execve: argv={"values_target","exec-done","bb","","dddd"}$' "$OUT/argv.txt"
	# the dereference form keeps ftrace's meaning: six pointers read, the
	# sixth the NULL, a (fault), as ftrace's string fetch of NULL prints it
	kpt -c "$VT exec" "t:$EXE argv=+0(argv):ustring[6]" > "$OUT/argvd.txt" 2> "$OUT/argvd.err"
	check "$EXE +0(argv):ustring[6]: ftrace's six pointers, the NULL one (fault)" \
		grep -q 'values_target.*: sys_enter_execve: argv={"values_target","exec-done","bb","","dddd",(fault)}$' "$OUT/argvd.txt"
	KPT_RC=error kpt --dry-run "t:sched/sched_process_exec filename:string[2]" > /dev/null 2> "$OUT/argv-bad.err"
	check "a string array of a field that is no pointer (__data_loc filename): refused" \
		grep -q "is not a pointer: a string array reads an array of string pointers" "$OUT/argv-bad.err"
else
	env_fault "no $EXE tracepoint"
fi

echo "# 4. values as people read them: ipv4, be16, ipv6, errno, be32 (issue 19)"
# kpt_addr(a, port, v6, err, b), three calls (values_target.c's "addrs"):
# 10.1.2.3 443 2001:db8::1 -2 0xdeadbeef; 127.0.0.1 8080
# ::ffff:192.168.0.7 5 1; 10.1.2.3 443 2001:db8::1 -4096 0
AD="p:a $VT:kpt_addr a=%di:ipv4 port=%si:be16 v6=+0(%dx):ipv6 err=%cx:errno b=%r8:be32"
kpt -c "$VT addrs" "$AD" > "$OUT/ad.txt" 2> "$OUT/ad.err"
sed -n 's/^.*: a: ([^)]*)//p' "$OUT/ad.txt" > "$OUT/ad.got"
printf '%s\n' " a=10.1.2.3 port=443 v6=2001:db8::1 err=-ENOENT b=3735928559" \
	" a=127.0.0.1 port=8080 v6=::ffff:192.168.0.7 err=5 b=1" \
	" a=10.1.2.3 port=443 v6=2001:db8::1 err=-4096 b=0" > "$OUT/ad.want"
check "text: addresses dotted and RFC 5952, ports and be32 in host order, -ENOENT by name, 5 and -4096 (no errno) as numbers" \
	diff -u "$OUT/ad.want" "$OUT/ad.got"
kpt --json -c "$VT addrs" "$AD" > "$OUT/ad.json" 2> "$OUT/ad-j.err"
jcheck "--json: addresses and errno names as strings, numbers as numbers" "$OUT/ad.json" \
	'[x["args"] for x in rows] == [{"a": "10.1.2.3", "port": 443, "v6": "2001:db8::1", "err": "-ENOENT", "b": 3735928559}, {"a": "127.0.0.1", "port": 8080, "v6": "::ffff:192.168.0.7", "err": 5, "b": 1}, {"a": "10.1.2.3", "port": 443, "v6": "2001:db8::1", "err": -4096, "b": 0}]'
kpt count -c "$VT addrs" "$AD if port == 443 && a == 10.1.2.3 && err != -ENOENT" > "$OUT/adf.txt" 2> "$OUT/adf.err"
check "filters: port == 443 (in network order), a == 10.1.2.3, err != -ENOENT: the third call alone counted, 2 filtered" \
	sh -c "grep -Eq '^ +1\$' '$OUT/adf.txt' && grep -Eq '^uprobes/a +3 +0 +0 +0 +2( |\$)' '$OUT/adf.err'"
kpt count -c "$VT addrs" "$AD" --by a,err > "$OUT/adk.txt" 2> "$OUT/adk.err"
check "count --by a,err: the keys as the text prints them" \
	sh -c "grep -Eq '^ +1 +10\.1\.2\.3 +-ENOENT\$' '$OUT/adk.txt' && grep -Eq '^ +1 +127\.0\.0\.1 +5\$' '$OUT/adk.txt' && grep -Eq '^ +1 +10\.1\.2\.3 +-4096\$' '$OUT/adk.txt'"
kpt count -c "$VT addrs" "$AD" --by v6,port > "$OUT/ad6.txt" 2> "$OUT/ad6.err"
kpt --json count -c "$VT addrs" "$AD" --by v6 > "$OUT/ad6.json" 2> "$OUT/ad6j.err"
check "count --by v6,port: an ipv6 key, RFC 5952 in text and a string in --json (2001:db8::1 twice)" \
	sh -c "grep -Eq '^ +2 +2001:db8::1 +443\$' '$OUT/ad6.txt' && grep -Eq '^ +1 +::ffff:192\.168\.0\.7 +8080\$' '$OUT/ad6.txt' &&
		[ \$(grep -c '^ *[0-9]' '$OUT/ad6.txt') = 2 ] &&
		grep -q '\"key\":{\"v6\":\"2001:db8::1\"}' '$OUT/ad6.json'"
if [ -e $TR/events/$TP ]; then
	# 7 x -ENOENT, 3 x -EISDIR, 2 x fd 3 (values_target.c's "opens")
	kpt count -c "$VT opens" "t:$TP ret:errno" --by ret > "$OUT/ope.txt" 2> "$OUT/ope.err"
	check "$TP ret:errno --by ret: 7 -ENOENT, 3 -EISDIR, 2 of fd 3" \
		sh -c "grep -Eq '^ +7 +-ENOENT\$' '$OUT/ope.txt' && grep -Eq '^ +3 +-EISDIR\$' '$OUT/ope.txt' && grep -Eq '^ +2 +3\$' '$OUT/ope.txt'"
else
	env_fault "no $TP tracepoint"
fi
# An errno at the value's own width, -1 in user space the C library's (issue 37)
MM=syscalls/sys_exit_mmap
if [ -e $TR/events/$MM ]; then
	# two maps at 0x7e00c0000000 (its int half negative), one -EINVAL
	kpt count -c "$VT mmaps" "t:$MM ret:errno if ret < 0" --by ret > "$OUT/mm.txt" 2> "$OUT/mm.err"
	check "$MM ret:errno if ret < 0 --by ret: the one -EINVAL, no map's address cut to a negative int" \
		sh -c "grep -Eq '^ +1 +-EINVAL\$' '$OUT/mm.txt' && [ \$(grep -c '^ *[0-9]' '$OUT/mm.txt') = 1 ]"
	kpt -c "$VT mmaps" "t:$MM ret:errno" > "$OUT/mm-s.txt" 2> "$OUT/mm-s.err"
	check "$MM ret:errno in the stream: the maps' address as a long, then -EINVAL" \
		sh -c "[ \$(grep -c ' ret=138541686325248\$' '$OUT/mm-s.txt') = 2 ] && grep -q ' ret=-EINVAL\$' '$OUT/mm-s.txt'"
else
	env_fault "no $MM tracepoint"
fi
ER="r:e $VT:kpt_err r=\$retval:errno"
kpt -c "$VT errs" "$ER" > "$OUT/er.txt" 2> "$OUT/er.err"
sed -n 's/^.*: e: ([^)]*)//p' "$OUT/er.txt" > "$OUT/er.got"
printf '%s\n' " r=-1" " r=-ENOENT" " r=-ENOENT" " r=-4096" " r=3" > "$OUT/er.want"
check "a uretprobe's \$retval:errno: libc's -1 as -1, -2 as -ENOENT, -4096 and 3 numbers" \
	diff -u "$OUT/er.want" "$OUT/er.got"
kpt count -c "$VT addrs" "p:a $VT:kpt_addr e=%cx:s32" --by e > "$OUT/s32k.txt" 2> "$OUT/s32k.err"
check "count --by an s32 key: -4096 and -2 negative, not 4294963200 and 4294967294" \
	sh -c "grep -Eq '^ +1 +-4096\$' '$OUT/s32k.txt' && grep -Eq '^ +1 +-2\$' '$OUT/s32k.txt' && grep -Eq '^ +1 +5\$' '$OUT/s32k.txt'"
kpt count -c "$VT errs" "$ER" --by r > "$OUT/erk.txt" 2> "$OUT/erk.err"
kpt --json -c "$VT errs" "$ER" > "$OUT/er.json" 2> "$OUT/erj.err"
check "the same as count keys and in --json (-1 a number, -ENOENT a string)" \
	sh -c "grep -Eq '^ +1 +-1\$' '$OUT/erk.txt' && grep -Eq '^ +2 +-ENOENT\$' '$OUT/erk.txt' &&
		grep -q '\"r\":-1}' '$OUT/er.json' && grep -q '\"r\":\"-ENOENT\"}' '$OUT/er.json'"
KPT_RC=error kpt --dry-run "$AD if a > 10.1.2.3" > /dev/null 2> "$OUT/ad-r1.err"
check "a > 10.1.2.3: refused, an address compares with == or !=" grep -q "in network order: compare it with == or !=" "$OUT/ad-r1.err"
KPT_RC=error kpt --dry-run "$AD if err == -ENOPE" > /dev/null 2> "$OUT/ad-r2.err"
check "err == -ENOPE: refused, not an errno name, the caret under it" \
	sh -c "grep -q 'Invalid value: -ENOPE: not an errno name' '$OUT/ad-r2.err' && grep -q '^ *\^\$' '$OUT/ad-r2.err'"
KPT_RC=error kpt --dry-run "p:$VT:kpt_addr v=+0(%dx):ipv6[2]" > /dev/null 2> "$OUT/ad-r3.err"
check ":ipv6[2]: refused, ipv6 is one address" grep -q "ipv6 is the 16 bytes of one address" "$OUT/ad-r3.err"

echo "# 5. a tracepoint without fields: the kernel's own line, from its print fmt"
# whole EVENT WORKLOAD...: kptrace's lines of t:EVENT for values_target's
# WORKLOAD against the kernel's own trace of the same event in an instance
# (options/hash-ptr off: %p the address, as kptrace prints it), for the
# workload's pids; "PID EVENT: INFO" on both sides, in order
norm_info() {
	sed -nE 's/^ *.*-([0-9]+) +(\([ 0-9-]+\) +)?\[[0-9]+\] [^ ]+ +[0-9]+\.[0-9]+: ([a-z_0-9]+: .*)$/\1 \3/p'
}
whole() {
	local ev=$1 name=${1//\//_} inst=$TR/instances/kpt-whole-$$ pids
	shift
	if [ ! -e "$TR/events/$ev" ]; then
		env_fault "no $ev tracepoint"
		return
	fi
	mkdir "$inst" || { env_fault "no tracefs instance"; return; }
	echo 0 > "$inst/options/hash-ptr" 2>/dev/null
	echo 1 > "$inst/events/$ev/enable"
	kpt -c "$VT $*" "t:$ev" > "$OUT/w-$name.txt" 2> "$OUT/w-$name.err"
	echo 0 > "$inst/events/$ev/enable"
	cp "$inst/trace" "$OUT/w-$name.trace"
	rmdir "$inst"
	norm_info < "$OUT/w-$name.txt" > "$OUT/w-$name.got"
	pids=$(cut -d' ' -f1 "$OUT/w-$name.got" | sort -u | paste -sd'|')
	norm_info < "$OUT/w-$name.trace" | grep -E "^(${pids:-none}) " > "$OUT/w-$name.want"
	if [ -s "$OUT/w-$name.got" ] && diff -u "$OUT/w-$name.want" "$OUT/w-$name.got" > "$OUT/w-$name.diff"; then
		pass "t:$ev, no fields: $(wc -l < "$OUT/w-$name.got") lines equal the kernel's own ($(head -n 1 "$OUT/w-$name.got" | cut -c1-150))"
	else
		fail "t:$ev, no fields: differs from the kernel's own trace: $(head -n 12 "$OUT/w-$name.diff") $(head -c 300 "$OUT/w-$name.err")"
	fi
}
# flags and symbols (__print_flags of gfp, %pS, %p, a ternary), addresses
# and __print_symbolic (%pI4, %pI6c), __get_str(), a char array. (Not the
# syscalls' events: ftrace prints those its own way, "sys_openat(dfd: ...)",
# not by their print fmt.)
whole kmem/kmalloc tcp
whole sock/inet_sock_set_state tcp
whole sched/sched_process_exec exec
whole sched/sched_process_exit opens
kpt --json -c "$VT tcp" "t:sock/inet_sock_set_state" > "$OUT/w-iss.json" 2> "$OUT/w-iss.err"
jcheck "t:sock/inet_sock_set_state --json, no fields: every field, typed (addresses as text)" "$OUT/w-iss.json" \
	'rows and all(sorted(x["args"]) == sorted(["skaddr", "oldstate", "newstate", "sport", "dport", "family", "protocol", "saddr", "daddr", "saddr_v6", "daddr_v6"]) for x in rows) and any(x["args"]["daddr"] == "127.0.0.1" for x in rows)'

echo "# 6. keys as the kernel names them: a dev_t's MAJOR,MINOR, __print_symbolic()'s names (issue 37)"
# kptrace's count keys against the kernel's own trace buffer of the same
# events over the same time, and the format file's table: each field keyed
# twice, once untyped (named), once :u32 (the number, which a type keeps)
SI=irq/softirq_entry BRQ=block/block_rq_issue
if [ -e $TR/events/$SI ] && [ -e $TR/events/$BRQ ] && [ -e $TR/events/$ISS ] && [ -d $TR/instances ]; then
	PORT=$((20000 + ($$ + 17) % 20000))
	INST=$TR/instances/kpt-keys-$$
	mkdir "$INST"
	echo 4096 > "$INST/buffer_size_kb"
	echo "sport == $PORT || dport == $PORT" > "$INST/events/$ISS/filter"
	for e in $SI $BRQ $ISS; do echo 1 > "$INST/events/$e/enable"; done
	kpt count --json -d 1 "t:$SI vec n=vec:u32" --by vec,n > "$OUT/k-si.json" 2> "$OUT/k-si.err"
	kpt count --json -c "dd if=/dev/zero of=$OUT/k-dd bs=4k count=64 oflag=direct" \
		"t:$BRQ dev d=dev:u32" --by dev,d > "$OUT/k-dev.json" 2> "$OUT/k-dev.err"
	kpt count --json -c "$VT tcp $PORT" \
		"t:$ISS newstate n=newstate:u32 if sport == $PORT || dport == $PORT" --by newstate,n \
		> "$OUT/k-tcp.json" 2> "$OUT/k-tcp.err"
	for e in $SI $BRQ $ISS; do echo 0 > "$INST/events/$e/enable"; done
	cp "$INST/trace" "$OUT/k.trace"
	rmdir "$INST"
	rm -f "$OUT/k-dd"
	jcheck "count --by vec of $SI: each vector by the name the kernel's trace gives it (vec=N [action=NAME])" \
		"$OUT/k-si.json" 'len(keys(rows, "vec", "n")) >= 2 and all("vec=%s [action=%s]" % (n, v) in open(args[0]).read() for v, n in keys(rows, "vec", "n"))' \
		"$OUT/k.trace"
	jcheck "count --by dev of $BRQ: MAJOR,MINOR as the kernel's trace prints the device (dev >> 20, dev & 0xfffff)" \
		"$OUT/k-dev.json" 'keys(rows, "dev", "d") and all("block_rq_issue: %s " % v in open(args[0]).read() and v == "%d,%d" % (int(d) >> 20, int(d) & 0xfffff) for v, d in keys(rows, "dev", "d"))' \
		"$OUT/k.trace"
	jcheck "count --by newstate of $ISS: TCP states by the format file's table, each in the kernel's trace" \
		"$OUT/k-tcp.json" 'len(keys(rows, "newstate", "n")) >= 3 and all(kernel_table(args[0], "newstate").get(int(n)) == v and "newstate=%s" % v in open(args[1]).read() for v, n in keys(rows, "newstate", "n"))' \
		"$TR/events/$ISS/format" "$OUT/k.trace"
	kpt count -c "$VT tcp" "t:$ISS family" --by family > "$OUT/k-fam.txt" 2> "$OUT/k-fam.err"
	check "count --by family, text: AF_INET as the print fmt names it" grep -Eq '^ +[0-9]+  AF_INET$' "$OUT/k-fam.txt"
else
	env_fault "no $SI, $BRQ or $ISS tracepoint, or no tracefs instances"
	expect_checks $((EXPECTED - 4))
fi

echo "# 12. a count over many probes: one table, sorted, the probe a column"
# kpt_cnt_N is called N times (kpt_cnt_0 never); event names of unequal
# lengths, so that alignment shows
CNT=()
for n in 1:one 2:two_two 3:three 5:five_five_five 8:eight 0:zero; do
	CNT+=("p:${n#*:} $VT:kpt_cnt_${n%%:*}")
done
# table FILE EXPR: EXPR over the table's header h (column names with their
# offsets), its rows r (lists of cells) and the title lines before it
table() {
	python3 - "$1" "$2" <<'EOF'
import re, sys
lines = [l.rstrip("\n") for l in open(sys.argv[1]) if l.strip()]
title = [l for l in lines if l.endswith(":")]
body = [l for l in lines if not l.endswith(":")]
hdr = body[0] if body else ""
h = [(m.group(), m.start()) for m in re.finditer(r"\S+", hdr)]
r = [l.split() for l in body[1:]]
def aligned():
    """Every cell starts where its header does; COUNT's end where it ends."""
    for l in body[1:]:
        cells = [(m.group(), m.start(), m.end()) for m in re.finditer(r"\S+", l)]
        if len(cells) != len(h):
            return False
        for (name, hs), (c, cs, ce) in zip(h, cells):
            if (ce != hs + len(name)) if name == "COUNT" else (cs != hs):
                return False
    return True
sys.exit(0 if eval(sys.argv[2]) else 1)
EOF
}
tcheck() {
	local desc=$1 file=$2
	shift 2
	if table "$file" "$@"; then pass "$desc"; else fail "$desc: $(head -c 600 "$file")"; fi
}
kpt count -c "$VT count" "${CNT[@]}" > "$OUT/cnt.txt" 2> "$OUT/cnt.err"
tcheck "count over 6 probes: one table, sorted by count, the probe a column, no row for the probe nothing hit" \
	"$OUT/cnt.txt" 'not title and [n for n, _ in h] == ["COUNT", "probe"] and r == [["8", "uprobes/eight"], ["5", "uprobes/five_five_five"], ["3", "uprobes/three"], ["2", "uprobes/two_two"], ["1", "uprobes/one"]] and aligned()'
kpt count --top 3 -c "$VT count" "${CNT[@]}" > "$OUT/cnt-top.txt" 2> "$OUT/cnt-top.err"
tcheck "count --top 3 over 6 probes: the 3 largest of the whole table" \
	"$OUT/cnt-top.txt" '[c for c, _ in r] == ["8", "5", "3"] and aligned()'
kpt count --zeros -c "$VT count" "${CNT[@]}" > "$OUT/cnt-z.txt" 2> "$OUT/cnt-z.err"
tcheck "count --zeros: the probe nothing hit is a row of 0, last" \
	"$OUT/cnt-z.txt" 'len(r) == 6 and r[-1] == ["0", "uprobes/zero"] and aligned()'
kpt count --by comm,probe -c "$VT count" "${CNT[@]}" > "$OUT/cnt-by.txt" 2> "$OUT/cnt-by.err"
tcheck "count --by comm,probe: the probe a key column where --by puts it, padded to align" \
	"$OUT/cnt-by.txt" '[n for n, _ in h] == ["COUNT", "comm", "probe"] and [c[2] for c in r] == ["uprobes/eight", "uprobes/five_five_five", "uprobes/three", "uprobes/two_two", "uprobes/one"] and all(c[1] == "values_target" for c in r) and aligned()'
kpt count --json --top 4 --zeros -c "$VT count" "${CNT[@]}" > "$OUT/cnt.json" 2> "$OUT/cnt-j.err"
jcheck "count --json --top 4: one object per row of the whole table, sorted, each with its probe" \
	"$OUT/cnt.json" '[(x["group"], x["event"], x["count"], x["key"]) for x in rows] == [("uprobes", "eight", 8, {}), ("uprobes", "five_five_five", 5, {}), ("uprobes", "three", 3, {}), ("uprobes", "two_two", 2, {})]'
kpt count --json --zeros --by comm -c "$VT count" "${CNT[@]}" > "$OUT/cnt-zj.json" 2> "$OUT/cnt-zj.err"
jcheck "count --json --zeros --by comm: the row of 0 has no key (null)" \
	"$OUT/cnt-zj.json" 'len(rows) == 6 and rows[-1]["event"] == "zero" and rows[-1]["count"] == 0 and rows[-1]["key"] is None and rows[0]["key"] == {"comm": "values_target"}'
# one probe: its table as before, titled with the probe, no probe column
kpt count -c "$VT count" "p:eight $VT:kpt_cnt_8" > "$OUT/cnt1.txt" 2> "$OUT/cnt1.err"
tcheck "count of one probe: titled with it, no probe column" \
	"$OUT/cnt1.txt" 'title == ["uprobes/eight:"] and [n for n, _ in h] == ["COUNT"] and r == [["8"]]'
KPT_RC=error kpt hist --by probe -c "$VT count" "p:eight $VT:kpt_cnt_8 v=%di" v > /dev/null 2> "$OUT/hbp.err"
check "hist --by probe: refused, saying it is for count" grep -q -- '--by probe: for count' "$OUT/hbp.err"

finish
