// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* kptrace list: traceable functions with BTF prototypes, tracepoints with fields. */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "cmd/list.h"
#include "prepare/resolve.h"
#include "sys/container.h"
#include "sys/tracepoint.h"
#include "sys/usdt.h"
#include "util/json.h"

/* ---- BTF: FUNCs by name, printed as C ---- */

struct fidx {
	const char *name;
	int id;
};

struct list_btf {
	const struct btf *btf;
	struct btf_dump *dump;
	struct fidx *funcs;	/* sorted by name, then id */
	int nfuncs;
	char *buf;		/* the printer's output */
	size_t len, cap;
	int err;
};

static int fidx_cmp(const void *a, const void *b)
{
	const struct fidx *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->id > y->id) - (x->id < y->id);
}

static void dump_printf(void *ctx, const char *fmt, va_list args)
{
	struct list_btf *lb = ctx;
	va_list ap;
	int n;

	va_copy(ap, args);
	n = vsnprintf(lb->buf + lb->len, lb->cap - lb->len, fmt, ap);
	va_end(ap);
	if (n < 0) {
		lb->err = -EINVAL;
		return;
	}
	if ((size_t)n >= lb->cap - lb->len) {
		size_t cap = (lb->len + n + 1) * 2;
		char *nb = realloc(lb->buf, cap);

		if (!nb) {
			lb->err = -ENOMEM;
			return;
		}
		lb->buf = nb;
		lb->cap = cap;
		vsnprintf(lb->buf + lb->len, lb->cap - lb->len, fmt, args);
	}
	lb->len += n;
}

struct list_btf *list_btf_new(const struct btf *btf)
{
	struct list_btf *lb = calloc(1, sizeof(*lb));
	/* module BTF is split: its own types start after the base's */
	const struct btf *base = btf__base_btf(btf);
	int id, start = base ? (int)btf__type_cnt(base) : 1, end = (int)btf__type_cnt(btf);

	if (!lb)
		return NULL;
	lb->btf = btf;
	lb->cap = 256;
	lb->buf = malloc(lb->cap);
	lb->funcs = calloc(end > start ? end - start : 1, sizeof(*lb->funcs));
	lb->dump = btf_dump__new(btf, dump_printf, lb, NULL);
	if (!lb->buf || !lb->funcs || !lb->dump) {
		list_btf_free(lb);
		return NULL;
	}
	for (id = start; id < end; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		if (!btf_is_func(t))
			continue;
		lb->funcs[lb->nfuncs].name = btf__name_by_offset(btf, t->name_off);
		lb->funcs[lb->nfuncs++].id = id;
	}
	qsort(lb->funcs, lb->nfuncs, sizeof(*lb->funcs), fidx_cmp);
	return lb;
}

void list_btf_free(struct list_btf *lb)
{
	if (!lb)
		return;
	btf_dump__free(lb->dump);
	free(lb->funcs);
	free(lb->buf);
	free(lb);
}

int list_btf_find(const struct list_btf *lb, const char *name)
{
	int lo = 0, hi = lb->nfuncs;

	/* the first of equal names: the lowest id */
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (strcmp(lb->funcs[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < lb->nfuncs && !strcmp(lb->funcs[lo].name, name))
		return lb->funcs[lo].id;
	return -ENOENT;
}

/* The printer's output on one line (an anonymous struct prints its body). */
static int emit(struct list_btf *lb, int type_id, const char *name, char *buf, size_t len)
{
	LIBBPF_OPTS(btf_dump_emit_type_decl_opts, o, .field_name = name);
	size_t i, j;
	int err;

	lb->len = 0;
	lb->err = 0;
	lb->buf[0] = 0;
	err = btf_dump__emit_type_decl(lb->dump, type_id, &o);
	if (err || lb->err)
		return err ? err : lb->err;
	for (i = j = 0; i < lb->len; i++) {
		char c = lb->buf[i];
		size_t k;

		if (c == '\n' || c == '\t') {
			if (j && lb->buf[j - 1] != ' ')
				lb->buf[j++] = ' ';
			continue;
		}
		/* btf_dump tells apart two types of one name (two different
		 * struct walk_control in vmlinux) as walk_control___2: for a
		 * reader the name is the one the source has */
		if (c == '_' && !strncmp(lb->buf + i, "___", 3) &&
		    isdigit((unsigned char)lb->buf[i + 3])) {
			for (k = i + 3; isdigit((unsigned char)lb->buf[k]); k++)
				;
			if (!isalnum((unsigned char)lb->buf[k]) && lb->buf[k] != '_') {
				i = k - 1;
				continue;
			}
		}
		lb->buf[j++] = c;
	}
	lb->buf[j] = 0;
	if (len)
		snprintf(buf, len, "%s", lb->buf);
	return (int)j;
}

int list_btf_proto(struct list_btf *lb, int func_id, const char *name, char *buf, size_t len)
{
	const struct btf_type *t = btf__type_by_id(lb->btf, func_id), *fp;
	size_t nl = strlen(name);
	char *at;
	int n;

	if (!t || !btf_is_func(t))
		return -EINVAL;
	fp = btf__type_by_id(lb->btf, t->type);
	n = emit(lb, t->type, name, NULL, 0);
	if (n < 0)
		return n;
	/* No parameters is C's "(void)"; libbpf before 1.2 prints "()". */
	if (fp && btf_is_func_proto(fp) && !btf_vlen(fp)) {
		for (at = strstr(lb->buf, name); at; at = strstr(at + 1, name)) {
			if (strncmp(at + nl, "()", 2))
				continue;
			if ((size_t)n + 5 > lb->cap) {
				size_t off = at - lb->buf;
				char *nb = realloc(lb->buf, n + 5);

				if (!nb)
					return -ENOMEM;
				lb->buf = nb;
				lb->cap = n + 5;
				at = nb + off;
			}
			memmove(at + nl + 5, at + nl + 1, n - (at + nl + 1 - lb->buf) + 1);
			memcpy(at + nl + 1, "void", 4);
			n += 4;
			break;
		}
	}
	if (len)
		snprintf(buf, len, "%s", lb->buf);
	return n;
}

int list_btf_type(struct list_btf *lb, int type_id, char *buf, size_t len)
{
	if (!type_id) {
		if (len)
			snprintf(buf, len, "void");
		return 4;
	}
	return emit(lb, type_id, "", buf, len);
}

/* ---- the glob ---- */

void list_split_glob(const char *glob, char *buf, const char **fmod, const char **ffunc,
		     const char **tsys, const char **tev)
{
	char *sep;

	strcpy(buf, glob && *glob ? glob : "*");
	*fmod = NULL;
	*ffunc = buf;
	*tsys = "*";
	*tev = buf;
	sep = strchr(buf, '/');
	if (sep) {
		*sep = 0;
		*ffunc = NULL;
		*tsys = buf;
		*tev = sep + 1;
		return;
	}
	sep = strchr(buf, ':');
	if (sep) {
		*sep = 0;
		*fmod = buf;
		*ffunc = sep + 1;
		*tsys = buf;
		*tev = sep + 1;
	}
}

/* ---- output ---- */

struct fentry {
	char *full;		/* "MOD:NAME" or "NAME", from sysinfo_glob_functions */
	const char *name;	/* into full */
	char *mod;		/* NULL for the core kernel; a copy */
};

static int fentry_cmp(const void *a, const void *b)
{
	const struct fentry *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	if (!x->mod || !y->mod)
		return !!x->mod - !!y->mod;
	return strcmp(x->mod, y->mod);
}

/* Module BTF, loaded once per module; a NULL lb: the module has none. */
struct modbtf {
	char *mod;
	struct btf *btf;
	struct list_btf *lb;
};

struct lister {
	FILE *out;
	bool json;
	struct sysinfo *si;
	struct btf *vmlinux;
	struct list_btf *core;
	struct modbtf *mods;
	int nmods;
	char *proto;
	size_t protocap;
};

static struct list_btf *btf_for(struct lister *l, const char *mod)
{
	struct modbtf *nm;
	int i;

	if (!mod)
		return l->core;
	for (i = 0; i < l->nmods; i++)
		if (!strcmp(l->mods[i].mod, mod))
			return l->mods[i].lb;
	nm = realloc(l->mods, (l->nmods + 1) * sizeof(*nm));
	if (!nm)
		return NULL;
	l->mods = nm;
	nm = &l->mods[l->nmods];
	memset(nm, 0, sizeof(*nm));
	nm->mod = strdup(mod);
	if (!nm->mod)
		return NULL;
	l->nmods++;
	if (l->vmlinux)
		nm->btf = sysinfo_module_btf(l->si, mod);
	if (nm->btf)
		nm->lb = list_btf_new(nm->btf);
	return nm->lb;
}

/* Prototype of id into l->proto, grown as needed; 0 or -errno. */
static int proto_of(struct lister *l, struct list_btf *lb, int id, const char *name)
{
	int n = list_btf_proto(lb, id, name, l->proto, l->protocap);

	if (n >= 0 && (size_t)n >= l->protocap) {
		char *np = realloc(l->proto, n + 1);

		if (!np)
			return -ENOMEM;
		l->proto = np;
		l->protocap = n + 1;
		n = list_btf_proto(lb, id, name, l->proto, l->protocap);
	}
	return n < 0 ? n : 0;
}

static void print_function(struct lister *l, const struct fentry *e, int *nobtf)
{
	struct list_btf *lb = btf_for(l, e->mod);
	int id = lb ? list_btf_find(lb, e->name) : -ENOENT;
	bool ok = id > 0 && !proto_of(l, lb, id, e->name);

	if (!ok)
		(*nobtf)++;
	if (!l->json) {
		if (ok)
			fputs(l->proto, l->out);
		else
			fputs(e->name, l->out);
		if (e->mod)
			fprintf(l->out, " [%s]", e->mod);
		fputs(ok ? "\n" : " (no BTF)\n", l->out);
		return;
	}
	fputs("{\"type\":\"function\",\"name\":", l->out);
	json_fput_str(l->out, e->name, SIZE_MAX);
	fputs(",\"module\":", l->out);
	if (e->mod)
		json_fput_str(l->out, e->mod, SIZE_MAX);
	else
		fputs("null", l->out);
	if (!ok) {
		fputs(",\"btf\":false}\n", l->out);
		return;
	}
	fputs(",\"btf\":true,\"proto\":", l->out);
	json_fput_str(l->out, l->proto, SIZE_MAX);
	{
		const struct btf *btf = l->vmlinux;
		const struct btf_type *fn, *fp;
		const struct btf_param *p;
		char ty[512];
		int i;

		btf = e->mod ? lb->btf : btf;
		fn = btf__type_by_id(btf, id);
		fp = btf__type_by_id(btf, fn->type);
		list_btf_type(lb, fp->type, ty, sizeof(ty));
		fputs(",\"return\":", l->out);
		json_fput_str(l->out, ty, SIZE_MAX);
		fputs(",\"params\":[", l->out);
		p = btf_params(fp);
		for (i = 0; i < btf_vlen(fp); i++, p++) {
			if (i == btf_vlen(fp) - 1 && !p->type) {
				fputs(i ? ",{\"type\":\"...\"}" : "{\"type\":\"...\"}", l->out);
				break;
			}
			list_btf_type(lb, p->type, ty, sizeof(ty));
			fputs(i ? ",{\"name\":" : "{\"name\":", l->out);
			json_fput_str(l->out, btf__name_by_offset(btf, p->name_off), SIZE_MAX);
			fputs(",\"type\":", l->out);
			json_fput_str(l->out, ty, SIZE_MAX);
			fputc('}', l->out);
		}
		fputs("]}\n", l->out);
	}
}

struct tpentry {
	char *group, *event;
};

static int tpentry_cmp(const void *a, const void *b)
{
	const struct tpentry *x = a, *y = b;
	int c = strcmp(x->group, y->group);

	return c ? c : strcmp(x->event, y->event);
}

static void print_tracepoint(struct lister *l, const struct tpentry *t)
{
	struct tp_format fmt;
	char msg[256];
	int i, err;

	err = tp_format_load(t->group, t->event, NULL, &fmt, msg, sizeof(msg));
	if (!l->json) {
		fprintf(l->out, "%s/%s ", t->group, t->event);
		if (err) {
			fprintf(l->out, "(format unreadable: %s)\n", strerror(-err));
			return;
		}
		fputc('{', l->out);
		for (i = 0; i < fmt.nfields; i++)
			fprintf(l->out, " %s;", fmt.fields[i].decl);
		fputs(" }\n", l->out);
		tp_format_free(&fmt);
		return;
	}
	fputs("{\"type\":\"tracepoint\",\"group\":", l->out);
	json_fput_str(l->out, t->group, SIZE_MAX);
	fputs(",\"event\":", l->out);
	json_fput_str(l->out, t->event, SIZE_MAX);
	if (err) {
		fputs(",\"error\":", l->out);
		json_fput_str(l->out, strerror(-err), SIZE_MAX);
		fputs("}\n", l->out);
		return;
	}
	fprintf(l->out, ",\"id\":%d,\"fields\":[", fmt.id);
	for (i = 0; i < fmt.nfields; i++) {
		const struct tp_field *f = &fmt.fields[i];

		fputs(i ? ",{\"name\":" : "{\"name\":", l->out);
		json_fput_str(l->out, f->name, SIZE_MAX);
		fputs(",\"decl\":", l->out);
		json_fput_str(l->out, f->decl, SIZE_MAX);
		fputs(",\"type\":", l->out);
		json_fput_str(l->out, f->type, SIZE_MAX);
		fprintf(l->out, ",\"offset\":%u,\"size\":%u,\"signed\":%s}", f->offset, f->size,
			f->is_signed ? "true" : "false");
	}
	fputs("]}\n", l->out);
	tp_format_free(&fmt);
}

/* Tracepoints from available_events ("group:event" lines), matching the globs. */
static int load_tracepoints(const char *gsys, const char *gev, struct tpentry **out, int *n)
{
	const char *tfs = tp_tracefs();
	char path[256], line[512];
	int cap = 0;
	FILE *f;

	*out = NULL;
	*n = 0;
	if (!tfs)
		return -ENOENT;
	snprintf(path, sizeof(path), "%s/available_events", tfs);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *ev = strchr(line, ':');
		struct tpentry *nt;

		line[strcspn(line, "\n")] = 0;
		if (!ev)
			continue;
		*ev++ = 0;
		if (fnmatch(gsys, line, 0) || fnmatch(gev, ev, 0))
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 256;
			nt = realloc(*out, cap * sizeof(*nt));
			if (!nt) {
				fclose(f);
				return -ENOMEM;
			}
			*out = nt;
		}
		(*out)[*n].group = strdup(line);
		(*out)[*n].event = strdup(ev);
		if (!(*out)[*n].group || !(*out)[*n].event) {
			free((*out)[*n].group);
			free((*out)[*n].event);
			fclose(f);
			return -ENOMEM;
		}
		(*n)++;
	}
	fclose(f);
	qsort(*out, *n, sizeof(**out), tpentry_cmp);
	return 0;
}

/* One USDT probe: where, its semaphore, each argument as read and as the note says it. */
static void print_usdt(FILE *f, bool json, const struct usdt_probe *u)
{
	char fetch[64], *ty;
	int j;

	if (!json) {
		fprintf(f, "%s:%s at 0x%" PRIx64 " (file offset 0x%" PRIx64 "), ", u->provider,
			u->name, u->pc, u->off);
		if (u->sema)
			fprintf(f, "semaphore 0x%" PRIx64 " (file offset 0x%" PRIx64 ")", u->sema,
				u->sema_off);
		else
			fprintf(f, "no semaphore");
		for (j = 0; j < u->nargs; j++) {
			usdt_arg_fetch(&u->arg[j], fetch, sizeof(fetch));
			fprintf(f, "%s arg%d=%s", j ? "" : ":", j + 1, fetch);
		}
		fprintf(f, u->bad ? " (%s)\n" : "\n", u->bad);
		return;
	}
	fprintf(f, "{\"type\":\"usdt\",\"provider\":");
	json_fput_str(f, u->provider, SIZE_MAX);
	fprintf(f, ",\"name\":");
	json_fput_str(f, u->name, SIZE_MAX);
	fprintf(f, ",\"address\":%" PRIu64 ",\"offset\":%" PRIu64 ",\"semaphore\":", u->pc,
		u->off);
	if (u->sema)
		fprintf(f, "%" PRIu64 ",\"semaphore_offset\":%" PRIu64, u->sema, u->sema_off);
	else
		fprintf(f, "null,\"semaphore_offset\":null");
	fprintf(f, ",\"note\":");
	json_fput_str(f, u->args, SIZE_MAX);
	fprintf(f, ",\"args\":[");
	for (j = 0; j < u->nargs; j++) {
		usdt_arg_fetch(&u->arg[j], fetch, sizeof(fetch));
		ty = strrchr(fetch, ':');
		*ty++ = '\0';
		fprintf(f, "%s{\"name\":\"arg%d\",\"fetch\":", j ? "," : "", j + 1);
		json_fput_str(f, fetch, SIZE_MAX);
		fprintf(f, ",\"type\":\"%s\"}", ty);
	}
	fprintf(f, "],\"error\":");
	if (u->bad)
		json_fput_str(f, u->bad, SIZE_MAX);
	else
		fprintf(f, "null");
	fprintf(f, "}\n");
}

/*
 * "u:PATH[:PROVIDER:NAME]": PATH's USDT probes, those matching the globs.
 * PATH is the whole text when a file has that name, else what precedes the
 * last two ':'.
 */
static int list_usdt(const char *spec, bool json)
{
	const char *ctr = spec_container_colon(spec, spec + strlen(spec));
	const char *prov = "*", *name = "*";
	char *path, *c2, *c1, msg[512], root[64] = "", who[128];
	struct usdt_probe *u = NULL;
	int n = 0, k, shown = 0, err;

	if (ctr) {
		snprintf(who, sizeof(who), "%.*s", (int)(ctr - spec), spec);
		err = ctr_proc_root(who, root, sizeof(root), msg, sizeof(msg));
		if (err) {
			fprintf(stderr, "kptrace: error: %s\n", msg);
			return err;
		}
		spec = ctr + 1;
	}
	if (asprintf(&path, "%s%s", root, spec) < 0)
		return -ENOMEM;
	if (access(path, F_OK) && (c2 = strrchr(path, ':'))) {
		*c2 = '\0';
		c1 = strrchr(path, ':');
		if (c1) {
			*c1 = '\0';
			prov = c1 + 1;
			name = c2 + 1;
		} else {
			*c2 = ':';
		}
	}
	err = usdt_read(path, &u, &n, msg, sizeof(msg));
	if (err) {
		fprintf(stderr, "kptrace: error: %s\n", msg);
		goto out;
	}
	for (k = 0; k < n; k++)
		if (!fnmatch(prov, u[k].provider, 0) && !fnmatch(name, u[k].name, 0)) {
			print_usdt(stdout, json, &u[k]);
			shown++;
		}
	fflush(stdout);
	fprintf(stderr, "kptrace: %d USDT probe%s of %s\n", shown, shown == 1 ? "" : "s", path);
	if (!shown) {
		fprintf(stderr, "kptrace: error: no USDT probe matches '%s:%s' in %s\n", prov, name,
			path);
		err = -ENOENT;
	}
out:
	usdt_free(u, n);
	free(path);
	return err;
}

/* list --containers: each runtime's container as the kernel's cgroups show it. */
static int list_containers(bool json)
{
	const struct ctr **cs;
	struct ctr_table *t;
	char msg[512];
	int n, i;

	t = ctr_table_new(NULL, NULL, msg, sizeof(msg));
	if (!t) {
		fprintf(stderr, "kptrace: error: list --containers: %s\n", msg);
		return -ENOENT;
	}
	n = ctr_containers(t, &cs);
	if (!json)
		printf("%-16s %-12s %-10s %-8s %s\n", "NAME", "ID", "RUNTIME", "PID", "CGROUP");
	for (i = 0; i < n; i++) {
		const struct ctr *c = cs[i];

		if (!json) {
			printf("%-16s %-12.12s %-10s %-8" PRIu32 " %s\n", c->name, c->id, c->runtime,
			       c->pid, c->path);
			continue;
		}
		printf("{\"name\":");
		json_fput_str(stdout, c->name, SIZE_MAX);
		printf(",\"id\":");
		json_fput_str(stdout, c->id, SIZE_MAX);
		printf(",\"runtime\":\"%s\",\"pid\":%" PRIu32 ",\"cgroup\":", c->runtime, c->pid);
		json_fput_str(stdout, c->path, SIZE_MAX);
		printf(",\"cgroup_id\":%" PRIu64 ",\"mntns\":%" PRIu64 ",\"pidns\":%" PRIu64,
		       c->cgid, c->mntns, c->pidns);
		if (c->pod[0]) {
			printf(",\"pod\":");
			json_fput_str(stdout, c->pod, SIZE_MAX);
		}
		printf("}\n");
	}
	fflush(stdout);
	fprintf(stderr, "kptrace: list --containers: %d container%s\n", n, n == 1 ? "" : "s");
	free(cs);
	ctr_table_free(t);
	return 0;
}

/*
 * The kernel functions matching ffunc (in modules matching fmod, if given)
 * into *fe, sorted, their names owned by *names; the BTF their prototypes
 * come from into l. 0, or a negative errno (said).
 */
static int load_functions(struct lister *l, const char *fmod, const char *ffunc, char ***names,
			  int *nnames, struct fentry **out, int *nout, int *skipped)
{
	struct sysinfo *si = l->si;
	struct fentry *fe;
	char msg[512];
	int i, nfe = 0, err;

	err = sysinfo_glob_functions(si, ffunc, names, nnames, skipped, msg, sizeof(msg));
	if (err) {
		fprintf(stderr, "kptrace: error: %s\n", msg);
		return err;
	}
	fe = *out = calloc(*nnames ? *nnames : 1, sizeof(*fe));
	if (!fe)
		return -ENOMEM;
	for (i = 0; i < *nnames; i++) {
		char *colon = strchr((*names)[i], ':');

		if (colon) {
			fe[nfe].mod = strndup((*names)[i], colon - (*names)[i]);
			fe[nfe].name = colon + 1;
		} else {
			fe[nfe].name = (*names)[i];
		}
		if (fmod && (!fe[nfe].mod || fnmatch(fmod, fe[nfe].mod, 0))) {
			free(fe[nfe].mod);
			fe[nfe].mod = NULL;
			continue;
		}
		fe[nfe++].full = (*names)[i];
	}
	*nout = nfe;
	qsort(fe, nfe, sizeof(*fe), fentry_cmp);
	if (!nfe)
		return 0;
	/* Without BTF every function is listed, as "(no BTF)". */
	if (!sysinfo_need_btf(si, msg, sizeof(msg))) {
		l->vmlinux = si->btf;
		l->core = list_btf_new(si->btf);
	} else {
		fprintf(stderr, "kptrace: warning: %s: no prototypes\n", msg);
	}
	return 0;
}

int kpt_list(const struct kpt_opts *env)
{
	const char *glob = env->ndefs ? env->defs[0] : "*";
	const char *fmod, *ffunc, *tsys, *tev;
	struct sysinfo si = { 0 };
	struct lister l = { .out = stdout, .json = env->json, .si = &si };
	struct fentry *fe = NULL;
	struct tpentry *tps = NULL;
	char **names = NULL, msg[512], *gbuf;
	int nnames = 0, nfe = 0, ntps = 0, skipped = 0, nobtf = 0, i, err = 0, tperr = 0;
	static char obuf[1 << 16];

	si.btf_path = env->btf_path;
	/* our messages say what BTF is missing; libbpf's own are for -v */
	if (!env->verbose)
		libbpf_set_print(NULL);
	if (env->btf_path && sysinfo_need_btf(&si, msg, sizeof(msg))) {
		fprintf(stderr, "kptrace: error: %s\n", msg);
		sysinfo_free(&si);
		return -EINVAL;
	}
	if (env->list_containers)
		return list_containers(env->json);
	if (!strncmp(glob, "u:", 2))
		return list_usdt(glob + 2, env->json);
	gbuf = malloc(strlen(glob) + 2);
	if (!gbuf)
		return -ENOMEM;
	list_split_glob(glob, gbuf, &fmod, &ffunc, &tsys, &tev);
	setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));

	if (ffunc) {
		err = load_functions(&l, fmod, ffunc, &names, &nnames, &fe, &nfe, &skipped);
		if (err)
			goto out;
	}
	if (tev)
		tperr = load_tracepoints(tsys, tev, &tps, &ntps);

	for (i = 0; i < nfe; i++)
		print_function(&l, &fe[i], &nobtf);
	for (i = 0; i < ntps; i++)
		print_tracepoint(&l, &tps[i]);
	fflush(stdout);

	if (!nfe && !ntps) {
		fprintf(stderr, "kptrace: error: list '%s': no traceable kernel function%s "
			"matches%s%s%s\n", glob, tev ? " or tracepoint" : "",
			skipped ? " (only blacklisted functions)" : "",
			tperr ? "; tracepoints unreadable: " : "", tperr ? strerror(-tperr) : "");
		err = -ENOENT;
		goto out;
	}
	fprintf(stderr, "kptrace: list '%s': ", glob);
	if (ffunc) {
		fprintf(stderr, "%d function%s (%d without BTF", nfe, nfe == 1 ? "" : "s", nobtf);
		if (skipped)
			fprintf(stderr, ", %d blacklisted ones left out", skipped);
		fputs(tev ? "), " : ")\n", stderr);
	}
	if (tev)
		fprintf(stderr, "%d tracepoint%s\n", ntps, ntps == 1 ? "" : "s");
	if (tev && tperr)
		fprintf(stderr, "kptrace: warning: tracepoints not listed: %s\n", strerror(-tperr));
out:
	fflush(stdout);
	for (i = 0; i < nfe; i++)
		free(fe[i].mod);
	free(fe);
	for (i = 0; i < nnames; i++)
		free(names[i]);
	free(names);
	for (i = 0; i < ntps; i++) {
		free(tps[i].group);
		free(tps[i].event);
	}
	free(tps);
	for (i = 0; i < l.nmods; i++) {
		list_btf_free(l.mods[i].lb);
		btf__free(l.mods[i].btf);
		free(l.mods[i].mod);
	}
	free(l.mods);
	list_btf_free(l.core);
	free(l.proto);
	free(gbuf);
	sysinfo_free(&si);
	return err;
}
