/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Which probe a hit is, on a kernel without BPF cookies (before 5.15): each
 * probe's kpt_ident key, what bpf/ident.bpf.h makes of a hit, and where
 * that reads the running kprobe. Probes whose hits look the same (two on
 * one function's entry, two uprobes, two tracepoints) cannot share a run
 * there: refused, saying so.
 */
#ifndef KPT_LOAD_IDENT_H
#define KPT_LOAD_IDENT_H

#include <stddef.h>
#include <stdint.h>

#include "prepare/event.h"
#include "sys/ksyms.h"
#include "kptrace.h"

struct btf;

struct ident_set {
	struct kpt_ident *keys;	/* keys[i]: probe i's; NULL: the kernel has cookies */
	uint64_t curkp;		/* current_kprobe: its offset in a CPU's area */
	uint64_t pcpu;		/* __per_cpu_offset: the CPUs' areas */
	uint32_t addr_off;	/* struct kprobe's addr */
};

/*
 * The keys of evs[n] into id, where the kernel has no cookies and the run
 * more than one probe (else id->keys stays NULL): 0, or a negative errno
 * with msg saying what cannot run here and what to do.
 */
int ident_setup(struct ident_set *id, const struct ev_desc *evs, int n, const struct ksyms *ks,
		const struct btf *btf, char *msg, size_t msglen);
void ident_free(struct ident_set *id);

#endif /* KPT_LOAD_IDENT_H */
