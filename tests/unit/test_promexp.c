// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests of src/serve/promexp.c: label escaping and names, numbers as
 * Prometheus reads them back, and the exposed buckets of each histogram
 * kind checked against the bucket functions themselves: every value an
 * edge's raw buckets hold is at most its le, and the next value is not.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "kpt_buckets.h"
#include "serve/promexp.h"

static void test_labels(void)
{
	struct prom_labels l;
	char n[64];

	prom_labels_init(&l);
	prom_label(&l, "comm", "a\"b\\c\nd");
	prom_label(&l, "9x-y", "v");
	CHECK_STR(l.buf, "comm=\"a\\\"b\\\\c\\nd\",_9x_y=\"v\"", "escapes and a made-valid name");
	CHECK(!l.cut, "not cut");
	prom_name("kptrace_a.b", n, sizeof(n));
	CHECK_STR(n, "kptrace_a_b", "a metric name");
	prom_labels_init(&l);
	for (int i = 0; i < 100; i++)
		prom_label(&l, "k", "0123456789012345678901234567890123456789");
	CHECK(l.cut, "labels past the room: the series is cut, not written half");
}

static void test_double(void)
{
	static const struct {
		double v;
		const char *want;
	} rows[] = {
		{ 0, "0" }, { 15050, "15050" }, { -5, "-5" }, { 1.023e-06, "1.023e-06" },
		{ 0.016777215, "0.016777215" }, { INFINITY, "+Inf" }, { -INFINITY, "-Inf" },
		{ NAN, "NaN" }, { 1e300, "1e+300" },
	};
	char buf[40];

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		prom_double(rows[i].v, buf, sizeof(buf));
		CHECK_STR(buf, rows[i].want, rows[i].want);
	}
	for (int i = 0; i < 1000; i++) {
		double v = (double)rand() / RAND_MAX * pow(10, i % 40 - 20);

		prom_double(v, buf, sizeof(buf));
		CHECK(strtod(buf, NULL) == v, "%.17g printed %s", v, buf);
	}
}

/* The raw bucket of value v in a histogram of kind. */
static uint32_t raw_bucket(int kind, int64_t v, int64_t min, int64_t step, uint32_t n)
{
	switch (kind) {
	case KPT_H_LOG2:
		return kpt_log2_bucket((uint64_t)v);
	case KPT_H_SLOG2:
		return kpt_slog2_bucket(v);
	case KPT_H_LOGLIN:
		return kpt_loglin_bucket((uint64_t)v);
	default:
		return kpt_linear_bucket(v, min, step, n);
	}
}

/* Each edge: le's own value is in a raw bucket below upto, le + 1's is not. */
static void check_edges(const char *what, int kind, uint32_t n, int64_t min, int64_t step,
			double scale, int want)
{
	struct prom_edge e[PROM_EDGES_MAX];
	int k, got = prom_edges(kind, n, min, step, scale != 1, e, PROM_EDGES_MAX);

	CHECK_INT(got, want, what);
	for (k = 0; k < got; k++) {
		int64_t le = (int64_t)llround(e[k].le / scale);

		CHECK(raw_bucket(kind, le, min, step, n) < e[k].upto, "%s: le %lld in bucket %u, "
		      "upto %u", what, (long long)le, raw_bucket(kind, le, min, step, n), e[k].upto);
		CHECK(raw_bucket(kind, le + 1, min, step, n) >= e[k].upto, "%s: le+1 %lld below upto %u",
		      what, (long long)le + 1, e[k].upto);
		CHECK(!k || e[k].le > e[k - 1].le, "%s: edges ascend at %d", what, k);
	}
}

static void test_edges(void)
{
	check_edges("log2", KPT_H_LOG2, KPT_LOG2_BUCKETS, 0, 0, 1, 33);
	check_edges("signed log2", KPT_H_SLOG2, KPT_SLOG2_BUCKETS, 0, 0, 1, 65);
	check_edges("linear 0,100,10", KPT_H_LINEAR, 12, 0, 10, 1, 11);
	check_edges("linear -50,50,7", KPT_H_LINEAR, 17, -50, 7, 1, 16);
	check_edges("latency (s)", KPT_H_LOGLIN, KPT_LOGLIN_BUCKETS, 0, 0, 1e-9, 25);
}

/* --le-every: a subset of the edges, the zero edge kept, each a multiple from it. */
static void test_every(void)
{
	struct prom_edge e[PROM_EDGES_MAX], all[PROM_EDGES_MAX];
	int n, m, k, every;

	n = prom_edges(KPT_H_LOG2, KPT_LOG2_BUCKETS, 0, 0, false, all, PROM_EDGES_MAX);
	memcpy(e, all, sizeof(e));
	CHECK_INT(prom_edges_every(e, n, 1), n, "every 1: all kept");
	m = prom_edges_every(e, n, 4);
	CHECK_INT(m, 9, "log2 every 4: 0, 15, 255 ... 2^32 - 1");
	CHECK(e[0].le == 0 && e[1].le == 15 && e[8].le == 4294967295.0, "log2 every 4: %g %g %g",
	      e[0].le, e[1].le, e[8].le);
	for (k = 1; k < m; k++)
		CHECK(e[k].upto == all[4 * k].upto, "log2 every 4: edge %d's raw bucket", k);
	n = prom_edges(KPT_H_SLOG2, KPT_SLOG2_BUCKETS, 0, 0, false, all, PROM_EDGES_MAX);
	memcpy(e, all, sizeof(e));
	m = prom_edges_every(e, n, 2);
	CHECK_INT(m, 33, "signed log2 every 2: 16 each side of 0, and 0");
	CHECK(e[16].le == 0 && e[15].le == -2 && e[17].le == 3, "signed every 2: %g %g %g",
	      e[15].le, e[16].le, e[17].le);
	for (every = 2; every <= 30; every++) {
		n = prom_edges(KPT_H_LOGLIN, KPT_LOGLIN_BUCKETS, 0, 0, true, all, PROM_EDGES_MAX);
		memcpy(e, all, sizeof(e));
		m = prom_edges_every(e, n, every);
		CHECK_INT(m, (n - 1) / every + 1, "latency every N: one in N from 1 us");
		for (k = 0; k < m; k++)
			CHECK(e[k].le == all[k * every].le, "latency every %d: edge %d", every, k);
	}
}

int main(void)
{
	test_labels();
	test_double();
	test_edges();
	test_every();
	return check_report();
}
