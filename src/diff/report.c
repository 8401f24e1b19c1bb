// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * kptrace diff's output: the results as a table per section with a footer
 * saying what they rest on, or as one JSON object per key (--json).
 */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diff/diff.h"
#include "diff/internal.h"
#include "util/table.h"

const char *const diff_kind_name[] = { "count", "hist", "latency" };

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

void diff_fmt_value(char *buf, size_t len, double v, bool ns)
{
	if (ns)
		fmt_ns(buf, len, v);
	else if (v == floor(v) && fabs(v) < 1e15)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.3g", v);
}

void diff_fmt_p(char *buf, size_t len, double p)
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
void diff_key_text(const struct diff_row *r, char *buf, size_t len)
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
		diff_fmt_value(t->a, sizeof(t->a), a, ns);
	if (okb)
		diff_fmt_value(t->b, sizeof(t->b), b, ns);
	if (oka && okb)
		fmt_ratio(t->r, sizeof(t->r), a, b);
}

const char *diff_verdict(const struct result *r)
{
	/* a histogram without events in one run was given the count test: one-sided too */
	bool counted = r->d < 0 && diff_res_row(r)->kind != DIFF_COUNT;

	if (!r->b || (counted && !r->b->count))
		return "(only in A)";
	if (!r->a || (counted && !r->a->count))
		return "(only in B)";
	return r->differs ? "DIFFERS" : r->significant ? "same*" : "same";
}

static void line_fill(const struct result *r, struct line *l)
{
	const struct diff_row *x = diff_res_row(r);
	bool ns = x->kind == DIFF_LATENCY;
	int i;

	trio_set(&l->t[C_COUNT], r->a, r->a ? (double)r->a->count : 0, r->b,
		 r->b ? (double)r->b->count : 0, false);
	for (i = 0; i < NQ; i++)
		trio_set(&l->t[C_P50 + i], r->qok[0][i], r->q[0][i], r->qok[1][i], r->q[1][i], ns);
	snprintf(l->d, sizeof(l->d), "-");
	if (r->d >= 0)
		snprintf(l->d, sizeof(l->d), "%.3f", r->d);
	diff_fmt_p(l->p, sizeof(l->p), r->p);
	snprintf(l->verdict, sizeof(l->verdict), "%s", diff_verdict(r));
	diff_key_text(x, l->key, sizeof(l->key));
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
	const struct diff_row *x = diff_res_row(r);
	size_t i, fine = 0, tested = 0;

	for (i = 0; i < n; i++) {
		tested += r[i].d >= 0;
		fine += r[i].d >= 0 && r[i].fine;
	}
	fprintf(out, "%s %s/%s", diff_kind_name[x->kind], x->group, x->event);
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
	bool count = diff_res_row(r)->kind == DIFF_COUNT;
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
	bool jump;		/* a key differs by its count or a thin tail's jump */
};

static void summarize(const struct result *r, size_t n, struct summary *s)
{
	size_t i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < n; i++) {
		const struct diff_row *x = diff_res_row(&r[i]);

		s->keys++;
		s->differ += r[i].differs;
		s->only += !r[i].a || !r[i].b;
		s->count |= x->kind == DIFF_COUNT;
		s->hist |= x->kind != DIFF_COUNT;
		s->fine |= r[i].d >= 0 && r[i].fine;
		s->coarse |= r[i].d >= 0 && !r[i].fine;
		s->sig_small |= r[i].significant && !r[i].differs;
		s->jump |= r[i].count_moved || r[i].tail_jump;
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
	if (s->jump)
		fputs("A hist or latency key DIFFERS too when its COUNT does (the binomial test, as "
		      "a count's),\nor when its P90 or P99, with 10 events above it, moved by a "
		      "factor of 4 beyond\nthe intervals.\n", out);
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
	const struct diff_row *x = diff_res_row(r);
	bool q = r->d >= 0;
	json_t *o;
	int i;

	o = json_pack("{ss ss ss sO ss sb sb ss so so so so}", "type", diff_kind_name[x->kind],
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
		json_object_set_new(o, "count_p", jnum(r->p_count));
		json_object_set_new(o, "count_moved", json_boolean(r->count_moved));
		json_object_set_new(o, "tail_jump", json_boolean(r->tail_jump));
	}
	for (i = 0; i < NQ; i++) {
		char name[16];

		json_object_set_new(o, diff_q_name[i], jpair(r->qok[0][i], r->q[0][i],
							     r->qok[1][i], r->q[1][i]));
		snprintf(name, sizeof(name), "%s_ratio", diff_q_name[i]);
		json_object_set_new(o, name, r->qok[0][i] && r->qok[1][i] && r->q[0][i] ?
				    jnum(r->q[1][i] / r->q[0][i]) : json_null());
	}
	return o;
}

int diff_print_json(FILE *out, const struct result *r, size_t n)
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

int diff_print_text(FILE *out, const struct diff_file *a, const struct diff_file *b,
		    const struct result *r, size_t n, const struct opts *o)
{
	struct summary s;
	size_t i, j;

	for (i = 0; i < n; i = j) {
		j = diff_sect_end(r, i, n);
		if (section_print(out, &r[i], j - i))
			return -ENOMEM;
	}
	summarize(r, n, &s);
	footer(out, a, b, &s, o);
	return 0;
}
