/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What a tracepoint hands over: its raw record. Fields in the record's first
 * words are read with plain loads from the context, the others with a
 * helper call.
 */
#ifndef KPT_TP_BPF_H
#define KPT_TP_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "kptrace.h"
#include "settings.bpf.h"
#include "scratch.bpf.h"
#include "mem.bpf.h"
#include "regs.bpf.h"

/* kpt_tp_word_at() (include/kptrace.h) against this run's bound. */
static __always_inline int kpt_tp_word(__u32 off, __u32 size)
{
	return kpt_tp_word_at(off, size, kpt_tp_end);
}

/* The field's value in its word (little-endian), as a read of size bytes. */
static __always_inline __u64 kpt_tp_bits(__u64 w, __u32 off, __u32 size)
{
	w >>= (off & 7) * 8;
	return size < 8 ? w & ((1ULL << (size * 8)) - 1) : w;
}

/*
 * A tracepoint field of size bytes at off: from the handler's copy of the
 * record's first words (kpt_tp_copy()) where it is there, else read from
 * the record. Nonzero: the read faulted.
 */
static __always_inline __u32 kpt_tp_read(const struct kpt_scratch *s, __u32 off, __u32 size,
					 __u64 *v)
{
	int word = kpt_tp_word(off, size);

	if (word < 0)
		return !!kpt_read_sized(v, size, s->ctx + off, KPT_RD_KERNEL);
	*v = kpt_tp_bits(((const __u64 *)&s->regs)[(word / 8) & (KPT_TP_WORDS - 1)], off, size);
	return 0;
}

/*
 * Plain loads from a tracepoint's record (the context: the verifier allows
 * constant offsets only), each word's load behind its own bound, of two
 * constants the verifier knows, so it prunes the loads past kpt_tp_end (a
 * bound on a switched value may reach the load through another register,
 * the range lost on the way), and pinned as in kpt_arg_reg().
 */
#define KPT_TP_LOAD(o, fail)					\
	if (o + 8 > kpt_tp_end)					\
		fail;						\
	w = *(const __u64 *)(ctx + o);				\
	barrier_var(w);
#define KPT_TP_IF(o)	if (word == o) { KPT_TP_LOAD(o, return -1) goto found; } barrier_var(word);
#define KPT_TP_COPY(o)	{ KPT_TP_LOAD(o, return) d[o / 8] = w; }

/*
 * A tracepoint field of up to 8 bytes in one of the record's first words
 * (kpt_tp_word()), straight from the context: what kpt_read_sized() would
 * have read, without its helper call, a third of a direct histogram's time
 * (bench/README.md). -1: not such a field.
 */
static __always_inline int kpt_tp_field(void *ctx, __u32 off, __u32 size, __u64 *v)
{
	/* one word for every direct field of the run: a constant, so the
	 * verifier keeps one test of the chain and none of the checks; a
	 * chain, each test behind barrier_var(): as a switch, clang would
	 * compute an index of the word, which no hit needs */
	__u32 dw = kpt_tp_direct_word;
	int word = dw ? (int)dw : kpt_tp_word(off, size);
	__u64 w;

	KPT_TP_IF(8) KPT_TP_IF(16) KPT_TP_IF(24) KPT_TP_IF(32)
	KPT_TP_IF(40) KPT_TP_IF(48) KPT_TP_IF(56) KPT_TP_IF(64)
	KPT_TP_IF(72) KPT_TP_IF(80) KPT_TP_IF(88) KPT_TP_IF(96)
	KPT_TP_IF(104) KPT_TP_IF(112) KPT_TP_IF(120)
	return -1;
found:
	*v = kpt_tp_bits(w, off, size);
	return 0;
}

/*
 * The record's first words into d at their own offsets (where a kprobe's
 * registers go in the scratch area), up to kpt_tp_end: the fetches read the
 * fields there (kpt_tp_read()), where each took a bpf_probe_read_kernel().
 */
static __always_inline void kpt_tp_copy(void *ctx, __u64 *d)
{
	__u64 w;

	KPT_TP_COPY(8) KPT_TP_COPY(16) KPT_TP_COPY(24) KPT_TP_COPY(32)
	KPT_TP_COPY(40) KPT_TP_COPY(48) KPT_TP_COPY(56) KPT_TP_COPY(64)
	KPT_TP_COPY(72) KPT_TP_COPY(80) KPT_TP_COPY(88) KPT_TP_COPY(96)
	KPT_TP_COPY(104) KPT_TP_COPY(112) KPT_TP_COPY(120)
}

/*
 * BTF-typed tracepoints (tp_btf): slot n's program has kind KPT_CTX_TPBTF + n,
 * a constant, so its probe and its TP_PROTO's argument count are constants
 * to the verifier, which checks each program against one tracepoint's
 * prototype and refuses a read of the context past its last argument.
 * No cookie: bpf_get_attach_cookie() takes tp_btf programs from 6.10 only.
 */
const volatile __u32 kpt_tpbtf_probe[KPT_TPBTF_SLOTS];
const volatile __u32 kpt_tpbtf_nargs[KPT_TPBTF_SLOTS];

#define KPT_CTX_IS_TPBTF(kind)	((kind) >= KPT_CTX_TPBTF)
#define KPT_TPBTF_SLOT(kind)	(((kind) - KPT_CTX_TPBTF) & (KPT_TPBTF_SLOTS - 1))
#define KPT_TPBTF_ARG(k, parm)	if (k < n) parm(r) = ctx[k];

/*
 * TP_PROTO's arguments where a kprobe's copy has a function's (btfarg.c
 * names them $argN), so every fetch reads them by the same offsets.
 */
static __always_inline void kpt_tpbtf_regs(__u64 *ctx, int kind, struct kpt_regs *r)
{
	__u32 n = kpt_tpbtf_nargs[KPT_TPBTF_SLOT(kind)];

	__builtin_memset(r, 0, sizeof(*r));
	KPT_TPBTF_ARG(0, PT_REGS_PARM1) KPT_TPBTF_ARG(1, PT_REGS_PARM2)
	KPT_TPBTF_ARG(2, PT_REGS_PARM3) KPT_TPBTF_ARG(3, PT_REGS_PARM4)
	KPT_TPBTF_ARG(4, PT_REGS_PARM5) KPT_TPBTF_ARG(5, PT_REGS_PARM6)
#ifdef KPT_ARCH_ARM64
	KPT_TPBTF_ARG(6, PT_REGS_PARM7) KPT_TPBTF_ARG(7, PT_REGS_PARM8)
#endif
}

#endif /* KPT_TP_BPF_H */
