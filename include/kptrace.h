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
};

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
/* kpt_fetch.deref_user bit i: dereference i reads user memory; deref_auto likewise "by address". */

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

/* One probe table entry; the index is the BPF cookie of each attachment. */
struct kpt_probe_entry {
	__u32 flags;		/* KPT_PF_* */
	__u16 nargs;
	__u16 fixed_size;	/* header + fault bitmap + slots: where strings start */
	struct kpt_fetch args[KPT_MAX_ARGS];
};

enum kpt_rec_kind {
	KPT_REC_EVENT = 1,
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
	__u32 pad;
	char comm[KPT_COMM_LEN];
};

#define KPT_HDR_SIZE	((unsigned int)sizeof(struct kpt_rec_hdr))

/* Per-probe, per-CPU counters. */
struct kpt_stats {
	__u64 hits;		/* times the program ran for this probe (after the pid filter) */
	__u64 drops;		/* records the ring buffer had no room for */
	__u64 faults;		/* arguments whose read failed */
	__u64 filtered;		/* events the pid filter skipped */
};

#endif /* KPTRACE_H */
