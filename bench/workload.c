// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The benchmark's workload: calls bench_fn(a, b, s) (noinline, three
 * arguments, one a string) N times in a tight loop and prints what each call
 * cost, timed with clock_gettime(CLOCK_MONOTONIC) around the loop:
 *
 *   workload N [RATE] [THREADS]
 *   workload --lseek N
 *   workload --pair N
 *   workload --pingpong N [CPU]
 *   workload --usdt N
 *
 * prints "calls=N ns_per_call=X elapsed_ns=T rate=R" on stdout. RATE (calls
 * per second, 0: as fast as possible) paces the loop in batches of 64 calls;
 * THREADS (default 1) runs that many threads, each making N calls at RATE.
 * Built -O2 -no-pie: bench_fn's ELF address is its uprobe address.
 *
 * --lseek: the tracepoint scenario's loop instead, N calls of
 * lseek(fd of /dev/null, i & 0xffff, SEEK_SET) (syscalls/sys_enter_lseek;
 * the offset varies so that a histogram of it spreads over 17 buckets;
 * on /dev/null lseek does next to nothing), timed and printed the same way,
 * with nr=, lseek's system call number.
 *
 * --pair: the pair scenario's loop of two system calls, N in all on /dev/null:
 * lseek(fd, i & 0xffff, SEEK_SET) for even i, pread64(fd, buf, 1, i & 0xffff)
 * for odd i (nothing to read there: it returns 0); also prints lseek=N and
 * pread=N.
 *
 * --pingpong: N round trips of a byte between two threads through two pipes,
 * both threads pinned to CPU (default the last one), so that each round trip
 * is two context switches on that CPU, one thread to the other and back.
 * Each thread's own switches (getrusage(RUSAGE_THREAD), voluntary and not)
 * are counted over its loop: calls= is their sum, ns_per_call the loop's
 * time over it (ns per context switch); also prints rounds=N.
 *
 * --usdt: N firings of the SDT probe kptbench:hit (sys/sdt.h, one argument,
 * the loop's counter; no semaphore, so the site is a nop untraced), timed
 * and printed as --lseek; refused when built without sys/sdt.h.
 *
 * --lseek, --usdt, --pair and --pingpong print cpu_ns_per_call too: the
 * process's CPU time over the loop (CLOCK_PROCESS_CPUTIME_ID, every
 * thread's) a call, which the time it waited for a CPU taken by others
 * does not inflate.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#if __has_include(<sys/sdt.h>)
#include <sys/sdt.h>
#define HAVE_SDT 1
#endif

#define PROBED __attribute__((noinline, used))

static const char *const strs[4] = {
	"/usr/lib/bench/alpha", "/usr/lib/bench/bravo-longer",
	"/tmp/c", "/var/lib/bench/delta-the-longest-one",
};

PROBED uint64_t bench_fn(uint64_t a, uint32_t b, const char *s)
{
	/* keeps the call (and its arguments) from being optimised away */
	__asm__ volatile("" : : "r"(a), "r"(b), "r"(s) : "memory");
	return a ^ b;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct job {
	uint64_t n, rate, elapsed, sum;
};

static void *run(void *arg)
{
	struct job *j = arg;
	uint64_t i, t0 = now_ns(), sum = 0;

	if (!j->rate) {
		for (i = 0; i < j->n; i++)
			sum += bench_fn(i, (uint32_t)(i & 0xffff), strs[i & 3]);
	} else {
		/* batch k (64 calls) starts no earlier than k * 64 / rate seconds in */
		for (i = 0; i < j->n; i++) {
			if (!(i & 63)) {
				uint64_t due = t0 + (uint64_t)((double)i * 1e9 / (double)j->rate);

				while (now_ns() < due)
					;
			}
			sum += bench_fn(i, (uint32_t)(i & 0xffff), strs[i & 3]);
		}
	}
	j->elapsed = now_ns() - t0;
	j->sum = sum;
	return NULL;
}

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* the line of the --pair and --pingpong loops: wall and CPU time a call */
static void print_loop(uint64_t n, uint64_t elapsed, uint64_t cpu)
{
	printf("calls=%llu ns_per_call=%.2f cpu_ns_per_call=%.2f elapsed_ns=%llu rate=%.0f",
	       (unsigned long long)n, n ? (double)elapsed / (double)n : 0.0,
	       n ? (double)cpu / (double)n : 0.0, (unsigned long long)elapsed,
	       elapsed ? (double)n * 1e9 / (double)elapsed : 0.0);
}

static int lseek_loop(uint64_t n)
{
	int fd = open("/dev/null", O_RDONLY);
	uint64_t i, t0, elapsed, c0, cpu;
	off_t sum = 0;

	if (fd < 0) {
		perror("workload: /dev/null");
		return 1;
	}
	c0 = cpu_ns();
	t0 = now_ns();
	for (i = 0; i < n; i++)
		sum += lseek(fd, (off_t)(i & 0xffff), SEEK_SET);
	elapsed = now_ns() - t0;
	cpu = cpu_ns() - c0;
	close(fd);
	/* the number a filter on raw_syscalls keeps (the static scenario) */
	print_loop(n, elapsed, cpu);
	printf(" nr=%ld\n", (long)SYS_lseek);
	return sum == -42 ? 3 : 0; /* sum is used */
}

static int usdt_loop(uint64_t n)
{
#ifdef HAVE_SDT
	uint64_t i, t0, elapsed, c0;

	c0 = cpu_ns();
	t0 = now_ns();
	for (i = 0; i < n; i++)
		DTRACE_PROBE1(kptbench, hit, i);
	elapsed = now_ns() - t0;
	print_loop(n, elapsed, cpu_ns() - c0);
	putchar('\n');
	return 0;
#else
	(void)n;
	fprintf(stderr, "workload: --usdt: built without sys/sdt.h (Debian's systemtap-sdt-dev)\n");
	return 2;
#endif
}

static int pair_loop(uint64_t n)
{
	int fd = open("/dev/null", O_RDONLY);
	uint64_t i, t0, c0, elapsed, cpu;
	char buf[1];
	off_t sum = 0;

	if (fd < 0) {
		perror("workload: /dev/null");
		return 1;
	}
	t0 = now_ns();
	c0 = cpu_ns();
	for (i = 0; i < n; i++) {
		if (i & 1)
			sum += pread(fd, buf, 1, (off_t)(i & 0xffff));
		else
			sum += lseek(fd, (off_t)(i & 0xffff), SEEK_SET);
	}
	cpu = cpu_ns() - c0;
	elapsed = now_ns() - t0;
	close(fd);
	print_loop(n, elapsed, cpu);
	printf(" lseek=%llu pread=%llu\n", (unsigned long long)(n - n / 2),
	       (unsigned long long)(n / 2));
	return sum == -42 ? 3 : 0; /* sum is used */
}

struct pong {
	int in, out, cpu;
	uint64_t n, switches;
};

static long thread_switches(void)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	return ru.ru_nvcsw + ru.ru_nivcsw;
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/* the second thread: each byte that comes in goes back */
static void *ponger(void *arg)
{
	struct pong *p = arg;
	uint64_t i;
	long s0;
	char c;

	if (pin(p->cpu))
		return (void *)1;
	s0 = thread_switches();
	for (i = 0; i < p->n; i++)
		if (read(p->in, &c, 1) != 1 || write(p->out, &c, 1) != 1)
			return (void *)1;
	p->switches = thread_switches() - s0;
	return NULL;
}

static int pingpong(uint64_t n, int cpu)
{
	int ab[2], ba[2];
	struct pong p;
	pthread_t t;
	uint64_t i, t0, c0, elapsed, used;
	long s0, own;
	void *rc;
	char c = 'x';

	if (pipe(ab) || pipe(ba)) {
		perror("workload: pipe");
		return 1;
	}
	p = (struct pong){ .in = ab[0], .out = ba[1], .cpu = cpu, .n = n };
	if (pin(cpu)) {
		perror("workload: sched_setaffinity");
		return 1;
	}
	if (pthread_create(&t, NULL, ponger, &p))
		return 1;
	/* one round trip first: the other thread is there, pinned */
	if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
		return 1;
	p.n++;
	t0 = now_ns();
	c0 = cpu_ns();
	s0 = thread_switches();
	for (i = 0; i < n; i++)
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
			return 1;
	own = thread_switches() - s0;
	/* both threads' CPU time: the other's last write is done */
	used = cpu_ns() - c0;
	elapsed = now_ns() - t0;
	if (pthread_join(t, &rc) || rc)
		return 1;
	print_loop(own + p.switches, elapsed, used);
	printf(" rounds=%llu\n", (unsigned long long)n);
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 0) : 1000000;
	uint64_t rate = argc > 2 ? strtoull(argv[2], NULL, 0) : 0;
	int threads = argc > 3 ? atoi(argv[3]) : 1, t;
	pthread_t tid[64];
	struct job jobs[64];
	uint64_t elapsed = 0, total = 0, t0, wall;

	if (argc > 1 && !strcmp(argv[1], "--lseek"))
		return lseek_loop(argc > 2 ? strtoull(argv[2], NULL, 0) : 1000000);
	if (argc > 1 && !strcmp(argv[1], "--usdt"))
		return usdt_loop(argc > 2 ? strtoull(argv[2], NULL, 0) : 1000000);
	if (argc > 1 && !strcmp(argv[1], "--pair"))
		return pair_loop(argc > 2 ? strtoull(argv[2], NULL, 0) : 1000000);
	if (argc > 1 && !strcmp(argv[1], "--pingpong"))
		return pingpong(argc > 2 ? strtoull(argv[2], NULL, 0) : 100000,
				argc > 3 ? atoi(argv[3]) : (int)sysconf(_SC_NPROCESSORS_ONLN) - 1);
	if (threads < 1 || threads > 64) {
		fprintf(stderr, "usage: workload N [RATE] [THREADS<=64]\n");
		return 2;
	}
	/* Touch the strings: a BPF program cannot fault a page in, and a
	 * .rodata page nobody read yet is not mapped. */
	for (t = 0; t < 4; t++) {
		const volatile char *c = strs[t];

		while (*c)
			c++;
	}
	t0 = now_ns();
	for (t = 0; t < threads; t++) {
		jobs[t] = (struct job){ .n = n, .rate = rate };
		if (threads == 1)
			run(&jobs[t]);
		else if (pthread_create(&tid[t], NULL, run, &jobs[t]))
			return 1;
	}
	for (t = 0; threads > 1 && t < threads; t++)
		pthread_join(tid[t], NULL);
	wall = now_ns() - t0;
	for (t = 0; t < threads; t++) {
		elapsed += jobs[t].elapsed;
		total += jobs[t].n;
	}
	/* ns per call per thread (each thread's own loop), rate over all threads */
	printf("calls=%llu ns_per_call=%.2f elapsed_ns=%llu rate=%.0f\n", (unsigned long long)total,
	       (double)elapsed / (double)total, (unsigned long long)wall,
	       (double)total * 1e9 / (double)wall);
	return jobs[0].sum == 42 ? 3 : 0; /* sum is used */
}
