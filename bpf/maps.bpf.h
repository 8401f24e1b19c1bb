/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Every map of the object and the counters the programs keep in BSS, with
 * the types only the BPF side sees in them. Sizes of 1 are the loader's to
 * set before load (src/load/loader.c); the names are the skeleton's ABI.
 */
#ifndef KPT_MAPS_BPF_H
#define KPT_MAPS_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "kptrace.h"
#include "kpt_budget.h"
#include "scratch.bpf.h"

/* --- aggregation (agg.bpf.h) --- */

/* Unkeyed histogram buckets of every probe, per CPU: no hash lookup, no lock
 * on the hot path; agg.hist_base splits it. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} kpt_hist SEC(".maps");

/* Unkeyed count/sum/min/max, per probe, per CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kpt_aggval);
} kpt_hstat SEC(".maps");

/*
 * Keyed histograms and counts: (probe, bucket, key) -> value, per CPU. The
 * key's size is the loader's: the words the run's keys use (no BTF type, or
 * the kernel would want the whole struct).
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 10240);
	__uint(key_size, sizeof(struct kpt_key));
	__type(value, struct kpt_aggval);
} kpt_kagg SEC(".maps");

/*
 * Calls in flight per (thread, entry probe): their depth, so recursion pairs
 * right, and for latency each one's entry time, on a small stack. One lookup
 * per event, changed in place: an LRU hash update allocates a new element,
 * so a depth map and a start-time map cost seven hash operations a call.
 */
struct kpt_depth_key {
	__u32 tid;
	__u32 probe;
};

/* Deeper recursion than this is counted and paired, but not timed. */
#define KPT_LAT_STACK	32

struct kpt_calls {
	__u32 depth;
	__u32 pad;
	__u64 ts[KPT_LAT_STACK];	/* latency: entry time per depth; 0: filtered out */
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 10240);
	__type(key, struct kpt_depth_key);
	__type(value, struct kpt_calls);
} kpt_depth SEC(".maps");

/* Entry data and PMU values per (thread, entry probe, depth). */
struct kpt_start_key {
	__u32 tid;
	__u32 probe;
	__u32 depth;
	__u32 pad;
};

/* A return probe's entry arguments per (thread, entry probe, depth). */
struct kpt_edata {
	__u64 v[KPT_MAX_EDATA];
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 10240);
	__type(key, struct kpt_start_key);
	__type(value, struct kpt_edata);
} kpt_edata SEC(".maps");

/* latency --pmu: the counters, one per CPU per event, opened by userspace
 * (src/load/pmu.c). */
struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} kpt_pmu SEC(".maps");

/* The UAPI's struct bpf_perf_event_value, without vmlinux.h's CO-RE marking
 * (see struct kpt_regs: no relocation, no kernel BTF parsed at load). */
struct kpt_perf_value {
	__u64 counter;
	__u64 enabled;
	__u64 running;
};

/* The counters at a call's entry, keyed as kpt_edata's entry arguments;
 * each read straight into its slot (no copy on kpt_pmu_exit()'s stack,
 * which kpt_entry's 512 bytes hold with kpt_aggregate()'s). */
struct kpt_pmu_vals {
	struct kpt_perf_value c[KPT_PMU_MAX];
	__u32 cpu;
	__u32 ok;		/* bit e: counter e was read */
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1);
	__type(key, struct kpt_start_key);
	__type(value, struct kpt_pmu_vals);
} kpt_pmu_start SEC(".maps");

/* Per LAT_END probe, per CPU: each counter's deltas, and the calls left out. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kpt_pmu_stats);
} kpt_pmu_stat SEC(".maps");

/* latency --from/--to: each open start's time under its pair's key (the
 * start probe and its --key values, or the thread). LRU: a start whose end
 * never comes is dropped for newer ones; the loader sizes it and its key. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 10240);	/* --max-keys where given */
	__type(key, struct kpt_pair_key);
	__type(value, __u64);
} kpt_pairs SEC(".maps");

/* --- stacks as keys (stack.bpf.h) --- */

/*
 * A stack's frames by a 64-bit hash of them: a kernel stack map's ids
 * collide within a few hundred stacks (a bucket per hash of its size, the
 * newer stack dropped), a 64-bit hash practically never. Allocated as
 * stacks come: most runs see far fewer than the maximum.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u64);
	__type(value, struct kpt_kstack);
} kpt_kstk SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u64);
	__type(value, struct kpt_ustack);
} kpt_ustk SEC(".maps");

/* --- the handler (kptrace.bpf.c) --- */

/* tgid -> 1: the traced processes where kpt_target_set (target.bpf.h);
 * --max-keys where given. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 10240);
	__type(key, __u32);
	__type(value, __u32);
} kpt_procs SEC(".maps");

/* No BPF cookie (ident.bpf.h): what a hit is -> its probe, one entry where
 * the kernel has cookies */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, struct kpt_ident);
	__type(value, __u32);
} kpt_ident SEC(".maps");

/* One entry per probe definition: what each probe fetches and does. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kpt_probe_entry);
} kpt_probes SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kpt_stats);
} kpt_stats SEC(".maps");

/* --budget: one bucket per probe, shared by the CPUs (the rate is the
 * probe's, not a CPU's); user space sets each one's rate and sampling. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kpt_budget);
} kpt_budget SEC(".maps");

/* The binaries' CFI rows (unwind.bpf.h), filled by the loader before the
 * probes attach, then appended to as the walk meets binaries (a binary's
 * rows before its entry); one entry each where there are none */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, KPT_CFI_BINS);
	__type(key, struct kpt_cfi_key);
	__type(value, struct kpt_cfi_bin);
} kpt_cfi_bins SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kpt_cfi_row);
} kpt_cfi_rows SEC(".maps");

/* The processes' mappings the walk falls back on, filled by user space
 * (load/cfi.c) for the processes the walk asks for (a plain hash: asked
 * from NMIs too, where an LRU's list lock could be the interrupted one's) */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, KPT_UW_PROCS);
	__type(key, __u32);
	__type(value, struct kpt_uw_proc);
} kpt_uw_procs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, KPT_UW_WANTED);
	__type(key, struct kpt_uw_want);
	__type(value, __u64);
} kpt_uw_wanted SEC(".maps");

/*
 * Record scratch, one per CPU. A plain array indexed by CPU rather than a
 * per-CPU array: per-CPU values are capped at 32 KiB and a record with its
 * string slack is larger. The programs never nest on one CPU (bpf_prog_active).
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kpt_scratch);
} kpt_scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4 << 20);
} kpt_events SEC(".maps");

/*
 * The run's window: 1 while loader_attach() puts the probes on and from the
 * stop (-d, a signal, the target's exit) on, so every probe counts over
 * the same span, and nothing after the deadline reaches a table, the
 * profile or the stream while the kernel takes the links off (an RCU grace
 * period each, one at a time: seconds for hundreds). User space writes it
 * through the mapped .bss; each hit reads it first (kpt_handle()).
 */
__u32 kpt_stopped = 0;
/* Processes not followed: kpt_procs was full (--max-keys). */
__u64 kpt_procs_full = 0;
/* When the consumer was last woken (ringbuf.bpf.h). */
__u64 kpt_last_wakeup = 0;

#endif /* KPT_MAPS_BPF_H */
