// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * kptrace why's trees (out/whytree.c) from logs made by hand, as
 * bpf/why.bpf.h writes them: the origin is the call the error came up
 * from, not an earlier one whose error its caller handled; an errno
 * carried from a pointer's ERR_PTR, and from a function BTF does not type
 * (an int's errno in its low half); a call whose return the log did not
 * keep, and a log cut short, marked and counted; records that are no log
 * refused, nothing printed; the root's entry arguments in the header, in
 * JSON, faulted, too long to keep, malformed.
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

/* Entry i of the log: after the root's record, as bpf/why.bpf.h lays them. */
static struct kpt_why_ent *entry(uint32_t i)
{
	return (struct kpt_why_ent *)(lg.body + KPT_WHY_ENT_OFF(lg.i.args_len)) + i;
}

static void ent(int probe, uint64_t ts, int64_t ret)
{
	struct kpt_why_ent *e = entry(lg.i.n++);

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

	struct why_print o = { .f = f, .json = json, .evs = evs, .nevs = NPROBES };

	whytree_print(&o, &lg, len, c);
	fclose(f);
	return buf;
}

static size_t used(void)
{
	return KPT_WHY_HDR_SIZE + KPT_WHY_ENT_OFF(lg.i.args_len) +
	       lg.i.n * sizeof(struct kpt_why_ent);
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
	entry(0)->probe = NPROBES;
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

/*
 * The root's arguments (why 'root_fn dfd=%di:s32 name=+0(%si):string'):
 * its entry record at the start of the body as kpt_why_start() copies it,
 * laid out as the compiler lays a record out (the header, one byte of
 * fault bitmap, then the slots, then the strings), the entries after it
 * at the next 8 bytes.
 */
static struct ev_arg root_args[] = {
	{ .name = "dfd", .type = SPEC_T_S32, .size = 4, .slot = KPT_HDR_SIZE + 1 },
	{ .name = "name", .type = SPEC_T_STRING, .size = 4, .slot = KPT_HDR_SIZE + 5 },
};
#define ROOT_FIXED (KPT_HDR_SIZE + 9)

/* The root's record with dfd and name (NULL: its read faulted, data_loc length 0). */
static void root_record(int32_t dfd, const char *name)
{
	struct kpt_rec_hdr h = { .kind = KPT_REC_EVENT, .probe = ROOT, .tid = 42, .tgid = 42 };
	uint32_t len = ROOT_FIXED, dl = ROOT_FIXED;

	memcpy(lg.body + root_args[0].slot, &dfd, 4);
	if (name) {
		memcpy(lg.body + len, name, strlen(name) + 1);
		len += (uint32_t)strlen(name) + 1;
		dl |= (uint32_t)(strlen(name) + 1) << 16;
	}
	memcpy(lg.body + root_args[1].slot, &dl, 4);
	h.size = len;
	memcpy(lg.body, &h, sizeof(h));
	lg.i.args_len = len;
}

static void test_root_args(void)
{
	struct why_counts c = { 0 };
	char *s;

	evs[ROOT].nargs = 2;
	evs[ROOT].args = root_args;
	evs[ROOT].fixed_size = ROOT_FIXED;
	start(-2);
	root_record(-100, "/etc/nope");	/* 83 bytes: the entries at body + 88 */
	ent(A, 2000, 0);
	ent(A_RET, 2500, -2);
	CHECK_INT(used(), KPT_WHY_HDR_SIZE + 88 + 2 * sizeof(struct kpt_why_ent), "size");
	s = print(false, used(), &c);
	CHECK(strstr(s, "# why: root_fn(dfd=-100 name=\"/etc/nope\") = -2 (ENOENT) in 8.000 us: "
		      "app-42 (pid 42)"), "%s", s);
	CHECK(strstr(s, "a(); /* = -2 (ENOENT) */  <== origin\n"), "the tree after it: %s", s);
	free(s);
	s = print(true, used(), &c);
	CHECK(strstr(s, ",\"cut\":0,\"args\":{\"dfd\":-100,\"name\":\"/etc/nope\"},"), "%s", s);
	CHECK(strstr(s, "\"origin\":\"a\""), "%s", s);
	free(s);
	/* a string whose read faulted: ftrace's "(fault)", JSON's null */
	start(-2);
	root_record(3, NULL);
	ent(A, 2000, 0);
	ent(A_RET, 2500, -2);
	s = print(false, used(), &c);
	CHECK(strstr(s, "# why: root_fn(dfd=3 name=(fault)) = -2 (ENOENT)"), "%s", s);
	free(s);
	s = print(true, used(), &c);
	CHECK(strstr(s, "\"args\":{\"dfd\":3,\"name\":null}"), "%s", s);
	free(s);
	/* a record too long for the log: not kept, its size said */
	start(-2);
	lg.i.args_lost = 2000;
	s = print(false, used(), &c);
	CHECK(strstr(s, "# why: root_fn(arguments not kept: 2000 bytes, the log keeps 1016) = -2"),
	      "%s", s);
	free(s);
	s = print(true, used(), &c);
	CHECK(strstr(s, "\"args_lost\":2000,"), "%s", s);
	free(s);
	CHECK_INT(c.calls, 6, "calls");
	/* a record that is none: its string past its length, a length past the bound */
	start(-2);
	root_record(-100, "/etc/nope");
	lg.i.args_len = ROOT_FIXED + 2;
	s = print(false, used(), &c);
	CHECK(!s[0], "string past the record: %s", s);
	free(s);
	start(-2);
	lg.i.args_len = KPT_WHY_ARGS_MAX + 1;
	s = print(false, sizeof(lg), &c);
	CHECK(!s[0], "past the bound: %s", s);
	free(s);
	CHECK_INT(c.bad, 2, "bad");
	evs[ROOT].nargs = 0;
}

int main(void)
{
	setup();
	test_handled_error();
	test_err_ptr();
	test_untyped();
	test_cut_short();
	test_refused();
	test_root_args();
	return check_report();
}
