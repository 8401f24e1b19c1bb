// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Module functions as their modules come and go. kprobe_events keeps
 * "MOD:SYM" for a module not loaded yet and arms it when the module loads; a
 * perf kprobe (kptrace's) is refused then, and once made it stays dead after
 * its module unloads, even when the module comes back. So the run watches
 * the modules its kprobes are in: a module that turns up is resolved in a
 * fresh kallsyms and its probes attached (the programs are loaded: a link
 * each, the probe's index the cookie); one that goes, or comes back at
 * another address, has its links destroyed. Each change is said on stderr; a
 * module that never loaded, at the end.
 *
 * When to look at /proc/modules: as the kernel announces a module's load or
 * unload, its uevent ("add@/module/NAME", sent once its init has run and it
 * is Live), so a call right after insmod is seen; once a second only where
 * no uevent socket can be had.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <sys/socket.h>

#include "load/modwatch.h"
#include "sys/ksyms.h"
#include "sys/libpath.h"
#include "util/clock.h"

/* How often /proc/modules is read without uevents, seconds: a module's first
 * calls within this of its load are not seen. */
#define MODWATCH_S	1.0

struct modprobe {
	int idx;		/* the probe, index into the set */
	char base[24];		/* its module's address as attached or refused, "" if none */
	bool attached;
	bool ever;		/* attached at some point of the run */
	bool now;		/* its module came in this look */
};

struct modwatch {
	struct probeset *ps;
	struct loader *ld;
	struct sysinfo *si;
	struct modprobe *mp;
	int n;
	double last;
	char *mods;		/* /proc/modules as last read */
	int uevent_fd;		/* the kernel's uevents, -1 if none */
};

/*
 * The kernel's uevents (NETLINK_KOBJECT_UEVENT, its multicast group 1): any
 * user may listen; -1 where the kernel has no netlink (no CONFIG_NET).
 */
static int uevent_open(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = 1 };
	int fd;

	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, NETLINK_KOBJECT_UEVENT);
	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Whether a module was loaded or unloaded since the last call: the pending
 * uevents read, true for any "ACTION@/module/NAME" among them (the
 * message's first string). A full socket buffer (ENOBUFS) lost some: true.
 */
static bool uevent_module(int fd)
{
	char buf[4096], *at;
	bool any = false;
	ssize_t n;

	while ((n = recv(fd, buf, sizeof(buf) - 1, MSG_DONTWAIT)) != 0) {
		if (n < 0) {
			if (errno == ENOBUFS)
				any = true;
			if (errno != EINTR && errno != ENOBUFS)
				break;
			continue;
		}
		buf[n] = 0;
		at = strchr(buf, '@');
		if (at && !strncmp(at, "@/module/", 9))
			any = true;
	}
	return any;
}

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
	*mw = (struct modwatch){ .ps = ps, .ld = ld, .si = si, .last = kpt_mono_s(),
				 .uevent_fd = -1 };
	mw->mp = calloc(ps->n ? ps->n : 1, sizeof(*mw->mp));
	if (!mw->mp) {
		free(mw);
		return NULL;
	}
	/* listening before the first read: no load falls between the two */
	mw->uevent_fd = uevent_open();
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
	if (!mw->n && mw->uevent_fd >= 0) {
		close(mw->uevent_fd);
		mw->uevent_fd = -1;
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

/* Probe m's function in the kallsyms just read: its name and address, for the lines. */
static const struct ksym *name_function(struct modwatch *mw, struct modprobe *m)
{
	struct ev_desc *ev = &mw->ps->evs[m->idx];
	const struct ev_target *t = &ev->target;
	const struct ksym *s;

	s = resolve_function(mw->si, t->symbol, t->module);
	if (!s || !strchr("tTwW", s->type))
		return NULL;
	ev->addr = s->addr + t->offset;
	snprintf(ev->func, sizeof(ev->func), "%s:%s", t->module, s->name);
	return s;
}

/*
 * Before kallsyms is read again: probe m on a plain name attached as
 * "MOD:SYM", which the kernel looks up itself. Reading kallsyms takes long
 * (most of a second under TCG) and a module's first calls come right after
 * its load. A name kallsyms must settle (an alternative, a clone) waits.
 */
static void attach_early(struct modwatch *mw, struct modprobe *m)
{
	struct ev_desc *ev = &mw->ps->evs[m->idx];
	const struct ev_target *t = &ev->target;
	char msg[512];

	if (!strpbrk(t->symbol, "|.") &&
	    snprintf(ev->func, sizeof(ev->func), "%s:%.*s", t->module, (int)sizeof(ev->func),
		     t->symbol) < (int)sizeof(ev->func) &&
	    !loader_attach_late(mw->ld, ev, msg, sizeof(msg)))
		m->attached = m->ever = true;
}

/* After kallsyms is read again: probe m named, attached if not yet, said. */
static void attach_now(struct modwatch *mw, struct modprobe *m)
{
	struct ev_desc *ev = &mw->ps->evs[m->idx];
	const struct ev_target *t = &ev->target;
	char msg[512];

	if (!name_function(mw, m) && !m->attached) {
		fprintf(stderr, "kptrace: module %s loaded, with no function '%s': %s/%s not "
			"attached\n", t->module, t->symbol, ev->group, ev->event);
		return;
	}
	if (!m->attached && loader_attach_late(mw->ld, ev, msg, sizeof(msg))) {
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
	char base[24];
	int pass, i, n = 0;

	if (read_modules(mw))
		return;
	for (i = 0; i < mw->n; i++) {
		struct modprobe *m = &mw->mp[i];
		bool live = module_live(mw, mw->ps->evs[m->idx].target.module, base, sizeof(base));

		m->now = false;
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
			snprintf(m->base, sizeof(m->base), "%s", base);
			m->now = true;
			n++;
			attach_early(mw, m);
		}
	}
	if (!n)
		return;
	if (ksyms_reload(mw->si->ksyms, NULL))
		fprintf(stderr, "kptrace: a module loaded, but kallsyms cannot be read again: "
			"%s\n", strerror(errno));
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < mw->n; i++)
			if (mw->mp[i].now && mw->ps->evs[mw->mp[i].idx].pair_entry == pass)
				attach_now(mw, &mw->mp[i]);
}

void modwatch_tick(struct modwatch *mw)
{
	if (!mw || !mw->n)
		return;
	if (mw->uevent_fd >= 0 ? !uevent_module(mw->uevent_fd)
			       : kpt_mono_s() - mw->last < MODWATCH_S)
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
	if (mw->uevent_fd >= 0)
		close(mw->uevent_fd);
	free(mw->mods);
	free(mw->mp);
	free(mw);
}
