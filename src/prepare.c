// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Stages 1-3 for a whole run (prepare.h): nothing here loads or attaches. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "btfarg.h"
#include "compile.h"
#include "filter.h"
#include "modes.h"
#include "prepare.h"

static int read_def_file(struct probeset *ps, const char *path)
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
		err = probeset_add(ps, s, where, PROBE_USER);
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

/* -f's definitions, then the command line's as the subcommand makes them. */
static int read_definitions(const struct env *env, struct sysinfo *si, struct probeset *ps)
{
	char msg[512];
	int err = 0;

	if (env->def_file)
		err = read_def_file(ps, env->def_file);
	if (!err) {
		err = modes_definitions(env, si, ps, msg, sizeof(msg));
		if (err && msg[0])
			fprintf(stderr, "kptrace: error: %s\n", msg);
	}
	if (!err && !ps->n) {
		fprintf(stderr, "kptrace: error: no probe definitions left to run\n");
		err = -EINVAL;
	}
	return err;
}

/* ftrace's event names keep [A-Za-z0-9_] */
static void name_clean(char *s)
{
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_'))
			*s = '_';
}

static bool is_kernel_glob(const struct spec_probe *p)
{
	return p->glob && (p->kind == SPEC_KPROBE || p->kind == SPEC_KRETPROBE);
}

/* A glob's matching functions, those kprobe_events refuses left out and counted. */
static int glob_matches(struct sysinfo *si, const struct probe *pr, char ***names, int *n)
{
	const struct spec_probe *p = &pr->spec;
	int skipped, ambiguous, err;
	char msg[512];

	err = sysinfo_glob_functions(si, p->symbol, names, n, &skipped, msg, sizeof(msg));
	if (err) {
		probe_report(pr->where, NULL, msg, -1);
		return err;
	}
	ambiguous = sysinfo_drop_non_unique(si, *names, n);
	if (!*n) {
		snprintf(msg, sizeof(msg), "no traceable kernel function matches '%s'%s%s",
			 p->symbol, skipped ? " (only blacklisted ones)" : "",
			 ambiguous ? " (only names several functions have)" : "");
		probe_report(pr->where, p->text, msg, p->target_col);
		free(*names);
		*names = NULL;
		return -ENOENT;
	}
	fprintf(stderr, "kptrace: '%s': %d function%s", p->symbol, *n, *n == 1 ? "" : "s");
	if (skipped)
		fprintf(stderr, ", %d skipped: the kernel blacklists them (NOKPROBE)", skipped);
	if (ambiguous)
		fprintf(stderr, ", %d skipped: names several functions have (the kernel "
			"refuses them by name)", ambiguous);
	fputc('\n', stderr);
	return 0;
}

/*
 * Probe i's definition on function name (a match of its glob), named as
 * ftrace names a probe on that function ("p_vfs_read_0"), or EVENT_FUNC
 * when the event was named.
 */
static int add_glob_match(struct probeset *ps, int i, const char *name)
{
	const struct spec_probe *p = &ps->p[i].spec;
	const char *fn = strchr(name, ':') ? strchr(name, ':') + 1 : name, *rest;
	char ev[SPEC_NAME_MAX], kind[16], *text;
	bool ret = p->kind == SPEC_KRETPROBE;
	int err;

	if (p->module[0] && strncmp(name, p->module, strlen(p->module)))
		return 0;
	/* the probe point's word ends at the first blank after it */
	for (rest = p->text + p->target_col; *rest && *rest != ' ' && *rest != '\t'; rest++)
		;
	if (p->event_given)
		snprintf(ev, sizeof(ev), "%.*s_%s", 30, p->event, fn);
	else if (p->fprobe)	/* ftrace's fprobe names */
		snprintf(ev, sizeof(ev), "%.*s__%s", SPEC_NAME_MAX - 8, fn, ret ? "exit" : "entry");
	else
		snprintf(ev, sizeof(ev), "%c_%.*s_0", ret ? 'r' : 'p', SPEC_NAME_MAX - 6, fn);
	name_clean(ev);
	/* f: keeps its letter, so %return says which end */
	snprintf(kind, sizeof(kind), "%c", p->fprobe ? 'f' : ret ? 'r' : 'p');
	if (ret && p->maxactive)
		snprintf(kind + 1, sizeof(kind) - 1, "%d", p->maxactive);
	if (asprintf(&text, "%s:%s/%s %s%s%s", kind, p->group, ev, name,
		     p->fprobe && ret ? "%return" : "", rest) < 0)
		return -ENOMEM;
	err = probeset_add(ps, text, ps->p[i].where, PROBE_GLOB);
	free(text);
	return err;
}

/*
 * "p:vfs_* ARGS": one definition per traceable match, appended, the glob
 * itself dropped. Blacklisted matches are skipped and counted.
 */
static int expand_globs(struct probeset *ps, struct sysinfo *si)
{
	int i, k, n, err = 0, first = ps->n;
	char **names = NULL;

	for (i = 0; i < first && !err; i++) {
		if (!is_kernel_glob(&ps->p[i].spec))
			continue;
		err = glob_matches(si, &ps->p[i], &names, &n);
		if (err)
			break;
		for (k = 0; k < n && !err; k++)
			err = add_glob_match(ps, i, names[k]);
		for (k = 0; k < n; k++)
			free(names[k]);
		free(names);
		names = NULL;
	}
	for (i = first - 1; !err && i >= 0; i--)
		if (is_kernel_glob(&ps->p[i].spec))
			probeset_remove(ps, i);
	return err;
}

/*
 * Definitions that name one event: each is appended to the first as one more
 * probe point where the kernel would append it (spec_check_append()).
 */
static int check_appends(const struct probeset *ps)
{
	struct spec_error e;
	int i, j;

	for (i = 1; i < ps->n; i++) {
		const struct spec_probe *p = &ps->p[i].spec;

		for (j = 0; j < i; j++)
			if (!strcmp(ps->p[j].spec.event, p->event) &&
			    !strcmp(ps->p[j].spec.group, p->group))
				break;
		if (j < i && spec_check_append(&ps->p[j].spec, p, &e)) {
			probe_report(ps->p[i].where, p->text, spec_strerror(e.code), e.col);
			return -EEXIST;
		}
	}
	return 0;
}

/*
 * Names and types from BTF. A glob's match that cannot take the arguments
 * is skipped, not fatal.
 */
static int btf_arguments(struct probeset *ps, struct sysinfo *si)
{
	int i, col, err, nskipped = 0;
	char msg[512];

	for (i = 0; i < ps->n; i++) {
		struct probe *pr = &ps->p[i];

		err = btfarg_resolve(si, &pr->spec, msg, sizeof(msg), &col);
		if (err && pr->origin == PROBE_GLOB) {
			if (!nskipped++)
				fprintf(stderr, "kptrace: skipped %s: %s\n",
					pr->spec.symbol ? pr->spec.symbol : pr->spec.event, msg);
			probeset_remove(ps, i--);
			continue;
		}
		if (err) {
			probe_report(pr->where, pr->spec.text, msg, col);
			return err;
		}
	}
	if (nskipped)
		fprintf(stderr, "kptrace: %d glob match%s skipped: its arguments do not apply "
			"(the first is shown above)\n", nskipped, nskipped == 1 ? "" : "es");
	err = check_appends(ps);
	if (!err && !ps->n) {
		fprintf(stderr, "kptrace: error: no probe definitions left to run\n");
		err = -EINVAL;
	}
	return err;
}

/*
 * A return probe reading entry arguments gets an entry probe on the same
 * function that saves them (ftrace's kretprobe entry handler), appended
 * after the definitions and linked both ways.
 */
static int add_entry_saver(struct probeset *ps, int i)
{
	const struct spec_probe *p = &ps->p[i].spec;
	char target[256], *text = NULL, *more;
	int k, err;

	if (p->kind == SPEC_URETPROBE && p->usym)
		snprintf(target, sizeof(target), "%s:%s", p->path, p->usym);
	else if (p->kind == SPEC_URETPROBE)
		snprintf(target, sizeof(target), "%s:0x%" PRIx64, p->path, p->uoffset);
	else if (p->symbol)
		snprintf(target, sizeof(target), "%s%s%s", p->module, p->module[0] ? ":" : "",
			 p->symbol);
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
	err = probeset_add(ps, text, ps->p[i].where, PROBE_SAVER);
	free(text);
	if (err)
		return err;
	ps->p[i].saver = ps->n - 1;
	ps->p[ps->n - 1].saves = i;
	return 0;
}

static int add_entry_savers(struct probeset *ps)
{
	int i, err = 0;

	ps->nuser = ps->n;
	for (i = 0; i < ps->nuser && !err; i++)
		if (ps->p[i].spec.nedata)
			err = add_entry_saver(ps, i);
	return err;
}

/* 2. resolve, 3. compile: the set is final from here on. */
static int resolve_compile(struct probeset *ps, struct sysinfo *si)
{
	char msg[512];
	int i, err, col;

	size_t n = ps->n > 0 ? (size_t)ps->n : 1;

	ps->ents = calloc(n, sizeof(*ps->ents));
	ps->evs = calloc(n, sizeof(*ps->evs));
	if (!ps->ents || !ps->evs)
		return -ENOMEM;
	for (i = 0; i < ps->n; i++) {
		struct probe *pr = &ps->p[i];

		err = resolve_probe(si, &pr->spec, &pr->res, msg, sizeof(msg), &col);
		if (!err)
			err = compile_probe(&pr->spec, &pr->res, i, &ps->ents[i], &ps->evs[i], msg,
					    sizeof(msg), &col);
		if (err) {
			probe_report(pr->where, pr->spec.text, msg, col);
			return err;
		}
		if (pr->res.note[0])
			fprintf(stderr, "kptrace: note: %s\n", pr->res.note);
	}
	return 0;
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

static int add_filter_fields(const struct env *env, struct sysinfo *si, struct probeset *ps,
			     int i)
{
	struct probe *pr = &ps->p[i];
	struct spec_probe *p = &pr->spec;
	struct ev_desc *ev = &ps->evs[i];
	const char *exprs[2] = { p->filter, env->filter };
	char msg[768], names[256];
	struct spec_error e;
	int k, col, err;

	for (k = 0; k < 2 && p->kind == SPEC_TRACEPOINT; k++) {
		while (exprs[k]) {
			struct filter_need n = { .tp = &pr->res.tp };

			filter_fields(exprs[k], ev, first_missing, &n);
			if (!n.name[0])
				break;
			if (n.unknown) {
				tp_field_names(&pr->res.tp, names, sizeof(names));
				snprintf(msg, sizeof(msg), "Field not found: %s (%s/%s has: %s; "
					 "built in: common_pid, pid, tid, comm, CPU)", n.name,
					 p->tp_system, p->tp_event, names);
				if (k)
					probe_report("--filter", env->filter, msg, n.col);
				else
					probe_report(pr->where, p->text, msg, p->filter_col + n.col);
				return -EINVAL;
			}
			/* --filter's text is not the definition's: no caret there */
			col = k ? -1 : p->filter_col + n.col;
			err = spec_add_filter_field(p, n.name, col, &e);
			if (err) {
				snprintf(msg, sizeof(msg), "cannot add field '%s' for the filter: %s",
					 n.name, err == -ENOMEM ? strerror(ENOMEM) :
					 spec_strerror(e.code));
				probe_report(pr->where, p->text, msg, col);
				return err;
			}
			ev_desc_free(ev);
			resolved_free(&pr->res);
			err = resolve_probe(si, p, &pr->res, msg, sizeof(msg), &col);
			if (!err)
				err = compile_probe(p, &pr->res, i, &ps->ents[i], ev, msg,
						    sizeof(msg), &col);
			if (err) {
				probe_report(pr->where, p->text, msg, col);
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
static int compile_filters(const struct env *env, const struct probe *pr,
			   const struct ev_desc *ev, struct kpt_probe_entry *ent)
{
	const struct spec_probe *p = &pr->spec;
	char msg[256], *both = NULL;
	int err, col;

	if (p->filter) {
		err = filter_compile(p->filter, ev, &ent->pre, &ent->post, msg, sizeof(msg), &col);
		if (err) {
			probe_report(pr->where, p->text, msg, p->filter_col + col);
			return err;
		}
	}
	if (env->filter) {
		err = filter_compile(env->filter, ev, &ent->pre, &ent->post, msg, sizeof(msg),
				     &col);
		if (err) {
			probe_report("--filter", env->filter, msg, col);
			return err;
		}
	}
	if (!p->filter || !env->filter)
		return 0;
	if (asprintf(&both, "(%s) && (%s)", p->filter, env->filter) < 0)
		return -ENOMEM;
	err = filter_compile(both, ev, &ent->pre, &ent->post, msg, sizeof(msg), &col);
	if (err)
		probe_report(pr->where, both, msg, col);
	free(both);
	return err;
}

/* Each return probe reads its entry arguments from what its saver saved. */
static void link_entry_savers(struct probeset *ps)
{
	int i, s;

	for (i = 0; i < ps->nuser; i++) {
		s = ps->p[i].saver;
		if (s < 0)
			continue;
		ps->ents[i].flags |= KPT_PF_EDATA;
		ps->ents[i].edata_peer = s;
		ps->ents[s].agg.action = KPT_ACT_SAVE_ARGS;
		ps->evs[s].attach_first = true;
	}
}

int prepare(const struct env *env, struct sysinfo *si, struct probeset *ps)
{
	char msg[512];
	int i, err;

	err = read_definitions(env, si, ps);
	if (!err)
		err = expand_globs(ps, si);
	if (!err)
		err = btf_arguments(ps, si);
	if (!err)
		err = add_entry_savers(ps);
	if (!err)
		err = resolve_compile(ps, si);
	for (i = 0; !err && i < ps->nuser; i++) {
		err = add_filter_fields(env, si, ps, i);
		if (!err)
			err = compile_filters(env, &ps->p[i], &ps->evs[i], &ps->ents[i]);
	}
	if (err)
		return err;
	err = modes_actions(env, ps, msg, sizeof(msg), &i);
	if (err) {
		probe_report(ps->p[i].where, NULL, msg, -1);
		return err;
	}
	link_entry_savers(ps);
	return 0;
}

int prepare_complete_deferred(struct sysinfo *si, struct probeset *ps)
{
	struct resolved r;
	char msg[512];
	int i, err, col;

	for (i = 0; i < ps->n; i++) {
		struct probe *pr = &ps->p[i];

		if (!pr->res.deferred)
			continue;
		si->defer_ksyms = false;
		err = resolve_probe(si, &pr->spec, &r, msg, sizeof(msg), &col);
		if (err) {
			resolved_free(&r);
			probe_report(pr->where, pr->spec.text, msg, col);
			return err;
		}
		pr->res.deferred = false;
		pr->res.kaddr = r.kaddr;
		memcpy(pr->res.func, r.func, sizeof(pr->res.func));
		ps->evs[i].addr = r.kaddr;
		memcpy(ps->evs[i].func, r.func, sizeof(ps->evs[i].func));
		resolved_free(&r);
	}
	return 0;
}

bool prepare_any_deferred(const struct probeset *ps)
{
	int i;

	for (i = 0; i < ps->n; i++)
		if (ps->p[i].res.deferred)
			return true;
	return false;
}
