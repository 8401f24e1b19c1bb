/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Values as people read them: kptrace's extension types beside ftrace's
 * (:ipv4, :ipv6, :be16, :be32, :errno), written for the outputs and the
 * table keys, and read back from a filter's constants.
 */
#ifndef KPT_VALFMT_H
#define KPT_VALFMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lang/types.h"

/* Room for any value valfmt writes, NUL included ("ffff:...:255.255.255.255"). */
#define VALFMT_MAX	48

/* The extension types: written by valfmt_scalar() (ipv6 by valfmt_ipv6()). */
static inline bool valfmt_is_ext(enum spec_type t)
{
	return t == SPEC_T_IPV4 || t == SPEC_T_IPV6 || t == SPEC_T_BE16 || t == SPEC_T_BE32 ||
	       t == SPEC_T_ERRNO;
}

/* The bytes of an ipv6 argument: its elements, always 16. */
#define VALFMT_IPV6_LEN	16

/* How a value reads beyond its type (valfmt_scalar()'s flags). */
#define VALFMT_USER	(1u << 0)	/* a user-space probe's: -1 is the C library's
					 * failure (errno says why), not -EPERM */

/*
 * A scalar extension value v into buf: "127.0.0.1", a network-order
 * integer in host order, "-ENOENT" (or the number where it names no errno).
 * v is the slot's value sign-extended from the slot's width (decode_scalar()'s
 * .s): an errno's slot is the value's own width (compile.c), so an errno is
 * -4095..-1 at that width, as IS_ERR_VALUE() reads it. Returns the length,
 * 0 if t is not such a type.
 */
size_t valfmt_scalar(enum spec_type t, uint64_t v, unsigned int flags, char *buf, size_t len);

/* 16 bytes in network order as RFC 5952 text ("::1", "fe80::1"). */
size_t valfmt_ipv6(const uint8_t b[VALFMT_IPV6_LEN], char *buf, size_t len);

/* A JSON value is a string for these, else a number (v and flags as above). */
bool valfmt_json_is_string(enum spec_type t, uint64_t v, unsigned int flags);

/* The errno called NAME ("ENOENT"), or 0. */
int valfmt_errno_by_name(const char *s, size_t n);
/* ENOENT's name for 2, or NULL. */
const char *valfmt_errno_name(int e);

/*
 * A filter's constant [s, e) for a field of type t, as the slot holds it:
 * a dotted quad for ipv4, a number swapped to network order for be16/be32,
 * "-ENAME" for errno. 0 and *out set; -1 and *why set if it is not one;
 * 1 if t reads constants as numbers like any other type.
 */
int valfmt_parse(enum spec_type t, const char *s, const char *e, int64_t *out,
		 const char **why);

#endif /* KPT_VALFMT_H */
