// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * kptrace diff's comparison: the two files' rows walked in id order, each
 * key tested (KS on its buckets, or the binomial test on its count) and
 * called the same or different.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diff/diff.h"
#include "diff/internal.h"

const char *const diff_q_name[NQ] = { "p50", "p90", "p99", "max" };
static const double q_at[NQ] = { 0.5, 0.9, 0.99, 1.0 };

/* An id's section (type, group, event): its length up to the key. */
static size_t sect_len(const char *id)
{
	const char *k = strrchr(id, SEP[0]);

	return k ? (size_t)(k - id) : strlen(id);
}

/* Whether two ids are of one section (type, group, event). */
bool diff_same_sect(const char *x, const char *y)
{
	size_t n = sect_len(x);

	return n == sect_len(y) && !strncmp(x, y, n);
}

/* |B - A| / |A|, infinite from 0 to anything else. */
static double rel_shift(double a, double b)
{
	if (a == b)
		return 0;
	if (a == 0)
		return INFINITY;
	return fabs(b - a) / fabs(a);
}

static void quantiles(const struct diff_row *r, bool fine, double *q, bool *ok)
{
	const struct diff_bucket *b = fine ? r->fine : r->coarse;
	size_t n = fine ? r->nfine : r->ncoarse, i;

	for (i = 0; i < NQ; i++) {
		if (i == QMAX && r->has_minmax) {
			q[i] = r->max;
			ok[i] = r->count > 0;
			continue;
		}
		ok[i] = !diff_quantile(b, n, q_at[i], r->has_minmax, r->min, r->max, &q[i]);
	}
}

/*
 * Quantile i's move from A to B beyond both runs' confidence intervals: the
 * nearer ends of A's and of B's, *x and *y (equal when the intervals
 * overlap). -1 when a run has no interval.
 */
static int q_ends(const struct result *res, int i, double *x, double *y)
{
	const struct diff_row *run[2] = { res->a, res->b };
	const struct diff_bucket *b;
	double lo[2], hi[2];
	size_t n;
	int s;

	for (s = 0; s < 2; s++) {
		b = res->fine ? run[s]->fine : run[s]->coarse;
		n = res->fine ? run[s]->nfine : run[s]->ncoarse;
		if (diff_quantile_ci(b, n, q_at[i], run[s]->has_minmax, run[s]->min, run[s]->max,
				     &lo[s], &hi[s]))
			return -1;
	}
	*x = *y = 0;
	if (lo[1] > hi[0])
		*x = hi[0], *y = lo[1];
	else if (hi[1] < lo[0])
		*x = lo[0], *y = hi[1];
	return 0;
}

/* How many times the larger of x and y is the smaller (1 when equal). */
static double factor(double x, double y)
{
	double lo = x < y ? x : y, hi = x < y ? y : x;

	if (lo == hi)
		return 1;
	return lo > 0 ? hi / lo : INFINITY;
}

/* Two runs' distributions of one key: KS on the finest buckets both have. */
static int compare_hist(struct result *res, const struct opts *o)
{
	const struct diff_row *a = res->a, *b = res->b;
	int i;

	res->fine = diff_fine_ok(a) && diff_fine_ok(b) && (a->has_fine || b->has_fine);
	quantiles(a, res->fine, res->q[0], res->qok[0]);
	quantiles(b, res->fine, res->q[1], res->qok[1]);
	if (res->fine)
		res->d = diff_ks_d(a->fine, a->nfine, b->fine, b->nfine);
	else
		res->d = diff_ks_d(a->coarse, a->ncoarse, b->coarse, b->ncoarse);
	if (res->d < 0)
		return -ENOMEM;
	res->p = diff_ks_p(res->d, a->count, b->count);
	/*
	 * The shift: the largest gap between the runs' confidence intervals of
	 * p50, p90 and p99. Runs of one workload differ by more than samples of
	 * one distribution do (the bulk moves by a fine bucket), so KS alone is
	 * nearly always significant. A quantile's move counts only beyond what
	 * its rank allows, and p90 and p99 by --min-shift only with SHIFT_TAIL
	 * events above them in both runs: a p99 of 1200 calls is the dozen
	 * slowest, which the machine's other work moves by half from one run to
	 * the next. Two 99% intervals apart are significant by themselves,
	 * where KS, weak in the tails, is not (4% of calls 20 times slower).
	 */
	res->shift = 0;
	for (i = Q50; i <= Q99; i++) {
		double tail = (double)(a->count < b->count ? a->count : b->count) * (1 - q_at[i]);
		double x, y;

		if ((i != Q50 && tail < SHIFT_TAIL_JUMP) || q_ends(res, i, &x, &y))
			continue;
		/*
		 * A thinner tail (p99 of 1000 to 10000 events) moves by half
		 * from run to run, by 3 times under a loaded host's bursts (1 ms
		 * sleeps: p99 3.6 ms, then 12 ms), not by TAIL_JUMP past its
		 * intervals: from there on it counts (a 138 us p99 turned 2.4 ms).
		 */
		if (i != Q50 && tail < SHIFT_TAIL) {
			res->tail_jump |= factor(x, y) >= TAIL_JUMP;
			continue;
		}
		res->shift = rel_shift(x, y) > res->shift ? rel_shift(x, y) : res->shift;
	}
	/* the runs' counts as a count's: 3 times the calls is a change whatever their shape */
	res->p_count = diff_binomial_p(a->count, b->count);
	res->count_moved = res->p_count < o->threshold &&
			   rel_shift((double)a->count, (double)b->count) >= o->min_shift;
	res->significant = res->p < o->threshold;
	res->differs = (res->significant && res->shift >= o->min_shift) || res->count_moved ||
		       res->tail_jump;
	return 0;
}

/* Counts (or a key in one run, or without events in one): the binomial test. */
static void compare_count(struct result *res, const struct opts *o)
{
	uint64_t a = res->a ? res->a->count : 0, b = res->b ? res->b->count : 0;

	res->d = -1;
	res->p = diff_binomial_p(a, b);
	res->shift = rel_shift((double)a, (double)b);
	res->significant = res->p < o->threshold;
	res->differs = res->significant && res->shift >= o->min_shift;
	/* a histogram's quantiles where it has events, to show beside the count */
	if (res->a && res->a->kind != DIFF_COUNT && res->a->count)
		quantiles(res->a, res->a->has_fine, res->q[0], res->qok[0]);
	if (res->b && res->b->kind != DIFF_COUNT && res->b->count)
		quantiles(res->b, res->b->has_fine, res->q[1], res->qok[1]);
}

static int compare_one(struct result *res, const struct opts *o)
{
	if (res->a && res->b && res->a->kind != DIFF_COUNT && res->a->count && res->b->count)
		return compare_hist(res, o);
	compare_count(res, o);
	return 0;
}

/* Whether a and b have a section (type, group, event) in common. */
bool diff_any_common(const struct diff_file *a, const struct diff_file *b)
{
	size_t i = 0, j = 0;

	while (i < a->n && j < b->n) {
		size_t la = sect_len(a->rows[i].id), lb = sect_len(b->rows[j].id);
		size_t l = la < lb ? la : lb;
		int c = strncmp(a->rows[i].id, b->rows[j].id, l);

		if (!c && la == lb)
			return true;
		/* a section that is a prefix of the other sorts first (SEP is lowest) */
		if (c < 0 || (!c && la < lb))
			i++;
		else
			j++;
	}
	return false;
}

/* The two files' rows walked in id order: a result per key, markers left out. */
int diff_compare_all(const struct diff_file *a, const struct diff_file *b, const struct opts *o,
		     struct result **out, size_t *nout)
{
	struct result *res = calloc(a->n + b->n + 1, sizeof(*res));
	size_t i = 0, j = 0, n = 0;

	if (!res)
		return -ENOMEM;
	while (i < a->n || j < b->n) {
		int c = i == a->n ? 1 : j == b->n ? -1 : strcmp(a->rows[i].id, b->rows[j].id);
		struct result *r = &res[n];

		r->a = c <= 0 ? &a->rows[i++] : NULL;
		r->b = c >= 0 ? &b->rows[j++] : NULL;
		if ((r->a ? r->a : r->b)->marker)
			continue;
		if (compare_one(r, o)) {
			free(res);
			return -ENOMEM;
		}
		/* against a run without events, every event is news: 0 errors to 3 is a change */
		if (!a->n || !b->n)
			r->differs = (r->a ? r->a : r->b)->count > 0;
		n++;
	}
	*out = res;
	*nout = n;
	return 0;
}

const struct diff_row *diff_res_row(const struct result *r)
{
	return r->a ? r->a : r->b;
}

/* Results sorted by diff_res_cmp(): the index past the section that r[i] begins. */
size_t diff_sect_end(const struct result *r, size_t i, size_t n)
{
	size_t j = i + 1;

	while (j < n && diff_same_sect(diff_res_row(&r[i])->id, diff_res_row(&r[j])->id))
		j++;
	return j;
}

/* Sections in id order; in each, keys in both runs first, by p, then by key. */
int diff_res_cmp(const void *x, const void *y)
{
	const struct result *a = x, *b = y;
	const char *ia = diff_res_row(a)->id, *ib = diff_res_row(b)->id;
	size_t la = sect_len(ia), lb = sect_len(ib);
	int c = strncmp(ia, ib, la < lb ? la : lb);
	bool oa = !a->a || !a->b, ob = !b->a || !b->b;

	if (c || la != lb)
		return c ? c : la < lb ? -1 : 1;
	if (oa != ob)
		return oa ? 1 : -1;
	if (a->p != b->p)
		return a->p < b->p ? -1 : 1;
	return strcmp(diff_res_row(a)->key, diff_res_row(b)->key);
}
