// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tests/host/everyday.sh's program: known values for count --sum and the
 * like, known reads for a sum of bytes, known sleeps between a syscall's
 * entry and exit.
 *   values: ev_val(tag, v): tag 1 with 1..100, tag 2 with -5..5, tag 3 ten
 *           times 1000
 *   reads:  7 reads of 4096 bytes and 3 of 100 from /dev/zero
 *   sleeps: 5 nanosleeps of 2 ms and 5 of 20 ms; prints each one's time
 *           as the program measured it around the call, in ns
 *   pairs:  ev_begin(id)/ev_end(id) interleaved: 1 and 2 open at once
 *           (20 ms and 15 ms), an end of 99 with no begin, 5 begun twice
 *   strs:   ev_str(s, n): "alpha" 3 times (n 1), "beta" 5 times (n 10),
 *           strings of 16, 20 and 32 characters once (n their length), ""
 *           once, and two strings of 80 characters that share their first
 *           70, twice each (n 100)
 *   opens:  3 opens of a path that does not exist, 2 of /dev/zero
 */
#include <fcntl.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

__attribute__((noinline)) long ev_val(int tag, long v)
{
	asm volatile("" ::: "memory");
	return tag + v;
}

__attribute__((noinline)) long ev_str(const char *s, long n)
{
	asm volatile("" ::: "memory");
	return s[0] + n;
}

__attribute__((noinline)) void ev_begin(unsigned long id)
{
	asm volatile("" ::: "memory");
	(void)id;
}

__attribute__((noinline)) void ev_end(unsigned long id)
{
	asm volatile("" ::: "memory");
	(void)id;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void nap(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

static void sleeps(void)
{
	int i;

	for (i = 0; i < 10; i++) {
		double t0 = now_ns();

		nap(i < 5 ? 2 : 20);
		printf("%.0f\n", now_ns() - t0);
	}
}

static void pairs(void)
{
	ev_begin(1);
	nap(10);
	ev_begin(2);
	nap(10);
	ev_end(1);
	nap(5);
	ev_end(2);
	ev_end(99);
	ev_begin(5);
	ev_begin(5);
	nap(1);
	ev_end(5);
}

static void values(void)
{
	long i;

	for (i = 1; i <= 100; i++)
		ev_val(1, i);
	for (i = -5; i <= 5; i++)
		ev_val(2, i);
	for (i = 0; i < 10; i++)
		ev_val(3, 1000);
}

static int reads(void)
{
	static char buf[4096];
	int fd = open("/dev/zero", O_RDONLY), i;

	if (fd < 0)
		return 1;
	for (i = 0; i < 7; i++)
		if (read(fd, buf, 4096) != 4096)
			return 1;
	for (i = 0; i < 3; i++)
		if (read(fd, buf, 100) != 100)
			return 1;
	close(fd);
	return 0;
}

static void strs(void)
{
	char a[81], b[81];
	int i;

	memset(a, 'x', 80);
	memcpy(b, a, 80);
	a[80] = b[80] = 0;
	a[75] = 'a';
	b[75] = 'b';
	for (i = 0; i < 3; i++)
		ev_str("alpha", 1);
	for (i = 0; i < 5; i++)
		ev_str("beta", 10);
	/* lengths whose bits a wrong mask would clear: 16, 20, 32 */
	ev_str("sixteen-chars-xx", 16);
	ev_str("twenty-characters-xx", 20);
	ev_str("thirty-two-characters-long-xxxx", 32);
	ev_str("", 0);
	for (i = 0; i < 2; i++) {
		ev_str(a, 100);
		ev_str(b, 100);
	}
}

static int opens(void)
{
	int i, fd;

	for (i = 0; i < 3; i++)
		if (open("/nonexistent/kptrace-everyday", O_RDONLY) >= 0)
			return 1;
	for (i = 0; i < 2; i++) {
		fd = open("/dev/zero", O_RDONLY);
		if (fd < 0)
			return 1;
		close(fd);
	}
	return 0;
}

/* A few microseconds of work, returning its tag. */
__attribute__((noinline)) int ev_spin(int tag)
{
	volatile int s = 0;

	for (int i = 0; i < 200; i++)
		s += i ^ tag;
	return tag;
}

/* hot SECONDS: ev_spin(i % 8) as fast as it goes, for kptrace to attach
 * and detach while calls are in flight */
static void hot(int secs)
{
	time_t end = time(NULL) + secs;
	unsigned long i = 0;

	while (time(NULL) < end)
		ev_spin((int)(i++ & 7));
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "values";

	if (!strcmp(what, "values"))
		values();
	else if (!strcmp(what, "reads"))
		return reads();
	else if (!strcmp(what, "sleeps"))
		sleeps();
	else if (!strcmp(what, "pairs"))
		pairs();
	else if (!strcmp(what, "strs"))
		strs();
	else if (!strcmp(what, "opens"))
		return opens();
	else if (!strcmp(what, "hot"))
		hot(argc > 2 ? atoi(argv[2]) : 3);
	return 0;
}
