// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Histogram presentation: bucket arrays to bpftrace's text histogram, JSON,
 * percentiles and a latency summary. See hist.h for the formats and bounds.
 *
 * Values live in [-2^63, 2^64) and bucket edges reach 2^64, so edges and
 * estimates are computed in __int128: no case of wrap-around to think about.
 * No libm: the only floating point is bpftrace's bar width and the rank.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "agg/hist.h"
#include "kpt_buckets.h"

/* bpftrace's row geometry. */
#define BAR_WIDTH	52
#define LABEL_WIDTH	16
#define COUNT_WIDTH	8

#define UNIT_MAX	15	/* characters of a unit name printed */
/* A number in [-2^63, 2^64], its fraction and a unit. */
#define NUM_MAX		(1 + 21 + 1 + 9 + UNIT_MAX + 1)
#define LABEL_MAX	(2 * NUM_MAX + 8)
#define STATS_MAX	(64 + 4 * NUM_MAX)	/* "count N" and four ", sum S" */
_Static_assert(LABEL_MAX <= HIST_LABEL_MAX, "hist.h's HIST_LABEL_MAX holds every label");

struct unit {
	const char *name;	/* appended to every number; NULL: plain numbers */
	uint64_t div;		/* raw values (ns) per unit */
	int decimals;		/* digits of a fraction of div */
	bool scaled;		/* a unit is printed: no K/M suffixes, exact decimals */
};

static struct unit unit_of(const char *name)
{
	static const struct unit times[] = {
		{ "ns", 1, 0, true },
		{ "us", 1000, 3, true },
		{ "ms", 1000000, 6, true },
		{ "s", 1000000000, 9, true },
	};
	struct unit u = { name, 1, 0, false };
	size_t i;

	if (!name)
		return u;
	for (i = 0; i < sizeof(times) / sizeof(times[0]); i++)
		if (!strcmp(name, times[i].name))
			return times[i];
	/* Not a time: the values are printed as they are, with the name after them. */
	u.scaled = true;
	return u;
}

/* Decimal digits of m into buf (at least "0"); returns the length. */
static int fmt_u128(char *buf, unsigned __int128 m)
{
	char tmp[40];
	int n = 0, i;

	do {
		tmp[n++] = (char)('0' + (int)(m % 10));
		m /= 10;
	} while (m);
	for (i = 0; i < n; i++)
		buf[i] = tmp[n - 1 - i];
	buf[n] = '\0';
	return n;
}

static int fmt_int(char *buf, __int128 v)
{
	if (v < 0) {
		buf[0] = '-';
		return 1 + fmt_u128(buf + 1, -(unsigned __int128)v);
	}
	return fmt_u128(buf, (unsigned __int128)v);
}

/* v raw units in u: exact, trailing zeros of the fraction dropped, unit appended. */
static void fmt_val(char *buf, __int128 v, const struct unit *u)
{
	unsigned __int128 m = v < 0 ? -(unsigned __int128)v : (unsigned __int128)v;
	uint64_t frac = (uint64_t)(m % u->div);
	char *p = buf;

	if (v < 0)
		*p++ = '-';
	p += fmt_u128(p, m / u->div);
	if (frac) {
		int d = u->decimals;

		while (frac % 10 == 0) {
			frac /= 10;
			d--;
		}
		p += sprintf(p, ".%0*" PRIu64, d, frac);
	}
	/* A unit name is a short word; a long one is cut, never overflowing buf. */
	snprintf(p, UNIT_MAX + 1, "%s", u->name ? u->name : "");
}

static unsigned int ilog2_128(unsigned __int128 x)
{
	return x >> 64 ? 64 + kpt_ilog2((uint64_t)(x >> 64)) : kpt_ilog2((uint64_t)x);
}

/*
 * bpftrace's hist(v, k) edge label: below 2^(k+1) the number; above, x is
 * m * 2^p with k + 1 significant bits, printed as m * 2^(p % 10) and the
 * suffix of 1024^(p / 10). So 1024 is "1K" for log2 (k = 0) and 66560 is
 * "65K" for the 64-step log-linear edges (k = 6).
 */
static void fmt_pow_label(char *buf, unsigned __int128 x, unsigned int k)
{
	unsigned int p;
	uint64_t m;

	if (x < ((unsigned __int128)2 << k)) {
		fmt_u128(buf, x);
		return;
	}
	p = ilog2_128(x) - k;
	m = (uint64_t)(x >> p);
	sprintf(buf, "%" PRIu64 "%.1s", m << (p % 10), &"\0KMGTPE"[p / 10]);
}

/* bpftrace's lhist() edge label: K and M only for a step that is a multiple of 1024. */
static void fmt_lin_label(char *buf, __int128 x, int64_t step)
{
	if (step % 1024 || x == 0)
		fmt_int(buf, x);
	else if (x % (1024 * 1024) == 0)
		strcpy(buf + fmt_int(buf, x / (1024 * 1024)), "M");
	else if (x % 1024 == 0)
		strcpy(buf + fmt_int(buf, x / 1024), "K");
	else
		fmt_int(buf, x);
}

enum row_style {
	ROW_POW2,	/* log2 edges, bpftrace's hist() */
	ROW_FINE,	/* log-linear edges, bpftrace's hist(v, 6) */
	ROW_LINEAR,	/* bpftrace's lhist() */
};

/* What the text rows and the JSON buckets are made of. */
struct layout {
	enum row_style style;
	uint32_t n;			/* rows */
	const uint64_t *counts;		/* n entries */
	uint64_t scale;			/* ROW_POW2: the rows are log2 rows of value / scale */
	bool mirrored;			/* ROW_POW2: KPT_H_SLOG2's, negative rows first */
	uint64_t merged[KPT_LOG2_BUCKETS];	/* log-linear merged into log2 rows */
};

struct row {
	__int128 lo, hi;		/* [lo, hi) */
	bool under, over;		/* linear: below lin_min, from the last edge on */
	bool neg;			/* signed log2: a negative row, (-2^k, -2^(k-1)] */
	uint64_t count;
};

/* The view is usable: a known kind, counts to read, a linear layout that makes sense. */
static bool view_ok(const struct hist_view *h)
{
	if (!h || (h->nbuckets && !h->counts))
		return false;
	switch (h->kind) {
	case KPT_H_LOG2:
	case KPT_H_SLOG2:
	case KPT_H_LOGLIN:
		return true;
	case KPT_H_LINEAR:
		/* kpt_linear_bucket() puts everything in bucket 0 otherwise. */
		return h->nbuckets >= 3 && h->lin_step > 0;
	}
	return false;
}

static uint32_t raw_buckets(const struct hist_view *h)
{
	switch (h->kind) {
	case KPT_H_LOG2:
		return h->nbuckets < KPT_LOG2_BUCKETS ? h->nbuckets : KPT_LOG2_BUCKETS;
	case KPT_H_SLOG2:
		return h->nbuckets < KPT_SLOG2_BUCKETS ? h->nbuckets : KPT_SLOG2_BUCKETS;
	case KPT_H_LOGLIN:
		return h->nbuckets < KPT_LOGLIN_BUCKETS ? h->nbuckets : KPT_LOGLIN_BUCKETS;
	case KPT_H_LINEAR:
		break;
	}
	return h->nbuckets;
}

/* Lowest value of log-linear bucket b, b = KPT_LOGLIN_BUCKETS included (2^64). */
static __int128 loglin_lower(uint32_t b)
{
	if (b < KPT_LOGLIN_SUB)
		return b;
	return (__int128)(KPT_LOGLIN_SUB + b % KPT_LOGLIN_SUB) << (b / KPT_LOGLIN_SUB - 1);
}

/* Log2 bucket k is [lo, lo + w): [0], [1], [2^(k-1), 2^k). */
static __int128 log2_lower(uint32_t k)
{
	return k ? (__int128)1 << (k - 1) : 0;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/*
 * The scale of the merged log-linear rows: the unit's, when every edge
 * unit * 2^j is a fine-bucket edge, so that each fine bucket falls in one row
 * whole and the rows are exact. A fine edge doubled is a fine edge, so the
 * unit being one is enough: true of ns and us (1000 = 125 * 2^3), not of ms
 * or s (10^6 = 15625 * 2^6 has 14 significant bits, the edges 7).
 */
static uint64_t merge_scale(const struct unit *u)
{
	if (u->scaled && kpt_loglin_lower(kpt_loglin_bucket(u->div)) == u->div)
		return u->div;
	return 1;
}

static bool layout_init(const struct hist_view *h, const struct unit *u, struct layout *l)
{
	uint32_t b, n;

	if (!view_ok(h))
		return false;
	l->counts = h->counts;
	l->scale = 1;
	l->mirrored = false;
	l->n = raw_buckets(h);
	switch (h->kind) {
	case KPT_H_LOG2:
		l->style = ROW_POW2;
		break;
	case KPT_H_SLOG2:
		l->style = ROW_POW2;
		l->mirrored = true;
		break;
	case KPT_H_LINEAR:
		l->style = ROW_LINEAR;
		break;
	case KPT_H_LOGLIN:
		if (h->flags & HIST_F_FINE) {
			l->style = ROW_FINE;
			break;
		}
		/*
		 * Every log2 edge (of the scale) is a log-linear edge, so merging
		 * by the fine bucket's lower bound is exact: these are the rows
		 * bpftrace's hist(v / scale) would print, [256us, 512us) in us.
		 */
		l->style = ROW_POW2;
		l->scale = merge_scale(u);
		memset(l->merged, 0, sizeof(l->merged));
		n = l->n;
		for (b = 0; b < n; b++) {
			uint32_t k = kpt_log2_bucket(kpt_loglin_lower(b) / l->scale);

			l->merged[k] = sat_add(l->merged[k], h->counts[b]);
		}
		l->counts = l->merged;
		l->n = KPT_LOG2_BUCKETS;
		break;
	}
	return true;
}

static void layout_row(const struct hist_view *h, const struct layout *l, uint32_t i,
		       struct row *r)
{
	uint32_t k;

	memset(r, 0, sizeof(*r));
	r->count = l->counts[i];
	switch (l->style) {
	case ROW_POW2:
		if (l->mirrored && i < KPT_SLOG2_ZERO) {
			/* the mirror of log2 row k, [-(2^k - 1), -2^(k-1)] */
			k = KPT_SLOG2_ZERO - i;
			r->neg = true;
			r->lo = 1 - ((__int128)1 << k);
			r->hi = 1 - log2_lower(k);
			break;
		}
		k = l->mirrored ? i - KPT_SLOG2_ZERO : i;
		r->lo = log2_lower(k) * l->scale;
		r->hi = ((__int128)1 << k) * l->scale;
		break;
	case ROW_FINE:
		r->lo = loglin_lower(i);
		r->hi = loglin_lower(i + 1);
		break;
	case ROW_LINEAR:
		r->under = i == 0;
		r->over = i == l->n - 1;
		r->lo = (__int128)h->lin_min + (__int128)(i ? i - 1 : 0) * h->lin_step;
		r->hi = r->under ? h->lin_min : r->lo + h->lin_step;
		break;
	}
}

static void fmt_edge(char *buf, const struct hist_view *h, const struct layout *l,
		     const struct unit *u, __int128 x)
{
	if (u->scaled) {
		fmt_val(buf, x, u);
	} else if (l->style == ROW_LINEAR) {
		fmt_lin_label(buf, x, h->lin_step);
	} else if (x < 0) {
		/* a mirrored row's edge: the positive edge's label, negated */
		buf[0] = '-';
		fmt_pow_label(buf + 1, -(unsigned __int128)x, 0);
	} else {
		fmt_pow_label(buf, (unsigned __int128)x, l->style == ROW_FINE ? 6 : 0);
	}
}

static void fmt_row_label(char *buf, const struct hist_view *h, const struct layout *l,
			  const struct unit *u, const struct row *r)
{
	char a[NUM_MAX], b[NUM_MAX];

	if (r->under) {
		fmt_edge(b, h, l, u, r->hi);
		sprintf(buf, "(..., %s)", b);
		return;
	}
	if (r->neg && r->hi != r->lo + 1) {
		/* (-4, -2]: the mirror of [2, 4), open and closed as it is */
		fmt_edge(a, h, l, u, r->lo - 1);
		fmt_edge(b, h, l, u, r->hi - 1);
		sprintf(buf, "(%s, %s]", a, b);
		return;
	}
	fmt_edge(a, h, l, u, r->lo);
	if (r->over) {
		sprintf(buf, "[%s, ...)", a);
	} else if (r->hi == r->lo + 1) {
		sprintf(buf, "[%s]", a);
	} else {
		fmt_edge(b, h, l, u, r->hi);
		sprintf(buf, "[%s, %s)", a, b);
	}
}

/* First and last non-empty rows and the largest count; false when all are empty. */
static bool layout_span(const struct layout *l, uint32_t *first, uint32_t *last,
			uint64_t *max)
{
	uint32_t i;
	bool any = false;

	*first = *last = 0;
	*max = 0;
	for (i = 0; i < l->n; i++) {
		if (!l->counts[i])
			continue;
		if (!any)
			*first = i;
		any = true;
		*last = i;
		if (l->counts[i] > *max)
			*max = l->counts[i];
	}
	return any;
}

static __int128 sval(const struct hist_view *h, uint64_t x)
{
	return h->value_signed ? (__int128)(int64_t)x : (__int128)x;
}

/* Average of the raw values, truncated toward zero. */
static __int128 stats_avg(const struct hist_view *h)
{
	return sval(h, h->stats.sum) / (__int128)h->stats.count;
}

/* stats.min/max describe the values: there are some, and min <= max. */
static bool stats_ok(const struct hist_view *h)
{
	return h->stats.count && sval(h, h->stats.min) <= sval(h, h->stats.max);
}

static unsigned __int128 total_count(const struct hist_view *h)
{
	unsigned __int128 t = 0;
	uint32_t i, n = raw_buckets(h);

	for (i = 0; i < n; i++)
		t += h->counts[i];
	return t;
}

/* Midpoint estimate of a value in raw bucket b (see hist.h for the bounds). */
static __int128 bucket_estimate(const struct hist_view *h, uint32_t b, bool ok)
{
	__int128 lo, w, smin = sval(h, h->stats.min), smax = sval(h, h->stats.max);

	switch (h->kind) {
	case KPT_H_LOG2:
		lo = log2_lower(b);
		w = b ? lo : 1;
		return lo + w / 2;
	case KPT_H_SLOG2:
		/* a negative row's estimate mirrors its positive row's */
		if (b < KPT_SLOG2_ZERO) {
			lo = log2_lower(KPT_SLOG2_ZERO - b);
			return -(lo + lo / 2);
		}
		lo = log2_lower(b - KPT_SLOG2_ZERO);
		w = b > KPT_SLOG2_ZERO ? lo : 1;
		return lo + w / 2;
	case KPT_H_LOGLIN:
		lo = loglin_lower(b);
		return lo + (loglin_lower(b + 1) - lo) / 2;
	case KPT_H_LINEAR:
		break;
	}
	if (b == 0) {
		/* Below lin_min: all we know is [stats.min, lin_min). */
		if (ok && smin < h->lin_min)
			return smin + (h->lin_min - smin) / 2;
		return (__int128)h->lin_min - 1;
	}
	lo = (__int128)h->lin_min + (__int128)(b - 1) * h->lin_step;
	if (b == h->nbuckets - 1) {
		/* From the last edge on: [edge, stats.max]. */
		if (ok && smax >= lo)
			return lo + (smax + 1 - lo) / 2;
		return lo;
	}
	return lo + h->lin_step / 2;
}

unsigned __int128 hist_rank(double q, unsigned __int128 total)
{
	unsigned __int128 rank;
	double x;

	/*
	 * rank = ceil(q * N), but q is rarely exact in binary: 0.07 * 100 is
	 * 7.000000000000001. Shaving 2^-40 off first makes that rank 7; a true
	 * fraction that small needs over 2^40 events.
	 */
	x = q * (double)total;
	x -= x * 0x1p-40;
	rank = (unsigned __int128)x;
	if ((double)rank < x)
		rank++;
	if (rank < 1)
		rank = 1;
	if (rank > total)
		rank = total;
	return rank;
}

static int percentile(const struct hist_view *h, double q, __int128 *out)
{
	unsigned __int128 total, rank, cum = 0;
	uint32_t b, n;
	bool ok;
	__int128 v;

	if (!view_ok(h) || !(q >= 0.0 && q <= 1.0))
		return -EINVAL;
	total = total_count(h);
	if (!total)
		return -ENOENT;
	rank = hist_rank(q, total);
	ok = stats_ok(h);
	if (ok && rank == total) {
		*out = sval(h, h->stats.max);
		return 0;
	}
	if (ok && rank == 1) {
		*out = sval(h, h->stats.min);
		return 0;
	}
	n = raw_buckets(h);
	for (b = 0; b < n; b++) {
		cum += h->counts[b];
		if (cum >= rank)
			break;
	}
	v = bucket_estimate(h, b, ok);
	/* The true value is within [min, max]: clamping only brings the estimate closer. */
	if (ok) {
		if (v < sval(h, h->stats.min))
			v = sval(h, h->stats.min);
		if (v > sval(h, h->stats.max))
			v = sval(h, h->stats.max);
	}
	*out = v;
	return 0;
}

int hist_percentile(const struct hist_view *h, double q, double *out)
{
	__int128 v;
	int err = percentile(h, q, &v);

	if (!err)
		*out = (double)v;
	return err;
}

/* "count N, sum S, avg A, min M, max X": the stats line of hist_print(). */
static void stats_line(const struct hist_view *h, const struct unit *u, char *buf, size_t len)
{
	char sum[NUM_MAX], avg[NUM_MAX], min[NUM_MAX], max[NUM_MAX];

	fmt_val(sum, sval(h, h->stats.sum), u);
	if (h->stats.count) {
		fmt_val(avg, stats_avg(h), u);
		fmt_val(min, sval(h, h->stats.min), u);
		fmt_val(max, sval(h, h->stats.max), u);
	} else {
		/* Buckets without a stats entry (read apart): say nothing false. */
		strcpy(avg, "-");
		strcpy(min, "-");
		strcpy(max, "-");
	}
	snprintf(buf, len, "count %" PRIu64 ", sum %s, avg %s, min %s, max %s",
		 (uint64_t)h->stats.count, sum, avg, min, max);
}

void hist_print(FILE *f, const char *title, const struct hist_view *h)
{
	struct unit u = unit_of(h ? h->unit : NULL);
	char label[LABEL_MAX], bar[BAR_WIDTH + 1], stats[STATS_MAX];
	int lw = LABEL_WIDTH, cw = COUNT_WIDTH, len;
	uint32_t i, first, last;
	uint64_t top;
	struct layout l;
	struct row r;

	if (title)
		fprintf(f, "%s\n", title);
	if (!layout_init(h, &u, &l)) {
		fputs("(invalid histogram)\n", f);
		return;
	}
	if (!layout_span(&l, &first, &last, &top)) {
		fputs("(no events)\n", f);
		return;
	}
	for (i = first; i <= last; i++) {
		layout_row(h, &l, i, &r);
		fmt_row_label(label, h, &l, &u, &r);
		len = (int)strlen(label);
		if (len > lw)
			lw = len;
		len = snprintf(NULL, 0, "%" PRIu64, r.count);
		if (len > cw)
			cw = len;
	}
	for (i = first; i <= last; i++) {
		/* bpftrace's arithmetic, float and truncation, for the same bars. */
		int w = (int)((float)l.counts[i] / (float)top * BAR_WIDTH);

		layout_row(h, &l, i, &r);
		fmt_row_label(label, h, &l, &u, &r);
		memset(bar, '@', (size_t)w);
		bar[w] = '\0';
		fprintf(f, "%-*s%*" PRIu64 " |%-*s|\n", lw, label, cw, r.count, BAR_WIDTH, bar);
	}
	stats_line(h, &u, stats, sizeof(stats));
	fprintf(f, "%s\n", stats);
}

static void json_num(FILE *f, const char *key, __int128 v, bool valid)
{
	char buf[NUM_MAX];

	if (!valid) {
		fprintf(f, ",\"%s\":null", key);
		return;
	}
	fmt_int(buf, v);
	fprintf(f, ",\"%s\":%s", key, buf);
}

/*
 * A log-linear histogram's fine buckets, the non-empty ones, as [LO, COUNT]
 * (each up to the next's LO, or 2^(k+1) after a power's last): what the
 * rows merge, for readers that compare distributions (kptrace diff).
 */
static void print_json_fine(FILE *f, const struct hist_view *h)
{
	uint32_t b, n = raw_buckets(h);
	char lo[NUM_MAX];
	bool sep = false;

	fputs(",\"fine\":[", f);
	for (b = 0; b < n; b++) {
		if (!h->counts[b])
			continue;
		fmt_int(lo, loglin_lower(b));
		fprintf(f, "%s[%s,%" PRIu64 "]", sep ? "," : "", lo, h->counts[b]);
		sep = true;
	}
	fputc(']', f);
}

void hist_print_json(FILE *f, const struct hist_view *h)
{
	static const struct {
		const char *key;
		double q;
	} pcts[] = { { "p50", 0.5 }, { "p90", 0.9 }, { "p99", 0.99 }, { "p99_9", 0.999 } };
	struct unit u = unit_of(h ? h->unit : NULL);
	char a[NUM_MAX], b[NUM_MAX];
	uint32_t i, first = 0, last = 0;
	bool any = false, sep = false;
	uint64_t top;
	struct layout l;
	struct row r;
	size_t k;

	fputs("{\"buckets\":[", f);
	if (layout_init(h, &u, &l))
		any = layout_span(&l, &first, &last, &top);
	for (i = first; any && i <= last; i++) {
		layout_row(h, &l, i, &r);
		fputs(sep ? ",{" : "{", f);
		sep = true;
		/* (-2^64, -2^63] holds one s64, -2^63 */
		fmt_int(a, r.lo < INT64_MIN ? INT64_MIN : r.lo);
		fmt_int(b, r.hi - 1);
		if (!r.under)
			fprintf(f, "\"min\":%s,", a);
		if (!r.over)
			fprintf(f, "\"max\":%s,", b);
		fprintf(f, "\"count\":%" PRIu64 "}", r.count);
	}
	fputc(']', f);
	if (!h) {
		fputs(",\"count\":0}", f);
		return;
	}
	fprintf(f, ",\"count\":%" PRIu64, (uint64_t)h->stats.count);
	json_num(f, "sum", sval(h, h->stats.sum), true);
	json_num(f, "min", sval(h, h->stats.min), h->stats.count);
	json_num(f, "max", sval(h, h->stats.max), h->stats.count);
	json_num(f, "avg", h->stats.count ? stats_avg(h) : 0, h->stats.count);
	if (h->kind == KPT_H_LOGLIN) {
		for (k = 0; k < sizeof(pcts) / sizeof(pcts[0]); k++) {
			__int128 v = 0;
			bool valid = percentile(h, pcts[k].q, &v) == 0;

			json_num(f, pcts[k].key, v, valid);
		}
		print_json_fine(f, h);
	}
	fputc('}', f);
}

bool hist_print_one(FILE *f, const char *title, const struct hist_view *h)
{
	struct unit u = unit_of(h->unit);
	char v[NUM_MAX];

	if (h->stats.count != 1 || total_count(h) != 1)
		return false;
	fmt_val(v, sval(h, h->stats.min), &u);
	fprintf(f, "%s%scount 1, %s\n", title ? title : "", title ? " " : "", v);
	return true;
}

void hist_print_latency_summary(FILE *f, const struct hist_view *h)
{
	static const struct {
		const char *name;
		double q;
	} pcts[] = { { "p50", 0.5 }, { "p90", 0.9 }, { "p99", 0.99 }, { "p99.9", 0.999 } };
	struct unit u = unit_of(h ? h->unit : NULL);
	char buf[NUM_MAX];
	__int128 v;
	size_t k;
	int err;

	err = percentile(h, 0.5, &v);
	if (err == -EINVAL) {
		fputs("(invalid histogram)\n", f);
		return;
	}
	if (err) {
		fputs("(no events)\n", f);
		return;
	}
	if (h->stats.count)
		fmt_val(buf, stats_avg(h), &u);
	else
		strcpy(buf, "-");	/* buckets without a stats entry */
	fprintf(f, "count %" PRIu64 ", avg %s", (uint64_t)h->stats.count, buf);
	for (k = 0; k < sizeof(pcts) / sizeof(pcts[0]); k++) {
		percentile(h, pcts[k].q, &v);
		fmt_val(buf, v, &u);
		fprintf(f, ", %s %s", pcts[k].name, buf);
	}
	if (h->stats.count)
		fmt_val(buf, sval(h, h->stats.max), &u);
	else
		strcpy(buf, "-");
	fprintf(f, ", max %s\n", buf);
}

int hist_rows(const struct hist_view *h, hist_row_fn fn, void *arg)
{
	struct unit u = unit_of(h ? h->unit : NULL);
	uint32_t i, first, last;
	struct hist_row hr;
	struct layout l;
	uint64_t top;
	struct row r;

	if (!layout_init(h, &u, &l))
		return -EINVAL;
	if (!layout_span(&l, &first, &last, &top))
		return 0;
	for (i = first; i <= last; i++) {
		layout_row(h, &l, i, &r);
		fmt_row_label(hr.label, h, &l, &u, &r);
		hr.index = i;
		hr.count = r.count;
		hr.lo = (double)r.lo;
		hr.hi = (double)r.hi;
		fn(arg, &hr);
	}
	return (int)(last - first + 1);
}

void hist_stats_line(const struct hist_view *h, char *buf, size_t len)
{
	struct unit u = unit_of(h ? h->unit : NULL);
	char line[STATS_MAX];

	if (!h) {
		snprintf(buf, len, "(invalid histogram)");
		return;
	}
	stats_line(h, &u, line, sizeof(line));
	snprintf(buf, len, "%s", line);
}

int hist_percentile_text(const struct hist_view *h, double q, double *out, char *buf, size_t len)
{
	struct unit u = unit_of(h ? h->unit : NULL);
	char num[NUM_MAX];
	__int128 v;
	int err = percentile(h, q, &v);

	if (err) {
		snprintf(buf, len, "-");
		return err;
	}
	fmt_val(num, v, &u);
	snprintf(buf, len, "%s", num);
	*out = (double)v;
	return 0;
}
