/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * kptrace list [GLOB]: the traceable kernel functions with their prototypes
 * from BTF (vmlinux and module BTF), and the tracepoints with their fields
 * from tracefs's format files.
 *
 * GLOB (fnmatch, default every entry):
 *	NAME		functions named NAME (core and modules) and tracepoints
 *			whose event is NAME, in any subsystem
 *	SUBSYS/EVENT	tracepoints only
 *	A:B		tracepoints A/B and the functions B of module A
 *	u:PATH[:P:N]	PATH's USDT probes (provider P, name N: globs)
 *
 * Text, one line per entry, functions first, each kind sorted by name:
 *	ssize_t vfs_read(struct file *file, char *buf, size_t count, loff_t *pos)
 *	int ext4_sync_fs(struct super_block *sb, int wait) [ext4]
 *	cpu_startup_entry.cold (no BTF)
 *	sched/sched_switch { char prev_comm[16]; pid_t prev_pid; ... }
 * --json: one object per line,
 *	{"type":"function","name":N,"module":M|null,"btf":true,"proto":P,
 *	 "return":T,"params":[{"name":N,"type":T},...]}
 *	{"type":"function","name":N,"module":M|null,"btf":false}
 *	{"type":"tracepoint","group":G,"event":E,"id":I,"fields":[{"name":N,
 *	 "decl":D,"type":T,"offset":O,"size":S,"signed":B},...]}
 *	{"type":"usdt","provider":P,"name":N,"address":A,"offset":O,
 *	 "semaphore":S|null,"semaphore_offset":O|null,"note":T,
 *	 "args":[{"name":N,"fetch":F,"type":T},...],"error":E|null}
 * The counts go to stderr; nothing matching is an error.
 */
#ifndef KPT_LIST_H
#define KPT_LIST_H

#include <stddef.h>
#include <stdio.h>
#include "prepare/opts.h"

struct btf;

/* The list subcommand. Returns 0, or a negative errno (message printed). */
int kpt_list(const struct kpt_opts *env);

/*
 * A BTF with an index of its FUNCs by name and a C printer, for prototypes.
 * The btf stays the caller's.
 */
struct list_btf;

struct list_btf *list_btf_new(const struct btf *btf);
void list_btf_free(struct list_btf *lb);
/* Type id of FUNC name, or -ENOENT. */
int list_btf_find(const struct list_btf *lb, const char *name);
/*
 * The C declaration of FUNC func_id named name ("ssize_t vfs_read(struct
 * file *file, ...)"), on one line, into buf. Returns the length (which may
 * exceed len - 1: truncated), or a negative errno.
 */
int list_btf_proto(struct list_btf *lb, int func_id, const char *name, char *buf, size_t len);
/* The C name of type id ("struct file *", "void" for 0), likewise. */
int list_btf_type(struct list_btf *lb, int type_id, char *buf, size_t len);

/*
 * Split a list GLOB into a function part and a tracepoint part: *fmod is the
 * module glob (NULL: any, core included), *ffunc the function glob (NULL:
 * no functions), *tsys and *tev the tracepoint globs (*tev NULL: no tracepoints).
 * Writes into buf (at least strlen(glob) + 1 bytes).
 */
void list_split_glob(const char *glob, char *buf, const char **fmod, const char **ffunc,
		     const char **tsys, const char **tev);

#endif /* KPT_LIST_H */
