/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Resolve: tie a parsed definition to the running system. Kernel
 * symbols (kallsyms, the kprobe blacklist), register names (struct pt_regs
 * in the kernel's BTF), uprobe targets (the binary's ELF symbols). Every
 * refusal happens here, before anything is loaded or attached.
 *
 * Reading /proc/kallsyms is most of a kprobe run's start-up (the kernel
 * formats ~120,000 lines: 60 ms of CPU on the development VM), so where the
 * run allows it (sysinfo.defer_ksyms) a few kernel functions named plainly,
 * which vmlinux's BTF has as functions and the blacklist does not list, are
 * resolved without it: the kernel checks the name again as it attaches by
 * it. Where it refuses (a name two static functions share, say), run.c
 * resolves everything again with kallsyms, for the refusal this stage gives.
 */
#ifndef KPT_RESOLVE_H
#define KPT_RESOLVE_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/types.h>
#include "lang/spec.h"
#include "prepare/event.h"
#include "sys/ksyms.h"
#include "sys/tracepoint.h"
#include "kptrace.h"

struct btf;

/* What resolve needs from the system, loaded once per run. */
struct sysinfo {
	struct ksyms *ksyms;		/* NULL until a kprobe needs it */
	struct btf *btf;		/* vmlinux BTF, NULL until BTF arguments need it */
	const char *btf_path;		/* --btf FILE: the kernel's BTF from FILE (sys/kbtf.h) */
	struct btf *regs_btf;		/* our BPF object's BTF: its struct pt_regs */
	char **blacklist;		/* sorted NOKPROBE symbols, NULL if unreadable */
	int nblacklist;
	bool blacklist_read;
	int ndeferred;			/* kernel functions resolved without kallsyms */
	bool have_kprobes;		/* the perf kprobe PMU exists */
	bool defer_ksyms;		/* plain kernel function names need no kallsyms */
	bool by_trampoline;		/* --backend fentry: function probes need no kprobes */
	bool have_uprobes;
	bool explain;			/* --dry-run: kprobes explained without kprobes */
	bool unsafe;			/* --unsafe: unsafe.h's sites taken, with a note */
	/* for tests, NULL in a run: the traceable functions' list in place of
	 * tracefs's available_filter_functions (kallsyms' text symbols if it
	 * is unreadable), and the directory of SUBSYS/EVENT/format files */
	const char *functions_path;
	const char *tp_format_dir;
	/* --container: a uprobe's absolute path is under this root ("/proc/PID/root"; "": the
	 * container has no process), NULL: the host's */
	const char *uprobe_root;
};

/* A resolved probe point and registers. */
struct resolved {
	uint64_t kaddr;			/* kprobe: symbol address + offset (0 if unknown) */
	char func[128];			/* kprobe: symbol as given to the kernel ("MOD:SYM"); uprobe: symbol */
	uint64_t uoffset;		/* uprobe: file offset to attach at */
	uint64_t uaddr;			/* uprobe: ELF virtual address of the probe */
	bool uentry;			/* uprobe: at a function's first instruction */
	/* per argument, per op: the resolved value (register offset, symbol
	 * address, tracepoint field index) */
	int64_t (*opval)[SPEC_MAX_OPS];
	struct tp_format tp;		/* tracepoint: its fields */
	bool deferred;			/* kprobe: the name unchecked, kaddr 0 (defer_ksyms) */
	char note[256];			/* what the user may not expect ("" if nothing) */
	bool no_kprobes;		/* explained only (sysinfo.explain): no kprobes here */
	struct ev_target target;	/* where it attaches, for the backend and the loader */
};

void sysinfo_free(struct sysinfo *si);
/* Load kallsyms (and the blacklist) / the kernel's BTF once; 0 or -errno with msg. */
int sysinfo_need_ksyms(struct sysinfo *si, char *msg, size_t msglen);
int sysinfo_need_btf(struct sysinfo *si, char *msg, size_t msglen);
/* Module mod's BTF (free with btf__free), NULL where it has none or the
 * kernel's BTF is a --btf file's. */
struct btf *sysinfo_module_btf(struct sysinfo *si, const char *mod);
/* Whether the kernel has kprobes (the perf kprobe PMU); sets have_kprobes. */
bool sysinfo_have_kprobes(struct sysinfo *si);
/* Whether vmlinux's BTF has a function called name (loading the BTF). */
bool sysinfo_btf_has_func(struct sysinfo *si, const char *name);
/* The BTF of kptrace's BPF object, whose struct pt_regs the probes copy. */
int sysinfo_need_regs_btf(struct sysinfo *si, char *msg, size_t msglen);

/*
 * Resolve p against the system. On failure returns a negative errno and
 * fills msg (and *col with the column to put the caret under, or -1).
 */
int resolve_probe(struct sysinfo *si, const struct spec_probe *p, struct resolved *r,
		  char *msg, size_t msglen, int *col);
void resolved_free(struct resolved *r);

/*
 * Kernel functions matching a glob: from available_filter_functions (what
 * ftrace can trace) where readable, else kallsyms' text symbols; blacklisted
 * ones are skipped and counted in *skipped, names seen twice (static
 * functions of one name) once. *names is a heap array of heap strings.
 */
int sysinfo_glob_functions(struct sysinfo *si, const char *pattern, char ***names, int *n,
			   int *skipped, char *msg, size_t msglen);

/*
 * The same of the kernel functions named in set (keys "NAME", or "MOD:NAME"
 * for a module's; a compiler's copy "NAME.isra.0" is NAME's), as
 * sysinfo_glob_functions() filters them.
 */
struct htab;
int sysinfo_set_functions(struct sysinfo *si, const struct htab *set, char ***names, int *n,
			  int *skipped, char *msg, size_t msglen);

/*
 * Tracepoints matching globs over SUBSYS and EVENT ("syscalls", "sys_enter_*"),
 * from tracefs's events directory (sysinfo.tp_format_dir's in tests), as
 * "SUBSYS/EVENT", sorted; ftrace's own records (events/ftrace) are none.
 * *names is a heap array of heap strings, also on failure (then msg says why).
 */
int sysinfo_glob_tracepoints(struct sysinfo *si, const char *subsys, const char *event,
			     char ***names, int *n, char *msg, size_t msglen);

/*
 * Functions of ELF file path matching a glob: .symtab's FUNC symbols, else
 * .dynsym's, defined and sized; a name once; of names at one address the one
 * a user knows (fewer leading '_', global before weak before local). IFUNC
 * symbols (resolvers, not the function called) are counted in *ifuncs, not
 * matched. Sorted; *names a heap array of heap strings. 0, or -errno with msg.
 */
int resolve_elf_glob_functions(const char *path, const char *pattern, char ***names, int *n,
			       int *ifuncs, char *msg, size_t msglen);

/*
 * A glob's matches that several functions have (static functions of
 * different files), which kprobe_events refuses by name, left out of
 * names[] (freed; *n the rest); returns how many. kallsyms must be loaded.
 */
int sysinfo_drop_non_unique(const struct sysinfo *si, char **names, int *n);

/*
 * A kernel function by name as kernels differ: "A|B" is the first that
 * exists, a name left only as a clone (foo.isra.0) is the clone. NULL if
 * none; kallsyms must be loaded (sysinfo_need_ksyms).
 */
const struct ksym *resolve_function(struct sysinfo *si, const char *names, const char *mod);

/* Whether ELF file path has a function sym (.symtab or .dynsym). */
bool resolve_elf_has_function(const char *path, const char *sym);

/*
 * Byte offset of register name in struct pt_regs, from BTF (our object's
 * struct kpt_regs: the architecture is the one it was built for): a
 * member's name, or arm64's x0-x30 for user_pt_regs' regs[]. -ENOENT if
 * none.
 */
int resolve_reg_offset(const struct btf *btf, const char *name);

/* The register names of btf's struct kpt_regs, as "%r15 %r14 ..." (arm64:
 * "%x0..%x30 %sp %pc %pstate"), into buf: what a bad one is told. */
void resolve_reg_names(const struct btf *btf, char *buf, size_t len);

/* The register at pt_regs offset off: argument register 0 to
 * KPT_NR_REG_ARGS - 1 of the calling convention (%di, %si, %dx, %cx, %r8,
 * %r9; arm64: x0-x7), KPT_DIRECT_AX for the return value's (%ax; arm64's
 * x0 is the first argument's), -1 for any other. */
int resolve_arg_reg(const struct btf *btf, __u32 off);

#endif /* KPT_RESOLVE_H */
