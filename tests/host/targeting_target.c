// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The workload of tests/host/targeting.sh: process trees, threads and
 * lifetimes whose marks are known. Each mark is one call of kpt_mark(v)
 * (a uprobe) and one lseek(4242, v, SEEK_SET) (syscalls/sys_enter_lseek,
 * fd 4242: no such file, nothing happens), so both probe kinds count them.
 *
 *   tree            mark 1; a child marks 2 and execs "leaf" (marks 3); the
 *                   child's child marks 6; NTHREADS threads of the first
 *                   process mark 4 each: 1, 2, 3, 6 once and 4 three times
 *   daemon GOFILE   mark 1, start a child and exit at once; the child waits
 *                   until GOFILE exists, marks 5 and exits
 *   spin            mark 7 every 10 ms in the main thread and two more,
 *                   until killed (prints its pid, then its threads' tids)
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#define PROBED __attribute__((noinline, used))
#define NTHREADS 3

PROBED int kpt_mark(int v)
{
	lseek(4242, v, SEEK_SET);
	return v;
}

static void nap_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

static void *mark_once(void *arg)
{
	kpt_mark((int)(long)arg);
	return NULL;
}

static void *mark_forever(void *arg)
{
	(void)arg;
	printf("tid %ld\n", (long)syscall(SYS_gettid));
	fflush(stdout);
	for (;;) {
		kpt_mark(7);
		nap_ms(10);
	}
	return NULL;
}

static int tree(const char *self)
{
	pthread_t t[NTHREADS];
	pid_t c;
	int i;

	kpt_mark(1);
	for (i = 0; i < NTHREADS; i++)
		pthread_create(&t[i], NULL, mark_once, (void *)4L);
	for (i = 0; i < NTHREADS; i++)
		pthread_join(t[i], NULL);
	c = fork();
	if (c == 0) {
		pid_t g;

		kpt_mark(2);
		g = fork();
		if (g == 0) {
			kpt_mark(6);
			_exit(0);
		}
		waitpid(g, NULL, 0);
		execl(self, self, "leaf", (char *)NULL);
		_exit(127);
	}
	waitpid(c, NULL, 0);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	if (!strcmp(mode, "tree"))
		return tree(argv[0]);
	if (!strcmp(mode, "leaf")) {
		kpt_mark(3);
		return 0;
	}
	if (!strcmp(mode, "daemon") && argc > 2) {
		kpt_mark(1);
		if (fork() == 0) {
			while (access(argv[2], F_OK))
				nap_ms(10);
			kpt_mark(5);
			_exit(0);
		}
		return 0;
	}
	if (!strcmp(mode, "spin")) {
		pthread_t t;

		printf("pid %d\n", (int)getpid());
		fflush(stdout);
		pthread_create(&t, NULL, mark_forever, NULL);
		pthread_create(&t, NULL, mark_forever, NULL);
		mark_forever(NULL);
	}
	fprintf(stderr, "usage: %s tree | daemon GOFILE | spin\n", argv[0]);
	return 2;
}
