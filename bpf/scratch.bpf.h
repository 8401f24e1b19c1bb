/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The per-CPU scratch area a hit builds its record in, and the copy of the
 * probe's registers in it. Types only, plain C: the unit tests build
 * filter.bpf.h in userspace against this same layout.
 *
 * Every index into it taken from the probe table is masked to a power of
 * two (KPT_OFF_MASK, or an array's size - 1), as in every file here: a
 * value loaded from a map is unbounded to the verifier, and the mask is
 * its bound.
 */
#ifndef KPT_SCRATCH_BPF_H
#define KPT_SCRATCH_BPF_H

#ifdef __KPT_BPF__
#include "vmlinux.h"	/* kptrace.h's __u32 in BPF */
#endif
#include "kptrace.h"

/* Record area: KPT_REC_MAX for offsets (masked), plus room for one more
 * string or a record's stacks, so a masked offset + KPT_STR_MAX (or a
 * stack's bytes) is always inside the buffer. */
#define KPT_BUF_SIZE	(KPT_REC_MAX + 8192)
_Static_assert(KPT_STR_MAX + 8 <= 8192 &&
	       KPT_STACK_MAX * (KPT_KFRAME_SIZE + KPT_UFRAME_SIZE) <= 8192,
	       "a string or the stacks past a masked offset stay in the buffer");
#define KPT_OFF_MASK	(KPT_REC_MAX - 1)

/*
 * The architecture's struct pt_regs as the kernel lays it out, as far as a
 * kprobe program's context goes (the kprobe ABI): x86-64's, which ptrace's
 * user_regs_struct mirrors, or arm64's user_pt_regs at its start. Our
 * own type, not vmlinux.h's: vmlinux.h marks every struct
 * preserve_access_index, and one CO-RE relocation, even of a layout that
 * never changes, makes libbpf read and parse the kernel's whole BTF at load,
 * most of a uprobe or tracepoint run's start-up. The loader takes the
 * register offsets from this type in our object's BTF (resolve_reg_offset()),
 * so the two cannot disagree; libbpf's PT_REGS_* macros use the field names.
 */
#ifdef KPT_ARCH_ARM64
struct kpt_regs {
	__u64 regs[31], sp, pc, pstate;
};
_Static_assert(sizeof(struct kpt_regs) == KPT_REG_WORDS * 8 &&
	       __builtin_offsetof(struct kpt_regs, regs) == KPT_W_X0 * 8 &&
	       __builtin_offsetof(struct kpt_regs, pc) == KPT_W_IP * 8 &&
	       __builtin_offsetof(struct kpt_regs, sp) == KPT_W_SP * 8,
	       "enum kpt_reg_word is struct kpt_regs's layout");
#else
struct kpt_regs {
	__u64 r15, r14, r13, r12, bp, bx, r11, r10, r9, r8;
	__u64 ax, cx, dx, si, di, orig_ax, ip, cs, flags, sp, ss;
};
_Static_assert(sizeof(struct kpt_regs) == KPT_REG_WORDS * 8 &&
	       __builtin_offsetof(struct kpt_regs, r9) == KPT_W_R9 * 8 &&
	       __builtin_offsetof(struct kpt_regs, ax) == KPT_W_AX * 8 &&
	       __builtin_offsetof(struct kpt_regs, di) == KPT_W_DI * 8 &&
	       __builtin_offsetof(struct kpt_regs, ip) == KPT_W_IP * 8 &&
	       __builtin_offsetof(struct kpt_regs, sp) == KPT_W_SP * 8,
	       "enum kpt_reg_word is struct kpt_regs's layout");
#endif

/*
 * At a uprobe on a function's first instruction (KPT_PF_UENTRY): the return
 * address, the function's own address and the kernel's second frame's
 * (stack.bpf.h).
 */
struct kpt_caller {
	__u64 ret, ip, next;
};

struct kpt_scratch {
	/* the probe's registers (a tracepoint: its record's first words),
	 * copied because the verifier allows only constant offsets into a
	 * context and a fetch's offset is chosen at run time */
	struct kpt_regs regs;
	__u64 ctx;		/* tracepoints: the raw record's address */
	__u32 nfaults;		/* faults in the record being built */
	__u32 rec_len;		/* its length, as the action starts (kpt_emit_slow()) */
	__u64 cgroup;		/* the task's cgroup id, if the run needs it (kpt_current()) */
	__u64 edata[KPT_MAX_EDATA];	/* a return probe's entry arguments */
	__u64 kstack_id;	/* the event's stacks as keys (stack.bpf.h) */
	__u64 ustack_id;
	struct kpt_kstack kstk;	/* a stack key's frames, before they are stored */
	struct kpt_ustack ustk;
	struct kpt_caller ucaller;	/* the caller at an entry (stack.bpf.h) */
	__u64 utop[2];		/* its two-frame walk */
	__u8 rec[KPT_BUF_SIZE];
};

#endif /* KPT_SCRATCH_BPF_H */
