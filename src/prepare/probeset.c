// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The probes of one run (probeset.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prepare/compile.h"
#include "prepare/hint.h"
#include "prepare/probeset.h"

void probe_report(const char *where, const char *text, const char *msg, int col)
{
	if (where)
		fprintf(stderr, "kptrace: in %s:\n", where);
	if (col >= 0 && text)
		spec_print_error(stderr, text, msg, col);
	else
		fprintf(stderr, "kptrace: error: %s\n", msg);
}

void probeset_report(const struct probeset *ps, int i, const char *msg)
{
	const struct spec_probe *p = i >= 0 && i < ps->n ? &ps->p[i].spec : NULL;

	probe_report(NULL, p ? p->text : NULL, msg, p ? p->target_col : -1);
}

/* A link to probe i as probe i goes: -1; to one after it: one less. */
static void link_follow(int *link, int i)
{
	if (*link == i)
		*link = -1;
	else if (*link > i)
		(*link)--;
}

void probeset_remove(struct probeset *ps, int i)
{
	int j;

	spec_free(&ps->p[i].spec);
	free(ps->p[i].where);
	free(ps->p[i].pair_stem);
	resolved_free(&ps->p[i].res);
	memmove(&ps->p[i], &ps->p[i + 1], (ps->n - i - 1) * sizeof(ps->p[0]));
	ps->n--;
	if (ps->nuser > i)
		ps->nuser--;
	for (j = 0; j < ps->n; j++) {
		link_follow(&ps->p[j].saver, i);
		link_follow(&ps->p[j].saves, i);
		link_follow(&ps->p[j].lat_peer, i);
	}
}

void probeset_free(struct probeset *ps)
{
	int i;

	for (i = 0; ps->evs && i < ps->n; i++)
		ev_desc_free(&ps->evs[i]);
	free(ps->evs);
	free(ps->ents);
	ps->evs = NULL;
	ps->ents = NULL;
	while (ps->n)
		probeset_remove(ps, ps->n - 1);
	free(ps->p);
	memset(ps, 0, sizeof(*ps));
}

static int probeset_grow(struct probeset *ps)
{
	struct probe *np;
	int cap;

	if (ps->n < ps->cap)
		return 0;
	cap = ps->cap ? ps->cap * 2 : 16;
	np = realloc(ps->p, cap * sizeof(*np));
	if (!np)
		return -ENOMEM;
	ps->p = np;
	ps->cap = cap;
	return 0;
}

/*
 * A definition naming an earlier one's event is one more probe point of
 * that event, as in kprobe_events: prepare's check_appends() says, once
 * names and types are known, whether the kernel would take it.
 */
int probeset_add(struct probeset *ps, const char *text, const char *where,
		 enum probe_origin origin)
{
	struct spec_error e;
	struct spec_probe p;
	struct probe *np;
	char msg[1024];
	int i, removed = 0;

	if (spec_parse(text, &p, &e)) {
		/* the kernel's words, then what the text most likely meant */
		i = snprintf(msg, sizeof(msg), "%s", spec_strerror(e.code));
		hint_definition(text, e.code, e.col, msg + i, sizeof(msg) - i);
		probe_report(where, text, msg, e.col);
		spec_free(&p);
		return -EINVAL;
	}
	if (p.ignored_col) {
		if (where)
			fprintf(stderr, "kptrace: in %s:\n", where);
		spec_print_diag(stderr, "warning", text, "ignored, as the kernel's parser ignores "
				"it: what follows a dereference's closing brace", p.ignored_col);
	}
	for (i = 0; p.kind == SPEC_REMOVE && i < ps->n; i++) {
		const struct spec_probe *q = &ps->p[i].spec;

		/* "-:EVENT" without a group (empty) matches it in any group:
		 * kprobe_events and uprobe_events are one list here. */
		if (strcmp(q->event, p.event) || (p.group[0] && strcmp(q->group, p.group)) ||
		    !spec_removal_matches(&p, q))
			continue;
		probeset_remove(ps, i--);
		removed++;
	}
	if (p.kind == SPEC_REMOVE) {
		if (!removed)
			probe_report(where, text, p.remove_match ?
				     "No such probe of this event to remove" :
				     "No such event to remove", 2);
		spec_free(&p);
		return removed ? 0 : -ENOENT;
	}
	if (probeset_grow(ps)) {
		spec_free(&p);
		return -ENOMEM;
	}
	np = &ps->p[ps->n];
	memset(np, 0, sizeof(*np));
	np->spec = p;
	np->where = where ? strdup(where) : NULL;
	np->origin = origin;
	np->saver = np->saves = np->lat_peer = -1;
	ps->n++;
	return 0;
}
