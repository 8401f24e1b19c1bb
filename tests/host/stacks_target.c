// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tests/host/stacks.sh's program: a known call chain, main -> st_outer ->
 * st_middle -> st_inner (the probed function), N times; built as a
 * non-PIE, a PIE and a static binary. With "lib", the chain ends in
 * libstacks.so's lib_outer -> lib_inner instead; with "deep", once under
 * 200 frames of st_rec; with "sys", N getppid(2) calls (no other
 * code calls it: the tracepoint's count is N). Frame pointers and no
 * inlining: the chain is what the source says.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

#ifdef STACKS_LIB
int lib_outer(int x);
#else
static int lib_outer(int x) { return x; }
#endif

__attribute__((noinline)) int st_inner(int x)
{
	asm volatile("" ::: "memory");
	return x + 1;
}

__attribute__((noinline)) int st_middle(int x)
{
	return st_inner(x) + 1;
}

__attribute__((noinline)) int st_outer(int x)
{
	return st_middle(x) + 1;
}

/* "deep": n frames of recursion above st_inner, past any stack's depth */
__attribute__((noinline)) int st_rec(int n)
{
	return n ? st_rec(n - 1) + 1 : st_inner(0);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1, lib = argc > 2 && !strcmp(argv[2], "lib");

	if (argc > 2 && !strcmp(argv[2], "deep"))
		return st_rec(200) * 0 + (n - n);
	if (argc > 2 && !strcmp(argv[2], "sys")) {
		for (int i = 0; i < n; i++)
			syscall(SYS_getppid);
		return 0;
	}
	long s = 0;
	int i;

	for (i = 0; i < n; i++)
		s += lib ? lib_outer(i) : st_outer(i);
	/* exits at once: nothing after the calls but this */
	return s == -1;
}
