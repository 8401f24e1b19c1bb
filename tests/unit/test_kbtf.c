// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * kbtf: a --btf file checked as sys/kbtf.c promises: not BTF, missing, not
 * a whole vmlinux's, another kernel's (more than 8% of its functions absent
 * from kallsyms: the boundary on both sides), and accepted where it fits.
 * The BTF is written here with libbpf's writer, the kallsyms by hand.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "check.h"
#include "sys/kbtf.h"
#include "sys/ksyms.h"

#define NFUNC	99	/* with schedule: 100 functions */

static char dir[] = "/tmp/kpt-test-kbtf.XXXXXX";

/* A vmlinux-like BTF: struct task_struct (unless bare), schedule and f0..f98. */
static void write_btf(const char *path, bool bare)
{
	struct btf *btf = btf__new_empty();
	int i, ty, proto;
	char name[16];
	const void *raw;
	__u32 sz;
	FILE *f;

	ty = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	if (!bare) {
		btf__add_struct(btf, "task_struct", 4);
		btf__add_field(btf, "pid", ty, 0, 0);
	}
	proto = btf__add_func_proto(btf, ty);
	btf__add_func(btf, "schedule", BTF_FUNC_GLOBAL, proto);
	for (i = 0; i < NFUNC; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		btf__add_func(btf, name, BTF_FUNC_GLOBAL, proto);
	}
	raw = btf__raw_data(btf, &sz);
	f = fopen(path, "w");
	if (f) {
		fwrite(raw, 1, sz, f);
		fclose(f);
	}
	btf__free(btf);
}

/* kallsyms with schedule and f0..f(n-1). */
static struct ksyms *kallsyms_with(int n)
{
	char path[64];
	struct ksyms *ks;
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "%s/kallsyms", dir);
	f = fopen(path, "w");
	if (!f)
		return NULL;
	fprintf(f, "ffffffff81000000 T _stext\nffffffff81000010 T schedule\n");
	for (i = 0; i < n; i++)
		fprintf(f, "ffffffff81%06x T f%d\n", 0x100 + 0x10 * i, i);
	fclose(f);
	ks = ksyms_load(path);
	return ks;
}

/* kbtf_load(path, ks): accepted, or refused with a message holding want. */
static void expect(const char *path, const struct ksyms *ks, const char *want, const char *ctx)
{
	char msg[512] = "";
	struct btf *btf = kbtf_load(path, ks, msg, sizeof(msg));

	if (!want) {
		CHECK(btf != NULL, "%s: refused: %s", ctx, msg);
	} else {
		CHECK(btf == NULL, "%s: accepted", ctx);
		CHECK(strstr(msg, want) != NULL, "%s: '%s' has no '%s'", ctx, msg, want);
		CHECK(strstr(msg, path) != NULL, "%s: '%s' does not name the file", ctx, msg);
	}
	btf__free(btf);
}

int main(void)
{
	char good[64], bare[64], junk[64], none[64];
	struct ksyms *ks;
	FILE *f;

	libbpf_set_print(NULL);	/* "failed to get EHDR" of the text file: ours says it */
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(good, sizeof(good), "%s/vmlinux.btf", dir);
	snprintf(bare, sizeof(bare), "%s/bare.btf", dir);
	snprintf(junk, sizeof(junk), "%s/junk", dir);
	snprintf(none, sizeof(none), "%s/none", dir);
	write_btf(good, false);
	write_btf(bare, true);
	f = fopen(junk, "w");
	if (f) {
		fputs("not BTF at all, nor ELF\n", f);
		fclose(f);
	}

	expect(none, NULL, "No such file", "a missing file");
	expect(junk, NULL, "not BTF", "text");
	expect(bare, NULL, "not a whole vmlinux BTF", "no task_struct");
	expect(good, NULL, NULL, "no kallsyms to check against");

	ks = kallsyms_with(NFUNC);
	expect(good, ks, NULL, "every function in kallsyms");
	ksyms_free(ks);
	/* 8 of 100 absent: 8%, the most allowed */
	ks = kallsyms_with(NFUNC - 8);
	expect(good, ks, NULL, "8 of 100 functions absent");
	ksyms_free(ks);
	/* 9 of 100: another kernel's, f90 the first absent */
	ks = kallsyms_with(NFUNC - 9);
	expect(good, ks, "not this kernel's BTF: 9 of its 100 functions (f90 first)",
	       "9 of 100 functions absent");
	ksyms_free(ks);

	unlink(good);
	unlink(bare);
	unlink(junk);
	snprintf(none, sizeof(none), "%s/kallsyms", dir);
	unlink(none);
	rmdir(dir);
	return check_report();
}
