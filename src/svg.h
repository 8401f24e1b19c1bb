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
 *			stats line; p50/p90/p99 as lines across the rows
 *	heatmap		(an interval run's histograms, svg_new(true)) one column
 *			per interval, one row per bucket non-empty in any of them,
 *			lowest at the bottom; a cell's colour the log of its count
 *			(light yellow to dark red, white for none), each a <rect>
 *			with "TIME, LABEL: COUNT"; p50/p90/p99 per interval as
 *			polylines; a panel per title (key)
 *	count		a horizontal bar per table row, its key columns' text on
 *			the left, its value at the end
 *
 * At most SVG_MAX_PANELS panels and SVG_MAX_COLUMNS intervals are drawn; the
 * picture says how many were left out. Elements the tests look for carry a
 * class: "panel" (a <g>), "bar", "cell", "pct" (a percentile's line).
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
	const struct svg_pct *pcts;	/* latency's p50, p90, p99; npcts 0 for others */
	size_t npcts;
	bool invalid;		/* the text says "(invalid histogram)" */
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

/* A picture of bar charts, or with heat true one of heatmaps (-i). NULL: no memory. */
struct svg_doc *svg_new(bool heat);
void svg_free(struct svg_doc *d);
/* -i: the tables added from now on are interval time's (its "HH:MM:SS"). */
int svg_column(struct svg_doc *d, const char *time);
/* The data is copied. 0, or -ENOMEM. */
int svg_add_hist(struct svg_doc *d, const struct svg_hist *h);
int svg_add_count(struct svg_doc *d, const struct svg_count *t);
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

/* What the model holds, for its tests: panels drawn and left out, intervals kept. */
size_t svg_panels(const struct svg_doc *d, size_t *dropped);
size_t svg_columns(const struct svg_doc *d);

/* s as XML character data or attribute text: <>&"' escaped, bytes XML cannot hold replaced. */
void svg_escape(FILE *f, const char *s);
/* The heat colour of count in a panel whose largest cell is max: "#rrggbb". */
void svg_heat_colour(uint64_t count, uint64_t max, char buf[8]);

#endif /* KPT_SVG_H */
