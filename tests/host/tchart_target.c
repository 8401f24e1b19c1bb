// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tests/host/tchart.sh's workload, of known shape: spin 300 ms of CPU, sleep
 * 200 ms, read FILE with O_DIRECT (the page cache bypassed: the block layer
 * and uninterruptible waits), then fork two children that each spin 300 ms
 * of CPU in parallel, and wait for them. Each phase's own measure (wall and
 * CPU time, from the kernel's clocks) is printed for the test to hold the
 * timechart to:
 *	phase NAME PID WALL_NS CPU_NS
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

static uint64_t now(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void phase(const char *name, uint64_t w0, uint64_t c0)
{
	printf("phase %s %d %llu %llu\n", name, getpid(),
	       (unsigned long long)(now(CLOCK_MONOTONIC) - w0),
	       (unsigned long long)(now(CLOCK_THREAD_CPUTIME_ID) - c0));
	fflush(stdout);
}

/* Spin until the thread has used ms of CPU: the same run time however loaded the machine. */
static void spin(uint64_t ms)
{
	uint64_t c0 = now(CLOCK_THREAD_CPUTIME_ID);
	volatile uint64_t x = 0;

	while (now(CLOCK_THREAD_CPUTIME_ID) - c0 < ms * 1000000ull)
		x++;
}

static int read_direct(const char *path)
{
	size_t sz = 1 << 20;
	void *buf;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_DIRECT);

	if (fd < 0 || posix_memalign(&buf, 4096, sz)) {
		perror(path);
		return -1;
	}
	while ((n = read(fd, buf, sz)) > 0)
		;
	free(buf);
	close(fd);
	return n < 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
	uint64_t w, c;
	pid_t kid[2];
	int i;

	if (argc != 2) {
		fprintf(stderr, "usage: %s FILE (read with O_DIRECT)\n", argv[0]);
		return 2;
	}
	w = now(CLOCK_MONOTONIC), c = now(CLOCK_THREAD_CPUTIME_ID);
	spin(300);
	phase("spin", w, c);
	w = now(CLOCK_MONOTONIC), c = now(CLOCK_THREAD_CPUTIME_ID);
	usleep(200000);
	phase("sleep", w, c);
	w = now(CLOCK_MONOTONIC), c = now(CLOCK_THREAD_CPUTIME_ID);
	if (read_direct(argv[1]))
		return 1;
	phase("read", w, c);
	w = now(CLOCK_MONOTONIC), c = now(CLOCK_THREAD_CPUTIME_ID);
	for (i = 0; i < 2; i++) {
		kid[i] = fork();
		if (kid[i] == 0) {
			uint64_t kw = now(CLOCK_MONOTONIC), kc = now(CLOCK_THREAD_CPUTIME_ID);

			spin(300);
			phase("child", kw, kc);
			_exit(0);
		}
	}
	for (i = 0; i < 2; i++)
		waitpid(kid[i], NULL, 0);
	phase("wait", w, c);
	return 0;
}
