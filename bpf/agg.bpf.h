/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * In-kernel aggregation: histograms, counts and latency, instead of a ring
 * buffer record. Unkeyed histograms live in per-CPU arrays (no hash lookup,
 * no lock on the hot path); keyed ones and counts in a per-CPU hash.
 */
#ifndef KPT_AGG_BPF_H
#define KPT_AGG_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "kptrace.h"
#include "kpt_buckets.h"
#include "settings.bpf.h"
#include "maps.bpf.h"
#include "compat.bpf.h"
#include "scratch.bpf.h"
#include "filter.bpf.h"	/* kpt_pred_load() */
#include "target.bpf.h"	/* kpt_task_targeted() */

/* The calls in flight of (tid, probe), created empty if asked; NULL if none. */
static __always_inline struct kpt_calls *kpt_calls_of(__u32 tid, __u32 probe, bool create)
{
	static const struct kpt_calls none;
	struct kpt_depth_key dk = { .tid = tid, .probe = probe };
	struct kpt_calls *c;

	c = bpf_map_lookup_elem(&kpt_depth, &dk);
	if (c || !create)
		return c;
	bpf_map_update_elem(&kpt_depth, &dk, &none, BPF_NOEXIST);
	return bpf_map_lookup_elem(&kpt_depth, &dk);
}

/* One call deeper for (tid, probe): its calls and the new depth (0: none). */
static __always_inline __u32 kpt_depth_push(__u32 tid, __u32 probe, struct kpt_calls **cp)
{
	struct kpt_calls *c = kpt_calls_of(tid, probe, true);

	*cp = c;
	return c ? ++c->depth : 0;
}

/* One call shallower for (tid, probe): the depth returned from, 0 if none. */
static __always_inline __u32 kpt_depth_pop(__u32 tid, __u32 probe, struct kpt_calls **cp)
{
	struct kpt_calls *c = kpt_calls_of(tid, probe, false);

	*cp = c;
	if (!c || !c->depth)
		return 0;
	return c->depth--;
}

/* The entry time slot of depth d (1-based), or NULL past the stack. */
static __always_inline __u64 *kpt_lat_slot(struct kpt_calls *c, __u32 d)
{
	if (!c || !d || d > KPT_LAT_STACK)
		return NULL;
	return &c->ts[(d - 1) & (KPT_LAT_STACK - 1)];
}

/* Latency, a call's entry on thread tid of probe: one call deeper (*depth,
 * 0 if none), and where its entry time goes (NULL: past the stack). */
static __always_inline __u64 *kpt_lat_enter(__u32 tid, __u32 probe, __u32 *depth)
{
	struct kpt_calls *c;

	*depth = kpt_depth_push(tid, probe, &c);
	return kpt_lat_slot(c, *depth);
}

/*
 * Latency, a call's return at time now on thread tid (p: the LAT_END probe):
 * 0 with its duration in *d; 1 when its entry was filtered out; -1 when it
 * has no entry time (never entered, evicted, or too deep), counted unmatched.
 */
static __always_inline int kpt_lat_exit(const struct kpt_probe_entry *p, __u32 tid, __u64 now,
					struct kpt_stats *st, __u64 *d)
{
	struct kpt_calls *c;
	__u32 depth = kpt_depth_pop(tid, p->agg.lat_peer, &c);
	__u64 *ts = kpt_lat_slot(c, depth);

	if (!ts) {
		st->unmatched++;
		return -1;
	}
	if (!*ts)
		return 1;
	*d = now > *ts ? now - *ts : 0;
	return 0;
}

/*
 * At a return probe: the arguments its entry probe saved for this call into
 * s->edata. 0, or -1 when the entry was never seen (it ran before attach, or
 * its slot was evicted): the event is skipped, as a kretprobe without an
 * instance is.
 */
static __always_inline int kpt_edata_pop(struct kpt_scratch *s, __u32 tid, __u32 peer)
{
	struct kpt_start_key sk = { .tid = tid, .probe = peer };
	struct kpt_calls *c;
	struct kpt_edata *v;

	sk.depth = kpt_depth_pop(tid, peer, &c);
	if (!sk.depth)
		return -1;
	v = bpf_map_lookup_elem(&kpt_edata, &sk);
	if (!v)
		return -1;
	__builtin_memcpy(s->edata, v->v, sizeof(s->edata));
	bpf_map_delete_elem(&kpt_edata, &sk);
	return 0;
}

static __always_inline void kpt_pmu_read(struct kpt_pmu_vals *pv, __u32 cpu)
{
	__u32 e;

	__builtin_memset(pv, 0, sizeof(*pv));
	pv->cpu = cpu;
	for (e = 0; e < KPT_PMU_MAX; e++) {
		if (e >= kpt_pmu_n)
			break;
		if (!bpf_perf_event_read_value(&kpt_pmu, e * kpt_pmu_stride + cpu,
					       (struct bpf_perf_event_value *)&pv->c[e],
					       sizeof(pv->c[e])))
			pv->ok |= 1u << e;
	}
}

static __always_inline void kpt_aggval_add(struct kpt_aggval *a, __u64 v, bool is_signed)
{
	if (!a->count || (is_signed ? (__s64)v < (__s64)a->min : v < a->min))
		a->min = v;
	if (!a->count || (is_signed ? (__s64)v > (__s64)a->max : v > a->max))
		a->max = v;
	a->count++;
	a->sum += v;
}

/* Scalar argument argi from its record slot, sign-extended when asked. */
static __always_inline int kpt_slot_value(struct kpt_scratch *s, const struct kpt_probe_entry *p,
					  __u32 argi, bool is_signed, __u64 *v)
{
	const struct kpt_fetch *f;
	__u32 off;

	if (argi >= KPT_MAX_ARGS || argi >= p->nargs)
		return -1;
	/* Restated for the verifier, which loses the bound above; the barrier
	 * stops clang from dropping the mask as redundant. */
	barrier_var(argi);
	argi &= KPT_MAX_ARGS - 1;
	if (s->rec[(KPT_HDR_SIZE + (argi >> 3)) & KPT_OFF_MASK] & (1 << (argi & 7)))
		return -1; /* faulted: nothing to count */
	f = &p->args[argi];
	off = f->slot & KPT_OFF_MASK;
	/* the filter's loader: same slots, same sign extension */
	*v = kpt_pred_load(&s->rec[off], f->size, is_signed);
	return 0;
}

/*
 * String argument argi's first KPT_KEY_STR - 1 bytes into the key at word
 * w, the rest of its room left zero (the key was zeroed): one string, one
 * key. A longer one is cut and counted; a faulted one is the empty string.
 */
static __always_inline void kpt_key_str(struct kpt_scratch *s, const struct kpt_probe_entry *p,
					__u32 argi, struct kpt_key *k, __u32 w,
					struct kpt_stats *st)
{
	__u32 off, dl;
	__u64 len;	/* 64 bits: the bound checked is the register passed */

	if (argi >= KPT_MAX_ARGS || argi >= p->nargs)
		return;
	barrier_var(argi);
	argi &= KPT_MAX_ARGS - 1;
	off = p->args[argi].slot & KPT_OFF_MASK;
	/* the data_loc: (length << 16) | offset, the NUL counted, 0 a fault */
	dl = KPT_LOAD(__u32, &s->rec[off]);
	len = dl >> 16;
	if (len <= 1)
		return;
	if (len > KPT_KEY_STR) {
		len = KPT_KEY_STR;
		st->keys_cut++;
	}
	/* the characters, not the NUL; KPT_KEY_STR is no power of two: no mask */
	len--;
	barrier_var(len);
	if (len > KPT_KEY_STR - 1 || w > KPT_KEY_WORDS - KPT_KEY_STR_WORDS)
		return;
	bpf_probe_read_kernel(&k->w[w], len, &s->rec[(dl & 0xffff) & KPT_OFF_MASK]);
}

/* An :ipv6 argument's 16 bytes into the key at words w, w + 1; a faulted
 * one is left zero (::). */
static __always_inline void kpt_key_ipv6(struct kpt_scratch *s, const struct kpt_probe_entry *p,
					 __u32 argi, struct kpt_key *k, __u32 w)
{
	__u32 off;

	if (argi >= KPT_MAX_ARGS || argi >= p->nargs)
		return;
	barrier_var(argi);
	argi &= KPT_MAX_ARGS - 1;
	if (s->rec[(KPT_HDR_SIZE + (argi >> 3)) & KPT_OFF_MASK] & (1 << (argi & 7)))
		return;
	off = p->args[argi].slot & KPT_OFF_MASK;
	if (w > KPT_KEY_WORDS - 2)
		return;
	bpf_probe_read_kernel(&k->w[w], 16, &s->rec[off]);
}

/* The key words of this event; 0 on success. */
static __always_inline int kpt_make_key(struct kpt_scratch *s, const struct kpt_probe_entry *p,
					struct kpt_key *k, struct kpt_stats *st)
{
	const struct kpt_rec_hdr *h = (const struct kpt_rec_hdr *)s->rec;
	__u32 i, w = 0;
	__u64 v;

	for (i = 0; i < KPT_MAX_KEYS && i < kpt_max_nkeys; i++) {
		if (i >= p->agg.nkeys)
			break;
		if (p->agg.key_peer & (1u << i)) {
			w += kpt_key_width(p->agg.key_kind[i]);
			continue;
		}
		switch (p->agg.key_kind[i]) {
		case KPT_K_COMM:
			if (w + 2 > KPT_KEY_WORDS)
				return -1;
			__builtin_memcpy(&k->w[w & (KPT_KEY_WORDS - 1)], h->comm, 8);
			__builtin_memcpy(&k->w[(w + 1) & (KPT_KEY_WORDS - 1)], h->comm + 8, 8);
			w += 2;
			continue;
		case KPT_K_STR:
			if (w + KPT_KEY_STR_WORDS > KPT_KEY_WORDS)
				return -1;
			kpt_key_str(s, p, p->agg.key_argi[i], k, w, st);
			w += KPT_KEY_STR_WORDS;
			continue;
		case KPT_K_IPV6:
			if (w + 2 > KPT_KEY_WORDS)
				return -1;
			kpt_key_ipv6(s, p, p->agg.key_argi[i], k, w);
			w += 2;
			continue;
		case KPT_K_TGID:
			v = h->tgid;
			break;
		case KPT_K_TID:
			v = h->tid;
			break;
		case KPT_K_CPU:
			v = h->cpu;
			break;
		case KPT_K_CGROUP:
		case KPT_K_CONTAINER:
			/* the v2 (default) hierarchy's: on a v1 host, its "unified"
			 * mount, where runc and systemd give containers their own */
			v = s->cgroup;
			break;
		case KPT_K_KSTACK:
			v = s->kstack_id;
			break;
		case KPT_K_USTACK:
			v = s->ustack_id;
			break;
		case KPT_K_ARG:
			if (kpt_slot_value(s, p, p->agg.key_argi[i], false, &v))
				v = 0;
			break;
		default:
			v = 0;
			break;
		}
		if (w >= KPT_KEY_WORDS)
			return -1;
		k->w[w & (KPT_KEY_WORDS - 1)] = v;
		w++;
	}
	return 0;
}

/* Add v to the keyed aggregation entry k, creating it; 0 or -1 (map full). */
static __always_inline int kpt_kagg_add(struct kpt_key *k, __u64 v, bool is_signed)
{
	static const struct kpt_aggval zero;
	struct kpt_aggval *a;

	a = bpf_map_lookup_elem(&kpt_kagg, k);
	if (!a) {
		/* NOEXIST: another CPU may have created it meanwhile; E2BIG: full */
		bpf_map_update_elem(&kpt_kagg, k, &zero, BPF_NOEXIST);
		a = bpf_map_lookup_elem(&kpt_kagg, k);
		if (!a)
			return -1;
	}
	kpt_aggval_add(a, v, is_signed);
	return 0;
}

/* The bucket of v in a histogram of that kind, n buckets (the parameters
 * of kpt_agg, or of kpt_dh). */
static __always_inline __u32 kpt_bucket_of(__u32 kind, bool is_signed, __s64 lin_min,
					   __s64 lin_step, __u32 n, __u64 v)
{
	switch (kind) {
	case KPT_H_LINEAR:
		return kpt_linear_bucket((__s64)v, lin_min, lin_step, n);
	case KPT_H_SLOG2:
		return kpt_slog2_bucket((__s64)v);
	case KPT_H_LOGLIN:
		/* latencies and counter deltas only, never negative: a guard */
		return kpt_loglin_bucket(is_signed && (__s64)v < 0 ? 0 : v);
	default:
		return kpt_log2_bucket(v);
	}
}

static __always_inline __u32 kpt_bucket(const struct kpt_agg *g, __u64 v)
{
	return kpt_bucket_of(g->hist, g->value_signed, g->lin_min, g->lin_step, g->nbuckets, v);
}

/* v counted in kpt_hist's bucket slot and in its value stats: st's own
 * (KPT_PF_OWN_STATS) or kpt_hstat's of group. Neither past kpt_hist's end. */
static __always_inline void kpt_hist_count(__u32 slot, bool own_stats, __u32 group,
					   bool is_signed, __u64 v, struct kpt_stats *st)
{
	struct kpt_aggval *a;
	__u64 *c;

	c = bpf_map_lookup_elem(&kpt_hist, &slot);
	if (!c)
		return;
	(*c)++;
	/* a key on the stack: 6.1 takes no map key from global-function memory */
	a = own_stats ? &st->val : bpf_map_lookup_elem(&kpt_hstat, &group);
	if (a)
		kpt_aggval_add(a, v, is_signed);
}

/*
 * Past --max-keys (the keyed map full), an event is counted in its group's
 * unkeyed slots, the overflow series: kpt_hist from hist_base and
 * kpt_hstat[group], so the totals over all keys stay exact. Here its
 * value's stats only, where its bucket found room under its key.
 */
static __always_inline void kpt_overflow_stats(const struct kpt_probe_entry *p, __u64 v,
					       struct kpt_stats *st)
{
	__u32 group = p->agg.group;
	struct kpt_aggval *a = bpf_map_lookup_elem(&kpt_hstat, &group);

	st->keys_full++;
	if (a)
		kpt_aggval_add(a, v, p->agg.value_signed);
}

/* Unkeyed histogram of v (p->agg.nkeys == 0): its bucket and the stats. */
static __always_inline void kpt_hist_unkeyed(const struct kpt_probe_entry *p, __u64 v,
					     struct kpt_stats *st)
{
	__u32 b = kpt_bucket(&p->agg, v);

	if (b < p->agg.nbuckets)
		kpt_hist_count(p->agg.hist_base + b, p->flags & KPT_PF_OWN_STATS, p->agg.group,
			       p->agg.value_signed, v, st);
}

/*
 * Histogram of v for probe idx: one bucket and the stats. k is zeroed
 * room for the key, the caller's: one key on kpt_aggregate()'s stack for
 * every path, which with kpt_pmu_exit()'s stays in the verifier's 512 bytes.
 */
static __always_inline void kpt_hist_add(struct kpt_scratch *s, const struct kpt_probe_entry *p,
					 __u32 idx, __u64 v, struct kpt_stats *st,
					 struct kpt_key *k)
{
	__u32 b;

	if (!p->agg.nkeys) {
		kpt_hist_unkeyed(p, v, st);
		return;
	}
	b = kpt_bucket(&p->agg, v);
	if (b >= p->agg.nbuckets)
		return;
	if (kpt_make_key(s, p, k, st))
		return;
	k->probe = p->agg.group;
	k->bucket = b;
	if (kpt_kagg_add(k, v, false)) {
		/* the whole event to the overflow series */
		st->keys_full++;
		kpt_hist_count(p->agg.hist_base + b, false, p->agg.group, p->agg.value_signed,
			       v, st);
		return;
	}
	k->bucket = KPT_BUCKET_STATS;
	if (kpt_kagg_add(k, v, p->agg.value_signed))
		kpt_overflow_stats(p, v, st);
}

/* Return of a call with counters at entry (start) and now (end): the deltas. */
static __always_inline void kpt_pmu_account(const struct kpt_probe_entry *p, __u32 idx,
					    const struct kpt_pmu_vals *start,
					    const struct kpt_pmu_vals *end)
{
	struct kpt_pmu_stats *ps = bpf_map_lookup_elem(&kpt_pmu_stat, &idx);
	__u32 e, slot;
	__u64 d, *c;

	if (!ps)
		return;
	if (start->cpu != end->cpu) {
		ps->migrated++;
		return;
	}
	for (e = 0; e < KPT_PMU_MAX; e++) {
		if (e >= kpt_pmu_n)
			break;
		if (!(start->ok & end->ok & (1u << e))) {
			ps->failed++;
			continue;
		}
		if (end->c[e].running - start->c[e].running !=
		    end->c[e].enabled - start->c[e].enabled) {
			ps->multiplexed++;
			continue;
		}
		d = end->c[e].counter - start->c[e].counter;
		slot = p->agg.pmu_base + e * KPT_LOGLIN_BUCKETS + kpt_loglin_bucket(d);
		c = bpf_map_lookup_elem(&kpt_hist, &slot);
		if (c)
			(*c)++;
		kpt_aggval_add(&ps->d[e & (KPT_PMU_MAX - 1)], d, false);
	}
}

/*
 * The PMU halves of a latency pair, global functions called only when
 * kpt_pmu_n is set: without --pmu the verifier drops the calls, and
 * kpt_aggregate's own code is what it was.
 *
 * Entry of call (tid, probe, depth): the counters, read last, so as little
 * of kptrace as may be is counted; a filtered call leaves no values behind
 * (a stale entry of a lost return must not pair with this call's return).
 */
__noinline int kpt_pmu_enter(__u32 tid, __u32 probe, __u32 depth, __u32 cpu, __u32 passed)
{
	struct kpt_start_key sk = { .tid = tid, .probe = probe, .depth = depth };
	struct kpt_pmu_vals pv;

	KPT_ONLY_IF(kpt_pmu_n);
	if (!passed) {
		bpf_map_delete_elem(&kpt_pmu_start, &sk);
		return 0;
	}
	kpt_pmu_read(&pv, cpu);
	bpf_map_update_elem(&kpt_pmu_start, &sk, &pv, BPF_ANY);
	return 0;
}

/*
 * Return of probe idx (peer: its entry probe) on thread tid: the counters
 * first, then the entry's values at the depth the entry recorded (the
 * caller pops it afterwards).
 */
KPT_GLOBAL(int, kpt_pmu_exit,
	   (const struct kpt_probe_entry *p, __u32 idx, __u32 tid, __u32 cpu, __u32 passed),
	   (__u32 idx, __u32 tid, __u32 cpu, __u32 passed), KPT_C_PROBE(p, idx))
	struct kpt_start_key sk = { .tid = tid };
	struct kpt_pmu_vals pv, *start;
	struct kpt_calls *c;

	KPT_ONLY_IF(kpt_pmu_n);
	if (!p)
		return 0;
	kpt_pmu_read(&pv, cpu);
	c = kpt_calls_of(tid, p->agg.lat_peer, false);
	if (!c || !c->depth)
		return 0;
	sk.probe = p->agg.lat_peer;
	sk.depth = c->depth;
	start = bpf_map_lookup_elem(&kpt_pmu_start, &sk);
	if (!start)
		return 0;
	if (passed)
		kpt_pmu_account(p, idx, start, &pv);
	bpf_map_delete_elem(&kpt_pmu_start, &sk);
	return 0;
}

/*
 * KPT_ACT_SAVE_ARGS: the entry of a return probe keeps its argument slots
 * (8-byte values, one after the other) for this thread and call depth. A
 * global function of its own, called from the handler: its stack copy
 * would push kpt_aggregate's call chain past 6.1's 512-byte stack budget
 * (and 6.1 takes no map value from other memory).
 */
KPT_GLOBAL(int, kpt_save_args, (struct kpt_scratch *s, const struct kpt_probe_entry *p, __u32 idx),
	   (__u32 idx), KPT_C_SCRATCH(s) KPT_C_PROBE(p, idx))
	struct kpt_start_key sk = {};
	struct kpt_calls *c;
	struct kpt_edata ed;
	const struct kpt_rec_hdr *h;

	KPT_ONLY_IF(KPT_USES(EDATA));
	if (!s || !p)
		return 0;
	h = (const struct kpt_rec_hdr *)s->rec;
	__builtin_memcpy(&ed, &s->rec[p->args[0].slot & KPT_OFF_MASK], sizeof(ed));
	sk.tid = h->tid;
	sk.probe = idx;
	sk.depth = kpt_depth_push(h->tid, idx, &c);
	if (!sk.depth)
		return 0;
	bpf_map_update_elem(&kpt_edata, &sk, &ed, BPF_ANY);
	return 0;
}

/* A --from/--to pair's key in group start (its first start probe): its
 * --key values, or the thread. */
static __always_inline int kpt_pair_key(struct kpt_scratch *s, const struct kpt_probe_entry *p,
					__u32 start, struct kpt_pair_key *pk)
{
	const struct kpt_rec_hdr *h = (const struct kpt_rec_hdr *)s->rec;
	__u32 i;

	pk->probe = start;
	if (!p->agg.npair) {
		pk->w[0] = h->tid;
		pk->w32 = h->tid;
		return 0;
	}
	for (i = 0; i < KPT_PAIR_KEYS && i < p->agg.npair; i++)
		if (p->agg.pair_argi[i] == KPT_PAIR_CPU)
			pk->w[i] = h->cpu;
		else if (kpt_slot_value(s, p, p->agg.pair_argi[i], false, &pk->w[i]))
			return -1;	/* faulted: no key */
	pk->w32 = (__u32)pk->w[0];
	return 0;
}

/* A start replaced under its key: by the thread, the idle task's apart (its
 * pid 0 is every CPU's, so its starts mix: --key cpu is the fix). */
static __always_inline void kpt_pair_replaced(const struct kpt_probe_entry *p,
					      const struct kpt_pair_key *pk, struct kpt_stats *st)
{
	if (!p->agg.npair && !pk->w[0])
		st->pair_idle++;
	else
		st->pair_replaced++;
}

/*
 * latency --perfetto: the call just timed, d its latency, as a record of its
 * own: the header in s (the end's) and d after it, over the arguments, which
 * the histogram has read already.
 */
static __always_inline void kpt_emit_call(struct kpt_scratch *s, __u64 d, struct kpt_stats *st)
{
	struct kpt_rec_hdr *h = (struct kpt_rec_hdr *)s->rec;

	h->kind = KPT_REC_CALL;
	h->size = KPT_HDR_SIZE + sizeof(__u64);
	*(__u64 *)&s->rec[KPT_HDR_SIZE] = d;
	if (bpf_ringbuf_output(&kpt_events, s->rec, KPT_HDR_SIZE + sizeof(__u64),
			       kpt_wakeup_flags(h->ts, KPT_HDR_SIZE + sizeof(__u64))))
		st->drops++;
}

/*
 * latency --over: a call at or over it, d its latency: its end's record as
 * built (s->rec_len bytes) and d after it, before kpt_emit_call() writes
 * over the arguments. User space adds the start's arguments it was sent.
 */
static __always_inline void kpt_emit_slow(struct kpt_scratch *s, __u64 d, struct kpt_stats *st)
{
	struct kpt_rec_hdr *h = (struct kpt_rec_hdr *)s->rec;
	__u64 size = s->rec_len, n;

	barrier_var(size);
	if (size > KPT_REC_MAX - sizeof(d) || size < KPT_HDR_SIZE)
		return;
	__builtin_memcpy(&s->rec[size], &d, sizeof(d));
	h->kind = KPT_REC_SLOW;
	h->size = size;
	n = size + sizeof(d);
	barrier_var(n);
	if (n > KPT_REC_MAX)
		return;
	if (bpf_ringbuf_output(&kpt_events, s->rec, n, kpt_wakeup_flags(h->ts, n)))
		st->drops++;
	h->kind = KPT_REC_EVENT;
}

/*
 * latency --from/--to: a start keeps its time under its key (a start there
 * already, never ended, is replaced and counted); an end takes the time
 * under its own key's values, counts now - then, and closes the pair. A
 * filtered end leaves the start open for the end that passes.
 */
static __always_inline void kpt_pair(struct kpt_scratch *s, const struct kpt_probe_entry *p,
				     __u32 idx, struct kpt_stats *st, __u32 passed,
				     struct kpt_key *k)
{
	const struct kpt_rec_hdr *h = (const struct kpt_rec_hdr *)s->rec;
	/* a start's value: its time, or (kpt_pair_carry) the key's room too */
	struct kpt_pair_val *pv = (struct kpt_pair_val *)k;
	struct kpt_pair_key pk = {};
	__u64 ts = h->ts, *start;
	__u32 i;

	if (!passed)
		return;
	if (p->agg.action == KPT_ACT_PAIR_START) {
		if (kpt_pair_key(s, p, p->agg.lat_peer, &pk))
			return;
		if (kpt_pair_carry && p->agg.nkeys && kpt_make_key(s, p, k, st))
			return;
		pv->ts = ts;
		if (bpf_map_update_elem(&kpt_pairs, &pk, pv, BPF_NOEXIST)) {
			kpt_pair_replaced(p, &pk, st);
			bpf_map_update_elem(&kpt_pairs, &pk, pv, BPF_ANY);
		}
		return;
	}
	if (kpt_pair_key(s, p, p->agg.lat_peer, &pk))
		return;
	start = bpf_map_lookup_elem(&kpt_pairs, &pk);
	if (!start) {
		/* an end any task may make: another task's, which -p and the
		 * like filtered before, is no end without its start */
		if ((p->flags & KPT_PF_ANY_TASK) &&
		    (!kpt_task_targeted(((__u64)h->tgid << 32) | h->tid, s->cgroup) ||
		     (kpt_target_comm[0] && kpt_comm_differs(h->comm))))
			st->filtered++;
		else
			st->unmatched++;
		return;
	}
	ts -= *start;
	/* the start's key words, before the delete frees them; the end's own
	 * go between (kpt_make_key() leaves these) */
	if (kpt_pair_carry && p->agg.key_peer)
		for (i = 0; i < KPT_KEY_WORDS; i++)
			k->w[i] = ((struct kpt_pair_val *)start)->w[i];
	bpf_map_delete_elem(&kpt_pairs, &pk);
	kpt_hist_add(s, p, idx, ts, st, k);
	if (kpt_lat_over && ts >= kpt_lat_over)
		kpt_emit_slow(s, ts, st);
	if (kpt_lat_emit)
		kpt_emit_call(s, ts, st);
}

/*
 * kpt_pair() of a direct pair's probe, from the direct path: no record, its
 * key word w (the thread, the cpu or its value) taken from the context, the
 * clock read last at the start and first at the end.
 */
static __always_inline void kpt_pair_direct(const struct kpt_probe_entry *p, struct kpt_stats *st,
					    __u64 w)
{
	struct kpt_pair_key pk = { .w32 = (__u32)w, .w[0] = w };
	__u64 ts, *start;

	/* never a start that keeps keys (it has some: not direct), whose
	 * value a time alone is too short for */
	if (kpt_pair_carry)
		return;
	if (p->agg.action == KPT_ACT_PAIR_START) {
		pk.probe = p->agg.lat_peer;
		ts = bpf_ktime_get_ns();
		if (bpf_map_update_elem(&kpt_pairs, &pk, &ts, BPF_NOEXIST)) {
			kpt_pair_replaced(p, &pk, st);
			bpf_map_update_elem(&kpt_pairs, &pk, &ts, BPF_ANY);
		}
		return;
	}
	ts = bpf_ktime_get_ns();
	pk.probe = p->agg.lat_peer;
	start = bpf_map_lookup_elem(&kpt_pairs, &pk);
	if (!start) {
		st->unmatched++;
		return;
	}
	ts = ts > *start ? ts - *start : 0;
	bpf_map_delete_elem(&kpt_pairs, &pk);
	kpt_hist_unkeyed(p, ts, st);
}

/*
 * The action of probe idx, for the event in s that passed its filter (or, for
 * a latency start, with passed saying whether it did). Global: verified once.
 */
KPT_GLOBAL(int, kpt_aggregate,
	   (struct kpt_scratch *s, const struct kpt_probe_entry *p, __u32 idx, struct kpt_stats *st,
	    __u32 passed),
	   (__u32 idx, __u32 passed), KPT_C_SCRATCH(s) KPT_C_PROBE(p, idx) KPT_C_STATS(st))
	const struct kpt_rec_hdr *h;
	struct kpt_key k = {};
	__u64 v = 0, *ts;
	__u32 depth;

	KPT_ONLY_IF(KPT_USES(AGG));
	if (!s || !p || !st)
		return 0;
	h = (const struct kpt_rec_hdr *)s->rec;
	/* only a latency pair must see filtered events, to keep its depth */
	if (!passed && p->agg.action != KPT_ACT_LAT_START && p->agg.action != KPT_ACT_LAT_END)
		return 0;
	switch (p->agg.action) {
	case KPT_ACT_HIST:
		if (!KPT_ACTS(HIST) ||
		    kpt_slot_value(s, p, p->agg.value_argi, p->agg.value_signed, &v))
			return 0;
		if (p->agg.value_sub_argi != 0xff) {
			__u64 sub;

			if (kpt_slot_value(s, p, p->agg.value_sub_argi, p->agg.value_signed, &sub))
				return 0;
			v -= sub;
		}
		kpt_hist_add(s, p, idx, v, st, &k);
		return 0;
	case KPT_ACT_COUNT:
		/* --sum and the like: the value's count, sum, min and max per key */
		if (!KPT_ACTS(COUNT))
			return 0;
		v = 1;
		if (p->agg.count_value &&
		    kpt_slot_value(s, p, p->agg.value_argi, p->agg.value_signed, &v))
			return 0;	/* faulted: counted as a fault, not here */
		/* without keys, beside the probe's HITS: no map lookup */
		if (p->flags & KPT_PF_OWN_STATS) {
			kpt_aggval_add(&st->val, v, p->agg.value_signed);
			return 0;
		}
		if (kpt_make_key(s, p, &k, st))
			return 0;
		k.probe = p->agg.group;
		k.bucket = KPT_BUCKET_STATS;
		if (kpt_kagg_add(&k, v, p->agg.value_signed))
			kpt_overflow_stats(p, v, st);
		return 0;
	case KPT_ACT_LAT_START:
		/* Depth first, filtered or not, so the return finds its own slot. */
		if (!KPT_ACTS(LAT_START))
			return 0;
		ts = kpt_lat_enter(h->tid, idx, &depth);
		if (ts)
			*ts = passed ? h->ts : 0;
		if (kpt_pmu_n && depth)
			kpt_pmu_enter(h->tid, idx, depth, h->cpu, passed);
		return 0;

	case KPT_ACT_PAIR_START:
	case KPT_ACT_PAIR_END:
		if (!KPT_ACTS(PAIR_START) && !KPT_ACTS(PAIR_END))
			return 0;
		kpt_pair(s, p, idx, st, passed, &k);
		return 0;
	case KPT_ACT_LAT_END:
		if (!KPT_ACTS(LAT_END))
			return 0;
		if (kpt_pmu_n)
			KPT_CALL(kpt_pmu_exit, (p, idx, h->tid, h->cpu, passed),
				 (idx, h->tid, h->cpu, passed));
		/* popped in any case; counted if neither it nor its entry was filtered */
		if (!kpt_lat_exit(p, h->tid, h->ts, st, &v) && passed) {
			kpt_hist_add(s, p, idx, v, st, &k);
			if (kpt_lat_over && v >= kpt_lat_over)
				kpt_emit_slow(s, v, st);
			if (kpt_lat_emit)
				kpt_emit_call(s, v, st);
		}
		return 0;
	default:
		return 0;
	}
}

#endif /* KPT_AGG_BPF_H */
