/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The fetch interpreter: runs one argument's staged fetch (struct kpt_fetch)
 * against a copy of the probe's registers and writes the result into the
 * record being built in the per-CPU scratch buffer.
 *
 * It is a global (non-static) function on purpose: the verifier checks a
 * global function once, whatever the number of call sites, where a static
 * one is re-verified at each of the 128 argument iterations and blows the
 * 1M-instruction budget.
 */
#ifndef KPT_FETCH_BPF_H
#define KPT_FETCH_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "kptrace.h"
#include "settings.bpf.h"
#include "scratch.bpf.h"
#include "compat.bpf.h"
#include "mem.bpf.h"
#include "regs.bpf.h"
#include "tp.bpf.h"

static __always_inline void kpt_put(struct kpt_scratch *s, __u32 off, __u32 size, __u64 v)
{
	kpt_store_sized(&s->rec[off & KPT_OFF_MASK], size, v);
}

static __always_inline void kpt_fault(struct kpt_scratch *s, __u32 argi)
{
	s->rec[(KPT_HDR_SIZE + (argi >> 3)) & KPT_OFF_MASK] |= 1 << (argi & 7);
	s->nfaults++;
}

/*
 * Append a string read from addr at record offset pos; store its data_loc at
 * slot. Returns the new end of the record. A string with no terminator in
 * its first KPT_STR_MAX bytes is cut there, as the kernel's kprobes do, or
 * is a fault when too_long_faults (uprobes: the kernel's strnlen_user check).
 */
static __always_inline __u32 kpt_put_str(struct kpt_scratch *s, __u32 slot, __u32 pos,
					 __u64 addr, int mode, __u32 argi, bool too_long_faults)
{
	/* One byte more than the limit, to tell "exactly at the limit" from
	 * "longer"; rec[] has KPT_STR_MAX + 8 bytes of slack for it. */
	__u64 room = pos < KPT_REC_MAX ? KPT_REC_MAX - pos : 0;
	__u8 *dst = &s->rec[pos & KPT_OFF_MASK];
	long n = -1;

	if (room > KPT_STR_MAX + 1)
		room = KPT_STR_MAX + 1;
	/* Checked and used in one register (see kpt_handle()): dst + room
	 * must be inside rec[] for the verifier. */
	barrier_var(room);
	if (room > 0 && room <= KPT_STR_MAX + 1)
		n = kpt_read_str(dst, room, addr, mode);
	if (n > KPT_STR_MAX) {
		if (too_long_faults) {
			n = -1;
		} else {
			dst[KPT_STR_MAX - 1] = 0;
			n = KPT_STR_MAX;
		}
	}
	if (n <= 0) {
		/* ftrace's convention: a zero length prints as (fault) */
		kpt_put(s, slot, 4, pos);
		kpt_fault(s, argi);
		return pos;
	}
	kpt_put(s, slot, 4, ((__u32)n << 16) | pos);
	return pos + n;
}

static __always_inline __u32 kpt_put_comm(struct kpt_scratch *s, __u32 slot, __u32 pos)
{
	__u32 n = 0;
	__u8 *d;

	if (pos > KPT_REC_MAX - KPT_COMM_LEN) {
		kpt_put(s, slot, 4, pos);
		return pos;
	}
	d = &s->rec[pos & KPT_OFF_MASK];
	bpf_get_current_comm(d, KPT_COMM_LEN);
	d[KPT_COMM_LEN - 1] = 0;
	for (n = 0; n < KPT_COMM_LEN - 1; n++)
		if (!d[n])
			break;
	n++; /* the terminator counts, as in ftrace's data_loc */
	kpt_put(s, slot, 4, (n << 16) | pos);
	return pos + n;
}

/* kpt_store_elem()'s packed scalar argument: global functions take five. */
#define KPT_EL_ARGI(x)		((x) & 0xff)
#define KPT_EL_IDX(x)		(((x) >> 8) & 0xff)
#define KPT_EL_FAULT		(1u << 16)
#define KPT_EL_END		(1u << 17)	/* past a NULL-terminated array's NULL */
/* kpt_store_elem()'s return, or'd to pos: this element was the array's NULL */
#define KPT_POS_END		(1u << 30)
#define KPT_EL(argi, idx, fault) ((argi) | ((idx) << 8) | ((fault) ? KPT_EL_FAULT : 0))

/*
 * Stages 3 and 4 for one element: store (raw, memory, string, string through
 * a pointer array), then the bitfield modifier. Returns the new end of the
 * record. Global for the same reason as kpt_fetch_arg(): verified once, not
 * once per array element.
 */
KPT_GLOBAL(int, kpt_store_elem,
	   (struct kpt_scratch *s, const struct kpt_fetch *f, __u64 val, __u32 pos, __u32 el),
	   (__u32 idx, __u64 val, __u32 pos, __u32 el),
	   KPT_C_SCRATCH(s) KPT_C_PROBE(p, idx) KPT_C_FETCH(f, p, KPT_EL_ARGI(el)))
	int home, mode;
	__u32 argi = KPT_EL_ARGI(el), i = KPT_EL_IDX(el), size, slot;
	__u64 v = 0, addr = 0;

	KPT_ONLY_IF(KPT_USES(FETCH));
	if (!s || !f)
		return pos;
	if (pos > KPT_REC_MAX)
		pos = KPT_REC_MAX;
	home = (f->flags & KPT_FF_USER_ST) ? KPT_RD_USER : KPT_RD_KERNEL;
	mode = (f->flags & KPT_FF_AUTO_ST) ? KPT_RD_AUTO : home;
	size = f->size;
	slot = f->slot + i * size;

	if (el & KPT_EL_END) {
		kpt_put(s, slot, 4, KPT_DL_END);
		return pos;
	}
	if (el & KPT_EL_FAULT) {
		/* An earlier stage failed: zero the slot (strings: a zero-length
		 * data_loc, ftrace's "(fault)") so nothing stale is left. */
		kpt_put(s, slot, size, f->store >= KPT_ST_STRING ? pos : 0);
		kpt_fault(s, argi);
		return pos;
	}

	switch (f->store) {
	case KPT_ST_RAW:
		v = val;
		break;
	case KPT_ST_MEM:
		if (kpt_read_sized(&v, size, val + f->st_off + (__u64)i * size, mode)) {
			kpt_put(s, slot, size, 0);
			kpt_fault(s, argi);
			return pos;
		}
		break;
	case KPT_ST_STRING:
		return kpt_put_str(s, slot, pos, val + f->st_off, mode, argi,
				   f->flags & KPT_FF_LONG_FAULT);
	case KPT_ST_STRARR:
		/* Element i is the string at the i-th pointer of an array. */
		if (kpt_read(&addr, 8, val + f->st_off + (__u64)i * 8,
			     (f->flags & KPT_FF_AUTO_ST) ? KPT_RD_AUTO : home)) {
			kpt_put(s, slot, 4, pos);
			kpt_fault(s, argi);
			return pos;
		}
		if (!addr && (f->flags & KPT_FF_NULL_END)) {
			/* argv's NULL: the array ends here, nothing faulted */
			kpt_put(s, slot, 4, KPT_DL_END);
			return pos | KPT_POS_END;
		}
		return kpt_put_str(s, slot, pos, addr, mode, argi, f->flags & KPT_FF_LONG_FAULT);
	case KPT_ST_COMM:
		return kpt_put_comm(s, slot, pos);
	default:
		return pos;
	}
	if (f->flags & KPT_FF_BITFIELD)
		v = (v << (f->bf_lshift & 63)) >> (f->bf_rshift & 63);
	kpt_put(s, slot, size, v);
	return pos;
}

/*
 * The commonest argument, a register as it is (hist kmalloc's size, %di):
 * stored at once by the handler, with none of kpt_fetch_arg()'s stages and
 * no call. Returns whether f is one (and was stored).
 */
static __always_inline bool kpt_put_reg(struct kpt_scratch *s, const struct kpt_fetch *f)
{
	if (f->base != KPT_BASE_REG || f->store != KPT_ST_RAW || f->nderef || f->count != 1 ||
	    (f->flags & KPT_FF_BITFIELD) || f->param / 8 >= KPT_REG_WORDS)
		return false;
	kpt_put(s, f->slot, f->size, ((__u64 *)&s->regs)[f->param / 8]);
	return true;
}

/*
 * Run fetch f for argument argi: the base value and the dereferences here,
 * then one kpt_store_elem() per element. Strings are appended at pos.
 * Returns the new end of the record. pflags are the probe's KPT_PF_* flags.
 */
KPT_GLOBAL(int, kpt_fetch_arg,
	   (struct kpt_scratch *s, const struct kpt_fetch *f, __u32 argi, __u32 pos, __u32 pflags),
	   (__u32 idx, __u32 argi, __u32 pos, __u32 pflags),
	   KPT_C_SCRATCH(s) KPT_C_PROBE(p, idx) KPT_C_FETCH(f, p, argi))
	int home = (pflags & KPT_PF_USER) ? KPT_RD_USER : KPT_RD_KERNEL;
	__u32 i, count, param, fault = 0, end = 0;
	__u64 val = 0, addr;
	int mode;

	KPT_ONLY_IF(KPT_USES(FETCH));
	if (!s || !f)
		return pos;
	count = f->count;
	param = f->param;

	/* Stage 1: the base value. */
	switch (f->base) {
	case KPT_BASE_REG:
		if (param / 8 >= sizeof(struct kpt_regs) / 8)
			fault = 1;
		else
			val = ((__u64 *)&s->regs)[param / 8];
		break;
	case KPT_BASE_STACK:
		fault = !!kpt_read(&val, 8, PT_REGS_SP(&s->regs) + (__u64)param * 8, home);
		break;
	case KPT_BASE_STACKP:
		val = PT_REGS_SP(&s->regs);
		break;
	case KPT_BASE_RETVAL:
		val = PT_REGS_RC(&s->regs);
		break;
	case KPT_BASE_ARG:
		if (param < KPT_NR_REG_ARGS) {
			val = kpt_arg_reg(&s->regs, param);
		} else {
			/* Beyond the registers, arguments are on the stack
			 * (x86-64: above the return address, slot 1 holds the
			 * 7th; arm64: slot 0 holds the 9th) */
			addr = PT_REGS_SP(&s->regs) +
			       (__u64)(param - KPT_NR_REG_ARGS + KPT_STACK_ARG0) * 8;
			fault = !!kpt_read(&val, 8, addr, home);
		}
		break;
	case KPT_BASE_EDATA:
		val = s->edata[param & (KPT_MAX_EDATA - 1)];
		break;
	case KPT_BASE_IMM:
		val = f->imm;
		break;
	case KPT_BASE_IPREL:
		/* uprobe_events' translate_user_vaddr(): the probe's runtime
		 * address less its file offset, plus the wanted file offset */
		val = PT_REGS_IP(&s->regs) + f->imm;
		break;
	case KPT_BASE_TPFIELD:
		/* imm: the field's width in the record */
		fault = kpt_tp_read(s, param, (__u32)f->imm, &val);
		break;
	case KPT_BASE_TPDATALOC:
		/* __data_loc: a u32 (length << 16 | offset) into the record */
		fault = kpt_tp_read(s, param, 4, &val);
		val = s->ctx + (val & 0xffff);
		break;
	case KPT_BASE_TPADDR:
		val = s->ctx + param;
		break;
	case KPT_BASE_COMM:
		break;
	default: /* KPT_BASE_DATA: userspace prints the immediate string */
		return pos;
	}

	/* Stage 2: dereferences. */
	for (i = 0; i < KPT_MAX_DEREF && i < kpt_max_deref && !fault; i++) {
		if (i >= f->nderef)
			break;
		if (f->deref_auto & (1u << i))
			mode = KPT_RD_AUTO;
		else
			mode = (f->deref_user & (1u << i)) ? KPT_RD_USER : home;
		fault = !!kpt_read(&val, 8, val + f->off[i], mode);
	}

	/* Stages 3 and 4, per element (ftrace's LP_ARRAY loop); past a
	 * NULL-terminated array's NULL, nothing is read. */
	for (i = 0; i < KPT_MAX_ARRAY && i < kpt_max_count; i++) {
		if (i >= count)
			break;
		pos = KPT_CALL(kpt_store_elem, (s, f, val, pos, KPT_EL(argi, i, fault) | end),
			       (idx, val, pos, KPT_EL(argi, i, fault) | end));
		if (pos & KPT_POS_END)
			end = KPT_EL_END;
		pos &= ~KPT_POS_END;
	}
	return pos;
}

#endif /* KPT_FETCH_BPF_H */