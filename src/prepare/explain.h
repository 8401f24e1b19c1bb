/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* --dry-run: what the prepared run would attach and read, said before anything loads. */
#ifndef KPT_EXPLAIN_H
#define KPT_EXPLAIN_H

#include <stdio.h>
#include "prepare/event.h"

/*
 * --dry-run: for each argument, where it is fetched from (register, stack
 * slot, dereference chain, user/kernel memory), its type and slot; then the
 * event's format as the kernel's events/GROUP/EVENT/format shows it.
 */
void explain_event(FILE *f, const struct ev_desc *ev);

struct plan;
struct probeset;
/* --dry-run: each probe as explained, how it attaches, the paths plan_make() chose. */
void plan_print(FILE *f, const struct plan *pl, const struct probeset *ps);

#endif /* KPT_EXPLAIN_H */
