// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The fetch-type table (types.h) and its lookups. */
#include <string.h>

#include "lang/types.h"

#define T(e, n, sz, sl, num, dl, ft, pf) \
	[SPEC_T_##e] = { n, sz, sl, SPEC_NUM_##num, dl, ft, pf },
const struct spec_type_info spec_type_rows[SPEC_T__COUNT] = {
	[SPEC_T_NONE] = { "none", 0, 0, SPEC_NUM_NONE, false, "?", "?" },
	SPEC_TYPES
};
#undef T

enum spec_type spec_type_by_name(const char *s, unsigned int n)
{
	int t;

	for (t = SPEC_T_NONE + 1; t < SPEC_T__COUNT; t++)
		if (strlen(spec_type_rows[t].name) == n && !memcmp(s, spec_type_rows[t].name, n))
			return (enum spec_type)t;
	return SPEC_T_NONE;
}

enum spec_type spec_type_int(unsigned int size, bool sign)
{
	enum spec_num num = sign ? SPEC_NUM_S : SPEC_NUM_U;
	int t;

	for (t = SPEC_T_NONE + 1; t < SPEC_T__COUNT; t++)
		if (spec_type_rows[t].size == size && spec_type_rows[t].num == num)
			return (enum spec_type)t;
	return SPEC_T_NONE;
}
