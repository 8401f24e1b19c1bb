// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer harness for kptrace diff's reader and everything after it
 * (src/diff/): the input is two --json files, A and B, apart at the first
 * NUL (B empty without one); its first byte picks the output (text, --json,
 * --svg). diff_main() runs on them as the command line would, its output and
 * diagnostics into memory. Besides what ASan, UBSan and LeakSanitizer see:
 *
 * - the exit status is diff(1)'s: 0, 1 or 2; 2 says why on the error
 *   stream;
 * - A against itself never differs (exit 0 or 2, never 1), whichever the
 *   output;
 * - --json output is lines of JSON objects, each one jansson accepts.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "diff/diff.h"
#include "fuzz_common.h"

static char path_a[64], path_b[64], path_svg[64];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	int a = memfd_create("a.json", 0), b = memfd_create("b.json", 0);
	int s = memfd_create("out.svg", 0);

	(void)argc;
	(void)argv;
	if (a < 0 || b < 0 || s < 0) {
		perror("memfd_create");
		exit(2);
	}
	snprintf(path_a, sizeof(path_a), "/proc/self/fd/%d", a);
	snprintf(path_b, sizeof(path_b), "/proc/self/fd/%d", b);
	snprintf(path_svg, sizeof(path_svg), "/proc/self/fd/%d", s);
	return 0;
}

static void put(const char *p, const uint8_t *data, size_t size)
{
	FILE *f = fopen(p, "w");

	if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f)) {
		perror(p);
		exit(2);
	}
}

/* diff_main on x and y with the mode's options; its output in *out (freed by the caller). */
static int run(int mode, const char *x, const char *y, char **out, char **err)
{
	char *argv[8] = { "diff" }, *o = NULL, *e = NULL;
	size_t ol = 0, el = 0;
	FILE *of = open_memstream(&o, &ol), *ef = open_memstream(&e, &el);
	int argc = 1, ret;

	if (!of || !ef)
		exit(2);
	if (mode == 1)
		argv[argc++] = "--json";
	if (mode == 2) {
		argv[argc++] = "--svg";
		argv[argc++] = path_svg;
	}
	argv[argc++] = (char *)x;
	argv[argc++] = (char *)y;
	ret = diff_main(argc, argv, of, ef);
	fclose(of);
	fclose(ef);
	FUZZ_CHECK(ret >= 0 && ret <= 2, "exit %d", ret);
	FUZZ_CHECK(ret != 2 || el > 0, "exit 2 with nothing said");
	*out = o;
	*err = e;
	return ret;
}

static void check_json(const char *o)
{
	const char *p = o, *nl;
	json_error_t je;
	json_t *j;

	for (; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		FUZZ_CHECK(nl, "--json output without its last newline");
		j = json_loadb(p, nl - p, 0, &je);
		FUZZ_CHECK(j && json_is_object(j), "--json line not an object (%s): %.200s",
			   je.text, p);
		json_decref(j);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul;
	size_t na;
	char *o, *e;
	int mode, ra;

	if (!size)
		return 0;
	mode = data[0] % 3;
	data++;
	size--;
	nul = memchr(data, 0, size);
	na = nul ? (size_t)(nul - data) : size;
	put(path_a, data, na);
	put(path_b, nul ? nul + 1 : data, nul ? size - na - 1 : 0);

	ra = run(mode, path_a, path_b, &o, &e);
	if (mode == 1 && ra != 2)
		check_json(o);
	free(o);
	free(e);

	/* A against itself: the same file never differs */
	ra = run(mode, path_a, path_a, &o, &e);
	FUZZ_CHECK(ra != 1, "A differs from itself: %.300s", o);
	free(o);
	free(e);
	return 0;
}
