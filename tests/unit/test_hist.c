// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Histogram presentation (src/agg/hist.c) and the bucket functions it relies on
 * (include/kpt_buckets.h, shared with the BPF side):
 * - exact text for known log2, linear and log-linear histograms, written out
 *   from bpftrace's rules (labels, suffixes, 16/8/52 columns, float bars);
 * - units, empty and single-bucket histograms, huge counts, JSON, summary;
 * - percentiles of generated value sets bucketed with kpt_buckets.h against
 *   the exact nearest-rank value of the sorted set: within 1/128 of the true
 *   value, exact below 128 (log-linear); coarser bounds for log2 and linear;
 * - properties of the bucket functions over many random values.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "agg/hist.h"
#include "kpt_buckets.h"

#define E19	10000000000000000000ull	/* for printing past 2^64 in two parts */

/* Deterministic: a failure is reproducible. splitmix64. */
static uint64_t rng_state = 0x6b707472616365ull;

static uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in [0, 1). */
static double rnd01(void)
{
	return (double)(rnd() >> 11) * 0x1p-53;
}

/* ln(x) for x > 0 without libm (the unit tests link without it). */
static double ln(double x)
{
	double t, t2, term, sum = 0;
	int k = 0, i;

	while (x < 1) {
		x *= 2;
		k--;
	}
	while (x >= 2) {
		x /= 2;
		k++;
	}
	/* ln(x) = 2 atanh((x - 1) / (x + 1)), |t| <= 1/3: 30 terms is plenty. */
	t = (x - 1) / (x + 1);
	t2 = t * t;
	term = t;
	for (i = 1; i < 60; i += 2) {
		sum += term / i;
		term *= t2;
	}
	return 2 * sum + k * 0.69314718055994530942;
}

static double dabs(double x)
{
	return x < 0 ? -x : x;
}

/* Captures what a printer writes. */
#define CAPTURE(buf, call)						\
	do {								\
		size_t cap_sz_;						\
		FILE *f = open_memstream(&(buf), &cap_sz_);		\
		if (!f) {						\
			perror("open_memstream");			\
			exit(2);					\
		}							\
		call;							\
		fclose(f);						\
	} while (0)

/* A histogram being filled the way the BPF side fills it. */
struct acc {
	enum kpt_hist_kind kind;
	int64_t lin_min, lin_step;
	uint32_t n;
	int value_signed;
	uint64_t counts[KPT_LINEAR_MAX];
	struct kpt_aggval st;
};

static void acc_init(struct acc *a, enum kpt_hist_kind kind)
{
	memset(a, 0, sizeof(*a));
	a->kind = kind;
	a->n = kind == KPT_H_LOG2 ? KPT_LOG2_BUCKETS : KPT_LOGLIN_BUCKETS;
	if (kind == KPT_H_SLOG2) {
		a->n = KPT_SLOG2_BUCKETS;
		a->value_signed = 1;
	}
}

static void acc_init_linear(struct acc *a, int64_t min, int64_t step, uint32_t n)
{
	memset(a, 0, sizeof(*a));
	a->kind = KPT_H_LINEAR;
	a->lin_min = min;
	a->lin_step = step;
	a->n = n;
	a->value_signed = 1;
}

static void acc_add(struct acc *a, uint64_t v)
{
	uint32_t b = 0;
	int lt, gt;

	switch (a->kind) {
	case KPT_H_LOG2:
		b = kpt_log2_bucket(v);
		break;
	case KPT_H_LOGLIN:
		b = kpt_loglin_bucket(v);
		break;
	case KPT_H_SLOG2:
		b = kpt_slog2_bucket((int64_t)v);
		break;
	case KPT_H_LINEAR:
		b = kpt_linear_bucket((int64_t)v, a->lin_min, a->lin_step, a->n);
		break;
	}
	a->counts[b]++;
	if (a->value_signed) {
		lt = (int64_t)v < (int64_t)a->st.min;
		gt = (int64_t)v > (int64_t)a->st.max;
	} else {
		lt = v < a->st.min;
		gt = v > a->st.max;
	}
	if (!a->st.count || lt)
		a->st.min = v;
	if (!a->st.count || gt)
		a->st.max = v;
	a->st.count++;
	a->st.sum += v;
}

static struct hist_view acc_view(const struct acc *a, const char *unit)
{
	struct hist_view h = {
		.kind = a->kind,
		.nbuckets = a->n,
		.counts = a->counts,
		.lin_min = a->lin_min,
		.lin_step = a->lin_step,
		.stats = a->st,
		.unit = unit,
		.value_signed = a->value_signed,
	};
	return h;
}

static char *text(const char *title, const struct hist_view *h)
{
	char *buf = NULL;

	CAPTURE(buf, hist_print(f, title, h));
	return buf;
}

static char *json(const struct hist_view *h)
{
	char *buf = NULL;

	CAPTURE(buf, hist_print_json(f, h));
	return buf;
}

static char *summary(const struct hist_view *h)
{
	char *buf = NULL;

	CAPTURE(buf, hist_print_latency_summary(f, h));
	return buf;
}

static void check_text(const char *title, const struct hist_view *h, const char *want,
		       const char *ctx)
{
	char *got = text(title, h);

	CHECK_STR(got, want, ctx);
	free(got);
}

/* ---- exact text ---------------------------------------------------------------- */

static void test_log2_text(void)
{
	uint64_t c[KPT_LOG2_BUCKETS] = { 0 };
	struct hist_view h = { .kind = KPT_H_LOG2, .nbuckets = KPT_LOG2_BUCKETS, .counts = c };

	/* Bars: 26/104 and 78/104 are exact quarters; 1/104 of 52 truncates to none. */
	c[0] = 1;
	c[2] = 26;
	c[3] = 52;
	c[4] = 104;
	c[11] = 78;
	h.stats = (struct kpt_aggval){ .count = 261, .sum = 100000, .min = 0, .max = 1500 };
	check_text("@bytes:", &h,
		"@bytes:\n"
		"[0]                    1 |                                                    |\n"
		"[1]                    0 |                                                    |\n"
		"[2, 4)                26 |@@@@@@@@@@@@@                                       |\n"
		"[4, 8)                52 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |\n"
		"[8, 16)              104 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		"[16, 32)               0 |                                                    |\n"
		"[32, 64)               0 |                                                    |\n"
		"[64, 128)              0 |                                                    |\n"
		"[128, 256)             0 |                                                    |\n"
		"[256, 512)             0 |                                                    |\n"
		"[512, 1K)              0 |                                                    |\n"
		"[1K, 2K)              78 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@             |\n"
		"count 261, sum 100000, avg 383, min 0, max 1500\n",
		"log2 rows, empty middle rows, 1K suffix");

	/* Rows start at the first non-empty bucket; no title: no title line. */
	memset(c, 0, sizeof(c));
	c[1] = 3;
	c[2] = 7;
	h.stats = (struct kpt_aggval){ .count = 10, .sum = 17, .min = 1, .max = 3 };
	check_text(NULL, &h,
		"[1]                    3 |@@@@@@@@@@@@@@@@@@@@@@                              |\n"
		"[2, 4)                 7 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		"count 10, sum 17, avg 1, min 1, max 3\n", "log2 from [1], no title");
}

/* One value in one log2 bucket: a single full-bar row with that label. */
static void check_log2_label(uint32_t bucket, const char *label)
{
	uint64_t c[KPT_LOG2_BUCKETS] = { 0 };
	struct hist_view h = { .kind = KPT_H_LOG2, .nbuckets = KPT_LOG2_BUCKETS, .counts = c };
	char want[256], ctx[64];
	char *got;

	c[bucket] = 1;
	h.stats = (struct kpt_aggval){ 1, 5, 5, 5 };
	snprintf(want, sizeof(want),
		 "%-16s       1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		 "count 1, sum 5, avg 5, min 5, max 5\n", label);
	snprintf(ctx, sizeof(ctx), "log2 bucket %u", bucket);
	got = text(NULL, &h);
	CHECK_STR(got, want, ctx);
	free(got);
}

static void test_log2_suffixes(void)
{
	check_log2_label(0, "[0]");
	check_log2_label(1, "[1]");
	check_log2_label(2, "[2, 4)");
	check_log2_label(10, "[512, 1K)");
	check_log2_label(11, "[1K, 2K)");
	check_log2_label(12, "[2K, 4K)");
	check_log2_label(20, "[512K, 1M)");
	check_log2_label(21, "[1M, 2M)");
	check_log2_label(31, "[1G, 2G)");
	check_log2_label(41, "[1T, 2T)");
	check_log2_label(51, "[1P, 2P)");
	check_log2_label(61, "[1E, 2E)");
	check_log2_label(64, "[8E, 16E)");
}

static void test_linear_text(void)
{
	uint64_t c[6] = { 2, 10, 0, 5, 1, 3 };
	struct hist_view h = {
		.kind = KPT_H_LINEAR, .nbuckets = 6, .counts = c, .lin_min = 0, .lin_step = 4096,
		.stats = { .count = 21, .sum = 60000, .min = 5, .max = 20000 },
	};
	uint64_t c1[5] = { 0, 3, 0, 7, 1 };
	uint64_t cm[4] = { 0, 1, 1, 0 };
	uint64_t cp[4] = { 0, 4, 0, 2 };
	int64_t neg = -4;

	check_text("@lin:", &h,
		"@lin:\n"
		"(..., 0)               2 |@@@@@@@@@@                                          |\n"
		"[0, 4K)               10 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		"[4K, 8K)               0 |                                                    |\n"
		"[8K, 12K)              5 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |\n"
		"[12K, 16K)             1 |@@@@@                                               |\n"
		"[16K, ...)             3 |@@@@@@@@@@@@@@@                                     |\n"
		"count 21, sum 60000, avg 2857, min 5, max 20000\n",
		"linear, K labels, under/overflow");

	/* Step 1: one value per row, printed as [N], as bpftrace's lhist. Signed stats. */
	h = (struct hist_view){
		.kind = KPT_H_LINEAR, .nbuckets = 5, .counts = c1, .lin_min = -2, .lin_step = 1,
		.stats = { .count = 11, .sum = (uint64_t)neg, .min = (uint64_t)(int64_t)-2,
			   .max = 2 },
		.value_signed = 1,
	};
	check_text(NULL, &h,
		"[-2]                   3 |@@@@@@@@@@@@@@@@@@@@@@                              |\n"
		"[-1]                   0 |                                                    |\n"
		"[0]                    7 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		"[1, ...)               1 |@@@@@@@                                             |\n"
		"count 11, sum -4, avg 0, min -2, max 2\n", "linear step 1, negative");

	/* M suffix; and a step of 1024 from 512: bounds not multiples of 1024 stay plain. */
	h = (struct hist_view){
		.kind = KPT_H_LINEAR, .nbuckets = 4, .counts = cm, .lin_min = 1 << 20,
		.lin_step = 1 << 20, .stats = { 2, 3 << 20, 1 << 20, 2 << 20 },
	};
	check_text(NULL, &h,
		"[1M, 2M)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		"[2M, 3M)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		"count 2, sum 3145728, avg 1572864, min 1048576, max 2097152\n", "linear M");
	h.lin_min = 512;
	h.lin_step = 1024;
	h.counts = cp;
	h.stats = (struct kpt_aggval){ 6, 9000, 600, 3000 };
	check_text(NULL, &h,
		"[512, 1536)            4 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		"[1536, 2560)           0 |                                                    |\n"
		"[2560, ...)            2 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |\n"
		"count 6, sum 9000, avg 1500, min 600, max 3000\n", "linear 1024 step from 512");

	/* A step that is not a multiple of 1024 never gets K, even at 1024. */
	h.lin_min = 0;
	h.lin_step = 512;
	check_text(NULL, &h,
		"[0, 512)               4 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		"[512, 1024)            0 |                                                    |\n"
		"[1024, ...)            2 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |\n"
		"count 6, sum 9000, avg 1500, min 600, max 3000\n", "linear step 512");
}

static void test_loglin_text(void)
{
	static struct acc a, b;
	static const uint64_t vals[] = { 127, 128, 130, 131 };
	struct hist_view h;
	char *t1, *t2;
	size_t i;

	/* Fine rows: width-1 buckets up to 127, then 2^(e-6) wide ones. */
	acc_init(&a, KPT_H_LOGLIN);
	for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
		acc_add(&a, vals[i]);
	h = acc_view(&a, NULL);
	h.flags = HIST_F_FINE;
	check_text("@fine:", &h,
		"@fine:\n"
		"[127]                  1 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |\n"
		"[128, 130)             1 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |\n"
		"[130, 132)             2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		"count 4, sum 516, avg 129, min 127, max 131\n", "loglin fine rows");
	/* Merged (the default): the log2 rows. */
	h.flags = 0;
	check_text(NULL, &h,
		"[64, 128)              1 |@@@@@@@@@@@@@@@@@                                   |\n"
		"[128, 256)             3 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		"count 4, sum 516, avg 129, min 127, max 131\n", "loglin merged rows");

	/* Fine labels as bpftrace's hist(v, 6): 66560 = 65 * 1024 is "65K". */
	acc_init(&a, KPT_H_LOGLIN);
	acc_add(&a, 65 * 1024);
	acc_add(&a, 66 * 1024 - 1);
	h = acc_view(&a, NULL);
	h.flags = HIST_F_FINE;
	check_text(NULL, &h,
		"[65K, 66K)             2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		"count 2, sum 134143, avg 67071, min 66560, max 67583\n", "loglin fine K");
	acc_init(&a, KPT_H_LOGLIN);
	acc_add(&a, UINT64_MAX);
	h = acc_view(&a, NULL);
	h.flags = HIST_F_FINE;
	check_text(NULL, &h,
		"[16256P, 16384P)       1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		"count 1, sum 18446744073709551615, avg 18446744073709551615, "
		"min 18446744073709551615, max 18446744073709551615\n", "loglin fine top bucket");

	/*
	 * The same values as log2 and as merged log-linear print the same text,
	 * in any unit whose rows are log2 rows of nanoseconds.
	 */
	acc_init(&a, KPT_H_LOG2);
	acc_init(&b, KPT_H_LOGLIN);
	for (i = 0; i < 5000; i++) {
		uint64_t v = rnd() >> (rnd() % 64);

		acc_add(&a, v);
		acc_add(&b, v);
	}
	for (i = 0; i < 3; i++) {
		static const char *const units[] = { NULL, "ns", "ms" };
		char ctx[64];

		h = acc_view(&a, units[i]);
		t1 = text("@x:", &h);
		h = acc_view(&b, units[i]);
		t2 = text("@x:", &h);
		snprintf(ctx, sizeof(ctx), "merged log-linear == log2, unit %s",
			 units[i] ? units[i] : "none");
		CHECK_STR(t2, t1, ctx);
		free(t1);
		free(t2);
	}
}

/*
 * In us, merged log-linear rows are log2 rows of microseconds: 1000 * 2^j
 * is a fine-bucket edge, so each fine bucket lands in one row whole.
 */
static void test_loglin_us_rows(void)
{
	static struct acc a;
	uint64_t want[KPT_LOG2_BUCKETS] = { 0 };
	struct hist_view h;
	char *got, *exp = NULL, *s;
	size_t sz, i;
	uint32_t k, first = KPT_LOG2_BUCKETS, last = 0;
	FILE *f;

	acc_init(&a, KPT_H_LOGLIN);
	acc_add(&a, 999);
	acc_add(&a, 300000);
	acc_add(&a, 400000);
	acc_add(&a, 600000);
	h = acc_view(&a, "us");
	check_text("@lat:", &h,
		"@lat:\n"
		"[0us, 1us)             1 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |\n"
		"[1us, 2us)             0 |                                                    |\n"
		"[2us, 4us)             0 |                                                    |\n"
		"[4us, 8us)             0 |                                                    |\n"
		"[8us, 16us)            0 |                                                    |\n"
		"[16us, 32us)           0 |                                                    |\n"
		"[32us, 64us)           0 |                                                    |\n"
		"[64us, 128us)          0 |                                                    |\n"
		"[128us, 256us)         0 |                                                    |\n"
		"[256us, 512us)         2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		"[512us, 1024us)        1 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |\n"
		"count 4, sum 1300.999us, avg 325.249us, min 0.999us, max 600us\n",
		"loglin rows of microseconds");

	/* Random values: the rows hold exactly the values whose v / 1000 is in them. */
	acc_init(&a, KPT_H_LOGLIN);
	for (i = 0; i < 20000; i++) {
		uint64_t v = rnd() >> (rnd() % 64);

		acc_add(&a, v);
		k = kpt_log2_bucket(v / 1000);
		want[k]++;
		if (k < first)
			first = k;
		if (k > last)
			last = k;
	}
	f = open_memstream(&exp, &sz);
	if (!f)
		exit(2);
	fputs("{\"buckets\":[", f);
	for (k = first; k <= last; k++) {
		unsigned __int128 lo = k ? (unsigned __int128)1000 << (k - 1) : 0;
		unsigned __int128 hi = (unsigned __int128)1000 << k;

		/* The top row's end is past 2^64: print it in two halves. */
		fprintf(f, "%s{\"min\":%" PRIu64 ",\"max\":", k > first ? "," : "",
			(uint64_t)lo);
		if (hi - 1 > UINT64_MAX)
			fprintf(f, "%" PRIu64 "%019" PRIu64, (uint64_t)((hi - 1) / E19),
				(uint64_t)((hi - 1) % E19));
		else
			fprintf(f, "%" PRIu64, (uint64_t)(hi - 1));
		fprintf(f, ",\"count\":%" PRIu64 "}", want[k]);
	}
	fputc(']', f);
	fclose(f);
	h = acc_view(&a, "us");
	got = json(&h);
	s = got ? strstr(got, "],\"count\"") : NULL;
	if (s)
		s[1] = '\0';
	CHECK_STR(got, exp, "us rows of random values");
	free(got);
	free(exp);
}

static void test_units(void)
{
	static struct acc a;
	struct hist_view h;
	char *s;

	/* log2 edges are powers of two of ns: printed exactly, never rounded. */
	acc_init(&a, KPT_H_LOG2);
	acc_add(&a, 300000);
	acc_add(&a, 400000);
	acc_add(&a, 600000);
	h = acc_view(&a, "us");
	check_text("@lat:", &h,
		"@lat:\n"
		"[262.144us, 524.288us)        2"
		" |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		"[524.288us, 1048.576us)       1"
		" |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |\n"
		"count 3, sum 1300us, avg 433.333us, min 300us, max 600us\n",
		"us labels widen the column");
	h.unit = "ms";
	check_text(NULL, &h,
		"[0.262144ms, 0.524288ms)       2"
		" |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		"[0.524288ms, 1.048576ms)       1"
		" |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |\n"
		"count 3, sum 1.3ms, avg 0.433333ms, min 0.3ms, max 0.6ms\n", "ms");
	h.unit = "ns";
	check_text(NULL, &h,
		"[262144ns, 524288ns)        2"
		" |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		"[524288ns, 1048576ns)       1"
		" |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |\n"
		"count 3, sum 1300000ns, avg 433333ns, min 300000ns, max 600000ns\n",
		"ns: no K suffixes with a unit");
	/* Not a time unit: appended, values as they are. */
	h.unit = "B";
	check_text(NULL, &h,
		"[262144B, 524288B)        2"
		" |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		"[524288B, 1048576B)       1"
		" |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |\n"
		"count 3, sum 1300000B, avg 433333B, min 300000B, max 600000B\n", "other unit");

	/* Small values in us, single-value rows. */
	acc_init(&a, KPT_H_LOG2);
	acc_add(&a, 0);
	acc_add(&a, 1);
	acc_add(&a, 2);
	h = acc_view(&a, "us");
	check_text(NULL, &h,
		"[0us]                    1"
		" |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		"[0.001us]                1"
		" |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		"[0.002us, 0.004us)       1"
		" |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		"count 3, sum 0.003us, avg 0.001us, min 0us, max 0.002us\n",
		"us below a microsecond");

	/* Linear in ms: round edges stay round. */
	acc_init_linear(&a, 0, 500000, 5);
	acc_add(&a, 100000);
	acc_add(&a, 700000);
	acc_add(&a, 5000000);
	h = acc_view(&a, "ms");
	check_text(NULL, &h,
		"[0ms, 0.5ms)           1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		"[0.5ms, 1ms)           1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		"[1ms, 1.5ms)           0 |                                                    |\n"
		"[1.5ms, ...)           1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		"count 3, sum 5.8ms, avg 1.933333ms, min 0.1ms, max 5ms\n", "linear ms");

	/* A long unit name is cut, not overflowing anything. */
	h.unit = "abcdefghijklmnopqrstuvwxyz";
	s = text(NULL, &h);
	CHECK(s && strstr(s, "[0abcdefghijklmno, 500000abcdefghijklmno)"), "long unit: %s", s);
	free(s);
}

static void test_empty_single_huge(void)
{
	uint64_t c[KPT_LOG2_BUCKETS] = { 0 };
	struct hist_view h = { .kind = KPT_H_LOG2, .nbuckets = KPT_LOG2_BUCKETS, .counts = c };
	uint64_t lc[3] = { 0, 0, 0 };
	double p = -1;
	char *s;

	check_text("@empty:", &h, "@empty:\n(no events)\n", "empty log2");
	h.kind = KPT_H_LOGLIN;
	h.nbuckets = 0;
	h.counts = NULL;
	check_text("@empty:", &h, "@empty:\n(no events)\n", "empty loglin, no buckets");
	CHECK_INT(hist_percentile(&h, 0.5, &p), -ENOENT, "empty percentile");
	s = summary(&h);
	CHECK_STR(s, "(no events)\n", "empty summary");
	free(s);
	s = json(&h);
	CHECK_STR(s, "{\"buckets\":[],\"count\":0,\"sum\":0,\"min\":null,\"max\":null,"
		  "\"avg\":null,\"p50\":null,\"p90\":null,\"p99\":null,\"p99_9\":null,"
		  "\"fine\":[]}", "empty json");
	free(s);
	h = (struct hist_view){ .kind = KPT_H_LINEAR, .nbuckets = 3, .counts = lc,
				.lin_step = 10 };
	check_text(NULL, &h, "(no events)\n", "empty linear");

	/* Bad views are said to be bad, not read. */
	h.lin_step = 0;
	check_text("@bad:", &h, "@bad:\n(invalid histogram)\n", "linear step 0");
	CHECK_INT(hist_percentile(&h, 0.5, &p), -EINVAL, "bad view percentile");
	h.lin_step = 1;
	h.nbuckets = 2;
	check_text(NULL, &h, "(invalid histogram)\n", "linear 2 buckets");
	h.kind = (enum kpt_hist_kind)42;
	check_text(NULL, &h, "(invalid histogram)\n", "unknown kind");
	check_text(NULL, NULL, "(invalid histogram)\n", "NULL view");
	h = (struct hist_view){ .kind = KPT_H_LOG2, .nbuckets = KPT_LOG2_BUCKETS, .counts = c };
	c[5] = 1;
	CHECK_INT(hist_percentile(&h, -0.1, &p), -EINVAL, "q < 0");
	CHECK_INT(hist_percentile(&h, 1.5, &p), -EINVAL, "q > 1");
	CHECK_INT(hist_percentile(&h, __builtin_nan(""), &p), -EINVAL, "q NaN");

	/* Single bucket, no stats entry read: "-" rather than invented numbers. */
	check_text(NULL, &h,
		"[16, 32)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		"count 0, sum 0, avg -, min -, max -\n", "single bucket, no stats");
	CHECK_INT(hist_percentile(&h, 0.5, &p), 0, "percentile without stats");
	CHECK(p == 24, "bucket midpoint without stats: %g", p);

	/*
	 * Huge counts: the count column grows for all rows. bpftrace's float
	 * bar gives 2^40 - 1 of 2^40 a full bar too (float has 24 bits).
	 */
	memset(c, 0, sizeof(c));
	c[1] = (1ull << 40) - 1;
	c[2] = 1ull << 40;
	c[3] = UINT64_MAX / 2;
	c[4] = UINT64_MAX;
	h.stats = (struct kpt_aggval){ UINT64_MAX, UINT64_MAX, 1, 7 };
	check_text(NULL, &h,
		"[1]                    1099511627775"
		" |                                                    |\n"
		"[2, 4)                 1099511627776"
		" |                                                    |\n"
		"[4, 8)           9223372036854775807"
		" |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |\n"
		"[8, 16)         18446744073709551615"
		" |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		"count 18446744073709551615, sum 18446744073709551615, avg 1, min 1, max 7\n",
		"huge counts");
	memset(c, 0, sizeof(c));
	c[1] = (1ull << 40) - 1;
	c[2] = 1ull << 40;
	h.stats = (struct kpt_aggval){ 0 };
	s = text(NULL, &h);
	CHECK(s && !strncmp(s,
		"[1]             1099511627775"
		" |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		"[2, 4)          1099511627776"
		" |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n",
		2 * 83), "float bars for huge counts: %s", s);
	free(s);
}

/* Labels wider than 16 columns widen the column for every row. */
static void test_wide_columns(void)
{
	uint64_t c[3] = { 1, 0, 2 };
	struct hist_view h = {
		.kind = KPT_H_LINEAR, .nbuckets = 3, .counts = c, .lin_min = INT64_MIN + 1,
		.lin_step = 1, .value_signed = 1,
		.stats = { 3, 0, (uint64_t)INT64_MIN, (uint64_t)INT64_MAX },
	};

	check_text(NULL, &h,
		"(..., -9223372036854775807)       1"
		" |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |\n"
		"[-9223372036854775807]            0"
		" |                                                    |\n"
		"[-9223372036854775806, ...)       2"
		" |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		"count 3, sum 0, avg 0, min -9223372036854775808, max 9223372036854775807\n",
		"wide labels, s64 extremes");
}

static void test_json(void)
{
	static struct acc a;
	struct hist_view h;
	uint64_t c[4] = { 1, 2, 0, 3 };
	char *s;

	acc_init(&a, KPT_H_LOG2);
	acc_add(&a, 0);
	acc_add(&a, 5);
	acc_add(&a, 6);
	acc_add(&a, 1500);
	h = acc_view(&a, "us");
	s = json(&h);
	CHECK_STR(s, "{\"buckets\":[{\"min\":0,\"max\":0,\"count\":1},"
		  "{\"min\":1,\"max\":1,\"count\":0},"
		  "{\"min\":2,\"max\":3,\"count\":0},{\"min\":4,\"max\":7,\"count\":2},"
		  "{\"min\":8,\"max\":15,\"count\":0},{\"min\":16,\"max\":31,\"count\":0},"
		  "{\"min\":32,\"max\":63,\"count\":0},{\"min\":64,\"max\":127,\"count\":0},"
		  "{\"min\":128,\"max\":255,\"count\":0},{\"min\":256,\"max\":511,\"count\":0},"
		  "{\"min\":512,\"max\":1023,\"count\":0},{\"min\":1024,\"max\":2047,\"count\":1}],"
		  "\"count\":4,\"sum\":1511,\"min\":0,\"max\":1500,\"avg\":377}",
		  "log2 json, raw values whatever the unit");
	free(s);

	h = (struct hist_view){
		.kind = KPT_H_LINEAR, .nbuckets = 4, .counts = c, .lin_min = -10, .lin_step = 10,
		.stats = { 6, (uint64_t)(int64_t)-7, (uint64_t)(int64_t)-20, 30 },
		.value_signed = 1,
	};
	s = json(&h);
	CHECK_STR(s, "{\"buckets\":[{\"max\":-11,\"count\":1},{\"min\":-10,\"max\":-1,\"count\":2},"
		  "{\"min\":0,\"max\":9,\"count\":0},{\"min\":10,\"count\":3}],"
		  "\"count\":6,\"sum\":-7,\"min\":-20,\"max\":30,\"avg\":-1}",
		  "linear json: open ends, signed");
	free(s);

	/* Log-linear: merged buckets and the four percentiles. */
	acc_init(&a, KPT_H_LOGLIN);
	acc_add(&a, 100);
	acc_add(&a, 200);
	acc_add(&a, 3000);
	acc_add(&a, 1000000);
	h = acc_view(&a, NULL);
	s = json(&h);
	CHECK_STR(s, "{\"buckets\":[{\"min\":64,\"max\":127,\"count\":1},"
		  "{\"min\":128,\"max\":255,\"count\":1},{\"min\":256,\"max\":511,\"count\":0},"
		  "{\"min\":512,\"max\":1023,\"count\":0},{\"min\":1024,\"max\":2047,\"count\":0},"
		  "{\"min\":2048,\"max\":4095,\"count\":1},{\"min\":4096,\"max\":8191,\"count\":0},"
		  "{\"min\":8192,\"max\":16383,\"count\":0},"
		  "{\"min\":16384,\"max\":32767,\"count\":0},"
		  "{\"min\":32768,\"max\":65535,\"count\":0},"
		  "{\"min\":65536,\"max\":131071,\"count\":0},"
		  "{\"min\":131072,\"max\":262143,\"count\":0},"
		  "{\"min\":262144,\"max\":524287,\"count\":0},"
		  "{\"min\":524288,\"max\":1048575,\"count\":1}],"
		  "\"count\":4,\"sum\":1003300,\"min\":100,\"max\":1000000,\"avg\":250825,"
		  "\"p50\":201,\"p90\":1000000,\"p99\":1000000,\"p99_9\":1000000,"
		  "\"fine\":[[100,1],[200,1],[2976,1],[999424,1]]}",
		  "loglin json with percentiles and the fine buckets");
	free(s);
	/* Fine rows on request. */
	h.flags = HIST_F_FINE;
	acc_init(&a, KPT_H_LOGLIN);
	acc_add(&a, 130);
	acc_add(&a, 133);
	h = acc_view(&a, NULL);
	h.flags = HIST_F_FINE;
	s = json(&h);
	CHECK_STR(s, "{\"buckets\":[{\"min\":130,\"max\":131,\"count\":1},"
		  "{\"min\":132,\"max\":133,\"count\":1}],"
		  "\"count\":2,\"sum\":263,\"min\":130,\"max\":133,\"avg\":131,"
		  "\"p50\":130,\"p90\":133,\"p99\":133,\"p99_9\":133,"
		  "\"fine\":[[130,1],[132,1]]}", "loglin fine json");
	free(s);
}

static void test_summary(void)
{
	static struct acc a;
	struct hist_view h;
	char *s;
	int i;

	/* 1000 latencies of 1..1000 us: p50 is the 500th, 500us, within 1/128. */
	acc_init(&a, KPT_H_LOGLIN);
	for (i = 1; i <= 1000; i++)
		acc_add(&a, (uint64_t)i * 1000);
	h = acc_view(&a, "us");
	s = summary(&h);
	/*
	 * 500000 is in [499712, 503808) (step 4096): midpoint 501760. 900000 in
	 * [892928, 901120) (step 8192): 897024. 990000 in [983040, 991232):
	 * 987136. The 999th, 999000, in [991232, 999424): 995328.
	 */
	CHECK_STR(s, "count 1000, avg 500.5us, p50 501.76us, p90 897.024us, p99 987.136us, "
		  "p99.9 995.328us, max 1000us\n", "latency summary");
	free(s);
	h.unit = NULL;
	s = summary(&h);
	CHECK_STR(s, "count 1000, avg 500500, p50 501760, p90 897024, p99 987136, "
		  "p99.9 995328, max 1000000\n", "summary, plain numbers");
	free(s);
}

/* ---- percentiles ------------------------------------------------------------------ */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

#define MAXN	20000

/* q in thousandths: every rank edge case is checked with exact integer ranks. */
static const int permille[] = { 0, 1, 10, 100, 250, 333, 500, 667, 750, 900, 950, 990,
				999, 1000 };

/*
 * Bucket vals with kind, then check every percentile against the exact
 * nearest-rank value of the sorted set. Returns the number of checks.
 */
static void check_pcts(const char *name, enum kpt_hist_kind kind, uint64_t *vals, size_t n)
{
	static struct acc a;
	struct hist_view h;
	size_t i, k;
	char ctx[128];

	acc_init(&a, kind);
	for (i = 0; i < n; i++)
		acc_add(&a, vals[i]);
	h = acc_view(&a, NULL);
	qsort(vals, n, sizeof(*vals), cmp_u64);
	for (k = 0; k < sizeof(permille) / sizeof(permille[0]); k++) {
		uint64_t rank = ((uint64_t)permille[k] * n + 999) / 1000, v;
		double est = -1, tv, err, bound;
		int rc;

		if (rank < 1)
			rank = 1;
		v = vals[rank - 1];
		tv = (double)v;
		rc = hist_percentile(&h, permille[k] / 1000.0, &est);
		snprintf(ctx, sizeof(ctx), "%s n=%zu p%d.%d true %" PRIu64 " est %.17g",
			 name, n, permille[k] / 10, permille[k] % 10, v, est);
		CHECK(rc == 0, "%s: rc %d", ctx, rc);
		err = dabs(est - tv);
		if (rank == 1 || rank == n) {
			/* min and max are known exactly. */
			CHECK(est == tv, "%s: extremes are exact", ctx);
		} else if (kind == KPT_H_LOGLIN) {
			/* Exact below 128; else <= v/128, plus double rounding near 2^64. */
			bound = v < 128 ? 0 : tv / 128 + tv * 0x1p-50;
			CHECK(err <= bound, "%s: error %g > %g", ctx, err, bound);
		} else {
			bound = v < 2 ? 0 : tv / 2 + tv * 0x1p-50;
			CHECK(err <= bound, "%s: error %g > %g", ctx, err, bound);
		}
		/* Never outside what was seen. */
		CHECK(est >= (double)vals[0] && est <= (double)vals[n - 1], "%s: in [min, max]",
		      ctx);
	}
}

static void check_sets(const char *name, uint64_t *vals, size_t n)
{
	static uint64_t copy[MAXN];

	memcpy(copy, vals, n * sizeof(*vals));
	check_pcts(name, KPT_H_LOGLIN, copy, n);
	memcpy(copy, vals, n * sizeof(*vals));
	check_pcts(name, KPT_H_LOG2, copy, n);
}

static void test_percentiles(void)
{
	static uint64_t v[MAXN];
	static const size_t sizes[] = { 1, 2, 3, 7, 100, 1001, MAXN };
	static struct acc a;
	struct hist_view h;
	size_t s, i, n;
	double est;
	int p;

	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		n = sizes[s];
		for (i = 0; i < n; i++)
			v[i] = rnd() % 1000000;
		check_sets("uniform", v, n);
		for (i = 0; i < n; i++)
			v[i] = (uint64_t)(-ln(1 - rnd01()) * 50000);
		check_sets("exponential", v, n);
		for (i = 0; i < n; i++)
			v[i] = rnd() % 10 < 7 ? 2000 + rnd() % 200 : 5000000 + rnd() % 200000;
		check_sets("bimodal", v, n);
		for (i = 0; i < n; i++)
			v[i] = 123456;
		check_sets("constant", v, n);
		for (i = 0; i < n; i++)
			v[i] = rnd() % 64;
		check_sets("below 64", v, n);
		for (i = 0; i < n; i++)
			v[i] = rnd() % 200;
		check_sets("below 200", v, n);
		for (i = 0; i < n; i++)
			v[i] = (1ull << 63) - (1ull << 40) + rnd() % (1ull << 41);
		check_sets("near 2^63", v, n);
		for (i = 0; i < n; i++)
			v[i] = UINT64_MAX - rnd() % (1ull << 60);
		check_sets("near 2^64", v, n);
		for (i = 0; i < n; i++)
			v[i] = rnd() >> (rnd() % 64);
		check_sets("all magnitudes", v, n);
	}

	/* Ranks: values 1..100, exact (< 128); p% is the p-th value, 0.07 * 100 is 7. */
	acc_init(&a, KPT_H_LOGLIN);
	for (i = 1; i <= 100; i++)
		acc_add(&a, i);
	h = acc_view(&a, NULL);
	for (p = 0; p <= 100; p++) {
		char ctx[32];

		snprintf(ctx, sizeof(ctx), "rank of p%d", p);
		est = -1;
		hist_percentile(&h, p / 100.0, &est);
		CHECK_INT((long long)est, p ? p : 1, ctx);
	}
	/* p100 is stats.max exactly, even far inside a wide bucket. */
	acc_init(&a, KPT_H_LOGLIN);
	acc_add(&a, 1000);
	acc_add(&a, 1000000007);
	h = acc_view(&a, NULL);
	hist_percentile(&h, 1.0, &est);
	CHECK(est == 1000000007.0, "p100 = max: %.17g", est);
	hist_percentile(&h, 0.0, &est);
	CHECK(est == 1000.0, "p0 = min: %.17g", est);
	hist_percentile(&h, 0.5, &est);
	CHECK(est == 1000.0, "p50 of 2 is the first: %.17g", est);
	/* Clamping: one value in a wide bucket is returned as that value. */
	acc_init(&a, KPT_H_LOGLIN);
	for (i = 0; i < 10; i++)
		acc_add(&a, 1000000007);
	h = acc_view(&a, NULL);
	hist_percentile(&h, 0.5, &est);
	CHECK(est == 1000000007.0, "constant clamps to itself: %.17g", est);
}

static void test_linear_percentiles(void)
{
	static struct acc a;
	static uint64_t v[MAXN];
	struct hist_view h;
	size_t i, k, n = 5000;
	double est;

	/* [0, 1000) in steps of 50, 20 interior buckets; values spill both ways. */
	acc_init_linear(&a, 0, 50, 22);
	for (i = 0; i < n; i++) {
		v[i] = (uint64_t)(int64_t)((int64_t)(rnd() % 1400) - 200);
		acc_add(&a, v[i]);
	}
	h = acc_view(&a, NULL);
	/* Signed order for the exact ranks: shift into unsigned order. */
	for (i = 0; i < n; i++)
		v[i] ^= 1ull << 63;
	qsort(v, n, sizeof(*v), cmp_u64);
	for (i = 0; i < n; i++)
		v[i] ^= 1ull << 63;
	for (k = 0; k < sizeof(permille) / sizeof(permille[0]); k++) {
		uint64_t rank = ((uint64_t)permille[k] * n + 999) / 1000;
		int64_t tv;
		char ctx[64];

		if (rank < 1)
			rank = 1;
		tv = (int64_t)v[rank - 1];
		hist_percentile(&h, permille[k] / 1000.0, &est);
		snprintf(ctx, sizeof(ctx), "linear p%d true %" PRId64 " est %g", permille[k], tv,
			 est);
		if (tv >= 0 && tv < 1000)
			CHECK(dabs(est - (double)tv) <= 25, "%s: > step/2", ctx);
		else if (tv < 0)
			CHECK(est >= -200 && est < 0, "%s: below min", ctx);
		else
			CHECK(est >= 1000 && est <= 1199, "%s: above max", ctx);
	}
}

/* ---- bucket functions --------------------------------------------------------------- */

/* Lower edge of log-linear bucket b with 2^64 for the end (the header's wraps to 0 there). */
static unsigned __int128 loglin_edge(uint32_t b)
{
	return b == KPT_LOGLIN_BUCKETS ? (unsigned __int128)1 << 64 : kpt_loglin_lower(b);
}

static void check_loglin_value(uint64_t v)
{
	uint32_t b = kpt_loglin_bucket(v);

	CHECK(b < KPT_LOGLIN_BUCKETS, "loglin bucket %u of %" PRIu64, b, v);
	if (b >= KPT_LOGLIN_BUCKETS)
		return;
	CHECK(kpt_loglin_lower(b) <= v && v < loglin_edge(b + 1),
	      "%" PRIu64 " in bucket %u [%" PRIu64 ", next)", v, b, (uint64_t)kpt_loglin_lower(b));
}

/* ---- signed log2 ---------------------------------------------------------------- */

static int cmp_s64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* The bucket of a signed value: the table is the mirror written out. */
static void test_slog2_buckets(void)
{
	static const struct {
		int64_t v;
		uint32_t b;
	} rows[] = {
		{ INT64_MIN, 0 }, { INT64_MIN + 1, 1 }, { -4611686018427387905LL, 1 },
		{ -4611686018427387904LL, 1 }, { -4611686018427387903LL, 2 }, { -1025, 53 },
		{ -1024, 53 }, { -1023, 54 }, { -512, 54 }, { -511, 55 }, { -5, 61 },
		{ -4, 61 }, { -3, 62 }, { -2, 62 }, { -1, 63 }, { 0, 64 }, { 1, 65 },
		{ 2, 66 }, { 3, 66 }, { 4, 67 }, { 1023, 74 }, { 1024, 75 }, { INT64_MAX, 127 },
	};
	int64_t x, y;
	size_t i;
	int bad = 0;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char ctx[64];

		snprintf(ctx, sizeof(ctx), "kpt_slog2_bucket(%" PRId64 ")", rows[i].v);
		CHECK_INT(kpt_slog2_bucket(rows[i].v), rows[i].b, ctx);
	}
	/* Order: a larger value never has a smaller bucket; v >= 0 is log2's, shifted. */
	for (i = 0; i < 200000; i++) {
		x = (int64_t)rnd() >> (rnd() % 64);
		y = (int64_t)rnd() >> (rnd() % 64);
		if ((x < y && kpt_slog2_bucket(x) > kpt_slog2_bucket(y)) ||
		    (x >= 0 && kpt_slog2_bucket(x) != KPT_SLOG2_ZERO + kpt_log2_bucket(x)) ||
		    (x < 0 && x != INT64_MIN &&
		     kpt_slog2_bucket(x) != KPT_SLOG2_ZERO - kpt_log2_bucket(-x)))
			bad++;
	}
	CHECK(bad == 0, "%d random values out of order or not mirrored", bad);
}

/* The openat returns: -21 x 3, -2 x 7, 3 x 2; text and JSON. */
static void test_slog2_text_json(void)
{
	static struct acc a;
	struct hist_view h;
	char *s;
	int i;

	acc_init(&a, KPT_H_SLOG2);
	for (i = 0; i < 3; i++)
		acc_add(&a, (uint64_t)-21);
	for (i = 0; i < 7; i++)
		acc_add(&a, (uint64_t)-2);
	for (i = 0; i < 2; i++)
		acc_add(&a, 3);
	h = acc_view(&a, NULL);
	check_text("@ret:", &h,
		"@ret:\n"
		"(-32, -16]             3 |@@@@@@@@@@@@@@@@@@@@@@                              |\n"
		"(-16, -8]              0 |                                                    |\n"
		"(-8, -4]               0 |                                                    |\n"
		"(-4, -2]               7 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		"[-1]                   0 |                                                    |\n"
		"[0]                    0 |                                                    |\n"
		"[1]                    0 |                                                    |\n"
		"[2, 4)                 2 |@@@@@@@@@@@@@@                                      |\n"
		"count 12, sum -71, avg -5, min -21, max 3\n",
		"signed log2: negative rows mirror the positive ones");
	s = json(&h);
	CHECK_STR(s, "{\"buckets\":[{\"min\":-31,\"max\":-16,\"count\":3},"
		  "{\"min\":-15,\"max\":-8,\"count\":0},{\"min\":-7,\"max\":-4,\"count\":0},"
		  "{\"min\":-3,\"max\":-2,\"count\":7},{\"min\":-1,\"max\":-1,\"count\":0},"
		  "{\"min\":0,\"max\":0,\"count\":0},{\"min\":1,\"max\":1,\"count\":0},"
		  "{\"min\":2,\"max\":3,\"count\":2}],"
		  "\"count\":12,\"sum\":-71,\"min\":-21,\"max\":3,\"avg\":-5}",
		  "signed log2 json");
	free(s);

	/* Only negatives: the rows end at the last non-empty one; suffixes mirrored. */
	acc_init(&a, KPT_H_SLOG2);
	acc_add(&a, (uint64_t)-1500);
	acc_add(&a, (uint64_t)-1);
	h = acc_view(&a, NULL);
	s = text(NULL, &h);
	CHECK(s && !strncmp(s, "(-2K, -1K]             1 |", 26) && strstr(s, "\n[-1]   ") &&
	      strstr(s, "count 2, sum -1501, avg -750, min -1500, max -1\n"),
	      "negatives only: %s", s);
	free(s);

	/* -2^63: its row is the mirror of [8E, 16E), the one s64 it holds in JSON. */
	acc_init(&a, KPT_H_SLOG2);
	acc_add(&a, (uint64_t)INT64_MIN);
	h = acc_view(&a, NULL);
	s = text(NULL, &h);
	CHECK(s && !strncmp(s, "(-16E, -8E]            1 |", 26), "-2^63's label: %s", s);
	free(s);
	s = json(&h);
	CHECK_STR(s, "{\"buckets\":[{\"min\":-9223372036854775808,\"max\":"
		  "-9223372036854775808,\"count\":1}],\"count\":1,\"sum\":-9223372036854775808,"
		  "\"min\":-9223372036854775808,\"max\":-9223372036854775808,"
		  "\"avg\":-9223372036854775808}", "-2^63 json");
	free(s);
}

/* Percentiles of signed sets: within |v| / 2 (exact for |v| < 2), in [min, max]. */
static void test_slog2_percentiles(void)
{
	static int64_t v[MAXN];
	static struct acc a;
	static const size_t sizes[] = { 1, 2, 3, 100, 1001, MAXN };
	struct hist_view h;
	size_t s, i, k, n;
	char ctx[128];

	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		n = sizes[s];
		acc_init(&a, KPT_H_SLOG2);
		for (i = 0; i < n; i++) {
			v[i] = (int64_t)rnd() >> (rnd() % 64);
			acc_add(&a, (uint64_t)v[i]);
		}
		h = acc_view(&a, NULL);
		qsort(v, n, sizeof(*v), cmp_s64);
		for (k = 0; k < sizeof(permille) / sizeof(permille[0]); k++) {
			uint64_t rank = ((uint64_t)permille[k] * n + 999) / 1000;
			double est = 0, tv, bound;
			int rc;

			if (rank < 1)
				rank = 1;
			tv = (double)v[rank - 1];
			rc = hist_percentile(&h, permille[k] / 1000.0, &est);
			bound = dabs(tv) < 2 ? 0 : dabs(tv) / 2 + dabs(tv) * 0x1p-50;
			snprintf(ctx, sizeof(ctx), "signed n=%zu p%d true %.17g est %.17g", n,
				 permille[k], tv, est);
			CHECK(rc == 0 && dabs(est - tv) <= bound, "%s", ctx);
			CHECK(est >= (double)v[0] && est <= (double)v[n - 1], "%s: in [min, max]",
			      ctx);
		}
	}
}

static void test_bucket_functions(void)
{
	unsigned __int128 w, lo;
	uint64_t v, u, prev;
	uint32_t b, k, pb;
	int i, bad;

	/* Exhaustive over log-linear buckets: edges increase, map back, width <= lo/64. */
	bad = 0;
	for (b = 0; b < KPT_LOGLIN_BUCKETS; b++) {
		lo = loglin_edge(b);
		w = loglin_edge(b + 1) - lo;
		if (loglin_edge(b + 1) <= lo || kpt_loglin_bucket((uint64_t)lo) != b ||
		    kpt_loglin_bucket((uint64_t)(lo + w - 1)) != b ||
		    (b >= KPT_LOGLIN_SUB && w * KPT_LOGLIN_SUB > lo) ||
		    (b < 2 * KPT_LOGLIN_SUB && w != 1))
			bad++;
	}
	CHECK_INT(bad, 0, "loglin edges, widths, round trip");
	CHECK_INT(kpt_loglin_bucket(0), 0, "loglin 0");
	CHECK_INT(kpt_loglin_bucket(63), 63, "loglin 63");
	CHECK_INT(kpt_loglin_bucket(64), 64, "loglin 64");
	CHECK_INT(kpt_loglin_bucket(UINT64_MAX), KPT_LOGLIN_BUCKETS - 1, "loglin max");
	CHECK(kpt_loglin_lower(KPT_LOGLIN_BUCKETS - 1) == 127ull << 57, "top bucket edge");

	/* Random values over all magnitudes, and both sides of every power of two. */
	for (i = 0; i < 200000; i++)
		check_loglin_value(rnd() >> (rnd() % 64));
	for (k = 0; k < 64; k++) {
		check_loglin_value(1ull << k);
		check_loglin_value((1ull << k) - 1);
		check_loglin_value((1ull << k) + 1);
	}
	check_loglin_value(UINT64_MAX);

	/* Monotonic: sorted values give non-decreasing buckets, for both kinds. */
	bad = 0;
	prev = 0;
	pb = 0;
	for (i = 0; i < 100000; i++) {
		v = prev + (rnd() >> (rnd() % 56 + 8));
		if (v < prev)
			break;
		if (kpt_loglin_bucket(v) < pb || kpt_log2_bucket(v) < kpt_log2_bucket(prev))
			bad++;
		pb = kpt_loglin_bucket(v);
		prev = v;
	}
	CHECK_INT(bad, 0, "monotonic buckets");
	for (i = 0; i < 100000; i++) {
		v = rnd() >> (rnd() % 64);
		u = rnd() >> (rnd() % 64);
		if (v > u) {
			uint64_t t = v;

			v = u;
			u = t;
		}
		if (kpt_loglin_bucket(v) > kpt_loglin_bucket(u) ||
		    kpt_log2_bucket(v) > kpt_log2_bucket(u))
			bad++;
	}
	CHECK_INT(bad, 0, "monotonic buckets, random pairs");

	/* Log2: [0], [1], [2^(k-1), 2^k). */
	CHECK_INT(kpt_log2_bucket(0), 0, "log2 0");
	CHECK_INT(kpt_log2_bucket(1), 1, "log2 1");
	CHECK_INT(kpt_log2_bucket(UINT64_MAX), 64, "log2 max");
	bad = 0;
	for (k = 1; k < 64; k++)
		if (kpt_log2_bucket(1ull << k) != k + 1 || kpt_log2_bucket((1ull << k) - 1) != k)
			bad++;
	for (i = 0; i < 100000; i++) {
		v = rnd() >> (rnd() % 64);
		b = kpt_log2_bucket(v);
		if (b >= KPT_LOG2_BUCKETS || (v && ((v >> (b - 1)) != 1)))
			bad++;
	}
	CHECK_INT(bad, 0, "log2 edges");

	/* Linear: under, [min + (i-1)step, min + i*step), over. */
	CHECK_INT(kpt_linear_bucket(-1, 0, 10, 5), 0, "linear below");
	CHECK_INT(kpt_linear_bucket(0, 0, 10, 5), 1, "linear min");
	CHECK_INT(kpt_linear_bucket(9, 0, 10, 5), 1, "linear first end");
	CHECK_INT(kpt_linear_bucket(10, 0, 10, 5), 2, "linear second");
	CHECK_INT(kpt_linear_bucket(29, 0, 10, 5), 3, "linear last interior");
	CHECK_INT(kpt_linear_bucket(30, 0, 10, 5), 4, "linear over");
	CHECK_INT(kpt_linear_bucket(INT64_MAX, 0, 10, 5), 4, "linear far over");
	CHECK_INT(kpt_linear_bucket(INT64_MIN, 0, 10, 5), 0, "linear far below");
	CHECK_INT(kpt_linear_bucket(-105, -100, 7, 10), 0, "linear negative below");
	CHECK_INT(kpt_linear_bucket(-100, -100, 7, 10), 1, "linear negative min");
	CHECK_INT(kpt_linear_bucket(5, 0, 0, 5), 0, "linear step 0");
	CHECK_INT(kpt_linear_bucket(5, 0, 1, 2), 0, "linear 2 buckets");
	bad = 0;
	for (i = 0; i < 100000; i++) {
		int64_t min = (int64_t)(rnd() % 2000000) - 1000000;
		int64_t step = (int64_t)(rnd() % 5000) + 1;
		uint32_t n = (uint32_t)(rnd() % (KPT_LINEAR_MAX - 2)) + 3;
		/*
		 * Within 2^62 of min: kpt_linear_bucket computes v - min in s64,
		 * which overflows (undefined in C) for a range wider than 2^63.
		 */
		int64_t x = min + (int64_t)(rnd() % (1ull << 40)) - (int64_t)(1ull << 39);
		__int128 want;

		if (x < min)
			want = 0;
		else
			want = ((__int128)x - min) / step + 1;
		if (want > n - 1)
			want = n - 1;
		if (kpt_linear_bucket(x, min, step, n) != (uint32_t)want)
			bad++;
	}
	CHECK_INT(bad, 0, "linear random");
}

int main(void)
{
	test_log2_text();
	test_log2_suffixes();
	test_linear_text();
	test_loglin_text();
	test_loglin_us_rows();
	test_units();
	test_empty_single_huge();
	test_wide_columns();
	test_json();
	test_summary();
	test_percentiles();
	test_linear_percentiles();
	test_bucket_functions();
	test_slog2_buckets();
	test_slog2_text_json();
	test_slog2_percentiles();
	return check_report();
}
