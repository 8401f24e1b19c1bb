/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * kptrace diff A B: two runs' --json tables compared key by key.
 *
 * Histograms and latencies: the two-sample Kolmogorov-Smirnov test on the
 * bucketed distributions (latency's "fine" log-linear buckets when both rows
 * have them, the printed rows otherwise). Counts: the conditional binomial
 * test of B given A + B at p = 1/2 (the runs lasted equally long). A key is
 * called different when p < --threshold and its p50, p90 or p99 (or count)
 * moved by at least --min-shift percent beyond sampling noise: the gap
 * between the two runs' 99% confidence intervals of the quantile, so that a
 * tail quantile resting on a handful of events does not decide the verdict
 * (one of a few thousand events counts when it moved 4 times over); or when
 * its count alone differs, by the count's test.
 * Exit status as diff(1): 0 same, 1 different, 2 trouble.
 *
 * The pieces are here so tests/unit/test_diff.c can test each one.
 */
#ifndef KPT_DIFF_H
#define KPT_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* One bucket: count events in [lo, hi); lo may be -inf, hi +inf (open ends). */
struct diff_bucket {
	double lo, hi;
	uint64_t count;
};

enum diff_kind { DIFF_COUNT, DIFF_HIST, DIFF_LATENCY };

/* One row of a file, the tables of -i's intervals summed into one. */
struct diff_row {
	char *id;			/* type, group, event and key, \x1f apart: what rows match by */
	char *group, *event;
	char *key;			/* the key's canonical JSON (names sorted), "{}" unkeyed */
	void *key_json;			/* the key (a json_t *), for --json */
	enum diff_kind kind;
	bool marker;			/* a count row of zero (key null): the probe ran, no key */
	uint64_t count;
	bool has_minmax;
	double min, max;
	struct diff_bucket *coarse, *fine;
	size_t ncoarse, nfine;
	bool has_fine;
	int tables;			/* how many tables (intervals) were summed */
	int line;			/* its first line */
};

struct diff_file {
	const char *path;
	struct diff_row *rows;		/* sorted by id, one per id */
	size_t n, cap;
	int tables;			/* the most tables of one key: -i's intervals */
};

/* Q(lambda) = P(K > lambda), K Kolmogorov's distribution. */
double diff_kolmogorov_q(double lambda);

/*
 * The largest distance of the two bucketed CDFs over every bucket edge of
 * either. Where an edge cuts a bucket of the other run, that run's CDF is only
 * known to lie in a range; the smallest distance the ranges allow is taken, so
 * D never overstates the difference.
 */
double diff_ks_d(const struct diff_bucket *a, size_t na, const struct diff_bucket *b, size_t nb);

/* The asymptotic p-value of D for samples of na and nb: Q(D sqrt(na nb / (na + nb))). */
double diff_ks_p(double d, uint64_t na, uint64_t nb);

/* Two-sided p-value of b given a + b events, each B's with probability 1/2. */
double diff_binomial_p(uint64_t a, uint64_t b);

/*
 * Quantile q of the buckets (sorted by lo) as kptrace's tables compute it:
 * rank ceil(q N); rank 1 and N are min and max when known (has_minmax);
 * otherwise the midpoint of the rank's bucket, clamped to [min, max].
 * 0, or -1 when there is nothing to take it from.
 */
int diff_quantile(const struct diff_bucket *b, size_t n, double q, bool has_minmax, double min,
		  double max, double *out);

/* z of a quantile's two-sided 99% confidence interval: what sampling alone moves it by */
#define DIFF_QCI_Z	2.576

/*
 * Quantile q's 99% confidence interval [lo, hi] from the buckets, without
 * assuming a distribution: the values (as diff_quantile() takes them) at ranks
 * N q -+ DIFF_QCI_Z sqrt(N q (1 - q)), the upper one rank further, within
 * [1, N]. 0, or -1 when there is nothing to take it from.
 */
int diff_quantile_ci(const struct diff_bucket *b, size_t n, double q, bool has_minmax, double min,
		     double max, double *lo, double *hi);

/*
 * The fine (log-linear) bucket whose lower edge is lo: its [lo, hi). -1 when
 * lo is no bucket's lower edge.
 */
int diff_fine_bucket(double lo, struct diff_bucket *out);

/*
 * One NDJSON line into row (zeroed first). 0, 1 for a line of no table (a
 * latency's open starts, --over's calls: skipped), or -1 with the reason
 * in err (without the FILE:LINE: the caller adds).
 */
int diff_parse_row(const char *text, struct diff_row *row, char *err, size_t errlen);
void diff_row_free(struct diff_row *row);

/* A file's rows, intervals summed. 0, or -1 with "FILE:LINE: why" or "FILE: why" in err. */
int diff_load(const char *path, struct diff_file *f, char *err, size_t errlen);
void diff_file_free(struct diff_file *f);

/* The command with its output and diagnostics on the given streams; the exit status. */
int diff_main(int argc, char **argv, FILE *out, FILE *errf);

/* kptrace diff [options] A B (argv[0] "diff"): diff_main() on stdout and stderr. */
int kpt_diff(int argc, char **argv);

#endif /* KPT_DIFF_H */
