// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A whole run prepared (prepare.h): nothing here loads or attaches. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prepare/btfarg.h"
#include "prepare/compile.h"
#include "prepare/filter.h"
#include "prepare/modes.h"
#include "prepare/prepare.h"
#include "prepare/unsafe.h"
#include "prepare/usdtdef.h"
#include "sys/container.h"

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
static int read_definitions(const struct kpt_opts *env, struct sysinfo *si, struct probeset *ps)
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

static bool is_kernel_kind(const struct spec_probe *p)
{
	return p->kind == SPEC_KPROBE || p->kind == SPEC_KRETPROBE;
}

static bool is_kernel_glob(const struct spec_probe *p)
{
	return p->glob && is_kernel_kind(p);
}

/*
 * "p:vfs_open *path" is, as ftrace reads "p:EVENT SYM", an event named
 * vfs_open on every function *path matches: a one-character slip from a
 * probe on vfs_open that attaches all over the kernel (issue 37). Where
 * the event's name is itself a traceable function and no group was given,
 * refuse it with the likely reading; "p:GRP/vfs_open *path" means it.
 */
static int glob_named_as_function(struct sysinfo *si, const struct probe *pr, int n)
{
	const struct spec_probe *p = &pr->spec;
	const char *colon = strchr(p->text, ':');
	char **fns = NULL, msg[768];
	int nf = 0, skipped, k;

	if (!p->event_given || p->group_given || !colon)
		return 0;
	if (sysinfo_glob_functions(si, p->event, &fns, &nf, &skipped, msg, sizeof(msg)))
		return 0;
	for (k = 0; k < nf; k++)
		free(fns[k]);
	free(fns);
	if (!nf)
		return 0;
	snprintf(msg, sizeof(msg), "'%s' is a kernel function: as written, this is an event "
		 "named %s on the %d function%s '%s' matches. Did you mean `%.*s %s ...`, a "
		 "probe on %s? A glob over functions needs a group or an event name that is not "
		 "a function (%.*s:%s/%s %s)", p->event, p->event, n, n == 1 ? "" : "s",
		 p->symbol, (int)(colon - p->text), p->text, p->event, p->event,
		 (int)(colon - p->text), p->text, p->group, p->event, p->symbol);
	probe_report(pr->where, p->text, msg, (int)(colon + 1 - p->text));
	return -EINVAL;
}

/* MOD:GLOB: module mod's matches only ("mod:name"), the others freed. */
static void only_module(char **names, int *n, const char *mod)
{
	size_t len = strlen(mod);
	int i, k = 0;

	for (i = 0; i < *n; i++) {
		if (!strncmp(names[i], mod, len) && names[i][len] == ':')
			names[k++] = names[i];
		else
			free(names[i]);
	}
	*n = k;
}

/* A glob's matching functions, those kprobe_events refuses left out and counted. */
static int glob_matches(struct sysinfo *si, const struct probe *pr, char ***names, int *n)
{
	const struct spec_probe *p = &pr->spec;
	int skipped, ambiguous, unsafe, err;
	char msg[512], label[2 * SPEC_NAME_MAX + 2];

	err = sysinfo_glob_functions(si, p->symbol, names, n, &skipped, msg, sizeof(msg));
	if (err) {
		probe_report(pr->where, NULL, msg, -1);
		return err;
	}
	/* before the counts and skips said below, which are then the module's */
	if (p->module[0])
		only_module(*names, n, p->module);
	ambiguous = sysinfo_drop_non_unique(si, *names, n);
	snprintf(label, sizeof(label), "%s%s%s", p->module, p->module[0] ? ":" : "", p->symbol);
	unsafe = unsafe_drop(*names, n, p->kind == SPEC_KRETPROBE, si->unsafe, label, stderr);
	if (!*n) {
		snprintf(msg, sizeof(msg), "no traceable kernel function matches '%s'%s%s%s%s",
			 label, p->module[0] ? " (a glob over a module's functions needs it loaded)" : "",
			 skipped ? " (only blacklisted ones)" : "",
			 ambiguous ? " (only names several functions have)" : "",
			 unsafe ? " (only ones that can hang the machine: see above)" : "");
		probe_report(pr->where, p->text, msg, p->target_col);
		free(*names);
		*names = NULL;
		return -ENOENT;
	}
	err = glob_named_as_function(si, pr, *n);
	if (err) {
		while (*n > 0)
			free((*names)[--*n]);
		free(*names);
		*names = NULL;
		return err;
	}
	fprintf(stderr, "kptrace: '%s': %d function%s", label, *n, *n == 1 ? "" : "s");
	if (skipped)
		fprintf(stderr, ", %d skipped: the kernel blacklists them (NOKPROBE)", skipped);
	if (ambiguous)
		fprintf(stderr, ", %d skipped: names several functions have (the kernel "
			"refuses them by name)", ambiguous);
	fputc('\n', stderr);
	return 0;
}

/* A glob's tracepoints ("SUBSYS/EVENT"), from tracefs's events directory. */
static int tp_glob_matches(struct sysinfo *si, const struct probe *pr, char ***names, int *n)
{
	const struct spec_probe *p = &pr->spec;
	int err, col = p->target_col;
	char msg[512];

	err = sysinfo_glob_tracepoints(si, p->tp_system, p->tp_event, names, n, msg, sizeof(msg));
	if (!err && !*n) {
		char **any = NULL;
		int nany = 0, k;
		bool subsys;

		/* which half matched nothing: the subsystem, or its events (the
		 * caret under that half) */
		subsys = !sysinfo_glob_tracepoints(si, p->tp_system, "*", &any, &nany, msg,
						   sizeof(msg)) && nany;
		if (subsys) {
			col += (int)strlen(p->tp_system) + 1;
			snprintf(msg, sizeof(msg), "no tracepoint matches '%s/%s' (kptrace list "
				 "'%s/*' lists the %d there)", p->tp_system, p->tp_event,
				 p->tp_system, nany);
		} else {
			snprintf(msg, sizeof(msg), "no tracepoint matches '%s/%s': no subsystem "
				 "matches '%s' (kptrace list '*/*' lists every tracepoint)",
				 p->tp_system, p->tp_event, p->tp_system);
		}
		for (k = 0; k < nany; k++)
			free(any[k]);
		free(any);
		err = -ENOENT;
	}
	if (err) {
		probe_report(pr->where, p->text, msg, col);
		return err;
	}
	fprintf(stderr, "kptrace: '%s/%s': %d tracepoint%s\n", p->tp_system, p->tp_event, *n,
		*n == 1 ? "" : "s");
	return 0;
}

/* A glob's functions of the uprobe's binary, from its ELF symbols. */
static int uprobe_glob_matches(const struct probe *pr, char ***names, int *n)
{
	const struct spec_probe *p = &pr->spec;
	/* the caret under the symbol: the path's last ':' is before it */
	int col = p->target_col + (int)strlen(p->path) + 1, ifuncs, err;
	char msg[768];

	err = resolve_elf_glob_functions(p->path, p->usym, names, n, &ifuncs, msg, sizeof(msg));
	if (err) {
		probe_report(pr->where, p->text, msg, p->target_col);
		return err;
	}
	if (!*n) {
		snprintf(msg, sizeof(msg), "no function of %s matches '%s'%s", p->path, p->usym,
			 ifuncs ? " (only IFUNC symbols: resolvers, not the functions called)" :
			 "");
		probe_report(pr->where, p->text, msg, col);
		return -ENOENT;
	}
	fprintf(stderr, "kptrace: '%s:%s': %d function%s", p->path, p->usym, *n,
		*n == 1 ? "" : "s");
	if (ifuncs)
		fprintf(stderr, ", %d IFUNC symbol%s skipped: %s the resolver run as the program "
			"loads, not the function called", ifuncs, ifuncs == 1 ? "" : "s",
			ifuncs == 1 ? "it is" : "each is");
	fputc('\n', stderr);
	return 0;
}

/* What follows the probe point's word (its arguments and filter), as written. */
static const char *after_target(const struct spec_probe *p)
{
	const char *rest;

	for (rest = p->text + p->target_col; *rest && *rest != ' ' && *rest != '\t'; rest++)
		;
	return rest;
}

/*
 * Probe i's definition on kernel function name (a match of its glob), named
 * as ftrace names a probe on that function ("p_vfs_read_0"), or EVENT_FUNC
 * when the event was named.
 */
static int add_glob_match(struct probeset *ps, int i, const char *name)
{
	const struct spec_probe *p = &ps->p[i].spec;
	const char *fn = strchr(name, ':') ? strchr(name, ':') + 1 : name, *rest = after_target(p);
	char ev[SPEC_NAME_MAX], kind[16], *text;
	bool ret = p->kind == SPEC_KRETPROBE;
	int err;

	if (p->module[0] && strncmp(name, p->module, strlen(p->module)))
		return 0;
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
 * Probe i's definition on tracepoint name ("SUBSYS/EVENT") or on function
 * name of its uprobe's binary, with the glob's fields or arguments and
 * filter. Unnamed, it is named as any definition of it is (the tracepoint,
 * "p_BIN_SYM_0"); a named event is EVENT_NAME, in the group given (or the
 * tracepoint's subsystem).
 */
static int add_other_match(struct probeset *ps, int i, const char *name)
{
	const struct spec_probe *p = &ps->p[i].spec;
	const char *rest = after_target(p), *leaf = strrchr(name, '/');
	bool tp = p->kind == SPEC_TRACEPOINT;
	char head[2 * SPEC_NAME_MAX + 8], grp[SPEC_NAME_MAX], ev[SPEC_NAME_MAX], ref[32] = "";
	char *text;
	int err;

	leaf = tp && leaf ? leaf + 1 : name;
	snprintf(head, sizeof(head), "%c", tp ? 't' : p->kind == SPEC_URETPROBE ? 'r' : 'p');
	if (p->event_given) {
		/* a tracepoint glob's default group is its SUBSYS glob: the match's */
		if (tp && !strcmp(p->group, p->tp_system))
			snprintf(grp, sizeof(grp), "%.*s", (int)(leaf - 1 - name), name);
		else
			snprintf(grp, sizeof(grp), "%s", p->group);
		snprintf(ev, sizeof(ev), "%.*s_%s", 30, p->event, leaf);
		name_clean(ev);
		snprintf(head + 1, sizeof(head) - 1, ":%s/%s", grp, ev);
	}
	if (p->has_ref_ctr)
		snprintf(ref, sizeof(ref), "(0x%" PRIx64 ")", p->ref_ctr_offset);
	if (tp)
		err = asprintf(&text, "%s %s%s", head, name, rest);
	else
		err = asprintf(&text, "%s %s:%s%s%s", head, p->path, name, ref, rest);
	if (err < 0)
		return -ENOMEM;
	err = probeset_add(ps, text, ps->p[i].where, PROBE_GLOB);
	free(text);
	return err;
}

/*
 * "p:vfs_* ARGS", "t:syscalls/sys_enter_* FIELDS", "p:/bin/app:parse_*
 * ARGS": one definition per match, appended, the glob itself dropped.
 * Kernel functions kprobes cannot take are skipped and counted; a match
 * its arguments or filter do not fit is skipped later (btf_arguments()).
 */
static int expand_globs(struct probeset *ps, struct sysinfo *si, pid_t pid,
			const char *command)
{
	int i, k, n, err = 0, first = ps->n;
	char **names = NULL;

	for (i = 0; i < first && !err; i++) {
		const struct spec_probe *p = &ps->p[i].spec;

		if (p->usdt) {
			err = usdtdef_expand(ps, i, pid, command);
			continue;
		}
		if (!p->glob)
			continue;
		n = 0;
		if (is_kernel_glob(p))
			err = glob_matches(si, &ps->p[i], &names, &n);
		else if (p->kind == SPEC_TRACEPOINT)
			err = tp_glob_matches(si, &ps->p[i], &names, &n);
		else
			err = uprobe_glob_matches(&ps->p[i], &names, &n);
		for (k = 0; k < n && !err; k++) {
			int before = ps->n;

			err = is_kernel_glob(&ps->p[i].spec) ? add_glob_match(ps, i, names[k]) :
			      add_other_match(ps, i, names[k]);
			if (!err && ps->n > before)
				err = modes_glob_match(ps, i, ps->n - 1, names[k]);
		}
		for (k = 0; k < n; k++)
			free(names[k]);
		free(names);
		names = NULL;
	}
	for (i = first - 1; !err && i >= 0; i--)
		if (ps->p[i].spec.glob || ps->p[i].spec.usdt)
			probeset_remove(ps, i);
	return err;
}

/*
 * Definitions that name one event: each is appended to the first as one more
 * probe point where the kernel would append it (spec_check_append()). A
 * glob's match that another definition already defines exactly (overlapping
 * globs, "r:*lookup*" and "r:path_*" on path_lookupat) is that definition's
 * event: attached once, it counts for both, as two separate runs would.
 */
static int check_appends(struct probeset *ps)
{
	struct spec_error e;
	int i, j, same = 0;

	for (i = 1; i < ps->n; i++) {
		const struct spec_probe *p = &ps->p[i].spec;

		for (j = 0; j < i; j++)
			if (!strcmp(ps->p[j].spec.event, p->event) &&
			    !strcmp(ps->p[j].spec.group, p->group))
				break;
		if (j < i && (ps->p[i].origin == PROBE_GLOB || ps->p[j].origin == PROBE_GLOB) &&
		    spec_same_definition(&ps->p[j].spec, p)) {
			if (!same++)
				fprintf(stderr, "kptrace: %s/%s: defined by %s and %s alike: "
					"traced once\n", p->group, p->event,
					ps->p[j].where ? ps->p[j].where : "one definition",
					ps->p[i].where ? ps->p[i].where : "another");
			probeset_remove(ps, i--);
			continue;
		}
		if (j < i && spec_check_append(&ps->p[j].spec, p, &e)) {
			probe_report(ps->p[i].where, p->text, spec_strerror(e.code), e.col);
			return -EEXIST;
		}
	}
	if (same > 1)
		fprintf(stderr, "kptrace: %d events defined alike twice: each traced once\n",
			same);
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

/* A refusal as probe_report() prints it, kept for the caller to print or not. */
struct refusal {
	const char *where, *text;
	char msg[768];
	int col;
};

/*
 * The fields of its tracepoint that probe pr's filter and --filter name and
 * its definition lacks, added to it, resolved and compiled again into res,
 * ent and ev (idx its table index) each time. 0, or an error with why in rf.
 */
/* Probe p resolved and compiled again, its fields or arguments grown. */
static int recompile_probe(struct sysinfo *si, struct spec_probe *p, int idx, struct resolved *res,
			   struct kpt_probe_entry *ent, struct ev_desc *ev, char *msg,
			   size_t msglen, int *col)
{
	int err;

	ev_desc_free(ev);
	resolved_free(res);
	err = resolve_probe(si, p, res, msg, msglen, col);
	if (!err)
		err = compile_probe(p, res, idx, ent, ev, msg, msglen, col);
	return err;
}

static int fill_filter_fields(const struct kpt_opts *env, struct sysinfo *si, struct probe *pr,
			      int idx, struct resolved *res, struct kpt_probe_entry *ent,
			      struct ev_desc *ev, struct refusal *rf)
{
	struct spec_probe *p = &pr->spec;
	const char *exprs[2] = { p->filter, env->filter };
	char names[256];
	struct spec_error e;
	int k, col, err;

	rf->where = pr->where;
	rf->text = p->text;
	rf->col = -1;
	for (k = 0; k < 2 && p->kind == SPEC_TRACEPOINT; k++) {
		while (exprs[k]) {
			struct filter_need n = { .tp = &res->tp };

			filter_fields(exprs[k], ev, first_missing, &n);
			if (!n.name[0])
				break;
			if (n.unknown) {
				tp_field_names(&res->tp, names, sizeof(names));
				snprintf(rf->msg, sizeof(rf->msg), "Field not found: %s (%s/%s has: "
					 "%s; built in: common_pid, pid, tid, comm, CPU)", n.name,
					 p->tp_system, p->tp_event, names);
				if (k) {
					rf->where = "--filter";
					rf->text = env->filter;
					rf->col = n.col;
				} else {
					rf->col = p->filter_col + n.col;
				}
				return -EINVAL;
			}
			/* --filter's text is not the definition's: no caret there */
			col = k ? -1 : p->filter_col + n.col;
			err = spec_add_filter_field(p, n.name, col, &e);
			if (err) {
				snprintf(rf->msg, sizeof(rf->msg), "cannot add field '%s' for the "
					 "filter: %s", n.name, err == -ENOMEM ? strerror(ENOMEM) :
					 spec_strerror(e.code));
				rf->col = col;
				return err;
			}
			err = recompile_probe(si, p, idx, res, ent, ev, rf->msg, sizeof(rf->msg),
					      &rf->col);
			if (err)
				return err;
		}
	}
	return 0;
}

/*
 * Whether a tracepoint's or a uprobe's glob match takes the glob's fields,
 * arguments and filters: resolved and compiled as the run will, alone (its
 * table index does not matter here). The fields the filters name are added
 * to it as they will be. 0, or an error with why in msg.
 */
static int match_fits(const struct kpt_opts *env, struct sysinfo *si, struct probe *pr, char *msg,
		      size_t msglen)
{
	struct kpt_probe_entry ent;
	struct ev_desc ev = { 0 };
	struct refusal rf;
	struct resolved r;
	int col, err;

	err = resolve_probe(si, &pr->spec, &r, msg, msglen, &col);
	if (!err)
		err = compile_probe(&pr->spec, &r, 0, &ent, &ev, msg, msglen, &col);
	if (!err) {
		err = fill_filter_fields(env, si, pr, 0, &r, &ent, &ev, &rf);
		if (err)
			snprintf(msg, msglen, "%s", rf.msg);
	}
	ev_desc_free(&ev);
	resolved_free(&r);
	return err;
}

/* The name of a glob's match, for a message: its function or tracepoint. */
static const char *match_name(const struct spec_probe *p, char *buf, size_t len)
{
	if (p->kind == SPEC_TRACEPOINT)
		snprintf(buf, len, "%s/%s", p->tp_system, p->tp_event);
	else
		snprintf(buf, len, "%s", p->symbol ? p->symbol : p->usym ? p->usym : p->event);
	return buf;
}

/*
 * Names and types from BTF. A glob's match that cannot take the arguments
 * (a tracepoint lacking a field they or the filter name, say) is skipped,
 * not fatal.
 */
static int btf_arguments(const struct kpt_opts *env, struct probeset *ps, struct sysinfo *si)
{
	int i, col, err, nskipped = 0;
	char msg[768], name[256];

	for (i = 0; i < ps->n; i++) {
		struct probe *pr = &ps->p[i];

		err = btfarg_resolve(si, &pr->spec, msg, sizeof(msg), &col);
		if (!err && pr->origin == PROBE_GLOB && !is_kernel_kind(&pr->spec))
			err = match_fits(env, si, pr, msg, sizeof(msg));
		if (err && err != -ENOMEM && pr->origin == PROBE_GLOB) {
			if (!nskipped++)
				fprintf(stderr, "kptrace: skipped %s: %s\n",
					match_name(&pr->spec, name, sizeof(name)), msg);
			probeset_remove(ps, i--);
			continue;
		}
		if (err) {
			probe_report(pr->where, pr->spec.text, msg, col);
			return err;
		}
	}
	if (nskipped)
		fprintf(stderr, "kptrace: %d glob match%s skipped: the definition's arguments or "
			"filter do not apply to %s (the first is shown above)\n", nskipped,
			nskipped == 1 ? "" : "es", nskipped == 1 ? "it" : "them");
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
	char msg[768];
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
 * A tracepoint printed without fields named (`kptrace t:kmem/kmalloc`)
 * prints what the kernel's trace prints for it: every field is fetched,
 * each an argument of its name (--json's), and the text line is the
 * event's print fmt over them (tpprint.c). Aggregations fetch only what
 * they use.
 */
static int add_whole_fields(const struct kpt_opts *env, struct sysinfo *si, struct probeset *ps,
			    int i)
{
	struct probe *pr = &ps->p[i];
	struct spec_probe *p = &pr->spec;
	struct spec_error e;
	char msg[512];
	int k, err, col = -1;

	if (env->mode != MODE_TRACE || p->kind != SPEC_TRACEPOINT || p->nargs || p->whole)
		return 0;
	for (k = 0; k < pr->res.tp.nfields; k++) {
		err = spec_add_whole_field(p, pr->res.tp.fields[k].name, &e);
		if (err) {
			snprintf(msg, sizeof(msg), "cannot add field '%s': %s",
				 pr->res.tp.fields[k].name,
				 err == -ENOMEM ? strerror(ENOMEM) : spec_strerror(e.code));
			probe_report(pr->where, p->text, msg, -1);
			return err;
		}
	}
	p->whole = true;
	err = recompile_probe(si, p, i, &pr->res, &ps->ents[i], &ps->evs[i], msg, sizeof(msg),
			      &col);
	if (err)
		probe_report(pr->where, p->text, msg, col);
	return err;
}

static int add_filter_fields(const struct kpt_opts *env, struct sysinfo *si, struct probeset *ps,
			     int i)
{
	struct refusal rf;
	int err;

	err = fill_filter_fields(env, si, &ps->p[i], i, &ps->p[i].res, &ps->ents[i], &ps->evs[i],
				 &rf);
	if (err)
		probe_report(rf.where, rf.text, rf.msg, rf.col);
	return err;
}

/*
 * The probe's filter ("DEF if EXPR") and --filter, both into its pre/post
 * programs. Each is first compiled alone, so an error's caret lands in the
 * text the user wrote.
 */
static int compile_filters(const struct kpt_opts *env, const struct probe *pr,
			   const struct ev_desc *ev, struct kpt_probe_entry *ent)
{
	const struct spec_probe *p = &pr->spec;
	/* why: --filter is the root's, at its entry (modes.c's why/root) */
	const char *gf = env->mode != MODE_WHY || !strcmp(ev->event, "root") ? env->filter : NULL;
	char msg[256], *both = NULL;
	int err, col;

	if (p->filter) {
		err = filter_compile(p->filter, ev, &ent->pre, &ent->post, msg, sizeof(msg), &col);
		if (err) {
			probe_report(pr->where, p->text, msg, p->filter_col + col);
			return err;
		}
	}
	if (gf) {
		err = filter_compile(gf, ev, &ent->pre, &ent->post, msg, sizeof(msg), &col);
		if (err) {
			probe_report("--filter", gf, msg, col);
			return err;
		}
	}
	if (!p->filter || !gf)
		return 0;
	if (asprintf(&both, "(%s) && (%s)", p->filter, gf) < 0)
		return -ENOMEM;
	err = filter_compile(both, ev, &ent->pre, &ent->post, msg, sizeof(msg), &col);
	if (err)
		probe_report(pr->where, both, msg, col);
	free(both);
	return err;
}

/* Each return probe reads its entry arguments from what its saver saved;
 * savers and latency starts are entries their returns pair with. */
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
		ps->evs[s].pair_entry = true;
	}
	for (i = 0; i < ps->n; i++)
		if (ps->p[i].lat == PROBE_LAT_START)
			ps->evs[i].pair_entry = true;
}

/*
 * A uprobe's path inside a container (CONTAINER:/PATH, or any absolute path
 * under --container) is read through a process of it, /proc/PID/root; the
 * uprobe is then on that file's inode, which every process mapping it
 * shares, in that container or another of its image.
 */
static int container_paths(struct probeset *ps, const struct sysinfo *si)
{
	char root[64], msg[512];
	int i, err = 0;

	for (i = 0; !err && i < ps->n; i++) {
		struct spec_probe *p = &ps->p[i].spec;
		const char *r = si->uprobe_root;
		char *path;

		if ((p->kind != SPEC_UPROBE && p->kind != SPEC_URETPROBE) || !p->path ||
		    p->path[0] != '/' || !strncmp(p->path, "/proc/", 6) || (!r && !p->container))
			continue;
		if (p->container) {
			/* read for each: a few definitions, and each finds new containers */
			err = ctr_proc_root(p->container, root, sizeof(root), msg, sizeof(msg));
			if (err)
				probe_report(ps->p[i].where, p->text, msg,
					     p->target_col - (int)strlen(p->container) - 1);
			r = root;
		} else if (!*r) {
			probe_report(ps->p[i].where, p->text, "--container: the container has no "
				     "process now, through whose /proc/PID/root its files are read",
				     p->target_col);
			err = -ESRCH;
		}
		if (err)
			break;
		if (asprintf(&path, "%s%s", r, p->path) < 0) {
			err = -ENOMEM;
			break;
		}
		free(p->path);
		p->path = path;
	}
	return err;
}

int prepare(const struct kpt_opts *env, struct sysinfo *si, struct probeset *ps)
{
	char msg[512];
	int i, err;

	err = read_definitions(env, si, ps);
	if (!err)
		err = container_paths(ps, si);
	if (!err)
		err = expand_globs(ps, si, env->pid, env->command);
	if (!err)
		err = btf_arguments(env, ps, si);
	if (!err)
		err = add_entry_savers(ps);
	if (!err)
		err = resolve_compile(ps, si);
	for (i = 0; !err && i < ps->nuser; i++) {
		err = add_whole_fields(env, si, ps, i);
		if (!err)
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
