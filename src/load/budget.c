// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "load/budget.h"
#include "load/cost.h"
#include "load/loader.h"
#include "prepare/event.h"
#include "util/clock.h"
#include "kptrace.h"

int budget_parse(const char *s, struct budget_spec *b, char *msg, size_t msglen)
{
	size_t len = strlen(s);
	char *end;

	memset(b, 0, sizeof(*b));
	errno = 0;
	if (len > 1 && s[len - 1] == '%') {
		b->pct = strtod(s, &end);
		if (!errno && end == s + len - 1 && b->pct >= 0.001 && b->pct <= 100 && s[0] != ' ')
			return 0;
		snprintf(msg, msglen, "--budget: '%s' is not a share of one CPU from 0.001%% to 100%%",
			 s);
		return -EINVAL;
	}
	if (len > 2 && !strcmp(s + len - 2, "/s") && s[0] >= '0' && s[0] <= '9') {
		unsigned long long v = strtoull(s, &end, 10);

		if (!errno && end == s + len - 2 && v >= 1 && v <= 1000000000ULL) {
			b->rate = v;
			return 0;
		}
		snprintf(msg, msglen, "--budget: '%s' is not a rate from 1/s to 1000000000/s", s);
		return -EINVAL;
	}
	snprintf(msg, msglen, "--budget: '%s' is neither a share of one CPU (1%%, 0.5%%) nor events "
		 "a second (200000/s)", s);
	return -EINVAL;
}

void budget_bucket(const struct budget_probe *p, struct kpt_budget *b)
{
	uint64_t r = p->rate < 1 ? 1 : p->rate > 1e9 ? 1000000000ULL : (uint64_t)p->rate;

	/* a tenth of a second's credit: a burst passes, a held rate does not */
	kpt_budget_set_rate(b, r, r / 10 ? r / 10 : 1);
	b->sample = p->sample > 1 ? p->sample : 0;
	b->armed = p->armed;
}

bool budget_want_armed(const struct budget_probe *p, double hit_rate, bool paused)
{
	if (hit_rate > 0.5 * p->rate)
		return true;
	if (hit_rate < 0.25 * p->rate && p->sample <= 1 && !paused)
		return false;
	return p->armed;
}

double budget_total(const struct budget_spec *spec)
{
	return spec->rate ? (double)spec->rate : spec->pct / 100.0 * 1e9;
}

double budget_first_rate(const struct budget_spec *spec, int nprobes)
{
	double even = budget_total(spec) / (nprobes > 0 ? nprobes : 1);

	return spec->rate ? even : even / BUDGET_GUESS_NS;
}

static int cmp_want(const void *a, const void *b, void *arg)
{
	const double *want = arg;
	double x = want[*(const int *)a], y = want[*(const int *)b];

	return x < y ? -1 : x > y;
}

void budget_split(double total, const double *want, int n, double *share)
{
	double left = total, floor_ = n > 0 ? total / (4.0 * n) : 0;
	int *order = calloc(n > 0 ? n : 1, sizeof(*order));
	int i, k;

	if (!order) {	/* the even split, always safe */
		for (i = 0; i < n; i++)
			share[i] = total / n;
		return;
	}
	for (i = 0; i < n; i++)
		order[i] = i;
	qsort_r(order, n, sizeof(*order), cmp_want, (void *)want);
	/* the least hungry first: each takes what it wants (a quarter more, at
	 * least the floor), at most an even part of what is left */
	for (k = 0; k < n; k++) {
		double fair = left / (n - k);
		double w = fmax(floor_, want[order[k]] * 1.25);

		share[order[k]] = fmin(w, fair);
		left -= share[order[k]];
	}
	/* what none wanted: evenly, so a probe that gets busier has room at once */
	for (i = 0; i < n; i++)
		share[i] += left / n;
	free(order);
}

/* A CPU share's rate after a look: scaled by how far the time it took was from its share. */
static double share_rate(const struct budget_obs *o, double dt, const struct budget_probe *p)
{
	double used = (double)o->ns / dt, taken = (double)(o->hits - o->skipped) / dt;

	if (used > p->share)	/* over: what was taken, cut by as much as it was over */
		return fmax(1.0, fmin(p->rate, taken) * p->share / used);
	if (o->skipped)		/* held back and under: more, at most twice as many */
		return fmin(1e9, p->rate * fmin(2.0, p->share / fmax(used, 1.0)));
	return p->rate;
}

bool budget_step(const struct budget_spec *spec, const struct budget_obs *o, double dt,
		 struct budget_probe *p)
{
	double old_rate = p->rate, hit_rate, n;
	uint32_t old_sample = p->sample;

	if (dt <= 0 || o->skipped > o->hits)
		return false;
	if (spec->rate)
		p->rate = fmax(1.0, p->share);
	else if (o->ns_known && o->hits)
		p->rate = share_rate(o, dt, p);
	hit_rate = (double)o->hits / dt;
	n = ceil(hit_rate / p->rate);
	if (n > UINT32_MAX)
		n = UINT32_MAX;
	/* down only once the current 1 in N records a fifth under the rate, so a
	 * rate near the budget does not flap */
	if (n >= p->sample || hit_rate / p->sample < 0.8 * p->rate)
		p->sample = n > 1 ? (uint32_t)n : 1;
	return p->rate != old_rate || p->sample != old_sample;
}

unsigned int budget_hold_looks(const struct budget_spec *spec, double share,
			       const struct budget_obs *o, double dt, double rate_before)
{
	double used, k;

	if (spec->pct <= 0 || !o->ns_known || !o->hits || dt <= 0 || o->skipped > o->hits ||
	    share <= 0)
		return 0;
	used = (double)o->ns / dt;
	if (used <= 1.5 * share || (double)(o->hits - o->skipped) > 2 * rate_before * dt + 1)
		return 0;
	k = ceil(used / share) - 1;
	return k > BUDGET_HOLD_MAX ? BUDGET_HOLD_MAX : (unsigned int)k;
}

double budget_scale(uint64_t hits, uint64_t skipped)
{
	if (!skipped || skipped >= hits)
		return 1.0;
	return (double)hits / (double)(hits - skipped);
}

/* ---- the run's controller ---- */

static int write_bucket(struct budget_ctl *c, int i)
{
	struct kpt_budget b = { 0 };

	budget_bucket(&c->p[i], &b);
	return loader_set_budget(c->ld, i, &b);
}

int budget_start(struct budget_ctl *c, const struct budget_spec *spec, struct loader *ld,
		 const struct ev_desc *evs, const struct kpt_probe_entry *ents, int n,
		 bool ns_known)
{
	int i, err = 0;

	memset(c, 0, sizeof(*c));
	c->spec = *spec;
	c->ld = ld;
	c->evs = evs;
	c->n = n;
	c->ns_known = ns_known;
	c->last_t = kpt_mono_s();
	c->why_root = -1;
	c->p = calloc(n ? n : 1, sizeof(*c->p));
	c->seen = calloc(n ? n : 1, sizeof(*c->seen));
	if (!c->p || !c->seen)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		c->nbudgeted += budget_droppable(&ents[i]);
		if (budget_droppable(&ents[i]) && ents[i].agg.action == KPT_ACT_WHY)
			c->why_root = i;
	}
	for (i = 0; i < n && !err; i++) {
		if (!budget_droppable(&ents[i]))
			continue;
		c->p[i].share = budget_total(spec) / c->nbudgeted;
		c->p[i].rate = budget_first_rate(spec, c->nbudgeted);
		c->p[i].sample = 1;
		/* armed: nothing is known of its rate yet */
		c->p[i].armed = true;
		err = write_bucket(c, i);
	}
	if (spec->pct > 0 && !ns_known)
		fprintf(stderr, "kptrace: --budget %g%%: the kernel does not tell BPF programs' run "
			"time here; held as events a second instead, %.0f a probe (%.0f ns a hit "
			"assumed)\n", spec->pct, budget_first_rate(spec, c->nbudgeted),
			BUDGET_GUESS_NS);
	return err;
}

/* What probe i's program did since the last look, and its share of it (cost.c's split). */
static void observe(struct budget_ctl *c, struct budget_obs *obs, struct kpt_stats *now_st)
{
	struct cost_in *in = calloc(c->n, sizeof(*in));
	struct cost_out *out = calloc(c->n, sizeof(*out));
	int i;

	for (i = 0; i < c->n; i++) {
		uint64_t ns = 0, runs = 0;

		if (loader_stats(c->ld, i, &now_st[i]))
			now_st[i] = c->seen[i].last;
		obs[i].hits = now_st[i].hits - c->seen[i].last.hits;
		obs[i].skipped = now_st[i].sampled + now_st[i].paused - c->seen[i].last.sampled -
				 c->seen[i].last.paused;
		if (!in || !c->ns_known ||
		    loader_probe_prog(c->ld, &c->evs[i], &in[i].prog, &ns, &runs))
			continue;
		in[i].prog_ns = ns - c->seen[i].prog_ns;
		in[i].prog_runs = runs - c->seen[i].prog_runs;
		in[i].hits = obs[i].hits;
		c->seen[i].prog_ns = ns;
		c->seen[i].prog_runs = runs;
	}
	if (in && out && c->ns_known) {
		cost_split(in, (size_t)c->n, 0, out);
		for (i = 0; i < c->n; i++) {
			obs[i].ns = out[i].ns;
			obs[i].ns_known = in[i].prog != 0;
		}
		/* why: the root's calls cost what all its probes took */
		for (i = 0; c->why_root >= 0 && i < c->n; i++) {
			if (i == c->why_root)
				continue;
			obs[c->why_root].ns += out[i].ns;
			obs[c->why_root].ns_known |= in[i].prog != 0;
		}
	}
	free(in);
	free(out);
}

/* What changed for probe i, on stderr: sampling or pausing begun or ended. */
static void say_change(const struct budget_ctl *c, int i, const struct budget_probe *was,
		       const struct budget_obs *o, uint64_t paused, double dt)
{
	const struct budget_probe *p = &c->p[i];
	const struct ev_desc *ev = &c->evs[i];

	if (p->sample > 1 && was->sample <= 1)
		fprintf(stderr, "kptrace: budget: %s/%s at %.0f hits/s, past its %.0f/s: recording "
			"1 in %u\n", ev->group, ev->event,
			(double)o->hits / dt, p->rate, p->sample);
	else if (p->sample <= 1 && was->sample > 1)
		fprintf(stderr, "kptrace: budget: %s/%s back under its %.0f/s (%.0f hits/s): "
			"recording every hit\n", ev->group, ev->event, p->rate,
			(double)o->hits / dt);
	if (paused && !was->paused)
		fprintf(stderr, "kptrace: budget: %s/%s paused: %llu hits past its %.0f/s left "
			"out\n", ev->group, ev->event, (unsigned long long)paused, p->rate);
	else if (!paused && was->paused)
		fprintf(stderr, "kptrace: budget: %s/%s no longer paused\n", ev->group, ev->event);
}

/*
 * A CPU share that leaving hits out cannot hold (budget_hold_looks()): the
 * probe is detached for some looks after each attached one, where it can
 * be, its hits meanwhile estimated from its rate; where it cannot (a
 * kprobe.multi's), that is said. Said once a probe.
 */
static void hold_or_say(struct budget_ctl *c, int i, const struct budget_probe *was,
			const struct budget_obs *o, double dt)
{
	struct budget_probe *p = &c->p[i];
	const struct ev_desc *ev = &c->evs[i];
	double used = (double)o->ns / dt, share = was->share;
	unsigned int k = budget_hold_looks(&c->spec, share, o, dt, was->rate);
	bool held;

	if (!k)
		return;
	if (i == c->why_root) {
		/* its root detached alone would leave its returns unpaired */
		if (!p->floor_said)
			fprintf(stderr, "kptrace: budget: why's probes take %.2f%% of a CPU while "
				"logging only %.0f of %.0f calls/s: their hits outside the logged "
				"calls cost past --budget %.3g%% alone; narrow --under\n",
				used / 1e7, (double)(o->hits - o->skipped) / dt,
				(double)o->hits / dt, c->spec.pct);
		p->floor_said = true;
		return;
	}
	held = !loader_hold(c->ld, ev);
	if (held) {
		p->held = k;
		p->held_rate = (double)o->hits / dt;
	}
	if (p->floor_said)
		return;
	p->floor_said = true;
	fprintf(stderr, "kptrace: budget: %s/%s takes %.2f%% of a CPU while recording only %.0f "
		"of its %.0f hits/s: a hit left out still costs %.0f ns, past its %.3g%% however "
		"few are recorded; ", ev->group, ev->event, used / 1e7,
		(double)(o->hits - o->skipped) / dt, (double)o->hits / dt,
		(double)o->ns / (double)o->hits, share / 1e7);
	if (held)
		fprintf(stderr, "detached %u s after each second attached, its hits meanwhile not "
			"seen\n", k);
	else
		fprintf(stderr, "it cannot be detached alone (a narrower probe, or a filter on "
			"the process, helps)\n");
}

/* A held probe's look: its unseen hits estimated; attached again at the hold's end. */
static void held_look(struct budget_ctl *c, int i, double dt)
{
	struct budget_probe *p = &c->p[i];
	char msg[256];

	p->unseen += (uint64_t)(p->held_rate * dt + 0.5);
	if (--p->held)
		return;
	if (loader_attach_late(c->ld, &c->evs[i], msg, sizeof(msg))) {
		/* it stays detached for the rest of the run: said, and no longer budgeted */
		fprintf(stderr, "kptrace: budget: %s/%s cannot be attached again: %s; it stays "
			"detached\n", c->evs[i].group, c->evs[i].event, msg);
		p->rate = 0;
	}
}

/*
 * What probe p would take this look were nothing left out: its hits a
 * second (a rate budget) or its run time a second, scaled up by what its
 * sampling left out (a CPU share; a hit left out costs less, so this is
 * more than it would take); a held probe, all of it.
 */
static double demand(const struct budget_ctl *c, const struct budget_probe *p,
		     const struct budget_obs *o, double dt)
{
	if (p->held)
		return budget_total(&c->spec);
	if (c->spec.rate)
		return (double)o->hits / dt;
	if (!o->ns_known || o->hits <= o->skipped)
		return o->hits ? budget_total(&c->spec) : 0;
	return (double)o->ns / dt * (double)o->hits / (double)(o->hits - o->skipped);
}

/* The run's budget shared among its probes by what they want (budget_split()). */
static void share_out(struct budget_ctl *c, const struct budget_obs *obs, double dt)
{
	double *want = calloc(c->n ? c->n : 1, sizeof(*want));
	double *share = calloc(c->n ? c->n : 1, sizeof(*share));
	int *idx = calloc(c->n ? c->n : 1, sizeof(*idx));
	int i, m = 0;

	/* without run times a CPU share stays split evenly at the guess */
	if (want && share && idx && (c->spec.rate || c->ns_known)) {
		for (i = 0; i < c->n; i++) {
			if (c->p[i].rate <= 0)
				continue;
			want[m] = demand(c, &c->p[i], &obs[i], dt);
			idx[m++] = i;
		}
		budget_split(budget_total(&c->spec), want, m, share);
		for (i = 0; i < m; i++)
			c->p[idx[i]].share = share[i];
	}
	free(want);
	free(share);
	free(idx);
}

void budget_tick(struct budget_ctl *c)
{
	double now = kpt_mono_s();
	struct budget_obs *obs = calloc(c->n ? c->n : 1, sizeof(*obs));
	struct kpt_stats *st = calloc(c->n ? c->n : 1, sizeof(*st));
	double dt;
	int i;

	dt = now - c->last_t;
	if (!obs || !st || dt <= 0)
		goto out;
	observe(c, obs, st);
	share_out(c, obs, dt);
	for (i = 0; i < c->n; i++) {
		struct budget_probe was = c->p[i];
		uint64_t paused = st[i].paused - c->seen[i].last.paused;
		bool changed, armed;

		if (c->p[i].rate <= 0)
			continue;
		if (c->p[i].held) {
			held_look(c, i, dt);
			continue;
		}
		/* the kernel arms a bucket at a mark */
		c->p[i].armed = loader_budget_armed(c->ld, i) > 0;
		changed = budget_step(&c->spec, &obs[i], dt, &c->p[i]);
		armed = budget_want_armed(&c->p[i], (double)obs[i].hits / dt, paused > 0);
		if (changed || armed != c->p[i].armed) {
			c->p[i].armed = armed;
			write_bucket(c, i);
		}
		say_change(c, i, &was, &obs[i], paused, dt);
		hold_or_say(c, i, &was, &obs[i], dt);
		c->p[i].paused = paused > 0;
	}
	for (i = 0; i < c->n; i++)
		c->seen[i].last = st[i];
	c->last_t = now;
out:
	free(obs);
	free(st);
}

uint64_t budget_stop(struct budget_ctl *c)
{
	double dt = kpt_mono_s() - c->last_t;
	uint64_t all = 0;
	int i;

	for (i = 0; i < c->n; i++) {
		struct budget_probe *p = &c->p[i];

		if (p->held && dt > 0)
			p->unseen += (uint64_t)(p->held_rate * dt + 0.5);
		p->held = 0;
		all += p->unseen;
	}
	c->last_t += dt > 0 ? dt : 0;
	return all;
}

void budget_scales(struct budget_ctl *c, const struct kpt_probe_entry *ents, bool reset,
		   double *scale)
{
	uint64_t *hits = calloc(c->n ? c->n : 1, sizeof(*hits));
	uint64_t *skipped = calloc(c->n ? c->n : 1, sizeof(*skipped));
	struct kpt_stats st;
	int i;

	for (i = 0; i < c->n; i++)
		scale[i] = 1.0;
	for (i = 0; hits && skipped && i < c->n; i++) {
		uint32_t g = ents[i].agg.group < (uint32_t)c->n ? ents[i].agg.group : (uint32_t)i;

		if (loader_stats(c->ld, i, &st))
			continue;
		hits[g] += st.hits - c->seen[i].rep_hits;
		skipped[g] += st.sampled + st.paused - c->seen[i].rep_skipped;
		if (reset) {
			c->seen[i].rep_hits = st.hits;
			c->seen[i].rep_skipped = st.sampled + st.paused;
		}
	}
	for (i = 0; hits && skipped && i < c->n; i++)
		scale[i] = budget_scale(hits[i], skipped[i]);
	free(hits);
	free(skipped);
}

void budget_free(struct budget_ctl *c)
{
	free(c->p);
	free(c->seen);
	memset(c, 0, sizeof(*c));
}
