// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* What a refused word most likely meant: subcommands, bpftrace's probe names. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "prepare/hint.h"
#include "sys/libpath.h"
#include "util/suggest.h"

static const char *const subcommands[] = { "explain", "hist", "latency", "count", "profile",
						  "timechart", "list" };

#define NSUB (sizeof(subcommands) / sizeof(subcommands[0]))

static bool lowercase_word(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < 'a' || *s > 'z')
			return false;
	return true;
}

const char *hint_subcommand(const char *word)
{
	struct suggest sg;
	size_t i, n = strlen(word);

	if (!lowercase_word(word))
		return NULL;
	for (i = 0; i < NSUB; i++)
		if (!strcmp(word, subcommands[i]))
			return NULL;
	/* lengthened ("histogram", "counts") or cut short ("lat", "expl") */
	for (i = 0; i < NSUB; i++) {
		size_t m = strlen(subcommands[i]);

		if ((n > m && !strncmp(word, subcommands[i], m)) ||
		    (n >= 3 && n < m && !strncmp(word, subcommands[i], n)))
			return subcommands[i];
	}
	suggest_init(&sg, word);
	for (i = 0; i < NSUB; i++)
		suggest_add(&sg, subcommands[i]);
	return sg.best;
}

/*
 * bpftrace's probe types, by name and short name, as kptrace's definitions:
 * kind 'p', 'r', 'f' or 't' with how the rest is written ('R': an fprobe's
 * %return after it), 0 where kptrace has no such probe.
 */
static const struct bt_probe {
	const char *name, *alias;
	char kind;
	bool ret;
} bt_probes[] = {
	{ "kprobe", "k", 'p', false },
	{ "kretprobe", "kr", 'r', false },
	{ "uprobe", "u", 'p', false },
	{ "uretprobe", "ur", 'r', false },
	{ "tracepoint", "t", 't', false },
	{ "rawtracepoint", "rt", 't', false },
	{ "fentry", "f", 'f', false },
	{ "kfunc", NULL, 'f', false },
	{ "fexit", "fr", 'f', true },
	{ "kretfunc", NULL, 'f', true },
	{ "usdt", "U", 'u', false },
	{ "profile", "p", 0, false },
	{ "interval", "i", 0, false },
	{ "software", "s", 0, false },
	{ "hardware", "h", 0, false },
	{ "watchpoint", "w", 0, false },
	{ "asyncwatchpoint", "aw", 0, false },
	{ "iter", "it", 0, false },
	{ "BEGIN", NULL, 0, false },
	{ "END", NULL, 0, false },
};

static const struct bt_probe *bt_probe(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < sizeof(bt_probes) / sizeof(bt_probes[0]); i++) {
		const struct bt_probe *b = &bt_probes[i];

		if ((strlen(b->name) == n && !strncmp(s, b->name, n)) ||
		    (b->alias && strlen(b->alias) == n && !strncmp(s, b->alias, n)))
			return b;
	}
	return NULL;
}

/*
 * A user probe's "PATH:SYMBOL" with a library or binary named as bpftrace
 * allows ("libc:malloc"): the path kptrace needs, when one is found.
 */
static void user_target(const char *rest, size_t n, char *out, size_t len)
{
	const char *colon = memchr(rest, ':', n);
	char name[256], path[512];

	snprintf(out, len, "%.*s", (int)n, rest);
	if (!colon || memchr(rest, '/', (size_t)(colon - rest)) ||
	    (size_t)(colon - rest) >= sizeof(name))
		return;
	snprintf(name, sizeof(name), "%.*s", (int)(colon - rest), rest);
	if (!libpath_find(name, path, sizeof(path)))
		snprintf(out, len, "%s%.*s", path, (int)(n - (size_t)(colon - rest)), colon);
}

/* "kprobe:vfs_read" and its kin: bpftrace's spelling, as kptrace's. */
static size_t hint_bpftrace(const char *text, char *buf, size_t len)
{
	size_t word = strcspn(text, " \t{"), type = strcspn(text, ":");
	const char *rest = text + type + 1, *more = text + word;
	const struct bt_probe *b;
	char kpt[600], target[560];
	size_t n, i;

	if (type >= word)
		return 0;
	b = bt_probe(text, type);
	if (!b)
		return 0;
	if (!b->kind)
		return (size_t)snprintf(buf, len, "; bpftrace's '%.*s' probes have no kptrace "
					"form: kptrace takes kprobe_events definitions (p, r, f, "
					"t)", (int)type, text);
	n = (size_t)(more - rest);
	if (b->name[0] == 'u')
		user_target(rest, n, target, sizeof(target));
	else
		snprintf(target, sizeof(target), "%.*s", (int)n, rest);
	/* bpftrace's tracepoint:SUBSYS:EVENT is ftrace's SUBSYS/EVENT */
	if (b->kind == 't')
		for (i = 0; target[i]; i++)
			if (target[i] == ':') {
				target[i] = '/';
				break;
			}
	snprintf(kpt, sizeof(kpt), "%c:%s%s", b->kind, target, b->ret ? "%return" : "");
	while (*more == ' ' || *more == '\t')
		more++;
	return (size_t)snprintf(buf, len, "; bpftrace's '%.*s' is '%s' in kptrace%s",
				(int)word, text, kpt,
				*more == '{' || *more == '/' ?
				" (no bpftrace program: the values to print follow the probe "
				"point as NAME=FETCHARG, e.g. 'p:vfs_read count=$arg3')" : "");
}

size_t hint_definition(const char *text, enum spec_err code, int col, char *buf, size_t len)
{
	const char *t = text + (col > 0 ? col : 0);
	char tp[2 * SPEC_NAME_MAX];
	size_t n, ret = 0;

	if (len)
		buf[0] = '\0';
	switch (code) {
	case SPEC_ERR_BAD_PROBE_TYPE:
		ret = hint_bpftrace(text, buf, len);
		if (!ret && lowercase_word(text))
			ret = (size_t)snprintf(buf, len, "; and '%s' is no subcommand (explain, "
					       "hist, latency, count, profile, list)", text);
		break;
	case SPEC_ERR_BAD_TP_NAME:
		/* "t:sched:sched_switch": bpftrace's separator */
		n = strcspn(t, " \t");
		/* "t:EVENT SUBSYS:TP": the word after the event's name */
		if (!memchr(t, ':', n) && t[n]) {
			t += n + strspn(t + n, " \t");
			n = strcspn(t, " \t");
		}
		if (!memchr(t, ':', n) || memchr(t, '/', n) || memchr(t, '=', n) ||
		    n >= sizeof(tp))
			break;
		memcpy(tp, t, n);
		tp[n] = '\0';
		*strchr(tp, ':') = '/';
		ret = (size_t)snprintf(buf, len, "; write '%s' (a '/' between them, as under "
				       "events/ in tracefs)", tp);
		break;
	default:
		break;
	}
	return ret < len ? ret : (len ? len - 1 : 0);
}
