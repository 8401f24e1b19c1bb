// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Messages that send the user the right way: a subcommand's typo, bpftrace's
 * spellings and kptrace's definition for them, "did you mean" with a swap,
 * the kernel-missed causes of each mechanism, the aggregation keys that need
 * kallsyms.
 */
#include <stdio.h>
#include <string.h>

#include "agg/agg.h"
#include "check.h"
#include "run/consumer.h"
#include "prepare/hint.h"
#include "lang/spec.h"
#include "util/suggest.h"

static void test_subcommand(void)
{
	static const struct {
		const char *word, *want;
	} rows[] = {
		{ "hsit", "hist" },		/* a swap */
		{ "lst", "list" },		/* a letter left out */
		{ "histogram", "hist" },	/* lengthened */
		{ "counts", "count" },
		{ "lat", "latency" },		/* cut short */
		{ "explian", "explain" },
		{ "latnecy", "latency" },
		{ "hist", NULL },		/* a subcommand itself */
		{ "list", NULL },
		{ "foo", NULL },		/* close to none */
		{ "p", NULL },
		{ "li", NULL },			/* too short to be cut short */
		{ "p:vfs_read", NULL },		/* a definition */
		{ "Hist", NULL },
		{ "", NULL },
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const char *got = hint_subcommand(rows[i].word);

		if (rows[i].want)
			CHECK_STR(got, rows[i].want, rows[i].word);
		else
			CHECK(!got, "'%s' suggests '%s'", rows[i].word, got);
	}
}

/* Each refusal's hint: the definition meant, through spec_parse()'s own error. */
static void test_definition(void)
{
	static const struct {
		const char *text, *want;	/* want: a substring of the hint, "" none */
	} rows[] = {
		{ "kprobe:vfs_read", "; bpftrace's 'kprobe:vfs_read' is 'p:vfs_read' in kptrace" },
		{ "k:vfs_read", "is 'p:vfs_read' in kptrace" },
		{ "kprobe:ext4:ext4_file_open", "is 'p:ext4:ext4_file_open' in kptrace" },
		{ "kprobe:vfs_read+0x10", "is 'p:vfs_read+0x10' in kptrace" },
		{ "kretprobe:vfs_read", "is 'r:vfs_read' in kptrace" },
		{ "kr:vfs_read", "is 'r:vfs_read' in kptrace" },
		{ "tracepoint:sched:sched_process_exec",
		  "is 't:sched/sched_process_exec' in kptrace" },
		{ "rawtracepoint:sched:sched_switch", "is 't:sched/sched_switch' in kptrace" },
		{ "uprobe:/bin/bash:readline", "is 'p:/bin/bash:readline' in kptrace" },
		{ "uretprobe:/bin/bash:readline", "is 'r:/bin/bash:readline' in kptrace" },
		{ "ur:/bin/bash:readline", "is 'r:/bin/bash:readline' in kptrace" },
		{ "fentry:vfs_read", "is 'f:vfs_read' in kptrace" },
		{ "kfunc:vfs_read", "is 'f:vfs_read' in kptrace" },
		{ "fexit:vfs_read", "is 'f:vfs_read%return' in kptrace" },
		{ "fr:vfs_read", "is 'f:vfs_read%return' in kptrace" },
		{ "kprobe:vfs_read { @[comm] = count(); }", "no bpftrace program" },
		{ "kprobe:vfs_read /pid == 1/ { exit(); }", "no bpftrace program" },
		{ "interval:s:1", "bpftrace's 'interval' probes have no kptrace form" },
		{ "usdt:/bin/x:p:q", "bpftrace's 'usdt:/bin/x:p:q' is 'u:/bin/x:p:q' in kptrace" },
		{ "t:sched:sched_process_exec", "; write 'sched/sched_process_exec' (a '/'" },
		{ "t:ev sched:sched_switch prev_pid", "; write 'sched/sched_switch' (a '/'" },
		{ "foo", "and 'foo' is no subcommand (explain, hist, latency, count, profile, list)" },
		{ "x:a /bin/true:main", "" },		/* nothing known: the error alone */
		{ "t:nosubsys", "" },
		{ "zz:vfs_read", "" },
	};
	struct spec_probe p;
	struct spec_error e;
	char buf[512];
	size_t i, n;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		int err = spec_parse(rows[i].text, &p, &e);

		spec_free(&p);
		CHECK(err, "'%s' parses", rows[i].text);
		n = hint_definition(rows[i].text, e.code, e.col, buf, sizeof(buf));
		CHECK_INT(n, strlen(buf), rows[i].text);
		if (rows[i].want[0])
			CHECK(strstr(buf, rows[i].want), "'%s': hint '%s' lacks '%s'",
			      rows[i].text, buf, rows[i].want);
		else
			CHECK(!buf[0], "'%s': hint '%s'", rows[i].text, buf);
	}
	/* a buffer too short is cut, terminated */
	n = hint_definition("kprobe:vfs_read", SPEC_ERR_BAD_PROBE_TYPE, 0, buf, 8);
	CHECK(n == 7 && strlen(buf) == 7, "short buffer: %zu '%s'", n, buf);
	CHECK(strstr(spec_strerror(SPEC_ERR_BAD_PROBE_TYPE), "p, r, f, t, u or -"),
	      "the probe-type message lists every type: %s", spec_strerror(SPEC_ERR_BAD_PROBE_TYPE));
}

static void test_suggest_swap(void)
{
	static const struct {
		const char *word, *cands[4], *want;
	} rows[] = {
		{ "vfs_raed", { "vfs_read", "vfs_write", NULL }, "vfs_read" },
		{ "hsit", { "hist", "list", NULL }, "hist" },
		{ "sched/sched_process_exce", { "sched/sched_process_exec",
						"sched/sched_process_exit", NULL },
		  "sched/sched_process_exec" },
		{ "kpt_nge", { "kpt_neg", "kpt_str", NULL }, "kpt_neg" },
		/* two swaps in a long word: two edits */
		{ "do_sys_opneta2t", { "do_sys_openat2", NULL }, "do_sys_openat2" },
		{ "abcdef", { "badcfe", NULL }, NULL },	/* three swaps: past a 6-letter limit */
	};
	struct suggest sg;
	size_t i, j;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		suggest_init(&sg, rows[i].word);
		for (j = 0; rows[i].cands[j]; j++)
			suggest_add(&sg, rows[i].cands[j]);
		if (rows[i].want)
			CHECK_STR(sg.best, rows[i].want, rows[i].word);
		else
			CHECK(!sg.best, "'%s' suggests '%s'", rows[i].word, sg.best);
	}
}

/* The causes a warning names: only those of the mechanisms that missed. */
static void test_miss_causes(void)
{
	struct ev_desc ev[3];
	long long missed[3];
	char buf[512];

	memset(ev, 0, sizeof(ev));
	ev[0].kind = SPEC_TRACEPOINT;
	consumer_miss_causes(ev, 1, NULL, true, buf, sizeof(buf));
	CHECK(strstr(buf, "another BPF program was running on that CPU") &&
	      !strstr(buf, "kretprobe") && !strstr(buf, "rN:") && !strstr(buf, "recursion") &&
	      !strstr(buf, "fentry"), "a tracepoint: '%s'", buf);

	ev[0].kind = SPEC_KPROBE;
	missed[0] = 3;
	consumer_miss_causes(ev, 1, missed, false, buf, sizeof(buf));
	CHECK(strstr(buf, "probe recursion") && !strstr(buf, "kretprobe") &&
	      !strstr(buf, "another BPF"), "a kprobe that missed: '%s'", buf);

	ev[0].kind = SPEC_KRETPROBE;
	consumer_miss_causes(ev, 1, missed, false, buf, sizeof(buf));
	CHECK(strstr(buf, "kretprobe instances exhausted: raise rN:") &&
	      strstr(buf, "probe recursion") && !strstr(buf, "another BPF"),
	      "a kretprobe that missed: '%s'", buf);

	/* a kretprobe that did not miss names nothing of kretprobes */
	ev[1].kind = SPEC_KPROBE;
	missed[0] = 0;
	missed[1] = 1;
	consumer_miss_causes(ev, 2, missed, false, buf, sizeof(buf));
	CHECK(strstr(buf, "probe recursion") && !strstr(buf, "kretprobe instances"),
	      "the kprobe missed, not the kretprobe: '%s'", buf);

	/* -1: no count kept (a uprobe, a tracepoint, a trampoline) */
	ev[0].kind = SPEC_UPROBE;
	ev[0].is_user = true;
	ev[1].kind = SPEC_KRETPROBE;
	ev[1].tramp = true;
	missed[0] = missed[1] = -1;
	consumer_miss_causes(ev, 2, missed, false, buf, sizeof(buf));
	CHECK(!buf[0], "nothing missed: '%s'", buf);

	/* runs skipped, of a trampoline's program only */
	consumer_miss_causes(&ev[1], 1, NULL, true, buf, sizeof(buf));
	CHECK(strstr(buf, "fentry/fexit program was already running") &&
	      !strstr(buf, "another BPF") && !strstr(buf, "kretprobe"), "fexit: '%s'", buf);

	/* a run of both kinds names both */
	ev[2].kind = SPEC_TRACEPOINT;
	consumer_miss_causes(&ev[1], 2, NULL, true, buf, sizeof(buf));
	CHECK(strstr(buf, "fentry/fexit") && strstr(buf, "another BPF"), "both: '%s'", buf);

	consumer_miss_causes(ev, 1, NULL, true, buf, 10);
	CHECK(strlen(buf) == 9, "cut at the buffer: '%s'", buf);
}

/* Keys that may print as a symbol, and only those, want kallsyms. */
static void test_keys_symbolic(void)
{
	struct ev_arg args[3];
	struct ev_desc ev;
	struct kpt_agg g;

	memset(args, 0, sizeof(args));
	memset(&ev, 0, sizeof(ev));
	memset(&g, 0, sizeof(g));
	ev.args = args;
	ev.nargs = 3;
	args[0].type = SPEC_T_U32;
	args[0].size = 4;
	args[1].type = SPEC_T_X64;
	args[1].size = 8;
	args[2].type = SPEC_T_SYMBOL;
	args[2].size = 8;

	CHECK(!agg_keys_symbolic(&g, &ev), "no key");
	g.nkeys = 4;
	g.key_kind[0] = KPT_K_COMM;
	g.key_kind[1] = KPT_K_TGID;
	g.key_kind[2] = KPT_K_TID;
	g.key_kind[3] = KPT_K_CPU;
	CHECK(!agg_keys_symbolic(&g, &ev), "comm, pid, tid, cpu print as themselves");
	g.nkeys = 2;
	g.key_kind[1] = KPT_K_ARG;
	g.key_argi[1] = 0;
	CHECK(!agg_keys_symbolic(&g, &ev), "a 32-bit argument holds no kernel address");
	g.key_argi[1] = 1;
	CHECK(agg_keys_symbolic(&g, &ev), "a 64-bit argument may");
	g.key_argi[1] = 2;
	CHECK(agg_keys_symbolic(&g, &ev), ":symbol does");
}

int main(void)
{
	test_subcommand();
	test_definition();
	test_suggest_swap();
	test_miss_causes();
	test_keys_symbolic();
	return check_report();
}
