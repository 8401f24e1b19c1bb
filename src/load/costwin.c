// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The kernel's BPF run-time statistics held in windows (costwin.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "load/costwin.h"
#include "util/clock.h"

int costwin_hold(struct costwin *cw, bool windows, char *off, size_t offlen)
{
	char on = '0';
	FILE *f;
	int err;

	memset(cw, 0, sizeof(*cw));
	off[0] = '\0';
	cw->fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (cw->fd >= 0) {
		cw->windows = windows;
		return 0;
	}
	err = -errno;
	snprintf(off, offlen, "the kernel keeps no BPF run-time statistics for kptrace "
		 "(BPF_ENABLE_STATS: %s)", strerror(-err));
	/* the global sysctl counts for the whole run, at no further cost of ours */
	f = fopen("/proc/sys/kernel/bpf_stats_enabled", "r");
	if (f && fread(&on, 1, 1, f) == 1 && on == '1')
		off[0] = '\0';
	if (f)
		fclose(f);
	return err;
}

/* Probe i's counters now (after the stop: as they were at it). */
static void read_now(struct costwin *cw, struct loader *ld, int i, struct cost_win *c)
{
	struct kpt_stats st;
	uint64_t ns;
	uint32_t id;

	memset(c, 0, sizeof(*c));
	if (!loader_stats(ld, i, &st))
		c->events = st.hits + st.filtered;
	loader_probe_prog(ld, &cw->evs[i], &id, &ns, &c->runs);
}

int costwin_start(struct costwin *cw, struct loader *ld, const struct ev_desc *evs, int n)
{
	int i;

	if (!cw->windows)
		return 0;
	cw->w = calloc(n > 0 ? n : 1, sizeof(*cw->w));
	cw->at = calloc(n > 0 ? n : 1, sizeof(*cw->at));
	if (!cw->w || !cw->at)
		return -ENOMEM;
	cw->evs = evs;
	cw->n = n;
	/* the first window from here, not from attach: kptrace's own start-up
	 * (the modules' first look, the symbols) runs the programs once, which
	 * a window's share would scale to the whole run */
	cw->opened = kpt_mono_s();
	for (i = 0; i < n; i++)
		read_now(cw, ld, i, &cw->at[i]);
	cw->next = cw->opened + COSTWIN_ON_S;
	return 0;
}

/* The open window's counts added up, read while the kernel still counts. */
static void window_close(struct costwin *cw, struct loader *ld, double now)
{
	struct cost_win c;
	int i;

	for (i = 0; i < cw->n; i++) {
		read_now(cw, ld, i, &c);
		cw->w[i].runs += c.runs - cw->at[i].runs;
		cw->w[i].events += c.events - cw->at[i].events;
		cw->w[i].all_events = c.events;
	}
	cw->held_s += now - cw->opened;
	cw->opened = 0;
}

double costwin_tick(struct costwin *cw, struct loader *ld)
{
	double now = kpt_mono_s();
	int i;

	if (!cw->windows || ld->stopped)
		return 0;
	if (now < cw->next)
		return cw->next;
	if (cw->opened) {
		window_close(cw, ld, now);
		close(cw->fd);
		cw->fd = -1;
		cw->sampled = true;
		cw->next += COSTWIN_PERIOD_S - COSTWIN_ON_S;
		/* a round late (a slow output): the next window a whole period on */
		while (cw->next <= now)
			cw->next += COSTWIN_PERIOD_S;
		return cw->next;
	}
	cw->fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (cw->fd >= 0) {
		cw->opened = kpt_mono_s();
		for (i = 0; i < cw->n; i++)
			read_now(cw, ld, i, &cw->at[i]);
		cw->next = cw->opened + COSTWIN_ON_S;
	} else {
		cw->next += COSTWIN_PERIOD_S;
	}
	return cw->next;
}

void costwin_stop(struct costwin *cw, struct loader *ld)
{
	struct cost_win c;
	int i;

	if (!cw->windows)
		return;
	if (cw->opened)
		window_close(cw, ld, ld->stopped > cw->opened ? ld->stopped : cw->opened);
	for (i = 0; i < cw->n; i++) {
		read_now(cw, ld, i, &c);
		cw->w[i].all_events = c.events;
	}
	if (cw->fd >= 0)
		close(cw->fd);
	cw->fd = -1;
	cw->windows = false;
}

double costwin_scale(const struct costwin *cw, struct cost_in *in, double run_s)
{
	double held;

	if (!cw || !cw->sampled || !cw->w)
		return 1.0;
	held = run_s > 0 && cw->held_s < run_s ? cw->held_s / run_s : 1.0;
	cost_scale(in, cw->w, (size_t)cw->n, held);
	return held;
}

void costwin_close(struct costwin *cw)
{
	if (cw->fd >= 0)
		close(cw->fd);
	cw->fd = -1;
	free(cw->w);
	free(cw->at);
	cw->w = cw->at = NULL;
}
