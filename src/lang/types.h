/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The fetch types, one table, as the kernel keeps probe_fetch_types[] in
 * trace_probe.c: the names ":TYPE" takes and every fact about one that the
 * parser, compile, filter, agg, decode, explain and the outputs use.
 */
#ifndef KPT_TYPES_H
#define KPT_TYPES_H

#include <stdbool.h>
#include <stdint.h>

/* How a value reads as a number: in a filter's constant, a --by key, the output. */
enum spec_num {
	SPEC_NUM_NONE,		/* not a number: a character, a string */
	SPEC_NUM_U,		/* unsigned decimal */
	SPEC_NUM_S,		/* signed decimal */
	SPEC_NUM_X,		/* hex: the x types, and a symbol's address */
};

/*
 * ftrace's types, then kptrace's extensions (valfmt.h), whose format and
 * print fmt are those of the ftrace type holding the same bytes: ipv4 an
 * address in network order, ipv6 16 bytes of one (an array of u8 always),
 * be16/be32 network-order integers, errno an error returned as -ENAME
 * (read at its value's own width, compile.c: an int where none is known).
 *
 * T(ENUM, name, size, slot, num, data_loc, format type, print fmt)
 *   size      bytes of ftrace's record slot (fetch_type.size)
 *   slot      bytes of ours: a symstr keeps the address, symbolized in userspace
 *   num       enum spec_num, without its prefix
 *   data_loc  a string: ftrace's slot holds len << 16 | offset
 *   format    the type events/GROUP/EVENT/format declares (fetch_type.fmttype)
 *   print fmt the conversion in the format's print fmt (fetch_type.fmt)
 */
#define SPEC_TYPES                                                                      \
	T(U8,      "u8",      1, 1, U,    0, "u8",                "%u")                 \
	T(U16,     "u16",     2, 2, U,    0, "u16",               "%u")                 \
	T(U32,     "u32",     4, 4, U,    0, "u32",               "%u")                 \
	T(U64,     "u64",     8, 8, U,    0, "u64",               "%Lu")                \
	T(S8,      "s8",      1, 1, S,    0, "s8",                "%d")                 \
	T(S16,     "s16",     2, 2, S,    0, "s16",               "%d")                 \
	T(S32,     "s32",     4, 4, S,    0, "s32",               "%d")                 \
	T(S64,     "s64",     8, 8, S,    0, "s64",               "%Ld")                \
	T(X8,      "x8",      1, 1, X,    0, "u8",                "0x%x")               \
	T(X16,     "x16",     2, 2, X,    0, "u16",               "0x%x")               \
	T(X32,     "x32",     4, 4, X,    0, "u32",               "0x%x")               \
	T(X64,     "x64",     8, 8, X,    0, "u64",               "0x%Lx")              \
	T(CHAR,    "char",    1, 1, NONE, 0, "u8",                "'%c'")               \
	T(STRING,  "string",  4, 4, NONE, 1, "__data_loc char[]", "\\\"%s\\\"")         \
	T(USTRING, "ustring", 4, 4, NONE, 1, "__data_loc char[]", "\\\"%s\\\"")         \
	T(SYMBOL,  "symbol",  8, 8, X,    0, "u64",               "%pS")                \
	T(SYMSTR,  "symstr",  4, 8, NONE, 1, "__data_loc char[]", "\\\"%s\\\"")         \
	T(IPV4,    "ipv4",    4, 4, U,    0, "u32",               "%u")                 \
	T(IPV6,    "ipv6",    1, 1, U,    0, "u8",                "%u")                 \
	T(BE16,    "be16",    2, 2, U,    0, "u16",               "%u")                 \
	T(BE32,    "be32",    4, 4, U,    0, "u32",               "%u")                 \
	T(ERRNO,   "errno",   4, 4, S,    0, "s32",               "%d")

#define T(e, ...) SPEC_T_##e,
enum spec_type { SPEC_T_NONE = 0, SPEC_TYPES SPEC_T__COUNT };
#undef T

struct spec_type_info {
	const char *name;
	uint8_t size, slot;
	enum spec_num num;
	bool data_loc;
	const char *format;
	const char *print_fmt;
};

/* The table, indexed by enum spec_type (types.c); read it through spec_type_info(). */
extern const struct spec_type_info spec_type_rows[SPEC_T__COUNT];

/* t's row; SPEC_T_NONE's (name "none", size 0) for anything else. */
static inline const struct spec_type_info *spec_type_info(enum spec_type t)
{
	return &spec_type_rows[(unsigned int)t < SPEC_T__COUNT ? t : SPEC_T_NONE];
}

/* "unknown" out of range, as SPEC_T_NONE's row names no type. */
static inline const char *spec_type_name(enum spec_type t)
{
	return (unsigned int)t < SPEC_T__COUNT ? spec_type_rows[t].name : "unknown";
}

/* Bytes in ftrace's record slot. */
static inline int spec_type_size(enum spec_type t)
{
	return spec_type_info(t)->size;
}

/* Bytes in our record's slot. */
static inline int spec_type_slot(enum spec_type t)
{
	return spec_type_info(t)->slot;
}

/* string, ustring, symstr: a data_loc slot to ftrace. */
static inline bool spec_type_is_string(enum spec_type t)
{
	return spec_type_info(t)->data_loc;
}

static inline bool spec_type_signed(enum spec_type t)
{
	return spec_type_info(t)->num == SPEC_NUM_S;
}

static inline bool spec_type_hex(enum spec_type t)
{
	return spec_type_info(t)->num == SPEC_NUM_X;
}

/* The type called [s, s + n), or SPEC_T_NONE. */
enum spec_type spec_type_by_name(const char *s, unsigned int n);
/* The uN (or sN) type of size bytes, SPEC_T_NONE for a size that has none. */
enum spec_type spec_type_int(unsigned int size, bool sign);

#endif /* KPT_TYPES_H */
