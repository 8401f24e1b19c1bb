// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * USDT notes (sys/elf.c's kelf_sdt_notes, sys/usdt.c): the notes of
 * tests/host/usdt_target.c, built here as PIE, as non-PIE and with its
 * .stapsdt.base moved as prelink moves it, and of Debian's python3.11 when
 * present, against `readelf -n` and `readelf -l` on the same files; and
 * the argument spec parser, table-driven.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "sys/elf.h"
#include "sys/usdt.h"

static char dir[64];

static void run(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	CHECK(system(cmd) == 0, "%s", cmd);
}

/* What readelf says of one file: its SDT notes and its PT_LOAD segments. */
struct rnote {
	char provider[64], name[64], args[256];
	unsigned long long pc, base, sema;
};

struct rinfo {
	struct rnote n[64];
	int nn;
	unsigned long long seg[16][3];	/* offset, vaddr, filesz */
	int nseg;
	unsigned long long sdt_base;	/* .stapsdt.base's address */
};

static void readelf(const char *path, struct rinfo *r)
{
	char cmd[512], line[1024], sec[64];
	unsigned long long o, va, pa, fs, a;
	struct rnote *n = NULL;
	FILE *p;

	memset(r, 0, sizeof(*r));
	snprintf(cmd, sizeof(cmd), "readelf -W -n -l -S '%s' 2>/dev/null", path);
	p = popen(cmd, "r");
	if (!p)
		return;
	while (fgets(line, sizeof(line), p)) {
		line[strcspn(line, "\n")] = '\0';
		/* with -W, "Provider:" ends the note's first line */
		if (strstr(line, "NT_STAPSDT") && r->nn < 64) {
			n = &r->n[r->nn++];
			if (strstr(line, "Provider: "))
				sscanf(strstr(line, "Provider: "), "Provider: %63s", n->provider);
		} else if (n && sscanf(line, " Provider: %63s", n->provider) == 1) {
		} else if (n && sscanf(line, " Name: %63s", n->name) == 1) {
		} else if (n && sscanf(line, " Location: %llx, Base: %llx, Semaphore: %llx", &n->pc,
				       &n->base, &n->sema) == 3) {
		} else if (n && strstr(line, "Arguments:")) {
			snprintf(n->args, sizeof(n->args), "%s", strstr(line, "Arguments:") + 11);
		} else if (sscanf(line, " LOAD %llx %llx %llx %llx", &o, &va, &pa, &fs) == 4 &&
			   r->nseg < 16) {
			r->seg[r->nseg][0] = o;
			r->seg[r->nseg][1] = va;
			r->seg[r->nseg++][2] = fs;
		} else if (sscanf(line, " [%*d] %63s PROGBITS %llx", sec, &a) == 2 &&
			   !strcmp(sec, ".stapsdt.base")) {
			r->sdt_base = a;
		}
	}
	pclose(p);
}

/* readelf's segments' file offset of v, or -1 */
static long long ref_offset(const struct rinfo *r, unsigned long long v)
{
	int i;

	for (i = 0; i < r->nseg; i++)
		if (v >= r->seg[i][1] && v < r->seg[i][1] + r->seg[i][2])
			return (long long)(v - r->seg[i][1] + r->seg[i][0]);
	return -1;
}

struct seen {
	struct kelf_sdt n[64];
	char text[64][3][256];
	int nn;
};

static int keep(const struct kelf_sdt *n, void *arg)
{
	struct seen *s = arg;

	if (s->nn == 64)
		return -E2BIG;
	s->n[s->nn] = *n;
	snprintf(s->text[s->nn][0], 256, "%s", n->provider);
	snprintf(s->text[s->nn][1], 256, "%s", n->name);
	snprintf(s->text[s->nn][2], 256, "%s", n->args);
	s->nn++;
	return 0;
}

/*
 * path's notes by kelf_sdt_notes() and its probes by usdt_read() against
 * readelf's: the same notes in order, addresses moved by .stapsdt.base's
 * distance from the note's base, the uprobe's and counter's file offsets
 * from readelf's PT_LOAD segments. Returns the note count.
 */
static int compare(const char *path, bool offsets)
{
	struct usdt_probe *up = NULL;
	struct rinfo *r = calloc(1, sizeof(*r));
	struct seen *s = calloc(1, sizeof(*s));
	unsigned long long d;
	struct kelf f;
	char msg[256];
	int i, n = 0, nn;

	if (!r || !s || kelf_open(path, &f, msg, sizeof(msg))) {
		CHECK(0, "cannot open %s", path);
		return 0;
	}
	readelf(path, r);
	CHECK_INT(kelf_sdt_notes(f.e, keep, s), 0, path);
	kelf_close(&f);
	CHECK(r->nn > 0 && s->nn == r->nn, "%s: %d notes, readelf %d", path, s->nn, r->nn);
	for (i = 0; i < s->nn && i < r->nn; i++) {
		d = r->sdt_base - r->n[i].base;
		CHECK_STR(s->text[i][0], r->n[i].provider, path);
		CHECK_STR(s->text[i][1], r->n[i].name, path);
		CHECK_STR(s->text[i][2], r->n[i].args, path);
		CHECK_INT(s->n[i].base, r->n[i].base, r->n[i].name);
		CHECK_INT(s->n[i].pc, r->n[i].pc + d, r->n[i].name);
		CHECK_INT(s->n[i].sema, r->n[i].sema ? r->n[i].sema + d : 0, r->n[i].name);
	}
	if (offsets) {
		CHECK_INT(usdt_read(path, &up, &n, msg, sizeof(msg)), 0, msg);
		CHECK_INT(n, r->nn, path);
		for (i = 0; i < n && i < r->nn; i++) {
			CHECK_INT(up[i].off, ref_offset(r, r->n[i].pc), r->n[i].name);
			CHECK_INT(up[i].sema_off, r->n[i].sema ? ref_offset(r, r->n[i].sema) : 0,
				  r->n[i].name);
			CHECK(!up[i].bad, "%s: %s", r->n[i].name, up[i].bad);
		}
		usdt_free(up, n);
	}
	nn = s->nn;
	free(r);
	free(s);
	return nn;
}

static void test_notes(void)
{
	char bin[128];

	snprintf(bin, sizeof(bin), "%s/pie", dir);
	run("cc -O1 -fPIE -pie tests/host/usdt_target.c -o %s", bin);
	CHECK_INT(compare(bin, true), 7, "kpt's probes (PIE)");
	snprintf(bin, sizeof(bin), "%s/nopie", dir);
	run("cc -O1 -fno-pie -no-pie tests/host/usdt_target.c -o %s", bin);
	CHECK_INT(compare(bin, true), 7, "kpt's probes (non-PIE)");
	/* prelink moves .stapsdt.base and leaves the notes: pc and sema follow the section */
	snprintf(bin, sizeof(bin), "%s/moved", dir);
	run("objcopy --change-section-address .stapsdt.base+0x1000 %s/pie %s", dir, bin);
	CHECK_INT(compare(bin, false), 7, "kpt's probes, .stapsdt.base moved");
	/* a semaphore in .bss: no file offset for the kernel's counter */
	snprintf(bin, sizeof(bin), "%s/bss", dir);
	run("cc -O1 -DSEMAPHORES_IN_BSS tests/host/usdt_target.c -o %s", bin);
	{
		struct usdt_probe *up;
		char msg[256] = "";
		int n;

		CHECK_INT(usdt_read(bin, &up, &n, msg, sizeof(msg)), -EFAULT, "semaphore in .bss");
		CHECK(strstr(msg, "semaphore 0x") && strstr(msg, "is in no segment's file bytes"),
		      "semaphore in .bss: %s", msg);
	}
	if (!access("/usr/bin/python3.11", R_OK))
		CHECK(compare("/usr/bin/python3.11", true) > 0, "python3.11's notes");
}

/* Argument specs: the fetch argument each becomes, or the refusal's words. */
static void test_args(void)
{
	static const struct {
		const char *spec, *want;
	} specs[] = {
		{ "-4@%eax", "%ax:s32" },
		{ "8@%rax", "%ax:u64" },
		{ "1@%dil", "%di:u8" },
		{ "-2@%cx", "%cx:s16" },
		{ "8@%r14", "%r14:u64" },
		{ "-4@%r14d", "%r14:s32" },
		{ "2@%r8w", "%r8:u16" },
		{ "1@%r15b", "%r15:u8" },
		{ "-1@%spl", "%sp:s8" },
		{ "8@16(%rsp)", "+16(%sp):u64" },
		{ "-4@112(%rsp)", "+112(%sp):s32" },
		{ "8@(%rsp)", "+0(%sp):u64" },
		{ "-8@-24(%rbp)", "-24(%bp):s64" },
		{ "4@0x10(%rbx)", "+16(%bx):u32" },
		{ "-4@$5", "\\5:s32" },
		{ "-4@$-7", "\\-7:s32" },
		{ "8@$18000000000000000000", "\\18000000000000000000:u64" },
		{ "-8@$-9223372036854775808", "\\-9223372036854775808:s64" },
		{ "8@-2147483648(%rbp)", "-2147483648(%bp):u64" },
		{ "8@2147483648(%rbp)", "an offset past 32 bits" },
		/* refusals: the words the message holds */
		{ "%eax", "no SIZE@" },
		{ "3@%eax", "not 1, 2, 4 or 8" },
		{ "-16@%eax", "not 1, 2, 4 or 8" },
		{ "4@%ah", "not an x86-64 general register" },
		{ "4@%xmm0", "not an x86-64 general register" },
		{ "8@(%rax,%rbx,8)", "(not an indexed address)" },
		{ "8@counter(%rbx)", "other than SYM(%rip)" },
		{ "8@counter+x(%rip)", "offset that is not a number" },
		{ "8@1234", "not an absolute address" },
		{ "4@$x", "not a number" },
		{ "4@@x", "not an operand" },
		{ "4@%eax,", "text after the operand" },
	};
	struct usdt_arg a;
	const char *end;
	char got[256];
	size_t i;

	for (i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		if (usdt_arg_parse(EM_X86_64, specs[i].spec, &end, &a, got, sizeof(got)) == 0) {
			usdt_arg_fetch(&a, got, sizeof(got));
			CHECK_STR(got, specs[i].want, specs[i].spec);
			CHECK(!*end, "%s: %s left", specs[i].spec, end);
		} else {
			CHECK(strstr(got, specs[i].want) && strstr(got, specs[i].spec), "%s: %s", specs[i].spec,
			      got);
		}
	}
	/* a global: its name kept for usdt_read(), the offset and %ip's word */
	CHECK_INT(usdt_arg_parse(EM_X86_64, "-4@kpt_rounds+8(%rip)", &end, &a, got, sizeof(got)), 0, "rip");
	CHECK(a.kind == USDT_ARG_MEM && a.sym && a.symlen == 10 && !strncmp(a.sym, "kpt_rounds", 10) &&
	      a.val == 8 && !strcmp(a.reg, "ip") && a.sign && a.size == 4,
	      "kpt_rounds+8(%%rip): kind %d, sym %.*s, val %lld, reg %s", a.kind, (int)a.symlen,
	      a.sym ? a.sym : "", (long long)a.val, a.reg);
	/* one argument of several: the parser stops at its blank */
	CHECK_INT(usdt_arg_parse(EM_X86_64, "8@%rbp 8@%r12 -4@%eax", &end, &a, got, sizeof(got)), 0, "list");
	CHECK_STR(end, "8@%r12 -4@%eax", "the next argument");
}

/* One spec of machine: its fetch, or the refusal's words (and the spec) in the message. */
static void one_spec(int machine, const char *spec, const char *want)
{
	struct usdt_arg a;
	const char *end;
	char got[256];

	if (usdt_arg_parse(machine, spec, &end, &a, got, sizeof(got)) == 0) {
		usdt_arg_fetch(&a, got, sizeof(got));
		CHECK_STR(got, want, spec);
		CHECK(!*end, "%s: %s left", spec, end);
	} else {
		CHECK(strstr(got, want) && strstr(got, spec), "%s: %s", spec, got);
	}
}

/*
 * An arm64 note's argument as the test reads it (sscanf), the fetch it
 * must become; "" where it is none of the forms kptrace reads.
 */
static void arm64_want(const char *arg, char *want, size_t len)
{
	long long v;
	int size, reg, n = 0;
	char t[16];

	want[0] = '\0';
	if (sscanf(arg, "%d@", &size) != 1)
		return;
	snprintf(t, sizeof(t), ":%c%d", size < 0 ? 's' : 'u', abs(size) * 8);
	if ((sscanf(arg, "%*d@x%d%n", &reg, &n) == 1 || sscanf(arg, "%*d@w%d%n", &reg, &n) == 1) &&
	    !arg[n])
		snprintf(want, len, "%%x%d%s", reg, t);
	else if (sscanf(arg, "%*d@[sp, %lld]%n", &v, &n) == 1 && !arg[n])
		snprintf(want, len, "%+lld(%%sp)%s", v, t);
	else if (sscanf(arg, "%*d@[x%d]%n", &reg, &n) == 1 && !arg[n])
		snprintf(want, len, "+0(%%x%d)%s", reg, t);
	else if (sscanf(arg, "%*d@%lld%n", &v, &n) == 1 && !arg[n])
		snprintf(want, len, "\\%lld%s", v, t);
}

/*
 * arm64's forms: a table, then tests/host/usdt_target.c built by Debian's
 * arm64 cross compiler (where installed), each note argument readelf shows
 * against the test's own reading of it; a global's adrp-relative form
 * (#:lo12:) refused by name; usdt_read() refuses the file on x86-64.
 */
static void test_arm64(void)
{
	static const char *const specs[][2] = {
		{ "8@x0", "%x0:u64" },
		{ "-8@x19", "%x19:s64" },
		{ "-4@w1", "%x1:s32" },
		{ "1@x30", "%x30:u8" },
		{ "8@sp", "%sp:u64" },
		{ "-4@[sp, 16]", "+16(%sp):s32" },
		{ "-1@[sp, 47]", "+47(%sp):s8" },
		{ "8@[x1]", "+0(%x1):u64" },
		{ "2@[x29, #-8]", "-8(%x29):u16" },
		{ "-4@5", "\\5:s32" },
		{ "-4@-7", "\\-7:s32" },
		{ "-4@[x0, #:lo12:.LANCHOR1]", "low 12 bits" },
		{ "8@x31", "not an arm64 general register" },
		/* a size of INT64_MIN, whose negation overflows (fuzz_usdt) */
		{ "-9223372036854775808@x0", "the size is not 1, 2, 4 or 8 bytes" },
		/* past int64_t: strtoull's value, negative as a signed number */
		{ "4@x11111111111511111111", "not an arm64 general register" },
		{ "8@x01", "not an arm64 general register" },
		{ "8@v0", "not an arm64 general register" },
		{ "4@%eax", "not an arm64 general register" },
		{ "8@[x1, x2]", "offset that is not a number" },
		{ "8@[x1", "an indexed address" },
	};
	char bin[128], inc[128], want[128], one[256];
	struct usdt_probe *up;
	struct rinfo r;
	size_t i;
	int k, parsed = 0, refused = 0, n;
	bool in;

	for (i = 0; i < sizeof(specs) / sizeof(specs[0]); i++)
		one_spec(EM_AARCH64, specs[i][0], specs[i][1]);
	if (system("command -v aarch64-linux-gnu-gcc > /dev/null 2>&1")) {
		printf("skip - no aarch64-linux-gnu-gcc: arm64 notes of usdt_target.c\n");
		return;
	}
	snprintf(inc, sizeof(inc), "%s/arm64inc", dir);
	snprintf(bin, sizeof(bin), "%s/usdt_target.arm64", dir);
	/* the host's sys/sdt.h is plain asm, the same for every machine */
	run("mkdir -p %s/sys && cp $(dirname $(echo '#include <sys/sdt.h>' | cpp -H -o /dev/null "
	    "2>&1 | awk '/sdt.h$/ { print $2; exit }'))/sdt*.h %s/sys/", inc, inc);
	run("aarch64-linux-gnu-gcc -O1 -g -I%s tests/host/usdt_target.c -o %s", inc, bin);
	readelf(bin, &r);
	CHECK(r.nn >= 6, "%s: %d notes", bin, r.nn);
	for (k = 0; k < r.nn; k++) {
		const char *q = r.n[k].args;

		while (*q) {
			/* arguments are split by blanks outside [...] */
			for (n = 0, in = false; q[n] && (in || q[n] != ' '); n++)
				in = q[n] == '[' ? true : q[n] == ']' ? false : in;
			snprintf(one, sizeof(one), "%.*s", n, q);
			q += n + (q[n] == ' ');
			arm64_want(one, want, sizeof(want));
			if (!strcmp(r.n[k].name, "global")) {
				one_spec(EM_AARCH64, one, "low 12 bits");
				refused++;
			} else {
				CHECK(want[0], "%s: %s, a form the test does not know", r.n[k].name,
				      one);
				one_spec(EM_AARCH64, one, want);
				parsed++;
			}
		}
	}
	printf("# arm64: %d arguments read, %d refused, of %d notes\n", parsed, refused, r.nn);
	CHECK(parsed >= 16 && refused == 2, "%d parsed, %d refused", parsed, refused);
#ifndef KPT_ARCH_ARM64
	CHECK_INT(usdt_read(bin, &up, &k, one, sizeof(one)), -ENOEXEC, "an arm64 file on x86-64");
	CHECK(strstr(one, "not an x86-64 ELF file"), "%s", one);
#else
	(void)up;
#endif
}

int main(void)
{
	strcpy(dir, "/tmp/kpt_usdt_XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	test_args();
	test_notes();
	test_arm64();
	run("rm -rf %s", dir);
	return check_report();
}
