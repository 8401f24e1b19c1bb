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

/* --cgroup, --container: whether the task's cgroup (id) is one of those traced. */
static __always_inline bool kpt_cgroup_wanted(__u64 id)
{
	__u32 i;

	if (!kpt_target_ncgroups)
		return true;
	for (i = 0; i < KPT_TARGET_CGROUPS; i++) {
		if (i >= kpt_target_ncgroups)
			break;
		if (kpt_target_cgroups[i] == id)
			return true;
	}
	return false;
}

/* -p, -c, -t, --cgroup: whether the task (its ids in pid_tgid, its cgroup
 * cgid) is one traced. */
static __always_inline bool kpt_task_targeted(__u64 pid_tgid, __u64 cgid)
{
	__u32 tgid = pid_tgid >> 32;

	if (!kpt_targeted)
		return true;
	return !(kpt_target_set ? !bpf_map_lookup_elem(&kpt_procs, &tgid) :
				  kpt_target_tgid && tgid != kpt_target_tgid) &&
	       !(kpt_target_tid && (__u32)pid_tgid != kpt_target_tid) && kpt_cgroup_wanted(cgid);
}

/*
 * Whether the hit of probe idx goes on: its task traced, or the probe an end
 * any task may make (KPT_PF_ANY_TASK); if not, counted as filtered. The ids
 * are read once a hit, by the caller: every path needs the tgid for
 * kpt_self_tgid, and the records and latencies need them too.
 */
static __always_inline bool kpt_task_wanted(struct kpt_stats *st, __u64 pid_tgid, __u64 cgid,
					    __u32 idx)
{
	struct kpt_probe_entry *p;

	if (kpt_task_targeted(pid_tgid, cgid))
		return true;
	if (kpt_any_task_ends && (p = bpf_map_lookup_elem(&kpt_probes, &idx)) &&
	    (p->flags & KPT_PF_ANY_TASK))
		return true;
	st->filtered++;
	return false;
}

/*
 * The current task's ids (tgid << 32 | pid), and its cgroup id in the
 * default (v2) hierarchy into *cgid where the run targets or keys by cgroup
 * (else 0), as bpf_get_current_cgroup_id() gives it: cgroup_id() of its
 * css_set's dfl_cgrp. One helper call for both where the loader found the
 * chain's offsets (no CO-RE relocation, which would read the kernel's BTF
 * in every run): where the kernel's returns are mitigated (AMD's SRSO),
 * each call costs as much as the rest of a keyed count. 5.10's object has
 * no task pointer helper (5.11): the two helpers there.
 */
static __always_inline __u64 kpt_current(__u64 *cgid)
{
	bool need = kpt_target_ncgroups || kpt_cgroup_key;
#ifndef KPT_COMPAT
	void *t;

	if (need && kpt_cg_loads) {
		t = bpf_get_current_task_btf();
		*cgid = *(__u64 *)(*(void **)(*(void **)(*(void **)(t + kpt_cg_off[0]) +
							  kpt_cg_off[1]) + kpt_cg_off[2]) +
				   kpt_cg_off[3]);
		return ((__u64)*(__u32 *)(t + kpt_cg_off[5]) << 32) | *(__u32 *)(t + kpt_cg_off[4]);
	}
#endif
	*cgid = need ? bpf_get_current_cgroup_id() : 0;
	return bpf_get_current_pid_tgid();
}

/*
 * Whether kptrace itself hit the probe (kpt_self_tgid), with the task's ids
 * into *pid_tgid and its cgroup into *cgid (kpt_current()), read once a
 * hit: targeting, records and latency need them too. A direct histogram,
 * which needs none of them (untargeted), is spared the helper call, the
 * check's whole cost (bench/README.md): where kptrace cannot hit its probe
 * (uprobes in other files: kpt_self_tgid 0), and else until its filter
 * passed (kpt_hist_self(); under a budget, whose tokens a hit of kptrace's
 * must not take, here). A tracepoint program may not read the record's
 * common_pid instead.
 */
static __always_inline bool kpt_self_hit(bool direct_hist, __u64 *pid_tgid, __u64 *cgid)
{
	__u32 self = kpt_self_tgid;	/* one load: the verifier knows it */

	*pid_tgid = 0;
	*cgid = 0;
	if (direct_hist && !kpt_targeted && (!self || !kpt_budget_on))
		return false;
	*pid_tgid = kpt_current(cgid);
	return self && (__u32)(*pid_tgid >> 32) == self;
}

/*
 * A direct histogram's hit its filter passed (or one without a filter):
 * kptrace's own, left out uncounted, where kpt_self_hit() left the check
 * to here. One the filter rejected is counted filtered, kptrace's or not:
 * a system-wide histogram's every rejected hit is spared the helper call.
 */
static __always_inline bool kpt_hist_self(struct kpt_stats *st)
{
	__u32 self = kpt_self_tgid;

	if (!self || kpt_targeted || kpt_budget_on ||
	    (__u32)(bpf_get_current_pid_tgid() >> 32) != self)
		return false;
	st->hits--;
	return true;
}

#endif /* KPT_TARGET_BPF_H */
