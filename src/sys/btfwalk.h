/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Walking BTF types by name: what src/prepare/btfarg.c (member chains) and
 * src/prepare/resolve.c (register offsets in struct pt_regs) both need.
 */
#ifndef KPT_BTFWALK_H
#define KPT_BTFWALK_H

#include <stdbool.h>
#include <linux/types.h>

struct btf;

/* Type id with typedefs and qualifiers skipped; 0 (void) stays 0. */
__u32 btfwalk_skip_mods(const struct btf *btf, __u32 id);

/*
 * Member name of struct/union sid, looking into anonymous members (their
 * members are the parent's): adds its bit offset to *bitoffs, gives its
 * bitfield size (0 if none) and type id. False if there is none.
 */
bool btfwalk_member(const struct btf *btf, __u32 sid, const char *name, __u32 *bitoffs,
		    __u32 *bitsize, __u32 *type);

/* Byte offset of member name of struct sname, into *off; false if either is missing. */
bool btfwalk_struct_member(const struct btf *btf, const char *sname, const char *name,
			   __u32 *off);

#endif /* KPT_BTFWALK_H */
