/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Stage 3, compile: a parsed and resolved definition -> the BPF probe table
 * entry (staged fetches, record layout) and the userspace ev_desc that reads
 * the records back.
 */
#ifndef KPT_COMPILE_H
#define KPT_COMPILE_H

#include <stddef.h>
#include "kptrace.h"
#include "event.h"
#include "resolve.h"
#include "spec.h"

/*
 * Fill *ent and *ev for probe index idx. ev keeps pointers into p (names,
 * texts), so p must outlive ev. Returns 0 or a negative errno with msg and
 * *col (caret column, -1 if none) set.
 */
int compile_probe(const struct spec_probe *p, const struct resolved *r, int idx,
		  struct kpt_probe_entry *ent, struct ev_desc *ev, char *msg, size_t msglen,
		  int *col);
void ev_desc_free(struct ev_desc *ev);

/*
 * Once the probe's action and filters are set: mark it KPT_PF_DIRECT if the
 * BPF handler can do its job from its context alone, with no record, no
 * fetch interpreter and no kpt_aggregate(): an unkeyed, unfiltered histogram
 * of an argument register, %ax, the return value or a tracepoint field
 * (e->agg.direct says which), or the two halves of an unkeyed, unfiltered
 * latency; in both, no argument that can fault. The caller leaves out runs
 * whose options need the generic path (--comm, --pmu).
 */
void compile_mark_direct(const struct sysinfo *si, struct kpt_probe_entry *e);

/*
 * A printing probe that can be a direct stream (struct kpt_direct_stream in
 * include/kptrace.h: every argument a register as it is, no filter): fills
 * *ds with its record's layout and returns true; else false, *ds zeroed.
 * The caller keeps it to runs of that one probe, not on a tracepoint.
 */
bool compile_direct_stream(const struct sysinfo *si, const struct kpt_probe_entry *e,
			   struct kpt_direct_stream *ds);

/*
 * A KPT_PF_DIRECT histogram (compile_mark_direct()) as a direct histogram
 * (struct kpt_direct_hist in include/kptrace.h): fills *dh and returns
 * true; else false, *dh zeroed. The caller keeps it to runs of that one
 * probe.
 */
bool compile_direct_hist(const struct kpt_probe_entry *e, struct kpt_direct_hist *dh);

/*
 * The words of struct pt_regs (enum kpt_reg_word) e's arguments read, and
 * ip, which a record holds: what the handler copies of its context.
 */
uint32_t compile_regs_used(const struct kpt_probe_entry *e);

#endif /* KPT_COMPILE_H */
