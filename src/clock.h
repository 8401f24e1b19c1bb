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

#endif /* KPT_CLOCK_H */
