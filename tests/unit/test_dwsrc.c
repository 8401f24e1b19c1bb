// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * dwline_cu_funcs(), the functions of source files (why --under ':GLOB'),
 * against small files built here with the system's cc -g: a relocatable
 * object of two compile units (as a kernel module's .ko is, its DWARF's
 * references relocations) and shared libraries, one where a weak function
 * is overridden. The expected names are nm's text symbols that addr2line
 * places in the file, not DWARF's: a function inlined everywhere has none,
 * nor does a declaration; a header's static function is the header's.
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

/*
 * The reference: nm's defined text symbols of file whose first instruction
 * addr2line places in a file ending in suffix, sorted and joined.
 */
static void nm_text(const char *file, const char *suffix, char *out, size_t size)
{
	char cmd[1024];
	size_t n;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "cd %s && nm %s | awk '$2 ~ /^[Tt]$/ { print $1, $3 }' | "
		 "while read a s; do echo \"$s $(addr2line -e %s 0x$a)\"; done | "
		 "awk '$2 ~ /%s:[0-9]+/ { print $1 }' | sort -u | tr '\\n' ' ' | sed 's/ $//'",
		 dir, file, file, suffix);
	p = popen(cmd, "r");
	n = p ? fread(out, 1, size - 1, p) : 0;
	out[n] = '\0';
	if (p)
		pclose(p);
}

static void check_glob(const char *file, const char *glob, int want_cus, const char *want,
		       const char *dwarf, const char *what)
{
	char path[128], got[1024], ctx[160];
	struct names ns = { 0 };
	struct dwline *d;
	int n;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	snprintf(ctx, sizeof(ctx), "%s, %s: %s '%s'", dwarf, what, file, glob);
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

static const char h_h[] =
	"static __attribute__((noinline)) int from_header(int x) { return x * x + 1; }\n";
static const char a_c[] =
	"#include \"h.h\"\n"
	"extern int ext(int);\n"
	"static inline __attribute__((always_inline)) int twice(int x) { return 2 * x; }\n"
	"static __attribute__((noinline)) int a_static(int x) { return ext(twice(x)) + 1; }\n"
	"int a_global(int x) { return a_static(x) * 3 + from_header(x); }\n"
	"int a_other(int x) { return twice(x) - a_global(x); }\n";
static const char b_c[] =
	"int ext(int x) { return x ^ 5; }\n"
	"int b_fn(int x) { return ext(x) + 7; }\n";
/* a weak function another file overrides: its code stays in the library, unnamed */
static const char w1_c[] =
	"__attribute__((weak)) int overridden(int x) { return x + 11; }\n"
	"int w1_fn(int x) { return overridden(x) * 2; }\n";
static const char w2_c[] =
	"int overridden(int x) { return x - 13; }\n";

int main(void)
{
	char want_a[512], want_b[512], want_ab[1024], want_w1[256], want_w2[256], abs_glob[160];
	char ab_o[16], ab_so[16], w_so[16], ctx[16], want_all[1024];
	bool ok;
	int v;

	snprintf(dir, sizeof(dir), "/tmp/kpt-dwsrc-XXXXXX");
	if (!mkdtemp(dir)) {
		CHECK(0, "mkdtemp");
		return check_report();
	}
	run("mkdir -p %s/sub", dir);
	write_file("h.h", h_h);
	write_file("a.c", a_c);
	write_file("sub/b.c", b_c);
	write_file("w1.c", w1_c);
	write_file("w2.c", w2_c);
	/* the files named relative to the directory cc runs in, as kbuild names them */
	/* DWARF 4 for the reference: binutils 2.40's addr2line reads a DWARF 5 line
	 * table's header file as the unit's; DWARF 5 (gcc's default) checked too */
	ok = !run("cd %s && for v in 4 5; do cc -O1 -gdwarf-$v -c a.c -o a$v.o && "
		  "cc -O1 -gdwarf-$v -c sub/b.c -o b$v.o && ld -r a$v.o b$v.o -o ab$v.o && "
		  "cc -O1 -gdwarf-$v -shared -fPIC a$v.o b$v.o -o ab$v.so && "
		  "cc -O1 -gdwarf-$v -fPIC -shared w1.c w2.c -o w$v.so || exit 1; done", dir);
	CHECK(ok, "cc -g, ld -r in %s (build dependencies)", dir);
	if (!ok)
		return check_report();
	nm_text("ab4.o", "\\/a\\.c", want_a, sizeof(want_a));
	nm_text("ab4.o", "\\/sub\\/b\\.c", want_b, sizeof(want_b));
	nm_text("ab4.o", "\\.c", want_ab, sizeof(want_ab));
	nm_text("ab4.o", "", want_all, sizeof(want_all));
	nm_text("w4.so", "\\/w1\\.c", want_w1, sizeof(want_w1));
	nm_text("w4.so", "\\/w2\\.c", want_w2, sizeof(want_w2));
	CHECK(strstr(want_a, "a_static") && !strstr(want_a, "twice") &&
	      !strstr(want_a, "from_header"), "nm a.o: a_static, neither twice nor from_header, "
	      "got '%s'", want_a);
	CHECK(!strcmp(want_w1, "w1_fn") && !strcmp(want_w2, "overridden"),
	      "nm w.so: w1_fn in w1.c, overridden in w2.c, got '%s', '%s'", want_w1, want_w2);

	for (v = 4; v <= 5; v++) {
		snprintf(ab_o, sizeof(ab_o), "ab%d.o", v);
		snprintf(ab_so, sizeof(ab_so), "ab%d.so", v);
		snprintf(w_so, sizeof(w_so), "w%d.so", v);
		snprintf(ctx, sizeof(ctx), "DWARF %d", v);
		check_glob(ab_o, "a.c", 1, want_a, ctx, "ET_REL, the name as given");
		check_glob(ab_o, "sub/*", 1, want_b, ctx, "ET_REL, a directory's files");
		check_glob(ab_o, "*b.c", 1, want_b, ctx, "ET_REL, '*' across '/'");
		check_glob(ab_o, "*.c", 2, want_ab, ctx, "ET_REL, both units");
		snprintf(abs_glob, sizeof(abs_glob), "%s/sub/b.c", dir);
		check_glob(ab_o, abs_glob, 1, want_b, ctx, "ET_REL, joined to DW_AT_comp_dir");
		check_glob(ab_o, "kernel/bpf/*", 0, "", ctx, "ET_REL, no unit matches");
		check_glob(ab_o, "*", 2, want_all, ctx, "ET_REL, every file, the header too");
		check_glob(ab_so, "a.c", 1, want_a, ctx, "ET_DYN, the name as given");
		check_glob(ab_so, "sub/b.[ch]", 1, want_b, ctx, "ET_DYN, a bracket class");
		check_glob(w_so, "w1.c", 1, want_w1, ctx, "ET_DYN, a weak function overridden");
		check_glob(w_so, "w2.c", 1, want_w2, ctx, "ET_DYN, the function overriding it");
	}

	run("rm -rf %s", dir);
	return check_report();
}
