// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A table of rows over many probes: sorting, truncation and aligned text. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/table.h"

void table_init(struct table *t)
{
	memset(t, 0, sizeof(*t));
}

int table_col(struct table *t, const char *name, bool right, int min_width)
{
	if (t->ncols == TABLE_MAX_COLS)
		return -1;
	snprintf(t->name[t->ncols], sizeof(t->name[0]), "%s", name);
	t->right[t->ncols] = right;
	t->min_width[t->ncols] = min_width;
	return t->ncols++;
}

int table_add(struct table *t, uint64_t value, uint32_t probe, const struct kpt_key *key,
	      const char *const *cells)
{
	struct table_row *r;
	int i;

	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		struct table_row *nr = realloc(t->rows, cap * sizeof(*nr));

		if (!nr)
			return -ENOMEM;
		t->rows = nr;
		t->cap = cap;
	}
	r = &t->rows[t->n];
	memset(r, 0, sizeof(*r));
	r->value = value;
	r->probe = probe;
	if (key) {
		r->key = *key;
		r->has_key = true;
	}
	for (i = 0; i < t->ncols; i++) {
		r->cell[i] = strdup(cells[i] ? cells[i] : "");
		if (!r->cell[i]) {
			while (i--)
				free(r->cell[i]);
			return -ENOMEM;
		}
	}
	t->n++;
	return 0;
}

static int row_cmp(const void *a, const void *b)
{
	const struct table_row *x = a, *y = b;
	int c;

	if (x->value != y->value)
		return x->value > y->value ? -1 : 1;
	if (x->probe != y->probe)
		return x->probe < y->probe ? -1 : 1;
	if (x->has_key != y->has_key)
		return x->has_key ? -1 : 1;
	c = memcmp(x->key.w, y->key.w, sizeof(x->key.w));
	return c < 0 ? -1 : c > 0;
}

void table_sort(struct table *t)
{
	if (t->n > 1)
		qsort(t->rows, t->n, sizeof(*t->rows), row_cmp);
}

static void row_free(struct table_row *r, int ncols)
{
	int i;

	for (i = 0; i < ncols; i++)
		free(r->cell[i]);
}

void table_truncate(struct table *t, size_t n)
{
	while (t->n > n)
		row_free(&t->rows[--t->n], t->ncols);
}

/* One line: the cells padded to their column's width, two spaces apart, none trailing. */
static void print_line(const struct table *t, FILE *f, const char *const *cells, const int *w)
{
	int i, last = t->ncols - 1;

	/* empty cells at the end of a line pad nothing */
	while (last > 0 && !t->right[last] && !*cells[last])
		last--;
	for (i = 0; i <= last; i++) {
		if (i)
			fputs("  ", f);
		if (t->right[i])
			fprintf(f, "%*s", w[i], cells[i]);
		else if (i == last)
			fputs(cells[i], f);
		else
			fprintf(f, "%-*s", w[i], cells[i]);
	}
	fputc('\n', f);
}

void table_print(const struct table *t, FILE *f)
{
	table_print_each(t, f, NULL, NULL);
}

void table_print_each(const struct table *t, FILE *f,
		      void (*after)(const struct table_row *r, void *arg), void *arg)
{
	const char *hdr[TABLE_MAX_COLS];
	int w[TABLE_MAX_COLS], i, len;
	size_t j;

	for (i = 0; i < t->ncols; i++) {
		hdr[i] = t->name[i];
		w[i] = (int)strlen(t->name[i]);
		if (w[i] < t->min_width[i])
			w[i] = t->min_width[i];
		for (j = 0; j < t->n; j++) {
			len = (int)strlen(t->rows[j].cell[i]);
			if (len > w[i])
				w[i] = len;
		}
	}
	print_line(t, f, hdr, w);
	for (j = 0; j < t->n; j++) {
		print_line(t, f, (const char *const *)t->rows[j].cell, w);
		if (after)
			after(&t->rows[j], arg);
	}
}

void table_free(struct table *t)
{
	size_t j;

	for (j = 0; j < t->n; j++)
		row_free(&t->rows[j], t->ncols);
	free(t->rows);
	t->rows = NULL;
	t->n = t->cap = 0;
}
