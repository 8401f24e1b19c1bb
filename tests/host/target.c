// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The workload the host tests probe with uprobes: functions with every
 * argument width, more arguments than registers, struct pointers, strings
 * and return values, called with fixed values so the expected lines are
 * known. Built -O0 -fno-inline, no PIE: the probed addresses are the ELF's.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define PROBED __attribute__((noinline, used))

struct kpt_obj {
	int32_t id;			/* +0 */
	char name[12];			/* +4 */
	const char *path;		/* +16 */
	uint32_t flags;			/* +24: bits 0-3 mode, 4-11 level, 12-31 rest */
	uint16_t arr[4];		/* +28 */
	const char *strs[3];		/* +40 */
	struct kpt_obj *next;		/* +64 */
};

PROBED int64_t kpt_args6(int8_t a, uint16_t b, int32_t c, uint64_t d, int64_t e, char f)
{
	return a + b + c + (int64_t)d + e + f;
}

PROBED long kpt_args8(long a1, long a2, long a3, long a4, long a5, long a6, long a7, long a8)
{
	return a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8;
}

PROBED int kpt_struct(const struct kpt_obj *o)
{
	return o ? o->id : -1;
}

PROBED const char *kpt_str(const char *s)
{
	return s;
}

PROBED int kpt_neg(int v)
{
	return -v;
}

/* Histogram and count workloads: one call per value. */
PROBED uint64_t kpt_size(uint64_t n, const char *tag)
{
	return n + (tag ? tag[0] : 0);
}

/* Latency workload: sleeps usec; recursion to depth levels nests calls. */
PROBED long kpt_sleep(long usec, int depth)
{
	struct timespec ts = { usec / 1000000, (usec % 1000000) * 1000 };

	if (depth > 0)
		return kpt_sleep(usec, depth - 1) + 1;
	nanosleep(&ts, NULL);
	return 0;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/*
 * "dist": sizes 0..999 tagged "small"/"big" and 3 x 7; "seek": the same
 * values as lseek(2) offsets; "prio": the same as getpriority(2)'s who
 * (syscalls/sys_enter_getpriority); "sleep": 30 sleeps of
 * 1, 2 and 4 ms (each duration printed, as the reference for percentiles);
 * "recurse": 5 calls nested 3 deep, 1 ms at the bottom; "signal": 1003
 * ignored real-time signals to itself (signal/signal_generate: sig 34..43,
 * code SI_USER 0, SI_QUEUE -1 or SI_TKILL -6 in turn, its pid); "exec N":
 * execs itself N times over (sched/sched_process_exec, one pid). Any of
 * them with a last argument "pid" prints "target pid N" on stderr first.
 */
static int workloads(const char *mode)
{
	static const long us[] = { 1000, 2000, 4000 };
	double t0;
	int i;

	if (!strcmp(mode, "dist")) {
		for (i = 0; i < 1000; i++)
			kpt_size(i, i < 500 ? "small" : "big");
		for (i = 0; i < 3; i++)
			kpt_size(7, "seven");
		return 0;
	}
	if (!strcmp(mode, "seek")) {
		/* lseek(2) to offsets 0..999 and 3 x 7: the syscalls/sys_enter_lseek
		 * tracepoint's "offset" field */
		int fd = open("/dev/null", O_RDONLY);

		for (i = 0; i < 1003 && fd >= 0; i++)
			lseek(fd, i < 1000 ? i : 7, SEEK_SET);
		return fd >= 0 ? close(fd) : 1;
	}
	if (!strcmp(mode, "prio")) {
		/* getpriority(2) of "who" 0..999 and 3 x 7, a system call no
		 * other process makes in a loop: syscalls/sys_enter_getpriority's
		 * hits are this workload's alone, its "who" the values */
		for (i = 0; i < 1003; i++)
			getpriority(PRIO_PROCESS, i < 1000 ? i : 7);
		return 0;
	}
	if (!strcmp(mode, "signal")) {
		union sigval sv = { 0 };

		for (i = 0; i < 10; i++)
			signal(SIGRTMIN + i, SIG_IGN);
		for (i = 0; i < 1003; i++) {
			int sig = SIGRTMIN + i % 10;

			if (i % 3 == 0)
				kill(getpid(), sig);
			else if (i % 3 == 1)
				sigqueue(getpid(), sig, sv);
			else
				raise(sig);	/* tgkill */
		}
		return 0;
	}
	if (!strcmp(mode, "sleep")) {
		for (i = 0; i < 30; i++) {
			t0 = now_ns();
			kpt_sleep(us[i % 3], 0);
			printf("%.0f\n", now_ns() - t0);
		}
		return 0;
	}
	if (!strcmp(mode, "steady")) {
		/* 300000 calls of kpt_neg, 100 each millisecond or so, over 3 s and more */
		for (i = 0; i < 3000; i++) {
			for (int j = 0; j < 100; j++)
				kpt_neg(j);
			usleep(1000);
		}
		return 0;
	}
	if (!strcmp(mode, "spin")) {
		/* a long-lived process for -t and --cgroup: until killed */
		for (;;) {
			kpt_neg(1);
			usleep(1000);
		}
	}
	if (!strcmp(mode, "recurse")) {
		for (i = 0; i < 5; i++)
			kpt_sleep(1000, 3);
		return 0;
	}
	return -1;
}

/* Read through uprobe_events' @+OFFSET: file offset of this constant. */
const char kpt_magic[] = "kpt-magic-string";
static char big[5000];
static volatile size_t sink;

int main(int argc, char **argv)
{
	static struct kpt_obj inner = { .id = 7, .name = "inner", .path = "/inner" };
	struct kpt_obj o = {
		.id = 42,
		.name = "obj-name",
		.path = "/etc/hostname",
		.flags = 0xabcde5a3,	/* mode 3, level 0x5a */
		.arr = { 1, 2, 65535, 4 },
		.strs = { "zero", "one", "" },
		.next = &inner,
	};
	int rounds;

	/* "... pid": the tests' reference for the pid and tid kptrace reports
	 * (a key, a filter), on stderr: stdout may be a workload's output */
	if (argc > 2 && !strcmp(argv[argc - 1], "pid"))
		fprintf(stderr, "target pid %d\n", (int)getpid());
	if (argc > 2 && !strcmp(argv[1], "exec")) {
		char n[16];

		if (atoi(argv[2]) <= 0) {
			fprintf(stderr, "exec chain pid %d\n", (int)getpid());
			return 0;
		}
		snprintf(n, sizeof(n), "%d", atoi(argv[2]) - 1);
		execl("/proc/self/exe", argv[0], "exec", n, (char *)NULL);
		return 1;
	}
	if (argc > 1 && !workloads(argv[1]))
		return 0;
	rounds = argc > 1 ? atoi(argv[1]) : 1;
	/* "clean": no NULL pointers, for comparisons with the kernel's tracer,
	 * which prints stale bytes where a scalar read faults. */
	int nulls = !(argc > 2 && !strcmp(argv[2], "clean"));
	int i;

	memset(big, 'x', sizeof(big) - 1);
	/* Touch every string first: uprobe reads cannot fault pages in, and
	 * the reference tracer and kptrace must both find them resident. */
	sink = strlen(o.path) + strlen(inner.path) + strlen(o.strs[0]) + strlen(o.strs[1]) +
	       strlen("hello world") + strlen(kpt_magic);
	for (i = 0; i < rounds; i++) {
		kpt_args6(-5, 65535, -2000000000, 0xfedcba9876543210ULL, -1, 'K');
		kpt_args8(1, 2, 3, 4, 5, 6, 7, 8);
		kpt_struct(&o);
		if (nulls)
			kpt_struct(NULL);
		kpt_str("hello world");
		kpt_str("");
		kpt_str(big);
		kpt_neg(12345);
	}
	/* "linger": stay alive a moment, as a traced daemon would, so its
	 * mappings can still be read when the events are printed. */
	if (argc > 3 && !strcmp(argv[3], "linger"))
		usleep(500 * 1000);
	return 0;
}
