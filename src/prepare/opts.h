/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A run's options: what prepare, plan, the modes and run take. The command
 * line (cmd/cli.c) and serve's job files (serve/serve.c) fill it; nothing
 * below cmd/ knows how.
 */
#ifndef KPT_OPTS_H
#define KPT_OPTS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* What --budget said: a share of one CPU, or recorded events a second, for the whole run. */
struct budget_spec {
	double pct;		/* > 0: % of one CPU */
	uint64_t rate;		/* > 0: events a second */
};

/* --time: the clock a streamed event's time is printed in (out/outtime.h). */
enum out_clock { OUT_CLOCK_MONO, OUT_CLOCK_BOOT, OUT_CLOCK_WALL, OUT_CLOCK_DELTA };

enum kpt_mode {
	MODE_TRACE = 0,		/* stream events */
	MODE_HIST,		/* kptrace hist DEF [FIELD] */
	MODE_LATENCY,		/* kptrace latency FUNC... */
	MODE_COUNT,		/* kptrace count DEF... --by KEYS */
	MODE_LIST,		/* kptrace list [GLOB] (src/cmd/list.c) */
	MODE_WHY,		/* kptrace why ROOT --error|--slower D [--under GLOBS] */
};

struct kpt_opts {
	enum kpt_mode mode;
	const char **defs;	/* definitions (or latency FUNCs) from the command line */
	int ndefs;
	const char *def_file;	/* -f */
	const char *out_path;	/* -o */
	const char *command;	/* -c */
	pid_t pid;		/* -p */
	bool keep_running;	/* --keep-running: -p, -c, -t go on after their exit */
	double duration;	/* -d */
	uint32_t buffer_size;	/* --buffer-size, bytes */
	bool json;
	bool dry_run;
	bool unsafe;		/* --unsafe: prepare/unsafe.h's sites taken */
	bool verbose;
	/* aggregation */
	const char *field;	/* hist: the argument to bucket (second positional) */
	bool linear;
	int64_t lin_min, lin_max, lin_step;
	const char *by;		/* --by KEY[,KEY] */
	int top;		/* --top N */
	bool zeros;		/* --zeros: count's rows of 0 */
	double interval;	/* -i SECONDS */
	const char *unit;	/* --unit ns|us|ms */
	const char *filter;	/* --filter EXPR, for every probe */
	uint32_t max_keys;	/* --max-keys */
	uint32_t unwind_rows;	/* --unwind-rows, where unwind_rows_set */
	bool unwind_rows_set;
	int le_every;		/* --le-every N: a serve job's le buckets, one in N of kptrace's */
	const char *perfetto_path;	/* latency --perfetto FILE (src/out/perfetto.c) */
	enum out_clock time_clock;	/* --time */
	bool time_set;
	/* targeting, in the kernel */
	pid_t tid;		/* -t */
	const char *comm;	/* --comm */
	const char *cgroup;	/* --cgroup PATH */
#define KPT_MAX_CONTAINERS	8
	const char *containers[KPT_MAX_CONTAINERS];	/* --container ID|NAME */
	int ncontainers;
	bool list_containers;	/* list --containers */
	bool no_tracepoint;	/* hist kmalloc: kprobes even where the tracepoint exists */
	bool slack;		/* hist kmalloc: bytes_alloc - bytes_req */
	const char *backend;	/* --backend auto|kprobe|kprobe-multi|fentry */
	const char *btf_path;	/* --btf FILE: the kernel's BTF, where it has none (sys/kbtf.h) */
	const char *pmu;	/* latency --pmu EVENT[,EVENT] (src/load/pmu.c) */
	const char *svg_path;	/* --svg FILE: the tables drawn (src/util/svg.c) */
	struct budget_spec budget;	/* --budget PCT|N/s; both 0: none (src/load/budget.c) */
	bool cost_exact;	/* --cost exact: the run-time statistics held throughout */
	int kstack, ustack;	/* -K/-U: frames per event, 0: none */
	bool no_demangle;	/* --no-demangle: user symbols as in the file */
	bool folded;		/* --folded: aggregated stacks as root;...;leaf COUNT */
	/* latency --from DEF... --to DEF... [--key A[=B],...]: defs[0, nfrom)
	 * the starts, the rest the ends */
	const char **from, **to, *pair_key;
	int nfrom, nto;
	uint64_t over_ns;	/* latency --over: each call this long or longer a line */
	/* count --sum/--avg/--min/--max FIELD (agg.h's AGG_ST_* bits), --sort */
	const char *stat_field;
	unsigned int stats, sort_by;
	int first_stat_key;
	bool sort_set;
	/* kptrace profile: count profile:hz:F (MODE_COUNT) */
	bool profile, no_idle;
	int profile_hz;		/* -F */
	char profile_def[48];
	/* kptrace timechart: the scheduler's tables (MODE_TRACE for the forks and execs) */
	bool timechart;
	double tc_slice_ms;	/* --slice, 0: from -d */
	/* kptrace why: the root's calls that returned an error, or took
	 * --slower's ns, with the --under functions (globs, space-separated) */
	bool why_error;
	uint64_t why_slower_ns;
	const char *why_under;
};

#endif /* KPT_OPTS_H */
