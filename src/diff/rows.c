// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * kptrace diff's input: a --json file's NDJSON rows read and checked, the
 * tables of -i's intervals summed into one row per key.
 */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "diff/diff.h"
#include "diff/internal.h"

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
		/* in order and apart, as kptrace writes them: the quantiles'
		 * intervals read the rows as one ascending scale */
		if (i && k->lo < k[-1].hi)
			return say(err, len, "\"buckets\"[%zu] (from %.0f) overlaps or comes before "
				   "\"buckets\"[%zu] (up to %.0f): buckets ascend, apart", i, k->lo,
				   i - 1, k[-1].hi - 1);
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
	t = diff_bucket_total(r->coarse, r->ncoarse);
	if (t != r->count)
		return say(err, len, "\"hist\": its \"buckets\" hold %" PRIu64
			   " events, its \"count\" says %" PRIu64, t, r->count);
	t = diff_bucket_total(r->fine, r->nfine);
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
	/* latency --from/--to's starts still open, --over's calls: no table's rows */
	if (!strcmp(type, "open") || !strcmp(type, "call"))
		return 1;
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

int diff_bucket_cmp(const void *x, const void *y)
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
		qsort(b, n, sizeof(*b), diff_bucket_cmp);
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
bool diff_fine_ok(const struct diff_row *r)
{
	return r->has_fine || !r->count;
}

/* Another table (-i's next interval) of into's key, added to it. */
static int row_add(struct diff_row *into, const struct diff_row *from)
{
	bool fine = diff_fine_ok(into) && diff_fine_ok(from);

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
		ret = diff_parse_row(line, &r, why, sizeof(why));
		if (ret > 0) {
			ret = 0;
			continue;
		}
		if (ret) {
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
