#!/bin/sh
# Guest script (busybox sh) for tests/vm/test.sh: kptrace built with
# ASan+UBSan (.output/kptrace-san, dynamic: run.sh copies its libraries)
# through the guest scripts in /guest.san, the paths the host cannot run:
# kprobes, kretprobes through tracefs, fentry/fexit, kprobe.multi, the
# module watch, serve stopped by SIGTERM. more-guest.sh runs them; every
# sanitizer report (a file, since a script may keep kptrace's stderr to
# itself) is a failure here, and so is a report of the leak checker at exit.
KREL=$(uname -r)
S=/tmp/san
mkdir -p $S
export ASAN_OPTIONS="log_path=$S/asan:exitcode=99:detect_leaks=1"
export UBSAN_OPTIONS="log_path=$S/ubsan:print_stacktrace=1:halt_on_error=1:exitcode=99"
echo "# kptrace under ASan+UBSan: $(ls /guest.san | tr '\n' ' ')"
# ASan under TCG: each script takes twice its time or more
GUEST_D=/guest.san MORE_DONE=0 MORE_LIMIT=600 sh /more-guest.sh
echo "# expect 2 ok"
# the control: the binary is the sanitized one (its libraries are mapped)
if LD_TRACE_LOADED_OBJECTS=1 /bin/kptrace 2>/dev/null | grep -q libasan; then
	echo "ok - $KREL: /bin/kptrace is the ASan+UBSan build (libasan linked)"
else
	echo "FAIL - $KREL: /bin/kptrace is not the ASan+UBSan build: the reports below would be vacuous"
fi
n=0
for f in $S/*; do
	[ -e "$f" ] || continue
	n=$((n + 1))
	echo "FAIL - $KREL: sanitizer report $(basename $f): $(grep -m3 -E 'ERROR|runtime error|SUMMARY' $f | tr '\n' ' ' | cut -c1-400)"
	sed -n '1,40p' $f | sed 's/^/#   /'
done
[ $n = 0 ] && echo "ok - $KREL: no ASan, UBSan or leak report from kptrace through $(ls /guest.san | wc -l) guest scripts"
echo "# done"
