// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ksyms: parsing, sizes, aliases, modules, lookups both ways and the %pS
 * text, against a made-up kallsyms file; then, when this user can see real
 * addresses, a round trip through /proc/kallsyms.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "sys/ksyms.h"

/*
 * Deliberately out of order (modules after the core, one module unsorted),
 * with aliases, a duplicate name across core and module, per-cpu offsets
 * below _stext, JITed BPF and an ftrace trampoline.
 */
static const char fake[] =
	"0000000000000000 A fixed_percpu_data\n"
	"0000000000002000 D per_cpu_var\n"
	"ffffffff81000000 T _stext\n"
	"ffffffff81000000 T _text\n"
	"ffffffff81000100 T do_sys_openat2\n"
	"ffffffff810001e0 t helper\n"
	"ffffffff810001e0 t helper_alias\n"
	"ffffffff81000300 t dup\n"
	"ffffffff81000380 t dup\n"
	"ffffffff81000400 D some_data\n"
	"this line is garbage\n"
	"ffffffff81000500 X\n"
	"\n"
	"ffffffff81001000 B _end\n"
	"ffffffffc0001080 t mod_func2\t[mymod]\n"
	"ffffffffc0001000 t mod_func\t[mymod]\n"
	"ffffffffc00010c0 d mod_data\t[mymod]\n"
	"ffffffffc0002000 t other_func\t[othermod]\n"
	"ffffffffc0002040 t do_sys_openat2\t[othermod]\n"
	"ffffffffc0002080 t mod_func\t[othermod]\n"
	"ffffffffc0003000 t bpf_prog_abc_foo\t[bpf]\n"
	"ffffffffc0003100 t bpf_prog_def_bar\t[bpf]\n"
	"ffffffffc0004000 t ftrace_trampoline\t[__builtin__ftrace]\n";

static char *write_tmp(const char *text)
{
	static char path[64];
	size_t n = strlen(text);
	int fd;

	strcpy(path, "/tmp/kpt_kallsyms_XXXXXX");
	fd = mkstemp(path);
	if (fd < 0 || write(fd, text, n) != (ssize_t)n) {
		perror("mkstemp/write");
		exit(2);
	}
	close(fd);
	return path;
}

static const char *fmt(const struct ksyms *ks, uint64_t addr, bool off)
{
	static char buf[1024];

	return ksyms_format(ks, addr, off, buf, sizeof(buf));
}

static void test_fake(void)
{
	char *path = write_tmp(fake);
	const struct ksym *s;
	struct ksyms *ks;
	char small[12];

	ks = ksyms_load(path);
	unlink(path);
	CHECK(ks != NULL, "load fake: %s", strerror(errno));
	if (!ks)
		return;
	CHECK(!ksyms_hidden(ks), "fake is not hidden");

	/* by name */
	s = ksyms_by_name(ks, "do_sys_openat2", NULL);
	CHECK(s && s->addr == 0xffffffff81000100ull && !s->module, "core before module");
	CHECK(s && s->size == 0xe0, "size to the next address");
	CHECK(s && s->type == 'T', "type letter");
	s = ksyms_by_name(ks, "do_sys_openat2", "othermod");
	CHECK(s && s->addr == 0xffffffffc0002040ull && s->module &&
	      !strcmp(s->module, "othermod"), "module-qualified");
	s = ksyms_by_name(ks, "mod_func", NULL);
	CHECK(s && s->addr == 0xffffffffc0001000ull, "first module's, lowest address");
	s = ksyms_by_name(ks, "mod_func", "othermod");
	CHECK(s && s->addr == 0xffffffffc0002080ull, "mod_func in othermod");
	CHECK(!ksyms_by_name(ks, "mod_func2", "othermod"), "not in that module");
	CHECK(!ksyms_by_name(ks, "nonexistent", NULL), "unknown name");
	CHECK(!ksyms_by_name(ks, "ftrace_trampoline", NULL), "__builtin__ left out");
	s = ksyms_by_name(ks, "dup", NULL);
	CHECK(s && s->addr == 0xffffffff81000300ull, "duplicate: lowest address");
	s = ksyms_by_name(ks, "helper_alias", NULL);
	CHECK(s && s->addr == 0xffffffff810001e0ull && s->size == 0x120, "alias size");

	/* by address */
	s = ksyms_by_addr(ks, 0xffffffff81000000ull);
	CHECK(s && !strcmp(s->name, "_stext"), "first listed alias wins: %s", s ? s->name : "-");
	s = ksyms_by_addr(ks, 0xffffffff810001e0ull);
	CHECK(s && !strcmp(s->name, "helper"), "alias: %s", s ? s->name : "-");
	s = ksyms_by_addr(ks, 0xffffffff810002ffull);
	CHECK(s && !strcmp(s->name, "helper"), "last byte of helper");
	s = ksyms_by_addr(ks, 0xffffffff81000300ull);
	CHECK(s && !strcmp(s->name, "dup") && s->size == 0x80, "dup at 0x300");
	CHECK(!ksyms_by_addr(ks, 0x2000), "per-cpu offset is not a symbol");
	CHECK(!ksyms_by_addr(ks, 0x401106), "user address");
	CHECK(!ksyms_by_addr(ks, 0), "0");
	CHECK(!ksyms_by_addr(ks, 0xffffffff80ffffffull), "below _stext");
	CHECK(!ksyms_by_addr(ks, 0xffffffff81001000ull), "_end and beyond");
	CHECK(!ksyms_by_addr(ks, 0xffffffffa0000000ull), "between kernel and modules");
	s = ksyms_by_addr(ks, 0xffffffff81000fffull);
	CHECK(s && !strcmp(s->name, "some_data"), "data up to _end");

	/* modules: sorted, sized within their module only */
	s = ksyms_by_addr(ks, 0xffffffffc000107full);
	CHECK(s && !strcmp(s->name, "mod_func") && s->size == 0x80, "mod_func");
	s = ksyms_by_name(ks, "mod_func2", NULL);
	CHECK(s && s->size == 0x40, "mod_func2 size 0x40");
	s = ksyms_by_name(ks, "mod_data", NULL);
	CHECK(s && s->size == 0, "last of its module: size unknown");
	CHECK(ksyms_by_addr(ks, 0xffffffffc00010c0ull) == s, "exact address still found");
	CHECK(!ksyms_by_addr(ks, 0xffffffffc00010c8ull), "beyond an unknown size");
	s = ksyms_by_addr(ks, 0xffffffffc0003010ull);
	CHECK(s && !strcmp(s->name, "bpf_prog_abc_foo") && s->size == 0x100, "bpf");
	CHECK(!ksyms_by_addr(ks, 0xffffffffc0004000ull), "ftrace trampoline: unknown");

	/* %pS and %ps */
	CHECK_STR(fmt(ks, 0xffffffff81000100ull, true), "do_sys_openat2+0x0/0xe0", "pS +0");
	CHECK_STR(fmt(ks, 0xffffffff81000155ull, true), "do_sys_openat2+0x55/0xe0", "pS +0x55");
	CHECK_STR(fmt(ks, 0xffffffff81000155ull, false), "do_sys_openat2", "ps");
	CHECK_STR(fmt(ks, 0xffffffffc0001004ull, true), "mod_func+0x4/0x80 [mymod]", "pS mod");
	CHECK_STR(fmt(ks, 0xffffffffc0001004ull, false), "mod_func [mymod]", "ps mod");
	CHECK_STR(fmt(ks, 0xffffffffc0002041ull, true), "do_sys_openat2+0x1/0x40 [othermod]",
		  "pS othermod");
	CHECK_STR(fmt(ks, 0xffffffffc00010c0ull, true), "mod_data+0x0 [mymod]", "unknown size");
	CHECK_STR(fmt(ks, 0xffffffffc0003101ull, true), "0xffffffffc0003101", "last bpf +1");
	CHECK_STR(fmt(ks, 0xffffffffc0003001ull, true), "bpf_prog_abc_foo+0x1/0x100",
		  "bpf: no module suffix");
	CHECK_STR(fmt(ks, 0x1234, true), "0x1234", "unknown: no padding");
	CHECK_STR(fmt(ks, 0, true), "0x0", "zero");
	CHECK_STR(fmt(ks, 0xffffffffffffffffull, false), "0xffffffffffffffff", "max");
	CHECK_STR(fmt(NULL, 0xffffffff81000100ull, true), "0xffffffff81000100", "no ksyms");
	CHECK_STR(ksyms_format(ks, 0xffffffff81000100ull, true, small, sizeof(small)),
		  "do_sys_open", "truncated, terminated");
	ksyms_free(ks);
}

static void test_hidden_and_errors(void)
{
	char *path = write_tmp("0000000000000000 T _stext\n"
			       "0000000000000000 T do_sys_openat2\n"
			       "0000000000000000 t mod_func\t[mymod]\n");
	const struct ksym *s;
	struct ksyms *ks;

	ks = ksyms_load(path);
	unlink(path);
	CHECK(ks && ksyms_hidden(ks), "kptr_restrict: all zero is hidden");
	CHECK(ks && !ksyms_by_addr(ks, 0), "hidden: no address lookups");
	s = ks ? ksyms_by_name(ks, "mod_func", "mymod") : NULL;
	CHECK(s && s->addr == 0, "hidden: names still there");
	CHECK_STR(fmt(ks, 0xffffffff81000100ull, true), "0xffffffff81000100", "hidden format");
	ksyms_free(ks);

	path = write_tmp("");
	ks = ksyms_load(path);
	unlink(path);
	CHECK(ks && ksyms_hidden(ks) && !ksyms_by_name(ks, "x", NULL), "empty file");
	ksyms_free(ks);

	errno = 0;
	ks = ksyms_load("/nonexistent/kallsyms");
	CHECK(!ks && errno == ENOENT, "missing file: errno %d", errno);
	ksyms_free(NULL);
	CHECK(ksyms_hidden(NULL) && !ksyms_by_addr(NULL, 1) && !ksyms_by_name(NULL, "a", NULL),
	      "NULL ksyms");
}

/*
 * A module loading as the run goes: kallsyms read again into the same
 * object, its module there now, and what was taken from the old tables
 * still good (kept until ksyms_free()).
 */
static void test_reload(void)
{
	char *path = write_tmp(fake);
	const struct ksym *old;
	struct ksyms *ks;
	int err;

	ks = ksyms_load(path);
	unlink(path);
	CHECK(ks != NULL, "reload: the first table loads");
	if (!ks)
		return;
	CHECK(ksyms_has_module(ks, "mymod") && ksyms_has_module(ks, "othermod") &&
	      !ksyms_has_module(ks, "etn") && !ksyms_has_module(ks, "mymo") &&
	      !ksyms_has_module(ks, "mymodx"), "reload: the loaded modules, and only they");
	old = ksyms_by_name(ks, "mod_func", "mymod");
	path = write_tmp("ffffffff81000000 T _stext\n"
			 "ffffffff81000100 T do_sys_openat2\n"
			 "ffffffff81001000 B _end\n"
			 "ffffffffc0005000 t $x\t[etn_x]\n"
			 "ffffffffc0005000 t etn_write\t[etn_x]\n"
			 "ffffffffc0005020 t $d\t[etn_x]\n"
			 "ffffffffc0005030 t .LC0\t[etn_x]\n"
			 "ffffffffc0005040 t etn_init\t[etn_x]\n");
	err = ksyms_reload(ks, path);
	CHECK(err == 0, "reload: %d", err);
	CHECK(ksyms_has_module(ks, "etn_x") && ksyms_has_module(ks, "etn-x") &&
	      !ksyms_has_module(ks, "mymod"), "reload: the new table's modules ('-' as '_')");
	CHECK(ksyms_by_name(ks, "etn_write", "etn_x") &&
	      ksyms_by_name(ks, "etn_write", "etn_x")->addr == 0xffffffffc0005000ull,
	      "reload: the new module's function");
	CHECK_STR(fmt(ks, 0xffffffffc0005004ull, true), "etn_write+0x4/0x40 [etn_x]",
		  "reload: addresses named from the new table");
	/* 6.1's arm64 lists a module's mapping symbols; its lookups skip them */
	CHECK_STR(fmt(ks, 0xffffffffc0005000ull, true), "etn_write+0x0/0x40 [etn_x]",
		  "a module's mapping symbols neither name an address nor end a size");
	CHECK(!ksyms_by_name(ks, "$x", "etn_x") && !ksyms_by_name(ks, ".LC0", "etn_x"),
	      "a module's mapping symbols are not found by name");
	CHECK(old && !strcmp(old->name, "mod_func") && !strcmp(old->module, "mymod"),
	      "reload: a symbol of the old table still readable");
	err = ksyms_reload(ks, "/nonexistent/kallsyms");
	CHECK(err == -ENOENT && ksyms_by_name(ks, "etn_write", "etn_x"),
	      "reload: a failed read keeps the table: %d", err);
	unlink(path);
	ksyms_free(ks);
}

/* Every text symbol of the real file found again by address and by name. */
static void test_real(void)
{
	char line[1024], name[600], mod[200], type;
	unsigned long long addr;
	int n, checked = 0, bad_addr = 0, bad_name = 0;
	const struct ksym *s;
	struct ksyms *ks;
	FILE *f;

	/* Correctness only: a time limit fails a loaded or sanitized machine, not a bug. */
	ks = ksyms_load(NULL);
	if (!ks || ksyms_hidden(ks)) {
		printf("# /proc/kallsyms unreadable or hidden: real-file checks skipped\n");
		ksyms_free(ks);
		return;
	}
	s = ksyms_by_name(ks, "do_sys_openat2", NULL);
	if (!s)
		s = ksyms_by_name(ks, "schedule", NULL);
	CHECK(s != NULL, "do_sys_openat2 or schedule");
	if (s) {
		char want[700];

		CHECK(ksyms_by_addr(ks, s->addr) && ksyms_by_addr(ks, s->addr)->addr == s->addr,
		      "round trip %s", s->name);
		snprintf(want, sizeof(want), "%s+0x0/0x%llx", ksyms_by_addr(ks, s->addr)->name,
			 (unsigned long long)s->size);
		CHECK_STR(fmt(ks, s->addr, true), want, "real %pS");
		CHECK(s->size > 0, "real size");
		if (s->size > 1)
			CHECK(ksyms_by_addr(ks, s->addr + s->size - 1) ==
			      ksyms_by_addr(ks, s->addr), "last byte");
	}

	f = fopen("/proc/kallsyms", "r");
	while (f && fgets(line, sizeof(line), f)) {
		mod[0] = '\0';
		n = sscanf(line, "%llx %c %599s [%199[^]]]", &addr, &type, name, mod);
		/* JITed BPF comes and goes while we read: only stable symbols */
		if (n < 3 || (type != 't' && type != 'T') || !strncmp(mod, "__builtin__", 11) ||
		    !strcmp(mod, "bpf"))
			continue;
		checked++;
		s = ksyms_by_addr(ks, addr);
		/* the kernel's text ends at _etext: that symbol itself is outside */
		if ((!s || s->addr != addr) && strcmp(name, "_etext") && strcmp(name, "_einittext"))
			bad_addr++;
		s = ksyms_by_name(ks, name, mod[0] ? mod : NULL);
		if (!s || strcmp(s->name, name))
			bad_name++;
	}
	if (f)
		fclose(f);
	printf("# %d text symbols checked\n", checked);
	CHECK(checked > 1000, "real text symbols: %d", checked);
	CHECK_INT(bad_addr, 0, "real: text symbols not found by address");
	CHECK_INT(bad_name, 0, "real: text symbols not found by name");
	ksyms_free(ks);
}

int main(void)
{
	test_fake();
	test_hidden_and_errors();
	test_reload();
	test_real();
	return check_report();
}
