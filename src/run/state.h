/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One run's state, shared by run/'s files (run.c executes it, hooks.c
 * gives the consumer its outputs' callbacks); nothing outside run/ sees it.
 */
#ifndef KPT_RUN_STATE_H
#define KPT_RUN_STATE_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "load/budget.h"
#include "load/cfi.h"
#include "load/ident.h"
#include "load/loader.h"
#include "load/pmu.h"
#include "load/target.h"
#include "prepare/opts.h"
#include "prepare/probeset.h"
#include "prepare/resolve.h"
#include "out/whytree.h"
#include "run/consumer.h"

/* One run's state, from its definitions to its last report. */
struct run {
	const struct kpt_opts *env;
	struct sysinfo si;
	struct probeset ps;
	struct pmu_set pmu;
	struct target target;
	struct loader ld;
	struct load_opts lo;
	struct outsink *sink;
	FILE *out;
	FILE *svg;		/* --svg's file, open from before loading */
	struct perfetto *pf;	/* --perfetto's trace, open from before loading */
	struct call_starts *over;	/* latency --over: the starts' records, for its lines */
	pid_t child;
	int go_fd;		/* the -c child's pipe: it execs once written */
	int status;
	struct costwin cw;	/* BPF_ENABLE_STATS for the profile's COST; fd -1: none */
	double cw_due;		/* when cw's window next closes or opens (mono s) */
	struct modwatch *mw;	/* module functions as their modules come and go */
	char stats_off[160];	/* why COST is not known, "" when it is */
	struct budget_ctl budget;	/* --budget's controller (plan.budget) */
	struct agg_ctx *ac;	/* the aggregations' report, while consuming */
	uint64_t ucut;		/* user stacks printed cut short (stack_user_shown()) */
	struct why_counts why;	/* kptrace why: the calls printed */
	struct tchart *tc;	/* kptrace timechart's forks and execs, then its tables */
	int tc_err;		/* its report's */
	struct ctr_table *ctrs;	/* --container, --by cgroup/container: the host's cgroups */
	char ctr_root[32];	/* --container: the first one's /proc/PID/root, its uprobes' */
	struct cfi_set cfi;	/* the binaries' unwind tables, for user stacks */
	struct usym *us;	/* the user symbolizer, while consuming; NULL: none */
	struct ident_set ident;	/* no BPF cookies: the probes' keys (load/ident.h) */
};

/*
 * The consumer's callbacks for what this run writes besides its lines and
 * tables: --perfetto's events and slices, timechart's marks and report,
 * latency --over's calls. 0, or -ENOMEM.
 */
int run_hooks(struct run *r, struct consume_opts *co);

#endif /* KPT_RUN_STATE_H */
