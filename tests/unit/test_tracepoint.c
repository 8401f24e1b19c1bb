// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Tracepoint formats: fields, and which of them the kernel's print fmt shows
 * as code addresses (%pS/%ps/%pB: printed as symbols when untyped), against
 * made-up format files: conversions that take no argument (%%) or two (%*d),
 * arguments with commas and quotes inside, casts, and what is no plain field.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "kptrace.h"
#include "sys/tracepoint.h"

#define COMMON								\
	"name: ev\nID: 42\nformat:\n"					\
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

static const struct {
	const char *label, *text;
	const char *symbols;	/* the fields marked, in order, space-separated */
} cases[] = {
	{ "kmalloc-like",
	  COMMON
	  "\tfield:unsigned long call_site;\toffset:8;\tsize:8;\tsigned:0;\n"
	  "\tfield:const void * ptr;\toffset:16;\tsize:8;\tsigned:0;\n"
	  "\tfield:size_t bytes_req;\toffset:24;\tsize:8;\tsigned:0;\n"
	  "\tfield:unsigned long gfp_flags;\toffset:32;\tsize:8;\tsigned:0;\n\n"
	  "print fmt: \"call_site=%pS ptr=%p bytes_req=%zu gfp_flags=%s\", (void *)REC->call_site, "
	  "REC->ptr, REC->bytes_req, (REC->gfp_flags) ? __print_flags(REC->gfp_flags, \"|\", "
	  "{( unsigned long)(((1UL)) << (10)), \"A,B\"}, { 0, ((void *)0) } ) : \"none\"\n",
	  "call_site" },
	{ "%% takes none, %*d two, %ps and %pS one each; a 4-byte field is no address",
	  COMMON
	  "\tfield:int w;\toffset:8;\tsize:4;\tsigned:1;\n"
	  "\tfield:int a;\toffset:12;\tsize:4;\tsigned:1;\n"
	  "\tfield:unsigned long x;\toffset:16;\tsize:8;\tsigned:0;\n"
	  "\tfield:unsigned int y;\toffset:24;\tsize:4;\tsigned:0;\n"
	  "\tfield:unsigned long z;\toffset:32;\tsize:8;\tsigned:0;\n\n"
	  "print fmt: \"100%% %*d x=%ps y=%pS z=%lx\", REC->w, REC->a, REC->x, REC->y, REC->z\n",
	  "x(name)" },
	{ "quotes and commas inside arguments, a symbol after them",
	  COMMON
	  "\tfield:__data_loc char[] s;\toffset:8;\tsize:4;\tsigned:0;\n"
	  "\tfield:int k;\toffset:12;\tsize:4;\tsigned:1;\n"
	  "\tfield:void * f;\toffset:16;\tsize:8;\tsigned:0;\n"
	  "\tfield:unsigned long g;\toffset:24;\tsize:8;\tsigned:0;\n\n"
	  "print fmt: \"s=\\\"%s\\\" k=%s f=%pS g=%pB\", __get_str(s), "
	  "__print_symbolic(REC->k, {1, \"a,\\\"b\"}, {2, \")\"}), ( void *) REC->f , REC->g\n",
	  "f g" },
	{ "an expression is no field; %pK and %pa are no code addresses",
	  COMMON
	  "\tfield:unsigned long a;\toffset:8;\tsize:8;\tsigned:0;\n"
	  "\tfield:unsigned long b;\toffset:16;\tsize:8;\tsigned:0;\n"
	  "\tfield:unsigned long c;\toffset:24;\tsize:8;\tsigned:0;\n\n"
	  "print fmt: \"%pS %pK %pa\", (void *)(REC->a + 4), REC->b, &REC->c\n",
	  "" },
	{ "no print fmt",
	  COMMON
	  "\tfield:unsigned long a;\toffset:8;\tsize:8;\tsigned:0;\n",
	  "" },
};

/* kpt_tp_word_at(): which fields a plain load of their word reaches. */
static void test_word(void)
{
	static const struct {
		unsigned int off, size, end;
		int want;
	} t[] = {
		{ 8, 8, 16, 8 },	/* the first field after the common ones */
		{ 16, 4, 24, 16 }, { 20, 4, 24, 16 },	/* either half of a word */
		{ 22, 2, 24, 16 }, { 23, 1, 24, 16 },
		{ 4, 4, 64, -1 },	/* a common field */
		{ 20, 8, 64, -1 },	/* across two words */
		{ 18, 4, 64, -1 },	/* misaligned */
		{ 16, 8, 20, -1 },	/* its word past the run's smallest record */
		{ 120, 8, 256, 120 },
		{ 128, 8, 256, -1 },	/* past the first 128 bytes */
	};
	char label[64];
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		snprintf(label, sizeof(label), "word of %u bytes at %u, end %u", t[i].size,
			 t[i].off, t[i].end);
		CHECK_INT(kpt_tp_word_at(t[i].off, t[i].size, t[i].end), t[i].want, label);
	}
}

/* Array fields: N elements of size / N (ftrace's eprobes read them so); char[] a string. */
static void test_arrays(void)
{
	static const char text[] = COMMON
		"\tfield:__u8 saddr[4];\toffset:8;\tsize:4;\tsigned:0;\n"
		"\tfield:__u8 daddr_v6[16];\toffset:12;\tsize:16;\tsigned:0;\n"
		"\tfield:char comm[16];\toffset:28;\tsize:16;\tsigned:0;\n"
		"\tfield:u32 w[2];\toffset:44;\tsize:8;\tsigned:0;\n"
		"\tfield:__data_loc char[] name;\toffset:52;\tsize:4;\tsigned:0;\n"
		"\tfield:int plain;\toffset:56;\tsize:4;\tsigned:1;\n\n"
		/* the addresses as inet_sock_set_state prints them; plain's %pI4 is
		 * no address (4 bytes, but "REC->plain + 1" is no field) */
		"print fmt: \"s=%pI4 d=%pI6c c=%s w=%u n=%s p=%pI4\", REC->saddr, REC->daddr_v6, "
		"REC->comm, REC->w, __get_str(name), REC->plain + 1\n";
	static const struct {
		const char *name;
		unsigned int array_len;
		bool char_array, data_loc;
		int addr;
	} want[] = {
		{ "saddr", 4, false, false, TP_ADDR_IPV4 },
		{ "daddr_v6", 16, false, false, TP_ADDR_IPV6 },
		{ "comm", 0, true, false, 0 }, { "w", 2, false, false, 0 },
		{ "name", 0, false, true, 0 }, { "plain", 0, false, false, 0 },
	};
	char path[] = "/tmp/kpt-tpfmt-XXXXXX", msg[256];
	struct tp_format fmt;
	size_t i;
	FILE *f;
	int fd = mkstemp(path);

	CHECK(fd >= 0, "mkstemp");
	if (fd < 0)
		return;
	f = fdopen(fd, "w");
	fputs(text, f);
	fclose(f);
	CHECK(!tp_format_load("sys", "ev", path, &fmt, msg, sizeof(msg)), "arrays: %s", msg);
	unlink(path);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct tp_field *tf = tp_field_find(&fmt, want[i].name);

		CHECK(tf && tf->array_len == want[i].array_len &&
		      tf->char_array == want[i].char_array && tf->data_loc == want[i].data_loc &&
		      tf->addr == want[i].addr,
		      "field %s: array_len %u char_array %d data_loc %d addr %d", want[i].name,
		      tf ? tf->array_len : 0, tf ? tf->char_array : -1, tf ? tf->data_loc : -1,
		      tf ? tf->addr : -1);
	}
	tp_format_free(&fmt);
}

/* Collects "mod:name" or "name", stops at "stop". */
static int collect(const char *name, const char *mod, void *arg)
{
	char *out = arg;
	size_t len = strlen(out);

	if (!strcmp(name, "stop"))
		return 7;
	snprintf(out + len, 256 - len, "%s%s%s%s", len ? "," : "", mod ? mod : "",
		 mod ? ":" : "", name);
	return 0;
}

/* available_filter_functions' lines, as 6.12 writes them. */
static void each_function(void)
{
	char path[] = "/tmp/kpt-aff-XXXXXX", got[256] = "";
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	CHECK(f != NULL, "mkstemp");
	if (!f)
		return;
	fputs("vfs_read\netn_write [etn]\nnmi_handle.part.0\nstop\nnever\n", f);
	fclose(f);
	CHECK_INT(tp_each_function(path, collect, got), 7, "the callback's value ends it");
	CHECK_STR(got, "vfs_read,etn:etn_write,nmi_handle.part.0", "each line, a module's as MOD:");
	CHECK_INT(tp_each_function("/nonexistent/aff", collect, got), -ENOENT, "unreadable");
	unlink(path);
}

int main(void)
{
	char path[] = "/tmp/kpt-tpfmt-XXXXXX", got[256], msg[256];
	struct tp_format fmt;
	size_t i;
	int fd, j, err;

	each_function();
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		FILE *f;

		fd = mkstemp(path);
		CHECK(fd >= 0, "mkstemp");
		if (fd < 0)
			break;
		f = fdopen(fd, "w");
		fputs(cases[i].text, f);
		fclose(f);
		err = tp_format_load("sys", "ev", path, &fmt, msg, sizeof(msg));
		unlink(path);
		strcpy(path, "/tmp/kpt-tpfmt-XXXXXX");
		CHECK(err == 0 && fmt.id == 42, "%s: loaded (%d: %s)", cases[i].label, err, msg);
		got[0] = 0;
		for (j = 0; j < fmt.nfields; j++)
			if (fmt.fields[j].symbol)
				snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s%s",
					 got[0] ? " " : "", fmt.fields[j].name,
					 fmt.fields[j].symbol == TP_SYM_NAME ? "(name)" : "");
		CHECK_STR(got, cases[i].symbols, cases[i].label);
		CHECK(fmt.nfields > 0 && strncmp(fmt.fields[0].name, "common_", 7),
		      "%s: common_* fields left out", cases[i].label);
		tp_format_free(&fmt);
	}
	test_word();
	test_arrays();
	return check_report();
}
