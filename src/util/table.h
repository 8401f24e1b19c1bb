/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One table of rows over many probes: each row a probe, its key as counted
 * (struct kpt_key) and its cells as text, one per column, with the value it
 * sorts by. count builds one for all its probes (sorted by count, --top over
 * the whole of it); printing pads every column to its widest cell, numbers
 * right-aligned, so the rows align however many probes there are.
 *
 *	       COUNT  probe                         comm
 *	           8  uprobes/p_values_kpt_cnt_8_0  values_target
 */
#ifndef KPT_TABLE_H
#define KPT_TABLE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "kptrace.h"

#define TABLE_MAX_COLS	(KPT_MAX_KEYS + 6)	/* the count, 4 statistics, the probe, the keys */

struct table_row {
	uint64_t value;			/* what the rows sort by, largest first */
	uint32_t probe;			/* the row's probe (its group's first index) */
	bool has_key;			/* key holds what was counted (not a row of zero) */
	struct kpt_key key;
	struct kpt_aggval agg;		/* what was counted (its count, and --sum's value) */
	char *cell[TABLE_MAX_COLS];	/* ncols cells of text */
};

struct table {
	int ncols;
	char name[TABLE_MAX_COLS][32];	/* column headers */
	int min_width[TABLE_MAX_COLS];	/* a column at least this wide (0: its widest cell) */
	bool right[TABLE_MAX_COLS];	/* right-aligned (numbers) */
	struct table_row *rows;
	size_t n, cap;
};

/* An empty table; columns come with table_col(). */
void table_init(struct table *t);
/* Add a column; returns its index, or -1 past TABLE_MAX_COLS. */
int table_col(struct table *t, const char *name, bool right, int min_width);
/* Add a row of t->ncols cells (copied); key may be NULL. 0 or -ENOMEM. */
int table_add(struct table *t, uint64_t value, uint32_t probe, const struct kpt_key *key,
	      const char *const *cells);
/* Largest value first; ties by probe, then key, so the order is stable across runs. */
void table_sort(struct table *t);
/* Keep the first n rows (n > 0). */
void table_truncate(struct table *t, size_t n);
/* The header and the rows, each column padded to its widest cell. */
void table_print(const struct table *t, FILE *f);
/* The same, after(row, arg) called after each row's line (its stacks, under it). */
void table_print_each(const struct table *t, FILE *f,
		      void (*after)(const struct table_row *r, void *arg), void *arg);
void table_free(struct table *t);

#endif /* KPT_TABLE_H */
