/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * kptrace why: per thread, from the root function's outermost entry to its
 * return, a log of the entries and returns of the --under functions
 * (include/kptrace.h's struct kpt_why_log). At the root's return the log
 * goes to the ring buffer if the call met kpt_why_cond, else it is left to
 * be overwritten: a call that does not matter costs its log, not output.
 * Every probe of a why run is KPT_PF_DIRECT, reached from kpt_direct(), but
 * a root entry with arguments or a filter: the generic path fetches and
 * filters it, then kpt_why_start() keeps its record in the log.
 */
#ifndef KPT_WHY_BPF_H
#define KPT_WHY_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "kptrace.h"
#include "settings.bpf.h"
#include "maps.bpf.h"
#include "compat.bpf.h"
#include "scratch.bpf.h"

/* What a root call must meet (KPT_WHY_*), its return's width in bytes
 * (an int's upper half of %ax is not its), --slower's ns. */
const volatile __u32 kpt_why_cond = 0;
const volatile __u32 kpt_why_ret_size = 8;
const volatile __u64 kpt_why_slower = 0;
/* Root calls not logged: no thread slot could be made. */
__u64 kpt_why_full = 0;

/* An LRU: a thread that died inside a root never returns to free its slot. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1);		/* KPT_WHY_THREADS in a why run */
	__type(key, __u32);
	__type(value, struct kpt_why_log);
} kpt_why_logs SEC(".maps");

/* A zeroed log to make a thread's slot from: 3 KiB is no stack's. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kpt_why_log);
} kpt_why_zero SEC(".maps");

/* Whether the root call that returned ret at now is to be sent. */
static __always_inline bool kpt_why_holds(const struct kpt_why_log *l, __u64 ret, __u64 now)
{
	__s64 v = kpt_why_ret_size == 4 ? (__s64)(__s32)ret : (__s64)ret;

	if ((kpt_why_cond & KPT_WHY_SLOWER) && now - l->h.ts < kpt_why_slower)
		return false;
	if (!(kpt_why_cond & KPT_WHY_ERROR))
		return true;
	if (kpt_why_cond & KPT_WHY_PTR)
		return !ret || ret >= (__u64)-4095;
	return v < 0 && v >= -4095;
}

/*
 * The root's entry: an outermost one starts the thread's log afresh and
 * returns it, its time left to the caller to set last; off: the root's
 * filter or --budget (kpt_handle()) left the call out, whose calls beneath
 * are then not logged (the log only counts its depth, so a nested root
 * call does not start one): a call is logged whole or not at all.
 */
static __always_inline struct kpt_why_log *kpt_why_root_enter(__u32 idx, __u32 tid, bool off)
{
	struct kpt_why_log *l = bpf_map_lookup_elem(&kpt_why_logs, &tid);
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 zero = 0;

	if (l && l->i.root_depth) {
		l->i.root_depth++;	/* recursion: the outermost call decides */
		return NULL;
	}
	if (!l) {
		struct kpt_why_log *z = bpf_map_lookup_elem(&kpt_why_zero, &zero);

		if (z)
			bpf_map_update_elem(&kpt_why_logs, &tid, z, BPF_NOEXIST);
		l = bpf_map_lookup_elem(&kpt_why_logs, &tid);
		if (!l) {
			__sync_fetch_and_add(&kpt_why_full, 1);
			return NULL;
		}
	}
	__builtin_memset(&l->i, 0, sizeof(l->i));
	l->i.root_depth = 1;
	if (off) {
		l->i.off = 1;
		return NULL;
	}
	l->h.kind = KPT_REC_WHY;
	l->h.probe = (__u16)idx;
	l->h.tid = tid;
	l->h.tgid = pid_tgid >> 32;
	l->h.cpu = bpf_get_smp_processor_id();
	bpf_get_current_comm(l->h.comm, sizeof(l->h.comm));
	return l;
}

/*
 * The root's entry with arguments or a filter (not direct): the generic
 * path's record of them (s->rec, s->rec_len bytes), its filter passed or
 * not, kept at the start of the log's body. A record past KPT_WHY_ARGS_MAX
 * bytes (long strings) is not kept, its size counted for the tree's mark.
 * Global, as kpt_save_args(): the copy's helper call on kpt_handle()'s own
 * frame would be verified once per program.
 */
KPT_GLOBAL(int, kpt_why_start, (struct kpt_scratch *s, __u32 idx, __u32 passed),
	   (__u32 idx, __u32 passed), KPT_C_SCRATCH(s))
	struct kpt_rec_hdr *h;
	struct kpt_why_log *l;
	__u32 len;

	if (!s)
		return 0;
	h = (struct kpt_rec_hdr *)s->rec;
	l = kpt_why_root_enter(idx, h->tid, !passed);
	if (!l)
		return 0;
	len = s->rec_len;
	if (len >= KPT_HDR_SIZE && len <= KPT_WHY_ARGS_MAX) {
		h->size = len;
		/* the mask after the barrier: else clang, which knows it changes
		 * nothing, drops it and the verifier sees an unbounded size */
		barrier_var(len);
		len &= KPT_WHY_ARGS - 1;
		if (!bpf_probe_read_kernel(l->body, len, s->rec))
			l->i.args_len = len;
	} else {
		l->i.args_lost = len;
	}
	l->h.ts = bpf_ktime_get_ns();	/* last: as little of kptrace timed as may be */
	return 0;
}

/* The root's return: the outermost one sends the log if the call met the condition. */
static __always_inline void kpt_why_root_exit(__u32 tid, __u64 ret, struct kpt_stats *st)
{
	struct kpt_why_log *l = bpf_map_lookup_elem(&kpt_why_logs, &tid);
	__u64 now = bpf_ktime_get_ns(), size;

	if (!l || !l->i.root_depth) {
		st->unmatched++;
		return;
	}
	if (--l->i.root_depth || l->i.off)
		return;
	if (!kpt_why_holds(l, ret, now))
		return;
	l->i.end = now;
	l->i.ret = ret;
	size = KPT_WHY_HDR_SIZE + KPT_WHY_ENT_OFF(l->i.args_len) +
	       (__u64)(l->i.n & (KPT_WHY_ENTRIES * 2 - 1)) * sizeof(struct kpt_why_ent);
	/* one register for the bound check and the use (kpt_emit()) */
	barrier_var(size);
	if (size > sizeof(*l))
		return;
	l->h.size = size;
	if (bpf_ringbuf_output(&kpt_events, l, size, 0))
		st->drops++;
}

/* An --under function's entry or return, inside a root call: one entry of the log. */
static __always_inline void kpt_why_under(__u32 idx, __u32 tid, bool is_ret, __u64 ret)
{
	struct kpt_why_log *l = bpf_map_lookup_elem(&kpt_why_logs, &tid);
	struct kpt_why_ent *e;
	__u32 d, n;

	if (!l || !l->i.root_depth || l->i.off)
		return;
	if (is_ret) {
		if (!l->i.depth) {
			l->i.unmatched++;
			return;
		}
		d = --l->i.depth;
	} else {
		d = l->i.depth++;
	}
	n = l->i.n;
	/* past a bound: counted, and the call's return past it too (same depth) */
	if (d >= KPT_WHY_DEPTH || n >= KPT_WHY_ENTRIES) {
		l->i.dropped++;
		return;
	}
	/* after the root's record: masked, so the verifier sees it in the body */
	e = (struct kpt_why_ent *)(l->body + KPT_WHY_ENT_OFF(l->i.args_len)) +
	    (n & (KPT_WHY_ENTRIES - 1));
	e->probe = (__u16)idx;
	e->flags = is_ret ? KPT_WHY_RET : 0;
	e->ret = ret;
	e->ts = bpf_ktime_get_ns();
	l->i.n = n + 1;
}

/* A why probe's hit: v is %ax at a return. */
static __always_inline void kpt_why(const struct kpt_probe_entry *p, __u32 idx,
				    struct kpt_stats *st, __u64 v, __u32 tid)
{
	bool is_ret = p->flags & KPT_PF_RETURN;
	struct kpt_why_log *l;

	if (p->agg.why_role == KPT_WHY_ROOT) {
		if (is_ret) {
			kpt_why_root_exit(tid, v, st);
		} else {
			/* without arguments or a filter: nothing but the log */
			l = kpt_why_root_enter(idx, tid, false);
			if (l)
				l->h.ts = bpf_ktime_get_ns();
		}
		return;
	}
	kpt_why_under(idx, tid, is_ret, v);
}

#endif /* KPT_WHY_BPF_H */
