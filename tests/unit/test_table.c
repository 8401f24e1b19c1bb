// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The table of rows over many probes (src/util/table.c): sorted by value, largest
 * first, ties by probe then key; --top as a truncation of the whole table;
 * every column padded to its widest cell, numbers right-aligned, nothing
 * trailing. Expected text written out by hand.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "util/table.h"

static char *print(const struct table *t)
{
	char *buf = NULL;
	size_t sz;
	FILE *f = open_memstream(&buf, &sz);

	if (!f)
		exit(2);
	table_print(t, f);
	fclose(f);
	return buf;
}

static void add(struct table *t, uint64_t v, uint32_t probe, uint64_t kw, const char *a,
		const char *b)
{
	struct kpt_key k = { .probe = probe, .w = { kw } };
	char num[24];
	const char *cells[3] = { num, a, b };

	snprintf(num, sizeof(num), "%llu", (unsigned long long)v);
	CHECK(table_add(t, v, probe, kw ? &k : NULL, cells) == 0, "add %llu",
	      (unsigned long long)v);
}

static void test_sort_align(void)
{
	struct table t;
	char *s;

	table_init(&t);
	CHECK(table_col(&t, "COUNT", true, 12) == 0, "col 0");
	CHECK(table_col(&t, "probe", false, 0) == 1, "col 1");
	CHECK(table_col(&t, "comm", false, 0) == 2, "col 2");
	/* in probe order, as the maps give them */
	add(&t, 1, 0, 1, "uprobes/p_a_0", "sh");
	add(&t, 8, 1, 1, "uprobes/p_longer_name_0", "values_target");
	add(&t, 3, 2, 2, "u/c", "x");
	add(&t, 3, 2, 1, "u/c", "y");
	add(&t, 3, 1, 3, "uprobes/p_longer_name_0", "z");
	add(&t, 123456789012345ull, 3, 1, "u/d", "w");
	add(&t, 0, 4, 0, "u/zero", "-");
	table_sort(&t);
	s = print(&t);
	CHECK_STR(s,
		  "          COUNT  probe                    comm\n"
		  "123456789012345  u/d                      w\n"
		  "              8  uprobes/p_longer_name_0  values_target\n"
		  "              3  uprobes/p_longer_name_0  z\n"
		  "              3  u/c                      y\n"
		  "              3  u/c                      x\n"
		  "              1  uprobes/p_a_0            sh\n"
		  "              0  u/zero                   -\n",
		  "sorted by count, ties by probe then key; a count wider than twelve "
		  "widens its column for every row");
	free(s);
	table_truncate(&t, 2);
	s = print(&t);
	CHECK_STR(s,
		  "          COUNT  probe                    comm\n"
		  "123456789012345  u/d                      w\n"
		  "              8  uprobes/p_longer_name_0  values_target\n",
		  "--top 2 of the whole table; widths from the rows kept");
	free(s);
	table_free(&t);
}

static void test_no_keys(void)
{
	struct table t;
	const char *cells[1] = { "42" };
	char *s;

	table_init(&t);
	table_col(&t, "COUNT", true, 12);
	CHECK(table_add(&t, 42, 0, NULL, cells) == 0, "add");
	s = print(&t);
	CHECK_STR(s, "       COUNT\n          42\n", "one column");
	free(s);
	table_free(&t);
	/* empty: the header alone */
	table_init(&t);
	table_col(&t, "COUNT", true, 12);
	table_col(&t, "comm", false, 0);
	s = print(&t);
	CHECK_STR(s, "       COUNT  comm\n", "no rows");
	free(s);
	table_free(&t);
}

int main(void)
{
	test_sort_align();
	test_no_keys();
	return check_report();
}
