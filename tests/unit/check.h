/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A tiny header-only test harness. CHECK() counts instead of aborting so one
 * run reports every broken row; check_report() prints the tally as the last
 * line, which is what scripts look at, and gives the exit status.
 *
 * Each test program includes this once: the counters are per program.
 */
#ifndef KPT_CHECK_H
#define KPT_CHECK_H

#include <stdio.h>
#include <string.h>

static int check_passed;
static int check_failed;

/* CHECK(cond, fmt, ...): fmt and its arguments describe the failing case. */
#define CHECK(cond, ...)						\
	do {								\
		if (cond) {						\
			check_passed++;					\
		} else {						\
			check_failed++;					\
			fprintf(stderr, "%s:%d: CHECK(%s) failed: ",	\
				__FILE__, __LINE__, #cond);		\
			fprintf(stderr, __VA_ARGS__);			\
			fputc('\n', stderr);				\
		}							\
	} while (0)

/* CHECK_INT/CHECK_STR(got, want, ctx): ctx (a string) names the case. */
#define CHECK_INT(got, want, ctx)					\
	do {								\
		long long check_g_ = (got), check_w_ = (want);		\
		CHECK(check_g_ == check_w_, "got %lld, want %lld in %s", \
		      check_g_, check_w_, (ctx));			\
	} while (0)

#define CHECK_STR(got, want, ctx)					\
	do {								\
		const char *check_g_ = (got), *check_w_ = (want);	\
		CHECK(check_g_ && check_w_ && !strcmp(check_g_, check_w_), \
		      "\n   got  \"%s\"\n   want \"%s\"\n   in   %s",	\
		      check_g_ ? check_g_ : "(null)",			\
		      check_w_ ? check_w_ : "(null)", (ctx));		\
	} while (0)

/* Prints "N passed, N failed" alone on the last line; non-zero on failure. */
static inline int check_report(void)
{
	fflush(stderr);
	printf("%d passed, %d failed\n", check_passed, check_failed);
	fflush(stdout);
	return check_failed ? 1 : 0;
}

#endif /* KPT_CHECK_H */
