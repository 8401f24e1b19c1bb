/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A binary's USDT probes: its SystemTap SDT notes (read by sys/elf.c) with
 * the file offsets the kernel's uprobes take and each argument's spec
 * ("-4@%eax", "8@16(%rsp)", "-4@$5", "-4@counter(%rip)"; arm64's "8@x0",
 * "-4@[sp, 16]", "8@[x1]", "-4@5": SIZE@OPERAND, a negative size signed, the
 * operand in GNU as's syntax for the machine) made a register, memory or
 * constant read. A binary of another machine than kptrace's is refused.
 */
#ifndef KPT_USDT_H
#define KPT_USDT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define USDT_MAX_ARGS	12	/* sys/sdt.h's STAP_PROBE12 */

enum usdt_arg_kind {
	USDT_ARG_REG = 1,	/* the register's value */
	USDT_ARG_MEM,		/* the memory at the register plus val */
	USDT_ARG_IMM,		/* val itself */
};

struct usdt_arg {
	enum usdt_arg_kind kind;
	uint8_t size;		/* bytes: 1, 2, 4 or 8 */
	bool sign;
	char reg[8];		/* REG, MEM's base: its name in our struct kpt_regs ("ax") */
	int64_t val;		/* MEM: the displacement; IMM: the value */
	/* MEM "SYM[+-N](%rip)": the symbol's name in the spec's text (not
	 * terminated), until usdt_read() makes it a displacement from %ip,
	 * the probe's own address at a uprobe hit; NULL otherwise */
	const char *sym;
	size_t symlen;
};

struct usdt_probe {
	char *provider;		/* heap, as each text below */
	char *name;
	char *args;		/* the note's argument text */
	uint64_t pc, sema;	/* virtual addresses, after the prelink adjustment; sema 0: none */
	uint64_t off;		/* the uprobe's file offset */
	uint64_t sema_off;	/* the reference counter's file offset, 0 if none */
	int nargs;
	struct usdt_arg arg[USDT_MAX_ARGS];
	char *bad;		/* why an argument cannot be read (heap), NULL if all can */
};

/*
 * One argument spec at s into *a, *end past it (and its blanks), in machine's
 * (EM_X86_64, EM_AARCH64) assembler syntax. 0, or -EINVAL with the reason
 * in msg.
 */
int usdt_arg_parse(int machine, const char *s, const char **end, struct usdt_arg *a, char *msg,
		   size_t msglen);

/*
 * path's probes in note order into *out (*n of them; none is not an error).
 * 0, or a negative errno with the reason in msg.
 */
int usdt_read(const char *path, struct usdt_probe **out, int *n, char *msg, size_t msglen);
void usdt_free(struct usdt_probe *p, int n);

/*
 * Argument a as a fetch argument of the uprobe_events grammar ("%ax",
 * "+16(%sp)", "\5") followed by its type (":s32"), into buf.
 */
void usdt_arg_fetch(const struct usdt_arg *a, char *buf, size_t len);

#endif /* KPT_USDT_H */
