/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * --svg FILE: the tables a run prints, drawn as one self-contained SVG
 * picture (no script, no external reference, generic fonts), panels stacked
 * top to bottom. The model takes plain data, text included as the text
 * output prints it, so the picture says what the terminal says:
 *
 *	histogram	one row per text row (label on the left, as hist_print()
 *			labels it), a bar per non-empty row with its count at its
 *			end and in its <title> ("LABEL: COUNT"), a count axis, the
 *			stats line; p50/p90/p99 as lines across the rows, named
 *			with their value (latency's) or row (another histogram's)
 *	heatmap		(an interval run's histograms, svg_new(true)) one column
 *			per interval, one row per bucket from the lowest to the
 *			highest non-empty in any of them (the empty ones between
 *			too), lowest at the bottom; a cell's colour the log of its count
 *			(light yellow to dark red, white for none), each a <rect>
 *			with "TIME, LABEL: COUNT"; p50/p90/p99 per interval as
 *			polylines; a panel per title (key)
 *	count		a horizontal bar per table row, its key columns' text on
 *			the left, its value at the end, a value axis under them
 *	overlay		(kptrace diff) two runs of one table: under the title the
 *			verdict line and a legend naming both files, then per row
 *			an A bar over a B bar ("bar a", "bar b", each non-empty
 *			one with "LABEL: A COUNT" / "LABEL: B COUNT" in its
 *			<title>), "A / B" after them, the row's note (a count
 *			table's verdict per key); both runs' p50/p90/p99 as lines
 *
 * At most SVG_MAX_PANELS panels and SVG_MAX_COLUMNS intervals are drawn; the
 * picture says how many were left out. Elements the tests look for carry a
 * class: "panel" (a <g>), "bar" ("bar a", "bar b" in an overlay), "cell", "pct" (a
 * percentile's line), "verdict", "tick" (a count axis's number).
 */
#ifndef KPT_SVG_H
#define KPT_SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define SVG_MAX_PANELS	64
#define SVG_MAX_COLUMNS	1000
#define SVG_MAX_PCTS	3
#define SVG_MAX_OROWS	48	/* an overlay's bucket rows, after svg_merge_rows() */

struct svg_doc;

/* A histogram's row: as hist.h's struct hist_row, its label borrowed. */
struct svg_row {
	uint32_t index;		/* the bucket's place: the same row in every interval */
	const char *label;
	uint64_t count;
	double lo, hi;		/* [lo, hi), raw units: where a percentile falls in the row */
};

struct svg_pct {
	const char *name;	/* "p50" */
	double value;		/* raw units, as the rows' lo and hi */
	const char *text;	/* "2113.536us" */
};

/* One histogram as the text prints it; every pointer borrowed for the call. */
struct svg_hist {
	const char *title;	/* "@n:", "@kpt_sleep[ta]:" */
	const char *axis;	/* the bucketed quantity and its unit: "n", "latency (us)" */
	const char *stats;	/* "count N, sum S, avg A, min M, max X", or NULL */
	const struct svg_row *rows;
	size_t nrows;
	const struct svg_pct *pcts;	/* p50, p90, p99 (none without events) */
	size_t npcts;
	bool invalid;		/* the text says "(invalid histogram)" */
	/* heat: every row the histogram's layout has (counts unused), to label
	 * the rows between intervals' buckets; NULL: rows' own rows only */
	const struct svg_row *span;
	size_t nspan;
};

struct svg_count_row {
	const char *label;	/* the key columns' text, as printed */
	uint64_t value;		/* the bar's length */
	const char *text;	/* the value as printed */
};

/* One count table, after --top. */
struct svg_count {
	const char *title;	/* "raw_syscalls/sys_enter:", or the columns' names */
	const char *keys;	/* the key columns' names, "comm" */
	const char *value_name;	/* "COUNT", or --sort's column */
	const struct svg_count_row *rows;
	size_t nrows;
};

/* An overlay's row: one bucket (or a count table's key) of both runs. */
struct svg_orow {
	const char *label;
	uint64_t a, b;		/* run A's count, run B's */
	double lo, hi;		/* [lo, hi), raw units, as svg_row's; 0 in a count table */
	const char *note;	/* after the counts (a count table's verdict and P), or NULL */
};

/* Two runs of one table drawn over each other; every pointer borrowed for the call. */
struct svg_overlay {
	const char *title;	/* "latency latency/f_ret (all)" */
	const char *verdict;	/* "DIFFERS", "same" */
	const char *detail;	/* beside it: "P 1.2e-10, D 0.433" */
	bool differs;		/* the verdict in red */
	const char *axis;	/* the rows' quantity: "latency", "key" */
	const struct svg_orow *rows;
	size_t nrows;		/* buckets: at most SVG_MAX_OROWS, as svg_merge_rows() leaves them */
	const struct svg_pct *pcts_a, *pcts_b;	/* each run's p50, p90, p99, as svg_hist's */
	size_t npcts_a, npcts_b;
	const char *name_a, *name_b;	/* the legend: the two files */
	const uint8_t *lacks;	/* per row or NULL: SVG_NO_A, SVG_NO_B, the run without the key */
};

/* A row's key missing from run A (B): its count shown as "-", as diff's text. */
#define SVG_NO_A	1
#define SVG_NO_B	2

/* A picture of bar charts, or with heat true one of heatmaps (-i). NULL: no memory. */
struct svg_doc *svg_new(bool heat);
void svg_free(struct svg_doc *d);
/* -i: the tables added from now on are interval time's (its "HH:MM:SS"). */
int svg_column(struct svg_doc *d, const char *time);
/* The data is copied. 0, or -ENOMEM. */
int svg_add_hist(struct svg_doc *d, const struct svg_hist *h);
int svg_add_count(struct svg_doc *d, const struct svg_count *t);
int svg_add_overlay(struct svg_doc *d, const struct svg_overlay *o);
/*
 * rows[0..n) (consecutive buckets, by lo) merged in place into at most max:
 * runs of equally many rows, counts summed, lo of the first, hi of the last.
 * When it merges, every label and note is NULL (the caller labels the rows
 * from lo and hi). The rows' new number.
 */
size_t svg_merge_rows(struct svg_orow *rows, size_t n, size_t max);
/* The picture; 0, or -errno when writing failed. */
int svg_write(const struct svg_doc *d, FILE *f);
/*
 * --svg's file, opened before the run attaches anything so that a path that
 * cannot be written is said at once: not through a symbolic link, not a file
 * with other hard links. 0, or -errno with why in msg.
 */
int svg_open(const char *path, FILE **out, char *msg, size_t len);
/* The picture into svg_open()'s file, emptied first; 0 or -errno. */
int svg_save(const struct svg_doc *d, FILE *f);
/* svg_open()'s file emptied (a regular file), for a picture of its own; 0 or -errno. */
int svg_rewind(FILE *f);

/* What the model holds, for its tests: panels drawn and left out, intervals kept. */
size_t svg_panels(const struct svg_doc *d, size_t *dropped);
size_t svg_columns(const struct svg_doc *d);

/* s as XML character data or attribute text: <>&"' escaped, bytes XML cannot hold replaced. */
void svg_escape(FILE *f, const char *s);
/* The heat colour of count in a panel whose largest cell is max: "#rrggbb". */
void svg_heat_colour(uint64_t count, uint64_t max, char buf[8]);

#endif /* KPT_SVG_H */
