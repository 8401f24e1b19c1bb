/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * --budget's decision for one hit, shared by the BPF programs (which take
 * it) and the unit tests (which check its arithmetic), so both run the same
 * code. Two stages: user space sets a sampling period from the rate it
 * measures (record 1 hit in N, so what is recorded stays spread over time
 * and a count scales back), and a token bucket in the form of GCRA (one
 * word, the "theoretical arrival time") caps what is recorded at the
 * budget's rate, so a burst between two of user space's looks is paused,
 * not passed. The bucket reads the clock, the dearest part of a hit's
 * check: a probe far under its rate is disarmed by user space, and then
 * only every KPT_BUDGET_MARK-th hit of a CPU reads it, to arm the bucket
 * at once when those came faster than half the rate (kpt_budget_mark()).
 */
#ifndef KPT_BUDGET_H
#define KPT_BUDGET_H

#include "kptrace.h"

/* Per probe, shared by the CPUs (the kpt_budget map); user space writes all but tat. */
struct kpt_budget {
	__u64 period;	/* ns between recorded hits at the budget's rate; 0: no budget */
	__u64 burst;	/* ns of credit a quiet probe gathers: period * (burst - 1) */
	__u64 tat;	/* when the bucket is full again; <= now: it is */
	__u32 sample;	/* record 1 hit in sample; 0 and 1: every one */
	__u32 armed;	/* 0: the bucket is not asked, only the marks are (user space sets
			 * it; the kernel sets it when a mark says so) */
};

/* A disarmed bucket's CPUs read the clock once in this many hits each. */
#define KPT_BUDGET_MARK	64

enum kpt_budget_verdict {
	KPT_BUDGET_TAKE,	/* record it */
	KPT_BUDGET_SAMPLED,	/* left out by the sampling: counted as skipped */
	KPT_BUDGET_OVER,	/* past the rate: the probe is paused, counted as skipped */
};

/*
 * The verdict on a hit at time now (ns), seq its CPU's count of the probe's
 * hits. Only a taken hit spends credit. The tat's update is a plain store:
 * two CPUs taking at once may both pass, so the cap is exact per CPU and
 * at most one hit per CPU over in all.
 */
static inline enum kpt_budget_verdict kpt_budget_take(struct kpt_budget *b, __u64 seq, __u64 now)
{
	__u64 t = b->tat > now ? b->tat : now;

	if (b->sample > 1 && seq % b->sample)
		return KPT_BUDGET_SAMPLED;
	if (t - now > b->burst)
		return KPT_BUDGET_OVER;
	/* saturate: a period past the clock's end means never again */
	b->tat = t > ~0ULL - b->period ? ~0ULL : t + b->period;
	return KPT_BUDGET_TAKE;
}

/*
 * A disarmed bucket, at a CPU's mark (its hit count a multiple of
 * KPT_BUDGET_MARK): whether the marks' hits, since that CPU's previous mark
 * at prev, came at more than half the rate, so the bucket must be armed.
 * The first mark (prev 0) only sets the time.
 */
static inline int kpt_budget_mark(const struct kpt_budget *b, __u64 prev, __u64 now)
{
	return prev && now - prev < 2 * KPT_BUDGET_MARK * b->period;
}

/* The bucket for rate hits a second, burst of them at once (at least 1); 0 rate: none. */
static inline void kpt_budget_set_rate(struct kpt_budget *b, __u64 rate, __u64 burst)
{
	/* past one a nanosecond the clock cannot tell hits apart */
	if (rate > 1000000000ULL)
		rate = 1000000000ULL;
	b->period = rate ? (1000000000ULL + rate - 1) / rate : 0;
	if (!burst)
		burst = 1;
	/* a burst the clock cannot hold is the clock's end */
	b->burst = burst - 1 > ~0ULL / (b->period ? b->period : 1) ? ~0ULL :
		   (burst - 1) * b->period;
}

#endif /* KPT_BUDGET_H */
