// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * --svg: the model (panels of copied text and counts) and its drawing. See
 * svg.h for what a picture holds. Sizes are fixed numbers of pixels: a
 * monospace character is taken as CH wide at FONT px, so a browser draws the
 * same picture whatever the fonts it has, only the glyphs differ.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "util/htab.h"
#include "util/svg.h"

#define FONT		12
#define CH		7.3	/* a monospace character's advance at FONT px, a bit over */
#define PAD		12
#define ROW_H		18	/* a bar's row */
#define HEAT_H		18	/* a heat row */
#define BAR_W		480	/* the longest bar */
#define HEAT_W		960	/* the heat columns' room, before clamping the cell width */
#define TOP		44	/* a panel's first row: under its title and its header */
#define LABEL_CHARS	64	/* a label longer than this is cut (whole in its tooltip) */
#define HEAD		40	/* an overlay's verdict and legend lines, between title and rows */
#define COL_A		"#3b7ddd"	/* an overlay's run A (bars), and its percentiles' lines */
#define COL_B		"#e8743b"
#define LINE_A		"#1f3f8f"
#define LINE_B		"#a0401a"

enum panel_kind { P_BARS, P_HEAT, P_COUNT, P_OVERLAY };

struct brow {
	uint32_t index;
	char *label;
	uint64_t count;		/* overlay: run A's */
	uint64_t count_b;	/* overlay: run B's */
	bool no_a, no_b;	/* overlay: a run without the key, "-" */
	double lo, hi;
	uint64_t *cols;		/* heat: the count of each interval (ncols entries) */
	size_t ncols;
	char *text;		/* count: the value as printed; overlay: the row's note or NULL */
};

struct pct {
	char *name;
	double value;
	char *text;
};

struct panel {
	enum panel_kind kind;
	char *title, *axis, *stats;	/* count: axis the keys' names, stats the value's;
					 * overlay: stats the verdict's detail */
	bool invalid;
	struct brow *rows;		/* bars and heat by index; count in the table's order */
	size_t nrows;
	struct pct pcts[SVG_MAX_PCTS];	/* bars: the percentiles; heat: their names; overlay: A's */
	size_t npcts;
	/* overlay: B's percentiles, the verdict (red when it differs), the legend's names */
	struct pct pcts_b[SVG_MAX_PCTS];
	size_t npcts_b;
	char *verdict, *name_a, *name_b;
	bool differs;
	/* heat: per interval, each percentile's value (pv[col * SVG_MAX_PCTS + k],
	 * pok says it has one) and the interval's stats line */
	double *pv;
	bool *pok;
	char **cstats;
	size_t pcap;
};

struct svg_doc {
	bool heat;
	struct panel *p[SVG_MAX_PANELS];
	size_t np;
	struct htab gone;		/* heat: the titles left out, for their number */
	size_t dropped;
	char **times;			/* the intervals' clock times */
	size_t ncols, cols_dropped;
	bool col_skip;			/* the current interval is past SVG_MAX_COLUMNS */
	bool oom;
};

/* ---- the model ---- */

static char *dup_or_empty(const char *s)
{
	return strdup(s ? s : "");
}

static void pcts_free(struct pct *pcts, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(pcts[i].name);
		free(pcts[i].text);
	}
}

static void panel_free(struct panel *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->nrows; i++) {
		free(p->rows[i].label);
		free(p->rows[i].cols);
		free(p->rows[i].text);
	}
	pcts_free(p->pcts, p->npcts);
	pcts_free(p->pcts_b, p->npcts_b);
	free(p->verdict);
	free(p->name_a);
	free(p->name_b);
	for (i = 0; p->cstats && i < p->pcap; i++)
		free(p->cstats[i]);
	free(p->cstats);
	free(p->pv);
	free(p->pok);
	free(p->rows);
	free(p->title);
	free(p->axis);
	free(p->stats);
	free(p);
}

struct svg_doc *svg_new(bool heat)
{
	struct svg_doc *d = calloc(1, sizeof(*d));

	if (d)
		d->heat = heat;
	return d;
}

void svg_free(struct svg_doc *d)
{
	size_t i;

	if (!d)
		return;
	for (i = 0; i < d->np; i++)
		panel_free(d->p[i]);
	for (i = 0; i < d->ncols; i++)
		free(d->times[i]);
	free(d->times);
	ht_free(&d->gone, NULL);
	free(d);
}

size_t svg_panels(const struct svg_doc *d, size_t *dropped)
{
	*dropped = d->dropped;
	return d->np;
}

size_t svg_columns(const struct svg_doc *d)
{
	return d->ncols;
}

static int oom(struct svg_doc *d)
{
	d->oom = true;
	return -ENOMEM;
}

int svg_column(struct svg_doc *d, const char *time)
{
	char **nt;

	if (d->ncols == SVG_MAX_COLUMNS) {
		d->cols_dropped++;
		d->col_skip = true;
		return 0;
	}
	nt = realloc(d->times, (d->ncols + 1) * sizeof(*nt));
	if (!nt)
		return oom(d);
	d->times = nt;
	if (!(nt[d->ncols] = dup_or_empty(time)))
		return oom(d);
	d->ncols++;
	return 0;
}

/* A new panel, or NULL past SVG_MAX_PANELS (counted) or without memory. */
static struct panel *panel_new(struct svg_doc *d, enum panel_kind kind, const char *title,
			       const char *axis, const char *stats)
{
	struct panel *p;

	if (d->np == SVG_MAX_PANELS) {
		d->dropped++;
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	if (!p || !(p->title = dup_or_empty(title)) || !(p->axis = dup_or_empty(axis)) ||
	    !(p->stats = dup_or_empty(stats))) {
		panel_free(p);
		oom(d);
		return NULL;
	}
	p->kind = kind;
	d->p[d->np++] = p;
	return p;
}

/* Up to SVG_MAX_PCTS percentiles into to (its count in *nto); -ENOMEM. */
static int copy_pcts(struct pct *to, size_t *nto, const struct svg_pct *from, size_t n)
{
	size_t k;

	for (k = 0; k < n && k < SVG_MAX_PCTS; k++) {
		to[k].value = from[k].value;
		to[k].name = dup_or_empty(from[k].name);
		to[k].text = dup_or_empty(from[k].text);
		*nto = k + 1;
		if (!to[k].name || !to[k].text)
			return -ENOMEM;
	}
	return 0;
}

static int add_bars(struct svg_doc *d, const struct svg_hist *h, const char *title)
{
	struct panel *p = panel_new(d, P_BARS, title, h->axis, h->stats);
	size_t i;

	if (!p)
		return d->oom ? -ENOMEM : 0;
	p->invalid = h->invalid;
	if (h->nrows && !(p->rows = calloc(h->nrows, sizeof(*p->rows))))
		return oom(d);
	for (i = 0; i < h->nrows; i++) {
		struct brow *r = &p->rows[i];

		r->index = h->rows[i].index;
		r->count = h->rows[i].count;
		r->lo = h->rows[i].lo;
		r->hi = h->rows[i].hi;
		p->nrows = i + 1;
		if (!(r->label = dup_or_empty(h->rows[i].label)))
			return oom(d);
	}
	return copy_pcts(p->pcts, &p->npcts, h->pcts, h->npcts) ? oom(d) : 0;
}

static void heat_gone(struct svg_doc *d, const char *title)
{
	size_t before = d->gone.n;

	if (!ht_get(&d->gone, title, strlen(title)))
		d->dropped++;	/* no memory: counted again, if ever seen again: an estimate */
	else if (d->gone.n != before)
		d->dropped = d->gone.n;
}

/* Heat panel title's, made at its first interval. */
static struct panel *heat_panel(struct svg_doc *d, const struct svg_hist *h)
{
	struct panel *p;
	size_t i;

	for (i = 0; i < d->np; i++)
		if (!strcmp(d->p[i]->title, h->title ? h->title : ""))
			return d->p[i];
	if (d->np == SVG_MAX_PANELS) {
		heat_gone(d, h->title ? h->title : "");
		return NULL;
	}
	p = panel_new(d, P_HEAT, h->title, h->axis, NULL);
	if (p && copy_pcts(p->pcts, &p->npcts, h->pcts, h->npcts)) {
		oom(d);
		return NULL;
	}
	return p;
}

/* Heat row index of p, inserted in index order when new; NULL without memory. */
static struct brow *heat_row(struct panel *p, const struct svg_row *sr)
{
	struct brow *nr;
	size_t i;

	for (i = 0; i < p->nrows && p->rows[i].index < sr->index; i++)
		;
	if (i < p->nrows && p->rows[i].index == sr->index)
		return &p->rows[i];
	nr = realloc(p->rows, (p->nrows + 1) * sizeof(*nr));
	if (!nr)
		return NULL;
	p->rows = nr;
	memmove(&nr[i + 1], &nr[i], (p->nrows - i) * sizeof(*nr));
	memset(&nr[i], 0, sizeof(*nr));
	p->nrows++;
	nr[i].index = sr->index;
	nr[i].lo = sr->lo;
	nr[i].hi = sr->hi;
	nr[i].label = dup_or_empty(sr->label);
	return nr[i].label ? &nr[i] : NULL;
}

/* Room for interval col in p's per-interval arrays. */
static int heat_room(struct panel *p, size_t col)
{
	size_t cap = p->pcap, i;
	double *pv;
	bool *pok;
	char **cs;

	if (col < cap)
		return 0;
	cap = col + 1 > 2 * cap ? col + 1 : 2 * cap;
	pv = realloc(p->pv, cap * SVG_MAX_PCTS * sizeof(*pv));
	if (pv)
		p->pv = pv;
	pok = realloc(p->pok, cap * SVG_MAX_PCTS * sizeof(*pok));
	if (pok)
		p->pok = pok;
	cs = realloc(p->cstats, cap * sizeof(*cs));
	if (cs)
		p->cstats = cs;
	if (!pv || !pok || !cs)
		return -ENOMEM;
	memset(&pok[p->pcap * SVG_MAX_PCTS], 0, (cap - p->pcap) * SVG_MAX_PCTS * sizeof(*pok));
	for (i = p->pcap; i < cap; i++)
		cs[i] = NULL;
	p->pcap = cap;
	return 0;
}

/*
 * p's rows continuous from its lowest to its highest bucket, as a bar
 * chart's are: a row for each of h's layout rows between them (a count of
 * zero in every interval until one has it), else for each of h's own.
 */
static int heat_fill(struct panel *p, const struct svg_hist *h)
{
	const struct svg_row *rows = h->span ? h->span : h->rows;
	size_t n = h->span ? h->nspan : h->nrows, i;
	uint32_t lo, hi;

	if (!p->nrows)
		return 0;
	lo = p->rows[0].index;
	hi = p->rows[p->nrows - 1].index;
	for (i = 0; i < n; i++)
		if (rows[i].index > lo && rows[i].index < hi && !heat_row(p, &rows[i]))
			return -ENOMEM;
	return 0;
}

static int add_heat(struct svg_doc *d, const struct svg_hist *h)
{
	size_t col = d->ncols ? d->ncols - 1 : 0, i, k;
	struct panel *p;

	if (!d->ncols && svg_column(d, ""))
		return -ENOMEM;
	if (d->col_skip)
		return 0;
	if (!(p = heat_panel(d, h)))
		return d->oom ? -ENOMEM : 0;
	p->invalid |= h->invalid;
	if (!p->npcts && copy_pcts(p->pcts, &p->npcts, h->pcts, h->npcts))
		return oom(d);
	if (heat_room(p, col))
		return oom(d);
	for (i = 0; i < h->nrows; i++) {
		struct brow *r;
		uint64_t *nc;

		if (!h->rows[i].count)
			continue;	/* heat_fill() adds the empty rows that lie between */
		if (!(r = heat_row(p, &h->rows[i])))
			return oom(d);
		if (r->ncols <= col) {
			if (!(nc = realloc(r->cols, (col + 1) * sizeof(*nc))))
				return oom(d);
			memset(&nc[r->ncols], 0, (col + 1 - r->ncols) * sizeof(*nc));
			r->cols = nc;
			r->ncols = col + 1;
		}
		r->cols[col] += h->rows[i].count;
	}
	if (heat_fill(p, h))
		return oom(d);
	for (k = 0; k < h->npcts && k < SVG_MAX_PCTS; k++) {
		p->pv[col * SVG_MAX_PCTS + k] = h->pcts[k].value;
		p->pok[col * SVG_MAX_PCTS + k] = h->nrows > 0;
	}
	free(p->cstats[col]);
	if (!(p->cstats[col] = dup_or_empty(h->stats)))
		return oom(d);
	return 0;
}

int svg_add_hist(struct svg_doc *d, const struct svg_hist *h)
{
	if (d->heat)
		return add_heat(d, h);
	return add_bars(d, h, h->title);
}

int svg_add_count(struct svg_doc *d, const struct svg_count *t)
{
	struct panel *p;
	char title[512];
	size_t i;

	if (d->heat && d->col_skip)
		return 0;
	/* an interval run's tables, each under its time */
	if (d->heat && d->ncols && d->times[d->ncols - 1][0])
		snprintf(title, sizeof(title), "%s %s", d->times[d->ncols - 1],
			 t->title ? t->title : "");
	else
		snprintf(title, sizeof(title), "%s", t->title ? t->title : "");
	if (!(p = panel_new(d, P_COUNT, title, t->keys, t->value_name)))
		return d->oom ? -ENOMEM : 0;
	if (t->nrows && !(p->rows = calloc(t->nrows, sizeof(*p->rows))))
		return oom(d);
	for (i = 0; i < t->nrows; i++) {
		p->rows[i].count = t->rows[i].value;
		p->nrows = i + 1;
		p->rows[i].label = dup_or_empty(t->rows[i].label);
		p->rows[i].text = dup_or_empty(t->rows[i].text);
		if (!p->rows[i].label || !p->rows[i].text)
			return oom(d);
	}
	return 0;
}

int svg_add_overlay(struct svg_doc *d, const struct svg_overlay *o)
{
	struct panel *p = panel_new(d, P_OVERLAY, o->title, o->axis, o->detail);
	size_t i;

	if (!p)
		return d->oom ? -ENOMEM : 0;
	p->differs = o->differs;
	if (!(p->verdict = dup_or_empty(o->verdict)) || !(p->name_a = dup_or_empty(o->name_a)) ||
	    !(p->name_b = dup_or_empty(o->name_b)))
		return oom(d);
	if (o->nrows && !(p->rows = calloc(o->nrows, sizeof(*p->rows))))
		return oom(d);
	for (i = 0; i < o->nrows; i++) {
		const struct svg_orow *s = &o->rows[i];
		struct brow *r = &p->rows[i];

		r->count = s->a;
		r->count_b = s->b;
		r->no_a = o->lacks && o->lacks[i] == SVG_NO_A;
		r->no_b = o->lacks && o->lacks[i] == SVG_NO_B;
		r->lo = s->lo;
		r->hi = s->hi;
		p->nrows = i + 1;
		if (!(r->label = dup_or_empty(s->label)) || (s->note && !(r->text = strdup(s->note))))
			return oom(d);
	}
	if (copy_pcts(p->pcts, &p->npcts, o->pcts_a, o->npcts_a) ||
	    copy_pcts(p->pcts_b, &p->npcts_b, o->pcts_b, o->npcts_b))
		return oom(d);
	return 0;
}

size_t svg_merge_rows(struct svg_orow *rows, size_t n, size_t max)
{
	size_t per, i, k, m = 0;

	if (!max || n <= max)
		return n;
	/* equal runs of consecutive rows: a row's width stays one bucket's multiple */
	per = (n + max - 1) / max;
	for (i = 0; i < n; i += per, m++) {
		struct svg_orow r = rows[i];

		for (k = i + 1; k < n && k < i + per; k++) {
			r.a += rows[k].a;
			r.b += rows[k].b;
			r.hi = rows[k].hi;
		}
		r.label = r.note = NULL;
		rows[m] = r;
	}
	return m;
}

/* ---- text ---- */

/* Length of the well-formed UTF-8 sequence at s holding an XML character, or 0. */
static size_t xml_char(const unsigned char *s)
{
	uint32_t cp;
	size_t n, i;

	if (s[0] < 0x80)
		return s[0] >= 0x20 || s[0] == '\t' || s[0] == '\n' || s[0] == '\r';
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates, U+FFFE/U+FFFF and past U+10FFFF are not characters */
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp == 0xfffe || cp == 0xffff)
		return 0;
	return n;
}

/* At most max characters of s escaped, "..." after a cut one; max 0: all of it. */
static void escape_cut(FILE *f, const char *s, size_t max)
{
	const unsigned char *u = (const unsigned char *)(s ? s : "");
	size_t chars = 0, n;

	while (*u) {
		if (max && chars == max) {
			fputs("...", f);
			return;
		}
		n = xml_char(u);
		chars++;
		if (!n) {
			/* a comm or a string key may hold any byte: one replacement each */
			fputs("&#xFFFD;", f);
			u++;
			continue;
		}
		switch (*u) {
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '&':
			fputs("&amp;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&apos;", f);
			break;
		default:
			fwrite(u, 1, n, f);
		}
		u += n;
	}
}

void svg_escape(FILE *f, const char *s)
{
	escape_cut(f, s, 0);
}

/* Characters s takes on screen (each invalid byte one). */
static size_t text_chars(const char *s)
{
	const unsigned char *u = (const unsigned char *)(s ? s : "");
	size_t chars = 0, n;

	while (*u) {
		n = xml_char(u);
		u += n ? n : 1;
		chars++;
	}
	return chars;
}

/* The width of a label, cut at LABEL_CHARS as label_at() cuts it. */
static double text_w(const char *s)
{
	size_t n = text_chars(s);

	return (double)(n > LABEL_CHARS ? LABEL_CHARS + 3 : n) * CH;
}

/* <text x y [anchor] [extra]>s</text>, s cut at cut characters (0: whole). */
static void text_cut(FILE *f, double x, double y, const char *anchor, const char *extra,
		     const char *s, size_t cut)
{
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\"%s%s%s%s>", x, y, anchor ? " text-anchor=\"" : "",
		anchor ? anchor : "", anchor ? "\"" : "", extra ? extra : "");
	escape_cut(f, s, cut);
	fputs("</text>\n", f);
}

/* A label: a row's, an axis's; a key may be long, its tooltip has all of it. */
static void text_at(FILE *f, double x, double y, const char *anchor, const char *extra,
		    const char *s)
{
	text_cut(f, x, y, anchor, extra, s, LABEL_CHARS);
}

/* A line of text, whole: a title, the stats, the notes. */
static void line_at(FILE *f, double x, double y, const char *extra, const char *s)
{
	text_cut(f, x, y, NULL, extra, s, 0);
}

static void title_at(FILE *f, const char *s)
{
	line_at(f, PAD, 18, " font-size=\"14\" font-weight=\"bold\"", s);
}

/* ---- colours and scales ---- */

void svg_heat_colour(uint64_t count, uint64_t max, char buf[8])
{
	/* light yellow to dark red, every channel falling: darker for more */
	static const unsigned char stops[][3] = {
		{ 255, 255, 204 }, { 254, 217, 118 }, { 253, 141, 60 }, { 227, 26, 38 },
		{ 128, 0, 38 },
	};
	const int nseg = (int)(sizeof(stops) / sizeof(stops[0])) - 1;
	double t, w;
	int s, c, v[3];

	if (!count) {
		strcpy(buf, "#ffffff");
		return;
	}
	if (count > max)
		max = count;
	/* log-scaled: 1 call is the lightest, the panel's largest cell the darkest */
	t = max > 1 ? log((double)count) / log((double)max) : 1.0;
	s = (int)(t * nseg);
	if (s >= nseg)
		s = nseg - 1;
	w = t * nseg - s;
	for (c = 0; c < 3; c++)
		v[c] = (int)(stops[s][c] + (stops[s + 1][c] - stops[s][c]) * w + 0.5);
	snprintf(buf, 8, "#%02x%02x%02x", v[0] & 0xff, v[1] & 0xff, v[2] & 0xff);
}

/* A round step for about four ticks up to max. */
static uint64_t tick_step(uint64_t max)
{
	uint64_t raw = max / 4, mag = 1;

	if (!raw)
		return 1;
	while (mag <= raw / 10)
		mag *= 10;
	if (mag >= raw)
		return mag;
	if (2 * mag >= raw)
		return 2 * mag;
	if (5 * mag >= raw)
		return 5 * mag;
	return 10 * mag;
}

static const char *const pct_colours[SVG_MAX_PCTS] = { "#1f4fb4", "#0a8a5a", "#7a1fa2" };
static const char *const pct_dashes[SVG_MAX_PCTS] = { "", " stroke-dasharray=\"6 3\"",
						      " stroke-dasharray=\"2 2\"" };

/*
 * Where value v falls among rows[0..n) (ascending by value), as a fraction
 * of rows: 2.5 is half-way through row 2. Inside a row, log-spaced (the
 * rows are powers of two) where the row starts above 0. -1: in none.
 */
static double row_pos(const struct brow *rows, size_t n, double v)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const struct brow *r = &rows[i];
		double f;

		if (v < r->lo || (v >= r->hi && i + 1 < n))
			continue;
		if (v >= r->hi)
			return (double)n;	/* the last row's top edge: max itself */
		if (!isfinite(r->lo) || !isfinite(r->hi))
			return (double)i + 0.5;	/* an open end: no edge to measure from */
		f = r->lo > 0 && r->hi > r->lo ? log(v / r->lo) / log(r->hi / r->lo)
						: (v - r->lo) / (r->hi - r->lo);
		return (double)i + (f < 0 ? 0 : f > 1 ? 1 : f);
	}
	return -1;
}

/* ---- panels ---- */

struct geom {
	double w, h;
	double lw;		/* the label column */
	double cw;		/* heat: a column's width */
	int every;		/* heat: a time label every this many columns */
};

static double max_label_w(const struct panel *p, const char *also)
{
	double w = text_w(also);
	size_t i;

	for (i = 0; i < p->nrows; i++)
		if (text_w(p->rows[i].label) > w)
			w = text_w(p->rows[i].label);
	return w < 60 ? 60 : w;
}

static uint64_t max_count(const struct panel *p)
{
	uint64_t m = 0;
	size_t i;

	for (i = 0; i < p->nrows; i++) {
		if (p->rows[i].count > m)
			m = p->rows[i].count;
		if (p->rows[i].count_b > m)
			m = p->rows[i].count_b;
	}
	return m;
}

/* An overlay row's counts as printed beside its bars: "A / B". */
static void pair_text(const struct brow *r, char *buf, size_t len)
{
	char a[24] = "-", b[24] = "-";

	if (!r->no_a)
		snprintf(a, sizeof(a), "%" PRIu64, r->count);
	if (!r->no_b)
		snprintf(b, sizeof(b), "%" PRIu64, r->count_b);
	snprintf(buf, len, "%s / %s", a, b);
}

/* The widest of an overlay's "A / B" column. */
static double pair_w(const struct panel *p)
{
	double w = text_w("A / B");
	char num[48];
	size_t i;

	for (i = 0; i < p->nrows; i++) {
		pair_text(&p->rows[i], num, sizeof(num));
		if (text_w(num) > w)
			w = text_w(num);
	}
	return w;
}

/* What an overlay writes right of its "A / B" column: notes, percentiles' names. */
static double overlay_right(const struct panel *p)
{
	const struct pct *runs[2] = { p->pcts, p->pcts_b };
	size_t nrun[2] = { p->npcts, p->npcts_b }, i, k;
	double w = 0;

	for (i = 0; i < p->nrows; i++)
		if (text_w(p->rows[i].text) > w)
			w = text_w(p->rows[i].text);
	for (i = 0; i < 2; i++)
		for (k = 0; k < nrun[i]; k++)
			if ((strlen(runs[i][k].name) + 3) * CH + text_w(runs[i][k].text) > w)
				w = (strlen(runs[i][k].name) + 3) * CH + text_w(runs[i][k].text);
	return w;
}

/*
 * An overlay's verdict line ("DIFFERS  P 1.2e-10, D 0.433") and its legend (a
 * swatch and file name per run); their width, and with f NULL only that.
 */
static double overlay_head(FILE *f, const struct panel *p)
{
	const char *const names[2] = { p->name_a, p->name_b }, *const runs[2] = { "A:", "B:" };
	const char *const cols[2] = { COL_A, COL_B };
	double x = PAD + ((double)text_chars(p->verdict) + 2) * CH, w;
	int k;

	if (f) {
		line_at(f, PAD, 36, p->differs ? " class=\"verdict\" font-weight=\"bold\" "
			"fill=\"#b00000\"" : " class=\"verdict\" font-weight=\"bold\"", p->verdict);
		line_at(f, x, 36, " fill=\"#444\"", p->stats);
	}
	w = x + (double)text_chars(p->stats) * CH;
	x = PAD;
	for (k = 0; k < 2; k++) {
		if (f) {
			fprintf(f, "<rect class=\"legend\" x=\"%.1f\" y=\"45\" width=\"14\" "
				"height=\"10\" fill=\"%s\"/>\n", x, cols[k]);
			line_at(f, x + 18, 54, " font-weight=\"bold\"", runs[k]);
			line_at(f, x + 18 + 3 * CH, 54, NULL, names[k]);
		}
		x += 18 + (3 + (double)text_chars(names[k]) + 3) * CH;
	}
	return (x > w ? x : w) + PAD;
}

static void geom_of(const struct svg_doc *d, const struct panel *p, struct geom *g)
{
	char num[24];
	double right = 0;
	size_t k;

	memset(g, 0, sizeof(*g));
	g->lw = max_label_w(p, p->axis) + 10;
	g->w = PAD + g->lw + BAR_W + 2 * PAD;
	switch (p->kind) {
	case P_BARS:
		/* the counts after the bars, then the percentiles' names */
		for (k = 0; k < p->npcts; k++)
			if ((strlen(p->pcts[k].name) + 1) * CH + text_w(p->pcts[k].text) > right)
				right = (strlen(p->pcts[k].name) + 1) * CH + text_w(p->pcts[k].text);
		snprintf(num, sizeof(num), "%" PRIu64, max_count(p));
		g->w += text_w(num) + 16 + right;
		g->h = TOP + (double)p->nrows * ROW_H + 64;
		break;
	case P_COUNT:
		g->w += 22 * CH;
		/* the value axis: its ticks' numbers, its name */
		g->h = TOP + (double)p->nrows * ROW_H + 48;
		break;
	case P_OVERLAY:
		g->w += 8 + pair_w(p) + 12 + overlay_right(p);
		/* the percentiles' names, 13 px apart, may reach below the rows */
		g->h = TOP + fmax((double)p->nrows * ROW_H, (double)(p->npcts + p->npcts_b) * 13) + 44;
		break;
	case P_HEAT:
		g->cw = d->ncols ? floor(HEAT_W / (double)d->ncols) : HEAT_W;
		g->cw = g->cw < 4 ? 4 : g->cw > 48 ? 48 : g->cw;
		g->every = (int)ceil((8 * CH + 8) / g->cw);
		g->w = PAD + g->lw + g->cw * (double)d->ncols + 4 * CH + 2 * PAD;
		/* the legend's room: ramp, its two numbers, the lines' names */
		if (g->w < PAD + 560)
			g->w = PAD + 560;
		g->h = TOP + (double)p->nrows * HEAT_H + 80;
		break;
	}
	if (p->invalid || !p->nrows)
		g->h = TOP + 20;
	if (p->kind == P_OVERLAY) {
		g->h += HEAD;
		if (overlay_head(NULL, p) > g->w)
			g->w = overlay_head(NULL, p);
	}
	/* the lines drawn whole: the title (14 px, bold), the stats */
	if ((double)text_chars(p->title) * CH * 1.2 + 2 * PAD > g->w)
		g->w = (double)text_chars(p->title) * CH * 1.2 + 2 * PAD;
	if (p->kind == P_BARS && (double)text_chars(p->stats) * CH + 2 * PAD > g->w)
		g->w = (double)text_chars(p->stats) * CH + 2 * PAD;
}

/* The count axis under bars from x0, width BAR_W, scaled to top. */
static void count_axis(FILE *f, double x0, double y, uint64_t top, const char *name)
{
	uint64_t step = tick_step(top), t;
	char num[24];

	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#444\"/>\n", x0,
		y, x0 + BAR_W, y);
	for (t = 0; t <= top; t += step) {
		double x = x0 + (double)t / (double)top * BAR_W;

		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#444\"/>\n",
			x, y, x, y + 4);
		snprintf(num, sizeof(num), "%" PRIu64, t);
		text_at(f, x, y + 16, "middle", " class=\"tick\" fill=\"#444\"", num);
		if (top - t < step)
			break;
	}
	text_at(f, x0 + BAR_W / 2, y + 30, "middle", " fill=\"#444\"", name);
}

/* A percentile's line across the rows, at pos (a fraction of rows, row_pos()). */
struct mark {
	double pos;
	const char *colour, *dash;
	char lab[160];
};

/* pcts' marks into m (from m[n]) with their names after prefix; the new n. */
static size_t marks_of(const struct panel *p, const struct pct *pcts, size_t npcts,
		       const char *prefix, const char *const *colours, struct mark *m, size_t n)
{
	size_t k;

	for (k = 0; k < npcts; k++) {
		double pos = row_pos(p->rows, p->nrows, pcts[k].value);

		if (pos < 0)
			continue;
		m[n].pos = pos;
		m[n].colour = colours[k];
		m[n].dash = pct_dashes[k];
		snprintf(m[n].lab, sizeof(m[n].lab), "%s%s %s", prefix, pcts[k].name, pcts[k].text);
		n++;
	}
	return n;
}

/* The marks from x0 to x1, top to bottom, their names right of x1. */
static void draw_marks(FILE *f, struct mark *m, size_t n, double x0, double x1)
{
	double last_y = -100;
	struct mark t;
	size_t i, j;

	/* by position: the names are stacked downwards, each under the one above */
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && m[j - 1].pos > m[j].pos; j--)
			t = m[j], m[j] = m[j - 1], m[j - 1] = t;
	for (i = 0; i < n; i++) {
		double y = TOP + m[i].pos * ROW_H, ty;

		/* the names one under the other where the values are close */
		ty = y + 4 < last_y + 13 ? last_y + 13 : y + 4;
		last_y = ty;
		fprintf(f, "<line class=\"pct\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			"stroke=\"%s\" stroke-width=\"1.5\"%s><title>", x0, y, x1, y,
			m[i].colour, m[i].dash);
		svg_escape(f, m[i].lab);
		fputs("</title></line>\n", f);
		line_at(f, x1 + 4, ty, " font-weight=\"bold\"", m[i].lab);
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n",
			x1, y, x1 + 3, ty - 4, m[i].colour);
	}
}

/* A row's start: a grey stripe under every other row, its label left of x0. */
static void row_start(FILE *f, size_t i, double y, const struct geom *g, double x0,
		      const char *label)
{
	if (i % 2)
		fprintf(f, "<rect x=\"%d\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" "
			"fill=\"#f4f4f4\"/>\n", PAD, y, g->w - 2 * PAD, ROW_H);
	text_at(f, x0 - 8, y + 13, "end", NULL, label);
}

/* A bar of class cls, at least 1 px, its tooltip "LABEL: [run ]VALUE". */
static void bar_at(FILE *f, const char *cls, double x, double y, double w, int h,
		   const char *fill, const char *label, const char *run, const char *value)
{
	fprintf(f, "<rect class=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" "
		"fill=\"%s\"><title>", cls, x, y, w < 1 ? 1 : w, h, fill);
	svg_escape(f, label);
	fputs(": ", f);
	if (run)
		fprintf(f, "%s ", run);
	svg_escape(f, value);
	fputs("</title></rect>\n", f);
}

static void draw_bars(FILE *f, const struct panel *p, const struct geom *g)
{
	double x0 = PAD + g->lw, xc;
	uint64_t top = max_count(p);
	char num[24];
	size_t i;

	text_at(f, x0 - 8, TOP - 8, "end", " fill=\"#444\"", p->axis);
	text_at(f, x0, TOP - 8, NULL, " fill=\"#444\"", "count");
	struct mark m[SVG_MAX_PCTS];

	for (i = 0; i < p->nrows; i++) {
		const struct brow *r = &p->rows[i];
		double y = TOP + (double)i * ROW_H, w = (double)r->count / (double)top * BAR_W;

		row_start(f, i, y, g, x0, r->label);
		snprintf(num, sizeof(num), "%" PRIu64, r->count);
		if (r->count)
			bar_at(f, "bar", x0, y + 3, w, ROW_H - 6, "#e8743b", r->label, NULL, num);
		text_at(f, x0 + (w < 1 ? 1 : w) + 4, y + 13, NULL, NULL, num);
	}
	xc = x0 + BAR_W + 4;
	snprintf(num, sizeof(num), "%" PRIu64, top);
	draw_marks(f, m, marks_of(p, p->pcts, p->npcts, "", pct_colours, m, 0), x0,
		   xc + text_w(num) + 8);
	count_axis(f, x0, TOP + (double)p->nrows * ROW_H + 4, top, "count");
	line_at(f, PAD, TOP + (double)p->nrows * ROW_H + 54, NULL, p->stats);
}

static void draw_count(FILE *f, const struct panel *p, const struct geom *g)
{
	double x0 = PAD + g->lw;
	uint64_t top = max_count(p);
	size_t i;

	text_at(f, x0 - 8, TOP - 8, "end", " fill=\"#444\"", p->axis);
	text_at(f, x0, TOP - 8, NULL, " fill=\"#444\"", p->stats);
	for (i = 0; i < p->nrows; i++) {
		const struct brow *r = &p->rows[i];
		const char *val = r->text;
		double y = TOP + (double)i * ROW_H;
		double w = top ? (double)r->count / (double)top * BAR_W : 0;

		row_start(f, i, y, g, x0, r->label);
		bar_at(f, "bar", x0, y + 3, w, ROW_H - 6, "#3b7ddd", r->label, NULL, val);
		text_at(f, x0 + (w < 1 ? 1 : w) + 4, y + 13, NULL, NULL, val);
	}
	count_axis(f, x0, TOP + (double)p->nrows * ROW_H + 4, top ? top : 1, p->stats);
}

/* Each row an A bar over a B bar, their counts after them, both runs' percentiles. */
static void draw_overlay(FILE *f, const struct panel *p, const struct geom *g)
{
	static const char *const line_a[SVG_MAX_PCTS] = { LINE_A, LINE_A, LINE_A };
	static const char *const line_b[SVG_MAX_PCTS] = { LINE_B, LINE_B, LINE_B };
	double x0 = PAD + g->lw, xc = x0 + BAR_W + 8, x1 = xc + pair_w(p) + 8;
	uint64_t top = max_count(p) ? max_count(p) : 1;
	struct mark m[2 * SVG_MAX_PCTS];
	char num[48];
	size_t i, n;
	int k;

	text_at(f, x0 - 8, TOP - 8, "end", " fill=\"#444\"", p->axis);
	text_at(f, x0, TOP - 8, NULL, " fill=\"#444\"", "count");
	text_at(f, xc, TOP - 8, NULL, " fill=\"#444\"", "A / B");
	for (i = 0; i < p->nrows; i++) {
		const struct brow *r = &p->rows[i];
		double y = TOP + (double)i * ROW_H;

		row_start(f, i, y, g, x0, r->label);
		for (k = 0; k < 2; k++) {
			uint64_t c = k ? r->count_b : r->count;

			if (!c)
				continue;
			snprintf(num, sizeof(num), "%" PRIu64, c);
			bar_at(f, k ? "bar b" : "bar a", x0, y + 2 + 7 * k,
			       (double)c / (double)top * BAR_W, 7, k ? COL_B : COL_A, r->label,
			       k ? "B" : "A", num);
		}
		pair_text(r, num, sizeof(num));
		text_at(f, xc, y + 13, NULL, NULL, num);
		if (r->text)
			line_at(f, x1 + 4, y + 13, NULL, r->text);
	}
	n = marks_of(p, p->pcts, p->npcts, "A ", line_a, m, 0);
	n = marks_of(p, p->pcts_b, p->npcts_b, "B ", line_b, m, n);
	draw_marks(f, m, n, x0, x1);
	count_axis(f, x0, TOP + (double)p->nrows * ROW_H + 4, top, "count");
}

/* Percentile k's line across the intervals, broken where one has none. */
static void heat_line(FILE *f, const struct svg_doc *d, const struct panel *p, size_t k,
		      const struct geom *g, double x0, double ybot, const char *attrs)
{
	bool open = false;
	size_t c;

	for (c = 0; c < d->ncols; c++) {
		double pos = -1;

		if (c < p->pcap && p->pok[c * SVG_MAX_PCTS + k])
			pos = row_pos(p->rows, p->nrows, p->pv[c * SVG_MAX_PCTS + k]);
		if (pos < 0) {
			if (open)
				fputs("\"/>\n", f);
			open = false;
			continue;
		}
		if (!open)
			fprintf(f, "<polyline fill=\"none\" %s points=\"", attrs);
		fprintf(f, "%s%.1f,%.1f", open ? " " : "", x0 + ((double)c + 0.5) * g->cw,
			ybot - pos * HEAT_H);
		open = true;
	}
	if (open)
		fputs("\"/>\n", f);
}

/* The percentiles' lines, each on a white halo: they show on dark cells as on light ones. */
static void heat_lines(FILE *f, const struct svg_doc *d, const struct panel *p,
		       const struct geom *g, double x0, double ybot)
{
	char attrs[128];
	size_t k;

	for (k = 0; k < p->npcts; k++) {
		heat_line(f, d, p, k, g, x0, ybot, "stroke=\"#ffffff\" stroke-width=\"4\"");
		snprintf(attrs, sizeof(attrs), "class=\"pct\" stroke=\"%s\" stroke-width=\"2\"%s",
			 pct_colours[k], pct_dashes[k]);
		heat_line(f, d, p, k, g, x0, ybot, attrs);
	}
}

/* Under the heat: the colour ramp from 1 to the largest cell, the lines' names. */
static void heat_legend(FILE *f, const struct panel *p, double y, uint64_t top)
{
	char col[8], num[32];
	double x = PAD;
	int i;

	text_at(f, x, y + 11, NULL, NULL, "calls (log):");
	x += 13 * CH;
	text_at(f, x, y + 11, NULL, NULL, "1");
	x += 2 * CH;
	for (i = 0; i <= 10; i++) {
		uint64_t v = (uint64_t)llround(pow((double)top, i / 10.0));

		svg_heat_colour(v ? v : 1, top, col);
		fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"14\" fill=\"%s\"/>\n",
			x + i * 14, y, col);
	}
	x += 11 * 14 + 4;
	snprintf(num, sizeof(num), "%" PRIu64, top);
	text_at(f, x, y + 11, NULL, NULL, num);
	x += text_w(num) + 3 * CH;
	for (i = 0; i < (int)p->npcts; i++) {
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
			"stroke-width=\"2\"%s/>\n", x, y + 7, x + 24, y + 7, pct_colours[i],
			pct_dashes[i]);
		text_at(f, x + 28, y + 11, NULL, NULL, p->pcts[i].name);
		x += 28 + (strlen(p->pcts[i].name) + 2) * CH;
	}
}

static void draw_heat(FILE *f, const struct svg_doc *d, const struct panel *p,
		      const struct geom *g)
{
	double x0 = PAD + g->lw, ybot = TOP + (double)p->nrows * HEAT_H;
	uint64_t top = 0, total = 0, v;
	char col[8], line[160];
	size_t i, c;

	for (i = 0; i < p->nrows; i++)
		for (c = 0; c < p->rows[i].ncols; c++) {
			total += p->rows[i].cols[c];
			if (p->rows[i].cols[c] > top)
				top = p->rows[i].cols[c];
		}
	text_at(f, x0 - 8, TOP - 8, "end", " fill=\"#444\"", p->axis);
	for (i = 0; i < p->nrows; i++) {
		const struct brow *r = &p->rows[i];
		double y = ybot - (double)(i + 1) * HEAT_H;

		text_at(f, x0 - 8, y + 11, "end", NULL, r->label);
		for (c = 0; c < d->ncols; c++) {
			v = c < r->ncols ? r->cols[c] : 0;
			svg_heat_colour(v, top, col);
			fprintf(f, "<rect class=\"cell\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
				"height=\"%d\" fill=\"%s\" shape-rendering=\"crispEdges\"><title>", x0 + (double)c * g->cw, y,
				g->cw, HEAT_H, col);
			svg_escape(f, d->times[c]);
			fputs(", ", f);
			svg_escape(f, r->label);
			fprintf(f, ": %" PRIu64 "</title></rect>\n", v);
		}
	}
	fprintf(f, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
		"stroke=\"#999\"/>\n", x0, TOP, g->cw * (double)d->ncols, ybot - TOP);
	heat_lines(f, d, p, g, x0, ybot);
	/* each interval's time under its column (some, where they are narrow) */
	for (c = 0; c < d->ncols; c++) {
		double x = x0 + ((double)c + 0.5) * g->cw;

		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#444\"/>\n",
			x, ybot, x, ybot + ((int)c % g->every ? 2 : 4));
		if ((int)c % g->every)
			continue;
		fprintf(f, "<text class=\"time\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", x,
			ybot + 16);
		svg_escape(f, d->times[c]);
		if (c < p->pcap && p->cstats[c]) {
			fputs("<title>", f);
			svg_escape(f, p->cstats[c]);
			fputs("</title>", f);
		}
		fputs("</text>\n", f);
	}
	text_at(f, x0 + g->cw * (double)d->ncols + 6, ybot + 16, NULL, " fill=\"#444\"", "time");
	heat_legend(f, p, ybot + 28, top ? top : 1);
	snprintf(line, sizeof(line), "%zu interval%s, %" PRIu64 " calls in all", d->ncols,
		 d->ncols == 1 ? "" : "s", total);
	line_at(f, PAD, ybot + 66, NULL, line);
}

static void draw_panel(FILE *f, const struct svg_doc *d, const struct panel *p,
		       const struct geom *g, double y)
{
	fprintf(f, "<g class=\"panel\" transform=\"translate(0,%.1f)\">\n", y);
	title_at(f, p->title);
	if (p->kind == P_OVERLAY) {
		/* the rows below the verdict and legend, laid out as every other panel's */
		overlay_head(f, p);
		fprintf(f, "<g transform=\"translate(0,%d)\">\n", HEAD);
	}
	if (p->invalid || !p->nrows) {
		/* what the text says instead of rows */
		text_at(f, PAD, TOP - 4, NULL, NULL, p->invalid ? "(invalid histogram)" :
			p->kind == P_COUNT ? "(no rows)" : "(no events)");
	} else if (p->kind == P_BARS) {
		draw_bars(f, p, g);
	} else if (p->kind == P_COUNT) {
		draw_count(f, p, g);
	} else if (p->kind == P_OVERLAY) {
		draw_overlay(f, p, g);
	} else {
		draw_heat(f, d, p, g);
	}
	if (p->kind == P_OVERLAY)
		fputs("</g>\n", f);
	fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ccc\"/>\n", PAD,
		g->h - 1, g->w - PAD, g->h - 1);
	fputs("</g>\n", f);
}

/* What was left out, in words; "" when nothing was. */
static void notes(const struct svg_doc *d, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	if (d->dropped)
		n += snprintf(buf + n, len - n, "%zu more table%s left out (at most %d drawn). ",
			      d->dropped, d->dropped == 1 ? "" : "s", SVG_MAX_PANELS);
	if (d->cols_dropped && n < len)
		n += snprintf(buf + n, len - n, "%zu later interval%s left out (at most %d). ",
			      d->cols_dropped, d->cols_dropped == 1 ? "" : "s", SVG_MAX_COLUMNS);
	if (d->oom && n < len)
		snprintf(buf + n, len - n, "Out of memory: tables are missing.");
}

int svg_write(const struct svg_doc *d, FILE *f)
{
	struct geom g[SVG_MAX_PANELS];
	double w = 400, h = 8, y = 8;
	char note[256];
	size_t i;

	for (i = 0; i < d->np; i++) {
		geom_of(d, d->p[i], &g[i]);
		w = g[i].w > w ? g[i].w : w;
		h += g[i].h + 8;
	}
	notes(d, note, sizeof(note));
	if (note[0] || !d->np)
		h += 24;
	if ((double)text_chars(note) * CH + 2 * PAD > w)
		w = (double)text_chars(note) * CH + 2 * PAD;
	w = ceil(w);
	h = ceil(h);
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		"viewBox=\"0 0 %.0f %.0f\" font-family=\"monospace\" font-size=\"%d\">\n", w, h, w,
		h, FONT);
	fputs("<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n", f);
	for (i = 0; i < d->np; i++) {
		draw_panel(f, d, d->p[i], &g[i], y);
		y += g[i].h + 8;
	}
	if (!d->np)
		line_at(f, PAD, y + 14, NULL, "(no tables)");
	else if (note[0])
		line_at(f, PAD, y + 14, " fill=\"#b00000\"", note);
	fputs("</svg>\n", f);
	if (fflush(f) || ferror(f))
		return errno ? -errno : -EIO;
	return 0;
}

int svg_open(const char *path, FILE **out, char *msg, size_t len)
{
	struct stat st;
	int fd, err;

	*out = NULL;
	/* no O_TRUNC: a file is emptied when the picture is written, not by a run that failed;
	 * 0644: a picture is for a browser, which seldom runs as root as kptrace does */
	fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0644);
	if (fd < 0) {
		err = errno;
		snprintf(msg, len, "%s", err == ELOOP ? "it is a symbolic link (give the file's "
			 "real path)" : strerror(err));
		return -err;
	}
	if (fstat(fd, &st)) {
		err = errno;
		snprintf(msg, len, "%s", strerror(err));
		close(fd);
		return -err;
	}
	if (S_ISREG(st.st_mode) && st.st_nlink > 1) {
		snprintf(msg, len, "it has other hard links (a link planted to another file?)");
		close(fd);
		return -EPERM;
	}
	*out = fdopen(fd, "w");
	if (!*out) {
		err = errno;
		snprintf(msg, len, "%s", strerror(err));
		close(fd);
		return -err;
	}
	return 0;
}

int svg_rewind(FILE *f)
{
	struct stat st;

	if (!fstat(fileno(f), &st) && S_ISREG(st.st_mode) &&
	    (fseek(f, 0, SEEK_SET) || ftruncate(fileno(f), 0)))
		return -errno;
	errno = 0;
	return 0;
}

int svg_save(const struct svg_doc *d, FILE *f)
{
	int err = svg_rewind(f);

	return err ? err : svg_write(d, f);
}
