/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Whom a hit is for: kptrace itself (never traced), and the tasks -p, -c,
 * -t, --cgroup and --comm select.
 */
#ifndef KPT_TARGET_BPF_H
#define KPT_TARGET_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "kptrace.h"
#include "settings.bpf.h"
#include "maps.bpf.h"

static __always_inline bool kpt_comm_differs(const char *comm)
{
	int i;

	for (i = 0; i < KPT_COMM_LEN; i++) {
		if (comm[i] != kpt_target_comm[i])
			return true;
		if (!comm[i])
			break;
	}
	return false;
}

/* --cgroup, --container: whether the task's cgroup is one of those traced. */
static __always_inline bool kpt_cgroup_wanted(void)
{
	__u64 id;
	__u32 i;

	if (!kpt_target_ncgroups)
		return true;
	id = bpf_get_current_cgroup_id();
	for (i = 0; i < KPT_TARGET_CGROUPS; i++) {
		if (i >= kpt_target_ncgroups)
			break;
		if (kpt_target_cgroups[i] == id)
			return true;
	}
	return false;
}

/* -p, -c, -t, --cgroup: whether the task (its ids in pid_tgid) is one traced. */
static __always_inline bool kpt_task_targeted(__u64 pid_tgid)
{
	__u32 tgid = pid_tgid >> 32;

	if (!kpt_targeted)
		return true;
	return !(kpt_target_set ? !bpf_map_lookup_elem(&kpt_procs, &tgid) :
				  kpt_target_tgid && tgid != kpt_target_tgid) &&
	       !(kpt_target_tid && (__u32)pid_tgid != kpt_target_tid) && kpt_cgroup_wanted();
}

/*
 * Whether the hit of probe idx goes on: its task traced, or the probe an end
 * any task may make (KPT_PF_ANY_TASK); if not, counted as filtered. The ids
 * are read once a hit, by the caller: every path needs the tgid for
 * kpt_self_tgid, and the records and latencies need them too.
 */
static __always_inline bool kpt_task_wanted(struct kpt_stats *st, __u64 pid_tgid, __u32 idx)
{
	struct kpt_probe_entry *p;

	if (kpt_task_targeted(pid_tgid))
		return true;
	if (kpt_any_task_ends && (p = bpf_map_lookup_elem(&kpt_probes, &idx)) &&
	    (p->flags & KPT_PF_ANY_TASK))
		return true;
	st->filtered++;
	return false;
}

/*
 * Whether kptrace itself hit the probe (kpt_self_tgid), with the task's ids
 * into *pid_tgid, read once a hit: targeting, records and latency need them
 * too. A direct histogram, which needs none of them (untargeted), is spared
 * the helper call, the check's whole cost (bench/README.md), where kptrace
 * cannot hit its probe (uprobes in other files: kpt_self_tgid 0); a
 * tracepoint program may not read the record's common_pid instead.
 */
static __always_inline bool kpt_self_hit(bool direct_hist, __u64 *pid_tgid)
{
	__u32 self = kpt_self_tgid;	/* one load: the verifier knows it */

	*pid_tgid = 0;
	if (direct_hist && !kpt_targeted && !self)
		return false;
	*pid_tgid = bpf_get_current_pid_tgid();
	return self && (__u32)(*pid_tgid >> 32) == self;
}

#endif /* KPT_TARGET_BPF_H */
