/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * bpf/filter.bpf.h built as plain C, for the unit tests and the fuzzer: what
 * it needs from the BPF build is the function attributes, unaligned loads,
 * and struct kpt_scratch as bpf/fetch.bpf.h lays it out (only rec[] is used,
 * and only its size matters).
 */
#ifndef KPT_FILTER_USERSPACE_H
#define KPT_FILTER_USERSPACE_H

#include <string.h>
#include "kptrace.h"

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
#define __noinline __attribute__((noinline))
#define KPT_LOAD(type, p)	({ type v_; memcpy(&v_, (p), sizeof(v_)); v_; })
#define barrier_var(v)		asm volatile("" : "+r"(v))

struct kpt_scratch {
	__u64 regs[21];
	__u64 ctx;
	__u32 nfaults;
	__u32 pad;
	__u8 rec[KPT_REC_MAX + KPT_STR_MAX + 8];
};

#include "../../bpf/filter.bpf.h"

#endif /* KPT_FILTER_USERSPACE_H */
