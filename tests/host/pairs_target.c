// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Known workloads for tests/host/pairs.sh (latency --from/--to): each mode
 * makes events whose counts it knows.
 *   wake:  4 children forked (sched_wakeup_new each), then 6 sleeps of 1 ms
 *          (sched_wakeup each)
 *   hosts: lookup_a() 3 times, lookup_b() 2 times, each a 2 ms sleep
 *   sys:   getppid 7 times, getuid 5 times, as system calls
 *   seek:  lseek 1000 times on /dev/null, as system calls, on fd 1000
 *          (no other lseek: a static build's start-up makes none)
 *   cpu:   pinned to CPU 0, 8 sleeps of 1 ms
 *   leak:  leak_here() allocates 20 blocks and keeps them; churn()
 *          allocates 30 and frees each
 *   slow:  work(0..9), of which work(2), work(5) and work(7) sleep 50 ms;
 *          work(n) returns 10 * n; "work N NS" on stderr, each call's time
 *   off:   sleeper() waits 5 times for a byte a child writes every 1 ms,
 *          then main() sleeps 3 s (alive for its stacks' symbols, a start
 *          still open at the end); "switches N" on stderr, the kernel's
 *          count of sleeper()'s voluntary switches (a byte already there
 *          when it reads, as on a busy VM, switches not). The child's
 *          write wakes it, in a task of ours: a timer's wakeup runs in
 *          whatever task the interrupt finds, and on a host whose service
 *          threads' events reach no tracer it was lost one run in a few.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static void nap_ms(int ms)
{
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000L };

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

static void *kept[20];

__attribute__((noinline)) void leak_here(void)
{
	int i;

	for (i = 0; i < 20; i++)
		kept[i] = malloc(64 + i);
}

__attribute__((noinline)) void churn(void)
{
	int i;

	for (i = 0; i < 30; i++) {
		void *p = malloc(100 + i);

		free(p);
	}
}

__attribute__((noinline)) int work(int n)
{
	if (n == 2 || n == 5 || n == 7)
		nap_ms(50);
	return 10 * n;
}

/* read() is a frameless leaf of libc's: a frame-pointer walk from it
 * skips its caller, so sleeper() calls it through this one */
__attribute__((noinline)) static void wait_byte(int fd)
{
	char c;

	if (read(fd, &c, 1) != 1)
		exit(1);
}

__attribute__((noinline)) void sleeper(int fd)
{
	int i;

	for (i = 0; i < 5; i++)
		wait_byte(fd);
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
	} else if (!strcmp(m, "seek")) {
		int fd = dup2(open("/dev/null", O_RDONLY), 1000);

		for (i = 0; i < 1000; i++)
			syscall(SYS_lseek, fd, (long)i, SEEK_SET);
	} else if (!strcmp(m, "cpu")) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(0, &set);
		sched_setaffinity(0, sizeof(set), &set);
		for (i = 0; i < 8; i++)
			nap_ms(1);
	} else if (!strcmp(m, "leak")) {
		leak_here();
		churn();
		nap_ms(300);	/* alive while its stacks are named */
	} else if (!strcmp(m, "slow")) {
		/* each call's own time on stderr: a fast call preempted on a
		 * loaded host is slow too, and the tests' reference says so */
		for (i = 0; i < 10; i++) {
			struct timespec a, b;

			clock_gettime(CLOCK_MONOTONIC, &a);
			work(i);
			clock_gettime(CLOCK_MONOTONIC, &b);
			fprintf(stderr, "work %d %lld\n", i,
				(b.tv_sec - a.tv_sec) * 1000000000LL + b.tv_nsec - a.tv_nsec);
		}
	} else if (!strcmp(m, "off")) {
		struct rusage a, b;
		int p[2];

		if (pipe(p))
			return 1;
		if (!fork()) {
			for (i = 0; i < 5; i++) {
				nap_ms(1);
				if (write(p[1], "x", 1) != 1)
					_exit(1);
			}
			_exit(0);
		}
		getrusage(RUSAGE_THREAD, &a);
		sleeper(p[0]);
		getrusage(RUSAGE_THREAD, &b);
		fprintf(stderr, "switches %ld\n", b.ru_nvcsw - a.ru_nvcsw);
		nap_ms(3000);
	} else {
		fprintf(stderr, "usage: %s wake|hosts|sys|seek|cpu|leak|slow|off\n", argv[0]);
		return 2;
	}
	return 0;
}
