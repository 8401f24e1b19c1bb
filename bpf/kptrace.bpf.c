// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * kptrace's kernel side: one entry program and one return program, attached
 * to every probe point (kprobe, kretprobe, uprobe, uretprobe). The probe's
 * index in kpt_probes travels as the BPF cookie of each attachment.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#define __KPT_BPF__
#include "kptrace.h"
#include "fetch.bpf.h"
#include "filter.bpf.h"
#include "agg.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/* -p PID: only this process (tgid); 0 traces everything. */
const volatile __u32 kpt_target_tgid = 0;
/*
 * kptrace's own process, never traced: its reads of /proc and its writes of
 * the output, seen by its own probes, would print and count themselves (a
 * feedback loop through t:syscalls/sys_enter_write). The loader's: 0 where
 * kptrace cannot hit a probe of the run (uprobes in other files).
 */
const volatile __u32 kpt_self_tgid = 0;
/*
 * -c (and -p with --keep-running): the traced processes are kpt_procs'
 * keys, not kpt_target_tgid: the command's descendants join it as they are
 * created (kpt_newtask) and leave it as they are freed (kpt_procfree), so a
 * pid that comes back as another process's is not traced.
 */
const volatile bool kpt_target_set = false;
/* Where task/task_newtask's pid and clone_flags and sched/sched_process_free's
 * pid are in their records: tracefs's format files say (the loader's). */
const volatile __u32 kpt_nt_pid_off = 0;
const volatile __u32 kpt_nt_flags_off = 0;
const volatile __u32 kpt_free_pid_off = 0;
/* Processes not followed: kpt_procs was full (--max-keys). */
__u64 kpt_procs_full = 0;

/* tgid -> 1; one entry where not kpt_target_set (the loader's), --max-keys
 * where given: processes at once. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 10240);
	__type(key, __u32);
	__type(value, __u32);
} kpt_procs SEC(".maps");

/* Sized by the loader before load: one entry per probe definition. */
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

/* Targeting, set by the loader; 0 / empty traces everyone. */
const volatile __u32 kpt_target_tid = 0;
const volatile __u64 kpt_target_cgroup = 0;
/* Any of the three: the verifier drops a branch on a constant it knows, but
 * not the loads of the constants, so untargeted hits load this one only. */
const volatile bool kpt_targeted = false;

/*
 * Sampled wakeups: a wakeup costs the traced task microseconds (irq_work, a
 * self-IPI; a VM exit in a guest), so the consumer is not woken per record.
 * It is woken once a millisecond at most while records come, so a trickle
 * still shows at once, and once more when the data waiting crosses
 * kpt_wakeup_bytes with this record, so a burst cannot fill the buffer
 * before it reads. Only at the crossing: a consumer that is behind is awake
 * and reading already, and forcing a wakeup on every record above the mark
 * made each one cost ~2 us under TCG. Below it all, the consumer's poll
 * timeout drains what is there. 0: the kernel's default (wake a consumer
 * that has caught up).
 */
const volatile __u64 kpt_wakeup_bytes = 0;
#define KPT_WAKEUP_NS	1000000ULL
__u64 kpt_last_wakeup = 0;

static __always_inline __u64 kpt_wakeup_flags(__u64 now, __u64 size)
{
	__u64 waiting;

	if (!kpt_wakeup_bytes)
		return 0;
	if (now - kpt_last_wakeup < KPT_WAKEUP_NS) {
		/* racy across CPUs: two records may cross together unseen; the
		 * next millisecond's wakeup comes all the same */
		waiting = bpf_ringbuf_query(&kpt_events, BPF_RB_AVAIL_DATA);
		if (waiting >= kpt_wakeup_bytes || waiting + size < kpt_wakeup_bytes)
			return BPF_RB_NO_WAKEUP;
	}
	kpt_last_wakeup = now;	/* racy across CPUs: at worst one wakeup more */
	return BPF_RB_FORCE_WAKEUP;
}
const volatile char kpt_target_comm[KPT_COMM_LEN] = {};

/*
 * What this run's probes use (KPT_USE_*, set by the loader): a read-only
 * constant, so the verifier drops the calls to what they do not use, and
 * (Linux 6.8+, which verifies global functions only where reachable) the
 * functions themselves: the verifier's time is most of start-up.
 */
const volatile __u32 kpt_uses = ~0u;
/* The word of the record every direct tracepoint field of the run is in
 * (kpt_tp_word_at(), the loader's), 0 if they differ or there is none. */
const volatile __u32 kpt_tp_direct_word = 0;
/* The words of struct kpt_regs the run's probes read (the loader's). */
const volatile __u32 kpt_regs_mask = ~0u;
/* The run has one probe (a helper call less a hit: no cookie to read). */
const volatile bool kpt_one_probe = false;
/* A direct stream, or size 0 (include/kptrace.h; the loader's). */
const volatile struct kpt_direct_stream kpt_ds = {};
/* A direct histogram, or on 0 (include/kptrace.h; the loader's). */
const volatile struct kpt_direct_hist kpt_dh = {};
#define KPT_USES(what)	(kpt_uses & KPT_USE_##what)

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

/* What the context is: registers (kprobe, uprobe), a raw tracepoint record,
 * registers under kprobe.multi, where the probed address is the function's,
 * or a BPF trampoline's saved arguments (fentry/fexit). */
enum { KPT_CTX_REGS, KPT_CTX_TP, KPT_CTX_MULTI, KPT_CTX_TRAMP };

/*
 * Where a kprobe on the function at ip is: past its ENDBR, if it starts with
 * one (the kernel moves kprobes there: arch_adjust_kprobe_addr). So
 * kprobe.multi and fentry print the probed address as a kprobe does. The
 * kernel's is_endbr(): ENDBR64 or ENDBR32, or the 4-byte NOP it seals the
 * ENDBRs of functions whose address is never taken with.
 */
#define KPT_ENDBR64		0xfa1e0ff3	/* f3 0f 1e fa */
#define KPT_ENDBR32_BIT		0x01000000	/* f3 0f 1e fb */
#define KPT_ENDBR_POISON	0x001f0f66	/* 66 0f 1f 00: osp nopl (%rax) */

static __always_inline __u64 kpt_kprobe_addr(__u64 ip)
{
	__u32 insn = 0;

	if (bpf_probe_read_kernel(&insn, sizeof(insn), (void *)ip))
		return ip;
	if (insn == KPT_ENDBR_POISON || (insn & ~KPT_ENDBR32_BIT) == KPT_ENDBR64)
		return ip + 4;
	return ip;
}

/*
 * A trampoline's ip, as a kprobe's record holds it: at an entry, the
 * function's address as kprobes have it (kpt_kprobe_addr()); at a return,
 * where the function returns to, as a kretprobe prints it. The x86-64
 * trampoline's frame above its saved arguments: the return value, the saved
 * frame pointer, the address back into the traced function (its fentry
 * call), then the caller's return address. A failed read leaves 0; the VM
 * tests compare it with kretprobes' on each kernel.
 */
static __always_inline __u64 kpt_tramp_ip(__u64 *ctx, bool ret)
{
	__u64 v = 0, n;

	if (!ret)
		return kpt_kprobe_addr(bpf_get_func_ip(ctx));
	n = bpf_get_func_arg_cnt(ctx);
	if (n > 12 || bpf_probe_read_kernel(&v, sizeof(v), ctx + n + 3))
		v = 0;
	return v;
}

/*
 * fentry/fexit: the trampoline saved the argument registers (and at exit the
 * return value), not a pt_regs. Lay them out where a kprobe's copy has them,
 * so every fetch reads them by the same offsets: the same definition gives
 * the same values whatever the mechanism. Only probes reading argument
 * registers, the return value and memory through them come here (the loader
 * sends the others to kprobes): the rest of the copy is zero.
 */
static __always_inline void kpt_tramp_regs(__u64 *ctx, struct kpt_regs *r, bool ret)
{
	__u64 v = 0;

	__builtin_memset(r, 0, sizeof(*r));
	if (!bpf_get_func_arg(ctx, 0, &v))
		PT_REGS_PARM1(r) = v;
	if (!bpf_get_func_arg(ctx, 1, &v))
		PT_REGS_PARM2(r) = v;
	if (!bpf_get_func_arg(ctx, 2, &v))
		PT_REGS_PARM3(r) = v;
	if (!bpf_get_func_arg(ctx, 3, &v))
		PT_REGS_PARM4(r) = v;
	if (!bpf_get_func_arg(ctx, 4, &v))
		PT_REGS_PARM5(r) = v;
	if (!bpf_get_func_arg(ctx, 5, &v))
		PT_REGS_PARM6(r) = v;
	if (ret && !bpf_get_func_ret(ctx, &v))
		PT_REGS_RC(r) = v;
	r->ip = kpt_tramp_ip(ctx, ret);
}

/*
 * The probe's registers, copied with plain loads: a kprobe program may read
 * its pt_regs context at any constant offset, and 21 loads and stores cost a
 * fraction of a bpf_probe_read_kernel() call (hist: 232 -> ~185 ns per hit).
 */
static __always_inline void kpt_copy_regs(struct kpt_regs *dst, const struct kpt_regs *src)
{
	const __u64 *from = (const __u64 *)src;
	__u64 *to = (__u64 *)dst;
	__u32 mask = kpt_regs_mask;	/* one load: the verifier knows it */
	int i;

	/* only the words the run's probes read: a streaming probe of three
	 * registers copies four (with ip), not twenty-one (under TCG each
	 * load and store is a soft-MMU access) */
#pragma unroll
	for (i = 0; i < sizeof(*dst) / 8; i++)
		if (mask & (1u << i))
			to[i] = from[i];
}

/* The low size bytes of v, sign-extended when asked: a value as its record
 * slot would hold it (kpt_put() then kpt_pred_load()). */
static __always_inline __u64 kpt_narrow(__u64 v, __u32 size, bool is_signed)
{
	__u32 sh = 64 - 8 * size;

	if (size >= 8)
		return v;	/* most values: a branch, not four shifts */
	return is_signed ? (__u64)((__s64)(v << sh) >> sh) : (v << sh) >> sh;
}

/*
 * Plain loads from a tracepoint's record (the context: the verifier allows
 * constant offsets only), each word's load behind its own bound, of two
 * constants the verifier knows, so it prunes the loads past kpt_tp_end (a
 * bound on a switched value may reach the load through another register,
 * the range lost on the way), and pinned as in kpt_arg_reg().
 */
#define KPT_TP_LOAD(o, fail)					\
	if (o + 8 > kpt_tp_end)					\
		fail;						\
	w = *(const __u64 *)(ctx + o);				\
	barrier_var(w);
#define KPT_TP_CASE(o)	case o: KPT_TP_LOAD(o, return -1) break;
#define KPT_TP_COPY(o)	{ KPT_TP_LOAD(o, return) d[o / 8] = w; }

/*
 * A tracepoint field of up to 8 bytes in one of the record's first words
 * (kpt_tp_word()), straight from the context: what kpt_read_sized() would
 * have read, without the helper call (~40 ns a hit measured on 6.18, a
 * third of a direct histogram's time). -1: not such a field.
 */
static __always_inline int kpt_tp_field(void *ctx, __u32 off, __u32 size, __u64 *v)
{
	/* one word for every direct field of the run: a constant, so the
	 * verifier keeps one case of the switch and none of the checks */
	int word = kpt_tp_direct_word ? (int)kpt_tp_direct_word : kpt_tp_word(off, size);
	__u64 w;

	switch (word) {
	KPT_TP_CASE(8) KPT_TP_CASE(16) KPT_TP_CASE(24) KPT_TP_CASE(32)
	KPT_TP_CASE(40) KPT_TP_CASE(48) KPT_TP_CASE(56) KPT_TP_CASE(64)
	KPT_TP_CASE(72) KPT_TP_CASE(80) KPT_TP_CASE(88) KPT_TP_CASE(96)
	KPT_TP_CASE(104) KPT_TP_CASE(112) KPT_TP_CASE(120)
	default:
		return -1;
	}
	*v = kpt_tp_bits(w, off, size);
	return 0;
}

/*
 * The record's first words into d at their own offsets (where a kprobe's
 * registers go in the scratch area), up to kpt_tp_end: the fetches read the
 * fields there (kpt_tp_read()), where each took a bpf_probe_read_kernel().
 */
static __always_inline void kpt_tp_copy(void *ctx, __u64 *d)
{
	__u64 w;

	KPT_TP_COPY(8) KPT_TP_COPY(16) KPT_TP_COPY(24) KPT_TP_COPY(32)
	KPT_TP_COPY(40) KPT_TP_COPY(48) KPT_TP_COPY(56) KPT_TP_COPY(64)
	KPT_TP_COPY(72) KPT_TP_COPY(80) KPT_TP_COPY(88) KPT_TP_COPY(96)
	KPT_TP_COPY(104) KPT_TP_COPY(112) KPT_TP_COPY(120)
}

/*
 * Argument register reg (0-5) or %ax (KPT_DIRECT_AX) of a registers or
 * trampoline context, as the generic path's copy of the registers would
 * hold it: the direct histogram's value, each of a direct stream's.
 */
static __always_inline __u64 kpt_direct_reg(void *ctx, int kind, __u32 reg)
{
	__u64 x = 0;

	/* one register for the number: without it clang tests the direct
	 * histogram's by masks of kpt_dh's word, and lays its hit out with
	 * three more jumps */
	barrier_var(reg);
	if (kind == KPT_CTX_TRAMP) {
		/* what kpt_tramp_regs() would have put in the register */
		if (reg == KPT_DIRECT_AX ? bpf_get_func_ret(ctx, &x) :
		    bpf_get_func_arg(ctx, reg, &x))
			return 0;
		return x;
	}
	if (reg == KPT_DIRECT_AX) {
		x = PT_REGS_RC((const struct kpt_regs *)ctx);
		barrier_var(x);	/* a load of its own (kpt_arg_reg()) */
		return x;
	}
	return kpt_arg_reg(ctx, reg);	/* 0-5 */
}

/*
 * A direct value (KPT_DIRECT_*: argument register 0-5, %ax, or the
 * tracepoint field of tp_size bytes at tp_off) straight from the context,
 * as its record slot of size bytes would hold it. -1: the tracepoint field
 * could not be read.
 */
static __always_inline int kpt_direct_load(void *ctx, int kind, __u32 direct, __u32 tp_off,
					   __u32 tp_size, __u32 size, bool is_signed, __u64 *v)
{
	__u64 x = 0;

	if (kind == KPT_CTX_TP) {
		if (kpt_tp_field(ctx, tp_off, tp_size, &x) &&
		    kpt_read_sized(&x, tp_size, (__u64)ctx + tp_off, KPT_RD_KERNEL))
			return -1;
	} else {
		x = kpt_direct_reg(ctx, kind, direct);
	}
	*v = kpt_narrow(x, size, is_signed);
	return 0;
}

/* KPT_PF_DIRECT: the histogram's value (the loader's normalised
 * p->agg.direct). */
static __always_inline int kpt_direct_value(void *ctx, int kind, const struct kpt_probe_entry *p,
					    __u64 *v)
{
	const struct kpt_fetch *f = &p->args[p->agg.value_argi & (KPT_MAX_ARGS - 1)];

	return kpt_direct_load(ctx, kind, p->agg.direct, f->param, (__u32)f->imm, f->size,
			       p->agg.value_signed, v);
}

/* Byte f of kpt_dh's first word w (little-endian). */
#define KPT_DH_BYTE(w, f) \
	((__u32)((w) >> (8 * __builtin_offsetof(struct kpt_direct_hist, f))) & 0xff)

/*
 * A direct histogram's hit (kpt_dh, whose first word is w): what
 * kpt_direct_value() and kpt_hist_unkeyed() do, with every parameter a
 * read-only constant, so the verifier keeps one path of each switch and
 * the loads of the value and the counts. The probe table is not read, and
 * the parameters are one load, made first (kpt_handle()), so neither the
 * cookie nor kpt_ds is loaded either: each load is a soft-MMU access under
 * TCG. Measured side by side on 6.12, BPF ns a hit through kprobes 171 ->
 * 164 for one load instead of fourteen, then 170 -> 157 for the rest;
 * through fentry 218 -> 200, then 198 -> 164. The other members are
 * loaded only where their branch is taken: a tracepoint's field in a
 * tracepoint's program (kind is each program's constant), a linear
 * histogram's bounds in a linear histogram (the verifier drops the
 * others' loads).
 */
static __always_inline void kpt_hist_direct(void *ctx, int kind, struct kpt_stats *st, __u64 w)
{
	bool is_tp = kind == KPT_CTX_TP, is_signed = KPT_DH_BYTE(w, is_signed);
	__u32 hist = KPT_DH_BYTE(w, hist), b, n;
	__u64 v;

	if (kpt_direct_load(ctx, kind, KPT_DH_BYTE(w, direct), is_tp ? kpt_dh.tp_off : 0,
			    is_tp ? kpt_dh.tp_size : 0, KPT_DH_BYTE(w, size), is_signed, &v)) {
		st->faults++;
		return;
	}
	/* the bucket count for a linear histogram's clamp only: a run of one
	 * has all of kpt_hist, whose size bounds b as b < nbuckets does in
	 * kpt_hist_unkeyed() */
	n = hist == KPT_H_LINEAR ? kpt_dh.nbuckets : 0;
	b = kpt_bucket_of(hist, is_signed, hist == KPT_H_LINEAR ? kpt_dh.lin_min : 0,
			  hist == KPT_H_LINEAR ? kpt_dh.lin_step : 0, n, v);
	kpt_hist_count(b, KPT_DH_BYTE(w, own_stats), 0, is_signed, v, st);
}

/*
 * A KPT_PF_DIRECT probe's whole job, nothing else of the handler, once its
 * value v is taken from the context: a histogram of it (hist kmalloc, hist
 * of an argument; inline in the handler but through trampolines), or one
 * half of a latency (kpt_aggregate()'s, for a call nothing filters: the
 * clock read last at an entry and first at a return, so as little of
 * kptrace as may be is timed). Global: one copy verified once, where every
 * program inlines the handler (the object's size is resident memory).
 */
__noinline int kpt_direct(const struct kpt_probe_entry *p, __u32 idx, struct kpt_stats *st,
			  __u64 v, __u32 tid)
{
	__u64 now, *ts;
	__u32 depth;

	if (!p || !st)
		return 0;
	switch (p->agg.action) {
	case KPT_ACT_HIST:
		kpt_hist_unkeyed(p, v, st);
		return 0;
	case KPT_ACT_LAT_START:
		ts = kpt_lat_enter(tid, idx, &depth);
		if (ts)
			*ts = bpf_ktime_get_ns();
		return 0;
	case KPT_ACT_LAT_END:
		now = bpf_ktime_get_ns();
		if (!kpt_lat_exit(p, tid, now, st, &v))
			kpt_hist_unkeyed(p, v, st);
		return 0;
	default:
		return 0;
	}
}

/*
 * -p, -c, -t, --cgroup: whether the task is one traced (if not, counted as
 * filtered). Its ids are read once a hit, by the caller: every path needs
 * the tgid for kpt_self_tgid, and the records and latencies need them too.
 */
static __always_inline bool kpt_task_wanted(struct kpt_stats *st, __u64 pid_tgid)
{
	__u32 tgid = pid_tgid >> 32;

	if (!kpt_targeted)
		return true;
	if ((kpt_target_set ? !bpf_map_lookup_elem(&kpt_procs, &tgid) :
			      kpt_target_tgid && tgid != kpt_target_tgid) ||
	    (kpt_target_tid && (__u32)pid_tgid != kpt_target_tid) ||
	    (kpt_target_cgroup && bpf_get_current_cgroup_id() != kpt_target_cgroup)) {
		st->filtered++;
		return false;
	}
	return true;
}

/*
 * Whether kptrace itself hit the probe (kpt_self_tgid), with the task's ids
 * into *pid_tgid, read once a hit: targeting, records and latency need them
 * too. A direct histogram, which needs none of them (untargeted), is spared
 * the helper call where kptrace cannot hit its probe (uprobes in other
 * files: kpt_self_tgid 0); elsewhere the call is the check's cost (~25 ns a
 * hit on 6.18 here, whose Safe-RET mitigation makes every return dear; a
 * tracepoint program may not read the record's common_pid).
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

/*
 * The probed address, as ftrace prints it, from the ip of the probe's
 * registers. A kprobe handler sees ip just past the int3 (or the
 * ftrace-based kprobe's emulation of one), also after the kernel moved the
 * probe past an ENDBR; kprobe.multi sees the function's own address;
 * uprobes see the breakpoint address; return probes the address returned
 * to.
 */
static __always_inline __u64 kpt_probed_ip(void *ctx, int kind, __u32 pflags, __u64 ip)
{
	if (kind == KPT_CTX_MULTI && !(pflags & KPT_PF_RETURN))
		return kpt_kprobe_addr(bpf_get_func_ip(ctx));
	if (kind == KPT_CTX_REGS && !(pflags & (KPT_PF_USER | KPT_PF_RETURN | KPT_PF_TP)))
		return ip - 1;
	return ip;
}

/*
 * A direct stream's hit (kpt_ds): the record reserved in the ring buffer at
 * its size, known to the verifier, and written there, where the generic
 * path builds it in the scratch area and copies it in. Every value of the
 * layout is a constant to the verifier, so what it keeps is the loads and
 * stores themselves.
 */
static __always_inline int kpt_stream_direct(void *ctx, int kind, struct kpt_stats *st,
					     __u64 pid_tgid)
{
	__u64 now = bpf_ktime_get_ns(), flags = kpt_wakeup_flags(now, kpt_ds.size);
	struct kpt_rec_hdr *h;
	int i;

	h = bpf_ringbuf_reserve(&kpt_events, kpt_ds.size, 0);
	if (!h) {
		st->drops++;
		return 0;
	}
	h->kind = KPT_REC_EVENT;
	h->probe = 0;
	h->size = kpt_ds.size;
	h->ts = now;
	if (kind == KPT_CTX_TRAMP)
		h->ip = kpt_tramp_ip(ctx, kpt_ds.flags & KPT_PF_RETURN);
	else
		h->ip = kpt_probed_ip(ctx, kind, kpt_ds.flags,
				      PT_REGS_IP((const struct kpt_regs *)ctx));
	h->tid = (__u32)pid_tgid;
	h->tgid = pid_tgid >> 32;
	h->cpu = bpf_get_smp_processor_id();
	h->pad = 0;
	bpf_get_current_comm(h->comm, sizeof(h->comm));
	if (kpt_target_comm[0] && kpt_comm_differs(h->comm)) {
		bpf_ringbuf_discard(h, BPF_RB_NO_WAKEUP);
		st->filtered++;
		return 0;
	}
	if (kpt_ds.nargs)
		*((__u8 *)h + KPT_HDR_SIZE) = 0;	/* the fault bitmap: none can fault */
#pragma unroll
	for (i = 0; i < KPT_DS_MAX_ARGS; i++) {
		if (i >= kpt_ds.nargs)
			break;
		kpt_store_sized((void *)h + kpt_ds.args[i].slot, kpt_ds.args[i].size,
				kpt_direct_reg(ctx, kind, kpt_ds.args[i].reg));
	}
	bpf_ringbuf_submit(h, flags);
	return 0;
}

/*
 * may_direct: the program may take a direct stream or histogram (kpt_ds,
 * kpt_dh): every program but trampoline slots 1-15. A run of one probe
 * uses slot 0, and copies in the others would be resident object. (A
 * direct stream is never a tracepoint's, whose context is no registers.)
 */
static __always_inline int kpt_handle(void *ctx, int kind, bool may_direct)
{
	bool is_tp = kind == KPT_CTX_TP;
	/* a direct histogram's parameters, one load (kpt_hist_direct()) */
	__u64 dh = may_direct ? *(const volatile __u64 *)&kpt_dh : 0;
	/* the probe: the attachment's cookie, but a run of one has one, and
	 * a direct histogram's run is one (each load counts under TCG) */
	__u32 idx = KPT_DH_BYTE(dh, on) || kpt_one_probe ? 0 : (__u32)bpf_get_attach_cookie(ctx);
	struct kpt_probe_entry *p;
	struct kpt_scratch *s;
	struct kpt_stats *st;
	struct kpt_rec_hdr *h;
	__u64 pid_tgid, size;
	__u32 cpu, pos, i, passed;

	if (kpt_self_hit(KPT_DH_BYTE(dh, on), &pid_tgid))
		return 0;	/* not the user's: not even counted */
	st = bpf_map_lookup_elem(&kpt_stats, &idx);
	if (!st)
		return 0;
	if (!kpt_task_wanted(st, pid_tgid))
		return 0;
	st->hits++;
	/* constants to the verifier, which keeps one path of the three */
	if (KPT_DH_BYTE(dh, on)) {
		kpt_hist_direct(ctx, kind, st, dh);
		return 0;
	}
	if (may_direct && !is_tp && kpt_ds.size)
		return kpt_stream_direct(ctx, kind, st, pid_tgid);
	p = bpf_map_lookup_elem(&kpt_probes, &idx);
	if (!p)
		return 0;

	if (KPT_USES(DIRECT) && (p->flags & KPT_PF_DIRECT)) {
		__u64 v = 0;

		if (p->agg.action == KPT_ACT_HIST && kpt_direct_value(ctx, kind, p, &v)) {
			st->faults++;
			return 0;
		}
		/* a histogram inline, but in the sixteen trampoline slots: the
		 * global function's call and checks were a tenth of a hit's
		 * time on 6.1, sixteen more copies 75 KB of the object, which
		 * is resident */
		if (p->agg.action == KPT_ACT_HIST && kind != KPT_CTX_TRAMP) {
			kpt_hist_unkeyed(p, v, st);
			return 0;
		}
		return kpt_direct(p, idx, st, v, (__u32)pid_tgid);
	}
	/* a run of direct probes only: the verifier drops the rest */
	if (!(kpt_uses & ~KPT_USE_DIRECT))
		return 0;
	cpu = bpf_get_smp_processor_id();
	s = bpf_map_lookup_elem(&kpt_scratch, &cpu);
	if (!s)
		return 0;
	/* A copy, because the verifier allows only constant offsets into ctx
	 * and %REG is an offset chosen at run time. A tracepoint's context is
	 * its raw record instead: fields are read from it by offset. */
	if (is_tp) {
		/* no clearing first: kpt_tp_read() reads only the words this
		 * copies (kpt_tp_word()'s bound), else the record itself */
		kpt_tp_copy(ctx, (__u64 *)&s->regs);
		s->ctx = (__u64)ctx;
	} else if (!KPT_USES(REGS)) {
		/* latency and counts without arguments: nothing reads them */
	} else if (kind == KPT_CTX_TRAMP) {
		kpt_tramp_regs(ctx, &s->regs, p->flags & KPT_PF_RETURN);
	} else {
		kpt_copy_regs(&s->regs, ctx);
	}

	h = (struct kpt_rec_hdr *)s->rec;
	h->kind = KPT_REC_EVENT;
	h->probe = idx;
	h->ts = KPT_USES(TIME) ? bpf_ktime_get_ns() : 0;
	h->ip = 0;	/* only a printed record shows it; a tracepoint's none */
	if (KPT_USES(REGS) && !is_tp)
		h->ip = kpt_probed_ip(ctx, kind, p->flags, PT_REGS_IP(&s->regs));
	h->tid = (__u32)pid_tgid;
	h->tgid = pid_tgid >> 32;
	h->cpu = cpu;
	h->pad = 0;
	if (KPT_USES(COMM))
		bpf_get_current_comm(h->comm, sizeof(h->comm));
	if (kpt_target_comm[0] && kpt_comm_differs(h->comm)) {
		st->filtered++;
		return 0;
	}
	/* A return's entry arguments, before any filter: the depth must pop. */
	if (KPT_USES(EDATA) && (p->flags & KPT_PF_EDATA) &&
	    kpt_edata_pop(s, h->tid, p->edata_peer)) {
		st->unmatched++;
		return 0;
	}
	/* The filter's cheap part first: no argument fetched for nothing. */
	passed = !KPT_USES(FILTER) || !p->pre.nops || kpt_filter_eval(s, &p->pre);
	/* A latency start goes on when filtered: its return must see the depth. */
	if (!passed && p->agg.action != KPT_ACT_LAT_START) {
		st->filtered++;
		return 0;
	}

	/* The fault bitmap: each argument sets its bit on a failed read. */
	__builtin_memset(&s->rec[KPT_HDR_SIZE], 0, KPT_MAX_ARGS / 8);
	s->nfaults = 0;
	pos = p->fixed_size;
	for (i = 0; i < KPT_MAX_ARGS && i < kpt_max_args && passed; i++) {
		const struct kpt_fetch *f = &p->args[i];

		if (i >= p->nargs)
			break;
		if (!KPT_USES(FETCH) || kpt_put_reg(s, f))
			continue;
		pos = kpt_fetch_arg(s, f, i, pos, p->flags);
	}
	if (s->nfaults)
		st->faults += s->nfaults;
	if (KPT_USES(FILTER) && passed && p->post.nops && !kpt_filter_eval(s, &p->post))
		passed = 0;
	if (!passed)
		st->filtered++;
	if (p->agg.action == KPT_ACT_SAVE_ARGS)
		return KPT_USES(EDATA) ? kpt_save_args(s, p, idx) : 0;
	if (p->agg.action != KPT_ACT_PRINT)
		return KPT_USES(AGG) ? kpt_aggregate(s, p, idx, st, passed) : 0;
	if (!passed)
		return 0;

	/* One register for the bound check and the use: without the barrier
	 * clang checks a copy and passes an unbounded size to the helper. */
	size = pos;
	barrier_var(size);
	if (size > KPT_REC_MAX || size < KPT_HDR_SIZE)
		return 0;
	h->size = size;
	if (bpf_ringbuf_output(&kpt_events, s->rec, size, kpt_wakeup_flags(h->ts, size)))
		st->drops++;
	return 0;
}

/*
 * One program for entries and returns alike: a kprobe program attaches as a
 * kretprobe too (the direction is the attachment's), and the probe table
 * says which it is. One program, one verification: start-up time.
 */
SEC("kprobe")
int kpt_entry(struct pt_regs *ctx)
{
	return kpt_handle(ctx, KPT_CTX_REGS, true);
}

SEC("tracepoint")
int kpt_tp(void *ctx)
{
	return kpt_handle(ctx, KPT_CTX_TP, true);
}

/* Many functions through one link each (Linux 5.18+, CONFIG_FPROBE); entries
 * and returns, as above. */
SEC("kprobe.multi")
int kpt_entry_multi(struct pt_regs *ctx)
{
	return kpt_handle(ctx, KPT_CTX_MULTI, true);
}

/*
 * fentry/fexit: a BPF trampoline program is verified against one function,
 * so each probe on this backend takes one of these slots; the loader sets
 * its direction and function before load and leaves the unused ones out.
 * bpf_get_func_ret() in a slot loaded as fentry is the kernel's -EOPNOTSUPP.
 */
#define KPT_TRAMP(n)						\
	SEC("fentry")						\
	int kpt_tramp##n(__u64 *ctx)				\
	{							\
		return kpt_handle(ctx, KPT_CTX_TRAMP, n == 0);	\
	}
KPT_TRAMP(0) KPT_TRAMP(1) KPT_TRAMP(2) KPT_TRAMP(3)
KPT_TRAMP(4) KPT_TRAMP(5) KPT_TRAMP(6) KPT_TRAMP(7)
KPT_TRAMP(8) KPT_TRAMP(9) KPT_TRAMP(10) KPT_TRAMP(11)
KPT_TRAMP(12) KPT_TRAMP(13) KPT_TRAMP(14) KPT_TRAMP(15)

/* #defines of the UAPI, not in BTF: sched.h's CLONE_THREAD, errno's EEXIST. */
#define KPT_CLONE_THREAD	0x00010000
#define KPT_EEXIST		17

/*
 * -c: a process a traced one creates is traced from its first instruction
 * (as perf record -- CMD follows forks): task_newtask fires in the parent,
 * before the child is first woken. A thread needs nothing: its tgid is
 * traced already. Only loaded where kpt_target_set follows forks.
 */
SEC("tracepoint")
int kpt_newtask(void *ctx)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32, pid = 0, one = 1;
	__u64 flags = 0;
	long err;

	if (!bpf_map_lookup_elem(&kpt_procs, &tgid))
		return 0;
	if (bpf_probe_read_kernel(&flags, sizeof(flags), (void *)((__u64)ctx + kpt_nt_flags_off)) ||
	    (flags & KPT_CLONE_THREAD) ||
	    bpf_probe_read_kernel(&pid, sizeof(pid), (void *)((__u64)ctx + kpt_nt_pid_off)))
		return 0;
	err = bpf_map_update_elem(&kpt_procs, &pid, &one, BPF_NOEXIST);
	if (err && err != -KPT_EEXIST)	/* full: -E2BIG */
		__sync_fetch_and_add(&kpt_procs_full, 1);
	return 0;
}

/*
 * A traced process leaves kpt_procs when its task is freed: its pid is free
 * for another process from then on. A thread group's leader is freed last,
 * with the group's pid (a non-leader's exec swaps the pids first); the
 * other threads' pids are no key.
 */
SEC("tracepoint")
int kpt_procfree(void *ctx)
{
	__u32 pid = 0;

	if (!bpf_probe_read_kernel(&pid, sizeof(pid), (void *)((__u64)ctx + kpt_free_pid_off)))
		bpf_map_delete_elem(&kpt_procs, &pid);
	return 0;
}
