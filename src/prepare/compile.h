/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Compile: a parsed and resolved definition -> the BPF probe table
 * entry (staged fetches, record layout) and the userspace ev_desc that reads
 * the records back.
 */
#ifndef KPT_COMPILE_H
#define KPT_COMPILE_H

#include <stddef.h>
#include "lang/spec.h"
#include "prepare/event.h"
#include "prepare/resolve.h"
#include "kptrace.h"

/*
 * Fill *ent and *ev for probe index idx. ev keeps pointers into p (names,
 * texts), so p must outlive ev. Returns 0 or a negative errno with msg and
 * *col (caret column, -1 if none) set.
 */
int compile_probe(const struct spec_probe *p, const struct resolved *r, int idx,
		  struct kpt_probe_entry *ent, struct ev_desc *ev, char *msg, size_t msglen,
		  int *col);
void ev_desc_free(struct ev_desc *ev);

#endif /* KPT_COMPILE_H */
