// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * dwline_cu_funcs(), the functions of source files (why --under ':GLOB'),
 * against small files built here with the system's cc -g: a relocatable
 * object of two compile units (as a kernel module's .ko is, its DWARF's
 * references relocations) and a shared library of the same. The expected
 * names are nm's text symbols of each unit's own object, not DWARF's: a
 * function inlined everywhere has none, nor does a declaration.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "sys/dwline.h"

static char dir[64];

static int run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int run(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

static void write_file(const char *name, const char *text)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	CHECK(f && fputs(text, f) >= 0 && !fclose(f), "writing %s", path);
}

/* The names collected, sorted and ' '-joined (each once). */
struct names {
	char *v[64];
	int n;
};

static int add(const char *name, void *arg)
{
	struct names *ns = arg;
	int i;

	for (i = 0; i < ns->n; i++)
		if (!strcmp(ns->v[i], name))
			return 0;
	if (ns->n < 64)
		ns->v[ns->n++] = strdup(name);
	return 0;
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void joined(struct names *ns, char *out, size_t size)
{
	size_t o = 0;
	int i;

	qsort(ns->v, ns->n, sizeof(char *), cmp);
	out[0] = '\0';
	for (i = 0; i < ns->n; i++) {
		o += snprintf(out + o, o < size ? size - o : 0, "%s%s", i ? " " : "", ns->v[i]);
		free(ns->v[i]);
	}
	ns->n = 0;
}

/* nm's defined text symbols of the objects, sorted and joined: the reference. */
static void nm_text(const char *objs, char *out, size_t size)
{
	char cmd[512];
	size_t n;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "cd %s && nm %s | awk '$2 ~ /^[Tt]$/ { print $3 }' | "
		 "sort -u | tr '\\n' ' ' | sed 's/ $//'", dir, objs);
	p = popen(cmd, "r");
	n = p ? fread(out, 1, size - 1, p) : 0;
	out[n] = '\0';
	if (p)
		pclose(p);
}

static void check_glob(const char *file, const char *glob, int want_cus, const char *want,
		       const char *ctx)
{
	char path[128], got[1024];
	struct names ns = { 0 };
	struct dwline *d;
	int n;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	d = dwline_open(path);
	CHECK(d, "%s: no DWARF opened in %s", ctx, path);
	if (!d)
		return;
	n = dwline_cu_funcs(d, glob, add, &ns);
	dwline_close(d);
	joined(&ns, got, sizeof(got));
	CHECK_INT(n, want_cus, ctx);
	CHECK_STR(got, want, ctx);
}

static const char a_c[] =
	"extern int ext(int);\n"
	"static inline __attribute__((always_inline)) int twice(int x) { return 2 * x; }\n"
	"static __attribute__((noinline)) int a_static(int x) { return ext(twice(x)) + 1; }\n"
	"int a_global(int x) { return a_static(x) * 3; }\n"
	"int a_other(int x) { return twice(x) - a_global(x); }\n";
static const char b_c[] =
	"int ext(int x) { return x ^ 5; }\n"
	"int b_fn(int x) { return ext(x) + 7; }\n";

int main(void)
{
	char want_a[512], want_b[512], want_ab[1024], abs_glob[160];
	bool ok;

	snprintf(dir, sizeof(dir), "/tmp/kpt-dwsrc-XXXXXX");
	if (!mkdtemp(dir)) {
		CHECK(0, "mkdtemp");
		return check_report();
	}
	run("mkdir -p %s/sub", dir);
	write_file("a.c", a_c);
	write_file("sub/b.c", b_c);
	/* the files named relative to the directory cc runs in, as kbuild names them */
	ok = !run("cd %s && cc -O2 -g -c a.c -o a.o && cc -O2 -g -c sub/b.c -o b.o && "
		  "ld -r a.o b.o -o ab.o && cc -O2 -g -shared -fPIC a.o b.o -o ab.so", dir);
	CHECK(ok, "cc -g, ld -r in %s (build dependencies)", dir);
	if (!ok)
		return check_report();
	nm_text("a.o", want_a, sizeof(want_a));
	nm_text("b.o", want_b, sizeof(want_b));
	nm_text("a.o b.o", want_ab, sizeof(want_ab));
	CHECK(strstr(want_a, "a_static") && !strstr(want_a, "twice"),
	      "nm a.o: a_static and not twice, got '%s'", want_a);

	check_glob("ab.o", "a.c", 1, want_a, "ET_REL, the name as given");
	check_glob("ab.o", "sub/*", 1, want_b, "ET_REL, a directory's files");
	check_glob("ab.o", "*b.c", 1, want_b, "ET_REL, '*' across '/'");
	check_glob("ab.o", "*.c", 2, want_ab, "ET_REL, both units");
	snprintf(abs_glob, sizeof(abs_glob), "%s/sub/b.c", dir);
	check_glob("ab.o", abs_glob, 1, want_b, "ET_REL, joined to DW_AT_comp_dir");
	check_glob("ab.o", "kernel/bpf/*", 0, "", "ET_REL, no unit matches");
	check_glob("ab.so", "a.c", 1, want_a, "ET_DYN, the name as given");
	check_glob("ab.so", "sub/b.[ch]", 1, want_b, "ET_DYN, a bracket class");

	run("rm -rf %s", dir);
	return check_report();
}
