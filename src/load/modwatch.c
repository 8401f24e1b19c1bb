// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Module functions as their modules come and go. kprobe_events keeps
 * "MOD:SYM" for a module not loaded yet and arms it when the module loads; a
 * perf kprobe (kptrace's) is refused then, and once made it stays dead after
 * its module unloads, even when the module comes back. So the run watches
 * /proc/modules once a second for the modules its kprobes are in: a module
 * that turns up is resolved in a fresh kallsyms and its probes attached (the
 * programs are loaded: a link each, the probe's index the cookie); one that
 * goes, or comes back at another address, has its links destroyed. Each
 * change is said on stderr; a module that never loaded, at the end.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "load/modwatch.h"
#include "sys/ksyms.h"
#include "sys/libpath.h"
#include "util/clock.h"

/* How often /proc/modules is read, seconds: a module's first calls within
 * this of its load are not seen. */
#define MODWATCH_S	1.0

struct modprobe {
	int idx;		/* the probe, index into the set */
	char base[24];		/* its module's address as attached or refused, "" if none */
	bool attached;
	bool ever;		/* attached at some point of the run */
};

struct modwatch {
	struct probeset *ps;
	struct loader *ld;
	struct sysinfo *si;
	struct modprobe *mp;
	int n;
	double last;
	char *mods;		/* /proc/modules as last read */
};

/*
 * Module name's address in the last /proc/modules read ("name size refs deps
 * state address"), into base; false if it is not there or not Live (a module
 * being loaded or unloaded has no text to probe yet, or no more).
 */
static bool module_live(const struct modwatch *mw, const char *name, char *base, size_t len)
{
	char state[16];

	return libpath_module_find(mw->mods, name, state, sizeof(state), base, len) &&
	       !strcmp(state, "Live");
}

static int read_modules(struct modwatch *mw)
{
	char *all = libpath_modules_read();

	if (!all)
		return -errno;
	free(mw->mods);
	mw->mods = all;
	return 0;
}

struct modwatch *modwatch_new(struct probeset *ps, struct loader *ld, struct sysinfo *si)
{
	struct modwatch *mw;
	int i;

	mw = calloc(1, sizeof(*mw));
	if (!mw)
		return NULL;
	*mw = (struct modwatch){ .ps = ps, .ld = ld, .si = si, .last = kpt_mono_s() };
	mw->mp = calloc(ps->n ? ps->n : 1, sizeof(*mw->mp));
	if (!mw->mp) {
		free(mw);
		return NULL;
	}
	read_modules(mw);
	for (i = 0; i < ps->n; i++) {
		const struct ev_desc *ev = &ps->evs[i];
		struct modprobe *m = &mw->mp[mw->n];

		/* kprobes of their own only: a module's function never goes
		 * through kprobe.multi or a trampoline */
		if (!ev->target.module[0] || ev->multi || ev->tramp ||
		    (ev->kind != SPEC_KPROBE && ev->kind != SPEC_KRETPROBE))
			continue;
		m->idx = i;
		m->attached = m->ever = !ev->target.await;
		if (m->attached)
			module_live(mw, ev->target.module, m->base, sizeof(m->base));
		mw->n++;
	}
	return mw;
}

int modwatch_waiting(const struct modwatch *mw, char *mods, size_t len)
{
	size_t used = 0;
	int i, n = 0;

	if (len)
		mods[0] = 0;
	for (i = 0; mw && i < mw->n; i++) {
		const char *mod = mw->ps->evs[mw->mp[i].idx].target.module;

		if (mw->mp[i].attached)
			continue;
		n++;
		if (!strstr(mods, mod) && used < len)
			used += snprintf(mods + used, len - used, "%s%s", used ? ", " : "", mod);
	}
	return n;
}

static void say_gone(struct modwatch *mw, struct modprobe *m, bool back)
{
	struct ev_desc *ev = &mw->ps->evs[m->idx];

	loader_detach_one(mw->ld, m->idx);
	m->attached = false;
	m->base[0] = 0;
	fprintf(stderr, "kptrace: module %s %s: %s/%s detached from %s; attached again as it "
		"loads\n", ev->target.module, back ? "was loaded again" : "unloaded", ev->group,
		ev->event, ev->func);
}

/* Probe m's module is there at base: resolve its function anew and attach. */
static void attach_now(struct modwatch *mw, struct modprobe *m, const char *base)
{
	struct ev_desc *ev = &mw->ps->evs[m->idx];
	const struct ev_target *t = &ev->target;
	const struct ksym *s;
	char msg[512];
	int err;

	snprintf(m->base, sizeof(m->base), "%s", base);
	s = resolve_function(mw->si, t->symbol, t->module);
	if (!s || !strchr("tTwW", s->type)) {
		fprintf(stderr, "kptrace: module %s loaded, with no function '%s': %s/%s not "
			"attached\n", t->module, t->symbol, ev->group, ev->event);
		return;
	}
	ev->addr = s->addr + t->offset;
	snprintf(ev->func, sizeof(ev->func), "%s:%s", t->module, s->name);
	err = loader_attach_late(mw->ld, ev, msg, sizeof(msg));
	if (err) {
		fprintf(stderr, "kptrace: module %s loaded: %s; attached again if it loads "
			"again\n", t->module, msg);
		return;
	}
	m->attached = m->ever = true;
	fprintf(stderr, "kptrace: module %s loaded: %s/%s attached to %s\n", t->module,
		ev->group, ev->event, ev->func);
}

/* One look at /proc/modules: what went is detached, what came attached. */
static void modwatch_look(struct modwatch *mw)
{
	bool fresh = false;
	char base[24];
	int pass, i;

	if (read_modules(mw))
		return;
	for (i = 0; i < mw->n; i++) {
		struct modprobe *m = &mw->mp[i];
		bool live = module_live(mw, mw->ps->evs[m->idx].target.module, base, sizeof(base));

		if (m->attached && (!live || strcmp(base, m->base)))
			say_gone(mw, m, live);
		else if (!live)
			m->base[0] = 0;	/* refused as it was: tried again as it comes back */
	}
	/* returns first, then the entries they pair with (event.h's pair_entry) */
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < mw->n; i++) {
			struct modprobe *m = &mw->mp[i];
			const struct ev_desc *ev = &mw->ps->evs[m->idx];

			if (m->attached || ev->pair_entry != pass ||
			    !module_live(mw, ev->target.module, base, sizeof(base)) ||
			    !strcmp(base, m->base))
				continue;	/* refused at this address already: not again */
			if (!fresh && ksyms_reload(mw->si->ksyms, NULL)) {
				fprintf(stderr, "kptrace: module %s loaded, but kallsyms cannot be "
					"read again: %s\n", ev->target.module, strerror(errno));
				return;
			}
			fresh = true;
			attach_now(mw, m, base);
		}
	}
}

void modwatch_tick(struct modwatch *mw)
{
	if (!mw || !mw->n || kpt_mono_s() - mw->last < MODWATCH_S)
		return;
	mw->last = kpt_mono_s();
	modwatch_look(mw);
}

void modwatch_end(struct modwatch *mw)
{
	int i;

	for (i = 0; mw && i < mw->n; i++) {
		const struct ev_desc *ev = &mw->ps->evs[mw->mp[i].idx];

		if (!mw->mp[i].ever)
			fprintf(stderr, "kptrace: %s/%s: module %s never loaded: %s was not "
				"traced\n", ev->group, ev->event, ev->target.module, ev->func);
	}
}

void modwatch_free(struct modwatch *mw)
{
	if (!mw)
		return;
	free(mw->mods);
	free(mw->mp);
	free(mw);
}
