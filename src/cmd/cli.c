// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <argp.h>
#include <setjmp.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cli.h"
#include "load/budget.h"
#include "out/outtime.h"
#include "prepare/hint.h"
#include "sys/kfeat.h"
#include "util/keylist.h"
#include "kptrace.h"

void (*argp_program_version_hook)(FILE *, struct argp_state *) = kpt_print_version;
const char *argp_program_bug_address = "the kptrace issue tracker";

/*
 * Every line under 80 columns: argp re-wraps a longer one at 79, which cuts
 * an example in two where it cannot be pasted. An example too long for one
 * line goes on with a '\' outside its quotes, as a shell reads it.
 */

/* What one parse fills, and for a serve job's words, where an error goes. */
struct cli_input {
	struct kpt_opts *env;
	bool job;		/* a serve job: its options only, and errors return */
	jmp_buf *fail;		/* a job: job_parse_opt()'s, while parse_opt() runs */
};

static struct cli_input *cli_in(const struct argp_state *st)
{
	return st->input;
}

/*
 * argp's errors exit the process, except under ARGP_NO_EXIT (a job's), where
 * they return: the word is then refused at once, by a jump back to
 * job_parse_opt(), which returns the error to argp_parse() so it cleans up.
 */
static void cli_bail(const struct argp_state *st)
{
	if (cli_in(st)->fail)
		longjmp(*cli_in(st)->fail, 1);
}
#define cli_error(st, ...)	(argp_error(st, __VA_ARGS__), cli_bail(st))
#define cli_failure(st, status, errnum, ...) \
	(argp_failure(st, status, errnum, __VA_ARGS__), cli_bail(st))

static const char doc[] =
"kptrace: ftrace kprobe_events definitions, run as CO-RE BPF programs.\n"
"\n"
"Each DEFINITION is in the grammar of the kernel's kprobe_events, uprobe_events\n"
"and dynamic_events files:\n"
"  p[:[GRP/]EVENT] [MOD:]SYM[+offs]|MEMADDR [FETCHARGS]\n"
"  r[MAXACTIVE][:[GRP/]EVENT] [MOD:]SYM[+0] [FETCHARGS]\n"
"  p|r[:[GRP/]EVENT] /PATH/BIN:SYMBOL[+offs]|/PATH/BIN:OFFSET [FETCHARGS]\n"
"  f[MAXACTIVE][:[GRP/]EVENT] [MOD:]SYM[%return] [FETCHARGS]   (fprobe)\n"
"  t[:[GRP/]EVENT] SUBSYS/TRACEPOINT [[NAME=]FIELD[:TYPE]]...  (tracepoint; no\n"
"    FIELD: all, in the line the kernel prints)\n"
"  profile:hz:N   (a clock on each CPU, N samples a second; no FETCHARGS)\n"
"FETCHARGS: NAME=FETCHARG[:TYPE], FETCHARG one of %REG, @ADDR, @SYM[+|-offs],\n"
"  $stackN, $stack, $argN, $retval, $comm, \\IMM, \\\"str\", +|-[u]OFFS(FETCHARG);\n"
"TYPE: u8..u64, s8..s64, x8..x64, char, string, ustring, symbol, symstr,\n"
"  b<width>@<offset>/<container>, TYPE[N]; kptrace's own: ipv4, ipv6, be16,\n"
"  be32 (network order), errno (-ENOENT).\n"
"\n"
"Events print as /sys/kernel/tracing/trace lines on stdout; the per-probe\n"
"profile (hits, misses, drops, faults, cost) goes to stderr at exit, with\n"
"--json as one JSON line.\n"
"\n"
"Examples:\n"
"  kptrace 'p:myprobe do_sys_openat2 dfd=" KPT_EX_REG1 ":s32 path=+0(" KPT_EX_REG2 "):string' \\\n"
"          'r:myret do_sys_openat2 ret=$retval:s64'\n"
"  kptrace -c 'cat /etc/hostname' 'p:do_sys_openat2 path=+0(" KPT_EX_REG2 "):string'\n"
"  kptrace --json -d 5 'r:/bin/bash:readline line=+0($retval):ustring'\n"
"  kptrace --dry-run 'p:vfs_read count=" KPT_EX_REG3 ":u64'   # how each argument is read\n"
"  kptrace explain 'p:vfs_read count=" KPT_EX_REG3 ":u64'     # the same\n"
"  kptrace list 'vfs_*'        # traceable functions, with BTF prototypes\n"
"  kptrace list 'sched/*'      # tracepoints, with their fields\n"
"  kptrace list u:/usr/bin/python3.11   # a binary's USDT probes\n"
"  kptrace latency vfs_read --pmu page-faults,context-switches   # per call\n"
"\v"
"Definitions files (-f) hold one definition per line; '#' starts a comment and\n"
"'-:EVENT' removes an earlier definition, as in kprobe_events.";

static const char args_doc[] = "[explain] DEFINITION...\n"
				"hist DEFINITION|kmalloc [FIELD]\n"
				"latency FUNC...\n"
				"why 'FUNC [FETCHARGS] [if FILTER]' --error|--slower DURATION [--under GLOBS]\n"
				"count DEFINITION... --by KEY[,KEY]\n"
				"profile [-F HZ] [--by KEY[,KEY]] [--folded]\n"
				"timechart [-c CMD|-p PID] [-d SECONDS] [--svg FILE]\n"
				"list [GLOB|SUBSYS/EVENT|MOD:GLOB|u:PATH|--containers] [--json]\n"
				"serve -f FILE [--listen ADDR:PORT] [--check]\n"
				"diff [--threshold P] [--json] [--svg FILE] A.json B.json";

enum {
	OPT_JSON = 0x100, OPT_DRY_RUN, OPT_BUFFER, OPT_LINEAR, OPT_BY, OPT_TOP, OPT_UNIT,
	OPT_FILTER, OPT_MAX_KEYS, OPT_UNWIND_ROWS, OPT_COMM, OPT_CGROUP, OPT_NO_TP, OPT_SLACK, OPT_BACKEND, OPT_PMU,
	OPT_ZEROS,
	OPT_KEEP_RUNNING, OPT_FOLDED, OPT_NO_DEMANGLE, OPT_NO_IDLE, OPT_SUM, OPT_AVG, OPT_MIN, OPT_MAX, OPT_SORT,
	OPT_FROM, OPT_TO, OPT_KEY, OPT_LE_EVERY,
	OPT_OVER,
	OPT_SVG,
	OPT_TIME,
	OPT_PERFETTO,
	OPT_BUDGET, OPT_COST,
	OPT_UNSAFE,
	OPT_SLICE,
	OPT_CONTAINER, OPT_CONTAINERS,
	OPT_BTF,
	OPT_ERROR, OPT_UNDER, OPT_SLOWER,
};

static const struct argp_option options[] = {
	{ "file", 'f', "FILE", 0, "Read definitions from FILE, one per line", 0 },
	{ "output", 'o', "FILE", 0, "Write events to FILE instead of stdout", 0 },
	{ "json", OPT_JSON, NULL, 0, "One JSON object per event (NDJSON), typed values", 0 },
	{ "pid", 'p', "PID", 0,
	  "Trace only this process, all its threads (not the processes it starts); stop when "
	  "it exits", 0 },
	{ "command", 'c', "CMD", 0,
	  "Run CMD (split into words, no shell) and trace it and every process and thread it "
	  "starts from then on, followed in the kernel; stop when CMD exits (what it started "
	  "and left running goes on untraced)", 0 },
	{ "keep-running", OPT_KEEP_RUNNING, NULL, 0,
	  "-p, -t, -c: go on when the process, thread or command exits (-c: tracing what it "
	  "started), until -d or a signal", 0 },
	{ "duration", 'd', "SECONDS", 0,
	  "Stop after SECONDS: detach, then write what is buffered for at most 1 s more", 0 },
	{ "dry-run", OPT_DRY_RUN, NULL, 0,
	  "Check and explain: where each argument comes from, the event format; attach nothing",
	  0 },
	{ "unsafe", OPT_UNSAFE, NULL, 0,
	  "Probe sites that can hang the machine too (lock returns, NMI handlers, BPF's own "
	  "path: kptrace-definitions(5)), each with a note", 0 },
	{ "buffer-size", OPT_BUFFER, "SIZE", 0,
	  "Ring buffer size, power of two, K/M suffixes (default 1M per CPU, 1M to 32M)", 0 },
	{ "verbose", 'v', NULL, 0, "Show libbpf's log, including the verifier's", 0 },
	{ "filter", OPT_FILTER, "EXPR", 0,
	  "ftrace event filter for every probe (like 'DEF if EXPR'); why: the root's", 0 },
	{ "tid", 't', "TID", 0, "Trace only this thread; stop when it exits", 0 },
	{ "comm", OPT_COMM, "NAME", 0, "Trace only tasks with this comm", 0 },
	{ "cgroup", OPT_CGROUP, "PATH", 0, "Trace only tasks in this cgroup (v2)", 0 },
	{ "container", OPT_CONTAINER, "ID|NAME", 0,
	  "Trace only this container (an id or name prefix; again for more); a uprobe's path "
	  "is the container's", 0 },
	{ "containers", OPT_CONTAINERS, NULL, 0, "list: the containers, not functions", 0 },
	{ NULL, 0, NULL, 0, "Aggregation (hist, latency, count):", 1 },
	{ "linear", OPT_LINEAR, "MIN,MAX,STEP", 0, "hist: linear buckets instead of log2", 1 },
	{ "by", OPT_BY, "KEY[,KEY]", 0,
	  "per key: comm, pid, tid, cpu, container, cgroup, an argument name, or (count) probe", 1 },
	{ "top", OPT_TOP, "N", 0, "count: the N largest rows of the whole table only", 1 },
	{ "zeros", OPT_ZEROS, NULL, 0,
	  "count: a row of 0 for each probe nothing hit; latency: each pair without a call", 1 },
	{ "sum", OPT_SUM, "FIELD", 0, "count: FIELD's sum per key, a column (bpftrace's sum())", 1 },
	{ "avg", OPT_AVG, "FIELD", 0, "count: FIELD's mean per key", 1 },
	{ "min", OPT_MIN, "FIELD", 0, "count: FIELD's least value per key", 1 },
	{ "max", OPT_MAX, "FIELD", 0, "count: FIELD's largest value per key", 1 },
	{ "sort", OPT_SORT, "count|sum|avg|min|max", 0,
	  "count: the column the rows sort by, largest first (default: the first of "
	  "--sum/--avg/--min/--max given, else count)", 1 },
	{ "interval", 'i', "SECONDS", 0, "print (and reset) every SECONDS", 1 },
	{ "svg", OPT_SVG, "FILE", 0,
	  "hist, latency, count: also draw the tables as an SVG picture in FILE", 1 },
	{ "unit", OPT_UNIT, "ns|us|ms", 0, "latency: the unit to print (default us)", 1 },
	{ "from", OPT_FROM, "DEFINITION", 0,
	  "latency: from this event (any definition, glob, repeatable) ... ", 1 },
	{ "to", OPT_TO, "DEFINITION", 0,
	  "... to this one (repeatable), paired in the kernel by --key", 1 },
	{ "key", OPT_KEY, "A[=B][,...]", 0,
	  "latency --from/--to: pair on --from's argument A and --to's B (default: the thread)",
	  1 },
	{ "over", OPT_OVER, "DURATION", 0,
	  "latency: also each call of DURATION (10ms, 500us) or more as a line, both ends' "
	  "arguments", 1 },
	{ "error", OPT_ERROR, NULL, 0,
	  "why: the root's calls that returned an errno (NULL or ERR_PTR where it returns a "
	  "pointer)", 1 },
	{ "slower", OPT_SLOWER, "DURATION", 0,
	  "why: the root's calls of DURATION (10ms, 500us) or more", 1 },
	{ "under", OPT_UNDER, "GLOBS", 0,
	  "why: the kernel functions whose calls beneath the root are logged, globs "
	  "separated by spaces, ':kernel/bpf/*' a source file's by DWARF (default: "
	  "the root's alone)", 1 },
	{ "max-keys", OPT_MAX_KEYS, "N", 0,
	  "keyed entries and latency calls in flight (default 10240)", 1 },
	{ "unwind-rows", OPT_UNWIND_ROWS, "N", 0,
	  "user stacks: the rows kept for the unwind tables of binaries the walk meets "
	  "(default 524288, 16 bytes each; 0: none read then)", 1 },
	{ "no-tracepoint", OPT_NO_TP, NULL, 0,
	  "hist kmalloc: use kprobes even where kmem:kmalloc exists", 1 },
	{ "perfetto", OPT_PERFETTO, "FILE", 0,
	  "also a trace for Perfetto or chrome://tracing in FILE: each latency call a slice "
	  "(its entry's arguments in it), each streamed event an instant", 1 },
	{ "time", OPT_TIME, "mono|boot|wall|delta", 0,
	  "streamed events: the clock their time is in (default mono, ftrace's); wall is "
	  "ISO 8601, delta the time since the previous event", 1 },
	{ "le-every", OPT_LE_EVERY, "N", 0,
	  "serve's hist and latency jobs: one le bucket in N of kptrace's edges (coarser, "
	  "still exact)", 1 },
	{ "slack", OPT_SLACK, NULL, 0, "hist kmalloc: bytes allocated minus bytes asked for", 1 },
	{ "budget", OPT_BUDGET, "PCT%|N/s", 0,
	  "Cap what the probes cost: at most PCT% of one CPU, or N recorded events a second, "
	  "for the whole run; past it a probe is sampled (1 in N, aggregations scaled and "
	  "marked as estimates), then paused; every hit left out is counted", 0 },
	{ "cost", OPT_COST, "sampled|exact", 0,
	  "The profile's COST: from the kernel's BPF run-time statistics held 100 ms of each "
	  "second and scaled to the run (sampled, the default), or held for the whole run "
	  "(exact), which costs every BPF program on the machine a clock read pair a run", 0 },
	{ "backend", OPT_BACKEND, "auto|fentry|kprobe-multi|kprobe|tracepoint|tp-btf", 0,
	  "How kernel function probes attach: auto (fentry/fexit for a few probes, kprobe.multi "
	  "for many functions, where the kernel has them; else kprobes), or forced; tracepoints: "
	  "tp_btf or their record's program (tracepoint)", 0 },
	{ "btf", OPT_BTF, "FILE", 0,
	  "The kernel's BTF from FILE (raw, as BTFHub ships it, or an ELF file with a .BTF "
	  "section), for a kernel without /sys/kernel/btf/vmlinux: BTF arguments of kprobes; "
	  "fentry and tp_btf still need the kernel's own", 0 },
	{ "kstack", 'K', "DEPTH", OPTION_ARG_OPTIONAL,
	  "After each event, its kernel stack as ftrace's stacktrace trigger prints it "
	  "(at most DEPTH frames, default and maximum 127)", 0 },
	{ "ustack", 'U', "DEPTH", OPTION_ARG_OPTIONAL,
	  "After each event, its user stack, symbolized from the process's files "
	  "(frame pointers needed; DEPTH as -K)", 0 },
	{ "no-demangle", OPT_NO_DEMANGLE, NULL, 0,
	  "-U, --by ustack: C++ and Rust names as in the binary, not demangled", 0 },
	{ "frequency", 'F', "HZ", 0, "profile: samples a second on each CPU (default 99)", 1 },
	{ "no-idle", OPT_NO_IDLE, NULL, 0, "profile: leave the idle task's samples out", 1 },
	{ "slice", OPT_SLICE, "MS", 0,
	  "timechart: a slice's width, ms (default -d's thousandth, at least 1; else 50)", 1 },
	{ "folded", OPT_FOLDED, NULL, 0,
	  "count, hist, latency --by kstack/ustack: the stacks in the folded format "
	  "(root;...;leaf COUNT) that flame-graph tools read", 1 },
	{ "pmu", OPT_PMU, "EVENT[,EVENT]", 0,
	  "latency: per-call deltas of perf counters (perf's names: cycles, instructions, "
	  "cache-misses, page-faults, context-switches, cpu-clock, PMU/EVENT/...), at most 4", 1 },
	{ 0 },
};

static long long parse_int(struct argp_state *st, const char *opt, const char *s, long long min,
			   long long max)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 0);
	if (errno || end == s || *end || v < min || v > max)
		cli_error(st, "%s: '%s' is not a number in [%lld, %lld]", opt, s, min, max);
	return v;
}

static uint32_t parse_size(struct argp_state *st, const char *s)
{
	unsigned long long v, mul = 1;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (*end == 'K' || *end == 'k')
		mul = 1024, end++;
	else if (*end == 'M' || *end == 'm')
		mul = 1024 * 1024, end++;
	if (errno || end == s || *end || s[0] == '-')
		cli_error(st, "--buffer-size: '%s' is not a size", s);
	v *= mul;
	/* The kernel wants a power-of-two multiple of the page size. */
	if (v < 4096 || v > (1ULL << 30) || (v & (v - 1)))
		cli_error(st, "--buffer-size: %llu must be a power of two from 4K to 1G", v);
	return (uint32_t)v;
}

static double parse_seconds(struct argp_state *st, const char *opt, const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v > 0) || v > 1e9)
		cli_error(st, "%s: '%s' is not a positive number of seconds", opt, s);
	return v;
}

static void parse_linear(struct argp_state *st, struct kpt_opts *env, const char *s)
{
	long long v[3];
	char *end;
	int i;

	for (i = 0; i < 3; i++) {
		errno = 0;
		v[i] = strtoll(s, &end, 0);
		if (errno || end == s || (i < 2 && *end != ',') || (i == 2 && *end))
			cli_error(st, "--linear: '%s' is not MIN,MAX,STEP", s);
		s = end + 1;
	}
	if (v[2] <= 0 || v[1] <= v[0])
		cli_error(st, "--linear: needs MAX > MIN and STEP > 0");
	env->linear = true;
	env->lin_min = v[0];
	env->lin_max = v[1];
	env->lin_step = v[2];
}

static const char *const modes[] = { NULL, "hist", "latency", "count", "list", "why" };

/* A word that is not an option: a subcommand, hist's field or a definition. */
static void positional(struct argp_state *st, struct kpt_opts *env, char *arg)
{
	const char **nd, *sub;
	size_t m;

	if (st->arg_num == 0 && !strcmp(arg, "explain")) {
		env->dry_run = true;
		return;
	}
	if (st->arg_num == 0 && !strcmp(arg, "timechart")) {
		env->timechart = true;
		return;
	}
	if (st->arg_num == 0 && !strcmp(arg, "profile")) {
		env->mode = MODE_COUNT;
		env->profile = true;
		return;
	}
	for (m = 1; st->arg_num == 0 && m < sizeof(modes) / sizeof(modes[0]); m++) {
		if (!strcmp(arg, modes[m])) {
			env->mode = (enum kpt_mode)m;
			return;
		}
	}
	/* a bare word is never a definition: a subcommand mistyped */
	if (st->arg_num == 0 && (sub = hint_subcommand(arg)))
		cli_failure(st, 1, 0, "error: unknown subcommand '%s' (did you "
			     "mean '%s'?)", arg, sub);
	/* hist DEF FIELD: the second word names the argument to bucket */
	if (env->mode == MODE_HIST && env->ndefs == 1 && !env->field) {
		env->field = arg;
		return;
	}
	nd = realloc(env->defs, (env->ndefs + 1) * sizeof(*nd));
	if (!nd)
		cli_failure(st, 1, ENOMEM, "out of memory");
	env->defs = nd;
	env->defs[env->ndefs++] = arg;
}

static const char *const stat_words[] = { "sum", "avg", "min", "max" };

/* --sum/--avg/--min/--max FIELD: one field's statistics, columns of count's table. */
static void stat_option(struct argp_state *st, struct kpt_opts *env, int key, const char *field)
{
	unsigned int bit = 1u << (key - OPT_SUM);

	if (env->stat_field && strcmp(env->stat_field, field))
		cli_error(st, "--%s %s: the statistics are of one field, and --%s names '%s'",
			   stat_words[key - OPT_SUM], field, stat_words[env->first_stat_key - OPT_SUM],
			   env->stat_field);
	if (!env->stat_field)
		env->first_stat_key = key;
	env->stat_field = field;
	env->stats |= bit;
}

/* --sort COLUMN: 0 for count, else the statistic's bit. */
static unsigned int parse_sort(struct argp_state *st, const char *arg)
{
	unsigned int i;

	if (!strcmp(arg, "count"))
		return 0;
	for (i = 0; i < 4; i++)
		if (!strcmp(arg, stat_words[i]))
			return 1u << i;
	cli_error(st, "--sort %s: count, sum, avg, min or max", arg);
	return 0;
}

/* Whether --by names a stack key. */
static bool by_has_stack(const char *by)
{
	struct keylist kl;

	keylist_parse(by, &kl);
	return keylist_index(&kl, "kstack") >= 0 || keylist_index(&kl, "ustack") >= 0;
}

/*
 * kptrace profile: count profile:hz:F (-F, default 99 as perf's and bcc's)
 * by comm and both stacks unless --by says otherwise; --no-idle leaves the
 * idle task's samples out.
 */
static void profile_definition(struct argp_state *st, struct kpt_opts *env)
{
	const char **nd;

	if (env->ndefs || env->def_file)
		cli_error(st, "profile samples every CPU: it takes no definitions (-F HZ "
			   "sets the rate; -p, -c, --comm choose what is counted)");
	snprintf(env->profile_def, sizeof(env->profile_def), "profile:hz:%d%s",
		 env->profile_hz ? env->profile_hz : 99, env->no_idle ? " if common_pid != 0" : "");
	nd = realloc(env->defs, sizeof(*nd));
	if (!nd)
		cli_failure(st, 1, ENOMEM, "out of memory");
	env->defs = nd;
	env->defs[env->ndefs++] = env->profile_def;
	if (!env->by)
		env->by = "comm,ustack,kstack";
}

/*
 * kptrace timechart: the scheduler's programs (load/sched.h) keep the time;
 * forks and execs, rare, are streamed as the marks on the lanes.
 */
static void timechart_definitions(struct argp_state *st, struct kpt_opts *env)
{
	const char **nd;

	if (env->ndefs || env->def_file)
		cli_error(st, "timechart takes no definitions (-c, -p or -d say what and how long)");
	if (env->tid || env->comm || env->cgroup || env->keep_running)
		cli_error(st, "timechart follows -c's command and its children, -p's process or "
			   "the whole machine: not -t, --comm, --cgroup or --keep-running");
	if (env->kstack || env->ustack || env->filter || env->budget.pct > 0 || env->budget.rate)
		cli_error(st, "timechart keeps time, not events: no -K, -U, --filter or --budget");
	nd = realloc(env->defs, 2 * sizeof(*nd));
	if (!nd)
		cli_failure(st, 1, ENOMEM, "out of memory");
	env->defs = nd;
	env->defs[0] = "t:sched/sched_process_fork";
	env->defs[1] = "t:sched/sched_process_exec";
	env->ndefs = 2;
	/* before 5.15 two tracepoints' hits look the same to kptrace (load/ident.h) */
	if (!kfeat_cookies()) {
		env->ndefs = 1;
		fprintf(stderr, "kptrace: timechart: forks marked, not execs: this kernel has no "
			"BPF cookies (Linux 5.15+) to tell two tracepoints apart\n");
	}
}

/* A duration with its unit (ns, us, ms, s) in ns, above 0. */
static uint64_t parse_duration(struct argp_state *st, const char *opt, const char *arg)
{
	static const struct { const char *unit; double ns; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	};
	char *end;
	double v = strtod(arg, &end);
	size_t i;

	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (end != arg && !strcmp(end, units[i].unit) && v > 0 && v * units[i].ns < 1e18)
			return (uint64_t)(v * units[i].ns + 0.5);
	cli_error(st, "%s: '%s' is not a duration with its unit (10ms, 500us, 2s, 100ns)", opt,
		  arg);
	return 0;
}

/* One more --from or --to definition. */
static void push_def(struct argp_state *st, const char ***v, int *n, const char *arg)
{
	const char **nv = realloc(*v, (*n + 1) * sizeof(*nv));

	if (!nv)
		cli_failure(st, 1, ENOMEM, "out of memory");
	*v = nv;
	nv[(*n)++] = arg;
}

/* latency --from A... --to B...: the starts, then the ends (modes.c pairs them). */
static void pair_definitions(struct argp_state *st, struct kpt_opts *env)
{
	int i;

	if (env->mode != MODE_LATENCY)
		cli_error(st, "--from and --to are for 'kptrace latency'");
	if (!env->nfrom || !env->nto)
		cli_error(st, "latency --from DEFINITION --to DEFINITION: give both");
	if (env->ndefs || env->def_file)
		cli_error(st, "latency --from/--to times two events: no functions beside them");
	for (i = 0; i < env->nfrom; i++)
		push_def(st, &env->defs, &env->ndefs, env->from[i]);
	for (i = 0; i < env->nto; i++)
		push_def(st, &env->defs, &env->ndefs, env->to[i]);
}


/* kptrace why: one root function, a condition; a call's log needs all its hits. */
static void why_checks(struct argp_state *st, struct kpt_opts *env)
{
	if (env->mode != MODE_WHY) {
		if (env->why_error || env->why_slower_ns || env->why_under)
			cli_error(st, "--error, --slower and --under are for 'kptrace why'");
		return;
	}
	/* the root's name, before its arguments and filter */
	if (env->ndefs != 1 || env->def_file ||
	    strcspn(env->defs[0], "*?[:") < strcspn(env->defs[0], " \t"))
		cli_error(st, "why takes one kernel function, the root, and its arguments "
			   "(--under names the functions beneath it)");
	if (!env->why_error && !env->why_slower_ns)
		cli_error(st, "why: say which calls matter: --error, --slower DURATION, or both");
	if (env->by || env->interval || env->kstack || env->ustack || env->comm)
		cli_error(st, "why prints each call's tree: no --by, -i, -K, -U or --comm (a log "
			   "needs every entry and return)");
}

/* Cross-option checks, in one place. */
static void check_options(struct argp_state *st, struct kpt_opts *env)
{
	if (env->profile)
		profile_definition(st, env);
	if (env->timechart)
		timechart_definitions(st, env);
	else if (env->tc_slice_ms)
		cli_error(st, "--slice is for 'kptrace timechart'");
	if (env->nfrom || env->nto)
		pair_definitions(st, env);
	why_checks(st, env);
	if (env->pair_key && !env->nfrom)
		cli_error(st, "--key pairs latency --from with --to");
	if ((env->profile_hz || env->no_idle) && !env->profile)
		cli_error(st, "-F and --no-idle are for 'kptrace profile'");
	if (env->list_containers && env->mode != MODE_LIST)
		cli_error(st, "--containers is for 'kptrace list'");
	if (env->cgroup && env->ncontainers)
		cli_error(st, "--cgroup and --container both choose cgroups: give one");
	if (env->mode == MODE_LIST) {
		if (env->list_containers && env->ndefs)
			cli_error(st, "list --containers takes no GLOB");
		if (env->ndefs > 1 || env->def_file)
			cli_error(st, "list takes one GLOB (or none: everything)");
		return;
	}
	if (!env->ndefs && !env->def_file)
		cli_error(st, "no probe definition given (see --help for examples)");
	if (env->pid && env->command)
		cli_error(st, "-p and -c both choose the process to trace: give one");
	if (env->tid && env->command)
		cli_error(st, "-t names a thread that runs now, not one of -c's");
	if (env->keep_running && !env->pid && !env->tid && !env->command)
		cli_error(st, "--keep-running is for -p, -t and -c");
	if (env->linear && env->mode != MODE_HIST)
		cli_error(st, "--linear is for 'kptrace hist'");
	if (env->over_ns && env->mode != MODE_LATENCY)
		cli_error(st, "--over is for 'kptrace latency'");
	if (env->perfetto_path && env->mode != MODE_LATENCY && env->mode != MODE_TRACE &&
	    env->mode != MODE_WHY)
		cli_error(st, "--perfetto is for streamed events (each an instant), 'kptrace "
			   "latency' (every call a slice) and 'kptrace why' (each tree's calls)");
	if (env->time_set && env->mode != MODE_TRACE)
		cli_error(st, "--time is for streamed events (the aggregations print no event's "
			   "time)");
	if (env->le_every && env->mode != MODE_HIST && env->mode != MODE_LATENCY)
		cli_error(st, "--le-every is for hist and latency jobs");
	if (env->le_every && !cli_in(st)->job)
		cli_error(st, "--le-every is for a job of 'kptrace serve' (the le buckets it "
			   "exposes)");
	if ((env->budget.pct > 0 || env->budget.rate) && env->mode == MODE_LATENCY)
		cli_error(st, "--budget is for streamed events, hist and count: a latency's start "
			   "and end must both be seen");
	if ((env->budget.pct > 0 || env->budget.rate) && cli_in(st)->job)
		cli_error(st, "--budget is for a run of its own, not a job of 'kptrace serve'");
	if (env->top && env->mode != MODE_COUNT)
		cli_error(st, "--top is for 'kptrace count'");
	if (env->zeros && env->mode != MODE_COUNT && env->mode != MODE_LATENCY)
		cli_error(st, "--zeros is for 'kptrace count' and 'latency'");
	if (env->unit && env->mode != MODE_LATENCY)
		cli_error(st, "--unit is for 'kptrace latency'");
	if (env->by && env->mode == MODE_TRACE)
		cli_error(st, "--by is for hist, latency and count");
	if (env->interval && env->mode == MODE_TRACE)
		cli_error(st, "-i is for hist, latency and count");
	if (env->def_file && env->mode == MODE_LATENCY)
		cli_error(st, "latency takes functions, not -f definitions");
	if (env->pmu && env->mode != MODE_LATENCY)
		cli_error(st, "--pmu is for 'kptrace latency'");
	if (env->pmu && env->by)
		cli_error(st, "--pmu does not combine with --by (the counters are per function)");
	if (env->mode == MODE_HIST && env->ndefs > 1)
		cli_error(st, "hist takes one definition (and the argument to bucket)");
	if ((env->kstack || env->ustack) && env->mode != MODE_TRACE)
		cli_error(st, "-K and -U add stacks to printed events: for %s, give --by kstack "
			   "or --by ustack", env->mode == MODE_HIST ? "hist" : env->mode ==
			   MODE_LATENCY ? "latency" : "count");
	if (env->folded && !by_has_stack(env->by))
		cli_error(st, "--folded prints aggregated stacks: give count, hist or latency "
			   "--by kstack or --by ustack");
	if (env->folded && env->json)
		cli_error(st, "--folded and --json are two output formats: give one");
	if (env->svg_path && env->mode == MODE_TRACE && !env->timechart)
		cli_error(st, "--svg is for hist, latency and count");
	if (env->svg_path && env->folded)
		cli_error(st, "--svg draws the tables, which --folded does not print: give one");
	if (env->stat_field && env->mode != MODE_COUNT)
		cli_error(st, "--sum, --avg, --min and --max are for 'kptrace count' (hist and "
			   "latency print them under each histogram)");
	if (env->sort_set && env->mode != MODE_COUNT)
		cli_error(st, "--sort is for 'kptrace count'");
	if (env->sort_by && !(env->stats & env->sort_by))
		cli_error(st, "--sort %s: give --%s FIELD too", stat_words[__builtin_ctz(env->sort_by)],
			   stat_words[__builtin_ctz(env->sort_by)]);
	if (env->stat_field && !env->sort_set)
		env->sort_by = 1u << (env->first_stat_key - OPT_SUM);
}

/*
 * The options of stacks, profile and the aggregations (parse_opt()'s
 * second half); ARGP_ERR_UNKNOWN for any other.
 */
static error_t parse_agg_opt(int key, char *arg, struct argp_state *st, struct kpt_opts *env)
{
	switch (key) {
	case 'K':
		env->kstack = arg ? (int)parse_int(st, "-K", arg, 1, KPT_STACK_MAX) : KPT_STACK_MAX;
		break;
	case 'U':
		env->ustack = arg ? (int)parse_int(st, "-U", arg, 1, KPT_STACK_MAX) : KPT_STACK_MAX;
		break;
	case OPT_FOLDED:
		env->folded = true;
		break;
	case OPT_SVG:
		env->svg_path = arg;
		break;
	case OPT_SUM:
	case OPT_AVG:
	case OPT_MIN:
	case OPT_MAX:
		stat_option(st, env, key, arg);
		break;
	case OPT_FROM:
		push_def(st, &env->from, &env->nfrom, arg);
		break;
	case OPT_TO:
		push_def(st, &env->to, &env->nto, arg);
		break;
	case OPT_KEY:
		env->pair_key = arg;
		break;
	case OPT_ERROR:
		env->why_error = true;
		break;
	case OPT_SLOWER:
		env->why_slower_ns = parse_duration(st, "--slower", arg);
		break;
	case OPT_UNDER:
		env->why_under = arg;
		break;
	case OPT_OVER:
		env->over_ns = parse_duration(st, "--over", arg);
		break;
	case OPT_SORT:
		env->sort_by = parse_sort(st, arg);
		env->sort_set = true;
		break;
	case 'F':
		env->profile_hz = (int)parse_int(st, "-F", arg, 1, 10000);
		break;
	case OPT_NO_DEMANGLE:
		env->no_demangle = true;
		break;
	case OPT_NO_IDLE:
		env->no_idle = true;
		break;
	case OPT_SLICE:
		env->tc_slice_ms = parse_seconds(st, "--slice", arg);
		break;
	case OPT_LINEAR:
		parse_linear(st, env, arg);
		break;
	case OPT_BY:
		env->by = arg;
		break;
	case OPT_TOP:
		env->top = (int)parse_int(st, "--top", arg, 1, INT_MAX);
		break;
	case OPT_ZEROS:
		env->zeros = true;
		break;
	case OPT_UNIT:
		if (strcmp(arg, "ns") && strcmp(arg, "us") && strcmp(arg, "ms"))
			cli_error(st, "--unit: '%s' is not ns, us or ms", arg);
		env->unit = arg;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/*
 * The options that say whose hits a run takes (-p, -c, -t, --comm,
 * --cgroup, --container); parse_agg_opt()'s for any other.
 */
static error_t parse_target_opt(int key, char *arg, struct argp_state *st, struct kpt_opts *env)
{
	switch (key) {
	case 'p':
		env->pid = (pid_t)parse_int(st, "-p", arg, 1, INT_MAX);
		break;
	case 'c':
		env->command = arg;
		break;
	case 't':
		env->tid = (pid_t)parse_int(st, "-t", arg, 1, INT_MAX);
		break;
	case OPT_COMM:
		if (!*arg || strlen(arg) > 15)
			cli_error(st, "--comm: '%s' must be 1 to 15 characters (a task's comm)", arg);
		env->comm = arg;
		break;
	case OPT_CGROUP:
		env->cgroup = arg;
		break;
	case OPT_CONTAINER:
		if (!*arg || env->ncontainers == KPT_MAX_CONTAINERS)
			cli_error(st, "--container: %s", *arg ? "too many (at most 8)" : "empty");
		env->containers[env->ncontainers++] = arg;
		break;
	case OPT_CONTAINERS:
		env->list_containers = true;
		break;
	default:
		return parse_agg_opt(key, arg, st, env);
	}
	return 0;
}

static error_t parse_opt(int key, char *arg, struct argp_state *st)
{
	struct kpt_opts *env = cli_in(st)->env;

	switch (key) {
	case 'f':
		env->def_file = arg;
		break;
	case 'o':
		env->out_path = arg;
		break;
	case OPT_JSON:
		env->json = true;
		break;
	case OPT_UNSAFE:
		env->unsafe = true;
		break;
	case OPT_KEEP_RUNNING:
		env->keep_running = true;
		break;
	case 'd':
		env->duration = parse_seconds(st, "-d", arg);
		break;
	case 'i':
		env->interval = parse_seconds(st, "-i", arg);
		break;
	case OPT_FILTER:
		env->filter = arg;
		break;
	case OPT_MAX_KEYS:
		env->max_keys = (uint32_t)parse_int(st, "--max-keys", arg, 16, 1 << 24);
		break;
	case OPT_UNWIND_ROWS:
		env->unwind_rows = (uint32_t)parse_int(st, "--unwind-rows", arg, 0, KPT_CFI_ROWS_MAX);
		env->unwind_rows_set = true;
		break;
	case OPT_PERFETTO:
		env->perfetto_path = arg;
		break;
	case OPT_TIME:
		if (!outtime_parse(arg, &env->time_clock))
			cli_error(st, "--time: '%s' is not mono, boot, wall or delta", arg);
		env->time_set = true;
		break;
	case OPT_LE_EVERY:
		env->le_every = (int)parse_int(st, "--le-every", arg, 1, 64);
		break;
	case OPT_NO_TP:
		env->no_tracepoint = true;
		break;
	case OPT_SLACK:
		env->slack = true;
		break;
	case OPT_BACKEND:
		if (strcmp(arg, "auto") && strcmp(arg, "kprobe") && strcmp(arg, "kprobe-multi") &&
		    strcmp(arg, "fentry") && strcmp(arg, "tracepoint") && strcmp(arg, "tp-btf"))
			cli_error(st, "--backend: '%s' is not auto, fentry, kprobe-multi, kprobe, "
				  "tracepoint or tp-btf", arg);
		env->backend = arg;
		break;
	case OPT_PMU:
		env->pmu = arg;
		break;
	case OPT_BTF:
		env->btf_path = arg;
		break;
	case OPT_COST:
		if (strcmp(arg, "sampled") && strcmp(arg, "exact"))
			cli_error(st, "--cost: '%s' is not sampled or exact", arg);
		env->cost_exact = !strcmp(arg, "exact");
		break;
	case OPT_BUDGET: {
		char msg[160];

		if (budget_parse(arg, &env->budget, msg, sizeof(msg)))
			cli_error(st, "%s", msg);
		break;
	}
	case OPT_DRY_RUN:
		env->dry_run = true;
		break;
	case OPT_BUFFER:
		env->buffer_size = parse_size(st, arg);
		break;
	case 'v':
		env->verbose = true;
		break;
	case ARGP_KEY_ARG:
		positional(st, env, arg);
		break;
	case ARGP_KEY_END:
		check_options(st, env);
		break;
	default:
		return parse_target_opt(key, arg, st, env);
	}
	return 0;
}

static const struct argp argp = { options, parse_opt, args_doc, doc, NULL, NULL, NULL };

int cli_parse(int argc, char **argv, struct kpt_opts *env)
{
	struct cli_input in = { .env = env };

	memset(env, 0, sizeof(*env));
	return argp_parse(&argp, argc, argv, 0, NULL, &in);
}

/* A job's parse_opt(): an error in it comes back here (cli_bail()) and refuses the word. */
static error_t job_parse_opt(int key, char *arg, struct argp_state *st)
{
	jmp_buf fail;
	error_t err;

	if (setjmp(fail)) {
		cli_in(st)->fail = NULL;
		return EINVAL;
	}
	cli_in(st)->fail = &fail;
	err = parse_opt(key, arg, st);
	cli_in(st)->fail = NULL;
	return err;
}

/*
 * A serve job's words, parsed in this process: argp's messages (its own and
 * getopt's, which go to stderr) are caught in a memory stream for the time of
 * the parse (glibc's stderr is a variable to set), and the first is the
 * reason given.
 */
int cli_parse_job(int argc, char **argv, struct kpt_opts *env, char *msg, size_t msglen)
{
	static const struct argp job_argp = { options, job_parse_opt, args_doc, doc,
					      NULL, NULL, NULL };
	struct cli_input in = { .env = env, .job = true };
	FILE *saved = stderr, *mem;
	char *said = NULL, *nl;
	size_t len = 0;
	int i, err;

	msg[0] = '\0';
	memset(env, 0, sizeof(*env));
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-?") ||
		    !strcmp(argv[i], "--usage") || !strcmp(argv[i], "--version") ||
		    !strcmp(argv[i], "-V")) {
			snprintf(msg, msglen, "%s: not in a job", argv[i]);
			return -EINVAL;
		}
	}
	mem = open_memstream(&said, &len);
	if (!mem)
		return -errno;
	fflush(stderr);
	stderr = mem;
	err = argp_parse(&job_argp, argc, argv, ARGP_NO_EXIT, NULL, &in);
	stderr = saved;
	fclose(mem);
	if (err) {
		/* argp's first line, without its "kptrace: " */
		nl = strchr(said, '\n');
		if (nl)
			*nl = '\0';
		snprintf(msg, msglen, "%s", strncmp(said, "kptrace: ", 9) ? said : said + 9);
		if (!msg[0])
			snprintf(msg, msglen, "the job's options were refused");
		cli_free(env);
		err = -EINVAL;
	}
	free(said);
	return err;
}

void cli_free(struct kpt_opts *env)
{
	free(env->defs);
	free(env->from);
	free(env->to);
	env->defs = NULL;
	env->from = env->to = NULL;
}
