/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A whole struct (":struct"), the bytes the probe read at it, printed
 * member by member as the kernel's BTF lays it out: integers by their
 * encoding, enums by name, pointers in hex, char arrays as strings, other
 * arrays up to STRUCTFMT_ELEMS elements, bitfields from their bits, unions
 * with every member, nested structs down to a depth ("{...}" past it).
 * Members past the bytes read are left out and counted.
 */
#ifndef KPT_STRUCTFMT_H
#define KPT_STRUCTFMT_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include "util/fmt.h"

struct btf;

#define STRUCTFMT_ELEMS	16	/* an array's elements printed; the rest counted */

/*
 * Struct or union id of btf from data (len bytes read of it), into ob: text
 * "{.a=1, .b={.c=2}, .s=\"x\"}", or with json an object. Returns the
 * members and array elements left out (past len, or past STRUCTFMT_ELEMS).
 */
uint32_t structfmt(struct outbuf *ob, const struct btf *btf, uint32_t id, const void *data,
		   size_t len, int depth, bool json);

#endif /* KPT_STRUCTFMT_H */
