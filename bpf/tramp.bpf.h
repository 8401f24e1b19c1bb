/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What a BPF trampoline hands over (fentry, fexit): the saved argument
 * registers and return value, laid out as a registers context's copy.
 */
#ifndef KPT_TRAMP_BPF_H
#define KPT_TRAMP_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "scratch.bpf.h"
#include "regs.bpf.h"

/*
 * The return address a kretprobe (a rethook, x86 since Linux 5.19) took
 * from the function's frame at slot, v the trampoline it left there.
 * x86's arch_rethook_prepare() keeps it in a node on the task's list with
 * frame = the slot's address; a second hook on the function keeps the
 * first's trampoline: the node of slot that holds something else has the
 * caller. The kernel restores it for kretprobes, fprobes and ftrace's
 * kprobe_events, not for fexit. Nodes newest first: ours lead.
 */
#define KPT_RETHOOK_MAX	8

/* A function of its own: its reads' stack slots stay out of the program's
 * frame, which 6.1's verifier adds to the deepest call chain's (512 at most) */
static __noinline __u64 kpt_rethook_ret(__u64 slot, __u64 v)
{
	__u64 task = bpf_get_current_task(), node = 0, frame, ret;
	int i;

	if (bpf_probe_read_kernel(&node, sizeof(node), (void *)(task + kpt_rh_task_off)))
		return v;
	for (i = 0; i < KPT_RETHOOK_MAX && node; i++) {
		if (bpf_probe_read_kernel(&frame, sizeof(frame),
					  (void *)(node - kpt_rh_llist_off + kpt_rh_frame_off)) ||
		    bpf_probe_read_kernel(&ret, sizeof(ret),
					  (void *)(node - kpt_rh_llist_off + kpt_rh_ret_off)))
			break;
		if (frame == slot && ret != v)
			return ret;
		/* llist_node's next is its only member */
		if (bpf_probe_read_kernel(&node, sizeof(node), (void *)node))
			break;
	}
	return v;
}

/*
 * A trampoline's ip, as a kprobe's record holds it: at an entry, the
 * function's address as kprobes have it (kpt_kprobe_addr()); at a return,
 * where the function returns to, as a kretprobe prints it. The x86-64
 * trampoline's frame above its saved arguments: the return value, the saved
 * frame pointer, the address back into the traced function (its fentry
 * call), then the caller's return address. A failed read leaves 0; the VM
 * tests compare it with kretprobes' on each kernel.
 */
static __always_inline __u64 kpt_tramp_ip(__u64 *ctx, bool ret)
{
	__u64 v = 0, n;

	if (!ret)
		return kpt_kprobe_addr(bpf_get_func_ip(ctx));
#ifdef KPT_ARCH_ARM64
	/* arm64's frame differs: none, and a return that shows it goes to a
	 * kretprobe (backend_ret_needs_caller()) */
	return 0;
#endif
	n = bpf_get_func_arg_cnt(ctx);
	if (n > 12 || bpf_probe_read_kernel(&v, sizeof(v), ctx + n + 3))
		return 0;
	if (kpt_rh_task_off)
		v = kpt_rethook_ret((__u64)(ctx + n + 3), v);
	return v;
}

/*
 * fentry/fexit: the trampoline saved the argument registers (and at exit the
 * return value), not a pt_regs. Lay them out where a kprobe's copy has them,
 * so every fetch reads them by the same offsets: the same definition gives
 * the same values whatever the mechanism. Only probes reading argument
 * registers, the return value and memory through them come here (the loader
 * sends the others to kprobes): the rest of the copy is zero.
 */
static __always_inline void kpt_tramp_regs(__u64 *ctx, struct kpt_regs *r, bool ret)
{
	__u64 v = 0;

	__builtin_memset(r, 0, sizeof(*r));
	if (!bpf_get_func_arg(ctx, 0, &v))
		PT_REGS_PARM1(r) = v;
	if (!bpf_get_func_arg(ctx, 1, &v))
		PT_REGS_PARM2(r) = v;
	if (!bpf_get_func_arg(ctx, 2, &v))
		PT_REGS_PARM3(r) = v;
	if (!bpf_get_func_arg(ctx, 3, &v))
		PT_REGS_PARM4(r) = v;
	if (!bpf_get_func_arg(ctx, 4, &v))
		PT_REGS_PARM5(r) = v;
	if (!bpf_get_func_arg(ctx, 5, &v))
		PT_REGS_PARM6(r) = v;
#ifdef KPT_ARCH_ARM64
	if (!bpf_get_func_arg(ctx, 6, &v))
		PT_REGS_PARM7(r) = v;
	if (!bpf_get_func_arg(ctx, 7, &v))
		PT_REGS_PARM8(r) = v;
#endif
	if (ret && !bpf_get_func_ret(ctx, &v))
		PT_REGS_RC(r) = v;
	PT_REGS_IP(r) = kpt_tramp_ip(ctx, ret);
}

#endif /* KPT_TRAMP_BPF_H */
