/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * --json's pids as a task's own pid namespace numbers them (a container's
 * view), for tasks in a namespace below kptrace's: read from /proc/TID/status
 * at the task's first event, while it lives, and kept by tid (its comm tells
 * a reused tid from the task first seen; a collision just evicts).
 */
#ifndef KPT_NSPID_H
#define KPT_NSPID_H

#include <stdbool.h>
#include <stdint.h>

struct nspid {
	uint32_t tgid, tid;
};

/* Whether task tid (named comm, KPT_COMM_LEN bytes) is in a pid namespace
 * below ours: its numbers there in *ns. False too when it is gone. */
bool nspid_get(uint32_t tid, const char *comm, struct nspid *ns);

#endif /* KPT_NSPID_H */
