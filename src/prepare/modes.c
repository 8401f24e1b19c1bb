// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>

#include "lang/spec.h"
#include "prepare/aggdef.h"
#include "prepare/modes.h"
#include "prepare/unsafe.h"
#include "sys/kdwarf.h"
#include "sys/ksyms.h"
#include "sys/libpath.h"
#include "sys/pmu.h"
#include "sys/tracepoint.h"
#include "util/htab.h"
#include "util/keylist.h"

/* Definition texts as a mode makes them; peer[i]: latency's other half of text[i], or -1. */
struct deflist {
	char **text;
	int *peer;
	int n;
};

static int deflist_add(struct deflist *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int deflist_add(struct deflist *l, const char *fmt, ...)
{
	char **nt, *t;
	int *np, r;
	va_list ap;

	va_start(ap, fmt);
	r = vasprintf(&t, fmt, ap);
	va_end(ap);
	if (r < 0)
		return -ENOMEM;
	nt = realloc(l->text, (l->n + 1) * sizeof(*nt));
	if (nt)
		l->text = nt;
	np = nt ? realloc(l->peer, (l->n + 1) * sizeof(*np)) : NULL;
	if (!np) {
		free(t);
		return -ENOMEM;
	}
	l->peer = np;
	l->peer[l->n] = -1;
	l->text[l->n++] = t;
	return 0;
}

static void deflist_free(struct deflist *l)
{
	int i;

	for (i = 0; i < l->n; i++)
		free(l->text[i]);
	free(l->text);
	free(l->peer);
	memset(l, 0, sizeof(*l));
}

/* An event name from a function: its symbol, C-identifier characters only. */
static void event_name(const char *func, int n, char *buf, size_t len)
{
	const char *s = strrchr(func, ':');
	size_t i;

	s = s ? s + 1 : func;
	for (i = 0; i + 1 < len && s[i]; i++)
		buf[i] = s[i];
	buf[i] = 0;
	for (i = 0; buf[i]; i++)
		if (!isalnum((unsigned char)buf[i]) && buf[i] != '_')
			buf[i] = '_';
	if (!isalpha((unsigned char)buf[0]) && buf[0] != '_')
		snprintf(buf, len, "f%d", n);
	if (strlen(buf) > 40)
		buf[40] = 0;
}

/*
 * latency FUNC [FETCHARGS] [if FILTER]: an entry probe (with the arguments
 * and filter) starting the clock and a return probe stopping it.
 */
#define LATENCY_GLOB_MAX 500	/* functions one glob may expand to (two probes each) */
/* why's: its functions are one kprobe.multi link each way, and a source
 * tree's files (kernel/bpf's are ~1,400 on 6.12) are its globs' common size */
#define WHY_GLOB_MAX 4000

/*
 * why's return argument of kernel function func: none where BTF says it
 * returns nothing (the kernel refuses $retval there), its BTF type where
 * BTF has the function, else x64 given (a clone such as "f.part.0" has no
 * BTF, and a struct returned by value, as tnum_const()'s, prints as no
 * type can): the type left unknown, which out/whytree.c reads as an int's
 * errno or a hex value.
 */
static const char *why_ret_arg(struct sysinfo *si, const char *func)
{
	const struct btf_type *t;
	int id;

	if (!si->btf && sysinfo_need_btf(si, NULL, 0))
		return " ret=$retval:x64";
	id = btf__find_by_name_kind(si->btf, func, BTF_KIND_FUNC);
	t = id > 0 ? btf__type_by_id(si->btf, id) : NULL;
	t = t ? btf__type_by_id(si->btf, t->type) : NULL;
	if (!t || !btf_is_func_proto(t))
		return " ret=$retval:x64";
	if (!t->type)
		return "";
	id = btf__resolve_type(si->btf, t->type);
	t = id > 0 ? btf__type_by_id(si->btf, id) : NULL;
	return t && (btf_is_struct(t) || btf_is_union(t)) ? " ret=$retval:x64" : " ret=$retval";
}

/*
 * A function's entry and return, paired: latency's (the entry with the
 * arguments and filter, rest), or why's (the return's value, typed by BTF).
 */
static int func_pair(struct sysinfo *si, struct deflist *out, const char *group,
		     const char *func, const char *rest, int n)
{
	bool why = !strcmp(group, "why");
	char name[64];
	int err;

	event_name(func, n, name, sizeof(name));
	err = deflist_add(out, "p:%s/%s_%d %s%s", group, name, n, func, rest);
	if (!err)
		err = deflist_add(out, "r:%s/%s_%d_ret %s%s", group, name, n, func,
				  why ? why_ret_arg(si, func) : "");
	if (err)
		return err;
	out->peer[out->n - 2] = out->n - 1;
	out->peer[out->n - 1] = out->n - 2;
	return 0;
}

/* latency '/bin/app:parse_*': every function of the binary it matches. */
static int latency_uglob(const char *pat, const char *rest, struct deflist *out, int *n,
			 char *msg, size_t msglen)
{
	const char *colon = strrchr(pat, ':');
	int count = 0, ifuncs, i, err = -EINVAL;
	char **names = NULL, path[256];

	if (colon && colon - pat < (long)sizeof(path)) {
		snprintf(path, sizeof(path), "%.*s", (int)(colon - pat), pat);
		err = resolve_elf_glob_functions(path, colon + 1, &names, &count, &ifuncs, msg,
						 msglen);
	} else {
		snprintf(msg, msglen, "latency %s: not /PATH:SYMBOL", pat);
	}
	if (!err && !count) {
		snprintf(msg, msglen, "latency %s: no function matches%s", pat,
			 ifuncs ? " (only IFUNC symbols: resolvers, not the functions called)" : "");
		err = -ENOENT;
	}
	if (!err && count > LATENCY_GLOB_MAX) {
		snprintf(msg, msglen, "latency %s: %d functions match, at most %d: narrow the "
			 "pattern", pat, count, LATENCY_GLOB_MAX);
		err = -E2BIG;
	}
	for (i = 0; !err && i < count; i++) {
		char func[512];

		snprintf(func, sizeof(func), "%s:%s", path, names[i]);
		err = func_pair(NULL, out, "latency", func, rest, (*n)++);
	}
	if (!err)
		fprintf(stderr, "kptrace: latency %s: %d functions%s\n", pat, count,
			ifuncs ? ", IFUNC symbols skipped (resolvers, not the functions called)" : "");
	for (i = 0; i < count; i++)
		free(names[i]);
	free(names);
	return err;
}

/* Drop name skip (why's root, probed on its own) from names. */
static void drop_name(char **names, int *count, const char *skip)
{
	int i;

	for (i = 0; skip && i < *count; i++)
		if (!strcmp(names[i], skip)) {
			free(names[i]);
			names[i--] = names[--*count];
		}
}

static int src_add(const char *mod, const char *name, void *arg)
{
	char key[400];
	int n = snprintf(key, sizeof(key), "%s%s%s", mod ? mod : "", mod ? ":" : "", name);

	if (n < 0 || n >= (int)sizeof(key))
		return 0;
	return ht_get(arg, key, (size_t)n) ? 0 : -ENOMEM;
}

/*
 * why --under ':kernel/bpf/[a-z]*.c': the functions with code of the source files
 * matching glob, by the kernel's DWARF and its modules', that can be probed.
 */
static int src_functions(struct sysinfo *si, const char *mode, const char *glob, char ***names,
			 int *count, int *skipped, char *msg, size_t msglen)
{
	struct htab set = { 0 };
	char note[1024];
	int files, err;

	*names = NULL;
	*count = 0;
	files = kdwarf_src_functions(glob, src_add, &set, note, sizeof(note));
	if (files < 0) {
		snprintf(msg, msglen, "%s --under ':%s': %s", mode, glob,
			 note[0] ? note : strerror(-files));
		ht_free(&set, NULL);
		return files;
	}
	if (note[0])
		fprintf(stderr, "kptrace: %s --under ':%s': %s\n", mode, glob, note);
	fprintf(stderr, "kptrace: %s --under ':%s': %d source files, %zu functions with code\n",
		mode, glob, files, set.n);
	err = sysinfo_set_functions(si, &set, names, count, skipped, msg, msglen);
	ht_free(&set, NULL);
	return err;
}

/*
 * latency 'vfs_*', why --under 'vfs_*': every traceable match, the skipped
 * ones reported; mode the subcommand, skip a name left out (or NULL).
 */
static int func_glob(struct sysinfo *si, const char *mode, const char *pat, const char *rest,
		     const char *skip, struct deflist *out, int *n, char *msg, size_t msglen)
{
	char **names;
	int count, skipped, ambiguous = 0, unsafe = 0, max, i, err;

	if (strchr(pat, '/') && !strcmp(mode, "latency"))
		return latency_uglob(pat, rest, out, n, msg, msglen);
	err = pat[0] == ':' ? src_functions(si, mode, pat + 1, &names, &count, &skipped, msg, msglen) :
	      sysinfo_glob_functions(si, pat, &names, &count, &skipped, msg, msglen);
	/* a name several functions have is refused by name: left out, counted */
	if (!err)
		ambiguous = sysinfo_drop_non_unique(si, names, &count);
	if (!err)
		drop_name(names, &count, skip);
	/* both end at a return */
	if (!err)
		unsafe = unsafe_drop(names, &count, true, si->unsafe, pat, stderr);
	if (!err && !count) {
		snprintf(msg, msglen, "%s %s: no traceable kernel function matches%s%s%s", mode,
			 pat, skipped ? " (only blacklisted ones)" : "",
			 ambiguous ? " (only names several functions have)" : "",
			 unsafe ? " (only ones that can hang the machine: see above)" : "");
		err = -ENOENT;
	}
	max = strcmp(mode, "why") ? LATENCY_GLOB_MAX : WHY_GLOB_MAX;
	if (!err && count > max) {
		snprintf(msg, msglen, "%s %s: %d functions match, at most %d: narrow the "
			 "pattern", mode, pat, count, max);
		err = -E2BIG;
	}
	for (i = 0; !err && i < count; i++)
		err = func_pair(si, out, mode, names[i], rest, (*n)++);
	if (!err)
		fprintf(stderr, "kptrace: %s %s: %d functions%s\n", mode, pat, count,
			skipped || ambiguous || unsafe ? "" : ", none skipped");
	if (!err && skipped)
		fprintf(stderr, "kptrace: %s %s: %d matching functions skipped: the kernel "
			"blacklists them (NOKPROBE)\n", mode, pat, skipped);
	if (!err && ambiguous)
		fprintf(stderr, "kptrace: %s %s: %d matching names skipped: several functions "
			"have each (the kernel refuses them by name)\n", mode, pat, ambiguous);
	for (i = 0; i < count; i++)
		free(names[i]);
	free(names);
	return err;
}

/*
 * For a system call's tracepoint (syscalls/sys_enter_NAME, sys_exit_NAME):
 * its kernel function ("__x64_sys_read") into buf, from vmlinux's BTF.
 */
static bool syscall_function(struct sysinfo *si, const char *event, char *buf, size_t len)
{
	static const char *const prefixes[] = { "__x64_sys_", "__arm64_sys_", "__se_sys_" };
	const char *name = NULL;
	size_t i;

	if (!strncmp(event, "syscalls/sys_enter_", 19))
		name = event + 19;
	else if (!strncmp(event, "syscalls/sys_exit_", 18))
		name = event + 18;
	for (i = 0; name && i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		snprintf(buf, len, "%s%s", prefixes[i], name);
		if (sysinfo_btf_has_func(si, buf))
			return true;
	}
	return false;
}

/*
 * latency times a function from its entry to its return: a tracepoint
 * (which has no return) or a whole definition is refused, with what to
 * write instead. 0 when func can be a function.
 */
static int latency_refuse(struct sysinfo *si, const char *func, char *msg, size_t msglen)
{
	char tp[256] = "", sysfn[300], libc[256], *colon;
	size_t used;

	if (!strncmp(func, "t:", 2) || !strncmp(func, "tracepoint:", 11))
		snprintf(tp, sizeof(tp), "%s", strchr(func, ':') + 1);
	else if (*func != '/' && *func != '.' && strchr(func, '/') && !strchr(func, ':'))
		snprintf(tp, sizeof(tp), "%s", func);
	if (!tp[0] && strchr("prf", *func) && func[1] && strchr(":0123456789", func[1])) {
		snprintf(msg, msglen, "latency takes a function, not a probe definition: "
			 "kptrace latency %s", strchr(func, ':') ? strchr(func, ':') + 1 : func);
		return -EINVAL;
	}
	if (!tp[0])
		return 0;
	/* bpftrace's SUBSYS:EVENT */
	if ((colon = strchr(tp, ':')) && !strchr(tp, '/'))
		*colon = '/';
	used = (size_t)snprintf(msg, msglen, "latency takes a function (FUNC, MOD:FUNC or "
				"/PATH:SYMBOL) and times it from entry to return; '%s' is a "
				"tracepoint, which has no return: from one event to another is "
				"latency --from DEF --to DEF", func);
	/* a system call's entry: its exit is the other end */
	if (used < msglen && !strncmp(tp, "syscalls/sys_enter_", 19))
		used += (size_t)snprintf(msg + used, msglen - used, " (kptrace latency --from "
					 "'t:%s' --to 't:syscalls/sys_exit_%s')", tp, tp + 19);
	if (used >= msglen || !syscall_function(si, tp, sysfn, sizeof(sysfn)))
		return -EINVAL;
	used += (size_t)snprintf(msg + used, msglen - used, ". For the system call, time its "
				 "kernel function: kptrace latency %s", sysfn);
	if (used < msglen && !sysinfo_have_kprobes(si) &&
	    !libpath_find("libc", libc, sizeof(libc)) &&
	    resolve_elf_has_function(libc, strstr(sysfn, "_sys_") + 5))
		snprintf(msg + used, msglen - used, " (this kernel has no kprobes for it: here, "
			 "libc's: kptrace latency %s:%s)", libc, strstr(sysfn, "_sys_") + 5);
	return -EINVAL;
}

static int add_def(const struct kpt_opts *env, const char *def, const char *keys,
		   struct deflist *out);

/*
 * --key A[=B],... as the names one side keys by: the starts' A (start), the
 * ends' B (or A), comma separated, into buf.
 */
static void pair_key_names(const char *spec, bool start, char *buf, size_t len)
{
	struct keylist kl;
	size_t at = 0;
	int k;

	buf[0] = 0;
	if (!spec)
		return;
	keylist_parse(spec, &kl);
	for (k = 0; k < kl.n && at < len; k++) {
		char *eq = strchr(kl.w[k], '=');

		if (eq)
			*eq = 0;
		at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? "," : "",
				       start || !eq ? kl.w[k] : eq + 1);
	}
}

/*
 * --by's names that are fields of tracepoint definition def (one, not a
 * glob), appended to keys: a --from/--to side has them without listing
 * them, and a name of the other side's only is not added here.
 */
static void pair_by_fields(const char *def, const char *by, char *keys, size_t len)
{
	struct tp_format fmt;
	struct spec_probe p = { 0 };
	struct spec_error e;
	struct keylist kl;
	char msg[256];
	size_t at = strlen(keys);
	int k;

	if (!by)
		return;
	if (spec_parse(def, &p, &e) || p.kind != SPEC_TRACEPOINT || p.glob ||
	    tp_format_load(p.tp_system, p.tp_event, NULL, &fmt, msg, sizeof(msg))) {
		spec_free(&p);
		return;
	}
	keylist_parse(by, &kl);
	for (k = 0; k < kl.n && at < len; k++)
		if (!agg_builtin_key(kl.w[k]) && tp_field_find(&fmt, kl.w[k]))
			at += (size_t)snprintf(keys + at, len - at, "%s%s", at ? "," : "", kl.w[k]);
	tp_format_free(&fmt);
	spec_free(&p);
}

/*
 * The function a latency or why definition d starts with, into func; the
 * rest (its arguments and filter), or NULL with msg said.
 */
static const char *def_func(const char *mode, const char *d, char *func, size_t len,
			    char *msg, size_t msglen)
{
	size_t flen = strcspn(d, " \t");

	if (!flen || flen >= len) {
		snprintf(msg, msglen, "%s: '%s' is not a function", mode, d);
		return NULL;
	}
	memcpy(func, d, flen);
	func[flen] = 0;
	return d + flen;
}

/*
 * latency FUNC [FETCHARGS] [if FILTER]: an entry probe (with the arguments
 * and filter) starting the clock and a return probe stopping it. A glob
 * FUNC stands for every traceable kernel function it matches.
 */
static int latency_defs(const struct kpt_opts *env, struct sysinfo *si, struct deflist *out,
			char *msg, size_t msglen)
{
	int i, n = 0, err;

	if (env->nfrom) {
		/* --from/--to: the definitions as given; modes_definitions() sets
		 * their roles, pair_groups() their pairs */
		for (i = 0; i < env->ndefs; i++) {
			char keys[256];

			/* a tracepoint's --key fields, as hist's and --by's, and
			 * those of --by it has (pair_by_fields()) */
			pair_key_names(env->pair_key, i < env->nfrom, keys, sizeof(keys));
			pair_by_fields(env->defs[i], env->by, keys, sizeof(keys));
			err = add_def(env, env->defs[i], keys, out);
			if (err)
				return err;
		}
		return 0;
	}

	for (i = 0; i < env->ndefs; i++) {
		const char *rest;
		char func[256];

		rest = def_func("latency", env->defs[i], func, sizeof(func), msg, msglen);
		if (!rest)
			return -EINVAL;
		err = latency_refuse(si, func, msg, msglen);
		if (err)
			return err;
		if (strpbrk(func, "*?["))
			err = func_glob(si, "latency", func, rest, NULL, out, &n, msg, msglen);
		else
			err = func_pair(si, out, "latency", func, rest, n++);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Functions a why run takes through one kprobe each where the kernel has no
 * kprobe.multi (Linux 6.1 without CONFIG_FPROBE): a perf link and an
 * attach each, seconds apiece under TCG.
 */
#define WHY_KPROBES_MAX 64

/* Whether the kernel has kprobe.multi links (CONFIG_FPROBE), by kallsyms. */
static bool have_multi(struct sysinfo *si)
{
	return !sysinfo_need_ksyms(si, NULL, 0) &&
	       ksyms_by_name(si->ksyms, "register_fprobe_ips", NULL);
}

/*
 * why 'ROOT [FETCHARGS] [if FILTER]' [--under 'GLOB...']: the root's entry
 * (with the arguments and filter) and return (why/root, why/root_ret:
 * modes_actions() knows them by name), then each function the globs match,
 * the root left out, an entry and a return each.
 */
static int why_defs(const struct kpt_opts *env, struct sysinfo *si, struct deflist *out,
		    char *msg, size_t msglen)
{
	const char *ret, *rest;
	char *globs, *g, *save = NULL, root[256];
	int n = 0, err;

	rest = def_func("why", env->defs[0], root, sizeof(root), msg, msglen);
	if (!rest)
		return -EINVAL;
	ret = why_ret_arg(si, root);
	if (!ret[0] && env->why_error) {
		snprintf(msg, msglen, "why %s --error: it returns nothing (void), so no error: "
			 "--slower DURATION only", root);
		return -EINVAL;
	}
	err = deflist_add(out, "p:why/root %s%s", root, rest);
	if (!err)
		err = deflist_add(out, "r:why/root_ret %s%s", root, ret);
	globs = err ? NULL : strdup(env->why_under ? env->why_under : "");
	if (!globs)
		return -ENOMEM;
	for (g = strtok_r(globs, " \t", &save); g && !err; g = strtok_r(NULL, " \t", &save))
		err = g[0] == ':' || strpbrk(g, "*?[") ? func_glob(si, "why", g, "", root, out, &n, msg, msglen) :
		      strcmp(g, root) ? func_pair(si, out, "why", g, "", n++) : 0;
	free(globs);
	if (!err && n > WHY_KPROBES_MAX && !have_multi(si)) {
		snprintf(msg, msglen, "why --under: %d functions, and this kernel has no "
			 "kprobe.multi (Linux 5.18+ with CONFIG_FPROBE): one kprobe each, at most "
			 "%d; narrow the globs", n, WHY_KPROBES_MAX);
		err = -E2BIG;
	}
	return err;
}

/*
 * The kernel's kmalloc entry points over the versions we know of; those the
 * running kernel has are found in kallsyms, and the size parameter's position
 * in BTF, so nothing here assumes one kernel. Large-allocation helpers are
 * left out: they are called from the ones listed and would count twice.
 */
static const char *const kmalloc_funcs[] = {
	"__kmalloc", "__kmalloc_noprof",			/* (size, flags) */
	"__kmalloc_node", "__kmalloc_node_noprof",		/* (size, flags, node) */
	"kmalloc_trace", "kmalloc_trace_noprof",		/* 6.1-6.9 (s, flags, size) */
	"kmalloc_node_trace", "kmalloc_node_trace_noprof",
	"__kmalloc_cache_noprof", "__kmalloc_cache_node_noprof",	/* 6.10+ */
	"__kmalloc_node_track_caller", "__kmalloc_node_track_caller_noprof",
};

/* 1-based position of parameter pname of function fn in BTF, or 0. */
static int btf_param_pos(const struct btf *btf, const char *fn, const char *pname)
{
	const struct btf_type *t;
	const struct btf_param *p;
	int id, i;

	id = btf__find_by_name_kind(btf, fn, BTF_KIND_FUNC);
	if (id < 0)
		return 0;
	t = btf__type_by_id(btf, btf__type_by_id(btf, id)->type);
	if (!t || !btf_is_func_proto(t))
		return 0;
	p = btf_params(t);
	for (i = 0; i < btf_vlen(t); i++)
		if (!strcmp(btf__name_by_offset(btf, p[i].name_off), pname))
			return i + 1;
	return 0;
}

static int kmalloc_defs(const struct kpt_opts *env, struct sysinfo *si, struct deflist *out,
			char *msg, size_t msglen)
{
	const char *tfs = tp_tracefs();
	char fmt[160];
	size_t i;
	int err, pos;

	snprintf(fmt, sizeof(fmt), "%s/events/kmem/kmalloc/format", tfs ? tfs : "/nonexistent");
	if (!env->no_tracepoint && !access(fmt, R_OK))
		return deflist_add(out, "t:kmalloc kmem/kmalloc bytes_req bytes_alloc call_site");

	err = sysinfo_need_ksyms(si, msg, msglen);
	if (!err)
		err = sysinfo_need_btf(si, msg, msglen);
	if (err)
		return err;
	for (i = 0; i < sizeof(kmalloc_funcs) / sizeof(kmalloc_funcs[0]); i++) {
		const struct ksym *s = ksyms_by_name(si->ksyms, kmalloc_funcs[i], NULL);

		if (!s)
			continue;
		pos = btf_param_pos(si->btf, kmalloc_funcs[i], "size");
		if (!pos)
			continue;
		/* at function entry $stack0 is the return address: the call site */
		err = deflist_add(out, "p:kmalloc/%s %s bytes_req=$arg%d:u64 call_site=$stack0:x64",
				  kmalloc_funcs[i], kmalloc_funcs[i], pos);
		if (err)
			return err;
	}
	if (!out->n) {
		snprintf(msg, msglen, "hist kmalloc: this kernel has neither the kmem:kmalloc "
			 "tracepoint nor a kmalloc function kptrace knows, with a 'size' "
			 "parameter in BTF");
		return -ENOENT;
	}
	return 0;
}

/* Whether p has an argument called name. */
static bool has_arg(const struct spec_probe *p, const char *name)
{
	int i;

	for (i = 0; i < p->nargs; i++)
		if (!strcmp(p->args[i].name, name))
			return true;
	return false;
}

/*
 * A tracepoint's fields by name, as bpftrace's args->: the field a hist
 * takes and the --by keys that name no argument of a tracepoint definition
 * are appended to it ("hist 't:kmem/kmalloc' bytes_req" runs
 * "t:kmem/kmalloc bytes_req"), before its " if" filter. A name that is no
 * field of the tracepoint is then refused where fields are resolved, with a
 * caret under it.
 */
static int add_def(const struct kpt_opts *env, const char *def, const char *keys,
		   struct deflist *out)
{
	char extra[512] = "";
	struct keylist by;
	struct spec_probe p;
	struct spec_error e;
	size_t at;

	if (env->mode == MODE_TRACE || spec_parse(def, &p, &e) || p.kind != SPEC_TRACEPOINT) {
		if (env->mode != MODE_TRACE)
			spec_free(&p);
		return deflist_add(out, "%s", def);
	}
	if (env->mode == MODE_HIST && env->field && !has_arg(&p, env->field))
		snprintf(extra, sizeof(extra), " %s", env->field);
	keylist_parse(keys, &by);
	for (int k = 0; k < by.n; k++) {
		const char *tok = by.w[k];

		/* "probe" is the table's probe column, no field; a pair's only
		 * builtin key is cpu */
		bool builtin = env->mode == MODE_LATENCY ? !strcmp(tok, "cpu") : agg_builtin_key(tok);

		if (!builtin && strcmp(tok, "probe") && !has_arg(&p, tok) &&
		    !(env->field && !strcmp(tok, env->field)) &&
		    strlen(extra) + strlen(tok) + 2 < sizeof(extra))
			strcat(strcat(extra, " "), tok);
	}
	/* before " if EXPR": back from the expression over "if" and spaces */
	at = strlen(def);
	if (p.filter) {
		at = (size_t)p.filter_col;
		while (at > 0 && def[at - 1] == ' ')
			at--;
		at = at >= 2 ? at - 2 : 0;
		while (at > 0 && def[at - 1] == ' ')
			at--;
	}
	spec_free(&p);
	return deflist_add(out, "%.*s%s%s", (int)at, def, extra, def + at);
}

static int mode_texts(const struct kpt_opts *env, struct sysinfo *si, struct deflist *out,
		      char *msg, size_t msglen)
{
	int i, err;

	if (env->mode == MODE_LATENCY)
		return latency_defs(env, si, out, msg, msglen);
	if (env->mode == MODE_WHY)
		return why_defs(env, si, out, msg, msglen);
	if (env->mode == MODE_HIST && env->ndefs == 1 && !strcmp(env->defs[0], "kmalloc"))
		return kmalloc_defs(env, si, out, msg, msglen);
	for (i = 0; i < env->ndefs; i++) {
		err = add_def(env, env->defs[i], env->by, out);
		if (err)
			return err;
	}
	return 0;
}

/*
 * A --from (start) or --to definition, probe base + i. One tracepoint or
 * function at both ends is two probes of it: unnamed, the second is named
 * EVENT_to, for the first's name is not its to take (check_appends()).
 */
static void pair_role(struct probeset *ps, int base, int i, bool start)
{
	struct spec_probe *p = &ps->p[base + i].spec;
	int j;

	ps->p[base + i].lat = start ? PROBE_LAT_START : PROBE_LAT_END;
	for (j = base; j < base + i && !p->event_given; j++)
		if (!strcmp(ps->p[j].spec.event, p->event) &&
		    !strcmp(ps->p[j].spec.group, p->group)) {
			snprintf(p->event + strnlen(p->event, SPEC_NAME_MAX - 4),
				 4, "_to");
			break;
		}
}

/* What a glob's wildcards matched in name: name less the pattern's fixed ends. */
static char *glob_stem(const char *pat, const char *name)
{
	size_t pre = strcspn(pat, "*?["), plen = strlen(pat), nlen = strlen(name), suf = 0;

	while (suf < plen - pre && !strchr("*?]", pat[plen - 1 - suf]))
		suf++;
	if (pre + suf > nlen || strncmp(pat, name, pre) ||
	    strcmp(pat + plen - suf, name + nlen - suf))
		return strdup(name);
	return strndup(name + pre, nlen - pre - suf);
}

int modes_glob_match(struct probeset *ps, int glob, int match, const char *name)
{
	const struct spec_probe *g = &ps->p[glob].spec;
	const char *fn = strrchr(name, ':');
	char pat[2 * SPEC_NAME_MAX + 2];

	ps->p[match].lat = ps->p[glob].lat;
	if (ps->p[glob].lat == PROBE_LAT_NONE || ps->p[glob].lat_peer >= 0)
		return 0;	/* no --from/--to */
	if (g->kind == SPEC_TRACEPOINT)
		snprintf(pat, sizeof(pat), "%s/%s", g->tp_system, g->tp_event);
	else
		snprintf(pat, sizeof(pat), "%s", g->usym ? g->usym : g->symbol ? g->symbol : "");
	ps->p[match].pair_stem = glob_stem(pat, g->kind == SPEC_TRACEPOINT || !fn ? name : fn + 1);
	return ps->p[match].pair_stem ? 0 : -ENOMEM;
}

int modes_definitions(const struct kpt_opts *env, struct sysinfo *si, struct probeset *ps,
		      char *msg, size_t msglen)
{
	struct deflist dl = { 0 };
	int i, err, base = ps->n;
	char where[64];

	msg[0] = 0;
	err = mode_texts(env, si, &dl, msg, msglen);
	for (i = 0; !err && i < dl.n; i++) {
		snprintf(where, sizeof(where), "definition %d", i + 1);
		err = probeset_add(ps, dl.text[i], dl.n > 1 || env->def_file ? where : NULL,
				   PROBE_USER);
		if (err)
			msg[0] = 0;	/* probeset_add() said why */
	}
	/* latency's pairs: each of its texts one probe, none a removal */
	for (i = 0; !err && ps->n == base + dl.n && i < dl.n; i++) {
		if (env->nfrom) {
			pair_role(ps, base, i, i < env->nfrom);
			continue;
		}
		if (dl.peer[i] < 0)
			continue;
		ps->p[base + i].lat = dl.peer[i] > i ? PROBE_LAT_START : PROBE_LAT_END;
		ps->p[base + i].lat_peer = base + dl.peer[i];
	}
	deflist_free(&dl);
	return err;
}

/*
 * latency FUNC ARGS --by ARG: keyed by an argument of its entry, which its
 * return does not have, a function is timed as --from/--to are, by the
 * thread, its entry carrying the keys to its return (a recursive call
 * replaces its caller's start, and is counted).
 */
static bool by_entry_args(const struct kpt_opts *env, struct probeset *ps)
{
	struct keylist kl;
	int i, k;

	if (env->mode != MODE_LATENCY || env->nfrom || !env->by)
		return false;
	keylist_parse(env->by, &kl);
	for (k = 0; k < kl.n; k++)
		for (i = 0; i < ps->nuser; i++)
			if (ps->p[i].lat == PROBE_LAT_START && ps->p[i].lat_peer >= 0 &&
			    ev_arg_index(&ps->evs[i], kl.w[k]) >= 0 &&
			    ev_arg_index(&ps->evs[ps->p[i].lat_peer], kl.w[k]) < 0)
				return true;
	return false;
}

/* A function's pair timed as --from/--to (by_entry_args()): its group, the entry. */
static void function_pairs(struct probeset *ps)
{
	int i;

	for (i = 0; i < ps->nuser; i++) {
		struct probe *pr = &ps->p[i];

		if (pr->lat == PROBE_LAT_START)
			pr->lat_peer = i;
		if (pr->lat != PROBE_LAT_NONE) {
			ps->evs[i].pair_group = pr->lat_peer + 1;
			ps->evs[i].pair_start = pr->lat == PROBE_LAT_START;
		}
	}
}

static enum kpt_action latency_action(bool pairs, const struct probe *pr)
{
	if (pairs)
		return pr->lat == PROBE_LAT_END ? KPT_ACT_PAIR_END : KPT_ACT_PAIR_START;
	return pr->lat == PROBE_LAT_END ? KPT_ACT_LAT_END : KPT_ACT_LAT_START;
}

/* A start or end of another stem than stem (NULL: any), the first; or -1. */
static int pair_find(const struct probeset *ps, enum probe_lat lat, const char *stem)
{
	int j;

	for (j = 0; j < ps->nuser; j++)
		if (ps->p[j].lat == lat && (!stem || !strcmp(ps->p[j].pair_stem, stem)))
			return j;
	return -1;
}

/*
 * latency --from/--to: each start's and end's group, the index of the
 * group's first start, in lat_peer (kpt_pair_key.probe: any end of a group
 * finds the time of any of its starts). One group of all, unless globs on
 * both sides pair their matches by name: a start and an end whose globs'
 * wildcards matched the same text (sys_enter_read, sys_exit_read: "read").
 */
static int pair_groups(struct probeset *ps, char *msg, size_t msglen, int *which)
{
	bool named_from = false, named_to = false, named;
	int i, rep;

	for (i = 0; i < ps->nuser; i++) {
		named_from |= ps->p[i].pair_stem && ps->p[i].lat == PROBE_LAT_START;
		named_to |= ps->p[i].pair_stem && ps->p[i].lat == PROBE_LAT_END;
	}
	named = named_from && named_to;
	for (i = 0; i < ps->nuser; i++) {
		struct probe *pr = &ps->p[i];
		const char *side = pr->lat == PROBE_LAT_START ? "--from" : "--to";

		if (pr->lat == PROBE_LAT_NONE)
			continue;
		*which = i;
		if (named && !pr->pair_stem) {
			snprintf(msg, msglen, "%s %s/%s: globs on both --from and --to pair their "
				 "matches by name, and this is no glob's match (time it in a "
				 "run of its own)", side, pr->spec.group, pr->spec.event);
			return -EINVAL;
		}
		rep = pair_find(ps, PROBE_LAT_START, named ? pr->pair_stem : NULL);
		if (rep < 0 && !named) {
			snprintf(msg, msglen, "--to %s/%s: no --from is left to pair it with (each "
				 "was skipped, see above)", pr->spec.group, pr->spec.event);
			return -EINVAL;
		}
		if (rep < 0 || (named && pair_find(ps, PROBE_LAT_END, pr->pair_stem) < 0)) {
			snprintf(msg, msglen, "%s %s/%s: no %s match pairs with it: globs on both "
				 "sides pair by what their wildcards matched, here '%s'", side,
				 pr->spec.group, pr->spec.event,
				 pr->lat == PROBE_LAT_START ? "--to" : "--from", pr->pair_stem);
			return -EINVAL;
		}
		pr->lat_peer = rep;
		ps->evs[i].pair_group = rep + 1;
		ps->evs[i].pair_start = pr->lat == PROBE_LAT_START;
	}
	return 0;
}

/*
 * --key A[=B],...: the pair's key, --from's argument A and --to's B (B
 * defaults to A); each a scalar argument of its definition, or cpu (an
 * argument so named first). None: the thread.
 */
static int pair_keys(const char *spec, bool from, const struct ev_desc *ev, struct kpt_agg *g,
		     char *msg, size_t msglen)
{
	struct keylist kl;
	char *tok, *eq, *name;
	int a, k;

	if (!spec)
		return 0;
	keylist_parse(spec, &kl);
	for (k = 0; k < kl.n; k++) {
		tok = kl.w[k];
		eq = strchr(tok, '=');
		if (eq)
			*eq = '\0';
		name = from || !eq ? tok : eq + 1;
		if (g->npair == KPT_PAIR_KEYS) {
			snprintf(msg, msglen, "--key %s: at most %d arguments", spec, KPT_PAIR_KEYS);
			return -EINVAL;
		}
		a = ev_arg_index(ev, name);
		if (a < 0 && !strcmp(name, "cpu")) {
			g->pair_argi[g->npair++] = KPT_PAIR_CPU;
			continue;
		}
		if (a < 0 || ev->args[a].count || spec_type_is_string(ev->args[a].type)) {
			snprintf(msg, msglen, "--key %s: %s %s/%s has no scalar argument '%s' (name "
				 "it in the definition, e.g. '... %s')", spec, from ? "--from" : "--to",
				 ev->group, ev->event, name, name);
			return -EINVAL;
		}
		g->pair_argi[g->npair++] = (uint8_t)a;
	}
	return 0;
}

/*
 * A pair whose end's --by names fields of its starts: each start of its
 * group makes those keys, in the end's layout, by name from its own
 * fields, and keeps them with its time; the end fills in the rest
 * (kpt_pair()). The ends of a group must agree on that layout.
 */
static int pair_carry_keys(const struct ev_desc *evs, int e, struct kpt_agg *start, int s,
			   const struct kpt_agg *end, char *msg, size_t msglen)
{
	uint8_t peer = (uint8_t)(~end->key_peer & ((1u << end->nkeys) - 1));
	int k, a;

	if (start->nkeys && (start->nkeys != end->nkeys || start->key_peer != peer ||
			     memcmp(start->key_kind, end->key_kind, sizeof(end->key_kind)))) {
		snprintf(msg, msglen, "--by %s: ends of one pair make different keys",
			 evs[e].event);
		return -EINVAL;
	}
	start->nkeys = end->nkeys;
	memcpy(start->key_kind, end->key_kind, sizeof(start->key_kind));
	start->key_peer = peer;
	start->stack_keys = 0;
	for (k = 0; k < end->nkeys; k++) {
		const char *name;

		if (!(end->key_peer & (1u << k)))
			continue;
		/* the start's stack: taken at the start, as its key word */
		if (agg_key_is_stack(end->key_kind[k])) {
			start->stack_keys |= end->key_kind[k] == KPT_K_KSTACK ? KPT_SK_KSTACK
									    : KPT_SK_USTACK;
			continue;
		}
		name = agg_key_arg(&evs[e], end, k)->name;
		a = ev_arg_index(&evs[s], name);
		if (a < 0) {
			snprintf(msg, msglen, "--by %s: --from %s/%s has no argument '%s' (name "
				 "it in each --from)", name, evs[s].group, evs[s].event, name);
			return -EINVAL;
		}
		start->key_argi[k] = (uint8_t)a;
	}
	return 0;
}

/*
 * In a table, an unnamed BTF chain is named after its last member
 * ("f_flags" for file->f_flags), as the kernel names a bare $argN after its
 * parameter, where ftrace's default is argN: a key or field then says what
 * it is. Not when that name is taken (an argument's or a builtin key's).
 * Streams keep argN, byte for byte the kernel's kprobe_events.
 */
static void name_chains(struct ev_desc *ev)
{
	int i;

	for (i = 0; i < ev->nargs; i++) {
		struct ev_arg *ea = &ev->args[i];
		const char *last = ea->spec ? spec_chain_last(ea->spec) : NULL;

		if (!last || spec_arg_named(ea->spec) || strlen(last) >= sizeof(ea->name) ||
		    ev_arg_index(ev, last) >= 0 || agg_builtin_key(last) || !strcmp(last, "probe"))
			continue;
		snprintf(ea->name, sizeof(ea->name), "%s", last);
	}
}

int modes_actions(const struct kpt_opts *env, struct probeset *ps, char *msg, size_t msglen,
		  int *which)
{
	const struct ev_desc *evs = ps->evs;
	struct kpt_probe_entry *ents = ps->ents;
	uint32_t *nbuckets = &ps->nbuckets;
	struct agg_opts o = {
		.kind = env->linear ? KPT_H_LINEAR : KPT_H_LOG2,
		.field = env->field,
		.lin_min = env->lin_min,
		.lin_max = env->lin_max,
		.lin_step = env->lin_step,
		.by = env->by,
		.unit = env->unit,
		.top = env->top,
		.pmu_n = pmu_count(env->pmu),
		.stat_field = env->stat_field,
		.stats = env->stats,
		.sort_by = env->sort_by,
		.evs = evs,
	};
	bool kmalloc = env->mode == MODE_HIST && env->ndefs == 1 &&
		       !strcmp(env->defs[0], "kmalloc");
	int i, first = -1, err = 0;
	bool pairs = env->nfrom > 0;

	*nbuckets = 0;
	if (kmalloc && !o.field)
		o.field = env->slack ? "bytes_alloc" : "bytes_req";
	if (env->slack)
		o.sub_field = "bytes_req";
	for (i = 0; i < ps->nuser; i++)
		if (env->mode == MODE_HIST || env->mode == MODE_COUNT || env->mode == MODE_LATENCY)
			name_chains(&ps->evs[i]);
	if (env->nfrom && (err = pair_groups(ps, msg, msglen, which)))
		return err;
	if (!env->nfrom && (pairs = by_entry_args(env, ps)))
		function_pairs(ps);
	for (i = 0; i < ps->nuser && !err; i++) {
		const struct probe *pr = &ps->p[i];

		*which = i;
		switch (env->mode) {
		case MODE_HIST:
			err = agg_setup(&o, KPT_ACT_HIST, &evs[i], 0, &ents[i].agg, nbuckets, msg,
					msglen);
			/* the kmalloc functions of a kernel make one histogram */
			if (!err && kmalloc && first >= 0) {
				*nbuckets -= ents[i].agg.nbuckets;
				ents[i].agg.hist_base = ents[first].agg.hist_base;
				ents[i].agg.group = first;
			} else if (!err && kmalloc) {
				first = i;
			}
			break;
		case MODE_COUNT:
			err = agg_setup(&o, KPT_ACT_COUNT, &evs[i], 0, &ents[i].agg, nbuckets, msg,
					msglen);
			break;
		case MODE_LATENCY:
			/* latency_pair() linked them: entry, return; or --from, --to */
			err = agg_setup(&o, latency_action(pairs, pr), &evs[i], pr->lat_peer,
					&ents[i].agg, nbuckets, msg, msglen);
			if (!err && env->nfrom)
				err = pair_keys(env->pair_key, pr->lat == PROBE_LAT_START,
						&evs[i], &ents[i].agg, msg, msglen);
			/* keyed by what it acts on, an end is any task's: a wakeup's
			 * or a completion's task is not the sleeper's or the issuer's */
			if (!err && env->nfrom && pr->lat == PROBE_LAT_END && ents[i].agg.npair &&
			    (env->pid || env->command || env->tid || env->comm || env->cgroup ||
			     env->ncontainers))
				ents[i].flags |= KPT_PF_ANY_TASK;
			break;
		case MODE_WHY:
			/* why_defs(): the root's two probes, then the --under functions' */
			ents[i].agg.action = KPT_ACT_WHY;
			ents[i].agg.why_role = !strcmp(evs[i].event, "root") ||
					       !strcmp(evs[i].event, "root_ret") ?
					       KPT_WHY_ROOT : KPT_WHY_UNDER;
			break;
		default:
			ents[i].agg.action = KPT_ACT_PRINT;
			break;
		}
	}
	for (i = 0; i < ps->nuser && !err; i++) {
		if (ents[i].agg.action != KPT_ACT_PAIR_END || !ents[i].agg.key_peer)
			continue;
		*which = i;
		for (int s = 0; s < ps->nuser && !err; s++)
			if (ents[s].agg.action == KPT_ACT_PAIR_START &&
			    ents[s].agg.lat_peer == ents[i].agg.lat_peer)
				err = pair_carry_keys(evs, i, &ents[s].agg, s, &ents[i].agg, msg,
						      msglen);
	}
	return err;
}
