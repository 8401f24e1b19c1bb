/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Load: open the skeleton, size the maps for this run, set rodata,
 * load (the verifier runs here), write the probe table, attach every probe
 * with its index as the BPF cookie. All or nothing: a failed attach detaches
 * what was attached. Every attachment is an fd-based link (perf, kprobe.multi
 * or tracing), so the kernel drops it when the process dies, even by SIGKILL.
 */
#ifndef KPT_LOADER_H
#define KPT_LOADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "prepare/event.h"
#include "load/sched.h"
#include "prepare/plan.h"
#include "kptrace.h"

struct kptrace_bpf;
struct btf;
struct bpf_link;
struct bpf_program;

struct tfs_probe;
struct kpt_budget;

struct loader {
	struct kptrace_bpf *skel;
	bool compat;			/* the object without callbacks (no bpf_loop()) */
	bool no_cookie;			/* no BPF cookies: probes told apart by kpt_ident */
	bool cfi_refused;		/* the verifier refused the CFI unwinder: loaded without */
	bool dh_own;			/* the direct histogram's own programs (kpt_*_dh) */
	struct bpf_link **links;	/* links[i] is probe i's */
	bool *pair_entry;		/* probe i's ev_desc.pair_entry: off last */
	struct tfs_probe *tfs;		/* probe i's tracefs kretprobe, for "rN:" */
	struct bpf_link **mlinks;	/* kprobe.multi links */
	int nmlinks;
	struct bpf_link **plinks;	/* profile:hz:N: one per CPU per probe */
	int nplinks;
	int nmulti[2];			/* probes through them: entries, returns */
	struct bpf_program **tramp;	/* tramp[i]: probe i's fentry/fexit program, or NULL */
	const int *slot;		/* no BPF cookies: probe i's slot program, or -1 */
	int ntramp;			/* probes through trampolines */
	/* -c: kpt_newtask and kpt_procfree, which keep the set of traced
	 * processes (kpt_procs) as they come and go */
	struct bpf_link *life[2];
	struct bpf_link *sched[SCHED_NTP];	/* timechart's tracepoints */
	double attach_ms;		/* time loader_attach took */
	int nlinks;
	int nprobes;
	int ncpus;
	int failed;			/* the probe whose attach the kernel refused, or -1 */
	struct kpt_budget *budget;	/* --budget: the buckets, mapped (kpt_budget) */
	pid_t upid;			/* the process uprobes were attached for (0: all) */
	size_t budget_len;
	/* the run's window (kpt_stopped): when the probes began to count and
	 * stopped, monotonic seconds, 0: not yet */
	double started, stopped;
	struct loader_prog_snap *snap;	/* each program's run time at the stop */
	int nsnap;
	bool snapped;
	/* loader_detach(): links closed in the foreground and the time they
	 * took; links left to a child process (reaper.h) and its pid */
	int detached;
	double detach_s;
	int handed;
	pid_t reaper;
};

struct cfi_set;
struct ident_set;

struct load_opts {
	struct plan plan;	/* what the verifier gets for this run (prepare/plan.h) */
	const char *btf_path;	/* --btf FILE: libbpf's CO-RE target, NULL: the kernel's */
	pid_t self_tgid;	/* kptrace's own process: never traced (0: none) */
	pid_t target_tgid;	/* 0: everyone */
	/* the traced processes are a set in the kernel, target_tgid the first
	 * (-c; -p with --keep-running): a process leaves it when it is freed,
	 * and with follow_forks the processes its members create join it */
	bool target_set, follow_forks;
	/* where task/task_newtask's pid and clone_flags and
	 * sched/sched_process_free's pid are in their records (target_set) */
	uint32_t nt_pid_off, nt_flags_off, free_pid_off;
	/* where a task's pending return hooks are (task_struct.rethooks, the
	 * rethook_node's llist, ret_addr and frame), for fexit's return
	 * address under a kretprobe (kpt_rethook_ret()); task_off 0: unknown */
	uint32_t rh_task_off, rh_llist_off, rh_ret_off, rh_frame_off;
	/* the task's cgroup id by loads (loader_cgroup_layout()) */
	bool cg_loads;
	uint32_t cg_off[5];
	/* task_struct.tgid, read once for the loads of both (0: not read) */
	uint32_t task_tgid_off;
	/* task_struct.stack, from the kernel's BTF where the run reads it: a
	 * direct histogram's self check by the stack (loader_stack_layout();
	 * 0: the helper call) */
	uint32_t oncpu_stack_off;
	pid_t target_tid;	/* 0: every thread */
	uint64_t target_cgroups[KPT_TARGET_CGROUPS];	/* cgroup v2 ids; none: every cgroup */
	uint32_t target_ncgroups;
	const char *target_comm;	/* NULL: every comm */
	uint32_t buffer_size;	/* ring buffer bytes, power of two; 0: loader_default_ring() */
	uint32_t hist_buckets;	/* unkeyed histogram buckets of all probes */
	uint32_t max_keys;	/* keyed aggregation entries; latency calls in flight */
	/* the probes: which programs to load (the others are not: verifier
	 * time), and each fentry/fexit program's function */
	const struct ev_desc *evs;
	uint32_t pmu_n;		/* latency --pmu: counters per call (src/load/pmu.c), 0: none */
	struct sched_opts sched;	/* kptrace timechart's programs (load/sched.h) */
	const struct cfi_set *cfi;	/* user stacks' CFI tables (load/cfi.h), NULL: none */
	const struct ident_set *ident;	/* no BPF cookies: the probes' keys (load/ident.h) */
};

/* latency --from/--to: the starts still open (in kpt_pairs). */
unsigned long long loader_pairs_open(struct loader *ld);

/* The aggregation maps, for agg.c. */
enum loader_map {
	LM_HIST,		/* per-CPU array of u64 bucket counts */
	LM_HSTAT,		/* per-CPU array of struct kpt_aggval, per probe */
	LM_KAGG,		/* per-CPU hash struct kpt_key -> struct kpt_aggval */
	LM_PROCS,		/* hash tgid -> 1: the traced processes (load_opts.target_set) */
	LM_PMU,			/* perf event array: --pmu's counters, event * ncpus + cpu */
	LM_PMU_STAT,		/* per-CPU array of struct kpt_pmu_stats, per probe */
	LM_KSTK,		/* hash u64 -> struct kpt_kstack: kstack keys' frames */
	LM_USTK,		/* hash u64 -> struct kpt_ustack: ustack keys' frames */
	LM_PAIRS,		/* LRU hash struct kpt_pair_key -> its time (and carried keys) */
	LM_UW_PROCS,		/* LRU hash tgid -> struct kpt_uw_proc: the unwinder's mappings */
	LM_UW_WANTED,		/* hash struct kpt_uw_want -> mm: the walk's asks */
	LM_CFI_BINS,		/* hash struct kpt_cfi_key -> struct kpt_cfi_bin: the tables */
	LM_CFI_ROWS,		/* array of struct kpt_cfi_row: their rows */
};

/*
 * fexit's return address under a kretprobe on the same function: the
 * layout of the task's rethook nodes from the kernel's BTF into lo (left 0
 * where the kernel has none: fexit then shows the kretprobe's trampoline).
 */
void loader_rethook_layout(struct load_opts *lo, const struct btf *btf);

/*
 * The chain from a task to its cgroup id (task_struct.cgroups,
 * css_set.dfl_cgrp, cgroup.kn, kernfs_node.id) and its ids (task_struct.pid,
 * .tgid) from the kernel's BTF into lo, so each hit reads them by loads
 * (kpt_current()); cg_loads false where a member is missing: helpers then.
 */
void loader_cgroup_layout(struct load_opts *lo, const struct btf *btf);
/*
 * task_struct's stack and tgid from the kernel's BTF into lo, for a direct
 * histogram's self check by the stack a hit runs on (kpt_own_by_stack());
 * oncpu_stack_off 0 where a member is missing: the helper call then.
 */
void loader_stack_layout(struct load_opts *lo, const struct btf *btf);

/* Ring buffer bytes when --buffer-size is not given. */
uint32_t loader_default_ring(int ncpus);
/* Open and load for nprobes probes. Returns 0 or a negative errno (msg set). */
int loader_load(struct loader *ld, const struct load_opts *o, int nprobes, char *msg,
		size_t msglen);
/* Write entry idx of the probe table. */
int loader_set_probe(struct loader *ld, int idx, const struct kpt_probe_entry *ent);
/* Write probe idx's --budget bucket (the map has a bucket per probe only with load_opts.budget). */
int loader_set_budget(struct loader *ld, int idx, const struct kpt_budget *b);
/*
 * --budget's last resort: probe ev's own link destroyed (loader_detach_one()),
 * so its hits cost nothing (and are not seen), then made again with
 * loader_attach_late(). Only a probe with a link of its own (a kprobe,
 * uprobe or tracepoint, fentry/fexit) can be held.
 */
bool loader_can_hold(struct loader *ld, const struct ev_desc *ev);
int loader_hold(struct loader *ld, const struct ev_desc *ev);
/* Whether probe idx's bucket is armed now (the kernel arms it too): 1, 0, or -ENOENT. */
int loader_budget_armed(struct loader *ld, int idx);
/*
 * Attach every probe; on failure detach all. msg names the probe that failed
 * (ld->failed), with the kernel's text for the refusal first where tracefs
 * has one for it (loader_attach_error()).
 */
int loader_attach(struct loader *ld, const struct ev_desc *evs, int n, pid_t upid, char *msg,
		  size_t msglen);
/* The kernel's error class for probe ev's attach failing with -errno err, or
 * SPEC_ERR_OK where it has none. */
enum spec_err loader_attach_error(const struct ev_desc *ev, int err);
/*
 * The end of the run's window: the BPF side ignores every hit from now on
 * (kpt_stopped), and the programs' run-time statistics are kept as they are
 * now for loader_probe_prog() and loader_prog_stats(). Idempotent.
 */
void loader_stop(struct loader *ld);
/* kpt_stopped alone, and the time: safe in a signal handler (loader_stop() after it). */
void loader_stop_now(struct loader *ld);
/*
 * Stop (loader_stop()), then detach every probe (links, then tracefs
 * kretprobes): for KPT_REAP_FG_S here, the links left then by a child
 * process after kptrace returns (reaper.h; ld->handed, ld->reaper).
 * Idempotent.
 */
void loader_detach(struct loader *ld);
/*
 * A probe loader_attach() left out (ev->target.await), attached on its own
 * once its module is there (or again, after --budget held it), with its
 * index as the cookie: 0 or -errno with msg. The program is loaded already:
 * this is one more link.
 */
int loader_attach_late(struct loader *ld, const struct ev_desc *ev, char *msg, size_t msglen);
/* Probe idx's link alone, its module gone: idempotent. */
void loader_detach_one(struct loader *ld, int idx);
/* Sum the per-CPU counters of probe idx. */
int loader_stats(struct loader *ld, int idx, struct kpt_stats *out);
/*
 * kpt_hist's buckets [base, base + n) summed over the CPUs into counts[n],
 * one batch where the kernel has them; clear: each that counted, zeroed
 * (-i). 0, or -errno with counts undefined.
 */
int loader_hist_read(struct loader *ld, __u32 base, __u32 n, bool clear, uint64_t *counts);
/*
 * Every entry of hash map fd into *keys (ksz bytes each) and *vals (vsz
 * each: a per-CPU map's, its values for every possible CPU), both to free,
 * *n of them: one batch where the kernel has them (5.6), else the key walk
 * and a lookup each. The map's keys and (but per-CPU) values may be the
 * shorter: zero-padded. 0, or -errno with nothing to free.
 */
int loader_map_dump(int fd, size_t ksz, size_t vsz, void **keys, void **vals, uint32_t *n);
/* The records the ring buffer had no room for so far, over every probe. */
unsigned long long loader_lost(struct loader *ld);
/* Probe idx's statistics per CPU (ld->ncpus of them, to free), or NULL. */
struct kpt_stats *loader_stats_cpus(struct loader *ld, int idx);
/*
 * Runs of our programs the kernel skipped because another BPF program was
 * running on that CPU (bpf_prog_active; the programs' recursion_misses).
 */
unsigned long long loader_prog_misses(struct loader *ld);
/* Kernel-side misses of probe idx's kprobe (Linux 6.7+), or -1 where unknown. */
long long loader_missed(struct loader *ld, int idx);
/* The BPF object's maps: each an open file while a run is loaded. */
int loader_object_maps(void);
/* Processes created by traced ones and not followed: the set was full. */
unsigned long long loader_procs_full(struct loader *ld);
/* kptrace why: the root's calls not logged, no thread slot made (bpf/why.bpf.h). */
unsigned long long loader_why_full(struct loader *ld);
/* fd of an aggregation map, or of the traced processes'. */
int loader_map_fd(struct loader *ld, enum loader_map m);
/* Ring buffer fd for the consumer. */
int loader_events_fd(struct loader *ld);
/* Detach every link, then free everything. */
/*
 * Each loaded program's run time and runs, as the kernel counts them while
 * someone holds BPF_ENABLE_STATS (0 otherwise): fn per program.
 */
void loader_prog_stats(struct loader *ld, void (*fn)(void *arg, const char *name, uint64_t ns,
						     uint64_t runs), void *arg);
/*
 * The program that serves probe ev: its id and the kernel's run time and
 * runs of it (every probe it serves, counted while BPF_ENABLE_STATS is
 * held). 0, or -1 when it is not loaded.
 */
int loader_probe_prog(struct loader *ld, const struct ev_desc *ev, uint32_t *id, uint64_t *ns,
		      uint64_t *runs);
void loader_close(struct loader *ld);

#endif /* KPT_LOADER_H */
