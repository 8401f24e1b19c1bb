/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Reads of memory (kernel, user, or by the address's half) and values of 1,
 * 2, 4 or 8 bytes as a record's slot holds them.
 */
#ifndef KPT_MEM_BPF_H
#define KPT_MEM_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

/*
 * x86-64 user addresses are below TASK_SIZE_MAX (0x00007ffffffff000 with
 * 4-level paging, below 1 << 56 with 5-level); kernel addresses have the top
 * bit set. ftrace's kprobes read addresses below TASK_SIZE as user memory
 * (CONFIG_ARCH_HAS_NON_OVERLAPPING_ADDRESS_SPACE); the top bit is the same
 * test for every canonical address. arm64's alike: user addresses in the
 * lower half (TTBR0), the kernel's in the upper (TTBR1).
 */
#define KPT_IS_USER_ADDR(a)	(((a) >> 63) == 0)

enum { KPT_RD_KERNEL = 0, KPT_RD_USER = 1, KPT_RD_AUTO = 2 };

static __always_inline long kpt_read(void *dst, __u64 size, __u64 addr, int mode)
{
	if (mode == KPT_RD_AUTO)
		mode = KPT_IS_USER_ADDR(addr) ? KPT_RD_USER : KPT_RD_KERNEL;
	if (mode == KPT_RD_USER)
		return bpf_probe_read_user(dst, size, (const void *)addr);
	return bpf_probe_read_kernel(dst, size, (const void *)addr);
}

/*
 * A read of 1, 2, 4 or 8 bytes into *v. The bound is restated after a
 * barrier: clang merges a switch of constant sizes back into one call with a
 * variable size, which the verifier then cannot bound.
 */
static __always_inline long kpt_read_sized(__u64 *v, __u32 size, __u64 addr, int mode)
{
	/* 64-bit: a 32-bit copy would be checked while the other is passed */
	__u64 sz = size;

	if (sz != 1 && sz != 2 && sz != 4)
		sz = 8;
	barrier_var(sz);
	if (sz > 8)
		sz = 8;
	return kpt_read(v, sz, addr, mode);
}

static __always_inline long kpt_read_str(void *dst, __u32 size, __u64 addr, int mode)
{
	if (mode == KPT_RD_AUTO)
		mode = KPT_IS_USER_ADDR(addr) ? KPT_RD_USER : KPT_RD_KERNEL;
	if (mode == KPT_RD_USER)
		return bpf_probe_read_user_str(dst, size, (const void *)addr);
	return bpf_probe_read_kernel_str(dst, size, (const void *)addr);
}

/* The low size bytes of v at p, as a record's slot holds them. */
static __always_inline void kpt_store_sized(void *p, __u32 size, __u64 v)
{
	switch (size) {
	case 1:
		*(__u8 *)p = v;
		break;
	case 2:
		*(__u16 *)p = v;
		break;
	case 4:
		*(__u32 *)p = v;
		break;
	default:
		*(__u64 *)p = v;
		break;
	}
}

/* The low size bytes of v, sign-extended when asked: a value as its record
 * slot would hold it (kpt_put() then kpt_pred_load()). */
static __always_inline __u64 kpt_narrow(__u64 v, __u32 size, bool is_signed)
{
	__u32 sh = 64 - 8 * size;

	if (size >= 8)
		return v;	/* most values: a branch, not four shifts */
	return is_signed ? (__u64)((__s64)(v << sh) >> sh) : (v << sh) >> sh;
}

#endif /* KPT_MEM_BPF_H */
