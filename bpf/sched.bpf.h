/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * kptrace timechart: the scheduler's and block layer's tracepoints kept as
 * time per task per state per slice (include/kpt_tchart.h), so a run of any
 * length costs a few map updates per context switch and no trace file.
 *
 * An interval of a state is counted when it ends: a run at the switch out,
 * a wait for a CPU at the switch in, a sleep at the wakeup. A task's entry
 * may be touched from two CPUs at once (a wakeup racing a switch): rare, and
 * at worst one interval counted under the neighbouring state, so no lock.
 *
 * Raw tracepoints, not perf event ones: those run a program only while no
 * other BPF program (nor a bpf() map syscall, preemptible) holds the CPU's
 * bpf_prog_active, and missed one wakeup in ten on a busy host; a raw
 * tracepoint's program misses only when it is itself running. Their
 * arguments are the kernel's: task_struct fields at offsets from its BTF,
 * read in user space (src/load/sched.c).
 */
#ifndef KPT_SCHED_BPF_H
#define KPT_SCHED_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "kptrace.h"
#include "kpt_tchart.h"
#include "settings.bpf.h"
#include "maps.bpf.h"

/* Slice width, ns, and task_struct's pid, tgid and se.sum_exec_runtime (the kernel's BTF; 0: none). */
const volatile __u64 kpt_tc_width = 50000000;
const volatile __u32 kpt_tc_pid_off = 0, kpt_tc_tgid_off = 0, kpt_tc_sum_off = 0;
/* Before 5.18 sched_switch has no prev_state argument: task_struct's (__)state, read. */
const volatile __u32 kpt_tc_state_off = 0;

/* A raw tracepoint program's return value is not looked at. */
#define KPT_TC_PASS	0

/* When the run began (mapped .bss, written at attach); 0: not yet. */
__u64 kpt_tc_t0 = 0;
/* What did not fit: tasks, (task, slice) pairs, requests; time past the last slice. */
__u64 kpt_tc_tasks_full = 0, kpt_tc_slices_full = 0, kpt_tc_rqs_full = 0, kpt_tc_past = 0;
/* Switches into a traced task the tracepoint never showed, recovered from its CPU time. */
__u64 kpt_tc_unseen = 0;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, KPT_TC_TASKS);
	__type(key, __u32);
	__type(value, struct kpt_tc_task);
} kpt_tc_tasks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);		/* KPT_TC_SLICE_KEYS in a timechart */
	__type(key, struct kpt_tc_key);
	__type(value, struct kpt_tc_slice);
} kpt_tc_slices SEC(".maps");

/*
 * Whole slices of one state in a row, from key.slice: {count, state}; a
 * CPU's (busy) with KPT_TC_CPU_LANE in key.tid. An interval's first whole
 * slice is no other interval's of the task.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);		/* KPT_TC_SPAN_KEYS in a timechart */
	__type(key, struct kpt_tc_key);
	__type(value, __u32[2]);
} kpt_tc_spans SEC(".maps");

/* A task's run time on each CPU: (tid, CPU in .slice) -> ns. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);		/* KPT_TC_TASKS * 2 in a timechart */
	__type(key, struct kpt_tc_key);
	__type(value, __u64);
} kpt_tc_cpuns SEC(".maps");

/* Non-idle ns of CPU c in slice s at c * KPT_TC_SLICES + s: written by CPU c only. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);		/* ncpus * KPT_TC_SLICES in a timechart */
	__type(key, __u32);
	__type(value, __u64);
} kpt_tc_cpu SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kpt_tc_oncpu);
} kpt_tc_oncpu SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, KPT_TC_RQS);
	__type(key, __u64);		/* the struct request's address */
	__type(value, struct kpt_tc_rq);
} kpt_tc_rqs SEC(".maps");

static struct kpt_tc_slice *kpt_tc_slice_get(__u32 tid, __u32 slice)
{
	struct kpt_tc_key k = { .tid = tid, .slice = slice };
	struct kpt_tc_slice zero = {}, *v;

	v = bpf_map_lookup_elem(&kpt_tc_slices, &k);
	if (v)
		return v;
	/* -EEXIST: another CPU's, as good; else the map is full */
	bpf_map_update_elem(&kpt_tc_slices, &k, &zero, BPF_NOEXIST);
	v = bpf_map_lookup_elem(&kpt_tc_slices, &k);
	if (!v)
		__sync_fetch_and_add(&kpt_tc_slices_full, 1);
	return v;
}

/* d ns of the state in slice s, the task's or (cpu_lane) CPU tid's. */
static void kpt_tc_add(__u32 tid, __u32 state, __u64 s, __u64 d, bool cpu_lane)
{
	struct kpt_tc_slice *v;
	__u32 idx;
	__u64 *c;

	if (s >= KPT_TC_SLICES) {
		__sync_fetch_and_add(&kpt_tc_past, d);
		return;
	}
	if (cpu_lane) {
		idx = tid * KPT_TC_SLICES + (__u32)s;
		c = bpf_map_lookup_elem(&kpt_tc_cpu, &idx);
		if (c)
			*c += d;
	} else if ((v = kpt_tc_slice_get(tid, (__u32)s))) {
		asm volatile("" : "+r"(state));	/* the mask kept: kpt_tc_enter()'s */
		__sync_fetch_and_add(&v->ns[state & (KPT_TC_NSTATES - 1)], d);
	}
}

/*
 * [from, to) in the state (from before the run: from its start): its first
 * and last slices' shares, and the whole slices between as one span, so a
 * long sleep costs what a short one does (user space spreads the span).
 */
static void kpt_tc_spread(__u32 tid, __u32 state, __u64 from, __u64 to, bool cpu_lane)
{
	struct kpt_tc_key k;
	__u64 first, last;
	__u32 span[2];

	if (from < kpt_tc_t0)
		from = kpt_tc_t0;
	if (to <= from || state >= KPT_TC_NSTATES)
		return;
	first = kpt_tc_slice_of(from, kpt_tc_t0, kpt_tc_width);
	last = kpt_tc_slice_of(to - 1, kpt_tc_t0, kpt_tc_width);
	if (first == last) {
		kpt_tc_add(tid, state, first, to - from, cpu_lane);
		return;
	}
	kpt_tc_add(tid, state, first, kpt_tc_t0 + (first + 1) * kpt_tc_width - from, cpu_lane);
	kpt_tc_add(tid, state, last, to - kpt_tc_t0 - last * kpt_tc_width, cpu_lane);
	if (last == first + 1)
		return;
	if (first + 1 >= KPT_TC_SLICES) {
		__sync_fetch_and_add(&kpt_tc_past, (last - first - 1) * kpt_tc_width);
		return;
	}
	if (last > KPT_TC_SLICES) {
		__sync_fetch_and_add(&kpt_tc_past, (last - KPT_TC_SLICES) * kpt_tc_width);
		last = KPT_TC_SLICES;
	}
	k.tid = tid | (cpu_lane ? KPT_TC_CPU_LANE : 0);
	k.slice = first + 1;
	span[0] = last - first - 1;
	span[1] = state;
	if (bpf_map_update_elem(&kpt_tc_spans, &k, span, BPF_ANY))
		__sync_fetch_and_add(&kpt_tc_slices_full, 1);
}

/* The task's state so far counted, its new one from now. */
static void kpt_tc_enter(struct kpt_tc_task *t, __u32 tid, __u32 state, __u64 now)
{
	__u32 old = t->state;

	if (old < KPT_TC_NSTATES && now > t->since) {
		/* masked, past clang (which knows the bound and would drop the
		 * mask): the verifier does not carry it to the copy indexed with */
		asm volatile("" : "+r"(old));
		t->ns[old & (KPT_TC_NSTATES - 1)] += now - (t->since > kpt_tc_t0 ? t->since : kpt_tc_t0);
		kpt_tc_spread(tid, old, t->since, now, false);
	}
	t->state = state;
	t->since = now;
}

/* -p, -c: whether process tgid is one the run traces (target.bpf.h's sets). */
static __always_inline bool kpt_tc_wanted(__u32 tgid)
{
	if (!kpt_targeted)
		return true;
	if (kpt_target_set)
		return bpf_map_lookup_elem(&kpt_procs, &tgid) != NULL;
	return tgid == kpt_target_tgid;
}

/* Task tid's entry, made in state at since when new; NULL when the map is full. */
static struct kpt_tc_task *kpt_tc_task_new(__u32 tid, __u32 state, __u64 since)
{
	struct kpt_tc_task t = { .state = state, .since = since }, *e;

	e = bpf_map_lookup_elem(&kpt_tc_tasks, &tid);
	if (e)
		return e;
	bpf_map_update_elem(&kpt_tc_tasks, &tid, &t, BPF_NOEXIST);
	e = bpf_map_lookup_elem(&kpt_tc_tasks, &tid);
	if (!e)
		__sync_fetch_and_add(&kpt_tc_tasks_full, 1);
	return e;
}

static __always_inline bool kpt_tc_off(void)
{
	return kpt_stopped || !kpt_tc_t0;
}

/* A task's u32 at off (pid, tgid), 0 if unreadable. */
static __always_inline __u32 kpt_tc_task_u32(__u64 task, __u32 off)
{
	__u32 v = 0;

	bpf_probe_read_kernel(&v, sizeof(v), (void *)(task + off));
	return v;
}

/* Task's CPU time so far, remembered in its entry. */
static __always_inline void kpt_tc_mark(struct kpt_tc_task *t, __u64 task)
{
	__u64 sum = 0;

	if (!kpt_tc_sum_off)
		return;
	bpf_probe_read_kernel(&sum, sizeof(sum), (void *)(task + kpt_tc_sum_off));
	t->sum = sum;
	t->flags |= KPT_TC_F_SUM;
}

/*
 * The task switching out was not running as far as we saw: its switch in
 * never reached the tracepoint's programs (a task whose events the kernel
 * does not trace switched to it; or this program was busy). Its run is the
 * growth of its CPU time since it was last seen, so it began that long ago.
 */
static __always_inline void kpt_tc_unseen_in(struct kpt_tc_task *t, __u32 tid, __u64 task,
					     __u64 now)
{
	__u64 sum = 0, ran, in;

	if (!kpt_tc_sum_off || !(t->flags & KPT_TC_F_SUM))
		return;
	bpf_probe_read_kernel(&sum, sizeof(sum), (void *)(task + kpt_tc_sum_off));
	if (sum <= t->sum)
		return;
	ran = sum - t->sum;
	in = now - ran > t->since ? now - ran : t->since;
	kpt_tc_enter(t, tid, KPT_TC_RUN, in);
	__sync_fetch_and_add(&kpt_tc_unseen, 1);
}

/*
 * The raw sched_switch's preempt and prev_state (5.18+): a task preempted or
 * still TASK_RUNNING waits for a CPU; TASK_DEAD (0x80) has exited;
 * TASK_UNINTERRUPTIBLE (2) is D unless TASK_NOLOAD (0x400: an idle kernel
 * thread, I); the rest (S, T, t) sleeps.
 */
static __always_inline __u32 kpt_tc_state_of(bool preempt, __u64 prev_state)
{
	if (preempt || !(prev_state & 0xff))
		return KPT_TC_WAIT;
	if (prev_state & 0x80)
		return KPT_TC_DEAD;
	if ((prev_state & 0x2) && !(prev_state & 0x400))
		return KPT_TC_DISK;
	return KPT_TC_SLEEP;
}

/* d ns of task tid's run on this CPU. */
static void kpt_tc_on_cpu(__u32 tid, __u64 d)
{
	struct kpt_tc_key k = { .tid = tid, .slice = bpf_get_smp_processor_id() };
	__u64 zero = 0, *v;

	v = bpf_map_lookup_elem(&kpt_tc_cpuns, &k);
	if (!v) {
		bpf_map_update_elem(&kpt_tc_cpuns, &k, &zero, BPF_NOEXIST);
		v = bpf_map_lookup_elem(&kpt_tc_cpuns, &k);
	}
	if (v)
		__sync_fetch_and_add(v, d);
	else
		__sync_fetch_and_add(&kpt_tc_slices_full, 1);
}

/* The task switched out: its run (from ran, if new to us) counted, the state it leaves in set. */
static __always_inline void kpt_tc_out(__u64 *args, __u64 prev_state, __u32 tid, __u64 ran,
				       __u64 now)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;	/* the current task is prev */
	struct kpt_tc_task *t = bpf_map_lookup_elem(&kpt_tc_tasks, &tid);

	if (!t) {
		if (!kpt_tc_wanted(tgid))
			return;
		t = kpt_tc_task_new(tid, KPT_TC_RUN, ran);
		if (!t)
			return;
	}
	if (!t->tgid) {
		t->tgid = tgid;
		if (!kpt_tc_wanted(tgid))
			t->flags |= KPT_TC_F_UNWANTED;
	}
	if (t->flags & KPT_TC_F_UNWANTED)
		return;
	bpf_get_current_comm(t->comm, sizeof(t->comm));
	if (t->state != KPT_TC_RUN)
		kpt_tc_unseen_in(t, tid, args[1], now);
	if (t->state == KPT_TC_RUN && now > t->since)
		kpt_tc_on_cpu(tid, now - (t->since > kpt_tc_t0 ? t->since : kpt_tc_t0));
	kpt_tc_enter(t, tid, kpt_tc_state_of(args[0], prev_state), now);
	kpt_tc_mark(t, args[1]);
}

/*
 * A raw tracepoint's context is its arguments, u64 each: read as a plain
 * array, not as struct bpf_raw_tracepoint_args, whose access would be a
 * CO-RE relocation, and one of those makes libbpf parse the kernel's whole
 * BTF for every run (agg.sh's "kallsyms and the kernel's BTF not read").
 */
static __always_inline int kpt_tc_switched(__u64 *args, __u64 prev_state)
{
	__u32 prev = kpt_tc_task_u32(args[1], kpt_tc_pid_off);
	__u32 next = kpt_tc_task_u32(args[2], kpt_tc_pid_off), zero = 0;
	__u64 now = bpf_ktime_get_ns(), ran = 0;
	struct kpt_tc_oncpu *oc;
	struct kpt_tc_task *t;

	if (kpt_tc_off())
		return KPT_TC_PASS;
	oc = bpf_map_lookup_elem(&kpt_tc_oncpu, &zero);
	if (oc) {
		ran = oc->since;	/* 0, before the run: from its start */
		if (prev)	/* the idle task's time is no CPU's load */
			kpt_tc_spread(bpf_get_smp_processor_id(), 0, ran, now, true);
		oc->since = now;
		oc->pid = next;
	}
	if (prev)
		kpt_tc_out(args, prev_state, prev, ran, now);
	if (!next)
		return KPT_TC_PASS;
	t = bpf_map_lookup_elem(&kpt_tc_tasks, &next);
	if (!t && kpt_tc_wanted(kpt_tc_task_u32(args[2], kpt_tc_tgid_off)))
		t = kpt_tc_task_new(next, KPT_TC_RUN, now);
	if (t && !(t->flags & KPT_TC_F_UNWANTED)) {
		kpt_tc_enter(t, next, KPT_TC_RUN, now);
		kpt_tc_mark(t, args[2]);
	}
	return KPT_TC_PASS;
}

/* sched_switch(bool preempt, struct task_struct *prev, *next, unsigned int prev_state) */
SEC("raw_tp")
int kpt_tc_switch(__u64 *args)
{
	return kpt_tc_switched(args, args[3]);
}

/*
 * sched_switch(bool preempt, struct task_struct *prev, *next) before 5.18: a
 * raw tracepoint's program may not read past the tracepoint's arguments.
 */
SEC("raw_tp")
int kpt_tc_switch3(__u64 *args)
{
	__u32 state = 0;

	bpf_probe_read_kernel(&state, sizeof(state), (void *)(args[1] + kpt_tc_state_off));
	return kpt_tc_switched(args, state);
}

/* A wakeup (or a new task's first) of task p: its sleep counted, runnable from now. */
static __always_inline int kpt_tc_wake(__u64 p, bool fresh)
{
	__u32 pid = kpt_tc_task_u32(p, kpt_tc_pid_off);
	__u64 now = bpf_ktime_get_ns();
	struct kpt_tc_task *t;
	struct kpt_tc_slice *v;
	__u64 s;

	if (kpt_tc_off() || !pid)
		return KPT_TC_PASS;
	t = bpf_map_lookup_elem(&kpt_tc_tasks, &pid);
	if (!t) {
		if (!kpt_tc_wanted(kpt_tc_task_u32(p, kpt_tc_tgid_off)))
			return KPT_TC_PASS;
		t = kpt_tc_task_new(pid, fresh ? KPT_TC_WAIT : KPT_TC_SLEEP, fresh ? now : kpt_tc_t0);
		if (!t)
			return KPT_TC_PASS;
	}
	if (t->flags & KPT_TC_F_UNWANTED)
		return KPT_TC_PASS;
	if (fresh && !t->born)
		t->born = now;
	if (t->state != KPT_TC_SLEEP && t->state != KPT_TC_DISK)
		return KPT_TC_PASS;	/* woken before it slept: no sleep to end */
	kpt_tc_enter(t, pid, KPT_TC_WAIT, now);
	kpt_tc_mark(t, p);
	t->wakeups++;
	s = kpt_tc_slice_of(now, kpt_tc_t0, kpt_tc_width);
	if (s < KPT_TC_SLICES && (v = kpt_tc_slice_get(pid, (__u32)s)))
		__sync_fetch_and_add(&v->wakeups, 1);
	return KPT_TC_PASS;
}

/* sched_wakeup(struct task_struct *p) */
SEC("raw_tp")
int kpt_tc_wakeup(__u64 *args)
{
	return kpt_tc_wake(args[0], false);
}

SEC("raw_tp")
int kpt_tc_wakeup_new(__u64 *args)
{
	return kpt_tc_wake(args[0], true);
}

/* sched_process_fork(struct task_struct *parent, *child), in the parent's context. */
SEC("raw_tp")
int kpt_tc_fork(__u64 *args)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	__u32 child = kpt_tc_task_u32(args[1], kpt_tc_pid_off);
	struct kpt_tc_task *t;

	if (kpt_tc_off() || !kpt_tc_wanted(tgid))
		return KPT_TC_PASS;
	t = kpt_tc_task_new(child, KPT_TC_WAIT, bpf_ktime_get_ns());
	if (t) {
		t->ppid = tgid;
		t->born = t->since;
		kpt_tc_mark(t, args[1]);
	}
	return KPT_TC_PASS;
}

/* sched_process_exit(struct task_struct *p, ...), p the current task. */
SEC("raw_tp")
int kpt_tc_exit(__u64 *args)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct kpt_tc_task *t;

	(void)args;
	if (kpt_tc_off() || !(t = bpf_map_lookup_elem(&kpt_tc_tasks, &tid)))
		return KPT_TC_PASS;
	t->died = bpf_ktime_get_ns();
	return KPT_TC_PASS;
}

/* block_rq_issue(struct request *rq) by the current task: counted, timed to its completion. */
SEC("raw_tp")
int kpt_tc_rq_issue(__u64 *args)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	__u64 k = args[0];
	struct kpt_tc_rq rq = { .tid = tid };
	struct kpt_tc_task *t;
	struct kpt_tc_slice *v;
	__u64 s;

	if (kpt_tc_off() || !(t = bpf_map_lookup_elem(&kpt_tc_tasks, &tid)) ||
	    (t->flags & KPT_TC_F_UNWANTED))
		return KPT_TC_PASS;
	t->ios++;
	rq.ts = bpf_ktime_get_ns();
	s = kpt_tc_slice_of(rq.ts, kpt_tc_t0, kpt_tc_width);
	if (s < KPT_TC_SLICES && (v = kpt_tc_slice_get(tid, (__u32)s)))
		__sync_fetch_and_add(&v->ios, 1);
	if (bpf_map_update_elem(&kpt_tc_rqs, &k, &rq, BPF_ANY))
		__sync_fetch_and_add(&kpt_tc_rqs_full, 1);
	return KPT_TC_PASS;
}

/* block_rq_complete(struct request *rq, blk_status_t error, unsigned int nr_bytes) */
SEC("raw_tp")
int kpt_tc_rq_complete(__u64 *args)
{
	__u64 k = args[0];
	struct kpt_tc_task *t;
	struct kpt_tc_rq *rq;

	if (kpt_tc_off())
		return KPT_TC_PASS;
	rq = bpf_map_lookup_elem(&kpt_tc_rqs, &k);
	if (!rq)
		return KPT_TC_PASS;
	t = bpf_map_lookup_elem(&kpt_tc_tasks, &rq->tid);
	if (t)
		__sync_fetch_and_add(&t->io_ns, bpf_ktime_get_ns() - rq->ts);
	bpf_map_delete_elem(&kpt_tc_rqs, &k);
	return KPT_TC_PASS;
}

#endif /* KPT_SCHED_BPF_H */
