/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Stacks: -K/-U put an event's frames at its record's end; a kstack or
 * ustack key stores the frames once in kpt_kstk/kpt_ustk and keys the
 * event by their hash. The frames are bpf_get_stack()'s, from the
 * context: a kprobe's registers start them at the probed function.
 * Userspace drops what a context puts above that (bpf/trampoline frames).
 */
#ifndef KPT_STACK_BPF_H
#define KPT_STACK_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "kptrace.h"
#include "settings.bpf.h"
#include "maps.bpf.h"
#include "scratch.bpf.h"

/* User frames with build ids (struct bpf_stack_build_id), kernel frames plain. */
#define KPT_USTACK_FLAGS	(BPF_F_USER_STACK | BPF_F_USER_BUILD_ID)
#define KPT_EEXIST_		17

/*
 * One stack into the record at pos (its end so far), as many frames as
 * the depth and the record's room allow; *n its frames. The new end.
 */
static __always_inline __u32 kpt_stack_put(void *ctx, struct kpt_scratch *s, __u32 pos, bool user,
					   __u16 *n, struct kpt_stats *st)
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
	got = bpf_get_stack(ctx, &s->rec[off], size, user ? KPT_USTACK_FLAGS : 0);
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
		pos = kpt_stack_put(ctx, s, pos, false, &h->nkstack, st);
	if (flags & KPT_PF_USTACK)
		pos = kpt_stack_put(ctx, s, pos, true, &h->nustack, st);
	return pos;
}

/*
 * FNV-1a over the words of a stack's frames. A user stack whose frames all
 * have build ids is the same stack in every process; one with a bare
 * address is its process's own (its maps name it), so its tgid counts.
 */
static __always_inline __u64 kpt_stack_hash(const __u64 *w, __u32 nwords, bool user, __u32 tgid)
{
	__u64 hash = 0xcbf29ce484222325ull;
	bool bare = false;
	__u32 i;

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
					      __u32 tgid, struct kpt_stats *st)
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
	got = bpf_get_stack(ctx, frames, size, user ? KPT_USTACK_FLAGS : 0);
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
	key = kpt_stack_hash(frames, (__u32)got / 8, user, tgid);
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
	if (p->agg.stack_keys & KPT_SK_KSTACK)
		s->kstack_id = kpt_stack_intern(ctx, s, false, tgid, st);
	if (p->agg.stack_keys & KPT_SK_USTACK)
		s->ustack_id = kpt_stack_intern(ctx, s, true, tgid, st);
}

#endif /* KPT_STACK_BPF_H */
