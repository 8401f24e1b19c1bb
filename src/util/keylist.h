/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * KEY[,KEY]...: the one reading of --by, --key and other comma lists. Empty
 * words are skipped ("a,,b" is a and b), as the lists have always read.
 */
#ifndef KPT_KEYLIST_H
#define KPT_KEYLIST_H

#define KEYLIST_TEXT	256	/* a list's text beyond this is cut */

struct keylist {
	int n;
	char *w[KEYLIST_TEXT / 2];	/* the words, into buf */
	char buf[KEYLIST_TEXT];
};

/* s's words into kl (s NULL: none); returns kl->n. */
int keylist_parse(const char *s, struct keylist *kl);
/* Word w's place in kl, or -1. */
int keylist_index(const struct keylist *kl, const char *w);

#endif /* KPT_KEYLIST_H */
