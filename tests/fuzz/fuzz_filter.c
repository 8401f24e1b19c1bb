// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer harness for the event filters, both halves: src/prepare/filter.c's
 * compiler on arbitrary text, and bpf/filter.bpf.h's evaluator (built in
 * userspace with the shims of tests/unit/test_filter.c) on the programs it
 * accepts.
 *
 * Input: the expression up to the first NUL byte; what follows (if
 * anything) fills one more record: header fields, fault bits, scalar values
 * and string bytes, so the fuzzer steers the strings the globs run on.
 *
 * Each expression is compiled against the fake probe of test_filter.c (every
 * kind of argument), against one whose arguments shadow the builtins, and
 * with no ev_desc. Checked, beyond ASan/UBSan:
 * - the return is 0 or -EINVAL; an error has a message (cut to msglen), a
 *   column in [0, strlen] and both programs zeroed;
 * - a program: nops <= KPT_MAX_PRED, valid opcodes, a well-formed postfix
 *   stack (depth <= KPT_PRED_STACK, one value left), string indices <
 *   KPT_MAX_PRED_STR with terminated constants and zeroed unused bytes, ops
 *   past nops zeroed; every term's slot is the named argument's and lies
 *   inside the record (header fields in the header, arguments between the
 *   fault bitmap and fixed_size), its size and signedness those of the
 *   field, its constant within the field's width; "pre" uses no argument;
 *   glob patterns have no unclosed class (the evaluator relies on it);
 * - filter_explain() never calls a compiled program invalid, and its text
 *   compiles back to the same program (FUZZ_FILTER_ROUNDTRIP=0: not checked);
 * - kpt_filter_eval() gives, on every record, what a plain reference
 *   evaluator of the same program gives (glob by dynamic programming, on
 *   the first KPT_PRED_STRCMP bytes of a string, as documented).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* fmemopen() */
#endif
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prepare/filter.h"
#include "fuzz_common.h"

#include "../unit/filter_userspace.h"
#include "../unit/ev_layout.h"

/* The fake probe of tests/unit/test_filter.c: every kind of field. */
static struct ev_arg args[] = {
	{ .name = "u8v", .type = SPEC_T_U8, .size = 1 },
	{ .name = "s32v", .type = SPEC_T_S32, .size = 4 },
	{ .name = "u64v", .type = SPEC_T_U64, .size = 8 },
	{ .name = "x32v", .type = SPEC_T_X32, .size = 4 },
	{ .name = "path", .type = SPEC_T_STRING, .size = 4 },
	{ .name = "ch", .type = SPEC_T_CHAR, .size = 1 },
	{ .name = "s8v", .type = SPEC_T_S8, .size = 1 },
	{ .name = "s16v", .type = SPEC_T_S16, .size = 2 },
	{ .name = "u16v", .type = SPEC_T_U16, .size = 2 },
	{ .name = "s64v", .type = SPEC_T_S64, .size = 8 },
	{ .name = "u32v", .type = SPEC_T_U32, .size = 4 },
	{ .name = "arr", .type = SPEC_T_U8, .size = 1, .count = 4 },
	{ .name = "sym", .type = SPEC_T_SYMSTR, .size = 8 },
	{ .name = "imm", .type = SPEC_T_STRING, .size = 4, .data = "hello" },
	{ .name = "name", .type = SPEC_T_USTRING, .size = 4 },
	{ .name = "x64v", .type = SPEC_T_X64, .size = 8 },
	{ .name = "cm", .type = SPEC_T_STRING, .size = 4 },
	{ .name = "bits", .type = SPEC_T_U8, .size = 1 },
	{ .name = "addr", .type = SPEC_T_SYMBOL, .size = 8 },
	{ .name = "x8v", .type = SPEC_T_X8, .size = 1 },
	{ .name = "x16v", .type = SPEC_T_X16, .size = 2 },
};
static struct ev_desc ev = { .event = "fake", .nargs = sizeof(args) / sizeof(args[0]),
			     .args = args };

/* Arguments named like the builtins hide them. */
static struct ev_arg shadow_args[] = {
	{ .name = "pid", .type = SPEC_T_U32, .size = 4 },
	{ .name = "comm", .type = SPEC_T_STRING, .size = 4 },
	{ .name = "cpu", .type = SPEC_T_S16, .size = 2 },
	{ .name = "CPU", .type = SPEC_T_X64, .size = 8 },
	{ .name = "tid", .type = SPEC_T_SYMSTR, .size = 8 },
};
static struct ev_desc shadow_ev = { .event = "shadow", .nargs = 5, .args = shadow_args };

static bool is_signed_type(enum spec_type t)
{
	return t == SPEC_T_S8 || t == SPEC_T_S16 || t == SPEC_T_S32 || t == SPEC_T_S64;
}

/* ---- structural checks on a compiled program ---- */

static void check_prog(const struct kpt_pred_prog *p, const struct ev_desc *e, bool pre,
		       const char *expr)
{
	static const struct kpt_pred_op zero_op;
	bool str_used[KPT_MAX_PRED_STR] = { false };
	unsigned int first_slot = e ? KPT_HDR_SIZE + (e->nargs + 7) / 8 : 0;
	int i, j, depth = 0;

	FUZZ_CHECK(p->nops <= KPT_MAX_PRED, "%s: nops %u", expr, p->nops);
	for (i = 0; i < (int)sizeof(p->pad); i++)
		FUZZ_CHECK(!p->pad[i], "%s: program padding", expr);
	for (i = p->nops; i < KPT_MAX_PRED; i++)
		FUZZ_CHECK(!memcmp(&p->ops[i], &zero_op, sizeof(zero_op)), "%s: op %d past nops",
			   expr, i);
	for (i = 0; i < p->nops; i++) {
		const struct kpt_pred_op *op = &p->ops[i];

		FUZZ_CHECK(!op->pad && !op->pad2[0] && !op->pad2[1] && !op->pad2[2],
			   "%s: op %d padding", expr, i);
		switch (op->op) {
		case KPT_PO_TERM:
			depth++;
			FUZZ_CHECK(depth <= KPT_PRED_STACK, "%s: stack depth %d", expr, depth);
			break;
		case KPT_PO_NOT:
			FUZZ_CHECK(depth >= 1, "%s: op %d: '!' on an empty stack", expr, i);
			FUZZ_CHECK(!op->field && !op->cmp && !op->slot && !op->imm,
				   "%s: op %d: '!' with a term's fields", expr, i);
			continue;
		case KPT_PO_AND:
		case KPT_PO_OR:
			FUZZ_CHECK(depth >= 2, "%s: op %d: binary op on %d values", expr, i, depth);
			FUZZ_CHECK(!op->field && !op->cmp && !op->slot && !op->imm,
				   "%s: op %d: && / || with a term's fields", expr, i);
			depth--;
			continue;
		default:
			FUZZ_CHECK(0, "%s: op %d: opcode %u", expr, i, op->op);
		}

		FUZZ_CHECK(op->field >= KPT_FLD_TID && op->field <= KPT_FLD_ARGSTR,
			   "%s: op %d field %u", expr, i, op->field);
		FUZZ_CHECK(op->cmp >= KPT_CMP_EQ && op->cmp <= KPT_CMP_GLOB, "%s: op %d cmp %u",
			   expr, i, op->cmp);
		if (pre)
			FUZZ_CHECK(op->field != KPT_FLD_ARG && op->field != KPT_FLD_ARGSTR,
				   "%s: op %d: an argument in the pre-fetch program", expr, i);
		if (op->field == KPT_FLD_ARG || op->field == KPT_FLD_ARGSTR) {
			const struct ev_arg *a;

			FUZZ_CHECK(e && op->argi < e->nargs, "%s: op %d argi %u", expr, i, op->argi);
			a = &e->args[op->argi];
			FUZZ_CHECK(!a->data && !a->count && a->type != SPEC_T_SYMSTR,
				   "%s: op %d: filter on '%s', which can't be filtered on", expr,
				   i, a->name);
			FUZZ_CHECK(op->slot == a->slot, "%s: op %d slot %u, '%s' is at %u", expr, i,
				   op->slot, a->name, a->slot);
			FUZZ_CHECK(op->slot >= first_slot, "%s: op %d slot %u inside the header "
				   "or fault bitmap (ends at %u)", expr, i, op->slot, first_slot);
			FUZZ_CHECK((op->field == KPT_FLD_ARGSTR) == spec_type_is_string(a->type),
				   "%s: op %d field %u for a %s", expr, i, op->field,
				   spec_type_name(a->type));
		} else {
			FUZZ_CHECK(!op->argi, "%s: op %d: argi %u on a builtin", expr, i, op->argi);
		}

		if (op->cmp < KPT_CMP_STREQ) {
			unsigned int bits = op->size * 8;

			FUZZ_CHECK(op->field != KPT_FLD_COMM && op->field != KPT_FLD_ARGSTR,
				   "%s: op %d: number compared with a string field", expr, i);
			FUZZ_CHECK(op->size == 1 || op->size == 2 || op->size == 4 || op->size == 8,
				   "%s: op %d size %u", expr, i, op->size);
			FUZZ_CHECK(!op->str, "%s: op %d: number op with a string", expr, i);
			if (op->field == KPT_FLD_ARG) {
				const struct ev_arg *a = &e->args[op->argi];

				FUZZ_CHECK(op->size == a->size, "%s: op %d size %u, slot is %u",
					   expr, i, op->size, a->size);
				FUZZ_CHECK(op->is_signed == is_signed_type(a->type),
					   "%s: op %d signedness", expr, i);
				FUZZ_CHECK(op->slot + op->size <= e->fixed_size,
					   "%s: op %d reads %u..%u, record fixed part ends at %u",
					   expr, i, op->slot, op->slot + op->size, e->fixed_size);
			} else {
				size_t want = op->field == KPT_FLD_TID ?
						      offsetof(struct kpt_rec_hdr, tid) :
					      op->field == KPT_FLD_TGID ?
						      offsetof(struct kpt_rec_hdr, tgid) :
						      offsetof(struct kpt_rec_hdr, cpu);

				FUZZ_CHECK(op->slot == want && op->size == 4 && op->is_signed,
					   "%s: op %d: builtin at %u/%u", expr, i, op->slot,
					   op->size);
			}
			/* the constant fits the field's width, as read by the evaluator */
			if (bits < 64) {
				if (op->is_signed)
					FUZZ_CHECK(op->imm >= -(INT64_C(1) << (bits - 1)) &&
						   op->imm < (INT64_C(1) << (bits - 1)),
						   "%s: op %d: %" PRId64 " does not fit s%u", expr, i,
						   (int64_t)op->imm, bits);
				else
					FUZZ_CHECK((uint64_t)op->imm >> bits == 0,
						   "%s: op %d: %" PRIu64 " does not fit u%u", expr, i,
						   (uint64_t)op->imm, bits);
			}
		} else {
			FUZZ_CHECK(op->field == KPT_FLD_COMM || op->field == KPT_FLD_ARGSTR,
				   "%s: op %d: string op on field %u", expr, i, op->field);
			FUZZ_CHECK(!op->is_signed && !op->imm, "%s: op %d: string op with a number",
				   expr, i);
			FUZZ_CHECK(op->str < KPT_MAX_PRED_STR, "%s: op %d: string index %u", expr, i,
				   op->str);
			str_used[op->str] = true;
			if (op->field == KPT_FLD_COMM)
				FUZZ_CHECK(op->slot == offsetof(struct kpt_rec_hdr, comm) &&
					   op->size == KPT_COMM_LEN, "%s: op %d: comm at %u/%u",
					   expr, i, op->slot, op->size);
			else
				FUZZ_CHECK(op->size == 4 && op->slot + 4u <= e->fixed_size,
					   "%s: op %d: data_loc at %u/%u, fixed part ends at %u",
					   expr, i, op->slot, op->size, e->fixed_size);
		}
	}
	FUZZ_CHECK(!p->nops || depth == 1, "%s: %d values left on the stack", expr, depth);

	for (i = 0; i < KPT_MAX_PRED_STR; i++) {
		size_t n = strnlen(p->strs[i], KPT_PRED_STR);

		FUZZ_CHECK(n < KPT_PRED_STR, "%s: string %d not terminated", expr, i);
		for (j = (int)n; j < KPT_PRED_STR; j++)
			FUZZ_CHECK(!p->strs[i][j], "%s: string %d: byte %d after the NUL", expr, i,
				   j);
		if (!str_used[i])
			FUZZ_CHECK(!n, "%s: string %d set but not used", expr, i);
	}
}

/* ---- the reference evaluator ---- */

enum { G_LIT, G_ANY, G_STAR, G_CLASS };

struct gtok {
	int kind;
	unsigned char c;
	bool inv;
	unsigned char set[32];	/* bitmap of the class's members */
};

/*
 * lib/glob.c's pattern as tokens. Returns the count, or -1 for an unclosed
 * class: src/prepare/filter.c promises the evaluator never sees one.
 */
static int glob_tokens(const char *pat, struct gtok *t)
{
	const unsigned char *p = (const unsigned char *)pat;
	int n = 0;

	while (*p) {
		memset(&t[n], 0, sizeof(t[n]));
		switch (*p) {
		case '*':
			t[n].kind = G_STAR;
			p++;
			break;
		case '?':
			t[n].kind = G_ANY;
			p++;
			break;
		case '\\':
			/* a trailing '\' matches the end of the string: the end, here */
			if (!p[1])
				return n;
			t[n].kind = G_LIT;
			t[n].c = p[1];
			p += 2;
			break;
		case '[': {
			bool first = true;
			unsigned int a, b, c;

			t[n].kind = G_CLASS;
			p++;
			if (*p == '!') {
				t[n].inv = true;
				p++;
			}
			for (;;) {
				if (!first && *p == ']') {
					p++;
					break;
				}
				if (!*p)
					return -1;
				a = b = *p;
				if (p[1] == '-' && p[2] != ']') {
					if (!p[2])
						return -1;
					b = p[2];
					p += 3;
				} else {
					p++;
				}
				for (c = a; c <= b; c++)
					t[n].set[c / 8] |= 1u << (c % 8);
				first = false;
			}
			break;
		}
		default:
			t[n].kind = G_LIT;
			t[n].c = *p++;
			break;
		}
		n++;
	}
	return n;
}

/* Whole-string glob match of s (n bytes, no NUL among them) by dynamic programming. */
static bool ref_glob(const char *pat, const unsigned char *s, size_t n)
{
	struct gtok t[KPT_PRED_STR];
	/* m[i][j]: tokens from i match s from j */
	static bool m[KPT_PRED_STR + 1][KPT_PRED_STRCMP + 2];
	int nt = glob_tokens(pat, t), i;
	size_t j;

	FUZZ_CHECK(nt >= 0, "glob pattern \"%s\" has an unclosed class", pat);
	for (j = 0; j <= n; j++)
		m[nt][j] = j == n;
	for (i = nt - 1; i >= 0; i--) {
		for (j = n + 1; j-- > 0;) {
			bool r;

			switch (t[i].kind) {
			case G_STAR:
				r = m[i + 1][j] || (j < n && m[i][j + 1]);
				break;
			case G_ANY:
				r = j < n && m[i + 1][j + 1];
				break;
			case G_LIT:
				r = j < n && s[j] == t[i].c && m[i + 1][j + 1];
				break;
			default:
				r = j < n &&
				    !!(t[i].set[s[j] / 8] & (1u << (s[j] % 8))) != t[i].inv &&
				    m[i + 1][j + 1];
				break;
			}
			m[i][j] = r;
		}
	}
	return m[0][0];
}

static uint64_t load_le(const uint8_t *p, unsigned int size, bool sign)
{
	uint64_t v = 0;
	unsigned int i;

	for (i = 0; i < size; i++)
		v |= (uint64_t)p[i] << (8 * i);
	if (sign && size < 8 && (v >> (8 * size - 1)) & 1)
		v |= ~UINT64_C(0) << (8 * size);
	return v;
}

static bool ref_term(const struct kpt_pred_prog *p, const struct kpt_pred_op *op,
		     const uint8_t *rec)
{
	const unsigned char *s;
	uint64_t v, imm = (uint64_t)op->imm;
	uint32_t dl, l;
	size_t n;
	bool eq;

	if ((op->field == KPT_FLD_ARG || op->field == KPT_FLD_ARGSTR) &&
	    (rec[KPT_HDR_SIZE + op->argi / 8] & (1u << (op->argi % 8))))
		return false;
	if (op->cmp < KPT_CMP_STREQ) {
		v = load_le(rec + op->slot, op->size, op->is_signed);
		switch (op->cmp) {
		case KPT_CMP_EQ:
			return v == imm;
		case KPT_CMP_NE:
			return v != imm;
		case KPT_CMP_LT:
			return op->is_signed ? (int64_t)v < (int64_t)imm : v < imm;
		case KPT_CMP_LE:
			return op->is_signed ? (int64_t)v <= (int64_t)imm : v <= imm;
		case KPT_CMP_GT:
			return op->is_signed ? (int64_t)v > (int64_t)imm : v > imm;
		case KPT_CMP_GE:
			return op->is_signed ? (int64_t)v >= (int64_t)imm : v >= imm;
		default:
			return (v & imm) != 0;
		}
	}
	if (op->field == KPT_FLD_COMM) {
		s = rec + op->slot;
		n = strnlen((const char *)s, KPT_COMM_LEN);
	} else {
		dl = (uint32_t)load_le(rec + op->slot, 4, false);
		l = dl >> 16;
		if (!l)
			return false;
		if (l > KPT_PRED_STRCMP)
			l = KPT_PRED_STRCMP;
		s = rec + (dl & 0xffff);
		n = strnlen((const char *)s, l);
	}
	if (op->cmp == KPT_CMP_GLOB)
		return ref_glob(p->strs[op->str], s, n);
	eq = n == strlen(p->strs[op->str]) && !memcmp(s, p->strs[op->str], n);
	return op->cmp == KPT_CMP_STREQ ? eq : !eq;
}

static bool ref_eval(const struct kpt_pred_prog *p, const uint8_t *rec)
{
	bool st[KPT_MAX_PRED + 1];
	int sp = 0, i;

	if (!p->nops)
		return true;
	for (i = 0; i < p->nops; i++) {
		switch (p->ops[i].op) {
		case KPT_PO_TERM:
			st[sp++] = ref_term(p, &p->ops[i], rec);
			break;
		case KPT_PO_NOT:
			st[sp - 1] = !st[sp - 1];
			break;
		case KPT_PO_AND:
			st[sp - 2] = st[sp - 2] && st[sp - 1];
			sp--;
			break;
		default:
			st[sp - 2] = st[sp - 2] || st[sp - 1];
			sp--;
			break;
		}
	}
	return st[0];
}

/* ---- records, built as the BPF side builds them ---- */

static struct kpt_scratch scratch;
static unsigned int rec_end;

/* Cursor over the input's tail. */
struct tail {
	const uint8_t *p;
	size_t n;
};

static uint64_t take(struct tail *t, unsigned int bytes)
{
	uint64_t v = 0;
	unsigned int i;

	for (i = 0; i < bytes; i++) {
		v |= (uint64_t)(t->n ? *t->p : 0) << (8 * i);
		if (t->n) {
			t->p++;
			t->n--;
		}
	}
	return v;
}

static void rec_reset(const struct ev_desc *e, uint32_t tid, uint32_t tgid, uint32_t cpu,
		      const char *comm, size_t commlen)
{
	struct kpt_rec_hdr h;

	/* nothing relies on zeroes, as in test_filter.c */
	memset(scratch.rec, 0x5a, KPT_REC_MAX + KPT_STR_MAX + 8);
	memset(scratch.rec, 0, e->fixed_size);
	memset(&h, 0, sizeof(h));
	h.kind = KPT_REC_EVENT;
	h.tid = tid;
	h.tgid = tgid;
	h.cpu = cpu;
	memcpy(h.comm, comm, commlen < KPT_COMM_LEN ? commlen : KPT_COMM_LEN);
	memcpy(scratch.rec, &h, sizeof(h));
	rec_end = e->fixed_size;
}

static void put_num(const struct ev_arg *a, uint32_t elem, uint64_t v)
{
	memcpy(&scratch.rec[a->slot + elem * a->size], &v, a->size);
}

/* n bytes then a NUL, behind the fixed part; data_loc length n + 1. */
static void put_str(const struct ev_arg *a, const void *s, size_t n)
{
	uint32_t loc;

	if (rec_end + n + 1 > KPT_REC_MAX)
		n = 0;
	loc = (uint32_t)((n + 1) << 16 | rec_end);
	memcpy(&scratch.rec[rec_end], s, n);
	scratch.rec[rec_end + n] = 0;
	rec_end += n + 1;
	memcpy(&scratch.rec[a->slot], &loc, 4);
}

static void put_fault(const struct ev_desc *e, int i)
{
	const struct ev_arg *a = &e->args[i];
	uint32_t loc = rec_end;

	scratch.rec[KPT_HDR_SIZE + i / 8] |= 1 << (i % 8);
	if (spec_type_is_string(a->type))
		memcpy(&scratch.rec[a->slot], &loc, 4);
}

/*
 * Fixed values: variants 0 and 1 pick from the tables; variant 2 gives
 * every string the matcher's worst case (255 'a' then "bc...": the window
 * ends on the 'b') and every number an extreme.
 */
static void fill_args(const struct ev_desc *e, int variant)
{
	static const uint64_t nums[] = {
		0, 1, 200, 0xff, 0x80, 0x7f, 0xffff, 0x8000, 0x80000010, 4000000000u,
		UINT64_MAX, (uint64_t)INT64_MIN, 0xffffffff81000010ull, (uint64_t)-5, 'A', 5,
	};
	static const char *const strs[] = {
		"/usr/bin/python3", "bash", "cat", "", "python", "a*b[c]?\\", "x",
	};
	char big[KPT_PRED_STRCMP + 40];
	int i;
	uint32_t k;

	memset(big, 'a', sizeof(big));
	big[KPT_PRED_STRCMP - 1] = 'b';
	big[KPT_PRED_STRCMP] = 'c';
	for (i = 0; i < e->nargs; i++) {
		const struct ev_arg *a = &e->args[i];
		unsigned int sel = (unsigned int)(i * 7 + variant * 3);

		if (a->data)
			continue;
		if (spec_type_is_string(a->type)) {
			if (variant == 2)
				put_str(a, big, sizeof(big));
			else
				put_str(a, strs[sel % 7], strlen(strs[sel % 7]));
			continue;
		}
		for (k = 0; k < (a->count ? a->count : 1); k++)
			put_num(a, k, variant == 2 ? ((i + k) % 2 ? UINT64_MAX : (uint64_t)INT64_MIN) :
				  nums[(sel + k) % (sizeof(nums) / sizeof(nums[0]))]);
	}
}

/* A record from the input's tail: header, then per argument a fault byte and its value. */
static void fill_from_tail(const struct ev_desc *e, struct tail *t)
{
	uint8_t buf[KPT_PRED_STRCMP + 64];
	uint32_t tid = (uint32_t)take(t, 4), tgid = (uint32_t)take(t, 4),
		 cpu = (uint32_t)take(t, 4), k;
	char comm[KPT_COMM_LEN];
	size_t n;
	int i;

	for (i = 0; i < KPT_COMM_LEN; i++)
		comm[i] = (char)take(t, 1);
	rec_reset(e, tid, tgid, cpu, comm, KPT_COMM_LEN);
	for (i = 0; i < e->nargs; i++) {
		const struct ev_arg *a = &e->args[i];
		uint8_t f;

		if (a->data)
			continue;
		f = (uint8_t)take(t, 1);
		if (spec_type_is_string(a->type)) {
			if (f & 1) {
				put_fault(e, i);
			} else if (f & 2) {
				/* zero length, no fault bit: an empty $comm with no room */
				memset(&scratch.rec[a->slot], 0, 4);
			} else {
				/* up to a bit more than the evaluator's window; NULs allowed */
				n = (size_t)take(t, 2) % sizeof(buf);
				for (k = 0; k < n; k++)
					buf[k] = (uint8_t)take(t, 1);
				put_str(a, buf, n);
			}
			continue;
		}
		for (k = 0; k < (a->count ? a->count : 1); k++)
			put_num(a, k, take(t, a->size));
		if (f & 1)
			put_fault(e, i);
	}
}

static void eval_both(const struct kpt_pred_prog *pre, const struct kpt_pred_prog *post,
		      const char *expr, const char *what)
{
	int got_pre = kpt_filter_eval(&scratch, pre), got_post = kpt_filter_eval(&scratch, post);
	bool want_pre = ref_eval(pre, scratch.rec), want_post = ref_eval(post, scratch.rec);

	FUZZ_CHECK(got_pre == want_pre, "%s: pre program on the %s record: evaluator %d, "
		   "reference %d", expr, what, got_pre, want_pre);
	FUZZ_CHECK(got_post == want_post, "%s: post program on the %s record: evaluator %d, "
		   "reference %d", expr, what, got_post, want_post);
}

static void run_records(const struct ev_desc *e, const struct kpt_pred_prog *pre,
			const struct kpt_pred_prog *post, const char *expr, struct tail t)
{
	int i;

	rec_reset(e, 1234, 1200, 3, "python", 6);
	fill_args(e, 0);
	eval_both(pre, post, expr, "first");

	rec_reset(e, 0, (uint32_t)-1, 0x7fffffff, "bash-with-16-ch", 16);
	fill_args(e, 1);
	eval_both(pre, post, expr, "second");

	rec_reset(e, 0x7fffffff, 0x80000000, 1, "aaaaaaaaaaaaaaab", 16);
	fill_args(e, 2);
	eval_both(pre, post, expr, "long-string");

	rec_reset(e, 7, 7, 0, "", 0);
	for (i = 0; i < e->nargs; i++)
		if (!e->args[i].data)
			put_fault(e, i);
	eval_both(pre, post, expr, "all-faulted");

	if (t.n) {
		fill_from_tail(e, &t);
		eval_both(pre, post, expr, "input's");
	}
}

/* ---- one compile ---- */

static void explain_ok(const struct kpt_pred_prog *p, const struct ev_desc *e, const char *expr)
{
	static char buf[1 << 16];
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	if (!f)
		return;
	filter_explain(f, p, e);
	fputc('\0', f);
	fclose(f);
	FUZZ_CHECK(strcmp(buf, "(invalid filter program)\n"), "%s: explained as invalid", expr);
}

/*
 * --dry-run's explanation, compiled again against the same probe, gives the
 * same program. On unless FUZZ_FILTER_ROUNDTRIP=0 (the defects it found are
 * tests/fuzz/regressions/filter/explain-*, and rows of test_filter.c).
 */
static bool roundtrip;

static void check_roundtrip(const struct kpt_pred_prog *p, const struct ev_desc *e,
			    const char *expr, bool pre)
{
	static char buf[1 << 16];
	struct kpt_pred_prog a, b;
	char msg[256];
	int col, ret;
	size_t n;
	FILE *f;

	if (!p->nops)
		return;
	f = fmemopen(buf, sizeof(buf), "w");
	if (!f)
		return;
	filter_explain(f, p, e);
	fputc('\0', f);
	fclose(f);
	n = strlen(buf);
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	ret = filter_compile(buf, e, &a, &b, msg, sizeof(msg), &col);
	FUZZ_CHECK(ret == 0, "%s: explained as [%s], which does not compile: %s (column %d)",
		   expr, buf, msg, col);
	FUZZ_CHECK(!memcmp(pre ? &a : &b, p, sizeof(*p)) && !(pre ? &b : &a)->nops,
		   "%s: explained as [%s], which compiles to another program", expr, buf);
}

static void one(const char *expr, const struct ev_desc *e, const struct ev_desc *rec_ev,
		size_t msglen, struct tail t)
{
	static const struct kpt_pred_prog zero;
	struct kpt_pred_prog pre, post;
	char *msg = msglen ? malloc(msglen) : NULL;
	int col = -12345, ret;

	memset(&pre, 0xa5, sizeof(pre));
	memset(&post, 0xa5, sizeof(post));
	ret = filter_compile(expr, e, &pre, &post, msg, msglen, &col);
	FUZZ_CHECK(ret == 0 || ret == -EINVAL, "%s: returned %d", expr, ret);
	if (ret) {
		FUZZ_CHECK(col >= 0 && (size_t)col <= strlen(expr), "%s: column %d, length %zu",
			   expr, col, strlen(expr));
		if (msg)
			FUZZ_CHECK(memchr(msg, '\0', msglen) && (msglen == 1 || msg[0]),
				   "%s: no message", expr);
		FUZZ_CHECK(!memcmp(&pre, &zero, sizeof(zero)) && !memcmp(&post, &zero, sizeof(zero)),
			   "%s: programs not cleared after an error", expr);
		free(msg);
		return;
	}
	FUZZ_CHECK(col == 0, "%s: column %d on success", expr, col);
	if (msg)
		FUZZ_CHECK(!msg[0], "%s: message on success", expr);
	free(msg);
	FUZZ_CHECK(pre.nops || post.nops, "%s: compiled to nothing", expr);
	check_prog(&pre, e, true, expr);
	check_prog(&post, e, false, expr);
	explain_ok(&pre, e, expr);
	explain_ok(&post, e, expr);
	if (roundtrip) {
		check_roundtrip(&pre, e, expr, true);
		check_roundtrip(&post, e, expr, false);
	}
	run_records(rec_ev, &pre, &post, expr, t);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	ev_layout(&ev);
	ev_layout(&shadow_ev);
	roundtrip = !getenv("FUZZ_FILTER_ROUNDTRIP") || strcmp(getenv("FUZZ_FILTER_ROUNDTRIP"), "0");
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, '\0', size);
	size_t len = nul ? (size_t)(nul - data) : size;
	struct tail t = { nul ? nul + 1 : data + size, nul ? size - len - 1 : 0 };
	char *expr = malloc(len + 1);

	if (!expr)
		return 0;
	memcpy(expr, data, len);
	expr[len] = '\0';
	one(expr, &ev, &ev, 256, t);
	/* a message buffer of any size (exactly allocated: ASan checks the cut) */
	one(expr, &shadow_ev, &shadow_ev, 1 + len % 97, t);
	one(expr, NULL, &ev, 0, t);
	free(expr);
	return 0;
}
