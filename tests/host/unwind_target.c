// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tests/host/stacks.sh's program for stacks as compilers leave them:
 * main -> uw_outer -> uw_middle -> uw_leaf, N times, and from uw_middle
 * uw_tail (a tail call to uw_leaf at -O2) and libc's getppid (no frame of
 * its own); with "rare", uw_middle's cold path too (uw_rare, called from
 * uw_middle.cold at -O2); with "alloc", libc's malloc from uw_alloc; with
 * "nap", a 10 ms nanosleep from uw_nap; with "spin", first N calls of
 * uw_warm from main (a spin, then getppid), then uw_spin from uw_middle (a
 * spin): tests/host/lazytab.sh's, whose checks look at the second part.
 * Built -O1 -fno-omit-frame-pointer -fno-inline, where gcc gives the leaves
 * no frame, and -O2 -fomit-frame-pointer.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

volatile int uw_sink;

__attribute__((noinline)) int uw_leaf(int x)
{
	asm volatile("" ::: "memory");
	return x * 3 + 1;
}

__attribute__((noinline)) int uw_tail(int x)
{
	return uw_leaf(x + 1);
}

/* kept: gcc drops a malloc whose block is freed unread */
void *volatile uw_block;

__attribute__((noinline)) int uw_alloc(int x)
{
	uw_block = malloc((unsigned)x + 16);
	free(uw_block);
	return x;
}

__attribute__((noinline)) int uw_nap(int x)
{
	struct timespec t = { 0, 10000000 };

	nanosleep(&t, NULL);
	return x;
}

/* a millisecond or so on the CPU, with no call that a profile could land in */
#define UW_SPIN 1000000

__attribute__((noinline)) int uw_spin(int x)
{
	int i;

	for (i = 0; i < UW_SPIN; i++)
		asm volatile("" ::: "memory");
	return x;
}

__attribute__((noinline)) int uw_warm(int x)
{
	int i;

	for (i = 0; i < UW_SPIN; i++)
		asm volatile("" ::: "memory");
	uw_sink = getppid();
	return x;
}

/* a cold function: the block calling it is cold too, split off at -O2 */
__attribute__((noinline, cold)) int uw_rare(int x)
{
	return uw_leaf(x) + 7;
}

__attribute__((noinline)) int uw_middle(int x, int rare)
{
	int r = 0;

	if (rare == 1)
		r = uw_rare(x);
	else if (rare == 2)
		r = uw_alloc(x);
	else if (rare == 3)
		r = uw_nap(x);
	else if (rare == 4)
		r = uw_spin(x);
	r += uw_leaf(x);
	r += uw_tail(x);
	uw_sink = getppid();
	return r + 1;
}

__attribute__((noinline)) int uw_outer(int x, int rare)
{
	return uw_middle(x, rare) + 2;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1, rare = 0;
	long s = 0;
	int i;

	if (argc > 2)
		rare = !strcmp(argv[2], "rare") ? 1 : !strcmp(argv[2], "alloc") ? 2 :
		       !strcmp(argv[2], "nap") ? 3 : !strcmp(argv[2], "spin") ? 4 : 0;
	for (i = 0; rare == 4 && i < n; i++)
		s += uw_warm(i);
	for (i = 0; i < n; i++)
		s += uw_outer(i, rare);
	return s == -1;
}
