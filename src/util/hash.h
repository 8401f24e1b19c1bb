/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The one hash function of user space's tables: 64-bit FNV-1a (fast on short keys, no seed). */
#ifndef KPT_HASH_H
#define KPT_HASH_H

#include <stddef.h>
#include <stdint.h>

#define KPT_FNV_OFFSET	0xcbf29ce484222325ull
#define KPT_FNV_PRIME	0x100000001b3ull

static inline uint64_t kpt_hash(const void *k, size_t n)
{
	const unsigned char *p = k;
	uint64_t h = KPT_FNV_OFFSET;

	while (n--)
		h = (h ^ *p++) * KPT_FNV_PRIME;
	return h;
}

static inline uint64_t kpt_hash_str(const char *s)
{
	uint64_t h = KPT_FNV_OFFSET;

	while (*s)
		h = (h ^ (unsigned char)*s++) * KPT_FNV_PRIME;
	return h;
}

#endif /* KPT_HASH_H */
