// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tests/host/stop.sh's workload: system calls at rates known by
 * construction, paced by absolute deadlines on CLOCK_MONOTONIC every
 * millisecond (a late tick is made up at once, so any stretch of time
 * holds its share of calls to within a tick or two).
 *
 *   stop_target rates SECONDS
 *	each tick: getppid 3 times, getpgid once, and every 4th tick getsid,
 *	every 10th sched_get_priority_max: 3000, 1000, 250 and 100 a second
 *	(and the loop's own clock_nanosleep, 1000)
 *   stop_target signal FIFO K MS
 *	reads a pid from FIFO, makes K getppid at one a tick, sends that
 *	process SIGINT, then MS more ticks of getppid; prints how many it made
 *	before the signal
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

static struct timespec next_tick;

/* Sleep until the next millisecond's deadline (at once when late). */
static void tick(void)
{
	next_tick.tv_nsec += 1000000;
	if (next_tick.tv_nsec >= 1000000000) {
		next_tick.tv_nsec -= 1000000000;
		next_tick.tv_sec++;
	}
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next_tick, NULL) == EINTR)
		;
}

static void rates(long seconds)
{
	long t, ticks = seconds * 1000;

	clock_gettime(CLOCK_MONOTONIC, &next_tick);
	for (t = 0; t < ticks; t++) {
		syscall(SYS_getppid);
		syscall(SYS_getppid);
		syscall(SYS_getppid);
		syscall(SYS_getpgid, 0);
		if (t % 4 == 0)
			syscall(SYS_getsid, 0);
		if (t % 10 == 0)
			syscall(SYS_sched_get_priority_max, SCHED_OTHER);
		tick();
	}
}

static int signal_after(const char *fifo, long k, long ms)
{
	FILE *f = fopen(fifo, "r");
	long i, pid = 0;

	if (!f || fscanf(f, "%ld", &pid) != 1 || pid <= 0) {
		fprintf(stderr, "stop_target: no pid from %s\n", fifo);
		return 1;
	}
	fclose(f);
	clock_gettime(CLOCK_MONOTONIC, &next_tick);
	for (i = 0; i < k; i++) {
		syscall(SYS_getppid);
		tick();
	}
	if (kill((pid_t)pid, SIGINT)) {
		perror("stop_target: kill");
		return 1;
	}
	for (i = 0; i < ms; i++) {
		syscall(SYS_getppid);
		tick();
	}
	printf("%ld\n", k);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "rates")) {
		rates(atol(argv[2]));
		return 0;
	}
	if (argc == 5 && !strcmp(argv[1], "signal"))
		return signal_after(argv[2], atol(argv[3]), atol(argv[4]));
	fprintf(stderr, "usage: stop_target rates SECONDS | signal FIFO K MS\n");
	return 2;
}
