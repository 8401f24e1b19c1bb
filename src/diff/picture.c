// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * kptrace diff --svg: both runs drawn overlaid, a panel per hist or latency
 * key and per count table, in the text's order.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diff/diff.h"
#include "diff/internal.h"
#include "util/svg.h"
#include "kpt_buckets.h"

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

	diff_fmt_value(l, sizeof(l), lo, ns);
	diff_fmt_value(h, sizeof(h), hi, ns);
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
		int c = i == na ? 1 : j == nb ? -1 : diff_bucket_cmp(&a[i], &b[j]);
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
	bool ns = diff_res_row(res)->kind == DIFF_LATENCY, fine;
	size_t i;

	/* the buckets the test used; a run without events, those of the other */
	fine = res->d >= 0 ? res->fine : (!a || diff_fine_ok(a)) && (!b || diff_fine_ok(b)) &&
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
		diff_fmt_value(text[n], 40, res->q[run][i], ns);
		p[n] = (struct svg_pct){ diff_q_name[i], res->q[run][i], text[n] };
		n++;
	}
	return n;
}

/* One hist or latency key: its rows, both runs' percentiles, its verdict and P. */
static int picture_key(struct svg_doc *d, const struct result *res, const struct diff_file *fa,
		       const struct diff_file *fb)
{
	const struct diff_row *x = diff_res_row(res);
	bool ns = x->kind == DIFF_LATENCY;
	struct svg_pct pa[3], pb[3];
	char ta[3][40], tb[3][40], title[512], key[KEY_SHOW_MAX + 4], p[24], detail[128];
	struct svg_overlay ov = {
		.title = title, .verdict = diff_verdict(res), .detail = detail,
		.differs = res->differs, .axis = ns ? "latency" : "value", .pcts_a = pa,
		.pcts_b = pb, .name_a = fa->path, .name_b = fb->path,
	};
	struct orows o = { 0 };
	uint8_t *lacks = NULL;
	int ret;

	diff_key_text(x, key, sizeof(key));
	snprintf(title, sizeof(title), "%s %s/%s %s", diff_kind_name[x->kind], x->group, x->event,
		 key);
	diff_fmt_p(p, sizeof(p), res->p);
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
	const struct diff_row *x = diff_res_row(r);
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
		diff_key_text(diff_res_row(&r[i]), o.label[i], LABEL_LEN);
		diff_fmt_p(p, sizeof(p), r[i].p);
		snprintf(note[i], sizeof(note[i]), "%s  P %s", diff_verdict(&r[i]), p);
		o.r[i] = (struct svg_orow){ .label = o.label[i], .note = note[i],
			.a = r[i].a ? r[i].a->count : 0, .b = r[i].b ? r[i].b->count : 0 };
		lacks[i] = !r[i].a ? SVG_NO_A : !r[i].b ? SVG_NO_B : 0;
		differ += r[i].differs;
	}
	snprintf(title, sizeof(title), "%s %s/%s", diff_kind_name[x->kind], x->group, x->event);
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
int diff_picture(FILE *f, const struct diff_file *a, const struct diff_file *b,
		 const struct result *r, size_t n)
{
	struct svg_doc *d = svg_new(false);
	size_t i, j;
	int ret = 0;

	if (!d)
		return -ENOMEM;
	for (i = 0; i < n && !ret; i = j) {
		j = diff_sect_end(r, i, n);
		if (diff_res_row(&r[i])->kind == DIFF_COUNT) {
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
