// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* KEY[,KEY]... lists (keylist.h). */
#include <stdio.h>
#include <string.h>

#include "util/keylist.h"

int keylist_parse(const char *s, struct keylist *kl)
{
	char *tok, *save = NULL;

	kl->n = 0;
	snprintf(kl->buf, sizeof(kl->buf), "%s", s ? s : "");
	for (tok = strtok_r(kl->buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		kl->w[kl->n++] = tok;
	return kl->n;
}

int keylist_index(const struct keylist *kl, const char *w)
{
	int i;

	for (i = 0; i < kl->n; i++)
		if (!strcmp(kl->w[i], w))
			return i;
	return -1;
}
