// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* u: definitions made uprobe definitions (usdtdef.h). */
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/libpath.h"
#include "sys/procmaps.h"
#include "sys/usdt.h"
#include "prepare/usdtdef.h"

/* A growing string; ok turns false for good on a failed allocation. */
struct sbuf {
	char *s;
	size_t len, cap;
	bool ok;
};

static void sb_add(struct sbuf *b, const char *s, size_t n)
{
	char *ns;

	if (!b->ok)
		return;
	if (b->len + n + 1 > b->cap) {
		b->cap = 2 * (b->len + n + 1);
		ns = realloc(b->s, b->cap);
		if (!ns) {
			b->ok = false;
			return;
		}
		b->s = ns;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

static void sb_str(struct sbuf *b, const char *s)
{
	sb_add(b, s, strlen(s));
}

/* argN's note argument, or a message at the op's column into msg. */
static const struct usdt_arg *note_arg(const struct usdt_probe *u, uint32_t n, char *msg,
				       size_t msglen)
{
	if (u->bad) {
		snprintf(msg, msglen, "%s:%s at 0x%" PRIx64 ": %s", u->provider, u->name, u->pc,
			 u->bad);
		return NULL;
	}
	if (n > (uint32_t)u->nargs) {
		snprintf(msg, msglen, "%s:%s has %d argument%s (\"%s\"): no arg%u", u->provider,
			 u->name, u->nargs, u->nargs == 1 ? "" : "s", u->args, n);
		return NULL;
	}
	return &u->arg[n - 1];
}

/*
 * Argument a as NAME=BODY[:TYPE] with each argN in BODY replaced by its
 * fetch argument; a bare argN without a type takes the note's. *col is the
 * column of a refusal (message in msg).
 */
static int rewrite_arg(struct sbuf *b, const struct spec_probe *p, const struct spec_arg *a,
		       const struct usdt_probe *u, char *msg, size_t msglen, int *col)
{
	const char *s = p->text + a->body_col, *end = p->text + a->col + strlen(a->text), *q;
	const struct usdt_arg *ua = NULL;
	char fetch[64], *ty;
	int j;

	sb_str(b, " ");
	sb_str(b, a->name);
	sb_str(b, "=");
	for (j = 0; j < a->nops; j++) {
		if (a->ops[j].kind != SPEC_OP_ARG)
			continue;
		*col = a->ops[j].col;
		ua = note_arg(u, a->ops[j].param, msg, msglen);
		if (!ua)
			return -EINVAL;
		q = p->text + a->ops[j].col;
		sb_add(b, s, q - s);
		usdt_arg_fetch(ua, fetch, sizeof(fetch));
		ty = strrchr(fetch, ':');
		sb_add(b, fetch, ty - fetch);
		for (s = q + 3; *s >= '0' && *s <= '9'; s++)
			;
	}
	sb_add(b, s, end - s);
	if (a->nops == 1 && ua && !a->type_given)
		sb_str(b, strrchr(fetch, ':'));
	return 0;
}

/* The definition of u's location: head, probe point, arguments, filter. */
static int location_text(struct sbuf *b, const struct spec_probe *p, const struct usdt_probe *u,
			 char *msg, size_t msglen, int *col)
{
	char grp[SPEC_NAME_MAX], head[3 * SPEC_NAME_MAX], pt[64], fetch[64];
	int j, err;

	/* perf's group, of the match's provider (the definition's may be a glob) */
	if (p->group_given)
		snprintf(grp, sizeof(grp), "%s", p->group);
	else
		snprintf(grp, sizeof(grp), "sdt_%.*s", SPEC_NAME_MAX - 5, u->provider);
	if (p->event_given && p->glob)
		snprintf(head, sizeof(head), "p:%s/%.30s_%.30s", grp, p->event, u->name);
	else if (p->event_given)
		snprintf(head, sizeof(head), "p:%s/%s", grp, p->event);
	else
		snprintf(head, sizeof(head), "p:%s/%.*s", grp, SPEC_NAME_MAX - 1, u->name);
	sb_str(b, head);
	sb_str(b, " ");
	sb_str(b, p->path);
	snprintf(pt, sizeof(pt), ":0x%" PRIx64, u->off);
	sb_str(b, pt);
	if (u->sema_off) {
		snprintf(pt, sizeof(pt), "(0x%" PRIx64 ")", u->sema_off);
		sb_str(b, pt);
	}
	*col = p->target_col;
	/* no arguments given: every argument of the note, argN by name */
	if (!p->nargs && u->bad) {
		note_arg(u, 1, msg, msglen);
		return -EINVAL;
	}
	for (j = 0; !p->nargs && j < u->nargs; j++) {
		usdt_arg_fetch(&u->arg[j], fetch, sizeof(fetch));
		snprintf(pt, sizeof(pt), " arg%d=", j + 1);
		sb_str(b, pt);
		sb_str(b, fetch);
	}
	for (j = 0; j < p->nargs; j++) {
		err = rewrite_arg(b, p, &p->args[j], u, msg, msglen, col);
		if (err)
			return err;
	}
	if (p->filter) {
		sb_str(b, " if ");
		sb_str(b, p->filter);
	}
	return b->ok ? 0 : -ENOMEM;
}

/* "python:function__entry, python:line, ..." of up to len bytes */
static void probe_names(const struct usdt_probe *u, int n, char *buf, size_t len)
{
	size_t at = 0;
	int k, w;

	buf[0] = '\0';
	for (k = 0; k < n && at < len; k++) {
		w = snprintf(buf + at, len - at, "%s%s:%s", k ? ", " : "", u[k].provider, u[k].name);
		at += w > 0 ? (size_t)w : 0;
	}
	if (!n)
		snprintf(buf, len, "none");
}

/*
 * The definitions of path's probes matching p (a copy) into ps; *matched
 * counts them. 0, or a negative errno (reported); with quiet, a file
 * kptrace cannot read the notes of is no error (one mapping of many).
 */
static int expand_path(struct probeset *ps, const struct spec_probe *p, const char *where,
		       const char *path, bool quiet, int *matched)
{
	struct usdt_probe *u = NULL;
	struct sbuf b = { .ok = true };
	struct spec_probe q = *p;
	int n = 0, k, col, err;
	char msg[768];

	err = usdt_read(path, &u, &n, msg, sizeof(msg));
	if (err) {
		if (quiet)
			return 0;
		probe_report(where, p->text, msg, p->target_col);
		return err;
	}
	q.path = (char *)path;
	for (k = 0; !err && k < n; k++) {
		if (fnmatch(p->usdt_provider, u[k].provider, 0) ||
		    fnmatch(p->usdt_name, u[k].name, 0))
			continue;
		(*matched)++;
		b.len = 0;
		err = location_text(&b, &q, &u[k], msg, sizeof(msg), &col);
		if (err && err != -ENOMEM)
			probe_report(where, p->text, msg, col);
		/* the definition made, which probeset_add() reports on if it must */
		if (!err)
			err = probeset_add(ps, b.s, where, p->glob ? PROBE_GLOB : PROBE_USER);
	}
	free(b.s);
	usdt_free(u, n);
	return err;
}

struct mapped {
	char **paths;
	int n, cap;
};

/* path, once */
static int add_object(const char *path, void *arg)
{
	struct mapped *mp = arg;
	char **np;
	int k;

	for (k = 0; k < mp->n; k++)
		if (!strcmp(mp->paths[k], path))
			return 0;
	if (mp->n == mp->cap) {
		mp->cap = mp->cap ? 2 * mp->cap : 16;
		np = realloc(mp->paths, mp->cap * sizeof(*np));
		if (!np)
			return -ENOMEM;
		mp->paths = np;
	}
	mp->paths[mp->n] = strdup(path);
	return mp->paths[mp->n] ? (mp->n++, 0) : -ENOMEM;
}

/* Each file mapped executable: where a process's USDT probes can be. */
static int add_mapped(void *arg, const struct procmap *m)
{
	if (m->path[0] != '/' || !strchr(m->perms, 'x') || strstr(m->path, " (deleted)"))
		return 0;
	return add_object(m->path, arg);
}

/*
 * u:*:PROVIDER:NAME: the probes of every object process pid maps, or -c's
 * command will map as it starts (its program, loader and libraries).
 */
static int expand_process(struct probeset *ps, const struct spec_probe *p, const char *where,
			  pid_t pid, const char *command, int *matched, int *nobj)
{
	struct mapped mp = { 0 };
	char msg[256];
	int k, before, err;

	if (pid <= 0 && !command) {
		probe_report(where, p->text, "u:*:PROVIDER:NAME is every object a process maps: "
			     "give the process, -p PID or -c COMMAND", p->target_col);
		return -EINVAL;
	}
	if (pid > 0)
		err = procmaps_each("/proc", (uint32_t)pid, add_mapped, &mp);
	else
		err = libpath_command_objects(command, add_object, &mp);
	if (err && err != -ENOMEM) {
		if (pid > 0)
			snprintf(msg, sizeof(msg), "cannot read /proc/%d/maps: %s", (int)pid,
				 strerror(-err));
		else
			snprintf(msg, sizeof(msg), "cannot find the program -c runs (%s): %s",
				 command, err == -ENOEXEC ? "not an ELF program or a script of one" :
				 strerror(-err));
		probe_report(where, p->text, msg, p->target_col);
	}
	for (k = 0; !err && k < mp.n; k++) {
		before = *matched;
		err = expand_path(ps, p, where, mp.paths[k], true, matched);
		*nobj += *matched > before;
	}
	for (k = 0; k < mp.n; k++)
		free(mp.paths[k]);
	free(mp.paths);
	return err;
}

int usdtdef_expand(struct probeset *ps, int i, pid_t pid, const char *command)
{
	/* a copy: adding definitions moves ps->p, not what its pointers point to */
	struct spec_probe p = ps->p[i].spec;
	const char *where = ps->p[i].where;
	bool all = !strcmp(p.path, "*");
	struct usdt_probe *u = NULL;
	int n = 0, matched = 0, nobj = 0, err;
	char msg[768], names[512] = "", whose[32];

	err = all ? expand_process(ps, &p, where, pid, command, &matched, &nobj) :
		    expand_path(ps, &p, where, p.path, false, &matched);
	if (pid > 0)
		snprintf(whose, sizeof(whose), "process %d", (int)pid);
	else
		snprintf(whose, sizeof(whose), "-c's program");
	if (!err && !matched) {
		if (all && pid > 0)
			snprintf(names, sizeof(names), "of the objects process %d maps", (int)pid);
		else if (all)
			snprintf(names, sizeof(names), "of the objects -c's program links (those it "
				 "will dlopen() are not known before it runs: -p PID then)");
		else if (!usdt_read(p.path, &u, &n, msg, sizeof(msg)))
			probe_names(u, n, names, sizeof(names));
		snprintf(msg, sizeof(msg), "no USDT probe %s%s matches %s:%s%s%s%s",
			 all ? names : "of ", all ? "" : p.path, p.usdt_provider, p.usdt_name,
			 all ? "" : " (it has: ", all ? "" : names, all ? "" : ")");
		probe_report(where, p.text, msg, p.target_col);
		usdt_free(u, n);
		return -ENOENT;
	}
	if (!err && all)
		fprintf(stderr, "kptrace: 'u:*:%s:%s' of %s: %d USDT location%s in %d "
			"object%s\n", p.usdt_provider, p.usdt_name, whose, matched,
			matched == 1 ? "" : "s", nobj, nobj == 1 ? "" : "s");
	else if (!err && p.glob)
		fprintf(stderr, "kptrace: '%s:%s:%s': %d USDT location%s\n", p.path,
			p.usdt_provider, p.usdt_name, matched, matched == 1 ? "" : "s");
	return err;
}
