/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What a registers context hands over (kprobe, kretprobe, uprobe,
 * uretprobe, kprobe.multi): the argument registers, the copy the fetches
 * read, and the probed address.
 */
#ifndef KPT_REGS_BPF_H
#define KPT_REGS_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "kptrace.h"
#include "settings.bpf.h"
#include "scratch.bpf.h"

/* What the context is: registers (kprobe, uprobe), a raw tracepoint record,
 * registers under kprobe.multi, where the probed address is the function's,
 * or a BPF trampoline's saved arguments (fentry/fexit). */
/* KPT_CTX_PERF: a perf event's sample (profile:hz:N), its registers first */
/* KPT_CTX_TPBTF + n: tp_btf slot n (tp.bpf.h) */
enum { KPT_CTX_REGS, KPT_CTX_TP, KPT_CTX_MULTI, KPT_CTX_TRAMP, KPT_CTX_PERF, KPT_CTX_TPBTF = 16 };

#if defined(__TARGET_ARCH_arm64)
/*
 * libbpf's arm64 macros cast to vmlinux.h's struct user_pt_regs, which is
 * preserve_access_index: every register read would be a CO-RE relocation,
 * and libbpf would parse the kernel's whole BTF at load (scratch.bpf.h).
 * Our struct kpt_regs has user_pt_regs's layout and member names, so the
 * same macros read it; not const, as kpt_tramp_regs() writes through them.
 */
#undef __PT_REGS_CAST
#define __PT_REGS_CAST(x) ((struct kpt_regs *)(x))
#endif

/* libbpf learnt the sixth to eighth argument registers in 1.2; Debian 12
 * ships 1.1. */
#ifndef PT_REGS_PARM6
#if defined(__TARGET_ARCH_x86)
#define PT_REGS_PARM6(x) (__PT_REGS_CAST(x)->r9)
#elif defined(__TARGET_ARCH_arm64)
#define PT_REGS_PARM6(x) (__PT_REGS_CAST(x)->regs[5])
#define PT_REGS_PARM7(x) (__PT_REGS_CAST(x)->regs[6])
#define PT_REGS_PARM8(x) (__PT_REGS_CAST(x)->regs[7])
#else
#error "PT_REGS_PARM6 needed: libbpf >= 1.2"
#endif
#endif

/*
 * Argument register n of the calling convention (libbpf's PT_REGS macros,
 * not a table of ours), from a copy of the registers or from a kprobe's
 * context itself. Each load pinned by a barrier: clang would otherwise merge
 * the cases into one load at a computed offset, which the verifier refuses
 * in a context.
 */
#define KPT_REG_CASE(n, expr)	case n: v = (expr); barrier_var(v); break;

static __always_inline __u64 kpt_arg_reg(const struct kpt_regs *r, __u32 n)
{
	__u64 v;

	switch (n) {
	KPT_REG_CASE(0, PT_REGS_PARM1(r))
	KPT_REG_CASE(1, PT_REGS_PARM2(r))
	KPT_REG_CASE(2, PT_REGS_PARM3(r))
	KPT_REG_CASE(3, PT_REGS_PARM4(r))
	KPT_REG_CASE(4, PT_REGS_PARM5(r))
#ifdef KPT_ARCH_ARM64
	KPT_REG_CASE(5, PT_REGS_PARM6(r))
	KPT_REG_CASE(6, PT_REGS_PARM7(r))
	default:
		v = PT_REGS_PARM8(r);
#else
	default:
		v = PT_REGS_PARM6(r);
#endif
		barrier_var(v);
		break;
	}
	return v;
}

/*
 * The probe's registers, copied with plain loads: a kprobe program may read
 * its pt_regs context at any constant offset, and the loads and stores cost
 * a fraction of a bpf_probe_read_kernel() call (bench/README.md).
 */
static __always_inline void kpt_copy_regs(struct kpt_regs *dst, const struct kpt_regs *src)
{
	const __u64 *from = (const __u64 *)src;
	__u64 *to = (__u64 *)dst;
	__u64 mask = kpt_regs_mask;	/* one load: the verifier knows it */
	int i;

	/* only the words the run's probes read (three registers: four words
	 * with ip, not 21): under TCG each load and store is a soft-MMU access;
	 * unrolled, as a context allows only constant offsets */
#pragma unroll
	for (i = 0; i < sizeof(*dst) / 8; i++)
		if (mask & (1ull << i))
			to[i] = from[i];
}

/*
 * Where a kprobe on the function at ip is: past its ENDBR, if it starts with
 * one (the kernel moves kprobes there: arch_adjust_kprobe_addr). So
 * kprobe.multi and fentry print the probed address as a kprobe does. The
 * kernel's is_endbr(): ENDBR64 or ENDBR32, or the 4-byte NOP it seals the
 * ENDBRs of functions whose address is never taken with.
 */
#define KPT_ENDBR64		0xfa1e0ff3	/* f3 0f 1e fa */
#define KPT_ENDBR32_BIT		0x01000000	/* f3 0f 1e fb */
#define KPT_ENDBR_POISON	0x001f0f66	/* 66 0f 1f 00: osp nopl (%rax) */

static __always_inline __u64 kpt_kprobe_addr(__u64 ip)
{
#ifdef KPT_ARCH_X86
	__u32 insn = 0;

	if (bpf_probe_read_kernel(&insn, sizeof(insn), (void *)ip))
		return ip;
	if (insn == KPT_ENDBR_POISON || (insn & ~KPT_ENDBR32_BIT) == KPT_ENDBR64)
		return ip + 4;
#endif
	/* arm64 has no ENDBR: its kprobes are at the symbol */
	return ip;
}

/*
 * The probed address, as ftrace prints it, from the ip of the probe's
 * registers. An x86-64 kprobe handler sees ip just past the int3 (or the
 * ftrace-based kprobe's emulation of one), also after the kernel moved the
 * probe past an ENDBR; an arm64 one the BRK's own address; kprobe.multi
 * sees the function's own address; uprobes see the breakpoint address;
 * return probes the address returned to.
 */
static __always_inline __u64 kpt_probed_ip(void *ctx, int kind, __u32 pflags, __u64 ip)
{
	if (kind == KPT_CTX_MULTI && !(pflags & KPT_PF_RETURN))
		return kpt_kprobe_addr(bpf_get_func_ip(ctx));
#ifdef KPT_ARCH_X86
	if (kind == KPT_CTX_REGS && !(pflags & (KPT_PF_USER | KPT_PF_RETURN | KPT_PF_TP)))
		return ip - 1;
#endif
	return ip;
}

/*
 * A uretprobe's function as the kernel prints it ("ret <- func"): its
 * run-time address, which bpf_get_func_ip() gives a uprobe's program from
 * Linux 6.6 on (earlier it gives 0 there, and before 5.15 the verifier
 * refuses the helper: the loader's feature probe sets kpt_func_ip). 0 leaves
 * it to user space, which reads the process's maps while it lives.
 */
static __always_inline __u64 kpt_ufunc(void *ctx, int kind, __u32 pflags)
{
	if (kpt_func_ip && kind == KPT_CTX_REGS &&
	    (pflags & (KPT_PF_USER | KPT_PF_RETURN)) == (KPT_PF_USER | KPT_PF_RETURN))
		return bpf_get_func_ip(ctx);
	return 0;
}

#endif /* KPT_REGS_BPF_H */
