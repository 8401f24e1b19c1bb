// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The pipeline, stage by stage: read definitions, parse, resolve, compile
 * (all refusals happen by here), then load, attach, consume. One direction:
 * no stage reaches back into an earlier one.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <wordexp.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "agg.h"
#include "cli.h"
#include "compile.h"
#include "consumer.h"
#include "filter.h"
#include "loader.h"
#include "modes.h"
#include "output.h"
#include "pmu.h"
#include "resolve.h"
#include "run.h"
#include "spec.h"

struct defs {
	struct spec_probe *p;
	char **where;		/* "FILE:LINE" or "argument N", for messages */
	int n, cap;
};

static bool verbose;

static int libbpf_log(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	/* Our own messages say what failed and why; libbpf's are for -v. */
	if (!verbose)
		return 0;
	(void)level;
	return vfprintf(stderr, fmt, ap);
}

static void report(const char *where, const char *text, const char *msg, int col)
{
	if (where)
		fprintf(stderr, "kptrace: in %s:\n", where);
	if (col >= 0 && text)
		spec_print_error(stderr, text, msg, col);
	else
		fprintf(stderr, "kptrace: error: %s\n", msg);
}

static void defs_remove(struct defs *d, int i)
{
	spec_free(&d->p[i]);
	free(d->where[i]);
	memmove(&d->p[i], &d->p[i + 1], (d->n - i - 1) * sizeof(d->p[0]));
	memmove(&d->where[i], &d->where[i + 1], (d->n - i - 1) * sizeof(d->where[0]));
	d->n--;
}

static void defs_free(struct defs *d)
{
	while (d->n)
		defs_remove(d, d->n - 1);
	free(d->p);
	free(d->where);
}

/* Parse one definition into d; "-:EVENT" removes an earlier one. */
static int defs_add(struct defs *d, const char *text, const char *where)
{
	struct spec_error e;
	struct spec_probe p;
	int i;

	if (spec_parse(text, &p, &e)) {
		report(where, text, spec_strerror(e.code), e.col);
		spec_free(&p);
		return -EINVAL;
	}
	for (i = 0; i < d->n; i++) {
		/* "-:EVENT" without a group (empty) matches it in any group:
		 * kprobe_events and uprobe_events are one list here. */
		bool any_group = p.kind == SPEC_REMOVE && !p.group[0];

		if (strcmp(d->p[i].event, p.event) ||
		    (!any_group && strcmp(d->p[i].group, p.group)))
			continue;
		if (p.kind == SPEC_REMOVE) {
			defs_remove(d, i);
			spec_free(&p);
			return 0;
		}
		report(where, text, "This event is already defined (remove it first with -:EVENT)",
		       p.target_col > 0 ? 2 : 0);
		spec_free(&p);
		return -EEXIST;
	}
	if (p.kind == SPEC_REMOVE) {
		report(where, text, "No such event to remove", 2);
		spec_free(&p);
		return -ENOENT;
	}
	if (d->n == d->cap) {
		int cap = d->cap ? d->cap * 2 : 16;
		struct spec_probe *np = realloc(d->p, cap * sizeof(*np));
		char **nw;

		if (!np)
			return -ENOMEM;
		d->p = np;
		nw = realloc(d->where, cap * sizeof(*nw));
		if (!nw)
			return -ENOMEM;
		d->where = nw;
		d->cap = cap;
	}
	d->p[d->n] = p;
	d->where[d->n] = where ? strdup(where) : NULL;
	d->n++;
	return 0;
}

static int read_def_file(struct defs *d, const char *path)
{
	char *line = NULL, where[512];
	size_t cap = 0;
	ssize_t len;
	int lineno = 0, err = 0;
	FILE *f;

	f = strcmp(path, "-") ? fopen(path, "re") : stdin;
	if (!f) {
		fprintf(stderr, "kptrace: error: cannot read %s: %s\n", path, strerror(errno));
		return -errno;
	}
	while ((len = getline(&line, &cap, f)) >= 0) {
		char *s = line;

		lineno++;
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = 0;
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s || *s == '#')
			continue;
		snprintf(where, sizeof(where), "%s:%d", path, lineno);
		err = defs_add(d, s, where);
		if (err)
			break;
	}
	free(line);
	if (f != stdin)
		fclose(f);
	return err;
}

static FILE *open_output(const char *path)
{
	FILE *f;
	int fd;

	if (!path)
		return stdout;
	/* No following a planted symlink; never a shared predictable path of ours. */
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		fprintf(stderr, "kptrace: error: cannot write %s: %s\n", path, strerror(errno));
		return NULL;
	}
	f = fdopen(fd, "w");
	if (!f)
		close(fd);
	return f;
}

/*
 * -c: the child waits on a pipe until every probe is attached, then execs.
 * The command is split into words (quotes honoured, no command substitution)
 * and run directly, not through sh -c: the pid filter must see the command
 * itself, not a shell that forks it.
 */
static pid_t spawn_waiting(const char *cmd, int *go_fd)
{
	wordexp_t we;
	int pfd[2];
	pid_t pid;
	char c;

	if (wordexp(cmd, &we, WRDE_NOCMD) || !we.we_wordc)
		return -EINVAL;
	if (pipe2(pfd, O_CLOEXEC)) {
		wordfree(&we);
		return -errno;
	}
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		close(pfd[1]);
		if (read(pfd[0], &c, 1) != 1)
			_exit(127); /* the tracer gave up: do not run untraced */
		signal(SIGPIPE, SIG_DFL);
		execvp(we.we_wordv[0], we.we_wordv);
		fprintf(stderr, "kptrace: cannot run %s: %s\n", we.we_wordv[0], strerror(errno));
		_exit(127);
	}
	wordfree(&we);
	close(pfd[0]);
	*go_fd = pfd[1];
	return pid;
}

/*
 * The probe's filter ("DEF if EXPR") and --filter, both into its pre/post
 * programs. Each is first compiled alone, so an error's caret lands in the
 * text the user wrote.
 */
static int compile_filters(const struct env *env, const struct spec_probe *p,
			   const struct ev_desc *ev, struct kpt_probe_entry *ent, const char *where)
{
	char msg[256], *both = NULL;
	int err, col;

	if (p->filter) {
		err = filter_compile(p->filter, ev, &ent->pre, &ent->post, msg, sizeof(msg), &col);
		if (err) {
			report(where, p->text, msg, p->filter_col + col);
			return err;
		}
	}
	if (env->filter) {
		err = filter_compile(env->filter, ev, &ent->pre, &ent->post, msg, sizeof(msg),
				     &col);
		if (err) {
			report("--filter", env->filter, msg, col);
			return err;
		}
	}
	if (!p->filter || !env->filter)
		return 0;
	if (asprintf(&both, "(%s) && (%s)", p->filter, env->filter) < 0)
		return -ENOMEM;
	err = filter_compile(both, ev, &ent->pre, &ent->post, msg, sizeof(msg), &col);
	if (err)
		report(where, both, msg, col);
	free(both);
	return err;
}

static void agg_tick(void *arg, bool final)
{
	const struct agg_ctx *c = arg;

	/* with -i each report covers one interval: print, then reset */
	agg_report(c, !final && c->interval_reset);
}

/* A cgroup v2 directory's id is its inode number. */
static int cgroup_id(const char *path, uint64_t *id)
{
	struct stat st;

	if (stat(path, &st)) {
		fprintf(stderr, "kptrace: error: --cgroup %s: %s\n", path, strerror(errno));
		return -errno;
	}
	if (!S_ISDIR(st.st_mode)) {
		fprintf(stderr, "kptrace: error: --cgroup %s: not a cgroup directory\n", path);
		return -ENOTDIR;
	}
	*id = st.st_ino;
	return 0;
}

int kpt_run(const struct env *env)
{
	struct sysinfo si = { 0 };
	struct defs d = { 0 };
	struct kpt_probe_entry *ents = NULL;
	struct ev_desc *evs = NULL;
	struct resolved *res = NULL;
	struct loader ld = { 0 };
	struct load_opts lo = { 0 };
	struct consume_opts co = { 0 };
	struct deflist dl = { 0 };
	struct agg_opts ao = { 0 };
	struct agg_ctx ac = { 0 };
	struct pmu_set pmu = { 0 };
	uint32_t nbuckets = 0;
	char msg[512], where[64];
	int i, err = 0, col, go_fd = -1, status = 0;
	pid_t child = 0;
	FILE *out = NULL;

	verbose = env->verbose;
	libbpf_set_print(libbpf_log);
	if (env->pmu && pmu_parse(env->pmu, &pmu, msg, sizeof(msg))) {
		fprintf(stderr, "kptrace: error: %s\n", msg);
		return -EINVAL;
	}

	/* 1. parse (the subcommands' own definitions too) */
	if (env->def_file)
		err = read_def_file(&d, env->def_file);
	if (!err) {
		err = modes_definitions(env, &si, &dl, msg, sizeof(msg));
		if (err)
			fprintf(stderr, "kptrace: error: %s\n", msg);
	}
	for (i = 0; !err && i < dl.n; i++) {
		snprintf(where, sizeof(where), "definition %d", i + 1);
		err = defs_add(&d, dl.text[i], dl.n > 1 || env->def_file ? where : NULL);
	}
	if (err)
		goto cleanup;
	if (!d.n) {
		fprintf(stderr, "kptrace: error: no probe definitions left to run\n");
		err = -EINVAL;
		goto cleanup;
	}

	/* 2. resolve, 3. compile */
	ents = calloc(d.n, sizeof(*ents));
	evs = calloc(d.n, sizeof(*evs));
	res = calloc(d.n, sizeof(*res));
	if (!ents || !evs || !res) {
		err = -ENOMEM;
		goto cleanup;
	}
	for (i = 0; i < d.n; i++) {
		err = resolve_probe(&si, &d.p[i], &res[i], msg, sizeof(msg), &col);
		if (!err)
			err = compile_probe(&d.p[i], &res[i], i, &ents[i], &evs[i], msg,
					    sizeof(msg), &col);
		if (err) {
			report(d.where[i], d.p[i].text, msg, col);
			goto cleanup;
		}
	}
	for (i = 0; i < d.n; i++) {
		err = compile_filters(env, &d.p[i], &evs[i], &ents[i], d.where[i]);
		if (err)
			goto cleanup;
	}
	err = modes_actions(env, evs, ents, d.n, &nbuckets, msg, sizeof(msg), &i);
	if (err) {
		report(d.where[i], NULL, msg, -1);
		goto cleanup;
	}
	if (env->dry_run) {
		for (i = 0; i < d.n; i++) {
			explain_event(stdout, &evs[i]);
			if (!ents[i].pre.nops && !ents[i].post.nops)
				continue;
			fputs("filter, before fetching: ", stdout);
			filter_explain(stdout, &ents[i].pre, &evs[i]);
			fputs("\nfilter, after fetching: ", stdout);
			filter_explain(stdout, &ents[i].post, &evs[i]);
			fputc('\n', stdout);
		}
		goto cleanup;
	}

	/* --pmu: every counter open before anything is loaded, or a clear no */
	if (pmu.n) {
		int ncpus = libbpf_num_possible_cpus();

		err = ncpus > 0 ? pmu_open(&pmu, ncpus, msg, sizeof(msg)) : ncpus;
		if (err) {
			fprintf(stderr, "kptrace: error: %s\n", ncpus > 0 ? msg : "cannot count CPUs");
			goto cleanup;
		}
		lo.pmu_n = pmu.n;
	}

	out = open_output(env->out_path);
	if (!out) {
		err = -errno;
		goto cleanup;
	}
	setvbuf(out, NULL, _IOFBF, 1 << 20);
	consumer_install_signals();

	if (env->command) {
		child = spawn_waiting(env->command, &go_fd);
		if (child < 0) {
			err = child;
			fprintf(stderr, "kptrace: error: cannot start '%s': %s\n", env->command,
				strerror(-err));
			child = 0;
			goto cleanup;
		}
	}

	/* 4. load, attach */
	lo.target_tgid = child ? child : env->pid;
	lo.buffer_size = env->buffer_size;
	lo.target_tid = env->tid;
	lo.target_comm = env->comm;
	lo.hist_buckets = nbuckets;
	lo.max_keys = env->max_keys;
	/* Size what this run uses: aggregation never writes the ring buffer, and
	 * streaming never the keyed maps (measured: 8 MB of RSS, ms of start-up). */
	if (env->mode != MODE_TRACE && !env->buffer_size)
		lo.buffer_size = 4096;
	lo.keyed = false;
	for (i = 0; i < d.n; i++)
		lo.keyed |= ents[i].agg.nkeys || ents[i].agg.action == KPT_ACT_COUNT ||
			    ents[i].agg.action == KPT_ACT_LAT_START;
	/* libbpf loads the kernel's BTF itself: ours is done with */
	btf__free(si.btf);
	si.btf = NULL;
	if (env->cgroup) {
		err = cgroup_id(env->cgroup, &lo.target_cgroup);
		if (err)
			goto cleanup;
	}
	err = loader_load(&ld, &lo, d.n, msg, sizeof(msg));
	for (i = 0; !err && i < d.n; i++)
		err = loader_set_probe(&ld, i, &ents[i]);
	if (!err && pmu.n)
		err = pmu_attach(&pmu, &ld, msg, sizeof(msg));
	if (err) {
		fprintf(stderr, "kptrace: error: %s\n", msg);
		goto cleanup;
	}
	fprintf(stderr, "Attaching %d probe%s...\n", d.n, d.n == 1 ? "" : "s");
	err = loader_attach(&ld, evs, d.n, lo.target_tgid, msg, sizeof(msg));
	if (err) {
		fprintf(stderr, "kptrace: error: %s; nothing was left attached\n", msg);
		goto cleanup;
	}
	fprintf(stderr, "Attached %d probe%s\n", d.n, d.n == 1 ? "" : "s");
	if (go_fd >= 0) {
		if (write(go_fd, "g", 1) != 1)
			err = -errno;
		close(go_fd);
		go_fd = -1;
	}

	/* 5..8 run in the kernel and in the consumer */
	co.out = out;
	co.format = env->json ? OUT_JSON : OUT_TEXT;
	co.duration = env->duration;
	co.child = child;
	co.ksyms = si.ksyms;
	co.evs = evs;
	co.nevs = d.n;
	if (env->mode != MODE_TRACE) {
		ao.unit = env->unit;
		ao.top = env->top;
		ac.out = out;
		ac.json = env->json;
		ac.opts = &ao;
		ac.ld = &ld;
		ac.evs = evs;
		ac.ents = ents;
		ac.n = d.n;
		ac.ksyms = si.ksyms;
		ac.interval_reset = env->interval > 0;
		ac.pmu = pmu.n ? &pmu : NULL;
		co.report = agg_tick;
		co.report_arg = &ac;
		co.interval = env->interval;
	}
	err = consume(&ld, &co, &status);
	if (child && waitpid(child, &status, WNOHANG) == 0)
		kill(child, SIGTERM), waitpid(child, &status, 0);
	child = 0;

cleanup:
	if (go_fd >= 0)
		close(go_fd); /* the child sees EOF and exits without running */
	if (child > 0)
		waitpid(child, &status, 0);
	loader_close(&ld);
	pmu_close(&pmu);
	if (out && out != stdout)
		fclose(out);
	else if (out)
		fflush(out);
	for (i = 0; evs && i < d.n; i++)
		ev_desc_free(&evs[i]);
	for (i = 0; res && i < d.n; i++)
		resolved_free(&res[i]);
	free(evs);
	free(res);
	free(ents);
	defs_free(&d);
	deflist_free(&dl);
	sysinfo_free(&si);
	return err;
}
