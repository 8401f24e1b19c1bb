// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The exit profile: read once (profile_read), written as a table or as JSON. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "load/cost.h"
#include "load/health.h"
#include "run/profile.h"

struct profile {
	struct health h;		/* the probes' counters and COST, read once */
	int n;
	const struct kpt_stats *st;	/* h's: per probe, zeroes where not read */
	const struct cost_out *cost;	/* h's, per probe; NULL: COST not measured */
	struct kpt_stats sum;		/* the counters summed over the probes */
	unsigned long long misses;	/* the kernel's per-probe misses, where it tells */
	unsigned long long printed, dropped, procs_full;
	unsigned long long pairs_open;	/* --from starts in kpt_pairs at the end */
	uint64_t cost_ns, cost_runs;	/* the distinct programs' run time, summed once each */
	bool shared;			/* a COST is a share of a program serving several probes */
	bool estimated;			/* the COST scaled from windows of the statistics */
};

static void stats_add(struct kpt_stats *sum, const struct kpt_stats *st)
{
	sum->hits += st->hits;
	sum->drops += st->drops;
	sum->faults += st->faults;
	sum->filtered += st->filtered;
	sum->unmatched += st->unmatched;
	sum->keys_full += st->keys_full;
	sum->stack_failed += st->stack_failed;
	sum->stack_full += st->stack_full;
	sum->stack_deep += st->stack_deep;
	sum->pair_replaced += st->pair_replaced;
	sum->pair_idle += st->pair_idle;
	sum->keys_cut += st->keys_cut;
	sum->sampled += st->sampled;
	sum->paused += st->paused;
}

static int profile_read(struct loader *ld, const struct consume_opts *o,
			const struct consume_result *run, struct profile *p)
{
	int i, err;

	memset(p, 0, sizeof(*p));
	err = health_read(&p->h, ld, o->evs, o->nevs, (uint64_t)(run->seconds * 1e9),
			  o->cost_win);
	if (err)
		return err;
	p->n = o->nevs;
	p->st = p->h.st;
	for (i = 0; i < o->nevs; i++) {
		stats_add(&p->sum, &p->st[i]);
		if (run->missed && run->missed[i] > 0)
			p->misses += run->missed[i];
	}
	/* COST: each probe's program's run time split among its probes, when known */
	if (!o->cost_off) {
		p->cost = p->h.cost;
		p->cost_ns = p->h.cost_ns;
		p->cost_runs = p->h.cost_runs;
		p->shared = p->h.shared;
		p->estimated = p->h.estimated;
	}
	p->dropped = o->sink ? outsink_dropped_lines(o->sink) : 0;
	p->printed = run->records - (p->dropped < run->records ? p->dropped : run->records);
	p->procs_full = loader_procs_full(ld);
	p->pairs_open = loader_pairs_open(ld);
	return 0;
}

static double cost_pct(const struct profile *p, const struct consume_result *run)
{
	return run->seconds > 0 ? 100.0 * (double)p->cost_ns / (run->seconds * 1e9) : 0.0;
}

/* The stacks' and pairs' losses, summed over the probes, each with what to do about it. */
static void print_more_losses(const struct kpt_stats *sum)
{
	if (sum->stack_failed)
		fprintf(stderr, ", %llu stacks NOT CAPTURED (the kernel could not walk them: a "
			"user stack needs frame pointers, a kernel thread has none)",
			(unsigned long long)sum->stack_failed);
	if (sum->stack_full)
		fprintf(stderr, ", %llu events counted under a LOST stack: more distinct stacks "
			"than the stack map holds (%d kernel, %d user)",
			(unsigned long long)sum->stack_full, KPT_KSTACK_KEYS, KPT_USTACK_KEYS);
	if (sum->stack_deep)
		fprintf(stderr, ", %llu stacks TRUNCATED at their depth (raise -K/-U's DEPTH, "
			"at most %d; their outermost frames are missing)",
			(unsigned long long)sum->stack_deep, KPT_STACK_MAX);
	if (sum->keys_cut)
		fprintf(stderr, ", %llu string keys CUT to their first %d bytes (longer strings "
			"that share them are counted as one)", (unsigned long long)sum->keys_cut,
			KPT_KEY_STR - 1);
}

/* The events probes of one role (--from: starts) skipped by their own filter. */
static unsigned long long pair_filtered(const struct consume_opts *o, const struct profile *p,
					bool starts)
{
	unsigned long long n = 0;
	int i;

	for (i = 0; i < o->nevs && i < p->n; i++)
		if (o->evs[i].pair_group && o->evs[i].pair_start == starts &&
		    o->evs[i].spec && o->evs[i].spec->filter)
			n += p->st[i].filtered;
	return n;
}

/*
 * latency --from/--to: each kind of unpaired event by its cause, with the
 * fix for that cause: an end without its start, a start replaced under its
 * key (the --to filter skipping its end, or keys that do not tell starts
 * apart), the idle task's starts (pid 0 on every CPU), a start whose end
 * never came.
 */
static void print_pair_losses(const struct consume_opts *o, const struct profile *p)
{
	unsigned long long ends_skipped = pair_filtered(o, p, false);
	unsigned long long starts_skipped = pair_filtered(o, p, true);

	if (p->sum.unmatched) {
		fprintf(stderr, ", %llu --to ends without their start (begun before tracing",
			(unsigned long long)p->sum.unmatched);
		if (starts_skipped)
			fprintf(stderr, "; or their start skipped by --from's filter, which "
				"skipped %llu", starts_skipped);
		fputs("; or evicted: raise --max-keys)", stderr);
	}
	if (p->sum.pair_replaced && ends_skipped)
		fprintf(stderr, ", %llu --from starts NEVER ENDED: the next start under their key "
			"replaced them, and --to's filter skipped %llu ends, theirs among them "
			"(filter --from instead, or widen --to's filter)",
			(unsigned long long)p->sum.pair_replaced, ends_skipped);
	else if (p->sum.pair_replaced)
		fprintf(stderr, ", %llu --from starts NEVER ENDED: the next start under their key "
			"replaced them (a --key that tells them apart?)",
			(unsigned long long)p->sum.pair_replaced);
	if (p->sum.pair_idle)
		fprintf(stderr, ", %llu --from starts of the IDLE task replaced: its pid 0 is "
			"every CPU's, so by the thread their starts mix (pair by --key cpu)",
			(unsigned long long)p->sum.pair_idle);
	if (p->pairs_open)
		fprintf(stderr, ", %llu --from starts still open at the end: their end never "
			"came (listed above)", p->pairs_open);
}

/* The summary line after the table: what was printed, and every loss with its cause. */
static void print_losses(const struct consume_opts *o, const struct consume_result *run,
			 const struct profile *p)
{
	char why[512];

	if (o->report && !o->on_why)	/* why's report is its count of trees */
		fprintf(stderr, "aggregated in the kernel");
	else
		fprintf(stderr, "%llu events printed", p->printed);
	if (run->unprinted || p->dropped)
		fprintf(stderr, ", %llu %s NOT PRINTED: the output did not keep up (what is "
			"buffered is written for at most %.0f s after detaching)",
			o->report ? p->dropped : run->unprinted + p->dropped,
			o->report ? "report lines" : "events", KPT_DRAIN_S);
	if (p->procs_full)
		fprintf(stderr, ", %llu processes the command started NOT FOLLOWED: more at "
			"once than --max-keys", p->procs_full);
	if (p->sum.drops)
		fprintf(stderr, ", %llu LOST (ring buffer full: raise --buffer-size)",
			(unsigned long long)p->sum.drops);
	if (p->misses)
		fprintf(stderr, ", %llu MISSED by the kernel (%s)", p->misses,
			consumer_miss_causes(o->evs, o->nevs, run->missed, false, why, sizeof(why)));
	if (run->prog_misses)
		fprintf(stderr, ", %llu hits NOT RUN by the kernel: %s", run->prog_misses,
			consumer_miss_causes(o->evs, o->nevs, NULL, true, why, sizeof(why)));
	if (p->sum.faults)
		fprintf(stderr, ", %llu argument reads faulted (printed as (fault))",
			(unsigned long long)p->sum.faults);
	if (run->bad)
		fprintf(stderr, ", %llu malformed records skipped", run->bad);
	if (o->nevs && o->evs[0].pair_group)
		print_pair_losses(o, p);
	else if (p->sum.unmatched)
		fprintf(stderr, ", %llu returns without their entry (started before tracing, "
			"or evicted: raise --max-keys)", (unsigned long long)p->sum.unmatched);
	if (p->sum.keys_full)
		fprintf(stderr, ", %llu events past --max-keys counted under <overflow> (the "
			"key map was full: raise --max-keys)", (unsigned long long)p->sum.keys_full);
	print_more_losses(&p->sum);
	if (o->syms.cut && *o->syms.cut)
		fprintf(stderr, ", %llu user stacks printed CUT SHORT (marked [cut short]: the "
			"walk ended before the process's start, in code without unwind tables "
			"read or frame pointers)", (unsigned long long)*o->syms.cut);
	if (p->sum.sampled + p->sum.paused)
		fprintf(stderr, ", %llu hits SKIPPED by --budget (%llu sampled out, %llu while "
			"paused)%s", (unsigned long long)(p->sum.sampled + p->sum.paused),
			(unsigned long long)p->sum.sampled, (unsigned long long)p->sum.paused,
			o->on_why ? ": why's root calls, each left out whole" :
			o->report ? ": the tables scaled back and marked as estimates" : "");
	if (run->unseen)
		fprintf(stderr, ", ~%llu hits NOT SEEN while --budget held probes detached "
			"(estimated from their rate while attached, which a probe's own cost may "
			"have held down)%s", run->unseen,
			o->report ? "; the tables cover the time attached" : "");
	fputc('\n', stderr);
}

/* Whether a probe's hits all came outside the windows: its time unknown (cost_scale()). */
static bool untimed(const struct profile *p)
{
	int i;

	for (i = 0; p->cost && i < p->n; i++)
		if (p->cost[i].unmeasured)
			return true;
	return false;
}

/* The profile's last line: what the probes cost in all, or why it is not known. */
static void print_cost_line(const struct consume_opts *o, const struct consume_result *run,
			    const struct profile *p)
{
	double pct = cost_pct(p, run);
	const char *est = p->estimated ? "~" : "";

	if (!p->cost) {
		fprintf(stderr, "COST not measured: %s\n", o->cost_off ? o->cost_off : strerror(ENOMEM));
		return;
	}
	fprintf(stderr, "COST: the probes' BPF programs ran %s%llu times for %s%.3f ms, %s%.3f%% of "
		"one CPU over %.3f s (the kernel's run-time statistics", est,
		(unsigned long long)p->cost_runs, est, (double)p->cost_ns / 1e6, est, pct,
		run->seconds);
	if (p->estimated)
		fprintf(stderr, ", held %.1f%% of the run: ~ runs, time and CPU%% estimated from "
			"them by the hits, NS/HIT their own%s; --cost exact holds them throughout",
			100.0 * p->h.sampled, untimed(p) ? ", none for probes whose every hit "
			"came outside them (NS/HIT -: each hit a run, not timed)" : "");
	fprintf(stderr, ")%s", p->shared ? "; ~ after NS/HIT: a share of a program that serves "
		"several probes, split by hits" : "");
	if (o->budget && o->budget->spec.pct > 0)
		fprintf(stderr, "; %s --budget %g%%", pct <= o->budget->spec.pct ? "within" : "OVER",
			o->budget->spec.pct);
	fputc('\n', stderr);
}

/* Whether probe i has a row: it fired, or the kernel missed hits of it. */
static bool fired(const struct consume_result *run, const struct profile *p, int i)
{
	return p->st[i].hits || (run->missed && run->missed[i] > 0);
}

/* The rows' order: most hits first, then as defined. */
static const struct profile *sort_p;

static int by_hits(const void *a, const void *b)
{
	int i = *(const int *)a, j = *(const int *)b;
	uint64_t hi = sort_p->st[i].hits, hj = sort_p->st[j].hits;

	return hi != hj ? (hi < hj ? 1 : -1) : (i > j) - (i < j);
}

static void print_row(const struct consume_opts *o, const struct consume_result *run,
		      const struct profile *p, int i, int width)
{
	char name[2 * SPEC_NAME_MAX + 2], miss[24], per_hit[24] = "-", cpu[24] = "-";
	const struct kpt_stats *st = &p->st[i];

	snprintf(name, sizeof(name), "%s/%s", o->evs[i].group, o->evs[i].event);
	/* MISSES: the kprobe's nmissed where the kernel tells (6.7+ link
	 * info); uprobes have none; "-" where it cannot be known. */
	if (run->missed && run->missed[i] >= 0)
		snprintf(miss, sizeof(miss), "%lld", run->missed[i]);
	else
		snprintf(miss, sizeof(miss), "%s", o->evs[i].is_user ? "0" : "-");
	if (p->cost) {
		cost_fmt_per_hit(&p->cost[i], per_hit, sizeof(per_hit) - 1);
		if (p->cost[i].shared && p->cost[i].has_per_hit)
			strcat(per_hit, "~");
		cost_fmt_cpu(&p->cost[i], cpu, sizeof(cpu) - 1);
		if (p->estimated)
			strcat(cpu, "~");
	}
	fprintf(stderr, "%-*s %12llu %10s %10llu %10llu %10llu", width, name,
		(unsigned long long)st->hits, miss, (unsigned long long)st->drops,
		(unsigned long long)st->faults, (unsigned long long)st->filtered);
	if (o->budget)
		fprintf(stderr, " %10llu", (unsigned long long)(st->sampled + st->paused));
	fprintf(stderr, " %9s %8s\n", per_hit, cpu);
}

/*
 * The probes that never fired, one line: their count, and their names as
 * far as a line holds them (--json lists each probe). With others, those
 * whose every hit was another task's than -p, -c, -t or --cgroup select
 * (filtered, no hit): a wakeup, say, fires in the waker.
 */
static void print_never_fired(const struct consume_opts *o, const struct profile *p,
			      const int *never, int n, size_t cols, bool others)
{
	const char *head = others ? "fired only in tasks not traced" : "never fired";
	size_t used;
	int i;

	if (!n)
		return;
	used = (size_t)fprintf(stderr, "%s: %d probe%s (", head, n, n == 1 ? "" : "s");
	for (i = 0; i < n; i++) {
		const struct ev_desc *ev = &o->evs[never[i]];
		char hits[24] = "";
		size_t len;

		if (others)
			snprintf(hits, sizeof(hits), " %llu hits",
				 (unsigned long long)p->st[never[i]].filtered);
		len = strlen(ev->group) + 1 + strlen(ev->event) + strlen(hits) + (i ? 2 : 0);
		/* the names that fit in the table's width, "... and N more" after them */
		if (i && used + len + 24 > cols && n - i > 1) {
			fprintf(stderr, ", ... and %d more", n - i);
			break;
		}
		used += (size_t)fprintf(stderr, "%s%s/%s%s", i ? ", " : "", ev->group, ev->event,
					hits);
	}
	fputs(others ? "): -p, -c, -t and --cgroup trace their own tasks only\n" : ")\n", stderr);
}

/*
 * The probes that fired, most hits first, their names' column as wide as
 * the longest; those that never fired on one line after them.
 */
static void print_table(const struct consume_opts *o, const struct consume_result *run,
			const struct profile *p)
{
	int *order = calloc(p->n ? p->n : 1, sizeof(*order));
	int *never = calloc(p->n ? p->n : 1, sizeof(*never));
	int *others = calloc(p->n ? p->n : 1, sizeof(*others));
	int i, nrows = 0, nnever = 0, nothers = 0, width = 32;
	size_t cols;

	if (!order || !never || !others) {
		free(order);
		free(never);
		free(others);
		fprintf(stderr, "kptrace: warning: no profile table: %s\n", strerror(ENOMEM));
		return;
	}
	for (i = 0; i < p->n; i++) {
		int len = (int)(strlen(o->evs[i].group) + 1 + strlen(o->evs[i].event));

		if (!fired(run, p, i)) {
			if (p->st[i].filtered)
				others[nothers++] = i;
			else
				never[nnever++] = i;
			continue;
		}
		order[nrows++] = i;
		if (len > width)
			width = len;
	}
	sort_p = p;
	qsort(order, nrows, sizeof(*order), by_hits);
	fprintf(stderr, "\n%-*s %12s %10s %10s %10s %10s", width, "PROBE", "HITS", "MISSES",
		"DROPS", "FAULTS", "FILTERED");
	if (o->budget)
		fprintf(stderr, " %10s", "SKIPPED");
	fprintf(stderr, " %9s %8s\n", "NS/HIT", "CPU%");
	for (i = 0; i < nrows; i++)
		print_row(o, run, p, order[i], width);
	/* as wide as the rows: the name, HITS, four counters, SKIPPED, NS/HIT, CPU% */
	cols = (size_t)width + 13 + 44 + (o->budget ? 11 : 0) + 19;
	print_never_fired(o, p, never, nnever, cols, false);
	print_never_fired(o, p, others, nothers, cols, true);
	print_losses(o, run, p);
	print_cost_line(o, run, p);
	free(order);
	free(never);
	free(others);
}

/* A counter as a JSON member: its name, then the number (members after the first). */
static void json_u64(const char *name, unsigned long long v)
{
	fprintf(stderr, ",\"%s\":%llu", name, v);
}

/* One probe's object: the table's columns, null where the kernel does not tell. */
static void json_probe(const struct consume_opts *o, const struct consume_result *run,
		       const struct profile *p, int i)
{
	const struct kpt_stats *st = &p->st[i];
	const struct cost_out *c = p->cost ? &p->cost[i] : NULL;

	fputs(i ? ",{\"group\":" : "{\"group\":", stderr);
	json_fput_str(stderr, o->evs[i].group, SIZE_MAX);
	fputs(",\"event\":", stderr);
	json_fput_str(stderr, o->evs[i].event, SIZE_MAX);
	json_u64("hits", st->hits);
	if (run->missed && run->missed[i] >= 0)
		fprintf(stderr, ",\"misses\":%lld", run->missed[i]);
	else
		fputs(o->evs[i].is_user ? ",\"misses\":0" : ",\"misses\":null", stderr);
	json_u64("drops", st->drops);
	json_u64("faults", st->faults);
	json_u64("filtered", st->filtered);
	json_u64("sampled", st->sampled);
	json_u64("paused", st->paused);
	if (c)
		json_u64("bpf_ns", c->ns);
	else
		fputs(",\"bpf_ns\":null", stderr);
	if (c && c->has_per_hit)
		fprintf(stderr, ",\"ns_per_hit\":%.1f,\"cpu_pct\":%.4f,\"shared\":%s}", c->per_hit,
			c->cpu_pct, c->shared ? "true" : "false");
	else
		fprintf(stderr, ",\"ns_per_hit\":null,\"cpu_pct\":%s,\"shared\":false}", c ? "0" : "null");
}

/*
 * --json: {"type":"profile"} on stderr, as the table is (stdout keeps only
 * the run's events or rows): the probes, the run's losses by cause as the
 * summary line counts them, and the cost ("cost":null with "cost_off" saying
 * why when the kernel's statistics could not be had).
 */
static void print_json(const struct consume_opts *o, const struct consume_result *run,
		       const struct profile *p)
{
	int i;

	fputs("{\"type\":\"profile\",\"probes\":[", stderr);
	for (i = 0; i < p->n; i++)
		json_probe(o, run, p, i);
	fprintf(stderr, "],\"seconds\":%.6f", run->seconds);
	if (!o->report)
		json_u64("printed", p->printed);
	json_u64("not_printed", o->report ? p->dropped : run->unprinted + p->dropped);
	json_u64("lost", p->sum.drops);
	json_u64("missed", p->misses);
	json_u64("not_run", run->prog_misses);
	json_u64("faults", p->sum.faults);
	json_u64("malformed", run->bad);
	json_u64("unmatched", p->sum.unmatched);
	json_u64("past_max_keys", p->sum.keys_full);
	json_u64("procs_not_followed", p->procs_full);
	json_u64("pairs_never_ended", p->sum.pair_replaced);
	json_u64("pairs_idle_replaced", p->sum.pair_idle);
	json_u64("pairs_open", p->pairs_open);
	json_u64("stacks_not_captured", p->sum.stack_failed);
	json_u64("stacks_lost", p->sum.stack_full);
	json_u64("stacks_truncated", p->sum.stack_deep);
	json_u64("stacks_cut_short", o->syms.cut ? *o->syms.cut : 0);
	json_u64("keys_cut", p->sum.keys_cut);
	json_u64("sampled", p->sum.sampled);
	json_u64("paused", p->sum.paused);
	json_u64("unseen_estimate", run->unseen);
	if (p->cost) {
		fprintf(stderr, ",\"cost\":{\"runs\":%llu,\"bpf_ns\":%llu,\"cpu_pct\":%.4f,"
			"\"estimated\":%s,\"sampled\":%.4f}",
			(unsigned long long)p->cost_runs, (unsigned long long)p->cost_ns,
			cost_pct(p, run), p->estimated ? "true" : "false", p->h.sampled);
	} else {
		fputs(",\"cost\":null,\"cost_off\":", stderr);
		json_fput_str(stderr, o->cost_off ? o->cost_off : strerror(ENOMEM), SIZE_MAX);
	}
	if (o->budget && o->budget->spec.pct > 0)
		fprintf(stderr, ",\"budget\":{\"cpu_pct\":%g,\"within\":%s}", o->budget->spec.pct,
			p->cost && cost_pct(p, run) <= o->budget->spec.pct ? "true" : "false");
	else if (o->budget)
		fprintf(stderr, ",\"budget\":{\"per_second\":%llu}",
			(unsigned long long)o->budget->spec.rate);
	fputs("}\n", stderr);
}

void profile_print(struct loader *ld, const struct consume_opts *o, const struct consume_result *run)
{
	struct profile p;

	if (profile_read(ld, o, run, &p)) {
		fprintf(stderr, "kptrace: warning: no profile: %s\n", strerror(ENOMEM));
		return;
	}
	if (o->format == OUT_JSON)
		print_json(o, run, &p);
	else
		print_table(o, run, &p);
	health_free(&p.h);
}
