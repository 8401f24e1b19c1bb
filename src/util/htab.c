// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The one hash table (htab.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/hash.h"
#include "util/htab.h"

struct hent *ht_find(const struct htab *t, const void *k, size_t n)
{
	uint64_t h = kpt_hash(k, n);
	struct hent *e;

	if (!t->nb)
		return NULL;
	for (e = t->b[h & (t->nb - 1)]; e; e = e->next)
		if (e->hash == h && e->klen == n && !memcmp(e->key, k, n))
			return e;
	return NULL;
}

static int ht_grow(struct htab *t)
{
	size_t nb = t->nb ? t->nb * 2 : 64, i;
	struct hent **b = calloc(nb, sizeof(*b)), *e, *next;

	if (!b)
		return -ENOMEM;
	for (i = 0; i < t->nb; i++)
		for (e = t->b[i]; e; e = next) {
			next = e->next;
			e->next = b[e->hash & (nb - 1)];
			b[e->hash & (nb - 1)] = e;
		}
	free(t->b);
	t->b = b;
	t->nb = nb;
	return 0;
}

struct hent *ht_get(struct htab *t, const void *k, size_t n)
{
	struct hent *e = ht_find(t, k, n);

	if (e)
		return e;
	if (t->n >= t->nb && ht_grow(t))
		return NULL;
	e = malloc(sizeof(*e) + n);
	if (!e)
		return NULL;
	e->hash = kpt_hash(k, n);
	e->val = NULL;
	e->num = 0;
	e->klen = n;
	memcpy(e->key, k, n);
	e->next = t->b[e->hash & (t->nb - 1)];
	t->b[e->hash & (t->nb - 1)] = e;
	t->n++;
	return e;
}

int ht_put(struct htab *t, const void *k, size_t n, void *val)
{
	struct hent *e = ht_get(t, k, n);

	if (!e)
		return -ENOMEM;
	e->val = val;
	return 0;
}

struct hent *ht_next(const struct htab *t, const struct hent *e)
{
	size_t i = 0;

	if (e) {
		if (e->next)
			return e->next;
		i = (e->hash & (t->nb - 1)) + 1;
	}
	for (; i < t->nb; i++)
		if (t->b[i])
			return t->b[i];
	return NULL;
}

void ht_free(struct htab *t, void (*free_val)(void *))
{
	struct hent *e, *next;
	size_t i;

	for (i = 0; i < t->nb; i++)
		for (e = t->b[i]; e; e = next) {
			next = e->next;
			if (free_val)
				free_val(e->val);
			free(e);
		}
	free(t->b);
	t->b = NULL;
	t->nb = t->n = 0;
}
