// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * kpt_budget.h, the arithmetic the BPF programs run for --budget: the
 * bucket's period and burst from a rate, a quiet probe's credit refilled
 * by time and spent by taken hits only, a burst of exactly its size, the
 * rate held over a long run to the hit, 1 in N sampling by the CPU's hit
 * count, and the clock's and the counters' ends without wrapping; why's
 * budget is its root's entry's alone.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "load/budget.h"
#include "prepare/plan.h"
#include "kpt_budget.h"

/* Hits at every step ns from t0 for n steps: how many were taken; seq from 1. */
static uint64_t run(struct kpt_budget *b, uint64_t t0, uint64_t step, uint64_t n,
		    uint64_t *over)
{
	uint64_t taken = 0, i;

	for (i = 0; i < n; i++) {
		enum kpt_budget_verdict v = kpt_budget_take(b, i + 1, t0 + i * step);

		taken += v == KPT_BUDGET_TAKE;
		if (over)
			*over += v == KPT_BUDGET_OVER;
	}
	return taken;
}

/* budget.c: --budget's words, the first rates, the controller's steps, the scale. */
static void user_side(void)
{
	static const char *bad[] = { "0%", "101%", "1", "0/s", "x/s", "1e3/s", "%", "-1%", " 1%",
				     "1000000001/s", "5/m", "", "0.0001%" };
	struct budget_spec sp;
	struct budget_probe p = { .share = 1000, .rate = 1000, .sample = 1 };
	struct budget_obs o = { 0 };
	struct kpt_budget b = { 0 };
	char msg[160];
	size_t i;

	CHECK(!budget_parse("1%", &sp, msg, sizeof(msg)) && sp.pct == 1 && !sp.rate, "1%%");
	CHECK(!budget_parse("0.5%", &sp, msg, sizeof(msg)) && sp.pct == 0.5, "0.5%%");
	CHECK(!budget_parse("200000/s", &sp, msg, sizeof(msg)) && sp.rate == 200000 && !sp.pct,
	      "200000/s");
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		CHECK(budget_parse(bad[i], &sp, msg, sizeof(msg)) == -EINVAL &&
		      strstr(msg, "--budget: '") == msg, "'%s' refused, quoted: %s", bad[i], msg);

	sp = (struct budget_spec){ .rate = 1000 };
	CHECK(budget_first_rate(&sp, 4) == 250, "1000/s over 4 probes: 250 each");
	sp = (struct budget_spec){ .pct = 1 };
	CHECK(budget_first_rate(&sp, 1) == 1e7 / BUDGET_GUESS_NS, "1%%: 10 ms a second at the guess");

	/* the sampling follows the hit rate, down only with a fifth to spare */
	sp = (struct budget_spec){ .rate = 1000 };
	o.hits = 100000;
	CHECK(budget_step(&sp, &o, 1.0, &p) && p.sample == 100, "100000 hits/s at 1000/s: 1 in "
	      "100 (%u)", p.sample);
	o.hits = 85000;
	CHECK(!budget_step(&sp, &o, 1.0, &p) && p.sample == 100,
	      "85000/s: 1 in 100 records 850/s, not a fifth under: stays 1 in 100");
	o.hits = 70000;
	CHECK(budget_step(&sp, &o, 1.0, &p) && p.sample == 70, "70000/s: 1 in 100 records 700/s, a fifth under: 1 in 70 (%u)", p.sample);
	o.hits = 500;
	CHECK(budget_step(&sp, &o, 1.0, &p) && p.sample == 1, "500/s: every hit");
	CHECK(p.rate == 1000, "a rate budget's rate is its share");
	CHECK(!budget_step(&sp, &o, 0, &p), "no time passed: no step");
	o.skipped = 501;
	CHECK(!budget_step(&sp, &o, 1.0, &p), "more skipped than hits (a torn read): no step");

	/* a CPU share: cut by how far over, raised at most twice while held back */
	sp = (struct budget_spec){ .pct = 1 };
	p = (struct budget_probe){ .share = 1e7, .rate = 10000, .sample = 1 };
	o = (struct budget_obs){ .hits = 10000, .ns = 40000000, .ns_known = true };
	budget_step(&sp, &o, 1.0, &p);
	CHECK(p.rate == 2500, "4%% used of 1%%: a quarter of what was taken (%g)", p.rate);
	o = (struct budget_obs){ .hits = 100000, .skipped = 97500, .ns = 1000000, .ns_known = true };
	budget_step(&sp, &o, 1.0, &p);
	CHECK(p.rate == 5000, "0.1%% used, held back: twice the rate, no more (%g)", p.rate);
	CHECK(p.sample == 20, "100000 hits/s at 5000/s: 1 in 20 (%u)", p.sample);
	o = (struct budget_obs){ .hits = 100, .ns = 1000, .ns_known = false };
	budget_step(&sp, &o, 1.0, &p);
	CHECK(p.rate == 5000, "no run time known: the rate stays");

	/* holding: over 1.5x its share while recording no more than its rate */
	sp = (struct budget_spec){ .pct = 1 };
	o = (struct budget_obs){ .hits = 1000000, .skipped = 999000, .ns = 100000000,
				 .ns_known = true };
	CHECK_INT((int)budget_hold_looks(&sp, 1e7, &o, 1.0, 1000), 9,
		  "10%% used of 1%% at the floor: 9 looks detached after each attached one");
	CHECK_INT((int)budget_hold_looks(&sp, 5e6, &o, 1.0, 1000), 19,
		  "the same with half the share: 19");
	o.ns = 14000000;
	CHECK_INT((int)budget_hold_looks(&sp, 1e7, &o, 1.0, 1000), 0, "1.4%% of 1%%: no hold");
	o.ns = 100000000;
	CHECK_INT((int)budget_hold_looks(&sp, 1e7, &o, 1.0, 100), 0,
		  "recording 1000/s past its 100/s: the rate is cut first, no hold");
	o.ns = 10000000000ull;
	CHECK_INT((int)budget_hold_looks(&sp, 1e7, &o, 1.0, 1000), BUDGET_HOLD_MAX,
		  "a whole CPU: held at most BUDGET_HOLD_MAX looks");
	o.ns_known = false;
	CHECK_INT((int)budget_hold_looks(&sp, 1e7, &o, 1.0, 1000), 0, "no run time known: no hold");
	sp = (struct budget_spec){ .rate = 1000 };
	o.ns_known = true;
	CHECK_INT((int)budget_hold_looks(&sp, 1e7, &o, 1.0, 1000), 0, "a rate budget never holds");

	/* a rate budget's share moves with it */
	sp = (struct budget_spec){ .rate = 1000 };
	p = (struct budget_probe){ .share = 4000, .rate = 1000, .sample = 1 };
	o = (struct budget_obs){ .hits = 100000 };
	CHECK(budget_step(&sp, &o, 1.0, &p) && p.rate == 4000 && p.sample == 25,
	      "a share of 4000/s: rate 4000, 100000 hits/s 1 in 25 (%g, %u)", p.rate, p.sample);

	CHECK(budget_scale(100, 75) == 4.0, "a quarter recorded: x4");
	CHECK(budget_scale(0, 0) == 1.0 && budget_scale(10, 0) == 1.0, "nothing skipped: exact");
	p = (struct budget_probe){ .rate = 1000, .sample = 5, .armed = true };
	budget_bucket(&p, &b);
	CHECK(b.period == 1000000 && b.burst == 99000000 && b.sample == 5 && b.armed == 1,
	      "1000/s: 1 ms apart, a tenth of a second's burst, 1 in 5, armed");
	p = (struct budget_probe){ .rate = 0.2, .sample = 1 };
	budget_bucket(&p, &b);
	CHECK(b.period == 1000000000 && b.burst == 0 && b.sample == 0 && b.armed == 0,
	      "under 1/s held at 1/s, burst 1; 1 in 1 is every hit; disarmed");

	/* arming: past half the rate on, under a quarter (unsampled, unpaused) off */
	p = (struct budget_probe){ .rate = 1000, .sample = 1, .armed = false };
	CHECK(budget_want_armed(&p, 501, false) && !budget_want_armed(&p, 400, false),
	      "disarmed: armed past 500/s, not at 400/s");
	p.armed = true;
	CHECK(budget_want_armed(&p, 400, false) && !budget_want_armed(&p, 249, false),
	      "armed: kept at 400/s, disarmed under 250/s");
	CHECK(budget_want_armed(&p, 10, true), "paused in the look: kept armed");
	p.sample = 2;
	CHECK(budget_want_armed(&p, 10, false), "sampled: kept armed");
}

/* budget_split(): the run's budget among probes by what they want. */
static void split(void)
{
	double want[10], share[10], sum;
	int i;

	/* one hot probe in a glob of ten: the quiet ones a floor each, the rest to it */
	for (i = 0; i < 10; i++)
		want[i] = i == 3 ? 1e6 : 0;
	budget_split(200000, want, 10, share);
	for (sum = 0, i = 0; i < 10; i++)
		sum += share[i];
	CHECK(fabs(sum - 200000) < 1e-6, "the shares add up to the budget (%g)", sum);
	CHECK(fabs(share[0] - 5000) < 1e-6 && fabs(share[9] - 5000) < 1e-6,
	      "a quiet probe: total/4n = 5000 (%g)", share[0]);
	CHECK(fabs(share[3] - 155000) < 1e-6, "the hot one: 200000 - 9 x 5000 (%g)", share[3]);

	/* under its even part: a quarter more than it wants; the rest shared */
	want[0] = 10000, want[1] = 1e6, want[2] = 1e6;
	budget_split(90000, want, 3, share);
	CHECK(fabs(share[0] - 12500) < 1e-6 && fabs(share[1] - 38750) < 1e-6 &&
	      fabs(share[2] - 38750) < 1e-6, "10000 wanted of 90000: 12500, the two busy "
	      "38750 each (%g %g %g)", share[0], share[1], share[2]);

	/* all want more than there is: even */
	want[0] = want[1] = want[2] = 1e9;
	budget_split(90000, want, 3, share);
	CHECK(share[0] == 30000 && share[1] == 30000 && share[2] == 30000, "all busy: even");

	/* none wants much: what is left over evenly on top */
	want[0] = 100, want[1] = 0, want[2] = 50000;
	budget_split(90000, want, 3, share);
	for (sum = 0, i = 0; i < 3; i++)
		sum += share[i];
	CHECK(fabs(sum - 90000) < 1e-6 && share[2] > 50000 * 1.25 && share[1] == share[0],
	      "under: each at least what it wants, the rest evenly (%g %g %g)", share[0],
	      share[1], share[2]);
	share[0] = -1;
	budget_split(1000, want, 0, share);
	CHECK(share[0] == -1, "no probes: nothing written");
}

/* A disarmed bucket's marks: armed when KPT_BUDGET_MARK hits came faster than half the rate. */
static void marks(void)
{
	struct kpt_budget b = { 0 };

	kpt_budget_set_rate(&b, 1000, 1);
	CHECK(!kpt_budget_mark(&b, 0, 5000000000ull), "the first mark only sets the time");
	CHECK(kpt_budget_mark(&b, 1000000000ull, 1000000000ull + 127999999ull),
	      "64 hits in 128 ms - 1 ns at 1000/s: past half the rate, armed");
	CHECK(!kpt_budget_mark(&b, 1000000000ull, 1000000000ull + 128000000ull),
	      "64 hits in 128 ms: half the rate, not armed");
}

/*
 * kptrace why: the root's entry alone takes a bucket, so a call is left out
 * whole; its return and the --under probes, whose hits pair, take none.
 */
static void why_droppable(void)
{
	struct kpt_probe_entry e = { .agg = { .action = KPT_ACT_WHY, .why_role = KPT_WHY_ROOT } };

	CHECK(budget_droppable(&e), "why's root entry: a bucket");
	e.flags = KPT_PF_RETURN;
	CHECK(!budget_droppable(&e), "why's root return: none");
	e.agg.why_role = KPT_WHY_UNDER;
	CHECK(!budget_droppable(&e), "an --under return: none");
	e.flags = 0;
	CHECK(!budget_droppable(&e), "an --under entry: none");
}

int main(void)
{
	split();
	marks();
	why_droppable();
	user_side();
	struct kpt_budget b = { 0 };
	uint64_t over = 0, t;

	kpt_budget_set_rate(&b, 1000, 10);
	CHECK(b.period == 1000000 && b.burst == 9000000, "1000/s, burst 10: 1 ms apart, 9 ms "
	      "of credit (%llu, %llu)", (unsigned long long)b.period, (unsigned long long)b.burst);
	kpt_budget_set_rate(&b, 3, 1);
	CHECK(b.period == 333333334 && b.burst == 0, "3/s: the period rounded up, so never "
	      "more than the rate; burst 1: no credit");
	kpt_budget_set_rate(&b, 0, 5);
	CHECK(b.period == 0, "rate 0: no budget");

	/* a burst: a quiet bucket takes exactly burst hits at one instant */
	b = (struct kpt_budget){ 0 };
	kpt_budget_set_rate(&b, 1000, 10);
	CHECK_INT((int)run(&b, 5000000000ull, 0, 50, &over), 10, "50 hits at once: the burst of 10");
	CHECK_INT((int)over, 40, "the other 40: over the rate");
	/* refill: 1 ms later one more, 5 ms later five more */
	CHECK(kpt_budget_take(&b, 1, 5000000000ull + 1000000) == KPT_BUDGET_TAKE &&
	      kpt_budget_take(&b, 2, 5000000000ull + 1000000) == KPT_BUDGET_OVER,
	      "1 ms later: one hit's credit, no more");
	over = 0;
	CHECK_INT((int)run(&b, 5000000000ull + 6000000, 0, 20, &over), 5,
		  "5 ms on: five hits' credit");
	/* idle for long: the credit stops at the burst, it does not pile up */
	CHECK_INT((int)run(&b, 900000000000ull, 0, 100, NULL), 10, "an hour idle: still 10");

	/* held rate: 100000 hits/s offered for 2 s to a 1000/s budget */
	b = (struct kpt_budget){ 0 };
	kpt_budget_set_rate(&b, 1000, 100);
	t = run(&b, 1000000000ull, 10000, 200000, NULL);
	CHECK(t >= 2000 && t <= 2100, "2 s at 1000/s with a burst of 100: 2000..2100 taken (%llu)",
	      (unsigned long long)t);
	/* under the rate: nothing is left out */
	b = (struct kpt_budget){ 0 };
	kpt_budget_set_rate(&b, 1000, 1);
	CHECK_INT((int)run(&b, 1000000000ull, 2000000, 1000, NULL), 1000,
		  "a hit every 2 ms under 1000/s: every one taken");

	/* sampling: 1 in 4 by seq, the sampled-out hits spend no credit */
	b = (struct kpt_budget){ 0 };
	kpt_budget_set_rate(&b, 1000, 1000);
	b.sample = 4;
	over = 0;
	CHECK_INT((int)run(&b, 1000000000ull, 0, 400, &over), 100, "1 in 4 of 400: 100");
	CHECK_INT((int)over, 0, "sampled out is not over");
	CHECK(kpt_budget_take(&b, 8, 1000000000ull) == KPT_BUDGET_TAKE &&
	      kpt_budget_take(&b, 9, 1000000000ull) == KPT_BUDGET_SAMPLED,
	      "seq 8 taken, 9 sampled out");
	b.sample = 1;
	CHECK(kpt_budget_take(&b, 9, 1000000000ull) == KPT_BUDGET_TAKE, "sample 1: every hit");
	b.sample = 0;
	CHECK(kpt_budget_take(&b, 9, 1000000000ull) == KPT_BUDGET_TAKE, "sample 0: every hit");

	/* the ends: a clock near its end, a huge period, a huge burst */
	b = (struct kpt_budget){ 0 };
	kpt_budget_set_rate(&b, 1, 1);
	CHECK(kpt_budget_take(&b, 1, UINT64_MAX - 10) == KPT_BUDGET_TAKE && b.tat == UINT64_MAX,
	      "the clock's end: tat saturates, does not wrap to 0");
	CHECK(kpt_budget_take(&b, 2, UINT64_MAX - 5) == KPT_BUDGET_OVER,
	      "after the saturation: over, not taken again");
	kpt_budget_set_rate(&b, 1, UINT64_MAX);
	CHECK(b.burst == UINT64_MAX, "a burst past the clock: the clock's end");
	b.tat = 0;
	CHECK_INT((int)run(&b, 1000, 0, 1000, NULL), 1000, "an endless burst takes every hit");
	kpt_budget_set_rate(&b, UINT64_MAX, 2);
	CHECK(b.period == 1 && b.burst == 1, "a rate past 1e9/s: held at 1 ns apart");
	b.sample = UINT32_MAX;
	b.tat = 0;
	/* UINT64_MAX itself is a multiple of UINT32_MAX: one less is not */
	CHECK(kpt_budget_take(&b, UINT64_MAX - 1, 0) == KPT_BUDGET_SAMPLED &&
	      kpt_budget_take(&b, (uint64_t)UINT32_MAX * 3, 0) == KPT_BUDGET_TAKE,
	      "the largest sample period over a seq past 32 bits");
	return check_report();
}
