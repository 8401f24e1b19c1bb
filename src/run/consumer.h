/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Consume: poll the ring buffer, hand each record to the output,
 * watch the loss counters, stop on a signal, a duration or the traced
 * command's or process's exit, then detach at once, drain what is buffered
 * (for at most KPT_DRAIN_S: a slow reader cannot hold the run), and say
 * what the loop saw, for the exit profile (profile.h) its caller prints.
 */
#ifndef KPT_CONSUMER_H
#define KPT_CONSUMER_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>
#include "load/budget.h"
#include "load/costwin.h"
#include "load/loader.h"
#include "load/target.h"
#include "out/output.h"
#include "prepare/event.h"
#include "sys/ksyms.h"
#include "util/outsink.h"

struct consume_opts {
	FILE *out;			/* events */
	enum out_format format;
	double duration;		/* seconds, 0 = until stopped */
	pid_t child;			/* -c: stop when it exits (0: none) */
	struct target *target;		/* -p, -t: stop when it exits (NULL: none) */
	bool keep_running;		/* --keep-running: not when child or target exits */
	int procs_fd;			/* -c: the traced processes' map (LM_PROCS), -1: none */
	/* out's sink, NULL if out is a plain FILE: the consumer says how long a
	 * write may wait for a slow reader */
	struct outsink *sink;
	const struct ksyms *ksyms;
	struct stack_syms syms;		/* -K/-U: who names the frames (ksyms, and the user symbolizer) */
	const struct ev_desc *evs;
	int nevs;
	/* Aggregation: report(arg, final) every interval seconds (0: at the
	 * end only) and once more after the probes are detached. */
	void (*report)(void *arg, bool final);
	/* Every KPT_WATCH_S as the run goes, and once more at its end (NULL: none). */
	void (*watch)(void *arg);
	void *watch_arg;
	/* Each round while the probes are attached, never after (NULL: none); a
	 * round comes by *tick_due (mono s, 0: no time) at the latest; stopped
	 * once when the probes stop counting, before the drain (NULL: none). */
	void (*tick)(void *arg);
	void (*stopped)(void *arg);
	void *tick_arg;
	const double *tick_due;
	void *report_arg;
	double interval;
	/* --perfetto: each timed call's record (KPT_REC_CALL), its latency in ns */
	void (*on_call)(void *arg, const struct kpt_rec_hdr *h, uint64_t dur);
	/* and each event's record, checked; only there when hook_only (latency's starts) */
	void (*on_event)(void *arg, const struct ev_desc *ev, const void *rec, size_t len);
	bool hook_only;
	/* latency --over: a call at or over it, its end's record (KPT_REC_SLOW) */
	void (*on_slow)(void *arg, const struct ev_desc *ev, const void *rec, size_t len,
			uint64_t dur);
	/* kptrace why: a root call's log (KPT_REC_WHY), its bytes */
	void (*on_why)(void *arg, const void *rec, size_t len);
	void *hook_arg;
	/* why the profile's COST is not known (NULL: BPF_ENABLE_STATS is held) */
	const char *cost_off;
	/* the statistics held in windows: the COST estimated from them (NULL: whole) */
	const struct costwin *cost_win;
	/* --budget's controller: a look each second, SKIPPED in the profile (NULL: none) */
	struct budget_ctl *budget;
};

/* How often opts.watch runs, seconds. */
#define KPT_WATCH_S	0.1
/* How long the drain after detaching may take, seconds. */
#define KPT_DRAIN_S	1.0
/*
 * Why the kernel missed hits, naming only the causes that apply to the
 * mechanisms that missed: probe i's own counter (missed[i] > 0: a kprobe's
 * recursion, a kretprobe's instances; missed may be NULL), and, when
 * prog_missed, runs of the programs the kernel skipped. Into buf; returns it.
 */
const char *consumer_miss_causes(const struct ev_desc *evs, int n, const long long *missed,
				 bool prog_missed, char *buf, size_t len);

/* Set by the signal handler; a second signal exits at once. */
void consumer_install_signals(void);

/* What only the consumer's loop knows about the run, for the exit profile (profile.h). */
struct consume_result {
	bool ran;			/* the loop ran: there is a profile to print */
	unsigned long long records;	/* events read from the ring buffer */
	unsigned long long unprinted;	/* left in it: the drain's time was up */
	unsigned long long bad;		/* malformed records skipped */
	unsigned long long prog_misses;	/* program runs the kernel skipped */
	unsigned long long unseen;	/* --budget: estimated while probes were held */
	long long *missed;		/* per probe, -1 unknown; may be NULL; the caller frees it */
	double seconds;			/* attached for, for COST */
};

/* Runs until stopped. Returns 0, or a negative errno; *child_status gets the
 * traced command's wait status when it was waited for, *res what the run
 * saw (also on error). */
int consume(struct loader *ld, const struct consume_opts *o, int *child_status,
	    struct consume_result *res);

#endif /* KPT_CONSUMER_H */
