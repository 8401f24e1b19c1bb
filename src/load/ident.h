/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Which probe a hit is, on a kernel without BPF cookies (before 5.15): up
 * to KPT_ID_SLOTS probes get a program of their own whose probe is a
 * constant (bpf/kptrace.bpf.c's slots), uprobes and tracepoints first; the
 * rest are told by what they hit (bpf/ident.bpf.h), each a kpt_ident key:
 * kprobes by the running kprobe, and one uprobe and one tracepoint a run.
 * What that cannot tell apart is refused, saying so. Where cookies exist,
 * a few tracepoints take slots all the same: no cookie to read a hit.
 */
#ifndef KPT_LOAD_IDENT_H
#define KPT_LOAD_IDENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prepare/event.h"
#include "sys/ksyms.h"
#include "kptrace.h"

struct btf;

struct ident_set {
	struct kpt_ident *keys;	/* keys[i]: probe i's; NULL: the kernel has cookies */
	int *slot;		/* slot[i]: probe i's slot program, or -1 (its key) */
	uint64_t curkp;		/* current_kprobe: its offset in a CPU's area */
	uint64_t pcpu;		/* __per_cpu_offset: the CPUs' areas */
	uint32_t addr_off;	/* struct kprobe's addr */
};

/*
 * The other definition on classic tracepoint probe ev's tracepoint, of the
 * n probes (evs are an array, ev->index ev's place in it), -1 if none, -2
 * if more than one: both go through one attachment of kpt_tp2.
 */
int ident_tp_partner(const struct ev_desc *ev, int n);

/*
 * Whether ev's attachment holds its tracepoint's pair (partner, of
 * ident_tp_partner()): the one attached first (a return before the entry it
 * pairs with), its work done first on each hit; the other then has no link
 * of its own.
 */
bool ident_tp_hosts(const struct ev_desc *ev, int partner);

/*
 * The slots and keys of evs[n] into id, where the kernel has no cookies and the run
 * more than one probe (else id->keys stays NULL): 0, or a negative errno
 * with msg saying what cannot run here and what to do.
 */
int ident_setup(struct ident_set *id, const struct ev_desc *evs, int n, const struct ksyms *ks,
		const struct btf *btf, char *msg, size_t msglen);
/*
 * Where the kernel has cookies: a run of several probes with at most
 * KPT_TP_FAST_SLOTS classic tracepoints (none with a partner) gives each of
 * those a slot program, which knows its probe without reading the cookie,
 * a helper call a hit (id->keys stays NULL; id->slot NULL if none).
 */
int ident_fast_slots(struct ident_set *id, const struct ev_desc *evs, int n);
void ident_free(struct ident_set *id);

#endif /* KPT_LOAD_IDENT_H */
