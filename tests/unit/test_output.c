// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Decode and output: records built by hand the way the BPF side writes them
 * (header, fault bitmap, packed slots, strings behind), every type and edge,
 * checked against the exact trace line and JSON object; malformed records
 * rejected; and --dry-run's format checked against what a 6.18 kernel
 * printed for the same definitions (captured from tracefs, uprobe_events).
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "kptrace.h"
#include "out/output.h"
#include "prepare/explain.h"
#include "lang/spec.h"
#include "ev_layout.h"

#define DO_SYS_OPENAT2	0xffffffff81000100ull	/* size 0xe0 */
#define HELPER		0xffffffff810001e0ull	/* size 0x120 */
#define TRAMPOLINE	0xffffffff81000400ull
#define MOD_FUNC	0xffffffffc0001000ull	/* size 0x80, [mymod] */
#define MOD_FUNC2	0xffffffffc0001080ull	/* size 0x40, [mymod] */

static const char fake_kallsyms[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81000100 T do_sys_openat2\n"
	"ffffffff810001e0 t helper\n"
	"ffffffff81000300 t other\n"
	"ffffffff81000400 T __kretprobe_trampoline\n"
	"ffffffff81000410 T after_trampoline\n"
	"ffffffff81001000 B _end\n"
	"ffffffffc0001000 t mod_func\t[mymod]\n"
	"ffffffffc0001080 t mod_func2\t[mymod]\n"
	"ffffffffc00010c0 d mod_data\t[mymod]\n";

static struct ksyms *ks;

struct rec {
	unsigned char b[KPT_REC_MAX];
	size_t len;
};

static void rec_start(struct rec *r, const struct ev_desc *ev, uint32_t tid, const char *comm,
		      uint64_t ts, uint32_t cpu, uint64_t ip)
{
	struct kpt_rec_hdr h;

	memset(r, 0, sizeof(*r));
	memset(&h, 0, sizeof(h));
	h.kind = KPT_REC_EVENT;
	h.probe = (uint16_t)ev->index;
	h.ts = ts;
	h.ip = ip;
	h.tid = tid;
	h.tgid = tid > 1000 ? tid - 34 : tid;
	h.cpu = cpu;
	memcpy(h.comm, comm, strnlen(comm, KPT_COMM_LEN));
	memcpy(r->b, &h, sizeof(h));
	r->len = ev->fixed_size;
}

static void rec_put(struct rec *r, const struct ev_arg *a, uint32_t elem, uint64_t v)
{
	/* little-endian, as the BPF program stores it */
	memcpy(r->b + a->slot + elem * a->size, &v, a->size);
}

/* Append a string of n bytes (terminator included); s NULL: ftrace's fault, length 0. */
static void rec_str(struct rec *r, const struct ev_arg *a, uint32_t elem, const char *s, size_t n)
{
	uint32_t dl = (uint32_t)r->len;

	if (s) {
		memcpy(r->b + r->len, s, n);
		dl |= (uint32_t)n << 16;
		r->len += n;
	}
	memcpy(r->b + a->slot + 4 * elem, &dl, 4);
}

static void rec_cstr(struct rec *r, const struct ev_arg *a, uint32_t elem, const char *s)
{
	rec_str(r, a, elem, s, s ? strlen(s) + 1 : 0);
}

static void rec_fault(struct rec *r, int argi)
{
	r->b[KPT_HDR_SIZE + argi / 8] |= 1u << (argi % 8);
}

static size_t rec_end(struct rec *r)
{
	uint32_t size = (uint32_t)r->len;

	memcpy(r->b + offsetof(struct kpt_rec_hdr, size), &size, 4);
	return r->len;
}

/* Run an output function into memory; returns its text (caller frees), *rc its result. */
static char *run(int (*out)(FILE *, const struct ev_desc *, const struct ksyms *,
			    const void *, size_t),
		 const struct ev_desc *ev, const struct rec *r, size_t len, int *rc, size_t *n)
{
	char *buf = NULL;
	size_t sz = 0;
	FILE *f = open_memstream(&buf, &sz);

	if (!f) {
		perror("open_memstream");
		exit(2);
	}
	*rc = out(f, ev, ks, r->b, len);
	fclose(f);
	if (n)
		*n = sz;
	return buf;
}

static void check_out(const struct ev_desc *ev, struct rec *r, const char *text,
		      const char *json, const char *ctx)
{
	size_t len = rec_end(r);
	char *got;
	int rc;

	/* The BPF side records a kprobe's own (kernel-placed) address as ip. */
	if (ev->kind == SPEC_KPROBE)
		memcpy(r->b + offsetof(struct kpt_rec_hdr, ip), &ev->addr, sizeof(ev->addr));
	got = run(output_text, ev, r, len, &rc, NULL);
	CHECK_INT(rc, 0, ctx);
	CHECK_STR(got, text, ctx);
	free(got);
	got = run(output_json, ev, r, len, &rc, NULL);
	CHECK_INT(rc, 0, ctx);
	CHECK_STR(got, json, ctx);
	free(got);
}

#define ARG(n, t, sz)		{ .name = n, .type = SPEC_T_##t, .size = sz }
#define ARR(n, t, sz, c)	{ .name = n, .type = SPEC_T_##t, .size = sz, .count = c }
#define NARGS(a)		((int)(sizeof(a) / sizeof((a)[0])))

static const char kernel_ent_format[] =
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:unsigned long __probe_ip;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:s64 a;\toffset:16;\tsize:8;\tsigned:1;\n"
	"\tfield:u64 ax;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:__data_loc char[] s;\toffset:32;\tsize:4;\tsigned:1;\n"
	"\tfield:__data_loc char[] us;\toffset:36;\tsize:4;\tsigned:1;\n"
	"\tfield:u32 arr[];\toffset:40;\tsize:16;\tsigned:0;\n"
	"\tfield:u8 xarr[];\toffset:56;\tsize:3;\tsigned:0;\n"
	"\tfield:u8 c;\toffset:59;\tsize:1;\tsigned:0;\n"
	"\tfield:u8 c8;\toffset:60;\tsize:1;\tsigned:0;\n"
	"\tfield:u8 bf;\toffset:61;\tsize:1;\tsigned:0;\n"
	"\tfield:__data_loc char[] cm;\toffset:62;\tsize:4;\tsigned:1;\n"
	"\tfield:__data_loc char[] im;\toffset:66;\tsize:4;\tsigned:1;\n"
	"\tfield:__data_loc char[][3] sv;\toffset:70;\tsize:12;\tsigned:1;\n"
	"\tfield:s8 sb;\toffset:82;\tsize:1;\tsigned:1;\n"
	"\tfield:s16 sh;\toffset:83;\tsize:2;\tsigned:1;\n"
	"\tfield:s32 sw;\toffset:85;\tsize:4;\tsigned:1;\n"
	"\tfield:u32 xw;\toffset:89;\tsize:4;\tsigned:0;\n"
	"\tfield:u32 bad;\toffset:93;\tsize:4;\tsigned:0;\n"
	"\tfield:__data_loc char[] bads;\toffset:97;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"(%lx) a=%Ld ax=0x%Lx s=\\\"%s\\\" us=\\\"%s\\\" arr={%u,%u,%u,%u} xarr="
	"{0x%x,0x%x,0x%x} c='%c' c8=%u bf=%u cm=\\\"%s\\\" im=\\\"%s\\\" sv={\\\"%s\\\",\\\"%"
	"s\\\",\\\"%s\\\"} sb=%d sh=%d sw=%d xw=0x%x bad=%u bads=\\\"%s\\\"\", REC->__probe_i"
	"p, REC->a, REC->ax, __get_str(s), __get_str(us), REC->arr[0], REC->arr[1], REC->arr["
	"2], REC->arr[3], REC->xarr[0], REC->xarr[1], REC->xarr[2], REC->c, REC->c8, REC->bf,"
	" __get_str(cm), __get_str(im), __get_str(sv[0]), __get_str(sv[1]), __get_str(sv[2]),"
	" REC->sb, REC->sh, REC->sw, REC->xw, REC->bad, __get_str(bads)\n";

static const char kernel_ret_format[] =
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:unsigned long __probe_func;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long __probe_ret_ip;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:s64 rv;\toffset:24;\tsize:8;\tsigned:1;\n"
	"\n"
	"print fmt: \"(%lx <- %lx) rv=%Ld\", REC->__probe_func, REC->__probe_ret_ip, REC->rv"
	"\n";

static void test_scalars(void)
{
	struct ev_arg args[] = {
		ARG("u8", U8, 1), ARG("u16", U16, 2), ARG("u32", U32, 4), ARG("u64", U64, 8),
		ARG("s8", S8, 1), ARG("s16", S16, 2), ARG("s32", S32, 4), ARG("s64", S64, 8),
		ARG("x8", X8, 1), ARG("x16", X16, 2), ARG("x32", X32, 4), ARG("x64", X64, 8),
		ARG("s8b", S8, 1), ARG("x8z", X8, 1), ARG("ch", CHAR, 1), ARG("s32p", S32, 4),
		/* b4@2/8: the BPF side shifted already; the container prints as u8 */
		ARG("bf", U8, 1), ARG("s16p", S16, 2), ARG("s64m", S64, 8),
	};
	static const uint64_t vals[] = {
		0xff, 0xffff, 0xffffffff, UINT64_MAX,
		0x80, 0x8000, 0x80000000, 0x8000000000000000ull,
		0xff, 0xffff, 0xffffffff, UINT64_MAX,
		127, 0, 'A', 42,
		14, 0x7fff, (uint64_t)-1,
	};
	struct ev_desc ev = {
		.index = 3, .group = "kprobes", .event = "scalars", .kind = SPEC_KPROBE,
		.addr = DO_SYS_OPENAT2, .nargs = NARGS(args), .args = args,
	};
	struct rec r;
	int i;

	ev_layout(&ev);
	rec_start(&r, &ev, 1234, "bash", 12345678901234ull, 1, 0);
	for (i = 0; i < ev.nargs; i++)
		rec_put(&r, &args[i], 0, vals[i]);
	check_out(&ev, &r,
		  "            bash-1234    [001] ..... 12345.678901: scalars: "
		  "(do_sys_openat2+0x0/0xe0) u8=255 u16=65535 u32=4294967295 "
		  "u64=18446744073709551615 s8=-128 s16=-32768 s32=-2147483648 "
		  "s64=-9223372036854775808 x8=0xff x16=0xffff x32=0xffffffff "
		  "x64=0xffffffffffffffff s8b=127 x8z=0x0 ch='A' s32p=42 bf=14 s16p=32767 "
		  "s64m=-1\n",
		  "{\"ts\":12345678901234,\"cpu\":1,\"pid\":1200,\"tid\":1234,\"comm\":\"bash\","
		  "\"group\":\"kprobes\",\"event\":\"scalars\","
		  "\"probe\":\"do_sys_openat2+0x0/0xe0\",\"ip\":\"0xffffffff81000100\","
		  "\"args\":{\"u8\":255,\"u16\":65535,\"u32\":4294967295,"
		  "\"u64\":18446744073709551615,\"s8\":-128,\"s16\":-32768,"
		  "\"s32\":-2147483648,\"s64\":-9223372036854775808,\"x8\":\"0xff\","
		  "\"x16\":\"0xffff\",\"x32\":\"0xffffffff\",\"x64\":\"0xffffffffffffffff\","
		  "\"s8b\":127,\"x8z\":\"0x0\",\"ch\":\"A\",\"s32p\":42,\"bf\":14,"
		  "\"s16p\":32767,\"s64m\":-1}}\n",
		  "scalars");
}

/* char 0 is written as a raw NUL, as the kernel's "'%c'" does */
static void test_char_nul(void)
{
	struct ev_arg args[] = { ARG("c", CHAR, 1), ARG("q", CHAR, 1) };
	struct ev_desc ev = {
		.index = 0, .group = "g", .event = "e", .kind = SPEC_UPROBE,
		.nargs = NARGS(args), .args = args,
	};
	static const char want[] = "               t-100     [000] .....     0.000001: e: "
				   "(0x401106) c='\0' q='\"'\n";
	struct rec r;
	size_t len, n;
	char *got;
	int rc;

	ev_layout(&ev);
	rec_start(&r, &ev, 100, "t", 1000, 0, 0x401106);
	rec_put(&r, &args[0], 0, 0);
	rec_put(&r, &args[1], 0, '"');
	len = rec_end(&r);
	got = run(output_text, &ev, &r, len, &rc, &n);
	CHECK(rc == 0 && n == sizeof(want) - 1 && !memcmp(got, want, n), "char NUL: %s", got);
	free(got);
	got = run(output_json, &ev, &r, len, &rc, &n);
	CHECK(rc == 0 && strstr(got, "\"args\":{\"c\":\"\\u0000\",\"q\":\"\\\"\"}}\n"),
	      "char NUL json: %s", got);
	free(got);
}

/* The context line's corners: idle, rounding, wide values, a full comm. */
static void test_context(void)
{
	struct ev_desc ev = {
		.index = 1, .group = "kprobes", .event = "ctx", .kind = SPEC_KPROBE, .addr = 0,
	};
	struct rec r;

	ev_layout(&ev);
	rec_start(&r, &ev, 0, "swapper/3", 1000999500, 12, 0);
	check_out(&ev, &r, "          <idle>-0       [012] .....     1.001000: ctx: (0)\n",
		  "{\"ts\":1000999500,\"cpu\":12,\"pid\":0,\"tid\":0,\"comm\":\"swapper/3\","
		  "\"group\":\"kprobes\",\"event\":\"ctx\",\"probe\":\"0\",\"ip\":\"0x0\","
		  "\"args\":{}}\n",
		  "idle, rounding up");

	rec_start(&r, &ev, 4194304, "abcdefghijklmnop", 123456789012345678ull, 1234, 0);
	ev.addr = 0xffffffff90000000ull;
	check_out(&ev, &r,
		  "abcdefghijklmnop-4194304 [1234] ..... 123456789.012346: ctx: "
		  "(0xffffffff90000000)\n",
		  "{\"ts\":123456789012345678,\"cpu\":1234,\"pid\":4194270,\"tid\":4194304,"
		  "\"comm\":\"abcdefghijklmnop\",\"group\":\"kprobes\",\"event\":\"ctx\","
		  "\"probe\":\"0xffffffff90000000\",\"ip\":\"0xffffffff90000000\",\"args\":{}}\n",
		  "16-byte comm, wide fields, unknown address");

	rec_start(&r, &ev, 7, "a\"b\\c\x1f", 999, 0, 0);
	ev.addr = MOD_FUNC + 0x10;
	check_out(&ev, &r,
		  "          a\"b\\c\x1f-7       [000] .....     0.000001: ctx: "
		  "(mod_func+0x10/0x80 [mymod])\n",
		  "{\"ts\":999,\"cpu\":0,\"pid\":7,\"tid\":7,\"comm\":\"a\\\"b\\\\c\\u001f\","
		  "\"group\":\"kprobes\",\"event\":\"ctx\","
		  "\"probe\":\"mod_func+0x10/0x80 [mymod]\","
		  "\"ip\":\"0xffffffffc0001010\",\"args\":{}}\n",
		  "escaped comm, module address");
}

static void test_strings(void)
{
	struct ev_arg args[] = {
		ARG("s", STRING, 4), ARG("us", USTRING, 4), ARG("empty", STRING, 4),
		ARG("long", STRING, 4), ARG("f", STRING, 4), ARG("sp", STRING, 4),
		{ .name = "im", .type = SPEC_T_STRING, .size = 4, .data = "imm str" },
		ARG("cm", STRING, 4), ARG("emb", STRING, 4), ARG("last", STRING, 4),
	};
	struct ev_desc ev = {
		.index = 5, .group = "uprobes", .event = "strs", .kind = SPEC_UPROBE,
		.is_user = true, .uaddr = 0x401106, .nargs = NARGS(args), .args = args,
	};
	static const char sp[] = "tab\tq\"nl\n\x01\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xff"
				 "\xc0\xaf\xed\xa0\x80\xe2\x82";
	char *longs = malloc(KPT_STR_MAX), *text, *json;
	size_t tl = 1 << 16;
	struct rec r;

	memset(longs, 'x', KPT_STR_MAX - 1);
	longs[KPT_STR_MAX - 1] = '\0';
	ev_layout(&ev);
	rec_start(&r, &ev, 4242, "cat", 5000000, 2, 0x401106);
	rec_cstr(&r, &args[0], 0, "hello");
	rec_cstr(&r, &args[1], 0, "user");
	rec_cstr(&r, &args[2], 0, "");
	rec_str(&r, &args[3], 0, longs, KPT_STR_MAX);
	rec_cstr(&r, &args[4], 0, NULL);
	rec_fault(&r, 4);
	rec_str(&r, &args[5], 0, sp, sizeof(sp));
	rec_cstr(&r, &args[7], 0, "cat");
	rec_str(&r, &args[8], 0, "ab", 3);
	rec_cstr(&r, &args[9], 0, "end");

	text = malloc(tl);
	json = malloc(tl);
	snprintf(text, tl,
		 "             cat-4242    [002] .....     0.005000: strs: (0x401106) s=\"hello\" "
		 "us=\"user\" empty=\"\" long=\"%s\" f=(fault) sp=\"%s\" im=\"imm str\" "
		 "cm=\"cat\" emb=\"ab\" last=\"end\"\n", longs, sp);
	snprintf(json, tl,
		 "{\"ts\":5000000,\"cpu\":2,\"pid\":4208,\"tid\":4242,\"comm\":\"cat\","
		 "\"group\":\"uprobes\",\"event\":\"strs\",\"probe\":\"0x401106\","
		 "\"ip\":\"0x401106\",\"args\":{\"s\":\"hello\",\"us\":\"user\",\"empty\":\"\","
		 "\"long\":\"%s\",\"f\":null,"
		 "\"sp\":\"tab\\u0009q\\\"nl\\u000a\\u0001\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"
		 "\\u00ff\\u00c0\\u00af\\u00ed\\u00a0\\u0080\\u00e2\\u0082\","
		 "\"im\":\"imm str\",\"cm\":\"cat\",\"emb\":\"ab\",\"last\":\"end\"},"
		 "\"faults\":[\"f\"]}\n", longs);
	check_out(&ev, &r, text, json, "strings");
	CHECK_INT(r.len, ev.fixed_size + 6 + 5 + 1 + KPT_STR_MAX + sizeof(sp) + 4 + 3 + 4,
		  "record length");
	free(text);
	free(json);
	free(longs);
}

static void test_arrays_faults_symbols(void)
{
	struct ev_arg args[] = {
		ARG("bad", U32, 4), ARR("arr", U32, 4, 4), ARR("xarr", X8, 1, 3),
		ARR("sarr", S16, 2, 2), ARR("sv", STRING, 4, 3), ARR("farr", U64, 8, 2),
		ARG("sym", SYMBOL, 8), ARG("symu", SYMBOL, 8), ARG("sym0", SYMBOL, 8),
		ARG("symm", SYMBOL, 8), ARG("ss", SYMSTR, 8), ARR("symarr", SYMBOL, 8, 2),
		ARG("ssu", SYMSTR, 8), ARR("x64a", X64, 8, 1),
	};
	struct ev_desc ev = {
		.index = 7, .group = "kprobes", .event = "mix", .kind = SPEC_KPROBE,
		.addr = HELPER + 3, .nargs = NARGS(args), .args = args,
	};
	struct rec r;

	ev_layout(&ev);
	rec_start(&r, &ev, 1, "init", 0, 0, 0);
	rec_put(&r, &args[0], 0, 0xdeadbeef);	/* whatever is there: it faulted */
	rec_fault(&r, 0);
	rec_put(&r, &args[1], 0, 1);
	rec_put(&r, &args[1], 1, 0xffffffff);
	rec_put(&r, &args[1], 2, 3);
	rec_put(&r, &args[1], 3, 4);
	rec_put(&r, &args[2], 0, 1);
	rec_put(&r, &args[3], 0, 0xffff);
	rec_put(&r, &args[3], 1, 0x7fff);
	rec_cstr(&r, &args[4], 0, "one");
	rec_cstr(&r, &args[4], 1, NULL);
	rec_cstr(&r, &args[4], 2, "three");
	rec_fault(&r, 4);
	rec_put(&r, &args[5], 0, 5);
	rec_fault(&r, 5);
	rec_put(&r, &args[6], 0, DO_SYS_OPENAT2 + 0x10);
	rec_put(&r, &args[7], 0, 0x1234);
	rec_put(&r, &args[8], 0, 0);
	rec_put(&r, &args[9], 0, MOD_FUNC + 4);
	rec_put(&r, &args[10], 0, DO_SYS_OPENAT2 + 0x10);
	rec_put(&r, &args[11], 0, HELPER);
	rec_put(&r, &args[11], 1, 0xffffffff90000000ull);
	rec_put(&r, &args[12], 0, 0xffff888012345678ull);
	rec_put(&r, &args[13], 0, 0x10);
	check_out(&ev, &r,
		  "            init-1       [000] .....     0.000000: mix: (helper+0x3/0x120) "
		  "bad=(fault) arr={1,4294967295,3,4} xarr={0x1,0x0,0x0} sarr={-1,32767} "
		  "sv={\"one\",(fault),\"three\"} farr=(fault) sym=do_sys_openat2+0x10/0xe0 "
		  "symu=0x1234 sym0=0x0 symm=mod_func+0x4/0x80 [mymod] "
		  "ss=\"do_sys_openat2+0x10/0xe0\" symarr={helper+0x0/0x120,0xffffffff90000000} "
		  "ssu=\"0xffff888012345678\" x64a={0x10}\n",
		  "{\"ts\":0,\"cpu\":0,\"pid\":1,\"tid\":1,\"comm\":\"init\",\"group\":\"kprobes\","
		  "\"event\":\"mix\",\"probe\":\"helper+0x3/0x120\",\"ip\":\"0xffffffff810001e3\","
		  "\"args\":{\"bad\":null,\"arr\":[1,4294967295,3,4],\"xarr\":[\"0x1\",\"0x0\","
		  "\"0x0\"],\"sarr\":[-1,32767],\"sv\":[\"one\",null,\"three\"],\"farr\":null,"
		  "\"sym\":\"do_sys_openat2+0x10/0xe0\",\"symu\":\"0x1234\",\"sym0\":\"0x0\","
		  "\"symm\":\"mod_func+0x4/0x80 [mymod]\",\"ss\":\"do_sys_openat2+0x10/0xe0\","
		  "\"symarr\":[\"helper+0x0/0x120\",\"0xffffffff90000000\"],"
		  "\"ssu\":\"0xffff888012345678\",\"x64a\":[\"0x10\"]},"
		  "\"faults\":[\"bad\",\"sv\",\"farr\"]}\n",
		  "arrays, faults, symbols");
}

/* A string array its NULL ended (execve's argv:ustring[6]): printed up to it. */
static void rec_end_mark(struct rec *r, const struct ev_arg *a, uint32_t elem)
{
	uint32_t dl = KPT_DL_END;

	memcpy(r->b + a->slot + 4 * elem, &dl, 4);
}

static void test_null_ended(void)
{
	struct ev_arg args[] = { ARR("argv", USTRING, 4, 6), ARR("none", STRING, 4, 2),
				 ARR("plain", STRING, 4, 1) };
	struct ev_desc ev = {
		.index = 3, .group = "syscalls", .event = "sys_enter_execve",
		.kind = SPEC_TRACEPOINT, .nargs = NARGS(args), .args = args,
	};
	struct rec r;
	size_t len;
	int e;

	args[0].null_end = args[1].null_end = true;
	ev_layout(&ev);
	rec_start(&r, &ev, 1200, "sh", 0, 1, 0);
	rec_cstr(&r, &args[0], 0, "ls");
	rec_cstr(&r, &args[0], 1, "");
	rec_cstr(&r, &args[0], 2, "-l");
	for (e = 3; e < 6; e++)
		rec_end_mark(&r, &args[0], e);
	rec_end_mark(&r, &args[1], 0);
	rec_end_mark(&r, &args[1], 1);
	rec_cstr(&r, &args[2], 0, "p");
	len = rec_end(&r);
	CHECK_INT(decode_check(&ev, r.b, len), 0, "slots past the NULL are no strings");
	CHECK_INT(decode_count(&args[0], r.b), 3, "argv: three strings before its NULL");
	CHECK_INT(decode_count(&args[1], r.b), 0, "an array whose first pointer was NULL");
	check_out(&ev, &r,
		  "              sh-1200    [001] .....     0.000000: sys_enter_execve: "
		  "argv={\"ls\",\"\",\"-l\"} none={} plain={\"p\"}\n",
		  "{\"ts\":0,\"cpu\":1,\"pid\":1166,\"tid\":1200,\"comm\":\"sh\","
		  "\"group\":\"syscalls\",\"event\":\"sys_enter_execve\","
		  "\"args\":{\"argv\":[\"ls\",\"\",\"-l\"],\"none\":[],\"plain\":[\"p\"]}}\n",
		  "a NULL-terminated string array");
	/* a string after the end mark: not what the BPF side writes */
	rec_start(&r, &ev, 1200, "sh", 0, 1, 0);
	rec_cstr(&r, &args[0], 0, "ls");
	rec_end_mark(&r, &args[0], 1);
	rec_cstr(&r, &args[0], 2, "-l");
	for (e = 3; e < 6; e++)
		rec_end_mark(&r, &args[0], e);
	rec_end_mark(&r, &args[1], 0);
	rec_end_mark(&r, &args[1], 1);
	rec_cstr(&r, &args[2], 0, "p");
	len = rec_end(&r);
	CHECK_INT(decode_check(&ev, r.b, len), -EINVAL, "a string past the NULL is malformed");
	/* an end mark in an array no NULL ends (the kprobe form, +0(%si):string[3]) */
	rec_start(&r, &ev, 1200, "sh", 0, 1, 0);
	for (e = 0; e < 6; e++)
		rec_end_mark(&r, &args[0], e);
	rec_end_mark(&r, &args[1], 0);
	rec_end_mark(&r, &args[1], 1);
	rec_end_mark(&r, &args[2], 0);
	len = rec_end(&r);
	CHECK_INT(decode_check(&ev, r.b, len), -EINVAL, "an end mark where no NULL ends");
}

static void test_return_probes(void)
{
	struct ev_arg args[] = { ARG("rv", S64, 8) };
	struct ev_desc ev = {
		.index = 2, .group = "kprobes", .event = "ret", .kind = SPEC_KRETPROBE,
		.is_return = true, .addr = DO_SYS_OPENAT2, .func = "do_sys_openat2",
		.nargs = NARGS(args), .args = args,
	};
	struct ev_desc uev = {
		.index = 2, .group = "uprobes", .event = "uret", .kind = SPEC_URETPROBE,
		.is_return = true, .is_user = true, .uaddr = 0x401106,
		.nargs = NARGS(args), .args = args,
	};
	struct rec r;

	ev_layout(&ev);
	rec_start(&r, &ev, 2000, "sh", 3000000000ull, 0, HELPER + 5);
	rec_put(&r, &args[0], 0, (uint64_t)-2);
	check_out(&ev, &r,
		  "              sh-2000    [000] .....     3.000000: ret: "
		  "(helper+0x5/0x120 <- do_sys_openat2) rv=-2\n",
		  "{\"ts\":3000000000,\"cpu\":0,\"pid\":1966,\"tid\":2000,\"comm\":\"sh\","
		  "\"group\":\"kprobes\",\"event\":\"ret\","
		  "\"probe\":\"helper+0x5/0x120 <- do_sys_openat2\","
		  "\"func\":\"0xffffffff81000100\",\"ret_ip\":\"0xffffffff810001e5\","
		  "\"args\":{\"rv\":-2}}\n",
		  "kretprobe");

	/* a module function prints without its module after "<-" (kallsyms_lookup()) */
	ev.addr = MOD_FUNC;
	rec_start(&r, &ev, 2000, "sh", 3000000000ull, 0, MOD_FUNC2 + 8);
	check_out(&ev, &r,
		  "              sh-2000    [000] .....     3.000000: ret: "
		  "(mod_func2+0x8/0x40 [mymod] <- mod_func) rv=0\n",
		  "{\"ts\":3000000000,\"cpu\":0,\"pid\":1966,\"tid\":2000,\"comm\":\"sh\","
		  "\"group\":\"kprobes\",\"event\":\"ret\","
		  "\"probe\":\"mod_func2+0x8/0x40 [mymod] <- mod_func\","
		  "\"func\":\"0xffffffffc0001000\",\"ret_ip\":\"0xffffffffc0001088\","
		  "\"args\":{\"rv\":0}}\n",
		  "kretprobe in a module");

	/* unknown function: "0x%08lx"; return address 0: "0"; the trampoline is named so */
	ev.addr = 0x1234;
	rec_start(&r, &ev, 2000, "sh", 0, 0, 0);
	check_out(&ev, &r,
		  "              sh-2000    [000] .....     0.000000: ret: "
		  "(0 <- 0x00001234) rv=0\n",
		  "{\"ts\":0,\"cpu\":0,\"pid\":1966,\"tid\":2000,\"comm\":\"sh\","
		  "\"group\":\"kprobes\",\"event\":\"ret\",\"probe\":\"0 <- 0x00001234\","
		  "\"func\":\"0x1234\",\"ret_ip\":\"0x0\",\"args\":{\"rv\":0}}\n",
		  "kretprobe unknown");
	ev.addr = DO_SYS_OPENAT2;
	rec_start(&r, &ev, 2000, "sh", 0, 0, TRAMPOLINE);
	check_out(&ev, &r,
		  "              sh-2000    [000] .....     0.000000: ret: "
		  "([unknown/kretprobe'd] <- do_sys_openat2) rv=0\n",
		  "{\"ts\":0,\"cpu\":0,\"pid\":1966,\"tid\":2000,\"comm\":\"sh\","
		  "\"group\":\"kprobes\",\"event\":\"ret\","
		  "\"probe\":\"[unknown/kretprobe'd] <- do_sys_openat2\","
		  "\"func\":\"0xffffffff81000100\",\"ret_ip\":\"0xffffffff81000400\","
		  "\"args\":{\"rv\":0}}\n",
		  "kretprobe trampoline");

	ev_layout(&uev);
	rec_start(&r, &uev, 2000, "sh", 0, 0, 0x401193);
	rec_put(&r, &args[0], 0, 7);
	check_out(&uev, &r,
		  "              sh-2000    [000] .....     0.000000: uret: "
		  "(0x401193 <- 0x401106) rv=7\n",
		  "{\"ts\":0,\"cpu\":0,\"pid\":1966,\"tid\":2000,\"comm\":\"sh\","
		  "\"group\":\"uprobes\",\"event\":\"uret\",\"probe\":\"0x401193 <- 0x401106\","
		  "\"func\":\"0x401106\",\"ret_ip\":\"0x401193\",\"args\":{\"rv\":7}}\n",
		  "uretprobe");
}

static void check_bad(const struct ev_desc *ev, struct rec *r, size_t len, const char *ctx)
{
	char *got;
	size_t n;
	int rc;

	CHECK_INT(decode_check(ev, r->b, len), -EINVAL, ctx);
	got = run(output_text, ev, r, len, &rc, &n);
	CHECK(rc == -EINVAL && n == 0, "text: rc %d, %zu bytes in %s", rc, n, ctx);
	free(got);
	got = run(output_json, ev, r, len, &rc, &n);
	CHECK(rc == -EINVAL && n == 0, "json: rc %d, %zu bytes in %s", rc, n, ctx);
	free(got);
}

static void test_malformed(void)
{
	struct ev_arg args[] = { ARG("n", U32, 4), ARG("s", STRING, 4), ARR("sv", STRING, 4, 2) };
	struct ev_desc ev = {
		.index = 9, .group = "g", .event = "e", .kind = SPEC_KPROBE,
		.addr = DO_SYS_OPENAT2, .nargs = NARGS(args), .args = args,
	};
	struct ev_arg bad_args[] = { ARG("n", U32, 4) };
	struct ev_desc bad_ev = ev;
	struct rec r, tmp;
	uint32_t dl, v;
	size_t len;

	ev_layout(&ev);
	rec_start(&r, &ev, 5, "x", 0, 0, 0);
	rec_cstr(&r, &args[1], 0, "abc");
	rec_cstr(&r, &args[2], 0, "d");
	rec_cstr(&r, &args[2], 1, NULL);
	len = rec_end(&r);
	CHECK_INT(decode_check(&ev, r.b, len), 0, "well formed");

	check_bad(&ev, &r, len - 1, "size field larger than the record");
	tmp = r;
	v = (uint32_t)len + 1;
	memcpy(tmp.b + offsetof(struct kpt_rec_hdr, size), &v, 4);
	check_bad(&ev, &tmp, len, "size field mismatch");
	check_bad(&ev, &r, KPT_HDR_SIZE - 1, "shorter than a header");
	CHECK_INT(decode_check(&ev, NULL, 100), -EINVAL, "NULL record");
	tmp = r;
	tmp.b[0] = 2;
	check_bad(&ev, &tmp, len, "unknown kind");
	tmp = r;
	tmp.b[2] = 8;
	check_bad(&ev, &tmp, len, "another probe's record");

	/* shorter than the fixed part */
	tmp = r;
	tmp.len = ev.fixed_size - 1;
	check_bad(&ev, &tmp, rec_end(&tmp), "shorter than fixed_size");

	/* data_loc pointing into the fixed part */
	tmp = r;
	dl = 4u << 16 | (ev.fixed_size - 2);
	memcpy(tmp.b + args[1].slot, &dl, 4);
	check_bad(&ev, &tmp, len, "data_loc inside the slots");

	/* data_loc past the end */
	tmp = r;
	dl = 4u << 16 | (uint32_t)(len - 3);
	memcpy(tmp.b + args[1].slot, &dl, 4);
	check_bad(&ev, &tmp, len, "data_loc past the end");
	tmp = r;
	dl = 0xffffu << 16 | 0xffff;
	memcpy(tmp.b + args[2].slot + 4, &dl, 4);
	check_bad(&ev, &tmp, len, "array element data_loc far out");

	/* unterminated: the length excludes the terminator */
	tmp = r;
	memcpy(&dl, tmp.b + args[1].slot, 4);
	dl -= 1u << 16;
	memcpy(tmp.b + args[1].slot, &dl, 4);
	check_bad(&ev, &tmp, len, "unterminated string");
	tmp = r;
	tmp.b[len - 1] = 'z';
	check_bad(&ev, &tmp, len, "last string unterminated");

	/* a fault (length 0) may carry any offset */
	tmp = r;
	dl = 0xffff;
	memcpy(tmp.b + args[2].slot + 4, &dl, 4);
	CHECK_INT(decode_check(&ev, tmp.b, len), 0, "fault with a stray offset");

	/* what the BPF side never sends: every byte is the event's own */
	tmp = r;
	tmp.b[offsetof(struct kpt_rec_hdr, nkstack)] = 1;
	check_bad(&ev, &tmp, len, "a kernel stack's frame count in a probe without -K");
	tmp = r;
	tmp.b[offsetof(struct kpt_rec_hdr, nustack)] = 1;
	check_bad(&ev, &tmp, len, "a user stack's frame count in a probe without -U");
	{
		/* -K: two frames after the strings, the record's end */
		uint64_t ips[2] = { 0xffffffff81000010ull, 0xffffffff81000200ull };
		struct dec_stacks st;
		uint16_t nk = 2;

		ev.kstack = true;
		tmp = r;
		memcpy(tmp.b + len, ips, sizeof(ips));
		memcpy(tmp.b + offsetof(struct kpt_rec_hdr, nkstack), &nk, 2);
		v = (uint32_t)(len + sizeof(ips));
		memcpy(tmp.b + offsetof(struct kpt_rec_hdr, size), &v, 4);
		CHECK_INT(decode_check(&ev, tmp.b, len + sizeof(ips)), 0, "-K: two frames at the end");
		decode_stacks(tmp.b, len + sizeof(ips), &st);
		CHECK_INT(st.nk, 2, "-K: the frames counted");
		CHECK_INT(st.nu, 0, "-K: no user frames");
		CHECK_INT((long long)(st.k - tmp.b), (long long)len, "-K: the frames after the strings");
		CHECK_INT(stack_kip(st.k, 1) == ips[1], 1, "-K: the second frame read back");
		nk = 3;		/* one frame more than the record holds past its strings */
		memcpy(tmp.b + offsetof(struct kpt_rec_hdr, nkstack), &nk, 2);
		check_bad(&ev, &tmp, len + sizeof(ips), "-K: more frames than the record's end holds");
		nk = KPT_STACK_MAX + 1;
		memcpy(tmp.b + offsetof(struct kpt_rec_hdr, nkstack), &nk, 2);
		check_bad(&ev, &tmp, len + sizeof(ips), "-K: more frames than any stack has");
		ev.kstack = false;
	}
	tmp = r;
	tmp.b[ev.fixed_size + 1] = '\0';	/* "a\0c": a byte past a terminator */
	check_bad(&ev, &tmp, len, "bytes past a string's terminator");
	tmp = r;
	dl = 0xffff;	/* "abc" made a fault: its bytes left as a gap */
	memcpy(tmp.b + args[1].slot, &dl, 4);
	check_bad(&ev, &tmp, len, "a gap between the slots and the strings");
	tmp = r;
	tmp.b[len] = 'x';
	v = (uint32_t)len + 1;
	memcpy(tmp.b + offsetof(struct kpt_rec_hdr, size), &v, 4);
	check_bad(&ev, &tmp, len + 1, "a byte after the last string");

	/* the desc itself is checked: a slot beyond the fixed part */
	bad_ev.args = bad_args;
	bad_ev.nargs = 1;
	bad_args[0].slot = ev.fixed_size;
	bad_ev.fixed_size = ev.fixed_size;
	CHECK_INT(decode_check(&bad_ev, r.b, len), -EINVAL, "slot outside fixed part");
	bad_args[0].slot = KPT_HDR_SIZE + 1;
	bad_args[0].size = 3;
	CHECK_INT(decode_check(&bad_ev, r.b, len), -EINVAL, "bad size");
	bad_args[0].size = 4;
	bad_args[0].slot = KPT_HDR_SIZE;
	CHECK_INT(decode_check(&bad_ev, r.b, len), -EINVAL, "slot over the bitmap");
}

static void test_decode(void)
{
	struct ev_arg args[10] = {
		ARG("a0", S8, 1), ARG("a1", S16, 2), ARG("a2", S32, 4), ARG("a3", S64, 8),
		ARG("a4", U8, 1), ARG("a5", U16, 2), ARG("a6", U32, 4), ARG("a7", U64, 8),
		ARG("a8", STRING, 4), ARG("a9", STRING, 4),
	};
	struct ev_desc ev = {
		.index = 4, .group = "g", .event = "e", .kind = SPEC_KPROBE,
		.nargs = NARGS(args), .args = args,
	};
	struct dec_val v;
	const char *s;
	struct rec r;
	size_t n;
	int i;

	ev_layout(&ev);
	CHECK_INT(args[0].slot, KPT_HDR_SIZE + 2, "two bitmap bytes for ten arguments");
	rec_start(&r, &ev, 5, "x", 0, 0, 0);
	rec_put(&r, &args[0], 0, 0xfe);
	rec_put(&r, &args[1], 0, 0xfffe);
	rec_put(&r, &args[2], 0, 0xfffffffe);
	rec_put(&r, &args[3], 0, (uint64_t)-2);
	rec_put(&r, &args[4], 0, 0xfe);
	rec_put(&r, &args[5], 0, 0x7ffe);
	rec_put(&r, &args[6], 0, 0x7ffffffe);
	rec_put(&r, &args[7], 0, 0x7ffffffffffffffeull);
	rec_cstr(&r, &args[8], 0, "str");
	rec_cstr(&r, &args[9], 0, NULL);
	rec_fault(&r, 0);
	rec_fault(&r, 7);
	rec_fault(&r, 8);
	rec_fault(&r, 9);
	rec_end(&r);
	for (i = 0; i < 4; i++) {
		v = decode_scalar(&args[i], r.b, 0);
		CHECK(v.s == -2, "sign extension, size %u: %lld", args[i].size, (long long)v.s);
	}
	CHECK(decode_scalar(&args[0], r.b, 0).u == 0xfe, "u of s8");
	CHECK(decode_scalar(&args[4], r.b, 0).s == -2, "s of u8 0xfe");
	CHECK(decode_scalar(&args[5], r.b, 0).s == 0x7ffe, "positive s16");
	CHECK(decode_scalar(&args[7], r.b, 0).u == 0x7ffffffffffffffeull, "u64");
	for (i = 0; i < 10; i++)
		CHECK(decode_faulted(&ev, r.b, i) == (i == 0 || i >= 7), "fault bit %d", i);
	CHECK(!decode_faulted(&ev, r.b, -1) && !decode_faulted(&ev, r.b, 10), "out of range");
	s = decode_string(&args[8], r.b, r.len, 0, &n);
	CHECK(s && n == 3 && !memcmp(s, "str", 4), "decode_string");
	s = decode_string(&args[9], r.b, r.len, 0, &n);
	CHECK(!s && n == 0, "faulted string is NULL");
	s = decode_string(&args[8], r.b, r.len - 1, 0, &n);
	CHECK(!s, "decode_string bounds-checks too");
}

/* An ev_desc for a parsed definition, as compile.c makes it (no slots needed here). */
static void ev_from_spec(struct ev_desc *ev, struct ev_arg *args, const struct spec_probe *p)
{
	int i;

	memset(ev, 0, sizeof(*ev));
	snprintf(ev->group, sizeof(ev->group), "%s", p->group);
	snprintf(ev->event, sizeof(ev->event), "%s", p->event);
	ev->kind = p->kind;
	ev->is_return = p->kind == SPEC_KRETPROBE || p->kind == SPEC_URETPROBE;
	ev->is_user = p->kind == SPEC_UPROBE || p->kind == SPEC_URETPROBE;
	ev->path = p->path;
	ev->uoffset = p->uoffset;
	ev->spec = p;
	ev->nargs = p->nargs;
	ev->args = args;
	for (i = 0; i < p->nargs; i++) {
		const struct spec_arg *a = &p->args[i];
		struct ev_arg *e = &args[i];

		memset(e, 0, sizeof(*e));
		snprintf(e->name, sizeof(e->name), "%s", a->name);
		e->type = a->type;
		if (a->bf_width)
			e->type = a->bf_container == 8 ? SPEC_T_U8 : a->bf_container == 16 ?
				  SPEC_T_U16 : a->bf_container == 32 ? SPEC_T_U32 : SPEC_T_U64;
		e->count = a->count;
		e->size = a->type == SPEC_T_SYMSTR ? 8 : (uint8_t)spec_type_size(e->type);
		if (a->ops[0].kind == SPEC_OP_DATA)
			e->data = a->ops[0].data;
		e->text = a->text;
		e->spec = a;
	}
	ev_layout(ev);
}

static char *explain(const char *def, struct spec_probe *p, struct ev_arg *args)
{
	struct spec_error err;
	struct ev_desc ev;
	char *buf = NULL;
	size_t sz = 0;
	FILE *f;
	int rc;

	rc = spec_parse(def, p, &err);
	CHECK(rc == 0, "spec_parse: %s at %d", spec_strerror(err.code), err.col);
	if (rc)
		return NULL;
	ev_from_spec(&ev, args, p);
	f = open_memstream(&buf, &sz);
	explain_event(f, &ev);
	fclose(f);
	return buf;
}

/* From "format:" on, ours must be the kernel's byte for byte. */
static void check_format(const char *got, const char *name, const char *want, const char *ctx)
{
	char head[128];
	const char *p;

	snprintf(head, sizeof(head), "\nname: %s\nID: (none)\n", name);
	p = got ? strstr(got, head) : NULL;
	CHECK(p != NULL, "format header in %s", ctx);
	if (p)
		CHECK_STR(p + strlen(head), want, ctx);
}

static void test_explain(void)
{
	static const char ent[] =
		"p:kptverify/ent /tmp/kptv/t_nopie:0x1106 a=%di:s64 ax=%di:x64 s=+0(%si):string "
		"us=+0(%si):ustring arr=+0(%dx):u32[4] xarr=+0(%dx):x8[3] c=%cx:char c8=%cx:u8 "
		"bf=%di:b4@2/8 cm=$comm im=\\\"immstr\" sv=+0(%r8):string[3] sb=%di:s8 "
		"sh=%di:s16 sw=%di:s32 xw=%di:x32 bad=+0(%ax):u32 bads=+0(%ax):string";
	static const char ret[] = "r:kptverify/ret /tmp/kptv/t_nopie:0x1106 rv=$retval:s64";
	static const char kp[] =
		"p:kprobes/myopen do_sys_openat2 dfd=$arg1:s32 path=+0($arg2):string "
		"fl=+8(+16(%si)):u32 j=@jiffies:u64 ss=%di:symstr sy=%di:symbol "
		"st=$stack3 a7=$arg7 neg=-8(%bp):s16 um=+u4(%si):x32";
	struct ev_arg args[64];
	struct spec_probe p;
	char *got;

	memset(&p, 0, sizeof(p));
	got = explain(ent, &p, args);
	check_format(got, "ent", kernel_ent_format, "uprobe format as 6.18 prints it");
	CHECK(got && strstr(got, "  s: string  (s=+0(%si):string)\n"
			       "      record: +"), "arg header");
	CHECK(got && strstr(got, "      from register %si (pt_regs+0x68)\n"
			       "      then the string at value + 0x0 "
			       "(user memory of the traced process)\n"), "string fetch");
	CHECK(got && strstr(got, "  bf: u8 b4@2/8"), "bitfield type");
	CHECK(got && strstr(got, "      then bits 2..5 of the u8, printed as u8\n"), "bitfield");
	CHECK(got && strstr(got, "      then 4 x 4 bytes at value + 0x0"), "array");
	CHECK(got && strstr(got, "      then 3 string pointers at value + 0x0, and the strings"),
	      "string array");
	CHECK(got && strstr(got, "the immediate string \"immstr\": printed as is"), "imm");
	CHECK(got && strstr(got, "      record: nothing; printed from the definition\n"),
	      "imm record");
	free(got);
	spec_free(&p);

	memset(&p, 0, sizeof(p));
	got = explain(ret, &p, args);
	check_format(got, "ret", kernel_ret_format, "uretprobe format as 6.18 prints it");
	CHECK(got && strstr(got, "from $retval: the return value register, %ax (pt_regs+0x50)"),
	      "retval");
	free(got);
	spec_free(&p);

	memset(&p, 0, sizeof(p));
	got = explain(kp, &p, args);
	CHECK(got && strstr(got, "from $arg1 = %di (pt_regs+0x70) by the calling convention"),
	      "arg1");
	CHECK(got && strstr(got, "from $arg2 = %si (pt_regs+0x68) by the calling convention\n"
			       "      then the string at value + 0x0 (user memory if the "
			       "address < TASK_SIZE, else kernel, as ftrace)\n"), "arg2 string");
	CHECK(got && strstr(got, "      then the pointer *(u64 *)(value + 0x10) (user memory "
			       "if the address < TASK_SIZE, else kernel, as ftrace)\n"
			       "      then 4 bytes at value + 0x8"), "deref chain");
	CHECK(got && strstr(got, "from the address of jiffies (kallsyms, at load)\n"
			       "      then 8 bytes at value + 0x0"), "@sym");
	CHECK(got && strstr(got, "$stack3: stack slot 3, *(%sp + 24) (kernel stack)"), "stack");
	CHECK(got && strstr(got, "$arg7: stack slot 1, *(%sp + 8), by the calling convention"),
	      "arg7");
	CHECK(got && strstr(got, "      then 2 bytes at value - 0x8"), "negative offset");
	CHECK(got && strstr(got, "      then 4 bytes at value + 0x4 (user memory)\n"), "+u");
	CHECK(got && strstr(got, "kept as the address; printed as the string sprint_symbol()"),
	      "symstr");
	CHECK(got && strstr(got, "\tfield:__data_loc char[] ss;\toffset:36;\tsize:4;\tsigned:1;\n"
			       "\tfield:u64 sy;\toffset:40;\tsize:8;\tsigned:0;\n"
			       "\tfield:u64 st;\toffset:48;"), "kprobe fields");
	CHECK(got && strstr(got, "print fmt: \"(%lx) dfd=%d path=\\\"%s\\\" fl=%u j=%Lu "
			       "ss=\\\"%s\\\" sy=%pS st=0x%Lx a7=0x%Lx neg=%d um=0x%x\", "
			       "REC->__probe_ip, REC->dfd, __get_str(path), REC->fl, REC->j, "
			       "__get_str(ss), REC->sy, REC->st, REC->a7, REC->neg, REC->um\n"),
	      "kprobe print fmt");
	free(got);
	spec_free(&p);
}

static char *write_tmp(const char *text)
{
	static char path[64];
	size_t n = strlen(text);
	int fd;

	strcpy(path, "/tmp/kpt_kallsyms_XXXXXX");
	fd = mkstemp(path);
	if (fd < 0 || write(fd, text, n) != (ssize_t)n) {
		perror("mkstemp/write");
		exit(2);
	}
	close(fd);
	return path;
}

int main(void)
{
	char *path = write_tmp(fake_kallsyms);

	ks = ksyms_load(path);
	unlink(path);
	if (!ks) {
		perror("ksyms_load");
		return 2;
	}
	test_scalars();
	test_char_nul();
	test_context();
	test_strings();
	test_arrays_faults_symbols();
	test_null_ended();
	test_return_probes();
	test_malformed();
	test_decode();
	test_explain();
	ksyms_free(ks);
	return check_report();
}
