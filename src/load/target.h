/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Who is traced: -p's process or -t's thread (which must exist, and whose
 * exit ends the run), -c's command and the processes it creates (followed
 * in the kernel: load_opts.target_set), never kptrace itself.
 */
#ifndef KPT_TARGET_H
#define KPT_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "load/loader.h"
#include "prepare/event.h"

struct target {
	pid_t pid;		/* -p's process or -t's thread, 0: none */
	bool thread;		/* -t */
	int pidfd;		/* readable once it has exited; -1: checked by kill(2) */
	char comm[32];		/* its name when it was opened, for the message */
};

/*
 * -p PID (thread false) or -t TID (true): 0 once it is known to exist and
 * is watched; -ESRCH with msg if there is no such process or thread.
 */
int target_open(struct target *t, pid_t pid, bool thread, char *msg, size_t msglen);
/* Whether the process (or thread) has exited: a poll, never waits. */
bool target_exited(struct target *t);
void target_close(struct target *t);

/*
 * Whether kptrace's own process can hit one of the probes: any kernel probe
 * or tracepoint; a uprobe only in kptrace's own executable (it is static:
 * it maps no other file a uprobe could be in).
 */
bool target_self_may_hit(const struct ev_desc *evs, int n);

/*
 * The set's tracepoints' field offsets into lo (target_set): 0, or -errno
 * with msg where tracefs cannot say.
 */
int target_set_layout(struct load_opts *lo, char *msg, size_t msglen);
/* Processes of the set other than root that still run (procs_fd: LM_PROCS). */
int target_set_running(int procs_fd, pid_t root);

#endif /* KPT_TARGET_H */
