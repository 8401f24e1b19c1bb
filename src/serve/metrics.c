// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * serve's exposition of its jobs: the tables agg.c reads, visited series by
 * series (run_visit()), and each probe's counters from kpt_stats. Nothing
 * here resets a map: every counter is the kernel's, monotonic while its job
 * runs.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agg/agg.h"
#include "cmd/cli.h"
#include "load/cost.h"
#include "load/health.h"
#include "load/loader.h"
#include "prepare/event.h"
#include "prepare/probeset.h"
#include "run/run.h"
#include "serve/metrics.h"

void metrics_job_family(const char *name, enum kpt_mode mode, char *buf, size_t len)
{
	snprintf(buf, len, "kptrace_%s%s", name, mode == MODE_LATENCY ? "_seconds"
						 : mode == MODE_COUNT ? "_total" : "");
}

/* A container key's pod, where its cgroup path names one (kubepods): a label of its own. */
static void pod_label(const struct agg_ctx *c, const struct agg_series *s, int k,
		      struct prom_labels *l)
{
	const struct ctr *ct;

	if (c->ents[s->probe].agg.key_kind[k] != KPT_K_CONTAINER || !c->ctrs)
		return;
	ct = ctr_by_cgid(c->ctrs, agg_key_word(c, s->probe, s->key, k));
	if (ct && ct->pod[0])
		prom_label(l, "pod", ct->pod);
}

/* A series' labels: its probe, then each --by key as the text prints it. */
static void series_labels(const struct agg_ctx *c, const struct agg_series *s,
			  struct prom_labels *l)
{
	const struct kpt_agg *g = &c->ents[s->probe].agg;
	char v[256];
	int k;

	prom_labels_init(l);
	agg_probe_name(c->evs, c->n, &c->ents[s->probe].agg, s->probe, v, sizeof(v));
	prom_label(l, "probe", v);
	/* past --max-keys: one series whose every key is __overflow__, the label set bounded */
	for (k = 0; s->key && k < g->nkeys; k++) {
		if (s->over)
			snprintf(v, sizeof(v), "__overflow__");
		else
			agg_key_text(c, s->probe, s->key, k, v, sizeof(v));
		prom_label(l, agg_key_name(c, s->probe, k), v);
		if (!s->over)
			pod_label(c, s, k, l);
	}
}

struct job_visit {
	const struct prom_out *o;
	const struct metrics_job *job;
	char family[160];
	int pass;		/* count jobs: 0 the counts, 1 the sums */
	unsigned char *hit;	/* hit[i]: probe i had a series */
	int nprobes;
	struct prom_edge edges[PROM_EDGES_MAX];
	int nedges, edges_of;	/* edges_of: the probe they were made for, -1 none */
};

static void visit_hist(struct job_visit *jv, const struct agg_ctx *c, const struct agg_series *s)
{
	const struct kpt_agg *g = &c->ents[s->probe].agg;
	bool lat = jv->job->env->mode == MODE_LATENCY;
	struct prom_labels l;
	double sum;

	if (jv->edges_of != s->probe) {
		jv->nedges = prom_edges(g->hist, g->nbuckets, g->lin_min, g->lin_step, lat,
					jv->edges, PROM_EDGES_MAX);
		jv->nedges = prom_edges_every(jv->edges, jv->nedges, jv->job->env->le_every);
		jv->edges_of = s->probe;
	}
	series_labels(c, s, &l);
	sum = g->value_signed ? (double)(int64_t)s->stats->sum : (double)s->stats->sum;
	prom_histogram(jv->o, jv->family, &l, jv->edges, jv->nedges, s->counts, g->nbuckets,
		       lat ? sum * 1e-9 : sum);
}

static void visit_one(void *arg, const struct agg_ctx *c, const struct agg_series *s)
{
	struct job_visit *jv = arg;
	const struct kpt_agg *g = &c->ents[s->probe].agg;
	struct prom_labels l;

	if (s->counts) {
		visit_hist(jv, c, s);
		return;
	}
	series_labels(c, s, &l);
	if (s->probe >= 0 && s->probe < jv->nprobes)
		jv->hit[s->probe] = 1;
	if (jv->pass == 0) {
		prom_sample_u64(jv->o, jv->family, NULL, &l, s->stats->count);
		return;
	}
	if (g->value_signed)
		prom_sample_f(jv->o, jv->family, NULL, &l, (double)(int64_t)s->stats->sum);
	else
		prom_sample_u64(jv->o, jv->family, NULL, &l, s->stats->sum);
}

/*
 * A count without --by that nothing hit has no entry in the map: its 0, so
 * the series is there from the start (rate() over it, alerts on it).
 */
static void write_zeros(struct job_visit *jv, const struct metrics_job *j)
{
	const struct probeset *ps = run_probes(j->run);
	struct prom_labels l;
	int i;

	for (i = 0; i < ps->nuser && i < jv->nprobes; i++) {
		if (ps->ents[i].agg.action != KPT_ACT_COUNT || ps->ents[i].agg.nkeys ||
		    ps->ents[i].agg.group != (__u32)i || jv->hit[i])
			continue;
		prom_labels_init(&l);
		prom_label(&l, "probe", ps->evs[i].event);
		prom_sample_u64(jv->o, jv->family, NULL, &l, 0);
	}
}

/*
 * count --sum FIELD: FIELD's sum per key, kptrace_JOB_FIELD (not _sum, a
 * histogram's): a counter where the field is unsigned, else a gauge.
 */
static void write_sums(struct job_visit *jv, const struct metrics_job *j)
{
	const struct probeset *ps = run_probes(j->run);
	bool sgn = ps->n && ps->ents[0].agg.value_signed;
	char help[256];

	snprintf(jv->family, sizeof(jv->family), "kptrace_%s_%s", j->name, j->env->stat_field);
	prom_name(jv->family, jv->family, sizeof(jv->family));
	snprintf(help, sizeof(help), "kptrace job %s: the sum of %s", j->name, j->env->stat_field);
	prom_family(jv->o, jv->family, sgn ? "gauge" : "counter", help);
	if (!sgn)
		strcat(jv->family, "_total");
	jv->pass = 1;
	run_visit(j->run, visit_one, jv);
}

static void write_job(const struct prom_out *o, const struct metrics_job *j)
{
	const struct kpt_opts *env = j->env;
	struct job_visit *jv = calloc(1, sizeof(*jv));
	char help[256];

	if (!jv)
		return;
	jv->o = o;
	jv->job = j;
	jv->edges_of = -1;
	metrics_job_family(j->name, env->mode, jv->family, sizeof(jv->family));
	if (env->mode == MODE_COUNT) {
		/* the family is named without _total; the samples with it */
		jv->family[strlen(jv->family) - strlen("_total")] = '\0';
		snprintf(help, sizeof(help), "kptrace job %s: events counted", j->name);
		prom_family(o, jv->family, "counter", help);
		strcat(jv->family, "_total");
	} else {
		snprintf(help, sizeof(help), "kptrace job %s: %s", j->name,
			 env->mode == MODE_LATENCY ? "call latency" : "histogram of the value");
		prom_family(o, jv->family, "histogram", help);
	}
	jv->nprobes = run_probes(j->run)->n;
	jv->hit = calloc((size_t)jv->nprobes + 1, 1);
	if (!jv->hit) {
		free(jv);
		return;
	}
	run_visit(j->run, visit_one, jv);
	if (env->mode == MODE_COUNT)
		write_zeros(jv, j);
	if (env->mode == MODE_COUNT && env->stat_field && (env->stats & AGG_ST_SUM))
		write_sums(jv, j);
	free(jv->hit);
	free(jv);
}

/* Every probe's health counters, one family each over all jobs. */
static const struct {
	const char *name, *help;
	size_t off;
} health_families[] = {
	{ "kptrace_probe_hits", "times a probe's program ran",
	  offsetof(struct kpt_stats, hits) },
	{ "kptrace_probe_filtered", "events a probe's filter or target skipped",
	  offsetof(struct kpt_stats, filtered) },
	{ "kptrace_probe_faults", "arguments whose read failed",
	  offsetof(struct kpt_stats, faults) },
	{ "kptrace_probe_unmatched", "latency returns (or --to ends) without their start",
	  offsetof(struct kpt_stats, unmatched) },
	{ "kptrace_probe_keys_full",
	  "events counted in the __overflow__ series: the job's key map was full (--max-keys)",
	  offsetof(struct kpt_stats, keys_full) },
	{ "kptrace_probe_keys_cut", "string keys cut to their first 47 bytes",
	  offsetof(struct kpt_stats, keys_cut) },
	{ "kptrace_probe_pair_replaced", "--from starts replaced before their end",
	  offsetof(struct kpt_stats, pair_replaced) },
	{ "kptrace_probe_pair_idle", "--from starts of the idle task replaced (pairs by thread)",
	  offsetof(struct kpt_stats, pair_idle) },
};

/*
 * Each probe's share of its program's BPF run time (cost.c's split by hits,
 * exact where a program serves one probe): with kptrace_probe_hits_total,
 * rate() of the two is the probe's time per hit, as the profile's NS/HIT.
 */
static void write_probe_cost(const struct prom_out *o, const struct metrics_job *jobs, int n,
			     const struct health *hs)
{
	struct prom_labels l;
	int j, i;

	prom_family(o, "kptrace_probe_bpf_run_seconds", "counter",
		    "a probe's share of its BPF program's run time, split among the program's "
		    "probes by hits");
	for (j = 0; j < n; j++) {
		const struct probeset *ps = run_probes(jobs[j].run);

		for (i = 0; i < hs[j].n; i++) {
			if (!hs[j].prog[i].prog)
				continue;	/* no program known: no figure */
			prom_labels_init(&l);
			prom_label(&l, "kptrace_job", jobs[j].name);
			prom_label(&l, "probe", ps->evs[i].event);
			prom_sample_f(o, "kptrace_probe_bpf_run_seconds", "_total", &l,
				      (double)hs[j].cost[i].ns * 1e-9);
		}
	}
}

static void write_misses(const struct prom_out *o, const struct metrics_job *jobs, int n,
			 const struct health *hs)
{
	struct prom_labels l;
	int j, i;

	prom_family(o, "kptrace_probe_kernel_misses", "counter",
		    "hits the kernel missed (a kprobe reentered, a kretprobe without instance)");
	for (j = 0; j < n; j++) {
		const struct probeset *ps = run_probes(jobs[j].run);

		for (i = 0; i < hs[j].n; i++) {
			if (hs[j].missed[i] < 0)
				continue;	/* the kernel does not say */
			prom_labels_init(&l);
			prom_label(&l, "kptrace_job", jobs[j].name);
			prom_label(&l, "probe", ps->evs[i].event);
			prom_sample_u64(o, "kptrace_probe_kernel_misses", "_total", &l,
					(uint64_t)hs[j].missed[i]);
		}
	}
}

static void write_health(const struct prom_out *o, const struct metrics_job *jobs, int n)
{
	struct health *hs = calloc((size_t)n + 1, sizeof(*hs));
	struct prom_labels l;
	size_t h;
	int j, i;

	if (!hs)
		return;
	/* each job's probes read once (per-CPU lookups, their programs), for every family */
	for (j = 0; j < n; j++) {
		const struct probeset *ps = run_probes(jobs[j].run);

		if (health_read(&hs[j], run_loader(jobs[j].run), ps->evs, ps->nuser, 0, NULL))
			goto out;
	}
	for (h = 0; h < sizeof(health_families) / sizeof(health_families[0]); h++) {
		prom_family(o, health_families[h].name, "counter", health_families[h].help);
		for (j = 0; j < n; j++) {
			const struct probeset *ps = run_probes(jobs[j].run);

			for (i = 0; i < hs[j].n; i++) {
				if (!hs[j].ok[i])
					continue;
				prom_labels_init(&l);
				prom_label(&l, "kptrace_job", jobs[j].name);
				prom_label(&l, "probe", ps->evs[i].event);
				prom_sample_u64(o, health_families[h].name, "_total", &l,
						*(const __u64 *)((const char *)&hs[j].st[i] +
								 health_families[h].off));
			}
		}
	}
	write_probe_cost(o, jobs, n, hs);
	write_misses(o, jobs, n, hs);
out:
	for (j = 0; j < n; j++)
		health_free(&hs[j]);
	free(hs);
}

struct prog_visit {
	const struct prom_out *o;
	const char *job;
	bool runs;		/* the run count, else the run time */
};

static void prog_sample(void *arg, const char *name, uint64_t ns, uint64_t runs)
{
	struct prog_visit *pv = arg;
	struct prom_labels l;

	prom_labels_init(&l);
	prom_label(&l, "kptrace_job", pv->job);
	prom_label(&l, "program", name);
	if (pv->runs)
		prom_sample_u64(pv->o, "kptrace_bpf_runs", "_total", &l, runs);
	else
		prom_sample_f(pv->o, "kptrace_bpf_run_seconds", "_total", &l, ns * 1e-9);
}

/* Each job's programs: the kernel's own run time and runs (BPF_ENABLE_STATS, held by serve). */
static void write_progs(const struct prom_out *o, const struct metrics_job *jobs, int n)
{
	struct prog_visit pv = { .o = o };
	int j;

	prom_family(o, "kptrace_bpf_run_seconds", "counter",
		    "time the job's BPF programs ran, as the kernel counts it");
	for (j = 0; j < n; j++) {
		pv.job = jobs[j].name;
		loader_prog_stats(run_loader(jobs[j].run), prog_sample, &pv);
	}
	prom_family(o, "kptrace_bpf_runs", "counter", "times the job's BPF programs ran");
	pv.runs = true;
	for (j = 0; j < n; j++) {
		pv.job = jobs[j].name;
		loader_prog_stats(run_loader(jobs[j].run), prog_sample, &pv);
	}
}

/* The resident set from /proc/self/statm, in bytes. */
static uint64_t rss_bytes(void)
{
	unsigned long size = 0, res = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (!f)
		return 0;
	if (fscanf(f, "%lu %lu", &size, &res) != 2)
		res = 0;
	fclose(f);
	return (uint64_t)res * (uint64_t)sysconf(_SC_PAGESIZE);
}

static void write_self(const struct prom_out *o, int njobs, const struct metrics_self *s)
{
	struct prom_labels l;

	prom_family(o, "kptrace_build_info", "gauge", "kptrace's version");
	prom_labels_init(&l);
	prom_label(&l, "version", KPT_VERSION);
	prom_sample_u64(o, "kptrace_build_info", NULL, &l, 1);
	prom_family(o, "kptrace_jobs", "gauge", "jobs running");
	prom_sample_u64(o, "kptrace_jobs", NULL, NULL, (uint64_t)njobs);
	prom_family(o, "kptrace_reloads", "counter", "job file reloads (SIGHUP) applied");
	prom_sample_u64(o, "kptrace_reloads", "_total", NULL, s->reloads);
	prom_family(o, "kptrace_reload_failures", "counter",
		    "job file reloads refused (the old jobs went on)");
	prom_sample_u64(o, "kptrace_reload_failures", "_total", NULL, s->reload_failures);
	prom_family(o, "kptrace_last_reload_success", "gauge",
		    "1 if the last reload (or the start) took the job file");
	prom_sample_u64(o, "kptrace_last_reload_success", NULL, NULL, s->last_reload_ok);
	prom_family(o, "kptrace_scrape_duration_seconds", "gauge",
		    "how long the previous scrape took to write");
	prom_sample_f(o, "kptrace_scrape_duration_seconds", NULL, NULL, s->last_scrape_s);
	prom_family(o, "kptrace_http_requests", "counter", "HTTP requests answered");
	prom_sample_u64(o, "kptrace_http_requests", "_total", NULL, s->http_requests);
	prom_family(o, "kptrace_http_rejected", "counter",
		    "connections refused at the connection limit, or timed out");
	prom_sample_u64(o, "kptrace_http_rejected", "_total", NULL,
			s->http_rejected + s->http_timeouts);
	prom_family(o, "process_start_time_seconds", "gauge", "start time, Unix seconds");
	prom_sample_f(o, "process_start_time_seconds", NULL, NULL, s->start_time);
	prom_family(o, "process_resident_memory_bytes", "gauge", "resident memory");
	prom_sample_u64(o, "process_resident_memory_bytes", NULL, NULL, rss_bytes());
}

void metrics_write(const struct prom_out *o, const struct metrics_job *jobs, int n,
		   const struct metrics_self *self)
{
	int j;

	for (j = 0; j < n; j++)
		write_job(o, &jobs[j]);
	write_health(o, jobs, n);
	write_progs(o, jobs, n);
	write_self(o, n, self);
	prom_end(o);
}
