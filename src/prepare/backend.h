/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Which mechanism each kernel function probe attaches with, after
 * compile (the fetches decide what a mechanism must provide) and before load.
 *   fentry/fexit: a BPF trampoline, the cheapest per hit; one program per
 *     probe (verified against its function), so for a few probes;
 *   kprobe.multi: one link for many functions, the cheapest to attach;
 *   kprobes: everything else (SYM+offs, raw addresses, rN:, stack reads).
 * The same definition gives the same values on each.
 */
#ifndef KPT_BACKEND_H
#define KPT_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include "prepare/event.h"
#include "prepare/resolve.h"
#include "kptrace.h"

/* name: "auto", "kprobe", "kprobe-multi" or "fentry" (NULL: auto). Marks
 * evs[i].multi / .tramp. 0, or a negative errno with msg. */
int backend_choose(const char *name, struct sysinfo *si, struct ev_desc *evs,
		   const struct kpt_probe_entry *ents, int n, char *msg, size_t msglen);

/*
 * Each tracepoint probe's program: tp_btf where it reads TP_PROTO's
 * arguments, and under auto where it reads neither those nor the record
 * (a count, a latency: tp_btf skips the record's making, KPT_TRAMP_AUTO at
 * most) if the run reads the kernel's BTF anyway; the tracepoint program
 * where it reads the record. name also
 * "tracepoint" or "tp-btf". Marks evs[i].tpbtf; 0, or a negative errno with
 * msg.
 */
int backend_tp(const char *name, struct sysinfo *si, struct ev_desc *evs,
	       const struct kpt_probe_entry *ents, int n, char *msg, size_t msglen);

/* The kernel refused trampoline programs that auto chose: send their probes
 * to kprobes. True if there were any (then load again). */
bool backend_fallback(const char *name, struct ev_desc *evs, int n);

/* Why a return probe's output needs where the function returns to (its
 * record shows it, or a key is a kernel stack), or NULL: arm64's fexit
 * cannot give it. */
const char *backend_ret_needs_caller(const struct kpt_probe_entry *ent);

/* For --dry-run: "fentry", "kprobe.multi (one link for all)", ... */
const char *backend_describe(const struct ev_desc *ev);

#endif /* KPT_BACKEND_H */
