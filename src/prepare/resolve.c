// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Resolve symbols, registers and uprobe targets; refuse early. */
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <fnmatch.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "prepare/resolve.h"
#include "prepare/unsafe.h"
#include "sys/btfwalk.h"
#include "sys/elf.h"
#include "sys/kbtf.h"
#include "sys/libpath.h"
#include "sys/objbtf.h"
#include "sys/tracepoint.h"
#include "util/demangle.h"
#include "util/htab.h"
#include "util/suggest.h"

#define KPROBE_PMU	"/sys/bus/event_source/devices/kprobe"
#define UPROBE_PMU	"/sys/bus/event_source/devices/uprobe"
#define BLACKLIST	"/sys/kernel/debug/kprobes/blacklist"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The kernel's NOKPROBE list: "0xstart-0xend\tsym [mod]" per line. */
static void load_blacklist(struct sysinfo *si)
{
	char line[512], name[256];
	FILE *f;
	int cap = 0;

	if (si->blacklist_read)
		return;
	si->blacklist_read = true;
	/* Needs debugfs; without it the kernel still refuses at attach time. */
	f = fopen(BLACKLIST, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char **nb;

		if (sscanf(line, "%*s %255s", name) != 1)
			continue;
		if (si->nblacklist == cap) {
			cap = cap ? cap * 2 : 512;
			nb = realloc(si->blacklist, cap * sizeof(*nb));
			if (!nb)
				break;
			si->blacklist = nb;
		}
		si->blacklist[si->nblacklist] = strdup(name);
		if (si->blacklist[si->nblacklist])
			si->nblacklist++;
	}
	fclose(f);
	if (si->blacklist)
		qsort(si->blacklist, si->nblacklist, sizeof(char *), cmp_str);
}

static bool blacklisted(const struct sysinfo *si, const char *sym)
{
	if (!si->blacklist)
		return false;
	return bsearch(&sym, si->blacklist, si->nblacklist, sizeof(char *), cmp_str) != NULL;
}

void sysinfo_free(struct sysinfo *si)
{
	int i;

	ksyms_free(si->ksyms);
	btf__free(si->btf);
	btf__free(si->regs_btf);
	for (i = 0; i < si->nblacklist; i++)
		free(si->blacklist[i]);
	free(si->blacklist);
	memset(si, 0, sizeof(*si));
}

static bool is_text(char type);

/*
 * The glob's result: names in the order found, each once (a static function's
 * name twice: kprobes take the first). A hash table makes "once" O(1):
 * '*' matches every function of the kernel (tens of thousands).
 */
struct nameset {
	char **names;
	int n, cap;
	struct htab seen;	/* the names, for "once" */
};

static int names_add(struct nameset *ns, const char *name)
{
	struct hent *e = ht_get(&ns->seen, name, strlen(name));

	if (!e)
		return -ENOMEM;
	if (e->num)
		return 0;
	if (ns->n == ns->cap) {
		char **nn;

		ns->cap = ns->cap ? ns->cap * 2 : 64;
		nn = realloc(ns->names, ns->cap * sizeof(*nn));
		if (!nn)
			return -ENOMEM;
		ns->names = nn;
	}
	ns->names[ns->n] = strdup(name);
	if (!ns->names[ns->n])
		return -ENOMEM;
	ns->n++;
	e->num = 1;
	return 0;
}

/* A glob, or a set, over available_filter_functions: its matches, the blacklisted counted. */
struct fglob {
	const struct sysinfo *si;
	const char *pattern;		/* NULL: set's names */
	const struct htab *set;
	struct nameset *ns;
	int *skipped;
};

/* name (of module mod, or NULL) in the glob, or in the set as "NAME" or "MOD:NAME". */
static bool fglob_match(const struct fglob *g, const char *name, const char *mod)
{
	char key[400], *dot;
	int n;

	if (g->pattern)
		return !fnmatch(g->pattern, name, 0);
	n = snprintf(key, sizeof(key), "%s%s%s", mod ? mod : "", mod ? ":" : "", name);
	if (n < 0 || n >= (int)sizeof(key))
		return false;
	if (ht_find(g->set, key, n))
		return true;
	/* the compiler's copies (foo.isra.0, foo.constprop.0): DWARF names them foo */
	dot = strchr(key + (mod ? strlen(mod) + 1 : 0), '.');
	return dot && ht_find(g->set, key, (size_t)(dot - key));
}

static int fglob_add(const char *name, const char *mod, void *arg)
{
	struct fglob *g = arg;
	char full[400];

	if (!fglob_match(g, name, mod))
		return 0;
	if (blacklisted(g->si, name)) {
		(*g->skipped)++;
		return 0;
	}
	if (!mod)
		return names_add(g->ns, name);
	snprintf(full, sizeof(full), "%s:%s", mod, name);
	return names_add(g->ns, full);
}

static int functions_matching(struct sysinfo *si, struct fglob *g, char ***names, int *n,
			      char *msg, size_t msglen)
{
	struct nameset ns = { 0 };
	int err;
	size_t i;

	*names = NULL;
	*n = 0;
	*g->skipped = 0;
	g->ns = &ns;
	err = sysinfo_need_ksyms(si, msg, msglen);
	if (err)
		return err;
	err = tp_each_function(si->functions_path, fglob_add, g);
	if (err != -ENOENT)
		goto out;
	err = 0;
	for (i = 0; !err && i < ksyms_count(si->ksyms); i++) {
		const struct ksym *s = ksyms_at(si->ksyms, i);

		if (!is_text(s->type) || s->module || !fglob_match(g, s->name, NULL))
			continue;
		/* the padding before each function (CONFIG_CALL_PADDING, kCFI):
		 * text symbols, not functions; ftrace does not list them */
		if (!strncmp(s->name, "__pfx_", 6) || !strncmp(s->name, "__cfi_", 6))
			continue;
		if (blacklisted(si, s->name)) {
			(*g->skipped)++;
			continue;
		}
		err = names_add(&ns, s->name);
	}
out:
	ht_free(&ns.seen, NULL);
	*names = ns.names;
	*n = ns.n;
	return err;
}

int sysinfo_glob_functions(struct sysinfo *si, const char *pattern, char ***names, int *n,
			   int *skipped, char *msg, size_t msglen)
{
	struct fglob g = { si, pattern, NULL, NULL, skipped };

	return functions_matching(si, &g, names, n, msg, msglen);
}

int sysinfo_set_functions(struct sysinfo *si, const struct htab *set, char ***names, int *n,
			  int *skipped, char *msg, size_t msglen)
{
	struct fglob g = { si, NULL, set, NULL, skipped };

	return functions_matching(si, &g, names, n, msg, msglen);
}

/* A directory's entries matching pattern that are directories holding file (NULL: any). */
static int glob_dirs(const char *dir, const char *pattern, const char *file, struct nameset *ns)
{
	char path[1024];
	struct dirent *d;
	struct stat st;
	DIR *dp;
	int err = 0;

	dp = opendir(dir);
	if (!dp)
		return -errno;
	while (!err && (d = readdir(dp))) {
		if (d->d_name[0] == '.' || fnmatch(pattern, d->d_name, 0))
			continue;
		snprintf(path, sizeof(path), "%s/%s%s%s", dir, d->d_name, file ? "/" : "",
			 file ? file : "");
		if (stat(path, &st) || (!file && !S_ISDIR(st.st_mode)))
			continue;
		err = names_add(ns, d->d_name);
	}
	closedir(dp);
	return err;
}

int sysinfo_glob_tracepoints(struct sysinfo *si, const char *subsys, const char *event,
			     char ***names, int *n, char *msg, size_t msglen)
{
	struct nameset sys = { 0 }, all = { 0 };
	char dir[512], sdir[1024], full[256];
	const char *tfs = NULL;
	int i, k, err;

	*names = NULL;
	*n = 0;
	if (!si->tp_format_dir)
		tfs = tp_tracefs();
	if (!si->tp_format_dir && !tfs)
		return tp_tracefs_missing(msg, msglen);
	if (si->tp_format_dir)
		snprintf(dir, sizeof(dir), "%s", si->tp_format_dir);
	else
		snprintf(dir, sizeof(dir), "%s/events", tfs);
	err = glob_dirs(dir, subsys, NULL, &sys);
	if (err) {
		snprintf(msg, msglen, "cannot list %s: %s", dir, strerror(-err));
		goto out;
	}
	if (sys.n)
		qsort(sys.names, sys.n, sizeof(char *), cmp_str);
	for (i = 0; !err && i < sys.n; i++) {
		struct nameset evs = { 0 };

		/* ftrace's own records (function, print...): no tracepoints, BPF
		 * cannot attach to them; available_events leaves them out too */
		if (!strcmp(sys.names[i], "ftrace"))
			continue;
		snprintf(sdir, sizeof(sdir), "%s/%s", dir, sys.names[i]);
		err = glob_dirs(sdir, event, "format", &evs);
		if (!err && evs.n)
			qsort(evs.names, evs.n, sizeof(char *), cmp_str);
		for (k = 0; !err && k < evs.n; k++) {
			snprintf(full, sizeof(full), "%s/%s", sys.names[i], evs.names[k]);
			err = names_add(&all, full);
		}
		if (err == -ENOENT || err == -EACCES)
			err = 0;	/* a subsystem gone since, or unreadable: not ours */
		for (k = 0; k < evs.n; k++)
			free(evs.names[k]);
		free(evs.names);
		ht_free(&evs.seen, NULL);
	}
	if (err)
		snprintf(msg, msglen, "cannot list the tracepoints: %s", strerror(-err));
out:
	for (i = 0; i < sys.n; i++)
		free(sys.names[i]);
	free(sys.names);
	ht_free(&sys.seen, NULL);
	ht_free(&all.seen, NULL);
	*names = all.names;
	*n = all.n;
	return err;
}

int sysinfo_drop_non_unique(const struct sysinfo *si, char **names, int *n)
{
	int i, k = 0, dropped = 0;

	for (i = 0; i < *n; i++) {
		const char *c = strchr(names[i], ':');
		char mod[128];

		if (c)
			snprintf(mod, sizeof(mod), "%.*s", (int)(c - names[i]), names[i]);
		if (ksyms_count_name(si->ksyms, c ? c + 1 : names[i], c ? mod : NULL) > 1) {
			free(names[i]);
			dropped++;
			continue;
		}
		names[k++] = names[i];
	}
	*n = k;
	return dropped;
}

/* arm64's general registers: user_pt_regs' array, named x0-x30 by ftrace */
#define ARM64_GPRS	"regs"

/* The number of elements of type id if it is an array of 8-byte words, else 0. */
static __u32 word_array_len(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(btf, btfwalk_skip_mods(btf, id));
	const struct btf_array *a;

	if (!t || !btf_is_array(t))
		return 0;
	a = btf_array(t);
	return btf__resolve_size(btf, a->type) == 8 ? a->nelems : 0;
}

int resolve_reg_offset(const struct btf *btf, const char *name)
{
	__u32 bits = 0, bitsize, type, n;
	const char *d;
	int id;

	id = btf__find_by_name_kind(btf, "kpt_regs", BTF_KIND_STRUCT);
	if (id < 0)
		return -ENOENT;
	/* xN, N in decimal without a leading zero, as arm64's regoffset_table */
	if (name[0] == 'x' && name[1] >= '0' && name[1] <= '9' && (name[1] != '0' || !name[2])) {
		for (n = 0, d = name + 1; *d >= '0' && *d <= '9' && n < 100; d++)
			n = n * 10 + (__u32)(*d - '0');
		if (*d || !btfwalk_member(btf, (__u32)id, ARM64_GPRS, &bits, &bitsize, &type) ||
		    n >= word_array_len(btf, type))
			return -ENOENT;
		return (int)(bits / 8 + n * 8);
	}
	/* a register is a word; an array (arm64's regs) is only by its xN */
	if (!btfwalk_member(btf, (__u32)id, name, &bits, &bitsize, &type) ||
	    word_array_len(btf, type))
		return -ENOENT;
	return (int)(bits / 8);
}

void resolve_reg_names(const struct btf *btf, char *buf, size_t len)
{
	const struct btf_member *m;
	const struct btf_type *t;
	size_t at = 0;
	__u32 i, n;
	int id, w;

	buf[0] = '\0';
	id = btf__find_by_name_kind(btf, "kpt_regs", BTF_KIND_STRUCT);
	t = id < 0 ? NULL : btf__type_by_id(btf, (__u32)id);
	for (i = 0; t && i < btf_vlen(t) && at < len; i++) {
		m = btf_members(t) + i;
		n = word_array_len(btf, m->type);
		if (n)
			w = snprintf(buf + at, len - at, "%s%%x0..%%x%u", at ? " " : "", n - 1);
		else
			w = snprintf(buf + at, len - at, "%s%%%s", at ? " " : "",
				     btf__name_by_offset(btf, m->name_off));
		at += w > 0 ? (size_t)w : 0;
	}
}

int resolve_arg_reg(const struct btf *btf, __u32 off)
{
	/* the calling convention's argument registers, then the return
	 * value's at KPT_DIRECT_AX (arm64's x0 is found as argument 0 first:
	 * the same word, so the same value, at an entry or a return) */
#ifdef KPT_ARCH_ARM64
	static const char *const regs[] = { "x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x0" };
#else
	static const char *const regs[] = { "di", "si", "dx", "cx", "r8", "r9", "ax" };
#endif
	_Static_assert(sizeof(regs) / sizeof(regs[0]) == KPT_DIRECT_AX + 1,
		       "the argument registers, then the return value's");
	int i;

	for (i = 0; i < (int)(sizeof(regs) / sizeof(regs[0])); i++)
		if (resolve_reg_offset(btf, regs[i]) == (int)off)
			return i;
	return -1;
}

int sysinfo_need_ksyms(struct sysinfo *si, char *msg, size_t msglen)
{
	if (si->ksyms)
		return 0;
	si->ksyms = ksyms_load(NULL);
	if (!si->ksyms) {
		snprintf(msg, msglen, "cannot read /proc/kallsyms: %s", strerror(errno));
		return -errno;
	}
	if (ksyms_hidden(si->ksyms)) {
		snprintf(msg, msglen, "kernel addresses are hidden (kptr_restrict): run as root");
		return -EPERM;
	}
	load_blacklist(si);
	si->have_kprobes = access(KPROBE_PMU, F_OK) == 0;
	return 0;
}

/* Whether p is of the form resolved without kallsyms (sysinfo.defer_ksyms):
 * a kernel function by its plain name, no module, alternative, clone or
 * offset. */
static bool resolve_deferrable(const struct spec_probe *p)
{
	return (p->kind == SPEC_KPROBE || p->kind == SPEC_KRETPROBE) && p->symbol &&
	       !p->glob && !p->module[0] && !p->offset && !strpbrk(p->symbol, "|.");
}

/*
 * p resolved without kallsyms (resolve.h): a plain name that vmlinux's BTF
 * has as a function, so that a typo, a data symbol, a clone or an assembly
 * function still goes the way of kallsyms, with its own message, before
 * anything is loaded. A few only: BTF's lookup by name is a linear search,
 * and many functions take kprobe.multi, which attaches by address.
 */
#define KPT_DEFER_MAX	8
static bool defer_kprobe(struct sysinfo *si, const struct spec_probe *p)
{
	if (!si->defer_ksyms || si->ksyms || si->ndeferred >= KPT_DEFER_MAX ||
	    !resolve_deferrable(p))
		return false;
	si->have_kprobes = access(KPROBE_PMU, F_OK) == 0;
	if (!si->have_kprobes && !si->by_trampoline)
		return false;	/* said below, as ever */
	if (!sysinfo_btf_has_func(si, p->symbol))
		return false;
	load_blacklist(si);
	si->ndeferred++;
	return true;
}

/*
 * A probe on function name the kernel refuses (its blacklist) or that can
 * hang the machine (unsafe.h): refused here, before anything is loaded;
 * under --unsafe the latter goes ahead with a note.
 */
static int refuse_site(const struct sysinfo *si, const struct spec_probe *p, const char *name,
		       struct resolved *r, char *msg, size_t msglen)
{
	bool ret = p->kind == SPEC_KRETPROBE;
	const struct unsafe_site *u;

	if (blacklisted(si, name)) {
		snprintf(msg, msglen, "%s ('%s' cannot be probed: the kernel blacklists it "
			 "(NOKPROBE_SYMBOL, see /sys/kernel/debug/kprobes/blacklist))",
			 spec_strerror(SPEC_ERR_FAIL_REG_PROBE), name);
		return -EPERM;
	}
	u = unsafe_refuses(name, ret);
	if (!u)
		return 0;
	if (si->unsafe) {
		snprintf(r->note, sizeof(r->note), "--unsafe: %s on %s can hang the machine "
			 "(kptrace --dry-run says why)", ret ? "a return probe" : "a probe", name);
		return 0;
	}
	unsafe_message(u, name, ret, msg, msglen);
	return -EPERM;
}

/*
 * " (did you mean 'F'?)" into dym, F the closest function a kprobe or fentry
 * takes by that name, of mod's or of vmlinux's when mod is NULL: not a
 * notrace, blacklisted or non-unique one, which would be refused in its
 * turn; "" when none is close.
 */
static void suggest_function(struct sysinfo *si, const char *word, const char *mod, char *dym,
			     size_t len)
{
	size_t ml = mod ? strlen(mod) : 0;
	struct suggest sg;
	char **names, why[256];
	int n, skipped, i;

	suggest_init(&sg, word);
	if (!sysinfo_glob_functions(si, "*", &names, &n, &skipped, why, sizeof(why))) {
		sysinfo_drop_non_unique(si, names, &n);
		for (i = 0; i < n; i++) {
			const char *c = strchr(names[i], ':');

			if (!mod && !c)
				suggest_add(&sg, names[i]);
			else if (mod && c && (size_t)(c - names[i]) == ml &&
				 !strncmp(names[i], mod, ml))
				suggest_add(&sg, c + 1);
		}
	}
	suggest_text(&sg, dym, len);
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/*
 * A name several symbols have (static functions of different files, or a
 * module's and the kernel's): the kernel refuses to pick one (6.7+ and its
 * stable kernels), and so do we, saying how to name one.
 */
static int refuse_non_unique(const struct sysinfo *si, const char *name, const char *mod,
			     size_t n, char *msg, size_t msglen)
{
	char where[256] = "", mods[128] = "";
	size_t i, len = 0, mlen = 0, shown = 0;

	for (i = 0; i < ksyms_count(si->ksyms); i++) {
		const struct ksym *k = ksyms_at(si->ksyms, i);

		if (strcmp(k->name, name) || (mod && (!k->module || strcmp(k->module, mod))))
			continue;
		if (k->module && !mod && !strstr(mods, k->module) && mlen < sizeof(mods) - 64)
			mlen += snprintf(mods + mlen, sizeof(mods) - mlen, "%s%s:%s",
					 mlen ? ", " : "", k->module, name);
		else if (!k->module && shown++ < 3 && len < sizeof(where) - 32)
			len += snprintf(where + len, sizeof(where) - len, "%s0x%llx",
					len ? ", " : "", (unsigned long long)k->addr);
	}
	snprintf(msg, msglen, "%s (a kprobe at %s: several functions have this name, %zu symbols%s%s: "
		 "pick one by its address from /proc/kallsyms%s%s%s%s)",
		 spec_strerror(SPEC_ERR_NON_UNIQ_SYMBOL), name, n, mod ? " in module " : "",
		 mod ? mod : "", len ? ", " : "", where, mlen ? ", or a module's as " : "", mods);
	return -EADDRNOTAVAIL;
}

int sysinfo_need_regs_btf(struct sysinfo *si, char *msg, size_t msglen)
{
	if (si->regs_btf)
		return 0;
	si->regs_btf = objbtf_load();
	if (!si->regs_btf) {
		snprintf(msg, msglen, "cannot read the BTF of kptrace's BPF object: %s",
			 strerror(errno));
		return -ENOENT;
	}
	return 0;
}

int sysinfo_need_btf(struct sysinfo *si, char *msg, size_t msglen)
{
	char kmsg[256];

	if (si->btf)
		return 0;
	/* a file is checked against kallsyms, where this user may read it */
	if (si->btf_path && !si->ksyms)
		sysinfo_need_ksyms(si, kmsg, sizeof(kmsg));
	si->btf = kbtf_load(si->btf_path, si->ksyms, msg, msglen);
	return si->btf ? 0 : -ENOENT;
}

struct btf *sysinfo_module_btf(struct sysinfo *si, const char *mod)
{
	/* a module's BTF is split on the running kernel's: its ids are not a
	 * --btf file's */
	if (si->btf_path || sysinfo_need_btf(si, NULL, 0))
		return NULL;
	return kbtf_load_module(mod, si->btf);
}

bool sysinfo_have_kprobes(struct sysinfo *si)
{
	si->have_kprobes = access(KPROBE_PMU, F_OK) == 0;
	return si->have_kprobes;
}

bool sysinfo_btf_has_func(struct sysinfo *si, const char *name)
{
	char msg[256];

	return !sysinfo_need_btf(si, msg, sizeof(msg)) &&
	       btf__find_by_name_kind(si->btf, name, BTF_KIND_FUNC) > 0;
}

static bool is_text(char type)
{
	return type == 't' || type == 'T' || type == 'w' || type == 'W';
}

/*
 * A function by name as kernels differ: "A|B" is the first of the names that
 * exists (__kmalloc|__kmalloc_noprof), and a name the compiler only left as
 * a clone (foo.isra.0, foo.constprop.0, foo.part.0) is that clone.
 */
const struct ksym *resolve_function(struct sysinfo *si, const char *names, const char *mod)
{
	char name[512];
	const char *q = names, *bar;
	const struct ksym *s;
	size_t len, i;

	while (*q) {
		bar = strchr(q, '|');
		len = bar ? (size_t)(bar - q) : strlen(q);
		if (len && len < sizeof(name)) {
			memcpy(name, q, len);
			name[len] = '\0';
			s = ksyms_by_name(si->ksyms, name, mod);
			if (s)
				return s;
			for (i = 0; i < ksyms_count(si->ksyms); i++) {
				s = ksyms_at(si->ksyms, i);
				if (is_text(s->type) && !strncmp(s->name, name, len) &&
				    s->name[len] == '.' && strncmp(s->name + len, ".cold", 5) &&
				    (!mod || (s->module && !strcmp(s->module, mod))))
					return s;
			}
		}
		if (!bar)
			break;
		q = bar + 1;
	}
	return NULL;
}

/*
 * MOD:SYM where no module MOD is loaded but a library or binary of that name
 * exists ("libc:malloc"): a user function, whose probe point is its path.
 */
static int refuse_user_module(const struct spec_probe *p, char *msg, size_t msglen)
{
	char path[512];

	if (!p->module[0] || !p->symbol || libpath_module_loaded(p->module) ||
	    libpath_find(p->module, path, sizeof(path)))
		return 0;
	snprintf(msg, msglen, "no kernel module '%s' is loaded, and %s is a %s of that name: "
		 "for its function, write its path: %s:%s", p->module, path,
		 strstr(path, ".so") ? "library" : "program", path, p->symbol);
	return -ENOENT;
}

static int resolve_kprobe(struct sysinfo *si, const struct spec_probe *p, struct resolved *r,
			  char *msg, size_t msglen, int *col)
{
	const struct ksym *s, *at;
	const char *mod, *kerr;
	size_t n;
	int err;

	*col = p->target_col;
	err = refuse_user_module(p, msg, msglen);
	if (err)
		return err;
	r->deferred = defer_kprobe(si, p);
	if (!r->deferred) {
		err = sysinfo_need_ksyms(si, msg, msglen);
		if (err)
			return err;
	}
	/* --dry-run explains what this kernel can check of it (BTF, symbols,
	 * the record) and says what it cannot */
	r->no_kprobes = !si->have_kprobes && !si->by_trampoline && si->explain;
	if (!si->have_kprobes && !si->by_trampoline && !si->explain) {
		snprintf(msg, msglen,
			 "this kernel has no kprobe support (CONFIG_KPROBES/CONFIG_KPROBE_EVENTS "
			 "off: %s is missing); trace user functions with uprobes "
			 "(p:/path/to/binary:symbol) instead, or check the definition for "
			 "another kernel with --dry-run", KPROBE_PMU);
		return -EOPNOTSUPP;
	}
	if (r->deferred) {
		/* the kernel checks the rest as it attaches (resolve.h) */
		err = refuse_site(si, p, p->symbol, r, msg, msglen);
		if (err)
			return err;
		snprintf(r->func, sizeof(r->func), "%s", p->symbol);
		return 0;
	}
	if (!p->symbol) {
		r->kaddr = p->addr;
		snprintf(r->func, sizeof(r->func), "0x%llx", (unsigned long long)p->addr);
		return 0;
	}
	if (p->module[0] && !ksyms_has_module(si->ksyms, p->module)) {
		/*
		 * kprobe_events keeps MOD:SYM for when MOD loads; so does the
		 * run (modwatch.c), which resolves it then. Only an absent
		 * module waits: a loaded one's misspelt symbol is refused below.
		 */
		err = refuse_site(si, p, p->symbol, r, msg, msglen);
		if (err)
			return err;
		r->target.await = true;
		snprintf(r->func, sizeof(r->func), "%s:%s", p->module, p->symbol);
		return 0;
	}
	mod = p->module[0] ? p->module : NULL;
	s = resolve_function(si, p->symbol, mod);
	if (!s) {
		char dym[160];

		suggest_function(si, p->symbol, mod, dym, sizeof(dym));
		/* trace_fprobe.c finds out as it registers the fprobe */
		kerr = spec_strerror(p->fprobe ? SPEC_ERR_FAIL_REG_PROBE : SPEC_ERR_BAD_PROBE_ADDR);
		if (p->module[0])
			snprintf(msg, msglen, "%s (no symbol '%s' in module '%s': is it loaded?)%s",
				 kerr, p->symbol, p->module, dym);
		else
			snprintf(msg, msglen, "%s (no symbol '%s' in this kernel: /proc/kallsyms)%s",
				 kerr, p->symbol, dym);
		return -ENOENT;
	}
	n = ksyms_count_name(si->ksyms, s->name, mod);
	if (n > 1)
		return refuse_non_unique(si, s->name, mod, n, msg, msglen);
	if (!is_text(s->type)) {
		snprintf(msg, msglen, "%s ('%s' is not a function: kallsyms type '%c')",
			 spec_strerror(SPEC_ERR_FAIL_REG_PROBE), p->symbol, s->type);
		return -EINVAL;
	}
	/*
	 * As the kernel's _kprobe_addr(): SYM+offs is an address, probed
	 * within whichever function holds it (an offset past SYM's end is in
	 * the next one); the kernel checks it is an instruction boundary.
	 */
	r->kaddr = s->addr + p->offset;
	at = p->offset ? ksyms_by_addr(si->ksyms, r->kaddr) : s;
	if (!at || !is_text(at->type)) {
		snprintf(msg, msglen, "%s (%s+0x%llx is in no function of the kernel's text)",
			 spec_strerror(SPEC_ERR_FAIL_REG_PROBE), s->name,
			 (unsigned long long)p->offset);
		return -EINVAL;
	}
	err = refuse_site(si, p, at->name, r, msg, msglen);
	if (err)
		return err;
	if (at != s)
		snprintf(r->note, sizeof(r->note), "%s+0x%llx is past the end of %s (0x%llx bytes): "
			 "it probes %s+0x%llx, as the kernel does", s->name,
			 (unsigned long long)p->offset, s->name, (unsigned long long)s->size,
			 at->name, (unsigned long long)(r->kaddr - at->addr));
	/* the name found: the clone, or the alternative this kernel has */
	if (p->module[0])
		snprintf(r->func, sizeof(r->func), "%s:%s", p->module, s->name);
	else
		snprintf(r->func, sizeof(r->func), "%s", s->name);
	return 0;
}

/* The executable PT_LOAD segment holding v: a virtual address, or a file offset. */
static int exec_segment(Elf *e, uint64_t v, bool is_vaddr, GElf_Phdr *ph)
{
	size_t i = 0, n;
	uint64_t lo;

	if (kelf_phnum(e, &n))
		return -ENOEXEC;
	while (kelf_next_load(e, &i, ph)) {
		if (!(ph->p_flags & PF_X))
			continue;
		lo = is_vaddr ? ph->p_vaddr : ph->p_offset;
		if (v >= lo && v < lo + ph->p_filesz)
			return 0;
	}
	return -ENOENT;
}

/*
 * A function's virtual address from .symtab or .dynsym; where there is none,
 * the closest function's name into sg (when given), for "did you mean".
 * sym NULL: 0 if a function starts at *vaddr.
 */
static int elf_sym_vaddr(Elf *e, const char *sym, uint64_t *vaddr, struct suggest *sg,
			 char *best, size_t bestlen)
{
	struct kelf_symtab t;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t i;

	while ((scn = kelf_next_section(e, scn, 0, &sh))) {
		if ((sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) ||
		    !kelf_symtab_of(e, scn, &sh, &t))
			continue;
		for (i = 0; i < t.n; i++) {
			const char *name;
			GElf_Sym s;

			if (!kelf_sym(&t, i, &s, &name) || GELF_ST_TYPE(s.st_info) != STT_FUNC ||
			    s.st_shndx == SHN_UNDEF)
				continue;
			if (!sym && s.st_value == *vaddr)
				return 0;
			if (sym && name && !strcmp(name, sym)) {
				*vaddr = s.st_value;
				return 0;
			}
			if (!sg || !name)
				continue;
			suggest_add(sg, name);
			/* elf_strptr's text goes with the ELF handle: keep a copy */
			if (sg->best == name) {
				snprintf(best, bestlen, "%s", name);
				sg->best = best;
			}
		}
	}
	return -ENOENT;
}

/*
 * A function by its demangled name ("shop::checkout", or whole:
 * "shop::checkout(int)"): its virtual address if exactly one address has
 * it; several (overloads) are refused with their names, -EINVAL; none is
 * -ENOENT.
 */
static int elf_sym_demangled(Elf *e, const char *sym, uint64_t *vaddr, char *msg, size_t msglen)
{
	uint64_t seen[16];
	struct kelf_symtab t;
	char *dem;
	size_t i, len = 0;
	int n = 0, k;

	/* .symtab has every function .dynsym has, and the static ones */
	if (!kelf_symtab(e, SHT_SYMTAB, &t) && !kelf_symtab(e, SHT_DYNSYM, &t))
		return -ENOENT;
	for (i = 0; i < t.n; i++) {
		const char *name;
		GElf_Sym s;

		if (!kelf_sym(&t, i, &s, &name) || GELF_ST_TYPE(s.st_info) != STT_FUNC ||
		    s.st_shndx == SHN_UNDEF || !name || !demangle_match(name, sym, false))
			continue;
		/* aliases at one address (a constructor's C1 and C2) are one function */
		for (k = 0; k < n && k < 16 && seen[k] != s.st_value; k++)
			;
		if (k < n && k < 16)
			continue;
		if (n < 16)
			seen[n] = s.st_value;
		if (!n++)
			len = snprintf(msg, msglen, "'%s' is more than one function (overloads?): ",
				       sym);
		else if (len < msglen)
			len += snprintf(msg + len, msglen - len, ", ");
		dem = demangle(name);
		if (len < msglen)
			len += snprintf(msg + len, msglen - len, "%s (%s)", dem ? dem : name, name);
		free(dem);
		*vaddr = s.st_value;
	}
	if (n > 1 && len < msglen)
		snprintf(msg + len, msglen - len, ": give one of these symbols, or a glob "
			 "('%s*') for all", sym);
	return n == 1 ? 0 : n ? -EINVAL : -ENOENT;
}

bool resolve_elf_has_function(const char *path, const char *sym)
{
	struct kelf f;
	uint64_t vaddr;
	bool ok;

	if (kelf_open(path, &f, NULL, 0))
		return false;
	ok = !elf_sym_vaddr(f.e, sym, &vaddr, NULL, NULL, 0);
	kelf_close(&f);
	return ok;
}

/* A function symbol a glob matched, for the aliases' choice. */
struct efunc {
	char *name;
	uint64_t addr;
	unsigned char bind;
	size_t order;		/* its place in the table: a name's first one is taken */
};

static int efunc_by_name(const void *a, const void *b)
{
	const struct efunc *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->order > y->order) - (x->order < y->order);
}

/* By address, and at one address the name a user knows first, as the symbolizer picks it. */
static int efunc_by_addr(const void *a, const void *b)
{
	const struct efunc *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return kelf_alias_cmp(x->name, x->bind, y->name, y->bind);
}

/* The matching FUNC symbols of e's table of type (SHT_SYMTAB or SHT_DYNSYM); -ENOENT if
 * it has none. */
static int elf_glob_table(Elf *e, GElf_Word type, const char *pattern, struct efunc **out,
			  size_t *n, int *ifuncs)
{
	struct kelf_symtab t;
	size_t i, cap = 0;

	if (!kelf_symtab(e, type, &t))
		return -ENOENT;
	for (i = 0; i < t.n; i++) {
		const char *name;
		struct efunc *nf;
		GElf_Sym s;

		if (!kelf_sym(&t, i, &s, &name) || s.st_shndx == SHN_UNDEF || !s.st_size)
			continue;
		if (GELF_ST_TYPE(s.st_info) != STT_FUNC && GELF_ST_TYPE(s.st_info) != STT_GNU_IFUNC)
			continue;
		if (!name || !*name ||
		    (fnmatch(pattern, name, 0) && !demangle_match(name, pattern, true)))
			continue;
		/* an IFUNC's symbol is its resolver, run once as the program
		 * loads: the function called is another, which .dynsym does not
		 * name (libc's strlen is __strlen_avx2 and others) */
		if (GELF_ST_TYPE(s.st_info) == STT_GNU_IFUNC) {
			(*ifuncs)++;
			continue;
		}
		if (*n == cap) {
			cap = cap ? cap * 2 : 64;
			nf = realloc(*out, cap * sizeof(*nf));
			if (!nf)
				return -ENOMEM;
			*out = nf;
		}
		(*out)[*n] = (struct efunc){ strdup(name), s.st_value, GELF_ST_BIND(s.st_info), i };
		if (!(*out)[*n].name)
			return -ENOMEM;
		(*n)++;
	}
	return 0;
}

int resolve_elf_glob_functions(const char *path, const char *pattern, char ***names, int *n,
			       int *ifuncs, char *msg, size_t msglen)
{
	struct efunc *f = NULL;
	size_t nf = 0, i, k;
	struct kelf ef;
	int err;

	*names = NULL;
	*n = 0;
	*ifuncs = 0;
	err = kelf_open(path, &ef, msg, msglen);
	if (err)
		return err;
	/* .symtab has every function .dynsym has, and the static ones */
	err = elf_glob_table(ef.e, SHT_SYMTAB, pattern, &f, &nf, ifuncs);
	if (err == -ENOENT)
		err = elf_glob_table(ef.e, SHT_DYNSYM, pattern, &f, &nf, ifuncs);
	if (err == -ENOENT)
		err = 0;	/* no symbols: nothing matches */
	kelf_close(&ef);
	if (!err && nf) {
		/* a name once (versions of one symbol, static functions of one
		 * name): the first, which resolving it by name finds */
		qsort(f, nf, sizeof(*f), efunc_by_name);
		for (i = k = 1; i < nf; i++) {
			if (!strcmp(f[i].name, f[k - 1].name))
				free(f[i].name);
			else
				f[k++] = f[i];
		}
		nf = k;
		/* one name of several at one address: a probe there fires once */
		qsort(f, nf, sizeof(*f), efunc_by_addr);
		for (i = k = 1; i < nf; i++) {
			if (f[i].addr == f[k - 1].addr)
				free(f[i].name);
			else
				f[k++] = f[i];
		}
		nf = k;
		qsort(f, nf, sizeof(*f), efunc_by_name);
		*names = calloc(nf, sizeof(char *));
		if (!*names)
			err = -ENOMEM;
	}
	for (i = 0; i < nf; i++) {
		if (*names)
			(*names)[i] = f[i].name;
		else
			free(f[i].name);
	}
	if (*names)
		*n = (int)nf;
	if (err == -ENOMEM)
		snprintf(msg, msglen, "%s", strerror(ENOMEM));
	free(f);
	return err;
}

/*
 * PATH:SYMBOL's file offset (what the kernel attaches at) and ELF virtual
 * address (what uretprobe lines print). The symbol is kptrace's own
 * grammar, so kptrace's check: a function in an executable segment.
 */
static int elf_locate(const char *path, const char *sym, uint64_t *foff, uint64_t *vaddr,
		      char *msg, size_t msglen)
{
	struct suggest sg;
	char best[256], dym[300];
	GElf_Phdr ph;
	struct kelf ef;
	int err;

	err = kelf_open(path, &ef, msg, msglen);
	if (err)
		return err;
	err = elf_sym_vaddr(ef.e, sym, vaddr, NULL, NULL, 0);
	if (err)
		err = elf_sym_demangled(ef.e, sym, vaddr, msg, msglen);
	if (err == -EINVAL)
		goto cleanup;
	if (err) {
		/* a second pass, the refusal's only: "did you mean" */
		suggest_init(&sg, sym);
		elf_sym_vaddr(ef.e, sym, vaddr, &sg, best, sizeof(best));
		snprintf(msg, msglen, "no function '%s' in %s%s", sym, path,
			 suggest_text(&sg, dym, sizeof(dym)));
		goto cleanup;
	}
	err = exec_segment(ef.e, *vaddr, true, &ph);
	if (!err)
		*foff = *vaddr - ph.p_vaddr + ph.p_offset;
	else
		snprintf(msg, msglen, "%s 0x%llx is not in an executable segment of %s "
			 "(kptrace's check of its own PATH:SYMBOL: a probe there never fires)", sym,
			 (unsigned long long)*vaddr, path);
cleanup:
	kelf_close(&ef);
	return err;
}

/*
 * PATH:OFFSET, the kernel's own grammar: what the kernel checks and no
 * more. uprobe_events takes any offset and any regular file;
 * uprobe_register() refuses an offset past the file's end (-EINVAL). The
 * ELF address lines print is that of the segment mapping the offset, else
 * the offset. An offset no executable segment holds (the ELF header's,
 * data's, a file no ELF) is taken, as the kernel takes it, with a note: it
 * fires only where a process maps that part of the file executable.
 */
static int offset_locate(const char *path, const struct stat *st, struct resolved *r,
			 char *msg, size_t msglen)
{
	char why[128];
	GElf_Phdr ph;
	struct kelf ef;
	bool exec = false;
	size_t i = 0;

	if (r->uoffset > (uint64_t)st->st_size) {
		snprintf(msg, msglen, "%s (offset 0x%llx is past the end of %s, 0x%llx bytes)",
			 spec_strerror(SPEC_ERR_FAIL_REG_PROBE), (unsigned long long)r->uoffset,
			 path, (unsigned long long)st->st_size);
		return -EINVAL;
	}
	r->uaddr = r->uoffset;
	if (kelf_open(path, &ef, why, sizeof(why))) {
		snprintf(r->note, sizeof(r->note), "%s: the kernel takes offset 0x%llx (so does "
			 "kptrace), but it fires only where a process maps that part executable",
			 why, (unsigned long long)r->uoffset);
		return 0;
	}
	/* the segment mapping it, an executable one first */
	while (!exec && kelf_next_load(ef.e, &i, &ph)) {
		if (r->uoffset < ph.p_offset || r->uoffset >= ph.p_offset + ph.p_filesz)
			continue;
		r->uaddr = r->uoffset - ph.p_offset + ph.p_vaddr;
		exec = ph.p_flags & PF_X;
	}
	/* a function's first instruction: its stacks need the caller (KPT_PF_UENTRY) */
	r->uentry = exec && !elf_sym_vaddr(ef.e, NULL, &r->uaddr, NULL, NULL, 0);
	if (!exec)
		snprintf(r->note, sizeof(r->note), "offset 0x%llx of %s is in no executable "
			 "segment: the kernel takes it (so does kptrace), but it fires only where a "
			 "process maps that part executable", (unsigned long long)r->uoffset, path);
	kelf_close(&ef);
	return 0;
}

static int resolve_uprobe(struct sysinfo *si, const struct spec_probe *p, struct resolved *r,
			  char *msg, size_t msglen, int *col)
{
	struct stat st;
	int err;

	*col = p->target_col;
	si->have_uprobes = access(UPROBE_PMU, F_OK) == 0;
	if (!si->have_uprobes) {
		snprintf(msg, msglen, "this kernel has no uprobe support (%s is missing)",
			 UPROBE_PMU);
		return -EOPNOTSUPP;
	}
	/* trace_uprobe.c's checks, in its order: the path, a regular file */
	if (stat(p->path, &st)) {
		err = -errno;
		snprintf(msg, msglen, "%s (%s: %s)", spec_strerror(SPEC_ERR_FILE_NOT_FOUND), p->path,
			 strerror(errno));
		return err;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(msg, msglen, "%s (%s)", spec_strerror(SPEC_ERR_NO_REGULAR_FILE), p->path);
		return -EINVAL;
	}
	if (access(p->path, R_OK)) {
		err = -errno;
		snprintf(msg, msglen, "cannot read %s: %s", p->path, strerror(errno));
		return err;
	}
	if (!p->usym) {
		r->uoffset = p->uoffset;
		return offset_locate(p->path, &st, r, msg, msglen);
	}
	err = elf_locate(p->path, p->usym, &r->uoffset, &r->uaddr, msg, msglen);
	if (err)
		return err;
	r->uoffset += p->uoffset;
	r->uaddr += p->uoffset;
	r->uentry = !p->uoffset;
	snprintf(r->func, sizeof(r->func), "%s", p->usym);
	return 0;
}

static int resolve_args(struct sysinfo *si, const struct spec_probe *p, struct resolved *r,
			char *msg, size_t msglen, int *col)
{
	const struct ksym *s;
	int i, j, err, off;

	r->opval = calloc(p->nargs ? p->nargs : 1, sizeof(*r->opval));
	if (!r->opval)
		return -ENOMEM;
	for (i = 0; i < p->nargs; i++) {
		const struct spec_arg *a = &p->args[i];

		for (j = 0; j < a->nops; j++) {
			const struct spec_op *op = &a->ops[j];

			*col = op->col;
			switch (op->kind) {
			case SPEC_OP_REG:
				err = sysinfo_need_regs_btf(si, msg, msglen);
				if (err)
					return err;
				off = resolve_reg_offset(si->regs_btf, op->reg);
				if (off < 0) {
					char names[256];

					resolve_reg_names(si->regs_btf, names, sizeof(names));
					snprintf(msg, msglen,
						 "Invalid register name '%%%s' (not in %s's struct "
						 "pt_regs: %s)", op->reg, KPT_ARCH_NAME, names);
					return -EINVAL;
				}
				r->opval[i][j] = off;
				break;
			case SPEC_OP_SYMBOL:
				err = sysinfo_need_ksyms(si, msg, msglen);
				if (err)
					return err;
				s = ksyms_by_name(si->ksyms, op->sym, NULL);
				if (!s) {
					/* the kernel's refusal as it registers: at the probe point */
					*col = p->target_col;
					snprintf(msg, msglen, "%s (@%s: no such symbol in this kernel)",
						 spec_strerror(SPEC_ERR_BAD_PROBE_ADDR), op->sym);
					return -ENOENT;
				}
				r->opval[i][j] = s->addr + op->imm;
				break;
			case SPEC_OP_TPFIELD: {
				const struct tp_field *f = tp_field_find(&r->tp, op->sym);
				char names[256];

				if (f) {
					r->opval[i][j] = f - r->tp.fields;
					break;
				}
				tp_field_names(&r->tp, names, sizeof(names));
				snprintf(msg, msglen, "%s/%s has no field '%s' (it has: %s)",
					 p->tp_system, p->tp_event, op->sym, names);
				return -ENOENT;
			}
			case SPEC_OP_FOFFS:
				/* at a return the ip is the caller's: the probe's
				 * own runtime address is not known there */
				if (p->kind == SPEC_URETPROBE) {
					snprintf(msg, msglen, "@+OFFSET is available on uprobes, "
						 "not on uretprobes");
					return -EINVAL;
				}
				r->opval[i][j] = op->imm - (int64_t)r->uoffset;
				break;
			default:
				break;
			}
		}
	}
	return 0;
}

int resolve_probe(struct sysinfo *si, const struct spec_probe *p, struct resolved *r,
		  char *msg, size_t msglen, int *col)
{
	int err;

	memset(r, 0, sizeof(*r));
	*col = -1;
	r->target.by_name = p->symbol != NULL;
	r->target.offset = p->offset;
	snprintf(r->target.module, sizeof(r->target.module), "%s", p->module);
	snprintf(r->target.symbol, sizeof(r->target.symbol), "%s", p->symbol ? p->symbol : "");
	r->target.maxactive = p->maxactive;
	r->target.ref_ctr_offset = p->ref_ctr_offset;
	r->target.hz = p->hz;
	snprintf(r->target.tp_system, sizeof(r->target.tp_system), "%s", p->tp_system);
	snprintf(r->target.tp_event, sizeof(r->target.tp_event), "%s", p->tp_event);
	switch (p->kind) {
	case SPEC_KPROBE:
	case SPEC_KRETPROBE:
		err = resolve_kprobe(si, p, r, msg, msglen, col);
		break;
	case SPEC_UPROBE:
	case SPEC_URETPROBE:
		err = resolve_uprobe(si, p, r, msg, msglen, col);
		break;
	case SPEC_TRACEPOINT: {
		char path[512];

		*col = p->target_col;
		if (si->tp_format_dir)
			snprintf(path, sizeof(path), "%s/%s/%s/format", si->tp_format_dir,
				 p->tp_system, p->tp_event);
		err = tp_format_load(p->tp_system, p->tp_event, si->tp_format_dir ? path : NULL,
				     &r->tp, msg, msglen);
		snprintf(r->func, sizeof(r->func), "%s/%s", p->tp_system, p->tp_event);
		/* kallsyms only if something prints a symbol: plan.c decides */
		break;
	}
	case SPEC_PROFILE:
		snprintf(r->func, sizeof(r->func), "profile:hz:%u", p->hz);
		err = 0;
		break;
	default:
		snprintf(msg, msglen, "not a probe definition");
		return -EINVAL;
	}
	if (err)
		return err;
	return resolve_args(si, p, r, msg, msglen, col);
}

void resolved_free(struct resolved *r)
{
	free(r->opval);
	r->opval = NULL;
	tp_format_free(&r->tp);
}
