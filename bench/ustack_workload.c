// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The user-stack scenario's workload (bench/ustackbench.py): us_leaf()
 * called N times at the end of a chain of 8 functions under main, built
 * with and without frame pointers. Prints "ns_per_call X" on stderr, the
 * loop's time by clock_gettime(), so that a tool's output on stdout stays
 * apart.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

volatile unsigned long us_sink;

__attribute__((noinline)) void us_leaf(unsigned long i)
{
	us_sink += i;
}

#define LINK(name, next)                                       \
	__attribute__((noinline)) void name(unsigned long i)   \
	{                                                      \
		next(i + 1);                                   \
		asm volatile("" ::: "memory");                 \
	}
LINK(us_f1, us_leaf)
LINK(us_f2, us_f1)
LINK(us_f3, us_f2)
LINK(us_f4, us_f3)
LINK(us_f5, us_f4)
LINK(us_f6, us_f5)
LINK(us_f7, us_f6)
LINK(us_f8, us_f7)

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 0) : 10000, i;
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < n; i++)
		us_f8(i);
	clock_gettime(CLOCK_MONOTONIC, &b);
	fprintf(stderr, "ns_per_call %.1f\n",
		((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / (double)n);
	return 0;
}
