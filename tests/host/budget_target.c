// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * --budget's workload: "hot N" calls kpt_hot N times as fast as it can,
 * "slow N US" N times with US microseconds between calls, "slowhot N US M"
 * the slow calls then M hot ones, "for S" hot calls for S seconds (printing
 * how many). Each prints on stderr the time from just
 * before its first hot (or slow) call to just after its last, the window
 * every such hit falls in, which bounds what a rate may take.
 * Built -O0 -fno-inline, no PIE: the probed address is the ELF's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

__attribute__((noinline, used)) long kpt_hot(long i)
{
	return i * 3;
}

/* never called: a probe beside the hot one that asks for none of the budget */
__attribute__((noinline, used)) long kpt_quiet(long i)
{
	return i * 5;
}

int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[2]) : 0, us = argc > 3 ? atol(argv[3]) : 0, s = 0, i;
	struct timespec a, b;

	if (argc < 3 || (strcmp(argv[1], "hot") && strcmp(argv[1], "slow") &&
			 strcmp(argv[1], "slowhot") && strcmp(argv[1], "for")))
		return 2;
	if (!strcmp(argv[1], "for")) {
		/* the clock once in 4096 calls: the loop stays the probe's */
		clock_gettime(CLOCK_MONOTONIC, &a);
		do {
			for (i = 0; i < 4096; i++)
				s += kpt_hot(i);
			n += 4096;
			clock_gettime(CLOCK_MONOTONIC, &b);
		} while (b.tv_sec - a.tv_sec < atol(argv[2]));
		fprintf(stderr, "calls %ld window_ns %lld\n", n - atol(argv[2]),
			(long long)((b.tv_sec - a.tv_sec) * 1000000000LL + b.tv_nsec - a.tv_nsec));
		return s == 42;
	}
	if (!strcmp(argv[1], "slowhot")) {
		for (i = 0; i < n; i++) {
			s += kpt_hot(i);
			usleep(us);
		}
		n = argc > 4 ? atol(argv[4]) : 0;
		us = 0;
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < n; i++) {
		s += kpt_hot(i);
		if (us)
			usleep(us);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	fprintf(stderr, "calls %ld window_ns %lld\n", n,
		(long long)((b.tv_sec - a.tv_sec) * 1000000000LL + b.tv_nsec - a.tv_nsec));
	return s == 42;
}
