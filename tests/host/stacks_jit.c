// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tests/host/stacks.sh's JIT: main calls, N times, code it wrote into an
 * anonymous executable mapping ("jitted_fn": push %rbp; mov %rsp,%rbp;
 * movabs $jit_target,%rax; call *%rax; pop %rbp; ret), which calls
 * jit_target (the probed function). It names that code in
 * /tmp/perf-PID.map, as a JIT does for perf, unless given "nomap".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

__attribute__((noinline)) int jit_target(int x)
{
	asm volatile("" ::: "memory");
	return x + 1;
}

int main(int argc, char **argv)
{
	unsigned char code[] = { 0x55, 0x48, 0x89, 0xe5, 0x48, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0,
				 0xff, 0xd0, 0x5d, 0xc3 };
	int n = argc > 1 ? atoi(argv[1]) : 1, i;
	int (*target)(int) = jit_target, (*fn)(int);
	volatile int s = 0;
	char path[64];
	void *p;
	FILE *f;

	memcpy(code + 6, &target, sizeof(target));
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	if (p == MAP_FAILED)
		return 1;
	memcpy(p, code, sizeof(code));
	if (!(argc > 2 && !strcmp(argv[2], "nomap"))) {
		snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
		f = fopen(path, "w");
		if (!f)
			return 1;
		fprintf(f, "%lx %zx jitted_fn\n", (unsigned long)p, sizeof(code));
		fclose(f);
	}
	fn = (int (*)(int))p;
	for (i = 0; i < n; i++)
		s += fn(i);
	return 0;
}
