/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Where a uprobe's function is mapped in a traced process, for uretprobe
 * lines: the kernel prints the function's runtime address ("(ret <- func)"),
 * which for a PIE or a shared library differs from the ELF's. The record's
 * own (h->func, from Linux 6.6), else looked up once per process and probe
 * from /proc/PID/maps, then cached; a process gone by then leaves the ELF's
 * address, said once on stderr.
 */
#ifndef KPT_UMAPS_H
#define KPT_UMAPS_H

#include <stdint.h>
#include "kptrace.h"
#include "prepare/event.h"

/* Run-time address of ev's probe point in record h's process; ev->uaddr if unknown. */
uint64_t umaps_func_addr(const struct ev_desc *ev, const struct kpt_rec_hdr *h);

#endif /* KPT_UMAPS_H */
