// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A binary's USDT probes (usdt.h). */
#include <errno.h>
#include <stdint.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/elf.h"
#include "sys/usdt.h"
#include "kptrace.h"

#ifdef KPT_ARCH_ARM64
#define USDT_MACHINE	EM_AARCH64
#else
#define USDT_MACHINE	EM_X86_64
#endif

/*
 * x86-64's register names as GNU as writes them, by width (8, 4, 2, 1
 * bytes), and the struct kpt_regs word holding each: the one table. A
 * narrower name is the word's low bytes, which the argument's type keeps.
 */
static const struct {
	const char *name[4];
	const char *reg;
} x86_regs[] = {
	{ { "rax", "eax", "ax", "al" }, "ax" },
	{ { "rbx", "ebx", "bx", "bl" }, "bx" },
	{ { "rcx", "ecx", "cx", "cl" }, "cx" },
	{ { "rdx", "edx", "dx", "dl" }, "dx" },
	{ { "rsi", "esi", "si", "sil" }, "si" },
	{ { "rdi", "edi", "di", "dil" }, "di" },
	{ { "rbp", "ebp", "bp", "bpl" }, "bp" },
	{ { "rsp", "esp", "sp", "spl" }, "sp" },
	{ { "r8", "r8d", "r8w", "r8b" }, "r8" },
	{ { "r9", "r9d", "r9w", "r9b" }, "r9" },
	{ { "r10", "r10d", "r10w", "r10b" }, "r10" },
	{ { "r11", "r11d", "r11w", "r11b" }, "r11" },
	{ { "r12", "r12d", "r12w", "r12b" }, "r12" },
	{ { "r13", "r13d", "r13w", "r13b" }, "r13" },
	{ { "r14", "r14d", "r14w", "r14b" }, "r14" },
	{ { "r15", "r15d", "r15w", "r15b" }, "r15" },
};

/* "%NAME" at s: its word's name, *end past it; NULL if no register has that name. */
static const char *x86_reg(const char *s, const char **end)
{
	size_t i, k, len;

	if (*s != '%')
		return NULL;
	for (len = 1; (s[len] >= 'a' && s[len] <= 'z') || (s[len] >= '0' && s[len] <= '9'); len++)
		;
	for (i = 0; i < sizeof(x86_regs) / sizeof(x86_regs[0]); i++)
		for (k = 0; k < 4; k++)
			if (strlen(x86_regs[i].name[k]) == len - 1 &&
			    !strncmp(x86_regs[i].name[k], s + 1, len - 1)) {
				*end = s + len;
				return x86_regs[i].reg;
			}
	return NULL;
}

/* A decimal or 0x number, with an optional sign; false if there is none. */
static bool parse_num(const char *s, const char **end, int64_t *v)
{
	char *e;

	if (!((*s >= '0' && *s <= '9') || ((*s == '-' || *s == '+') && s[1] >= '0' && s[1] <= '9')))
		return false;
	errno = 0;
	*v = strtoll(s, &e, 0);
	if (errno == ERANGE) {	/* an unsigned 64-bit constant */
		errno = 0;
		*v = (int64_t)strtoull(s, &e, 0);
	}
	*end = e;
	return !errno;
}

/* GNU as's symbol names: letters, '_', '.', '$' is not one here (constants) */
static bool is_sym_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '.';
}

static int bad_arg(const char *s, const char *why, char *msg, size_t msglen)
{
	size_t n;
	bool in = false;

	/* the argument: to a blank outside arm64's [REG, OFFSET] */
	for (n = 0; s[n] && (in || s[n] != ' '); n++)
		in = s[n] == '[' ? true : s[n] == ']' ? false : in;
	snprintf(msg, msglen, "USDT argument '%.*s': %s", (int)n, s, why);
	return -EINVAL;
}

/* GNU as's x86-64 operand at q (AT&T syntax); *end past it. */
static int x86_operand(const char *s, const char *q, const char **end, struct usdt_arg *a,
		       char *msg, size_t msglen)
{
	const char *r;

	if (*q == '$') {
		if (!parse_num(q + 1, &q, &a->val))
			return bad_arg(s, "a constant that is not a number", msg, msglen);
		a->kind = USDT_ARG_IMM;
	} else if (*q == '%') {
		r = x86_reg(q, &q);
		if (!r)
			return bad_arg(s, "not an x86-64 general register", msg, msglen);
		a->kind = USDT_ARG_REG;
		snprintf(a->reg, sizeof(a->reg), "%s", r);
	} else if (is_sym_start(*q)) {
		/* a global: SYM[+-N](%rip), its address relative to the next insn */
		for (a->sym = q; is_sym_start(*q) || (*q >= '0' && *q <= '9'); q++)
			;
		a->symlen = (size_t)(q - a->sym);
		if ((*q == '+' || *q == '-') && !parse_num(q, &q, &a->val))
			return bad_arg(s, "a symbol's offset that is not a number", msg, msglen);
		if (strncmp(q, "(%rip)", 6))
			return bad_arg(s, "a symbol's address other than SYM(%rip)", msg, msglen);
		q += 6;
		a->kind = USDT_ARG_MEM;
		snprintf(a->reg, sizeof(a->reg), "ip");
	} else {
		if (*q != '(' && !parse_num(q, &q, &a->val))
			return bad_arg(s, "not an operand", msg, msglen);
		if (*q != '(')
			return bad_arg(s, "only %REG, $CONSTANT, [OFFSET](%REG) and SYM(%rip) are "
				       "read (not an absolute address)", msg, msglen);
		if (!(r = x86_reg(q + 1, &q)) || *q != ')')
			return bad_arg(s, "only %REG, $CONSTANT, [OFFSET](%REG) and SYM(%rip) are "
				       "read (not an indexed address)", msg, msglen);
		q++;
		a->kind = USDT_ARG_MEM;
		snprintf(a->reg, sizeof(a->reg), "%s", r);
	}
	*end = q;
	return 0;
}

/*
 * "xN", "wN" (xN's low half, which the argument's size keeps) or "sp" at s:
 * its struct kpt_regs name into reg, *end past it; false if none.
 */
static bool arm64_reg(const char *s, const char **end, char *reg, size_t len)
{
	int64_t n;
	const char *q;

	if (!strncmp(s, "sp", 2) && !(s[2] >= 'a' && s[2] <= 'z') && !(s[2] >= '0' && s[2] <= '9')) {
		*end = s + 2;
		snprintf(reg, len, "sp");
		return true;
	}
	if ((*s != 'x' && *s != 'w') || !(s[1] >= '0' && s[1] <= '9') ||
	    !parse_num(s + 1, &q, &n) || n < 0 || n > 30 || (s[1] == '0' && q - s > 2) ||
	    (*q >= 'a' && *q <= 'z'))
		return false;
	*end = q;
	snprintf(reg, len, "x%d", (int)n);
	return true;
}

/* GNU as's arm64 operand at q: REG, [REG], [REG, OFF] (OFF with or without '#'), CONSTANT. */
static int arm64_operand(const char *s, const char *q, const char **end, struct usdt_arg *a,
			 char *msg, size_t msglen)
{
	if ((*q >= '0' && *q <= '9') || *q == '-' || *q == '+') {
		if (!parse_num(q, &q, &a->val))
			return bad_arg(s, "a constant that is not a number", msg, msglen);
		a->kind = USDT_ARG_IMM;
	} else if (*q == '[') {
		if (!arm64_reg(q + 1, &q, a->reg, sizeof(a->reg)))
			return bad_arg(s, "not [xN], [sp] or [REG, OFFSET]", msg, msglen);
		if (*q == ',') {
			while (*++q == ' ')
				;
			if (!strncmp(q, "#:lo12:", 7))
				return bad_arg(s, "a global's low 12 bits (#:lo12:SYM, its page "
					       "in the register from adrp): not read", msg, msglen);
			if (*q == '#')
				q++;
			if (!parse_num(q, &q, &a->val))
				return bad_arg(s, "an offset that is not a number", msg, msglen);
		}
		if (*q != ']')
			return bad_arg(s, "not [xN], [sp] or [REG, OFFSET] (an indexed address?)",
				       msg, msglen);
		q++;
		a->kind = USDT_ARG_MEM;
	} else {
		if (!arm64_reg(q, &q, a->reg, sizeof(a->reg)))
			return bad_arg(s, "not an arm64 general register (x0-x30, w0-w30, sp)",
				       msg, msglen);
		a->kind = USDT_ARG_REG;
	}
	*end = q;
	return 0;
}

int usdt_arg_parse(int machine, const char *s, const char **end, struct usdt_arg *a, char *msg,
		   size_t msglen)
{
	const char *q = s;
	int64_t size;
	int err;

	memset(a, 0, sizeof(*a));
	if (!parse_num(q, &q, &size) || *q != '@')
		return bad_arg(s, "no SIZE@ (1, 2, 4 or 8 bytes, negative when signed)", msg,
			       msglen);
	a->sign = size < 0;
	/* INT64_MIN has no negation */
	size = a->sign && size >= -8 ? -size : size;
	if (size != 1 && size != 2 && size != 4 && size != 8)
		return bad_arg(s, "the size is not 1, 2, 4 or 8 bytes", msg, msglen);
	a->size = (uint8_t)size;
	q++;
	err = machine == EM_AARCH64 ? arm64_operand(s, q, &q, a, msg, msglen) :
				      x86_operand(s, q, &q, a, msg, msglen);
	if (err)
		return err;
	if (*q && *q != ' ')
		return bad_arg(s, "text after the operand", msg, msglen);
	/* a dereference's offset is an int (ftrace's fetch_insn.offset) */
	if (a->kind == USDT_ARG_MEM && !a->sym && (a->val > INT32_MAX || a->val < INT32_MIN))
		return bad_arg(s, "an offset past 32 bits", msg, msglen);
	while (*q == ' ')
		q++;
	*end = q;
	return 0;
}

void usdt_arg_fetch(const struct usdt_arg *a, char *buf, size_t len)
{
	char t[8];

	snprintf(t, sizeof(t), ":%c%u", a->sign ? 's' : 'u', a->size * 8);
	if (a->kind == USDT_ARG_REG)
		snprintf(buf, len, "%%%s%s", a->reg, t);
	else if (a->kind == USDT_ARG_MEM)
		snprintf(buf, len, "%+" PRId64 "(%%%s)%s", a->val, a->reg, t);
	else if (a->sign)
		snprintf(buf, len, "\\%" PRId64 "%s", a->val, t);
	else
		snprintf(buf, len, "\\%" PRIu64 "%s", (uint64_t)a->val, t);
}

struct collect {
	Elf *e;
	int machine;
	struct usdt_probe *p;
	int n, cap;
};

/* A defined symbol's address from .symtab, else .dynsym; false if neither has it. */
static bool sym_vaddr(Elf *e, const char *name, size_t len, uint64_t *v)
{
	static const GElf_Word types[] = { SHT_SYMTAB, SHT_DYNSYM };
	struct kelf_symtab t;
	const char *n;
	GElf_Sym sym;
	size_t i, k;

	for (k = 0; k < 2; k++) {
		if (!kelf_symtab(e, types[k], &t))
			continue;
		for (i = 0; i < t.n; i++)
			if (kelf_sym(&t, i, &sym, &n) && n && sym.st_shndx != SHN_UNDEF &&
			    !strncmp(n, name, len) && !n[len]) {
				*v = sym.st_value;
				return true;
			}
	}
	return false;
}

/*
 * SYM+N(%rip) as a displacement from %ip: a uprobe's handler sees %ip at
 * the probe's nop, so SYM's address is %ip + (SYM + N - pc), in a PIE or a
 * library as in an executable. false if no symbol table has SYM.
 */
static bool rip_relative(Elf *e, uint64_t pc, struct usdt_arg *a, char *why, size_t len)
{
	uint64_t v;

	if (!sym_vaddr(e, a->sym, a->symlen, &v)) {
		snprintf(why, len, "USDT argument's symbol '%.*s' is in no symbol table of the "
			 "file", (int)a->symlen, a->sym);
		return false;
	}
	a->val += (int64_t)(v - pc);
	if (a->val > INT32_MAX || a->val < INT32_MIN) {
		snprintf(why, len, "USDT argument's symbol '%.*s' is more than 2 GiB from the probe",
			 (int)a->symlen, a->sym);
		return false;
	}
	a->sym = NULL;
	return true;
}

/* The note's arguments parsed; the first that cannot be read is kept as p->bad. */
static int parse_args(Elf *e, int machine, struct usdt_probe *p)
{
	const char *s = p->args, *end;
	char why[160];

	while (*s == ' ')
		s++;
	while (*s) {
		if (p->nargs == USDT_MAX_ARGS) {
			snprintf(why, sizeof(why), "more than %d arguments", USDT_MAX_ARGS);
			return (p->bad = strdup(why)) ? 0 : -ENOMEM;
		}
		if (usdt_arg_parse(machine, s, &end, &p->arg[p->nargs], why, sizeof(why)) ||
		    (p->arg[p->nargs].sym && !rip_relative(e, p->pc, &p->arg[p->nargs], why,
							  sizeof(why))))
			return (p->bad = strdup(why)) ? 0 : -ENOMEM;
		p->nargs++;
		s = end;
	}
	return 0;
}

static int collect_one(const struct kelf_sdt *n, void *arg)
{
	struct collect *c = arg;
	struct usdt_probe *p, *np;

	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 16;
		np = realloc(c->p, c->cap * sizeof(*np));
		if (!np)
			return -ENOMEM;
		c->p = np;
	}
	p = &c->p[c->n];
	memset(p, 0, sizeof(*p));
	p->provider = strdup(n->provider);
	p->name = strdup(n->name);
	p->args = strdup(n->args);
	c->n++;
	if (!p->provider || !p->name || !p->args)
		return -ENOMEM;
	p->pc = n->pc;
	p->sema = n->sema;
	/* where the uprobe and the counter go: file offsets, as the kernel takes them */
	if (!kelf_vaddr_offset(c->e, p->pc, &p->off))
		return -ERANGE;
	/* the kernel counts in the file's page: a semaphore in .bss has none */
	if (p->sema && !kelf_vaddr_offset(c->e, p->sema, &p->sema_off))
		return -EFAULT;
	return parse_args(c->e, c->machine, p);
}

int usdt_read(const char *path, struct usdt_probe **out, int *n, char *msg, size_t msglen)
{
	struct collect c = { 0 };
	struct kelf f;
	GElf_Ehdr eh;
	int err;

	*out = NULL;
	*n = 0;
	err = kelf_open(path, &f, msg, msglen);
	if (err)
		return err;
	c.e = f.e;
	/* the probes run on this machine: its binaries only */
	if (!gelf_getehdr(f.e, &eh) || eh.e_machine != USDT_MACHINE) {
		snprintf(msg, msglen, "%s is not an %s ELF file, this kptrace's machine", path,
			 KPT_ARCH_NAME);
		err = -ENOEXEC;
		goto cleanup;
	}
	c.machine = eh.e_machine;
	err = kelf_sdt_notes(f.e, collect_one, &c);
	if (err == -ERANGE || err == -EFAULT)
		snprintf(msg, msglen, "%s: USDT probe %s:%s's %s 0x%" PRIx64 " is in no segment's "
			 "file bytes", path, c.p[c.n - 1].provider, c.p[c.n - 1].name,
			 err == -ERANGE ? "address" : "semaphore",
			 err == -ERANGE ? c.p[c.n - 1].pc : c.p[c.n - 1].sema);
	else if (err == -ENOEXEC)
		snprintf(msg, msglen, "%s: a .note.stapsdt note is cut short", path);
	else if (err)
		snprintf(msg, msglen, "%s", strerror(-err));
cleanup:
	kelf_close(&f);
	if (err) {
		usdt_free(c.p, c.n);
		return err;
	}
	*out = c.p;
	*n = c.n;
	return 0;
}

void usdt_free(struct usdt_probe *p, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		free(p[i].provider);
		free(p[i].name);
		free(p[i].args);
		free(p[i].bad);
	}
	free(p);
}
