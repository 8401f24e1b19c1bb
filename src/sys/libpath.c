// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A user binary by name: the dynamic linker's directories, then $PATH. */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

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

static int find_library(const char *name, char *path, size_t len)
{
	static const char *const defaults[] = { "/lib64", "/usr/lib64", "/lib", "/usr/lib" };
	struct dirs ds = { 0 };
	char pat[600];
	int i, err = -ENOENT;
	size_t k;

	read_conf(&ds, "/etc/ld.so.conf", 0);
	for (k = 0; k < sizeof(defaults) / sizeof(defaults[0]); k++)
		dirs_add(&ds, defaults[k]);
	for (i = 0; i < ds.n && err; i++) {
		snprintf(pat, sizeof(pat), "%s/%s.so*", ds.d[i], name);
		err = first_elf(pat, path, len);
		if (err && strncmp(name, "lib", 3)) {
			snprintf(pat, sizeof(pat), "%s/lib%s.so*", ds.d[i], name);
			err = first_elf(pat, path, len);
		}
	}
	for (i = 0; i < ds.n; i++)
		free(ds.d[i]);
	return err;
}

int libpath_find(const char *name, char *path, size_t len)
{
	const char *env = getenv("PATH"), *s, *e;
	char cand[600];

	if (!plain_name(name))
		return -ENOENT;
	if (!find_library(name, path, len))
		return 0;
	for (s = env && *env ? env : "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"; *s; s = e) {
		e = strchrnul(s, ':');
		if (e > s && *s == '/') {
			snprintf(cand, sizeof(cand), "%.*s/%s", (int)(e - s), s, name);
			if (!access(cand, X_OK) && is_elf(cand)) {
				snprintf(path, len, "%s", cand);
				return 0;
			}
		}
		if (*e)
			e++;
	}
	return -ENOENT;
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
