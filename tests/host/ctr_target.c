// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A container's workload of known counts (tests/host/containers.sh): round
 * after round, waits for SYNC/goR, then calls ctr_work() N times, each one
 * getppid(), and writes SYNC/doneR; killed at the end. Built static: it is
 * the only file of the container's image, found at its path in there.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

volatile long ctr_sink;

__attribute__((noinline)) void ctr_work(int i)
{
	ctr_sink += getppid() + i;
}

__attribute__((noinline)) void ctr_outer(int n)
{
	for (int i = 0; i < n; i++)
		ctr_work(i);
}

int main(int argc, char **argv)
{
	char go[256], done[256];
	FILE *f;

	if (argc != 3)
		return 2;
	for (int r = 1;; r++) {
		snprintf(go, sizeof(go), "%s/go%d", argv[1], r);
		snprintf(done, sizeof(done), "%s/done%d", argv[1], r);
		while (access(go, F_OK))
			usleep(20000);
		ctr_outer(atoi(argv[2]));
		f = fopen(done, "w");
		if (f)
			fclose(f);
	}
}
