/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the files of kptrace diff share, for them only: stats.c, rows.c,
 * compare.c, report.c, picture.c and diff.c (the command). It only declares
 * (each function's comment is at its definition) and includes none of
 * theirs, diff.h's types named by pointer: every file includes it, and none
 * includes another's.
 */
#ifndef KPT_DIFF_INTERNAL_H
#define KPT_DIFF_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct diff_bucket;
struct diff_row;
struct diff_file;

#define SEP		"\x1f"	/* between an id's parts: below every printable character */
#define KEY_SHOW_MAX	60	/* a key's text in the table, cut past this */
#define SHIFT_TAIL	100	/* events above a quantile in both runs for its move to count */
#define SHIFT_TAIL_S	"100"
#define SHIFT_TAIL_JUMP	10	/* fewer events above a quantile: it never counts */
#define TAIL_JUMP	4	/* between those: a move of this factor beyond the intervals counts */

struct opts {
	double threshold;	/* p below this: significant */
	double min_shift;	/* and a shift of at least this (a fraction): different */
	bool json;
	const char *svg;	/* --svg's file, or NULL */
};

enum { Q50, Q90, Q99, QMAX, NQ };

extern const char *const diff_q_name[NQ];	/* "p50" ... "max" */
extern const char *const diff_kind_name[];	/* by enum diff_kind */

/* One key's comparison. a or b is NULL for a key in one run only. */
struct result {
	const struct diff_row *a, *b;
	bool fine;			/* tested on fine buckets */
	bool qok[2][NQ];
	double q[2][NQ];
	double d, p, shift;		/* d < 0: no KS (a count test) */
	double p_count;			/* a hist's or latency's count: the binomial test's p */
	bool count_moved;		/* ... significant and moved by --min-shift */
	bool tail_jump;			/* p90 or p99 on a thin tail moved by TAIL_JUMP */
	bool significant, differs;
};

/* stats.c */
uint64_t diff_bucket_total(const struct diff_bucket *b, size_t n);

/* rows.c */
int diff_bucket_cmp(const void *x, const void *y);
bool diff_fine_ok(const struct diff_row *r);

/* compare.c */
bool diff_same_sect(const char *x, const char *y);
bool diff_any_common(const struct diff_file *a, const struct diff_file *b);
int diff_compare_all(const struct diff_file *a, const struct diff_file *b, const struct opts *o,
		     struct result **out, size_t *nout);
const struct diff_row *diff_res_row(const struct result *r);
size_t diff_sect_end(const struct result *r, size_t i, size_t n);
int diff_res_cmp(const void *x, const void *y);

/* report.c */
void diff_fmt_value(char *buf, size_t len, double v, bool ns);
void diff_fmt_p(char *buf, size_t len, double p);
void diff_key_text(const struct diff_row *r, char *buf, size_t len);
const char *diff_verdict(const struct result *r);
int diff_print_json(FILE *out, const struct result *r, size_t n);
int diff_print_text(FILE *out, const struct diff_file *a, const struct diff_file *b,
		    const struct result *r, size_t n, const struct opts *o);

/* picture.c */
int diff_picture(FILE *f, const struct diff_file *a, const struct diff_file *b,
		 const struct result *r, size_t n);

#endif /* KPT_DIFF_INTERNAL_H */
