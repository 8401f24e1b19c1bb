/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Each probe's health as the kernel counts it, read at once: its counters
 * (kpt_stats), the kernel's misses, its program's run time and the probe's
 * share of it (cost.h). One reading for every output that shows it: the
 * exit profile (run/profile.c) and serve's /metrics (serve/metrics.c).
 */
#ifndef KPT_HEALTH_H
#define KPT_HEALTH_H

#include <stdbool.h>
#include <stdint.h>
#include "load/cost.h"
#include "load/costwin.h"
#include "load/loader.h"
#include "kptrace.h"

struct health {
	int n;
	struct kpt_stats *st;		/* per probe; zeroes where the kernel's could not be read */
	bool *ok;			/* st[i] was read */
	long long *missed;		/* the kernel's misses per probe, -1: it does not say */
	struct cost_in *prog;		/* each probe's program, its run time and runs */
	struct cost_out *cost;		/* each probe's share (cost_split()) */
	uint64_t cost_ns, cost_runs;	/* the distinct programs', summed once each */
	bool shared;			/* a share of a program serving several probes */
	bool estimated;			/* the COST scaled from windows of the statistics */
	double sampled;			/* the fraction of the run they were held for then */
};

/*
 * Probes evs[0, n) of ld, their programs' run time split over a run of
 * wall_ns (0: no share of a CPU), estimated from cw's windows where it
 * held the statistics in windows (NULL: as the kernel has them). 0, or
 * -ENOMEM with h empty.
 */
int health_read(struct health *h, struct loader *ld, const struct ev_desc *evs, int n,
		uint64_t wall_ns, const struct costwin *cw);
void health_free(struct health *h);

#endif /* KPT_HEALTH_H */
