// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* latency --pmu: the opened counters put in the BPF object's perf event array. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/bpf.h>

#include "load/loader.h"
#include "load/pmu.h"

int pmu_attach(struct pmu_set *ps, struct loader *ld, char *msg, size_t msglen)
{
	int mfd = loader_map_fd(ld, LM_PMU), e, c;

	ps->fd_stat = loader_map_fd(ld, LM_PMU_STAT);
	for (e = 0; e < ps->n; e++) {
		for (c = 0; c < ps->ncpus; c++) {
			__u32 key = e * ps->ncpus + c;
			int fd = ps->fds[key];

			if (fd < 0)
				continue;
			if (bpf_map_update_elem(mfd, &key, &fd, BPF_ANY)) {
				int err = -errno;

				snprintf(msg, msglen, "%s: the kernel does not let BPF programs read "
					 "this counter (perf event array: %s)", ps->ev[e].name,
					 strerror(errno));
				return err;
			}
		}
	}
	return 0;
}
