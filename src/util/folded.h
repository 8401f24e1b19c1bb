/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Folded stacks, the text flamegraph.pl, inferno and speedscope read: one line per
 * distinct stack, "root;caller;...;leaf COUNT". Readers split the count off at the LAST
 * space, so frame names may hold spaces ("ext4_read [ext4]") but not ';' or newlines.
 */
#ifndef KPT_FOLDED_H
#define KPT_FOLDED_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct folded;

/* NULL on ENOMEM. */
struct folded *folded_new(void);
void folded_free(struct folded *fd);
/*
 * One stack, ROOT FIRST (frames[0] is the outermost caller), counted count times;
 * identical stacks (after sanitizing) merge, their counts added (saturating). Sanitizing:
 * ';' in a name becomes ':', newlines, tabs and other control characters become spaces,
 * an empty or NULL name becomes "[unknown]". 0, -EINVAL (no frames) or -ENOMEM.
 */
int folded_add(struct folded *fd, const char *const *frames, size_t n, uint64_t count);
/* Every stack as "root;...;leaf COUNT\n", sorted by the stack text (bytewise, so the
 * output is deterministic). 0, -ENOMEM or -EIO. */
int folded_print(struct folded *fd, FILE *f);
/* Distinct stacks so far. */
size_t folded_count(const struct folded *fd);

#endif /* KPT_FOLDED_H */
