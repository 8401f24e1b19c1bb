// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The benchmark's workload: calls bench_fn(a, b, s) (noinline, three
 * arguments, one a string) N times in a tight loop and prints what each call
 * cost, timed with clock_gettime(CLOCK_MONOTONIC) around the loop:
 *
 *   workload N [RATE] [THREADS]
 *   workload --lseek N
 *
 * prints "calls=N ns_per_call=X elapsed_ns=T rate=R" on stdout. RATE (calls
 * per second, 0: as fast as possible) paces the loop in batches of 64 calls;
 * THREADS (default 1) runs that many threads, each making N calls at RATE.
 * Built -O2 -no-pie: bench_fn's ELF address is its uprobe address.
 *
 * --lseek: the tracepoint scenario's loop instead, N calls of
 * lseek(fd of /dev/null, i & 0xffff, SEEK_SET) (syscalls/sys_enter_lseek;
 * the offset varies so that a histogram of it spreads over 17 buckets;
 * on /dev/null lseek does next to nothing), timed and printed the same way.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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

static int lseek_loop(uint64_t n)
{
	int fd = open("/dev/null", O_RDONLY);
	uint64_t i, t0, elapsed;
	off_t sum = 0;

	if (fd < 0) {
		perror("workload: /dev/null");
		return 1;
	}
	t0 = now_ns();
	for (i = 0; i < n; i++)
		sum += lseek(fd, (off_t)(i & 0xffff), SEEK_SET);
	elapsed = now_ns() - t0;
	close(fd);
	printf("calls=%llu ns_per_call=%.2f elapsed_ns=%llu rate=%.0f\n", (unsigned long long)n,
	       n ? (double)elapsed / (double)n : 0.0, (unsigned long long)elapsed,
	       elapsed ? (double)n * 1e9 / (double)elapsed : 0.0);
	return sum == -42 ? 3 : 0; /* sum is used */
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
