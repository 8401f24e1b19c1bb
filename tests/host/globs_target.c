// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The workload of tests/host/globs.sh: functions called a known number of
 * times, for globs over a uprobe's binary, and system calls made a known
 * number of times, for globs over tracepoints.
 *
 *	calls		glob_a1 x3, glob_a2 x5, glob_b x7; glob_ifunc (an IFUNC,
 *			whose symbol is its resolver) x2. __glob_a2 is an alias
 *			of glob_a2: one address, two names
 *	syscalls	getppid x7, lseek x3 (raw system calls: libc caches
 *			nothing of them)
 */
#define _GNU_SOURCE
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PROBED __attribute__((noinline, used))

static volatile int sink;

PROBED void glob_a1(void)
{
	sink++;
}

PROBED void glob_a2(void)
{
	sink += 2;
}

void __glob_a2(void) __attribute__((alias("glob_a2")));

PROBED void glob_b(void)
{
	sink += 3;
}

static void glob_ifunc_impl(void)
{
	sink += 4;
}

/* the resolver: what glob_ifunc's symbol names */
static void (*glob_ifunc_resolve(void))(void)
{
	return glob_ifunc_impl;
}

void glob_ifunc(void) __attribute__((ifunc("glob_ifunc_resolve")));

int main(int argc, char **argv)
{
	int i;

	if (argc > 1 && !strcmp(argv[1], "calls")) {
		for (i = 0; i < 3; i++)
			glob_a1();
		for (i = 0; i < 5; i++)
			glob_a2();
		for (i = 0; i < 7; i++)
			glob_b();
		for (i = 0; i < 2; i++)
			glob_ifunc();
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "syscalls")) {
		for (i = 0; i < 7; i++)
			syscall(SYS_getppid);
		for (i = 0; i < 3; i++)
			syscall(SYS_lseek, 0, 0, SEEK_CUR);
		return 0;
	}
	return 2;
}
