/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Plan: every specialisation the verifier gets for this run, decided
 * here once the probes are compiled (prepare.h) and before anything loads.
 * Per probe it marks the probe table (KPT_PF_DIRECT, KPT_PF_OWN_STATS) and
 * the attach mechanism (ev_desc.multi/.tramp, backend.h); for the run it
 * fills struct plan, from which run.c fills the loader's rodata options and
 * which --dry-run prints.
 *
 * "Direct" is the BPF handler doing a probe's job from its context alone:
 * a direct histogram or latency (KPT_PF_DIRECT: no record, no fetch
 * interpreter, no kpt_aggregate()); a direct histogram's parameters as
 * constants (kpt_direct_hist, a run of that one probe); a direct stream (the
 * record written straight from the registers, kpt_direct_stream); a direct
 * tracepoint word (tp_direct_word).
 */
#ifndef KPT_PLAN_H
#define KPT_PLAN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "prepare/opts.h"
#include "prepare/probeset.h"
#include "prepare/resolve.h"
#include "kptrace.h"

/* Stacks: the frames taken (kpt_kstack_depth...), whether the stack-key maps are used. */
struct stack_plan {
	uint32_t kdepth, udepth;
	bool kkeys, ukeys;
	bool ucaller;	/* a user stack at a function's entry: its caller is added */
	bool ustacks;	/* a probe takes user stacks (-U, a ustack key) */
};

struct plan {
	bool keyed;		/* a probe uses the keyed aggregation map */
	int key_words;		/* the widest probe's key words (kpt_key_width()) */
	bool latency;		/* a latency pair: entry times and call depths */
	bool pairs;		/* latency --from/--to: start times by key (kpt_pairs) */
	int pair_words;		/* its key's words: --key's values, or the thread's one */
	bool pair_narrow;	/* each key one value of 32 bits at most (kpt_pair_key.w32) */
	bool pair_carry;	/* a start keeps key words for its end (--by of its fields) */
	bool any_task_ends;	/* an end is KPT_PF_ANY_TASK */
	bool cgroup_key;	/* a probe keys by cgroup or container */
	bool edata;		/* a return probe reads entry arguments */
	bool lat_emit;		/* latency --perfetto: each call a record (KPT_REC_CALL) */
	uint64_t lat_over;	/* latency --over: each call this long a KPT_REC_SLOW too */
	bool budget;		/* --budget: a bucket per probe, asked first at each hit */
	/* kptrace why: the condition (KPT_WHY_*), the root's return width, --slower */
	uint32_t why_cond, why_ret_size;
	uint64_t why_slower;
	uint32_t uses;		/* KPT_USE_*: what the probes need of the handler */
	uint32_t acts;		/* bit KPT_ACT_* of each probe's action */
	uint32_t max_nkeys;	/* the largest key count (agg.nkeys) */
	uint64_t regs_mask;	/* the pt_regs words they read (plan_regs_used()) */
	/* the BPF loops' bounds: the largest argument count, dereference chain
	 * and array of the run's probes */
	uint32_t max_args, max_deref, max_count;
	/* the smallest end of the run's tracepoints' fields: how far into a
	 * record kpt_tp may load (the kernel refuses, at attach, a program that
	 * reads past an event's last field); 0: no tracepoint */
	uint32_t tp_end;
	/* the record word every direct tracepoint histogram reads; 0: none, or they differ */
	uint32_t tp_direct_word;
	/* a run of one probe streamed straight from its registers; size 0: not */
	struct kpt_direct_stream ds;
	/* a run of one direct histogram, its parameters constants; on 0: not */
	struct kpt_direct_hist dh;
	/* a run of a direct end and its start on one tracepoint; on 0: not */
	struct kpt_direct_pair dp;
	/* a tp_btf histogram left to the generic path: why, for --dry-run ("" if none) */
	char tpbtf_not[192];
	/* each tp_btf slot's direct --from/--to probe; on 0: not (and why, if one is there) */
	struct kpt_tpbtf_pair tpair[KPT_TPBTF_SLOTS];
	char tpair_not[KPT_TPBTF_SLOTS][128];
	/* a value may print as a kernel symbol: kallsyms is read before attaching */
	bool wants_symbols;
	struct stack_plan stacks;	/* -K/-U's depths, the stack-key maps */
#define KPT_KSTACK_SLACK	8	/* frames -K DEPTH takes past DEPTH: the tracing's own */
};

/*
 * Whether probe ent's hits may be left out alone: a stream without entry
 * arguments, a histogram or a count. A latency's start and end, an entry
 * saver and the return that reads it must both be seen.
 */
bool budget_droppable(const struct kpt_probe_entry *ent);

/*
 * Plan ps's run: npmu is latency --pmu's counter count. 0, or a negative
 * errno with msg (the backend refused).
 */
int plan_make(const struct kpt_opts *env, struct sysinfo *si, struct probeset *ps, uint32_t npmu,
	      struct plan *pl, char *msg, size_t msglen);


/*
 * Once the probe's action and filters are set: mark it KPT_PF_DIRECT if the
 * BPF handler can do its job from its context alone, with no record, no
 * fetch interpreter and no kpt_aggregate(): an unkeyed histogram of an
 * argument register, %ax, the return value or a tracepoint field
 * (e->agg.direct says which), unfiltered or filtered by one comparison of
 * such a value with a constant (e->agg.fdirect: plan_make() keeps that to
 * a direct histogram, kpt_dh), or the two halves of an unkeyed, unfiltered
 * latency, or a --from/--to start or end keyed by the thread, the cpu or
 * one such value, unfiltered or filtered by one such comparison, with no
 * --by; in all, no argument that can fault. plan_make() leaves out runs
 * whose options need the generic path (--comm, --pmu, --over, --perfetto).
 */
void plan_mark_direct(const struct sysinfo *si, struct kpt_probe_entry *e);

/*
 * A printing probe that can be a direct stream (struct kpt_direct_stream in
 * include/kptrace.h: every argument a register as it is, no filter): fills
 * *ds with its record's layout and returns true; else false, *ds zeroed.
 * plan_make() keeps it to runs of that one probe, with no --pmu counters.
 */
bool plan_direct_stream(const struct sysinfo *si, const struct kpt_probe_entry *e,
			struct kpt_direct_stream *ds);

/*
 * A KPT_PF_DIRECT histogram (plan_mark_direct()) as a direct histogram
 * (struct kpt_direct_hist in include/kptrace.h): fills *dh and returns
 * true; else false, *dh zeroed. plan_make() keeps it to runs of that one
 * probe (a glob's histograms, one a function, read theirs from the table).
 */
bool plan_direct_hist(const struct kpt_probe_entry *e, struct kpt_direct_hist *dh);

/*
 * A run of two KPT_PF_DIRECT probes, a --to end and the --from start it
 * pairs with, on one classic tracepoint, neither ending other tasks' starts
 * (KPT_PF_ANY_TASK): fills *dp and returns true; else false, *dp zeroed.
 */
bool plan_direct_pair(const struct probeset *ps, struct kpt_direct_pair *dp);

/*
 * The tp_btf slot of probe i of evs: one a tp_btf probe, in order, the
 * numbering the plan's rodata and the loader's programs (setup_tpbtf())
 * share; -1 if it is not one or has none.
 */
int plan_tpbtf_slot(const struct ev_desc *evs, int i);

/*
 * A run's tp_btf direct pair probes, or else a run of one tp_btf direct
 * histogram or stream, back on the generic path,
 * where the kernel refused to load it: it types some tracepoints' pointer arguments
 * as scalars (ones that may hold an error or a flag: btf_ctx_access()),
 * which no BTF in user space says. False if the plan has none.
 */
bool plan_tpbtf_undo(struct probeset *ps, struct plan *pl);

/*
 * The words of struct pt_regs (enum kpt_reg_word) e's arguments read, and
 * ip, which a record holds: what the handler copies of its context.
 */
uint64_t plan_regs_used(const struct kpt_probe_entry *e);

#endif /* KPT_PLAN_H */
