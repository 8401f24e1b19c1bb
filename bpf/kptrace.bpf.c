// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * kptrace's kernel side: one program per attach kind (kprobe and uprobe,
 * tracepoint, kprobe.multi, sixteen fentry/fexit slots), each attached to
 * every probe point of its kind, entries and returns alike; the probe's
 * index in kpt_probes travels as the BPF cookie of each attachment (before
 * 5.15, none: slot programs with the probe a constant, or ident.bpf.h). Each
 * runs kpt_handle(): the fast paths (direct.bpf.h) or the generic path
 * here, which copies the context (regs.bpf.h, tramp.bpf.h, tp.bpf.h),
 * filters (filter.bpf.h), fetches (fetch.bpf.h), then sends the record or
 * aggregates (agg.bpf.h). The settings are settings.bpf.h's, the maps
 * maps.bpf.h's; each header includes what it uses.
 */
#define __KPT_BPF__	/* before any header: kptrace.h is BPF's, not userspace's */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "kptrace.h"
#include "settings.bpf.h"
#include "maps.bpf.h"
#include "scratch.bpf.h"
#include "regs.bpf.h"
#include "tramp.bpf.h"
#include "tp.bpf.h"
#include "ident.bpf.h"
#include "target.bpf.h"
#include "ringbuf.bpf.h"
#include "fetch.bpf.h"
#include "filter.bpf.h"
#include "agg.bpf.h"
#include "stack.bpf.h"
#include "direct.bpf.h"
#include "sched.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/*
 * The context into the scratch area's registers: a copy, because the
 * verifier allows only constant offsets into ctx and %REG is an offset
 * chosen at run time. A tracepoint's context is its raw record: its first
 * words go where the registers would, its address to s->ctx.
 */
static __always_inline void kpt_ctx_copy(void *ctx, int kind, const struct kpt_probe_entry *p,
					 struct kpt_scratch *s)
{
	if (kind == KPT_CTX_TP) {
		/* no clearing first: kpt_tp_read() reads only the words this
		 * copies (kpt_tp_word()'s bound), else the record itself */
		kpt_tp_copy(ctx, (__u64 *)&s->regs);
		s->ctx = (__u64)ctx;
	} else if (!KPT_USES(REGS)) {
		/* latency and counts without arguments: nothing reads them */
	} else if (kind == KPT_CTX_TRAMP) {
		kpt_tramp_regs(ctx, &s->regs, p->flags & KPT_PF_RETURN);
	} else if (KPT_CTX_IS_TPBTF(kind)) {
		kpt_tpbtf_regs(ctx, kind, &s->regs);
	} else {
		kpt_copy_regs(&s->regs, ctx);
	}
}

/* The record, of pos bytes, to the ring buffer. */
static __always_inline int kpt_emit(struct kpt_scratch *s, struct kpt_rec_hdr *h, __u64 pos,
				    struct kpt_stats *st)
{
	/* One register for the bound check and the use: without the barrier
	 * clang checks a copy and passes an unbounded size to the helper. */
	__u64 size = pos;

	barrier_var(size);
	if (size > KPT_REC_MAX || size < KPT_HDR_SIZE)
		return 0;
	h->size = size;
	if (bpf_ringbuf_output(&kpt_events, s->rec, size, kpt_wakeup_flags(h->ts, size)))
		st->drops++;
	return 0;
}

/*
 * --budget: whether this hit of probe idx is left out, counted as sampled
 * or paused. First thing after the hit is counted, so a left-out hit costs
 * a lookup and the clock (a hit of a disarmed bucket, the lookup alone but
 * at its CPU's marks); only probes whose hits leave nothing behind (no
 * latency depth, no entry arguments) have a bucket (src/load/budget.c).
 */
static __always_inline bool kpt_budget_skip(__u32 idx, struct kpt_stats *st)
{
	struct kpt_budget *b = bpf_map_lookup_elem(&kpt_budget, &idx);
	enum kpt_budget_verdict v;
	__u64 now;

	if (!b)
		return false;
	if (!b->armed) {
		/* far under the rate: a clock read every KPT_BUDGET_MARK hits only */
		if (st->hits % KPT_BUDGET_MARK)
			return false;
		now = bpf_ktime_get_ns();
		if (!kpt_budget_mark(b, st->budget_mark, now)) {
			st->budget_mark = now;
			return false;
		}
		st->budget_mark = now;
		b->armed = 1;
	} else {
		now = bpf_ktime_get_ns();
	}
	v = kpt_budget_take(b, st->hits, now);
	if (v == KPT_BUDGET_SAMPLED)
		st->sampled++;
	else if (v == KPT_BUDGET_OVER)
		st->paused++;
	return v != KPT_BUDGET_TAKE;
}

/* The event record's header in the scratch area, of probe idx's hit. */
static __always_inline struct kpt_rec_hdr *kpt_rec_header(void *ctx, int kind,
							 const struct kpt_probe_entry *p,
							 struct kpt_scratch *s, __u32 idx,
							 __u64 pid_tgid, __u32 cpu)
{
	struct kpt_rec_hdr *h = (struct kpt_rec_hdr *)s->rec;

	h->kind = KPT_REC_EVENT;
	h->probe = idx;
	h->ts = KPT_USES(TIME) ? bpf_ktime_get_ns() : 0;
	h->ip = 0;	/* only a printed record shows it; a tracepoint's none */
	if (KPT_USES(REGS) && kind != KPT_CTX_TP && !KPT_CTX_IS_TPBTF(kind))
		h->ip = kpt_probed_ip(ctx, kind, p->flags, PT_REGS_IP(&s->regs));
	h->func = kpt_ufunc(ctx, kind, p->flags);
	h->tid = (__u32)pid_tgid;
	h->tgid = pid_tgid >> 32;
	h->cpu = cpu;
	/* nkstack and nustack: none yet, one store */
	*(__u32 *)&h->nkstack = 0;
	if (KPT_USES(COMM))
		bpf_get_current_comm(h->comm, sizeof(h->comm));
	return h;
}

/*
 * Every program's handler, and the generic path: hits outside the run's
 * window (kpt_stopped) and kptrace's own left out, targeting, the hit
 * counted, one call to the fast paths, then the context copied, the
 * record's header, a return's entry arguments, the filter, the fetches and
 * the probe's action. may_direct, pair_direct: see kpt_fast_paths(); then: 1 + the probe, where
 * the attachment's is not it (kpt_tp2). The steps stay
 * inline here: split further, clang lays the programs out with more
 * instructions (bench/README.md).
 */
static __always_inline int kpt_handle(void *ctx, int kind, bool may_direct, bool pair_direct,
				      __u32 then)
{
	/* a direct histogram's parameters, one load (kpt_hist_direct()) */
	__u64 dh = may_direct ? *(const volatile __u64 *)&kpt_dh : 0;
	/* the probe: the attachment's (ident.bpf.h), but a run of one has
	 * one, and a direct histogram's run is one (each load counts under
	 * TCG); a tp_btf slot's is a constant */
	__u32 idx = then ? then - 1 : KPT_CTX_IS_TPBTF(kind) ? kpt_tpbtf_probe[KPT_TPBTF_SLOT(kind)] :
		    KPT_DH_BYTE(dh, on) || kpt_one_probe ? 0 : kpt_probe_of(ctx, kind);
	struct kpt_probe_entry *p;
	struct kpt_scratch *s;
	struct kpt_stats *st;
	struct kpt_rec_hdr *h;
	__u64 pid_tgid, cgid;
	__u32 cpu, pos, i, passed;

	/* outside the run's window: a load and a branch, nothing counted */
	if (kpt_stopped)
		return 0;
	if (kpt_self_hit(ctx, kind, KPT_DH_BYTE(dh, on) & KPT_DH_NO_IDS, &pid_tgid, &cgid))
		return 0;	/* not the user's: not even counted */
	st = bpf_map_lookup_elem(&kpt_stats, &idx);
	if (!st)
		return 0;
	if (!kpt_task_wanted(st, pid_tgid, cgid, idx))
		return 0;
	st->hits++;
	if (kpt_budget_on && kpt_budget_skip(idx, st)) {
		/* why's root (its only probe with a bucket): the call left out
		 * whole, its log opened "off" for its return to close */
		if (kpt_why_cond)
			kpt_why_root_enter(idx, (__u32)pid_tgid, true);
		return 0;
	}
	p = kpt_fast_paths(ctx, kind, may_direct, pair_direct, dh, KPT_DH_BYTE(dh, on), &idx, st,
			   pid_tgid);
	if (!p)
		return 0;
	/* a run of direct probes only: the verifier drops the rest */
	if (!(kpt_uses & ~KPT_USE_DIRECT))
		return 0;
	cpu = bpf_get_smp_processor_id();
	s = bpf_map_lookup_elem(&kpt_scratch, &cpu);
	if (!s)
		return 0;
	kpt_ctx_copy(ctx, kind, p, s);
	s->cgroup = cgid;

	h = kpt_rec_header(ctx, kind, p, s, idx, pid_tgid, cpu);
	if (kpt_target_comm[0] && !(p->flags & KPT_PF_ANY_TASK) && kpt_comm_differs(h->comm)) {
		st->filtered++;
		return 0;
	}
	/* A return's entry arguments, before any filter: the depth must pop. */
	if (KPT_USES(EDATA) && (p->flags & KPT_PF_EDATA) &&
	    kpt_edata_pop(s, h->tid, p->edata_peer)) {
		st->unmatched++;
		return 0;
	}
	/* The filter's cheap part first: no argument fetched for nothing. */
	passed = !KPT_USES(FILTER) || !p->pre.nops ||
		 KPT_CALL(kpt_filter_eval, (s, &p->pre), (idx, 0));
	/* A latency start goes on when filtered: its return must see the depth;
	 * so does why's root (kpt_why_start()). */
	if (!passed && p->agg.action != KPT_ACT_LAT_START && p->agg.action != KPT_ACT_WHY) {
		st->filtered++;
		return 0;
	}

	/* The fault bitmap: each argument sets its bit on a failed read. */
	__builtin_memset(&s->rec[KPT_HDR_SIZE], 0, KPT_MAX_ARGS / 8);
	s->nfaults = 0;
	pos = p->fixed_size;
	for (i = 0; i < KPT_MAX_ARGS && i < kpt_max_args && passed; i++) {
		const struct kpt_fetch *f = &p->args[i];

		if (i >= p->nargs)
			break;
		if (!KPT_USES(FETCH) || kpt_put_reg(s, f))
			continue;
		pos = KPT_CALL(kpt_fetch_arg, (s, f, i, pos, p->flags), (idx, i, pos, p->flags));
	}
	if (s->nfaults)
		st->faults += s->nfaults;
	if (KPT_USES(FILTER) && passed && p->post.nops &&
	    !KPT_CALL(kpt_filter_eval, (s, &p->post), (idx, 1)))
		passed = 0;
	if (!passed)
		st->filtered++;
	/* a stack in the key: taken here, where the context is (kpt_aggregate has none) */
	if (KPT_USES(STACK) && passed && p->agg.stack_keys)
		kpt_stack_keys(ctx, s, p, h->tgid, st);
	if (p->agg.action == KPT_ACT_SAVE_ARGS)
		return KPT_USES(EDATA) ? KPT_CALL(kpt_save_args, (s, p, idx), (idx)) : 0;
	/* latency --perfetto: a start's arguments, for its call's slice (user
	 * space finds it by the time the call began) */
	if (kpt_lat_emit && passed && (p->nargs || kpt_lat_over) &&
	    (p->agg.action == KPT_ACT_LAT_START || p->agg.action == KPT_ACT_PAIR_START))
		kpt_emit(s, h, pos, st);
	s->rec_len = (__u32)pos;	/* latency --over: an end's record, whole */
	/* why's root with arguments or a filter: its record kept in the log */
	if (kpt_why_cond && p->agg.action == KPT_ACT_WHY)
		return KPT_CALL(kpt_why_start, (s, idx, passed), (idx, passed));
	if (p->agg.action != KPT_ACT_PRINT)
		return KPT_USES(AGG) ? KPT_CALL(kpt_aggregate, (s, p, idx, st, passed), (idx, passed)) : 0;
	if (!passed)
		return 0;
	if (KPT_USES(STACK) && (p->flags & (KPT_PF_KSTACK | KPT_PF_USTACK)))
		pos = kpt_stacks_put(ctx, s, h, p->flags, pos, st);
	return kpt_emit(s, h, pos, st);
}

/*
 * One program for entries and returns alike: a kprobe program attaches as a
 * kretprobe too (the direction is the attachment's), and the probe table
 * says which it is. One program, one verification: start-up time.
 */
SEC("kprobe")
int kpt_entry(struct pt_regs *ctx)
{
	return kpt_handle(ctx, KPT_CTX_REGS, true, false, 0);
}

/*
 * A classic tracepoint's programs return 1: the kernel hands the event to
 * the tracepoint's perf events only when every program on it returns
 * non-zero, and those events are shared, so a 0 would hide the event from
 * a perf record or perf stat running beside kptrace.
 */
#define KPT_TP_PASS 1

SEC("tracepoint")
int kpt_tp(void *ctx)
{
	kpt_handle(ctx, KPT_CTX_TP, true, false, 0);
	return KPT_TP_PASS;
}

/* BTF-typed tracepoints: a slot each (tp.bpf.h), the loader sets its target;
 * a run of one probe's in slot 0, the only one that takes kpt_dh or kpt_ds */
#define KPT_TPBTF(n)						\
	SEC("tp_btf")						\
	int kpt_tpbtf##n(__u64 *ctx)				\
	{							\
		return kpt_handle(ctx, KPT_CTX_TPBTF + n, n == 0, false, 0);	\
	}
KPT_TPBTF(0) KPT_TPBTF(1) KPT_TPBTF(2) KPT_TPBTF(3)
KPT_TPBTF(4) KPT_TPBTF(5) KPT_TPBTF(6) KPT_TPBTF(7)

/*
 * A direct histogram whose run reads no task ids (KPT_DH_NO_IDS: a run of
 * one probe, untargeted): programs that do that hit alone, in place of
 * kpt_entry, kpt_tp and tp_btf slot 0 (the loader's prog_of()). Laid out
 * by clang without the generic path, whose register pressure each hit
 * would pay in spills, and nothing of the handler's settings loaded.
 */
static __always_inline int kpt_dh_hit(void *ctx, int kind)
{
	__u64 w = *(const volatile __u64 *)&kpt_dh;
	struct kpt_stats *st;
	__u32 idx = 0;

	if (kpt_stopped)
		return 0;
	st = bpf_map_lookup_elem(&kpt_stats, &idx);
	if (!st)
		return 0;
	st->hits++;
	kpt_hist_direct(ctx, kind, st, w);
	return 0;
}

SEC("kprobe")
int kpt_entry_dh(struct pt_regs *ctx)
{
	return kpt_dh_hit(ctx, KPT_CTX_REGS);
}

SEC("tracepoint")
int kpt_tp_dh(void *ctx)
{
	kpt_dh_hit(ctx, KPT_CTX_TP);
	return KPT_TP_PASS;
}

SEC("tp_btf")
int kpt_tpbtf_dh(__u64 *ctx)
{
	return kpt_dh_hit(ctx, KPT_CTX_TPBTF);
}

/*
 * Two definitions on one tracepoint (latency's two ends at sched_switch):
 * one attachment does both, the cookie's probe then the one in its upper
 * half (an end's work, then the next start's): one program run a hit; a
 * direct pair's two in one go (kpt_pair_both()). It also serves each
 * direct --from/--to probe on a tracepoint, its start or end made inline.
 */
SEC("tracepoint")
int kpt_tp2(void *ctx)
{
	__u64 c;

	if (KPT_USES(DIRECT) && kpt_dp.on) {
		kpt_pair_both(ctx);
		return KPT_TP_PASS;
	}
	/* the cookie read once for both probes: a helper call each */
	c = kpt_no_cookie ? 0 : bpf_get_attach_cookie(ctx);
	kpt_handle(ctx, KPT_CTX_TP, true, true, kpt_no_cookie ? 0 : (__u32)c + 1);
	if (c >> 32)
		kpt_handle(ctx, KPT_CTX_TP, true, true, c >> 32);
	return KPT_TP_PASS;
}

/*
 * No BPF cookies (before 5.15, the compat object): a probe may have a
 * program of its own, a slot whose probe is a read-only constant, so hits
 * that look alike (two tracepoints, two uprobes, two probes on one entry)
 * differ by the program they run. The main object fills only its first
 * few tracepoint slots, below; the two objects must lay out alike
 * (Makefile).
 */
#ifdef KPT_COMPAT
/* one copy of the handler for all slots of a kind: a static function is
 * verified at each call, its probe a constant there as in the caller */
static __noinline int kpt_slot_regs(void *ctx, __u32 then)
{
	return kpt_handle(ctx, KPT_CTX_REGS, true, false, then);
}

static __noinline int kpt_slot_tp(void *ctx, __u32 then)
{
	return kpt_handle(ctx, KPT_CTX_TP, true, false, then);
}
#define KPT_SLOT_RUN(ctx, kind, n)					\
	((kind) == KPT_CTX_TP ? kpt_slot_tp : kpt_slot_regs)(ctx, kpt_slot_probe[n] + 1)
/* a tracepoint's second definition, as kpt_tp2 runs it */
#define KPT_SLOT_THEN(ctx, n)	(kpt_slot_then[n] ? kpt_slot_tp(ctx, kpt_slot_then[n]) : 0)
#else
/* With cookies, the first few tracepoint slots still serve: a hit of a run
 * of several tracepoints knows its probe without a cookie, a helper call
 * (load/ident.h); the handler inline, so the probe is a constant in it. */
#define KPT_SLOT_RUN(ctx, kind, n)					\
	((kind) == KPT_CTX_TP && (n) < KPT_TP_FAST_SLOTS ?		\
		 kpt_handle(ctx, KPT_CTX_TP, true, true, kpt_slot_probe[n] + 1) : 0)
#define KPT_SLOT_THEN(ctx, n)	0
#endif
#define KPT_SLOT(n)							\
	SEC("kprobe")							\
	int kpt_entry_s##n(struct pt_regs *ctx)				\
	{								\
		return KPT_SLOT_RUN(ctx, KPT_CTX_REGS, n);		\
	}								\
	SEC("tracepoint")						\
	int kpt_tp_s##n(void *ctx)					\
	{								\
		KPT_SLOT_RUN(ctx, KPT_CTX_TP, n);			\
		KPT_SLOT_THEN(ctx, n);					\
		return KPT_TP_PASS;					\
	}
KPT_SLOT(0) KPT_SLOT(1) KPT_SLOT(2) KPT_SLOT(3)
KPT_SLOT(4) KPT_SLOT(5) KPT_SLOT(6) KPT_SLOT(7)
KPT_SLOT(8) KPT_SLOT(9) KPT_SLOT(10) KPT_SLOT(11)
KPT_SLOT(12) KPT_SLOT(13) KPT_SLOT(14) KPT_SLOT(15)
_Static_assert(KPT_ID_SLOTS == 16, "one KPT_SLOT() per slot");

/* Many functions through one link each (Linux 5.18+, CONFIG_FPROBE); entries
 * and returns, as above. */
SEC("kprobe.multi")
int kpt_entry_multi(struct pt_regs *ctx)
{
	return kpt_handle(ctx, KPT_CTX_MULTI, true, false, 0);
}

/* profile:hz:N: a CPU clock's samples on each CPU, the interrupted registers
 * first in the context. */
SEC("perf_event")
int kpt_perf(struct bpf_perf_event_data *ctx)
{
	return kpt_handle(ctx, KPT_CTX_PERF, false, false, 0);
}

/*
 * fentry/fexit: a BPF trampoline program is verified against one function,
 * so each probe on this backend takes one of these slots; the loader sets
 * its direction and function before load and leaves the unused ones out.
 * bpf_get_func_ret() in a slot loaded as fentry is the kernel's -EOPNOTSUPP.
 */
#define KPT_TRAMP(n)						\
	SEC("fentry")						\
	int kpt_tramp##n(__u64 *ctx)				\
	{							\
		return kpt_handle(ctx, KPT_CTX_TRAMP, n == 0, false, 0);	\
	}
KPT_TRAMP(0) KPT_TRAMP(1) KPT_TRAMP(2) KPT_TRAMP(3)
KPT_TRAMP(4) KPT_TRAMP(5) KPT_TRAMP(6) KPT_TRAMP(7)
KPT_TRAMP(8) KPT_TRAMP(9) KPT_TRAMP(10) KPT_TRAMP(11)
KPT_TRAMP(12) KPT_TRAMP(13) KPT_TRAMP(14) KPT_TRAMP(15)

/* #defines of the UAPI, not in BTF: sched.h's CLONE_THREAD, errno's EEXIST. */
#define KPT_CLONE_THREAD	0x00010000
#define KPT_EEXIST		17

/*
 * -c: a process a traced one creates is traced from its first instruction
 * (as perf record -- CMD follows forks): task_newtask fires in the parent,
 * before the child is first woken. A thread needs nothing: its tgid is
 * traced already. Only loaded where kpt_target_set follows forks.
 */
SEC("tracepoint")
int kpt_newtask(void *ctx)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32, pid = 0, one = 1;
	__u64 flags = 0;
	long err;

	if (!bpf_map_lookup_elem(&kpt_procs, &tgid))
		return KPT_TP_PASS;
	if (bpf_probe_read_kernel(&flags, sizeof(flags), (void *)((__u64)ctx + kpt_nt_flags_off)) ||
	    (flags & KPT_CLONE_THREAD) ||
	    bpf_probe_read_kernel(&pid, sizeof(pid), (void *)((__u64)ctx + kpt_nt_pid_off)))
		return KPT_TP_PASS;
	err = bpf_map_update_elem(&kpt_procs, &pid, &one, BPF_NOEXIST);
	if (err && err != -KPT_EEXIST)	/* full: -E2BIG */
		__sync_fetch_and_add(&kpt_procs_full, 1);
	return KPT_TP_PASS;
}

/*
 * A traced process leaves kpt_procs when its task is freed: its pid is free
 * for another process from then on. A thread group's leader is freed last,
 * with the group's pid (a non-leader's exec swaps the pids first); the
 * other threads' pids are no key.
 */
SEC("tracepoint")
int kpt_procfree(void *ctx)
{
	__u32 pid = 0;

	if (!bpf_probe_read_kernel(&pid, sizeof(pid), (void *)((__u64)ctx + kpt_free_pid_off)))
		bpf_map_delete_elem(&kpt_procs, &pid);
	return KPT_TP_PASS;
}
