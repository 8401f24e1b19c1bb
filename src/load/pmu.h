/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* latency --pmu, loaded: sys/pmu.h's counters in the BPF object's perf event array. */
#ifndef KPT_LOAD_PMU_H
#define KPT_LOAD_PMU_H

#include <stddef.h>
#include "sys/pmu.h"

struct loader;

/* After the load: put the counters in the map. 0 or -errno with msg. */
int pmu_attach(struct pmu_set *ps, struct loader *ld, char *msg, size_t msglen);

#endif /* KPT_LOAD_PMU_H */
