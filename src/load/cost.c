// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The profile's COST: programs' run time split among their probes (cost.h). */
#include <stdio.h>
#include <string.h>

#include "load/cost.h"

/* Whether probe j's program came before j (its totals already counted). */
static bool seen_before(const struct cost_in *in, size_t j)
{
	size_t i;

	for (i = 0; i < j; i++)
		if (in[i].prog == in[j].prog)
			return true;
	return false;
}

/* Probe i's program's probes: how many, and their hits. */
static void prog_group(const struct cost_in *in, size_t n, size_t i, size_t *np, uint64_t *hits)
{
	size_t j;

	*np = 0;
	*hits = 0;
	for (j = 0; j < n; j++)
		if (in[j].prog == in[i].prog) {
			(*np)++;
			*hits += in[j].hits;
		}
}

/* Probe i's program's events over the windows and over the run. */
static void prog_events(const struct cost_in *in, const struct cost_win *w, size_t n, size_t i,
			uint64_t *events, uint64_t *all)
{
	size_t j;

	*events = *all = 0;
	for (j = 0; j < n; j++)
		if (in[j].prog == in[i].prog) {
			*events += w[j].events;
			*all += w[j].all_events;
		}
}

void cost_scale(struct cost_in *in, const struct cost_win *w, size_t n, double held)
{
	uint64_t events, all, runs;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!in[i].prog)
			continue;
		prog_events(in, w, n, i, &events, &all);
		/* its events all outside the windows, and no run in them: each
		 * event a run at least, their time not known */
		in[i].unmeasured = !w[i].runs && all;
		if (events)
			runs = (uint64_t)((long double)all * w[i].runs / events + 0.5L);
		else if (in[i].unmeasured)
			runs = all;
		else if (held > 0)
			runs = (uint64_t)((long double)w[i].runs / held + 0.5L);
		else
			runs = in[i].prog_runs;
		in[i].prog_ns = in[i].prog_runs && !in[i].unmeasured ?
			(uint64_t)((long double)in[i].prog_ns * runs / in[i].prog_runs + 0.5L) : 0;
		in[i].prog_runs = runs;
	}
}

void cost_split(const struct cost_in *in, size_t n, uint64_t wall_ns, struct cost_out *out)
{
	size_t i, np;
	uint64_t hits;

	for (i = 0; i < n; i++) {
		struct cost_out *c = &out[i];

		memset(c, 0, sizeof(*c));
		if (!in[i].prog)
			continue;
		prog_group(in, n, i, &np, &hits);
		c->shared = np > 1;
		if (hits)
			c->ns = (uint64_t)((long double)in[i].prog_ns * in[i].hits / hits + 0.5L);
		else
			c->ns = in[i].prog_ns / np;
		c->unmeasured = in[i].unmeasured;
		c->has_per_hit = in[i].hits > 0 && !in[i].unmeasured;
		if (c->has_per_hit)
			c->per_hit = (double)c->ns / (double)in[i].hits;
		if (wall_ns)
			c->cpu_pct = 100.0 * (double)c->ns / (double)wall_ns;
	}
}

void cost_total(const struct cost_in *in, size_t n, uint64_t *ns, uint64_t *runs)
{
	size_t i;

	*ns = *runs = 0;
	for (i = 0; i < n; i++)
		if (in[i].prog && !seen_before(in, i)) {
			*ns += in[i].prog_ns;
			*runs += in[i].prog_runs;
		}
}

void cost_fmt_per_hit(const struct cost_out *c, char *buf, size_t len)
{
	if (!c->has_per_hit)
		snprintf(buf, len, "-");
	else if (c->per_hit < 10000)
		snprintf(buf, len, "%.0f", c->per_hit);
	else if (c->per_hit < 10000000)
		snprintf(buf, len, "%.1fk", c->per_hit / 1000);
	else
		snprintf(buf, len, "%.1fM", c->per_hit / 1000000);
}

void cost_fmt_cpu(const struct cost_out *c, char *buf, size_t len)
{
	snprintf(buf, len, c->cpu_pct < 10 ? "%.3f" : "%.1f", c->cpu_pct);
}
