// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The folded writer (folded.h): stacks kept as their sanitized text (with its NUL) in a
 * hash table, each entry's num its count, sorted only when printed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/folded.h"
#include "util/htab.h"

struct folded {
	struct htab stacks;	/* "root;...;leaf" -> num: its count */
	char *buf;	/* scratch for the sanitized text */
	size_t cap;
};

struct folded *folded_new(void)
{
	return calloc(1, sizeof(struct folded));
}

void folded_free(struct folded *fd)
{
	if (!fd)
		return;
	ht_free(&fd->stacks, NULL);
	free(fd->buf);
	free(fd);
}

size_t folded_count(const struct folded *fd)
{
	return fd->stacks.n;
}

static const char unknown[] = "[unknown]";

/* The sanitized text of the stack in fd->buf; its length, or -ENOMEM. */
static long stack_text(struct folded *fd, const char *const *frames, size_t n)
{
	size_t need = 0, i, len = 0;
	const char *name;
	unsigned char c;
	char *grown;

	for (i = 0; i < n; i++)
		need += (frames[i] && *frames[i] ? strlen(frames[i]) : sizeof(unknown) - 1) + 1;
	if (need > fd->cap) {
		grown = realloc(fd->buf, need);
		if (!grown)
			return -ENOMEM;
		fd->buf = grown;
		fd->cap = need;
	}
	for (i = 0; i < n; i++) {
		if (i)
			fd->buf[len++] = ';';
		name = frames[i] && *frames[i] ? frames[i] : unknown;
		for (; *name; name++) {
			c = *name;
			/* ';' separates frames; a newline ends the record; a tab confuses readers */
			fd->buf[len++] = c == ';' ? ':' : c < 0x20 || c == 0x7f ? ' ' : c;
		}
	}
	fd->buf[len] = '\0';
	return len;
}

int folded_add(struct folded *fd, const char *const *frames, size_t n, uint64_t count)
{
	struct hent *e;
	long len;

	if (!n || !frames)
		return -EINVAL;
	len = stack_text(fd, frames, n);
	if (len < 0)
		return len;
	e = ht_get(&fd->stacks, fd->buf, len + 1);
	if (!e)
		return -ENOMEM;
	e->num = e->num + count < e->num ? UINT64_MAX : e->num + count;
	return 0;
}

static int stack_cmp(const void *a, const void *b)
{
	const struct hent *x = *(const struct hent *const *)a;
	const struct hent *y = *(const struct hent *const *)b;

	return strcmp((const char *)x->key, (const char *)y->key);
}

int folded_print(struct folded *fd, FILE *f)
{
	const struct hent **all, *e;
	size_t i, n = 0;
	int err = 0;

	if (!fd->stacks.n)
		return 0;
	all = malloc(fd->stacks.n * sizeof(*all));
	if (!all)
		return -ENOMEM;
	for (e = ht_next(&fd->stacks, NULL); e; e = ht_next(&fd->stacks, e))
		all[n++] = e;
	qsort(all, n, sizeof(*all), stack_cmp);
	for (i = 0; i < n && !err; i++)
		if (fprintf(f, "%s %llu\n", (const char *)all[i]->key,
			    (unsigned long long)all[i]->num) < 0)
			err = -EIO;
	free(all);
	return err;
}
