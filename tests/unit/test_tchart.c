// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * kptrace timechart's reports (agg/tchart.c, tchart_svg.c) on a run made by
 * hand: two CPUs, four slices of 10 ms, a make and its cc1 (which has its
 * two slices of the four only, as a short-lived process has). The picture's
 * rectangles (equal slices in a row merged, each one's time in its title),
 * the lanes' order and indent, the marks, the rest summed past TC_LANES;
 * the JSON summary, character for character.
 */
#include <stdlib.h>
#include <string.h>

#include "agg/tchart.h"
#include "check.h"

#define MS	1000000ull
#define T0	1000ull

static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	for (; (s = strstr(s, what)); s += strlen(what))
		n++;
	return n;
}

static char *render(const struct tchart *tc, bool svg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (svg)
		CHECK_INT(tchart_svg(tc, f), 0, "tchart_svg");
	else
		tchart_summary(tc, f, true);
	fclose(f);
	return buf;
}

static void proc(struct tc_proc *p, uint32_t tgid, uint32_t ppid, const char *comm, int depth,
		 uint32_t nslices)
{
	memset(p, 0, sizeof(*p));
	p->tgid = tgid;
	p->ppid = ppid;
	p->threads = 1;
	p->depth = depth;
	p->parent = -1;
	snprintf(p->comm, sizeof(p->comm), "%s", comm);
	p->slices = calloc((size_t)nslices * KPT_TC_NSTATES, sizeof(uint64_t));
	p->count = nslices;
}

static void set(struct tc_proc *p, uint32_t slice, int state, uint64_t ns)
{
	p->slices[(slice - p->first) * KPT_TC_NSTATES + state] = ns;
	p->ns[state] += ns;
}

static void make_and_cc1(void)
{
	struct tchart *tc = tchart_new();
	uint64_t cpu[8] = { 10 * MS, 5 * MS }, make_cpu[2] = { 12 * MS, 3 * MS };
	struct tc_proc procs[2];
	int order[2] = { 0, 1 };
	char *s;

	tc->t0 = T0;
	tc->end = T0 + 40 * MS;
	tc->width = 10 * MS;
	tc->nslices = 4;
	tc->ncpus = 2;
	proc(&procs[0], 100, 1, "make<1>", 0, 4);
	proc(&procs[1], 101, 100, "cc1", 1, 2);	/* slices 1 and 2 only */
	procs[1].first = 1;
	set(&procs[0], 0, KPT_TC_RUN, 10 * MS);
	set(&procs[0], 1, KPT_TC_RUN, 5 * MS);
	set(&procs[0], 1, KPT_TC_SLEEP, 5 * MS);
	set(&procs[0], 2, KPT_TC_SLEEP, 10 * MS);
	set(&procs[0], 3, KPT_TC_SLEEP, 10 * MS);
	set(&procs[1], 1, KPT_TC_RUN, 10 * MS);
	set(&procs[1], 2, KPT_TC_RUN, 10 * MS);
	procs[0].wakeups = 2;
	procs[0].cpu_ns = make_cpu;
	procs[1].parent = 0;
	tc->procs = procs;
	tc->nprocs = 2;
	tc->order = order;
	tc->norder = 2;
	tc->cpu = cpu;
	tchart_event(tc, false, "make", T0 + 5 * MS, 100, 100);
	tchart_event(tc, true, "cc1", T0 + 10 * MS, 101, 101);

	s = render(tc, true);
	CHECK(s && !strncmp(s, "<?xml", 5) && strstr(s, "</svg>\n"), "an SVG document: %.80s", s);
	/* make: 10 ms running, then 5 and 5, then its two slices of sleep as one */
	CHECK(strstr(s, "<title>make&lt;1&gt; 100: running 10.000000 ms at 0.000 s</title>"),
	      "make's first slice");
	CHECK(strstr(s, "<title>make&lt;1&gt; 100: running 5.000000 ms at 0.010 s</title>"),
	      "make's second slice, running");
	CHECK(strstr(s, "<title>make&lt;1&gt; 100: sleeping 5.000000 ms at 0.010 s</title>"),
	      "make's second slice, sleeping");
	CHECK(strstr(s, "<title>make&lt;1&gt; 100: sleeping 20.000000 ms at 0.020 s</title>"),
	      "make's last two slices, one rectangle");
	CHECK(strstr(s, "<title>cc1 101: running 20.000000 ms at 0.010 s</title>"),
	      "cc1's two slices, one rectangle");
	CHECK_INT(count(s, "<rect class=\"s"), 5, "state rectangles");
	CHECK_INT(count(s, "<rect class=\"cpu\""), 2, "CPU bars");
	CHECK(strstr(s, "<title>CPU 0 busy 5.000000 ms at 0.010 s</title>"), "CPU 0's second slice");
	/* the child under its parent, indented; its lane after make's */
	CHECK(strstr(s, "<text x=\"20\"") && strstr(s, "cc1 101</text>") &&
	      strstr(s, "data-pid=\"100\"") < strstr(s, "data-pid=\"101\""), "cc1 under make");
	CHECK(strstr(s, "fork by 100 (parent) at 0.005000 s"), "the fork on make's lane");
	CHECK(strstr(s, "exec by 101 (cc1) at 0.010000 s"), "the exec on cc1's lane");
	free(s);

	s = render(tc, false);
	CHECK_STR(s, "{\"timechart\":{\"start_ns\":1000,\"end_ns\":40001000,\"duration_ns\":40000000,"
		  "\"slice_ns\":10000000,\"slices\":4,\"cpus\":2,\"processes\":[{\"pid\":100,"
		  "\"ppid\":1,\"comm\":\"make<1>\",\"run_ns\":15000000,\"runnable_ns\":0,"
		  "\"sleep_ns\":25000000,\"blocked_ns\":0,\"run_ns_by_cpu\":[12000000,3000000],\"wakeups\":2,\"ios\":0,\"io_ns\":0,"
		  "\"threads\":1},{\"pid\":101,\"ppid\":100,\"comm\":\"cc1\",\"run_ns\":20000000,"
		  "\"runnable_ns\":0,\"sleep_ns\":0,\"blocked_ns\":0,\"run_ns_by_cpu\":[0,0],"
		  "\"wakeups\":0,\"ios\":0,"
		  "\"io_ns\":0,\"threads\":1}],\"lost\":{\"tasks\":0,\"slices\":0,\"requests\":0,"
		  "\"past_ns\":0},\"switches_unseen\":0}}\n", "--json");
	free(s);
	free(procs[0].slices);
	free(procs[1].slices);
	free(tc->ev);
	free(tc);
}

/* Past TC_LANES processes, one lane of the rest's sum. */
static void the_rest(void)
{
	struct tchart *tc = tchart_new();
	size_t n = TC_LANES + 2, i;
	struct tc_proc *procs = calloc(n, sizeof(*procs));
	int *order = calloc(n, sizeof(int));
	uint64_t cpu[2] = { 0 };
	char name[16], *s;

	tc->t0 = T0;
	tc->end = T0 + 10 * MS;
	tc->width = 10 * MS;
	tc->nslices = 1;
	tc->ncpus = 1;
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "p%zu", i);
		proc(&procs[i], 200 + i, 1, name, 0, 1);
		set(&procs[i], 0, KPT_TC_RUN, (n - i) * MS / 10);
		order[i] = (int)i;
	}
	tc->procs = procs;
	tc->nprocs = tc->norder = n;
	tc->order = order;
	tc->cpu = cpu;
	s = render(tc, true);
	CHECK_INT(count(s, "class=\"lane\""), TC_LANES + 1, "lanes: the busiest and the rest");
	/* the last two: 0.2 ms and 0.1 ms */
	CHECK(strstr(s, "<title>2 others: running 0.300000 ms at 0.000 s</title>"), "the rest summed");
	free(s);
	for (i = 0; i < n; i++)
		free(procs[i].slices);
	free(procs);
	free(order);
	free(tc);
}

int main(void)
{
	make_and_cc1();
	the_rest();
	return check_report();
}
