// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * kptrace timechart's picture, in the spirit of perf timechart's: a time
 * axis, a lane per CPU (its busy share of each slice), then a lane per
 * process, children under their parent, the busiest first, the rest summed
 * in one lane. A process's lane stacks its states' shares of each slice;
 * slices in a row with the same time in a state are one rectangle, whose
 * <title> says the state and its time to the nanosecond.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "agg/tchart.h"
#include "util/svg.h"

#define W	1280	/* the picture's width */
#define PAD	10
#define LW	230	/* the lanes' labels */
#define PW	(W - LW - 2 * PAD)	/* the plot */
#define CPU_H	16
#define LANE_H	22
#define GAP	3
#define TOP	62	/* under the title, the legend and the axis */

static const char *const colours[KPT_TC_NSTATES] = {
	"#2f6fd6", "#e04a3a", "#dcdcdc", "#f0b429",
};

struct lane {
	const struct tc_proc *p;	/* its slices */
	const char *label;
	uint32_t tgid;		/* 0: the rest */
};

static double x_of(const struct tchart *tc, double slice)
{
	return LW + PAD + slice * PW / tc->nslices;
}

/* A tick every 1, 2 or 5 times a power of ten of seconds, about ten across. */
static void axis(FILE *f, const struct tchart *tc, double bottom)
{
	double span = (double)(tc->nslices * tc->width) / 1e9, step = pow(10, floor(log10(span)));
	double t;

	if (span / step < 2)
		step /= 5;
	else if (span / step < 5)
		step /= 2;
	for (t = 0; t <= span + 1e-12; t += step) {
		double x = LW + PAD + t / span * PW;

		fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#bbb\" "
			"stroke-width=\"0.5\"/>\n<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">"
			"%g s</text>\n", x, TOP - 4, x, bottom, x, TOP - 8, t);
	}
}

static void legend(FILE *f, const struct tchart *tc)
{
	int k;

	fprintf(f, "<text x=\"%d\" y=\"18\" font-size=\"15\" font-weight=\"bold\">kptrace "
		"timechart: %.3f s, %zu processes, slices of %.3f ms</text>\n", PAD,
		(tc->end - tc->t0) / 1e9, tc->nprocs, tc->width / 1e6);
	for (k = 0; k < KPT_TC_NSTATES; k++) {
		fprintf(f, "<rect x=\"%d\" y=\"28\" width=\"12\" height=\"12\" fill=\"%s\" "
			"stroke=\"#888\" stroke-width=\"0.5\"/><text x=\"%d\" y=\"38\">%s</text>\n",
			PAD + 140 * k, colours[k], PAD + 140 * k + 16, tc_state_names[k]);
	}
	fprintf(f, "<text x=\"%d\" y=\"38\">&#9660; fork  &#9650; exec</text>\n",
		PAD + 140 * KPT_TC_NSTATES);
}

/* The label at the lane's left, cut; the whole in its title. */
static void label(FILE *f, double y, int indent, const char *text, const char *title)
{
	fprintf(f, "<text x=\"%d\" y=\"%.1f\"><title>", PAD + 10 * indent, y);
	svg_escape(f, title);
	fputs("</title>", f);
	svg_escape(f, text);
	fputs("</text>\n", f);
}

/* The CPUs' lanes: each slice's busy share as a bar from the lane's bottom. */
static double cpu_lanes(FILE *f, const struct tchart *tc, double y)
{
	char name[32];
	uint32_t s;
	int c;

	for (c = 0; c < tc->ncpus; c++, y += CPU_H + GAP) {
		snprintf(name, sizeof(name), "CPU %d", c);
		label(f, y + CPU_H - 4, 0, name, name);
		fprintf(f, "<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%d\" fill=\"#f6f6f6\"/>\n",
			LW + PAD, y, PW, CPU_H);
		for (s = 0; s < tc->nslices; s++) {
			uint64_t b = tc->cpu[(size_t)c * tc->nslices + s];
			double h = (double)b / tc->width * CPU_H;

			if (!b)
				continue;
			h = h > CPU_H ? CPU_H : h;
			fprintf(f, "<rect class=\"cpu\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
				"height=\"%.2f\" fill=\"%s\"><title>CPU %d busy %.6f ms at %.3f s"
				"</title></rect>\n", x_of(tc, s), y + CPU_H - h,
				x_of(tc, s + 1) - x_of(tc, s), h, colours[KPT_TC_RUN], c, b / 1e6,
				(double)s * tc->width / 1e9);
		}
	}
	return y;
}

/* The largest time a slice of the lane has, all states: the lane's full height. */
static uint64_t lane_scale(const struct tchart *tc, const struct tc_proc *p)
{
	uint64_t top = tc->width, sum;
	uint32_t s;
	int k;

	for (s = p->first; s < p->first + p->count; s++) {
		for (k = 0, sum = 0; k < KPT_TC_NSTATES; k++)
			sum += tc_proc_ns(p, s, k);
		top = sum > top ? sum : top;
	}
	return top;
}

/* Whether slices a and b of p have the same time in every state. */
static bool same(const struct tc_proc *p, uint32_t a, uint32_t b)
{
	int k;

	for (k = 0; k < KPT_TC_NSTATES; k++)
		if (tc_proc_ns(p, a, k) != tc_proc_ns(p, b, k))
			return false;
	return true;
}

/*
 * One process's (or the rest's) lane: per slice, the states stacked from the
 * bottom; a state's run of slices with equal time one rectangle.
 */
static void proc_lane(FILE *f, const struct tchart *tc, const struct lane *ln, double y)
{
	const struct tc_proc *p = ln->p;
	uint32_t s, e, end = p->first + p->count;
	uint64_t scale = lane_scale(tc, p), v;
	double base, h;
	int k, j;

	fprintf(f, "<g class=\"lane\" data-pid=\"%u\">\n", ln->tgid);
	for (s = p->first; s < end; s = e) {
		for (e = s + 1; e < end && same(p, s, e); e++)
			;
		base = y + LANE_H;
		for (k = 0; k < KPT_TC_NSTATES; k++) {
			v = tc_proc_ns(p, s, k);
			if (!v)
				continue;
			h = (double)v / scale * LANE_H;
			base -= h;
			fprintf(f, "<rect class=\"s%d\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
				"height=\"%.2f\" fill=\"%s\"><title>", k, x_of(tc, s), base,
				x_of(tc, e) - x_of(tc, s), h, colours[k]);
			svg_escape(f, ln->label);
			fprintf(f, ": %s %.6f ms at %.3f s</title></rect>\n", tc_state_names[k],
				(double)v * (e - s) / 1e6, (double)s * tc->width / 1e9);
		}
	}
	/* forks (in the parent's lane) and execs as marks on the lane's top */
	for (j = 0; ln->tgid && j < (int)tc->nev; j++) {
		const struct tc_event *ev = &tc->ev[j];
		double x = LW + PAD + (double)(ev->ts - tc->t0) / (tc->nslices * tc->width) * PW;

		if (ev->tgid != ln->tgid || ev->ts < tc->t0 || x > LW + PAD + PW)
			continue;
		fprintf(f, "<text class=\"%s\" x=\"%.1f\" y=\"%.1f\" font-size=\"9\" "
			"text-anchor=\"middle\">%s<title>%s by %u (%s) at %.6f s</title></text>\n",
			ev->exec ? "exec" : "fork", x, y + 8, ev->exec ? "&#9650;" : "&#9660;",
			ev->exec ? "exec" : "fork", ev->tid, ev->exec ? ev->comm : "parent",
			(ev->ts - tc->t0) / 1e9);
	}
	fputs("</g>\n", f);
}

/* The processes past TC_LANES: one lane of their sum into *rest; false when none or no memory. */
static bool rest_sum(const struct tchart *tc, struct tc_proc *rest)
{
	uint32_t s;
	size_t i;
	int k;

	memset(rest, 0, sizeof(*rest));
	rest->count = tc->nslices;
	if (tc->norder <= TC_LANES ||
	    !(rest->slices = calloc((size_t)tc->nslices * KPT_TC_NSTATES, sizeof(uint64_t))))
		return false;
	for (i = TC_LANES; i < tc->norder; i++) {
		const struct tc_proc *p = &tc->procs[tc->order[i]];

		for (s = p->first; s < p->first + p->count; s++)
			for (k = 0; k < KPT_TC_NSTATES; k++)
				rest->slices[(size_t)s * KPT_TC_NSTATES + k] += tc_proc_ns(p, s, k);
	}
	return true;
}

int tchart_svg(const struct tchart *tc, FILE *f)
{
	size_t n = tc->norder > TC_LANES ? TC_LANES : tc->norder, i;
	double y, h = TOP + tc->ncpus * (CPU_H + GAP) + 8 + (n + 1) * (LANE_H + GAP) + PAD;
	struct tc_proc rest;
	bool others = rest_sum(tc, &rest);
	char lab[64], title[128];
	struct lane ln;
	int err = svg_rewind(f);

	if (err) {
		free(rest.slices);
		return err;
	}
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/"
		"2000/svg\" width=\"%d\" height=\"%.0f\" viewBox=\"0 0 %d %.0f\" font-family="
		"\"monospace\" font-size=\"11\">\n<rect width=\"100%%\" height=\"100%%\" "
		"fill=\"white\"/>\n", W, h, W, h);
	legend(f, tc);
	axis(f, tc, h - PAD);
	y = cpu_lanes(f, tc, TOP) + 8;
	for (i = 0; i < n; i++, y += LANE_H + GAP) {
		const struct tc_proc *p = &tc->procs[tc->order[i]];

		snprintf(lab, sizeof(lab), "%s %u", p->comm, p->tgid);
		snprintf(title, sizeof(title), "%s pid %u, parent %u, %u thread%s", p->comm,
			 p->tgid, p->ppid, p->threads, p->threads == 1 ? "" : "s");
		label(f, y + LANE_H - 6, p->depth < 6 ? p->depth : 6, lab, title);
		ln = (struct lane){ .p = p, .label = lab, .tgid = p->tgid };
		proc_lane(f, tc, &ln, y);
	}
	if (others) {
		snprintf(lab, sizeof(lab), "%zu others", tc->norder - n);
		label(f, y + LANE_H - 6, 0, lab, "the processes past the busiest, summed");
		ln = (struct lane){ .p = &rest, .label = lab, .tgid = 0 };
		proc_lane(f, tc, &ln, y);
	}
	free(rest.slices);
	fputs("</svg>\n", f);
	return ferror(f) ? -EIO : 0;
}
