/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* latency --pmu, reported: each counter's per-call deltas beside the latency. */
#ifndef KPT_PMU_REPORT_H
#define KPT_PMU_REPORT_H

#include <stdbool.h>
#include <stdio.h>
#include "sys/pmu.h"
#include "kptrace.h"

struct loader;

/*
 * Probe idx's counter summaries (LAT_END probes, unkeyed): text lines
 * ("  cycles  count N, avg A, p50 P, ...") or, json, the members
 * ',"pmu":[...],"pmu_left_out":{...}' of the latency object. unit is the
 * latency's, for the nanosecond counters. clear: reset after reading.
 */
void pmu_report(FILE *out, bool json, const struct pmu_set *ps, struct loader *ld,
		const struct kpt_agg *g, int idx, const char *unit, bool clear);

#endif /* KPT_PMU_REPORT_H */
