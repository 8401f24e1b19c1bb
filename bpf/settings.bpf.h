/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Every setting of a run, in one place: read-only data the loader
 * (src/load/loader.c, src/load/pmu.c) writes before load. The verifier knows their
 * values, so it drops the branches a run does not take and bounds the
 * loops at this run's maxima: most of kptrace's start-up is its time, and
 * what it drops costs nothing a hit. Their names are the skeleton's ABI.
 */
#ifndef KPT_SETTINGS_BPF_H
#define KPT_SETTINGS_BPF_H

#include "vmlinux.h"
#include "kptrace.h"

/* What this run's probes use, KPT_USE_*: unused parts are not even verified
 * where Linux 6.8+ skips unreachable global functions, and a few
 * instructions each before (KPT_ONLY_IF()). */
const volatile __u32 kpt_uses = ~0u;
#define KPT_USES(what)	(kpt_uses & KPT_USE_##what)

/* The actions of the run's probes (bit KPT_ACT_*) and their largest --by
 * key count: kpt_aggregate() drops the others' code, kpt_make_key() the
 * loop's further turns. Before 6.8, the verifier walks all of both where
 * a run needs one action (6.1: 147k instructions, 1.8 s under TCG, for a
 * count). */
const volatile __u32 kpt_acts = ~0u;
#define KPT_ACTS(what)	(kpt_acts & (1u << KPT_ACT_##what))
const volatile __u32 kpt_max_nkeys = KPT_MAX_KEYS;

/* The run has one probe: no cookie to read. */
const volatile bool kpt_one_probe = false;

/* A --from start keeps its --by key words for the end (kpt_pairs' value is
 * a struct kpt_pair_val, not a time alone): the code that reads them is
 * dropped without, where the value has no room for them. */
const volatile bool kpt_pair_carry = false;

/* --budget: each hit asks kpt_budget first (include/kpt_budget.h) */
const volatile bool kpt_budget_on = false;
/* Every probe a direct pair on a classic tracepoint, untargeted, no
 * budget: kptrace's own hits checked after each hit's filter
 * (kpt_pair_direct_key()), so a rejected hit pays no helper call. */
const volatile bool kpt_pair_late = false;

/* latency --perfetto: each timed call also a record (KPT_REC_CALL) */
const volatile bool kpt_lat_emit = false;
/* latency --over NS: each call at or over it also its end's record (KPT_REC_SLOW) */
const volatile __u64 kpt_lat_over = 0;

/* task_struct.rethooks and struct rethook_node's llist, ret_addr and frame,
 * from the kernel's BTF: fexit's return address under a kretprobe
 * (kpt_rethook_ret()); task 0 where the kernel has no rethook. */
const volatile __u32 kpt_rh_task_off = 0;
const volatile __u32 kpt_rh_llist_off = 0;
const volatile __u32 kpt_rh_ret_off = 0;
const volatile __u32 kpt_rh_frame_off = 0;

/* bpf_get_func_ip() is allowed in kprobe programs (Linux 5.15), so a
 * uretprobe's record gets its function's address (kpt_ufunc()). */
const volatile bool kpt_func_ip = false;

/* No BPF cookie in this kernel (before 5.15): a probe is told by what it
 * hit (ident.bpf.h). Where the per-CPU current_kprobe is (kallsyms: an
 * offset into each CPU's area), the per-CPU areas' table __per_cpu_offset,
 * and struct kprobe's addr (the kernel's BTF). */
const volatile bool kpt_no_cookie = false;
const volatile __u64 kpt_id_curkp = 0;
const volatile __u64 kpt_id_pcpu = 0;
const volatile __u32 kpt_id_addr_off = 0;
/* Slot n's probe (kpt_entry_sN, kpt_tp_sN), a constant to the verifier */
const volatile __u32 kpt_slot_probe[KPT_ID_SLOTS];
/* 1 + the probe a tracepoint slot runs next, of two on one tracepoint (kpt_tp2's) */
const volatile __u32 kpt_slot_then[KPT_ID_SLOTS];

/* Linux 5.17's bpf_find_vma(), where the kernel has it (the loader asks):
 * the caller at an entry probe gets its binary's build id (stack.bpf.h) */
const volatile bool kpt_have_find_vma = false;

/* User stacks unwound from the binaries' CFI (unwind.bpf.h): on where the
 * loader filled kpt_cfi_bins, with where a vm_area_struct's file offset and
 * file, a file's inode, an inode's number and super block and a super
 * block's dev_t are (the kernel's BTF, read by the loader: no CO-RE) */
const volatile bool kpt_cfi_on = false;
const volatile __u32 kpt_vma_pgoff_off = 0;
const volatile __u32 kpt_vma_file_off = 0;
const volatile __u32 kpt_file_inode_off = 0;
const volatile __u32 kpt_inode_ino_off = 0;
const volatile __u32 kpt_inode_sb_off = 0;
const volatile __u32 kpt_sb_dev_off = 0;
const volatile __u32 kpt_task_mm_off = 0;	/* task_struct's mm */
const volatile __u32 kpt_page_shift = 12;	/* vm_pgoff's unit: the kernel's page size (cfi_layout()) */

/* The words of struct kpt_regs the run's probes read (kpt_copy_regs()). */
const volatile __u64 kpt_regs_mask = ~0ull;	/* arm64 has 34 */

/* The fast paths (direct.bpf.h): a direct stream, or size 0; a direct
 * histogram, or on 0 (include/kptrace.h); a direct pair, or on 0. */
const volatile struct kpt_direct_stream kpt_ds = {};
const volatile struct kpt_direct_hist kpt_dh = {};
/* A direct pair on one tracepoint (kpt_tp2), or on 0. */
const volatile struct kpt_direct_pair kpt_dp = {};
/* Each tp_btf slot's direct pair probe, or on 0 (include/kptrace.h). */
const volatile struct kpt_tpbtf_pair kpt_tpbtf_pair[KPT_TPBTF_SLOTS] = {};

/*
 * The largest argument count, dereference chain and array of the run's
 * probes: the loops end at them as well as at the compile-time maxima, so
 * the verifier walks only the iterations this run can take.
 */
const volatile __u32 kpt_max_args = KPT_MAX_ARGS;
const volatile __u32 kpt_max_deref = KPT_MAX_DEREF;
const volatile __u32 kpt_max_count = KPT_MAX_ARRAY;

/*
 * Tracepoints: how far into the record plain loads may go (the smallest end
 * of the run's tracepoints' fields: the kernel refuses, at attach, a program
 * whose loads reach past an event's last field), and the record word every
 * direct field of the run is in (kpt_tp_word_at()), 0 if they differ.
 */
const volatile __u32 kpt_tp_end = 0;
const volatile __u32 kpt_tp_direct_word = 0;

/* Targeting (-p, -t, --cgroup, --comm); 0 / empty traces everyone. */
const volatile __u32 kpt_target_tgid = 0;
const volatile __u32 kpt_target_tid = 0;
const volatile __u64 kpt_target_cgroups[KPT_TARGET_CGROUPS] = {};
const volatile __u32 kpt_target_ncgroups = 0;
const volatile char kpt_target_comm[KPT_COMM_LEN] = {};
/* Any of tgid, tid, cgroup: untargeted hits load this one setting only. */
const volatile bool kpt_targeted = false;
/*
 * -c (and -p with --keep-running): the traced processes are kpt_procs'
 * keys, not kpt_target_tgid, so a pid that comes back as another process's
 * is not traced.
 */
const volatile bool kpt_target_set = false;
/* Some probe is KPT_PF_ANY_TASK: targeting looks the probe up before it filters. */
const volatile bool kpt_any_task_ends = false;
/* Some probe keys by cgroup or container: each hit reads the task's cgroup id. */
const volatile bool kpt_cgroup_key = false;
/* The chain to the task's cgroup id and its pid, from the kernel's BTF
 * (loader_cgroup_layout()): task_struct.cgroups, css_set.dfl_cgrp,
 * cgroup.kn, kernfs_node.id, task_struct.pid. */
const volatile bool kpt_cg_loads = false;
const volatile __u32 kpt_cg_off[5] = {};
/* task_struct.tgid, for kpt_current()'s loads and kpt_own_by_stack(). */
const volatile __u32 kpt_task_tgid_off = 0;
/*
 * kptrace's own process, never traced: its own reads and writes seen by
 * its probes would feed back (t:syscalls/sys_enter_write). 0 where kptrace
 * cannot hit a probe of the run (uprobes in other files).
 */
const volatile __u32 kpt_self_tgid = 0;
/* task_struct.stack, from the kernel's BTF, where a direct histogram's
 * check for kptrace's own hits asks the stack a hit runs on first
 * (KPT_DH_SELF_STACK, kpt_own_by_stack()). */
const volatile __u32 kpt_oncpu_stack_off = 0;

/* Where task/task_newtask's pid and clone_flags and sched_process_free's
 * pid are in their records (tracefs's format files). */
const volatile __u32 kpt_nt_pid_off = 0;
const volatile __u32 kpt_nt_flags_off = 0;
const volatile __u32 kpt_free_pid_off = 0;

/* Ring buffer data waiting that wakes the consumer (ringbuf.bpf.h); 0: the
 * kernel's default. */
const volatile __u64 kpt_wakeup_bytes = 0;

/* latency --pmu: the counters (at most KPT_PMU_MAX, 0 without --pmu), and
 * counter e of CPU c at kpt_pmu[e * kpt_pmu_stride + c]. */
const volatile __u32 kpt_pmu_n = 0;
const volatile __u32 kpt_pmu_stride = 0;

/* The stacks the run's keys take (KPT_SK_*): without, a run of -K or -U
 * drops kpt_stack_keys() and kpt_stack_hash(), its loop over 508 words
 * most of its load (169k instructions). */
const volatile __u32 kpt_stack_keyed = KPT_SK_KSTACK | KPT_SK_USTACK;

/* -K/-U and stack keys: the frames to capture, at most KPT_STACK_MAX. */
const volatile __u32 kpt_kstack_depth = KPT_STACK_MAX;
const volatile __u32 kpt_ustack_depth = KPT_STACK_MAX;

#endif /* KPT_SETTINGS_BPF_H */
