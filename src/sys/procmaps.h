/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The one reader of /proc/PID/maps: each mapping, its file by device and
 * inode; and of /proc/PID/status's numbers.
 */
#ifndef KPT_PROCMAPS_H
#define KPT_PROCMAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* One line: "start-end perms offset major:minor inode path". */
struct procmap {
	uint64_t start, end, pgoff;
	dev_t dev;
	uint64_t ino;
	char perms[8];
	char *path;		/* the line's text past the inode, trailing blanks cut ("" if none) */
};

/* line into *m (m->path points into line, which it edits); false if it is no mapping. */
bool procmaps_parse(char *line, struct procmap *m);

/*
 * Each mapping of process tgid, in the file's order, to fn (proc_root: "/proc",
 * or another mount of it); fn's non-zero return stops the walk and is
 * returned. 0, or -errno when the file cannot be read (the process is gone).
 */
int procmaps_each(const char *proc_root, uint32_t tgid,
		  int (*fn)(void *arg, const struct procmap *m), void *arg);

/*
 * Where the file of process tgid's mapping m is read from, into buf: its
 * path, where that is the host's file (PROCMAP_HOST); else through the
 * process's root, a container's file (PROCMAP_ROOT); else (deleted,
 * replaced, unreachable so) the mapping itself, PROC/TGID/map_files/.
 */
enum procmap_via { PROCMAP_HOST, PROCMAP_ROOT, PROCMAP_MAPFILES };
enum procmap_via procmaps_file(const char *proc_root, uint32_t tgid, const struct procmap *m,
			       char *buf, size_t len);

/* The number on /proc/ID/status's line "KEY:" (Tgid, PPid...), -1 when the task is gone. */
long procstatus_field(pid_t id, const char *key);
/*
 * Task id's process and thread ids as its own pid namespace numbers them:
 * the last numbers of NStgid and NSpid (Linux 4.1). The namespace levels
 * below the reader's plus one (1: the reader's own), -1 when the task is
 * gone or the lines are missing.
 */
int procstatus_nspids(pid_t id, uint32_t *tgid, uint32_t *tid);

#endif /* KPT_PROCMAPS_H */
