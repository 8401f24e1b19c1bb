// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Known workloads for tests/host/pairs.sh (latency --from/--to): each mode
 * makes events whose counts it knows.
 *   wake:  4 children forked (sched_wakeup_new each), then 6 sleeps of 1 ms
 *          (sched_wakeup each)
 *   hosts: lookup_a() 3 times, lookup_b() 2 times, each a 2 ms sleep
 *   sys:   getppid 7 times, getuid 5 times, as system calls
 *   cpu:   pinned to CPU 0, 8 sleeps of 1 ms; then prints its context
 *          switches (voluntary + involuntary, the kernel's own counts)
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static void nap_ms(int ms)
{
	struct timespec ts = { 0, ms * 1000000L };

	nanosleep(&ts, NULL);
}

__attribute__((noinline)) int lookup_a(int n)
{
	nap_ms(2);
	return n + 1;
}

__attribute__((noinline)) int lookup_b(int n)
{
	nap_ms(2);
	return n + 2;
}

static long switches(void)
{
	char line[128];
	long n = 0, v;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "voluntary_ctxt_switches: %ld", &v) == 1 ||
		    sscanf(line, "nonvoluntary_ctxt_switches: %ld", &v) == 1)
			n += v;
	if (f)
		fclose(f);
	return n;
}

int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "";
	int i;

	if (!strcmp(m, "wake")) {
		signal(SIGCHLD, SIG_IGN);	/* reaped by the kernel: no wait */
		for (i = 0; i < 4; i++)
			if (fork() == 0)
				_exit(0);
		for (i = 0; i < 6; i++)
			nap_ms(1);
	} else if (!strcmp(m, "hosts")) {
		for (i = 0; i < 3; i++)
			lookup_a(i);
		for (i = 0; i < 2; i++)
			lookup_b(i);
	} else if (!strcmp(m, "sys")) {
		for (i = 0; i < 7; i++)
			syscall(SYS_getppid);
		for (i = 0; i < 5; i++)
			syscall(SYS_getuid);
	} else if (!strcmp(m, "cpu")) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(0, &set);
		sched_setaffinity(0, sizeof(set), &set);
		for (i = 0; i < 8; i++)
			nap_ms(1);
		printf("%ld\n", switches());
		fflush(stdout);
	} else {
		fprintf(stderr, "usage: %s wake|hosts|sys|cpu\n", argv[0]);
		return 2;
	}
	return 0;
}
