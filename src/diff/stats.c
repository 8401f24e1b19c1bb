// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * kptrace diff's statistics: Kolmogorov's distribution, the two-sample KS
 * statistic of bucketed CDFs, the binomial test, quantiles and their
 * confidence intervals, the fine buckets' edges. See diff.h for the rules.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "agg/hist.h"
#include "diff/diff.h"
#include "diff/internal.h"
#include "kpt_buckets.h"

#define BINOM_TERMS	10000000	/* the exact tail's terms before the normal approximation */

double diff_kolmogorov_q(double lambda)
{
	double s = 0, t, q;
	int k;

	if (!(lambda > 0))
		return 1;
	if (lambda < 1.18) {
		/*
		 * Q = 1 - sqrt(2 pi)/l sum exp(-(2k-1)^2 pi^2 / (8 l^2)): the
		 * alternating series needs many terms for small lambda, this few.
		 */
		double c = -M_PI * M_PI / (8 * lambda * lambda);

		for (k = 1; k <= 64; k++) {
			t = exp(c * (2 * k - 1) * (2 * k - 1));
			s += t;
			if (t <= 1e-17 * s)
				break;
		}
		q = 1 - sqrt(2 * M_PI) / lambda * s;
	} else {
		/* Q = 2 sum (-1)^(k-1) exp(-2 k^2 l^2): a few terms from 1.18 on */
		for (k = 1; k <= 64; k++) {
			t = exp(-2.0 * k * k * lambda * lambda);
			s += (k & 1) ? t : -t;
			if (t <= 1e-17 * s)
				break;
		}
		q = 2 * s;
	}
	return q < 0 ? 0 : q > 1 ? 1 : q;
}

/* One run's bucket edges as points of mass, to sweep in order. */
struct edge_mass {
	double at;
	uint64_t count;
};

static int em_cmp(const void *x, const void *y)
{
	const struct edge_mass *a = x, *b = y;

	return a->at < b->at ? -1 : a->at > b->at;
}

static int dbl_cmp(const void *x, const void *y)
{
	const double *a = x, *b = y;

	return *a < *b ? -1 : *a > *b;
}

/* A run's CDF swept over increasing edges: below holds [L, U] at the last edge. */
struct cdf {
	struct edge_mass *lo, *hi;	/* each bucket's lower and upper edge, sorted */
	size_t n, ilo, ihi;
	uint64_t clo, chi, total;
};

static int cdf_init(struct cdf *c, const struct diff_bucket *b, size_t n)
{
	size_t i;

	memset(c, 0, sizeof(*c));
	c->lo = malloc((n ? n : 1) * sizeof(*c->lo));
	c->hi = malloc((n ? n : 1) * sizeof(*c->hi));
	if (!c->lo || !c->hi)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		c->lo[i] = (struct edge_mass){ b[i].lo, b[i].count };
		c->hi[i] = (struct edge_mass){ b[i].hi, b[i].count };
		c->total += b[i].count;
	}
	c->n = n;
	qsort(c->lo, n, sizeof(*c->lo), em_cmp);
	qsort(c->hi, n, sizeof(*c->hi), em_cmp);
	return 0;
}

/*
 * At edge e (increasing from call to call): L, the mass of buckets wholly
 * below e, and U, of buckets starting below e. Between them lies the CDF.
 */
static void cdf_at(struct cdf *c, double e, double *l, double *u)
{
	while (c->ihi < c->n && c->hi[c->ihi].at <= e)
		c->chi += c->hi[c->ihi++].count;
	while (c->ilo < c->n && c->lo[c->ilo].at < e)
		c->clo += c->lo[c->ilo++].count;
	*l = (double)c->chi / (double)c->total;
	*u = (double)c->clo / (double)c->total;
}

double diff_ks_d(const struct diff_bucket *a, size_t na, const struct diff_bucket *b, size_t nb)
{
	struct cdf ca, cb;
	double *edges = NULL, d = 0, la, ua, lb, ub, x;
	size_t i, ne = 0;

	if (cdf_init(&ca, a, na) || cdf_init(&cb, b, nb) ||
	    !(edges = malloc((2 * (na + nb) + 1) * sizeof(*edges)))) {
		d = -1;
		goto cleanup;
	}
	if (!ca.total || !cb.total)
		goto cleanup;
	for (i = 0; i < na + nb; i++) {
		const struct diff_bucket *k = i < na ? &a[i] : &b[i - na];

		if (isfinite(k->lo))
			edges[ne++] = k->lo;
		if (isfinite(k->hi))
			edges[ne++] = k->hi;
	}
	qsort(edges, ne, sizeof(*edges), dbl_cmp);
	for (i = 0; i < ne; i++) {
		if (i && edges[i] == edges[i - 1])
			continue;
		cdf_at(&ca, edges[i], &la, &ua);
		cdf_at(&cb, edges[i], &lb, &ub);
		/* the ranges' nearest points: 0 when they overlap */
		x = la - ub > lb - ua ? la - ub : lb - ua;
		if (x > d)
			d = x;
	}
cleanup:
	free(ca.lo);
	free(ca.hi);
	free(cb.lo);
	free(cb.hi);
	free(edges);
	return d;
}

double diff_ks_p(double d, uint64_t na, uint64_t nb)
{
	double ne;

	if (!na || !nb || !(d > 0))
		return 1;
	ne = (double)na * (double)nb / ((double)na + (double)nb);
	return diff_kolmogorov_q(d * sqrt(ne));
}

double diff_binomial_p(uint64_t a, uint64_t b)
{
	double n = (double)a + (double)b, m = (double)(a < b ? a : b), k, r = 1, s = 1, lp, p;
	long i;

	if (a == b)
		return 1;
	/*
	 * P(X <= m) for X ~ Bin(n, 1/2), summed from m down: each term is the
	 * one above times k / (n - k + 1) < 1, so the sum stops once they no
	 * longer count, in log space so that 0 vs 10^6 does not underflow.
	 */
	for (k = m, i = 0; k > 0 && i < BINOM_TERMS; k--, i++) {
		r *= k / (n - k + 1);
		s += r;
		if (r <= 1e-17 * s)
			break;
	}
	if (k > 0 && i == BINOM_TERMS) {
		/* past 10^7 terms (totals near 10^14): the normal approximation, continuity-corrected */
		double z = (fabs((double)a - (double)b) - 1) / sqrt(n);

		return z <= 0 ? 1 : erfc(z / M_SQRT2);
	}
	lp = lgamma(n + 1) - lgamma(m + 1) - lgamma(n - m + 1) - n * M_LN2;
	p = 2 * exp(lp + log(s));
	return p > 1 ? 1 : p;
}

uint64_t diff_bucket_total(const struct diff_bucket *b, size_t n)
{
	uint64_t t = 0;
	size_t i;

	for (i = 0; i < n; i++)
		t += b[i].count;
	return t;
}

/* A value in bucket k: its midpoint, an open end's from the run's min or max. */
static double bucket_mid(const struct diff_bucket *k, bool has_minmax, double min, double max)
{
	double lo = k->lo, hi = k->hi;

	if (!isfinite(lo) && !isfinite(hi))
		return has_minmax ? min + floor((max - min) / 2) : 0;
	if (!isfinite(lo)) {
		/* below the first edge: all that is known is [min, hi) */
		if (has_minmax && min < hi)
			return min + floor((hi - min) / 2);
		return hi - 1;
	}
	if (!isfinite(hi)) {
		if (has_minmax && max >= lo)
			return lo + floor((max + 1 - lo) / 2);
		return lo;
	}
	return lo + floor((hi - lo) / 2);
}

/* The value of the event of rank rank (1-based) as diff_quantile() takes it. */
static double rank_value(const struct diff_bucket *b, size_t n, uint64_t rank, uint64_t total,
			 bool has_minmax, double min, double max)
{
	uint64_t cum = 0;
	double v;
	size_t i;

	if (has_minmax && (rank == total || rank == 1))
		return rank == total ? max : min;
	for (i = 0; i + 1 < n; i++) {
		cum += b[i].count;
		if (cum >= rank)
			break;
	}
	v = bucket_mid(&b[i], has_minmax, min, max);
	if (has_minmax)
		v = v < min ? min : v > max ? max : v;
	return v;
}

int diff_quantile(const struct diff_bucket *b, size_t n, double q, bool has_minmax, double min,
		  double max, double *out)
{
	uint64_t total = diff_bucket_total(b, n);

	if (!total || !(q >= 0 && q <= 1))
		return -1;
	/* the text's own nearest rank, so both runs' quantiles are kptrace's */
	*out = rank_value(b, n, (uint64_t)hist_rank(q, total), total, has_minmax, min, max);
	return 0;
}

int diff_quantile_ci(const struct diff_bucket *b, size_t n, double q, bool has_minmax, double min,
		     double max, double *lo, double *hi)
{
	uint64_t total = diff_bucket_total(b, n);
	double s, rlo, rhi;

	if (!total || !(q >= 0 && q <= 1))
		return -1;
	/*
	 * The events below the quantile are Bin(N, q): its rank is known to
	 * within z sqrt(N q (1 - q)), and the events at those ranks bound it
	 * whatever the distribution (the order statistics' interval).
	 */
	s = DIFF_QCI_Z * sqrt((double)total * q * (1 - q));
	rlo = floor((double)total * q - s);
	rhi = ceil((double)total * q + s) + 1;
	rlo = rlo < 1 ? 1 : rlo;
	rhi = rhi > (double)total ? (double)total : rhi;
	*lo = rank_value(b, n, (uint64_t)rlo, total, has_minmax, min, max);
	*hi = rank_value(b, n, (uint64_t)rhi, total, has_minmax, min, max);
	return 0;
}

int diff_fine_bucket(double lo, struct diff_bucket *out)
{
	uint32_t b;
	__u64 v;

	if (!(lo >= 0 && lo < 0x1p64) || lo != floor(lo))
		return -1;
	v = (__u64)lo;
	b = kpt_loglin_bucket(v);
	if (kpt_loglin_lower(b) != v)
		return -1;
	out->lo = lo;
	/* up to the next bucket's edge, in doubles: the last one's is 2^64 */
	if (b < KPT_LOGLIN_SUB)
		out->hi = lo + 1;
	else
		out->hi = ldexp(KPT_LOGLIN_SUB + b % KPT_LOGLIN_SUB + 1, (int)(b / KPT_LOGLIN_SUB) - 1);
	return 0;
}
