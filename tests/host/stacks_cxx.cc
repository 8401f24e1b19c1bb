// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * tests/host/stacks.sh's C++ program: main -> a Rust v0 name (mangled by
 * hand: gcc has no Rust) -> shop::checkout(char const*) ->
 * shop::checkout(int) -> shop::Cart::total(int) const, N times. Built as
 * stacks_target.c is: frame pointers, no inlining.
 */
#include <cstdlib>

namespace shop {
struct Cart {
	int n;
	int total(int k) const;
};

__attribute__((noinline)) int Cart::total(int k) const
{
	asm volatile("" ::: "memory");
	return n * k;
}

__attribute__((noinline)) int checkout(int n)
{
	Cart c{ n };
	return c.total(3) + 1;
}

__attribute__((noinline)) int checkout(const char *s)
{
	return checkout((int)s[0]) + 1;
}
} // namespace shop

/* mycrate::pay, as rustc's v0 scheme names it */
__attribute__((noinline)) int pay(const char *s) asm("_RNvCs1234_7mycrate3pay");
int pay(const char *s)
{
	return shop::checkout(s) + 1;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1, i;
	volatile long s = 0;

	for (i = 0; i < n; i++)
		s += pay("x");
	return 0;
}
