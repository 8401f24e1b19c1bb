/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The one hash table of user space: chained, byte-string keys copied into
 * the entries, hashed with util/hash.h. A value is a pointer, a number, or
 * both (num: a count, a flag), as the table's owner keeps it.
 */
#ifndef KPT_HTAB_H
#define KPT_HTAB_H

#include <stddef.h>
#include <stdint.h>

struct hent {
	struct hent *next;
	uint64_t hash;
	void *val;
	uint64_t num;
	size_t klen;
	unsigned char key[];
};

struct htab {
	struct hent **b;
	size_t nb, n;
};

/* k's entry (n bytes), or NULL. */
struct hent *ht_find(const struct htab *t, const void *k, size_t n);
/* k's entry, made (val NULL, num 0) if there is none; NULL: no memory. */
struct hent *ht_get(struct htab *t, const void *k, size_t n);
/* Insert or replace k's value. 0 or -ENOMEM. */
int ht_put(struct htab *t, const void *k, size_t n, void *val);
/* The entry after e (NULL: the first), in no particular order; NULL past the last. */
struct hent *ht_next(const struct htab *t, const struct hent *e);
/* Every entry freed, free_val (if given) called on each value; t empty again. */
void ht_free(struct htab *t, void (*free_val)(void *));

#endif /* KPT_HTAB_H */
