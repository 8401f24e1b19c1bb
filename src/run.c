// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The pipeline, stage by stage: read definitions, parse, resolve, compile
 * (all refusals happen by here), then load, attach, consume. One direction:
 * no stage reaches back into an earlier one.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
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
#include "backend.h"
#include "btfarg.h"
#include "cli.h"
#include "compile.h"
#include "consumer.h"
#include "filter.h"
#include "hint.h"
#include "loader.h"
#include "modes.h"
#include "output.h"
#include "privilege.h"
#include "pmu.h"
#include "resolve.h"
#include "run.h"
#include "spec.h"
#include "target.h"

struct defs {
	struct spec_probe *p;
	char **where;		/* "FILE:LINE" or "argument N", for messages */
	int n, cap;
};

static bool verbose;
/*
 * run_once(): the kernel refused a function resolved without kallsyms, so
 * the run is resolved again with it; ESTALE, as no kernel call here returns it.
 */
#define KPT_ERETRY_KSYMS	(-ESTALE)

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

/*
 * Parse one definition into d; "-:EVENT [PROBEPOINT [ARGS]]" removes an
 * earlier one's probes. A definition naming an earlier one's event is one
 * more probe point of that event, as in kprobe_events: check_appends()
 * says, once names and types are known, whether the kernel would take it.
 */
static int defs_add(struct defs *d, const char *text, const char *where)
{
	struct spec_error e;
	struct spec_probe p;
	char msg[1024];
	int i, removed = 0;

	if (spec_parse(text, &p, &e)) {
		/* the kernel's words, then what the text most likely meant */
		i = snprintf(msg, sizeof(msg), "%s", spec_strerror(e.code));
		hint_definition(text, e.code, e.col, msg + i, sizeof(msg) - i);
		report(where, text, msg, e.col);
		spec_free(&p);
		return -EINVAL;
	}
	if (p.ignored_col) {
		if (where)
			fprintf(stderr, "kptrace: in %s:\n", where);
		spec_print_diag(stderr, "warning", text, "ignored, as the kernel's parser ignores "
				"it: what follows a dereference's closing brace", p.ignored_col);
	}
	for (i = 0; p.kind == SPEC_REMOVE && i < d->n; i++) {
		/* "-:EVENT" without a group (empty) matches it in any group:
		 * kprobe_events and uprobe_events are one list here. */
		if (strcmp(d->p[i].event, p.event) || (p.group[0] && strcmp(d->p[i].group, p.group)) ||
		    !spec_removal_matches(&p, &d->p[i]))
			continue;
		defs_remove(d, i--);
		removed++;
	}
	if (p.kind == SPEC_REMOVE) {
		if (!removed)
			report(where, text, p.remove_match ? "No such probe of this event to remove" :
			       "No such event to remove", 2);
		spec_free(&p);
		return removed ? 0 : -ENOENT;
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
		/* a NUL would cut the definition short unseen: make it a control
		 * byte, which spec_parse() refuses with a caret */
		for (char *z = memchr(line, '\0', len); z; z = memchr(z, '\0', line + len - z))
			*z = '\x01';
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
	if (!err && ferror(f)) {
		err = -errno;
		fprintf(stderr, "kptrace: error: cannot read %s: %s\n", path, strerror(errno));
	}
	free(line);
	if (f != stdin)
		fclose(f);
	return err;
}

/*
 * Definitions that name one event: each is appended to the first as one more
 * probe point where the kernel would append it (spec_check_append()).
 */
static int check_appends(const struct defs *d)
{
	struct spec_error e;
	int i, j;

	for (i = 1; i < d->n; i++) {
		for (j = 0; j < i; j++)
			if (!strcmp(d->p[j].event, d->p[i].event) &&
			    !strcmp(d->p[j].group, d->p[i].group))
				break;
		if (j < i && spec_check_append(&d->p[j], &d->p[i], &e)) {
			report(d->where[i], d->p[i].text, spec_strerror(e.code), e.col);
			return -EEXIST;
		}
	}
	return 0;
}

/* ftrace's event names keep [A-Za-z0-9_] */
static void name_clean(char *s)
{
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_'))
			*s = '_';
}

/*
 * Reading /proc/kallsyms costs ~40-60 ms of the kernel's time, several
 * times a tracepoint run's whole start-up, so only a run that may show a
 * kernel address as a symbol reads it before attaching: an aggregation key
 * that can hold one (agg_keys_symbolic(): not comm, pid, tid, cpu or a
 * narrow argument), which prints as a symbol when it is a text address, and,
 * in a stream, a :symbol or :symstr value (an aggregation prints no
 * arguments but its keys). Kernel function probes have it from resolving
 * their symbols, unless resolved without it: a stream of those reads it once
 * attached (symbols_after_attach()).
 */
static bool wants_symbols(const struct env *env, const struct ev_desc *evs,
			  const struct kpt_probe_entry *ents, int n)
{
	int i, j;

	for (i = 0; i < n; i++) {
		if (agg_keys_symbolic(&ents[i].agg, &evs[i]))
			return true;
		if (env->mode != MODE_TRACE)
			continue;
		for (j = 0; j < evs[i].nargs; j++)
			if (evs[i].args[j].type == SPEC_T_SYMBOL ||
			    evs[i].args[j].type == SPEC_T_SYMSTR)
				return true;
	}
	return false;
}

/*
 * "p:vfs_* ARGS": one definition per traceable match, named as ftrace names
 * a probe on that function ("p_vfs_read_0"), or EVENT_FUNC when the event
 * was named. Blacklisted matches are skipped and counted. from_glob[i] says
 * which definitions came from a glob (their later failures skip, not abort).
 */
static int expand_globs(struct defs *d, struct sysinfo *si, bool **from_glob)
{
	int i, k, n, skipped, ambiguous, err = 0, first = d->n;
	char msg[512], **names = NULL;
	bool *fg;

	for (i = 0; i < first && !err; i++) {
		const struct spec_probe *p = &d->p[i];
		const char *rest, *tok;

		if (!p->glob || (p->kind != SPEC_KPROBE && p->kind != SPEC_KRETPROBE))
			continue;
		err = sysinfo_glob_functions(si, p->symbol, &names, &n, &skipped, msg, sizeof(msg));
		if (err) {
			report(d->where[i], NULL, msg, -1);
			break;
		}
		ambiguous = sysinfo_drop_non_unique(si, names, &n);
		if (!n) {
			snprintf(msg, sizeof(msg), "no traceable kernel function matches '%s'%s%s",
				 p->symbol, skipped ? " (only blacklisted ones)" : "",
				 ambiguous ? " (only names several functions have)" : "");
			report(d->where[i], p->text, msg, p->target_col);
			free(names);
			names = NULL;
			err = -ENOENT;
			break;
		}
		fprintf(stderr, "kptrace: '%s': %d function%s", p->symbol, n, n == 1 ? "" : "s");
		if (skipped)
			fprintf(stderr, ", %d skipped: the kernel blacklists them (NOKPROBE)", skipped);
		if (ambiguous)
			fprintf(stderr, ", %d skipped: names several functions have (the kernel "
				"refuses them by name)", ambiguous);
		fputc('\n', stderr);
		/* the probe point's word ends at the first blank after it */
		for (tok = p->text + p->target_col; *tok && *tok != ' ' && *tok != '\t'; tok++)
			;
		rest = tok;
		for (k = 0; k < n && !err; k++) {
			char ev[SPEC_NAME_MAX], kind[16], *text;
			const char *fn = strchr(names[k], ':') ? strchr(names[k], ':') + 1 : names[k];
			bool ret;

			p = &d->p[i];	/* defs_add() may have moved the array */
			ret = p->kind == SPEC_KRETPROBE;
			if (p->module[0] && strncmp(names[k], p->module, strlen(p->module)))
				continue;
			if (p->event_given)
				snprintf(ev, sizeof(ev), "%.*s_%s", 30, p->event, fn);
			else if (p->fprobe)	/* ftrace's fprobe names */
				snprintf(ev, sizeof(ev), "%.*s__%s", SPEC_NAME_MAX - 8, fn,
					 ret ? "exit" : "entry");
			else
				snprintf(ev, sizeof(ev), "%c_%.*s_0", ret ? 'r' : 'p',
					 SPEC_NAME_MAX - 6, fn);
			name_clean(ev);
			/* f: keeps its letter, so %return says which end */
			snprintf(kind, sizeof(kind), "%c", p->fprobe ? 'f' : ret ? 'r' : 'p');
			if (ret && p->maxactive)
				snprintf(kind + 1, sizeof(kind) - 1, "%d", p->maxactive);
			if (asprintf(&text, "%s:%s/%s %s%s%s", kind, p->group, ev, names[k],
				     p->fprobe && ret ? "%return" : "", rest) < 0) {
				err = -ENOMEM;
				break;
			}
			err = defs_add(d, text, d->where[i]);
			free(text);
		}
		for (k = 0; k < n; k++)
			free(names[k]);
		free(names);
		names = NULL;
	}
	if (err)
		return err;
	/* the globs themselves go; what they made stays, marked */
	fg = calloc(d->n ? d->n : 1, sizeof(*fg));
	if (!fg)
		return -ENOMEM;
	for (i = first; i < d->n; i++)
		fg[i] = true;
	for (i = first - 1; i >= 0; i--) {
		if (!d->p[i].glob || (d->p[i].kind != SPEC_KPROBE && d->p[i].kind != SPEC_KRETPROBE))
			continue;
		defs_remove(d, i);
		memmove(&fg[i], &fg[i + 1], (d->n - i) * sizeof(*fg));
	}
	*from_glob = fg;
	return 0;
}

/*
 * A return probe reading entry arguments gets an entry probe on the same
 * function that saves them (ftrace's kretprobe entry handler): appended
 * after the n user definitions, peer[i] its index (-1 if none).
 */
static int add_entry_savers(struct defs *d, int n, int *peer)
{
	char *text = NULL, *more;
	int i, k, err = 0;

	for (i = 0; i < n && !err; i++) {
		const struct spec_probe *p = &d->p[i];
		char target[256];

		peer[i] = -1;
		if (!p->nedata)
			continue;
		if (p->kind == SPEC_URETPROBE && p->usym)
			snprintf(target, sizeof(target), "%s:%s", p->path, p->usym);
		else if (p->kind == SPEC_URETPROBE)
			snprintf(target, sizeof(target), "%s:0x%" PRIx64, p->path, p->uoffset);
		else if (p->symbol)
			snprintf(target, sizeof(target), "%s%s%s", p->module,
				 p->module[0] ? ":" : "", p->symbol);
		else
			snprintf(target, sizeof(target), "0x%" PRIx64, p->addr);
		if (asprintf(&text, "p:%s/%.*s__entry %s", p->group, SPEC_NAME_MAX - 8, p->event,
			     target) < 0)
			return -ENOMEM;
		for (k = 0; k < p->nedata; k++) {
			if (asprintf(&more, "%s a%u=$arg%u:x64", text, p->edata_arg[k],
				     p->edata_arg[k]) < 0) {
				free(text);
				return -ENOMEM;
			}
			free(text);
			text = more;
		}
		err = defs_add(d, text, d->where[i]);
		free(text);
		text = NULL;
		peer[i] = d->n - 1;
	}
	return err;
}

/*
 * -c: the child waits on a pipe until every probe is attached, then execs.
 * The command is split into words (quotes honoured, no command substitution)
 * and run directly, not through sh -c, as perf and bpftrace run theirs: the
 * processes it creates are traced too (load_opts.follow_forks).
 */
static pid_t spawn_waiting(const char *cmd, int *go_fd)
{
	wordexp_t we;
	int pfd[2];
	pid_t pid;
	char c;

	if (wordexp(cmd, &we, WRDE_NOCMD))
		return -EINVAL;
	if (!we.we_wordc) {
		wordfree(&we);	/* an empty command: nothing to run, nothing kept */
		return -EINVAL;
	}
	if (pipe2(pfd, O_CLOEXEC)) {
		wordfree(&we);
		return -errno;
	}
	pid = fork();
	if (pid < 0) {
		int err = -errno;

		close(pfd[0]);
		close(pfd[1]);
		wordfree(&we);
		return err;
	}
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
 * ftrace's event filters see every field of their event: so may a
 * tracepoint definition's filter (and --filter), also the fields the
 * definition does not list. Each such field is added to the definition as a
 * hidden argument (recorded for the filter, never printed), and the probe
 * resolved and compiled again. As in ftrace, the event's own field comes
 * before a built-in of the same name (a tracepoint's pid, comm).
 */
struct filter_need {
	const struct tp_format *tp;
	char name[SPEC_NAME_MAX];	/* the first the probe lacks, "" if none */
	int col;
	bool unknown;			/* no field of the tracepoint either */
};

static void first_missing(const char *name, int col, enum filter_field_kind kind, void *arg)
{
	struct filter_need *n = arg;

	if (n->name[0] || kind == FILTER_FIELD_ARG)
		return;
	n->unknown = !tp_field_find(n->tp, name);
	if (n->unknown && kind == FILTER_FIELD_BUILTIN)
		return;
	snprintf(n->name, sizeof(n->name), "%s", name);
	n->col = col;
}

static int add_filter_fields(const struct env *env, struct sysinfo *si, struct spec_probe *p,
			     struct resolved *r, struct ev_desc *ev, struct kpt_probe_entry *ent,
			     const char *where)
{
	const char *exprs[2] = { p->filter, env->filter };
	char msg[768], names[256];
	struct spec_error e;
	int k, col, err, idx = ev->index;

	for (k = 0; k < 2 && p->kind == SPEC_TRACEPOINT; k++) {
		while (exprs[k]) {
			struct filter_need n = { .tp = &r->tp };

			filter_fields(exprs[k], ev, first_missing, &n);
			if (!n.name[0])
				break;
			if (n.unknown) {
				tp_field_names(&r->tp, names, sizeof(names));
				snprintf(msg, sizeof(msg), "Field not found: %s (%s/%s has: %s; "
					 "built in: common_pid, pid, tid, comm, CPU)", n.name,
					 p->tp_system, p->tp_event, names);
				if (k)
					report("--filter", env->filter, msg, n.col);
				else
					report(where, p->text, msg, p->filter_col + n.col);
				return -EINVAL;
			}
			/* --filter's text is not the definition's: no caret there */
			col = k ? -1 : p->filter_col + n.col;
			err = spec_add_filter_field(p, n.name, col, &e);
			if (err) {
				snprintf(msg, sizeof(msg), "cannot add field '%s' for the filter: %s",
					 n.name, err == -ENOMEM ? strerror(ENOMEM) :
					 spec_strerror(e.code));
				report(where, p->text, msg, col);
				return err;
			}
			ev_desc_free(ev);
			resolved_free(r);
			err = resolve_probe(si, p, r, msg, sizeof(msg), &col);
			if (!err)
				err = compile_probe(p, r, idx, ent, ev, msg, sizeof(msg), &col);
			if (err) {
				report(where, p->text, msg, col);
				return err;
			}
		}
	}
	return 0;
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

/*
 * What of the BPF handler a probe needs (kpt_uses): the verifier drops the
 * rest, and each hit skips it (a latency pair reads no registers or comm).
 */
static uint32_t handler_uses(const struct kpt_probe_entry *e)
{
	uint32_t u = 0;
	int k;

	if (e->flags & KPT_PF_DIRECT)
		return KPT_USE_DIRECT;	/* nothing else of the handler */
	if (e->nargs)
		u |= KPT_USE_FETCH | KPT_USE_REGS;
	if (e->pre.nops || e->post.nops)
		u |= KPT_USE_FILTER | KPT_USE_COMM;
	if (e->agg.action == KPT_ACT_SAVE_ARGS || (e->flags & KPT_PF_EDATA))
		u |= KPT_USE_EDATA;
	switch (e->agg.action) {
	case KPT_ACT_PRINT:	/* a record has its time, ip and comm */
		u |= KPT_USE_REGS | KPT_USE_COMM | KPT_USE_TIME;
		break;
	case KPT_ACT_SAVE_ARGS:
		break;
	case KPT_ACT_LAT_START:
	case KPT_ACT_LAT_END:
		u |= KPT_USE_AGG | KPT_USE_TIME;
		break;
	default:
		u |= KPT_USE_AGG;
		break;
	}
	for (k = 0; k < e->agg.nkeys && k < KPT_MAX_KEYS; k++)
		if (e->agg.key_kind[k] == KPT_K_COMM)
			u |= KPT_USE_COMM;
	return u;
}

/* The BPF loops' bounds (load_opts.max_*): the largest of e's and those so far. */
static void loop_bounds(const struct kpt_probe_entry *e, struct load_opts *lo)
{
	int i;

	if (e->nargs > lo->max_args)
		lo->max_args = e->nargs;
	for (i = 0; i < e->nargs && i < KPT_MAX_ARGS; i++) {
		if (e->args[i].nderef > lo->max_deref)
			lo->max_deref = e->args[i].nderef;
		if (e->args[i].count > lo->max_count)
			lo->max_count = e->args[i].count;
	}
}

/*
 * KPT_PF_OWN_STATS: each unkeyed histogram with a group of its own keeps its
 * value stats in its kpt_stats entry, one lookup less a hit, in a run that
 * never clears them (-i clears the histograms each interval; HITS is for
 * the whole run).
 */
static void own_stats(const struct env *env, struct kpt_probe_entry *ents, int n)
{
	int i, j;

	for (i = 0; i < n && env->interval <= 0; i++) {
		const struct kpt_agg *g = &ents[i].agg;

		if (g->nkeys || (g->action != KPT_ACT_HIST && g->action != KPT_ACT_LAT_END))
			continue;
		for (j = 0; j < n; j++)
			if (j != i && ents[j].agg.group == g->group)
				break;
		if (j == n)
			ents[i].flags |= KPT_PF_OWN_STATS;
	}
}

/* load_opts.tp_end: the smallest of the run's tracepoints' field ends. */
static void tp_end_bound(const struct tp_format *fmt, struct load_opts *lo)
{
	uint32_t end = 0;
	int i;

	for (i = 0; i < fmt->nfields; i++)
		if ((uint32_t)fmt->fields[i].offset + fmt->fields[i].size > end)
			end = (uint32_t)fmt->fields[i].offset + fmt->fields[i].size;
	if (!lo->tp_end || end < lo->tp_end)
		lo->tp_end = end;
}

/*
 * kpt_tp_direct_word: the record word the run's direct tracepoint
 * histograms read, when they all read the same one (a run of one, as a
 * rule): the BPF side then loads it with no check and no switch of offsets.
 * 0 otherwise. After tp_end_bound(): the bound is the run's.
 */
static uint32_t tp_direct_word(const struct ev_desc *evs, const struct kpt_probe_entry *ents,
			       int n, uint32_t end)
{
	int i, w, word = 0;

	for (i = 0; i < n; i++) {
		const struct kpt_probe_entry *e = &ents[i];
		const struct kpt_fetch *f = &e->args[e->agg.value_argi & (KPT_MAX_ARGS - 1)];

		if (evs[i].kind != SPEC_TRACEPOINT || !(e->flags & KPT_PF_DIRECT) ||
		    e->agg.action != KPT_ACT_HIST)
			continue;
		w = kpt_tp_word_at(f->param, (uint32_t)f->imm, end);
		if (w <= 0 || (word && w != word))
			return 0;
		word = w;
	}
	return word;
}

/*
 * A direct stream (include/kptrace.h), for the loader: a run of one probe
 * (compile_direct_stream() says which probes, tracepoints not among them),
 * with no --pmu counters. *ds zeroed if not.
 */
static bool direct_stream(const struct sysinfo *si, const struct kpt_probe_entry *ents, int n,
			  uint32_t npmu, struct kpt_direct_stream *ds)
{
	memset(ds, 0, sizeof(*ds));
	if (n != 1 || npmu)
		return false;
	return compile_direct_stream(si, &ents[0], ds);
}

/*
 * A direct histogram (include/kptrace.h), for the loader: a run of one
 * probe (a glob's histograms, one a function, read theirs from the probe
 * table). *dh zeroed if not.
 */
static bool direct_hist(const struct kpt_probe_entry *ents, int n, struct kpt_direct_hist *dh)
{
	memset(dh, 0, sizeof(*dh));
	return n == 1 && compile_direct_hist(&ents[0], dh);
}

/*
 * 4. load, attach. Where auto chose fentry/fexit and the kernel refuses them,
 * at load or at attach (older trampolines take at most six arguments), once
 * more with kprobes.
 */
static int load_attach(const struct env *env, struct loader *ld, struct load_opts *lo,
		       struct ev_desc *evs, const struct kpt_probe_entry *ents, int n,
		       struct pmu_set *pmu, bool deferred, bool *said_attaching)
{
	bool said = *said_attaching, attaching, fell_back;
	char msg[512];
	int i, err;

	for (;;) {
		attaching = false;
		err = loader_load(ld, lo, n, msg, sizeof(msg));
		for (i = 0; !err && i < n; i++)
			err = loader_set_probe(ld, i, &ents[i]);
		if (!err && pmu->n)
			err = pmu_attach(pmu, ld, msg, sizeof(msg));
		if (!err) {
			attaching = true;
			if (!said)
				fprintf(stderr, "Attaching %d probe%s...\n", n, n == 1 ? "" : "s");
			said = *said_attaching = true;
			/* uprobes go where the kernel filters by process, but for
			 * a command's descendants, which exec other files */
			err = loader_attach(ld, evs, n, lo->follow_forks ? 0 : lo->target_tgid,
					    msg, sizeof(msg));
		}
		if (!err)
			return 0;
		fell_back = backend_fallback(env->backend, evs, n);
		if (!fell_back && deferred)
			return KPT_ERETRY_KSYMS;	/* kpt_run() says why, with kallsyms */
		if (!fell_back) {
			const struct spec_probe *p = attaching && ld->failed >= 0 ?
						     evs[ld->failed].spec : NULL;

			if (attaching)
				snprintf(msg + strlen(msg), sizeof(msg) - strlen(msg),
					 "; nothing was left attached");
			/* a refusal of one probe: under its probe point, as tracefs does */
			report(NULL, p ? p->text : NULL, msg, p ? p->target_col : -1);
			privilege_hint(err);
			return err;
		}
		fprintf(stderr, "kptrace: %s; using kprobes\n", msg);
		loader_close(ld);
	}
}

/*
 * Kernel functions resolved without kallsyms (resolve.h), once it is read
 * after all: checked and given their addresses as resolve_probe() does, the
 * refusal reported as the resolution reports it.
 */
static int complete_deferred(struct sysinfo *si, struct defs *d, struct resolved *res,
			     struct ev_desc *evs)
{
	struct resolved r;
	char msg[512];
	int i, err, col;

	for (i = 0; i < d->n; i++) {
		if (!res[i].deferred)
			continue;
		si->defer_ksyms = false;
		err = resolve_probe(si, &d->p[i], &r, msg, sizeof(msg), &col);
		if (err) {
			resolved_free(&r);
			report(d->where[i], d->p[i].text, msg, col);
			return err;
		}
		res[i].deferred = false;
		res[i].kaddr = r.kaddr;
		memcpy(res[i].func, r.func, sizeof(res[i].func));
		evs[i].addr = r.kaddr;
		memcpy(evs[i].func, r.func, sizeof(evs[i].func));
		resolved_free(&r);
	}
	return 0;
}

/*
 * A stream prints where each kernel probe fired as a symbol ("(vfs_read+0x4/
 * 0x130)") and a return probe's function: with probes resolved without
 * kallsyms, it is read now, once they are attached (what they record waits
 * in the ring buffer meanwhile). Hidden kernel addresses (kptr_restrict) or
 * an unreadable file only cost the symbols: the addresses print in hex.
 */
static void symbols_after_attach(struct sysinfo *si, const struct resolved *res,
				 struct ev_desc *evs, int n)
{
	const struct ksym *s;
	char msg[256];
	int i;

	if (si->ksyms)
		return;
	if (sysinfo_need_ksyms(si, msg, sizeof(msg))) {
		fprintf(stderr, "kptrace: warning: %s; kernel addresses print in hex\n", msg);
		return;
	}
	for (i = 0; i < n; i++) {
		if (!res[i].deferred)
			continue;
		s = ksyms_by_name(si->ksyms, evs[i].func, NULL);
		if (s)
			evs[i].addr = s->addr;
	}
}

static bool any_deferred(const struct resolved *res, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (res[i].deferred)
			return true;
	return false;
}

static int run_once(const struct env *env, bool defer, bool *said_attaching);

/*
 * A run without kallsyms where it can go without (resolve.h). Where the
 * kernel refused to attach a function by the name given, the run again with
 * kallsyms: the same refusal as ever, or a name this run could not know
 * (foo as its clone foo.isra.0), nothing attached meanwhile.
 */
int kpt_run(const struct env *env)
{
	bool said = false;
	int err = run_once(env, !env->dry_run, &said);

	if (err == KPT_ERETRY_KSYMS)
		err = run_once(env, false, &said);
	return err == KPT_ERETRY_KSYMS ? -EINVAL : err;
}

static int run_once(const struct env *env, bool defer, bool *said_attaching)
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
	struct target target = { .pidfd = -1 };
	struct outsink *sink = NULL;
	uint32_t nbuckets = 0;
	char msg[512], where[64];
	int i, err = 0, col, go_fd = -1, status = 0, nuser, *peer = NULL, nskipped = 0;
	bool *from_glob = NULL, deferred = false;
	pid_t child = 0;
	FILE *out = NULL, *raw;

	verbose = env->verbose;
	libbpf_set_print(libbpf_log);
	si.by_trampoline = env->backend && !strcmp(env->backend, "fentry");
	si.defer_ksyms = defer;
	si.explain = env->dry_run;
	if (!env->dry_run && (err = privilege_check()))
		goto cleanup;
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

	/* 1b. globs: one definition per matching function */
	err = expand_globs(&d, &si, &from_glob);
	if (err)
		goto cleanup;

	/* 2a. names and types from BTF; entry probes for entry arguments. A
	 * glob's match that cannot take the arguments is skipped, not fatal. */
	for (i = 0; i < d.n; i++) {
		err = btfarg_resolve(&si, &d.p[i], msg, sizeof(msg), &col);
		if (err && from_glob[i]) {
			if (!nskipped++)
				fprintf(stderr, "kptrace: skipped %s: %s\n",
					d.p[i].symbol ? d.p[i].symbol : d.p[i].event, msg);
			defs_remove(&d, i);
			memmove(&from_glob[i], &from_glob[i + 1], (d.n - i) * sizeof(*from_glob));
			i--;
			err = 0;
			continue;
		}
		if (err) {
			report(d.where[i], d.p[i].text, msg, col);
			goto cleanup;
		}
	}
	if (nskipped)
		fprintf(stderr, "kptrace: %d glob match%s skipped: its arguments do not apply "
			"(the first is shown above)\n", nskipped, nskipped == 1 ? "" : "es");
	err = check_appends(&d);
	if (err)
		goto cleanup;
	if (!d.n) {
		fprintf(stderr, "kptrace: error: no probe definitions left to run\n");
		err = -EINVAL;
		goto cleanup;
	}
	nuser = d.n;
	peer = calloc(nuser > 0 ? (size_t)nuser : 1, sizeof(*peer));
	if (!peer) {
		err = -ENOMEM;
		goto cleanup;
	}
	err = add_entry_savers(&d, nuser, peer);
	if (err)
		goto cleanup;

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
		if (res[i].note[0])
			fprintf(stderr, "kptrace: note: %s\n", res[i].note);
	}
	for (i = 0; i < nuser; i++) {
		err = add_filter_fields(env, &si, &d.p[i], &res[i], &evs[i], &ents[i], d.where[i]);
		if (!err)
			err = compile_filters(env, &d.p[i], &evs[i], &ents[i], d.where[i]);
		if (err)
			goto cleanup;
	}
	err = modes_actions(env, evs, ents, nuser, &nbuckets, msg, sizeof(msg), &i);
	if (err) {
		report(d.where[i], NULL, msg, -1);
		goto cleanup;
	}
	for (i = 0; i < nuser; i++) {
		if (peer[i] < 0)
			continue;
		ents[i].flags |= KPT_PF_EDATA;
		ents[i].edata_peer = peer[i];
		ents[peer[i]].agg.action = KPT_ACT_SAVE_ARGS;
		evs[peer[i]].attach_first = true;
		lo.edata = true;
	}
	own_stats(env, ents, d.n);
	/* --comm compares the comm a record holds, --pmu reads its counters in
	 * kpt_aggregate(): the direct path has neither */
	for (i = 0; i < d.n && !env->comm && !pmu.n; i++)
		compile_mark_direct(&si, &ents[i]);
	err = backend_choose(env->backend, &si, evs, ents, d.n, msg, sizeof(msg));
	if (err) {
		fprintf(stderr, "kptrace: error: %s\n", msg);
		goto cleanup;
	}
	if (env->dry_run) {
		bool dh_consts = direct_hist(ents, d.n, &lo.dh);

		for (i = 0; i < d.n; i++) {
			explain_event(stdout, &evs[i]);
			if (evs[i].kind == SPEC_KPROBE || evs[i].kind == SPEC_KRETPROBE)
				printf("attach: %s\n", backend_describe(&evs[i]));
			if (res[i].no_kprobes)
				printf("not checked: this kernel has no kprobes (CONFIG_KPROBES "
				       "off), so not whether a kernel with them takes this probe "
				       "point and attaches it; checked: the symbol in this "
				       "kernel's kallsyms, the arguments against its BTF, the "
				       "record and the format above\n");
			if ((ents[i].flags & KPT_PF_DIRECT) && ents[i].agg.action == KPT_ACT_HIST)
				printf("hist: %s taken straight from the context into its bucket, "
				       "no record built%s\n", evs[i].args[ents[i].agg.value_argi].name,
				       dh_consts ? ", its parameters constants to the verifier" : "");
			else if (ents[i].flags & KPT_PF_DIRECT)
				printf("latency: timed straight from the context, no record "
				       "built\n");
			else if (direct_stream(&si, ents, d.n, pmu.n, &lo.ds))
				printf("stream: the record written straight from the registers "
				       "into the ring buffer, no copy\n");
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

	/* -p, -t: a process or thread that is there, watched for its exit */
	if (env->pid || env->tid) {
		err = target_open(&target, env->pid ? env->pid : env->tid, !env->pid, msg,
				  sizeof(msg));
		if (err) {
			fprintf(stderr, "kptrace: error: %s\n", msg);
			goto cleanup;
		}
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

	raw = env->out_path ? outfile_open(env->out_path) : stdout;
	out = raw ? outsink_open(raw, &sink) : NULL;
	if (!out) {
		err = -errno;
		if (raw && raw != stdout)
			fclose(raw);
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
	/* the self check costs a direct histogram a helper call a hit: where
	 * kptrace cannot hit a probe (uprobes in other files), it goes */
	lo.self_tgid = target_self_may_hit(evs, d.n) ? getpid() : 0;
	lo.target_tgid = child ? child : env->pid;
	/* a set where a traced process may end while the run goes on */
	lo.target_set = child || (env->pid && env->keep_running);
	lo.follow_forks = child != 0;
	if (lo.target_set && (err = target_set_layout(&lo, msg, sizeof(msg)))) {
		fprintf(stderr, "kptrace: error: %s\n", msg);
		goto cleanup;
	}
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
	for (i = 0; i < d.n; i++) {
		/* latency by key (--by) aggregates in the keyed map; plain latency
		 * needs only its entry times and depths */
		lo.keyed |= ents[i].agg.nkeys || ents[i].agg.action == KPT_ACT_COUNT;
		lo.latency |= ents[i].agg.action == KPT_ACT_LAT_START;
		lo.uses |= handler_uses(&ents[i]);
		lo.regs_mask |= compile_regs_used(&ents[i]);
		loop_bounds(&ents[i], &lo);
		if (evs[i].kind == SPEC_TRACEPOINT)
			tp_end_bound(&res[i].tp, &lo);
	}
	lo.tp_direct_word = tp_direct_word(evs, ents, d.n, lo.tp_end);
	direct_stream(&si, ents, d.n, pmu.n, &lo.ds);
	direct_hist(ents, d.n, &lo.dh);
	if (env->comm)
		lo.uses |= KPT_USE_COMM;
	if (!si.ksyms && wants_symbols(env, evs, ents, d.n)) {
		err = sysinfo_need_ksyms(&si, msg, sizeof(msg));
		if (err) {
			fprintf(stderr, "kptrace: error: %s\n", msg);
			goto cleanup;
		}
	}
	/* libbpf loads the kernel's BTF itself: ours is done with */
	btf__free(si.btf);
	si.btf = NULL;
	if (env->cgroup) {
		err = cgroup_id(env->cgroup, &lo.target_cgroup);
		if (err)
			goto cleanup;
	}
	/* a kprobe.multi link is one fd for all its functions */
	for (i = 0, col = 0; i < d.n; i++)
		col += !evs[i].multi;
	if ((err = fd_limit_check(col + 2)))
		goto cleanup;
	/* kallsyms read after all (an @symbol, kprobe.multi's addresses...):
	 * what was resolved without it is checked now, before anything loads */
	if (si.ksyms && (err = complete_deferred(&si, &d, res, evs)))
		goto cleanup;
	lo.evs = evs;
	deferred = any_deferred(res, d.n);
	err = load_attach(env, &ld, &lo, evs, ents, d.n, &pmu, deferred, said_attaching);
	if (err)
		goto cleanup;
	fprintf(stderr, "Attached %d probe%s in %.0f ms", d.n, d.n == 1 ? "" : "s", ld.attach_ms);
	if (ld.nmulti[0] || ld.nmulti[1])
		fprintf(stderr, " (%d through kprobe.multi)", ld.nmulti[0] + ld.nmulti[1]);
	if (ld.ntramp)
		fprintf(stderr, " (%d through fentry/fexit)", ld.ntramp);
	fputc('\n', stderr);
	if (go_fd >= 0) {
		if (write(go_fd, "g", 1) != 1)
			err = -errno;
		close(go_fd);
		go_fd = -1;
	}
	if (env->mode == MODE_TRACE && deferred)
		symbols_after_attach(&si, res, evs, d.n);

	/* 5..8 run in the kernel and in the consumer */
	co.out = out;
	co.format = env->json ? OUT_JSON : OUT_TEXT;
	co.duration = env->duration;
	co.child = child;
	co.target = target.pid ? &target : NULL;
	co.keep_running = env->keep_running;
	co.procs_fd = child ? loader_map_fd(&ld, LM_PROCS) : -1;
	co.sink = sink;
	co.ksyms = si.ksyms;
	co.evs = evs;
	co.nevs = d.n;
	if (env->mode != MODE_TRACE) {
		ao.unit = env->unit;
		ao.top = env->top;
		ao.zeros = env->zeros;
		ao.by = env->by;
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
	target_close(&target);
	if (out)
		fclose(out);	/* and raw, but stdout, which is flushed */
	for (i = 0; evs && i < d.n; i++)
		ev_desc_free(&evs[i]);
	for (i = 0; res && i < d.n; i++)
		resolved_free(&res[i]);
	free(evs);
	free(res);
	free(ents);
	free(peer);
	free(from_glob);
	defs_free(&d);
	deflist_free(&dl);
	sysinfo_free(&si);
	return err;
}
