/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Stacks: -K/-U put an event's frames at its record's end; a kstack or
 * ustack key stores the frames once in kpt_kstk/kpt_ustk and keys the
 * event by their hash. The frames are bpf_get_stack()'s, from the
 * context: a kprobe's registers start them at the probed function.
 * Userspace drops what a context puts above that (bpf/trampoline frames).
 * At a uprobe on a function's first instruction the caller is put second
 * (kpt_entry_caller()).
 */
#ifndef KPT_STACK_BPF_H
#define KPT_STACK_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "kptrace.h"
#include "settings.bpf.h"
#include "maps.bpf.h"
#include "compat.bpf.h"
#include "scratch.bpf.h"
#include "regs.bpf.h"
#include "unwind.bpf.h"

/* User frames with build ids (struct bpf_stack_build_id), kernel frames plain. */
#define KPT_USTACK_FLAGS	(BPF_F_USER_STACK | BPF_F_USER_BUILD_ID)
#define KPT_EEXIST_		17

/*
 * The caller of the function whose first instruction a uprobe is on
 * (KPT_PF_UENTRY) into c; false if it needs no adding. There the return
 * address is at the stack pointer (x86-64) or in the link register (arm64)
 * and the frame pointer is still the caller's, so a frame-pointer walk goes
 * from the function to its caller's caller. Linux 6.12's "avoid missing
 * caller address in stack traces captured in uprobe" adds it for entries
 * that start with push %rbp or endbr64 (not for frameless leaves, nor on
 * arm64): so the kernel's own second frame is looked at first (a walk of
 * two frames, no build ids), and nothing added when it is the return
 * address already. The registers are scratch's copy (plan_regs_used()
 * keeps sp, or the link register).
 */
static __always_inline bool kpt_entry_caller(void *ctx, struct kpt_scratch *s,
					     struct kpt_caller *c)
{
	/* in scratch, as c is: on 6.1 the program's stack and bpf_find_vma()'s
	 * callback's must fit 512 bytes together */
	__u64 *top = s->utop;

	c->ret = 0;
#ifdef KPT_ARCH_ARM64
	c->ret = s->regs.regs[30];
#else
	if (bpf_probe_read_user(&c->ret, sizeof(c->ret), (void *)PT_REGS_SP(&s->regs)))
		return false;
#endif
	c->ip = PT_REGS_IP(&s->regs);
	if (bpf_get_stack(ctx, top, sizeof(s->utop), BPF_F_USER_STACK) != sizeof(s->utop))
		top[1] = 0;
	c->next = top[1];
	return c->ret && top[1] != c->ret;
}

struct kpt_vma {
	__u64 start, end;
};

#ifndef KPT_COMPAT	/* no callbacks there: the bare address (kpt_caller_frame()) */
/* bpf_find_vma()'s callback: the mapping's bounds, vm_start and vm_end,
 * the first words of struct vm_area_struct on every kernel (no CO-RE) */
static long kpt_vma_bounds(struct task_struct *task, struct vm_area_struct *vma, void *data)
{
	bpf_probe_read_kernel(data, sizeof(struct kpt_vma), vma);
	return 0;
}
#endif

/*
 * The caller's frame into f[4..7], where f[0..3] is the function's frame
 * and f[8..11] the next one (if nframes > 2). Where the caller is in the
 * mapping of one of those (the function's binary, or its caller's caller's:
 * an application calling libc), that frame's build id and its offset moved
 * by the distance between the two addresses, so the stack keys the same in
 * every process of the binary and is named after the process is gone; else
 * the bare address (BPF_STACK_BUILD_ID_IP: user space names it from the
 * process's maps while it lives).
 */
static __always_inline void kpt_caller_frame(__u64 *f, long nframes, const struct kpt_caller *c)
{
	__u64 ip = c->ip;
	int from = 0;

#ifndef KPT_COMPAT
	struct kpt_vma v = { 0, 0 };

	if (kpt_have_find_vma &&
	    !bpf_find_vma(bpf_get_current_task_btf(), c->ret, kpt_vma_bounds, &v, 0)) {
		/* BPF_STACK_BUILD_ID_VALID: status 1 */
		if ((__u32)f[0] == 1 && ip >= v.start && ip < v.end) {
			from = 1;
		} else if (nframes > 2 && (__u32)f[8] == 1 && c->next >= v.start &&
			   c->next < v.end) {
			from = 2;
			ip = c->next;
		}
	}
#endif
	if (from) {
		f[4] = f[from == 1 ? 0 : 8];
		f[5] = f[from == 1 ? 1 : 9];
		f[6] = f[from == 1 ? 2 : 10];
		f[7] = f[from == 1 ? 3 : 11] + c->ret - ip;
		return;
	}
	f[4] = 2;	/* BPF_STACK_BUILD_ID_IP, no build id */
	f[5] = 0;
	f[6] = 0;
	f[7] = c->ret;
}

/* The caller to add to a probe's user stacks, or NULL (kpt_entry_caller()). */
static __always_inline const struct kpt_caller *kpt_caller_of(void *ctx, struct kpt_scratch *s,
							     __u32 flags)
{
	return (flags & KPT_PF_UENTRY) && kpt_entry_caller(ctx, s, &s->ucaller) ? &s->ucaller
									      : NULL;
}

/*
 * The user stack into buf (size bytes: whole frames); its bytes or the
 * helper's error. The binaries' CFI first (unwind.bpf.h), where it has the
 * first frame's; else the kernel's frame-pointer walk: at an entry probe
 * (flags' KPT_PF_UENTRY) with a caller to add (kpt_entry_caller(), asked
 * only here: its two-frame walk from a frameless binary's stray bp faults,
 * some 5 us a hit on this VM), its frames go one frame further and the
 * caller is put between the first two. A function of its own: its locals
 * on its own frame, not the program's, which with kpt_aggregate()'s and
 * kpt_pmu_exit()'s must stay within 6.1's 512 bytes (it went 32 past).
 */
static __noinline long kpt_ustack_get(void *ctx, struct kpt_scratch *s, __u8 *buf, __u64 size,
				      __u32 flags)
{
	const struct kpt_caller *c;
	__u64 *f;
	long got;

	got = kpt_unwind(size / KPT_UFRAME_SIZE) * KPT_UFRAME_SIZE;
	if (got > 0 && got <= KPT_STACK_MAX * KPT_UFRAME_SIZE) {
		/* masked for the copy's bound (no change: got is below 8 KiB, the
		 * buffer's slack past a masked offset): 6.12's verifier does not
		 * carry clang's check on a copy over to this register. Onto
		 * itself where buf is s->ustk.frame (a stack key's): harmless. */
		if (bpf_probe_read_kernel(buf, got & 8191, s->ustk.frame))
			return -1;
		return got;
	}
	c = kpt_caller_of(ctx, s, flags);
	if (!c || size < 2 * KPT_UFRAME_SIZE)
		return bpf_get_stack(ctx, buf, size, KPT_USTACK_FLAGS);
	got = bpf_get_stack(ctx, buf + KPT_UFRAME_SIZE, size - KPT_UFRAME_SIZE, KPT_USTACK_FLAGS);
	if (got < KPT_UFRAME_SIZE)
		return got;
	f = (__u64 *)buf;
	f[0] = f[4];
	f[1] = f[5];
	f[2] = f[6];
	f[3] = f[7];
	got += KPT_UFRAME_SIZE;
	kpt_caller_frame(f, got / KPT_UFRAME_SIZE, c);
	return got;
}

/*
 * One stack into the record at pos (its end so far), as many frames as
 * the depth and the record's room allow; *n its frames. The new end.
 */
static __always_inline __u32 kpt_stack_put(void *ctx, struct kpt_scratch *s, __u32 pos, bool user,
					   __u32 flags, __u16 *n, struct kpt_stats *st)
{
	__u32 fsize = user ? KPT_UFRAME_SIZE : KPT_KFRAME_SIZE;
	__u32 depth = user ? kpt_ustack_depth : kpt_kstack_depth;
	__u32 off = pos;
	__u64 size;
	long got;

	*n = 0;
	if (pos >= KPT_REC_MAX)
		return pos;
	if ((KPT_REC_MAX - pos) / fsize < depth)
		depth = (KPT_REC_MAX - pos) / fsize;
	size = (__u64)depth * fsize;
	/* one register for the check and the helper (kpt_emit()'s reason) */
	barrier_var(size);
	if (size > KPT_STACK_MAX * KPT_UFRAME_SIZE || !size)
		return pos;
	/* the mask restated: clang drops it as redundant with the check above,
	 * which the verifier no longer sees on the spilled copy */
	barrier_var(off);
	off &= KPT_OFF_MASK;
	got = user ? kpt_ustack_get(ctx, s, &s->rec[off], size, flags)
		   : bpf_get_stack(ctx, &s->rec[off], size, 0);
	if (got < 0) {
		st->stack_failed++;
		return pos;
	}
	if ((__u64)got >= size)
		st->stack_deep++;
	*n = (__u32)got / fsize;
	return pos + (__u32)got / fsize * fsize;
}

/* -K/-U: the kernel stack, then the user stack, after the strings. */
static __always_inline __u32 kpt_stacks_put(void *ctx, struct kpt_scratch *s, struct kpt_rec_hdr *h,
					    __u32 flags, __u32 pos, struct kpt_stats *st)
{
	if (flags & KPT_PF_KSTACK)
		pos = kpt_stack_put(ctx, s, pos, false, 0, &h->nkstack, st);
	if (flags & KPT_PF_USTACK)
		pos = kpt_stack_put(ctx, s, pos, true, flags, &h->nustack, st);
	return pos;
}

/*
 * FNV-1a over the words of a stack's frames (s's user or kernel stack). A
 * user stack whose frames all have build ids is the same stack in every
 * process; one with a bare address is its process's own (its maps name it),
 * so its tgid counts. A global function, verified once: inlined, its loop
 * was verified again for every path into it (the CFI walk's and the
 * kernel's), past the verifier's million instructions.
 */
KPT_GLOBAL(__u64, kpt_stack_hash, (struct kpt_scratch *s, __u32 nwords, bool user, __u32 tgid),
	   (__u32 nwords, bool user, __u32 tgid), KPT_C_SCRATCH(s))
	__u64 hash = 0xcbf29ce484222325ull, *w;
	bool bare = false;
	__u32 i;

	KPT_ONLY_IF(KPT_USES(STACK) && kpt_stack_keyed);
	if (!s)
		return 1;
	w = user ? (__u64 *)s->ustk.frame : s->kstk.ip;

	for (i = 0; i < KPT_STACK_MAX * KPT_UFRAME_SIZE / 8 && i < nwords; i++) {
		/* a frame's first word: its status, 1 is BPF_STACK_BUILD_ID_VALID */
		if (user && !(i & 3) && (__u32)w[i] != 1)
			bare = true;
		hash = (hash ^ w[i]) * 0x100000001b3ull;
	}
	if (bare)
		hash = (hash ^ tgid) * 0x100000001b3ull;
	hash ^= nwords;
	return hash == KPT_STACK_LOST ? 1 : hash;
}

/* The event's stack stored once in its map; its key, or KPT_STACK_LOST. */
static __always_inline __u64 kpt_stack_intern(void *ctx, struct kpt_scratch *s, bool user,
					      __u32 tgid, __u32 flags, struct kpt_stats *st)
{
	__u32 fsize = user ? KPT_UFRAME_SIZE : KPT_KFRAME_SIZE;
	__u64 size = (__u64)(user ? kpt_ustack_depth : kpt_kstack_depth) * fsize;
	void *map = user ? (void *)&kpt_ustk : (void *)&kpt_kstk;
	void *val = user ? (void *)&s->ustk : (void *)&s->kstk;
	__u64 *frames = user ? (__u64 *)s->ustk.frame : s->kstk.ip;
	__u64 key;
	long got, err;

	if (size > KPT_STACK_MAX * KPT_UFRAME_SIZE || !size)
		return KPT_STACK_LOST;
	got = user ? kpt_ustack_get(ctx, s, (__u8 *)frames, size, flags)
		   : bpf_get_stack(ctx, frames, size, 0);
	if (got < 0) {
		st->stack_failed++;
		return KPT_STACK_LOST;
	}
	if ((__u64)got >= size)
		st->stack_deep++;
	if (user) {
		s->ustk.nframes = (__u32)got / fsize;
		s->ustk.tgid = tgid;
	} else {
		s->kstk.nframes = (__u32)got / fsize;
		s->kstk.tgid = tgid;
	}
	key = KPT_CALL(kpt_stack_hash, (s, (__u32)got / 8, user, tgid), ((__u32)got / 8, user, tgid));
	if (bpf_map_lookup_elem(map, &key))
		return key;
	err = bpf_map_update_elem(map, &key, val, BPF_NOEXIST);
	if (err && err != -KPT_EEXIST_) {	/* full */
		st->stack_full++;
		return KPT_STACK_LOST;
	}
	return key;
}

/* The stacks the probe's keys name, for kpt_make_key(). */
static __always_inline void kpt_stack_keys(void *ctx, struct kpt_scratch *s,
					   const struct kpt_probe_entry *p, __u32 tgid,
					   struct kpt_stats *st)
{
	if (p->agg.stack_keys & kpt_stack_keyed & KPT_SK_KSTACK)
		s->kstack_id = kpt_stack_intern(ctx, s, false, tgid, 0, st);
	if (p->agg.stack_keys & kpt_stack_keyed & KPT_SK_USTACK)
		s->ustack_id = kpt_stack_intern(ctx, s, true, tgid, p->flags, st);
}

#endif /* KPT_STACK_BPF_H */
