// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdio.h>
#include <string.h>

#include "util/suggest.h"

#define SUGGEST_MAXLEN	128

static int max_dist(const char *word)
{
	int d = (int)strlen(word) / 3;

	return d < 1 ? 1 : d > 3 ? 3 : d;
}

/*
 * Edit distance, a swap of two neighbours one edit as a typo is ("hsit"),
 * giving up (returning limit + 1) past limit.
 */
static int distance(const char *a, const char *b, int limit)
{
	int la = (int)strlen(a), lb = (int)strlen(b), i, j;
	int prev2[SUGGEST_MAXLEN + 1], prev[SUGGEST_MAXLEN + 1], cur[SUGGEST_MAXLEN + 1];

	if (la > SUGGEST_MAXLEN || lb > SUGGEST_MAXLEN || la - lb > limit || lb - la > limit)
		return limit + 1;
	for (j = 0; j <= lb; j++)
		prev[j] = j;
	for (i = 1; i <= la; i++) {
		int rowmin;

		cur[0] = rowmin = i;
		for (j = 1; j <= lb; j++) {
			int v = prev[j - 1] + (a[i - 1] != b[j - 1]);

			if (prev[j] + 1 < v)
				v = prev[j] + 1;
			if (cur[j - 1] + 1 < v)
				v = cur[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    prev2[j - 2] + 1 < v)
				v = prev2[j - 2] + 1;
			cur[j] = v;
			if (v < rowmin)
				rowmin = v;
		}
		/* a swap reaches back two rows: give up only when both are past */
		if (rowmin > limit) {
			for (j = 0; j <= lb && prev[j] > limit; j++)
				;
			if (j > lb)
				return limit + 1;
		}
		memcpy(prev2, prev, (lb + 1) * sizeof(int));
		memcpy(prev, cur, (lb + 1) * sizeof(int));
	}
	return prev[lb];
}

void suggest_init(struct suggest *s, const char *word)
{
	s->word = word;
	s->best = NULL;
	s->best_dist = max_dist(word) + 1;
}

void suggest_add(struct suggest *s, const char *cand)
{
	int d;

	if (!cand || !*cand || !strcmp(cand, s->word))
		return;
	d = distance(s->word, cand, s->best_dist - 1);
	if (d < s->best_dist) {
		s->best = cand;
		s->best_dist = d;
	}
}

const char *suggest_text(const struct suggest *s, char *buf, size_t len)
{
	if (s->best)
		snprintf(buf, len, " (did you mean '%s'?)", s->best);
	else if (len)
		buf[0] = '\0';
	return buf;
}
