/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * /tmp/perf-PID.map: the symbols a JIT (V8, the JVM's perf-map-agent,
 * LuaJIT, .NET, Python 3.12's -X perf) writes for code it generated, one
 * "START SIZE NAME" line each, START and SIZE in hex, as perf reads them.
 */
#ifndef KPT_PERFMAP_H
#define KPT_PERFMAP_H

#include <stddef.h>
#include <stdint.h>

struct perfmap;

/* path read and sorted; NULL if it cannot be read (or has no valid line). */
struct perfmap *perfmap_read(const char *path);
void perfmap_free(struct perfmap *m);
/* The name of the entry holding addr, its offset into *off; NULL: none. A later
 * line wins over an earlier one at the same start (a JIT's code replaced). */
const char *perfmap_find(const struct perfmap *m, uint64_t addr, uint64_t *off);

#endif /* KPT_PERFMAP_H */
