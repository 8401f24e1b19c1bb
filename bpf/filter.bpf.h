/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The filter evaluator: runs one struct kpt_pred_prog (include/kptrace.h,
 * compiled by src/prepare/filter.c) against the record being built in the scratch
 * buffer: the header (tid, tgid, cpu, comm: filled before "pre" runs), the
 * fault bitmap at KPT_HDR_SIZE and the argument slots ("post" runs after the
 * fetch).
 *
 * Semantics:
 * - a term on an argument whose fetch faulted is false (a string with a
 *   zero-length data_loc too), whatever its operator; '!' then negates it;
 * - numbers: the slot's size bytes, sign-extended when is_signed, compared
 *   as s64 when is_signed, else as u64; '&' is "some bit in common";
 * - strings: a string argument is seen as its first KPT_PRED_STRCMP bytes
 *   (what follows is ignored, as if the string ended there), comm as the
 *   task's 16-byte comm; == and != compare whole strings;
 * - ~ is lib/glob.c's glob_match(): '*', '?', '[abc]', '[a-z]', '[!x]' (no
 *   '[^x]': '^' is a member), a ']' first in a class is a member, '\c' is c.
 *   A class never matches the end of the string. The matcher is the kernel's
 *   iterative one with a single backtrack point for '*', run in bounded
 *   loops: 8448 steps at most, which covers the worst case of a 31-byte
 *   pattern against 256 bytes (at most 32 steps between two backtracks, each
 *   backtrack one byte further, 258 tries). Should the budget still run out,
 *   the term is false.
 * Every term is evaluated (no short circuit): programs are at most
 * KPT_MAX_PRED ops, and the verifier prefers one straight loop.
 *
 * Global (non-static) functions, each checked once by the verifier (see
 * fetch.bpf.h): kpt_filter_eval() runs the postfix program on a stack of
 * booleans kept as the bits of one register, so the verifier has no stack
 * depth to track; kpt_pred_term() evaluates one term; kpt_glob_runs() and
 * kpt_glob_run() run the matcher's steps. The matcher's state is kept in the
 * scratch buffer between steps, not in registers: a value loaded from a map
 * is unknown to the verifier, so every path through a step reaches the next
 * one in the same state and is pruned there, instead of each combination
 * of branches being followed through all the steps.
 *
 * The file is plain C apart from __noinline, __always_inline and
 * barrier_var(): the unit tests (tests/unit/test_filter.c) compile it in
 * userspace with their own of those, and KPT_LOAD() for unaligned loads.
 */
#ifndef KPT_FILTER_BPF_H
#define KPT_FILTER_BPF_H

#ifdef __KPT_BPF__
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "compat.bpf.h"
#include "settings.bpf.h"
#else
/* plain C (the unit tests, the fuzzer): the functions as 5.12+ takes them */
#define KPT_GLOBAL(ret, name, args, cargs, ...)	__noinline ret name args {
#define KPT_CALL(name, args, cargs)		name args
#define KPT_ONLY_IF(cond)			do { } while (0)
#endif
#include "kptrace.h"
#include "scratch.bpf.h"

/* Record offsets are masked to this: every access stays inside rec[]. */
#define KPT_PRED_MASK		(KPT_REC_MAX - 1)

/*
 * The glob matcher's state: the last 8 bytes of rec[], past KPT_REC_MAX +
 * KPT_STR_MAX. Only a string fetch in progress reaches there (its one byte
 * of "longer than the limit" slack, see kpt_put_str()), and no fetch runs
 * while a filter does; records sent are at most KPT_REC_MAX.
 */
#define KPT_GLOB_STATE_OFF	(KPT_REC_MAX + KPT_STR_MAX)
_Static_assert(sizeof(((struct kpt_scratch *)0)->rec) >= KPT_GLOB_STATE_OFF + 8,
	       "the glob state must fit after the record and its string slack");

/*
 * The step budget, in three nested loops each in its own global function:
 * the verifier walks a bounded loop once per iteration, so the cost is the
 * sum of the three, not their product: 4 * 32 * 66 = 8448 >= 258 * 32.
 */
#define KPT_GLOB_STEPS		4	/* steps per kpt_glob_run() */
#define KPT_GLOB_RUNS		32	/* kpt_glob_run() calls per kpt_glob_runs() */
#define KPT_GLOB_CALLS		66	/* kpt_glob_runs() calls per term */

/* kpt_glob_state.bp when no '*' was seen yet: nothing to backtrack to */
#define KPT_GLOB_NOSTAR		0xff

/* kpt_glob_state.flags */
#define KPT_GF_CLASS		1	/* in a [...]: pi is the next span */
#define KPT_GF_FIRST		2	/* at the class's first span: ']' is a member there */
#define KPT_GF_HIT		4	/* a span matched the current character */
#define KPT_GF_INV		8	/* [!...] */

struct kpt_glob_state {
	__u16 si;	/* string index */
	__u16 bs;	/* string index the last '*' retries from */
	__u8 pi;	/* pattern index */
	__u8 bp;	/* pattern index after the last '*', or KPT_GLOB_NOSTAR */
	__u8 flags;	/* KPT_GF_* */
	__u8 pad;
};

enum { KPT_GLOB_CONT = 0, KPT_GLOB_MATCH, KPT_GLOB_FAIL };

/* A possibly unaligned load (slots are packed): the tests use memcpy. */
#ifndef KPT_LOAD
#define KPT_LOAD(type, p)	(*(const type *)(p))
#endif

/* Pattern byte i of string constant k, NUL past the constant. */
static __always_inline __u32 kpt_glob_pat(const struct kpt_pred_prog *prog, __u32 k, __u32 i)
{
	const __u8 *strs = (const __u8 *)prog->strs;
	__u32 off = (k & (KPT_MAX_PRED_STR - 1)) * KPT_PRED_STR + i;

	if (i >= KPT_PRED_STR)
		return 0;
	/* One mask on the final offset: 6.1's verifier loses the bound of
	 * row + column and refuses the load otherwise. */
	barrier_var(off);
	return strs[off & (KPT_MAX_PRED_STR * KPT_PRED_STR - 1)];
}

/* Byte i of the string at rec[off] seen as len bytes, NUL past them. */
static __always_inline __u32 kpt_str_at(const __u8 *rec, __u32 off, __u32 len, __u32 i)
{
	return i < len ? rec[(off + i) & KPT_PRED_MASK] : 0;
}

/* kpt_glob_run()'s packed argument: where the string and the pattern are. */
#define KPT_GW(off, len, k)	((off) | ((len) << 16) | ((k) << 28))
#define KPT_GW_OFF(w)		((w) & 0xffff)
#define KPT_GW_LEN(w)		(((w) >> 16) & 0x3ff)
#define KPT_GW_STR(w)		(((w) >> 28) & (KPT_MAX_PRED_STR - 1))

/*
 * KPT_GLOB_STEPS steps of glob_match() on the state in rec[]. Each step
 * takes one pattern token (a character, '?', '*', '\c', the opening of a
 * class) or one span of a class. Returns KPT_GLOB_CONT while undecided.
 */
KPT_GLOBAL(int, kpt_glob_run, (struct kpt_scratch *s, const struct kpt_pred_prog *prog, __u32 w),
	   (__u32 idx, __u32 post, __u32 w), KPT_C_SCRATCH(s) KPT_C_PROBE(p, idx) KPT_C_PRED(prog, p, post))
	__u32 off = KPT_GW_OFF(w), len = KPT_GW_LEN(w), k = KPT_GW_STR(w);
	__u32 i, pi, si, bp, bs, fl, a, b, c, d;
	volatile struct kpt_glob_state *g;

	KPT_ONLY_IF(KPT_USES(FILTER));
	if (!s || !prog)
		return KPT_GLOB_FAIL;
	g = (volatile struct kpt_glob_state *)&s->rec[KPT_GLOB_STATE_OFF];
	for (i = 0; i < KPT_GLOB_STEPS; i++) {
		/* Reloaded each step: see the top of the file. */
		pi = g->pi;
		si = g->si;
		bp = g->bp;
		bs = g->bs;
		fl = g->flags;
		c = kpt_str_at(s->rec, off, len, si);
		d = kpt_glob_pat(prog, k, pi);

		if (fl & KPT_GF_CLASS) {
			if (!(fl & KPT_GF_FIRST) && d == ']') {
				if (!(fl & KPT_GF_HIT) == !(fl & KPT_GF_INV))
					goto backtrack;
				g->pi = pi + 1;
				g->si = si + 1;
				g->flags = 0;
				continue;
			}
			/* src/prepare/filter.c closes every class: a NUL here is a bad program */
			if (!d)
				return KPT_GLOB_FAIL;
			a = d;
			b = d;
			if (kpt_glob_pat(prog, k, pi + 1) == '-' &&
			    kpt_glob_pat(prog, k, pi + 2) != ']') {
				b = kpt_glob_pat(prog, k, pi + 2);
				if (!b)
					return KPT_GLOB_FAIL;
				pi += 3;
			} else {
				pi += 1;
			}
			if (a <= c && c <= b)
				fl |= KPT_GF_HIT;
			g->pi = pi;
			g->flags = fl & ~KPT_GF_FIRST;
			continue;
		}

		switch (d) {
		case '?':
			if (!c)
				goto backtrack;
			g->pi = pi + 1;
			g->si = si + 1;
			continue;
		case '*':
			/* a trailing '*' matches whatever is left */
			if (!kpt_glob_pat(prog, k, pi + 1))
				return KPT_GLOB_MATCH;
			g->bp = pi + 1;
			g->bs = si;
			g->pi = pi + 1;
			continue;
		case '[':
			if (!c)
				goto backtrack;
			fl = KPT_GF_CLASS | KPT_GF_FIRST;
			if (kpt_glob_pat(prog, k, pi + 1) == '!') {
				fl |= KPT_GF_INV;
				pi++;
			}
			g->pi = pi + 1;
			g->flags = fl;
			continue;
		case '\\':
			d = kpt_glob_pat(prog, k, pi + 1);
			pi++;
			break;
		default:
			break;
		}
		/* a literal */
		if (c == d) {
			if (!d)
				return KPT_GLOB_MATCH;
			g->pi = pi + 1;
			g->si = si + 1;
			continue;
		}
backtrack:
		/* retry from the last '*', one character further */
		if (!c || bp == KPT_GLOB_NOSTAR)
			return KPT_GLOB_FAIL;
		g->pi = bp;
		g->bs = bs + 1;
		g->si = bs + 1;
		g->flags = 0;
	}
	return KPT_GLOB_CONT;
}

/* KPT_GLOB_RUNS times kpt_glob_run(), or until it has an answer. */
KPT_GLOBAL(int, kpt_glob_runs, (struct kpt_scratch *s, const struct kpt_pred_prog *prog, __u32 w),
	   (__u32 idx, __u32 post, __u32 w))
	__u32 i;
	int r;

	KPT_ONLY_IF(KPT_USES(FILTER));
	for (i = 0; i < KPT_GLOB_RUNS; i++) {
		r = KPT_CALL(kpt_glob_run, (s, prog, w), (idx, post, w));
		if (r != KPT_GLOB_CONT)
			return r;
	}
	return KPT_GLOB_CONT;
}

/* The low size bytes at p, sign-extended when is_signed. */
static __always_inline __u64 kpt_pred_load(const __u8 *p, __u32 size, __u32 is_signed)
{
	switch (size) {
	case 1:
		return is_signed ? (__u64)(__s64)KPT_LOAD(__s8, p) : KPT_LOAD(__u8, p);
	case 2:
		return is_signed ? (__u64)(__s64)KPT_LOAD(__s16, p) : KPT_LOAD(__u16, p);
	case 4:
		return is_signed ? (__u64)(__s64)KPT_LOAD(__s32, p) : KPT_LOAD(__u32, p);
	default:
		return KPT_LOAD(__u64, p);
	}
}

/* v cmp imm (enum kpt_pred_cmp, a number's): the filter's and the direct path's. */
static __always_inline int kpt_pred_cmp(__u64 v, __u32 cmp, __u32 is_signed, __u64 imm)
{
	switch (cmp) {
	case KPT_CMP_EQ:
		return v == imm;
	case KPT_CMP_NE:
		return v != imm;
	case KPT_CMP_LT:
		return is_signed ? (__s64)v < (__s64)imm : v < imm;
	case KPT_CMP_LE:
		return is_signed ? (__s64)v <= (__s64)imm : v <= imm;
	case KPT_CMP_GT:
		return is_signed ? (__s64)v > (__s64)imm : v > imm;
	case KPT_CMP_GE:
		return is_signed ? (__s64)v >= (__s64)imm : v >= imm;
	case KPT_CMP_BAND:
		return (v & imm) != 0;
	default:
		return 0;
	}
}

static __always_inline int kpt_pred_num(__u64 v, const struct kpt_pred_op *op)
{
	return kpt_pred_cmp(v, op->cmp, op->is_signed, op->imm);
}

/* The string at rec[off] (len bytes seen) equals constant k. */
static __always_inline int kpt_pred_streq(const __u8 *rec, __u32 off, __u32 len,
					  const struct kpt_pred_prog *prog, __u32 k)
{
	__u32 j, a;

	for (j = 0; j < KPT_PRED_STR; j++) {
		a = kpt_str_at(rec, off, len, j);
		if (a != kpt_glob_pat(prog, k, j))
			return 0;
		if (!a)
			return 1;
	}
	return 0;
}

/* Term i of prog: 1 or 0. */
KPT_GLOBAL(int, kpt_pred_term, (struct kpt_scratch *s, const struct kpt_pred_prog *prog, __u32 i),
	   (__u32 idx, __u32 post, __u32 i), KPT_C_SCRATCH(s) KPT_C_PROBE(p, idx) KPT_C_PRED(prog, p, post))
	volatile struct kpt_glob_state *g;
	const struct kpt_pred_op *op;
	__u32 argi, slot, off, len, k, j, w;
	__u64 v;
	int r;

	KPT_ONLY_IF(KPT_USES(FILTER));
	if (!s || !prog)
		return 0;
	op = &prog->ops[i & (KPT_MAX_PRED - 1)];
	argi = op->argi;
	slot = op->slot & KPT_PRED_MASK;
	switch (op->field) {
	case KPT_FLD_ARG:
	case KPT_FLD_ARGSTR:
		if (s->rec[(KPT_HDR_SIZE + (argi >> 3)) & KPT_PRED_MASK] & (1 << (argi & 7)))
			return 0;
		break;
	case KPT_FLD_TID:
	case KPT_FLD_TGID:
	case KPT_FLD_CPU:
	case KPT_FLD_COMM:
		break;
	default:
		return 0;
	}

	if (op->cmp < KPT_CMP_STREQ) {
		if (op->field == KPT_FLD_COMM || op->field == KPT_FLD_ARGSTR)
			return 0;
		v = kpt_pred_load(&s->rec[slot], op->size, op->is_signed);
		return kpt_pred_num(v, op);
	}

	if (op->field == KPT_FLD_COMM) {
		off = slot;
		len = KPT_COMM_LEN;
	} else if (op->field == KPT_FLD_ARGSTR) {
		/* the data_loc: (length << 16) | offset, length 0 a fault */
		v = KPT_LOAD(__u32, &s->rec[slot]);
		off = v & 0xffff;
		len = v >> 16;
		if (!len)
			return 0;
	} else {
		return 0;
	}
	if (len > KPT_PRED_STRCMP)
		len = KPT_PRED_STRCMP;
	k = op->str & (KPT_MAX_PRED_STR - 1);

	if (op->cmp != KPT_CMP_GLOB) {
		r = kpt_pred_streq(s->rec, off, len, prog, k);
		return op->cmp == KPT_CMP_STRNE ? !r : r;
	}
	g = (volatile struct kpt_glob_state *)&s->rec[KPT_GLOB_STATE_OFF];
	g->pi = 0;
	g->si = 0;
	g->bp = KPT_GLOB_NOSTAR;
	g->bs = 0;
	g->flags = 0;
	w = KPT_GW(off, len, k);
	for (j = 0; j < KPT_GLOB_CALLS; j++) {
		r = KPT_CALL(kpt_glob_runs, (s, prog, w), (idx, post, w));
		if (r != KPT_GLOB_CONT)
			return r == KPT_GLOB_MATCH;
	}
	return 0;
}

/*
 * 1 if the event passes prog (an empty program passes), else 0. The stack
 * of booleans is the bits of st, the top in bit 0. A malformed program
 * (src/prepare/filter.c makes none) gives some answer, never an unsafe access.
 */
KPT_GLOBAL(int, kpt_filter_eval, (struct kpt_scratch *s, const struct kpt_pred_prog *prog),
	   (__u32 idx, __u32 post), KPT_C_SCRATCH(s) KPT_C_PROBE(p, idx) KPT_C_PRED(prog, p, post))
	__u64 st = 0, top;
	__u32 i, n;

	KPT_ONLY_IF(KPT_USES(FILTER));
	if (!s || !prog)
		return 0;
	n = prog->nops;
	if (!n)
		return 1;
	for (i = 0; i < KPT_MAX_PRED; i++) {
		if (i >= n)
			break;
		switch (prog->ops[i].op) {
		case KPT_PO_TERM:
			st = (st << 1) | (KPT_CALL(kpt_pred_term, (s, prog, i), (idx, post, i)) & 1);
			break;
		case KPT_PO_AND:
			top = st & (st >> 1) & 1;
			st = ((st >> 2) << 1) | top;
			break;
		case KPT_PO_OR:
			top = (st | (st >> 1)) & 1;
			st = ((st >> 2) << 1) | top;
			break;
		case KPT_PO_NOT:
			st ^= 1;
			break;
		default:
			return st & 1;
		}
	}
	return st & 1;
}

#endif /* KPT_FILTER_BPF_H */
