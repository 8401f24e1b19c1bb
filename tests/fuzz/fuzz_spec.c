// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer harness for src/lang/spec.c: spec_parse() on arbitrary bytes (a
 * NUL-terminated copy: the definition is a C string), then spec_print_error()
 * and spec_free(). Besides what ASan, UBSan and LeakSanitizer see, every
 * result is checked against what spec.h promises:
 *
 * - the return is 0, -EINVAL or -ENOMEM;
 * - an error has a code of the table and a column in [0, strlen + 1] (one
 *   past the end is ftrace's "after the last argument" caret), and leaves
 *   nothing behind in *out;
 * - a probe has at most 128 arguments, each with 1..SPEC_MAX_OPS ops (the
 *   base first, then only dereferences), a unique NUL-terminated name, a
 *   known type, sane array and bitfield numbers; names, groups and events
 *   are NUL-terminated C identifiers; columns are inside the text; the
 *   filter is the text's tail from filter_col.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/spec.h"
#include "fuzz_common.h"

static bool is_ident(const char *s, size_t max)
{
	size_t i, n = strnlen(s, max);

	if (n == 0 || n >= max)
		return false;
	if (!((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z') || s[0] == '_'))
		return false;
	for (i = 1; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return false;
	return true;
}

static bool terminated(const char *s, size_t max)
{
	return strnlen(s, max) < max;
}

static void check_arg(const struct spec_probe *p, int i, size_t len)
{
	const struct spec_arg *a = &p->args[i];
	int j;

	if (a->btf & SPEC_BTF_ALL) {
		/* "$arg*": a placeholder btfarg.c expands from BTF, once per probe */
		FUZZ_CHECK(!strcmp(a->name, "$arg*") && !a->nops && a->text &&
			   !strcmp(a->text, "$arg*"), "arg %d: a bad $arg* placeholder", i);
		for (j = 0; j < i; j++)
			FUZZ_CHECK(!(p->args[j].btf & SPEC_BTF_ALL), "two $arg* (%d, %d)", j, i);
		return;
	}
	FUZZ_CHECK(is_ident(a->name, sizeof(a->name)), "arg %d name not an identifier", i);
	for (j = 0; j < i; j++)
		FUZZ_CHECK(strcmp(a->name, p->args[j].name), "args %d and %d both named %s", j, i,
			   a->name);
	FUZZ_CHECK(a->text, "arg %d without text", i);
	FUZZ_CHECK(a->col >= 0 && (size_t)a->col < len, "arg %d col %d, len %zu", i, a->col, len);
	FUZZ_CHECK(a->body_col >= a->col && (size_t)a->body_col < len, "arg %d body_col %d", i,
		   a->body_col);
	FUZZ_CHECK(!strncmp(p->text + a->col, a->text, strlen(a->text)),
		   "arg %d text \"%s\" is not the text at its column", i, a->text);
	FUZZ_CHECK(a->type > SPEC_T_NONE && a->type < SPEC_T__COUNT, "arg %d type %d", i, a->type);
	FUZZ_CHECK(a->count <= 64, "arg %d count %u", i, a->count);
	if (a->bf_width) {
		FUZZ_CHECK(a->bf_container == 8 || a->bf_container == 16 || a->bf_container == 32 ||
			   a->bf_container == 64, "arg %d container %u", i, a->bf_container);
		FUZZ_CHECK(a->bf_offset + a->bf_width <= a->bf_container,
			   "arg %d bitfield %u@%u/%u", i, a->bf_width, a->bf_offset,
			   a->bf_container);
	} else {
		FUZZ_CHECK(!a->bf_offset && !a->bf_container, "arg %d bitfield without width", i);
	}
	FUZZ_CHECK(a->nops >= 1 && a->nops <= SPEC_MAX_OPS, "arg %d has %d ops", i, a->nops);
	for (j = 0; j < a->nops; j++) {
		const struct spec_op *op = &a->ops[j];

		FUZZ_CHECK(op->kind >= SPEC_OP_REG && op->kind <= SPEC_OP_EDATA &&
			   (op->kind != SPEC_OP_BTFVAR || (a->btf & SPEC_BTF_DEFER)),
			   "arg %d op %d kind %d", i, j, op->kind);
		FUZZ_CHECK(op->col >= 0 && (size_t)op->col < len, "arg %d op %d col %d", i, j,
			   op->col);
		FUZZ_CHECK(terminated(op->reg, sizeof(op->reg)), "arg %d op %d reg", i, j);
		if (op->kind == SPEC_OP_REG)
			FUZZ_CHECK(op->reg[0], "arg %d op %d: empty register", i, j);
		if (op->kind == SPEC_OP_SYMBOL || op->kind == SPEC_OP_TPFIELD ||
		    op->kind == SPEC_OP_BTFVAR)
			FUZZ_CHECK(op->sym, "arg %d op %d without sym", i, j);
		else
			FUZZ_CHECK(!op->sym, "arg %d op %d: stray sym", i, j);
		if (op->kind == SPEC_OP_DATA)
			FUZZ_CHECK(op->data, "arg %d op %d without data", i, j);
		else
			FUZZ_CHECK(!op->data, "arg %d op %d: stray data", i, j);
		/* ops[0] is the base, then dereferences innermost first */
		if (j == 0)
			FUZZ_CHECK(op->kind != SPEC_OP_DEREF && op->kind != SPEC_OP_UDEREF,
				   "arg %d: a dereference as base", i);
		else
			FUZZ_CHECK(op->kind == SPEC_OP_DEREF || op->kind == SPEC_OP_UDEREF,
				   "arg %d op %d: kind %d after the base", i, j, op->kind);
	}
}

static void check_probe(const struct spec_probe *p, const char *text, size_t len)
{
	int i;

	FUZZ_CHECK(p->text && !strcmp(p->text, text), "text not kept as given");
	FUZZ_CHECK(p->kind >= SPEC_KPROBE && p->kind <= SPEC_PROFILE, "kind %d", p->kind);
	FUZZ_CHECK(terminated(p->group, sizeof(p->group)) && terminated(p->event, sizeof(p->event)) &&
		   terminated(p->module, sizeof(p->module)) &&
		   terminated(p->tp_system, sizeof(p->tp_system)) &&
		   terminated(p->tp_event, sizeof(p->tp_event)), "unterminated name");
	FUZZ_CHECK(is_ident(p->event, sizeof(p->event)), "event \"%s\" not an identifier",
		   p->event);
	if (p->kind != SPEC_REMOVE || p->group[0])
		FUZZ_CHECK(is_ident(p->group, sizeof(p->group)), "group \"%s\" not an identifier",
			   p->group);
	FUZZ_CHECK(p->maxactive >= 0 && p->maxactive <= 4096, "maxactive %d", p->maxactive);
	FUZZ_CHECK(!p->maxactive || p->kind == SPEC_KRETPROBE, "maxactive on kind %d", p->kind);
	switch (p->kind) {
	case SPEC_KPROBE:
	case SPEC_KRETPROBE:
		FUZZ_CHECK(!p->path && !p->usym, "kprobe with a uprobe target");
		FUZZ_CHECK(!p->symbol || p->symbol[0], "empty symbol");
		break;
	case SPEC_UPROBE:
	case SPEC_URETPROBE:
		FUZZ_CHECK(p->path && p->path[0] && !p->symbol && !p->module[0],
			   "uprobe without a path, or with a kprobe target");
		FUZZ_CHECK(!p->usym || p->usym[0], "empty uprobe symbol");
		break;
	case SPEC_TRACEPOINT:
		/* a glob's SUBSYS/EVENT are globs (prepare.c expands them) */
		FUZZ_CHECK(p->glob ? p->tp_system[0] && p->tp_event[0] :
			   is_ident(p->tp_system, sizeof(p->tp_system)) &&
			   is_ident(p->tp_event, sizeof(p->tp_event)), "tracepoint name");
		FUZZ_CHECK(!p->path && !p->symbol, "tracepoint with a probe target");
		break;
	case SPEC_REMOVE:
		FUZZ_CHECK(!p->nargs && !p->filter && !p->path && !p->symbol, "removal with more");
		break;
	case SPEC_PROFILE:
		FUZZ_CHECK(!p->nargs && !p->path && !p->symbol && p->hz >= 1 && p->hz <= 10000,
			   "profile with arguments, a target or a rate of %u", p->hz);
		break;
	}
	if (p->kind != SPEC_REMOVE)
		FUZZ_CHECK(p->target_col >= 0 && (size_t)p->target_col < len, "target_col %d",
			   p->target_col);
	FUZZ_CHECK(p->nargs >= 0 && p->nargs <= 128, "nargs %d", p->nargs);
	FUZZ_CHECK(!p->nargs || p->args, "nargs %d without args", p->nargs);
	for (i = 0; i < p->nargs; i++)
		check_arg(p, i, len);
	if (p->filter) {
		FUZZ_CHECK(p->filter_col > 0 && (size_t)p->filter_col < len, "filter_col %d",
			   p->filter_col);
		FUZZ_CHECK(!strcmp(p->filter, text + p->filter_col),
			   "filter \"%s\" is not the text from filter_col %d", p->filter,
			   p->filter_col);
		FUZZ_CHECK(p->filter[0] != ' ' && p->filter[0] != '\t', "filter starts blank");
	} else {
		FUZZ_CHECK(!p->filter_col, "filter_col %d without a filter", p->filter_col);
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_devnull();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct spec_error err = { .code = SPEC_ERR__COUNT, .col = -12345 };
	struct spec_probe p;
	char *text;
	size_t len;
	int ret;

	/* exactly sized: ASan sees any read past the terminator */
	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	len = strlen(text);

	ret = spec_parse(text, &p, &err);
	FUZZ_CHECK(ret == 0 || ret == -EINVAL || ret == -ENOMEM, "returned %d", ret);
	if (ret == 0) {
		FUZZ_CHECK(err.code == SPEC_ERR_OK, "success with error %d", err.code);
		check_probe(&p, text, len);
	} else {
		FUZZ_CHECK(!p.text && !p.args && !p.nargs && !p.symbol && !p.path && !p.usym &&
			   !p.filter, "a failed parse left something in *out");
		if (ret == -EINVAL) {
			FUZZ_CHECK(err.code > SPEC_ERR_OK && err.code < SPEC_ERR__COUNT,
				   "error code %d", err.code);
			FUZZ_CHECK(err.col >= 0 && (size_t)err.col <= len + 1,
				   "error column %d outside [0, %zu] (%s)", err.col, len + 1,
				   spec_strerror(err.code));
		}
		spec_print_error(fuzz_devnull(), text, spec_strerror(err.code), err.col);
	}
	spec_free(&p);
	FUZZ_CHECK(!p.text && !p.args && !p.nargs, "spec_free left something");
	spec_free(&p);	/* twice is harmless */
	free(text);
	return 0;
}
