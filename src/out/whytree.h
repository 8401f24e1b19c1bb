/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * kptrace why: a root call's log (KPT_REC_WHY, bpf/why.bpf.h) as the call
 * tree ftrace's function_graph tracer prints (with funcgraph-retval), the
 * error's origin marked and its stack from the root; or one JSON object;
 * and, for --perfetto, as nested slices.
 */
#ifndef KPT_WHYTREE_H
#define KPT_WHYTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "prepare/event.h"
#include "sys/ksyms.h"

/* What the run printed, for its last line. */
struct why_counts {
	unsigned long calls;	/* root calls printed */
	unsigned long cut;	/* of them, logs past a bound (marked) */
	unsigned long bad;	/* records that did not parse */
};

struct perfetto;

/* Where and how the trees go. */
struct why_print {
	FILE *f;
	bool json;
	struct perfetto *pf;		/* --perfetto, or NULL */
	const struct ev_desc *evs;	/* the run's probes' events */
	int nevs;
	const struct ksyms *ks;		/* the root's arguments' symbols */
};

/* The log rec of len bytes to o->f; and to o->pf, when given, as nested slices. */
void whytree_print(const struct why_print *o, const void *rec, size_t len, struct why_counts *c);

#endif /* KPT_WHYTREE_H */
