/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Shared by the libFuzzer harnesses in tests/fuzz: an assertion that stays
 * on whatever the build flags (NDEBUG or not) and says which invariant
 * broke before aborting, so libFuzzer records the input as a crash.
 */
#ifndef KPT_FUZZ_COMMON_H
#define KPT_FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "%s:%d: invariant (%s) broken: ",	\
				__FILE__, __LINE__, #cond);		\
			fprintf(stderr, __VA_ARGS__);			\
			fputc('\n', stderr);				\
			abort();					\
		}							\
	} while (0)

/* A FILE that throws everything away, fully buffered: output code still runs. */
static inline FILE *fuzz_devnull(void)
{
	static FILE *f;

	if (!f) {
		f = fopen("/dev/null", "we");
		if (!f) {
			perror("/dev/null");
			exit(2);
		}
		setvbuf(f, NULL, _IOFBF, 1 << 16);
	}
	return f;
}

#endif /* KPT_FUZZ_COMMON_H */
