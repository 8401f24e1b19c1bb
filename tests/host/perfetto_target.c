// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tests/host/perfetto.sh's own workloads, probed with uprobes: "hot N", N
 * back-to-back calls of one function (more than a small ring buffer holds);
 * "thr", two threads named worker1 and worker2 with pthread_setname_np
 * calling it while the main thread, which keeps the program's name, never
 * does. Built -O0 -fno-inline, no PIE.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PROBED __attribute__((noinline, used))

static volatile long sink;

PROBED long pf_func(long n)
{
	sink += n;
	return sink;
}

static void *worker(void *arg)
{
	const char *name = arg;
	int i;

	/* named before the first call: each record carries the comm it has then */
	pthread_setname_np(pthread_self(), name);
	for (i = 0; i < 10; i++)
		pf_func(name[6] - '0');
	return NULL;
}

int main(int argc, char **argv)
{
	struct timespec linger = { 0, 300 * 1000 * 1000 };
	pthread_t t[2];
	long i, n;

	if (argc > 2 && !strcmp(argv[1], "hot")) {
		n = atol(argv[2]);
		for (i = 0; i < n; i++)
			pf_func(i);
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "thr")) {
		if (pthread_create(&t[0], NULL, worker, "worker1") ||
		    pthread_create(&t[1], NULL, worker, "worker2"))
			return 1;
		pthread_join(t[0], NULL);
		pthread_join(t[1], NULL);
		/* alive a while after the calls: kptrace reads /proc/PID/comm then */
		nanosleep(&linger, NULL);
		return 0;
	}
	fprintf(stderr, "usage: %s hot N | thr\n", argv[0]);
	return 2;
}
