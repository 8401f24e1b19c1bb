// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Pids as the task's own pid namespace numbers them (nspid.h). */
#include <string.h>

#include "kptrace.h"
#include "out/nspid.h"
#include "sys/procmaps.h"

#define NSPID_SLOTS 1024	/* power of two */

struct slot {
	uint32_t tid;
	bool below;		/* in a namespace below ours: ns holds its numbers */
	struct nspid ns;
	char comm[KPT_COMM_LEN];
};

static struct slot cache[NSPID_SLOTS];

bool nspid_get(uint32_t tid, const char *comm, struct nspid *ns)
{
	struct slot *s = &cache[tid & (NSPID_SLOTS - 1)];

	/* tid 0 is the idle task's: never below, and the empty slot's key */
	if (!tid)
		return false;
	if (s->tid != tid || strncmp(s->comm, comm, KPT_COMM_LEN)) {
		s->tid = tid;
		memcpy(s->comm, comm, KPT_COMM_LEN);
		s->below = procstatus_nspids((pid_t)tid, &s->ns.tgid, &s->ns.tid) > 1;
	}
	*ns = s->ns;
	return s->below;
}
