// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * kptrace why's workload (tests/vm/why-guest.sh): system calls that fail
 * deep inside the kernel, at a function known from the kernel's source.
 *   why_target array: bpf(BPF_MAP_CREATE) of an array map with an 8-byte
 *     key, which kernel/bpf/arraymap.c's array_map_alloc_check() refuses
 *     (-EINVAL): an array's key is a u32;
 *   why_target good: the same map with a 4-byte key, created (no error);
 *   why_target open: two openat(2)s of paths that do not exist (-ENOENT),
 *     one from AT_FDCWD, one from a directory's descriptor: the root's
 *     arguments known to the caller;
 *   why_target loop N: N of array's failing calls, 2 ms apart, then how
 *     many failed and the seconds they took (CLOCK_MONOTONIC).
 *   why_target etn N: N pwrite(2)s of 4 bytes to /dev/etn (the tests'
 *     module), a system call nothing else of the process makes.
 * Prints each call's arguments and result, as the kernel returned it.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long map_create_quiet(unsigned int key_size)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.map_type = BPF_MAP_TYPE_ARRAY;
	attr.key_size = key_size;
	attr.value_size = 4;
	attr.max_entries = 1;
	return syscall(SYS_bpf, BPF_MAP_CREATE, &attr, sizeof(attr));
}

static long map_create(unsigned int key_size)
{
	long r = map_create_quiet(key_size);

	printf("bpf(BPF_MAP_CREATE, key_size %u) = %ld%s%s\n", key_size, r < 0 ? -errno : r,
	       r < 0 ? " " : "", r < 0 ? strerror(errno) : "");
	if (r >= 0)
		close((int)r);
	return r;
}

static void open_at(int dfd, const char *path, int flags)
{
	long r = syscall(SYS_openat, dfd, path, flags);

	printf("openat(%d, \"%s\", 0x%x) = %ld\n", dfd, path, flags, r < 0 ? -errno : r);
	if (r >= 0)
		close((int)r);
}

int main(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "array";
	int dir;

	if (!strcmp(what, "loop") && argc > 2) {
		struct timespec a, b, nap = { 0, 2000000 };
		int n = atoi(argv[2]), failed = 0, i;

		clock_gettime(CLOCK_MONOTONIC, &a);
		for (i = 0; i < n; i++) {
			failed += map_create_quiet(8) < 0;
			nanosleep(&nap, NULL);
		}
		clock_gettime(CLOCK_MONOTONIC, &b);
		printf("%d calls failed in %.3f s\n", failed,
		       (double)(b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9);
		return failed != n;
	}
	if (!strcmp(what, "etn") && argc > 2) {
		int n = atoi(argv[2]), fd = open("/dev/etn", O_WRONLY), i;

		for (i = 0; fd >= 0 && i < n; i++)
			if (pwrite(fd, "etn!", 4, 4 * i) != 4)
				return 1;
		return fd < 0;
	}
	if (!strcmp(what, "open")) {
		dir = open("/tmp", O_RDONLY | O_DIRECTORY);
		if (dir < 0)
			return 1;
		open_at(AT_FDCWD, "/tmp/kpt-why-nope/a", O_RDONLY | O_CLOEXEC);
		open_at(dir, "kpt-why-nope/b", O_WRONLY | O_CREAT);
		return 0;
	}
	if (!strcmp(what, "good"))
		return map_create(4) < 0;
	return map_create(8) >= 0;
}
