// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests of src/out/tpprint.c: a tracepoint's line from its print fmt, over
 * a record of kptrace's, as the kernel prints it: %pS with its /size, %ps,
 * %p as ftrace with hash-ptr off, __print_flags, a char array, __get_str()
 * of a __data_loc string, a ternary, a faulted field (0, as the kernel
 * would never have it), and a format libtraceevent cannot read (-1: the
 * caller prints the fields). The host suite compares real events with the
 * kernel's own trace (tests/host/values.sh).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "ev_layout.h"
#include "out/tpprint.h"
#include "sys/tracepoint.h"

static const char kallsyms[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81000100 T kmalloc_trace\n"
	"ffffffff81000170 t other\n"
	"ffffffff81001000 B _end\n";

#define FIELDS									\
	"name: ev\nID: 77\nformat:\n"						\
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"	\
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"	\
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"		\
	"\tfield:unsigned long call_site;\toffset:8;\tsize:8;\tsigned:0;\n"	\
	"\tfield:const void * ptr;\toffset:16;\tsize:8;\tsigned:0;\n"		\
	"\tfield:unsigned long flags;\toffset:24;\tsize:8;\tsigned:0;\n"	\
	"\tfield:char comm[16];\toffset:32;\tsize:16;\tsigned:0;\n"		\
	"\tfield:__data_loc char[] name;\toffset:48;\tsize:4;\tsigned:0;\n"	\
	"\tfield:int state;\toffset:52;\tsize:4;\tsigned:1;\n\n"

static const char good[] = FIELDS
	"print fmt: \"site=%pS fn=%ps ptr=%p flags=%s comm=%s name=%s state=%s %d%%\", "
	"(void *)REC->call_site, (void *)REC->call_site, REC->ptr, "
	"__print_flags(REC->flags, \"|\", {1, \"A\"}, {2, \"B\"}, {4, \"C\"}), REC->comm, "
	"__get_str(name), REC->state ? \"on\" : \"off\", REC->state\n";

/* an unknown function of the print fmt: libtraceevent refuses it */
static const char bad[] = FIELDS "print fmt: \"x=%d\", no_such_function(REC->state)\n";

static struct tp_format load(const char *text)
{
	char path[] = "/tmp/kpt-tpprint-XXXXXX", msg[256];
	struct tp_format fmt;
	int fd = mkstemp(path);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		exit(2);
	close(fd);
	CHECK(!tp_format_load("sys", "ev", path, &fmt, msg, sizeof(msg)), "load: %s", msg);
	unlink(path);
	return fmt;
}

/* args of the six fields, as prepare's whole-event fill makes them */
static void make_event(struct ev_desc *ev, struct ev_arg *a, const struct tp_format *fmt)
{
	static const struct { const char *n; enum spec_type t; uint8_t sz; } f[] = {
		{ "call_site", SPEC_T_SYMBOL, 8 }, { "ptr", SPEC_T_X64, 8 },
		{ "flags", SPEC_T_U64, 8 }, { "comm", SPEC_T_STRING, 4 },
		{ "name", SPEC_T_STRING, 4 }, { "state", SPEC_T_S32, 4 },
	};

	memset(ev, 0, sizeof(*ev));
	memset(a, 0, 6 * sizeof(*a));
	for (int i = 0; i < 6; i++) {
		snprintf(a[i].name, sizeof(a[i].name), "%s", f[i].n);
		a[i].type = f[i].t;
		a[i].size = f[i].sz;
	}
	ev->kind = SPEC_TRACEPOINT;
	snprintf(ev->event, sizeof(ev->event), "ev");
	snprintf(ev->target.tp_system, sizeof(ev->target.tp_system), "sys");
	ev->nargs = 6;
	ev->args = a;
	ev->tp_print = fmt;
	ev_layout(ev);
}

/* A record of ev: the values, then the two strings its data_locs point at. */
static size_t make_record(const struct ev_desc *ev, unsigned char *rec, uint64_t site,
			  uint64_t flags, int32_t state, bool fault_site)
{
	uint64_t ptr = 0xffff888012345678ull;
	const char *comm = "kworker/0:1", *name = "a name";
	size_t pos = ev->fixed_size;
	uint32_t dl;

	memset(rec, 0, 512);
	memcpy(rec + ev->args[0].slot, &site, 8);
	memcpy(rec + ev->args[1].slot, &ptr, 8);
	memcpy(rec + ev->args[2].slot, &flags, 8);
	memcpy(rec + ev->args[5].slot, &state, 4);
	dl = (uint32_t)(strlen(comm) + 1) << 16 | (uint32_t)pos;
	memcpy(rec + ev->args[3].slot, &dl, 4);
	memcpy(rec + pos, comm, strlen(comm) + 1);
	pos += strlen(comm) + 1;
	dl = (uint32_t)(strlen(name) + 1) << 16 | (uint32_t)pos;
	memcpy(rec + ev->args[4].slot, &dl, 4);
	memcpy(rec + pos, name, strlen(name) + 1);
	pos += strlen(name) + 1;
	if (fault_site)
		rec[KPT_HDR_SIZE] |= 1;	/* argument 0 faulted */
	return pos;
}

int main(void)
{
	char kpath[] = "/tmp/kpt-tpks-XXXXXX", out[1024];
	struct tp_format g = load(good), b = load(bad);
	unsigned char rec[512];
	struct ev_desc ev;
	struct ev_arg a[6];
	struct ksyms *ks;
	size_t len;
	long n;
	int fd = mkstemp(kpath);

	if (fd < 0 || write(fd, kallsyms, strlen(kallsyms)) != (ssize_t)strlen(kallsyms))
		return 2;
	close(fd);
	ks = ksyms_load(kpath);
	unlink(kpath);
	CHECK(ks != NULL, "kallsyms");

	make_event(&ev, a, &g);
	len = make_record(&ev, rec, 0xffffffff81000126ull, 5, 3, false);
	n = tpprint_info(&ev, ks, rec, len, out, sizeof(out));
	CHECK_STR(out, "site=kmalloc_trace+0x26/0x70 fn=kmalloc_trace ptr=ffff888012345678 "
		  "flags=A|C comm=kworker/0:1 name=a name state=on 3%", "the whole line");
	CHECK_INT(n, (long)strlen(out), "its length");

	len = make_record(&ev, rec, 0x1234, 0, 0, false);
	tpprint_info(&ev, ks, rec, len, out, sizeof(out));
	CHECK_STR(out, "site=0x1234 fn=0x1234 ptr=ffff888012345678 flags= comm=kworker/0:1 "
		  "name=a name state=off 0%", "no symbol, no flags, state 0");

	len = make_record(&ev, rec, 0xffffffff81000126ull, 2, -1, true);
	tpprint_info(&ev, ks, rec, len, out, sizeof(out));
	CHECK_STR(out, "site=0x0 fn=0x0 ptr=ffff888012345678 flags=B comm=kworker/0:1 "
		  "name=a name state=on -1%", "a faulted call_site reads as 0");

	tpprint_info(&ev, ks, rec, len, out, 10);
	CHECK_STR(out, "site=0x0 ", "cut to the buffer");

	make_event(&ev, a, &b);
	CHECK_INT(tpprint_info(&ev, ks, rec, len, out, sizeof(out)), -1,
		  "a print fmt libtraceevent cannot read: -1");
	ev.tp_print = NULL;
	CHECK_INT(tpprint_info(&ev, ks, rec, len, out, sizeof(out)), -1, "no format: -1");
	tp_format_free(&g);
	tp_format_free(&b);
	ksyms_free(ks);
	return check_report();
}
