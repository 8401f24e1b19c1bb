/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * --budget PCT|N/s: the user-space half of the overhead budget. The kernel
 * decides each hit (include/kpt_budget.h: 1-in-N sampling, then a token
 * bucket at the probe's rate); this sets each probe's rate and N once a
 * second from what the probes did in that second, says on stderr when a
 * probe starts and stops being sampled or paused, and gives the factors
 * that scale a sampled aggregation back to an estimate.
 */
#ifndef KPT_BUDGET_USER_H
#define KPT_BUDGET_USER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prepare/opts.h"
#include "kpt_budget.h"


/* A probe's cost per hit taken before anything is measured (a kprobe's order of magnitude). */
#define BUDGET_GUESS_NS	1000.0

/* Parse "1%", "0.5%", "200000/s"; 0, or -EINVAL with msg. */
int budget_parse(const char *s, struct budget_spec *b, char *msg, size_t msglen);

/* What one probe did over one look (deltas), for budget_step(). */
struct budget_obs {
	uint64_t hits, skipped;	/* skipped: sampled out or paused */
	uint64_t ns;		/* its BPF run time, when known */
	bool ns_known;
};

/* A budgeted probe's state between looks. */
struct budget_probe {
	double share;		/* its part of the run's budget: events or ns a second */
	double rate;		/* recorded hits a second it may take */
	uint32_t sample;	/* 1 in sample, 1: every hit */
	bool paused;		/* its last look skipped hits past the rate */
	bool armed;		/* its bucket asked at every hit, not only at the marks */
	bool floor_said;	/* said that its hits left out alone cost past its share */
	unsigned int held;	/* looks it stays detached for (budget_hold_looks()) */
	double held_rate;	/* its hits a second when it was detached */
	uint64_t unseen;	/* hits estimated while it was detached: held_rate x time */
};

/* Probe p's bucket (its burst: a tenth of a second's hits at its rate, at least one). */
void budget_bucket(const struct budget_probe *p, struct kpt_budget *b);

/*
 * Whether p's bucket should be armed after a look that saw hit_rate (and
 * some hits paused or not): at more than half its rate, yes; at less than
 * a quarter, unsampled and unpaused, no (its marks arm it again at once);
 * between, as it is.
 */
bool budget_want_armed(const struct budget_probe *p, double hit_rate, bool paused);

/* The run's budget: events a second, or ns of BPF run time a second. */
double budget_total(const struct budget_spec *spec);

/*
 * A probe's first rate: the run's rate or CPU share split evenly among its
 * nprobes budgeted probes, the share through BUDGET_GUESS_NS a hit.
 */
double budget_first_rate(const struct budget_spec *spec, int nprobes);

/*
 * The run's budget (total) shared among n probes by what each wants (in the
 * same unit): one that wants less than an even part of what is left gets a
 * quarter more than it wants, at least total/4n (so one that wakes up is
 * recorded at once); the busiest share the rest; what none wanted is added
 * to all evenly. The shares add up to total.
 */
void budget_split(double total, const double *want, int n, double *share);

/*
 * One look at a probe after dt seconds, under its share (p->share): its new
 * rate (a rate budget: the share; a CPU share: the rate that held its
 * measured time a second at the share) and its 1 in N (what keeps its hits
 * at its rate). Returns true when the probe's rate or N changed.
 */
bool budget_step(const struct budget_spec *spec, const struct budget_obs *o, double dt,
		 struct budget_probe *p);

/* The longest a held probe stays detached at a time, looks (seconds). */
#define BUDGET_HOLD_MAX	59

/*
 * A CPU share that sampling cannot hold: after a look in which the probe
 * took more than 1.5 times its share while recording no more than its rate
 * (rate_before: the one it had over that look), what a hit left out costs
 * is past the share; the looks to keep it detached for after each attached
 * one so that its time averages out at its share (share: ns a second; at most
 * BUDGET_HOLD_MAX). 0: no hold.
 */
unsigned int budget_hold_looks(const struct budget_spec *spec, double share,
			       const struct budget_obs *o, double dt, double rate_before);

/* Hits over hits recorded: what a sampled count is multiplied by (1: none skipped). */
double budget_scale(uint64_t hits, uint64_t skipped);


/* ---- the run's controller (budget.c), between load and the profile ---- */

struct loader;
struct ev_desc;
struct kpt_probe_entry;
struct kpt_stats;


/* A probe's counters as the controller last saw them: each look and report takes deltas. */
struct budget_seen {
	struct kpt_stats last;		/* at the last look */
	uint64_t prog_ns, prog_runs;	/* its program's, at the last look */
	uint64_t rep_hits, rep_skipped;	/* at the last -i report */
};

struct budget_ctl {
	struct budget_spec spec;
	struct loader *ld;
	const struct ev_desc *evs;
	int n, nbudgeted;
	struct budget_probe *p;		/* per probe; rate 0: no bucket */
	struct budget_seen *seen;	/* per probe: its counters as last looked at */
	double last_t;
	bool ns_known;			/* BPF_ENABLE_STATS held: run times known */
	int why_root;			/* kptrace why: its root's entry, whose calls the
					 * budget leaves out whole, at the cost of all of
					 * why's probes; -1: not why */
};

/*
 * Each droppable probe's bucket at its first rate, written to the map.
 * ns_known: the programs' run times are counted (else a CPU share stays at
 * BUDGET_GUESS_NS a hit, said once). 0 or a negative errno.
 */
int budget_start(struct budget_ctl *c, const struct budget_spec *spec, struct loader *ld,
		 const struct ev_desc *evs, const struct kpt_probe_entry *ents, int n,
		 bool ns_known);
/* A look, once a second: new rates and samplings written, changes said on stderr. */
void budget_tick(struct budget_ctl *c);
/* The run stopped: a held probe's hits estimated up to now; the total so estimated. */
uint64_t budget_stop(struct budget_ctl *c);
/*
 * scale[i]: what group i's aggregation is multiplied by for an estimate
 * (1: nothing of it skipped) since the last report; reset: the next report
 * starts from here (-i).
 */
void budget_scales(struct budget_ctl *c, const struct kpt_probe_entry *ents, bool reset,
		   double *scale);
void budget_free(struct budget_ctl *c);

#endif /* KPT_BUDGET_USER_H */
