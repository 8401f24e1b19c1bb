#!/usr/bin/env bash
# Host tests of containers (issue 40) with a real runtime: Debian's runc on
# OCI bundles written here (a busybox-static root filesystem and a static
# target, no image registry; no "rlimits" in the spec: this machine's root
# lacks CAP_SYS_RESOURCE, which podman's and runc's defaults need). Each
# container runs tests/host/ctr_target.c, rounds of N known getppid() calls
# through ctr_outer() -> ctr_work(). References: the workloads' own N, and
# runc's own view (runc list, runc state, /proc/PID/cgroup).
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/lib.sh

KPT=${KPT:-./kptrace}
OUT=.output/tests/containers
mkdir -p "$OUT"
OUT=$(realpath "$OUT")

if [ "$(id -u)" != 0 ]; then
	skip_all "container tests need root (runc, BPF)"
fi
command -v runc >/dev/null || skip_all "runc is missing (make test-deps)"
[ -x /bin/busybox ] || skip_all "busybox-static is missing (make test-deps)"
V2=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
[ -n "$V2" ] || skip_all "no cgroup v2 hierarchy mounted"
[ -e /sys/kernel/tracing/events/syscalls/sys_enter_getppid ] ||
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
expect_checks 27
KPT_TIMEOUT=60

# unique names: another run of this suite may share the machine
TAG=kpt$$
A=$TAG-a B=$TAG-b C=$TAG-c
NA=3000 NB=1700 NC=900
CGP=/kptrace-test-$TAG
EMPTY=$V2$CGP/docker-e0e0$(printf '%060x' $$).scope	# a container's cgroup, no process in it

gcc -O0 -fno-omit-frame-pointer -fno-inline -static -g tests/host/ctr_target.c \
	-o "$OUT/ctr_target" || { echo "cannot build the target"; exit 1; }

cleanup() {
	local n
	[ -n "${KPID:-}" ] && kill $KPID 2>/dev/null && wait $KPID 2>/dev/null
	[ -n "${KP_CG:-}" ] && rmdir "$KP_CG" "${KP_CG%/*}" "${KP_CG%/*/*}" "$V2/kubepods-$TAG" 2>/dev/null
	for n in $A $B $C; do
		runc kill "$n" KILL 2>/dev/null
		runc delete -f "$n" 2>/dev/null
	done
	rmdir "$EMPTY"/c* "$EMPTY" 2>/dev/null
	# the parent cgroups runc made for cgroupsPath, in every hierarchy
	for d in /sys/fs/cgroup/*"$CGP" "$V2$CGP"; do
		[ -d "$d" ] && rmdir "$d" 2>/dev/null
	done
	rm -rf "$OUT/b-$TAG"-* "$OUT/rootfs-$TAG"-*
}
trap cleanup EXIT

# rootfs DIR [stripped]: busybox-static and the target, nothing of the
# host's; stripped: its symbols only in /ctr_target.debug beside it, which
# its .gnu_debuglink names
rootfs() {
	mkdir -p "$1/bin" "$1/proc" "$1/dev" "$1/sync" "$1/tmp"
	cp /bin/busybox "$1/bin/busybox"
	ln -sf busybox "$1/bin/sh"
	if [ "${2:-}" = stripped ]; then
		objcopy --only-keep-debug "$OUT/ctr_target" "$1/ctr_target.debug" &&
			objcopy --strip-all --add-gnu-debuglink="$1/ctr_target.debug" \
				"$OUT/ctr_target" "$1/ctr_target"
	else
		cp "$OUT/ctr_target" "$1/ctr_target"
	fi
}

# bundle NAME ROOTFS N: an OCI bundle running the target, its sync folder bound at /sync
bundle() {
	local b=$OUT/b-$1
	mkdir -p "$b/sync"
	rm -f "$b/sync/"*
	(cd "$b" && rm -f config.json && runc spec) || return 1
	python3 - "$b/config.json" "$2" "$3" "$b/sync" "$CGP/$1" <<'EOF'
import json, sys
p, root, n, sync, cg = sys.argv[1:]
c = json.load(open(p))
c["process"]["terminal"] = False
c["process"]["args"] = ["/ctr_target", "/sync", n]
c["process"].pop("rlimits", None)
c["root"] = {"path": root, "readonly": True}
c["mounts"].append({"destination": "/sync", "type": "bind", "source": sync,
                    "options": ["rbind", "rw"]})
c["linux"]["cgroupsPath"] = cg
json.dump(c, open(p, "w"))
EOF
}

start() {
	runc run -d --bundle "$OUT/b-$1" "$1" </dev/null >"$OUT/runc-$1.log" 2>&1 ||
		{ cat "$OUT/runc-$1.log"; return 1; }
}

# go ROUND NAME...: start a round in each container and wait for it to end
go_round() {
	local r=$1 n; shift
	for n in "$@"; do touch "$OUT/b-$n/sync/go$r"; done
	for n in "$@"; do
		wait_for "[ -e $OUT/b-$n/sync/done$r ]" 30 || problem "$n: round $r never ended"
	done
}

v2_path() { sed -n 's/^0:://p' "/proc/$1/cgroup"; }
init_pid() { runc state "$1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["pid"])'; }

# A and B share one image (the same inode of /ctr_target); C has its own,
# stripped, with a debug file
R1=$OUT/rootfs-$TAG-1 R2=$OUT/rootfs-$TAG-2
rootfs "$R1" && rootfs "$R2" stripped && bundle $A "$R1" $NA && bundle $B "$R1" $NB &&
	bundle $C "$R2" $NC && start $A && start $B ||
	skip_all "runc cannot run a container here: $(cat "$OUT/runc-$A.log" 2>/dev/null)"

# ---- list --containers against runc's own list and state ----
kpt list --containers --json > "$OUT/list.json"
want=$(for n in $A $B; do p=$(init_pid $n)
	echo "$n runc $p $(v2_path $p) $(stat -L -c %i /proc/$p/ns/mnt) $(stat -L -c %i /proc/$p/ns/pid)"
done)
got=$(python3 -c '
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    if r["name"].startswith(sys.argv[2]):
        print(r["name"], r["runtime"], r["pid"], r["cgroup"], r["mntns"], r["pidns"])' \
	"$OUT/list.json" $TAG | sort)
check "list --containers: name, runtime, pid, cgroup, namespaces as runc state and /proc say ($got)" \
	[ "$got" = "$(echo "$want" | sort)" ]
check "list --containers names what runc list names" \
	[ "$(runc list -q | grep "^$TAG" | sort | tr '\n' ' ')" = \
	  "$(python3 -c 'import json,sys; print(" ".join(sorted(json.loads(l)["name"] for l in open(sys.argv[1]) if json.loads(l)["name"].startswith(sys.argv[2]))))' "$OUT/list.json" $TAG) " ]

# ---- round 1: per-container counts, C started after kptrace attached ----
# --comm: runc's own init calls getppid() too, in C's cgroup, as C starts
kpt_bg "$OUT/r1.err" count --json --comm ctr_target --by container,cgroup \
	't:syscalls/sys_enter_getppid' \
	> "$OUT/r1.json"
start $C || fail "runc run $C"
go_round 1 $A $B $C
kpt_stop
got=$(by_key "$OUT/r1.json" container | tr ' ' '\n' | grep "^$TAG" | tr '\n' ' ')
check "--by container: each container's count its workload's ($got)" \
	[ "$got" = "$A:$NA $B:$NB $C:$NC " ]
check "--by container: $C, started after kptrace attached, named and counted" \
	grep -q "\"container\":\"$C\"" "$OUT/r1.json"
want=$(v2_path "$(init_pid $A)")
check "--by cgroup: $A's row is its v2 cgroup ($want)" python3 -c '
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
sys.exit(not any(r["key"]["container"] == sys.argv[2] and r["key"]["cgroup"] == sys.argv[3]
                 and r["count"] == int(sys.argv[4]) for r in rows))' "$OUT/r1.json" $A "$want" $NA

# ---- round 2: --container A: its events only, a uprobe by its path in there ----
[ -e /ctr_target ] && fail "/ctr_target exists on the host: the uprobe test proves nothing"
kpt_bg "$OUT/r2.err" count --json --container $A 't:syscalls/sys_enter_getppid' \
	'p:/ctr_target:ctr_work' > "$OUT/r2.json"
go_round 2 $A $B $C
kpt_stop
check "--container $A: only its getppid calls ($NA)" python3 -c '
import json, sys
c = sum(r["count"] for r in map(json.loads, open(sys.argv[1])) if "getppid" in r["event"])
sys.exit(c != int(sys.argv[2]))' "$OUT/r2.json" $NA
check "--container $A: a uprobe on /ctr_target, a path only in the container, fires $NA times" \
	python3 -c '
import json, sys
c = sum(r["count"] for r in map(json.loads, open(sys.argv[1])) if "ctr_work" in r["event"])
sys.exit(c != int(sys.argv[2]))' "$OUT/r2.json" $NA

# ---- round 3: one definition for A and B (one image), their stacks ----
kpt_bg "$OUT/r3.err" count --json --container $A --container $B \
	--by container,ustack 'p:/ctr_target:ctr_work' > "$OUT/r3.json"
go_round 3 $A $B $C
kpt_stop
check "one uprobe definition covers $A and $B (one image): one probe attached" \
	grep -q '^Attached 1 probe' "$OUT/r3.err"
got=$(by_key "$OUT/r3.json" container | tr '\n' ' ')
check "--container $A --container $B --by container: $got" \
	[ "$got" = "$A:$NA $B:$NB " ]
# the chain from the source; the names nm finds in the container's binary
nm "$OUT/ctr_target" > "$OUT/nm.txt"
grep -qw ctr_outer "$OUT/nm.txt" || fail "nm finds no ctr_outer in the target"
check "the uprobe's user stack: ctr_work <- ctr_outer <- main, in every row" python3 -c '
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
def names(r):
    return [f.get("sym", f.get("symbol", "")) for f in r["key"]["ustack"]]
ok = rows and all(names(r)[:3] == ["ctr_work", "ctr_outer", "main"] for r in rows)
if not ok:
    print([names(r) for r in rows][:3])
sys.exit(not ok)' "$OUT/r3.json"

# ---- round 4: a tracepoint's user stacks in a container's process ----
kpt_bg "$OUT/r4.err" count --folded --container $C --by ustack \
	't:syscalls/sys_enter_getppid' > "$OUT/r4.folded"
go_round 4 $A $B $C
kpt_stop
nm "$R2/ctr_target" 2>&1 | grep -q "no symbols" || fail "$C's /ctr_target is not stripped"
check "--by ustack of a container's process: its frames named from its debug file in there" \
	grep -qE "(^|;)main;ctr_outer;(ctr_work;)?[^ ]*getppid[^ ]* $NC\$" "$OUT/r4.folded"

# ---- round 5: CONTAINER:/PATH, no filter: every container of A's image ----
kpt_bg "$OUT/r5.err" count --json --by container "p:$A:/ctr_target:ctr_work" > "$OUT/r5.json"
go_round 5 $A $B $C
kpt_stop
got=$(by_key "$OUT/r5.json" container | tr '\n' ' ')
check "p:$A:/ctr_target:ctr_work, unfiltered: A's and B's (its image's) calls, not C's ($got)" \
	[ "$got" = "$A:$NA $B:$NB " ]

# ---- serve: per-container series, scraped by Prometheus; a gone one's end ----
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
# metric FILE: "container:value ..." of /metrics' kptrace_ctr_total samples of ours
metric() {
	python3 - "$1" "$TAG" <<'EOF'
import re, sys
c = {}
for l in open(sys.argv[1]):
    m = re.match(r'kptrace_ctr_total\{(.*)\} (\S+)$', l.strip())
    if m:
        lab = dict(re.findall(r'(\w+)="([^"]*)"', m.group(1)))
        if lab.get("container", "").startswith(sys.argv[2]):
            c[lab["container"]] = m.group(2)
print(" ".join("%s:%s" % (k, c[k]) for k in sorted(c)))
EOF
}
# until 'COND' SECONDS: wait_for by the clock, for conditions that take a while to ask
until_secs() {
	local end=$((SECONDS + $2))
	while [ $SECONDS -lt $end ]; do
		eval "$1" && return 0
		sleep 0.5
	done
	return 1
}
scrape() {
	python3 -c 'import sys, urllib.request
sys.stdout.buffer.write(urllib.request.urlopen(sys.argv[1], timeout=10).read())' \
		"http://127.0.0.1:$PORT/metrics"
}
# query EXPR: "container:value ..." of Prometheus's answer
query() {
	python3 - "http://127.0.0.1:$PP/api/v1/query" "$1" <<'EOF'
import json, sys, urllib.parse, urllib.request
try:
    r = json.load(urllib.request.urlopen(sys.argv[1] + "?" + urllib.parse.urlencode({"query": sys.argv[2]}), timeout=5))
    print(" ".join(sorted("%s:%s" % (x["metric"]["container"], x["value"][1]) for x in r["data"]["result"])))
except Exception:
    pass
EOF
}
PORT=$(free_port)
echo "ctr: count 't:syscalls/sys_enter_getppid' --by container --comm ctr_target" > "$OUT/jobs.kpt"
timeout -k 5 300 $KPT serve -f "$OUT/jobs.kpt" --listen 127.0.0.1:$PORT --gone-after 2 \
	2> "$OUT/serve.err" &
SV=$!
wait_for "grep -q 'serving http' '$OUT/serve.err'" 60 ||
	problem "serve did not start: $(tail -c 400 "$OUT/serve.err")"
go_round 6 $A $B $C
# a pod as the kubelet's cgroupfs driver lays it out: the target run here, moved in
POD=0a1b2c3d-$((RANDOM % 9000 + 1000))-4000-8000-00000000$((RANDOM % 9000 + 1000))
KP_ID=$(printf 'c0ffee%058x' $$)
KP_CG=$V2/kubepods-$TAG/burstable/pod$POD/$KP_ID
mkdir -p "$OUT/sync-pod" "$KP_CG" && rm -f "$OUT/sync-pod/"*
"$OUT/ctr_target" "$OUT/sync-pod" 500 &
KPID=$!
echo $KPID > "$KP_CG/cgroup.procs" || fail "cannot move the pod's process into $KP_CG"
touch "$OUT/sync-pod/go1"
wait_for "[ -e $OUT/sync-pod/done1 ]" 30 || problem "the pod's round never ended"
scrape > "$OUT/m1.txt"
check "serve --by container: a kubepods container's series has its pod's UID label" \
	grep -q "^kptrace_ctr_total{.*container=\"${KP_ID:0:12}\",pod=\"$POD\"} 500\$" "$OUT/m1.txt"
kill $KPID 2>/dev/null
wait $KPID 2>/dev/null
got=$(metric "$OUT/m1.txt")
check "serve --by container: one series per container, its workload's count ($got)" \
	[ "$got" = "$A:$NA $B:$NB $C:$NC" ]
PR=
Q="kptrace_ctr_total{container=~\"$TAG-.*\"}"
if command -v prometheus > /dev/null; then
	PP=$(free_port)
	printf '%s\n' "global: { scrape_interval: 1s }" "scrape_configs:" "  - job_name: kptrace" \
		"    static_configs: [ { targets: ['127.0.0.1:$PORT'] } ]" > "$OUT/prom.yml"
	rm -rf "$OUT/tsdb"
	timeout -k 5 240 prometheus --config.file="$OUT/prom.yml" --storage.tsdb.path="$OUT/tsdb" \
		--web.listen-address=127.0.0.1:$PP > "$OUT/prom.log" 2>&1 &
	PR=$!
	until_secs '[ "$(query "$Q")" = "$A:$NA $B:$NB $C:$NC" ]' 60
	check "Prometheus: kptrace_ctr_total{container} of each container, exact ($(query "$Q"))" \
		[ "$(query "$Q")" = "$A:$NA $B:$NB $C:$NC" ]
else
	env_fault "no prometheus (Debian's prometheus package)"
fi
# C removed: its cgroup goes; its series ends --gone-after (2 s) later
runc kill $C KILL
wait_for "runc delete $C 2>/dev/null" 10
until_secs '[ "$(scrape > "$OUT/m2.txt"; metric "$OUT/m2.txt")" = "$A:$NA $B:$NB" ]' 20
check "serve: $C removed, its series gone from /metrics, A's and B's kept ($(metric "$OUT/m2.txt"))" \
	[ "$(metric "$OUT/m2.txt")" = "$A:$NA $B:$NB" ]
if [ -n "$PR" ]; then
	# a series a scrape no longer has is stale at once for Prometheus
	until_secs '[ "$(query "$Q")" = "$A:$NA $B:$NB" ]' 20
	check "Prometheus: $C's series stale, the others there ($(query "$Q"))" \
		[ "$(query "$Q")" = "$A:$NA $B:$NB" ]
	kill $PR 2>/dev/null
	wait $PR 2>/dev/null
fi
kill $SV 2>/dev/null
wait $SV 2>/dev/null

# ---- --json's pids: the host's and the pid namespace's own ----
# A shell in a pid namespace of its own (unshare, the host's /proc left
# mounted) knows both its ids: $$ is the namespace's, /proc/self/stat read
# by its own builtin the host's. Its 23-byte write: both in its event (it
# lives on a second: /proc is read at its first event's printing); its
# parent's after it, on the host: no namespace ids
cat > "$OUT/ns.sh" <<'EOF'
if [ "$1" = inner ]; then
	read -r h x < /proc/self/stat
	echo "$$ $h" > "$2"
	echo namespace-marker-inner > /dev/null
	sleep 1
else
	unshare --pid --fork sh "$0" inner "$2"
	echo namespace-marker-outer > /dev/null
fi
EOF
rm -f "$OUT/ns.ids"
kpt --json -c "sh $OUT/ns.sh outer $OUT/ns.ids" 't:syscalls/sys_enter_write count if count == 23' \
	> "$OUT/ns.json" 2> "$OUT/ns.err"
read -r nsp hostp < "$OUT/ns.ids"
check "--json in a pid namespace: pid $hostp and ns_pid $nsp as each side numbers the shell; none outside" \
	python3 - "$OUT/ns.json" "${hostp:-0}" "${nsp:-0}" <<'PY'
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1]) if l.startswith('{"ts"')]
host, ns = int(sys.argv[2]), int(sys.argv[3])
assert len(ev) == 2 and ns == 1 and host > 1, ev
inner, outer = ev
assert (inner["pid"], inner["tid"], inner["ns_pid"], inner["ns_tid"]) == (host, host, ns, ns), inner
assert outer["pid"] != host and "ns_pid" not in outer and "ns_tid" not in outer, outer
PY

# ---- refusals ----
kpt_expect_fail() { ! timeout 20 $KPT "$@" >/dev/null 2>"$OUT/bad.err"; }
check "--container of no container: refused, saying so" \
	eval 'kpt_expect_fail count --container nosuch-$TAG "t:syscalls/sys_enter_getppid" &&
	      grep -q "no container has this name" "$OUT/bad.err"'
check "--container TAG (A's and B's prefix): ambiguous, refused" \
	eval 'kpt_expect_fail count --container $TAG "t:syscalls/sys_enter_getppid" &&
	      grep -q "more than one container" "$OUT/bad.err"'
mkdir -p "$EMPTY"
check "p:CONTAINER:/PATH of no container: refused at the name, saying so" \
	eval 'kpt_expect_fail count "p:nosuch-$TAG:/ctr_target:ctr_work" &&
	      grep -q "container .nosuch-$TAG.: no container has this name" "$OUT/bad.err"'
check "--container of a container with no process, a uprobe by its path: refused, saying why" \
	eval 'kpt_expect_fail count --container e0e0 "p:/ctr_target:ctr_work" &&
	      grep -q "has no process now" "$OUT/bad.err"'
mkdir "$EMPTY"/c{1..16}
check "--container of a container of 17 cgroups (the filter holds 16): refused, none left out" \
	eval 'kpt_expect_fail count --container e0e0 "t:syscalls/sys_enter_getppid" &&
	      grep -q "17 cgroups in all, the filter holds 16" "$OUT/bad.err"'
rmdir "$EMPTY"/c* "$EMPTY"
check "--cgroup of a v1 hierarchy's directory: refused (no task has its inode as v2 id)" \
	eval 'kpt_expect_fail count --cgroup /sys/fs/cgroup/pids "t:syscalls/sys_enter_getppid" &&
	      grep -q "not in a cgroup v2 hierarchy" "$OUT/bad.err"'
check "--cgroup with --container: refused" \
	eval 'kpt_expect_fail count --cgroup "$V2" --container $A "t:syscalls/sys_enter_getppid" &&
	      grep -q "give one" "$OUT/bad.err"'

# ---- the containers gone: nothing left behind ----
cleanup
check "no container of ours left (runc list)" [ -z "$(runc list -q | grep "^$TAG")" ]
check "no cgroup of ours left" \
	[ -z "$(ls -d /sys/fs/cgroup/*"$CGP" "$V2$CGP" "$V2/kubepods-$TAG" 2>/dev/null)" ]
trap - EXIT
finish
