// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * cost.c: a program's run time split among its probes by their hits, to
 * the nanosecond, equally when none had any; each program counted once in
 * the total; no per-hit figure without hits; shares of a CPU; counters at
 * their largest without overflow; the columns' text; a run sampled in
 * windows scaled to the run by its events, by time where no event fell in
 * a window, its ns per run the kernel's.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "load/cost.h"

int main(void)
{
	/* program 7 serves three probes, 9 one, 0 (not loaded) one */
	struct cost_in in[] = {
		{ .prog = 7, .prog_ns = 4000, .prog_runs = 40, .hits = 30 },
		{ .prog = 7, .prog_ns = 4000, .prog_runs = 40, .hits = 10 },
		{ .prog = 7, .prog_ns = 4000, .prog_runs = 40, .hits = 0 },
		{ .prog = 9, .prog_ns = 900, .prog_runs = 3, .hits = 0 },
		{ .prog = 0, .hits = 5 },
	};
	struct cost_out out[6];
	uint64_t ns, runs;
	char buf[32];

	cost_split(in, 5, 1000000, out);
	CHECK_INT((int)out[0].ns, 3000, "30 of 40 hits: 3/4 of the time");
	CHECK_INT((int)out[1].ns, 1000, "10 of 40: 1/4");
	CHECK_INT((int)out[2].ns, 0, "no hits beside others with hits: nothing");
	CHECK(out[0].has_per_hit && out[0].per_hit == 100.0, "per hit: 3000 / 30");
	CHECK(!out[2].has_per_hit, "no hits: no per-hit figure");
	CHECK(out[0].shared && out[1].shared && !out[3].shared, "shared: a program of several probes");
	CHECK_INT((int)out[3].ns, 900, "a program of one probe and no hits: its whole time");
	CHECK(fabs(out[3].cpu_pct - 0.09) < 1e-12, "900 ns of 1 ms: 0.09%% of a CPU");
	CHECK(out[4].ns == 0 && !out[4].has_per_hit && out[4].cpu_pct == 0, "no program: zeros");
	cost_total(in, 5, &ns, &runs);
	CHECK(ns == 4900 && runs == 43, "the total: each program once (%llu ns, %llu runs)",
	      (unsigned long long)ns, (unsigned long long)runs);

	/* none of a program's probes hit (a -p run whose target never called): equal shares */
	struct cost_in idle[] = {
		{ .prog = 3, .prog_ns = 1001, .prog_runs = 9 },
		{ .prog = 3, .prog_ns = 1001, .prog_runs = 9 },
	};
	cost_split(idle, 2, 0, out);
	CHECK(out[0].ns == 500 && out[1].ns == 500 && out[0].cpu_pct == 0,
	      "no hits at all: equal shares; no run time: no share of a CPU");

	/* the largest counters: no overflow in the product */
	struct cost_in big[] = {
		{ .prog = 1, .prog_ns = UINT64_MAX / 2, .prog_runs = UINT64_MAX, .hits = UINT64_MAX / 4 },
		{ .prog = 1, .prog_ns = UINT64_MAX / 2, .prog_runs = UINT64_MAX, .hits = UINT64_MAX / 4 },
	};
	cost_split(big, 2, 1, out);
	CHECK(out[0].ns == UINT64_MAX / 4 + 1 && out[0].ns == out[1].ns, "half each of 2^63: %llu",
	      (unsigned long long)out[0].ns);
	CHECK(isfinite(out[0].per_hit) && out[0].per_hit > 0.99 && out[0].per_hit < 1.01,
	      "per hit about 1 ns");

	/*
	 * Windows: program 5 (two probes) ran 12 times in them for 10 events
	 * of its probes there, 100 over the run, 2400 ns in 12 runs as the
	 * kernel has it; program 6 saw no event in a window but ran 5 times
	 * in them, held a tenth of the run; program 8 never ran in a window;
	 * program 9 ran twice before the first (kptrace's own start-up), never
	 * in one, for its 2 events outside them.
	 */
	struct cost_in sc[] = {
		{ .prog = 5, .prog_ns = 2400, .prog_runs = 12, .hits = 60 },
		{ .prog = 5, .prog_ns = 2400, .prog_runs = 12, .hits = 40 },
		{ .prog = 6, .prog_ns = 700, .prog_runs = 5, .hits = 0 },
		{ .prog = 8, .hits = 7 },
		{ .prog = 0, .hits = 3 },
		{ .prog = 9, .prog_ns = 900, .prog_runs = 2, .hits = 2 },
	};
	struct cost_win w[] = {
		{ .runs = 12, .events = 6, .all_events = 60 },
		{ .runs = 12, .events = 4, .all_events = 40 },
		{ .runs = 5 },
		{ .all_events = 7 },
		{ .events = 1, .all_events = 3 },
		{ .all_events = 2 },
	};

	cost_scale(sc, w, 6, 0.1);
	CHECK(sc[0].prog_runs == 120 && sc[1].prog_runs == 120,
	      "runs: 100 events over the run at 12 runs for 10 events (%llu)",
	      (unsigned long long)sc[0].prog_runs);
	CHECK(sc[0].prog_ns == 24000 && sc[1].prog_ns == 24000, "time: 120 runs at 200 ns a run");
	CHECK(sc[2].prog_runs == 50 && sc[2].prog_ns == 7000, "no event in a window: by time, 5 / 0.1");
	CHECK(sc[3].unmeasured && sc[3].prog_runs == 7 && !sc[3].prog_ns,
	      "never ran in a window: unmeasured, its 7 events its runs, not timed");
	CHECK(sc[5].unmeasured && sc[5].prog_runs == 2 && !sc[5].prog_ns,
	      "ran before the windows only: its 2 events its runs, the start-up's time not theirs");
	CHECK(sc[4].prog_runs == 0 && sc[4].prog_ns == 0 && !sc[4].unmeasured, "no program: untouched");
	cost_split(sc, 6, 0, out);
	CHECK(out[0].ns == 14400 && out[0].per_hit == 240.0,
	      "a share: 60 of 100 hits; per hit 200 ns a run x 1.2 runs an event");
	CHECK(!out[3].has_per_hit && out[3].ns == 0 && out[3].unmeasured && !out[0].unmeasured,
	      "unmeasured: no per-hit figure, no time, said");

	/* a program whose every run in the windows was an event: NS/HIT its ns per run */
	struct cost_in one = { .prog = 2, .prog_ns = 4343, .prog_runs = 10, .hits = 300000 };
	struct cost_win ow = { .runs = 10, .events = 10, .all_events = 300000 };

	cost_scale(&one, &ow, 1, 0.1);
	cost_split(&one, 1, 0, out);
	CHECK(one.prog_runs == 300000 && fabs(out[0].per_hit - 434.3) < 1e-9,
	      "runs the hits, NS/HIT the kernel's ratio (%f)", out[0].per_hit);

	/* the largest counters: no overflow in the scaling */
	struct cost_in bs = { .prog = 1, .prog_ns = UINT64_MAX / 2, .prog_runs = UINT64_MAX / 2 };
	struct cost_win bw = { .runs = UINT64_MAX / 4, .events = UINT64_MAX / 4,
			       .all_events = UINT64_MAX / 2 };

	cost_scale(&bs, &bw, 1, 0.5);
	CHECK(bs.prog_runs == UINT64_MAX / 2 && bs.prog_ns == UINT64_MAX / 2,
	      "2^63 events at one run each: %llu", (unsigned long long)bs.prog_runs);

	struct cost_out c = { .has_per_hit = true, .per_hit = 412.4, .cpu_pct = 0.01234 };

	cost_fmt_per_hit(&c, buf, sizeof(buf));
	CHECK_STR(buf, "412", "ns per hit");
	c.per_hit = 20712;
	cost_fmt_per_hit(&c, buf, sizeof(buf));
	CHECK_STR(buf, "20.7k", "thousands");
	c.per_hit = 3.5e7;
	cost_fmt_per_hit(&c, buf, sizeof(buf));
	CHECK_STR(buf, "35.0M", "millions");
	c.has_per_hit = false;
	cost_fmt_per_hit(&c, buf, sizeof(buf));
	CHECK_STR(buf, "-", "no hits");
	cost_fmt_cpu(&c, buf, sizeof(buf));
	CHECK_STR(buf, "0.012", "% of a CPU, 3 decimals");
	c.cpu_pct = 87.25;
	cost_fmt_cpu(&c, buf, sizeof(buf));
	CHECK_STR(buf, "87.2", "past 10%%: one decimal");
	return check_report();
}
