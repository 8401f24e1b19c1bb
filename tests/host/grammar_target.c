// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Target of tests/host/grammar.sh: a USDT-style probe site guarded by its
 * semaphore, as systemtap's <sys/sdt.h> lays them out (the semaphore in the
 * writable, file-backed .probes section), and two functions called on every
 * round. A uprobe with a reference counter on kpt_site makes the kernel
 * count kpt_sema up while it is attached: the target then calls the site.
 *
 *   grammar_target wait SECONDS   rounds every 2 ms until SECONDS pass,
 *                                 printing "sema N" when kpt_sema changes
 *   grammar_target count N        N rounds, then exits
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* PROGBITS in a section of its own: file-backed, unlike .bss */
__attribute__((section(".probes"), used)) volatile unsigned short kpt_sema;

__attribute__((noinline)) int kpt_site(int v)
{
	return v + 1;
}

__attribute__((noinline)) int kpt_tick(int v)
{
	return v + 2;
}

__attribute__((noinline)) int kpt_tock(int v)
{
	return v + 3;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct timespec nap = { 0, 2 * 1000 * 1000 };
	int i, n = 0, last = -1, sink = 0;
	bool wait;
	double end;

	if (argc != 3 || (strcmp(argv[1], "wait") && strcmp(argv[1], "count"))) {
		fprintf(stderr, "usage: %s wait SECONDS | count N\n", argv[0]);
		return 2;
	}
	wait = !strcmp(argv[1], "wait");
	n = atoi(argv[2]);
	end = now() + n;
	for (i = 0; wait ? now() < end : i < n; i++) {
		int sema = kpt_sema;

		if (sema != last) {
			printf("sema %d\n", sema);
			fflush(stdout);
			last = sema;
		}
		/* what a USDT probe compiles to: the site only when traced */
		if (sema)
			sink += kpt_site(i);
		sink += kpt_tick(i) + kpt_tock(i);
		if (wait)
			nanosleep(&nap, NULL);
	}
	return sink == -1;
}
