/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * kptrace timechart: what bpf/sched.bpf.h kept, read back at the end of the
 * run, per process (its threads summed) and per slice; reported as a text
 * summary or JSON (tchart.c), an SVG (tchart_svg.c) and Perfetto thread
 * state slices.
 */
#ifndef KPT_AGG_TCHART_H
#define KPT_AGG_TCHART_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "kpt_tchart.h"

struct loader;
struct perfetto;

/* A fork or exec seen in the stream: a mark on its process's lane. */
struct tc_event {
	uint64_t ts;
	uint32_t tid, tgid;
	bool exec;
	char comm[KPT_COMM_LEN + 1];
};

/* One thread's time in one slice, as the kernel kept it (and the open interval added). */
struct tc_tslice {
	uint32_t tid, slice;
	struct kpt_tc_slice v;
};

struct tc_proc {
	uint32_t tgid, ppid;
	char comm[KPT_COMM_LEN + 1];
	uint64_t ns[KPT_TC_NSTATES], io_ns;
	uint32_t wakeups, ios, threads;
	uint64_t *cpu_ns;	/* running, per CPU (ncpus); NULL: none */
	/* count * KPT_TC_NSTATES ns, by slice from first then state: the slices
	 * it lived in only, as a long run has many short-lived processes */
	uint64_t *slices;
	uint32_t first, count;
	int parent;		/* index in procs of the parent process, -1: none traced */
	int depth;		/* under how many ancestors it is drawn */
};

struct tchart {
	uint64_t t0, end, width;	/* monotonic ns */
	uint32_t nslices;		/* the run's, at most KPT_TC_SLICES */
	int ncpus;
	uint64_t *cpu;			/* ncpus * nslices busy ns */
	struct tc_proc *procs;
	size_t nprocs;
	int *order;			/* procs' indexes: the lanes, parents before children */
	size_t norder;
	struct tc_tslice *ts;		/* every (thread, slice) with time */
	size_t nts;
	int *ts_proc;			/* ts[i]'s process, an index in procs; -1: none */
	struct tc_event *ev;
	size_t nev, evcap;
	uint64_t tasks_full, slices_full, rqs_full, past_ns;
	uint64_t unseen;	/* switches in no program saw, recovered from CPU time */
};

/* Process p's ns in state k of slice s (0 in a slice it has none of). */
static inline uint64_t tc_proc_ns(const struct tc_proc *p, uint32_t s, int k)
{
	return s >= p->first && s - p->first < p->count ?
	       p->slices[(size_t)(s - p->first) * KPT_TC_NSTATES + k] : 0;
}

/* The lanes drawn at most; the rest are one lane of their sum. */
#define TC_LANES	40

extern const char *const tc_state_names[KPT_TC_NSTATES];

struct tchart *tchart_new(void);
/* A fork or exec record's header, from the stream. */
void tchart_event(struct tchart *tc, bool exec, const char *comm, uint64_t ts, uint32_t tid,
		  uint32_t tgid);
/* Read the maps at the end of the run (end: monotonic ns): 0 or a negative errno. */
int tchart_read(struct tchart *tc, struct loader *ld, uint64_t end);
/* The per-process table (or one JSON object), and what did not fit on stderr. */
void tchart_summary(const struct tchart *tc, FILE *out, bool json);
/* The picture: 0 or -EIO. */
int tchart_svg(const struct tchart *tc, FILE *f);
/* Each thread's slices as Perfetto slices of its state. */
void tchart_perfetto(const struct tchart *tc, struct perfetto *pf);
void tchart_free(struct tchart *tc);

#endif /* KPT_AGG_TCHART_H */
