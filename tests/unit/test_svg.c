// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * --svg's writer (src/util/svg.c) on made-up tables: XML escaping of any bytes,
 * a histogram panel's bars (one per non-empty row, "LABEL: COUNT" in its
 * <title>), a heatmap's cells (intervals x the rows from the lowest to the
 * highest non-empty one), a count table's value axis, the colour scale, the
 * caps on panels and intervals; kptrace diff's overlay (a bar per run per
 * non-empty row, "LABEL: A COUNT" and "LABEL: B COUNT", both runs'
 * percentiles, the legend's file names escaped) and svg_merge_rows() keeping
 * every count; and hist_rows() giving exactly hist_print()'s labels.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "agg/hist.h"
#include "util/svg.h"

static char *render(const struct svg_doc *d)
{
	char *buf = NULL;
	size_t sz;
	FILE *f = open_memstream(&buf, &sz);

	if (!f)
		exit(2);
	CHECK(svg_write(d, f) == 0, "svg_write");
	fclose(f);
	return buf;
}

static char *escaped(const char *s)
{
	char *buf = NULL;
	size_t sz;
	FILE *f = open_memstream(&buf, &sz);

	if (!f)
		exit(2);
	svg_escape(f, s);
	fclose(f);
	return buf;
}

static int count_of(const char *hay, const char *needle)
{
	int n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

static void test_escape(void)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
		{ "plain", "plain" },
		{ "<a&b\"c'd>", "&lt;a&amp;b&quot;c&apos;d&gt;" },
		{ "caf\xc3\xa9", "caf\xc3\xa9" },			/* UTF-8 kept */
		{ "\x01x\x7f", "&#xFFFD;x\x7f" },			/* a control byte XML has not */
		{ "a\xff" "b", "a&#xFFFD;b" },				/* not UTF-8 */
		{ "\xc0\xaf", "&#xFFFD;&#xFFFD;" },			/* overlong '/' */
		{ "\xed\xa0\x80", "&#xFFFD;&#xFFFD;&#xFFFD;" },	/* a surrogate */
		{ "\xef\xbf\xbe", "&#xFFFD;&#xFFFD;&#xFFFD;" },	/* U+FFFE */
		{ "\xe2\x82", "&#xFFFD;&#xFFFD;" },			/* cut short */
		{ "\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80" },		/* U+1F600 */
		{ "", "" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = escaped(cases[i].in);

		CHECK_STR(got, cases[i].want, cases[i].in);
		free(got);
	}
}

static void test_hist_panel(void)
{
	static const struct svg_row rows[] = {
		{ 2, "[2, 4)", 7, 2, 4 },
		{ 3, "[4, 8)", 0, 4, 8 },	/* an empty row between: a label, no bar */
		{ 4, "[8, 16)", 120, 8, 16 },
		{ 5, "[16, 32)", 3, 16, 32 },
	};
	static const struct svg_pct pcts[] = {
		{ "p50", 10, "10us" }, { "p90", 20, "20us" }, { "p99", 31, "31us" },
	};
	struct svg_hist h = {
		.title = "@n[<b&>]:", .axis = "latency (us)", .stats = "count 130, sum 1, avg 2",
		.rows = rows, .nrows = 4, .pcts = pcts, .npcts = 3,
	};
	struct svg_doc *d = svg_new(false);
	char *out;

	CHECK(d != NULL, "svg_new");
	CHECK_INT(svg_add_hist(d, &h), 0, "add");
	out = render(d);
	CHECK_INT(count_of(out, "class=\"panel\""), 1, "one panel");
	CHECK_INT(count_of(out, "class=\"bar\""), 3, "a bar per non-empty row");
	CHECK(strstr(out, "<title>[2, 4): 7</title>"), "[2, 4)'s tooltip");
	CHECK(strstr(out, "<title>[8, 16): 120</title>"), "[8, 16)'s tooltip");
	CHECK(strstr(out, ">[4, 8)</text>"), "the empty row's label");
	CHECK(!strstr(out, "[4, 8): 0"), "no bar for the empty row");
	CHECK(strstr(out, "@n[&lt;b&amp;&gt;]:"), "the title escaped");
	CHECK(strstr(out, ">count 130, sum 1, avg 2</text>"), "the stats line");
	CHECK_INT(count_of(out, "class=\"pct\""), 3, "p50, p90, p99 marked");
	CHECK(strstr(out, "p99 31us"), "p99's text");
	CHECK(strstr(out, "width=\"") && strstr(out, "viewBox=\"0 0 "), "a sized root");
	CHECK(!strstr(out, "<script") && !strstr(out, "xlink"), "no script, no link");
	free(out);
	svg_free(d);
}

/* Interval col: rows of counts c[] (0: not given, as a table without the row). */
static void heat_interval(struct svg_doc *d, const char *time, const uint64_t c[4])
{
	static const char *const labels[] = { "[1ms, 2ms)", "[2ms, 4ms)", "[4ms, 8ms)",
					      "[8ms, 16ms)" };
	struct svg_row rows[4];
	struct svg_pct pct = { "p50", 3e6, "3ms" };
	struct svg_hist h = { .title = "@kpt_sleep:", .axis = "latency (ms)", .rows = rows,
			      .pcts = &pct, .npcts = 1 };
	int i;

	CHECK_INT(svg_column(d, time), 0, time);
	for (i = 0; i < 4; i++) {
		if (!c[i] && !h.nrows)
			continue;	/* as hist_rows(): from the first non-empty row */
		rows[h.nrows] = (struct svg_row){ (uint32_t)(20 + i), labels[i], c[i],
						  1e6 * (1 << i), 2e6 * (1 << i) };
		h.nrows++;
	}
	CHECK_INT(svg_add_hist(d, &h), 0, time);
}

static void test_heat(void)
{
	static const uint64_t iv[][4] = {
		{ 5, 0, 1, 0 }, { 0, 0, 0, 0 }, { 0, 9, 0, 0 }, { 1, 0, 0, 0 }, { 2, 3, 4, 0 },
	};
	struct svg_doc *d = svg_new(true);
	char *out, t[16];
	size_t i, dropped;

	for (i = 0; i < 5; i++) {
		snprintf(t, sizeof(t), "10:00:0%zu", i);
		heat_interval(d, t, iv[i]);
	}
	CHECK_INT(svg_columns(d), 5, "columns");
	CHECK_INT(svg_panels(d, &dropped), 1, "one panel per title");
	out = render(d);
	/* the rows: [1ms, 2ms), [2ms, 4ms), [4ms, 8ms) (non-empty somewhere), not [8ms, 16ms) */
	CHECK_INT(count_of(out, "class=\"cell\""), 5 * 3, "intervals x rows");
	CHECK(!strstr(out, "[8ms, 16ms)"), "a row empty everywhere left out");
	CHECK(strstr(out, "<title>10:00:02, [2ms, 4ms): 9</title>"), "a cell's tooltip");
	CHECK(strstr(out, "<title>10:00:01, [1ms, 2ms): 0</title>"), "an empty interval's cell");
	CHECK(strstr(out, "fill=\"#ffffff\" shape-rendering=\"crispEdges\"><title>10:00:01"),
	      "an empty cell is white");
	CHECK_INT(count_of(out, "class=\"time\""), 3, "time labels (every other column)");
	/* p50 in every interval with events: two lines, broken by the empty one */
	CHECK_INT(count_of(out, "class=\"pct\""), 2, "p50 broken where no events");
	free(out);
	svg_free(d);
}

/*
 * Rows continuous from the lowest to the highest non-empty bucket: the empty
 * ones an interval gives between its own, and those between two intervals'
 * that only the layout (span) names.
 */
static void test_heat_gap(void)
{
	static const struct svg_row span[] = {
		{ 20, "[1ms, 2ms)", 0, 1e6, 2e6 }, { 21, "[2ms, 4ms)", 0, 2e6, 4e6 },
		{ 22, "[4ms, 8ms)", 0, 4e6, 8e6 }, { 23, "[8ms, 16ms)", 0, 8e6, 16e6 },
		{ 24, "[16ms, 32ms)", 0, 16e6, 32e6 },
	};
	struct svg_row lo = span[0], hi = span[3], both[3] = { span[0], span[1], span[2] };
	struct svg_hist h = { .title = "@x:", .axis = "latency (ms)", .nrows = 1 };
	struct svg_doc *d = svg_new(true);
	char *out;

	lo.count = 4;
	hi.count = 2;
	svg_column(d, "10:00:00");
	h.rows = &lo;
	CHECK_INT(svg_add_hist(d, &h), 0, "low");
	svg_column(d, "10:00:01");
	h.rows = &hi;
	h.span = span;
	h.nspan = 5;
	CHECK_INT(svg_add_hist(d, &h), 0, "high, with the layout's rows");
	out = render(d);
	CHECK_INT(count_of(out, "class=\"cell\""), 2 * 4, "2 intervals x [1ms, 16ms)'s 4 rows");
	CHECK(strstr(out, "<title>10:00:00, [4ms, 8ms): 0</title>"), "a row between, empty");
	CHECK(!strstr(out, "[16ms, 32ms)"), "not past the highest non-empty row");
	free(out);
	svg_free(d);

	/* without a layout: an interval's own empty rows between its non-empty ones */
	d = svg_new(true);
	both[0].count = 1;
	both[2].count = 3;
	h = (struct svg_hist){ .title = "@x:", .axis = "latency (ms)", .rows = both, .nrows = 3 };
	svg_column(d, "10:00:00");
	CHECK_INT(svg_add_hist(d, &h), 0, "add");
	out = render(d);
	CHECK_INT(count_of(out, "class=\"cell\""), 3, "the empty row between kept");
	CHECK(strstr(out, "<title>10:00:00, [2ms, 4ms): 0</title>"), "its cell");
	free(out);
	svg_free(d);
}

static double luminance(const char *hex)
{
	unsigned int r, g, b;

	if (sscanf(hex, "#%2x%2x%2x", &r, &g, &b) != 3)
		return -1;
	return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

static void test_colours(void)
{
	char col[8], prev[8];
	uint64_t c, maxes[] = { 1, 2, 10, 1000, 1u << 31 };
	size_t m;
	bool mono;

	svg_heat_colour(0, 100, col);
	CHECK_STR(col, "#ffffff", "no calls: white");
	for (m = 0; m < sizeof(maxes) / sizeof(maxes[0]); m++) {
		uint64_t max = maxes[m];

		mono = true;
		svg_heat_colour(1, max, prev);
		CHECK(strcmp(prev, "#ffffff") != 0, "1 call of %llu is not white",
		      (unsigned long long)max);
		for (c = 2; c <= max; c = c < 2000 ? c + 1 : c * 3 / 2) {
			svg_heat_colour(c, max, col);
			if (luminance(col) > luminance(prev))
				mono = false;
			strcpy(prev, col);
		}
		CHECK(mono, "darker for more calls, max %llu", (unsigned long long)max);
		svg_heat_colour(max, max, col);
		CHECK_STR(col, "#800026", "the largest is the darkest");
	}
	svg_heat_colour(1, 1000, prev);
	svg_heat_colour(1000, 1000, col);
	CHECK(luminance(prev) - luminance(col) > 150, "a range to see: %s to %s", prev, col);
}

static void test_bounds(void)
{
	static const struct svg_row row = { 1, "[1]", 4, 1, 2 };
	struct svg_hist h = { .title = "@x:", .axis = "x", .stats = "", .rows = &row, .nrows = 1 };
	struct svg_doc *d = svg_new(false), *hd = svg_new(true);
	char title[32], *out;
	size_t dropped, i;

	for (i = 0; i < SVG_MAX_PANELS + 6; i++)
		CHECK_INT(svg_add_hist(d, &h), 0, "add");
	CHECK_INT(svg_panels(d, &dropped), SVG_MAX_PANELS, "panels drawn");
	CHECK_INT(dropped, 6, "panels left out");
	out = render(d);
	CHECK_INT(count_of(out, "class=\"panel\""), SVG_MAX_PANELS, "panels in the picture");
	CHECK(strstr(out, "6 more tables left out (at most 64 drawn)"), "says so");
	free(out);
	svg_free(d);

	/* a heat map's keys past the cap, each counted once over the intervals */
	for (i = 0; i < 3; i++) {
		size_t k;

		svg_column(hd, "12:00:00");
		for (k = 0; k < SVG_MAX_PANELS + 2; k++) {
			snprintf(title, sizeof(title), "@x[%zu]:", k);
			h.title = title;
			svg_add_hist(hd, &h);
		}
	}
	CHECK_INT(svg_panels(hd, &dropped), SVG_MAX_PANELS, "heat panels drawn");
	CHECK_INT(dropped, 2, "heat keys left out, once each");
	for (i = 3; i < SVG_MAX_COLUMNS + 5; i++)
		svg_column(hd, "12:00:01");
	CHECK_INT(svg_columns(hd), SVG_MAX_COLUMNS, "intervals kept");
	out = render(hd);
	CHECK(strstr(out, "5 later intervals left out"), "says so");
	free(out);
	svg_free(hd);
}

static void test_count_panel(void)
{
	static const struct svg_count_row rows[] = {
		{ "bash", 100, "100" }, { "a<&\"b", 50, "50" }, { "x\xff", 1, "1" },
	};
	struct svg_count t = { .title = "raw_syscalls/sys_enter:", .keys = "comm",
			       .value_name = "COUNT", .rows = rows, .nrows = 3 };
	struct svg_doc *d = svg_new(false);
	char *out;

	CHECK_INT(svg_add_count(d, &t), 0, "add");
	out = render(d);
	CHECK_INT(count_of(out, "class=\"bar\""), 3, "a bar per row");
	CHECK(strstr(out, "<title>a&lt;&amp;&quot;b: 50</title>"), "a comm escaped");
	CHECK(strstr(out, "<title>x&#xFFFD;: 1</title>"), "a byte replaced");
	CHECK(strstr(out, "width=\"480.0\""), "the largest row the longest bar");
	/* the value axis: 0, 50, 100 under 100 the longest */
	CHECK_INT(count_of(out, "class=\"tick\""), 3, "three ticks up to 100");
	CHECK(strstr(out, "class=\"tick\" fill=\"#444\">100</text>"), "the last tick 100");
	free(out);
	svg_free(d);
}

/* The counts in the tooltips of run's bars ("bar a" or "bar b"): their sum, *n how many. */
static uint64_t bar_sum(const char *svg, char run, int *n)
{
	char cls[16], tip[8];
	uint64_t sum = 0;
	const char *p, *t;

	snprintf(cls, sizeof(cls), "class=\"bar %c\"", run);
	snprintf(tip, sizeof(tip), ": %c ", run - 'a' + 'A');
	*n = 0;
	for (p = svg; (p = strstr(p, cls)); p += strlen(cls)) {
		t = strstr(p, "<title>");
		t = t ? strstr(t, tip) : NULL;
		if (!t || t > strstr(p, "</title>"))
			return UINT64_MAX;
		sum += strtoull(t + strlen(tip), NULL, 10);
		(*n)++;
	}
	return sum;
}

/* The picture of one overlay panel (exits without memory: the test's own trouble). */
static char *overlay_out(const struct svg_overlay *o)
{
	struct svg_doc *d = svg_new(false);
	char *out;

	if (!d)
		exit(2);
	CHECK_INT(svg_add_overlay(d, o), 0, o->title);
	out = render(d);
	svg_free(d);
	return out;
}

static void test_overlay_panel(void)
{
	static const struct svg_orow rows[] = {
		{ "[2, 4)", 7, 0, 2, 4, NULL },		/* A only */
		{ "[4, 8)", 0, 0, 4, 8, NULL },		/* neither: a label, no bar */
		{ "[8, 16)", 120, 90, 8, 16, NULL },
		{ "[16, 32)", 0, 3, 16, 32, NULL },	/* B only */
	};
	static const struct svg_pct pa[] = {
		{ "p50", 10, "10" }, { "p90", 14, "14" }, { "p99", 15, "15" },
	};
	static const struct svg_pct pb[] = {
		{ "p50", 11, "11" }, { "p90", 15, "15" }, { "p99", 20, "20" },
	};
	struct svg_overlay o = {
		.title = "hist g/e x=<1>", .verdict = "DIFFERS", .detail = "P 1.0e-05, D 0.250",
		.differs = true, .axis = "value", .rows = rows, .nrows = 4, .pcts_a = pa,
		.npcts_a = 3, .pcts_b = pb, .npcts_b = 3, .name_a = "/tmp/a<&>.json",
		.name_b = "b\"'.json",
	};
	char *out = overlay_out(&o);
	int n;

	CHECK_INT(count_of(out, "class=\"panel\""), 1, "one panel");
	CHECK_INT(bar_sum(out, 'a', &n), 127, "A's bars add up to A's rows");
	CHECK_INT(n, 2, "a bar a per row A counted in");
	CHECK_INT(bar_sum(out, 'b', &n), 93, "B's bars add up to B's rows");
	CHECK_INT(n, 2, "a bar b per row B counted in");
	CHECK(strstr(out, "<title>[2, 4): A 7</title>"), "[2, 4)'s A tooltip");
	CHECK(strstr(out, "<title>[8, 16): A 120</title>"), "[8, 16)'s A tooltip");
	CHECK(strstr(out, "<title>[8, 16): B 90</title>"), "[8, 16)'s B tooltip");
	CHECK(strstr(out, "<title>[16, 32): B 3</title>"), "[16, 32)'s B tooltip");
	CHECK(!strstr(out, ": A 0<") && !strstr(out, ": B 0<"), "no bar of 0");
	CHECK(strstr(out, ">[4, 8)</text>"), "the empty row's label");
	CHECK(strstr(out, ">120 / 90</text>"), "both counts after the bars");
	CHECK_INT(count_of(out, "class=\"pct\""), 6, "p50, p90, p99 of each run");
	CHECK(strstr(out, "A p99 15</title>") && strstr(out, "B p50 11</title>"), "the runs' names");
	CHECK(strstr(out, "class=\"verdict\" font-weight=\"bold\" fill=\"#b00000\">DIFFERS<"),
	      "the verdict, red");
	CHECK(strstr(out, ">P 1.0e-05, D 0.250</text>"), "P beside it");
	CHECK(strstr(out, ">/tmp/a&lt;&amp;&gt;.json</text>"), "A's file escaped");
	CHECK(strstr(out, ">b&quot;&apos;.json</text>"), "B's file escaped");
	CHECK(strstr(out, "x=&lt;1&gt;"), "the title escaped");
	CHECK(!strstr(out, "class=\"bar\""), "no bar of one run only");
	free(out);
}

static void test_overlay_count(void)
{
	static const struct svg_orow rows[] = {
		{ "comm=bash", 100, 200, 0, 0, "DIFFERS  P 1.0e-10" },
		{ "comm=a<b", 0, 4, 0, 0, "(only in B)  P 0.125" },
	};
	struct svg_overlay o = { .title = "count g/e", .verdict = "same", .axis = "key",
				 .rows = rows, .nrows = 2, .name_a = "a", .name_b = "b" };
	char *out = overlay_out(&o);
	int n;

	CHECK_INT(bar_sum(out, 'a', &n), 100, "A's keys");
	CHECK_INT(n, 1, "no A bar for a key of B only");
	CHECK_INT(bar_sum(out, 'b', &n), 204, "B's keys");
	CHECK(strstr(out, "<title>comm=a&lt;b: B 4</title>"), "a key escaped");
	CHECK(strstr(out, ">DIFFERS  P 1.0e-10</text>"), "a key's verdict");
	CHECK(strstr(out, "class=\"verdict\" font-weight=\"bold\">same<"), "same, not red");
	CHECK(!strstr(out, "class=\"pct\""), "no percentiles");
	free(out);
}

static void test_merge_rows(void)
{
	struct svg_orow rows[200], few[3] = {
		{ "x", 1, 2, 0, 1, NULL }, { "y", 3, 4, 1, 2, NULL }, { "z", 5, 6, 2, 3, "n" },
	};
	uint64_t ta = 0, tb = 0, ma = 0, mb = 0;
	struct svg_overlay o = { .title = "t", .axis = "v", .rows = rows, .name_a = "a",
				 .name_b = "b" };
	size_t i, n;
	bool edges = true, unlabelled = true;
	char lab[48][16], *out;
	int nb;

	for (i = 0; i < 200; i++) {
		rows[i] = (struct svg_orow){ "r", i % 7, (i * 3) % 5 + (i == 199) * 1000, (double)i,
					     i + 1.0, NULL };
		ta += rows[i].a;
		tb += rows[i].b;
	}
	n = svg_merge_rows(rows, 200, SVG_MAX_OROWS);
	CHECK(n <= SVG_MAX_OROWS && n >= SVG_MAX_OROWS / 2, "200 rows into %zu", n);
	for (i = 0; i < n; i++) {
		ma += rows[i].a;
		mb += rows[i].b;
		edges &= i + 1 == n || rows[i].hi == rows[i + 1].lo;
		unlabelled &= !rows[i].label && !rows[i].note;
	}
	CHECK_INT(ma, ta, "A's total kept");
	CHECK_INT(mb, tb, "B's total kept");
	CHECK(edges && rows[0].lo == 0 && rows[n - 1].hi == 200, "the rows still tile [0, 200)");
	CHECK(unlabelled, "merged rows are the caller's to label");
	CHECK(rows[n - 1].b >= 1000, "the last row's 1000 in the last merged row");
	/* drawn: the bars' tooltips add up to the totals */
	for (i = 0; i < n; i++) {
		snprintf(lab[i], sizeof(lab[i]), "[%.0f, %.0f)", rows[i].lo, rows[i].hi);
		rows[i].label = lab[i];
	}
	o.nrows = n;
	out = overlay_out(&o);
	CHECK_INT(bar_sum(out, 'a', &nb), ta, "A's bars after merging");
	CHECK_INT(bar_sum(out, 'b', &nb), tb, "B's bars after merging");
	free(out);
	CHECK_INT(svg_merge_rows(few, 3, SVG_MAX_OROWS), 3, "few rows: left alone");
	CHECK(few[2].label && !strcmp(few[2].label, "z") && few[2].note, "their labels kept");
	CHECK_INT(svg_merge_rows(few, 3, 2), 2, "3 rows into 2");
	CHECK(few[0].a == 4 && few[0].b == 6 && few[0].hi == 2 && few[1].a == 5, "2 + 1");
}

struct rows_seen {
	char labels[16][HIST_LABEL_MAX];
	uint64_t counts[16];
	int n;
};

static void seen(void *arg, const struct hist_row *r)
{
	struct rows_seen *s = arg;

	if (s->n < 16) {
		strcpy(s->labels[s->n], r->label);
		s->counts[s->n] = r->count;
	}
	s->n++;
}

/* hist_rows(): the text's rows, label for label (the text is the reference). */
static void test_hist_rows(void)
{
	uint64_t counts[KPT_LOG2_BUCKETS] = { 0 };
	struct hist_view h = { .kind = KPT_H_LOG2, .nbuckets = KPT_LOG2_BUCKETS,
			       .counts = counts, .stats = { .count = 11, .sum = 5000, .max = 2000 } };
	struct rows_seen s = { .n = 0 };
	char *text = NULL, line[256], stats[256];
	size_t sz;
	FILE *f = open_memstream(&text, &sz);
	int i = 0, n;

	counts[3] = 4;		/* [4, 8) */
	counts[11] = 7;		/* [1K, 2K) */
	hist_print(f, NULL, &h);
	fclose(f);
	n = hist_rows(&h, seen, &s);
	CHECK_INT(n, 9, "rows from [4, 8) to [1K, 2K)");
	CHECK_INT(s.n, 9, "calls");
	f = fmemopen(text, strlen(text), "r");
	while (f && fgets(line, sizeof(line), f) && strchr(line, '|')) {
		char want[HIST_LABEL_MAX + 32];

		if (i == s.n)
			break;
		snprintf(want, sizeof(want), "%s ", s.labels[i]);
		CHECK(!strncmp(line, want, strlen(want)), "row %d: '%s' in '%s'", i, s.labels[i],
		      line);
		CHECK(strtoull(line + 16, NULL, 10) == s.counts[i], "row %d's count", i);
		i++;
	}
	CHECK_INT(i, 9, "text rows");
	CHECK_STR(s.labels[8], "[1K, 2K)", "the K label");
	/* the line the loop stopped at: the stats */
	line[strcspn(line, "\n")] = '\0';
	hist_stats_line(&h, stats, sizeof(stats));
	CHECK_STR(stats, line, "hist_stats_line() is the text's");
	if (f)
		fclose(f);
	free(text);
	h.kind = (enum kpt_hist_kind)99;
	CHECK_INT(hist_rows(&h, seen, &s), -22, "a bad view");
}

int main(void)
{
	test_escape();
	test_hist_panel();
	test_heat();
	test_heat_gap();
	test_colours();
	test_bounds();
	test_count_panel();
	test_overlay_panel();
	test_overlay_count();
	test_merge_rows();
	test_hist_rows();
	return check_report();
}
