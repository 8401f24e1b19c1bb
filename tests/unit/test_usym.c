// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * usym against real ELF files built here at run time with the system's cc, strip and
 * objcopy (a PIE, a non-PIE, a shared library, stripped copies, a .gnu_debuglink debug
 * file, debug files under a made-up DEBUG_ROOT/.build-id/) and a made-up PROC_ROOT whose
 * TGID/maps place them at chosen addresses.
 *
 * The expected answers do not come from usym's code path: symbol values and sizes are
 * parsed from `readelf -sW`, load segments from `readelf -lW` and build ids from
 * `readelf -n` (binutils' readelf, not libelf), and every expected runtime address and
 * file offset is computed here from those.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "sys/usym.h"

#define PIE_BASE	0x555555554000ull
#define LIB_BASE	0x7f1234560000ull
#define LIB2_BASE	0x7f2234560000ull
#define LIB3_BASE	0x7f3234560000ull
#define LIB4_BASE	0x7f4234560000ull

static char dir[64];		/* the temp dir everything is built in */
static char proc_root[128], debug_root[128];

/* ---- running the toolchain ----------------------------------------------------------- */

static void cleanup(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (dir[0] && !getenv("USYM_KEEP") && system(cmd))
		fprintf(stderr, "could not remove %s\n", dir);
}

static void die(const char *what)
{
	CHECK(0, "setup: %s", what);
	cleanup();
	check_report();
	exit(1);
}

/* A missing cc/strip/objcopy/readelf is an environment fault: they are build deps. */
static void run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void run(const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;
	int rc;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	rc = system(cmd);
	if (rc != 0) {
		fprintf(stderr, "command failed (%d): %s\n", rc, cmd);
		die("a toolchain command failed (cc, strip, objcopy, readelf are build deps)");
	}
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f))
		die(path);
}

/* ---- what readelf says about a file ------------------------------------------------ */

struct rsym {
	char name[256];
	uint64_t value, size;
};

struct rseg {
	uint64_t off, vaddr, filesz, memsz;
	bool exec;
};

struct relf {
	char path[256];
	struct rsym syms[256];
	int nsyms;
	struct rseg segs[16];
	int nsegs;
	unsigned char id[20];
	int idlen;
};

static void readelf(const char *path, struct relf *r)
{
	char cmd[512], line[1024], name[256], type[32], bind[32], vis[32], ndx[32], flg[8];
	unsigned long long v, s, o, va, pa, fs, ms;
	FILE *p;
	char *h;
	int i;

	memset(r, 0, sizeof(*r));
	snprintf(r->path, sizeof(r->path), "%s", path);
	snprintf(cmd, sizeof(cmd), "readelf -W -s -l -n '%s' 2>/dev/null", path);
	p = popen(cmd, "r");
	if (!p)
		die("popen readelf");
	while (fgets(line, sizeof(line), p)) {
		if (sscanf(line, " %*d: %llx %lli %31s %31s %31s %31s %255s", &v, &s, type, bind,
			   vis, ndx, name) == 7 && !strcmp(type, "FUNC") && strcmp(ndx, "UND") &&
		    r->nsyms < 256 && !strchr(name, '@')) {
			snprintf(r->syms[r->nsyms].name, sizeof(r->syms[0].name), "%s", name);
			r->syms[r->nsyms].value = v;
			r->syms[r->nsyms++].size = s;
		} else if (sscanf(line, " LOAD %llx %llx %llx %llx %llx %7[RWE ]", &o, &va, &pa, &fs,
				  &ms, flg) == 6 && r->nsegs < 16) {
			r->segs[r->nsegs++] = (struct rseg){ o, va, fs, ms, strchr(flg, 'E') != NULL };
		} else if ((h = strstr(line, "Build ID: "))) {
			h += strlen("Build ID: ");
			for (i = 0; i < 20 && sscanf(h + 2 * i, "%2hhx", &r->id[i]) == 1; i++)
				;
			r->idlen = i;
		}
	}
	if (pclose(p) != 0 || !r->nsegs)
		die(path);
}

static const struct rsym *rsym(const struct relf *r, const char *name)
{
	int i;

	for (i = 0; i < r->nsyms; i++)
		if (!strcmp(r->syms[i].name, name))
			return &r->syms[i];
	fprintf(stderr, "%s: no symbol %s in readelf's output\n", r->path, name);
	die("a function the test needs is missing");
	return NULL;
}

/* vaddr -> file offset, through readelf's LOAD lines */
static uint64_t r_off(const struct relf *r, uint64_t vaddr)
{
	int i;

	for (i = 0; i < r->nsegs; i++)
		if (vaddr >= r->segs[i].vaddr && vaddr < r->segs[i].vaddr + r->segs[i].filesz)
			return vaddr - r->segs[i].vaddr + r->segs[i].off;
	die("vaddr in no LOAD segment");
	return 0;
}

/* The lowest start of a FUNC symbol above vaddr (the next function), or UINT64_MAX. */
static uint64_t r_next(const struct relf *r, uint64_t vaddr)
{
	uint64_t best = UINT64_MAX;
	int i;

	for (i = 0; i < r->nsyms; i++)
		if (r->syms[i].value > vaddr && r->syms[i].value < best)
			best = r->syms[i].value;
	return best;
}

/* ---- a made-up /proc ---------------------------------------------------------------- */

/* Map r's LOAD segments as ld.so does: at base + vaddr, page-aligned; shown as path. */
static void maps_add(FILE *f, const struct relf *r, uint64_t base, const char *shown,
		     const char *real)
{
	struct stat st;
	int i;

	if (stat(real, &st))
		die(real);
	for (i = 0; i < r->nsegs; i++) {
		uint64_t start = base + (r->segs[i].vaddr & ~0xfffull);
		uint64_t end = (base + r->segs[i].vaddr + r->segs[i].memsz + 0xfff) & ~0xfffull;

		fprintf(f, "%" PRIx64 "-%" PRIx64 " %s %08" PRIx64 " %02x:%02x %llu    %s\n", start,
			end, r->segs[i].exec ? "r-xp" : "r--p", r->segs[i].off & ~(uint64_t)0xfff,
			major(st.st_dev), minor(st.st_dev), (unsigned long long)st.st_ino, shown);
	}
}

static FILE *maps_open(uint32_t tgid)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%u", proc_root, tgid);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%u/maps", proc_root, tgid);
	f = fopen(path, "w");
	if (!f)
		die(path);
	return f;
}

/* ---- the ELF files ------------------------------------------------------------------- */

/* noinline + a 64-byte function alignment: padding after u_small holds no function;
 * u_nosize is hand-written assembly without .size. */
static const char prog_c[] =
	"#define N __attribute__((noinline, used))\n"
	"static N int u_static(int x) { __asm__ volatile(\"\" ::: \"memory\"); return x * 3 + V; }\n"
	"N int u_alpha(int x) { return u_static(x) + 2; }\n"
	"N int u_beta(int x) { return u_alpha(x) * 5; }\n"
	"N void u_small(void) { __asm__ volatile(\"\"); }\n"
	"__asm__(\".text\\n.p2align 6\\n.globl u_nosize\\n.type u_nosize,@function\\n"
	"u_nosize:\\n\\tnop\\n\\tnop\\n\\tnop\\n\\tret\\n\");\n"
	"int main(int c, char **v) { (void)v; return u_beta(c); }\n";

static const char lib_c[] =
	"#define N __attribute__((noinline, used))\n"
	"static N int lib_hidden(int x) { __asm__ volatile(\"\" ::: \"memory\"); return x + V; }\n"
	"N int lib_exported(int x) { return lib_hidden(x) * 2; }\n"
	"__attribute__((visibility(\"hidden\"))) N int lib_internal(int x) { return x - V; }\n"
	"N int __lib_impl(int x) { return x ^ V; }\n"
	"extern __typeof(__lib_impl) lib_pub __attribute__((weak, alias(\"__lib_impl\")));\n";

static struct relf pie, nopie, lib, lib_stripped, libdl, libbad, pie2, pie2s, hid, md5, md5hid;

static void build(void)
{
	const char *cc = "cc -O1 -g -falign-functions=64 -Wl,--build-id";
	char p[512];

	snprintf(p, sizeof(p), "%s/prog.c", dir);
	write_file(p, prog_c);
	snprintf(p, sizeof(p), "%s/lib.c", dir);
	write_file(p, lib_c);
	run("cd %s && mkdir -p bin lib dl/.debug bad hidden proc debug/.build-id", dir);
	run("cd %s && %s -DV=1 -fPIE -pie prog.c -o bin/pie", dir, cc);
	run("cd %s && %s -DV=2 -fno-pie -no-pie prog.c -o bin/nopie", dir, cc);
	run("cd %s && %s -DV=3 -shared -fPIC lib.c -o lib/libt.so", dir, cc);
	run("cd %s && strip -o lib/libt-stripped.so lib/libt.so", dir);
	/* a stripped library whose debug file is found by .gnu_debuglink in DIR/.debug/ */
	run("cd %s && %s -DV=4 -shared -fPIC lib.c -o libdl.full.so && "
	    "objcopy --only-keep-debug libdl.full.so dl/.debug/libdl.debug && "
	    "strip -o dl/libdl.so libdl.full.so && "
	    "objcopy --add-gnu-debuglink=dl/.debug/libdl.debug dl/libdl.so", dir, cc);
	/* the same, but the debug file replaced afterwards: the CRC no longer matches */
	run("cd %s && %s -DV=5 -shared -fPIC lib.c -o libbad.full.so && "
	    "objcopy --only-keep-debug libbad.full.so bad/libbad.debug && "
	    "strip -o bad/libbad.so libbad.full.so && "
	    "objcopy --add-gnu-debuglink=bad/libbad.debug bad/libbad.so && "
	    "%s -DV=6 -shared -fPIC lib.c -o libbad.other.so && "
	    "objcopy --only-keep-debug libbad.other.so bad/libbad.debug", dir, cc, cc);
	/* a stripped PIE whose debug file is under DEBUG_ROOT/.build-id/ */
	run("cd %s && %s -DV=7 -fPIE -pie prog.c -o pie2.full && strip -o bin/pie2 pie2.full", dir,
	    cc);
	/* a non-PIE in a directory nothing indexes: only its debug file is to be found */
	run("cd %s && %s -DV=8 -fno-pie -no-pie prog.c -o hidden/nopie-hidden", dir, cc);
	/* 16-byte build ids, zero-padded to 20 in frames: one indexed, one only as a debug
	 * file, whose id ends in a zero byte as an MD5 does once in 256 (given, so every run
	 * has it: cutting the padding must not cut the id) */
	run("cd %s && cc -O1 -g -DV=9 -fPIE -pie -Wl,--build-id=md5 prog.c -o bin/pie-md5", dir);
	run("cd %s && cc -O1 -g -DV=10 -fPIE -pie "
	    "-Wl,--build-id=0x5eedc0ffee0123456789abcdef012300 prog.c -o hidden/pie-md5", dir);
	snprintf(p, sizeof(p), "%s/bin/pie", dir);
	readelf(p, &pie);
	snprintf(p, sizeof(p), "%s/bin/nopie", dir);
	readelf(p, &nopie);
	snprintf(p, sizeof(p), "%s/lib/libt.so", dir);
	readelf(p, &lib);
	snprintf(p, sizeof(p), "%s/lib/libt-stripped.so", dir);
	readelf(p, &lib_stripped);
	snprintf(p, sizeof(p), "%s/libdl.full.so", dir);
	readelf(p, &libdl);
	snprintf(p, sizeof(p), "%s/libbad.full.so", dir);
	readelf(p, &libbad);
	snprintf(p, sizeof(p), "%s/pie2.full", dir);
	readelf(p, &pie2);
	snprintf(p, sizeof(p), "%s/bin/pie2", dir);
	readelf(p, &pie2s);
	snprintf(p, sizeof(p), "%s/hidden/nopie-hidden", dir);
	readelf(p, &hid);
	snprintf(p, sizeof(p), "%s/bin/pie-md5", dir);
	readelf(p, &md5);
	snprintf(p, sizeof(p), "%s/hidden/pie-md5", dir);
	readelf(p, &md5hid);
	if (pie.idlen != 20 || nopie.idlen != 20 || pie2.idlen != 20 || hid.idlen != 20 ||
	    md5.idlen != 16 || md5hid.idlen != 16)
		die("build ids not as expected");
	/* stripped: only .dynsym is left (readelf -s lists it): exported functions only */
	for (int i = 0; i < pie2s.nsyms; i++)
		if (!strncmp(pie2s.syms[i].name, "u_", 2))
			die("strip left u_* symbols");
	for (int i = 0; i < lib_stripped.nsyms; i++)
		if (!strcmp(lib_stripped.syms[i].name, "lib_hidden") ||
		    !strcmp(lib_stripped.syms[i].name, "lib_internal"))
			die("strip left a local function");
	/* the build-id debug files, named by readelf's build id */
	for (int k = 0; k < 3; k++) {
		const struct relf *r = k == 2 ? &md5hid : k ? &hid : &pie2;
		char hex[41];

		for (int i = 0; i < r->idlen; i++)
			sprintf(hex + 2 * i, "%02x", r->id[i]);
		run("cd %s && mkdir -p debug/.build-id/%.2s && objcopy --only-keep-debug %s "
		    "debug/.build-id/%.2s/%s.debug", dir, hex, r->path, hex, hex + 2);
	}
}

/* ---- checks -------------------------------------------------------------------------- */

/* The frame at base + fn's vaddr + off in tgid: fn, off, path, file offset. */
static void expect_at(struct usym *u, uint32_t tgid, const struct relf *r, const char *path,
		      uint64_t base, const char *fn, uint64_t off)
{
	const struct rsym *s = rsym(r, fn);
	struct usym_frame f;
	char ctx[256];

	snprintf(ctx, sizeof(ctx), "%s+%#" PRIx64 " in %s", fn, off, path);
	usym_addr(u, tgid, base + s->value + off, false, &f);
	CHECK_STR(f.sym, fn, ctx);
	CHECK_INT(f.sym_off, off, ctx);
	CHECK_STR(f.path, path, ctx);
	CHECK_INT(f.file_off, r_off(r, s->value + off), ctx);
	CHECK_INT(f.addr, base + s->value + off, ctx);
}

static void expect_unknown_at(struct usym *u, uint32_t tgid, uint64_t addr, const char *path,
			      const char *ctx)
{
	struct usym_frame f;

	usym_addr(u, tgid, addr, false, &f);
	CHECK(f.sym == NULL, "%s: sym %s, want none", ctx, f.sym);
	if (path)
		CHECK_STR(f.path, path, ctx);
	else
		CHECK(f.path == NULL, "%s: path %s, want none", ctx, f.path);
}

static struct usym *new_usym(void)
{
	struct usym_opts o = { .proc_root = proc_root, .debug_root = debug_root };
	struct usym *u = usym_new(&o);

	if (!u)
		die("usym_new");
	return u;
}

/* tgid 100: the PIE, the non-PIE, the libraries, side by side. */
static void test_by_addr(void)
{
	struct usym *u = new_usym();
	FILE *m = maps_open(100);
	const struct rsym *s, *small;
	struct usym_frame f;
	uint64_t gap;

	fprintf(m, "7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0    [stack]\n");
	maps_add(m, &nopie, 0, nopie.path, nopie.path);
	fprintf(m, "01000000-01021000 rw-p 00000000 00:00 0          [heap]\n");
	maps_add(m, &pie, PIE_BASE, pie.path, pie.path);
	maps_add(m, &lib, LIB_BASE, lib.path, lib.path);
	maps_add(m, &lib_stripped, LIB2_BASE, lib_stripped.path, lib_stripped.path);
	{
		char dl[256], bad[256];

		snprintf(dl, sizeof(dl), "%s/dl/libdl.so", dir);
		snprintf(bad, sizeof(bad), "%s/bad/libbad.so", dir);
		/* libdl, libbad: the stripped files mapped, with the full files' layout */
		maps_add(m, &libdl, LIB3_BASE, dl, dl);
		maps_add(m, &libbad, LIB4_BASE, bad, bad);
		maps_add(m, &pie2s, PIE_BASE + 0x100000000ull, pie2s.path, pie2s.path);
		fprintf(m, "7ffff7fc1000-7ffff7fc3000 r-xp 00000000 00:00 0  [vdso]\n");
		fclose(m);
		CHECK_INT(usym_capture(u, 100), 0, "capture 100");

		expect_at(u, 100, &pie, pie.path, PIE_BASE, "u_alpha", 3);
		expect_at(u, 100, &pie, pie.path, PIE_BASE, "u_static", 0);
		expect_at(u, 100, &pie, pie.path, PIE_BASE, "u_beta", 8);
		expect_at(u, 100, &pie, pie.path, PIE_BASE, "main", 1);
		expect_at(u, 100, &nopie, nopie.path, 0, "u_alpha", 2);
		expect_at(u, 100, &nopie, nopie.path, 0, "u_static", 4);
		expect_at(u, 100, &lib, lib.path, LIB_BASE, "lib_exported", 1);
		expect_at(u, 100, &lib, lib.path, LIB_BASE, "lib_hidden", 2);
		expect_at(u, 100, &lib, lib.path, LIB_BASE, "lib_internal", 0);
		/* aliases (glibc's getpid and __getpid): the public name, not the global one */
		if (rsym(&lib, "lib_pub")->value != rsym(&lib, "__lib_impl")->value)
			die("lib_pub is no alias");
		expect_at(u, 100, &lib, lib.path, LIB_BASE, "lib_pub", 1);
		expect_at(u, 100, &lib_stripped, lib_stripped.path, LIB2_BASE, "lib_pub", 1);
		/* stripped: .dynsym names the exported function only */
		expect_at(u, 100, &lib_stripped, lib_stripped.path, LIB2_BASE, "lib_exported", 1);
		expect_unknown_at(u, 100, LIB2_BASE + rsym(&lib, "lib_hidden")->value + 2,
				  lib_stripped.path, "stripped lib, static function");
		expect_unknown_at(u, 100, LIB2_BASE + rsym(&lib, "lib_internal")->value,
				  lib_stripped.path, "stripped lib, hidden function");
		/* debuglink with the right CRC: every function; a wrong CRC: .dynsym only */
		expect_at(u, 100, &libdl, dl, LIB3_BASE, "lib_hidden", 2);
		expect_at(u, 100, &libdl, dl, LIB3_BASE, "lib_internal", 1);
		expect_at(u, 100, &libbad, bad, LIB4_BASE, "lib_exported", 0);
		expect_unknown_at(u, 100, LIB4_BASE + rsym(&libbad, "lib_hidden")->value + 2, bad,
				  "debuglink CRC mismatch, static function");
		/* stripped PIE with a DEBUG_ROOT/.build-id/ debug file */
		expect_at(u, 100, &pie2, pie2s.path, PIE_BASE + 0x100000000ull, "u_static", 1);
		expect_at(u, 100, &pie2, pie2s.path, PIE_BASE + 0x100000000ull, "u_alpha", 0);
	}

	/* hand-written assembly without .size: the nearest symbol below, same section */
	expect_at(u, 100, &pie, pie.path, PIE_BASE, "u_nosize", 1);
	expect_at(u, 100, &nopie, nopie.path, 0, "u_nosize", 3);

	/* the padding after u_small (a 1-byte ret, 64-byte alignment) is no function */
	small = rsym(&pie, "u_small");
	gap = small->value + small->size + 8;
	if (gap >= r_next(&pie, small->value))
		die("no padding after u_small");
	expect_unknown_at(u, 100, PIE_BASE + gap, pie.path, "padding between functions");

	/* ret_addr: a call ending u_alpha returns to its last byte + 1 */
	s = rsym(&pie, "u_alpha");
	usym_addr(u, 100, PIE_BASE + s->value + s->size, true, &f);
	CHECK_STR(f.sym, "u_alpha", "ret_addr at the function's end");
	CHECK_INT(f.sym_off, s->size, "ret_addr's sym_off is of the real address");
	CHECK_INT(f.file_off, r_off(&pie, s->value + s->size - 1) + 1, "ret_addr's file_off");
	usym_addr(u, 100, PIE_BASE + s->value + s->size, false, &f);
	CHECK(!f.sym || strcmp(f.sym, "u_alpha"), "not a return address: %s", f.sym);
	s = rsym(&nopie, "u_beta");
	usym_addr(u, 100, s->value + s->size, true, &f);
	CHECK_STR(f.sym, "u_beta", "ret_addr, non-PIE");
	CHECK_INT(f.sym_off, s->size, "ret_addr, non-PIE, sym_off");

	/* in no mapping: nothing known */
	expect_unknown_at(u, 100, 0x1000, NULL, "below every mapping");
	expect_unknown_at(u, 100, 0x01000010, NULL, "[heap]");
	expect_unknown_at(u, 100, 0x7ffff7fc1010, NULL, "[vdso]");
	expect_unknown_at(u, 100, 0xffffffffffffff00ull, NULL, "top of the address space");
	expect_unknown_at(u, 100, 0, NULL, "address 0");
	usym_addr(u, 100, 0, true, &f);
	CHECK(!f.sym && !f.path, "ret_addr 0: %s %s", f.sym, f.path);
	/* a process never seen: no maps file */
	expect_unknown_at(u, 99999, PIE_BASE + s->value, NULL, "no such process");
	CHECK_INT(usym_capture(u, 99999), -ENOENT, "capture of a missing process");
	usym_free(u);
}

/* Garbage maps lines, a truncated ELF file, a file that is no ELF, deleted files. */
static void test_garbage(void)
{
	char trunc[256], text[256], gone[256], real[256], shown[300], mf[256];
	struct usym *u = new_usym();
	const struct rseg *x;
	struct usym_frame f;
	FILE *m;
	int i;

	snprintf(trunc, sizeof(trunc), "%s/bin/truncated", dir);
	snprintf(text, sizeof(text), "%s/bin/text", dir);
	run("head -c 200 %s > %s && echo 'not an ELF file at all' > %s", pie.path, trunc, text);
	m = maps_open(200);
	fputs("garbage\n"
	      "\n"
	      "zzzz-yyyy r-xp 0 0:0 0 /x\n"
	      "7f0000001000-7f0000000000 r-xp 00000000 08:01 123 /backwards\n"
	      "7f0000001000-7f0000002000 r-xp 00000000 08:01\n"
	      "7f0000003000-7f0000004000 r-xp\n"
	      "7f0000005000-7f0000006000 r-xp 00000000 08:01 123 relative/path\n"
	      "7f0000007000-7f0000008000 r-xp 00000000 08:01 0 \n"
	      "7f0000009000-7f000000a000 r-xp 00000000 08:01 1 /no/such/file\n",
	      m);
	for (i = 0; i < 300; i++)	/* one absurdly long line */
		fputs("xxxxxxxxxx", m);
	fputs("\n", m);
	fprintf(m, "7f1000000000-7f1000010000 r-xp 00000000 00:00 0 %s\n", trunc);
	fprintf(m, "7f2000000000-7f2000010000 r-xp 00000000 00:00 0 %s\n", text);
	maps_add(m, &pie, PIE_BASE, pie.path, pie.path);	/* a good line after the bad ones */
	fclose(m);
	CHECK_INT(usym_capture(u, 200), 0, "capture with garbage lines");
	expect_at(u, 200, &pie, pie.path, PIE_BASE, "u_alpha", 1);	/* positive control */
	expect_unknown_at(u, 200, 0x7f1000000100, trunc, "truncated ELF");
	expect_unknown_at(u, 200, 0x7f2000000100, text, "not an ELF file");
	expect_unknown_at(u, 200, 0x7f0000009100, "/no/such/file", "file missing");
	expect_unknown_at(u, 200, 0x7f0000005100, NULL, "relative path");
	CHECK_INT(usym_add_file(u, trunc), -ENOEXEC, "add_file truncated");
	CHECK_INT(usym_add_file(u, text), -ENOEXEC, "add_file text");
	CHECK_INT(usym_add_file(u, "/no/such/file"), -ENOENT, "add_file missing");

	/* deleted: opened through map_files while the process lives */
	snprintf(real, sizeof(real), "%s/bin/pie-copy", dir);
	snprintf(gone, sizeof(gone), "%s/bin/pie-gone", dir);
	run("cp %s %s", pie.path, real);
	snprintf(shown, sizeof(shown), "%s (deleted)", gone);
	m = maps_open(201);
	maps_add(m, &pie, PIE_BASE, shown, real);
	maps_add(m, &nopie, 0, "/gone/for/good (deleted)", nopie.path);
	fclose(m);
	snprintf(mf, sizeof(mf), "%s/201/map_files", proc_root);
	mkdir(mf, 0755);
	/* as the kernel has it: one link per mapping, named start-end without padding */
	for (i = 0; i < pie.nsegs; i++) {
		x = &pie.segs[i];
		snprintf(mf, sizeof(mf), "%s/201/map_files/%llx-%llx", proc_root,
			 PIE_BASE + (x->vaddr & ~0xfffull),
			 (PIE_BASE + x->vaddr + x->memsz + 0xfff) & ~0xfffull);
		if (symlink(real, mf))
			die(mf);
	}
	expect_at(u, 201, &pie, shown, PIE_BASE, "u_beta", 2);
	expect_unknown_at(u, 201, rsym(&nopie, "u_alpha")->value, "/gone/for/good (deleted)",
			  "deleted, no map_files");
	usym_addr(u, 201, rsym(&nopie, "u_alpha")->value + 4, false, &f);
	CHECK_INT(f.file_off, r_off(&nopie, rsym(&nopie, "u_alpha")->value + 4),
		  "deleted: the file offset is still known");

	/*
	 * Replaced at its path (another inode there now) by a build aligned to 32 bytes, where
	 * u_static+1's file offset in nopie falls inside u_alpha: not the file mapped...
	 */
	snprintf(real, sizeof(real), "%s/bin/nopie-orig", dir);
	snprintf(gone, sizeof(gone), "%s/bin/nopie-replaced", dir);
	run("cp %s %s && cd %s && cc -O1 -falign-functions=32 -DV=2 -fno-pie -no-pie prog.c "
	    "-o %s", nopie.path, real, dir, gone);
	m = maps_open(202);
	maps_add(m, &nopie, 0, gone, real);
	fclose(m);
	expect_unknown_at(u, 202, rsym(&nopie, "u_static")->value + 1, gone,
			  "replaced at its path");
	/* ...but another process whose map_files opens the one it maps */
	m = maps_open(203);
	maps_add(m, &nopie, 0, gone, real);
	fclose(m);
	snprintf(mf, sizeof(mf), "%s/203/map_files", proc_root);
	mkdir(mf, 0755);
	for (i = 0; i < nopie.nsegs; i++) {
		x = &nopie.segs[i];
		snprintf(mf, sizeof(mf), "%s/203/map_files/%llx-%llx", proc_root,
			 (unsigned long long)(x->vaddr & ~0xfffull),
			 (unsigned long long)((x->vaddr + x->memsz + 0xfff) & ~0xfffull));
		if (symlink(real, mf))
			die(mf);
	}
	expect_at(u, 203, &nopie, gone, 0, "u_static", 1);
	usym_free(u);
}

static void frame32(unsigned char out[32], int32_t status, const unsigned char *id,
		    uint64_t v)
{
	memset(out, 0, 32);
	memcpy(out, &status, 4);
	if (id)
		memcpy(out + 4, id, 20);
	memcpy(out + 24, &v, 8);
}

/* By build id, no process ever captured. */
static void test_by_build_id(void)
{
	struct usym *u = new_usym();
	const struct rsym *s = rsym(&pie, "u_alpha");
	unsigned char raw[33], junk[20];
	struct usym_frame f;
	char ctx[] = "build id";

	CHECK_INT(usym_add_file(u, pie.path), 0, "add_file pie");
	usym_build_id(u, pie.id, r_off(&pie, s->value + 5), false, &f);
	CHECK_STR(f.sym, "u_alpha", ctx);
	CHECK_INT(f.sym_off, 5, ctx);
	CHECK_STR(f.path, pie.path, ctx);
	CHECK_INT(f.file_off, r_off(&pie, s->value + 5), ctx);
	CHECK_INT(f.addr, 0, ctx);
	/* a return address at the end of u_alpha */
	usym_build_id(u, pie.id, r_off(&pie, s->value + s->size), true, &f);
	CHECK_STR(f.sym, "u_alpha", "build id, ret_addr");
	CHECK_INT(f.sym_off, s->size, "build id, ret_addr's sym_off");

	/* nopie was never added: found by scanning pie's directory */
	s = rsym(&nopie, "u_static");
	usym_build_id(u, nopie.id, r_off(&nopie, s->value + 1), false, &f);
	CHECK_STR(f.sym, "u_static", "build id by directory scan");
	CHECK_INT(f.sym_off, 1, "build id by directory scan");
	CHECK_STR(f.path, nopie.path, "build id by directory scan");

	/* only a debug file under DEBUG_ROOT/.build-id/: the binary's layout is rebuilt */
	s = rsym(&hid, "u_beta");
	usym_build_id(u, hid.id, r_off(&hid, s->value + 3), false, &f);
	CHECK_STR(f.sym, "u_beta", "build id, debug file only");
	CHECK_INT(f.sym_off, 3, "build id, debug file only");
	CHECK(f.path && strstr(f.path, "/.build-id/"), "debug file's path: %s", f.path);
	s = rsym(&hid, "main");
	usym_build_id(u, hid.id, r_off(&hid, s->value), false, &f);
	CHECK_STR(f.sym, "main", "build id, debug file only, main");

	/* a 16-byte build id, zero-padded */
	CHECK_INT(usym_add_file(u, md5.path), 0, "add_file md5");
	memset(junk, 0, sizeof(junk));
	memcpy(junk, md5.id, 16);
	s = rsym(&md5, "u_static");
	usym_build_id(u, junk, r_off(&md5, s->value), false, &f);
	CHECK_STR(f.sym, "u_static", "16-byte build id");
	memset(junk, 0, sizeof(junk));
	memcpy(junk, md5hid.id, 16);
	s = rsym(&md5hid, "u_alpha");
	usym_build_id(u, junk, r_off(&md5hid, s->value + 1), false, &f);
	CHECK_STR(f.sym, "u_alpha", "16-byte build id, debug file only (named by 32 hex digits)");

	/* unknown id: nothing (and asked twice: the miss is remembered, same answer) */
	memset(junk, 0xab, sizeof(junk));
	usym_build_id(u, junk, 0x1100, false, &f);
	CHECK(!f.sym && !f.path, "unknown build id: %s %s", f.sym, f.path);
	usym_build_id(u, junk, 0x1100, false, &f);
	CHECK(!f.sym && !f.path, "unknown build id again: %s %s", f.sym, f.path);
	/* a known id, an offset in no function / past the file */
	usym_build_id(u, pie.id, 0x7fffffff, false, &f);
	CHECK(!f.sym, "offset past the file: %s", f.sym);
	CHECK_STR(f.path, pie.path, "offset past the file");

	/* the kernel's 32-byte frames, at an odd address */
	s = rsym(&pie, "u_beta");
	frame32(raw + 1, USYM_FRAME_VALID, pie.id, r_off(&pie, s->value + 2));
	usym_frame32(u, 4242, raw + 1, false, &f);
	CHECK_STR(f.sym, "u_beta", "frame32 VALID");
	CHECK_INT(f.sym_off, 2, "frame32 VALID");
	frame32(raw + 1, USYM_FRAME_EMPTY, pie.id, r_off(&pie, s->value + 2));
	usym_frame32(u, 4242, raw + 1, false, &f);
	CHECK(!f.sym && !f.path, "frame32 EMPTY: %s", f.sym);
	frame32(raw + 1, 7, pie.id, r_off(&pie, s->value + 2));
	usym_frame32(u, 4242, raw + 1, false, &f);
	CHECK(!f.sym && !f.path, "frame32 status 7: %s", f.sym);
	usym_free(u);
}

/* IP frames through a process's maps; usym_forget reads them again. */
static void test_ip_frames_and_forget(void)
{
	struct usym *u = new_usym();
	const struct rsym *s = rsym(&pie, "u_static");
	unsigned char raw[32];
	struct usym_frame f;
	FILE *m = maps_open(300);

	maps_add(m, &pie, PIE_BASE, pie.path, pie.path);
	fclose(m);
	frame32(raw, USYM_FRAME_IP, NULL, PIE_BASE + s->value + 3);
	usym_frame32(u, 300, raw, false, &f);	/* captures on first use */
	CHECK_STR(f.sym, "u_static", "frame32 IP");
	CHECK_INT(f.addr, PIE_BASE + s->value + 3, "frame32 IP addr");
	/* the pid reused by another program at the same addresses */
	m = maps_open(300);
	maps_add(m, &lib, PIE_BASE, lib.path, lib.path);
	fclose(m);
	CHECK_INT(usym_capture(u, 300), 0, "a repeat capture");
	usym_frame32(u, 300, raw, false, &f);
	CHECK_STR(f.sym, "u_static", "maps not read again before usym_forget");
	usym_forget(u, 300);
	s = rsym(&lib, "lib_exported");
	expect_at(u, 300, &lib, lib.path, PIE_BASE, "lib_exported", 1);
	usym_forget(u, 12345);	/* never seen: nothing to do */
	usym_free(u);
}

/* A function of this test binary, looked up in this very process through the real /proc. */
__attribute__((noinline, used)) int usym_test_marker(int x)
{
	__asm__ volatile("" ::: "memory");
	return x * 7 + 1;
}

static void test_self(void)
{
	struct usym *u = usym_new(NULL);
	struct usym_frame f;
	char exe[512];
	ssize_t n;

	if (!u)
		die("usym_new(NULL)");
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	usym_addr(u, getpid(), (uintptr_t)usym_test_marker + 2, false, &f);
	CHECK_STR(f.sym, "usym_test_marker", "this process, by address");
	CHECK_INT(f.sym_off, 2, "this process, by address");
	CHECK_STR(f.path, exe, "this process's executable");
	usym_free(u);
	usym_free(NULL);
}

/* addr2line (binutils) -e path vaddr: "file:line", discriminator left out. */
static void addr2line(const char *path, uint64_t vaddr, char *out, size_t len)
{
	char cmd[512];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "addr2line -e '%s' 0x%" PRIx64, path, vaddr);
	p = popen(cmd, "r");
	if (!p || !fgets(out, (int)len, p))
		die("addr2line (binutils) is a test dependency");
	pclose(p);
	out[strcspn(out, " \n")] = '\0';
}

/* the frame's file:line against addr2line's on the binary with its DWARF (full) */
static void expect_line(const struct usym_frame *f, const char *full, uint64_t vaddr,
			const char *ctx)
{
	char want[512], got[512];

	addr2line(full, vaddr, want, sizeof(want));
	CHECK(strncmp(want, "??", 2), "%s: addr2line knows %#" PRIx64, ctx, vaddr);
	snprintf(got, sizeof(got), "%s:%u", f->src_file ? f->src_file : "(none)", f->src_line);
	CHECK_STR(got, want, ctx);
}

/* file:line from the binary's own DWARF, a build-id debug file's, a .gnu_debuglink's */
static void test_lines(void)
{
	struct usym *u = new_usym();
	const struct rsym *s;
	struct usym_frame f;
	char p[512];

	CHECK_INT(usym_add_file(u, pie.path), 0, "add_file pie");
	s = rsym(&pie, "u_alpha");
	usym_build_id(u, pie.id, r_off(&pie, s->value + 4), false, &f);
	expect_line(&f, pie.path, s->value + 4, "the binary's own DWARF");
	CHECK(f.ninl == 0, "no inlining at -O1 with noinline: %u", f.ninl);
	/* a return address: the line of the call, at the byte before */
	usym_build_id(u, pie.id, r_off(&pie, s->value + s->size), true, &f);
	expect_line(&f, pie.path, s->value + s->size - 1, "a return address's line");
	/* stripped: DWARF from DEBUG_ROOT/.build-id/ */
	snprintf(p, sizeof(p), "%s/bin/pie2", dir);
	CHECK_INT(usym_add_file(u, p), 0, "add_file pie2");
	s = rsym(&pie2, "u_beta");
	usym_build_id(u, pie2.id, r_off(&pie2, s->value + 2), false, &f);
	expect_line(&f, pie2.path, s->value + 2, "DWARF of a build-id debug file");
	/* stripped: DWARF from the .gnu_debuglink file */
	snprintf(p, sizeof(p), "%s/dl/libdl.so", dir);
	CHECK_INT(usym_add_file(u, p), 0, "add_file libdl");
	s = rsym(&libdl, "lib_exported");
	usym_build_id(u, libdl.id, r_off(&libdl, s->value + 1), false, &f);
	expect_line(&f, libdl.path, s->value + 1, "DWARF of a .gnu_debuglink file");
	/* no DWARF at all (stripped, no debug file): no line, never a guess */
	CHECK_INT(usym_add_file(u, lib_stripped.path), 0, "add_file stripped");
	s = rsym(&lib_stripped, "lib_exported");
	usym_build_id(u, lib_stripped.id, r_off(&lib_stripped, s->value), false, &f);
	CHECK(f.sym && !f.src_file && !f.src_line, "stripped: %s at %s:%u", f.sym, f.src_file,
	      f.src_line);
	usym_free(u);
}

/* A frame in no file: named from DIR/perf-TGID.map, as a JIT writes it. */
static void test_perf_map(void)
{
	struct usym_opts o = { .proc_root = proc_root, .debug_root = debug_root,
			       .perf_map_dir = dir };
	struct usym *u = usym_new(&o);
	struct usym_frame f;
	char p[512];
	FILE *m = maps_open(400);

	if (!u)
		die("usym_new");
	maps_add(m, &pie, PIE_BASE, pie.path, pie.path);
	fclose(m);
	usym_addr(u, 400, 0x7f0000001010, false, &f);
	CHECK(!f.sym && !f.path, "no perf map yet: %s %s", f.sym, f.path);
	snprintf(p, sizeof(p), "%s/perf-400.map", dir);
	/* a malformed line skipped; a start given twice: the later line (recompiled code) */
	write_file(p, "7f0000001000 40 LazyCompile:~old app.js:1\n"
		      "not a line\n"
		      "0x7f0000002000 0x20 Interpreter\n"
		      "7f0000001000 30 LazyCompile:*hot app.js:1\n");
	usym_addr(u, 400, 0x7f0000001010, true, &f);
	CHECK_STR(f.sym, "LazyCompile:*hot app.js:1", "perf map, read again once it exists");
	CHECK_INT(f.sym_off, 0x10, "perf map offset");
	CHECK_STR(f.path, p, "perf map as the frame's file");
	usym_addr(u, 400, 0x7f0000002005, false, &f);
	CHECK_STR(f.sym, "Interpreter", "perf map, 0x-prefixed");
	usym_addr(u, 400, 0x7f0000001030, false, &f);
	CHECK(!f.sym, "past the entry's size: %s", f.sym);
	/* an address in a file is the file's, not the map's */
	expect_at(u, 400, &pie, pie.path, PIE_BASE, "u_alpha", 2);
	usym_free(u);
}

/* C++ and Rust (legacy and v0, hand-mangled) names, as c++filt (binutils) demangles them */
static const char cxx_cc[] =
	"#define N __attribute__((noinline, used))\n"
	"namespace shop { struct Cart { int n; int total(int k) const; };\n"
	"N int Cart::total(int k) const { return n * k; }\n"
	"N int checkout(int n) { Cart c{n}; return c.total(3); }\n"
	"N int checkout(const char *s) { return checkout((int)s[0]); } }\n"
	"N int rust_legacy(int x) __asm__(\"_ZN7mycrate4shop8checkout17h0123456789abcdefE\");\n"
	"int rust_legacy(int x) { return x + 1; }\n"
	"N int rust_v0(int x) __asm__(\"_RNvCs1234_7mycrate3foo\");\n"
	"int rust_v0(int x) { return x + 2; }\n"
	"int main(int c, char **v) { return shop::checkout(v[0]) + rust_legacy(c) + rust_v0(c); }\n";

static void cxxfilt(const char *name, char *out, size_t len)
{
	char cmd[512];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "c++filt '%s'", name);
	p = popen(cmd, "r");
	if (!p || !fgets(out, (int)len, p))
		die("c++filt (binutils) is a test dependency");
	pclose(p);
	out[strcspn(out, "\n")] = '\0';
}

static void test_demangled(void)
{
	static const char *const raw[] = {
		"_ZNK4shop4Cart5totalEi", "_ZN4shop8checkoutEi", "_ZN4shop8checkoutEPKc",
		"_ZN7mycrate4shop8checkout17h0123456789abcdefE", "_RNvCs1234_7mycrate3foo",
	};
	struct usym_opts o = { .proc_root = proc_root, .debug_root = debug_root,
			       .raw_names = true };
	struct usym *u = new_usym(), *r = usym_new(&o);
	char p[512], want[512];
	struct usym_frame f;
	struct relf cxx;
	size_t i;

	snprintf(p, sizeof(p), "%s/cxx.cc", dir);
	write_file(p, cxx_cc);
	run("cd %s && g++ -O1 -g -Wl,--build-id cxx.cc -o bin/cxx", dir);
	snprintf(p, sizeof(p), "%s/bin/cxx", dir);
	readelf(p, &cxx);
	if (!r || usym_add_file(u, p) || usym_add_file(r, p))
		die("usym_add_file cxx");
	for (i = 0; i < sizeof(raw) / sizeof(raw[0]); i++) {
		const struct rsym *s = rsym(&cxx, raw[i]);

		cxxfilt(raw[i], want, sizeof(want));
		CHECK(strcmp(want, raw[i]), "c++filt demangles %s", raw[i]);
		usym_build_id(u, cxx.id, r_off(&cxx, s->value) + 1, false, &f);
		CHECK_STR(f.sym, want, raw[i]);
		CHECK_INT(f.sym_off, 1, raw[i]);
		usym_build_id(r, cxx.id, r_off(&cxx, s->value) + 1, false, &f);
		CHECK_STR(f.sym, raw[i], "raw names: as in the file");
	}
	/* a C name is left as it is */
	usym_build_id(u, cxx.id, r_off(&cxx, rsym(&cxx, "main")->value), false, &f);
	CHECK_STR(f.sym, "main", "a C name");
	usym_free(u);
	usym_free(r);
}

/* Not asserted (no timed assertions): frames/s, printed with USYM_BENCH=1. */
static void bench(void)
{
	struct usym *u = new_usym();
	const struct rsym *s = rsym(&pie, "u_beta");
	struct timespec a, b;
	struct usym_frame f;
	unsigned long i, n = 2000000, hits = 0;
	double secs;

	if (usym_add_file(u, pie.path))
		die("add_file pie");
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < n; i++) {
		usym_addr(u, 100, PIE_BASE + s->value + (i & 7), i & 1, &f);
		hits += f.sym != NULL;
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	secs = (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
	fprintf(stderr, "# usym_addr: %.1f M frames/s (%lu of %lu named)\n", n / secs / 1e6, hits,
		n);
	hits = 0;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < n; i++) {
		usym_build_id(u, pie.id, r_off(&pie, s->value) + (i & 7), i & 1, &f);
		hits += f.sym != NULL;
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	secs = (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
	fprintf(stderr, "# usym_build_id: %.1f M frames/s (%lu of %lu named)\n", n / secs / 1e6,
		hits, n);
	usym_free(u);
}

int main(void)
{
	strcpy(dir, "/tmp/kpt_usym_XXXXXX");
	if (!mkdtemp(dir)) {
		dir[0] = '\0';
		die("mkdtemp");
	}
	snprintf(proc_root, sizeof(proc_root), "%s/proc", dir);
	snprintf(debug_root, sizeof(debug_root), "%s/debug", dir);
	build();
	test_by_addr();
	test_garbage();
	test_by_build_id();
	test_ip_frames_and_forget();
	test_self();
	test_demangled();
	test_lines();
	test_perf_map();
	if (getenv("USYM_BENCH"))
		bench();
	cleanup();
	return check_report();
}
