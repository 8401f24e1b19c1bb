/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * latency --over: each call at or over the threshold as one line (or JSON
 * object): its latency, then the start's event and the end's, each as the
 * stream prints an event (comm-pid, CPU, time, arguments).
 */
#ifndef KPT_SLOWCALL_H
#define KPT_SLOWCALL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "out/callstart.h"
#include "prepare/event.h"
#include "sys/ksyms.h"

/*
 * The call named name (its histogram's) of dur ns, in unit (ns, us, ms): st
 * its start's record (NULL: not kept, as when it has no argument), ev/rec
 * its end's.
 */
void slowcall_print(FILE *f, bool json, const struct ksyms *ks, const char *name,
		    const char *unit, const struct call_start *st, const struct ev_desc *ev,
		    const void *rec, size_t len, uint64_t dur);

#endif /* KPT_SLOWCALL_H */
