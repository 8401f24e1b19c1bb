// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Demangled names (demangle.h), through libiberty. */
#include <fnmatch.h>
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

size_t demangle_base_len(const char *dem)
{
	size_t n = strlen(dem), depth = 0, i;

	/* the parameter list is the last balanced (...) at depth 0 of <>: walk back to it */
	if (!n || dem[n - 1] == ']')
		return n;
	for (i = n; i > 0; i--) {
		char c = dem[i - 1];

		if (c == ')') {
			depth++;
		} else if (c == '(') {
			if (!depth)
				return n;
			if (!--depth)
				return i - 1;
		}
	}
	return n;
}

bool demangle_match(const char *raw, const char *pattern, bool glob)
{
	char *dem = demangle(raw), *at;
	bool ok;

	if (!dem)
		return false;
	at = strchr(dem, '@');	/* a version is not part of the name written */
	if (at)
		*at = '\0';
	ok = glob ? !fnmatch(pattern, dem, 0) : !strcmp(pattern, dem);
	if (!ok) {
		dem[demangle_base_len(dem)] = '\0';
		ok = glob ? !fnmatch(pattern, dem, 0) : !strcmp(pattern, dem);
	}
	free(dem);
	return ok;
}
