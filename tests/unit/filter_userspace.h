/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * bpf/filter.bpf.h built as plain C, for the unit tests and the fuzzer: what
 * it needs from the BPF build is the function attributes and unaligned
 * loads; struct kpt_scratch is bpf/scratch.bpf.h's own (plain C).
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

#include "../../bpf/filter.bpf.h"

#endif /* KPT_FILTER_USERSPACE_H */
