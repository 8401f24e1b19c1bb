// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* latency --pmu: the per-call counter deltas' report (agg/pmu_report.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>

#include "agg/hist.h"
#include "agg/pmu_report.h"
#include "load/loader.h"

void pmu_report(FILE *out, bool json, const struct pmu_set *ps, struct loader *ld,
		const struct kpt_agg *g, int idx, const char *unit, bool clear)
{
	int ncpus = ld->ncpus, cpu, e, w = 0;
	struct kpt_pmu_stats *pc = calloc(ncpus, sizeof(*pc)), sum;
	uint64_t *counts = calloc(KPT_LOGLIN_BUCKETS, sizeof(*counts));
	__u32 key = idx;

	if (!pc || !counts || !ps || !ps->n || ps->fd_stat < 0)
		goto out;
	memset(&sum, 0, sizeof(sum));
	if (!bpf_map_lookup_elem(ps->fd_stat, &key, pc)) {
		for (cpu = 0; cpu < ncpus; cpu++) {
			for (e = 0; e < KPT_PMU_MAX; e++) {
				struct kpt_aggval *a = &sum.d[e], *f = &pc[cpu].d[e];

				if (!f->count)
					continue;
				if (!a->count || f->min < a->min)
					a->min = f->min;
				if (!a->count || f->max > a->max)
					a->max = f->max;
				a->count += f->count;
				a->sum += f->sum;
			}
			sum.migrated += pc[cpu].migrated;
			sum.multiplexed += pc[cpu].multiplexed;
			sum.failed += pc[cpu].failed;
		}
		if (clear) {
			memset(pc, 0, ncpus * sizeof(*pc));
			bpf_map_update_elem(ps->fd_stat, &key, pc, BPF_ANY);
		}
	}
	for (e = 0; e < ps->n; e++)
		if ((int)strlen(ps->ev[e].name) > w)
			w = (int)strlen(ps->ev[e].name);
	if (json)
		fputs(",\"pmu\":[", out);
	for (e = 0; e < ps->n; e++) {
		struct hist_view h = {
			.kind = KPT_H_LOGLIN,
			.nbuckets = KPT_LOGLIN_BUCKETS,
			.counts = counts,
			.stats = sum.d[e],
			.unit = ps->ev[e].ns ? (unit ? unit : "us") : NULL,
		};

		if (loader_hist_read(ld, g->pmu_base + e * KPT_LOGLIN_BUCKETS, KPT_LOGLIN_BUCKETS,
				     clear, counts))
			memset(counts, 0, KPT_LOGLIN_BUCKETS * sizeof(*counts));
		if (json) {
			fprintf(out, "%s{\"event\":\"%s\",\"unit\":%s%s%s,\"hist\":", e ? "," : "",
				ps->ev[e].name, ps->ev[e].ns ? "\"" : "", ps->ev[e].ns ? "ns" : "null",
				ps->ev[e].ns ? "\"" : "");
			hist_print_json(out, &h);
			fputc('}', out);
			continue;
		}
		fprintf(out, "  %-*s  ", w, ps->ev[e].name);
		hist_print_latency_summary(out, &h);
	}
	if (json) {
		fprintf(out, "],\"pmu_left_out\":{\"migrated\":%" PRIu64 ",\"multiplexed\":%" PRIu64
			",\"failed\":%" PRIu64 "}", (uint64_t)sum.migrated,
			(uint64_t)sum.multiplexed, (uint64_t)sum.failed);
		goto out;
	}
	if (sum.migrated)
		fprintf(out, "  (%" PRIu64 " call%s returned on another CPU than they entered on: "
			"per-CPU counters left out)\n", (uint64_t)sum.migrated,
			sum.migrated == 1 ? "" : "s");
	if (sum.multiplexed)
		fprintf(out, "  (%" PRIu64 " counter reading%s left out: the PMU time-shared the "
			"counter during the call; ask for fewer events)\n",
			(uint64_t)sum.multiplexed, sum.multiplexed == 1 ? "" : "s");
	if (sum.failed)
		fprintf(out, "  (%" PRIu64 " counter reading%s failed)\n", (uint64_t)sum.failed,
			sum.failed == 1 ? "" : "s");
out:
	free(pc);
	free(counts);
}
