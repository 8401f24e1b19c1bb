// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * plan_mark_direct(): which histograms and latencies the BPF handler may
 * do straight from its context (KPT_PF_DIRECT), and where a histogram finds
 * its value (kpt_agg.direct). The host and VM suites check that the results
 * equal the generic path's; this table checks the choice itself, including
 * every reason to decline.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "prepare/plan.h"

static struct sysinfo si;

static int reg(const char *name)
{
	return resolve_reg_offset(si.regs_btf, name);
}

/* An unkeyed, unfiltered log2 histogram of argument 0, read from base/param. */
static struct kpt_probe_entry hist_of(int base, int param, unsigned int pflags)
{
	struct kpt_probe_entry e;

	memset(&e, 0, sizeof(e));
	e.flags = pflags;
	e.nargs = 1;
	e.agg.action = KPT_ACT_HIST;
	e.agg.value_sub_argi = 0xff;
	e.args[0].base = base;
	e.args[0].param = param;
	e.args[0].store = KPT_ST_RAW;
	e.args[0].size = 8;
	e.args[0].count = 1;
	return e;
}

/* -1: not direct; else the kpt_agg.direct chosen. */
static int mark(struct kpt_probe_entry e)
{
	plan_mark_direct(&si, &e);
	return (e.flags & KPT_PF_DIRECT) ? e.agg.direct : -1;
}

static void sources(void)
{
	static const char *const regs[] = { "di", "si", "dx", "cx", "r8", "r9" };
	int i;

	for (i = 0; i < 6; i++) {
		CHECK_INT(mark(hist_of(KPT_BASE_REG, reg(regs[i]), 0)), i, regs[i]);
		CHECK_INT(mark(hist_of(KPT_BASE_ARG, i, 0)), i, "$argN, N <= 6");
	}
	CHECK_INT(mark(hist_of(KPT_BASE_REG, reg("ax"), KPT_PF_RETURN)), KPT_DIRECT_AX, "%ax");
	CHECK_INT(mark(hist_of(KPT_BASE_RETVAL, 0, KPT_PF_RETURN)), KPT_DIRECT_AX, "$retval");
	CHECK_INT(mark(hist_of(KPT_BASE_REG, reg("ax"), KPT_PF_USER)), KPT_DIRECT_AX,
		  "%ax of a uprobe");
	CHECK_INT(mark(hist_of(KPT_BASE_TPFIELD, 24, KPT_PF_TP)), KPT_DIRECT_TPFIELD,
		  "tracepoint field");

	CHECK_INT(mark(hist_of(KPT_BASE_REG, reg("bx"), 0)), -1, "%bx: not an argument register");
	CHECK_INT(mark(hist_of(KPT_BASE_REG, reg("sp"), 0)), -1, "%sp");
	CHECK_INT(mark(hist_of(KPT_BASE_ARG, 6, 0)), -1, "$arg7: on the stack");
	CHECK_INT(mark(hist_of(KPT_BASE_STACK, 0, 0)), -1, "$stack0");
	CHECK_INT(mark(hist_of(KPT_BASE_STACKP, 0, 0)), -1, "$stack");
	CHECK_INT(mark(hist_of(KPT_BASE_IMM, 0, 0)), -1, "an immediate");
	CHECK_INT(mark(hist_of(KPT_BASE_EDATA, 0, KPT_PF_RETURN)), -1, "entry data");
	CHECK_INT(mark(hist_of(KPT_BASE_TPFIELD, 24, 0)), -1, "a field without a tracepoint");
	CHECK_INT(mark(hist_of(KPT_BASE_REG, reg("di"), KPT_PF_TP)), -1,
		  "a register on a tracepoint");
}

/* The value's own form: a register as it is, narrowed at most. */
static void value_forms(void)
{
	static const struct {
		struct kpt_fetch f;	/* base and param are %si's */
		int want;
		const char *what;
	} rows[] = {
		{ { .store = KPT_ST_RAW, .size = 8, .count = 1, .nderef = 1 }, -1, "+0(%si): memory" },
		{ { .store = KPT_ST_MEM, .size = 8, .count = 1 }, -1, "a store from memory" },
		{ { .store = KPT_ST_RAW, .size = 8, .count = 2 }, -1, "an array" },
		{ { .store = KPT_ST_RAW, .size = 8, .count = 1, .flags = KPT_FF_BITFIELD }, -1,
		  "a bitfield" },
		{ { .store = KPT_ST_RAW, .size = 2, .count = 1 }, 1, "a u16 of %si (narrowed in BPF)" },
	};
	struct kpt_probe_entry e;
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		e = hist_of(KPT_BASE_REG, reg("si"), 0);
		e.args[0] = rows[i].f;
		e.args[0].base = KPT_BASE_REG;
		e.args[0].param = reg("si");
		CHECK_INT(mark(e), rows[i].want, rows[i].what);
	}
}

static void the_rest_of_the_probe(void)
{
	struct kpt_probe_entry e;

	e = hist_of(KPT_BASE_REG, reg("di"), 0);
	e.agg.action = KPT_ACT_COUNT;
	CHECK_INT(mark(e), -1, "count");
	e.agg.action = KPT_ACT_PRINT;
	CHECK_INT(mark(e), -1, "a record");
	e.agg.action = KPT_ACT_SAVE_ARGS;
	CHECK_INT(mark(e), -1, "entry arguments saved for a return");

	/* latency: both halves, unless keyed or filtered */
	e = hist_of(KPT_BASE_REG, reg("di"), 0);
	e.nargs = 0;
	e.agg.action = KPT_ACT_LAT_START;
	CHECK_INT(mark(e), 0, "latency entry");
	e.nargs = 1;
	CHECK_INT(mark(e), 0, "latency entry with a register argument");
	e.pre.nops = 1;
	CHECK_INT(mark(e), -1, "latency entry with a filter");
	e = hist_of(KPT_BASE_REG, reg("di"), KPT_PF_RETURN);
	e.nargs = 0;
	e.agg.action = KPT_ACT_LAT_END;
	CHECK_INT(mark(e), 0, "latency return");
	e.agg.nkeys = 1;
	CHECK_INT(mark(e), -1, "latency --by");
	e.agg.nkeys = 0;
	e.nargs = 1;
	e.args[0].nderef = 1;
	CHECK_INT(mark(e), -1, "latency return with a memory read");

	e = hist_of(KPT_BASE_REG, reg("di"), 0);
	e.agg.nkeys = 1;
	CHECK_INT(mark(e), -1, "--by");
	e = hist_of(KPT_BASE_REG, reg("di"), 0);
	e.pre.nops = 1;
	CHECK_INT(mark(e), -1, "a filter before fetching");
	e = hist_of(KPT_BASE_REG, reg("di"), 0);
	e.post.nops = 1;
	CHECK_INT(mark(e), -1, "a filter after fetching");
	e = hist_of(KPT_BASE_REG, reg("di"), 0);
	e.agg.value_sub_argi = 0;
	CHECK_INT(mark(e), -1, "--slack: a difference of two");
	e = hist_of(KPT_BASE_REG, reg("ax"), KPT_PF_RETURN | KPT_PF_EDATA);
	CHECK_INT(mark(e), -1, "a return with entry arguments");
	e = hist_of(KPT_BASE_REG, reg("di"), 0);
	e.agg.value_argi = 1;
	CHECK_INT(mark(e), -1, "the value argument out of range");

	/* Other arguments: not fetched on the direct path, so none may fault. */
	e = hist_of(KPT_BASE_REG, reg("di"), 0);
	e.nargs = 2;
	e.args[1] = e.args[0];
	e.args[1].base = KPT_BASE_REG;
	e.args[1].param = reg("bx");
	CHECK_INT(mark(e), 0, "another register beside it");
	e.args[1].base = KPT_BASE_COMM;
	e.args[1].store = KPT_ST_COMM;
	CHECK_INT(mark(e), 0, "$comm beside it");
	e.args[1].base = KPT_BASE_REG;
	e.args[1].store = KPT_ST_STRING;
	CHECK_INT(mark(e), -1, "a string beside it");
	e.args[1].store = KPT_ST_RAW;
	e.args[1].nderef = 1;
	CHECK_INT(mark(e), -1, "a dereference beside it");
	e.args[1].nderef = 0;
	e.args[1].base = KPT_BASE_STACK;
	CHECK_INT(mark(e), -1, "a stack read beside it");
	e.args[1].base = KPT_BASE_ARG;
	e.args[1].param = 7;
	CHECK_INT(mark(e), -1, "$arg8 beside it");

	/* marked once, unmarked when the probe changes */
	e = hist_of(KPT_BASE_REG, reg("di"), 0);
	plan_mark_direct(&si, &e);
	e.pre.nops = 1;
	plan_mark_direct(&si, &e);
	CHECK(!(e.flags & KPT_PF_DIRECT), "a probe given a filter is no longer direct");
}

/*
 * plan_regs_used(): the pt_regs words the handler copies, found from the
 * same register offsets the resolver gives (BTF), so the words agree with
 * struct kpt_regs as the kernel lays out pt_regs.
 */
static void regs_used(void)
{
	static const struct {
		const char *label;
		int base;
		const char *reg;	/* KPT_BASE_REG: its name */
		int param;
		uint32_t want;		/* besides ip */
	} t[] = {
		{ "%di", KPT_BASE_REG, "di", 0, 1u << KPT_W_DI },
		{ "%r9", KPT_BASE_REG, "r9", 0, 1u << KPT_W_R9 },
		{ "%ax", KPT_BASE_REG, "ax", 0, 1u << KPT_W_AX },
		{ "%sp", KPT_BASE_REG, "sp", 0, 1u << KPT_W_SP },
		{ "$arg1", KPT_BASE_ARG, NULL, 0, 1u << KPT_W_DI },
		{ "$arg4", KPT_BASE_ARG, NULL, 3, 1u << KPT_W_CX },
		{ "$arg6", KPT_BASE_ARG, NULL, 5, 1u << KPT_W_R9 },
		{ "$arg7: on the stack", KPT_BASE_ARG, NULL, 6, 1u << KPT_W_SP },
		{ "$stack2", KPT_BASE_STACK, NULL, 2, 1u << KPT_W_SP },
		{ "$stack", KPT_BASE_STACKP, NULL, 0, 1u << KPT_W_SP },
		{ "$retval", KPT_BASE_RETVAL, NULL, 0, 1u << KPT_W_AX },
		{ "$comm", KPT_BASE_COMM, NULL, 0, 0 },
		{ "\\1", KPT_BASE_IMM, NULL, 0, 0 },
		{ "entry data", KPT_BASE_EDATA, NULL, 0, 0 },
		{ "@+0x10: ip", KPT_BASE_IPREL, NULL, 0, 0 },
	};
	struct kpt_probe_entry e;
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		e = hist_of(t[i].base, t[i].reg ? reg(t[i].reg) : t[i].param, 0);
		CHECK(plan_regs_used(&e) == (t[i].want | 1u << KPT_W_IP),
		      "regs used by %s: 0x%llx, want 0x%x", t[i].label,
		      (unsigned long long)plan_regs_used(&e), t[i].want | 1u << KPT_W_IP);
	}
	/* the union over arguments; none: ip alone, for a record's */
	e = hist_of(KPT_BASE_REG, reg("si"), 0);
	e.nargs = 3;
	e.args[1] = e.args[0];
	e.args[1].base = KPT_BASE_RETVAL;
	e.args[2] = e.args[0];
	e.args[2].param = reg("dx");
	CHECK(plan_regs_used(&e) == (1u << KPT_W_SI | 1u << KPT_W_AX | 1u << KPT_W_DX |
					1u << KPT_W_IP), "regs used by three arguments");
	e.nargs = 0;
	CHECK(plan_regs_used(&e) == 1u << KPT_W_IP, "regs used by no argument");
	/* what it cannot place: everything */
	e = hist_of(KPT_BASE_REG, 8 * KPT_REG_WORDS, 0);
	CHECK(plan_regs_used(&e) == ~0ull, "a register offset past pt_regs: all");
	e = hist_of(99, 0, 0);
	CHECK(plan_regs_used(&e) == ~0ull, "an unknown base: all");
}

/*
 * plan_direct_stream(): which printing probes the handler may write
 * straight into the ring buffer, and the layout it gets: the generic
 * record's (each slot and size as compile_probe() laid them out).
 */
static struct kpt_probe_entry stream_of(int nargs)
{
	static const char *const regs[] = { "di", "si", "dx", "cx", "r8", "r9", "ax", "di",
					    "si" };
	static const unsigned char sizes[] = { 8, 4, 2, 1, 8, 4, 8, 1, 2 };
	struct kpt_probe_entry e;
	unsigned int pos = KPT_HDR_SIZE + (nargs + 7) / 8;
	int i;

	memset(&e, 0, sizeof(e));
	e.nargs = nargs;
	e.agg.action = KPT_ACT_PRINT;
	for (i = 0; i < nargs; i++) {
		e.args[i].base = KPT_BASE_REG;
		e.args[i].param = reg(regs[i % 9]);
		e.args[i].store = KPT_ST_RAW;
		e.args[i].size = sizes[i % 9];
		e.args[i].count = 1;
		pos = (pos + e.args[i].size - 1) & ~(e.args[i].size - 1u);
		e.args[i].slot = pos;
		pos += e.args[i].size;
	}
	e.fixed_size = pos;
	return e;
}

static bool ds(struct kpt_probe_entry e)
{
	struct kpt_direct_stream d;

	return plan_direct_stream(&si, &e, &d);
}

static void direct_streams(void)
{
	static const struct {
		const char *reg;	/* a register of another name */
		int base, param, store, nderef, count, flags;
		const char *what;
	} args[] = {
		{ "bx", 0, 0, 0, 0, 0, 0, "%bx: not an argument register" },
		{ NULL, KPT_BASE_ARG, 6, 0, 0, 0, 0, "$arg7: on the stack" },
		{ NULL, 0, 0, 0, 1, 0, 0, "a memory read" },
		{ NULL, 0, 0, KPT_ST_STRING, 0, 0, 0, "a string" },
		{ NULL, 0, 0, 0, 0, 2, 0, "an array" },
		{ NULL, 0, 0, 0, 0, 0, KPT_FF_BITFIELD, "a bitfield" },
		{ NULL, KPT_BASE_COMM, 0, KPT_ST_COMM, 0, 0, 0, "$comm" },
		{ NULL, KPT_BASE_TPFIELD, 24, 0, 0, 0, 0, "a tracepoint field" },
	};
	static const struct {
		unsigned int flags;
		int pre, post, action;	/* action 0: print */
		const char *what;
	} probes[] = {
		{ KPT_PF_TP, 0, 0, 0, "a tracepoint" },
		{ 0, 1, 0, 0, "a filter before fetching" },
		{ 0, 0, 1, 0, "a filter after fetching" },
		{ KPT_PF_RETURN | KPT_PF_EDATA, 0, 0, 0, "a return with entry arguments" },
		{ 0, 0, 0, KPT_ACT_SAVE_ARGS, "an entry saving arguments for its return" },
		{ 0, 0, 0, KPT_ACT_HIST, "an aggregation" },
	};
	struct kpt_direct_stream d;
	struct kpt_probe_entry e;
	struct kpt_fetch *f;
	int i;

	e = stream_of(7);
	CHECK(plan_direct_stream(&si, &e, &d), "six argument registers and %%ax");
	CHECK_INT(d.size, e.fixed_size, "the record's size");
	CHECK_INT(d.nargs, 7, "arguments");
	for (i = 0; i < 7; i++) {
		CHECK_INT(d.args[i].reg, i, "argument register i, %%ax as KPT_DIRECT_AX");
		CHECK_INT(d.args[i].slot, e.args[i].slot, "the slot compile_probe() gave");
		CHECK_INT(d.args[i].size, e.args[i].size, "the size");
	}
	e = stream_of(8);
	e.args[3].base = KPT_BASE_ARG;
	e.args[3].param = 5;
	e.args[5].base = KPT_BASE_RETVAL;
	e.flags = KPT_PF_RETURN | KPT_PF_USER;
	CHECK(plan_direct_stream(&si, &e, &d) && d.args[3].reg == 5 &&
	      d.args[5].reg == KPT_DIRECT_AX && d.flags == e.flags,
	      "$arg6 and $retval at a uretprobe, eight arguments");
	CHECK(ds(stream_of(0)) , "no argument: the header alone");

	CHECK(!ds(stream_of(9)), "nine arguments: more than the handler unrolls");
	/* argument 1 made what the handler cannot take as it is (0, NULL:
	 * argument 1's own register, as it is) */
	for (i = 0; i < (int)(sizeof(args) / sizeof(args[0])); i++) {
		e = stream_of(2);
		f = &e.args[1];
		if (args[i].reg)
			f->param = reg(args[i].reg);
		if (args[i].base) {
			f->base = args[i].base;
			f->param = args[i].param;
		}
		f->store = args[i].store ? args[i].store : f->store;
		f->nderef = args[i].nderef;
		f->count = args[i].count ? args[i].count : f->count;
		f->flags = args[i].flags;
		CHECK(!ds(e), "%s", args[i].what);
	}
	/* the probe */
	for (i = 0; i < (int)(sizeof(probes) / sizeof(probes[0])); i++) {
		e = stream_of(2);
		e.flags = probes[i].flags;
		e.pre.nops = probes[i].pre;
		e.post.nops = probes[i].post;
		e.agg.action = probes[i].action ? probes[i].action : KPT_ACT_PRINT;
		CHECK(!ds(e), "%s", probes[i].what);
	}
	e = stream_of(2);
	e.args[1].slot = e.fixed_size - 1;
	CHECK(!ds(e), "a slot past the record's end");
	e = stream_of(2);
	e.args[0].slot = KPT_HDR_SIZE;
	CHECK(!ds(e), "a slot over the fault bitmap");
	/* declined: nothing of a layout left for the loader */
	e = stream_of(2);
	e.pre.nops = 1;
	memset(&d, 0xff, sizeof(d));
	CHECK(!plan_direct_stream(&si, &e, &d) && d.size == 0 && d.nargs == 0,
	      "declined: size 0, the generic path");
}

/*
 * plan_direct_hist(): the parameters the handler takes as constants are
 * the probe's own, and it declines what the probe table must say.
 */
static bool dh(struct kpt_probe_entry e)
{
	struct kpt_direct_hist d;

	plan_mark_direct(&si, &e);
	return plan_direct_hist(&e, &d);
}

static void direct_hists(void)
{
	struct kpt_direct_hist d;
	struct kpt_probe_entry e;

	e = hist_of(KPT_BASE_REG, reg("si"), KPT_PF_OWN_STATS);
	e.args[0].size = 2;
	e.agg.value_signed = 1;
	e.agg.hist = KPT_H_LINEAR;
	e.agg.nbuckets = 18;
	e.agg.lin_min = -128;
	e.agg.lin_step = 16;
	plan_mark_direct(&si, &e);
	CHECK(plan_direct_hist(&e, &d), "an s16 of %%si, linear");
	CHECK(d.on && d.direct == 1 && d.size == 2 && d.is_signed && d.hist == KPT_H_LINEAR &&
	      d.own_stats && d.nbuckets == 18 && d.lin_min == -128 && d.lin_step == 16 &&
	      !d.tp_off && !d.tp_size, "its parameters, as the probe has them");
	e = hist_of(KPT_BASE_TPFIELD, 24, KPT_PF_TP);
	e.args[0].imm = 4;
	e.args[0].size = 4;
	e.agg.hist = KPT_H_LOGLIN;
	plan_mark_direct(&si, &e);
	CHECK(plan_direct_hist(&e, &d) && d.direct == KPT_DIRECT_TPFIELD && d.tp_off == 24 &&
	      d.tp_size == 4 && d.size == 4 && d.hist == KPT_H_LOGLIN && !d.own_stats,
	      "a tracepoint field: its offset and size, log-linear, kpt_hstat's stats");

	e = hist_of(KPT_BASE_REG, reg("di"), 0);
	e.nargs = 2;
	e.args[1] = e.args[0];
	e.args[1].nderef = 1;
	CHECK(!dh(e), "not a direct histogram (an argument that may fault)");
	e = hist_of(KPT_BASE_REG, reg("di"), 0);
	e.agg.hist_base = 65;
	CHECK(!dh(e), "not the run's first buckets");
	e = hist_of(KPT_BASE_REG, reg("di"), 0);
	e.agg.group = 1;
	CHECK(!dh(e), "the stats of another group");
	e = hist_of(KPT_BASE_REG, reg("di"), 0);
	e.agg.action = KPT_ACT_LAT_START;
	plan_mark_direct(&si, &e);
	memset(&d, 0xff, sizeof(d));
	CHECK(!!(e.flags & KPT_PF_DIRECT) && !plan_direct_hist(&e, &d) && !d.on && !d.nbuckets,
	      "a direct latency's half: declined, *dh zeroed");
}

int main(void)
{
	char msg[256];

	if (sysinfo_need_regs_btf(&si, msg, sizeof(msg))) {
		fprintf(stderr, "%s\n", msg);
		return 1;
	}
	sources();
	value_forms();
	the_rest_of_the_probe();
	regs_used();
	direct_streams();
	direct_hists();
	sysinfo_free(&si);
	return check_report();
}
