/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the kernel would refuse, said before anything is loaded and in words
 * that name the fix: missing capabilities, kernel lockdown, the open-file
 * limit. Also the -o file, opened so that a planted link can't redirect it.
 */
#ifndef KPT_PRIVILEGE_H
#define KPT_PRIVILEGE_H

#include <stdio.h>

/*
 * Capabilities (CAP_BPF and CAP_PERFMON, or CAP_SYS_ADMIN) and lockdown.
 * Returns 0, or -EPERM after printing why to stderr.
 */
int privilege_check(void);

/*
 * File descriptors for nprobes probes (two each: perf event and link),
 * nmaps maps and the programs: raises the soft RLIMIT_NOFILE up to the hard
 * one if needed. Returns 0, or -EMFILE after printing the limit and the need.
 */
int fd_limit_check(int nprobes, int nmaps);

/* After a failed load or attach with err (negative errno): one more line
 * saying what to change, where one applies. */
void privilege_hint(int err);

/*
 * -o PATH for writing: never through a symbolic link (O_NOFOLLOW); an
 * existing file must be a regular file with no other hard link, not owned
 * by another user in a sticky world-writable directory (/tmp); it is
 * truncated only once checked. A new file is 0600: events hold kernel data.
 * Returns the stream, or NULL (errno set) after printing why.
 */
FILE *outfile_open(const char *path);

#endif /* KPT_PRIVILEGE_H */
