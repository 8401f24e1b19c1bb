/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The profile's COST: what each probe's BPF program took, from the kernel's
 * own run-time statistics (BPF_ENABLE_STATS, held by the run from before it
 * attaches until it ends). The kernel counts per program, and a program
 * serves every probe of its kind (one for kprobes and uprobes, one for
 * kprobe.multi, one for tracepoints; fentry's one per probe), so a program's
 * time is split among its probes by their hits: an exact total, a per-probe
 * share that is exact where a program serves one probe.
 */
#ifndef KPT_COST_H
#define KPT_COST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One probe: the program that serves it (its id; 0: none loaded) and that program's totals. */
struct cost_in {
	uint32_t prog;
	uint64_t prog_ns, prog_runs;
	uint64_t hits;
	bool unmeasured;	/* cost_scale(): its program ran, never in a window */
};

/*
 * What the windows of statistics (costwin.h) saw of one probe: its
 * program's runs in them, and the probe's own events (hits and filtered,
 * what kptrace counts of each run) in them and over the whole run.
 */
struct cost_win {
	uint64_t runs;
	uint64_t events, all_events;
};

struct cost_out {
	uint64_t ns;		/* its share of its program's run time */
	bool has_per_hit;	/* hits > 0: per_hit means something */
	double per_hit;		/* ns per hit */
	double cpu_pct;		/* ns over the run's time, in % of one CPU */
	bool shared;		/* its program serves other probes too: a share */
	bool unmeasured;	/* cost_in's: its hits all outside the windows, not timed */
};

/*
 * Split each program's ns among its probes in proportion to their hits
 * (equally when none of them has any: the program still ran, for tasks the
 * run leaves out), over a run of wall_ns (0: no share of a CPU).
 */
void cost_split(const struct cost_in *in, size_t n, uint64_t wall_ns, struct cost_out *out);

/*
 * A run whose statistics were held in windows: each program's totals in
 * in[] made the run's estimate. Its runs: its probes' events over the run
 * times its runs per event in the windows (kptrace counts every event, the
 * kernel only in windows); its time: those runs at its ns per run as the
 * kernel has it (prog_ns / prog_runs, exact as a ratio). A program none of
 * whose events fell in a window is scaled by time instead (held: the
 * fraction of the run in windows); one that never ran in a window while
 * its probes had events is marked unmeasured: its events its runs, their
 * time 0 (not known).
 */
void cost_scale(struct cost_in *in, const struct cost_win *w, size_t n, double held);

/* The distinct programs' run time and runs, summed once each. */
void cost_total(const struct cost_in *in, size_t n, uint64_t *ns, uint64_t *runs);

/* "123", "1.2k", "-" (no hits): a per-hit cost in a column of width w. */
void cost_fmt_per_hit(const struct cost_out *c, char *buf, size_t len);
/* "0.012" (% of a CPU), a share marked "~" in the column after it by the caller. */
void cost_fmt_cpu(const struct cost_out *c, char *buf, size_t len);

#endif /* KPT_COST_H */
