// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The running kernel's DWARF (kdwarf.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "sys/debugfile.h"
#include "sys/dwline.h"
#include "sys/elf.h"
#include "sys/kdwarf.h"

#define KERNEL_NOTES	"/sys/kernel/notes"
#define SYS_MODULE	"/sys/module"

struct kdw {
	const char *glob;
	const char *mod;
	int (*fn)(const char *mod, const char *name, void *arg);
	void *arg;
};

static int one_func(const char *name, void *arg)
{
	struct kdw *k = arg;

	return k->fn(k->mod, name, k->arg);
}

/* Raw notes' build id (a sysfs file). */
static bool notes_id(const char *path, unsigned char id[KELF_BUILD_ID_SIZE])
{
	unsigned char buf[16384];
	size_t len = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	while (len < sizeof(buf) && (n = read(fd, buf + len, sizeof(buf) - len)) > 0)
		len += n;
	close(fd);
	return kelf_notes_build_id(buf, len, id);
}

/* path's DWARF if it is the build id id's (NULL: unknown, taken as is). */
static struct dwline *open_if(const char *path, const unsigned char *id)
{
	unsigned char got[KELF_BUILD_ID_SIZE];
	struct kelf ef;
	bool same;

	if (kelf_open(path, &ef, NULL, 0))
		return NULL;
	same = !id || (kelf_build_id(ef.e, got) && !memcmp(got, id, KELF_BUILD_ID_SIZE));
	kelf_close(&ef);
	return same ? dwline_open(path) : NULL;
}

/* By build id: under DEBUGFILE_ROOT/.build-id/, else from debuginfod. */
static struct dwline *open_by_id(const unsigned char *id, char *path, size_t size)
{
	struct kelf ef;

	if (debugfile_by_id(DEBUGFILE_ROOT, id, &ef, path, size))
		return NULL;
	kelf_close(&ef);
	return dwline_open(path);
}

/* vmlinux's DWARF; where it was looked for into tried. */
static struct dwline *vmlinux_dwarf(const char *rel, char *path, size_t size, char *tried,
				    size_t tlen)
{
	static const char *const fmt[] = { DEBUGFILE_ROOT "/boot/vmlinux-%s",
					   DEBUGFILE_ROOT "/lib/modules/%s/vmlinux",
					   "/boot/vmlinux-%s" };
	unsigned char id[KELF_BUILD_ID_SIZE];
	bool have_id = notes_id(KERNEL_NOTES, id);
	struct dwline *d = NULL;
	size_t i, o;

	o = (size_t)snprintf(tried, tlen, "%s",
			     have_id ? "by build id (" DEBUGFILE_ROOT "/.build-id/, "
				       "debuginfod" : "no build id in " KERNEL_NOTES);
	if (have_id) {
		d = open_by_id(id, path, size);
		o += (size_t)snprintf(tried + o, o < tlen ? tlen - o : 0, "%s), ",
				      getenv("DEBUGINFOD_URLS") ? " of DEBUGINFOD_URLS" :
								  ": DEBUGINFOD_URLS unset");
	} else {
		o += (size_t)snprintf(tried + o, o < tlen ? tlen - o : 0, ", ");
	}
	for (i = 0; !d && i < sizeof(fmt) / sizeof(fmt[0]); i++) {
		snprintf(path, size, fmt[i], rel);
		o += (size_t)snprintf(tried + o, o < tlen ? tlen - o : 0, "%s%s", i ? ", " : "",
				      path);
		d = open_if(path, have_id ? id : NULL);
	}
	return d;
}

/* Whether a module file's base name (up to ".ko") is mod, '-' and '_' alike. */
static bool same_module(const char *base, size_t len, const char *mod)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (mod[i] != (base[i] == '-' ? '_' : base[i]))
			return false;
	return !mod[len];
}

/* modules.dep's path of module mod into rel; false: none. */
static bool module_rel_path(const char *rel_kernel, const char *mod, char *rel, size_t size)
{
	char dep[PATH_MAX], line[1024], *colon, *base, *dot;
	bool found = false;
	FILE *f;

	snprintf(dep, sizeof(dep), "/lib/modules/%s/modules.dep", rel_kernel);
	f = fopen(dep, "re");
	while (f && !found && fgets(line, sizeof(line), f)) {
		colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon = '\0';
		base = strrchr(line, '/');
		base = base ? base + 1 : line;
		dot = strstr(base, ".ko");
		found = dot && same_module(base, (size_t)(dot - base), mod) &&
			snprintf(rel, size, "%s", line) < (int)size;
	}
	if (f)
		fclose(f);
	return found;
}

/* A loaded module's DWARF: its .ko, a debug package's copy of it, else by build id. */
static struct dwline *module_dwarf(const char *rel_kernel, const char *mod, char *path,
				   size_t size)
{
	unsigned char id[KELF_BUILD_ID_SIZE];
	char rel[512], *z;
	struct dwline *d = NULL;

	snprintf(path, size, SYS_MODULE "/%s/notes/.note.gnu.build-id", mod);
	if (!notes_id(path, id))
		return NULL;
	if (module_rel_path(rel_kernel, mod, rel, sizeof(rel))) {
		snprintf(path, size, "/lib/modules/%s/%s", rel_kernel, rel);
		d = open_if(path, id);
		/* a compressed .ko's debug copy is stored plain */
		z = strstr(rel, ".ko");
		if (z)
			z[3] = '\0';
		if (!d && snprintf(path, size, DEBUGFILE_ROOT "/lib/modules/%s/%s", rel_kernel, rel) <
				  (int)size)
			d = open_if(path, id);
	}
	return d ? d : open_by_id(id, path, size);
}

/* The functions of glob's files in d; the files' count or fn's error. */
static int from(struct dwline *d, struct kdw *k)
{
	int n = dwline_cu_funcs(d, k->glob, one_func, k);

	dwline_close(d);
	return n;
}

/* The loaded modules' functions; the count of files matched or an error. */
static int modules(const char *rel, struct kdw *k, int *with_dwarf)
{
	char path[PATH_MAX];
	struct dirent *e;
	struct dwline *d;
	int n = 0, got = 0;
	DIR *dp = opendir(SYS_MODULE);

	while (dp && n >= 0 && (e = readdir(dp))) {
		if (e->d_name[0] == '.' || !(d = module_dwarf(rel, e->d_name, path, sizeof(path))))
			continue;
		(*with_dwarf)++;
		k->mod = e->d_name;
		got = from(d, k);
		n = got < 0 ? got : n + got;
	}
	if (dp)
		closedir(dp);
	return n;
}

int kdwarf_src_functions(const char *glob, int (*fn)(const char *mod, const char *name, void *arg),
			 void *arg, char *msg, size_t msglen)
{
	struct kdw k = { glob, NULL, fn, arg };
	char path[PATH_MAX], tried[2048];
	struct utsname u;
	struct dwline *d;
	int n = 0, nmod, with_dwarf = 0;

	msg[0] = '\0';
	if (uname(&u))
		return -errno;
	d = vmlinux_dwarf(u.release, path, sizeof(path), tried, sizeof(tried));
	if (d)
		n = from(d, &k);
	if (n < 0)
		return n;
	nmod = modules(u.release, &k, &with_dwarf);
	if (nmod < 0)
		return nmod;
	if (!d && !nmod) {
		snprintf(msg, msglen, "no DWARF of this kernel found (looked %s)%s: install "
			 "linux-image-%s-dbg, or set DEBUGINFOD_URLS", tried,
			 with_dwarf ? "; no loaded module's source matches" : "", u.release);
		return -ENOENT;
	}
	if (!n && !nmod) {
		snprintf(msg, msglen, "no source file matches '%s' in the DWARF of %s or of the "
			 "%d loaded modules that have it (their files are named as "
			 "\"kernel/bpf/syscall.c\" or by absolute path)", glob, path, with_dwarf);
		return -ENOENT;
	}
	if (!d)
		snprintf(msg, msglen, "no DWARF of vmlinux found (looked %s): its source files "
			 "are not searched, only the modules'", tried);
	return n + nmod;
}
