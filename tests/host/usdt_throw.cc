// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * For tests/host/usdt.sh: libstdc++'s USDT probes fired a known number of
 * times: 5 exceptions thrown and caught, then 2 caught and rethrown and
 * caught again: libstdcxx:throw 7 times, rethrow 2, catch 9.
 */
#include <cstdio>

static void __attribute__((noinline)) thrower(int i)
{
	throw i;
}

int main()
{
	int caught = 0;

	for (int i = 0; i < 5; i++) {
		try {
			thrower(i);
		} catch (int) {
			caught++;
		}
	}
	for (int i = 0; i < 2; i++) {
		try {
			try {
				thrower(i);
			} catch (...) {
				caught++;
				throw;
			}
		} catch (int) {
			caught++;
		}
	}
	printf("caught %d\n", caught);
	return 0;
}
