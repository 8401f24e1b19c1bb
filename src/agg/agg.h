/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * In-kernel aggregation, userspace half: read the maps and print
 * histograms, counts and latency summaries, periodically and at exit.
 * Each probe's action (struct kpt_agg) is set by prepare/aggdef.h.
 */
#ifndef KPT_AGG_H
#define KPT_AGG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "load/loader.h"
#include "out/stackout.h"
#include "prepare/aggdef.h"
#include "prepare/event.h"
#include "sys/container.h"
#include "sys/ksyms.h"
#include "kptrace.h"

struct pmu_set;
struct svg_doc;

struct agg_ctx;

/*
 * One series of what agg_report() prints, for an output of another shape
 * (serve's exposition): a histogram (counts: its g->nbuckets raw buckets)
 * or a count row (counts NULL; stats holds its count and --sum's sum).
 */
struct agg_series {
	int probe;			/* its probe (a group's first) */
	const struct kpt_key *key;	/* NULL: unkeyed */
	const uint64_t *counts;
	const struct kpt_aggval *stats;
	bool over;			/* the overflow series: events past --max-keys */
};
typedef void (*agg_series_fn)(void *arg, const struct agg_ctx *c, const struct agg_series *s);

struct agg_ctx {
	FILE *out;
	bool json;
	const struct agg_opts *opts;
	struct loader *ld;
	const struct ev_desc *evs;
	const struct kpt_probe_entry *ents;
	int n;
	const struct ksyms *ksyms;
	struct stack_syms syms;		/* kstack/ustack keys: who names their frames */
	bool folded;			/* --folded: the stacks only, root;...;leaf COUNT */
	bool interval_reset;		/* -i: reset the maps after each report */
	const struct pmu_set *pmu;	/* latency --pmu, or NULL */
	agg_series_fn visit;		/* set: each series to it, nothing printed */
	void *visit_arg;
	struct svg_doc *svg;		/* --svg: each table printed is drawn in it too */
	/* --budget: scale[g], what group g's counts are multiplied by for an
	 * estimate (1: exact); NULL: no budget */
	double *scale;
	/* cgroup and container keys: who names their ids (NULL: printed as numbers) */
	struct ctr_table *ctrs;
};

/* Key part i of probe's key k as the text prints it, and the part's name. */
void agg_key_text(const struct agg_ctx *c, int probe, const struct kpt_key *k, int i, char *buf,
		  size_t len);
const char *agg_key_name(const struct agg_ctx *c, int probe, int i);
/* The first word of key part i of probe's key k (a stack's id). */
uint64_t agg_key_word(const struct agg_ctx *c, int probe, const struct kpt_key *k, int i);

/*
 * What probe i of evs[n] is called in every output: a latency's function
 * timed (its entry's), a --from/--to pair's "from->to", else its event.
 */
void agg_probe_name(const struct ev_desc *evs, int n, const struct kpt_agg *g, int i, char *buf,
		    size_t len);

/*
 * The keyed entries (counts, buckets, stats) whose cgroup or container key
 * drop(arg, id) names, deleted from the kernel's map: their series are gone.
 * The number deleted, or -ENOMEM.
 */
typedef bool (*agg_drop_fn)(void *arg, uint64_t cgroup_id);
int agg_drop_keys(const struct agg_ctx *c, agg_drop_fn drop, void *arg);

/* Key part i's word (a cgroup key's id). */
uint64_t agg_key_word(const struct agg_ctx *c, int probe, const struct kpt_key *k, int i);

/* Print every aggregating probe's tables; then, for interval output, clear. */
void agg_report(const struct agg_ctx *c, bool clear);

#endif /* KPT_AGG_H */
