// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <string.h>
#include <bpf/btf.h>

#include "sys/btfwalk.h"

__u32 btfwalk_skip_mods(const struct btf *btf, __u32 id)
{
	const struct btf_type *t;
	int guard = 32;	/* a malformed BTF's cycle ends here */

	while (id && guard--) {
		t = btf__type_by_id(btf, id);
		if (!t)
			return 0;
		if (!btf_is_typedef(t) && !btf_is_const(t) && !btf_is_volatile(t) &&
		    !btf_is_restrict(t) && !btf_is_type_tag(t))
			return id;
		id = t->type;
	}
	return 0;
}

static bool member(const struct btf *btf, __u32 sid, const char *name, __u32 *bitoffs,
		   __u32 *bitsize, __u32 *type, int depth)
{
	const struct btf_type *st = btf__type_by_id(btf, sid);
	const struct btf_member *m;
	int i, n;

	if (!st || depth > 8 || (!btf_is_struct(st) && !btf_is_union(st)))
		return false;
	m = btf_members(st);
	n = btf_vlen(st);
	for (i = 0; i < n; i++, m++) {
		const char *mn = btf__name_by_offset(btf, m->name_off);
		__u32 off;

		if (mn && *mn) {
			if (strcmp(mn, name))
				continue;
			*bitoffs += btf_member_bit_offset(st, i);
			*bitsize = btf_member_bitfield_size(st, i);
			*type = m->type;
			return true;
		}
		/* anonymous struct/union (pt_regs' cs and ss since 6.9, FRED) */
		off = *bitoffs;
		if (member(btf, btfwalk_skip_mods(btf, m->type), name, &off, bitsize, type,
			   depth + 1)) {
			*bitoffs = off + btf_member_bit_offset(st, i);
			return true;
		}
	}
	return false;
}

bool btfwalk_member(const struct btf *btf, __u32 sid, const char *name, __u32 *bitoffs,
		    __u32 *bitsize, __u32 *type)
{
	return member(btf, sid, name, bitoffs, bitsize, type, 0);
}

bool btfwalk_struct_member(const struct btf *btf, const char *sname, const char *name,
			   __u32 *off)
{
	__u32 bitoffs = 0, bitsize, type;
	int sid = btf__find_by_name_kind(btf, sname, BTF_KIND_STRUCT);

	if (sid <= 0 || !btfwalk_member(btf, (__u32)sid, name, &bitoffs, &bitsize, &type) ||
	    bitsize || bitoffs % 8)
		return false;
	*off = bitoffs / 8;
	return true;
}
