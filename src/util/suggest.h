/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * "Did you mean": the closest known name to a misspelt one, for error
 * messages about symbols, parameters and struct members.
 */
#ifndef KPT_SUGGEST_H
#define KPT_SUGGEST_H

#include <stddef.h>

/*
 * Incremental: feed candidates one at a time, keep the closest within a
 * small edit distance (a third of the word, at least 1, at most 3).
 */
struct suggest {
	const char *word;
	const char *best;	/* NULL if none close enough */
	int best_dist;
};

void suggest_init(struct suggest *s, const char *word);
void suggest_add(struct suggest *s, const char *cand);

/* " (did you mean 'best'?)" into buf, or "" when nothing is close; returns buf. */
const char *suggest_text(const struct suggest *s, char *buf, size_t len);

#endif /* KPT_SUGGEST_H */
