/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Histograms for people and for programs: the bucket arrays the BPF side
 * counted with include/kpt_buckets.h (summed over CPUs by the caller) become
 * bpftrace's text histogram, one JSON object, percentiles and a latency
 * summary line. Nothing here allocates; the view only borrows the counts.
 *
 * Text (hist_print), bpftrace's layout: the title line as given, one row per
 * bucket from the first non-empty to the last non-empty one, then
 *	count N, sum S, avg A, min M, max X
 * and no empty line after it: the caller separates histograms (bpftrace
 * prints one after each map) and may add the summary line first. A row is a label padded to
 * 16 columns, the count right-aligned in 8, and " |" + bar + "|" with the bar
 * scaled to 52 '@' for the largest count (bpftrace's float arithmetic, so the
 * bars are the same). Where a label or a count is wider than that, the column
 * grows for every row instead of one row shifting. No events: "(no events)".
 *
 * Labels:
 *	log2		[0], [1], [2, 4), [4, 8) ... [1K, 2K) ... [8E, 16E): powers of
 *			1024 as K M G T P E, as bpftrace's hist()
 *	signed log2	(KPT_H_SLOG2, a signed value's) the negatives first, each
 *			log2 row's mirror: (-16E, -8E] ... (-4, -2], [-1], then [0],
 *			[1], [2, 4) ... as log2 (bpftrace puts them all in one
 *			"(..., 0)" row)
 *	linear		(..., MIN) below, [MIN, MIN+STEP) ..., [MAX, ...) above; K/M
 *			only when the step is a multiple of 1024, [N] for a step of
 *			1, as bpftrace's lhist()
 *	log-linear	merged into log2 rows (the fine buckets exist for
 *			percentiles): in "us", rows of microseconds, [0us, 1us),
 *			[1us, 2us) ... [256us, 512us), as bpftrace's hist(ns / 1000),
 *			exact because 1000 * 2^j is always a fine-bucket edge; in
 *			"ms" and "s", whose powers of two are not, the log2 rows of
 *			nanoseconds; otherwise the log2 rows above. With HIST_F_FINE
 *			one row per fine bucket, labelled as bpftrace's hist(v, 6),
 *			which has the same edges
 *
 * Units: a NULL unit prints plain numbers (K/M suffixes as above). "ns",
 * "us", "ms" and "s" mean the values are nanoseconds printed in that unit;
 * any other string is only appended. A scaled number is printed exactly,
 * trailing zeros dropped: 262144 ns is "262.144us", 1500000 ns in ms is
 * "1.5ms". Bucket edges are never rounded: log2 buckets are powers of two of
 * nanoseconds, [262.144us, 524.288us), and a rounded "[256us, 512us)" would
 * claim values the bucket does not hold. The average is sum / count truncated to an integer (of the
 * raw values: nanoseconds), as bpftrace's avg().
 *
 * Percentiles use the nearest-rank definition: the q-quantile of N values is
 * the r-th smallest, r = ceil(q * N) clamped to [1, N], N being the sum of the
 * bucket counts. r = 1 and r = N are stats.min and stats.max exactly (so p0
 * and p100 are exact); otherwise the estimate is the midpoint lo + w / 2 of
 * the bucket [lo, lo + w) holding the r-th value, clamped to [stats.min,
 * stats.max]. Bounds on |estimate - true| for a true value v:
 *	log-linear	exact for v < 128 (buckets of width 1); else <= v / 128,
 *			since w <= lo / 64 <= v / 64
 *	log2		exact for v < 2; else <= v / 2 (w = lo); signed log2
 *			likewise for |v|, a negative row's estimate the negated
 *			estimate of its mirror
 *	linear		<= STEP / 2 inside [MIN, MAX); below MIN and from MAX on,
 *			the midpoint of [stats.min, MIN) or [MAX, stats.max]
 * q * N is rounded to an integer rank when within 2^-40 of it (relative), so
 * 0.07 * 100 is rank 7, not 8.
 *
 * JSON (hist_print_json), one object without a newline, raw values whatever
 * the unit (nanoseconds for a time), bucket edges inclusive as bpftrace's:
 *	{"buckets":[{"min":LO,"max":HI,"count":C},...],
 *	 "count":N,"sum":S,"min":M,"max":X,"avg":A,
 *	 "p50":P,"p90":P,"p99":P,"p99_9":P,"fine":[[LO,C],...]}
 * The buckets are the text rows (the below-MIN bucket has no "min", the
 * from-MAX one no "max"; (-4, -2] is "min":-3,"max":-2, (-16E, -8E] is
 * "min":-2^63, the one s64 it holds); the percentiles only for log-linear
 * histograms, and with them "fine": the non-empty fine buckets, each its
 * lowest value and count (kptrace diff compares them).
 * min, max, avg and the percentiles are null without events.
 */
#ifndef KPT_HIST_H
#define KPT_HIST_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "kptrace.h"

/* hist_view.flags */
#define HIST_F_FINE	(1u << 0)	/* log-linear: a row per fine bucket */

struct hist_view {
	enum kpt_hist_kind kind;	/* KPT_H_LOG2, _SLOG2, _LINEAR, _LOGLIN */
	uint32_t nbuckets;		/* log2/loglin: fewer than the full count are zeros */
	const uint64_t *counts;		/* nbuckets entries */
	int64_t lin_min, lin_step;	/* KPT_H_LINEAR (kpt_linear_bucket's layout) */
	struct kpt_aggval stats;	/* count/sum/min/max of the raw values */
	const char *unit;		/* NULL, "ns", "us", "ms", "s" (values in ns), other */
	unsigned int flags;		/* HIST_F_* */
	int value_signed;		/* stats.sum/min/max hold s64 values */
};

/* Title line (if title is not NULL), rows, stats line. */
void hist_print(FILE *f, const char *title, const struct hist_view *h);
/* One JSON object, no newline. */
void hist_print_json(FILE *f, const struct hist_view *h);
/*
 * Nearest-rank q-quantile, q in [0, 1], in raw units (nanoseconds for a
 * time). Returns 0, -ENOENT without events, -EINVAL for a bad q or view.
 */
int hist_percentile(const struct hist_view *h, double q, double *out);
/* The nearest rank of q in total events, ceil(q * total) within [1, total] (total > 0). */
unsigned __int128 hist_rank(double q, unsigned __int128 total);
/*
 * One event as one line, "TITLE count 1, V" (V in h->unit), where the rows
 * and the summary lines would each say V again: true, or false with
 * nothing printed when the view does not hold exactly one event.
 */
bool hist_print_one(FILE *f, const char *title, const struct hist_view *h);
/* "count N, avg A, p50 P, p90 P, p99 P, p99.9 P, max X" and a newline, in h->unit. */
void hist_print_latency_summary(FILE *f, const struct hist_view *h);

/* Room for any row label hist_print() prints, its NUL included. */
#define HIST_LABEL_MAX	112

/* One of hist_print()'s rows, for another rendering of the same table (svg.c). */
struct hist_row {
	uint32_t index;			/* its place in the view's rows: the same bucket in
					 * another view of the same kind and unit */
	uint64_t count;
	double lo, hi;			/* [lo, hi) in raw units, to place a value in the row */
	char label[HIST_LABEL_MAX];	/* as the text prints it: "[1K, 2K)" */
};
typedef void (*hist_row_fn)(void *arg, const struct hist_row *r);

/*
 * fn with each row hist_print() prints, in its order (the empty ones between
 * included; none without events). Returns how many, or -EINVAL for a bad view.
 */
int hist_rows(const struct hist_view *h, hist_row_fn fn, void *arg);
/* hist_print()'s last line, "count N, sum S, avg A, min M, max X", without a newline. */
void hist_stats_line(const struct hist_view *h, char *buf, size_t len);
/* hist_percentile(), and the value as the summary line prints it ("2113.536us"). */
int hist_percentile_text(const struct hist_view *h, double q, double *out, char *buf, size_t len);

#endif /* KPT_HIST_H */
