// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Event filters, both halves: src/prepare/filter.c's compiler, table-driven (good
 * filters -> the exact pre and post programs, bad ones -> message and
 * column), and bpf/filter.bpf.h's evaluator, compiled here in userspace and
 * run on records built the way the BPF side builds them: every operator,
 * width and signedness, faults, globs (against an independent reference
 * matcher on random patterns too), precedence and the pre/post split.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* open_memstream() */
#endif
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "prepare/filter.h"

#include "filter_userspace.h"
#include "ev_layout.h"

/* The fake probe: every kind of field, slots laid out as compile.c does. */
static struct ev_arg args[] = {
	{ .name = "u8v", .type = SPEC_T_U8, .size = 1 },	/* 0 */
	{ .name = "s32v", .type = SPEC_T_S32, .size = 4 },	/* 1 */
	{ .name = "u64v", .type = SPEC_T_U64, .size = 8 },	/* 2 */
	{ .name = "x32v", .type = SPEC_T_X32, .size = 4 },	/* 3 */
	{ .name = "path", .type = SPEC_T_STRING, .size = 4 },	/* 4 */
	{ .name = "ch", .type = SPEC_T_CHAR, .size = 1 },	/* 5 */
	{ .name = "s8v", .type = SPEC_T_S8, .size = 1 },	/* 6 */
	{ .name = "s16v", .type = SPEC_T_S16, .size = 2 },	/* 7 */
	{ .name = "u16v", .type = SPEC_T_U16, .size = 2 },	/* 8 */
	{ .name = "s64v", .type = SPEC_T_S64, .size = 8 },	/* 9 */
	{ .name = "u32v", .type = SPEC_T_U32, .size = 4 },	/* 10 */
	{ .name = "arr", .type = SPEC_T_U8, .size = 1, .count = 4 },	/* 11 */
	{ .name = "sym", .type = SPEC_T_SYMSTR, .size = 8 },	/* 12 */
	{ .name = "imm", .type = SPEC_T_STRING, .size = 4, .data = "hello" },	/* 13 */
	{ .name = "name", .type = SPEC_T_USTRING, .size = 4 },	/* 14 */
	{ .name = "x64v", .type = SPEC_T_X64, .size = 8 },	/* 15 */
	{ .name = "cm", .type = SPEC_T_STRING, .size = 4 },	/* 16 */
	{ .name = "bits", .type = SPEC_T_U8, .size = 1 },	/* 17: a bitfield prints as uN */
	{ .name = "addr", .type = SPEC_T_SYMBOL, .size = 8 },	/* 18 */
};
#define NARGS	((int)(sizeof(args) / sizeof(args[0])))

static struct ev_desc ev = { .event = "fake", .nargs = NARGS, .args = args };

/* Arguments named like the builtins hide them, as in the kernel. */
static struct ev_arg shadow_args[] = {
	{ .name = "pid", .type = SPEC_T_U32, .size = 4 },
	{ .name = "comm", .type = SPEC_T_STRING, .size = 4 },
	{ .name = "cpu", .type = SPEC_T_S16, .size = 2 },
};
static struct ev_desc shadow_ev = { .event = "shadow", .nargs = 3, .args = shadow_args };

/* ---- the compiler: programs in one line ---- */

static const char *cmp_name(unsigned int cmp)
{
	static const char *const n[] = {
		"?", "==", "!=", "<", "<=", ">", ">=", "&", "s==", "s!=", "~",
	};

	return cmp < sizeof(n) / sizeof(n[0]) ? n[cmp] : "?";
}

/*
 * "a0@67/1u == 5, comm@40/16 ~ #0"py*", and": each op with its field (aN a
 * scalar argument, sN a string one), slot, size and signedness, operator,
 * constant or string index and text. Also checks what must stay zero.
 */
static void dump(const struct kpt_pred_prog *p, char *out, size_t size, const char *ctx)
{
	static const char *const fld[] = { "?", "tid", "tgid", "cpu", "comm", "a", "s" };
	size_t len = 0;
	int i, j;

	out[0] = '\0';
	CHECK(p->nops <= KPT_MAX_PRED, "%s: nops %u", ctx, p->nops);
	for (i = 0; i < p->nops && i < KPT_MAX_PRED; i++) {
		const struct kpt_pred_op *op = &p->ops[i];
		char name[16];

		CHECK(!op->pad && !op->pad2[0] && !op->pad2[1] && !op->pad2[2],
		      "%s: op %d padding", ctx, i);
		if (len)
			len += snprintf(out + len, size - len, ", ");
		switch (op->op) {
		case KPT_PO_AND:
			len += snprintf(out + len, size - len, "and");
			continue;
		case KPT_PO_OR:
			len += snprintf(out + len, size - len, "or");
			continue;
		case KPT_PO_NOT:
			len += snprintf(out + len, size - len, "not");
			continue;
		case KPT_PO_TERM:
			break;
		default:
			len += snprintf(out + len, size - len, "op%u", op->op);
			continue;
		}
		snprintf(name, sizeof(name), "%s",
			 op->field <= KPT_FLD_ARGSTR ? fld[op->field] : "?");
		if (op->field == KPT_FLD_ARG || op->field == KPT_FLD_ARGSTR)
			snprintf(name, sizeof(name), "%s%u", fld[op->field], op->argi);
		else
			CHECK(!op->argi, "%s: argi of a builtin", ctx);
		if (op->cmp >= KPT_CMP_STREQ) {
			CHECK(!op->is_signed && !op->imm, "%s: string op with a number", ctx);
			len += snprintf(out + len, size - len, "%s@%u/%u %s #%u\"%.*s\"",
					name, op->slot, op->size, cmp_name(op->cmp), op->str,
					KPT_PRED_STR,
					op->str < KPT_MAX_PRED_STR ? p->strs[op->str] : "?");
		} else {
			CHECK(!op->str, "%s: number op with a string", ctx);
			if (op->is_signed)
				len += snprintf(out + len, size - len, "%s@%u/%us %s %lld", name,
						op->slot, op->size, cmp_name(op->cmp),
						(long long)op->imm);
			else
				len += snprintf(out + len, size - len, "%s@%u/%uu %s %llu", name,
						op->slot, op->size, cmp_name(op->cmp),
						(unsigned long long)op->imm);
		}
	}
	for (; i < KPT_MAX_PRED; i++) {
		static const struct kpt_pred_op zero;

		CHECK(!memcmp(&p->ops[i], &zero, sizeof(zero)), "%s: op %d past nops", ctx, i);
	}
	for (i = 0; i < KPT_MAX_PRED_STR; i++) {
		/* unused constants and the bytes after each one's NUL are zero */
		size_t n = strnlen(p->strs[i], KPT_PRED_STR);

		CHECK(n < KPT_PRED_STR, "%s: string %d not terminated", ctx, i);
		for (j = (int)n; j < KPT_PRED_STR; j++)
			CHECK(!p->strs[i][j], "%s: string %d byte %d", ctx, i, j);
	}
	for (i = 0; i < (int)sizeof(p->pad); i++)
		CHECK(!p->pad[i], "%s: prog padding", ctx);
}

#define A0	"a0@67/1u"	/* u8v */
#define A1	"a1@68/4s"	/* s32v */

static const struct good {
	const char *expr;
	const char *pre, *post;
} good[] = {
	/* each field and type */
	{ "u8v == 5", "", A0 " == 5" },
	{ "s32v < -2", "", A1 " < -2" },
	{ "u64v >= 18446744073709551615", "", "a2@72/8u >= 18446744073709551615" },
	{ "x32v & 0x10", "", "a3@80/4u & 16" },
	{ "path == \"/etc/passwd\"", "", "s4@84/4 s== #0\"/etc/passwd\"" },
	{ "ch == 0101", "", "a5@88/1u == 65" },
	{ "s8v > -128", "", "a6@89/1s > -128" },
	{ "s16v <= 0x8000", "", "a7@90/2s <= -32768" },
	{ "u16v != 0xffff", "", "a8@92/2u != 65535" },
	{ "s64v == -9223372036854775808", "", "a9@94/8s == -9223372036854775808" },
	{ "u32v > 4294967295", "", "a10@102/4u > 4294967295" },
	{ "name != 'bash'", "", "s14@118/4 s!= #0\"bash\"" },
	{ "x64v & 0x8000000000000000", "", "a15@122/8u & 9223372036854775808" },
	{ "cm == 'cat'", "", "s16@130/4 s== #0\"cat\"" },
	{ "bits == 3", "", "a17@134/1u == 3" },
	{ "addr == 0xffffffff81000000", "", "a18@135/8u == 18446744071578845184" },
	{ "common_pid == 1", "tid@24/4s == 1", "" },
	{ "tid != 0x10", "tid@24/4s != 16", "" },
	{ "pid == -1", "tgid@28/4s == -1", "" },
	{ "pid == 0xffffffff", "tgid@28/4s == -1", "" },
	{ "CPU < 2", "cpu@32/4s < 2", "" },
	{ "cpu >= 1", "cpu@32/4s >= 1", "" },
	{ "comm == \"bash\"", "comm@40/16 s== #0\"bash\"", "" },
	{ "COMM != 'bash'", "comm@40/16 s!= #0\"bash\"", "" },

	/* signed constants as bit patterns of the field's width */
	{ "s8v == 0xff", "", "a6@89/1s == -1" },
	{ "s8v == 127", "", "a6@89/1s == 127" },
	{ "s8v == 128", "", "a6@89/1s == -128" },
	{ "s32v & 0x80000000", "", A1 " & -2147483648" },
	{ "s64v == 0x7fffffffffffffff", "", "a9@94/8s == 9223372036854775807" },
	{ "u8v == 255", "", A0 " == 255" },
	{ "u8v == 0", "", A0 " == 0" },
	{ "u8v == 00", "", A0 " == 0" },
	{ "u8v == 0XfF", "", A0 " == 255" },

	/* globs: no wildcard is ==, a leading '!' negates, unclosed '[' is literal */
	{ "comm ~ 'py*'", "comm@40/16 ~ #0\"py*\"", "" },
	{ "comm ~ \"python\"", "comm@40/16 s== #0\"python\"", "" },
	{ "comm ~ \"!py*\"", "comm@40/16 ~ #0\"py*\", not", "" },
	{ "comm ~ '!'", "comm@40/16 s== #0\"\", not", "" },
	{ "path ~ \"\"", "", "s4@84/4 s== #0\"\"" },
	{ "path ~ \"*\"", "", "s4@84/4 ~ #0\"*\"" },
	{ "path ~ \"p?thon\"", "", "s4@84/4 ~ #0\"p?thon\"" },
	{ "path ~ \"[abc\"", "", "s4@84/4 ~ #0\"\\[abc\"" },
	{ "path ~ \"[a-]x\"", "", "s4@84/4 ~ #0\"[a-]x\"" },
	{ "path ~ \"[]a\"", "", "s4@84/4 ~ #0\"\\[]a\"" },
	{ "path ~ \"[]]\"", "", "s4@84/4 ~ #0\"[]]\"" },
	{ "path ~ \"[!]\"", "", "s4@84/4 ~ #0\"\\[!]\"" },
	{ "path ~ \"[a-\"", "", "s4@84/4 ~ #0\"\\[a-\"" },
	{ "path ~ \"x[!a-c]y[b\"", "", "s4@84/4 ~ #0\"x[!a-c]y\\[b\"" },
	{ "path ~ \"a\\*\"", "", "s4@84/4 ~ #0\"a\\*\"" },
	{ "path ~ \"a\\\"", "", "s4@84/4 ~ #0\"a\\\"" },
	{ "path ~ \"a\\\\\"", "", "s4@84/4 ~ #0\"a\\\\\"" },
	{ "path ~ \"\\[x\"", "", "s4@84/4 ~ #0\"\\[x\"" },
	{ "path ~ '\"'", "", "s4@84/4 s== #0\"\"\"" },
	{ "path == '!x*'", "", "s4@84/4 s== #0\"!x*\"" },

	/* the split: top-level conjuncts without arguments run before the fetch */
	{ "u8v == 1 && comm == 'x'", "comm@40/16 s== #0\"x\"", A0 " == 1" },
	{ "comm == 'x' && u8v == 1 && pid == 2 && s32v < 0",
	  "comm@40/16 s== #0\"x\", tgid@28/4s == 2, and", A0 " == 1, " A1 " < 0, and" },
	{ "u8v == 1 || comm == 'x'", "", A0 " == 1, comm@40/16 s== #0\"x\", or" },
	{ "pid == 1 || tid == 2", "tgid@28/4s == 1, tid@24/4s == 2, or", "" },
	{ "((comm == 'a')) && (pid == 1 && (u8v == 2))",
	  "comm@40/16 s== #0\"a\", tgid@28/4s == 1, and", A0 " == 2" },
	{ "!(pid == 1 && u8v == 2)", "", "tgid@28/4s == 1, " A0 " == 2, and, not" },
	{ "(pid == 1 || cpu == 2) && !(u8v == 3) && comm ~ 'a*'",
	  "tgid@28/4s == 1, cpu@32/4s == 2, or, comm@40/16 ~ #0\"a*\", and",
	  A0 " == 3, not" },

	/* precedence: && before ||, '!' on what follows */
	{ "u8v == 1 || u8v == 2 && u8v == 3", "",
	  A0 " == 1, " A0 " == 2, " A0 " == 3, and, or" },
	{ "u8v == 1 && u8v == 2 || u8v == 3", "",
	  A0 " == 1, " A0 " == 2, and, " A0 " == 3, or" },
	{ "(u8v == 1 || u8v == 2) && u8v == 3", "",
	  A0 " == 1, " A0 " == 2, or, " A0 " == 3, and" },
	{ "!(u8v == 1)", "", A0 " == 1, not" },
	{ "!u8v == 1", "", A0 " == 1, not" },
	{ "!!(u8v == 1)", "", A0 " == 1" },
	{ "!!!u8v == 1", "", A0 " == 1, not" },
	{ "! ( ! ( u8v == 1 ) )", "", A0 " == 1" },
	{ "!(u8v == 1) || !(comm ~ '!a*')", "",
	  A0 " == 1, not, comm@40/16 ~ #0\"a*\", or" },

	/* spacing, as the kernel's isspace() */
	{ "  u8v==1&&s32v<-2  ", "", A0 " == 1, " A1 " < -2, and" },
	{ "\tu8v\t>=\t0x10\t", "", A0 " >= 16" },
	{ "u8v&1", "", A0 " & 1" },
	{ "(u8v==1)||(u8v==2)", "", A0 " == 1, " A0 " == 2, or" },

	/* equal strings share a slot */
	{ "path == 'a' || path != 'a' || name ~ 'a*' || cm == 'a*'", "",
	  "s4@84/4 s== #0\"a\", s4@84/4 s!= #0\"a\", or, s14@118/4 ~ #1\"a*\", or, "
	  "s16@130/4 s== #1\"a*\", or" },
	/* 31 bytes fit */
	{ "path == \"0123456789012345678901234567890\"", "",
	  "s4@84/4 s== #0\"0123456789012345678901234567890\"" },
	{ "path ~ \"!0123456789012345678901234567890\"", "",
	  "s4@84/4 s== #0\"0123456789012345678901234567890\", not" },
};

static void test_good(void)
{
	struct kpt_pred_prog pre, post;
	char msg[256], got[2048];
	size_t i;
	int col, ret;

	ev_layout(&ev);
	CHECK_INT(args[0].slot, 67, "first slot");
	CHECK_INT(ev.fixed_size, 143, "fixed size");
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		col = -1;
		ret = filter_compile(good[i].expr, &ev, &pre, &post, msg, sizeof(msg), &col);
		CHECK(ret == 0, "%s: returned %d: %s at %d", good[i].expr, ret, msg, col);
		if (ret)
			continue;
		CHECK_INT(col, 0, good[i].expr);
		dump(&pre, got, sizeof(got), good[i].expr);
		CHECK_STR(got, good[i].pre, good[i].expr);
		dump(&post, got, sizeof(got), good[i].expr);
		CHECK_STR(got, good[i].post, good[i].expr);
	}
}

/* The text with its '^' removed, and where it was. */
static int uncaret(const char *in, char *out, size_t size)
{
	const char *c = strchr(in, '^');
	size_t n = strlen(in);

	if (n >= size || !c)
		return -1;
	memcpy(out, in, c - in);
	memcpy(out + (c - in), c + 1, n - (c - in));
	return (int)(c - in);
}

static const struct bad {
	const char *expr;	/* '^' marks the expected column */
	const char *msg;	/* a part of the message */
} bad[] = {
	{ "^", "Empty filter" },
	{ "  \t^", "Empty filter" },
	/* fields */
	{ "^foo == 1", "Field not found: foo" },
	{ "u8v == 1 && ^Comm == 'a'", "Field not found: Comm" },
	{ "^common_tgid == 1", "Field not found" },
	{ "^1 == u8v", "Expected a field name" },
	{ "^== 1", "Expected a field name" },
	{ "!^= 1", "Expected a field name" },
	{ "(^)", "Expected a field name" },
	{ "u8v == 1 &&^& s32v == 1", "Expected a field name" },
	{ "^arr == 1", "'arr' is an array (u8[4])" },
	{ "^sym == 1", "'sym' is a symstr" },
	{ "^imm == 'hello'", "'imm' is an immediate string" },
	/* operators */
	{ "u8v ^= 1", "Invalid operator" },
	{ "u8v ^=~ 1", "Invalid operator" },
	{ "u8v >^> 1", "Invalid value" },
	{ "u8v ^", "Missing operator after 'u8v'" },
	{ "u8v^", "Missing operator after 'u8v'" },
	{ "u8v ^&& s32v == 1", "Missing operator after 'u8v'" },
	{ "(u8v^)", "Missing operator" },
	/* values */
	{ "u8v == ^", "Missing value after '=='" },
	{ "u8v <=^", "Missing value after '<='" },
	{ "u8v == ^x", "Invalid value: 'u8v' is a number field" },
	{ "u8v == ^+1", "Invalid value" },
	{ "path == ^x", "did you forget quotes?" },
	{ "path == ^\"abc", "Missing matching quote" },
	{ "comm == ^'abc\"", "Missing matching quote" },
	{ "path == ^1", "'path' is a string: compare it with a quoted string" },
	{ "comm != ^-1", "'comm' is a string" },
	{ "u8v == ^\"1\"", "'u8v' is a number (u8): compare it with a number" },
	{ "u8v ~ ^\"a*\"", "'u8v' is a number" },
	{ "pid == ^'1'", "'pid' is a number (s32)" },
	{ "u8v ^~ 1", "'~' needs a string field, 'u8v' is u8" },
	{ "comm ^< \"a\"", "Illegal operation for field type: '<' on string field 'comm'" },
	{ "path ^>= 'a'", "'>=' on string field" },
	{ "path ^& \"a\"", "'&' on string field" },
	/* numbers */
	{ "u8v == ^256", "256 does not fit u8 field 'u8v'" },
	{ "u8v == ^-1", "'u8v' is unsigned (u8)" },
	{ "x32v == ^-1", "'x32v' is unsigned (x32)" },
	{ "u64v == ^-0", "unsigned" },
	{ "s8v == ^-129", "-129 does not fit s8" },
	{ "s8v == ^0x100", "does not fit s8" },
	{ "s16v == ^65536", "does not fit s16" },
	{ "s64v == ^0x8000000000000000", "does not fit s64" },
	{ "s64v == ^-9223372036854775809", "does not fit s64" },
	{ "common_pid == ^0x100000000", "does not fit s32 field 'common_pid'" },
	{ "u64v == ^18446744073709551616", "Illegal integer value: 18446744073709551616" },
	{ "u8v == ^12abc", "Illegal integer value: 12abc" },
	{ "u8v == ^0x", "Illegal integer value" },
	{ "u8v == ^0xg", "Illegal integer value" },
	{ "u8v == ^08", "Illegal integer value" },
	{ "u8v == ^-", "Illegal integer value" },
	{ "u8v == ^--1", "Illegal integer value" },
	/* structure */
	{ "u8v == 1 && ^", "Missing predicate at the end" },
	{ "u8v == 1 ||^", "Missing predicate" },
	{ "^(u8v == 1", "Too many '('" },
	{ "^((u8v == 1) && s32v == 2", "Too many '('" },
	{ "u8v == 1^)", "Too few '('" },
	{ "(u8v == 1)^)", "Too few '('" },
	{ "((u8v == 1) ^u8v", "Expected '&&', '||' or ')'" },
	{ "u8v == 1 ^s32v == 2", "Expected '&&' or '||'" },
	{ "u8v == 1 ^& s32v == 2", "Expected '&&' or '||'" },
	{ "u8v == 1 ^| s32v == 2", "Expected '&&' or '||'" },
	{ "u8v == 1 ^and s32v == 2", "Expected '&&' or '||'" },
	{ "u8v == 1^.5", "Expected '&&' or '||'" },
	{ "comm == 'a'^b", "Expected '&&' or '||'" },
	/* limits */
	{ "path == ^\"01234567890123456789012345678901\"", "String constant too long: at most 31" },
	{ "path ~ ^\"0123456789012345678901234567890[\"", "String constant too long" },
	{ "path == 'a' || path == 'b' || path == 'c' || path == 'd' || path == ^'e'",
	  "Too many string constants: the post-fetch (arguments) program holds at most 4" },
	{ "comm == 'a' || comm == 'b' || comm == 'c' || comm == 'd' || comm ~ ^'e*'",
	  "Too many string constants: the pre-fetch" },
	{ "u8v == 1 && u8v == 2 && u8v == 3 && u8v == 4 && u8v == 5 && u8v == 6 && "
	  "u8v == 7 && u8v == 8 && ^u8v == 9",
	  "Too many terms in predicate expression: the post-fetch (arguments) program holds "
	  "at most 16 operations" },
	{ "u8v == 1 || u8v == 2 || u8v == 3 || u8v == 4 || u8v == 5 || u8v == 6 || "
	  "u8v == 7 || u8v == 8 ^|| u8v == 9", "Too many terms" },
	{ "pid == 1 && pid == 2 && pid == 3 && pid == 4 && pid == 5 && pid == 6 && "
	  "pid == 7 && pid == 8 && u8v == 1 && ^pid == 9", "Too many terms" },
	{ "!(u8v == 1) && !(u8v == 2) && !(u8v == 3) && !(u8v == 4) && "
	  "!(u8v == 5) && ^!(u8v == 6)", "Too many terms" },
};

static void expect_bad(const char *expr, int want_col, const char *want_msg,
		       const struct ev_desc *e, const char *label)
{
	struct kpt_pred_prog pre, post;
	static const struct kpt_pred_prog zero;
	char msg[256];
	int col = -1, ret;

	memset(&pre, 0xa5, sizeof(pre));
	memset(&post, 0xa5, sizeof(post));
	ret = filter_compile(expr, e, &pre, &post, msg, sizeof(msg), &col);
	CHECK(ret == -EINVAL, "%s: returned %d", label, ret);
	CHECK(col == want_col, "%s: column %d, want %d (%s)", label, col, want_col, msg);
	CHECK(strstr(msg, want_msg), "%s:\n   got  \"%s\"\n   want \"...%s...\"", label, msg,
	      want_msg);
	CHECK(!memcmp(&pre, &zero, sizeof(zero)) && !memcmp(&post, &zero, sizeof(zero)),
	      "%s: programs not cleared", label);
}

static void test_bad(void)
{
	char text[1024], big[4096], *q;
	size_t i;
	int col;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		col = uncaret(bad[i].expr, text, sizeof(text));
		CHECK(col >= 0, "row without a caret: %s", bad[i].expr);
		expect_bad(text, col, bad[i].msg, &ev, bad[i].expr);
	}

	/* nesting: 32 levels of '(' or '!' are fine, 33 are not */
	q = big;
	for (i = 0; i < 32; i++)
		*q++ = '(';
	q += sprintf(q, "u8v == 1");
	for (i = 0; i < 32; i++)
		*q++ = ')';
	*q = '\0';
	{
		struct kpt_pred_prog pre, post;

		CHECK(!filter_compile(big, &ev, &pre, &post, NULL, 0, NULL) && post.nops == 1,
		      "32 parentheses");
	}
	q = big;
	for (i = 0; i < 33; i++)
		*q++ = '(';
	strcpy(q, "u8v == 1");
	expect_bad(big, 32, "nested too deeply", &ev, "33 parentheses");
	memset(big, '!', 40);
	strcpy(big + 40, "u8v == 1");
	expect_bad(big, 32, "nested too deeply", &ev, "40 '!'");

	/* more terms than both programs: refused while parsing */
	q = big;
	for (i = 0; i < 18; i++)
		q += sprintf(q, "%s%s == 1", i ? " && " : "", i % 2 ? "u8v" : "pid");
	/* term k (from 0) is node 2k - 1: the 34th node is term 17's */
	expect_bad(big, 17 * 12, "Too many terms", &ev, "18 terms");
}

/* Full programs: 16 ops, 4 strings, and both at once. */
static void test_limits(void)
{
	struct kpt_pred_prog pre, post;
	char msg[256], text[1024], *q;
	int i, col;

	/* 8 comparisons and 7 && in each program, and a '!' more in post */
	q = text + sprintf(text, "!(u8v == 0)");
	for (i = 1; i < 8; i++)
		q += sprintf(q, " && u8v == %d", i);
	for (i = 0; i < 8; i++)
		q += sprintf(q, " && pid == %d", i);
	CHECK(filter_compile(text, &ev, &pre, &post, msg, sizeof(msg), &col) == 0,
	      "16 + 15 ops: %s at %d", msg, col);
	CHECK_INT(pre.nops, 15, "full pre");
	CHECK_INT(post.nops, KPT_MAX_PRED, "full post");

	/* 4 strings in each program */
	CHECK(filter_compile("(path == 'a' || path == 'b' || name ~ 'c*' || cm != 'd') && "
			     "(comm == 'a' || comm == 'b' || comm ~ 'c*' || comm != 'x')",
			     &ev, &pre, &post, msg, sizeof(msg), &col) == 0,
	      "4 strings: %s at %d", msg, col);
	CHECK(!strcmp(post.strs[3], "d") && !strcmp(post.strs[2], "c*") &&
	      !strcmp(pre.strs[3], "x") && pre.nops == 7 && post.nops == 7, "4 + 4 strings");

	/* the error column is in the filter text: the caller adds the offset */
	CHECK(filter_compile("u8v == 1 && bogus == 2", &ev, &pre, &post, NULL, 0, &col) ==
	      -EINVAL && col == 12, "col without msg");
	CHECK(filter_compile("bogus", &ev, &pre, &post, msg, 8, NULL) == -EINVAL &&
	      strlen(msg) == 7, "message cut to msglen");
	CHECK(filter_compile(NULL, &ev, &pre, &post, msg, sizeof(msg), &col) == 0 &&
	      !pre.nops && !post.nops && !msg[0] && !col, "no filter");
	/* without an ev_desc only the builtins exist */
	CHECK(filter_compile("pid == 1 && comm ~ 'a*'", NULL, &pre, &post, msg, sizeof(msg),
			     &col) == 0 && pre.nops == 3, "no ev: %s", msg);
	CHECK(filter_compile("u8v == 1", NULL, &pre, &post, msg, sizeof(msg), &col) == -EINVAL,
	      "no ev, no u8v");
}

/* An argument hides the builtin of its name; common_pid can't be hidden. */
static void test_shadow(void)
{
	struct kpt_pred_prog pre, post;
	char msg[256], got[512];

	ev_layout(&shadow_ev);
	CHECK(!filter_compile("pid == 1 && comm == 'x' && cpu < -1 && CPU == 2 && "
			      "common_pid == 3 && COMM == 'y'",
			      &shadow_ev, &pre, &post, msg, sizeof(msg), NULL), "shadow: %s", msg);
	dump(&pre, got, sizeof(got), "shadow pre");
	CHECK_STR(got, "cpu@32/4s == 2, tid@24/4s == 3, and, comm@40/16 s== #0\"y\", and",
		  "shadow pre");
	dump(&post, got, sizeof(got), "shadow post");
	CHECK_STR(got, "a0@65/4u == 1, s1@69/4 s== #0\"x\", and, a2@73/2s < -1, and",
		  "shadow post");
}

/* ---- the evaluator ---- */

static struct kpt_scratch scratch;
static unsigned int rec_end;

static void rec_reset(void)
{
	struct kpt_rec_hdr h;

	memset(&scratch, 0x5a, sizeof(scratch));	/* nothing relies on zeroes */
	memset(scratch.rec, 0, ev.fixed_size);
	memset(&h, 0, sizeof(h));
	h.kind = KPT_REC_EVENT;
	h.tid = 1234;
	h.tgid = 1200;
	h.cpu = 3;
	strcpy(h.comm, "python");
	memcpy(scratch.rec, &h, sizeof(h));
	rec_end = ev.fixed_size;
}

static const struct ev_arg *arg(const char *name)
{
	int i;

	for (i = 0; i < NARGS; i++)
		if (!strcmp(args[i].name, name))
			return &args[i];
	fprintf(stderr, "no argument %s\n", name);
	abort();
}

static void set_num(const char *name, uint64_t v)
{
	const struct ev_arg *a = arg(name);

	/* little-endian: the low bytes first, as the BPF side stores them */
	memcpy(&scratch.rec[a->slot], &v, a->size);
}

static void set_strn(const char *name, const char *s, size_t n)
{
	const struct ev_arg *a = arg(name);
	uint32_t loc = (uint32_t)((n + 1) << 16 | rec_end);

	memcpy(&scratch.rec[rec_end], s, n);
	scratch.rec[rec_end + n] = 0;
	rec_end += n + 1;
	memcpy(&scratch.rec[a->slot], &loc, 4);
}

static void set_str(const char *name, const char *s)
{
	set_strn(name, s, strlen(s));
}

/* A failed fetch: the fault bit, and a string's zero-length data_loc. */
static void set_fault(const char *name)
{
	const struct ev_arg *a = arg(name);
	int i = (int)(a - args);
	uint32_t loc = rec_end;

	scratch.rec[KPT_HDR_SIZE + i / 8] |= 1 << (i % 8);
	if (spec_type_is_string(a->type))
		memcpy(&scratch.rec[a->slot], &loc, 4);
}

static void rec_base(void)
{
	rec_reset();
	set_num("u8v", 200);
	set_num("s32v", (uint32_t)-5);
	set_num("u64v", UINT64_MAX);
	set_num("x32v", 0x80000010);
	set_str("path", "/usr/bin/python3");
	set_num("ch", 'A');
	set_num("s8v", (uint8_t)-128);
	set_num("s16v", (uint16_t)-300);
	set_num("u16v", 65535);
	set_num("s64v", (uint64_t)INT64_MIN);
	set_num("u32v", 4000000000u);
	set_str("name", "bash");
	set_num("x64v", 1ull << 63);
	set_str("cm", "cat");
	set_num("bits", 5);
	set_num("addr", 0xffffffff81000010ull);
}

/* Compile expr, run pre then post as the BPF program does; -1 if it doesn't compile. */
static int run(const char *expr)
{
	struct kpt_pred_prog pre, post;
	char msg[256];
	int col;

	if (filter_compile(expr, &ev, &pre, &post, msg, sizeof(msg), &col)) {
		CHECK(0, "%s: %s at %d", expr, msg, col);
		return -1;
	}
	/* an empty program passes, as the BPF caller's "!nops ||" does */
	CHECK_INT(kpt_filter_eval(&scratch, &pre) && kpt_filter_eval(&scratch, &post),
		  (!pre.nops || kpt_filter_eval(&scratch, &pre)) &&
		  (!post.nops || kpt_filter_eval(&scratch, &post)), expr);
	return kpt_filter_eval(&scratch, &pre) && kpt_filter_eval(&scratch, &post);
}

static const struct sem {
	const char *expr;
	int want;
} sem[] = {
	/* u8: 200 */
	{ "u8v == 200", 1 }, { "u8v != 200", 0 }, { "u8v < 201", 1 }, { "u8v < 200", 0 },
	{ "u8v <= 200", 1 }, { "u8v <= 199", 0 }, { "u8v > 199", 1 }, { "u8v > 200", 0 },
	{ "u8v >= 200", 1 }, { "u8v >= 201", 0 }, { "u8v & 8", 1 }, { "u8v & 0x37", 0 },
	{ "u8v > 127", 1 },	/* unsigned: 200, not -56 */
	/* s8: -128 */
	{ "s8v == -128", 1 }, { "s8v == 0x80", 1 }, { "s8v == 128", 1 }, { "s8v < 0", 1 },
	{ "s8v < -127", 1 }, { "s8v <= -128", 1 }, { "s8v > -128", 0 }, { "s8v >= -128", 1 },
	{ "s8v > 127", 0 }, { "s8v & 0x80", 1 }, { "s8v & 0x7f", 0 }, { "s8v != -128", 0 },
	/* s16: -300; u16: 65535 */
	{ "s16v == -300", 1 }, { "s16v == 0xfed4", 1 }, { "s16v < -299", 1 },
	{ "s16v > -301", 1 }, { "s16v >= 0", 0 },
	{ "u16v == 65535", 1 }, { "u16v == 0xffff", 1 }, { "u16v > 32767", 1 },
	{ "u16v < 65535", 0 },
	/* s32: -5; u32: 4000000000; x32: 0x80000010 */
	{ "s32v == -5", 1 }, { "s32v == 0xfffffffb", 1 }, { "s32v < 0", 1 },
	{ "s32v >= -5", 1 }, { "s32v > -5", 0 }, { "s32v <= -6", 0 }, { "s32v != -5", 0 },
	{ "s32v & 1", 1 }, { "s32v & 4", 0 },
	{ "u32v == 4000000000", 1 }, { "u32v > 2147483647", 1 }, { "u32v < 4000000001", 1 },
	{ "x32v == 0x80000010", 1 }, { "x32v > 0x7fffffff", 1 }, { "x32v & 0x10", 1 },
	{ "x32v & 0x0f", 0 }, { "x32v == 2147483664", 1 },
	/* 64 bits */
	{ "u64v == 0xffffffffffffffff", 1 }, { "u64v == 18446744073709551615", 1 },
	{ "u64v > 9223372036854775807", 1 }, { "u64v >= 0", 1 }, { "u64v < 1", 0 },
	{ "s64v == -9223372036854775808", 1 }, { "s64v < 0", 1 },
	{ "s64v <= -9223372036854775808", 1 }, { "s64v < -9223372036854775807", 1 },
	{ "s64v > 9223372036854775807", 0 },
	{ "x64v & 0x8000000000000000", 1 }, { "x64v > 0x7fffffffffffffff", 1 },
	{ "x64v == 9223372036854775808", 1 },
	{ "addr == 0xffffffff81000010", 1 }, { "addr >= 0xffffffff81000000", 1 },
	/* char, bitfield */
	{ "ch == 65", 1 }, { "ch == 0x41", 1 }, { "ch == 0101", 1 }, { "ch > 64", 1 },
	{ "bits == 5", 1 }, { "bits & 4", 1 },
	/* the header */
	{ "common_pid == 1234", 1 }, { "tid == 1234", 1 }, { "pid == 1200", 1 },
	{ "pid == 1234", 0 }, { "CPU == 3", 1 }, { "cpu < 4", 1 }, { "cpu > 3", 0 },
	{ "CPU != 3", 0 }, { "cpu >= -1", 1 },

	/* strings: == and != compare whole strings */
	{ "path == \"/usr/bin/python3\"", 1 }, { "path != \"/usr/bin/python3\"", 0 },
	{ "path == '/usr/bin/python'", 0 }, { "path == '/usr/bin/python3x'", 0 },
	{ "path != '/usr/bin/python'", 1 }, { "path == ''", 0 }, { "path != ''", 1 },
	{ "name == 'bash'", 1 }, { "cm == 'cat'", 1 }, { "cm == 'ca'", 0 },
	{ "comm == 'python'", 1 }, { "COMM == 'python'", 1 }, { "comm == 'pytho'", 0 },
	{ "comm == 'python3'", 0 }, { "comm != 'python'", 0 },
	/* globs */
	{ "comm ~ 'py*'", 1 }, { "comm ~ '*thon'", 1 }, { "comm ~ '*yth*'", 1 },
	{ "comm ~ 'p?thon'", 1 }, { "comm ~ 'p??hon'", 1 }, { "comm ~ '?'", 0 },
	{ "comm ~ 'java*'", 0 }, { "comm ~ '*'", 1 }, { "comm ~ ''", 0 },
	{ "comm ~ 'python'", 1 }, { "comm ~ 'pytho'", 0 }, { "comm ~ 'python?'", 0 },
	{ "comm ~ 'python*'", 1 }, { "comm ~ '*python*'", 1 }, { "comm ~ '**'", 1 },
	{ "comm ~ '*n'", 1 }, { "comm ~ '*o'", 0 }, { "comm ~ 'p*n'", 1 },
	{ "comm ~ 'p*y*t*h*o*n'", 1 }, { "comm ~ 'p*x*n'", 0 },
	{ "comm ~ '!py*'", 0 }, { "comm ~ '!java*'", 1 }, { "comm ~ '!python'", 0 },
	{ "cm ~ '[a-c]at'", 1 }, { "cm ~ '[abc]at'", 1 }, { "cm ~ '[!a-c]at'", 0 },
	{ "cm ~ '[d-z]at'", 0 }, { "cm ~ '[!d-z]at'", 1 }, { "cm ~ '?[a]?'", 1 },
	{ "cm ~ 'c[a-]t'", 1 }, { "cm ~ 'c[-a]t'", 1 }, { "cm ~ '[c-a]at'", 0 },
	{ "name ~ 'b[a-c]sh'", 1 }, { "name ~ 'b[!a]sh'", 0 }, { "name ~ '[]b]ash'", 1 },
	{ "name ~ '[!]]ash'", 1 }, { "name ~ 'ba\\sh'", 1 }, { "name ~ 'b\\*sh'", 0 },
	{ "name ~ '[ba'", 0 }, { "name ~ 'bas[h'", 0 }, { "name ~ '*\\'", 1 },
	{ "name ~ 'bash\\'", 1 }, { "name ~ 'bas\\'", 0 },
	{ "path ~ '*python3'", 1 }, { "path ~ '/usr/*'", 1 }, { "path ~ '*bin*'", 1 },
	{ "path ~ '/usr/bin/p?thon3'", 1 }, { "path ~ '*[0-9]'", 1 },
	{ "path ~ '*[!0-9]'", 0 }, { "path ~ '*.py'", 0 }, { "path ~ '/*/*/*'", 1 },
	{ "path ~ '/*/*/*/*'", 0 }, { "path ~ '*/'", 0 },

	/* precedence */
	{ "u8v == 200 || u8v == 1 && u8v == 2", 1 },
	{ "u8v == 1 && u8v == 2 || u8v == 200", 1 },
	{ "(u8v == 200 || u8v == 1) && u8v == 2", 0 },
	{ "u8v == 1 || u8v == 2 || u8v == 200", 1 },
	{ "u8v == 200 && (u8v == 1 || cm == 'cat')", 1 },
	{ "!(u8v == 200) || comm == 'python'", 1 },
	{ "!u8v == 200", 0 }, { "!!(u8v == 200)", 1 }, { "!!!(u8v == 200)", 0 },
	{ "!(u8v == 1 || u8v == 2)", 1 }, { "!(u8v == 1 || u8v == 200)", 0 },
	{ "(u8v == 1 || u8v == 200) && (comm == 'x' || pid == 1200)", 1 },
	{ "(u8v == 1 || u8v == 200) && (comm == 'x' || pid == 1)", 0 },
	{ "u8v == 200 && s32v == -5 && path ~ '*3' && name == 'bash' && cm ~ 'c*'", 1 },
	{ "u8v == 200 && s32v == -5 && path ~ '*3' && name == 'bash' && cm ~ 'd*'", 0 },
	/* split: pre is one conjunct, post the other */
	{ "comm == 'python' && u8v == 200", 1 }, { "comm == 'java' && u8v == 200", 0 },
	{ "comm == 'python' && u8v == 1", 0 },
	{ "pid == 1200 && u8v == 200 && CPU == 3 && !(cm ~ 'd*')", 1 },
};

static void test_eval(void)
{
	size_t i;

	rec_base();
	for (i = 0; i < sizeof(sem) / sizeof(sem[0]); i++)
		CHECK_INT(run(sem[i].expr), sem[i].want, sem[i].expr);

	/* what the pre program sees: the header alone, arguments not fetched */
	{
		struct kpt_pred_prog pre, post;

		rec_base();
		memset(&scratch.rec[KPT_HDR_SIZE], 0xff, ev.fixed_size - KPT_HDR_SIZE);
		CHECK(!filter_compile("comm ~ 'py*' && u8v == 1 && pid == 1200", &ev, &pre,
				      &post, NULL, 0, NULL), "pre split");
		CHECK_INT(kpt_filter_eval(&scratch, &pre), 1, "pre on the header only");
		CHECK_INT(kpt_filter_eval(&scratch, &post), 0, "post on faulted arguments");
		CHECK_INT(kpt_filter_eval(&scratch, NULL), 0, "NULL program");
		CHECK_INT(kpt_filter_eval(NULL, &pre), 0, "NULL scratch");
		memset(&pre, 0, sizeof(pre));
		CHECK_INT(kpt_filter_eval(&scratch, &pre), 1, "empty program");
	}
}

/* A faulted argument: every term on it is false, '!' negates that. */
static void test_faults(void)
{
	static const struct sem rows[] = {
		{ "u8v == 200", 0 }, { "u8v != 200", 0 }, { "u8v < 255", 0 },
		{ "u8v & 0xff", 0 }, { "!(u8v == 200)", 1 }, { "!(u8v != 200)", 1 },
		{ "u8v == 200 || comm == 'python'", 1 }, { "u8v == 200 && comm == 'python'", 0 },
		{ "s32v == -5", 1 },	/* its neighbour is fine */
		{ "path == ''", 0 }, { "path != 'x'", 0 }, { "path ~ '*'", 0 },
		{ "!(path ~ '*')", 1 }, { "name == 'bash'", 1 },
		{ "cm == ''", 0 }, { "cm != ''", 0 },	/* zero length, no fault bit */
	};
	size_t i;

	rec_base();
	set_fault("u8v");
	set_fault("path");
	/* a $comm argument with no room left: length 0, no fault bit */
	memset(&scratch.rec[arg("cm")->slot], 0, 2);
	memset(&scratch.rec[arg("cm")->slot + 2], 0, 2);
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		CHECK_INT(run(rows[i].expr), rows[i].want, rows[i].expr);
	/* the fault bit of argument 9 is in the bitmap's second byte */
	rec_base();
	set_fault("s64v");
	CHECK_INT(run("s64v < 0"), 0, "fault bit 9");
	CHECK_INT(run("u16v == 65535"), 1, "fault bit 8 clear");
}

/* Strings are seen as their first KPT_PRED_STRCMP bytes. */
static void test_long_strings(void)
{
	char s[1200];

	memset(s, 'x', sizeof(s));
	memcpy(s, "abc", 3);
	memcpy(s + 997, "xyz", 3);
	rec_base();
	set_strn("path", s, 1000);
	CHECK_INT(run("path ~ 'abc*'"), 1, "long string, prefix");
	CHECK_INT(run("path ~ '*xyz'"), 0, "long string, suffix past the window");
	CHECK_INT(run("path == 'abc'"), 0, "long string ==");
	CHECK_INT(run("path != 'abc'"), 1, "long string !=");

	/* exactly KPT_PRED_STRCMP bytes: all of it is seen */
	memcpy(s + KPT_PRED_STRCMP - 3, "xyz", 3);
	rec_base();
	set_strn("path", s, KPT_PRED_STRCMP);
	CHECK_INT(run("path ~ '*xyz'"), 1, "256 bytes, suffix");
	CHECK_INT(run("path ~ '*xyz?'"), 0, "256 bytes, nothing more");
	/* one more: cut to the first 256, as documented */
	rec_base();
	set_strn("path", s, KPT_PRED_STRCMP + 1);
	CHECK_INT(run("path ~ '*xyz'"), 1, "257 bytes seen as 256");

	/*
	 * The step budget: a 31-byte pattern that fails 29 characters in at
	 * each of 226 starts before it matches at the end, and the worst
	 * failure: a star chain over 256 bytes.
	 */
	memset(s, 'a', KPT_PRED_STRCMP);
	s[KPT_PRED_STRCMP - 1] = 'b';
	rec_base();
	set_strn("path", s, KPT_PRED_STRCMP);
	CHECK_INT(run("path ~ '*aaaaaaaaaaaaaaaaaaaaaaaaaaaaab'"), 1, "near worst case, match");
	CHECK_INT(run("path ~ '*aaaaaaaaaaaaaaaaaaaaaaaaaaaaac'"), 0, "near worst case");
	CHECK_INT(run("path ~ '*a*a*a*a*a*a*a*a*a*a*a*a*a*a*ab'"), 1, "star chain");
	CHECK_INT(run("path ~ '*[a][a][a][a][a][a][a]b'"), 1, "classes");
	CHECK_INT(run("path ~ '*[a][a][a][a][a][a][a]c'"), 0, "classes, no match");
	s[KPT_PRED_STRCMP - 1] = 'a';
	rec_base();
	set_strn("path", s, KPT_PRED_STRCMP);
	CHECK_INT(run("path ~ '*a*a*a*a*a*a*a*a*a*a*a*a*a*a*ab'"), 0, "star chain, no match");
	CHECK_INT(run("path ~ '*????????????????????????????b'"), 0, "question marks");
	CHECK_INT(run("path ~ '*a'"), 1, "last byte");
}

/*
 * The reference: glob(7) as lib/glob.c defines it, written the obvious
 * recursive way, with ftrace's leading '!'. A '[' without its ']' is a
 * literal; a class never matches the end of the string.
 */
static bool ref_glob(const char *p, const char *s)
{
	const char *q;
	bool inv, hit = false;
	unsigned char a, b, c = *s;

	switch (*p) {
	case '\0':
		return !c;
	case '*':
		return ref_glob(p + 1, s) || (c && ref_glob(p, s + 1));
	case '?':
		return c && ref_glob(p + 1, s + 1);
	case '\\':
		if (!p[1])
			return !c;
		return c == (unsigned char)p[1] && ref_glob(p + 2, s + 1);
	case '[':
		inv = p[1] == '!';
		q = p + 1 + inv;
		a = *q++;
		for (;;) {
			if (!a)
				return c == '[' && ref_glob(p + 1, s + 1);
			b = a;
			if (q[0] == '-' && q[1] != ']') {
				b = q[1];
				if (!b)
					return c == '[' && ref_glob(p + 1, s + 1);
				q += 2;
			}
			hit |= a <= c && c <= b;
			a = *q++;
			if (a == ']')
				break;
		}
		return c && hit != inv && ref_glob(q, s + 1);
	default:
		return c == (unsigned char)*p && ref_glob(p + 1, s + 1);
	}
}

static uint32_t lcg = 12345;

static unsigned int rnd(unsigned int n)
{
	lcg = lcg * 1103515245 + 12345;
	return (lcg >> 16) % n;
}

/* Random patterns and strings: the compiler and evaluator agree with the reference. */
static void test_glob_random(void)
{
	static const char palpha[] = "ab-]*?[!\\";
	static const char salpha[] = "ab-]![\\";
	char pat[16], str[16], expr[64];
	int i, j, n, want, bad = 0;

	for (i = 0; i < 20000; i++) {
		n = rnd(9);
		for (j = 0; j < n; j++)
			pat[j] = palpha[rnd(sizeof(palpha) - 1)];
		pat[n] = '\0';
		n = rnd(7);
		for (j = 0; j < n; j++)
			str[j] = salpha[rnd(sizeof(salpha) - 1)];
		str[n] = '\0';
		want = pat[0] == '!' ? !ref_glob(pat + 1, str) : ref_glob(pat, str);
		snprintf(expr, sizeof(expr), "name ~ \"%s\"", pat);
		rec_base();
		set_str("name", str);
		if (run(expr) != want && bad++ < 10)
			CHECK(0, "pattern \"%s\" on \"%s\": want %d", pat, str, want);
	}
	CHECK(!bad, "%d random globs differ from the reference", bad);
	/* the reference agrees with lib/glob.c's own self-tests */
	CHECK(ref_glob("[a-c-e-g]", "-") && !ref_glob("[a-c-e-g]", "d") &&
	      ref_glob("[]a-ceg-ik[]", "]") && !ref_glob("[!]a-ceg-ik[]", "h") &&
	      ref_glob("*ab*cd*", "abcabcabcabcdefg") && !ref_glob("*abcd*", "abcabcabcabcefg") &&
	      ref_glob("*a*b*[bc]*[ef]*g*", "abacadaeafag") && !ref_glob("?*?", "a"),
	      "reference vs lib/glob.c's self-tests");
}

static void test_explain(void)
{
	static const struct {
		const char *expr, *pre, *post;
	} rows[] = {
		{ "comm ~ 'py*' && u8v == 200", "comm ~ \"py*\"", "u8v == 200" },
		{ "(u8v == 1 || s32v < -2) && !(path == 'x') && x32v & 0x10", "true",
		  "(u8v == 1 || s32v < -2) && !(path == \"x\") && x32v & 0x10" },
		{ "u8v == 1 || u8v == 2 && u8v == 3", "true", "u8v == 1 || u8v == 2 && u8v == 3" },
		{ "u8v == 1 && (u8v == 2 || u8v == 3)", "true",
		  "u8v == 1 && (u8v == 2 || u8v == 3)" },
		{ "x32v == 16 && u64v > 0x10 && x64v != 0", "true",
		  "x32v == 0x10 && u64v > 16 && x64v != 0x0" },
		{ "common_pid == 1 || tid == 2 || pid == -3 || CPU >= 4", "common_pid == 1 || "
		  "common_pid == 2 || pid == -3 || CPU >= 4", "true" },
		{ "path ~ '\"*' || comm ~ '!a*'", "true", "path ~ '\"*' || !(comm ~ \"a*\")" },
		{ "name ~ '[ab'", "true", "name ~ \"\\[ab\"" },
	};
	struct kpt_pred_prog pre, post, bad;
	char *out = NULL, want[512];
	size_t size = 0, i;
	FILE *f;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		CHECK(!filter_compile(rows[i].expr, &ev, &pre, &post, NULL, 0, NULL), "%s",
		      rows[i].expr);
		f = open_memstream(&out, &size);
		filter_explain(f, &pre, &ev);
		filter_explain(f, &post, &ev);
		fclose(f);
		snprintf(want, sizeof(want), "%s\n%s\n", rows[i].pre, rows[i].post);
		CHECK_STR(out, want, rows[i].expr);
		free(out);
		out = NULL;
	}

	/* no ev_desc: argument numbers; a broken program says so */
	CHECK(!filter_compile("u8v == 1", &ev, &pre, &post, NULL, 0, NULL), "u8v");
	memset(&bad, 0, sizeof(bad));
	bad.nops = 2;
	bad.ops[0].op = KPT_PO_TERM;
	bad.ops[1].op = KPT_PO_AND;
	f = open_memstream(&out, &size);
	filter_explain(f, &post, NULL);
	filter_explain(f, &bad, &ev);
	fclose(f);
	CHECK_STR(out, "arg#0 == 1\n(invalid filter program)\n", "explain without ev");
	free(out);
}

/*
 * --dry-run's explanation read back: explained, then compiled again against
 * the same probe, each program is the same program. Every good[] row, and
 * the inputs of tests/fuzz/regressions/filter/ that once broke it.
 */
static bool roundtrip(const char *expr, const struct ev_desc *e, char *text, size_t textlen)
{
	struct kpt_pred_prog pre, post, a, b;
	const struct kpt_pred_prog *progs[2] = { &pre, &post };
	char *out = NULL, msg[256];
	size_t size = 0, n, used = 0;
	bool same = true;
	int k, col;
	FILE *f;

	text[0] = '\0';
	if (filter_compile(expr, e, &pre, &post, msg, sizeof(msg), &col))
		return false;
	for (k = 0; k < 2; k++) {
		if (!progs[k]->nops)
			continue;
		f = open_memstream(&out, &size);
		filter_explain(f, progs[k], e);
		fclose(f);
		n = strlen(out);
		if (n && out[n - 1] == '\n')
			out[--n] = '\0';
		used += snprintf(text + used, textlen - used, "%s%s", used ? " | " : "", out);
		if (used >= textlen)
			used = textlen - 1;
		if (filter_compile(out, e, &a, &b, msg, sizeof(msg), &col))
			same = false;
		else if (memcmp(k ? &b : &a, progs[k], sizeof(a)) || (k ? &a : &b)->nops)
			same = false;
		free(out);
		out = NULL;
	}
	return same;
}

static void test_roundtrip(void)
{
	/* arguments named like every builtin but common_pid and COMM */
	static struct ev_arg sh_args[] = {
		{ .name = "pid", .type = SPEC_T_U32, .size = 4 },
		{ .name = "comm", .type = SPEC_T_STRING, .size = 4 },
		{ .name = "cpu", .type = SPEC_T_S16, .size = 2 },
		{ .name = "CPU", .type = SPEC_T_X64, .size = 8 },
		{ .name = "tid", .type = SPEC_T_SYMBOL, .size = 8 },
	};
	static struct ev_desc sh = { .event = "shadow", .nargs = 5, .args = sh_args };
	static const struct {
		const struct ev_desc *e;
		const char *expr, *want;
	} rows[] = {
		/* tests/fuzz/regressions/filter/signed-band: the constant at the
		 * field's width, not sign-extended to 64 bits */
		{ &ev, "s8v & 0x80", "s8v & 0x80" },
		{ &ev, "s16v & 0x8001", "s16v & 0x8001" },
		{ &ev, "s32v & 0x80000000", "s32v & 0x80000000" },
		{ &ev, "s64v & -9223372036854775808", "s64v & -9223372036854775808" },
		{ &ev, "s64v & -1", "s64v & -1" },
		{ &ev, "s64v & 0x7fffffffffffffff", "s64v & 0x7fffffffffffffff" },
		{ &ev, "s8v & -1", "s8v & 0xff" },
		{ &ev, "common_pid & 0x80000000", "common_pid & 0x80000000" },
		/* glob-leading-bang: a pattern's literal leading '!' is escaped */
		{ &ev, "comm ~ '!!x*'", "!(comm ~ \"\\!x*\")" },
		{ &ev, "comm ~ '\\!x*'", "comm ~ \"\\!x*\"" },
		{ &ev, "path ~ '!\\!*'", "!(path ~ \"\\!*\")" },
		{ &ev, "path ~ '!!'", "!(path == \"!\")" },
		{ &ev, "path ~ '\\!'", "path == \"!\"" },
		{ &ev, "path ~ '!x*' || path ~ '\"!*'", "!(path ~ \"x*\") || path ~ '\"!*'" },
		/* shadowed-builtin: the builtin by a name no argument hides */
		{ &shadow_ev, "COMM == 'x'", "COMM == \"x\"" },
		{ &shadow_ev, "comm == 'x'", "comm == \"x\"" },
		{ &shadow_ev, "CPU == 1 && cpu == 2", "CPU == 1 | cpu == 2" },
		{ &sh, "COMM ~ 'a*' && common_pid == 3 && comm == 'c'",
		  "COMM ~ \"a*\" && common_pid == 3 | comm == \"c\"" },
		{ &sh, "tid == 0x10 && pid == 7", "tid == 0x10 && pid == 7" },
	};
	char text[4096];
	size_t i;

	ev_layout(&sh);
	ev_layout(&shadow_ev);
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		CHECK(roundtrip(good[i].expr, &ev, text, sizeof(text)),
		      "%s: explained as [%s], which compiles to another program", good[i].expr,
		      text);
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		CHECK(roundtrip(rows[i].expr, rows[i].e, text, sizeof(text)),
		      "%s: explained as [%s], which compiles to another program", rows[i].expr,
		      text);
		CHECK_STR(text, rows[i].want, rows[i].expr);
	}
}

/* filter_fields(): every field name with its column and kind, to the first error. */
static void told(const char *name, int col, enum filter_field_kind kind, void *arg)
{
	char *out = arg;
	size_t n = strlen(out);

	snprintf(out + n, 256 - n, "%s@%d%c ", name, col, "abu"[kind]);
}

static void test_fields(void)
{
	static const struct {
		const char *expr, *want;
	} t[] = {
		{ "code == 0", "code@0u " },
		{ "u8v == 1 && (nope > 3 || s32v < 0)", "u8v@0a nope@13u " },
		{ "comm == \"x\" || cpu == 1 || s8v & 4", "comm@0b cpu@15b s8v@27a " },
		{ "pid == 1 && common_pid != 0", "pid@0b common_pid@12b " },
		{ "u8v == && nope == 1", "u8v@0a " },			/* a syntax error first */
		{ "u8v == \"str\" && nope == 1", "u8v@0a " },	/* a type error first */
	};
	char out[256], label[128];
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		snprintf(label, sizeof(label), "fields of '%s'", t[i].expr);
		out[0] = 0;
		filter_fields(t[i].expr, &ev, told, out);
		CHECK_STR(out, t[i].want, label);
	}
}

int main(void)
{
	ev_layout(&ev);
	test_good();
	test_bad();
	test_limits();
	test_shadow();
	test_eval();
	test_faults();
	test_long_strings();
	test_glob_random();
	test_explain();
	test_roundtrip();
	test_fields();
	return check_report();
}
