/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The binaries' CFI tables for the BPF unwinder (bpf/unwind.bpf.h): which
 * binaries (at start: a run's uprobe files, the traced process's mapped
 * objects, -c's command, libc and the dynamic linker; then the others as
 * the walk meets them and asks), each one's .eh_frame rows, with
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
	struct kpt_cfi_row *rows;	/* val.nrows of them; NULL once in the map (read late) */
	pid_t pid;			/* read late: the process that asked; 0: at start */
};

struct cfi_set {
	struct cfi_bin *bins;	/* n of them, in the order read */
	int n, cap;
	struct kpt_cfi_key *none;	/* binaries asked for that got no table (nnone) */
	int nnone, none_cap;
	uint32_t rows;		/* all bins' */
	uint32_t late;		/* the rows kept for tables read late (--unwind-rows) */
	uint32_t room;		/* the rows' map's size: cfi_collect()'s rows and late */
	int dropped;		/* binaries whose tables did not fit at start */
	char dropped_path[256];	/* the first of them */
	bool late_full_said;	/* a late table found no room: said once */
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
 * has no table: its frames are walked by frame pointers. Then cs->room,
 * the rows' map's size: these rows, and cs->late for the tables read as
 * walks meet binaries (KPT_CFI_ROWS_MAX in all at most).
 */
void cfi_collect(struct cfi_set *cs, const struct ev_desc *evs, int n, pid_t pid,
		 const char *command);

/*
 * b's rows, then its entry, into the maps (bins_fd: kpt_cfi_bins, rows_fd:
 * kpt_cfi_rows): the walk never meets an entry without its rows. 0, or -errno.
 */
int cfi_bin_load(const struct cfi_bin *b, int bins_fd, int rows_fd);

/* The BPF maps cfi_fill_wanted() answers the walk's asks in (loader.h's). */
struct cfi_maps {
	int bins, rows, procs, wanted;
};

/*
 * What the BPF walk asked for (kpt_uw_wanted): a process's executable
 * mappings of files into kpt_uw_procs, for the mm it asked with; a
 * binary's table, read through the asking process's mapping of it, its
 * rows appended to kpt_cfi_rows and then its entry written to
 * kpt_cfi_bins (one without rows where it has no table, or none fits: asked
 * for no more). At most every 100 ms: until then the walks go as without
 * (frame pointers; where interrupts are off, cut short after the first
 * frame). The number of tables read: cs->bins' last ones.
 */
int cfi_fill_wanted(struct cfi_set *cs, const struct cfi_maps *m);

void cfi_free(struct cfi_set *cs);

#endif /* KPT_CFI_H */
