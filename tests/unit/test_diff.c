// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * kptrace diff (src/diff/), every expected value computed here another way:
 * - Kolmogorov's Q against published critical values and this file's own
 *   alternating series (many terms);
 * - the KS statistic on hand-made buckets (aligned and not), and that binning
 *   never makes D larger than the exact D of the samples bucketed;
 * - the binomial test against exact sums in integers and the normal tail;
 * - quantiles by hand and against a real latency row's own p50/p90/p99;
 * - the fine layout from issue 21's formula; key canonicalization;
 * - malformed inputs and usage errors: exit 2 and FILE:LINE: with the reason;
 *   exit 0 and 1 on rows that agree and differ;
 * - --svg: a panel per key in the text's order headed by its verdict and P,
 *   each run's bars adding up to its count, a latency's fine buckets merged
 *   to at most 48 rows, a count table one panel; an unwritable path refused
 *   before either file is read.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "diff/diff.h"
#include "kpt_buckets.h"
#include "util/svg.h"

#define NEAR(got, want, tol, ctx)					\
	CHECK(fabs((got) - (want)) <= (tol), "%s: got %.12g, want %.12g (+-%g)", (ctx), \
	      (double)(got), (double)(want), (double)(tol))

/* Q(l) = 2 sum (-1)^(k-1) exp(-2 k^2 l^2), 400 terms: slow but plain. */
static double q_series(double l)
{
	double s = 0;
	int k;

	for (k = 1; k <= 400; k++)
		s += (k & 1 ? 2 : -2) * exp(-2.0 * k * k * l * l);
	return s;
}

static void test_kolmogorov(void)
{
	/* critical values of the Kolmogorov distribution: P(K > l) */
	static const struct {
		double l, q, tol;
	} tab[] = {
		{ 1.22, 0.10, 0.002 }, { 1.36, 0.049, 0.001 }, { 1.48, 0.025, 0.001 },
		{ 1.63, 0.01, 0.0005 }, { 1.73, 0.005, 0.0003 }, { 1.95, 0.001, 0.0001 },
	};
	char ctx[64];
	double l;
	size_t i;

	for (i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		snprintf(ctx, sizeof(ctx), "Q(%.2f)", tab[i].l);
		NEAR(diff_kolmogorov_q(tab[i].l), tab[i].q, tab[i].tol, ctx);
	}
	/* both of stats.c's forms, either side of where it switches */
	for (l = 0.3; l < 3.0; l += 0.01) {
		snprintf(ctx, sizeof(ctx), "Q(%.2f) vs series", l);
		NEAR(diff_kolmogorov_q(l), q_series(l), 1e-12, ctx);
	}
	NEAR(diff_kolmogorov_q(0), 1, 0, "Q(0)");
	NEAR(diff_kolmogorov_q(0.05), 1, 1e-15, "Q(0.05)");
	NEAR(diff_kolmogorov_q(10), 0, 1e-80, "Q(10)");
	CHECK(diff_kolmogorov_q(5) > 0, "Q(5) = 2 exp(-50) is not 0");
}

/* The exact two-sample D of sorted samples x (n) and y (m). */
static double exact_d(const double *x, size_t n, const double *y, size_t m)
{
	size_t i = 0, j = 0;
	double d = 0, v;

	while (i < n && j < m) {
		v = x[i] < y[j] ? x[i] : y[j];
		while (i < n && x[i] <= v)
			i++;
		while (j < m && y[j] <= v)
			j++;
		if (fabs((double)i / n - (double)j / m) > d)
			d = fabs((double)i / n - (double)j / m);
	}
	return d;
}

static int dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Deterministic: splitmix64. */
static uint64_t rng = 0x6469666674657374ull;

static double rnd01(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return (double)((z ^ (z >> 31)) >> 11) * 0x1p-53;
}

/* Samples into buckets of width w from 0: [k w, (k+1) w). */
static size_t bucketize(const double *x, size_t n, double w, struct diff_bucket *b)
{
	size_t i, nb = 0;

	for (i = 0; i < n; i++) {
		double lo = floor(x[i] / w) * w;

		if (nb && b[nb - 1].lo == lo) {
			b[nb - 1].count++;
		} else {
			b[nb++] = (struct diff_bucket){ lo, lo + w, 1 };
		}
	}
	return nb;
}

static void test_ks(void)
{
	struct diff_bucket a[] = { { 0, 1, 5 }, { 1, 2, 5 } }, b[] = { { 0, 1, 2 }, { 1, 2, 8 } };
	struct diff_bucket wide[] = { { 0, 2, 10 } }, narrow[] = { { 0, 1, 10 } };
	struct diff_bucket lo[] = { { 0, 1, 10 } }, hi[] = { { 1, 3, 10 } };
	struct diff_bucket open_a[] = { { -INFINITY, 0, 3 }, { 0, 10, 7 } };
	struct diff_bucket open_b[] = { { -INFINITY, 0, 7 }, { 0, 10, 2 }, { 10, INFINITY, 1 } };
	static double x[4000], y[4000];
	struct diff_bucket bx[4000], by[4000];
	size_t i, nx, ny;
	int round;

	NEAR(diff_ks_d(a, 2, b, 2), 0.3, 1e-15, "aligned: |5/10 - 2/10|");
	NEAR(diff_ks_d(a, 2, a, 2), 0, 0, "a run against itself");
	/* [0,2) and [0,1): at 1 the wide run's CDF is anywhere in [0, 1] */
	NEAR(diff_ks_d(wide, 1, narrow, 1), 0, 0, "a bucket cut by the other run's edge");
	NEAR(diff_ks_d(lo, 1, hi, 1), 1, 0, "disjoint");
	NEAR(diff_ks_d(open_a, 2, open_b, 3), 0.4, 1e-15, "open ends: |3/10 - 7/10| at 0");
	NEAR(diff_ks_d(a, 2, b, 0), 0, 0, "an empty run");

	/* p: Q(D sqrt(n m / (n + m))) */
	NEAR(diff_ks_p(0.3, 100, 100), q_series(0.3 * sqrt(50)), 1e-12, "p of D 0.3, 100 vs 100");
	NEAR(diff_ks_p(0.3, 60, 30), q_series(0.3 * sqrt(20)), 1e-12, "p of D 0.3, 60 vs 30");
	NEAR(diff_ks_p(0, 100, 100), 1, 0, "p of D 0");
	NEAR(diff_ks_p(1, 60, 60), q_series(sqrt(30)), 1e-20, "p of D 1, 60 vs 60");
	CHECK(diff_ks_p(1, 60, 60) < 1e-20, "60 vs 60 disjoint: p %g", diff_ks_p(1, 60, 60));

	/*
	 * Binned D is at most the samples' exact D (binning only hides), and
	 * with fine buckets close to it: uniform [0, 1) against [s, 1 + s).
	 */
	for (round = 0; round < 20; round++) {
		double s = round * 0.01, w = round % 2 ? 0.01 : 0.1, dx, db;

		for (i = 0; i < 4000; i++) {
			x[i] = rnd01() * 1000;
			y[i] = (rnd01() + s) * 1000;
		}
		qsort(x, 4000, sizeof(*x), dcmp);
		qsort(y, 4000, sizeof(*y), dcmp);
		nx = bucketize(x, 4000, w * 1000, bx);
		ny = bucketize(y, 4000, w * 1000, by);
		dx = exact_d(x, 4000, y, 4000);
		db = diff_ks_d(bx, nx, by, ny);
		CHECK(db <= dx + 1e-12, "shift %.2f width %.2f: binned D %g above exact %g", s, w,
		      db, dx);
		CHECK(db >= dx - w - 0.01, "shift %.2f width %.2f: binned D %g far below %g", s, w,
		      db, dx);
	}
}

/* C(n, k) for n <= 60, exactly in integers. */
static double choose(int n, int k)
{
	uint64_t c = 1;
	int i;

	for (i = 1; i <= k; i++)
		c = c * (uint64_t)(n - k + i) / (uint64_t)i;
	return (double)c;
}

static void test_binomial(void)
{
	static const struct {
		uint64_t a, b;
	} small[] = { { 0, 8 }, { 2, 8 }, { 10, 20 }, { 20, 10 }, { 1, 0 }, { 29, 31 }, { 0, 60 } };
	double want, tail;
	char ctx[64];
	size_t i;
	int k;

	for (i = 0; i < sizeof(small) / sizeof(small[0]); i++) {
		int n = (int)(small[i].a + small[i].b);
		int m = (int)(small[i].a < small[i].b ? small[i].a : small[i].b);

		tail = 0;
		for (k = 0; k <= m; k++)
			tail += choose(n, k);
		want = 2 * tail / ldexp(1, n);
		want = want > 1 ? 1 : want;
		snprintf(ctx, sizeof(ctx), "binomial %lu vs %lu", (unsigned long)small[i].a,
			 (unsigned long)small[i].b);
		NEAR(diff_binomial_p(small[i].a, small[i].b), want, want * 1e-9, ctx);
	}
	NEAR(diff_binomial_p(0, 8), 2.0 / 256, 1e-15, "0 vs 8: 2 / 2^8");
	NEAR(diff_binomial_p(2, 8), 112.0 / 1024, 1e-12, "2 vs 8: 2 (1 + 10 + 45) / 2^10");
	NEAR(diff_binomial_p(5, 5), 1, 0, "5 vs 5");
	NEAR(diff_binomial_p(0, 0), 1, 0, "0 vs 0");
	/* large: the normal tail, continuity-corrected, is within a percent */
	want = erfc((2000 - 1) / sqrt(2002000.0) / sqrt(2));
	NEAR(diff_binomial_p(1000000, 1002000), want, want * 0.01, "10^6 vs 10^6 + 2000");
	CHECK(diff_binomial_p(1000000, 2000000) < 1e-300 || diff_binomial_p(1000000, 2000000) == 0,
	      "10^6 vs 2 10^6: p %g", diff_binomial_p(1000000, 2000000));
	CHECK(diff_binomial_p(0, 1000000) == 0, "0 vs 10^6 underflows to 0, not NaN: %g",
	      diff_binomial_p(0, 1000000));
	CHECK(diff_binomial_p(1000, 1000) == 1, "1000 vs 1000");
}

static void test_quantile(void)
{
	struct diff_bucket b[] = { { 0, 10, 10 }, { 10, 20, 10 } };
	struct diff_bucket open[] = { { -INFINITY, 0, 4 }, { 0, 100, 4 }, { 100, INFINITY, 2 } };
	struct diff_row r;
	char err[256];
	double v = -1;
	size_t i;
	/* a real row (tests/host/target.c's sleep workload) and its own percentiles */
	static const char row[] =
		"{\"group\":\"latency\",\"event\":\"kpt_sleep_0_ret\",\"type\":\"latency\","
		"\"hist\":{\"buckets\":[{\"min\":1024000,\"max\":2047999,\"count\":10},"
		"{\"min\":2048000,\"max\":4095999,\"count\":11},{\"min\":4096000,\"max\":8191999,"
		"\"count\":9}],\"count\":30,\"sum\":72919349,\"min\":1078623,\"max\":4130860,"
		"\"avg\":2430644,\"p50\":2088960,\"p90\":4112384,\"p99\":4130860,\"p99_9\":4130860,"
		"\"fine\":[[1064960,3],[1081344,5],[1097728,2],[2064384,2],[2080768,6],[2097152,1],"
		"[2129920,1],[4063232,1],[4096000,8],[4128768,1]]}}";
	static const double want[] = { 2088960, 4112384, 4130860 }, qs[] = { 0.5, 0.9, 0.99 };

	CHECK(diff_quantile(b, 2, 0.5, false, 0, 0, &v) == 0 && v == 5, "p50 midpoint: %g", v);
	CHECK(diff_quantile(b, 2, 0.9, false, 0, 0, &v) == 0 && v == 15, "p90 midpoint: %g", v);
	CHECK(diff_quantile(b, 2, 1.0, true, 1, 19, &v) == 0 && v == 19, "q 1: max: %g", v);
	CHECK(diff_quantile(b, 2, 0.01, true, 1, 19, &v) == 0 && v == 1, "rank 1: min: %g", v);
	CHECK(diff_quantile(b, 2, 0.5, true, 7, 19, &v) == 0 && v == 7, "clamped to min: %g", v);
	CHECK(diff_quantile(b, 2, 0.5, false, 0, 0, &v) == 0 && v == 5, "again: %g", v);
	/* 0.07 * 100 is 7.000000000000001 in doubles: rank 7, not 8 */
	{
		struct diff_bucket hundred[100];

		for (i = 0; i < 100; i++)
			hundred[i] = (struct diff_bucket){ (double)i, i + 1.0, 1 };
		CHECK(diff_quantile(hundred, 100, 0.07, false, 0, 0, &v) == 0 && v == 6,
		      "rank ceil(0.07 * 100) = 7: bucket [6, 7): %g", v);
	}
	CHECK(diff_quantile(open, 3, 0.3, true, -7, 500, &v) == 0 && v == -4,
	      "open lower end: [min, 0) midpoint -7 + 3: %g", v);
	CHECK(diff_quantile(open, 3, 0.85, true, -7, 500, &v) == 0 && v == 300,
	      "open upper end: [100, max] midpoint: %g", v);
	CHECK(diff_quantile(open, 3, 0.3, false, 0, 0, &v) == 0 && v == -1,
	      "open lower end, no min: its edge: %g", v);
	CHECK(diff_quantile(b, 0, 0.5, false, 0, 0, &v) == -1, "no buckets");

	CHECK(diff_parse_row(row, &r, err, sizeof(err)) == 0, "real latency row: %s", err);
	CHECK(r.has_fine && r.nfine == 10 && r.count == 30, "its fine buckets: %zu", r.nfine);
	for (i = 0; i < 3; i++) {
		CHECK(diff_quantile(r.fine, r.nfine, qs[i], r.has_minmax, r.min, r.max, &v) == 0 &&
		      v == want[i], "real row q %g: got %.0f, the row says %.0f", qs[i], v, want[i]);
	}
	diff_row_free(&r);
}

/* The layout of issue 21: lower(b) = b below 64, else (64 + b % 64) << (b / 64 - 1). */
static uint64_t lower(uint32_t b)
{
	return b < 64 ? b : (uint64_t)(64 + b % 64) << (b / 64 - 1);
}

static void test_fine(void)
{
	struct diff_bucket k;
	uint32_t b;
	int bad = 0, badnon = 0;

	for (b = 0; b < 64 * 59 - 1; b++) {
		if (diff_fine_bucket((double)lower(b), &k) || k.lo != (double)lower(b) ||
		    k.hi != (double)lower(b + 1))
			bad++;
		/* between two edges: no edge (buckets 128 on are 2 and wider; a double's 1 is
		 * lost past 2^53) */
		if (b >= 128 && lower(b) < (1ull << 52) && !diff_fine_bucket((double)lower(b) + 1, &k))
			badnon++;
	}
	CHECK(bad == 0, "%d fine buckets not [lower(b), lower(b + 1))", bad);
	CHECK(badnon == 0, "%d values between edges taken as edges", badnon);
	CHECK(diff_fine_bucket(ldexp(127, 57), &k) == 0 && k.hi == 0x1p64,
	      "the last bucket ends at 2^64: %g", k.hi);
	CHECK(diff_fine_bucket(-1, &k) == -1, "-1");
	CHECK(diff_fine_bucket(1.5, &k) == -1, "1.5");
	CHECK(diff_fine_bucket(0x1p64, &k) == -1, "2^64");
	CHECK(diff_fine_bucket(2064384, &k) == 0 && k.hi == 2080768,
	      "2064384's bucket is 16384 wide: %g", k.hi);
}

static void test_keys(void)
{
	static const char *const same[] = {
		"{\"group\":\"g\",\"event\":\"e\",\"type\":\"count\",\"count\":3,"
		"\"key\":{\"b\":\"1\",\"a\":\"2\"}}",
		"{\"type\":\"count\",\"key\":{\"a\":\"2\",\"b\":\"1\"},\"count\":4,"
		"\"event\":\"e\",\"group\":\"g\"}",
	};
	struct diff_row r[2];
	char err[256];
	int i;

	for (i = 0; i < 2; i++)
		CHECK(diff_parse_row(same[i], &r[i], err, sizeof(err)) == 0, "row %d: %s", i, err);
	CHECK_STR(r[0].key, "{\"a\":\"2\",\"b\":\"1\"}", "names sorted");
	CHECK_STR(r[0].id, r[1].id, "the same key, its names in another order");
	diff_row_free(&r[0]);
	diff_row_free(&r[1]);

	CHECK(diff_parse_row("{\"group\":\"g\",\"event\":\"e\",\"type\":\"count\",\"count\":1,"
			     "\"key\":{\"ustack\":[{\"symbol\":\"f\",\"offset\":89,\"address\":null}]}}",
			     &r[0], err, sizeof(err)) == 0, "stack key: %s", err);
	CHECK_STR(r[0].key, "{\"ustack\":[{\"address\":null,\"offset\":89,\"symbol\":\"f\"}]}",
		  "a stack's frames: names sorted, numbers as written");
	diff_row_free(&r[0]);

	CHECK(diff_parse_row("{\"group\":\"g\",\"event\":\"e\",\"type\":\"hist\","
			     "\"hist\":{\"buckets\":[],\"count\":0}}", &r[0], err, sizeof(err)) == 0,
	      "unkeyed hist: %s", err);
	CHECK(diff_parse_row("{\"group\":\"g\",\"event\":\"e\",\"type\":\"hist\",\"key\":{},"
			     "\"hist\":{\"buckets\":[],\"count\":0}}", &r[1], err, sizeof(err)) == 0,
	      "hist, key {}: %s", err);
	CHECK_STR(r[0].id, r[1].id, "no key and {} are the same key");
	CHECK_STR(r[0].key, "{}", "unkeyed");
	diff_row_free(&r[0]);
	diff_row_free(&r[1]);

	CHECK(diff_parse_row("{\"group\":\"g\",\"event\":\"e\",\"type\":\"count\",\"count\":0,"
			     "\"key\":null}", &r[0], err, sizeof(err)) == 0 && r[0].marker,
	      "count's row of zero: a marker");
	diff_row_free(&r[0]);
	CHECK(diff_parse_row("{\"group\":\"g\",\"event\":\"e\",\"type\":\"hist\","
			     "\"key\":{\"k\":\"<overflow>\"},"
			     "\"hist\":{\"buckets\":[{\"max\":-1,\"count\":2},{\"min\":0,\"max\":9,"
			     "\"count\":1},{\"min\":10,\"count\":1}],\"count\":4,"
			     "\"sum\":18446744073709551615}}", &r[0], err, sizeof(err)) == 0,
	      "linear, open ends, <overflow>, a sum past 2^63: %s", err);
	CHECK(r[0].ncoarse == 3 && isinf(r[0].coarse[0].lo) && r[0].coarse[0].hi == 0 &&
	      r[0].coarse[1].hi == 10 && isinf(r[0].coarse[2].hi), "open ends as infinities");
	diff_row_free(&r[0]);
	/* latency --from/--to's lines of no table: skipped, not refused */
	CHECK(diff_parse_row("{\"type\":\"open\",\"pair\":\"a->b\",\"key\":{},\"count\":2,"
			     "\"oldest_s\":1.5}", &r[0], err, sizeof(err)) == 1,
	      "a latency's open starts: skipped");
	CHECK(diff_parse_row("{\"type\":\"call\",\"pair\":\"a->b\",\"dur_ns\":9,"
			     "\"start\":null,\"end\":null}", &r[0], err, sizeof(err)) == 1,
	      "--over's call: skipped");
}

/* The command on files made here: its exit status, stdout and stderr. */
struct run {
	int rc;
	char *out, *err;
};

static char dir[] = "/tmp/kpt-test-diff.XXXXXX";

static char made[128][256];
static int nmade;

/* name in dir with text; the same name again is the same file, written anew. */
static const char *file(const char *name, const char *text)
{
	char *p = NULL;
	FILE *f;
	int i;

	for (i = 0; i < nmade && !p; i++)
		if (!strcmp(strrchr(made[i], '/') + 1, name))
			p = made[i];
	if (!p) {
		if (nmade == 128) {
			fprintf(stderr, "test_diff: more than 128 files\n");
			exit(2);
		}
		p = made[nmade++];
		snprintf(p, 256, "%s/%s", dir, name);
	}
	f = fopen(p, "w");
	if (!f) {
		perror(p);
		exit(2);
	}
	fputs(text, f);
	fclose(f);
	return p;
}

static void files_remove(void)
{
	int i;

	for (i = 0; i < nmade; i++)
		unlink(made[i]);
	rmdir(dir);
}

static struct run diff(const char *a, const char *b, const char *opt)
{
	char *argv[6] = { "diff" };
	int argc = 1;
	size_t lo = 0, le = 0;
	struct run r;
	FILE *out = open_memstream(&r.out, &lo), *err = open_memstream(&r.err, &le);

	if (opt)
		argv[argc++] = (char *)opt;
	if (a)
		argv[argc++] = (char *)a;
	if (b)
		argv[argc++] = (char *)b;
	r.rc = diff_main(argc, argv, out, err);
	fclose(out);
	fclose(err);
	return r;
}

static void run_free(struct run *r)
{
	free(r->out);
	free(r->err);
}

#define ROW_C(n)							\
	"{\"group\":\"uprobes\",\"event\":\"sz\",\"type\":\"count\",\"count\":" #n ",\"key\":{}}\n"
#define ROW_L	"{\"group\":\"latency\",\"event\":\"f_ret\",\"type\":\"latency\",\"hist\":" \
		"{\"buckets\":[{\"min\":0,\"max\":0,\"count\":1}],\"count\":1,\"min\":0,\"max\":0}}\n"

/* A count of key k. */
#define ROW_K(k, n)							\
	"{\"group\":\"uprobes\",\"event\":\"sz\",\"type\":\"count\",\"count\":" #n \
	",\"key\":{\"k\":" #k "}}\n"
/* ROW_L keyed by cpu CPU, in a file of that name. */
#define ROW_LFILE(name, cpu)						\
	file(name, "{\"group\":\"latency\",\"event\":\"f_ret\",\"type\":\"latency\","	\
	     "\"key\":{\"cpu\":" cpu "},\"hist\":{\"buckets\":[{\"min\":0,\"max\":0,"	\
	     "\"count\":1}],\"count\":1,\"min\":0,\"max\":0}}\n")

/* A latency of 60 events: N10 of 10 ns, N11 of 11 ns, one of TOP ns (its max MAX). */
#define ROW_F(N10, N11, TOP, MAX)					\
	"{\"group\":\"latency\",\"event\":\"f_ret\",\"type\":\"latency\",\"hist\":"	\
	"{\"buckets\":[{\"min\":0,\"max\":63,\"count\":60}],\"count\":60,\"min\":10,"	\
	"\"max\":" MAX ",\"fine\":[[10," N10 "],[11," N11 "],[" TOP ",1]]}}\n"

/* A refusal: exit 2 and want in stderr. */
static void refused(const char *a, const char *b, const char *opt, const char *want,
		    const char *ctx)
{
	struct run r = diff(a, b, opt);

	CHECK(r.rc == 2, "%s: exit %d, want 2", ctx, r.rc);
	CHECK(strstr(r.err, want) != NULL, "%s:\n   got  %s   want %s", ctx, r.err, want);
	CHECK(!*r.out, "%s: nothing on stdout: %s", ctx, r.out);
	run_free(&r);
}

static void test_malformed(void)
{
	const char *good = file("good.json", ROW_C(10));
	char want[512];
	static const struct {
		const char *name, *text, *want;
	} bad[] = {
		{ "notjson.json", ROW_C(1) "Attaching 1 probe...\n",
		  ":2: not JSON: '[' or '{' expected near 'Attaching' (column 9)" },
		{ "text.json", "@[115]: 503\n", ":1: not JSON: " },
		{ "notype.json", "{\"group\":\"g\",\"event\":\"e\",\"count\":1}\n",
		  ":1: not a kptrace row: no \"type\"" },
		{ "oddtype.json", "{\"group\":\"g\",\"event\":\"e\",\"type\":\"stack\"}\n",
		  ":1: \"type\" is \"stack\": want \"hist\", \"latency\" or \"count\"" },
		{ "noevent.json", "\n" ROW_C(1) "{\"group\":\"g\",\"type\":\"count\",\"count\":1}\n",
		  ":3: not a kptrace row: no \"event\"" },
		{ "nohist.json", "{\"group\":\"g\",\"event\":\"e\",\"type\":\"hist\"}\n",
		  ":1: not a kptrace row: no \"hist\"" },
		{ "negcount.json", "{\"group\":\"g\",\"event\":\"e\",\"type\":\"count\",\"count\":-1}\n",
		  ":1: \"count\" is -1, not a count" },
		{ "strkey.json",
		  "{\"group\":\"g\",\"event\":\"e\",\"type\":\"count\",\"count\":1,\"key\":\"x\"}\n",
		  ":1: \"key\" is not an object" },
		{ "sum.json", "{\"group\":\"g\",\"event\":\"e\",\"type\":\"hist\",\"hist\":{\"buckets\":"
			      "[{\"min\":0,\"max\":0,\"count\":2}],\"count\":3}}\n",
		  ":1: \"hist\": its \"buckets\" hold 2 events, its \"count\" says 3" },
		{ "fine.json", "{\"group\":\"g\",\"event\":\"e\",\"type\":\"latency\",\"hist\":{\"buckets\":"
			       "[{\"min\":0,\"max\":1023,\"count\":1}],\"count\":1,\"fine\":[[1001,1]]}}\n",
		  ":1: \"fine\"[0]: 1001 is no fine bucket's lower edge" },
		{ "minmax.json", "{\"group\":\"g\",\"event\":\"e\",\"type\":\"hist\",\"hist\":{\"buckets\":"
				 "[{\"min\":5,\"max\":4,\"count\":1}],\"count\":1}}\n",
		  ":1: \"buckets\"[0]: \"min\" 5 is above \"max\" 4" },
		{ "overlap.json", "{\"group\":\"g\",\"event\":\"e\",\"type\":\"hist\",\"hist\":{\"buckets\":"
				  "[{\"min\":32,\"max\":63,\"count\":1},{\"min\":32,\"count\":1}],"
				  "\"count\":2}}\n",
		  ":1: \"buckets\"[1] (from 32) overlaps or comes before \"buckets\"[0] (up to 63): "
		  "buckets ascend, apart" },
		{ "array.json", "[1,2]\n", ":1: not a kptrace row: a JSON object expected" },
		{ "blank.json", "\n\n", ": no rows, only blank lines" },
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *p = file(bad[i].name, bad[i].text);

		snprintf(want, sizeof(want), "kptrace diff: %s%s", p, bad[i].want);
		refused(p, good, NULL, want, bad[i].name);
		/* as B too: the same message */
		refused(good, p, NULL, want, bad[i].name);
	}
	snprintf(want, sizeof(want), "kptrace diff: %s/missing.json: No such file or directory", dir);
	snprintf(want + 400, 100, "%s/missing.json", dir);
	refused(good, want + 400, NULL, want, "a missing file");
	{
		const char *lat = file("lat.json", ROW_L);

		snprintf(want, sizeof(want), "kptrace diff: %s has latency of f_ret, %s count of sz: "
			 "nothing to compare", lat, good);
		refused(lat, good, NULL, want, "nothing in common");
	}
	refused(good, NULL, NULL, "kptrace diff: two files to compare", "one file");
	refused(good, good, "--threshold=2", "--threshold: '2' is not a number in (0, 1]",
		"threshold 2");
	refused(good, good, "--min-shift=x", "--min-shift: 'x' is not a number", "min-shift x");
	refused(good, good, "--frobnicate", "--frobnicate: unknown option", "unknown option");
}

static void test_verdicts(void)
{
	const char *c10 = file("c10.json", ROW_C(10)), *c10b = file("c10b.json", ROW_C(10));
	const char *c40 = file("c40.json", ROW_C(40));
	const char *iv = file("iv.json", ROW_C(20) ROW_C(20));
	const char *c104 = file("c104.json", ROW_C(104));
	struct run r;

	r = diff(c10, c10b, NULL);
	CHECK(r.rc == 0 && strstr(r.out, "0 of 1 key differ."), "10 vs 10: exit %d\n%s", r.rc,
	      r.out);
	run_free(&r);
	r = diff(c10, c40, NULL);
	CHECK(r.rc == 1 && strstr(r.out, "DIFFERS"), "10 vs 40: exit %d\n%s", r.rc, r.out);
	run_free(&r);
	/* two intervals of 20: 40 in all, as c40 */
	r = diff(iv, c40, NULL);
	CHECK(r.rc == 0 && strstr(r.out, "40 -> 40") && strstr(r.out, "summed, 2 in A, 1 in B"),
	      "intervals summed: exit %d\n%s", r.rc, r.out);
	run_free(&r);
	/* 100 vs 104: p 0.78, and a shift under 5% */
	r = diff(file("c100.json", ROW_C(100)), c104, "--json");
	CHECK(r.rc == 0 && strstr(r.out, "\"verdict\":\"same\"") && strstr(r.out, "\"count\":[100,104]"),
	      "--json 100 vs 104: exit %d\n%s", r.rc, r.out);
	run_free(&r);
	/* significant but under --min-shift: same* */
	r = diff(file("c1m.json", ROW_C(1000000)), file("c1m2.json", ROW_C(1010000)), NULL);
	CHECK(r.rc == 0 && strstr(r.out, "same*"), "10^6 vs 1.01 10^6: exit %d\n%s", r.rc, r.out);
	run_free(&r);
	r = diff(file("c1m.json", ROW_C(1000000)), file("c1m2.json", ROW_C(1010000)),
		 "--min-shift=0.5");
	CHECK(r.rc == 1, "10^6 vs 1.01 10^6, --min-shift 0.5: exit %d\n%s", r.rc, r.out);
	run_free(&r);
	/*
	 * 60 events, KS significant (D 19/60, p 0.005), p50 the same, p99 (the
	 * maximum) 60 against 30: p99 of 60 events does not count toward the
	 * shift, so same*; with no floor, DIFFERS.
	 */
	{
		const char *a = file("tail-a.json", ROW_F("29", "30", "60", "60"));
		const char *b = file("tail-b.json", ROW_F("10", "49", "30", "30"));
		const char *pj;

		r = diff(a, b, NULL);
		CHECK(r.rc == 0 && strstr(r.out, " same* "), "p99 of 60 events is no shift: exit %d\n%s",
		      r.rc, r.out);
		run_free(&r);
		r = diff(a, b, "--json");
		pj = strstr(r.out, "\"p\":");
		NEAR(pj ? strtod(pj + 4, NULL) : -1, q_series(19.0 / 60 * sqrt(30)), 1e-9,
		     "--json's p: Q(19/60 sqrt(60 60 / 120))");
		CHECK(strstr(r.out, "\"significant\":true") && strstr(r.out, "\"shift\":0,") &&
		      strstr(r.out, "\"p99\":[60,30]"), "--json of it:\n%s", r.out);
		run_free(&r);
		r = diff(a, b, "--min-shift=0");
		CHECK(r.rc == 1 && strstr(r.out, " DIFFERS "), "--min-shift 0: exit %d\n%s", r.rc, r.out);
		run_free(&r);
	}
	r = diff(c10, c10b, "--help");
	CHECK(r.rc == 0 && strstr(r.out, "--min-shift"), "--help: exit %d", r.rc);
	run_free(&r);
}

/* path's first line, in a buffer of its own until the next call. */
static const char *slurp_line(const char *path)
{
	static char line[4096];
	FILE *f = fopen(path, "r");

	line[0] = '\0';
	if (!f || !fgets(line, sizeof(line), f)) {
		perror(path);
		exit(2);
	}
	fclose(f);
	return line;
}

/*
 * A latency row of 2 ms sleeps: N1 events at 2.097 ms, N2 at 2.130 ms, N3 at
 * 2.228 ms, N4 at T4 ns (a fine bucket's lower edge, 2 to 4 ms).
 */
static const char *sleeps(const char *name, int n1, int n2, int n3, int n4, long t4)
{
	char text[1024];
	int n = n1 + n2 + n3 + n4;

	snprintf(text, sizeof(text),
		 "{\"group\":\"latency\",\"event\":\"dt_work_0_ret\",\"type\":\"latency\",\"hist\":"
		 "{\"buckets\":[{\"min\":2097152,\"max\":4194303,\"count\":%d}],\"count\":%d,"
		 "\"min\":2097152,\"max\":%ld,\"fine\":[[2097152,%d],[2129920,%d],[2228224,%d],"
		 "[%ld,%d]]}}\n", n, n, t4 + 1000, n1, n2, n3, t4, n4);
	return file(name, text);
}

/*
 * Two runs of one workload, 1200 calls each, as the audit saw them: the bulk
 * a fine bucket apart (KS p 0.0005), p99 2.24 ms against 3.44 ms on the dozen
 * slowest calls. Not a difference: p99 of 1200 calls does not count, and its
 * confidence intervals overlap anyway. Ten times the calls, the same shape:
 * p99 counts, and moved well beyond both intervals.
 */
static void test_tail(void)
{
	const char *a = sleeps("fp-a.json", 540, 640, 8, 12, 2260992);
	const char *b = sleeps("fp-b.json", 640, 540, 0, 20, 3440640);
	const char *c = sleeps("fp-c.json", 5400, 6400, 80, 120, 2260992);
	const char *d = sleeps("fp-d.json", 6400, 5400, 0, 200, 3440640);
	double lo, hi;
	struct run r;

	r = diff(a, b, "--json");
	CHECK(r.rc == 0 && strstr(r.out, "\"verdict\":\"same\"") &&
	      strstr(r.out, "\"significant\":true") && strstr(r.out, "\"shift\":0,"),
	      "p99 on 12 calls is no shift: exit %d\n%s", r.rc, r.out);
	CHECK(strstr(r.out, "\"p99\":[2244608,3441640]"), "p99 2.24 ms -> 3.44 ms, shown:\n%s",
	      r.out);
	run_free(&r);
	/* p99's intervals of 1200 calls: A's up to its 3rd slowest, B's from its 22nd */
	{
		struct diff_row ra, rb;
		char err[256];

		CHECK(diff_parse_row(slurp_line(a), &ra, err, sizeof(err)) == 0 &&
		      diff_parse_row(slurp_line(b), &rb, err, sizeof(err)) == 0, "rows: %s", err);
		CHECK(diff_quantile_ci(ra.fine, ra.nfine, 0.99, true, ra.min, ra.max, &lo, &hi) == 0 &&
		      hi == 2261992, "A's p99 up to its max: %g", hi);
		CHECK(diff_quantile_ci(rb.fine, rb.nfine, 0.99, true, rb.min, rb.max, &lo, &hi) == 0 &&
		      lo == 2146304, "B's p99 from the bulk: %g", lo);
		diff_row_free(&ra);
		diff_row_free(&rb);
	}
	r = diff(c, d, "--json");
	CHECK(r.rc == 1 && strstr(r.out, "\"verdict\":\"differs\""),
	      "12000 calls, 200 at 3.44 ms: p99 moved beyond its interval: exit %d\n%s", r.rc, r.out);
	run_free(&r);
}

static void test_quantile_ci(void)
{
	struct diff_bucket b[100];
	double lo = -1, hi = -1;
	int i;

	/* 0..99 once each: p50's ranks 50 -+ 2.576 * 5, the upper one rank further */
	for (i = 0; i < 100; i++)
		b[i] = (struct diff_bucket){ i, i + 1, 1 };
	CHECK(diff_quantile_ci(b, 100, 0.5, false, 0, 0, &lo, &hi) == 0 && lo == 36 && hi == 63,
	      "p50 of 100: ranks 37 and 64: %g, %g", lo, hi);
	/* p99: 99 -+ 2.563, cut at rank 100, the maximum when it is known */
	CHECK(diff_quantile_ci(b, 100, 0.99, true, 0, 99, &lo, &hi) == 0 && lo == 95 && hi == 99,
	      "p99 of 100: ranks 96 and 100: %g, %g", lo, hi);
	CHECK(diff_quantile_ci(b, 100, 0.01, true, 0, 99, &lo, &hi) == 0 && lo == 0 && hi == 4,
	      "p1 of 100: ranks 1 and 5: %g, %g", lo, hi);
	CHECK(diff_quantile_ci(b, 0, 0.5, false, 0, 0, &lo, &hi) == -1, "no buckets");
}

/* Runs bucketed otherwise (log2 against --linear): refused, both layouts named. */
static void test_layouts(void)
{
	const char *log2 = file("l-log2.json",
		"{\"group\":\"uprobes\",\"event\":\"v\",\"type\":\"hist\",\"hist\":{\"buckets\":["
		"{\"min\":64,\"max\":127,\"count\":50},{\"min\":128,\"max\":255,\"count\":0},"
		"{\"min\":256,\"max\":511,\"count\":0},{\"min\":512,\"max\":1023,\"count\":0},"
		"{\"min\":1024,\"max\":2047,\"count\":0},{\"min\":2048,\"max\":4095,\"count\":0},"
		"{\"min\":4096,\"max\":8191,\"count\":50}],\"count\":100,\"min\":100,\"max\":5000}}\n");
	const char *lin = file("l-lin.json",
		"{\"group\":\"uprobes\",\"event\":\"v\",\"type\":\"hist\",\"hist\":{\"buckets\":["
		"{\"min\":0,\"max\":3999,\"count\":50},{\"min\":4000,\"max\":7999,\"count\":50}],"
		"\"count\":100,\"min\":100,\"max\":5000}}\n");
	const char *lin2 = file("l-lin2.json",
		"{\"group\":\"uprobes\",\"event\":\"v\",\"type\":\"hist\",\"hist\":{\"buckets\":["
		"{\"max\":-1,\"count\":1},{\"min\":0,\"max\":999,\"count\":49},"
		"{\"min\":1000,\"max\":1999,\"count\":0},{\"min\":2000,\"max\":2999,\"count\":0},"
		"{\"min\":3000,\"max\":3999,\"count\":0},{\"min\":4000,\"max\":4999,\"count\":50}],"
		"\"count\":100,\"min\":-5,\"max\":5000}}\n");
	const char *latv = file("l-lat.json",
		"{\"group\":\"uprobes\",\"event\":\"v\",\"type\":\"latency\",\"hist\":{\"buckets\":["
		"{\"min\":64,\"max\":127,\"count\":1}],\"count\":1,\"min\":100,\"max\":100}}\n");
	char want[1024];
	struct run r;

	snprintf(want, sizeof(want), "kptrace diff: hist uprobes/v (all): the buckets differ: %s has "
		 "log2 rows, %s linear rows 4000 wide ([64, 127] against [0, 3999]); nothing to "
		 "compare (run both with the same --linear, or neither)\n", log2, lin);
	refused(log2, lin, NULL, want, "log2 against linear");
	snprintf(want, sizeof(want), "%s has linear rows 1000 wide, %s linear rows 4000 wide "
		 "([0, 999] against [0, 3999])", lin2, lin);
	refused(lin2, lin, NULL, want, "linear steps of 1000 against 4000");
	snprintf(want, sizeof(want), "kptrace diff: %s has hist of v, %s latency of v: nothing to "
		 "compare", log2, latv);
	refused(log2, latv, NULL, want, "hist against latency");
	/* the same layout, other rows printed: compared */
	r = diff(log2, log2, NULL);
	CHECK(r.rc == 0 && !*r.err, "log2 against itself: exit %d\n%s", r.rc, r.err);
	run_free(&r);
}

/* An empty file: a run that saw nothing, every key of the other one new. */
static void test_empty(void)
{
	const char *e = file("e-empty.json", ""), *e2 = file("e-empty2.json", "");
	const char *c3 = file("e-c3.json",
		"{\"group\":\"uprobes\",\"event\":\"err\",\"type\":\"count\",\"count\":3,"
		"\"key\":{\"errno\":-5}}\n"
		"{\"group\":\"uprobes\",\"event\":\"err\",\"type\":\"count\",\"count\":1,"
		"\"key\":{\"errno\":-11}}\n");
	struct run r;

	r = diff(e, c3, NULL);
	CHECK(r.rc == 1 && !*r.err && strstr(r.out, "- -> 3 ") && strstr(r.out, "- -> 1 ") &&
	      strstr(r.out, "(only in B)  errno=-11") &&
	      strstr(r.out, "A has no rows (the run saw no events): every key of B differs.") &&
	      strstr(r.out, "2 of 2 keys differ."), "no errors, then 3 and 1: exit %d\n%s%s", r.rc,
	      r.out, r.err);
	run_free(&r);
	r = diff(c3, e, "--json");
	CHECK(r.rc == 1 && strstr(r.out, "\"verdict\":\"only_a\",\"differs\":true"),
	      "errors, then none: exit %d\n%s%s", r.rc, r.out, r.err);
	run_free(&r);
	r = diff(e, e2, NULL);
	CHECK(r.rc == 0 && !*r.err && strstr(r.out, "Neither file has rows") &&
	      strstr(r.out, "0 of 0 keys differ."), "both empty: exit %d\n%s%s", r.rc, r.out, r.err);
	run_free(&r);
}

/* --threshold moves the verdict: 100 against 130 calls is p 0.055. */
static void test_threshold(void)
{
	const char *a = file("t-100.json", ROW_C(100)), *b = file("t-130.json", ROW_C(130));
	struct run r;

	r = diff(a, b, NULL);
	CHECK(r.rc == 0 && strstr(r.out, " same "), "100 vs 130 at 0.01: exit %d\n%s", r.rc, r.out);
	run_free(&r);
	r = diff(a, b, "--threshold=0.1");
	CHECK(r.rc == 1 && strstr(r.out, " DIFFERS "), "100 vs 130 at 0.1: exit %d\n%s", r.rc, r.out);
	run_free(&r);
	r = diff(a, b, "--threshold=0.05");
	CHECK(r.rc == 0, "100 vs 130 at 0.05: exit %d\n%s", r.rc, r.out);
	run_free(&r);
}

/* A file's text (exits on failure: the test's own trouble). */
static char *slurp(const char *path)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = fopen(path, "r");

	if (!f || getdelim(&buf, &len, '\0', f) < 0) {
		perror(path);
		exit(2);
	}
	fclose(f);
	return buf;
}

/*
 * The rows' "A / B" column of an overlay: how many rows (its header, "A / B",
 * is no number), each run's total in *a and *b.
 */
static int svg_pairs(const char *svg, uint64_t *a, uint64_t *b)
{
	unsigned long long x, y;
	const char *p;
	int rows = 0;
	char end;

	*a = *b = 0;
	for (p = svg; (p = strstr(p, "\">")); p += 2) {
		if (sscanf(p + 2, "%llu / %llu</text%c", &x, &y, &end) != 3 || end != '>')
			continue;
		*a += x;
		*b += y;
		rows++;
	}
	return rows;
}

/* needle in hay exactly once. */
static bool once(const char *hay, const char *needle)
{
	const char *p = strstr(hay, needle);

	return p && !strstr(p + 1, needle);
}

/* A latency whose fine buckets are every nth from bucket first, count each. */
static const char *wide_latency(const char *name, uint32_t first, int nb, int step, int count)
{
	static char text[65536];
	size_t used;
	int i;

	used = snprintf(text, sizeof(text), "{\"group\":\"latency\",\"event\":\"f_ret\","
			"\"type\":\"latency\",\"hist\":{\"buckets\":[{\"min\":0,"
			"\"max\":1000000000000,\"count\":%d}],\"count\":%d,\"fine\":[",
			nb * count, nb * count);
	for (i = 0; i < nb && used < sizeof(text); i++)
		used += snprintf(text + used, sizeof(text) - used, "%s[%llu,%d]", i ? "," : "",
				 (unsigned long long)kpt_loglin_lower(first + (uint32_t)(i * step)),
				 count);
	snprintf(text + used, sizeof(text) - used, "]}}\n");
	return file(name, text);
}

static void test_svg(void)
{
	const char *c10 = file("s-c10.json", ROW_C(10)), *c40 = file("s-c40.json", ROW_C(40));
	const char *ta = file("s-tail-a.json", ROW_F("29", "30", "60", "60"));
	const char *tb = file("s-tail-b.json", ROW_F("10", "49", "30", "30"));
	char opt[300], want[512], *svg;
	const char *path;
	uint64_t sa, sb;
	struct run r;
	int rows;

	snprintf(opt, sizeof(opt), "--svg=%s/s.svg", dir);
	path = made[nmade];
	snprintf(made[nmade++], 256, "%s/s.svg", dir);
	/* a latency key: the text's verdict and P over it, both runs' bars and percentiles */
	r = diff(ta, tb, opt);
	CHECK(r.rc == 0 && strstr(r.out, " same* "), "--svg keeps the text: exit %d\n%s", r.rc,
	      r.out);
	run_free(&r);
	svg = slurp(path);
	CHECK(once(svg, "class=\"panel\""), "one panel for one key");
	CHECK(strstr(svg, ">latency latency/f_ret (all)</text>"), "titled by the key");
	CHECK(strstr(svg, "class=\"verdict\" font-weight=\"bold\">same*</text>"), "its verdict");
	CHECK(strstr(svg, ">P 0.005, D 0.317 (on the fine buckets)</text>"), "its P and D:\n%s",
	      svg);
	/* fine buckets 10 to 60 are 51 rows: merged in pairs, [10, 12) holding 10 and 11 */
	rows = svg_pairs(svg, &sa, &sb);
	CHECK_INT(rows, 26, "51 fine buckets in 26 rows of 2");
	CHECK(sa == 60 && sb == 60, "both runs' 60 events in the rows: %llu, %llu",
	      (unsigned long long)sa, (unsigned long long)sb);
	CHECK(!strstr(svg, ": A 0<") && !strstr(svg, ": B 0<"), "no bar for an empty row");
	CHECK(strstr(svg, "<title>[10ns, 12ns): A 59</title>") &&
	      strstr(svg, "<title>[10ns, 12ns): B 59</title>") &&
	      strstr(svg, "<title>[60ns]: A 1</title>") &&
	      strstr(svg, "<title>[30ns, 32ns): B 1</title>"), "the merged rows' counts:\n%s", svg);
	CHECK(strstr(svg, ">A p50 11ns</text>") && strstr(svg, ">B p50 11ns</text>") &&
	      strstr(svg, ">A p90 11ns</text>") && strstr(svg, ">B p90 11ns</text>") &&
	      strstr(svg, ">A p99 60ns</text>") && strstr(svg, ">B p99 30ns</text>"),
	      "both runs' p50, p90, p99, as the table's (p99 60ns -> 30ns)");
	snprintf(want, sizeof(want), ">%s</text>", ta);
	CHECK(strstr(svg, want), "the legend names A's file");
	free(svg);

	/* 300 fine buckets of both runs: at most 48 rows, every event still drawn */
	r = diff(wide_latency("s-wa.json", 64, 150, 2, 3), wide_latency("s-wb.json", 65, 150, 2, 5),
		 opt);
	CHECK(r.rc == 0 || r.rc == 1, "wide: exit %d\n%s", r.rc, r.err);
	run_free(&r);
	svg = slurp(path);
	rows = svg_pairs(svg, &sa, &sb);
	CHECK(rows <= SVG_MAX_OROWS && rows >= SVG_MAX_OROWS / 2, "300 fine buckets in %d rows",
	      rows);
	CHECK(sa == 450 && sb == 750, "A's 450 and B's 750 events after merging: %llu, %llu",
	      (unsigned long long)sa, (unsigned long long)sb);
	free(svg);

	/* a count table: one panel, A's and B's bar per key, each key's verdict */
	r = diff(c10, c40, opt);
	CHECK(r.rc == 1 && strstr(r.out, " 2.4e-05  DIFFERS "), "count: exit %d\n%s", r.rc, r.out);
	run_free(&r);
	svg = slurp(path);
	CHECK(once(svg, "class=\"panel\""), "a count table: one panel");
	CHECK(strstr(svg, "<title>(all): A 10</title>") && strstr(svg, "<title>(all): B 40</title>"),
	      "a key's two bars");
	CHECK(strstr(svg, ">DIFFERS  P 2.4e-05</text>"), "the key's verdict and P, as the text's:\n%s",
	      svg);
	free(svg);

	/* a key in B only: "- / 4" as the text's "- -> 4", not "0 / 4"; a hist key's rows too */
	r = diff(file("s-k1.json", ROW_K(1, 10)), file("s-k12.json", ROW_K(1, 10) ROW_K(2, 4)), opt);
	CHECK(r.rc == 0 && strstr(r.out, "- -> 4 "), "a key in B only: exit %d\n%s", r.rc, r.out);
	run_free(&r);
	svg = slurp(path);
	CHECK(strstr(svg, ">- / 4</text>") && strstr(svg, ">10 / 10</text>") &&
	      !strstr(svg, ">0 / 4</text>"), "the key in B only drawn \"- / 4\":\n%s", svg);
	free(svg);
	r = diff(ROW_LFILE("s-l0.json", "0"), ROW_LFILE("s-l1.json", "1"), opt);
	CHECK(r.rc == 0 && strstr(r.out, "(only in B)"), "a latency key in B only: exit %d\n%s",
	      r.rc, r.out);
	run_free(&r);
	svg = slurp(path);
	CHECK(strstr(svg, ">- / 1</text>") && !strstr(svg, ">0 / 1</text>"),
	      "its rows \"- / 1\":\n%s", svg);
	free(svg);

	/* an unwritable path: refused before either file is read (B does not exist) */
	snprintf(want, sizeof(want), "%s/none.json", dir);
	refused(c10, want, "--svg=/nonexistent/dir/x.svg",
		"kptrace diff: --svg: cannot write /nonexistent/dir/x.svg: No such file or directory",
		"--svg unwritable");
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 2;
	}
	test_kolmogorov();
	test_ks();
	test_binomial();
	test_quantile();
	test_fine();
	test_keys();
	test_malformed();
	test_verdicts();
	test_quantile_ci();
	test_tail();
	test_layouts();
	test_empty();
	test_threshold();
	test_svg();
	files_remove();
	return check_report();
}
