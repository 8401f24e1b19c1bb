/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The command line: one struct env with defaults, strict numbers, cross-checks. */
#ifndef KPT_CLI_H
#define KPT_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "budget.h"
#include "outtime.h"

/*
 * kptrace's version (git describe at build time, src/version.c), as
 * --version and serve's kptrace_build_info say it.
 */
#define KPT_VERSION kpt_version()
const char *kpt_version(void);
struct argp_state;
/* --version: the version, libbpf's, the embedded BPF object's SHA-256. */
void kpt_print_version(FILE *f, struct argp_state *st);

enum kpt_mode {
	MODE_TRACE = 0,		/* stream events */
	MODE_HIST,		/* kptrace hist DEF [FIELD] */
	MODE_LATENCY,		/* kptrace latency FUNC... */
	MODE_COUNT,		/* kptrace count DEF... --by KEYS */
	MODE_LIST,		/* kptrace list [GLOB] (src/list.c) */
};

struct env {
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
	int le_every;		/* --le-every N: a serve job's le buckets, one in N of kptrace's */
	const char *perfetto_path;	/* latency --perfetto FILE (src/perfetto.c) */
	enum out_clock time_clock;	/* --time */
	bool time_set;
	/* targeting, in the kernel */
	pid_t tid;		/* -t */
	const char *comm;	/* --comm */
	const char *cgroup;	/* --cgroup PATH */
	bool no_tracepoint;	/* hist kmalloc: kprobes even where the tracepoint exists */
	bool slack;		/* hist kmalloc: bytes_alloc - bytes_req */
	const char *backend;	/* --backend auto|kprobe|kprobe-multi|fentry */
	const char *pmu;	/* latency --pmu EVENT[,EVENT] (src/pmu.c) */
	const char *svg_path;	/* --svg FILE: the tables drawn (src/svg.c) */
	struct budget_spec budget;	/* --budget PCT|N/s; both 0: none (src/budget.c) */
	int kstack, ustack;	/* -K/-U: frames per event, 0: none */
	bool folded;		/* --folded: aggregated stacks as root;...;leaf COUNT */
	/* latency --from DEF --to DEF [--key A[=B],...]: defs[0] and defs[1] */
	const char *from, *to, *pair_key;
	/* count --sum/--avg/--min/--max FIELD (agg.h's AGG_ST_* bits), --sort */
	const char *stat_field;
	unsigned int stats, sort_by;
	int first_stat_key;
	bool sort_set;
	/* kptrace profile: count profile:hz:F (MODE_COUNT) */
	bool profile, no_idle;
	int profile_hz;		/* -F */
	char profile_def[48];
};

/* Parse argv into env. Returns 0, or exits with a usage error. */
int cli_parse(int argc, char **argv, struct env *env);
/* The same for a serve job's words: 0, or -EINVAL with the reason in msg (never exits). */
int cli_parse_job(int argc, char **argv, struct env *env, char *msg, size_t msglen);
void cli_free(struct env *env);

#endif /* KPT_CLI_H */
