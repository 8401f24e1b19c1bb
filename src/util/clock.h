/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The one clock user space paces its looks by: seconds since boot, never set back. */
#ifndef KPT_CLOCK_H
#define KPT_CLOCK_H

#include <time.h>

static inline double kpt_mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The same clock in ns: the records' own (bpf_ktime_get_ns()). */
static inline unsigned long long kpt_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

#endif /* KPT_CLOCK_H */
