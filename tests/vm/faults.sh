# shellcheck shell=bash
# Sourced by tests/vm/run.sh and tests/vm/test.sh: what a guest kernel prints
# when it is hurt, and how to name it. The guest boots with printk.time=1, so
# every line the kernel prints starts with its "[    12.345678] " stamp; a
# fault is such a stamp followed by one of these (anywhere in a console line:
# the kernel's lines can land in the middle of one the guest script prints).
#   oops       die()'s counter, on every oops: "Oops: 0000 [#1]", "int3: 0000
#              [#1]", "general protection fault ...: 0000 [#1]", arm64's
#              "Internal error: Oops: ... [#1]"
#   BUG        "BUG: kernel NULL pointer dereference", "BUG: unable to handle",
#              "BUG: sleeping function called ...", "kernel BUG at", and
#              arm64's "Unable to handle kernel ..."
#   lockup     "watchdog: BUG: soft lockup", "Watchdog detected hard LOCKUP"
#   stall      "rcu: INFO: rcu_sched detected stalls", "... self-detected stall"
#   hung task  "INFO: task X:PID blocked for more than N seconds"
#   WARNING    "WARNING: CPU: N PID: N at SITE"
#   panic      "Kernel panic - not syncing" (after any of the above, under the
#              boot's panic_on_warn=1 softlockup_panic=1 hung_task_panic=1
#              oops=panic panic_on_rcu_stall=1)
KPT_FAULT_STAMP='\[ *[0-9]+\.[0-9]{6}\] '
KPT_FAULT_RE="$KPT_FAULT_STAMP.*(\\[#[0-9]+\\]|BUG: |kernel BUG at |Unable to handle kernel |hard LOCKUP|rcu: INFO: |detected stalls? on CPU|self-detected stall|INFO: task .* blocked for more than|WARNING: CPU: |Kernel panic - not syncing)"

# kpt_fault_class LINE: the fault's class, one word
kpt_fault_class() {
	case $1 in
	*"soft lockup"* | *"hard LOCKUP"*) echo lockup ;;
	*"rcu: INFO: "* | *"detected stall"*) echo stall ;;
	*"blocked for more than"*) echo hung-task ;;
	*"WARNING: CPU: "*) echo WARNING ;;
	*"[#"[0-9]*) echo oops ;;
	*"BUG: "* | *"kernel BUG at "* | *"Unable to handle kernel "*) echo BUG ;;
	*) echo panic ;;
	esac
}

# kpt_fault_first CONSOLE: the console's first fault line (\r and colour
# escapes already stripped, or not: grep -a takes either)
kpt_fault_first() {
	grep -a -m1 -E "$KPT_FAULT_RE" "$1" | tr -d '\r'
}

# kpt_fault_site CONSOLE: where the first fault was: the kernel instruction
# pointer printed after it (x86 "RIP: 0010:func+0x5/0x20", arm64 "pc :
# func+0x5/0x20"), else the WARNING's own "at SITE", else the first frame of
# its call trace that is not the reporting machinery (a panic's, a stall's)
kpt_fault_site() {
	local site
	site=$(sed -n -E "/$KPT_FAULT_RE/,\$p" "$1" | tr -d '\r' |
		grep -a -m1 -oE '(RIP: 0010:|pc : )[^ ]+' | sed -E 's/^(RIP: 0010:|pc : )//')
	[ -n "$site" ] || site=$(kpt_fault_first "$1" | grep -oE 'WARNING: CPU: .* at [^ ]+' | sed 's/.* at //')
	[ -n "$site" ] || site=$(sed -n -E "/$KPT_FAULT_RE/,\$p" "$1" | tr -d '\r' |
		sed -n -E "s/^$KPT_FAULT_STAMP *(\\? )?([A-Za-z_][A-Za-z0-9_.]*\\+0x[0-9a-f]+\\/0x[0-9a-f]+).*/\\2/p" |
		grep -vE '^(dump_stack|show_stack|panic|__warn|warn_|report_bug|handle_bug|exc_|asm_exc|die|oops|nmi_|watchdog|rcu_|sched_show|print_|check_panic|vpanic)' |
		head -n 1)
	echo "${site:-unknown}"
}
