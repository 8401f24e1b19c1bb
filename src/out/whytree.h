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

/* What the run printed, for its last line. */
struct why_counts {
	unsigned long calls;	/* root calls printed */
	unsigned long cut;	/* of them, logs past a bound (marked) */
	unsigned long bad;	/* records that did not parse */
};

struct perfetto;

/* The log rec of len bytes, its probes' events evs[nevs], to f; and to pf
 * (--perfetto), when given, as nested slices. */
void whytree_print(FILE *f, bool json, struct perfetto *pf, const struct ev_desc *evs, int nevs,
		   const void *rec, size_t len, struct why_counts *c);

#endif /* KPT_WHYTREE_H */
