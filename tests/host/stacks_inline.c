// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tests/host/stacks.sh's inlining program: main -> il_outer, into which
 * il_mid and il_leaf are inlined, -> il_sink (the probed function), N
 * times. Built -O1 -g with frame pointers: the inlined calls exist only
 * in DWARF, as addr2line -i reads them.
 */
#include <stdlib.h>

__attribute__((noinline)) int il_deep(int x)
{
	asm volatile("" ::: "memory");
	return x + 1;
}

/* not a leaf, so it keeps a frame pointer: the walk sees its caller */
__attribute__((noinline)) int il_sink(int x)
{
	return il_deep(x) * 7;
}

static inline __attribute__((always_inline)) int il_leaf(int x)
{
	return il_sink(x) * 3;
}

static inline __attribute__((always_inline)) int il_mid(int x)
{
	return il_leaf(x + 2) + 1;
}

__attribute__((noinline)) int il_outer(int x)
{
	return il_mid(x * 5) + 2;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1, i;
	volatile int s = 0;

	for (i = 0; i < n; i++)
		s += il_outer(i);
	return 0;
}
