// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* kptrace timechart: the kernel's tables read back, summed per process, reported (tchart.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "agg/tchart.h"
#include "load/loader.h"
#include "load/sched.h"
#include "out/perfetto.h"
#include "sys/procmaps.h"
#include "util/htab.h"
#include "util/json.h"

const char *const tc_state_names[KPT_TC_NSTATES] = {
	"running", "runnable", "sleeping", "blocked (D)",
};

struct tc_thread {
	uint32_t tid;
	struct kpt_tc_task t;
};

struct tchart *tchart_new(void)
{
	return calloc(1, sizeof(struct tchart));
}

void tchart_event(struct tchart *tc, bool exec, const char *comm, uint64_t ts, uint32_t tid,
		  uint32_t tgid)
{
	struct tc_event *e;

	if (tc->nev == tc->evcap) {
		size_t cap = tc->evcap ? 2 * tc->evcap : 256;

		e = realloc(tc->ev, cap * sizeof(*e));
		if (!e)
			return;	/* a mark less, never a number less */
		tc->ev = e;
		tc->evcap = cap;
	}
	e = &tc->ev[tc->nev++];
	e->ts = ts;
	e->tid = tid;
	e->tgid = tgid;
	e->exec = exec;
	snprintf(e->comm, sizeof(e->comm), "%.*s", KPT_COMM_LEN, comm);
}

/* A number from /proc/PID/status's line "KEY:"; 0 when gone. */
static uint32_t proc_status(uint32_t pid, const char *key)
{
	long v = procstatus_field((pid_t)pid, key);

	return v > 0 ? (uint32_t)v : 0;
}

/* Every task of the run's processes, its open interval counted up to end. */
static int read_threads(int fd, struct tc_thread **out, size_t *n)
{
	struct tc_thread *th;
	struct kpt_tc_task *v;
	uint32_t *keys, nk, i;
	int err = loader_map_dump(fd, sizeof(*keys), sizeof(*v), (void **)&keys, (void **)&v, &nk);

	*n = 0;
	*out = NULL;
	if (err)
		return err;
	th = calloc(nk ? nk : 1, sizeof(*th));
	for (i = 0; th && i < nk; i++) {
		if (v[i].flags & KPT_TC_F_UNWANTED)
			continue;
		th[*n].t = v[i];
		th[*n].tid = keys[i];
		/* a task the run saw only woken or switched in: its process from /proc */
		if (!th[*n].t.tgid && !(th[*n].t.tgid = proc_status(keys[i], "Tgid")))
			th[*n].t.tgid = keys[i];
		(*n)++;
	}
	free(keys);
	free(v);
	*out = th;
	return th ? 0 : -ENOMEM;
}

static int ts_cmp(const void *a, const void *b)
{
	const struct tc_tslice *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->slice < y->slice ? -1 : x->slice > y->slice;
}

static int ts_add(struct tchart *tc, size_t *cap, uint32_t tid, uint32_t slice,
		  const struct kpt_tc_slice *v)
{
	if (tc->nts == *cap) {
		struct tc_tslice *g;

		*cap = *cap ? 2 * *cap : 1024;
		g = realloc(tc->ts, *cap * sizeof(*g));
		if (!g)
			return -ENOMEM;
		tc->ts = g;
	}
	tc->ts[tc->nts].tid = tid;
	tc->ts[tc->nts].slice = slice;
	tc->ts[tc->nts++].v = *v;
	return 0;
}

/*
 * The interval a task is in at the end, which the kernel counts only when it
 * ends: [since, end) in its state, to its totals and slice by slice, as
 * bpf/sched.bpf.h's kpt_tc_spread() does.
 */
static int open_interval(struct tchart *tc, size_t *cap, struct tc_thread *th)
{
	uint64_t from = th->t.since > tc->t0 ? th->t.since : tc->t0, edge, s;
	struct kpt_tc_slice v;
	int err;

	if (th->t.state >= KPT_TC_NSTATES || tc->end <= from)
		return 0;
	th->t.ns[th->t.state] += tc->end - from;
	while (from < tc->end) {
		s = kpt_tc_slice_of(from, tc->t0, tc->width);
		if (s >= KPT_TC_SLICES) {
			tc->past_ns += tc->end - from;
			break;
		}
		edge = tc->t0 + (s + 1) * tc->width;
		if (edge > tc->end)
			edge = tc->end;
		memset(&v, 0, sizeof(v));
		v.ns[th->t.state] = edge - from;
		if ((err = ts_add(tc, cap, th->tid, (uint32_t)s, &v)))
			return err;
		from = edge;
	}
	return 0;
}

/* The kernel's runs of whole slices in one state: a task's as its slices, a CPU's to its lane. */
static int read_spans(struct tchart *tc, size_t *cap, int fd)
{
	struct kpt_tc_key *keys;
	uint32_t (*spans)[2], n, e, i, cpu;
	struct kpt_tc_slice v;
	int err = loader_map_dump(fd, sizeof(*keys), sizeof(*spans), (void **)&keys,
				  (void **)&spans, &n);

	for (e = 0; !err && e < n; e++) {
		struct kpt_tc_key key = keys[e];

		if (spans[e][1] >= KPT_TC_NSTATES)
			continue;
		cpu = key.tid & ~KPT_TC_CPU_LANE;
		for (i = 0; !err && i < spans[e][0] && key.slice + i < tc->nslices; i++) {
			if (key.tid & KPT_TC_CPU_LANE) {
				if (cpu < (uint32_t)tc->ncpus)
					tc->cpu[(size_t)cpu * tc->nslices + key.slice + i] += tc->width;
				continue;
			}
			memset(&v, 0, sizeof(v));
			v.ns[spans[e][1]] = tc->width;
			err = ts_add(tc, cap, key.tid, key.slice + i, &v);
		}
	}
	free(keys);
	free(spans);
	return err;
}

/* The kernel's (thread, slice) pairs, spans and the open intervals', one entry each. */
static int read_slices(struct tchart *tc, const struct sched_maps *m, struct tc_thread *th,
		       size_t nth)
{
	struct kpt_tc_key *keys;
	struct kpt_tc_slice *v;
	size_t cap = 0, i, j;
	uint32_t n, e;
	int err = loader_map_dump(m->slices, sizeof(*keys), sizeof(*v), (void **)&keys, (void **)&v,
				  &n);

	for (e = 0; !err && e < n; e++)
		err = ts_add(tc, &cap, keys[e].tid, keys[e].slice, &v[e]);
	free(keys);
	free(v);
	if (err || (err = read_spans(tc, &cap, m->spans)))
		return err;
	for (i = 0; i < nth; i++)
		if ((err = open_interval(tc, &cap, &th[i])))
			return err;
	if (!tc->nts)
		return 0;
	qsort(tc->ts, tc->nts, sizeof(*tc->ts), ts_cmp);
	for (i = 0, j = 1; j < tc->nts; j++) {
		struct tc_tslice *a = &tc->ts[i], *b = &tc->ts[j];
		int k;

		if (a->tid == b->tid && a->slice == b->slice) {
			for (k = 0; k < KPT_TC_NSTATES; k++)
				a->v.ns[k] += b->v.ns[k];
			a->v.wakeups += b->v.wakeups;
			a->v.ios += b->v.ios;
		} else {
			tc->ts[++i] = *b;
		}
	}
	tc->nts = i + 1;
	return 0;
}

/* The processes: their threads' totals summed, named by their main thread. */
static int make_procs(struct tchart *tc, const struct tc_thread *th, size_t nth, struct htab *ix)
{
	struct hent *e;
	size_t i;
	int k;

	tc->procs = calloc(nth ? nth : 1, sizeof(*tc->procs));
	if (!tc->procs)
		return -ENOMEM;
	for (i = 0; i < nth; i++) {
		const struct kpt_tc_task *t = &th[i].t;
		struct tc_proc *p;

		if (!(e = ht_get(ix, &t->tgid, sizeof(t->tgid))))
			return -ENOMEM;
		if (!e->val) {
			p = &tc->procs[tc->nprocs++];
			p->tgid = t->tgid;
			p->parent = -1;
			e->val = p;
		}
		p = e->val;
		for (k = 0; k < KPT_TC_NSTATES; k++)
			p->ns[k] += t->ns[k];
		p->io_ns += t->io_ns;
		p->wakeups += t->wakeups;
		p->ios += t->ios;
		p->threads++;
		if (th[i].tid == t->tgid || !p->comm[0])
			snprintf(p->comm, sizeof(p->comm), "%.*s", KPT_COMM_LEN, t->comm);
		/* forked during the run: its parent said so; else /proc says, while it runs */
		if (th[i].tid == t->tgid)
			p->ppid = t->ppid && t->ppid != t->tgid ? t->ppid : proc_status(t->tgid, "PPid");
	}
	return 0;
}

/* Each process's slices, from its threads'. */
static int fill_slices(struct tchart *tc, const struct htab *ix)
{
	size_t i;
	int k;

	tc->ts_proc = malloc((tc->nts ? tc->nts : 1) * sizeof(*tc->ts_proc));
	if (!tc->ts_proc)
		return -ENOMEM;
	for (i = 0; i < tc->nprocs; i++)
		tc->procs[i].first = UINT32_MAX;
	/* each process's first and last slice (count, for now, the last) */
	for (i = 0; i < tc->nts; i++) {
		struct hent *e = ht_find(ix, &tc->ts[i].tid, sizeof(uint32_t));
		struct tc_proc *p = e ? e->val : NULL;

		tc->ts_proc[i] = p && tc->ts[i].slice < tc->nslices ? (int)(p - tc->procs) : -1;
		if (tc->ts_proc[i] < 0)
			continue;
		p->first = tc->ts[i].slice < p->first ? tc->ts[i].slice : p->first;
		p->count = tc->ts[i].slice > p->count ? tc->ts[i].slice : p->count;
	}
	for (i = 0; i < tc->nprocs; i++) {
		struct tc_proc *p = &tc->procs[i];

		if (p->first == UINT32_MAX) {
			p->first = p->count = 0;
			continue;
		}
		p->count = p->count - p->first + 1;
		if (!(p->slices = calloc((size_t)p->count * KPT_TC_NSTATES, sizeof(uint64_t))))
			return -ENOMEM;
	}
	for (i = 0; i < tc->nts; i++) {
		struct tc_proc *p;

		if (tc->ts_proc[i] < 0)
			continue;
		p = &tc->procs[tc->ts_proc[i]];
		for (k = 0; k < KPT_TC_NSTATES; k++)
			p->slices[(size_t)(tc->ts[i].slice - p->first) * KPT_TC_NSTATES + k] +=
				tc->ts[i].v.ns[k];
	}
	return 0;
}

/* Each process's run time per CPU, from its threads' (tid, CPU) entries. */
static int read_cpu_ns(struct tchart *tc, int fd, const struct htab *threads)
{
	struct kpt_tc_key *keys;
	struct tc_proc *p;
	struct hent *h;
	uint64_t *ns;
	uint32_t n, e;
	int err = loader_map_dump(fd, sizeof(*keys), sizeof(*ns), (void **)&keys, (void **)&ns, &n);

	for (e = 0; !err && e < n; e++) {
		if (keys[e].slice >= (uint32_t)tc->ncpus ||
		    !(h = ht_find(threads, &keys[e].tid, sizeof(keys[e].tid))))
			continue;
		p = h->val;
		if (!p->cpu_ns && !(p->cpu_ns = calloc(tc->ncpus, sizeof(uint64_t))))
			err = -ENOMEM;
		else
			p->cpu_ns[keys[e].slice] += ns[e];
	}
	free(keys);
	free(ns);
	return err;
}

static uint64_t busy(const struct tc_proc *p)
{
	return p->ns[KPT_TC_RUN];
}

static const struct tchart *sort_tc;

static int busier(const void *a, const void *b)
{
	uint64_t x = busy(&sort_tc->procs[*(const int *)a]), y = busy(&sort_tc->procs[*(const int *)b]);

	return x > y ? -1 : x < y;
}

/* Depth first from the stack: each process, then its children, the busiest first. */
static void walk(struct tchart *tc, int *stack, int top, int *kids, bool *seen)
{
	size_t j;
	int nk;

	while (top) {
		int p = stack[--top];

		if (seen[p])
			continue;
		seen[p] = true;
		tc->order[tc->norder++] = p;
		for (j = 0, nk = 0; j < tc->nprocs; j++)
			if (tc->procs[j].parent == p && !seen[j]) {
				tc->procs[j].depth = tc->procs[p].depth + 1;
				kids[nk++] = (int)j;
			}
		qsort(kids, nk, sizeof(int), busier);
		while (nk)
			stack[top++] = kids[--nk];
	}
}

/*
 * Lanes: processes whose parent is not traced, busiest first, each followed
 * by its children; then any left (a cycle of parents: a pid reused within
 * the run), each as a root.
 */
static int make_order(struct tchart *tc, const struct htab *ix)
{
	int *stack, *kids, nk, top = 0;
	bool *seen;
	size_t i;

	tc->order = calloc(tc->nprocs + 1, sizeof(int));
	stack = calloc(tc->nprocs + 1, sizeof(int));
	kids = calloc(tc->nprocs + 1, sizeof(int));
	seen = calloc(tc->nprocs + 1, sizeof(bool));
	if (!tc->order || !stack || !kids || !seen) {
		free(stack);
		free(kids);
		free(seen);
		return -ENOMEM;
	}
	for (i = 0; i < tc->nprocs; i++) {
		struct hent *e = ht_find(ix, &tc->procs[i].ppid, sizeof(uint32_t));

		if (e && e->val != &tc->procs[i])
			tc->procs[i].parent = (int)((struct tc_proc *)e->val - tc->procs);
	}
	sort_tc = tc;
	/* roots, the least busy pushed first so the busiest comes out first */
	for (i = 0, nk = 0; i < tc->nprocs; i++)
		if (tc->procs[i].parent < 0)
			kids[nk++] = (int)i;
	qsort(kids, nk, sizeof(int), busier);
	while (nk)
		stack[top++] = kids[--nk];
	walk(tc, stack, top, kids, seen);
	for (i = 0; i < tc->nprocs; i++)
		if (!seen[i]) {
			tc->procs[i].parent = -1;
			tc->procs[i].depth = 0;
			stack[0] = (int)i;
			walk(tc, stack, 1, kids, seen);
		}
	free(stack);
	free(kids);
	free(seen);
	return 0;
}

static int read_cpus(struct tchart *tc, int fd)
{
	uint32_t c, s, idx;

	tc->cpu = calloc((size_t)tc->ncpus * tc->nslices + 1, sizeof(uint64_t));
	if (!tc->cpu)
		return -ENOMEM;
	for (c = 0; c < (uint32_t)tc->ncpus; c++)
		for (s = 0; s < tc->nslices; s++) {
			idx = c * KPT_TC_SLICES + s;
			bpf_map_lookup_elem(fd, &idx, &tc->cpu[(size_t)c * tc->nslices + s]);
		}
	return 0;
}

int tchart_read(struct tchart *tc, struct loader *ld, uint64_t end)
{
	struct htab procs = { 0 }, threads = { 0 };
	struct tc_thread *th = NULL;
	struct sched_maps m;
	size_t nth = 0, i;
	uint64_t n;
	int err;

	sched_maps(ld->skel, &m);
	tc->t0 = m.t0;
	tc->end = end > m.t0 ? end : m.t0 + 1;
	tc->width = m.width;
	tc->tasks_full = m.tasks_full;
	tc->slices_full = m.slices_full;
	tc->rqs_full = m.rqs_full;
	tc->past_ns = m.past_ns;
	tc->unseen = m.unseen;
	n = (tc->end - tc->t0 + tc->width - 1) / tc->width;
	tc->nslices = n > KPT_TC_SLICES ? KPT_TC_SLICES : (uint32_t)n;
	tc->ncpus = libbpf_num_possible_cpus();
	if (tc->ncpus <= 0)
		return tc->ncpus ? tc->ncpus : -EINVAL;
	err = read_cpus(tc, m.cpu);
	if (!err)
		err = read_threads(m.tasks, &th, &nth);
	if (!err)
		err = read_slices(tc, &m, th, nth);
	if (!err)
		err = make_procs(tc, th, nth, &procs);
	/* thread -> its process, for the slices */
	for (i = 0; !err && i < nth; i++) {
		struct hent *e = ht_get(&threads, &th[i].tid, sizeof(uint32_t));

		if (!e)
			err = -ENOMEM;
		else
			e->val = ht_find(&procs, &th[i].t.tgid, sizeof(uint32_t))->val;
	}
	if (!err)
		err = fill_slices(tc, &threads);
	if (!err)
		err = read_cpu_ns(tc, m.cpuns, &threads);
	if (!err)
		err = make_order(tc, &procs);
	ht_free(&procs, NULL);
	ht_free(&threads, NULL);
	free(th);
	return err;
}

static double ms(uint64_t ns)
{
	return ns / 1e6;
}

static void summary_json(const struct tchart *tc, FILE *out)
{
	size_t i;
	int k;

	/* the run's window on CLOCK_MONOTONIC, as perf record -k mono stamps events */
	fprintf(out, "{\"timechart\":{\"start_ns\":%" PRIu64 ",\"end_ns\":%" PRIu64
		",\"duration_ns\":%" PRIu64 ",\"slice_ns\":%" PRIu64 ",\"slices\":%u,\"cpus\":%d,"
		"\"processes\":[", tc->t0, tc->end, tc->end - tc->t0, tc->width, tc->nslices,
		tc->ncpus);
	for (i = 0; i < tc->norder; i++) {
		const struct tc_proc *p = &tc->procs[tc->order[i]];

		fprintf(out, "%s{\"pid\":%u,\"ppid\":%u,\"comm\":", i ? "," : "", p->tgid, p->ppid);
		json_fput_str(out, p->comm, KPT_COMM_LEN);
		for (k = 0; k < KPT_TC_NSTATES; k++)
			fprintf(out, ",\"%s_ns\":%" PRIu64, (const char *[]){ "run", "runnable",
				"sleep", "blocked" }[k], p->ns[k]);
		fputs(",\"run_ns_by_cpu\":[", out);
		for (k = 0; k < tc->ncpus; k++)
			fprintf(out, "%s%" PRIu64, k ? "," : "", p->cpu_ns ? p->cpu_ns[k] : 0);
		fprintf(out, "],\"wakeups\":%u,\"ios\":%u,\"io_ns\":%" PRIu64 ",\"threads\":%u}",
			p->wakeups, p->ios, p->io_ns, p->threads);
	}
	fprintf(out, "],\"lost\":{\"tasks\":%" PRIu64 ",\"slices\":%" PRIu64 ",\"requests\":%"
		PRIu64 ",\"past_ns\":%" PRIu64 "},\"switches_unseen\":%" PRIu64 "}}\n",
		tc->tasks_full, tc->slices_full, tc->rqs_full, tc->past_ns, tc->unseen);
}

void tchart_summary(const struct tchart *tc, FILE *out, bool json)
{
	size_t i;

	if (json) {
		summary_json(tc, out);
	} else {
		fprintf(out, "timechart: %.3f s in %u slices of %.3f ms, %zu processes\n",
			(tc->end - tc->t0) / 1e9, tc->nslices, ms(tc->width), tc->nprocs);
		fprintf(out, "%8s %8s  %-20s %10s %10s %10s %10s %8s %6s %9s %4s\n", "PID", "PPID",
			"COMM", "RUN ms", "RUNNABLE", "SLEEP", "BLOCKED", "WAKEUPS", "IOS", "IO ms",
			"THR");
		for (i = 0; i < tc->norder; i++) {
			const struct tc_proc *p = &tc->procs[tc->order[i]];
			char name[48];

			snprintf(name, sizeof(name), "%*s%s", 2 * (p->depth < 8 ? p->depth : 8), "",
				 p->comm);
			fprintf(out, "%8u %8u  %-20s %10.3f %10.3f %10.3f %10.3f %8u %6u %9.3f %4u\n",
				p->tgid, p->ppid, name, ms(p->ns[KPT_TC_RUN]), ms(p->ns[KPT_TC_WAIT]),
				ms(p->ns[KPT_TC_SLEEP]), ms(p->ns[KPT_TC_DISK]), p->wakeups, p->ios,
				ms(p->io_ns), p->threads);
		}
	}
	if (tc->tasks_full)
		fprintf(stderr, "kptrace: warning: timechart: %" PRIu64 " tasks not followed: the "
			"task table was full (raise --max-keys)\n", tc->tasks_full);
	if (tc->slices_full)
		fprintf(stderr, "kptrace: warning: timechart: %" PRIu64 " intervals missing from "
			"the picture (not the totals): the slice table was full (a wider --slice)\n",
			tc->slices_full);
	if (tc->rqs_full)
		fprintf(stderr, "kptrace: warning: timechart: %" PRIu64 " block requests not "
			"timed: too many in flight\n", tc->rqs_full);
	if (tc->past_ns)
		fprintf(stderr, "kptrace: warning: timechart: the picture ends after %u slices; "
			"%.3f s of task time is in the totals only (a wider --slice)\n",
			KPT_TC_SLICES, tc->past_ns / 1e9);
	if (tc->unseen)
		fprintf(stderr, "kptrace: timechart: %" PRIu64 " switches into traced tasks never "
			"reached sched_switch's programs; their runs are counted from the tasks' "
			"CPU time\n", tc->unseen);
}

/* A thread's slice as its states one after another from the slice's start. */
void tchart_perfetto(const struct tchart *tc, struct perfetto *pf)
{
	static const char *const names[KPT_TC_NSTATES] = {
		"Running", "Runnable", "Sleeping", "Uninterruptible Sleep",
	};
	struct kpt_rec_hdr h = { 0 };
	uint64_t at;
	size_t i;
	int k;

	for (i = 0; i < tc->nts; i++) {
		const struct tc_tslice *s = &tc->ts[i];

		if (tc->ts_proc[i] < 0)
			continue;
		at = tc->t0 + (uint64_t)s->slice * tc->width;
		h.tid = s->tid;
		h.tgid = tc->procs[tc->ts_proc[i]].tgid;
		/* the process's name: the thread's own is not kept */
		memcpy(h.comm, tc->procs[tc->ts_proc[i]].comm, KPT_COMM_LEN);
		for (k = 0; k < KPT_TC_NSTATES; k++) {
			if (!s->v.ns[k])
				continue;
			at += s->v.ns[k];
			h.ts = at;
			perfetto_call(pf, names[k], &h, s->v.ns[k]);
		}
	}
}

void tchart_free(struct tchart *tc)
{
	size_t i;

	if (!tc)
		return;
	for (i = 0; i < tc->nprocs; i++) {
		free(tc->procs[i].slices);
		free(tc->procs[i].cpu_ns);
	}
	free(tc->procs);
	free(tc->order);
	free(tc->ts);
	free(tc->ts_proc);
	free(tc->ev);
	free(tc->cpu);
	free(tc);
}
