// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer harness for src/sys/usdt.c's argument specs: a USDT note's
 * argument text (bytes, NUL-terminated copy, as the note keeps it) parsed
 * one argument after another with usdt_arg_parse(), at most
 * USDT_MAX_ARGS. Besides what ASan, UBSan and LeakSanitizer see:
 *
 * - a parse returns 0 or -EINVAL; a refusal's message quotes the spec
 *   ("USDT argument '...'"), a parse moves past the argument and its
 *   blanks, inside the input;
 * - an argument has a size of 1, 2, 4 or 8, a kind, a register word's name
 *   for REG and MEM, a symbol (only "(%rip)"'s) inside the input;
 * - what usdt_arg_fetch() makes of it (a symbol resolved as usdt_read()
 *   would, at a displacement) is a fetch argument the definition parser
 *   takes: "p:e /bin/sh:0x1 x=FETCH:TYPE" parses, with the type's size.
 */
#include <elf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/spec.h"
#include "sys/usdt.h"
#include "fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

static void check_fetch(const struct usdt_arg *a)
{
	char fetch[96], def[160];
	struct spec_probe p;
	struct spec_error e;
	int err;

	usdt_arg_fetch(a, fetch, sizeof(fetch));
	snprintf(def, sizeof(def), "p:e /bin/sh:0x1 x=%s", fetch);
	err = spec_parse(def, &p, &e);
	FUZZ_CHECK(!err, "'%s' refused: %s at %d", def, spec_strerror(e.code), e.col);
	FUZZ_CHECK(p.nargs == 1 && spec_type_size(p.args[0].type) == a->size,
		   "'%s': %d args, size %d", def, p.nargs,
		   p.nargs ? (int)spec_type_size(p.args[0].type) : -1);
	spec_free(&p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), *q, msg[256];
	const char *end;
	struct usdt_arg a;
	int n, err;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	for (q = s, n = 0; *q && n < USDT_MAX_ARGS; n++, q = (char *)end) {
		msg[0] = '\0';
		/* both machines' syntax, by the input's length */
		err = usdt_arg_parse(size % 2 ? EM_AARCH64 : EM_X86_64, q, &end, &a, msg,
				     sizeof(msg));
		FUZZ_CHECK(err == 0 || err == -EINVAL, "return %d", err);
		if (err) {
			FUZZ_CHECK(!strncmp(msg, "USDT argument '", 15), "message '%s'", msg);
			break;
		}
		FUZZ_CHECK(end > q && end <= s + strlen(s), "end at %td of %zu", end - s, strlen(s));
		FUZZ_CHECK(a.size == 1 || a.size == 2 || a.size == 4 || a.size == 8, "size %u",
			   a.size);
		FUZZ_CHECK(a.kind >= USDT_ARG_REG && a.kind <= USDT_ARG_IMM, "kind %d", a.kind);
		FUZZ_CHECK(a.kind == USDT_ARG_IMM || a.reg[0], "no register");
		if (a.sym) {
			FUZZ_CHECK(a.kind == USDT_ARG_MEM && a.symlen && a.sym >= q &&
				   a.sym + a.symlen <= end, "symbol");
			/* usdt_read() makes it a displacement within 32 bits */
			a.sym = NULL;
			a.val = (int32_t)a.val;
		}
		check_fetch(&a);
	}
	free(s);
	return 0;
}
