/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The kernel's BPF run-time statistics in windows. While an fd of
 * BPF_ENABLE_STATS is open the kernel times every BPF program's every run,
 * other tools' as well, so a run holds one for COSTWIN_ON_S of each
 * COSTWIN_PERIOD_S, the first window from attach (a shorter run is measured
 * whole), and the profile's COST is estimated from what the windows saw
 * (cost_scale()). --cost exact, --budget and serve hold it throughout.
 */
#ifndef KPT_COSTWIN_H
#define KPT_COSTWIN_H

#include <stdbool.h>
#include <stdint.h>

#include "load/cost.h"
#include "load/loader.h"

/* A window's length and the period it starts each: a duty cycle of a tenth. */
#define COSTWIN_ON_S		0.1
#define COSTWIN_PERIOD_S	1.0

struct costwin {
	int fd;			/* BPF_ENABLE_STATS, held while a window is open; -1 */
	bool windows;		/* held in windows; false: for the whole run, or never */
	bool sampled;		/* a window closed before the stop: the COST is estimated */
	double opened;		/* mono s: the open window's start, 0: none open */
	double next;		/* mono s: when the window closes, or the next opens */
	double held_s;		/* the closed windows' time */
	const struct ev_desc *evs;
	int n;
	struct cost_win *w;	/* per probe: its program's runs and its events in windows */
	struct cost_win *at;	/* per probe: the same counters when the window opened */
};

/*
 * Before loading: BPF_ENABLE_STATS opened, for the whole run unless
 * windows. 0 held; else a negative errno, and why in off (as the
 * profile's "COST not measured" says it), empty when the global sysctl
 * counts anyway.
 */
int costwin_hold(struct costwin *cw, bool windows, char *off, size_t offlen);
/* Attached: the first window runs from now, over probes evs[0, n) of ld. 0 or -ENOMEM. */
int costwin_start(struct costwin *cw, struct loader *ld, const struct ev_desc *evs, int n);
/* Closes or opens a window when due; the mono s it is next due, 0: never. */
double costwin_tick(struct costwin *cw, struct loader *ld);
/* Stopped (ld's snapshot taken): the open window closed at the stop, the fd given back. */
void costwin_stop(struct costwin *cw, struct loader *ld);
/* A sampled run's estimate in in[] (as health_read() filled it); the fraction held. */
double costwin_scale(const struct costwin *cw, struct cost_in *in, double run_s);
void costwin_close(struct costwin *cw);

#endif /* KPT_COSTWIN_H */
