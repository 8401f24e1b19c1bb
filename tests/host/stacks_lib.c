// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* libstacks.so for tests/host/stacks.sh: lib_outer -> lib_inner (probed). */
__attribute__((noinline)) int lib_inner(int x)
{
	asm volatile("" ::: "memory");
	return x * 2;
}

__attribute__((noinline)) int lib_outer(int x)
{
	return lib_inner(x) + 1;
}
