// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * src/prepare/resolve.c's register table: names to byte offsets in struct pt_regs,
 * from the BTF of our BPF object's struct kpt_regs, for each architecture.
 * x86-64's from this build's own object; arm64's from a struct laid out as
 * bpf/scratch.bpf.h lays it out for arm64 (user_pt_regs: regs[31], sp, pc,
 * pstate), and with --btf FILE also from the arm64 build's object
 * (.output/arm64/kptrace.bpf.o, tests/vm/test.sh), so the two agree.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>

#include "check.h"
#include "sys/objbtf.h"
#include "prepare/resolve.h"

/* What bpf/scratch.bpf.h's arm64 struct kpt_regs is to BTF. */
static struct btf *arm64_regs_btf(void)
{
	struct btf *btf = btf__new_empty();
	int u64, arr;

	if (!btf)
		return NULL;
	u64 = btf__add_int(btf, "long long unsigned int", 8, 0);
	btf__add_typedef(btf, "__u64", u64);
	arr = btf__add_array(btf, u64, u64, 31);
	btf__add_struct(btf, "kpt_regs", 34 * 8);
	btf__add_field(btf, "regs", arr, 0, 0);
	btf__add_field(btf, "sp", u64 + 1, 31 * 64, 0);
	btf__add_field(btf, "pc", u64, 32 * 64, 0);
	btf__add_field(btf, "pstate", u64, 33 * 64, 0);
	return btf;
}

/* arm64's kprobe_events registers (arch/arm64/kernel/ptrace.c's
 * regoffset_table) and what it refuses. */
static void check_arm64(const struct btf *btf, const char *what)
{
	static const struct {
		const char *name;
		int off;
	} t[] = {
		{ "x0", 0 }, { "x1", 8 }, { "x2", 16 }, { "x7", 56 }, { "x8", 64 },
		{ "x10", 80 }, { "x29", 232 }, { "x30", 240 }, { "sp", 248 }, { "pc", 256 },
		{ "pstate", 264 },
		/* refused: past x30, leading zeros, not decimal, the array itself,
		 * x86-64's names, upper case */
		{ "x31", -ENOENT }, { "x01", -ENOENT }, { "x00", -ENOENT }, { "x", -ENOENT },
		{ "x1a", -ENOENT }, { "x-1", -ENOENT }, { "x99999999999", -ENOENT },
		{ "regs", -ENOENT }, { "di", -ENOENT }, { "ax", -ENOENT }, { "ip", -ENOENT },
		{ "X0", -ENOENT }, { "", -ENOENT },
	};
	char names[256], ctx[96];
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		snprintf(ctx, sizeof(ctx), "%s: %%%s", what, t[i].name);
		CHECK_INT(resolve_reg_offset(btf, t[i].name), t[i].off, ctx);
	}
	resolve_reg_names(btf, names, sizeof(names));
	CHECK_STR(names, "%x0..%x30 %sp %pc %pstate", what);
}

/* This build's own object: x86-64's pt_regs, which refuses arm64's names. */
static void check_x86(void)
{
	static const struct {
		const char *name;
		int off;
	} t[] = {
		{ "r15", 0 }, { "r9", 64 }, { "r8", 72 }, { "ax", 80 }, { "cx", 88 },
		{ "dx", 96 }, { "si", 104 }, { "di", 112 }, { "ip", 128 }, { "sp", 152 },
		{ "x0", -ENOENT }, { "x30", -ENOENT }, { "pc", -ENOENT }, { "pstate", -ENOENT },
		{ "regs", -ENOENT },
	};
	/* the calling convention: di si dx cx r8 r9, then ax at KPT_DIRECT_AX */
	static const char *const args[] = { "di", "si", "dx", "cx", "r8", "r9", "ax" };
	struct btf *btf = objbtf_load();
	char names[256];
	size_t i;

	CHECK(btf != NULL, "our object's BTF");
	if (!btf)
		return;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		CHECK_INT(resolve_reg_offset(btf, t[i].name), t[i].off, t[i].name);
	for (i = 0; i < sizeof(args) / sizeof(args[0]); i++)
		CHECK_INT(resolve_arg_reg(btf, (__u32)resolve_reg_offset(btf, args[i])), (int)i,
			  args[i]);
	CHECK_INT(resolve_arg_reg(btf, 128), -1, "%ip holds no argument");
	CHECK_INT(KPT_DIRECT_AX, 6, "KPT_DIRECT_AX after the six argument registers");
	resolve_reg_names(btf, names, sizeof(names));
	CHECK_STR(names, "%r15 %r14 %r13 %r12 %bp %bx %r11 %r10 %r9 %r8 %ax %cx %dx %si %di "
		  "%orig_ax %ip %cs %flags %sp %ss", "x86-64's names");
	btf__free(btf);
}

int main(int argc, char **argv)
{
	struct btf *btf = arm64_regs_btf();

	CHECK(btf != NULL, "an arm64 struct kpt_regs in BTF");
	if (btf)
		check_arm64(btf, "arm64 (built here)");
	btf__free(btf);
	if (argc == 3 && !strcmp(argv[1], "--btf")) {
		btf = btf__parse(argv[2], NULL);
		CHECK(btf != NULL, "BTF of %s: %s", argv[2], strerror(errno));
		if (btf)
			check_arm64(btf, argv[2]);
		btf__free(btf);
	}
#ifdef KPT_ARCH_X86
	check_x86();
#endif
	return check_report();
}
