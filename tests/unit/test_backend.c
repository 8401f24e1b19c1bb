// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * src/prepare/backend.c: which mechanism each probe gets, for kernels with and
 * without trampolines and kprobe.multi (told by a fake kallsyms), and why a
 * probe cannot go through a trampoline.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>

#include "check.h"
#include "prepare/backend.h"

#define MAXP 24

struct run {
	struct ev_desc ev[MAXP];
	struct kpt_probe_entry ent[MAXP];
	int n;
};

static struct sysinfo si;
static char msg[512];

/* A kallsyms with or without what trampolines and kprobe.multi are built on. */
static void kernel(bool direct, bool fprobe, bool kprobes)
{
	char path[] = "/tmp/kpt_test_backend.XXXXXX";
	FILE *f;
	int fd = mkstemp(path);

	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		perror("mkstemp");
		exit(1);
	}
	fprintf(f, "ffffffff81000000 T _stext\n");
	if (direct)
		fprintf(f, "ffffffff81000100 T register_ftrace_direct\n");
	if (fprobe)
		fprintf(f, "ffffffff81000200 T register_fprobe_ips\n");
	fprintf(f, "ffffffff81000300 T vfs_read\n");
	fclose(f);
	ksyms_free(si.ksyms);
	si.ksyms = ksyms_load(path);
	unlink(path);
	si.have_kprobes = kprobes;
}

static int reg(const char *name)
{
	return resolve_reg_offset(si.regs_btf, name);
}

/* Probe i: kind on function number fn, one argument from base/param. */
static void add(struct run *r, enum spec_kind kind, int fn, int base, int param)
{
	int i = r->n++;

	r->ev[i].index = i;
	r->ev[i].kind = kind;
	r->ev[i].is_return = kind == SPEC_KRETPROBE;
	r->ev[i].addr = 0xffffffff82000000ull + 0x100 * fn;
	snprintf(r->ev[i].func, sizeof(r->ev[i].func), "func%d", fn);
	snprintf(r->ev[i].group, sizeof(r->ev[i].group), "kprobes");
	snprintf(r->ev[i].event, sizeof(r->ev[i].event), "p%d", i);
	r->ev[i].target.by_name = true;	/* resolve's word for "f", not an address */
	r->ent[i].nargs = base ? 1 : 0;
	r->ent[i].args[0].base = base;
	r->ent[i].args[0].param = param;
}

static int choose(struct run *r, const char *backend)
{
	msg[0] = 0;
	return backend_choose(backend, &si, r->ev, r->ent, r->n, msg, sizeof(msg));
}

static int count(const struct run *r, bool tramp)
{
	int i, k = 0;

	for (i = 0; i < r->n; i++)
		k += tramp ? r->ev[i].tramp : r->ev[i].multi;
	return k;
}

static void test_auto(void)
{
	struct run r;
	int i;

	kernel(true, true, true);
	memset(&r, 0, sizeof(r));
	add(&r, SPEC_KPROBE, 0, KPT_BASE_REG, reg("si"));
	add(&r, SPEC_KRETPROBE, 0, KPT_BASE_RETVAL, 0);
	CHECK_INT(choose(&r, NULL), 0, "auto, 2 probes");
	CHECK_INT(count(&r, true), 2, "auto: 2 probes through trampolines");
	CHECK_STR(backend_describe(&r.ev[0]), "fentry (BPF trampoline)", "describe entry");
	CHECK_STR(backend_describe(&r.ev[1]), "fexit (BPF trampoline)", "describe return");

	/* a stack read goes to a kprobe beside them */
	memset(&r, 0, sizeof(r));
	add(&r, SPEC_KPROBE, 0, KPT_BASE_ARG, 2);
	add(&r, SPEC_KPROBE, 0, KPT_BASE_STACK, 1);
	CHECK_INT(choose(&r, "auto"), 0, "auto, stack read");
	CHECK(r.ev[0].tramp && !r.ev[1].tramp, "per probe: %d %d", r.ev[0].tramp, r.ev[1].tramp);
	CHECK_STR(backend_describe(&r.ev[1]), "kprobe", "describe kprobe");

	/* five trampoline programs cost more start-up than one kprobe program */
	memset(&r, 0, sizeof(r));
	for (i = 0; i < 5; i++)
		add(&r, SPEC_KPROBE, i, 0, 0);
	CHECK_INT(choose(&r, NULL), 0, "auto, 5 probes");
	CHECK_INT(count(&r, true) + count(&r, false), 0, "auto: 5 probes on kprobes");

	/* eight functions: one kprobe.multi link */
	memset(&r, 0, sizeof(r));
	for (i = 0; i < 8; i++)
		add(&r, SPEC_KPROBE, i, 0, 0);
	CHECK_INT(choose(&r, NULL), 0, "auto, 8 functions");
	CHECK_INT(count(&r, false), 8, "auto: 8 functions through kprobe.multi");
	CHECK_INT(count(&r, true), 0, "auto: none through trampolines");

	/* no trampolines, no kprobe.multi: kprobes */
	kernel(false, false, true);
	memset(&r, 0, sizeof(r));
	add(&r, SPEC_KPROBE, 0, 0, 0);
	for (i = 1; i < 9; i++)
		add(&r, SPEC_KRETPROBE, i, 0, 0);
	CHECK_INT(choose(&r, NULL), 0, "auto, old kernel");
	CHECK_INT(count(&r, true) + count(&r, false), 0, "old kernel: kprobes only");
}

/* What a trampoline cannot take, each alone with --backend fentry. */
static void test_eligible(void)
{
	static const struct {
		enum spec_kind kind;
		int base;
		const char *reg;	/* param: this register's offset */
		int param;
		bool ok;
		const char *what;
	} rows[] = {
		{ SPEC_KPROBE, KPT_BASE_REG, "di", 0, true, "%di at entry" },
		{ SPEC_KPROBE, KPT_BASE_REG, "r9", 0, true, "%r9 at entry" },
		{ SPEC_KPROBE, KPT_BASE_REG, "ax", 0, false, "%ax at entry" },
		{ SPEC_KPROBE, KPT_BASE_REG, "bx", 0, false, "%bx at entry" },
		{ SPEC_KPROBE, KPT_BASE_REG, "sp", 0, false, "%sp at entry" },
		{ SPEC_KPROBE, KPT_BASE_REG, "ip", 0, false, "%ip at entry" },
		{ SPEC_KRETPROBE, KPT_BASE_REG, "ax", 0, true, "%ax at a return" },
		{ SPEC_KRETPROBE, KPT_BASE_REG, "di", 0, false, "%di at a return" },
		{ SPEC_KRETPROBE, KPT_BASE_RETVAL, NULL, 0, true, "$retval" },
		{ SPEC_KRETPROBE, KPT_BASE_EDATA, NULL, 1, true, "entry argument at a return" },
		{ SPEC_KPROBE, KPT_BASE_ARG, NULL, 5, true, "$arg6" },
		{ SPEC_KPROBE, KPT_BASE_ARG, NULL, 6, false, "$arg7 (the stack)" },
		{ SPEC_KPROBE, KPT_BASE_STACK, NULL, 0, false, "$stack0" },
		{ SPEC_KPROBE, KPT_BASE_STACKP, NULL, 0, false, "$stack" },
		{ SPEC_KPROBE, KPT_BASE_COMM, NULL, 0, true, "$comm" },
		{ SPEC_KPROBE, KPT_BASE_IMM, NULL, 0, true, "an immediate" },
	};
	struct run r;
	size_t i;

	kernel(true, true, true);
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		memset(&r, 0, sizeof(r));
		add(&r, rows[i].kind, 0, rows[i].base,
		    rows[i].reg ? reg(rows[i].reg) : rows[i].param);
		CHECK_INT(choose(&r, "fentry"), 0, rows[i].what);
		CHECK(r.ev[0].tramp == rows[i].ok, "%s: tramp %d, want %d", rows[i].what,
		      r.ev[0].tramp, rows[i].ok);
	}

	/* where, not what: inside a function, rN:, a module, a clone */
	memset(&r, 0, sizeof(r));
	add(&r, SPEC_KPROBE, 0, 0, 0);
	r.ev[0].target.offset = 4;
	add(&r, SPEC_KRETPROBE, 1, 0, 0);
	r.ev[1].target.maxactive = 2;
	add(&r, SPEC_KPROBE, 2, 0, 0);
	snprintf(r.ev[2].target.module, sizeof(r.ev[2].target.module), "etn");
	add(&r, SPEC_KPROBE, 3, 0, 0);
	snprintf(r.ev[3].func, sizeof(r.ev[3].func), "func3.isra.0");
	add(&r, SPEC_KPROBE, 4, 0, 0);
	CHECK_INT(choose(&r, "fentry"), 0, "forced, mixed");
	CHECK_INT(count(&r, true), 1, "only the plain entry through a trampoline");
	CHECK(r.ev[4].tramp, "the plain entry");
	CHECK_STR(backend_describe(&r.ev[1]), "kretprobe through tracefs (maxactive)", "rN:");
}

static void test_forced(void)
{
	struct run r;
	int i;

	/* more than the slots */
	kernel(true, true, true);
	memset(&r, 0, sizeof(r));
	for (i = 0; i < KPT_TRAMP_SLOTS + 1; i++)
		add(&r, SPEC_KPROBE, i, 0, 0);
	CHECK_INT(choose(&r, "fentry"), -E2BIG, "17 trampolines");
	CHECK(strstr(msg, "at most 16") != NULL, "msg: %s", msg);

	/* a probe that needs a kprobe on a kernel without kprobes */
	kernel(true, false, false);
	memset(&r, 0, sizeof(r));
	add(&r, SPEC_KPROBE, 0, KPT_BASE_STACK, 0);
	CHECK_INT(choose(&r, "fentry"), -EOPNOTSUPP, "stack read, no kprobes");
	CHECK(strstr(msg, "kprobes/p0 cannot go through fentry/fexit, and this kernel has no "
		      "kprobes: it reads the stack") != NULL, "msg: %s", msg);

	/* forced trampolines where kallsyms has no sign of them: the kernel
	 * decides at load, and says why */
	kernel(false, false, false);
	memset(&r, 0, sizeof(r));
	add(&r, SPEC_KPROBE, 0, 0, 0);
	CHECK_INT(choose(&r, "fentry"), 0, "forced, no hint");
	CHECK(r.ev[0].tramp, "forced: tried");

	/* --backend kprobe: nothing else */
	kernel(true, true, true);
	memset(&r, 0, sizeof(r));
	for (i = 0; i < 9; i++)
		add(&r, SPEC_KPROBE, i, 0, 0);
	CHECK_INT(choose(&r, "kprobe"), 0, "kprobe");
	CHECK_INT(count(&r, true) + count(&r, false), 0, "kprobe: kprobes");
	CHECK_INT(choose(&r, "kprobe-multi"), 0, "kprobe-multi");
	CHECK_INT(count(&r, false), 9, "kprobe-multi: all");

	/* a module's function: a kprobe of its own, which modwatch detaches
	 * as the module unloads; a multi link would keep it from unloading */
	snprintf(r.ev[3].target.module, sizeof(r.ev[3].target.module), "etn");
	CHECK_INT(choose(&r, "kprobe-multi"), 0, "kprobe-multi, a module's function");
	CHECK(!r.ev[3].multi && count(&r, false) == 8, "the module's alone a kprobe: %d multi",
	      count(&r, false));
	r.ev[3].target.module[0] = 0;

	kernel(true, false, true);
	CHECK_INT(choose(&r, "kprobe-multi"), -EOPNOTSUPP, "kprobe-multi missing");
	CHECK(strstr(msg, "no kprobe.multi") != NULL, "msg: %s", msg);
}

/* Only uprobes and tracepoints: nothing to choose, kallsyms not even read
 * (it is tens of milliseconds of start-up). */
static void test_no_kernel_functions(void)
{
	struct run r;

	ksyms_free(si.ksyms);
	si.ksyms = NULL;
	memset(&r, 0, sizeof(r));
	add(&r, SPEC_UPROBE, 0, KPT_BASE_REG, reg("di"));
	r.ev[0].is_user = true;
	add(&r, SPEC_TRACEPOINT, 1, 0, 0);
	CHECK_INT(choose(&r, NULL), 0, "auto, uprobe and tracepoint");
	CHECK(!r.ev[0].tramp && !r.ev[0].multi && !r.ev[1].tramp && !r.ev[1].multi,
	      "neither through a trampoline nor kprobe.multi");
	CHECK(si.ksyms == NULL, "kallsyms not read");
}

/*
 * Functions resolved without kallsyms (address 0, resolve.h): told apart by
 * name, and auto decides without reading kallsyms, the kernel's BTF saying
 * whether it has trampolines.
 */
static void test_deferred(void)
{
	struct run r;
	bool direct;
	int i;

	ksyms_free(si.ksyms);
	si.ksyms = NULL;
	si.defer_ksyms = true;
	si.have_kprobes = true;
	memset(&r, 0, sizeof(r));
	add(&r, SPEC_KPROBE, 0, KPT_BASE_REG, reg("si"));
	add(&r, SPEC_KRETPROBE, 0, KPT_BASE_RETVAL, 0);
	r.ev[0].addr = r.ev[1].addr = 0;
	CHECK_INT(choose(&r, NULL), 0, "auto, 2 probes by name");
	direct = !sysinfo_need_btf(&si, msg, sizeof(msg)) &&
		 btf__find_by_name_kind(si.btf, "register_ftrace_direct", BTF_KIND_FUNC) > 0;
	CHECK(count(&r, true) == (direct ? 2 : 0), "trampolines as this kernel's BTF has them (%d): %d",
	      direct, count(&r, true));
	CHECK(si.ksyms == NULL, "auto: kallsyms not read");

	/* eight probes on one function: one function, no kprobe.multi link */
	memset(&r, 0, sizeof(r));
	for (i = 0; i < 8; i++) {
		add(&r, i % 2 ? SPEC_KRETPROBE : SPEC_KPROBE, 0, 0, 0);
		r.ev[i].addr = 0;
	}
	CHECK_INT(choose(&r, "auto"), 0, "auto, 8 probes on one function by name");
	CHECK_INT(count(&r, false), 0, "no kprobe.multi for one function");
	CHECK(si.ksyms == NULL, "kallsyms still not read");
	si.defer_ksyms = false;
}

/*
 * What needs where a return returns to: the actions and keys arm64's fexit
 * may take (it cannot give that address), whatever this build's arch.
 */
static void test_ret_caller(void)
{
	static const struct {
		int action;
		int stack_keys;
		bool needs;
		const char *what;
	} rows[] = {
		{ KPT_ACT_PRINT, 0, true, "a streamed record" },
		{ KPT_ACT_HIST, 0, false, "a histogram" },
		{ KPT_ACT_COUNT, 0, false, "a count" },
		{ KPT_ACT_LAT_END, 0, false, "latency's return" },
		{ KPT_ACT_PAIR_END, 0, false, "latency --to" },
		{ KPT_ACT_COUNT, KPT_SK_USTACK, false, "a count by user stack" },
		{ KPT_ACT_COUNT, KPT_SK_KSTACK, true, "a count by kernel stack" },
		{ KPT_ACT_LAT_END, KPT_SK_KSTACK | KPT_SK_USTACK, true, "latency by both stacks" },
	};
	struct kpt_probe_entry e;
	const char *why;
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		memset(&e, 0, sizeof(e));
		e.agg.action = rows[i].action;
		e.agg.stack_keys = rows[i].stack_keys;
		why = backend_ret_needs_caller(&e);
		CHECK((why != NULL) == rows[i].needs, "%s: %s", rows[i].what, why ? why : "(none)");
	}
}

/* Why a probe is on a kprobe, for --dry-run: the probe's own reason, or auto's. */
static void test_not_tramp(void)
{
	struct run r;
	int i;

	kernel(true, true, true);
	memset(&r, 0, sizeof(r));
	add(&r, SPEC_KPROBE, 0, KPT_BASE_STACK, 1);
	add(&r, SPEC_KPROBE, 1, KPT_BASE_ARG, 0);
	CHECK_INT(choose(&r, NULL), 0, "auto, stack read");
	CHECK_STR(r.ev[0].not_tramp ? r.ev[0].not_tramp : "(null)", "it reads the stack",
		  "the probe's reason");
	CHECK(r.ev[1].tramp && !r.ev[1].not_tramp, "the other on a trampoline, no reason");

	/* a lock function's entry (prepare/unsafe.h): kprobes for the whole
	 * run, whose programs share one recursion guard per CPU, even where
	 * fentry is forced */
	snprintf(r.ev[1].func, sizeof(r.ev[1].func), "_raw_spin_lock");
	add(&r, SPEC_KPROBE, 2, KPT_BASE_ARG, 0);	/* alone, a trampoline's */
	CHECK_INT(choose(&r, "fentry"), 0, "fentry, a lock function");
	CHECK(!r.ev[1].tramp && r.ev[1].not_tramp &&
	      strstr(r.ev[1].not_tramp, "spinning lock's path"), "lock: %s",
	      r.ev[1].not_tramp ? r.ev[1].not_tramp : "(null)");
	CHECK_INT(count(&r, true), 0, "no trampoline in a run with a lock function");
	snprintf(r.ev[1].func, sizeof(r.ev[1].func), "func1");
	CHECK_INT(choose(&r, NULL), 0, "auto, no lock function");
	CHECK(r.ev[1].tramp && r.ev[2].tramp, "trampolines again");

	kernel(false, false, true);
	CHECK_INT(choose(&r, NULL), 0, "auto, no trampolines");
	CHECK(r.ev[1].not_tramp && strstr(r.ev[1].not_tramp, "no BPF trampolines"), "kernel: %s",
	      r.ev[1].not_tramp ? r.ev[1].not_tramp : "(null)");

	kernel(true, true, true);
	memset(&r, 0, sizeof(r));
	for (i = 0; i < 5; i++)
		add(&r, SPEC_KPROBE, i, 0, 0);
	CHECK_INT(choose(&r, NULL), 0, "auto, 5 probes");
	CHECK(r.ev[4].not_tramp && strstr(r.ev[4].not_tramp, "more than 4"), "5 probes: %s",
	      r.ev[4].not_tramp ? r.ev[4].not_tramp : "(null)");
}

static void test_fallback(void)
{
	struct run r;

	kernel(true, true, true);
	memset(&r, 0, sizeof(r));
	add(&r, SPEC_KPROBE, 0, 0, 0);
	CHECK_INT(choose(&r, NULL), 0, "auto");
	CHECK(backend_fallback(NULL, r.ev, r.n), "auto falls back");
	CHECK(!r.ev[0].tramp, "to a kprobe");
	CHECK(!backend_fallback(NULL, r.ev, r.n), "once");
	CHECK_INT(choose(&r, "fentry"), 0, "forced");
	CHECK(!backend_fallback("fentry", r.ev, r.n), "forced does not fall back");
	CHECK(r.ev[0].tramp, "forced keeps the trampoline");
}

int main(void)
{
	if (sysinfo_need_regs_btf(&si, msg, sizeof(msg))) {
		fprintf(stderr, "%s\n", msg);
		return 1;
	}
	test_auto();
	test_eligible();
	test_forced();
	test_no_kernel_functions();
	test_deferred();
	test_fallback();
	test_ret_caller();
	test_not_tramp();
	ksyms_free(si.ksyms);
	si.ksyms = NULL;
	sysinfo_free(&si);
	return check_report();
}
