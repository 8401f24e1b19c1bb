/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Where a uprobe's function is mapped in a traced process, for uretprobe
 * lines: the kernel prints the function's runtime address ("(ret <- func)"),
 * which for a PIE or a shared library differs from the ELF's. Looked up once
 * per process and probe from /proc/PID/maps, then cached.
 */
#ifndef KPT_UMAPS_H
#define KPT_UMAPS_H

#include <stdint.h>
#include "prepare/event.h"

/* Runtime address of ev's probe point in process tgid; ev->uaddr if unknown. */
uint64_t umaps_func_addr(const struct ev_desc *ev, uint32_t tgid);

#endif /* KPT_UMAPS_H */
