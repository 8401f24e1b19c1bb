// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Demangled names (demangle.h), through libiberty. */
#include <stdlib.h>
#include <string.h>
#include <libiberty/demangle.h>

#include "util/demangle.h"

char *demangle(const char *name)
{
	/* c++filt's options: parameters, const/volatile, the details it prints */
	const int opts = DMGL_PARAMS | DMGL_ANSI | DMGL_VERBOSE | DMGL_AUTO;
	const char *at;
	char *base, *dem, *out;
	size_t blen, dlen;

	/* every scheme it knows starts with '_' (_Z, _R, _D): skip the rest cheaply */
	if (name[0] != '_')
		return NULL;
	at = strchr(name, '@');
	if (!at)
		return cplus_demangle(name, opts);
	blen = at - name;
	base = strndup(name, blen);
	dem = base ? cplus_demangle(base, opts) : NULL;
	free(base);
	if (!dem)
		return NULL;
	dlen = strlen(dem);
	out = malloc(dlen + strlen(at) + 1);
	if (out) {
		memcpy(out, dem, dlen);
		strcpy(out + dlen, at);
	}
	free(dem);
	return out;
}
