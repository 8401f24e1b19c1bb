// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A user binary by name: the dynamic linker's directories, then $PATH. */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wordexp.h>
#include <sys/stat.h>

#include "sys/elf.h"
#include "sys/libpath.h"

#define LIBPATH_DIRS	64

struct dirs {
	char *d[LIBPATH_DIRS];
	int n;
};

static void dirs_add(struct dirs *ds, const char *d)
{
	int i;

	if (ds->n == LIBPATH_DIRS || d[0] != '/')
		return;
	for (i = 0; i < ds->n; i++)
		if (!strcmp(ds->d[i], d))
			return;
	ds->d[ds->n] = strdup(d);
	if (ds->d[ds->n])
		ds->n++;
}

/* ld.so.conf: a directory a line, "include GLOB" (relative to /etc), '#' comments. */
static void read_conf(struct dirs *ds, const char *path, int depth)
{
	char line[512], pat[600];
	glob_t g;
	FILE *f;
	size_t i;

	if (depth > 4 || !(f = fopen(path, "re")))
		return;
	while (fgets(line, sizeof(line), f)) {
		char *s = line, *e;

		*strchrnul(s, '#') = '\0';
		while (*s == ' ' || *s == '\t')
			s++;
		for (e = s + strlen(s); e > s && strchr(" \t\r\n", e[-1]); e--)
			;
		*e = '\0';
		if (strncmp(s, "include", 7) || (s[7] != ' ' && s[7] != '\t')) {
			dirs_add(ds, s);
			continue;
		}
		for (s += 7; *s == ' ' || *s == '\t'; s++)
			;
		snprintf(pat, sizeof(pat), "%s%s", *s == '/' ? "" : "/etc/", s);
		if (glob(pat, 0, NULL, &g))
			continue;
		for (i = 0; i < g.gl_pathc; i++)
			read_conf(ds, g.gl_pathv[i], depth + 1);
		globfree(&g);
	}
	fclose(f);
}

static bool is_elf(const char *path)
{
	unsigned char m[4];
	struct stat st;
	bool ok;
	int fd;

	if (stat(path, &st) || !S_ISREG(st.st_mode))
		return false;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ok = read(fd, m, 4) == 4 && !memcmp(m, "\177ELF", 4);
	close(fd);
	return ok;
}

/* The first ELF file matching pattern (glob's order: "libc.so" before "libc.so.6"). */
static int first_elf(const char *pattern, char *path, size_t len)
{
	glob_t g;
	size_t i;
	int err = -ENOENT;

	if (glob(pattern, 0, NULL, &g))
		return -ENOENT;
	for (i = 0; i < g.gl_pathc && err; i++) {
		/* libc.so is a linker script, libc.so.6 the library */
		if (is_elf(g.gl_pathv[i])) {
			snprintf(path, len, "%s", g.gl_pathv[i]);
			err = 0;
		}
	}
	globfree(&g);
	return err;
}

static bool plain_name(const char *s)
{
	if (!*s || *s == '.')
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || strchr("_.+-", *s)))
			return false;
	return true;
}

static void dirs_free(struct dirs *ds)
{
	while (ds->n)
		free(ds->d[--ds->n]);
}

/*
 * The dynamic linker's own directories: ld.so.conf's, then the defaults,
 * Debian's multiarch ones first as its ld.so has them built in (a system
 * without ld.so.conf, as a minimal image, still finds its libc there).
 */
static void system_dirs(struct dirs *ds)
{
#ifdef KPT_ARCH_ARM64
#define KPT_MULTIARCH "aarch64-linux-gnu"
#else
#define KPT_MULTIARCH "x86_64-linux-gnu"
#endif
	static const char *const defaults[] = {
		"/lib/" KPT_MULTIARCH, "/usr/lib/" KPT_MULTIARCH, "/lib64", "/usr/lib64", "/lib", "/usr/lib",
	};
	size_t k;

	read_conf(ds, "/etc/ld.so.conf", 0);
	for (k = 0; k < sizeof(defaults) / sizeof(defaults[0]); k++)
		dirs_add(ds, defaults[k]);
}

static int find_library(const char *name, char *path, size_t len)
{
	struct dirs ds = { 0 };
	char pat[600];
	int i, err = -ENOENT;

	system_dirs(&ds);
	for (i = 0; i < ds.n && err; i++) {
		snprintf(pat, sizeof(pat), "%s/%s.so*", ds.d[i], name);
		err = first_elf(pat, path, len);
		if (err && strncmp(name, "lib", 3)) {
			snprintf(pat, sizeof(pat), "%s/lib%s.so*", ds.d[i], name);
			err = first_elf(pat, path, len);
		}
	}
	dirs_free(&ds);
	return err;
}

/* name in $PATH (execvp()'s default where it is unset): an executable, ELF if elf. */
static int find_in_path(const char *name, bool elf, char *path, size_t len)
{
	const char *env = getenv("PATH"), *s, *e;
	char cand[600];

	for (s = env && *env ? env : "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"; *s; s = e) {
		e = strchrnul(s, ':');
		if (e > s && *s == '/') {
			snprintf(cand, sizeof(cand), "%.*s/%s", (int)(e - s), s, name);
			if (!access(cand, X_OK) && (!elf || is_elf(cand))) {
				snprintf(path, len, "%s", cand);
				return 0;
			}
		}
		if (*e)
			e++;
	}
	return -ENOENT;
}

int libpath_find(const char *name, char *path, size_t len)
{
	if (!plain_name(name))
		return -ENOENT;
	if (!find_library(name, path, len))
		return 0;
	return find_in_path(name, true, path, len);
}

/*
 * A script's "#!" line: its interpreter into path, "/usr/bin/env NAME"'s
 * NAME found in $PATH. 0, or -ENOEXEC if file is no script.
 */
static int interpreter(const char *file, char *path, size_t len)
{
	char line[512], *s, *w;
	FILE *f = fopen(file, "re");
	bool ok;

	if (!f)
		return -errno;
	ok = fgets(line, sizeof(line), f) && !strncmp(line, "#!", 2);
	fclose(f);
	if (!ok)
		return -ENOEXEC;
	s = line + 2 + strspn(line + 2, " \t");
	w = s + strcspn(s, " \t\r\n");
	if (*w && *w != '\r' && *w != '\n') {
		*w++ = '\0';
		w += strspn(w, " \t");
		w[strcspn(w, " \t\r\n")] = '\0';
	} else {
		*w = '\0';
		w = NULL;
	}
	if (w && *w && strchr(s, '/') && !strcmp(strrchr(s, '/'), "/env"))
		return find_in_path(w, false, path, len);
	snprintf(path, len, "%s", s);
	return *s == '/' ? 0 : -ENOEXEC;
}

int libpath_program(const char *command, char *path, size_t len)
{
	wordexp_t we;
	char interp[4096];
	int err, depth;

	if (wordexp(command, &we, WRDE_NOCMD))
		return -EINVAL;
	if (!we.we_wordc) {
		wordfree(&we);
		return -EINVAL;
	}
	err = strchr(we.we_wordv[0], '/') ? (access(we.we_wordv[0], X_OK) ? -errno : 0) :
					     find_in_path(we.we_wordv[0], false, path, len);
	if (!err && strchr(we.we_wordv[0], '/'))
		snprintf(path, len, "%s", we.we_wordv[0]);
	wordfree(&we);
	/* a script runs its interpreter (which may be a script: the kernel takes 4) */
	for (depth = 0; !err && depth < 4 && !is_elf(path); depth++) {
		err = interpreter(path, interp, sizeof(interp));
		if (!err)
			snprintf(path, len, "%s", interp);
	}
	return err ? err : is_elf(path) ? 0 : -ENOEXEC;
}

bool libpath_module_name_eq(const char *a, const char *b)
{
	size_t i;

	for (i = 0; a[i] && b[i] && (a[i] == b[i] || (strchr("-_", a[i]) && strchr("-_", b[i])));
	     i++)
		;
	return !a[i] && !b[i];
}

char *libpath_modules_read(void)
{
	FILE *f = fopen("/proc/modules", "re");
	size_t cap = 0;
	char *all = NULL;
	int err = 0;

	if (!f)
		return NULL;
	if (getdelim(&all, &cap, '\0', f) < 0) {
		err = ferror(f) ? errno : 0;
		free(all);
		/* at its end at once: no module loaded, an empty text */
		all = err ? NULL : strdup("");
	}
	fclose(f);
	if (err)
		errno = err;
	return all;
}

bool libpath_module_find(const char *mods, const char *name, char *state, size_t slen, char *addr,
			 size_t alen)
{
	const char *line = mods;

	while (line && *line) {
		const char *end = strchrnul(line, '\n');
		char mod[64], st[16], a[24];

		if (sscanf(line, "%63s %*s %*s %*s %15s %23s", mod, st, a) == 3 &&
		    libpath_module_name_eq(mod, name)) {
			snprintf(state, slen, "%s", st);
			snprintf(addr, alen, "%s", a);
			return true;
		}
		line = *end ? end + 1 : NULL;
	}
	return false;
}

bool libpath_module_loaded(const char *name)
{
	char state[16], addr[24];
	char *mods = libpath_modules_read();
	bool found;

	/* no /proc/modules: a kernel without modules (CONFIG_MODULES off) */
	if (!mods)
		return errno != ENOENT;
	found = libpath_module_find(mods, name, state, sizeof(state), addr, sizeof(addr));
	free(mods);
	return found;
}

/* What a program links, breadth first: paths[0] the program, then its loader and libraries. */
struct closure {
	char *paths[LIBPATH_OBJECTS];
	dev_t dev[LIBPATH_OBJECTS];	/* each path's file: one file by two paths is one object */
	ino_t ino[LIBPATH_OBJECTS];
	int n;
	unsigned char cls;	/* the program's ELF class and machine: a library must match */
	GElf_Half machine;
	struct dirs rpath, runpath;	/* the object being read's */
	struct dirs llp;		/* LD_LIBRARY_PATH's, $ORIGIN the program's */
	char origin[4096];		/* its directory, for $ORIGIN */
	char *needed[LIBPATH_OBJECTS];
	int nneeded;
};

static void closure_add(struct closure *c, const char *path)
{
	struct stat st;
	int i;

	if (stat(path, &st))
		return;
	for (i = 0; i < c->n; i++)
		if (c->dev[i] == st.st_dev && c->ino[i] == st.st_ino)
			return;
	if (c->n < LIBPATH_OBJECTS && (c->paths[c->n] = strdup(path))) {
		c->dev[c->n] = st.st_dev;
		c->ino[c->n++] = st.st_ino;
	}
}

/* A DT_RPATH or DT_RUNPATH list, ':'-separated, $ORIGIN replaced. */
static void add_search_list(struct closure *c, struct dirs *ds, const char *list)
{
	char d[4096];
	const char *s, *e;
	int skip, n;

	for (s = list; *s; s = *e ? e + 1 : e) {
		e = strchrnul(s, ':');
		skip = !strncmp(s, "$ORIGIN", 7) && (s + 7 == e || s[7] == '/') ? 7 :
		       !strncmp(s, "${ORIGIN}", 9) && (s + 9 == e || s[9] == '/') ? 9 : 0;
		n = snprintf(d, sizeof(d), "%s%.*s", skip ? c->origin : "", (int)(e - s - skip),
			     s + skip);
		if (n > 0 && n < (int)sizeof(d))
			dirs_add(ds, d);
	}
}

static int on_dyn(int64_t tag, const char *s, void *arg)
{
	struct closure *c = arg;

	if (tag == DT_RPATH)
		add_search_list(c, &c->rpath, s);
	else if (tag == DT_RUNPATH)
		add_search_list(c, &c->runpath, s);
	else if (c->nneeded < LIBPATH_OBJECTS && (c->needed[c->nneeded] = strdup(s)))
		c->nneeded++;
	return 0;
}

/* path is an ELF object of the program's class and machine */
static bool same_kind(const struct closure *c, const char *path)
{
	struct kelf f;
	GElf_Ehdr eh;
	bool ok;

	if (kelf_open(path, &f, NULL, 0))
		return false;
	ok = gelf_getehdr(f.e, &eh) && eh.e_ident[EI_CLASS] == c->cls && eh.e_machine == c->machine;
	kelf_close(&f);
	return ok;
}

/* name in the directories of ds, the first of the program's kind */
static bool find_in(const struct closure *c, const struct dirs *ds, const char *name,
		    char *path, size_t len)
{
	int i;

	for (i = 0; i < ds->n; i++) {
		snprintf(path, len, "%s/%s", ds->d[i], name);
		if (same_kind(c, path))
			return true;
	}
	return false;
}

/*
 * A DT_NEEDED name as ld.so looks for it (ld.so(8)): DT_RPATH where there
 * is no DT_RUNPATH, LD_LIBRARY_PATH, DT_RUNPATH, the system's directories.
 */
static bool resolve_needed(struct closure *c, const struct dirs *sys, const char *name,
			   char *path, size_t len)
{
	if (strchr(name, '/')) {
		snprintf(path, len, "%s", name);
		return same_kind(c, path);
	}
	if (!c->runpath.n && find_in(c, &c->rpath, name, path, len))
		return true;
	return find_in(c, &c->llp, name, path, len) || find_in(c, &c->runpath, name, path, len) ||
	       find_in(c, sys, name, path, len);
}

/* paths[i]'s loader (the program's) and libraries into the closure */
static void read_object(struct closure *c, const struct dirs *sys, int i)
{
	char path[4096], *slash;
	struct kelf f;
	GElf_Ehdr eh;
	int k;

	if (kelf_open(c->paths[i], &f, NULL, 0))
		return;
	if (i == 0 && gelf_getehdr(f.e, &eh)) {
		c->cls = eh.e_ident[EI_CLASS];
		c->machine = eh.e_machine;
		if (kelf_interp(f.e, path, sizeof(path)))
			closure_add(c, path);
	}
	snprintf(c->origin, sizeof(c->origin), "%s", c->paths[i]);
	slash = strrchr(c->origin, '/');
	if (slash)
		*slash = '\0';
	if (i == 0 && getenv("LD_LIBRARY_PATH"))
		add_search_list(c, &c->llp, getenv("LD_LIBRARY_PATH"));
	kelf_dyn_strings(f.e, on_dyn, c);
	kelf_close(&f);
	for (k = 0; k < c->nneeded; k++) {
		if (resolve_needed(c, sys, c->needed[k], path, sizeof(path)))
			closure_add(c, path);
		free(c->needed[k]);
	}
	c->nneeded = 0;
	dirs_free(&c->rpath);
	dirs_free(&c->runpath);
}

int libpath_command_objects(const char *command, int (*fn)(const char *path, void *arg),
			    void *arg)
{
	struct closure c = { .n = 0 };
	struct dirs sys = { 0 };
	char path[4096];
	int i, err;

	err = libpath_program(command, path, sizeof(path));
	if (err)
		return err;
	closure_add(&c, path);
	system_dirs(&sys);
	for (i = 0; i < c.n; i++)
		read_object(&c, &sys, i);
	dirs_free(&sys);
	dirs_free(&c.llp);
	for (i = 0; i < c.n; i++) {
		if (!err)
			err = fn(c.paths[i], arg);
		free(c.paths[i]);
	}
	return err;
}
