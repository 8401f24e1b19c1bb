/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Kernel symbols from /proc/kallsyms: name -> address for resolve.c, and
 * address -> "sym+0xoff/0xsize [mod]" (the kernel's %pS) for the output.
 */
#ifndef KPT_KSYMS_H
#define KPT_KSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ksym {
	uint64_t addr;
	uint64_t size;		/* to the next symbol, as the kernel's kallsyms computes it */
	const char *name;
	const char *module;	/* NULL for the core kernel */
	char type;		/* kallsyms type letter */
};

struct ksyms;

/* Load from path (NULL: /proc/kallsyms). Returns NULL and sets errno on failure. */
struct ksyms *ksyms_load(const char *path);
void ksyms_free(struct ksyms *ks);
/* Read path (NULL: /proc/kallsyms) again into ks, in place; 0 or -errno. */
int ksyms_reload(struct ksyms *ks, const char *path);

/* Symbol containing addr, or NULL. */
const struct ksym *ksyms_by_addr(const struct ksyms *ks, uint64_t addr);
/*
 * Whether addr is where a kretprobe's trampoline starts (s: its symbol),
 * the return address a kretprobe puts in place of the caller's: the kernel
 * prints it "[unknown/kretprobe'd]" (trace_seq_print_sym()), and an
 * unwinder that does not recover the caller (before 5.13) ends there.
 */
bool ksym_kretprobe_trampoline(const struct ksym *s, uint64_t addr);
/* First symbol of this name (in module mod if non-NULL), or NULL. */
const struct ksym *ksyms_by_name(const struct ksyms *ks, const char *name, const char *mod);
/*
 * How many symbols have this name, as the kernel's kprobes count them
 * (number_of_same_symbols()): with mod NULL, the core kernel's and every
 * module's; else that module's. JITed BPF programs are no module.
 */
size_t ksyms_count_name(const struct ksyms *ks, const char *name, const char *mod);
/* Whether module mod ('-' as '_') has any symbol: whether it is loaded. */
bool ksyms_has_module(const struct ksyms *ks, const char *mod);
/* Symbols in address order, for iteration: ksyms_at(ks, i), i < ksyms_count(ks). */
size_t ksyms_count(const struct ksyms *ks);
const struct ksym *ksyms_at(const struct ksyms *ks, size_t i);
/* True if every address is 0 (kptr_restrict hides them from this user). */
bool ksyms_hidden(const struct ksyms *ks);

/*
 * Format addr as the kernel's %pS ("sym+0x1a/0x80", " [mod]" appended for
 * modules) or, with with_offset false, %ps ("sym"). Unknown addresses print
 * as "0x%lx" like the kernel's. Returns buf.
 */
char *ksyms_format(const struct ksyms *ks, uint64_t addr, bool with_offset, char *buf, size_t len);

#endif /* KPT_KSYMS_H */
