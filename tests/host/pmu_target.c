// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The workload of tests/host/pmu.sh: functions whose counter deltas are
 * known, probed with uprobes by kptrace latency --pmu.
 *
 *	touch PAGES CALLS	kpt_touch writes to PAGES fresh pages (no huge
 *				pages): PAGES page faults per call
 *	nap USEC CALLS		kpt_nap sleeps: at least one context switch
 *	spin ITERS CALLS	kpt_spin only computes: no fault, no switch
 *	hop CALLS		kpt_hop moves itself to another CPU: returns on
 *				another CPU than it entered on
 *
 * nap and spin print each call's own measured duration on stdout, "NS
 * TICKS SWITCHES" (CLOCK_MONOTONIC ns, time-stamp counter ticks, 0 where
 * there is no TSC, and the thread's context switches by getrusage(2)): the
 * reference for the cpu-clock, msr/tsc/ and context-switches deltas kptrace
 * reads at the call's entry and return, which all three intervals enclose.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#define PROBED __attribute__((noinline, used))

static volatile unsigned long sink;

PROBED long kpt_touch(char *buf, long pages, long pagesz)
{
	long i;

	for (i = 0; i < pages; i++)
		buf[i * pagesz] = 1;
	return pages;
}

PROBED long kpt_nap(long usec)
{
	struct timespec ts = { usec / 1000000, (usec % 1000000) * 1000 };

	nanosleep(&ts, NULL);
	return usec;
}

PROBED unsigned long kpt_spin(long iters)
{
	unsigned long x = 1;
	long i;

	for (i = 0; i < iters; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	sink = x;	/* a side effect: no compiler may fold calls into one */
	return x;
}

/* Move to CPU to (and wait until there). */
PROBED int kpt_hop(int to)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(to, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return -1;
	while (sched_getcpu() != to)
		sched_yield();
	return to;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* The TSC, fenced: not read early or late around the call it brackets. */
static unsigned long long tsc(void)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned long long t;

	_mm_lfence();
	t = __rdtsc();
	_mm_lfence();
	return t;
#else
	return 0;
#endif
}

/* The calling thread's context switches so far, voluntary or not. */
static long switches(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru))
		return -1;
	return ru.ru_nvcsw + ru.ru_nivcsw;
}

/*
 * One call of f(a), bracketed: the TSC inside the clock, the clock inside
 * the switch count, all outside the call.
 */
static void measured(unsigned long (*f)(long), long a)
{
	long s0 = switches(), s1;
	double t0 = now_ns(), t1;
	unsigned long long c0 = tsc(), c1;

	f(a);
	c1 = tsc();
	t1 = now_ns();
	s1 = switches();
	printf("%.0f %llu %ld\n", t1 - t0, c1 - c0, s1 - s0);
}

static unsigned long nap(long usec)
{
	return (unsigned long)kpt_nap(usec);
}

int main(int argc, char **argv)
{
	long pagesz = sysconf(_SC_PAGESIZE), a = argc > 2 ? atol(argv[2]) : 0, n, i;

	if (argc < 3) {
		fprintf(stderr, "usage: %s touch PAGES CALLS | nap USEC CALLS | spin ITERS CALLS | "
			"hop CALLS\n", argv[0]);
		return 2;
	}
	n = argc > 3 ? atol(argv[3]) : 0;
	if (!strcmp(argv[1], "touch")) {
		for (i = 0; i < n; i++) {
			char *buf = mmap(NULL, a * pagesz, PROT_READ | PROT_WRITE,
					 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			if (buf == MAP_FAILED)
				return 1;
			madvise(buf, a * pagesz, MADV_NOHUGEPAGE);
			kpt_touch(buf, a, pagesz);
			munmap(buf, a * pagesz);
		}
	} else if (!strcmp(argv[1], "nap")) {
		for (i = 0; i < n; i++)
			measured(nap, a);
	} else if (!strcmp(argv[1], "spin")) {
		for (i = 0; i < n; i++)
			measured(kpt_spin, a);
	} else if (!strcmp(argv[1], "hop")) {
		int ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);

		for (i = 0; i < a; i++)
			kpt_hop((sched_getcpu() + 1) % ncpu);
	} else {
		return 2;
	}
	return 0;
}
