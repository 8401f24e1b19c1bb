/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * User stacks unwound from the binaries' own CFI, for code built without
 * frame pointers (docs/ARCHITECTURE.md, "User stacks without frame
 * pointers"). User space puts each binary's .eh_frame rows in
 * kpt_cfi_rows (load/cfi.c): the ones it knows of at start, the others
 * once a walk meets them and asks; per frame, bpf_find_vma() gives the pc's
 * mapping and file (device, inode), a binary search its row, the row the
 * CFA (sp or bp plus an offset) and where the return address and the
 * caller's bp are saved. A frame in a file without a table is stepped by
 * its frame pointer; a pc no row covers, or a row marked not walkable,
 * ends the walk there, and user space marks a stack that ends before a
 * start routine [cut short]. One bpf_loop() callback verified once,
 * however deep the walk goes (5.17+).
 */
#ifndef KPT_UNWIND_BPF_H
#define KPT_UNWIND_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "kptrace.h"
#include "settings.bpf.h"
#include "maps.bpf.h"
#include "scratch.bpf.h"
#include "compat.bpf.h"

#define KPT_EBUSY	16	/* bpf_find_vma()'s "not now" */

/*
 * The registers the walk starts from, in the task's user registers; arm64's
 * frame pointer is x29, its link register x30. A return address saved on an
 * arm64 stack carries a pointer authentication code above the user
 * address's 48 bits in binaries built -mbranch-protection (or a top-byte
 * tag): kept to those bits before it is looked up or printed.
 */
#ifdef KPT_ARCH_ARM64
#define KPT_UW_IP	offsetof(struct kpt_regs, pc)
#define KPT_UW_BP	offsetof(struct kpt_regs, regs[29])
#define KPT_UW_LR	offsetof(struct kpt_regs, regs[30])
#define KPT_UADDR_MASK	((1ull << 48) - 1)
#else
#define KPT_UW_IP	offsetof(struct kpt_regs, ip)
#define KPT_UW_BP	offsetof(struct kpt_regs, bp)
#define KPT_UADDR_MASK	(~0ull)
#endif

/* A walk's state, on the stack: bpf_loop() and bpf_find_vma() take their
 * callbacks' data there only. */
struct kpt_uw {
	__u64 ip, sp, bp;
#ifdef KPT_ARCH_ARM64
	__u64 lr;			/* the first frame's return address, while in its register */
#endif
	__u64 vstart, vend, vpgoff;	/* the last pc's mapping, its file offset in pages */
	struct kpt_cfi_key key;		/* its file; ino 0: anonymous */
	__u32 n, max;			/* frames so far (written only), the most wanted */
	__u32 notable;			/* the first frame's file has no table */
};

/* the compat object (KPT_COMPAT) has no callbacks: kernels before 5.13
 * refuse one in any code */
#ifndef KPT_COMPAT
/* bpf_find_vma()'s callback: the mapping's bounds and file, by offsets from
 * the kernel's BTF (settings.bpf.h; vm_start and vm_end its first words) */
static long kpt_uw_vma(struct task_struct *task, struct vm_area_struct *vma, void *data)
{
	struct kpt_uw *w = data;
	__u64 file = 0, inode = 0, sb = 0;
	__u32 dev = 0;

	bpf_probe_read_kernel(&w->vstart, 2 * sizeof(__u64), vma);
	bpf_probe_read_kernel(&w->vpgoff, sizeof(w->vpgoff), (void *)vma + kpt_vma_pgoff_off);
	if (bpf_probe_read_kernel(&file, sizeof(file), (void *)vma + kpt_vma_file_off) || !file ||
	    bpf_probe_read_kernel(&inode, sizeof(inode), (void *)(file + kpt_file_inode_off)) ||
	    !inode ||
	    bpf_probe_read_kernel(&sb, sizeof(sb), (void *)(inode + kpt_inode_sb_off)) || !sb ||
	    bpf_probe_read_kernel(&dev, sizeof(dev), (void *)(sb + kpt_sb_dev_off)) ||
	    bpf_probe_read_kernel(&w->key.ino, sizeof(w->key.ino),
				  (void *)(inode + kpt_inode_ino_off)))
		w->key.ino = 0;
	w->key.dev = dev;
	return 0;
}

/*
 * The index of the row of rows [first, first + nrows) that holds at file
 * offset off (the last at or before it), or -1. A global function: the
 * verifier checks it once, alone, where inlined into the walk's callback
 * its 21 steps times every path of the callback passed a million
 * instructions.
 */
__noinline int kpt_cfi_search(__u32 first, __u32 nrows, __u32 off)
{
	__u32 lo = first, hi = first + nrows, mid;
	const struct kpt_cfi_row *r;
	int i;

	KPT_ONLY_IF(kpt_cfi_on && kpt_have_find_vma);
	for (i = 0; i < KPT_CFI_SEARCH && lo < hi; i++) {
		mid = lo + (hi - lo) / 2;
		r = bpf_map_lookup_elem(&kpt_cfi_rows, &mid);
		if (!r)
			return -1;
		if (r->off <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo == first ? -1 : (int)(lo - 1);
}

/* The row of binary b that holds at file offset off, or NULL. */
static __always_inline const struct kpt_cfi_row *kpt_cfi_find(const struct kpt_cfi_bin *b,
							     __u32 off)
{
	int i = kpt_cfi_search(b->first, b->nrows, off);

	return i < 0 ? NULL : bpf_map_lookup_elem(&kpt_cfi_rows, &i);
}

/* One step by the frame pointer, where the frame's file has no table:
 * x86-64's saved bp and return address at bp, arm64's frame record alike. */
static __always_inline long kpt_uw_fp_step(struct kpt_uw *w)
{
	__u64 fr[2];

	if (w->bp < w->sp || bpf_probe_read_user(fr, sizeof(fr), (void *)w->bp))
		return 1;
	w->sp = w->bp + sizeof(fr);
	w->bp = fr[0];
	w->ip = fr[1] & KPT_UADDR_MASK;
	return !w->ip;
}

/* The caller's pc into w->ip by the row r, whose CFA is cfa, at frame n: 1 where the walk ends. */
static __always_inline long kpt_uw_ra(struct kpt_uw *w, const struct kpt_cfi_row *r, __u64 cfa,
				      __u32 n)
{
#ifdef KPT_ARCH_ARM64
	/* still in the link register: the first frame's only (a leaf's, or
	 * one's before its prologue saved it), whose CFA may be sp itself */
	if (!r->ra_off) {
		w->ip = w->lr;
		return n || cfa < w->sp;
	}
#endif
	/* the caller's frame is above this one's: else the data is not a stack */
	return cfa <= w->sp ||
	       bpf_probe_read_user(&w->ip, sizeof(w->ip), (void *)(cfa + (__s64)r->ra_off));
}

/* One step by the row r at frame n: the caller's pc, sp and bp. 1: the walk ends. */
static __always_inline long kpt_uw_cfi_step(struct kpt_uw *w, const struct kpt_cfi_row *r,
					    __u32 n)
{
	__u64 cfa;

	if (!r || (r->kind != KPT_CFI_SP && r->kind != KPT_CFI_FP))
		return 1;	/* no row, one not kept, or the outermost frame */
	cfa = (r->kind == KPT_CFI_SP ? w->sp : w->bp) + (__s64)r->cfa_off;
	if (kpt_uw_ra(w, r, cfa, n))
		return 1;
	w->ip &= KPT_UADDR_MASK;
	if (r->fp_off && bpf_probe_read_user(&w->bp, sizeof(w->bp), (void *)(cfa + (__s64)r->fp_off)))
		return 1;
	w->sp = cfa;
	return !w->ip;
}

/* The current task's mm, the process's mappings' generation (exec replaces it). */
static __always_inline __u64 kpt_uw_mm(void)
{
	__u64 mm = 0;

	bpf_probe_read_kernel(&mm, sizeof(mm), (void *)bpf_get_current_task() + kpt_task_mm_off);
	return mm;
}

/*
 * Asks user space (load/cfi.c, each 100 ms) for the current process's
 * mappings (ino 0) or for the table of its binary (dev, ino), with the mm
 * they are for. Global: verified once, not for each state of its callers.
 */
__noinline int kpt_uw_ask(__u64 dev, __u64 ino)
{
	struct kpt_uw_want k = { .tgid = bpf_get_current_pid_tgid() >> 32 };
	__u64 mm;

	KPT_ONLY_IF(kpt_cfi_on && kpt_have_find_vma);
	mm = kpt_uw_mm();
	k.bin.dev = dev;
	k.bin.ino = ino;
	/* an ask still open stays: the answer comes for all who asked */
	bpf_map_update_elem(&kpt_uw_wanted, &k, &mm, BPF_NOEXIST);
	return 0;
}

/*
 * The index of pc's mapping in the process's table (kpt_uw_procs), or -1;
 * a process without one, or with one read for another mm (it ran exec
 * since), or whose pc is in none of its mappings (a library loaded after
 * they were read) is asked for, the last at most once a
 * KPT_UW_REREAD_NS. Global: verified once, where inlined into the walk's
 * callback it tripled the load's time.
 */
__noinline int kpt_uw_find(__u64 pc)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32, i;
	const struct kpt_uw_proc *p = bpf_map_lookup_elem(&kpt_uw_procs, &tgid);

	KPT_ONLY_IF(kpt_cfi_on && kpt_have_find_vma);
	if (!p || p->mm != kpt_uw_mm()) {
		kpt_uw_ask(0, 0);
		return -1;
	}
	for (i = 0; i < KPT_UW_MAPS && i < p->n; i++)
		if (pc >= p->m[i].start && pc < p->m[i].end)
			return (int)i;
	if (bpf_ktime_get_ns() - p->read_ns > KPT_UW_REREAD_NS)
		kpt_uw_ask(0, 0);
	return -1;
}

/* pc's mapping from the process's table, where bpf_find_vma() gave none. */
static __always_inline void kpt_uw_known(struct kpt_uw *w, __u64 pc)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	const struct kpt_uw_proc *p;
	int i = kpt_uw_find(pc);

	if (i < 0 || !(p = bpf_map_lookup_elem(&kpt_uw_procs, &tgid)))
		return;
	i &= KPT_UW_MAPS - 1;
	w->vstart = p->m[i].start;
	w->vend = p->m[i].end;
	w->vpgoff = p->m[i].pgoff;
	w->key = p->m[i].key;
}

/*
 * bpf_loop()'s callback: frame w->n into the scratch's user stack, as
 * bpf_get_stack() gives it with build ids (the table's, with the pc's file
 * offset), or the bare address in a file without one; then the caller.
 * A return address is looked up one byte back: a call may be a
 * function's last instruction (a call to a noreturn function).
 */
static long kpt_uw_step(__u32 i, void *data)
{
	struct kpt_uw *w = data;
	const struct kpt_cfi_bin *b = NULL;
	__u64 *f;
	struct kpt_scratch *s;
	/* the frame's index from bpf_loop(), not w->n: a count the verifier
	 * knows exactly would have the callback verified once per frame;
	 * masked, its bound for indexing (bpf_loop() stops at KPT_STACK_MAX) */
	__u32 cpu = bpf_get_smp_processor_id(), n = i & 127;
	__u64 pc = n ? w->ip - 1 : w->ip, off;

	s = bpf_map_lookup_elem(&kpt_scratch, &cpu);	/* this CPU's, as the program's */
	if (!s || n >= w->max || n >= KPT_STACK_MAX)
		return 1;
	if (pc < w->vstart || pc >= w->vend) {
		w->key.dev = w->key.ino = 0;
		w->vstart = w->vend = 0;
		/* -EBUSY past a run's first call where interrupts are off */
		if (bpf_find_vma(bpf_get_current_task_btf(), pc, kpt_uw_vma, w, 0) == -KPT_EBUSY)
			kpt_uw_known(w, pc);
	}
	if (w->key.ino) {
		b = bpf_map_lookup_elem(&kpt_cfi_bins, &w->key);
		/* a binary met for the first time: its table is read for the
		 * walks to come; one known to have none is stepped as one
		 * without an entry */
		if (!b)
			kpt_uw_ask(w->key.dev, w->key.ino);
		else if (!b->nrows)
			b = NULL;
	}
	if (!b && !n) {
		w->notable = 1;
		return 1;
	}
	/* struct bpf_stack_build_id's words, written as words: vmlinux.h's type
	 * would be a CO-RE relocation (docs/ARCHITECTURE.md, "No CO-RE") */
	f = (__u64 *)s->ustk.frame[n];
	w->n = n + 1;
	if (!b) {
		f[0] = BPF_STACK_BUILD_ID_IP;
		f[1] = 0;
		f[2] = 0;
		f[3] = w->ip;
		return kpt_uw_fp_step(w);
	}
	off = w->ip - w->vstart + (w->vpgoff << kpt_page_shift);
	f[0] = b->head[0];
	f[1] = b->head[1];
	f[2] = b->head[2];
	f[3] = off;
	return kpt_uw_cfi_step(w, kpt_cfi_find(b, (__u32)(off - (n ? 1 : 0))), n);
}

/*
 * The walk, in a function of its own: its state lives on its own stack
 * frame, not the program's, whose frame with kpt_aggregate()'s and
 * kpt_pmu_exit()'s is close to 512 bytes already (6.1 refused 576). A
 * global one, verified once: as a static one it was verified again for
 * each state of its callers, 5.0 s of the load (460k instructions) where
 * it now takes 0.5 s (195k) on 6.18. Being global, kernels before 6.8
 * verify it in any run (the kernel must have bpf_find_vma(), 5.17+):
 * KPT_ONLY_IF() makes that a few instructions in a run without tables.
 */
__noinline long kpt_unwind_walk(__u32 max)
{
	struct kpt_uw w = {};
	void *regs;

	KPT_ONLY_IF(kpt_cfi_on && kpt_have_find_vma);
	regs = (void *)bpf_task_pt_regs(bpf_get_current_task_btf());
	if (bpf_probe_read_kernel(&w.ip, sizeof(w.ip), regs + KPT_UW_IP) ||
	    bpf_probe_read_kernel(&w.sp, sizeof(w.sp), regs + offsetof(struct kpt_regs, sp)) ||
	    bpf_probe_read_kernel(&w.bp, sizeof(w.bp), regs + KPT_UW_BP))
		return 0;
#ifdef KPT_ARCH_ARM64
	if (bpf_probe_read_kernel(&w.lr, sizeof(w.lr), regs + KPT_UW_LR))
		return 0;
	w.lr &= KPT_UADDR_MASK;
#endif
	w.max = max;
	bpf_loop(KPT_STACK_MAX, kpt_uw_step, &w, 0);
	return w.notable ? 0 : w.n;
}
#endif

/*
 * The user stack into s->ustk.frame by the tables, at most max frames: its
 * frame count, or 0 where the kernel's walk is to be taken (no tables in
 * this run, 6.1's fallback without bpf_find_vma(), or the first pc's file
 * has no table). The registers are the task's user registers, whatever
 * the probe: a uprobe's are them, a tracepoint's are the kernel's.
 */
static __always_inline long kpt_unwind(__u32 max)
{
#ifdef KPT_COMPAT
	return 0;
#else
	if (!kpt_cfi_on || !kpt_have_find_vma)
		return 0;
	return kpt_unwind_walk(max);
#endif
}

#endif /* KPT_UNWIND_BPF_H */
