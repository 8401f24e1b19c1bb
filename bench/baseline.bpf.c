// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The benchmark's floor: the least a hand-written libbpf tool does for each
 * of kptrace's jobs on the workload's bench_fn(a, b, s) (or, as kprobes, on
 * a kernel function), with nothing
 * general about it (registers read directly, fixed record layout):
 *
 *   bl_nop                  an empty program: the uprobe's own cost
 *   bl_stream               a ring buffer record with kptrace's fields
 *                           (ts, ip, tid, tgid, cpu, comm, a, b, the string)
 *   bl_kstream              the same for a kprobe on ksys_lseek(fd, offset,
 *                           whence) (the VM benchmark, bench/vm/)
 *   bl_hist                 log2 histogram of a in a per-CPU array
 *   bl_lat_entry/_return    entry time per thread in a hash, log2 histogram
 *                           of the duration in a per-CPU array
 *   bl_tp_nop, bl_tp_stream, bl_tp_hist
 *                           the same jobs on the tracepoint
 *                           syscalls/sys_enter_lseek (fd, offset, whence):
 *                           an empty program; a record of kptrace's fields
 *                           (bl_kevent, no ip); log2 histogram of offset
 *   bl_tp_kstack            the tracepoint's record with its kernel stack
 *                           (bpf_get_stack) in the same reservation
 *   bl_tp_stackid           count per kernel stack: bpf_get_stackid into a
 *                           stack trace map, its id the key of a hash of counts
 *   bl_tp_pair_start/_end   two-event latency per thread (any tracepoints:
 *                           the same programs attached to several starts and
 *                           ends pair any start with any end)
 *   bl_tp_switch            one tracepoint at both ends: sched/sched_switch
 *                           ends the slice on its CPU and starts the next
 *   bl_count                a count in a per-CPU array (a USDT probe's
 *                           uprobe, bench/staticbench.py)
 *   bl_raw_*, bl_btf_*      raw_syscalls/sys_enter (and sys_exit) filtered by
 *                           the syscall number bl_nr, through the classic
 *                           tracepoint (its record: id, args[]) and through
 *                           tp_btf (TP_PROTO's regs and id): an empty program
 *                           (unfiltered), a record of fd, offset, whence, a
 *                           histogram of the number, and the pair
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "baseline.h"

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4 << 20);
} bl_events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, BL_BUCKETS);
	__type(key, __u32);
	__type(value, __u64);
} bl_hist SEC(".maps");

/* [0]: records the ring buffer had no room for */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} bl_drops SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 10240);
	__type(key, __u32);
	__type(value, __u64);
} bl_start SEC(".maps");

/* the kernel stacks of bl_tp_stackid, and its counts by stack id; as many
 * stacks as kptrace's own kernel stack map holds */
struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, BL_STACKS);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, BL_KSTACK_MAX * sizeof(__u64));
} bl_stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, BL_STACKS);
	__type(key, __u32);
	__type(value, __u64);
} bl_stack_counts SEC(".maps");

static __always_inline void count_drop(void)
{
	__u32 zero = 0;
	__u64 *d = bpf_map_lookup_elem(&bl_drops, &zero);

	if (d)
		(*d)++;
}

static __always_inline __u32 log2_bucket(__u64 v)
{
	__u32 r = 0;

	if (!v)
		return 0;
	if (v >> 32) { v >>= 32; r += 32; }
	if (v >> 16) { v >>= 16; r += 16; }
	if (v >> 8) { v >>= 8; r += 8; }
	if (v >> 4) { v >>= 4; r += 4; }
	if (v >> 2) { v >>= 2; r += 2; }
	if (v >> 1) r += 1;
	return r + 1;
}

static __always_inline void hist_add(__u64 v)
{
	__u32 b = log2_bucket(v);
	__u64 *c = bpf_map_lookup_elem(&bl_hist, &b);

	if (c)
		(*c)++;
}

/* A record, or NULL with the drop counted: the ring buffer is full. */
static __always_inline void *bl_reserve(__u64 size)
{
	void *e = bpf_ringbuf_reserve(&bl_events, size, 0);

	if (!e)
		count_drop();
	return e;
}

/* The context every streamed record carries (both record types start so). */
#define BL_HEADER(e, ctx, pid_tgid)					\
	do {								\
		(e)->ts = bpf_ktime_get_ns();				\
		(e)->ip = PT_REGS_IP(ctx);				\
		(e)->tid = (__u32)(pid_tgid);				\
		(e)->tgid = (pid_tgid) >> 32;				\
		(e)->cpu = bpf_get_smp_processor_id();			\
		bpf_get_current_comm((e)->comm, sizeof((e)->comm));	\
	} while (0)

SEC("uprobe")
int bl_nop(struct pt_regs *ctx)
{
	return 0;
}

SEC("uprobe")
int bl_stream(struct pt_regs *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct bl_event *e;
	long n;

	e = bl_reserve(sizeof(*e));
	if (!e)
		return 0;
	BL_HEADER(e, ctx, pid_tgid);
	e->a = PT_REGS_PARM1(ctx);
	e->b = (__u32)PT_REGS_PARM2(ctx);
	n = bpf_probe_read_user_str(e->s, sizeof(e->s), (const void *)PT_REGS_PARM3(ctx));
	e->slen = n > 0 ? n : 0;
	bpf_ringbuf_submit(e, 0);
	return 0;
}

/* Any kprobe-type program attaches as a kprobe or a uprobe alike: only this
 * one differs, its arguments being the kernel function's. */
SEC("kprobe")
int bl_kstream(struct pt_regs *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct bl_kevent *e;

	e = bl_reserve(sizeof(*e));
	if (!e)
		return 0;
	BL_HEADER(e, ctx, pid_tgid);
	e->fd = (__u32)PT_REGS_PARM1(ctx);
	e->off = PT_REGS_PARM2(ctx);
	e->whence = (__u32)PT_REGS_PARM3(ctx);
	bpf_ringbuf_submit(e, 0);
	return 0;
}

SEC("uprobe")
int bl_hist_prog(struct pt_regs *ctx)
{
	hist_add(PT_REGS_PARM1(ctx));
	return 0;
}

/* A latency's two halves: the start by thread, then its time to the end. */
static __always_inline void lat_start(void)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	__u64 ts = bpf_ktime_get_ns();

	bpf_map_update_elem(&bl_start, &tid, &ts, BPF_ANY);
}

static __always_inline void lat_end(void)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	__u64 *ts = bpf_map_lookup_elem(&bl_start, &tid), d;

	if (!ts)
		return;
	d = bpf_ktime_get_ns() - *ts;
	bpf_map_delete_elem(&bl_start, &tid);
	hist_add(d);
}

SEC("uprobe")
int bl_lat_entry(struct pt_regs *ctx)
{
	lat_start();
	return 0;
}

SEC("uretprobe")
int bl_lat_return(struct pt_regs *ctx)
{
	lat_end();
	return 0;
}

/* The tracepoint syscalls/sys_enter_lseek: args[] are lseek's fd, offset,
 * whence, as its format file says. */
SEC("tracepoint/syscalls/sys_enter_lseek")
int bl_tp_nop(struct trace_event_raw_sys_enter *ctx)
{
	return 0;
}

/* A tracepoint's record of lseek's fd, offset, whence (no ip). */
static __always_inline void sys_record(__u64 fd, __u64 off, __u64 whence)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct bl_kevent *e;

	e = bl_reserve(sizeof(*e));
	if (!e)
		return;
	e->ts = bpf_ktime_get_ns();
	e->ip = 0;
	e->tid = (__u32)pid_tgid;
	e->tgid = pid_tgid >> 32;
	e->cpu = bpf_get_smp_processor_id();
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	e->fd = (__u32)fd;
	e->off = off;
	e->whence = (__u32)whence;
	bpf_ringbuf_submit(e, 0);
}

SEC("tracepoint/syscalls/sys_enter_lseek")
int bl_tp_stream(struct trace_event_raw_sys_enter *ctx)
{
	sys_record(ctx->args[0], ctx->args[1], ctx->args[2]);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_lseek")
int bl_tp_hist(struct trace_event_raw_sys_enter *ctx)
{
	hist_add(ctx->args[1]);
	return 0;
}

/*
 * Two-event latency, as bpftrace's @start[tid] = nsecs at one tracepoint
 * and hist(nsecs - @start[tid]) at another: lseek's entry to its exit, per
 * thread, the start deleted at the end.
 */
SEC("tracepoint/syscalls/sys_enter_lseek")
int bl_tp_pair_start(void *ctx)
{
	lat_start();
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_lseek")
int bl_tp_pair_end(void *ctx)
{
	lat_end();
	return 0;
}

/*
 * One tracepoint at both ends, as cpudist (libbpf-tools) does it: each
 * sched/sched_switch ends the slice its CPU ran since the last one (its
 * time in the histogram) and starts the next; the starts in bl_start by CPU.
 * One program, lookup then update: the end and the start of one event.
 */
SEC("tracepoint/sched/sched_switch")
int bl_tp_switch(void *ctx)
{
	__u32 cpu = bpf_get_smp_processor_id();
	__u64 now = bpf_ktime_get_ns(), *ts = bpf_map_lookup_elem(&bl_start, &cpu);

	if (ts)
		hist_add(now - *ts);
	bpf_map_update_elem(&bl_start, &cpu, &now, BPF_ANY);
	return 0;
}

/* the last forced wake-up of bl_tp_kstack's consumer */
__u64 bl_last_wakeup;

/* The record of bl_tp_stream with the frames after it, all of one
 * reservation: room for the deepest stack, the frames the helper wrote
 * counted in nframes (0: the helper refused; the record still goes).
 * The consumer is woken once a millisecond at most, as kptrace's sampled
 * wake-ups do: a wake-up per record (irq_work, a self-IPI) costs more than
 * the rest of the program here (bl_tp_stream pays it: bench/README.md 1b),
 * and the consumer's 100 ms poll drains the rest. */
SEC("tracepoint/syscalls/sys_enter_lseek")
int bl_tp_kstack(struct trace_event_raw_sys_enter *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct bl_kstack_event *e;
	long n;

	e = bl_reserve(sizeof(*e));
	if (!e)
		return 0;
	e->e.ts = bpf_ktime_get_ns();
	e->e.ip = 0;
	e->e.tid = (__u32)pid_tgid;
	e->e.tgid = pid_tgid >> 32;
	e->e.cpu = bpf_get_smp_processor_id();
	bpf_get_current_comm(e->e.comm, sizeof(e->e.comm));
	e->e.fd = (__u32)ctx->args[0];
	e->e.off = ctx->args[1];
	e->e.whence = (__u32)ctx->args[2];
	n = bpf_get_stack(ctx, e->ip, sizeof(e->ip), 0);
	e->nframes = n > 0 ? n / sizeof(e->ip[0]) : 0;
	e->pad = 0;
	if (e->e.ts - bl_last_wakeup < 1000000) {
		bpf_ringbuf_submit(e, BPF_RB_NO_WAKEUP);
		return 0;
	}
	bl_last_wakeup = e->e.ts;	/* racy across CPUs: at worst a wake-up more */
	bpf_ringbuf_submit(e, BPF_RB_FORCE_WAKEUP);
	return 0;
}

/* What profile.bpf.c and offcputime.bpf.c do: the kernel hashes and stores
 * the stack, the program counts by its id. A stack not stored (the map
 * full, or not walkable) is counted as a drop. */
SEC("tracepoint/syscalls/sys_enter_lseek")
int bl_tp_stackid(void *ctx)
{
	__u64 one = 1, *c;
	long id = bpf_get_stackid(ctx, &bl_stacks, 0);
	__u32 key;

	if (id < 0) {
		count_drop();
		return 0;
	}
	key = (__u32)id;
	c = bpf_map_lookup_elem(&bl_stack_counts, &key);
	if (c) {
		__sync_fetch_and_add(c, 1);
		return 0;
	}
	/* another CPU may have made the entry since the lookup */
	if (bpf_map_update_elem(&bl_stack_counts, &key, &one, BPF_NOEXIST)) {
		c = bpf_map_lookup_elem(&bl_stack_counts, &key);
		if (c)
			__sync_fetch_and_add(c, 1);
		else
			count_drop();
	}
	return 0;
}

/*
 * why's floor (bench/vm/, issue 43): a kprobe.multi entry and a
 * kretprobe.multi return over the root and its --under set that only count,
 * [0] the entries, [1] the returns; no per-thread log, no root check. "?":
 * not loaded unless asked for (baseline multicount), so the other modes'
 * start-up does not pay their verification.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64);
} bl_multi_hits SEC(".maps");

static __always_inline void multi_count(__u32 i)
{
	__u64 *c = bpf_map_lookup_elem(&bl_multi_hits, &i);

	if (c)
		(*c)++;
}

SEC("?kprobe.multi")
int bl_multi_entry(struct pt_regs *ctx)
{
	multi_count(0);
	return 0;
}

SEC("?kretprobe.multi")
int bl_multi_exit(struct pt_regs *ctx)
{
	multi_count(1);
	return 0;
}

/* A USDT probe's hits, counted where the histogram's first bucket is. */
SEC("uprobe")
int bl_count(struct pt_regs *ctx)
{
	__u32 zero = 0;
	__u64 *c = bpf_map_lookup_elem(&bl_hist, &zero);

	if (c)
		(*c)++;
	return 0;
}

/*
 * raw_syscalls/sys_enter and sys_exit, kept to one system call (bl_nr) by
 * each program, through either attachment: the classic tracepoint's record
 * (id, args[6]; sys_exit's id, ret) or tp_btf's arguments (sys_enter's
 * regs and id; sys_exit's regs and ret, the number in regs).
 */
const volatile long bl_nr = -1;

SEC("tracepoint/raw_syscalls/sys_enter")
int bl_raw_nop(void *ctx)
{
	return 0;
}

SEC("tracepoint/raw_syscalls/sys_enter")
int bl_raw_stream(struct trace_event_raw_sys_enter *ctx)
{
	if (ctx->id == bl_nr)
		sys_record(ctx->args[0], ctx->args[1], ctx->args[2]);
	return 0;
}

SEC("tracepoint/raw_syscalls/sys_enter")
int bl_raw_hist(struct trace_event_raw_sys_enter *ctx)
{
	if (ctx->id == bl_nr)
		hist_add(ctx->id);
	return 0;
}

SEC("tracepoint/raw_syscalls/sys_enter")
int bl_raw_pair_start(struct trace_event_raw_sys_enter *ctx)
{
	if (ctx->id == bl_nr)
		lat_start();
	return 0;
}

SEC("tracepoint/raw_syscalls/sys_exit")
int bl_raw_pair_end(struct trace_event_raw_sys_exit *ctx)
{
	if (ctx->id == bl_nr)
		lat_end();
	return 0;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(bl_btf_nop, struct pt_regs *regs, long id)
{
	return 0;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(bl_btf_stream, struct pt_regs *regs, long id)
{
	if (id == bl_nr)
		sys_record(PT_REGS_PARM1(regs), PT_REGS_PARM2(regs), PT_REGS_PARM3(regs));
	return 0;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(bl_btf_hist, struct pt_regs *regs, long id)
{
	if (id == bl_nr)
		hist_add(id);
	return 0;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(bl_btf_pair_start, struct pt_regs *regs, long id)
{
	if (id == bl_nr)
		lat_start();
	return 0;
}

/* sys_exit's prototype has no number: the task's registers keep it (a
 * trusted pointer: read directly) */
#ifdef __TARGET_ARCH_arm64
#define SYSCALL_NR(regs) ((regs)->syscallno)
#else
#define SYSCALL_NR(regs) ((regs)->orig_ax)
#endif

SEC("tp_btf/sys_exit")
int BPF_PROG(bl_btf_pair_end, struct pt_regs *regs, long ret)
{
	if (SYSCALL_NR(regs) == bl_nr)
		lat_end();
	return 0;
}
