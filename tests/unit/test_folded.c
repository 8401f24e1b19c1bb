// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * folded: merging, sanitizing, the sort order, and that a reader splitting each line at
 * its LAST space (as flamegraph.pl and inferno do) gets the stack and the count back.
 * Expected texts are written out by hand here.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "util/folded.h"

/* The folded text of fd, in a malloc'd string. */
static char *print(struct folded *fd)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int err;

	if (!f) {
		perror("open_memstream");
		exit(2);
	}
	err = folded_print(fd, f);
	fclose(f);
	CHECK(err == 0, "folded_print: %d", err);
	return buf;
}

#define ADD(fd, count, ...)						\
	do {								\
		const char *fr_[] = { __VA_ARGS__ };			\
		int e_ = folded_add(fd, fr_, sizeof(fr_) / sizeof(fr_[0]), count); \
		CHECK(e_ == 0, "folded_add: %d", e_);			\
	} while (0)

static void test_merge_and_order(void)
{
	struct folded *fd = folded_new();
	char *out;

	ADD(fd, 3, "main", "b", "leaf");
	ADD(fd, 1, "main", "a");
	ADD(fd, 2, "main", "b", "leaf");
	ADD(fd, 5, "main");
	/* a ';' sanitized to ':' is a different frame from the one already there */
	ADD(fd, 1, "main", "b;leaf");
	CHECK_INT(folded_count(fd), 4, "distinct stacks");
	out = print(fd);
	CHECK_STR(out,
		  "main 5\n"
		  "main;a 1\n"
		  "main;b:leaf 1\n"
		  "main;b;leaf 5\n",
		  "merged, sorted bytewise (':' < ';')");
	free(out);
	folded_free(fd);
}

static void test_sanitize(void)
{
	struct folded *fd = folded_new();
	const char *with_null[] = { "root", NULL, "leaf" };
	char *out;

	ADD(fd, 1, "ro;ot", "li\nne", "t\tab", "", "cr\r", "del\x7f");
	CHECK_INT(folded_add(fd, with_null, 3, 2), 0, "NULL frame");
	ADD(fd, 7, "root", "[unknown]", "leaf");	/* merges with the NULL one */
	CHECK_INT(folded_add(fd, with_null, 0, 1), -EINVAL, "no frames");
	out = print(fd);
	CHECK_STR(out,
		  "ro:ot;li ne;t ab;[unknown];cr ;del  1\n"
		  "root;[unknown];leaf 9\n",
		  "sanitized");
	free(out);
	folded_free(fd);
}

/* Frames with spaces: the count is after the last space, the stack before it. */
static void test_last_space(void)
{
	struct folded *fd = folded_new();
	char *out, *line, *save = NULL, *sp;
	int lines = 0;

	ADD(fd, 42, "start_thread", "ext4_read [ext4]", "copy page 2");
	ADD(fd, UINT64_MAX - 1, "a b", "c");
	ADD(fd, 5, "a b", "c");	/* saturates instead of wrapping */
	out = print(fd);
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		sp = strrchr(line, ' ');
		CHECK(sp != NULL, "no space in \"%s\"", line);
		if (!sp)
			continue;
		*sp = '\0';
		if (!strcmp(line, "a b;c"))
			CHECK_STR(sp + 1, "18446744073709551615", "saturated count");
		else
			CHECK(!strcmp(line, "start_thread;ext4_read [ext4];copy page 2") &&
				      !strcmp(sp + 1, "42"),
			      "stack \"%s\" count \"%s\"", line, sp + 1);
		lines++;
	}
	CHECK_INT(lines, 2, "lines printed");
	free(out);
	folded_free(fd);
}

static void test_many(void)
{
	struct folded *fd = folded_new();
	char name[32], *out, *p;
	const char *fr[2] = { "root", name };
	int i, lines = 0, sorted = 1, errs = 0;
	char prev[64] = "";

	/* enough to grow the table several times; each stack added twice, in a scrambled order */
	for (i = 0; i < 5000; i++) {
		snprintf(name, sizeof(name), "f%d", (i * 7919) % 5000);
		errs += folded_add(fd, fr, 2, 1) != 0;
		errs += folded_add(fd, fr, 2, 1) != 0;
	}
	CHECK_INT(errs, 0, "failed adds");
	CHECK_INT(folded_count(fd), 5000, "distinct stacks");
	out = print(fd);
	for (p = strtok(out, "\n"); p; p = strtok(NULL, "\n")) {
		if (strcmp(prev, p) >= 0)
			sorted = 0;
		snprintf(prev, sizeof(prev), "%s", p);
		if (strcmp(p + strlen(p) - 2, " 2"))
			sorted = 0;
		lines++;
	}
	CHECK_INT(lines, 5000, "lines");
	CHECK(sorted, "every line sorted and counted 2");
	free(out);
	folded_free(fd);
}

int main(void)
{
	struct folded *fd = folded_new();
	char *out = print(fd);

	CHECK_STR(out, "", "nothing added prints nothing");
	free(out);
	folded_free(fd);
	folded_free(NULL);
	test_merge_and_order();
	test_sanitize();
	test_last_space();
	test_many();
	return check_report();
}
