// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tests/host/profile.sh's program: units of work in spin_a three times as
 * often as in spin_b, for SECONDS of CPU time: by work done, 75% of its
 * samples are in spin_a, 25% in spin_b. Short units in a random order, so
 * no pattern of them keeps step with the sampling timer.
 */
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

__attribute__((noinline)) void spin_a(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i;
}

__attribute__((noinline)) void spin_b(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i;
}

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 2.0;
	unsigned long i;
	unsigned int seed = 1;

	for (i = 0; (i & 63) || cpu_s() < secs; i++) {
		if (rand_r(&seed) % 4 == 0)
			spin_b(2000);
		else
			spin_a(2000);
	}
	return 0;
}
