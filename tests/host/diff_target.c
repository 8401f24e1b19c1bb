// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The workload tests/host/diff.sh compares runs of:
 *   diff_target sleep MS N      dt_work(MS) N times, each a nanosleep of MS ms
 *   diff_target spin N          dt_spin(i) for i in 0..N-1
 *   diff_target vals N V...     dt_val(V) N times for each V
 *   diff_target mix US N SLOW K dt_wait(US) N times, each K-th call (K > 0)
 *                               dt_wait(SLOW) instead: nanosleeps of microseconds
 * Built -O0 -g: the probed functions are the ELF's.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PROBED __attribute__((noinline, used))

PROBED void dt_work(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

PROBED void dt_wait(long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000L };

	nanosleep(&ts, NULL);
}

PROBED uint64_t dt_spin(uint64_t i)
{
	return i * 3 + 1;
}

PROBED uint64_t dt_val(uint64_t v)
{
	return v + 1;
}

int main(int argc, char **argv)
{
	volatile uint64_t sink = 0;
	long i, n;
	int j;

	if (argc >= 4 && !strcmp(argv[1], "sleep")) {
		n = atol(argv[3]);
		for (i = 0; i < n; i++)
			dt_work(atol(argv[2]));
	} else if (argc == 6 && !strcmp(argv[1], "mix")) {
		n = atol(argv[3]);
		for (i = 0; i < n; i++)
			dt_wait(atol(argv[5]) > 0 && i % atol(argv[5]) == atol(argv[5]) - 1 ?
				atol(argv[4]) : atol(argv[2]));
	} else if (argc == 3 && !strcmp(argv[1], "spin")) {
		n = atol(argv[2]);
		for (i = 0; i < n; i++)
			sink += dt_spin((uint64_t)i);
	} else if (argc >= 4 && !strcmp(argv[1], "vals")) {
		n = atol(argv[2]);
		for (j = 3; j < argc; j++)
			for (i = 0; i < n; i++)
				sink += dt_val(strtoull(argv[j], NULL, 0));
	} else {
		fprintf(stderr, "usage: %s sleep MS N | spin N | vals N V... | mix US N SLOW K\n",
			argv[0]);
		return 2;
	}
	return sink == 1 ? 1 : 0;
}
