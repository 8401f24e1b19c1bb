// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tests/host/lazytab.sh's program for a library loaded after the process's
 * mappings were first read: "N LIB" naps 10 ms N times in dl_warm, then
 * loads LIB (lazytab_lib.c) with dlopen() and calls its uwl_outer (a nap)
 * 4N times from dl_run. Built -O2 -fomit-frame-pointer.
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <time.h>

__attribute__((noinline)) int dl_warm(int x)
{
	struct timespec t = { 0, 10000000 };

	nanosleep(&t, NULL);
	return x;
}

__attribute__((noinline)) int dl_run(const char *lib, int n)
{
	void *h = dlopen(lib, RTLD_NOW);
	int (*outer)(int) = h ? (int (*)(int))dlsym(h, "uwl_outer") : NULL;
	int i, s = 0;

	if (!outer)
		return -1;
	for (i = 0; i < n; i++)
		s += outer(i);
	return s;
}

int main(int argc, char **argv)
{
	int n = argc > 2 ? atoi(argv[1]) : 0, i;
	long s = 0;

	if (argc < 3)
		return 2;
	for (i = 0; i < n; i++)
		s += dl_warm(i);
	return dl_run(argv[2], 4 * n) == -1 || s == -1;
}
