/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Prometheus's exposition formats, written: text 0.0.4 and OpenMetrics 1.0
 * (which differ in a counter's TYPE name and the closing # EOF), and
 * kptrace's histograms as classic histograms whose le buckets are edges of
 * kptrace's own buckets, so every cumulative count is exact.
 */
#ifndef KPT_PROMEXP_H
#define KPT_PROMEXP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "kptrace.h"

struct prom_out {
	FILE *f;
	bool openmetrics;
};

/* A sample's labels, written as {a="x",b="y"}: values escaped, names made valid. */
struct prom_labels {
	char buf[2048];
	size_t len;
	bool cut;		/* a label did not fit: the series is left out */
};

void prom_labels_init(struct prom_labels *l);
void prom_label(struct prom_labels *l, const char *name, const char *value);

/* A metric name from anything: [a-zA-Z0-9_], not starting with a digit. */
void prom_name(const char *in, char *out, size_t len);

/* # HELP and # TYPE of family name (a counter's name without _total). */
void prom_family(const struct prom_out *o, const char *name, const char *type, const char *help);

/* One sample: name + suffix, its labels, a value. */
void prom_sample_u64(const struct prom_out *o, const char *name, const char *suffix,
		     const struct prom_labels *l, uint64_t v);
void prom_sample_f(const struct prom_out *o, const char *name, const char *suffix,
		   const struct prom_labels *l, double v);

/* The shortest text that reads back as v, +Inf and NaN as Prometheus spells them. */
void prom_double(double v, char *buf, size_t len);

/* An exposed bucket: counts of raw buckets [0, upto) are at most le. */
struct prom_edge {
	double le;
	uint32_t upto;
};
#define PROM_EDGES_MAX	KPT_LINEAR_MAX

/*
 * The exposed buckets of a histogram of kind (enum kpt_hist_kind) with
 * nbuckets raw buckets: every raw edge for log2 and linear up to 2^32, and
 * the powers of two from 2^10 to 2^34 for a latency's log-linear one (ns,
 * exposed in seconds when seconds is set). Returns how many (+Inf not
 * among them).
 */
int prom_edges(int kind, uint32_t nbuckets, int64_t lin_min, int64_t lin_step, bool seconds,
	       struct prom_edge *out, int max);

/*
 * Thin n edges to one in every: those a multiple of every from the edge at
 * 0 (else the first), so each kept le is still one of kptrace's and its
 * count exact. Returns the edges kept.
 */
int prom_edges_every(struct prom_edge *e, int n, int every);

/* A classic histogram's samples (_bucket, _sum, _count) of raw counts. */
void prom_histogram(const struct prom_out *o, const char *name, const struct prom_labels *l,
		    const struct prom_edge *edges, int nedges, const uint64_t *counts,
		    uint32_t nbuckets, double sum);

/* The end of an exposition (OpenMetrics' # EOF). */
void prom_end(const struct prom_out *o);

#endif /* KPT_PROMEXP_H */
