// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Each probe's health, read once (health.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "load/health.h"

int health_read(struct health *h, struct loader *ld, const struct ev_desc *evs, int n,
		uint64_t wall_ns, const struct costwin *cw)
{
	size_t m = n > 0 ? (size_t)n : 1;
	int i;

	memset(h, 0, sizeof(*h));
	h->st = calloc(m, sizeof(*h->st));
	h->ok = calloc(m, sizeof(*h->ok));
	h->missed = calloc(m, sizeof(*h->missed));
	h->prog = calloc(m, sizeof(*h->prog));
	h->cost = calloc(m, sizeof(*h->cost));
	if (!h->st || !h->ok || !h->missed || !h->prog || !h->cost) {
		health_free(h);
		return -ENOMEM;
	}
	h->n = n;
	for (i = 0; i < n; i++) {
		h->ok[i] = !loader_stats(ld, i, &h->st[i]);
		if (!h->ok[i])
			memset(&h->st[i], 0, sizeof(h->st[i]));
		h->missed[i] = loader_missed(ld, i);
		loader_probe_prog(ld, &evs[i], &h->prog[i].prog, &h->prog[i].prog_ns,
				  &h->prog[i].prog_runs);
		h->prog[i].hits = h->st[i].hits;
	}
	h->estimated = cw && cw->sampled;
	h->sampled = costwin_scale(cw, h->prog, (double)wall_ns / 1e9);
	cost_split(h->prog, (size_t)n, wall_ns, h->cost);
	cost_total(h->prog, (size_t)n, &h->cost_ns, &h->cost_runs);
	for (i = 0; i < n; i++)
		h->shared |= h->cost[i].shared && h->cost[i].has_per_hit;
	return 0;
}

void health_free(struct health *h)
{
	free(h->st);
	free(h->ok);
	free(h->missed);
	free(h->prog);
	free(h->cost);
	memset(h, 0, sizeof(*h));
}
