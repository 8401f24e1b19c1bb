/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The ABI between kptrace's BPF programs and its loader: the probe table the
 * loader writes, the records the programs emit and the counters they keep.
 * Fixed-width types only, no pointers, no 'long': the same bytes are read by
 * a 64-bit BPF program and by userspace.
 */
#ifndef KPTRACE_H
#define KPTRACE_H

#ifndef __KPT_BPF__
#include <linux/types.h>
#endif

/* Limits. ftrace allows 128 arguments per probe (MAX_TRACE_ARGS). */
#define KPT_MAX_ARGS	128
/* Dereferences before the store: what ftrace's FETCH_INSN_MAX (16) slots allow. */
#define KPT_MAX_DEREF	13
/* ftrace's MAX_ARRAY_LEN. */
#define KPT_MAX_ARRAY	64
/* ftrace's MAX_STRING_SIZE (PATH_MAX), terminator included. */
#define KPT_STR_MAX	4096
/* One record, header + fixed slots + strings. Power of two: the BPF side masks with it. */
#define KPT_REC_MAX	32768
/* Fixed part (header, fault bitmap, slots) may use at most this much of a record. */
#define KPT_FIXED_MAX	8192
#define KPT_COMM_LEN	16

/* Where an argument's first value comes from (ftrace's FETCH_OP_REG ... stage 1). */
enum kpt_base {
	KPT_BASE_REG = 1,	/* param = byte offset in struct pt_regs (from BTF) */
	KPT_BASE_STACK,		/* param = slot N of the stack: *(sp + 8N) */
	KPT_BASE_STACKP,	/* the stack pointer itself */
	KPT_BASE_RETVAL,	/* the return value register */
	KPT_BASE_ARG,		/* param = 0-based function argument, by the calling convention */
	KPT_BASE_IMM,		/* imm */
	KPT_BASE_COMM,		/* the current task's comm, a string */
	KPT_BASE_DATA,		/* an immediate string: nothing fetched, userspace prints it */
	KPT_BASE_IPREL,		/* ip + imm: a uprobe's @+OFFSET, relative to the probed address */
	KPT_BASE_TPFIELD,	/* tracepoint field: 'size' bytes at param in the raw record */
	KPT_BASE_TPDATALOC,	/* tracepoint __data_loc field at param: the address it points to */
	KPT_BASE_TPADDR,	/* tracepoint: the address of the field at param (char arrays) */
	KPT_BASE_EDATA,		/* return probe: entry argument saved in slot param */
};

/*
 * The architecture kptrace is built for: clang's -D__TARGET_ARCH_* for the
 * BPF object, the compiler's own for userspace. One build traces the kernel
 * it was built for; its register names, calling convention and the layout
 * below are that architecture's alone.
 *
 * Its struct pt_regs by 8-byte word, as the handler copies it into its
 * scratch area: only the words of kpt_regs_mask, the ones the run's probes
 * read (userspace's plan_regs_used()). The calling convention passes
 * KPT_NR_REG_ARGS arguments in registers; past them, arguments are on the
 * stack from slot KPT_STACK_ARG0 (x86-64's call pushed the return address
 * at slot 0, arm64's bl left it in the link register).
 */
#if defined(__TARGET_ARCH_arm64) || (!defined(__KPT_BPF__) && defined(__aarch64__))
#define KPT_ARCH_ARM64		1
#define KPT_ARCH_NAME		"arm64"
#define KPT_NR_REG_ARGS		8	/* AAPCS64: x0-x7 */
#define KPT_STACK_ARG0		0
/* the first three argument registers as --help's and messages' examples
 * write them (an argument of a format, never in one: "%x0" converts) */
#define KPT_EX_REG1		"%x0"
#define KPT_EX_REG2		"%x1"
#define KPT_EX_REG3		"%x2"
enum kpt_reg_word {
	KPT_W_X0 = 0, KPT_W_RET = 0, KPT_W_SP = 31, KPT_W_IP = 32,	/* %sp, %pc */
	KPT_W_LR = 30,		/* x30: a function's return address at its entry */
	KPT_REG_WORDS = 34,	/* x0-x30, sp, pc, pstate: user_pt_regs */
};
#else
#define KPT_ARCH_X86		1
#define KPT_ARCH_NAME		"x86-64"
#define KPT_NR_REG_ARGS		6	/* SysV: %di %si %dx %cx %r8 %r9 */
#define KPT_STACK_ARG0		1
#define KPT_EX_REG1		"%di"
#define KPT_EX_REG2		"%si"
#define KPT_EX_REG3		"%dx"
enum kpt_reg_word {
	KPT_W_R9 = 8, KPT_W_R8 = 9, KPT_W_AX = 10, KPT_W_CX = 11, KPT_W_DX = 12,
	KPT_W_SI = 13, KPT_W_DI = 14, KPT_W_IP = 16, KPT_W_SP = 19,
	KPT_W_RET = KPT_W_AX,
	KPT_REG_WORDS = 21,
};
#endif

#define KPT_TP_WORDS	16	/* plain loads reach a tracepoint record's first 128 bytes */

/*
 * The offset of the 8-byte word of a tracepoint's record that holds all of
 * a field of size bytes at off, if plain loads reach it: after the common
 * fields (the verifier keeps those from tracepoint programs), in the first
 * KPT_TP_WORDS, before end (kpt_tp_end); the field naturally aligned. Else
 * -1. The BPF side's and the loader's (kpt_tp_direct_word) alike.
 */
static inline int kpt_tp_word_at(__u32 off, __u32 size, __u32 end)
{
	__u32 word = off & ~7u;

	if (off < 8 || (off & 7) + size > 8 || (off & (size - 1)) ||
	    word >= KPT_TP_WORDS * 8 || word + 8 > end)
		return -1;
	return (int)word;
}

/*
 * KPT_DIRECT_TPBTF: TP_PROTO's argument (a word of the tp_btf context),
 * then plain loads through the BTF-typed pointers it leads to, each of
 * which the verifier checks against the kernel's BTF at its constant
 * offset: nhops pointers, then the value's size bytes at off (size 0: the
 * argument itself).
 */
#define KPT_DC_HOPS	4
struct kpt_direct_chain {
	__u8 word;
	__u8 nhops;
	__u8 size;
	__u8 pad;
	__u32 off;
	__u32 hop[KPT_DC_HOPS];
};

/*
 * A direct stream (the loader's kpt_ds): a run of one printing probe, at a
 * kprobe, kprobe.multi, fentry, uprobe or their returns, whose every
 * argument is an argument register or %ax as it is (%di..%r9, %ax, $argN up
 * to the sixth, $retval; no filter, no entry data), or at a tp_btf slot,
 * whose every argument is a KPT_DIRECT_TPBTF value, filtered by at most
 * one comparison of one such value with a constant.
 * The handler reserves the record in the ring buffer at its fixed size and
 * writes each value there from the context: no scratch copy, no fetch
 * interpreter, no second copy into the ring. The record is the generic
 * path's, byte for byte where the decoder reads. Set by
 * plan_direct_stream(); size 0: the generic path.
 */
#define KPT_DS_MAX_ARGS	8
struct kpt_ds_arg {
	__u8 reg;		/* argument register or KPT_DIRECT_AX, as kpt_agg.direct */
	__u8 size;		/* 1, 2, 4 or 8 bytes of it, as the generic kpt_put() stores */
	__u16 slot;		/* its offset in the record */
};
struct kpt_direct_stream {
	__u32 size;		/* the record's bytes (the probe's fixed_size); 0: none */
	__u32 nargs;
	__u32 flags;		/* the probe's KPT_PF_* */
	__u8 fcmp;		/* tp_btf's filter: KPT_DH_FILTER | its enum kpt_pred_cmp, 0: none */
	__u8 fsize;		/* its value's width and sign, as kpt_pred_op's */
	__u8 fsigned;
	__u8 pad;
	struct kpt_ds_arg args[KPT_DS_MAX_ARGS];
	/* tp_btf's (reg KPT_DIRECT_TPBTF): each value's loads */
	struct kpt_direct_chain chain[KPT_DS_MAX_ARGS];
	struct kpt_direct_chain fchain;	/* and its filter's one term's */
	__s64 fimm;		/* the filter's constant */
};

/* Entry arguments one return probe can save (ftrace's entry data). */
#define KPT_MAX_EDATA	8

/* kpt_uses: the parts of the handler a run's probes need (the loader says) */
#define KPT_USE_FETCH	(1u << 0)	/* arguments */
#define KPT_USE_FILTER	(1u << 1)	/* filters */
#define KPT_USE_AGG	(1u << 2)	/* in-kernel aggregation */
#define KPT_USE_EDATA	(1u << 3)	/* entry arguments at returns */
#define KPT_USE_REGS	(1u << 4)	/* the probe's registers (arguments, a record's ip) */
#define KPT_USE_COMM	(1u << 5)	/* the task's comm (records, filters, --comm, keys) */
#define KPT_USE_TIME	(1u << 6)	/* the time (records, latency) */
#define KPT_USE_DIRECT	(1u << 7)	/* a KPT_PF_DIRECT probe */
#define KPT_USE_STACK	(1u << 8)	/* stacks: -K/-U, or kstack/ustack keys */

/* fentry/fexit probes in one run: one BPF program each, verified against its function. */
#define KPT_TRAMP_SLOTS	16
/* BTF-typed tracepoints (tp_btf): a program each, verified against its prototype */
#define KPT_TPBTF_SLOTS	8
/* Probes with a program of their own where the kernel has no BPF cookies (ident.bpf.h) */
#define KPT_ID_SLOTS	16
/* Of those, the ones the main object fills: a classic tracepoint's program
 * with its probe a constant, where cookies exist (load/ident.h) */
#define KPT_TP_FAST_SLOTS	4

/* How the value is stored in the record (ftrace's FETCH_OP_ST_* stage 3). */
enum kpt_store {
	KPT_ST_RAW = 1,		/* the value itself, 'size' bytes of it */
	KPT_ST_MEM,		/* 'size' bytes at value + st_off (count elements) */
	KPT_ST_STRING,		/* NUL-terminated string at value + st_off */
	KPT_ST_STRARR,		/* count strings, pointers at value + st_off + 8*i */
	KPT_ST_COMM,		/* the task's comm as a string */
	KPT_ST_NONE,		/* nothing (immediate string) */
};

/* kpt_fetch.flags */
#define KPT_FF_USER_ST		(1u << 0)	/* the store reads user memory */
#define KPT_FF_AUTO_ST		(1u << 1)	/* the store reads user memory below TASK_SIZE, else kernel */
#define KPT_FF_BITFIELD		(1u << 2)
#define KPT_FF_LONG_FAULT	(1u << 3)	/* a string longer than KPT_STR_MAX - 1 is a fault */
#define KPT_FF_NULL_END		(1u << 4)	/* KPT_ST_STRARR: a NULL pointer ends the array */
/* kpt_fetch.deref_user bit i: dereference i reads user memory; deref_auto likewise "by address". */

/*
 * The data_loc of a string array's elements past the NULL that ended it
 * (KPT_FF_NULL_END): neither a string (its length would be 64K) nor a fault.
 */
#define KPT_DL_END		0xffffffffu

/* One argument's fetch, in ftrace's stages: base, dereferences, store, modifier, loop. */
struct kpt_fetch {
	__u8 base;		/* enum kpt_base */
	__u8 store;		/* enum kpt_store */
	__u8 nderef;		/* dereferences before the store */
	__u8 size;		/* element size in bytes: 1, 2, 4, 8 (4 for a string's data_loc) */
	__u8 count;		/* array elements, 1 for a scalar */
	__u8 bf_lshift;		/* bitfield: (v << lshift) >> rshift on a size-byte value */
	__u8 bf_rshift;
	__u8 flags;		/* KPT_FF_* */
	__u16 slot;		/* offset of the value in the record */
	__u16 deref_user;	/* bit i: dereference i reads user memory */
	__u16 deref_auto;	/* bit i: dereference i picks user/kernel by address (kprobes) */
	__u16 pad0;
	__u32 param;		/* register offset, stack slot or argument number */
	__u32 pad1;
	__s64 imm;		/* immediate value or address */
	__s64 st_off;		/* offset added by the store */
	__s64 off[KPT_MAX_DEREF];
};

/* kpt_probe_entry.flags */
#define KPT_PF_RETURN	(1u << 0)	/* kretprobe/uretprobe */
#define KPT_PF_USER	(1u << 1)	/* uprobe: registers and stack are user state */
#define KPT_PF_TP	(1u << 2)	/* tracepoint: the context is the raw trace record */
#define KPT_PF_EDATA	(1u << 3)	/* return probe: its entry probe edata_peer saved arguments */
/*
 * An unkeyed histogram of a value the handler can take straight from its
 * context (an argument register, the return value, a tracepoint field),
 * with no argument that can fault: no record, no fetch interpreter. A
 * filter only in a direct histogram (kpt_dh), and one comparison of such a
 * value with a constant, made from the context too. Set by plan_mark_direct().
 */
#define KPT_PF_DIRECT	(1u << 4)
/*
 * An unkeyed histogram with a group of its own, never cleared (no -i): its
 * value's count, sum, min and max go in the probe's kpt_stats.val, which
 * the handler has looked up already, not in kpt_hstat: one map lookup less
 * a hit (a helper call each before Linux 6.10's inlined per-CPU lookups).
 * With -i the histogram is cleared each interval, which would race with
 * the HITS beside it: kpt_hstat then. Decided by plan.c.
 */
#define KPT_PF_OWN_STATS	(1u << 5)
/* -K/-U: the event's record carries its kernel / user stack (kpt_rec_hdr.nkstack) */
#define KPT_PF_KSTACK	(1u << 6)
#define KPT_PF_USTACK	(1u << 7)
/* a uprobe on a function's first instruction: its user stacks get the caller
 * the frame-pointer walk skips (bpf/stack.bpf.h, kpt_entry_caller()) */
#define KPT_PF_UENTRY	(1u << 8)
/* a --to end keyed by arguments or cpu under -p, -c, -t, --comm, --cgroup:
 * the targets choose its starts, and any task's hit may end one of them */
#define KPT_PF_ANY_TASK	(1u << 9)
/* kpt_agg.direct: argument register 0 to KPT_NR_REG_ARGS - 1 of the calling
 * convention, the return value's register (%ax, arm64's x0), the
 * tracepoint field of the value's fetch, or a tp_btf argument and its
 * member chain (kpt_direct_hist's chain: a direct histogram's only) */
#define KPT_DIRECT_AX		KPT_NR_REG_ARGS
#define KPT_DIRECT_TPFIELD	(KPT_NR_REG_ARGS + 1)
#define KPT_DIRECT_TPBTF	(KPT_NR_REG_ARGS + 2)

/*
 * Filters: ftrace's event filter language compiled by src/prepare/filter.c into two
 * postfix programs over a stack of booleans. "pre" uses only what is known
 * before any argument is fetched (pid, tid, cpu, comm) and runs first; "post"
 * runs after the fetch and before anything is emitted or aggregated.
 */
#define KPT_MAX_PRED		16	/* ops in one program */
#define KPT_MAX_PRED_STR	4	/* string constants in one program */
#define KPT_PRED_STR		32	/* bytes of a string constant, NUL included */
#define KPT_PRED_STACK		16	/* stack depth of the evaluator */
/* A string argument is compared on its first KPT_PRED_STRCMP bytes. */
#define KPT_PRED_STRCMP		256

enum kpt_pred_opcode {
	KPT_PO_END = 0,
	KPT_PO_TERM,		/* push (field cmp constant) */
	KPT_PO_AND,		/* pop b, pop a, push a && b */
	KPT_PO_OR,		/* pop b, pop a, push a || b */
	KPT_PO_NOT,		/* pop a, push !a */
};

enum kpt_pred_field {
	KPT_FLD_TID = 1,	/* common_pid: the thread id, as ftrace's */
	KPT_FLD_TGID,		/* pid: the process */
	KPT_FLD_CPU,		/* CPU */
	KPT_FLD_COMM,		/* comm (string) */
	KPT_FLD_ARG,		/* scalar argument argi, from its record slot */
	KPT_FLD_ARGSTR,		/* string argument argi, through its data_loc */
};

enum kpt_pred_cmp {
	KPT_CMP_EQ = 1,
	KPT_CMP_NE,
	KPT_CMP_LT,
	KPT_CMP_LE,
	KPT_CMP_GT,
	KPT_CMP_GE,
	KPT_CMP_BAND,		/* (field & constant) != 0 */
	KPT_CMP_STREQ,		/* string == constant */
	KPT_CMP_STRNE,		/* string != constant */
	KPT_CMP_GLOB,		/* string ~ "glob": * ? [set] */
};

struct kpt_pred_op {
	__u8 op;		/* enum kpt_pred_opcode */
	__u8 field;		/* enum kpt_pred_field */
	__u8 cmp;		/* enum kpt_pred_cmp */
	__u8 argi;		/* KPT_FLD_ARG*: argument index (its fault bit) */
	__u8 size;		/* KPT_FLD_ARG: bytes of the slot (1, 2, 4, 8) */
	__u8 is_signed;		/* compare as signed (after sign-extending size bytes) */
	__u8 str;		/* string comparisons: index into strs */
	__u8 pad;
	__u16 slot;		/* KPT_FLD_ARG*: the argument's offset in the record */
	__u16 pad2[3];
	__s64 imm;		/* scalar comparisons: the constant */
};

struct kpt_pred_prog {
	__u8 nops;		/* 0: always true */
	__u8 pad[7];
	struct kpt_pred_op ops[KPT_MAX_PRED];
	char strs[KPT_MAX_PRED_STR][KPT_PRED_STR];
};

/*
 * What a probe does with an event that passed its filter: emit a record, or
 * aggregate in the kernel (no record, no userspace work per event).
 */
enum kpt_action {
	KPT_ACT_PRINT = 0,	/* a ring buffer record */
	KPT_ACT_HIST,		/* a histogram bucket of value_argi's value */
	KPT_ACT_COUNT,		/* a count per key */
	KPT_ACT_LAT_START,	/* latency: remember the entry time (per thread, per depth) */
	KPT_ACT_LAT_END,	/* latency: histogram of now - entry time */
	KPT_ACT_SAVE_ARGS,	/* entry of a return probe: keep the argument slots (per
				 * thread, per depth) for the return to read */
	KPT_ACT_PAIR_START,	/* latency --from: the time, under the pair's key */
	KPT_ACT_PAIR_END,	/* latency --to: histogram of now - the time under its key */
	KPT_ACT_WHY,		/* kptrace why: the root's call (agg.why_role) or one of its
				 * log's (bpf/why.bpf.h) */
};

/* Arguments that make a --from/--to pair's key (--key); none: the thread. */
#define KPT_PAIR_KEYS	3
/* A pair_argi that is no argument: the CPU (--key cpu, where idle is pid 0 on each) */
#define KPT_PAIR_CPU	0xff

/* A pair's key in kpt_pairs: its group's first start probe and the --key
 * values (or the thread); the map's key is only as long as the words used,
 * and where each key is one value of 32 bits at most (the thread, the cpu,
 * a pid), it ends after w32, w[0]'s low half: each lookup hashes it all. */
struct kpt_pair_key {
	__u32 probe;
	__u32 w32;
	__u64 w[KPT_PAIR_KEYS];
};

enum kpt_hist_kind {
	KPT_H_LOG2 = 1,		/* [0], [1], [2,4), [4,8) ... */
	KPT_H_LINEAR,		/* < min, [min, min+step) ... , >= max */
	KPT_H_LOGLIN,		/* log2 ranges cut in 64 linear steps: <= 1/64 relative width */
	KPT_H_SLOG2,		/* a signed value's log2: ... (-4,-2] [-1] [0] [1] [2,4) ... */
};

/* Histogram sizes (buckets), see include/kpt_buckets.h. */
#define KPT_LOG2_BUCKETS	65
/* signed log2: 64 negative buckets mirroring the positive ones, then log2's */
#define KPT_SLOG2_BUCKETS	(KPT_LOG2_BUCKETS + 64)
#define KPT_SLOG2_ZERO		64	/* the bucket of 0 */
#define KPT_LOGLIN_SUB		64
#define KPT_LOGLIN_BUCKETS	(KPT_LOGLIN_SUB + (64 - 6) * KPT_LOGLIN_SUB)
#define KPT_LINEAR_MAX		4096	/* buckets, under- and overflow included */

enum kpt_key_kind {
	KPT_K_COMM = 1,		/* 16 bytes */
	KPT_K_TGID,
	KPT_K_TID,
	KPT_K_CPU,
	KPT_K_ARG,		/* key_argi's scalar value */
	KPT_K_KSTACK,		/* the kernel stack's id: its key in kpt_kstk */
	KPT_K_USTACK,		/* the user stack's id: its key in kpt_ustk */
	KPT_K_STR,		/* key_argi's string: its first KPT_KEY_STR bytes */
	KPT_K_IPV6,		/* key_argi's 16 bytes: an :ipv6 address */
	KPT_K_CGROUP,		/* the task's cgroup v2 id, printed as its path */
	KPT_K_CONTAINER,	/* the same id, printed as its container's name */
};
/* --cgroup, --container: the cgroups traced, at most (a container's own and those under it). */
#define KPT_TARGET_CGROUPS	16

/*
 * Stacks. Frames are bpf_get_stack()'s: a kernel frame an address, a user
 * frame the kernel's struct bpf_stack_build_id (32 bytes: status, build id,
 * file offset or address), so a process that is gone by the time userspace
 * reads its frames can still be symbolized from its files. Depth: what
 * kernel.perf_event_max_stack allows by default.
 */
#define KPT_STACK_MAX		127
#define KPT_KFRAME_SIZE		8
#define KPT_UFRAME_SIZE		32
/* A stack-key map's value: the frames as captured, nframes of them. */
struct kpt_kstack {
	__u32 nframes;
	__u32 tgid;		/* who first had it (unused for kernel stacks) */
	__u64 ip[KPT_STACK_MAX];
};
struct kpt_ustack {
	__u32 nframes;
	__u32 tgid;		/* who first had it: frames without a build id need its maps */
	__u8 frame[KPT_STACK_MAX][KPT_UFRAME_SIZE];
};
/* Distinct stacks a run's keys can hold (kpt_kstk, kpt_ustk): past them,
 * counted as lost (kpt_stats.stack_full). */
#define KPT_KSTACK_KEYS		16384
#define KPT_USTACK_KEYS		8192
/*
 * User stacks from the binaries' own CFI (bpf/unwind.bpf.h, load/cfi.c):
 * the binaries by the device and inode of their mapping's file (the
 * kernel's dev_t: major << 20 | minor), each with its build id and its
 * rows in kpt_cfi_rows, sorted by file offset; a row holds up to the next.
 * A binary without a table (none in the file, unreadable, no room left)
 * has an entry with no rows once the walk asked for it: walked by frame
 * pointers, never asked for again.
 */
#define KPT_CFI_BINS		4096
#define KPT_CFI_ROWS_MAX	(1u << 20)	/* 16 MiB of rows */
/* The rows' room for tables read as the walk meets binaries, past those
 * read at start: a few of a distribution's largest programs' tables at once. */
#define KPT_CFI_ROWS_LATE	(1u << 19)	/* 8 MiB of rows */
#define KPT_CFI_SEARCH		21		/* binary search steps: log2(KPT_CFI_ROWS_MAX) + 1 */
enum kpt_cfi_kind {		/* sys/ehframe.h's enum ehf_cfa */
	KPT_CFI_GAP,		/* no FDE: the walk stops (cut short) */
	KPT_CFI_SP,		/* CFA = sp + cfa_off */
	KPT_CFI_FP,		/* CFA = bp + cfa_off */
	KPT_CFI_BAD,		/* a rule not kept: the walk stops (cut short) */
	KPT_CFI_END,		/* the outermost frame (_start): the walk ends whole */
};
struct kpt_cfi_key {
	__u64 dev, ino;
};
struct kpt_cfi_bin {
	/* its frames' first 24 bytes: struct bpf_stack_build_id's status
	 * (BPF_STACK_BUILD_ID_VALID) and build id, then the file offset */
	__u64 head[3];
	__u32 first, nrows;	/* its rows in kpt_cfi_rows */
};
struct kpt_cfi_row {
	__u32 off;		/* the file offset the row starts at */
	__s32 cfa_off;
	__s16 ra_off;		/* the return address at CFA + ra_off */
	__s16 fp_off;		/* the caller's bp at CFA + fp_off; 0: unchanged */
	__u8 kind;		/* enum kpt_cfi_kind */
	__u8 pad[3];
};
/*
 * A process's executable mappings of files, from /proc/PID/maps: the walk's
 * answer where bpf_find_vma() has none (-EBUSY: one call per run where
 * interrupts are off), for the mm they were read for. The BPF side asks in
 * kpt_uw_wanted for a process's mappings (bin 0: the mm it found), or for
 * the table of a binary it met without an entry in kpt_cfi_bins.
 */
#define KPT_UW_MAPS		16
#define KPT_UW_PROCS		1024
#define KPT_UW_WANTED		256
/* A pc in none of a process's mappings read (a library loaded since, or
 * code in no file) has them read again, at most this often. */
#define KPT_UW_REREAD_NS	1000000000ull
struct kpt_uw_want {
	__u32 tgid, pad;
	struct kpt_cfi_key bin;		/* ino 0: the process's mappings */
};
struct kpt_uw_map {
	__u64 start, end, pgoff;	/* pgoff in pages, as vm_pgoff */
	struct kpt_cfi_key key;
};
struct kpt_uw_proc {
	__u64 mm;
	__u64 read_ns;			/* when they were read (bpf_ktime_get_ns()'s clock) */
	__u32 n, pad;
	struct kpt_uw_map m[KPT_UW_MAPS];
};
/* kpt_agg.stack_keys */
#define KPT_SK_KSTACK		1
#define KPT_SK_USTACK		2
/* A key word of a stack that could not be captured or stored (counted in kpt_stats). */
#define KPT_STACK_LOST		0

#define KPT_MAX_KEYS	4
/*
 * u64 words of key data: a comm takes two, a string KPT_KEY_STR_WORDS. The
 * keyed map's key is as long as the run's keys (the loader sets it), so
 * keys of numbers hash no string's room.
 */
#define KPT_KEY_WORDS	8
#define KPT_KEY_STR	48	/* a string key's bytes, its NUL included: longer, cut */
#define KPT_KEY_STR_WORDS	(KPT_KEY_STR / 8)

/* Words of a key part of this kind. */
static inline int kpt_key_width(int kind)
{
	return kind == KPT_K_COMM || kind == KPT_K_IPV6 ? 2 : kind == KPT_K_STR ? KPT_KEY_STR_WORDS : 1;
}

/* Key of the keyed aggregation maps. */
struct kpt_key {
	__u32 probe;
	__u32 bucket;		/* histogram bucket; KPT_BUCKET_STATS for the stats entry */
	__u64 w[KPT_KEY_WORDS];
};
#define KPT_BUCKET_STATS	0xffffffffu

/* A pair's start in kpt_pairs where the end's --by takes fields of the
 * start (kpt_pair_carry): its time and the key words it made. The layout
 * of struct kpt_key, whose room the start builds it in. */
struct kpt_pair_val {
	__u64 ts;
	__u64 w[KPT_KEY_WORDS];
};
_Static_assert(sizeof(struct kpt_pair_val) == sizeof(struct kpt_key) &&
	       __builtin_offsetof(struct kpt_pair_val, w) == __builtin_offsetof(struct kpt_key, w),
	       "a start builds its value in a key's room");

/* Per key (or per probe): events, and count/sum/min/max of the value. */
struct kpt_aggval {
	__u64 count;
	__u64 sum;
	__u64 min;
	__u64 max;
};

struct kpt_agg {
	__u8 action;		/* enum kpt_action */
	__u8 hist;		/* enum kpt_hist_kind */
	__u8 value_argi;	/* KPT_ACT_HIST: the argument whose value is bucketed */
	__u8 value_signed;	/* KPT_ACT_HIST: the value is signed */
	__u8 nkeys;		/* 0: per-CPU arrays; else the keyed hash */
	__u8 key_kind[KPT_MAX_KEYS];
	__u8 key_argi[KPT_MAX_KEYS];
	__u8 direct;		/* KPT_PF_DIRECT: where the value is, KPT_DIRECT_* */
	__u8 stack_keys;	/* KPT_SK_*: the keys name a stack, captured before the key */
	__u8 key_peer;		/* KPT_ACT_PAIR_*: bit i, key i is the other probe's to
				 * make (a --from field at the end), its words left */
	__u32 hist_base;	/* this probe's first bucket in kpt_hist (unkeyed) */
	__u32 nbuckets;
	__u32 lat_peer;		/* KPT_ACT_LAT_END: index of the LAT_START probe;
				 * KPT_ACT_PAIR_*: its pair group's first start */
	__u32 group;		/* probes with one group share a histogram: kpt_hstat index
				 * and kpt_key.probe (the first probe's index) */
	__u8 value_sub_argi;	/* KPT_ACT_HIST: subtract this argument (0xff: none) */
	__u8 count_value;	/* KPT_ACT_COUNT: add value_argi's value (--sum...), not 1 */
	__u8 why_role;		/* KPT_ACT_WHY: KPT_WHY_ROOT or KPT_WHY_UNDER */
	__u8 fdirect;		/* a direct histogram's filter: its term's value, as direct */
	__u8 npair;		/* KPT_ACT_PAIR_*: the key's arguments, 0: the thread */
	__u8 pair_argi[KPT_PAIR_KEYS];
	__u32 pmu_base;		/* KPT_ACT_LAT_END with --pmu: counter e's log-linear
				 * histogram starts at kpt_hist[pmu_base + e * KPT_LOGLIN_BUCKETS] */
	__s64 lin_min;		/* KPT_H_LINEAR */
	__s64 lin_step;
};

/*
 * A direct histogram (the loader's kpt_dh): a run of one KPT_PF_DIRECT
 * unkeyed histogram. The handler takes the value from the context and
 * counts it with every parameter a read-only constant to the verifier,
 * which drops the branches on them: no probe-table lookup, no switch at
 * run time on the value's source, width or sign, nor on the kind of
 * histogram; nor on its filter's one comparison, if any (fcmp). Its
 * first word is read in one load (KPT_DH_BYTE()). One
 * probe: its buckets are all of kpt_hist, its stats group 0's. Set by
 * plan_direct_hist(); on 0: the probe table's entry.
 */
/* kpt_direct_hist.fcmp's flag: the first word's sign bit, a test the verifier drops whole */
#define KPT_DH_FILTER	0x80
/* kpt_direct_hist.on: 1 with these flags, the last three the loader's (its
 * run's targets, budget and self check), so that a hit tests none of them */
#define KPT_DH_SAME	0x02	/* the filter's value is the histogram's: read once */
#define KPT_DH_NO_IDS	0x04	/* no task ids read at the hit's start (kpt_self_hit()) */
#define KPT_DH_SELF_STACK 0x08	/* kptrace's own hits told by their stack (kpt_own_by_stack()) */
#define KPT_DH_SELF_ASK	0x10	/* or by the task's ids (kpt_is_own()) */
struct kpt_direct_hist {
	__u8 on;		/* 1 | KPT_DH_* */
	__u8 direct;		/* KPT_DIRECT_*, as kpt_agg.direct */
	__u8 size;		/* the value's width (its record slot's), as kpt_narrow()
				 * takes; 0: a count of hits, no value read */
	__u8 is_signed;
	__u8 hist;		/* enum kpt_hist_kind; 0: a count (kpt_stats.val alone) */
	__u8 own_stats;		/* KPT_PF_OWN_STATS: the stats in kpt_stats.val */
	__u8 fdirect;		/* the filter's value, as direct */
	__u8 fcmp;		/* KPT_DH_FILTER | the filter's enum kpt_pred_cmp, 0: none */
	__u32 tp_off;		/* KPT_DIRECT_TPFIELD: the field's offset and size */
	__u32 tp_size;
	__u32 nbuckets;
	__u8 fsize;		/* the filter's value: its width and sign, as kpt_pred_op's */
	__u8 fsigned;
	__u8 pad[2];
	__s64 lin_min;		/* KPT_H_LINEAR */
	__s64 lin_step;
	__u32 ftp_off;		/* the filter's KPT_DIRECT_TPFIELD */
	__u32 ftp_size;
	__s64 fimm;		/* the filter's constant */
	struct kpt_direct_chain chain;	/* KPT_DIRECT_TPBTF: the value's */
	struct kpt_direct_chain fchain;	/* and the filter's */
};
_Static_assert(__builtin_offsetof(struct kpt_direct_hist, fcmp) == 7,
	       "KPT_DH_FILTER is the sign bit of the first word");

/*
 * A direct pair on one tracepoint (the loader's kpt_dp): a run of a
 * KPT_PF_DIRECT --to end and the --from start it pairs with, both on one
 * classic tracepoint (sched_switch at both ends). kpt_tp2 does both in one
 * go, the end then the start, with one clock read; where both take the same
 * key, the end's entry is the start's too, rewritten in place. Set by
 * plan_direct_pair(); on 0: the two through kpt_handle().
 */
struct kpt_direct_pair {
	__u8 on;
	__u8 pad[3];
	__u32 end;		/* the --to probe's index */
	__u32 start;		/* the --from probe's */
};

/*
 * A direct --from/--to probe at a tp_btf slot (the loader's
 * kpt_tpbtf_pair[slot]): keyed by the thread, the cpu or one
 * KPT_DIRECT_TPBTF value, filtered by at most one comparison of one, each
 * value's loads constants to the verifier as kpt_dh's chain is. Set by
 * plan_make() (plan_tpbtf_pair()); on 0: the probe's start or end made as
 * the generic path's, or kpt_direct()'s.
 */
/* kpt_tpbtf_pair.by: what keys the probe */
enum { KPT_TPP_THREAD, KPT_TPP_CPU, KPT_TPP_VALUE };
struct kpt_tpbtf_pair {
	__u8 on;
	__u8 by;		/* KPT_TPP_*: the probe's key, as its kpt_agg's pair_argi */
	__u8 filtered;		/* 1: its filter is one term, of the filter chain's value */
	__u8 pad;
	struct kpt_direct_chain key;	/* KPT_TPP_VALUE: the key's value */
	struct kpt_direct_chain filter;	/* the filter's one term's value */
};

/*
 * latency --pmu: perf_event counters read at each call's entry and return.
 * kpt_pmu (a perf event array) holds counter e of CPU c at e * stride + c;
 * each LAT_END probe keeps, per CPU, the count/sum/min/max of each counter's
 * per-call delta and the calls whose deltas could not be taken.
 */
#define KPT_PMU_MAX	4	/* counters per run */

struct kpt_pmu_stats {
	struct kpt_aggval d[KPT_PMU_MAX];
	__u64 migrated;		/* returned on another CPU than the entry's: per-CPU
				 * counters cannot be compared, left out */
	__u64 multiplexed;	/* a counter was not running the whole call (the PMU
				 * time-shared it among more events than it has) */
	__u64 failed;		/* a read failed (no counter on that CPU) */
	__u64 pad;
};

/* One probe table entry; the index is the BPF cookie of each attachment. */
struct kpt_probe_entry {
	__u32 flags;		/* KPT_PF_* */
	__u16 nargs;
	__u16 fixed_size;	/* header + fault bitmap + slots: where strings start */
	__u32 edata_peer;	/* KPT_PF_EDATA: index of the KPT_ACT_SAVE_ARGS entry probe */
	__u32 pad;
	struct kpt_agg agg;
	struct kpt_pred_prog pre;
	struct kpt_pred_prog post;
	struct kpt_fetch args[KPT_MAX_ARGS];
};

enum kpt_rec_kind {
	KPT_REC_EVENT = 1,
	/* latency --perfetto: a timed call, the header (its return's) then its
	 * latency, a __u64 of nanoseconds: KPT_HDR_SIZE + 8 bytes */
	KPT_REC_CALL = 2,
	/* latency --over: a call at or over it, its end's record (h->size its
	 * bytes) then its latency, a __u64 of nanoseconds */
	KPT_REC_SLOW = 3,
	/* kptrace why: a root call that met the condition, a struct
	 * kpt_why_log of h.size bytes (the root's entry record, then its
	 * first i.n entries) */
	KPT_REC_WHY = 4,
};

/*
 * Every record starts with this. A fault bitmap of (nargs + 7) / 8 bytes
 * follows, then the argument slots at the offsets the loader chose, then the
 * strings. A string's slot is ftrace's data_loc: (length << 16) | offset from
 * the record start, length including the terminator; length 0 is a fault.
 */
struct kpt_rec_hdr {
	__u16 kind;		/* enum kpt_rec_kind */
	__u16 probe;		/* probe table index */
	__u32 size;		/* bytes in this record */
	__u64 ts;		/* bpf_ktime_get_ns() */
	__u64 ip;		/* return probes: the address returned to; else the IP seen */
	__u32 tid;
	__u32 tgid;
	__u32 cpu;
	__u16 nkstack;		/* KPT_PF_KSTACK: kernel frames, KPT_KFRAME_SIZE each, then */
	__u16 nustack;		/* KPT_PF_USTACK: user frames, KPT_UFRAME_SIZE each: the end */
	char comm[KPT_COMM_LEN];
	__u64 func;		/* uretprobes: the function's run-time address, 0 if the
				 * kernel does not give it (kpt_ufunc()) */
};

#define KPT_HDR_SIZE	((unsigned int)sizeof(struct kpt_rec_hdr))

/*
 * kptrace why (bpf/why.bpf.h): per thread inside a root call, a log of the
 * entries and returns of the --under functions beneath it. Bounded so one
 * pass of the verifier takes it without bpf_loop() (Linux 5.17): entries
 * past KPT_WHY_ENTRIES or nested past KPT_WHY_DEPTH under the root are
 * counted in i.dropped, not kept.
 */
#define KPT_WHY_ENTRIES	128	/* a power of two: the index is masked */
#define KPT_WHY_DEPTH	16
#define KPT_WHY_THREADS	1024	/* threads inside a root at once (an LRU) */
#define KPT_WHY_ROOT	1	/* kpt_agg.why_role */
#define KPT_WHY_UNDER	2
/* kpt_why_cond: what a root call must meet to be sent, each given one */
#define KPT_WHY_ERROR	(1u << 0)	/* its return an errno (-4095..-1) */
#define KPT_WHY_PTR	(1u << 1)	/* with KPT_WHY_ERROR: a pointer, NULL or ERR_PTR */
#define KPT_WHY_SLOWER	(1u << 2)	/* at least kpt_why_slower ns */
#define KPT_WHY_RET	1	/* kpt_why_ent.flags: a return, else an entry */

struct kpt_why_ent {
	__u16 probe;		/* the entry's or return's probe */
	__u16 flags;		/* KPT_WHY_RET */
	__u32 pad;
	__u64 ts;
	__u64 ret;		/* a return's %ax, as the register held it */
};

struct kpt_why_info {
	__u64 end;		/* the root's return time */
	__u64 ret;		/* its return value */
	__u32 n;		/* entries kept */
	__u32 dropped;		/* entries and returns not kept (the bounds) */
	__u32 depth;		/* under the root now: calls open (kept or not) */
	__u32 root_depth;	/* the root's own calls open (recursion) */
	__u32 unmatched;	/* returns with no entry seen (a missed hit) */
	__u32 args_len;		/* bytes of the root's entry record in body[], 0: none */
	__u32 args_lost;	/* bytes of a root's entry record too long to keep */
	__u32 off;		/* the root's filter refused this call: nothing logged */
};

/*
 * body[]: the root's entry record (its arguments, an ordinary record of its
 * probe, args_len bytes), then from KPT_WHY_ENT_OFF(args_len) the entries.
 * A record is kept if it takes at most KPT_WHY_ARGS - 8 bytes, so that the
 * entries' offset masked by KPT_WHY_ARGS - 8 is itself.
 */
#define KPT_WHY_ARGS	1024	/* a power of two */
#define KPT_WHY_ARGS_MAX	(KPT_WHY_ARGS - 8)
#define KPT_WHY_ENT_OFF(args_len)	((((args_len) + 7) & ~7u) & (KPT_WHY_ARGS - 8))

struct kpt_why_log {
	struct kpt_rec_hdr h;	/* kind KPT_REC_WHY, probe the root's entry, ts its start */
	struct kpt_why_info i;
	__u8 body[KPT_WHY_ARGS + KPT_WHY_ENTRIES * sizeof(struct kpt_why_ent)];
};

#define KPT_WHY_HDR_SIZE	((unsigned int)__builtin_offsetof(struct kpt_why_log, body))

/*
 * What a hit is, where the kernel has no BPF cookie (before 5.15): a
 * kprobe's or kretprobe's address (struct kprobe's addr) with
 * KPT_ID_ENTRY or KPT_ID_RETURN, a tracepoint (0, KPT_ID_TP), a uprobe or
 * profile (0, KPT_ID_OTHER): the key of kpt_ident, the probe its value.
 */
enum { KPT_ID_ENTRY, KPT_ID_RETURN, KPT_ID_TP, KPT_ID_OTHER };
struct kpt_ident {
	__u64 addr;
	__u32 what;
	__u32 pad;
};

/* Per-probe, per-CPU counters. */
struct kpt_stats {
	__u64 hits;		/* times the program ran for this probe (after the pid filter) */
	__u64 drops;		/* records the ring buffer had no room for */
	__u64 faults;		/* arguments whose read failed */
	__u64 filtered;		/* events the pid or the probe's filter skipped */
	__u64 unmatched;	/* latency: returns (--to ends) with no entry time (evicted or
				 * never seen) */
	__u64 keys_full;	/* keyed aggregation: the map was full, event not counted */
	__u64 stack_failed;	/* a stack could not be captured (a kernel thread's user stack...) */
	__u64 stack_full;	/* a stack key's map was full: counted under a lost stack */
	__u64 stack_deep;	/* a stack reached its depth: its outermost frames are missing */
	__u64 pair_replaced;	/* --from: a start whose key already had one, never ended */
	__u64 pair_idle;	/* --from by the thread: such a start of the idle task
				 * (pid 0, one per CPU: their starts mix) */
	__u64 keys_cut;		/* a string key longer than KPT_KEY_STR - 1 bytes, cut */
	__u64 sampled;		/* --budget: hits its 1-in-N sampling left out */
	__u64 paused;		/* --budget: hits past its rate, the probe paused */
	__u64 budget_mark;	/* --budget, this CPU: when its last mark's hit came (kpt_budget_mark()) */
	struct kpt_aggval val;	/* KPT_PF_OWN_STATS: the histogram's value stats */
	__u64 oncpu_stack;	/* a direct histogram, this CPU: the kernel stack of the last
				 * task of another process a hit ran on (kpt_own_by_stack()) */
};

#endif /* KPTRACE_H */
