// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The folded writer (folded.h): stacks kept as their sanitized text in a hash table of
 * their own, sorted only when printed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/folded.h"
#include "util/hash.h"

struct stack {
	struct stack *next;
	uint64_t hash;
	uint64_t count;
	size_t len;
	char text[];	/* "root;...;leaf", NUL-terminated */
};

struct folded {
	struct stack **b;
	size_t nb, n;
	char *buf;	/* scratch for the sanitized text */
	size_t cap;
};

struct folded *folded_new(void)
{
	return calloc(1, sizeof(struct folded));
}

void folded_free(struct folded *fd)
{
	struct stack *s, *next;
	size_t i;

	if (!fd)
		return;
	for (i = 0; i < fd->nb; i++)
		for (s = fd->b[i]; s; s = next) {
			next = s->next;
			free(s);
		}
	free(fd->b);
	free(fd->buf);
	free(fd);
}

size_t folded_count(const struct folded *fd)
{
	return fd->n;
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

static int grow(struct folded *fd)
{
	size_t nb = fd->nb ? fd->nb * 2 : 256, i;
	struct stack **b = calloc(nb, sizeof(*b)), *s, *next;

	if (!b)
		return -ENOMEM;
	for (i = 0; i < fd->nb; i++)
		for (s = fd->b[i]; s; s = next) {
			next = s->next;
			s->next = b[s->hash & (nb - 1)];
			b[s->hash & (nb - 1)] = s;
		}
	free(fd->b);
	fd->b = b;
	fd->nb = nb;
	return 0;
}

int folded_add(struct folded *fd, const char *const *frames, size_t n, uint64_t count)
{
	long len;
	uint64_t h;
	struct stack *s;

	if (!n || !frames)
		return -EINVAL;
	len = stack_text(fd, frames, n);
	if (len < 0)
		return len;
	h = kpt_hash(fd->buf, len);
	for (s = fd->nb ? fd->b[h & (fd->nb - 1)] : NULL; s; s = s->next)
		if (s->hash == h && s->len == (size_t)len && !memcmp(s->text, fd->buf, len)) {
			s->count = s->count + count < s->count ? UINT64_MAX : s->count + count;
			return 0;
		}
	if (fd->n >= fd->nb && grow(fd))
		return -ENOMEM;
	s = malloc(sizeof(*s) + len + 1);
	if (!s)
		return -ENOMEM;
	s->hash = h;
	s->count = count;
	s->len = len;
	memcpy(s->text, fd->buf, len + 1);
	s->next = fd->b[h & (fd->nb - 1)];
	fd->b[h & (fd->nb - 1)] = s;
	fd->n++;
	return 0;
}

static int stack_cmp(const void *a, const void *b)
{
	const struct stack *x = *(const struct stack *const *)a;
	const struct stack *y = *(const struct stack *const *)b;

	return strcmp(x->text, y->text);
}

int folded_print(struct folded *fd, FILE *f)
{
	struct stack **all, *s;
	size_t i, n = 0;
	int err = 0;

	if (!fd->n)
		return 0;
	all = malloc(fd->n * sizeof(*all));
	if (!all)
		return -ENOMEM;
	for (i = 0; i < fd->nb; i++)
		for (s = fd->b[i]; s; s = s->next)
			all[n++] = s;
	qsort(all, n, sizeof(*all), stack_cmp);
	for (i = 0; i < n && !err; i++)
		if (fprintf(f, "%s %llu\n", all[i]->text, (unsigned long long)all[i]->count) < 0)
			err = -EIO;
	free(all);
	return err;
}
