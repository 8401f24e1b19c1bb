// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* tests/host/lazytab.sh's library, built -O2 -fomit-frame-pointer and
 * loaded by lazytab_dl.c with dlopen(): uwl_outer -> uwl_nap (10 ms). */
#include <time.h>

__attribute__((noinline)) int uwl_nap(int x)
{
	struct timespec t = { 0, 10000000 };

	nanosleep(&t, NULL);
	return x;
}

__attribute__((noinline)) int uwl_outer(int x)
{
	return uwl_nap(x) + 1;
}
