/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * In-kernel aggregation, its definition: each probe's action (struct
 * kpt_agg) from the options of hist, count and latency. Reading and
 * printing the maps is agg/agg.h's.
 */
#ifndef KPT_AGGDEF_H
#define KPT_AGGDEF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "prepare/event.h"
#include "kptrace.h"

struct agg_opts {
	enum kpt_hist_kind kind;	/* KPT_H_LOG2 (default), KPT_H_LINEAR */
	const char *field;		/* hist: the argument to bucket; NULL: the first */
	const char *sub_field;		/* hist: bucket field - sub_field (kmalloc --slack) */
	int64_t lin_min, lin_max, lin_step;
	const char *by;			/* "comm,pid,ARG..." or NULL */
	const char *unit;		/* latency: "ns", "us" (default) or "ms" */
	int top;			/* count: rows to print, 0 = all */
	bool zeros;			/* count: a row of 0 for a probe nothing hit */
	int pmu_n;			/* latency --pmu: counters per call */
	/* count --sum/--avg/--min/--max FIELD: FIELD's statistics per key,
	 * AGG_ST_* columns; sort_by: the column the rows sort by (0: COUNT) */
	const char *stat_field;
	unsigned int stats, sort_by;
	const struct ev_desc *evs;	/* every probe's: a pair's end names its start's */
};

#define AGG_ST_SUM	1u
#define AGG_ST_AVG	2u
#define AGG_ST_MIN	4u
#define AGG_ST_MAX	8u

/* Whether --by's key name is one of its own (comm, pid, tid, cpu), not an argument. */
bool agg_builtin_key(const char *name);

/*
 * Whether a key of g may print as a kernel symbol: an argument that can hold
 * a text address (:symbol, or 64 bits wide). Only then is kallsyms read.
 */
bool agg_keys_symbolic(const struct kpt_agg *g, const struct ev_desc *ev);

/*
 * Configure probe ev for action (KPT_ACT_HIST, _COUNT, _LAT_START, _LAT_END;
 * peer is the LAT_START probe of a LAT_END). Unkeyed histograms take their
 * buckets from *next_bucket. Returns 0 or -EINVAL with msg.
 */
int agg_setup(const struct agg_opts *o, enum kpt_action action, const struct ev_desc *ev,
	      uint32_t peer, struct kpt_agg *g, uint32_t *next_bucket, char *msg, size_t msglen);

/*
 * Key part i's argument: probe ev's, or at a pair's end a field of its
 * start (key_peer), whose descriptor is in the same table (ev->index is
 * ev's place in it).
 */
const struct ev_arg *agg_key_arg(const struct ev_desc *ev, const struct kpt_agg *g, int i);
/* The probe that makes key i of probe ev's g: ev, or a pair's start (key_peer). */
const struct ev_desc *agg_key_ev(const struct ev_desc *ev, const struct kpt_agg *g, int i);

/* Whether key kind kind (KPT_K_*) is a stack: kstack or ustack. */
bool agg_key_is_stack(int kind);
/* A key argument that may be a kernel text address: it prints as a symbol. */
bool agg_key_symbolic(const struct ev_arg *a);

#endif /* KPT_AGGDEF_H */
