// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * kptrace why's trees (out/whytree.c) from logs made by hand, as
 * bpf/why.bpf.h writes them: the origin is the call the error came up
 * from, not an earlier one whose error its caller handled; an errno
 * carried from a pointer's ERR_PTR, and from a function BTF does not type
 * (an int's errno in its low half); a call whose return the log did not
 * keep, and a log cut short, marked and counted; records that are no log
 * refused, nothing printed.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "kptrace.h"
#include "out/whytree.h"

/* The probes, as why_defs() makes them: the root's two, then a pair a function. */
enum { ROOT, ROOT_RET, A, A_RET, B, B_RET, P, P_RET, U, U_RET, NPROBES };

static struct ev_arg s32 = { .name = "ret", .type = SPEC_T_S32, .size = 4 };
static struct ev_arg ptr = { .name = "ret", .type = SPEC_T_X64, .size = 8 };
/* why_ret_arg()'s ret=$retval:x64 where BTF has no type: the type given */
static struct spec_arg given = { .type = SPEC_T_X64, .type_given = true };
static struct ev_arg unknown = { .name = "ret", .type = SPEC_T_X64, .size = 8, .spec = &given };
static struct ev_desc evs[NPROBES];

static void setup(void)
{
	static const char *const funcs[] = { "root_fn", "a", "b", "p", "u.part.0" };
	int i;

	for (i = 0; i < NPROBES; i++) {
		evs[i].index = i;
		snprintf(evs[i].group, sizeof(evs[i].group), "why");
		snprintf(evs[i].func, sizeof(evs[i].func), "%s", funcs[i / 2]);
		snprintf(evs[i].event, sizeof(evs[i].event), "%s%s", i < 2 ? "root" : funcs[i / 2],
			 i % 2 ? "_ret" : "");
		evs[i].is_return = i % 2;
		evs[i].nargs = i % 2;
		evs[i].args = i == P_RET ? &ptr : i == U_RET ? &unknown : &s32;
	}
}

static struct kpt_why_log lg;

static void start(int64_t ret)
{
	memset(&lg, 0, sizeof(lg));
	lg.h.kind = KPT_REC_WHY;
	lg.h.probe = ROOT;
	lg.h.ts = 1000;
	lg.h.tid = lg.h.tgid = 42;
	snprintf(lg.h.comm, sizeof(lg.h.comm), "app");
	lg.i.end = 9000;
	lg.i.ret = (uint64_t)ret & 0xffffffffull;	/* an int's %ax: the upper half not its */
}

static void ent(int probe, uint64_t ts, int64_t ret)
{
	struct kpt_why_ent *e = &lg.e[lg.i.n++];

	e->probe = (uint16_t)probe;
	e->flags = probe % 2 ? KPT_WHY_RET : 0;
	e->ts = ts;
	e->ret = (uint64_t)ret;
}

static char *print(bool json, size_t len, struct why_counts *c)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	whytree_print(f, json, NULL, evs, NPROBES, &lg, len, c);
	fclose(f);
	return buf;
}

static size_t used(void)
{
	return KPT_WHY_HDR_SIZE + lg.i.n * sizeof(struct kpt_why_ent);
}

/* root { a() = -22, handled; b { a() = -5 } = -5 } = -5: the second a is the origin. */
static void test_handled_error(void)
{
	struct why_counts c = { 0 };
	char *s;

	start(-5);
	ent(A, 2000, -22);
	ent(A_RET, 2100, -22);
	ent(B, 3000, 0);
	ent(A, 3100, 0);
	ent(A_RET, 3600, -5);
	ent(B_RET, 4000, -5);
	s = print(false, used(), &c);
	CHECK(strstr(s, "# why: root_fn = -5 (EIO) in 8.000 us: app-42 (pid 42)"), "%s", s);
	CHECK(strstr(s, "|    a(); /* = -22 (EINVAL) */\n"), "the handled error unmarked: %s", s);
	CHECK(strstr(s, "|    b() {\n"), "%s", s);
	CHECK(strstr(s, "  0.500 us    |      a(); /* = -5 (EIO) */  <== origin\n"), "%s", s);
	CHECK(strstr(s, "  1.000 us    |    } /* b = -5 (EIO) */\n"), "%s", s);
	CHECK(strstr(s, "# origin: a = -5 (EIO), its stack from the root:\n#   root_fn\n"
		      "#     b\n#       a\n"), "%s", s);
	CHECK(!strstr(s, "cut short"), "%s", s);
	CHECK_INT(c.calls, 1, "calls");
	free(s);
	s = print(true, used(), &c);
	CHECK(strstr(s, "\"origin\":\"a\",\"origin_stack\":[\"root_fn\",\"b\",\"a\"]"), "%s", s);
	CHECK(strstr(s, "{\"func\":\"a\",\"duration_ns\":100,\"ret\":-22}"), "%s", s);
	CHECK(strstr(s, "{\"func\":\"a\",\"duration_ns\":500,\"ret\":-5,\"origin\":true}"), "%s",
	      s);
	free(s);
}

/* An ERR_PTR(-12) carried into an int's -12: the pointer's function is the origin. */
static void test_err_ptr(void)
{
	struct why_counts c = { 0 };
	char *s;

	start(-12);
	ent(P, 2000, 0);
	ent(P_RET, 2500, -12);
	s = print(false, used(), &c);
	CHECK(strstr(s, "p(); /* = -12 (ENOMEM) */  <== origin"), "%s", s);
	free(s);
	start(-12);
	ent(P, 2000, 0);
	ent(P_RET, 2500, 0xffff888000001000ull);
	s = print(false, used(), &c);
	CHECK(strstr(s, "p(); /* = 0xffff888000001000 */\n"), "a pointer: %s", s);
	CHECK(strstr(s, "root_fn = -12 (ENOMEM) */  <== origin"), "the root its own: %s", s);
	free(s);
}

/* A function BTF does not type: an int's -22 (its upper half zero) is an errno, a pointer hex. */
static void test_untyped(void)
{
	struct why_counts c = { 0 };
	char *s;

	start(-22);
	ent(U, 2000, 0);
	ent(U_RET, 2500, 0xffffffea);
	ent(U, 3000, 0);
	ent(U_RET, 3500, 0xffff888000001000ull);
	s = print(false, used(), &c);
	CHECK(strstr(s, "u.part.0(); /* = -22 (EINVAL) */  <== origin\n"), "%s", s);
	CHECK(strstr(s, "u.part.0(); /* = 0xffff888000001000 */\n"), "%s", s);
	free(s);
	s = print(true, used(), &c);
	CHECK(strstr(s, "\"origin\":\"u.part.0\""), "%s", s);
	CHECK(strstr(s, "\"ret\":\"0xffff888000001000\"}"), "%s", s);
	free(s);
}

/* A log past its bounds: a's return not kept, 3 more not kept; marked, counted. */
static void test_cut_short(void)
{
	struct why_counts c = { 0 };
	char *s;

	start(-1);
	ent(B, 2000, 0);
	ent(A, 2100, 0);
	ent(A_RET, 2200, 0);
	ent(A, 2300, 0);
	lg.i.dropped = 3;
	s = print(false, used(), &c);
	CHECK(strstr(s, "|      a() {\n"), "%s", s);
	CHECK(strstr(s, "|      } /* a: return not kept */\n"), "%s", s);
	CHECK(strstr(s, "|    } /* b: return not kept */\n"), "%s", s);
	CHECK(strstr(s, "# cut short: 3 entries and returns past the log's bounds (16 deep, "
		      "128 entries) not kept\n"), "%s", s);
	CHECK_INT(c.cut, 1, "cut");
	free(s);
	s = print(true, used(), &c);
	CHECK(strstr(s, "\"cut\":3"), "%s", s);
	CHECK(strstr(s, "{\"func\":\"a\",\"returned\":false}"), "%s", s);
	free(s);
}

/* What is no log: too short, too many entries, an unknown probe, a return of nothing open. */
static void test_refused(void)
{
	struct why_counts c = { 0 };
	char *s;

	start(-1);
	ent(A, 2000, 0);
	s = print(false, used() - 1, &c);
	CHECK(!s[0], "short: %s", s);
	free(s);
	lg.i.n = KPT_WHY_ENTRIES + 1;
	s = print(false, sizeof(lg), &c);
	CHECK(!s[0], "n: %s", s);
	free(s);
	start(-1);
	ent(A, 2000, 0);
	lg.e[0].probe = NPROBES;
	s = print(false, used(), &c);
	CHECK(!s[0], "probe: %s", s);
	free(s);
	start(-1);
	ent(A_RET, 2000, 0);
	s = print(true, used(), &c);
	CHECK(!s[0], "a return first: %s", s);
	free(s);
	CHECK_INT(c.bad, 4, "bad");
	CHECK_INT(c.calls, 0, "calls");
}

int main(void)
{
	setup();
	test_handled_error();
	test_err_ptr();
	test_untyped();
	test_cut_short();
	test_refused();
	return check_report();
}
