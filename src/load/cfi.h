/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The binaries' CFI tables for the BPF unwinder (bpf/unwind.bpf.h): which
 * binaries (a run's uprobe files, the traced process's mapped objects, -c's
 * command, libc and the dynamic linker), each one's .eh_frame rows, with
 * .debug_frame's (its own or its debug file's) where .eh_frame covers
 * under half its code (sys/ehframe.c), with file offsets for addresses,
 * and the kernel layout the unwinder reads a mapping's file by.
 */
#ifndef KPT_CFI_H
#define KPT_CFI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "kptrace.h"

struct btf;
struct ev_desc;

struct cfi_bin {
	char *path;			/* as given (the symbolizer's, too) */
	char *source;			/* the sections read: ".eh_frame", ".debug_frame of DEBUGFILE"... */
	struct kpt_cfi_key key;
	struct kpt_cfi_bin val;
	struct kpt_cfi_row *rows;	/* val.nrows of them */
};

struct cfi_set {
	struct cfi_bin bins[KPT_CFI_BINS];
	int n;
	uint32_t rows;		/* all bins' */
	int dropped;		/* binaries whose tables did not fit */
	char dropped_path[256];	/* the first of them */
	/* where a mapping's file is: offsets from the kernel's BTF; 0: not found */
	uint32_t vma_pgoff_off, vma_file_off, file_inode_off, inode_ino_off, inode_sb_off,
		sb_dev_off, task_mm_off;
	uint32_t page_shift;	/* vm_pgoff's unit: this kernel's pages (arm64's may be 16 or 64 KiB) */
	double next_fill;	/* cfi_fill_wanted()'s next round, monotonic seconds */
};

/* The kernel's layout of a mapping's file into cs; false if the BTF lacks a member. */
bool cfi_layout(struct cfi_set *cs, const struct btf *btf);

/*
 * path's table into cs, unless it is there already (same file) or has no
 * .eh_frame or .debug_frame; a table past KPT_CFI_BINS or KPT_CFI_ROWS_MAX is counted as
 * dropped. 0, or -errno with the reason in msg (the file is not ELF).
 */
int cfi_add_file(struct cfi_set *cs, const char *path, char *msg, size_t msglen);

/* The tables of each file-backed executable mapping of process pid. */
int cfi_add_process(struct cfi_set *cs, pid_t pid);

/*
 * The tables a run's user stacks need: each uprobe's file (evs, n of them),
 * process pid's executable mappings (-p; 0: none), command's binary (-c;
 * NULL: none), libc and the dynamic linker (the frames users lose most:
 * Debian builds them without frame pointers). A file that cannot be read
 * has no table: its frames are walked by frame pointers.
 */
void cfi_collect(struct cfi_set *cs, const struct ev_desc *evs, int n, pid_t pid,
		 const char *command);

/*
 * The processes the BPF walk asked for (kpt_uw_wanted, at wanted_fd): each
 * one's executable mappings of cs's binaries into kpt_uw_procs (procs_fd),
 * for the mm it asked with. At most every 100 ms: a new process's walks
 * where interrupts are off go without it until then, marked cut short.
 */
void cfi_fill_wanted(struct cfi_set *cs, int procs_fd, int wanted_fd);

void cfi_free(struct cfi_set *cs);

#endif /* KPT_CFI_H */
