/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * kptrace's global functions, as each kernel takes them. A global function
 * is verified once, not once per call (docs/ARCHITECTURE.md); from Linux
 * 5.12 its arguments may be pointers to memory, before (the compat object,
 * KPT_COMPAT, for kernels without bpf_loop()) only scalars and the context:
 * there each takes the probe's index and the like instead, and finds its
 * map values itself, the same ones its caller has (the scratch of this
 * CPU, the probe's entry and counters). KPT_GLOBAL(RET, NAME, (ARGS),
 * (COMPAT_ARGS), PROLOGUE) opens the definition, brace included;
 * KPT_CALL(NAME, (ARGS), (COMPAT_ARGS)) calls it.
 */
#ifndef KPT_COMPAT_BPF_H
#define KPT_COMPAT_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "kptrace.h"
#include "maps.bpf.h"

#ifdef KPT_COMPAT
#define KPT_GLOBAL(ret, name, args, cargs, ...)	__noinline ret name cargs { __VA_ARGS__
#define KPT_CALL(name, args, cargs)		name cargs
#else
#define KPT_GLOBAL(ret, name, args, cargs, ...)	__noinline ret name args {
#define KPT_CALL(name, args, cargs)		name args
#endif

/*
 * A global function's first statement: it returns at once where the run
 * cannot call it (cond, of read-only settings, its callers' own), and the
 * verifier drops the rest. Linux 6.8+ verifies only the global functions a
 * program reaches; before, every one, called or not (6.1 took 1.9 s under
 * TCG, 334k instructions, for a probe that needs none of them).
 */
#define KPT_ONLY_IF(cond)	do { if (!(cond)) return 0; } while (0)

/* The prologues' pointers, NULL where a lookup fails (each function checks) */
#define KPT_C_SCRATCH(s)						\
	__u32 kpt_c_cpu = bpf_get_smp_processor_id();			\
	struct kpt_scratch *s = bpf_map_lookup_elem(&kpt_scratch, &kpt_c_cpu);
#define KPT_C_PROBE(p, idx)						\
	__u32 kpt_c_idx = (idx);					\
	const struct kpt_probe_entry *p = bpf_map_lookup_elem(&kpt_probes, &kpt_c_idx);
#define KPT_C_STATS(st)							\
	struct kpt_stats *st = bpf_map_lookup_elem(&kpt_stats, &kpt_c_idx);
#define KPT_C_PRED(prog, p, post)					\
	const struct kpt_pred_prog *prog = !p ? NULL : (post) ? &p->post : &p->pre;
/* masked, not compared: 5.10's verifier loses a compared index's bound */
#define KPT_C_FETCH(f, p, argi)						\
	const struct kpt_fetch *f = !p ? NULL : &p->args[(argi) & (KPT_MAX_ARGS - 1)];
_Static_assert((KPT_MAX_ARGS & (KPT_MAX_ARGS - 1)) == 0, "KPT_C_FETCH masks by KPT_MAX_ARGS");

#endif /* KPT_COMPAT_BPF_H */
