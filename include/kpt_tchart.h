/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * kptrace timechart: what the scheduler programs (bpf/sched.bpf.h) keep per
 * task and per time slice, read back by src/agg/tchart.c. Fixed-width types
 * only: the same bytes on both sides.
 */
#ifndef KPT_TCHART_H
#define KPT_TCHART_H

#include "kptrace.h"

/* A task's state: what its time is counted as. */
enum kpt_tc_state {
	KPT_TC_RUN,		/* on a CPU */
	KPT_TC_WAIT,		/* runnable: woken or preempted, waiting for a CPU */
	KPT_TC_SLEEP,		/* S (and I, T): waiting for an event */
	KPT_TC_DISK,		/* D: uninterruptible, mostly I/O */
	KPT_TC_NSTATES,
	KPT_TC_DEAD = KPT_TC_NSTATES,	/* exited: nothing counted any more */
};

/*
 * Slices a run has at most (the picture's columns): time past the last one
 * counts in the tasks' totals only (kpt_tc_past). The width is the run's
 * (--slice, else -d / 1000, else 50 ms).
 */
#define KPT_TC_SLICES		2048
#define KPT_TC_TASKS		16384	/* tasks followed, --max-keys where given */
#define KPT_TC_SLICE_KEYS	262144	/* (task, slice) pairs with time */
#define KPT_TC_RQS		4096	/* block requests in flight */
#define KPT_TC_SPAN_KEYS	65536	/* runs of whole slices (kpt_tc_spans) */
#define KPT_TC_CPU_LANE		0x80000000u	/* a span's key.tid: a CPU's */

/* kpt_tc_task.flags */
#define KPT_TC_F_UNWANTED	1	/* of a process the run does not trace (-p, -c) */
#define KPT_TC_F_SUM		2	/* .sum holds its CPU time when last seen */

/* Per task (thread id): its state now and its totals since the run began. */
struct kpt_tc_task {
	__u64 since;		/* when its current state began, monotonic ns */
	__u64 ns[KPT_TC_NSTATES];	/* time in each state */
	__u64 io_ns;		/* its block requests' time from issue to completion */
	__u64 born, died;	/* fork and exit times, 0: before / after the run */
	__u64 sum;		/* its se.sum_exec_runtime when last seen switched, woken, forked */
	__u32 tgid;		/* its process, 0 until it is first switched out */
	__u32 ppid;		/* the process that forked it during the run, 0: unknown */
	__u32 state;		/* enum kpt_tc_state */
	__u32 wakeups;
	__u32 ios;		/* block requests issued */
	__u32 flags;		/* KPT_TC_F_* */
	char comm[KPT_COMM_LEN];	/* at its last switch out */
};

struct kpt_tc_key {
	__u32 tid;
	__u32 slice;
};

/* One task's time in one slice. */
struct kpt_tc_slice {
	__u64 ns[KPT_TC_NSTATES];
	__u32 wakeups;
	__u32 ios;
};

/* What each CPU runs now: its non-idle time goes to the CPU's lane. */
struct kpt_tc_oncpu {
	__u64 since;
	__u32 pid;
	__u32 pad;
};

struct kpt_tc_rq {
	__u64 ts;
	__u32 tid;
	__u32 pad;
};

/* The slice time t (monotonic ns, >= t0) falls in. */
static inline __u64 kpt_tc_slice_of(__u64 t, __u64 t0, __u64 width)
{
	return (t - t0) / width;
}

#endif /* KPT_TCHART_H */
