/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The whole pipeline for one invocation. */
#ifndef KPT_RUN_H
#define KPT_RUN_H

#include "agg/agg.h"
#include "prepare/opts.h"

/* Returns 0 or a negative errno; messages are already printed. */
int kpt_run(const struct kpt_opts *env);

/*
 * An aggregation loaded and attached for serve, its tables read on demand.
 * run_start(): 0 with *out, or a negative errno (said on stderr). env must
 * outlive the run.
 */
struct run;
struct probeset;
struct loader;
int run_start(const struct kpt_opts *env, struct run **out);
/* Each series of the run's tables to fn (agg.h). */
void run_visit(struct run *r, agg_series_fn fn, void *arg);
/* --by container/cgroup: the keys of cgroups gone for after_ns deleted (their
 * series end); the number deleted, or a negative errno. */
int run_drop_gone(struct run *r, uint64_t after_ns);
const struct probeset *run_probes(const struct run *r);
struct loader *run_loader(struct run *r);
/* Detach and free; NULL-safe. */
void run_stop(struct run *r);

#endif /* KPT_RUN_H */
