// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * kptrace diff A B: two runs' --json tables, key by key, with a test of
 * whether each distribution (or count) changed. See diff.h for the rules.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "agg/hist.h"
#include "diff/diff.h"
#include "util/svg.h"
#include "util/table.h"
#include "kpt_buckets.h"

#define SEP		"\x1f"	/* between an id's parts: below every printable character */
#define KEY_SHOW_MAX	60	/* a key's text in the table, cut past this */
#define BINOM_TERMS	10000000	/* the exact tail's terms before the normal approximation */
#define SHIFT_TAIL	100	/* events above a quantile in both runs for its move to count */
#define SHIFT_TAIL_S	"100"

/* ------------------------------------------------------------------ */
/* Statistics                                                          */
/* ------------------------------------------------------------------ */

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

static uint64_t bucket_total(const struct diff_bucket *b, size_t n)
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
	uint64_t total = bucket_total(b, n);

	if (!total || !(q >= 0 && q <= 1))
		return -1;
	/* the text's own nearest rank, so both runs' quantiles are kptrace's */
	*out = rank_value(b, n, (uint64_t)hist_rank(q, total), total, has_minmax, min, max);
	return 0;
}

int diff_quantile_ci(const struct diff_bucket *b, size_t n, double q, bool has_minmax, double min,
		     double max, double *lo, double *hi)
{
	uint64_t total = bucket_total(b, n);
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

/* ------------------------------------------------------------------ */
/* Reading rows                                                        */
/* ------------------------------------------------------------------ */

static int say(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int say(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -1;
}

static int get_str(json_t *o, const char *name, const char **out, char *err, size_t len)
{
	json_t *v = json_object_get(o, name);

	if (!v)
		return say(err, len, "not a kptrace row: no \"%s\"", name);
	if (!json_is_string(v))
		return say(err, len, "not a kptrace row: \"%s\" is not a string", name);
	*out = json_string_value(v);
	return 0;
}

/* A count: a whole number in [0, 2^64). what names it in the message. */
static int get_count(json_t *v, const char *what, uint64_t *out, char *err, size_t len)
{
	double d;

	if (!v)
		return say(err, len, "not a kptrace row: no %s", what);
	if (!json_is_number(v))
		return say(err, len, "%s is not a number", what);
	d = json_number_value(v);
	if (!(d >= 0 && d < 0x1p64) || d != floor(d))
		return say(err, len, "%s is %g, not a count", what, d);
	*out = (uint64_t)d;
	return 0;
}

/* A bucket's optional end: absent or null is open (-inf or +inf). */
static int get_edge(json_t *o, const char *name, double open, double *out, size_t i, char *err,
		    size_t len)
{
	json_t *v = json_object_get(o, name);

	if (!v || json_is_null(v)) {
		*out = open;
		return 0;
	}
	if (!json_is_number(v))
		return say(err, len, "\"buckets\"[%zu].\"%s\" is not a number", i, name);
	*out = json_number_value(v);
	return 0;
}

/* "buckets": [{"min":LO,"max":HI,"count":C}...], max inclusive: [LO, HI + 1). */
static int parse_coarse(json_t *arr, struct diff_row *r, char *err, size_t len)
{
	size_t i, n;
	char what[64];

	if (!json_is_array(arr))
		return say(err, len, "\"hist\".\"buckets\" is %s", arr ? "not an array" : "missing");
	n = json_array_size(arr);
	r->coarse = calloc(n ? n : 1, sizeof(*r->coarse));
	if (!r->coarse)
		return say(err, len, "out of memory");
	for (i = 0; i < n; i++) {
		json_t *o = json_array_get(arr, i);
		struct diff_bucket *k = &r->coarse[i];
		double max = 0;

		if (!json_is_object(o))
			return say(err, len, "\"buckets\"[%zu] is not an object", i);
		if (get_edge(o, "min", -INFINITY, &k->lo, i, err, len) ||
		    get_edge(o, "max", INFINITY, &max, i, err, len))
			return -1;
		/* max + 1 is max itself past 2^53: the next double keeps hi above lo */
		k->hi = max + 1 > max ? max + 1 : nextafter(max, INFINITY);
		if (!(k->lo < k->hi))
			return say(err, len, "\"buckets\"[%zu]: \"min\" %.0f is above \"max\" %.0f",
				   i, k->lo, max);
		snprintf(what, sizeof(what), "\"buckets\"[%zu].\"count\"", i);
		if (get_count(json_object_get(o, "count"), what, &k->count, err, len))
			return -1;
	}
	r->ncoarse = n;
	return 0;
}

/* "fine": [[LO, C]...], each LO a log-linear bucket's lower edge. */
static int parse_fine(json_t *arr, struct diff_row *r, char *err, size_t len)
{
	size_t i, n;
	char what[64];

	if (!arr)
		return 0;
	if (!json_is_array(arr))
		return say(err, len, "\"hist\".\"fine\" is not an array");
	n = json_array_size(arr);
	r->fine = calloc(n ? n : 1, sizeof(*r->fine));
	if (!r->fine)
		return say(err, len, "out of memory");
	for (i = 0; i < n; i++) {
		json_t *p = json_array_get(arr, i), *lo = json_array_get(p, 0);

		if (!json_is_array(p) || json_array_size(p) != 2 || !json_is_number(lo))
			return say(err, len, "\"fine\"[%zu] is not [LOWER_EDGE, COUNT]", i);
		if (diff_fine_bucket(json_number_value(lo), &r->fine[i]))
			return say(err, len, "\"fine\"[%zu]: %.17g is no fine bucket's lower edge",
				   i, json_number_value(lo));
		snprintf(what, sizeof(what), "\"fine\"[%zu]'s count", i);
		if (get_count(json_array_get(p, 1), what, &r->fine[i].count, err, len))
			return -1;
	}
	r->nfine = n;
	r->has_fine = true;
	return 0;
}

/* "hist": its buckets, count, min and max; the buckets must hold the count. */
static int parse_hist(json_t *h, struct diff_row *r, char *err, size_t len)
{
	json_t *min, *max;
	uint64_t t;

	if (!h)
		return say(err, len, "not a kptrace row: no \"hist\"");
	if (!json_is_object(h))
		return say(err, len, "\"hist\" is not an object");
	if (get_count(json_object_get(h, "count"), "\"hist\".\"count\"", &r->count, err, len) ||
	    parse_coarse(json_object_get(h, "buckets"), r, err, len) ||
	    parse_fine(json_object_get(h, "fine"), r, err, len))
		return -1;
	min = json_object_get(h, "min");
	max = json_object_get(h, "max");
	if (json_is_number(min) && json_is_number(max)) {
		r->has_minmax = true;
		r->min = json_number_value(min);
		r->max = json_number_value(max);
	}
	t = bucket_total(r->coarse, r->ncoarse);
	if (t != r->count)
		return say(err, len, "\"hist\": its \"buckets\" hold %" PRIu64
			   " events, its \"count\" says %" PRIu64, t, r->count);
	t = bucket_total(r->fine, r->nfine);
	if (r->has_fine && t != r->count)
		return say(err, len, "\"hist\": its \"fine\" buckets hold %" PRIu64
			   " events, its \"count\" says %" PRIu64, t, r->count);
	return 0;
}

/*
 * A copy of v with each whole-number real an integer again: numbers are read
 * as reals (a u64 past 2^63 is too big for jansson's integers), but a key's
 * offsets should print as they were written.
 */
static json_t *plain(json_t *v)
{
	json_t *c, *x;
	const char *name;
	size_t i;

	if (json_is_real(v)) {
		double d = json_real_value(v);

		if (d == floor(d) && fabs(d) < 0x1p63)
			return json_integer((json_int_t)d);
		return json_incref(v);
	}
	if (json_is_array(v)) {
		c = json_array();
		json_array_foreach(v, i, x)
			if (c && json_array_append_new(c, plain(x))) {
				json_decref(c);
				return NULL;
			}
		return c;
	}
	if (json_is_object(v)) {
		c = json_object();
		json_object_foreach(v, name, x)
			if (c && json_object_set_new(c, name, plain(x))) {
				json_decref(c);
				return NULL;
			}
		return c;
	}
	return json_incref(v);
}

/* The row's key, canonical (names sorted, compact), and its id. */
static int row_key(json_t *o, const char *type, struct diff_row *r, char *err, size_t len)
{
	json_t *k = json_object_get(o, "key");
	size_t n;

	if (k && json_is_null(k)) {
		/* count's row of zero: the probe ran and counted nothing */
		if (r->kind != DIFF_COUNT || r->count)
			return say(err, len, "\"key\" is null in a row of %" PRIu64 " events",
				   r->count);
		r->marker = true;
		r->key = strdup("");
	} else {
		if (k && !json_is_object(k))
			return say(err, len, "\"key\" is not an object");
		r->key_json = k ? plain(k) : json_object();
		r->key = r->key_json ? json_dumps(r->key_json, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	}
	if (!r->key)
		return say(err, len, "out of memory");
	n = strlen(type) + strlen(r->group) + strlen(r->event) + strlen(r->key) + 4;
	r->id = malloc(n);
	if (!r->id)
		return say(err, len, "out of memory");
	snprintf(r->id, n, "%s" SEP "%s" SEP "%s" SEP "%s", type, r->group, r->event, r->key);
	return 0;
}

static int parse_object(json_t *o, struct diff_row *r, char *err, size_t len)
{
	const char *type, *group, *event;

	if (!json_is_object(o))
		return say(err, len, "not a kptrace row: a JSON object expected");
	if (get_str(o, "type", &type, err, len))
		return -1;
	if (!strcmp(type, "count"))
		r->kind = DIFF_COUNT;
	else if (!strcmp(type, "hist"))
		r->kind = DIFF_HIST;
	else if (!strcmp(type, "latency"))
		r->kind = DIFF_LATENCY;
	else
		return say(err, len, "\"type\" is \"%.40s\": want \"hist\", \"latency\" or \"count\"",
			   type);
	if (get_str(o, "group", &group, err, len) || get_str(o, "event", &event, err, len))
		return -1;
	r->group = strdup(group);
	r->event = strdup(event);
	if (!r->group || !r->event)
		return say(err, len, "out of memory");
	if (r->kind == DIFF_COUNT) {
		if (get_count(json_object_get(o, "count"), "\"count\"", &r->count, err, len))
			return -1;
	} else if (parse_hist(json_object_get(o, "hist"), r, err, len)) {
		return -1;
	}
	return row_key(o, type, r, err, len);
}

int diff_parse_row(const char *text, struct diff_row *row, char *err, size_t errlen)
{
	json_error_t je;
	json_t *o;
	int ret;

	memset(row, 0, sizeof(*row));
	row->tables = 1;
	/* numbers as reals: a u64 sum or edge past 2^63 is no error */
	o = json_loads(text, JSON_DECODE_INT_AS_REAL | JSON_REJECT_DUPLICATES, &je);
	if (!o)
		return say(err, errlen, "not JSON: %s (column %d)", je.text, je.column);
	ret = parse_object(o, row, err, errlen);
	json_decref(o);
	if (ret)
		diff_row_free(row);
	return ret;
}

void diff_row_free(struct diff_row *r)
{
	free(r->id);
	free(r->group);
	free(r->event);
	free(r->key);
	json_decref(r->key_json);
	free(r->coarse);
	free(r->fine);
	memset(r, 0, sizeof(*r));
}

static int row_cmp(const void *x, const void *y)
{
	const struct diff_row *a = x, *b = y;
	int c = strcmp(a->id, b->id);

	/* ties by line: the intervals merge in order, and qsort is not stable */
	return c ? c : a->line - b->line;
}

static int bucket_cmp(const void *x, const void *y)
{
	const struct diff_bucket *a = x, *b = y;

	if (a->lo != b->lo)
		return a->lo < b->lo ? -1 : 1;
	return a->hi < b->hi ? -1 : a->hi > b->hi;
}

/* Sorted by edge, the same bucket of several tables summed into one. */
static size_t buckets_sum(struct diff_bucket *b, size_t n)
{
	size_t i, m = 0;

	if (n > 1)
		qsort(b, n, sizeof(*b), bucket_cmp);
	for (i = 0; i < n; i++) {
		if (m && b[m - 1].lo == b[i].lo && b[m - 1].hi == b[i].hi)
			b[m - 1].count += b[i].count;
		else
			b[m++] = b[i];
	}
	return m;
}

static int buckets_cat(struct diff_bucket **to, size_t *nto, const struct diff_bucket *from,
		       size_t nfrom)
{
	struct diff_bucket *nb = realloc(*to, (*nto + nfrom + 1) * sizeof(*nb));

	if (!nb)
		return -ENOMEM;
	if (nfrom)
		memcpy(nb + *nto, from, nfrom * sizeof(*nb));
	*to = nb;
	*nto = buckets_sum(nb, *nto + nfrom);
	return 0;
}

/* A row without events has no fine buckets to offer, and none that disagree. */
static bool fine_ok(const struct diff_row *r)
{
	return r->has_fine || !r->count;
}

/* Another table (-i's next interval) of into's key, added to it. */
static int row_add(struct diff_row *into, const struct diff_row *from)
{
	bool fine = fine_ok(into) && fine_ok(from);

	into->count += from->count;
	if (from->has_minmax && into->has_minmax) {
		into->min = from->min < into->min ? from->min : into->min;
		into->max = from->max > into->max ? from->max : into->max;
	} else if (from->has_minmax) {
		into->has_minmax = true;
		into->min = from->min;
		into->max = from->max;
	}
	if (buckets_cat(&into->coarse, &into->ncoarse, from->coarse, from->ncoarse) ||
	    buckets_cat(&into->fine, &into->nfine, from->fine, from->nfine))
		return -ENOMEM;
	into->has_fine = fine && (into->has_fine || from->has_fine);
	into->marker = into->marker && from->marker;
	into->tables += from->tables;
	return 0;
}

/* Rows of one id (the tables of -i) into one, each bucket list sorted. */
static int rows_merge(struct diff_file *f)
{
	size_t i, m = 0;

	/* an empty file has no rows to sort, and no array (qsort wants one) */
	if (f->n)
		qsort(f->rows, f->n, sizeof(*f->rows), row_cmp);
	for (i = 0; i < f->n; i++) {
		struct diff_row *r = &f->rows[i];

		if (m && !strcmp(f->rows[m - 1].id, r->id)) {
			if (row_add(&f->rows[m - 1], r))
				return -ENOMEM;
			diff_row_free(r);
			continue;
		}
		f->rows[m++] = *r;
		r = &f->rows[m - 1];
		r->ncoarse = buckets_sum(r->coarse, r->ncoarse);
		r->nfine = buckets_sum(r->fine, r->nfine);
	}
	f->n = m;
	for (i = 0; i < m; i++)
		if (f->rows[i].tables > f->tables)
			f->tables = f->rows[i].tables;
	return 0;
}

static int file_add(struct diff_file *f, const struct diff_row *r)
{
	if (f->n == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 64;
		struct diff_row *nr = realloc(f->rows, cap * sizeof(*nr));

		if (!nr)
			return -ENOMEM;
		f->rows = nr;
		f->cap = cap;
	}
	f->rows[f->n++] = *r;
	return 0;
}

/* Only blanks: a line NDJSON writers may leave (a trailing newline twice). */
static bool blank(const char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
		s++;
	return !*s;
}

static int load_lines(FILE *in, struct diff_file *f, char *err, size_t errlen)
{
	char *line = NULL, why[512];
	size_t cap = 0;
	int lineno = 0, ret = 0;
	struct diff_row r;

	while (getline(&line, &cap, in) >= 0) {
		lineno++;
		if (blank(line))
			continue;
		if (diff_parse_row(line, &r, why, sizeof(why))) {
			/* the first row not JSON: most likely a text table, without --json */
			ret = say(err, errlen, "%s:%d: %s%s", f->path, lineno, why,
				  !f->n && !strncmp(why, "not JSON", 8) ?
				  "; kptrace diff reads what kptrace --json writes" : "");
			break;
		}
		r.line = lineno;
		if (file_add(f, &r)) {
			diff_row_free(&r);
			ret = say(err, errlen, "%s: out of memory", f->path);
			break;
		}
	}
	if (!ret && ferror(in))
		ret = say(err, errlen, "%s: %s", f->path, strerror(errno));
	else if (!ret && !f->n && lineno)
		ret = say(err, errlen, "%s: no rows, only blank lines", f->path);
	/* an empty file is a run without events: --json -o writes no rows then */
	free(line);
	return ret;
}

int diff_load(const char *path, struct diff_file *f, char *err, size_t errlen)
{
	bool std = !strcmp(path, "-");
	FILE *in;
	int ret;

	memset(f, 0, sizeof(*f));
	f->path = std ? "(stdin)" : path;
	in = std ? stdin : fopen(path, "r");
	if (!in)
		return say(err, errlen, "%s: %s", path, strerror(errno));
	ret = load_lines(in, f, err, errlen);
	if (!std)
		fclose(in);
	if (!ret && rows_merge(f))
		ret = say(err, errlen, "%s: out of memory", f->path);
	if (ret)
		diff_file_free(f);
	return ret;
}

void diff_file_free(struct diff_file *f)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		diff_row_free(&f->rows[i]);
	free(f->rows);
	f->rows = NULL;
	f->n = f->cap = 0;
}

/* ------------------------------------------------------------------ */
/* Comparing                                                           */
/* ------------------------------------------------------------------ */

struct opts {
	double threshold;	/* p below this: significant */
	double min_shift;	/* and a shift of at least this (a fraction): different */
	bool json;
	const char *svg;	/* --svg's file, or NULL */
};

enum { Q50, Q90, Q99, QMAX, NQ };

static const char *const q_name[NQ] = { "p50", "p90", "p99", "max" };
static const double q_at[NQ] = { 0.5, 0.9, 0.99, 1.0 };

/* One key's comparison. a or b is NULL for a key in one run only. */
struct result {
	const struct diff_row *a, *b;
	bool fine;			/* tested on fine buckets */
	bool qok[2][NQ];
	double q[2][NQ];
	double d, p, shift;		/* d < 0: no KS (a count test) */
	bool significant, differs;
};

/* An id's section (type, group, event): its length up to the key. */
static size_t sect_len(const char *id)
{
	const char *k = strrchr(id, SEP[0]);

	return k ? (size_t)(k - id) : strlen(id);
}

static bool same_sect(const char *x, const char *y)
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
 * Quantile i's relative move from A to B beyond both runs' confidence
 * intervals: from the nearer end of A's to the nearer end of B's, 0 when they
 * overlap.
 */
static double q_gap(const struct result *res, int i)
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
			return 0;
	}
	if (lo[1] > hi[0])
		return rel_shift(hi[0], lo[1]);
	if (hi[1] < lo[0])
		return rel_shift(lo[0], hi[1]);
	return 0;
}

/* Two runs' distributions of one key: KS on the finest buckets both have. */
static int compare_hist(struct result *res, const struct opts *o)
{
	const struct diff_row *a = res->a, *b = res->b;
	int i;

	res->fine = fine_ok(a) && fine_ok(b) && (a->has_fine || b->has_fine);
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
	 * its rank allows, and p90 and p99 only with SHIFT_TAIL events above
	 * them in both runs: a p99 of 1200 calls is the dozen slowest, which the
	 * machine's other work moves by half from one run to the next.
	 */
	res->shift = 0;
	for (i = Q50; i <= Q99; i++) {
		double tail = (double)(a->count < b->count ? a->count : b->count) * (1 - q_at[i]);
		double s;

		if (i != Q50 && tail < SHIFT_TAIL)
			continue;
		s = q_gap(res, i);
		res->shift = s > res->shift ? s : res->shift;
	}
	res->significant = res->p < o->threshold;
	res->differs = res->significant && res->shift >= o->min_shift;
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
static bool any_common(const struct diff_file *a, const struct diff_file *b)
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
static int compare_all(const struct diff_file *a, const struct diff_file *b, const struct opts *o,
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

static const struct diff_row *res_row(const struct result *r)
{
	return r->a ? r->a : r->b;
}

/* Sections in id order; in each, keys in both runs first, by p, then by key. */
static int res_cmp(const void *x, const void *y)
{
	const struct result *a = x, *b = y;
	const char *ia = res_row(a)->id, *ib = res_row(b)->id;
	size_t la = sect_len(ia), lb = sect_len(ib);
	int c = strncmp(ia, ib, la < lb ? la : lb);
	bool oa = !a->a || !a->b, ob = !b->a || !b->b;

	if (c || la != lb)
		return c ? c : la < lb ? -1 : 1;
	if (oa != ob)
		return oa ? 1 : -1;
	if (a->p != b->p)
		return a->p < b->p ? -1 : 1;
	return strcmp(res_row(a)->key, res_row(b)->key);
}

/* ------------------------------------------------------------------ */
/* Output                                                              */
/* ------------------------------------------------------------------ */

static const char *const kind_name[] = { "count", "hist", "latency" };

/* A latency in ns with its unit, 3 significant digits. */
static void fmt_ns(char *buf, size_t len, double v)
{
	static const struct {
		const char *unit;
		double scale;
	} u[] = { { "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 } };

	double x;
	size_t i;

	for (i = 0; i < 3 && fabs(v) / u[i].scale >= 999.5; i++)
		;
	x = fabs(v) / u[i].scale;
	/* decimals for 3 digits: 3.10ms, 20.9ms, 209ms; nanoseconds are whole */
	snprintf(buf, len, "%.*f%s", !i || x >= 99.95 ? 0 : x >= 9.995 ? 1 : 2, v / u[i].scale,
		 u[i].unit);
}

static void fmt_value(char *buf, size_t len, double v, bool ns)
{
	if (ns)
		fmt_ns(buf, len, v);
	else if (v == floor(v) && fabs(v) < 1e15)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.3g", v);
}

static void fmt_p(char *buf, size_t len, double p)
{
	if (p >= 0.001)
		snprintf(buf, len, "%.3f", p);
	else if (p > 0)
		snprintf(buf, len, "%.1e", p);
	else
		snprintf(buf, len, "<1e-300");
}

static void fmt_ratio(char *buf, size_t len, double a, double b)
{
	if (a == 0)
		snprintf(buf, len, "%s", b == 0 ? "x1" : "-");
	else
		snprintf(buf, len, "x%.2f", b / a);
}

/* A stack's frames as "sym+off;..." (leaf first), anything else as compact JSON. */
static void key_part(json_t *v, char *buf, size_t len)
{
	size_t i, used = 0;
	json_t *fr;
	char *s;

	if (json_is_string(v)) {
		snprintf(buf, len, "%s", json_string_value(v));
		return;
	}
	if (json_is_array(v) && json_array_size(v) &&
	    json_is_string(json_object_get(json_array_get(v, 0), "symbol"))) {
		buf[0] = '\0';
		json_array_foreach(v, i, fr) {
			json_t *sym = json_object_get(fr, "symbol"), *off = json_object_get(fr, "offset");
			json_t *addr = json_object_get(fr, "address");

			if (used >= len)
				break;
			if (json_is_string(sym))
				used += snprintf(buf + used, len - used, "%s%s+%" JSON_INTEGER_FORMAT,
						 i ? ";" : "", json_string_value(sym),
						 json_is_integer(off) ? json_integer_value(off) : 0);
			else
				used += snprintf(buf + used, len - used, "%s%s", i ? ";" : "",
						 json_is_string(addr) ? json_string_value(addr) : "?");
		}
		return;
	}
	s = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
	snprintf(buf, len, "%s", s ? s : "?");
	free(s);
}

static int name_cmp(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* A key for the table: NAME=VALUE..., names sorted, "(all)" unkeyed, cut to fit. */
static void key_text(const struct diff_row *r, char *buf, size_t len)
{
	const char **names;
	size_t n = json_object_size(r->key_json), i = 0, used = 0;
	const char *name;
	json_t *v;
	char part[512];

	snprintf(buf, len, "(all)");
	if (!n || !(names = malloc(n * sizeof(*names))))
		return;
	json_object_foreach((json_t *)r->key_json, name, v)
		names[i++] = name;
	qsort(names, n, sizeof(*names), name_cmp);
	for (i = 0; i < n && used < len; i++) {
		key_part(json_object_get(r->key_json, names[i]), part, sizeof(part));
		used += snprintf(buf + used, len - used, "%s%s=%s", i ? " " : "", names[i], part);
	}
	free(names);
	if (strlen(buf) > KEY_SHOW_MAX)
		strcpy(buf + KEY_SHOW_MAX - 3, "...");
}

/* "A -> B xR": a quantity of both runs, "-" where a run has none. */
struct trio {
	char a[40], b[40], r[16];
};

enum { C_COUNT, C_P50, C_P90, C_P99, C_MAX, NTRIO };

struct line {
	struct trio t[NTRIO];
	char d[16], p[24], verdict[16], key[KEY_SHOW_MAX + 4];
};

static void trio_set(struct trio *t, bool oka, double a, bool okb, double b, bool ns)
{
	snprintf(t->a, sizeof(t->a), "-");
	snprintf(t->b, sizeof(t->b), "-");
	t->r[0] = '\0';
	if (oka)
		fmt_value(t->a, sizeof(t->a), a, ns);
	if (okb)
		fmt_value(t->b, sizeof(t->b), b, ns);
	if (oka && okb)
		fmt_ratio(t->r, sizeof(t->r), a, b);
}

static const char *verdict(const struct result *r)
{
	/* a histogram without events in one run was given the count test: one-sided too */
	bool counted = r->d < 0 && res_row(r)->kind != DIFF_COUNT;

	if (!r->b || (counted && !r->b->count))
		return "(only in A)";
	if (!r->a || (counted && !r->a->count))
		return "(only in B)";
	return r->differs ? "DIFFERS" : r->significant ? "same*" : "same";
}

static void line_fill(const struct result *r, struct line *l)
{
	const struct diff_row *x = res_row(r);
	bool ns = x->kind == DIFF_LATENCY;
	int i;

	trio_set(&l->t[C_COUNT], r->a, r->a ? (double)r->a->count : 0, r->b,
		 r->b ? (double)r->b->count : 0, false);
	for (i = 0; i < NQ; i++)
		trio_set(&l->t[C_P50 + i], r->qok[0][i], r->q[0][i], r->qok[1][i], r->q[1][i], ns);
	snprintf(l->d, sizeof(l->d), "-");
	if (r->d >= 0)
		snprintf(l->d, sizeof(l->d), "%.3f", r->d);
	fmt_p(l->p, sizeof(l->p), r->p);
	snprintf(l->verdict, sizeof(l->verdict), "%s", verdict(r));
	key_text(x, l->key, sizeof(l->key));
}

/* Each "A -> B xR" cell padded so that the arrows of a column align. */
static void trio_cells(const struct line *l, size_t n, int col, char (*cells)[128])
{
	int wa = 0, wb = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		const struct trio *t = &l[i].t[col];

		wa = (int)strlen(t->a) > wa ? (int)strlen(t->a) : wa;
		wb = (int)strlen(t->b) > wb ? (int)strlen(t->b) : wb;
	}
	for (i = 0; i < n; i++) {
		const struct trio *t = &l[i].t[col];

		snprintf(cells[i], 128, "%*s -> %-*s %-5s", wa, t->a, wb, t->b, t->r);
	}
}

/* The title over a section: what was compared, on which buckets. */
static void section_title(FILE *out, const struct result *r, size_t n)
{
	const struct diff_row *x = res_row(r);
	size_t i, fine = 0, tested = 0;

	for (i = 0; i < n; i++) {
		tested += r[i].d >= 0;
		fine += r[i].d >= 0 && r[i].fine;
	}
	fprintf(out, "%s %s/%s", kind_name[x->kind], x->group, x->event);
	if (x->kind != DIFF_COUNT && tested)
		fputs(!fine ? " (on the printed rows)" : fine == tested ? " (on the fine buckets)" :
		      " (on the fine buckets where both runs have them)", out);
	fputc('\n', out);
}

static int section_print(FILE *out, const struct result *r, size_t n)
{
	static const char *const hist_cols[] = { "COUNT", "P50", "P90", "P99", "MAX", "D", "P",
						 "VERDICT", "KEY" };
	static const char *const count_cols[] = { "COUNT", "P", "VERDICT", "KEY" };
	bool count = res_row(r)->kind == DIFF_COUNT;
	int ncols = count ? 4 : 9, ntrio = count ? 1 : NTRIO, c;
	struct line *l = calloc(n, sizeof(*l));
	char (*cells)[NTRIO][128] = calloc(n, sizeof(*cells)), tmp[NTRIO][128];
	struct table t;
	size_t i;
	int ret = 0;

	table_init(&t);
	if (!l || !cells) {
		ret = -ENOMEM;
		goto cleanup;
	}
	for (c = 0; c < ncols; c++)
		table_col(&t, count ? count_cols[c] : hist_cols[c], c < ncols - 2, 0);
	for (i = 0; i < n; i++)
		line_fill(&r[i], &l[i]);
	for (c = 0; c < ntrio; c++) {
		char (*col)[128] = calloc(n, sizeof(*col));

		if (!col) {
			ret = -ENOMEM;
			goto cleanup;
		}
		trio_cells(l, n, c, col);
		for (i = 0; i < n; i++)
			memcpy(cells[i][c], col[i], sizeof(col[i]));
		free(col);
	}
	for (i = 0; i < n && !ret; i++) {
		const char *row[9];

		memcpy(tmp, cells[i], sizeof(tmp));
		for (c = 0; c < ntrio; c++)
			row[c] = tmp[c];
		if (!count)
			row[c++] = l[i].d;
		row[c++] = l[i].p;
		row[c++] = l[i].verdict;
		row[c++] = l[i].key;
		ret = table_add(&t, 0, 0, NULL, row);
	}
	if (!ret) {
		section_title(out, r, n);
		table_print(&t, out);
		fputc('\n', out);
	}
cleanup:
	table_free(&t);
	free(l);
	free(cells);
	return ret;
}

/* What the run's results rest on, said once under the tables. */
struct summary {
	size_t keys, differ, only;
	bool hist, count, fine, coarse, sig_small, ns;
};

static void summarize(const struct result *r, size_t n, struct summary *s)
{
	size_t i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < n; i++) {
		const struct diff_row *x = res_row(&r[i]);

		s->keys++;
		s->differ += r[i].differs;
		s->only += !r[i].a || !r[i].b;
		s->count |= x->kind == DIFF_COUNT;
		s->hist |= x->kind != DIFF_COUNT;
		s->fine |= r[i].d >= 0 && r[i].fine;
		s->coarse |= r[i].d >= 0 && !r[i].fine;
		s->sig_small |= r[i].significant && !r[i].differs;
	}
}

/* The fewest events of a key in one run that the count test calls significant. */
static uint64_t only_floor(double threshold)
{
	uint64_t n = 1;

	while (n < 1100 && diff_binomial_p(n, 0) >= threshold)
		n++;
	return n;
}

static void footer(FILE *out, const struct diff_file *a, const struct diff_file *b,
		   const struct summary *s, const struct opts *o)
{
	fprintf(out, "A %s, B %s; each quantity A -> B xB/A.\n", a->path, b->path);
	if (a->tables > 1 || b->tables > 1)
		fprintf(out, "Interval output (-i): each key's tables summed, %d in A, %d in B.\n",
			a->tables, b->tables);
	if (s->hist) {
		fputs("P50, P90, P99: nearest rank, its bucket's midpoint (as kptrace prints them), "
		      "within the run's\nmin and max; MAX: the run's maximum.\n"
		      "D: the two-sample Kolmogorov-Smirnov statistic of the bucketed CDFs, at every "
		      "bucket edge of\neither run; P: its asymptotic p-value, Kolmogorov's "
		      "distribution at D sqrt(nA nB / (nA + nB)).\n", out);
		fprintf(out, "Binning makes the test conservative: a shift smaller than a bucket cannot "
			"be seen\n(%s).\n",
			s->fine && s->coarse ? "1.6% with latency's fine buckets, a factor of 2 "
			"with log2 rows" : s->fine ? "1.6% with latency's fine buckets" :
			"a factor of 2 with log2 rows, a step with linear ones");
	}
	if (s->count)
		fputs("COUNT: conditional binomial test of B given A + B at p = 1/2, two-sided, exact "
		      "(normal\npast 10^14): it assumes both runs lasted equally long.\n", out);
	if (s->keys)
		fprintf(out, "DIFFERS: P < %g (--threshold) and %s moved by at least %g%% "
			"(--min-shift)%s\n", o->threshold, s->hist && s->count ?
			"a quantile (a count)" : s->hist ? "P50, P90 or P99" : "the count",
			o->min_shift * 100, s->hist ? ";\na quantile's move is the gap between the "
			"runs' 99% confidence intervals of it (from its rank);\nP90 and P99 count only "
			"with " SHIFT_TAIL_S " events above them in both runs (1000 and 10000 events)." :
			".");
	if (s->sig_small)
		fputs("same*: significant, but it moved less than that.\n", out);
	if (!a->n || !b->n)
		fprintf(out, "%s\n", !a->n && !b->n ? "Neither file has rows: both runs saw no events." :
			!a->n ? "A has no rows (the run saw no events): every key of B differs." :
			"B has no rows (the run saw no events): every key of A differs.");
	else if (s->only)
		fprintf(out, "A key in one run only differs when its count alone is significant "
			"(%" PRIu64 " events or more).\n", only_floor(o->threshold));
	fprintf(out, "%zu of %zu key%s differ%s.\n", s->differ, s->keys, s->keys == 1 ? "" : "s",
		s->differ == 1 ? "s" : "");
}

/* A number for --json: an integer when it is one, null when not finite. */
static json_t *jnum(double v)
{
	if (!isfinite(v))
		return json_null();
	if (v == floor(v) && fabs(v) < 0x1p53)
		return json_integer((json_int_t)v);
	return json_real(v);
}

static json_t *jpair(bool oka, double a, bool okb, double b)
{
	return json_pack("[oo]", oka ? jnum(a) : json_null(), okb ? jnum(b) : json_null());
}

static json_t *res_json(const struct result *r)
{
	const struct diff_row *x = res_row(r);
	bool q = r->d >= 0;
	json_t *o;
	int i;

	o = json_pack("{ss ss ss sO ss sb sb ss so so so so}", "type", kind_name[x->kind],
		      "group", x->group, "event", x->event, "key", (json_t *)x->key_json,
		      "verdict", !r->b ? "only_a" : !r->a ? "only_b" : r->differs ? "differs" :
		      "same", "differs", r->differs, "significant", r->significant,
		      "test", q ? "ks" : "binomial",
		      "count", jpair(r->a, r->a ? (double)r->a->count : 0, r->b,
				     r->b ? (double)r->b->count : 0),
		      "count_ratio", r->a && r->b && r->a->count ?
		      jnum((double)r->b->count / (double)r->a->count) : json_null(),
		      "p", jnum(r->p), "shift", jnum(r->shift));
	if (!o || x->kind == DIFF_COUNT)
		return o;
	if (q) {
		json_object_set_new(o, "buckets", json_string(r->fine ? "fine" : "rows"));
		json_object_set_new(o, "d", jnum(r->d));
	}
	for (i = 0; i < NQ; i++) {
		char name[16];

		json_object_set_new(o, q_name[i], jpair(r->qok[0][i], r->q[0][i], r->qok[1][i],
							r->q[1][i]));
		snprintf(name, sizeof(name), "%s_ratio", q_name[i]);
		json_object_set_new(o, name, r->qok[0][i] && r->qok[1][i] && r->q[0][i] ?
				    jnum(r->q[1][i] / r->q[0][i]) : json_null());
	}
	return o;
}

static int print_json(FILE *out, const struct result *r, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		json_t *o = res_json(&r[i]);

		if (!o || json_dumpf(o, out, JSON_COMPACT | JSON_REAL_PRECISION(10))) {
			json_decref(o);
			return -ENOMEM;
		}
		fputc('\n', out);
		json_decref(o);
	}
	return 0;
}

static int print_text(FILE *out, const struct diff_file *a, const struct diff_file *b,
		      const struct result *r, size_t n, const struct opts *o)
{
	struct summary s;
	size_t i, j;

	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && same_sect(res_row(&r[i])->id, res_row(&r[j])->id); j++)
			;
		if (section_print(out, &r[i], j - i))
			return -ENOMEM;
	}
	summarize(r, n, &s);
	footer(out, a, b, &s, o);
	return 0;
}

/* ------------------------------------------------------------------ */
/* The picture (--svg)                                                 */
/* ------------------------------------------------------------------ */

#define LABEL_LEN	96

/* An overlay's rows, each label in the room beside it. */
struct orows {
	struct svg_orow *r;
	char (*label)[LABEL_LEN];
	size_t n;
};

/* [LO, HI) in the text's units; [V] for a bucket of one integer; open ends as "...". */
static void bucket_label(char *buf, size_t len, double lo, double hi, bool ns)
{
	char l[40], h[40];

	fmt_value(l, sizeof(l), lo, ns);
	fmt_value(h, sizeof(h), hi, ns);
	if (!isfinite(lo))
		snprintf(buf, len, "(..., %s)", h);
	else if (!isfinite(hi))
		snprintf(buf, len, "[%s, ...)", l);
	else if (hi == lo + 1 && lo == floor(lo))
		snprintf(buf, len, "[%s]", l);
	else
		snprintf(buf, len, "[%s, %s)", l, h);
}

/* Room for n rows, zeroed. */
static int orows_alloc(struct orows *o, size_t n)
{
	o->r = calloc(n ? n : 1, sizeof(*o->r));
	o->label = calloc(n ? n : 1, sizeof(*o->label));
	o->n = n;
	return o->r && o->label ? 0 : -ENOMEM;
}

static void orows_free(struct orows *o)
{
	free(o->r);
	free(o->label);
}

/* Every fine bucket from both runs' lowest to their highest: the rows before merging. */
static int fine_rows(const struct result *res, struct orows *o)
{
	const struct diff_row *run[2] = { res->a, res->b };
	uint32_t lo = UINT32_MAX, hi = 0, b;
	struct diff_bucket k;
	size_t i;
	int s;

	for (s = 0; s < 2; s++)
		for (i = 0; run[s] && i < run[s]->nfine; i++) {
			b = kpt_loglin_bucket((__u64)run[s]->fine[i].lo);
			lo = b < lo ? b : lo;
			hi = b > hi ? b : hi;
		}
	if (lo > hi)
		return orows_alloc(o, 0);
	if (orows_alloc(o, hi - lo + 1))
		return -ENOMEM;
	for (b = lo; b <= hi; b++) {
		diff_fine_bucket((double)kpt_loglin_lower(b), &k);
		o->r[b - lo].lo = k.lo;
		o->r[b - lo].hi = k.hi;
	}
	for (s = 0; s < 2; s++)
		for (i = 0; run[s] && i < run[s]->nfine; i++) {
			struct svg_orow *r = &o->r[kpt_loglin_bucket((__u64)run[s]->fine[i].lo) - lo];

			*(s ? &r->b : &r->a) += run[s]->fine[i].count;
		}
	return 0;
}

/* The printed rows of both runs, in bucket order, a bucket of both one row. */
static int coarse_rows(const struct result *res, struct orows *o)
{
	const struct diff_bucket *a = res->a ? res->a->coarse : NULL;
	const struct diff_bucket *b = res->b ? res->b->coarse : NULL;
	size_t na = res->a ? res->a->ncoarse : 0, nb = res->b ? res->b->ncoarse : 0, i = 0, j = 0;

	if (orows_alloc(o, na + nb))
		return -ENOMEM;
	o->n = 0;
	while (i < na || j < nb) {
		int c = i == na ? 1 : j == nb ? -1 : bucket_cmp(&a[i], &b[j]);
		const struct diff_bucket *k = c <= 0 ? &a[i] : &b[j];
		struct svg_orow *r = &o->r[o->n++];

		r->lo = k->lo;
		r->hi = k->hi;
		if (c <= 0)
			r->a = a[i++].count;
		if (c >= 0)
			r->b = b[j++].count;
	}
	return 0;
}

/* A hist's or latency's rows, merged to at most SVG_MAX_OROWS, labelled. */
static int bucket_rows(const struct result *res, struct orows *o)
{
	const struct diff_row *a = res->a, *b = res->b;
	bool ns = res_row(res)->kind == DIFF_LATENCY, fine;
	size_t i;

	/* the buckets the test used; a run without events, those of the other */
	fine = res->d >= 0 ? res->fine : (!a || fine_ok(a)) && (!b || fine_ok(b)) &&
	       ((a && a->has_fine) || (b && b->has_fine));
	if (fine ? fine_rows(res, o) : coarse_rows(res, o))
		return -ENOMEM;
	o->n = svg_merge_rows(o->r, o->n, SVG_MAX_OROWS);
	for (i = 0; i < o->n; i++) {
		bucket_label(o->label[i], LABEL_LEN, o->r[i].lo, o->r[i].hi, ns);
		o->r[i].label = o->label[i];
	}
	return 0;
}

/* A run's p50, p90, p99 as the table prints them; how many it has. */
static size_t run_pcts(const struct result *res, int run, bool ns, struct svg_pct *p,
		       char (*text)[40])
{
	size_t n = 0;
	int i;

	for (i = Q50; i <= Q99; i++) {
		if (!res->qok[run][i])
			continue;
		fmt_value(text[n], 40, res->q[run][i], ns);
		p[n] = (struct svg_pct){ q_name[i], res->q[run][i], text[n] };
		n++;
	}
	return n;
}

/* One hist or latency key: its rows, both runs' percentiles, its verdict and P. */
static int picture_key(struct svg_doc *d, const struct result *res, const struct diff_file *fa,
		       const struct diff_file *fb)
{
	const struct diff_row *x = res_row(res);
	bool ns = x->kind == DIFF_LATENCY;
	struct svg_pct pa[3], pb[3];
	char ta[3][40], tb[3][40], title[512], key[KEY_SHOW_MAX + 4], p[24], detail[128];
	struct svg_overlay ov = {
		.title = title, .verdict = verdict(res), .detail = detail, .differs = res->differs,
		.axis = ns ? "latency" : "value", .pcts_a = pa, .pcts_b = pb,
		.name_a = fa->path, .name_b = fb->path,
	};
	struct orows o = { 0 };
	uint8_t *lacks = NULL;
	int ret;

	key_text(x, key, sizeof(key));
	snprintf(title, sizeof(title), "%s %s/%s %s", kind_name[x->kind], x->group, x->event, key);
	fmt_p(p, sizeof(p), res->p);
	if (res->d >= 0)
		snprintf(detail, sizeof(detail), "P %s, D %.3f (on the %s)", p, res->d,
			 res->fine ? "fine buckets" : "printed rows");
	else
		snprintf(detail, sizeof(detail), "P %s (the counts' binomial test)", p);
	ov.npcts_a = run_pcts(res, 0, ns, pa, ta);
	ov.npcts_b = run_pcts(res, 1, ns, pb, tb);
	if (bucket_rows(res, &o)) {
		orows_free(&o);
		return -ENOMEM;
	}
	ov.rows = o.r;
	ov.nrows = o.n;
	/* a key of one run: every row's other count is "-", as the text's */
	if (!res->a || !res->b) {
		lacks = malloc(o.n ? o.n : 1);
		if (!lacks) {
			orows_free(&o);
			return -ENOMEM;
		}
		memset(lacks, !res->a ? SVG_NO_A : SVG_NO_B, o.n);
		ov.lacks = lacks;
	}
	ret = svg_add_overlay(d, &ov);
	orows_free(&o);
	free(lacks);
	return ret;
}

/* A count table: one panel, a row per key in the table's order, each with its verdict. */
static int picture_count(struct svg_doc *d, const struct result *r, size_t n,
			 const struct diff_file *fa, const struct diff_file *fb)
{
	const struct diff_row *x = res_row(r);
	char title[512], detail[128], p[24], (*note)[48] = calloc(n ? n : 1, sizeof(*note));
	uint8_t *lacks = calloc(n ? n : 1, 1);
	struct svg_overlay ov = {
		.title = title, .detail = detail, .axis = "key", .name_a = fa->path,
		.name_b = fb->path,
	};
	struct orows o = { 0 };
	size_t i, differ = 0;
	int ret = -ENOMEM;

	if (!note || !lacks || orows_alloc(&o, n))
		goto cleanup;
	for (i = 0; i < n; i++) {
		key_text(res_row(&r[i]), o.label[i], LABEL_LEN);
		fmt_p(p, sizeof(p), r[i].p);
		snprintf(note[i], sizeof(note[i]), "%s  P %s", verdict(&r[i]), p);
		o.r[i] = (struct svg_orow){ .label = o.label[i], .note = note[i],
			.a = r[i].a ? r[i].a->count : 0, .b = r[i].b ? r[i].b->count : 0 };
		lacks[i] = !r[i].a ? SVG_NO_A : !r[i].b ? SVG_NO_B : 0;
		differ += r[i].differs;
	}
	snprintf(title, sizeof(title), "%s %s/%s", kind_name[x->kind], x->group, x->event);
	snprintf(detail, sizeof(detail), "%zu of %zu key%s differ%s (the binomial test)", differ, n,
		 n == 1 ? "" : "s", differ == 1 ? "s" : "");
	ov.verdict = differ ? "DIFFERS" : "same";
	ov.differs = differ > 0;
	ov.rows = o.r;
	ov.nrows = n;
	ov.lacks = lacks;
	ret = svg_add_overlay(d, &ov);
cleanup:
	orows_free(&o);
	free(note);
	free(lacks);
	return ret;
}

/* Both runs drawn, in the text's order, into --svg's file f. 0, or -errno. */
static int picture(FILE *f, const struct diff_file *a, const struct diff_file *b,
		   const struct result *r, size_t n)
{
	struct svg_doc *d = svg_new(false);
	size_t i, j;
	int ret = 0;

	if (!d)
		return -ENOMEM;
	for (i = 0; i < n && !ret; i = j) {
		for (j = i + 1; j < n && same_sect(res_row(&r[i])->id, res_row(&r[j])->id); j++)
			;
		if (res_row(&r[i])->kind == DIFF_COUNT) {
			ret = picture_count(d, &r[i], j - i, a, b);
			continue;
		}
		for (; i < j && !ret; i++)
			ret = picture_key(d, &r[i], a, b);
	}
	if (!ret)
		ret = svg_save(d, f);
	svg_free(d);
	return ret;
}

/* ------------------------------------------------------------------ */
/* The command                                                         */
/* ------------------------------------------------------------------ */

static void usage(FILE *f)
{
	fputs("Usage: kptrace diff [--threshold P] [--min-shift PCT] [--json] [--svg FILE] A.json "
	      "B.json\n"
	      "Compare two runs' --json output key by key: did each distribution (or count)\n"
	      "change, and by how much?\n\n"
	      "  --threshold P     the p-value below which a difference is significant\n"
	      "                    (default 0.01)\n"
	      "  --min-shift PCT   the smallest shift called a difference, in percent (default 5)\n"
	      "  --json            one JSON object per key instead of the tables\n"
	      "  --svg FILE        also draw both runs overlaid as one SVG picture: a panel per\n"
	      "                    hist or latency key (latency on its fine buckets, at most\n"
	      "                    48 rows) and per count table, A's bar over B's in each row,\n"
	      "                    both runs' p50/p90/p99 marked, each headed by its verdict;\n"
	      "                    the file is checked before A and B are read\n"
	      "  -h, --help        this text\n\n"
	      "Rows match by type, group, event and key (its names sorted); -i's intervals are\n"
	      "summed per key. hist and latency: the two-sample Kolmogorov-Smirnov test on the\n"
	      "bucketed distributions (latency's fine buckets, 1.6% wide, when both runs have\n"
	      "them; the printed rows otherwise), its p-value from Kolmogorov's asymptotic\n"
	      "distribution. Binning makes the test conservative: a shift smaller than a bucket\n"
	      "cannot be seen. count: the conditional binomial test of B given A + B at p = 1/2,\n"
	      "which assumes both runs lasted equally long.\n\n"
	      "A key DIFFERS when p < P and its p50, p90 or p99 (its count) moved by at least\n"
	      "PCT%: with many events every tiny shift is significant, and PCT is the practical\n"
	      "floor (a significant, smaller shift is shown as \"same*\"). A quantile's move is\n"
	      "the gap between the two runs' 99% confidence intervals of it, from its rank and\n"
	      "no assumed distribution; p90 and p99 count only with " SHIFT_TAIL_S " events\n"
	      "above them in both runs (1000 and 10000 events): p99 of 1000 events is the ten\n"
	      "slowest, which the machine's other work moves by half from run to run. Pairs\n"
	      "of runs of one workload (1000 to 1200 calls) were called different in 0 of 52.\n"
	      "A key in one run only differs when its count alone is significant; against an\n"
	      "empty file (a run without events) every key differs. Runs bucketed otherwise\n"
	      "(log2 against --linear) are refused.\n\n"
	      "Exit status as diff(1): 0 no key differs, 1 some key differs, 2 trouble.\n\n"
	      "Example:\n"
	      "  kptrace latency vfs_read -d 30 --json > before.json\n"
	      "  (change something)\n"
	      "  kptrace latency vfs_read -d 30 --json > after.json\n"
	      "  kptrace diff before.json after.json\n", f);
}

/* A number in [lo, hi] (lo excluded when open), or -1. */
static int parse_num(const char *s, double lo, bool open, double hi, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < lo || (open && v == lo) || v > hi)
		return -1;
	*out = v;
	return 0;
}

/* The options into o; the two files' index in argv, or -1 (said) on a usage error, -2 on --help. */
static int parse_args(int argc, char **argv, struct opts *o, FILE *out, FILE *errf)
{
	static const struct option longs[] = {
		{ "threshold", required_argument, NULL, 't' },
		{ "min-shift", required_argument, NULL, 'm' },
		{ "json", no_argument, NULL, 'j' },
		{ "svg", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	*o = (struct opts){ .threshold = 0.01, .min_shift = 0.05 };
	optind = 0;	/* glibc: start afresh (the unit tests call this more than once) */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", longs, NULL)) != -1) {
		switch (c) {
		case 't':
			if (parse_num(optarg, 0, true, 1, &o->threshold))
				goto bad_num;
			break;
		case 'm':
			if (parse_num(optarg, 0, false, 1e6, &o->min_shift))
				goto bad_num;
			o->min_shift /= 100;
			break;
		case 'j':
			o->json = true;
			break;
		case 's':
			o->svg = optarg;
			break;
		case 'h':
			usage(out);
			return -2;
		default:
			fprintf(errf, "kptrace diff: %s: %s\n", argv[optind - 1],
				optopt && strchr("tms", optopt) ? "needs a value" : "unknown option");
			goto usage;
		}
	}
	if (argc - optind != 2) {
		fprintf(errf, "kptrace diff: %s\n", argc - optind < 2 ? "two files to compare, A and B" :
			"only two files: A and B");
		goto usage;
	}
	return optind;
bad_num:
	fprintf(errf, "kptrace diff: %s: '%s' is not a number in %s\n",
		c == 't' ? "--threshold" : "--min-shift", optarg, c == 't' ? "(0, 1]" : "[0, 1000000]");
usage:
	fputs("Try `kptrace diff --help' for more information.\n", errf);
	return -1;
}

/* Up to 3 sections of f as "TYPE of EVENT", for the refusal. */
static void sect_list(const struct diff_file *f, bool group, char *buf, size_t len)
{
	size_t i, shown = 0, more = 0, used = 0;

	buf[0] = '\0';
	for (i = 0; i < f->n; i++) {
		const struct diff_row *r = &f->rows[i];

		if (i && same_sect(f->rows[i - 1].id, r->id))
			continue;
		if (shown == 3) {
			more++;
			continue;
		}
		if (used < len)
			used += snprintf(buf + used, len - used, "%s%s of %s%s%s", shown ? ", " : "",
					 kind_name[r->kind], group ? r->group : "", group ? "/" : "",
					 r->event);
		shown++;
	}
	if (more && used < len)
		snprintf(buf + used, len - used, " and %zu more", more);
}

/* Bucket [lo, hi) of a log2 layout: [0, 1), [2^k, 2^(k+1)), or a negative one, slog2's. */
static bool log2_shaped(const struct diff_bucket *k)
{
	if (k->lo == 0 && k->hi == 1)
		return true;
	if (k->lo > 0)
		return k->hi == 2 * k->lo;
	/* (-2^(k+1), -2^k] is written [-2^(k+1) + 1, -2^k]: one below each edge is a power */
	return k->hi <= 0 && k->lo - 1 == 2 * (k->hi - 1);
}

/* A row's bucket layout in words, for the refusal: log2 or linear, how wide. */
static void layout_name(const struct diff_row *r, char *buf, size_t len)
{
	bool log2 = true, lin = true;
	double w = -1;
	size_t i, n = 0;

	for (i = 0; i < r->ncoarse; i++) {
		const struct diff_bucket *k = &r->coarse[i];

		if (!isfinite(k->lo) || !isfinite(k->hi))
			continue;
		n++;
		log2 = log2 && log2_shaped(k);
		lin = lin && (w < 0 || k->hi - k->lo == w);
		w = k->hi - k->lo;
	}
	if (!n)
		snprintf(buf, len, "only open-ended rows");
	else if (log2)
		snprintf(buf, len, "log2 rows");
	else if (lin)
		snprintf(buf, len, "linear rows %.0f wide", w);
	else
		snprintf(buf, len, "rows of varying width");
}

/* "[LO, HI]" as the JSON says a bucket (max inclusive), open ends as "...". */
static void bucket_text(const struct diff_bucket *k, char *buf, size_t len)
{
	char lo[40] = "...", hi[40] = "...";

	if (isfinite(k->lo))
		snprintf(lo, sizeof(lo), "%.0f", k->lo);
	if (isfinite(k->hi))
		snprintf(hi, sizeof(hi), "%.0f", k->hi - 1);
	snprintf(buf, len, "[%s, %s]", lo, hi);
}

/*
 * Whether a bucket of a overlaps one of b without being the same (both
 * sorted): then the runs were bucketed differently (log2 against --linear,
 * other --linear steps or units) and no quantile or D of them means anything.
 * The two buckets in *ka and *kb.
 */
static bool layouts_clash(const struct diff_row *a, const struct diff_row *b,
			  const struct diff_bucket **ka, const struct diff_bucket **kb)
{
	size_t i = 0, j = 0;

	while (i < a->ncoarse && j < b->ncoarse) {
		const struct diff_bucket *x = &a->coarse[i], *y = &b->coarse[j];

		if (x->lo == y->lo && x->hi == y->hi) {
			i++;
			j++;
		} else if (x->hi <= y->lo) {
			i++;
		} else if (y->hi <= x->lo) {
			j++;
		} else {
			*ka = x;
			*kb = y;
			return true;
		}
	}
	return false;
}

/* Refused (said on errf, true) when a key of both runs has its buckets laid out otherwise. */
static bool layouts_differ(const struct diff_file *a, const struct diff_file *b, FILE *errf)
{
	const struct diff_bucket *ka, *kb;
	char la[64], lb[64], ta[96], tb[96], key[KEY_SHOW_MAX + 4];
	size_t i = 0, j = 0;
	int c;

	while (i < a->n && j < b->n) {
		const struct diff_row *x = &a->rows[i], *y = &b->rows[j];

		c = strcmp(x->id, y->id);
		i += c <= 0;
		j += c >= 0;
		if (c || x->kind == DIFF_COUNT || !layouts_clash(x, y, &ka, &kb))
			continue;
		layout_name(x, la, sizeof(la));
		layout_name(y, lb, sizeof(lb));
		bucket_text(ka, ta, sizeof(ta));
		bucket_text(kb, tb, sizeof(tb));
		key_text(x, key, sizeof(key));
		fprintf(errf, "kptrace diff: %s %s/%s %s: the buckets differ: %s has %s, %s %s "
			"(%s against %s); nothing to compare (run both with the same --linear, or "
			"neither)\n", kind_name[x->kind], x->group, x->event, key, a->path, la,
			b->path, lb, ta, tb);
		return true;
	}
	return false;
}

static void nothing_common(const struct diff_file *a, const struct diff_file *b, FILE *errf)
{
	char la[512], lb[512];
	bool group = false;

	sect_list(a, false, la, sizeof(la));
	sect_list(b, false, lb, sizeof(lb));
	if (!strcmp(la, lb)) {
		/* the same events of other groups: the groups tell them apart */
		group = true;
		sect_list(a, group, la, sizeof(la));
		sect_list(b, group, lb, sizeof(lb));
	}
	fprintf(errf, "kptrace diff: %s has %s, %s %s: nothing to compare\n", a->path, la, b->path,
		lb);
}

static int run(const char *pa, const char *pb, const struct opts *o, FILE *out, FILE *errf)
{
	struct diff_file a = { 0 }, b = { 0 };
	struct result *r = NULL;
	FILE *svg = NULL;
	char err[1024];
	size_t n = 0, i;
	int ret = 2, werr;

	/* --svg: a path that cannot be written is refused before either file is read */
	if (o->svg && svg_open(o->svg, &svg, err, sizeof(err))) {
		fprintf(errf, "kptrace diff: --svg: cannot write %s: %s\n", o->svg, err);
		return 2;
	}
	if (diff_load(pa, &a, err, sizeof(err)) || diff_load(pb, &b, err, sizeof(err))) {
		fprintf(errf, "kptrace diff: %s\n", err);
		goto cleanup;
	}
	if (a.n && b.n && !any_common(&a, &b)) {
		nothing_common(&a, &b, errf);
		goto cleanup;
	}
	if (layouts_differ(&a, &b, errf))
		goto cleanup;
	if (compare_all(&a, &b, o, &r, &n)) {
		fprintf(errf, "kptrace diff: out of memory\n");
		goto cleanup;
	}
	qsort(r, n, sizeof(*r), res_cmp);
	if (o->json ? print_json(out, r, n) : print_text(out, &a, &b, r, n, o)) {
		fprintf(errf, "kptrace diff: out of memory\n");
		goto cleanup;
	}
	if (svg && (werr = picture(svg, &a, &b, r, n))) {
		fprintf(errf, "kptrace diff: --svg: cannot write %s: %s\n", o->svg, strerror(-werr));
		goto cleanup;
	}
	ret = 0;
	for (i = 0; i < n; i++)
		ret |= r[i].differs;
cleanup:
	/* a picture lost at the close is trouble even when the runs differ */
	if (svg && fclose(svg) && ret < 2) {
		fprintf(errf, "kptrace diff: --svg: cannot write %s: %s\n", o->svg, strerror(errno));
		ret = 2;
	}
	free(r);
	diff_file_free(&a);
	diff_file_free(&b);
	return ret;
}

int diff_main(int argc, char **argv, FILE *out, FILE *errf)
{
	struct opts o;
	int first = parse_args(argc, argv, &o, out, errf);

	if (first == -2)
		return 0;
	if (first < 0)
		return 2;
	return run(argv[first], argv[first + 1], &o, out, errf);
}

int kpt_diff(int argc, char **argv)
{
	int ret = diff_main(argc, argv, stdout, stderr);

	/* a full disk or a closed pipe is trouble, not a verdict */
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "kptrace diff: writing the output: %s\n", strerror(errno));
		return 2;
	}
	return ret;
}
