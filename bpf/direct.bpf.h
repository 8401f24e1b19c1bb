/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The fast paths ("direct"): hits whose whole job the loader could tell
 * before load, done straight from the context, without the scratch area,
 * the probe's fetch program or the generic path's record.
 */
#ifndef KPT_DIRECT_BPF_H
#define KPT_DIRECT_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "kptrace.h"
#include "settings.bpf.h"
#include "maps.bpf.h"
#include "compat.bpf.h"
#include "mem.bpf.h"
#include "regs.bpf.h"
#include "tramp.bpf.h"
#include "tp.bpf.h"
#include "target.bpf.h"
#include "ringbuf.bpf.h"
#include "agg.bpf.h"
#include "why.bpf.h"
#include "filter.bpf.h"

/*
 * Argument register reg (0 to KPT_NR_REG_ARGS - 1) or %ax (KPT_DIRECT_AX) of a registers or
 * trampoline context, as the generic path's copy of the registers would
 * hold it: the direct histogram's value, each of a direct stream's.
 */
static __always_inline __u64 kpt_direct_reg(void *ctx, int kind, __u32 reg)
{
	__u64 x = 0;

	/* one register for the number: without it clang tests the direct
	 * histogram's by masks of kpt_dh's word, and lays its hit out with
	 * three more jumps */
	barrier_var(reg);
	if (kind == KPT_CTX_TRAMP) {
		/* what kpt_tramp_regs() would have put in the register */
		if (reg == KPT_DIRECT_AX ? bpf_get_func_ret(ctx, &x) :
		    bpf_get_func_arg(ctx, reg, &x))
			return 0;
		return x;
	}
	if (reg == KPT_DIRECT_AX) {
		x = PT_REGS_RC((const struct kpt_regs *)ctx);
		barrier_var(x);	/* a load of its own (kpt_arg_reg()) */
		return x;
	}
	return kpt_arg_reg(ctx, reg);	/* < KPT_NR_REG_ARGS */
}

/*
 * A direct value (KPT_DIRECT_*: an argument register, %ax, or the
 * tracepoint field of tp_size bytes at tp_off) straight from the context,
 * as its record slot of size bytes would hold it. -1: the tracepoint field
 * could not be read.
 */
static __always_inline int kpt_direct_load(void *ctx, int kind, __u32 direct, __u32 tp_off,
					   __u32 tp_size, __u32 size, bool is_signed, __u64 *v)
{
	__u64 x = 0;

	if (kind == KPT_CTX_TP) {
		if (kpt_tp_field(ctx, tp_off, tp_size, &x) &&
		    kpt_read_sized(&x, tp_size, (__u64)ctx + tp_off, KPT_RD_KERNEL))
			return -1;
	} else {
		x = kpt_direct_reg(ctx, kind, direct);
	}
	*v = kpt_narrow(x, size, is_signed);
	return 0;
}

/*
 * A tp_btf direct value (KPT_DIRECT_TPBTF, kpt_dh's chain c): TP_PROTO's
 * argument, then plain loads through the pointers it leads to, as a
 * libbpf program's regs->orig_ax is. Every member of c is a read-only
 * constant: the verifier keeps one word's load of the context (which
 * takes constant offsets only, hence the switch, each case pinned as in
 * kpt_arg_reg()) and checks each load against the kernel's BTF at its
 * offset (a load through a BTF pointer that faults reads 0). -1: a NULL
 * pointer on the way, which the generic path counts as a fault too.
 */
#define KPT_TPBTF_WORD(k)	case k: p = ctx[k]; barrier_var(p); break;
#define KPT_TPBTF_HOP(i)					\
	if (!p)							\
		return -1;					\
	p = *(const __u64 *)(p + c->hop[i]);			\
	barrier_var(p);
_Static_assert(KPT_DC_HOPS == 4, "one KPT_TPBTF_HOP() a hop");

static __always_inline int kpt_tpbtf_chain(const __u64 *ctx,
					   const volatile struct kpt_direct_chain *c, __u64 *v)
{
	/* each member loaded where its branch needs it (volatile: every read
	 * is a load), so a branch the verifier drops takes its loads along */
	__u32 nhops = c->nhops, size;
	__u64 p;

	switch (c->word) {
	KPT_TPBTF_WORD(0) KPT_TPBTF_WORD(1) KPT_TPBTF_WORD(2) KPT_TPBTF_WORD(3)
	KPT_TPBTF_WORD(4) KPT_TPBTF_WORD(5) KPT_TPBTF_WORD(6) KPT_TPBTF_WORD(7)
	default:
		return -1;
	}
	if (nhops > 0) {
		KPT_TPBTF_HOP(0)
		if (nhops > 1) {
			KPT_TPBTF_HOP(1)
			if (nhops > 2) {
				KPT_TPBTF_HOP(2)
				if (nhops > 3) {
					KPT_TPBTF_HOP(3)
				}
			}
		}
	}
	size = c->size;
	if (!size) {
		*v = p;
		return 0;
	}
	if (!p)
		return -1;
	/* the member's own width: the verifier refuses a load past its end */
	*v = kpt_pred_load((const __u8 *)(p + c->off), size, 0);
	return 0;
}

/* KPT_PF_DIRECT: the histogram's value (the loader's normalised
 * p->agg.direct). */
static __always_inline int kpt_direct_value(void *ctx, int kind, const struct kpt_probe_entry *p,
					    __u64 *v)
{
	const struct kpt_fetch *f = &p->args[p->agg.value_argi & (KPT_MAX_ARGS - 1)];

	return kpt_direct_load(ctx, kind, p->agg.direct, f->param, (__u32)f->imm, f->size,
			       p->agg.value_signed, v);
}

/* Byte f of kpt_dh's first word w (little-endian). */
#define KPT_DH_BYTE(w, f) \
	((__u32)((w) >> (8 * __builtin_offsetof(struct kpt_direct_hist, f))) & 0xff)

/* A direct histogram's value v counted (kpt_dh's hist, is_signed and
 * own_stats); a direct count's (hist 0), in its stats alone. */
static __always_inline void kpt_hist_direct_count(struct kpt_stats *st, __u32 hist,
						  bool is_signed, bool own_stats, __u64 v)
{
	__u32 b, n;

	if (!hist) {
		kpt_aggval_add(&st->val, v, is_signed);
		return;
	}

	/* the bucket count for a linear histogram's clamp only: a run of one
	 * has all of kpt_hist, whose size bounds b as b < nbuckets does in
	 * kpt_hist_unkeyed() */
	n = hist == KPT_H_LINEAR ? kpt_dh.nbuckets : 0;
	b = kpt_bucket_of(hist, is_signed, hist == KPT_H_LINEAR ? kpt_dh.lin_min : 0,
			  hist == KPT_H_LINEAR ? kpt_dh.lin_step : 0, n, v);
	kpt_hist_count(b, own_stats, 0, is_signed, v, st);
}

/*
 * A tp_btf direct probe's filter, one comparison (fcmp, of fsize bytes,
 * fsigned) of chain c's value with fimm, every parameter a read-only
 * constant: nonzero where it rejects the hit, counted filtered (a NULL
 * pointer on the way a fault too). *v: the value as loaded.
 */
static __always_inline int kpt_tpbtf_filter(__u64 *ctx, struct kpt_stats *st,
					    const volatile struct kpt_direct_chain *c, __u32 fcmp,
					    __u32 fsize, bool fsigned, __s64 fimm, __u64 *v)
{
	if (kpt_tpbtf_chain(ctx, c, v))
		st->faults++;
	else if (kpt_pred_cmp(kpt_narrow(*v, fsize, fsigned), fcmp, fsigned, fimm))
		return 0;
	st->filtered++;
	return 1;
}

/*
 * A tp_btf direct histogram's hit, as kpt_hist_direct() does others: past
 * its filter's one term (fchain) and the check for kptrace's own hits, its
 * value (kpt_dh's chain, or the filter's: KPT_DH_SAME) counted. Each
 * setting is read from kpt_dh where it is tested, not taken from its first
 * word: a load the verifier's pruning leaves is one instruction, where a
 * byte of the word costs a shift and a mask (and clang kept them in
 * registers, spilling around the chains).
 */
static __always_inline void kpt_tpbtf_hist(__u64 *ctx, struct kpt_stats *st)
{
	__u32 fcmp = kpt_dh.fcmp, size;
	bool is_signed = kpt_dh.is_signed;	/* one load: the value's and its counts' */
	__u64 v = 1, f = 0;

	if (fcmp && kpt_tpbtf_filter(ctx, st, &kpt_dh.fchain, fcmp & ~KPT_DH_FILTER, kpt_dh.fsize,
				     kpt_dh.fsigned, kpt_dh.fimm, &f))
		return;
	if (kpt_hist_self(ctx, KPT_CTX_TPBTF, st, kpt_dh.on))
		return;
	/* a count of hits (size 0) reads no value */
	size = kpt_dh.size;
	if (size) {
		/* the value its filter loaded already, as loaded */
		if (fcmp && (kpt_dh.on & KPT_DH_SAME))
			v = f;
		else if (kpt_tpbtf_chain(ctx, &kpt_dh.chain, &v)) {
			st->faults++;
			return;
		}
		v = kpt_narrow(v, size, is_signed);
	}
	kpt_hist_direct_count(st, kpt_dh.hist, is_signed, kpt_dh.own_stats, v);
}

/*
 * A direct histogram's hit (kpt_dh, whose first word is w): what
 * kpt_direct_value() and kpt_hist_unkeyed() do, with every parameter a
 * read-only constant, so the verifier keeps one path of each switch and
 * the loads of the value and the counts. The parameters every hit needs
 * are one load, made first (kpt_handle()), and neither the probe table,
 * the cookie nor kpt_ds is read: under TCG each load is a soft-MMU access
 * (bench/README.md). The other members are loaded only where their branch
 * is taken: a tracepoint's field in a tracepoint's program (kind is each
 * program's constant), a tp_btf argument's loads in a tp_btf program's
 * (kpt_tpbtf_hist()), a linear histogram's bounds in a linear
 * histogram.
 */
static __always_inline void kpt_hist_direct(void *ctx, int kind, struct kpt_stats *st, __u64 w)
{
	bool is_tp = kind == KPT_CTX_TP, is_signed = KPT_DH_BYTE(w, is_signed);
	__u32 on = KPT_DH_BYTE(w, on), fcmp;
	__u64 v = 0;

	if (KPT_CTX_IS_TPBTF(kind)) {
		kpt_tpbtf_hist(ctx, st);
		return;
	}
	/* the filter's one term, false (counted filtered) as the generic path's
	 * is; tested by the word's sign (KPT_DH_FILTER), one jump with no
	 * operand to compute, which the verifier drops whole where there is no
	 * filter */
	if ((__s64)w < 0) {
		fcmp = KPT_DH_BYTE(w, fcmp) & ~KPT_DH_FILTER;
		/* a tracepoint's field in the record's first words only (the
		 * loader's kpt_tp_direct_word): no helper call here, whose
		 * clobbered registers would cost the unfiltered hit spills */
		if (is_tp && kpt_tp_field(ctx, kpt_dh.ftp_off, kpt_dh.ftp_size, &v))
			st->faults++;
		else if (kpt_pred_cmp(kpt_narrow(is_tp ? v : kpt_direct_reg(ctx, kind,
								       KPT_DH_BYTE(w, fdirect)),
						 kpt_dh.fsize, kpt_dh.fsigned),
				      fcmp, kpt_dh.fsigned, kpt_dh.fimm))
			fcmp = 0;
		if (fcmp) {
			st->filtered++;
			return;
		}
	}
	if (kpt_hist_self(ctx, kind, st, on))
		return;
	/* a count of hits (size 0) reads no value */
	if (!KPT_DH_BYTE(w, size)) {
		kpt_aggval_add(&st->val, 1, false);
		return;
	}
	/* a tracepoint's field its filter read already (KPT_DH_SAME; a
	 * register's read is one load anyway) */
	if (is_tp && (__s64)w < 0 && (on & KPT_DH_SAME))
		v = kpt_narrow(v, KPT_DH_BYTE(w, size), is_signed);
	else if (kpt_direct_load(ctx, kind, KPT_DH_BYTE(w, direct), is_tp ? kpt_dh.tp_off : 0,
				 is_tp ? kpt_dh.tp_size : 0, KPT_DH_BYTE(w, size), is_signed, &v)) {
		st->faults++;
		return;
	}
	kpt_hist_direct_count(st, KPT_DH_BYTE(w, hist), is_signed, KPT_DH_BYTE(w, own_stats), v);
}

/*
 * A KPT_PF_DIRECT probe's whole job, nothing else of the handler, once its
 * value v is taken from the context: a histogram of it (hist kmalloc, hist
 * of an argument; inline in the handler but through trampolines), or one
 * half of a latency (kpt_aggregate()'s, for a call nothing filters: the
 * clock read last at an entry and first at a return, so as little of
 * kptrace as may be is timed), or a --from/--to start or end (v its key
 * word), or a why probe's entry or return in its thread's log (why.bpf.h;
 * v a return's %ax). Global: one copy verified
 * once, where every program inlines the handler (the object's size is
 * resident memory).
 */
KPT_GLOBAL(int, kpt_direct,
	   (const struct kpt_probe_entry *p, __u32 idx, struct kpt_stats *st, __u64 v, __u32 tid),
	   (__u32 idx, __u64 v, __u32 tid), KPT_C_PROBE(p, idx) KPT_C_STATS(st))
	__u64 now, *ts;
	__u32 depth;

	KPT_ONLY_IF(KPT_USES(DIRECT));
	if (!p || !st)
		return 0;
	switch (p->agg.action) {
	case KPT_ACT_HIST:
		kpt_hist_unkeyed(p, v, st);
		return 0;
	case KPT_ACT_COUNT:
		/* without keys: beside the probe's HITS (KPT_PF_OWN_STATS); a
		 * count of a value is direct in a run of one alone (kpt_dh) */
		kpt_aggval_add(&st->val, 1, false);
		return 0;
	case KPT_ACT_LAT_START:
		ts = kpt_lat_enter(tid, idx, &depth);
		if (ts)
			*ts = bpf_ktime_get_ns();
		return 0;
	case KPT_ACT_LAT_END:
		now = bpf_ktime_get_ns();
		if (!kpt_lat_exit(p, tid, now, st, &v))
			kpt_hist_unkeyed(p, v, st);
		return 0;
	case KPT_ACT_PAIR_START:
	case KPT_ACT_PAIR_END:
		kpt_pair_direct(p, st, tid);
		return 0;
	case KPT_ACT_WHY:
		kpt_why(p, idx, st, v, tid);
		return 0;
	default:
		return 0;
	}
}

/* A tp_btf direct stream's values (kpt_ds's chains) into its record h. */
static __always_inline void kpt_stream_tpbtf(__u64 *ctx, struct kpt_stats *st,
					     struct kpt_rec_hdr *h)
{
	__u64 x;
	int i;

#pragma unroll
	for (i = 0; i < KPT_DS_MAX_ARGS; i++) {
		if (i >= kpt_ds.nargs)
			break;
		x = 0;
		if (kpt_tpbtf_chain(ctx, &kpt_ds.chain[i], &x)) {
			/* a NULL on the way: the generic path's fault, its slot 0 */
			*((__u8 *)h + KPT_HDR_SIZE) |= 1 << i;
			st->faults++;
		}
		kpt_store_sized((void *)h + kpt_ds.args[i].slot, kpt_ds.args[i].size, x);
	}
}

/*
 * A direct pair probe's value of size bytes (is_signed): argument f, from
 * the context as kpt_direct_load() takes it (direct), or at a tp_btf slot
 * chain c's loads. -1: it could not be read.
 */
static __always_inline int kpt_pair_load(void *ctx, int kind,
					 const volatile struct kpt_direct_chain *c, __u32 direct,
					 const struct kpt_fetch *f, __u32 size, bool is_signed,
					 __u64 *v)
{
	if (KPT_CTX_IS_TPBTF(kind)) {
		*v = 0;
		if (kpt_tpbtf_chain(ctx, c, v))
			return -1;
		*v = kpt_narrow(*v, size, is_signed);
		return 0;
	}
	return kpt_direct_load(ctx, kind, direct, f->param, (__u32)f->imm, size, is_signed, v);
}

/*
 * A direct pair probe's filter, one comparison of a context value with a
 * constant (a hit it rejects counted filtered), then its key word *w: the
 * cpu or the value; by the thread, *w as it was (the caller's tid). -1: the
 * hit makes no pair (kptrace's own too, checked here under kpt_pair_late,
 * uncounted as the handler's check leaves them). At a tp_btf slot, the
 * slot's kpt_tpbtf_pair says
 * which of these there are, and each value's loads: constants, so the
 * verifier never walks a chain that is not there (one of no loads would
 * leave it a pointer).
 */
static __always_inline int kpt_pair_direct_key(void *ctx, int kind,
					       const struct kpt_probe_entry *p,
					       struct kpt_stats *st, __u64 *w)
{
	const volatile struct kpt_tpbtf_pair *tp = &kpt_tpbtf_pair[KPT_TPBTF_SLOT(kind)];
	const struct kpt_pred_op *op = &p->post.ops[0];
	bool tpbtf = KPT_CTX_IS_TPBTF(kind);
	const struct kpt_fetch *f;
	__u64 v;

	if (tpbtf ? tp->filtered : p->post.nops) {
		f = &p->args[op->argi & (KPT_MAX_ARGS - 1)];
		if (kpt_pair_load(ctx, kind, &tp->filter, p->agg.fdirect, f, op->size,
				  op->is_signed, &v)) {
			st->faults++;
			return -1;
		}
		if (!kpt_pred_cmp(v, op->cmp, op->is_signed, op->imm)) {
			st->filtered++;
			return -1;
		}
	}
	/* the check for kptrace's own hits the handler left to here */
	if (kpt_pair_late) {
		v = bpf_get_current_pid_tgid();
		if (kpt_is_own(ctx, kind, v)) {
			st->hits--;
			return -1;
		}
		*w = (__u32)v;
	}
	if (tpbtf ? tp->by == KPT_TPP_THREAD : !p->agg.npair)
		return 0;
	if (tpbtf ? tp->by == KPT_TPP_CPU : p->agg.pair_argi[0] == KPT_PAIR_CPU) {
		*w = bpf_get_smp_processor_id();
		return 0;
	}
	f = &p->args[p->agg.pair_argi[0] & (KPT_MAX_ARGS - 1)];
	if (kpt_pair_load(ctx, kind, &tp->key, p->agg.direct, f, f->size, false, w)) {
		st->faults++;
		return -1;
	}
	return 0;
}

/*
 * A direct pair on one tracepoint (kpt_dp): kpt_tp2's two kpt_handle()
 * calls, the end's work then the start's, in one go with one clock read.
 * Where the end finds a start under the key the next start takes (by cpu:
 * each switch ends its CPU's slice and starts the next), the entry is
 * rewritten in place rather than deleted and made again: that is most of
 * the pair's cost.
 */
static __always_inline void kpt_pair_both(void *ctx)
{
	__u32 ie = kpt_dp.end, is = kpt_dp.start;
	const struct kpt_probe_entry *pe, *ps;
	struct kpt_pair_key pk = {};
	struct kpt_stats *se, *ss;
	__u64 pid_tgid, cgid, now, ke, ks, d, *ts;
	bool end_on, start_on;

	if (kpt_stopped || kpt_self_hit(ctx, KPT_CTX_TP, false, &pid_tgid, &cgid))
		return;
	se = bpf_map_lookup_elem(&kpt_stats, &ie);
	ss = bpf_map_lookup_elem(&kpt_stats, &is);
	pe = bpf_map_lookup_elem(&kpt_probes, &ie);
	ps = bpf_map_lookup_elem(&kpt_probes, &is);
	if (!se || !ss || !pe || !ps || kpt_pair_carry)
		return;
	now = bpf_ktime_get_ns();
	/* each probe's hit counted, targeted and filtered as kpt_handle() would */
	end_on = kpt_task_wanted(se, pid_tgid, cgid, ie);
	if (end_on)
		se->hits++;
	start_on = kpt_task_wanted(ss, pid_tgid, cgid, is);
	if (start_on)
		ss->hits++;
	ke = ks = (__u32)pid_tgid;
	end_on = end_on && !kpt_pair_direct_key(ctx, KPT_CTX_TP, pe, se, &ke);
	start_on = start_on && !kpt_pair_direct_key(ctx, KPT_CTX_TP, ps, ss, &ks);
	if (end_on) {
		pk.probe = pe->agg.lat_peer;
		pk.w32 = (__u32)ke;
		pk.w[0] = ke;
		ts = bpf_map_lookup_elem(&kpt_pairs, &pk);
		if (!ts) {
			se->unmatched++;
		} else {
			d = now > *ts ? now - *ts : 0;
			if (start_on && ks == ke && ps->agg.lat_peer == pk.probe) {
				*ts = now;
				start_on = false;
			} else {
				bpf_map_delete_elem(&kpt_pairs, &pk);
			}
			kpt_hist_unkeyed(pe, d, se);
		}
	}
	if (!start_on)
		return;
	pk.probe = ps->agg.lat_peer;
	pk.w32 = (__u32)ks;
	pk.w[0] = ks;
	if (bpf_map_update_elem(&kpt_pairs, &pk, &now, BPF_NOEXIST)) {
		kpt_pair_replaced(ps, &pk, ss);
		bpf_map_update_elem(&kpt_pairs, &pk, &now, BPF_ANY);
	}
}

/*
 * A direct stream's hit (kpt_ds): the record reserved in the ring buffer at
 * its size, known to the verifier, and written there, where the generic
 * path builds it in the scratch area and copies it in. Every value of the
 * layout is a constant to the verifier, so what it keeps is the loads and
 * stores themselves.
 */
static __always_inline int kpt_stream_direct(void *ctx, int kind, struct kpt_stats *st,
					     __u64 pid_tgid)
{
	struct kpt_rec_hdr *h;
	__u64 now, flags, x;
	int i;

	/* a tp_btf stream's filter, before anything of the record is made */
	if (KPT_CTX_IS_TPBTF(kind) && kpt_ds.fcmp &&
	    kpt_tpbtf_filter(ctx, st, &kpt_ds.fchain, kpt_ds.fcmp & ~KPT_DH_FILTER, kpt_ds.fsize,
			     kpt_ds.fsigned, kpt_ds.fimm, &x))
		return 0;
	now = bpf_ktime_get_ns();
	flags = kpt_wakeup_flags(now, kpt_ds.size);
	h = bpf_ringbuf_reserve(&kpt_events, kpt_ds.size, 0);
	if (!h) {
		st->drops++;
		return 0;
	}
	h->kind = KPT_REC_EVENT;
	h->probe = 0;
	h->size = kpt_ds.size;
	h->ts = now;
	if (kind == KPT_CTX_TRAMP)
		h->ip = kpt_tramp_ip(ctx, kpt_ds.flags & KPT_PF_RETURN);
	else if (KPT_CTX_IS_TPBTF(kind))
		h->ip = 0;	/* a tracepoint's none, as the generic path's */
	else
		h->ip = kpt_probed_ip(ctx, kind, kpt_ds.flags,
				      PT_REGS_IP((const struct kpt_regs *)ctx));
	h->func = kpt_ufunc(ctx, kind, kpt_ds.flags);
	h->tid = (__u32)pid_tgid;
	h->tgid = pid_tgid >> 32;
	h->cpu = bpf_get_smp_processor_id();
	/* nkstack and nustack: none yet, one store */
	*(__u32 *)&h->nkstack = 0;
	bpf_get_current_comm(h->comm, sizeof(h->comm));
	if (kpt_target_comm[0] && kpt_comm_differs(h->comm)) {
		bpf_ringbuf_discard(h, BPF_RB_NO_WAKEUP);
		st->filtered++;
		return 0;
	}
	if (kpt_ds.nargs)
		*((__u8 *)h + KPT_HDR_SIZE) = 0;	/* the fault bitmap: none yet */
	if (KPT_CTX_IS_TPBTF(kind))
		kpt_stream_tpbtf(ctx, st, h);
	/* unrolled: each argument's slot, size and register a constant */
#pragma unroll
	for (i = 0; i < KPT_DS_MAX_ARGS && !KPT_CTX_IS_TPBTF(kind); i++) {
		if (i >= kpt_ds.nargs)
			break;
		kpt_store_sized((void *)h + kpt_ds.args[i].slot, kpt_ds.args[i].size,
				kpt_direct_reg(ctx, kind, kpt_ds.args[i].reg));
	}
	bpf_ringbuf_submit(h, flags);
	return 0;
}

/*
 * The fast paths, all tried here once a hit is counted: a direct histogram
 * (kpt_dh) or stream (kpt_ds), each of a run of one probe, or a
 * KPT_PF_DIRECT probe's histogram, latency half or why log entry. Returns
 * the probe for the generic path to run, or NULL when the hit is done (or
 * has no probe).
 * may_direct: the program may take kpt_dh or kpt_ds, every program but
 * trampoline slots 1-15 (a run of one probe uses slot 0, and copies in the
 * others would be resident object); pair_direct: the program makes a
 * direct pair's start or end inline (kpt_tp2, the one program that serves
 * them on classic tracepoints: the others lay out without the code; a
 * tp_btf slot does where its kpt_tpbtf_pair is on); dh:
 * kpt_dh's first word, 0 where not
 * may_direct; dh_on: its "on", computed once by the caller, which uses it
 * too (computed twice, clang lays the handler out with more instructions).
 * idx: the probe's index, by address: the key of one stack slot for every
 * lookup.
 */
static __always_inline struct kpt_probe_entry *
kpt_fast_paths(void *ctx, int kind, bool may_direct, bool pair_direct, __u64 dh, bool dh_on,
	       const __u32 *idx, struct kpt_stats *st, __u64 pid_tgid)
{
	struct kpt_probe_entry *p;

	/* constants to the verifier, which keeps one path of the three */
	if (dh_on) {
		kpt_hist_direct(ctx, kind, st, dh);
		return NULL;
	}
	/* never a classic tracepoint's: its context is a record, no registers */
	if (may_direct && kind != KPT_CTX_TP && kpt_ds.size) {
		kpt_stream_direct(ctx, kind, st, pid_tgid);
		return NULL;
	}
	p = bpf_map_lookup_elem(&kpt_probes, idx);
	if (!p)
		return NULL;
	if (KPT_USES(DIRECT) && (p->flags & KPT_PF_DIRECT)) {
		__u64 v = 0;

		/* a tp_btf slot's "on" loaded here only, a constant whose
		 * branch the verifier drops where it is off */
		if ((pair_direct || (KPT_CTX_IS_TPBTF(kind) &&
				     kpt_tpbtf_pair[KPT_TPBTF_SLOT(kind)].on)) &&
		    (p->agg.action == KPT_ACT_PAIR_START || p->agg.action == KPT_ACT_PAIR_END)) {
			v = (__u32)pid_tgid;
			if (!kpt_pair_direct_key(ctx, kind, p, st, &v))
				kpt_pair_direct(p, st, v);
			return NULL;
		}

		/* a tp_btf program's direct histogram or count is kpt_dh's,
		 * never the table's: its context is no registers
		 * (plan_tpbtf_direct()) */
		if (!KPT_CTX_IS_TPBTF(kind) && p->agg.action == KPT_ACT_HIST &&
		    kpt_direct_value(ctx, kind, p, &v)) {
			st->faults++;
			return NULL;
		}

		/* kptrace why: a return's value, for its log and the root's
		 * condition. Never in a tracepoint's program: a read of the
		 * registers' %ax there is past a small record's end, and the
		 * kernel refuses to attach such a program (EACCES). */
		if (kind != KPT_CTX_TP && !KPT_CTX_IS_TPBTF(kind) &&
		    p->agg.action == KPT_ACT_WHY && (p->flags & KPT_PF_RETURN))
			v = kpt_direct_reg(ctx, kind, KPT_DIRECT_AX);
		/* a histogram inline, but in the sixteen trampoline slots:
		 * one global function there, where sixteen copies would be
		 * resident object */
		if (p->agg.action == KPT_ACT_HIST && kind != KPT_CTX_TRAMP)
			kpt_hist_unkeyed(p, v, st);
		else
			KPT_CALL(kpt_direct, (p, *idx, st, v, (__u32)pid_tgid),
				 (*idx, v, (__u32)pid_tgid));
		return NULL;
	}
	return p;
}

#endif /* KPT_DIRECT_BPF_H */
