/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Whom a hit is for: kptrace itself (never traced), and the tasks -p, -c,
 * -t, --cgroup and --comm select.
 */
#ifndef KPT_TARGET_BPF_H
#define KPT_TARGET_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "kptrace.h"
#include "settings.bpf.h"
#include "maps.bpf.h"
#include "scratch.bpf.h"
#include "regs.bpf.h"

static __always_inline bool kpt_comm_differs(const char *comm)
{
	int i;

	for (i = 0; i < KPT_COMM_LEN; i++) {
		if (comm[i] != kpt_target_comm[i])
			return true;
		if (!comm[i])
			break;
	}
	return false;
}

/* --cgroup, --container: whether the task's cgroup (id) is one of those traced. */
static __always_inline bool kpt_cgroup_wanted(__u64 id)
{
	__u32 i;

	if (!kpt_target_ncgroups)
		return true;
	for (i = 0; i < KPT_TARGET_CGROUPS; i++) {
		if (i >= kpt_target_ncgroups)
			break;
		if (kpt_target_cgroups[i] == id)
			return true;
	}
	return false;
}

/* -p, -c, -t, --cgroup: whether the task (its ids in pid_tgid, its cgroup
 * cgid) is one traced. */
static __always_inline bool kpt_task_targeted(__u64 pid_tgid, __u64 cgid)
{
	__u32 tgid = pid_tgid >> 32;

	if (!kpt_targeted)
		return true;
	return !(kpt_target_set ? !bpf_map_lookup_elem(&kpt_procs, &tgid) :
				  kpt_target_tgid && tgid != kpt_target_tgid) &&
	       !(kpt_target_tid && (__u32)pid_tgid != kpt_target_tid) && kpt_cgroup_wanted(cgid);
}

/*
 * Whether the hit of probe idx goes on: its task traced, or the probe an end
 * any task may make (KPT_PF_ANY_TASK); if not, counted as filtered. The ids
 * are read once a hit, by the caller: every path needs the tgid for
 * kpt_self_tgid, and the records and latencies need them too.
 */
static __always_inline bool kpt_task_wanted(struct kpt_stats *st, __u64 pid_tgid, __u64 cgid,
					    __u32 idx)
{
	struct kpt_probe_entry *p;

	if (kpt_task_targeted(pid_tgid, cgid))
		return true;
	if (kpt_any_task_ends && (p = bpf_map_lookup_elem(&kpt_probes, &idx)) &&
	    (p->flags & KPT_PF_ANY_TASK))
		return true;
	st->filtered++;
	return false;
}

/*
 * The current task's ids (tgid << 32 | pid), and its cgroup id in the
 * default (v2) hierarchy into *cgid where the run targets or keys by cgroup
 * (else 0), as bpf_get_current_cgroup_id() gives it: cgroup_id() of its
 * css_set's dfl_cgrp. One helper call for both where the loader found the
 * chain's offsets (no CO-RE relocation, which would read the kernel's BTF
 * in every run): where the kernel's returns are mitigated (AMD's SRSO),
 * each call costs as much as the rest of a keyed count. 5.10's object has
 * no task pointer helper (5.11): the two helpers there.
 */
static __always_inline __u64 kpt_current(__u64 *cgid)
{
	bool need = kpt_target_ncgroups || kpt_cgroup_key;
#ifndef KPT_COMPAT
	void *t;

	if (need && kpt_cg_loads) {
		t = bpf_get_current_task_btf();
		*cgid = *(__u64 *)(*(void **)(*(void **)(*(void **)(t + kpt_cg_off[0]) +
							  kpt_cg_off[1]) + kpt_cg_off[2]) +
				   kpt_cg_off[3]);
		return ((__u64)*(__u32 *)(t + kpt_task_tgid_off) << 32) | *(__u32 *)(t + kpt_cg_off[4]);
	}
#endif
	*cgid = need ? bpf_get_current_cgroup_id() : 0;
	return bpf_get_current_pid_tgid();
}

/* x86-64's and arm64's THREAD_SIZE; KASAN doubles it, and there a hit deep
 * in a stack's lower half reads as an interrupt's: counted, not lost. */
#define KPT_TASK_STACK	(16u << 10)

/* A pointer's value, which the verifier lets a program read only from memory. */
static __always_inline __u64 kpt_addr_of(const void *p)
{
	__u64 a = 0;

	bpf_probe_read_kernel(&a, sizeof(a), &p);
	return a;
}

/*
 * Whether a hit whose current task is kptrace ran in that task's context,
 * not in an interrupt that landed on it (a timer waking another task, a
 * disk's completion): only the first is kptrace's own. Told by the stack
 * the hit runs on, the task's from its bottom to its saved registers
 * (bpf_task_pt_regs()) or a per-CPU interrupt stack: the stack pointer a
 * context holds (a classic tracepoint's is the caller's, in registers the
 * first record word points to), or the address of a context the kernel
 * built on the stack (tp_btf's arguments, a trampoline's). A user address
 * is a system call's registers or a uprobe's, the task's. An exception
 * from user mode (a page fault) reads as an interrupt on x86-64. Paid only
 * on hits of kptrace's process. 5.10's object has no bpf_task_pt_regs():
 * the process alone decides there.
 */
static __always_inline bool kpt_in_task(void *ctx, int kind)
{
#ifdef KPT_COMPAT
	return true;
#else
	__u64 at = 0, regs = 0, top;

	if (kind == KPT_CTX_PERF)
		return true;	/* a sample of kptrace is kptrace's time */
	if (kind == KPT_CTX_TP) {
		if (bpf_probe_read_kernel(&regs, sizeof(regs), ctx) ||
		    bpf_probe_read_kernel(&at, sizeof(at),
					  (void *)(regs + __builtin_offsetof(struct kpt_regs, sp))))
			return true;
	} else if (kind == KPT_CTX_REGS || kind == KPT_CTX_MULTI) {
		/* a kprobe's (kprobe.multi's a per-CPU copy) or a uprobe's */
		at = ((struct kpt_regs *)ctx)->sp;
	} else {
		at = kpt_addr_of(ctx);
	}
	if ((__s64)at >= 0)
		return true;
	top = kpt_addr_of((void *)bpf_task_pt_regs(bpf_get_current_task_btf()));
	if (top - at >= KPT_TASK_STACK)
		return false;
#ifdef KPT_ARCH_X86
	/* x86-64 runs an interrupt that came from user mode on the task's
	 * stack: the registers saved there say how the task entered the
	 * kernel, a system call's number or -1 (an interrupt, an exception) */
	__u64 oax = 0;

	if (!bpf_probe_read_kernel(&oax, sizeof(oax),
				   (void *)(top + __builtin_offsetof(struct kpt_regs, orig_ax))) &&
	    (__s64)oax == -1)
		return false;
#endif
	return true;
#endif
}

/* Whether a hit whose task's ids are pid_tgid is kptrace's own: its
 * process (kpt_self_tgid, 0: none of the run's probes can see it), in its
 * task's context. */
static __always_inline bool kpt_is_own(void *ctx, int kind, __u64 pid_tgid)
{
	__u32 self = kpt_self_tgid;	/* one load: the verifier knows it */

	return self && (__u32)(pid_tgid >> 32) == self && kpt_in_task(ctx, kind);
}

/*
 * Whether kptrace itself hit the probe (kpt_self_tgid), with the task's ids
 * into *pid_tgid and its cgroup into *cgid (kpt_current()), read once a
 * hit: targeting, records and latency need them too. A direct histogram
 * that needs none of them (KPT_DH_NO_IDS: untargeted) is spared the helper
 * call, the check's whole cost (bench/README.md): where kptrace cannot hit
 * its probe (uprobes in other files: kpt_self_tgid 0), and else until its
 * filter passed (kpt_hist_self(); under a budget, whose tokens a hit of
 * kptrace's must not take, here); so is a direct pair's (kpt_pair_late).
 * A tracepoint program may not read the record's common_pid instead.
 */
static __always_inline bool kpt_self_hit(void *ctx, int kind, bool no_ids, __u64 *pid_tgid,
					 __u64 *cgid)
{
	*pid_tgid = 0;
	*cgid = 0;
	if (no_ids || kpt_pair_late)
		return false;
	*pid_tgid = kpt_current(cgid);
	return kpt_is_own(ctx, kind, *pid_tgid);
}

/*
 * Whether a hit is kptrace's own, with no helper call where this CPU's
 * last hit of another process ran on the same task's stack (kept in the
 * probe's per-CPU stats, st, which the hit has looked up already):
 * a program runs on the stack of what it hit (the address of a local of
 * it is on it), a task's stack is its own while it lives, and kptrace's
 * one task predates the run (it makes no thread), so a stack once another
 * process's is never kptrace's during it. A miss asks the task (one helper
 * call, as kpt_is_own()'s) and keeps its stack, never kptrace's. A stack
 * is taken at KPT_TASK_STACK, THREAD_SIZE's least: a hit beyond, or on an
 * interrupt's stack, only misses. Not a perf event's sample (kpt_in_task()).
 */
static __always_inline bool kpt_own_by_stack(void *ctx, int kind, struct kpt_stats *st)
{
#ifdef KPT_COMPAT
	return kpt_is_own(ctx, kind, bpf_get_current_pid_tgid());
#else
	__u32 here = 0;
	__u64 base, at = (__u64)&here;
	void *t;

	if (at >= st->oncpu_stack && at < st->oncpu_stack + KPT_TASK_STACK)
		return false;
	t = bpf_get_current_task_btf();
	if (*(__u32 *)(t + kpt_task_tgid_off) == kpt_self_tgid)
		return kpt_in_task(ctx, kind);
	base = *(__u64 *)(t + kpt_oncpu_stack_off);
	if (at >= base && at < base + KPT_TASK_STACK)
		st->oncpu_stack = base;
	return false;
#endif
}

/*
 * A direct histogram's hit its filter passed (or one without a filter):
 * kptrace's own, left out uncounted, where kpt_self_hit() left the check
 * to here (kpt_dh's on: KPT_DH_SELF_*, untargeted, no budget). One the
 * filter rejected is counted filtered, kptrace's or not: a system-wide
 * histogram's every rejected hit is spared the helper call, and with the
 * stack check most passing hits of other processes too.
 */
static __always_inline bool kpt_hist_self(void *ctx, int kind, struct kpt_stats *st, __u32 on)
{
	if (!(on & (KPT_DH_SELF_STACK | KPT_DH_SELF_ASK)))
		return false;
	if ((on & KPT_DH_SELF_STACK) && kind != KPT_CTX_PERF ? !kpt_own_by_stack(ctx, kind, st) :
	    !kpt_is_own(ctx, kind, bpf_get_current_pid_tgid()))
		return false;
	st->hits--;
	return true;
}

#endif /* KPT_TARGET_BPF_H */
