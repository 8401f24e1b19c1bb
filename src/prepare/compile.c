// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Compile: turn ftrace's op list (base, dereferences) plus a type into the
 * staged struct kpt_fetch the BPF interpreter runs, and lay out the record.
 *
 * The store stage follows the kernel's traceprobe_parse_probe_arg_body():
 * a string's last dereference becomes the string read itself ("+0(%si):string"
 * is the string at %si), a scalar's last dereference becomes a sized memory
 * read, anything else stores the value itself.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lang/valfmt.h"
#include "prepare/compile.h"

static bool is_deref(const struct spec_op *op)
{
	return op->kind == SPEC_OP_DEREF || op->kind == SPEC_OP_UDEREF;
}

/* Base stage from ops[0]; in_place: a tracepoint field read as the array it holds. */
static int compile_base(const struct spec_op *op, int64_t opval, const struct resolved *r,
			bool in_place, struct kpt_fetch *f, char *msg, size_t msglen)
{
	const struct tp_field *tf;

	switch (op->kind) {
	case SPEC_OP_TPFIELD:
		tf = &r->tp.fields[opval];
		f->param = tf->offset;
		if (tf->data_loc) {
			f->base = KPT_BASE_TPDATALOC;
		} else if (tf->char_array || in_place) {
			f->base = KPT_BASE_TPADDR;
		} else if (tf->size == 1 || tf->size == 2 || tf->size == 4 || tf->size == 8) {
			f->base = KPT_BASE_TPFIELD;
			f->imm = tf->size; /* the field's own width, whatever the type stored */
		} else {
			snprintf(msg, msglen, "field '%s' (%s, %u bytes) is not a number or a string",
				 tf->name, tf->type, tf->size);
			return -EOPNOTSUPP;
		}
		return 0;
	case SPEC_OP_REG:
		f->base = KPT_BASE_REG;
		f->param = (uint32_t)opval;
		return 0;
	case SPEC_OP_STACK:
		f->base = KPT_BASE_STACK;
		f->param = op->param;
		return 0;
	case SPEC_OP_STACKP:
		f->base = KPT_BASE_STACKP;
		return 0;
	case SPEC_OP_RETVAL:
		f->base = KPT_BASE_RETVAL;
		return 0;
	case SPEC_OP_ARG:
		f->base = KPT_BASE_ARG;
		f->param = op->param - 1;
		return 0;
	case SPEC_OP_EDATA:
		f->base = KPT_BASE_EDATA;
		f->param = op->param;
		return 0;
	case SPEC_OP_COMM:
		f->base = KPT_BASE_COMM;
		return 0;
	case SPEC_OP_IMM:
		f->base = KPT_BASE_IMM;
		f->imm = op->imm;
		return 0;
	case SPEC_OP_SYMBOL:
		f->base = KPT_BASE_IMM;
		f->imm = opval;
		return 0;
	case SPEC_OP_DATA:
		f->base = KPT_BASE_DATA;
		return 0;
	case SPEC_OP_FOFFS:
		f->base = KPT_BASE_IPREL;
		f->imm = opval;
		return 0;
	default:
		snprintf(msg, msglen, "unsupported fetch argument");
		return -EOPNOTSUPP;
	}
}

/*
 * A tracepoint field without ":TYPE" has the kernel's type: a string for
 * char[] and __data_loc, x64 for pointers, else sN/uN by size and sign.
 */
static enum spec_type field_type(const struct spec_arg *a, const struct resolved *r,
				 const int64_t *opval)
{
	const struct tp_field *tf;
	enum spec_type t;
	unsigned int size;

	if (a->type_given || a->ops[0].kind != SPEC_OP_TPFIELD || a->nops > 1)
		return a->type;
	tf = &r->tp.fields[opval[0]];
	if (tf->data_loc || tf->char_array)
		return SPEC_T_STRING;
	if (tf->symbol)
		return SPEC_T_SYMBOL;	/* %pS in the kernel's print fmt */
	/* %pI4, %pI6c: but a field only a filter reads compares as ftrace's number */
	if (tf->addr && !a->hidden)
		return tf->addr == TP_ADDR_IPV4 ? SPEC_T_IPV4 : SPEC_T_IPV6;
	/* __u8 daddr[4]: its elements' type (for a filter, ftrace's number of its size) */
	size = tf->array_len && !a->hidden ? tf->size / tf->array_len : tf->size;
	t = spec_type_int(size, tf->is_signed);
	return tf->pointer || !t ? SPEC_T_X64 : t;
}

/*
 * Elements of the argument: its [N], or a tracepoint array field's own
 * (untyped), but for a field only a filter reads, which ftrace's event
 * filters compare as a number of the field's size (daddr == 16777343).
 */
static uint32_t field_count(const struct spec_arg *a, const struct resolved *r,
			    const int64_t *opval)
{
	const struct tp_field *tf;

	if (a->count || a->type_given || a->ops[0].kind != SPEC_OP_TPFIELD || a->nops > 1 ||
	    a->hidden)
		return a->count;
	tf = &r->tp.fields[opval[0]];
	if (tf->addr)	/* an address: one ipv4 scalar, or ipv6's 16 bytes */
		return tf->addr == TP_ADDR_IPV4 ? 0 : VALFMT_IPV6_LEN;
	return tf->array_len;
}

/*
 * A tracepoint field read where it is, as an array (daddr:u8[4], or daddr
 * untyped): TYPE[N] must lie within the field. Or a pointer field read as
 * an array of string pointers (execve's argv:ustring[6]), which its NULL
 * ends. 1 if so (f's store set), 0 if not such a field, or -EINVAL.
 */
static int tp_field_array(const struct spec_arg *a, const struct resolved *r,
			  const int64_t *opval, uint32_t count, bool is_str, struct kpt_fetch *f,
			  char *msg, size_t msglen)
{
	const struct tp_field *tf;

	if (!count || a->ops[0].kind != SPEC_OP_TPFIELD || a->nops > 1)
		return 0;
	tf = &r->tp.fields[opval[0]];
	if (is_str) {
		if (tf->data_loc || tf->char_array || tf->array_len || tf->size != 8) {
			snprintf(msg, msglen, "'%s' (%s, %u bytes) is not a pointer: a string "
				 "array reads an array of string pointers", tf->name, tf->decl,
				 tf->size);
			return -EINVAL;
		}
		f->store = KPT_ST_STRARR;
		/* pointers and strings where the type says, or by address as on kprobes */
		f->flags |= KPT_FF_NULL_END |
			    (a->type == SPEC_T_USTRING ? KPT_FF_USER_ST : KPT_FF_AUTO_ST);
		return 1;
	}
	if (tf->data_loc || (uint64_t)f->size * count > tf->size) {
		snprintf(msg, msglen, "field '%s' (%s) is %u bytes: %u elements of %u bytes "
			 "do not fit in it", tf->name, tf->decl, tf->size, count, f->size);
		return -EINVAL;
	}
	f->store = KPT_ST_MEM;	/* the field's bytes, in the record (kernel memory) */
	return 1;
}

/*
 * An errno's bytes: the value's own width, so that a long is not cut to an
 * int (mmap's address read as -1107099648): a tracepoint field's size (a
 * syscall's long ret), BTF's (btfarg.c: a function's long, pointer or int),
 * else an int, as C returns errors.
 */
static uint8_t errno_width(const struct spec_arg *a, const struct resolved *r,
			   const int64_t *opval)
{
	const struct tp_field *tf;

	if (a->ops[0].kind == SPEC_OP_TPFIELD && a->nops == 1) {
		tf = &r->tp.fields[opval[0]];
		if (!tf->data_loc && !tf->char_array && !tf->array_len &&
		    (tf->size == 1 || tf->size == 2 || tf->size == 4 || tf->size == 8))
			return (uint8_t)tf->size;
	} else if (a->width == 1 || a->width == 2 || a->width == 4 || a->width == 8) {
		return a->width;
	}
	return (uint8_t)spec_type_slot(SPEC_T_ERRNO);
}

static int compile_arg(const struct spec_probe *p, const struct spec_arg *a,
		       const struct resolved *r, const int64_t *opval, enum spec_type type,
		       struct kpt_fetch *f, char *msg, size_t msglen)
{
	bool user_probe = p->kind == SPEC_UPROBE || p->kind == SPEC_URETPROBE;
	bool is_str = type == SPEC_T_STRING || type == SPEC_T_USTRING;
	const struct spec_op *last = &a->ops[a->nops - 1];
	uint32_t count = field_count(a, r, opval);
	int i, err, nderef;
	bool absorb;

	memset(f, 0, sizeof(*f));
	err = compile_base(&a->ops[0], opval[0], r, count && !is_str, f, msg, msglen);
	if (err)
		return err;
	f->count = count ? count : 1;
	f->size = spec_type_slot(type);
	if (type == SPEC_T_ERRNO && !count)
		f->size = errno_width(a, r, opval);
	err = tp_field_array(a, r, opval, count, is_str, f, msg, msglen);
	if (err)
		return err < 0 ? err : 0;

	/* Dereferences: all but the last, which the store absorbs, except for
	 * symstr: that one names the value after every dereference. */
	absorb = a->nops > 1 && is_deref(last) && a->type != SPEC_T_SYMSTR;
	nderef = a->nops - 1 - absorb;
	if (nderef > KPT_MAX_DEREF) {
		snprintf(msg, msglen, "Dereference is too much nested (at most %d)", KPT_MAX_DEREF);
		return -E2BIG;
	}
	f->nderef = nderef;
	for (i = 0; i < nderef; i++) {
		const struct spec_op *op = &a->ops[i + 1];

		f->off[i] = op->imm;
		if (op->kind == SPEC_OP_UDEREF)
			f->deref_user |= 1u << i;
		else if (!user_probe)
			/* ftrace's kprobes read addresses below TASK_SIZE as user memory */
			f->deref_auto |= 1u << i;
	}

	/* The store. */
	if (a->ops[0].kind == SPEC_OP_DATA) {
		f->store = KPT_ST_NONE;
	} else if (a->ops[0].kind == SPEC_OP_COMM) {
		f->store = KPT_ST_COMM;
	} else if (is_str) {
		if (absorb) {
			f->st_off = last->imm;
			f->store = a->count ? KPT_ST_STRARR : KPT_ST_STRING;
		} else {
			/* \IMM:string: the string at that address */
			f->store = KPT_ST_STRING;
		}
		if (type == SPEC_T_USTRING || (absorb && last->kind == SPEC_OP_UDEREF))
			f->flags |= KPT_FF_USER_ST;
		else if (!user_probe)
			f->flags |= KPT_FF_AUTO_ST;
	} else if (absorb) {
		f->store = KPT_ST_MEM;
		f->st_off = last->imm;
		if (last->kind == SPEC_OP_UDEREF)
			f->flags |= KPT_FF_USER_ST;
		else if (!user_probe)
			f->flags |= KPT_FF_AUTO_ST;
	} else {
		if (a->count) {
			snprintf(msg, msglen,
				 "an array needs a memory argument, e.g. +0(%s):u32[4]", KPT_EX_REG1);
			return -EINVAL;
		}
		f->store = KPT_ST_RAW;
	}
	if (user_probe)
		/* uprobe_events faults a string its strnlen_user() finds too long */
		f->flags |= KPT_FF_USER_ST | KPT_FF_LONG_FAULT;

	if (a->bf_width) {
		unsigned int bits = a->bf_container;

		/* Isolate bits [offset, offset + width) of the container on a u64. */
		f->flags |= KPT_FF_BITFIELD;
		f->bf_lshift = 64 - (a->bf_offset + a->bf_width);
		f->bf_rshift = 64 - a->bf_width;
		f->size = bits / 8;
	}
	return 0;
}

int compile_probe(const struct spec_probe *p, const struct resolved *r, int idx,
		  struct kpt_probe_entry *ent, struct ev_desc *ev, char *msg, size_t msglen,
		  int *col)
{
	unsigned int pos;
	int i, err;

	memset(ent, 0, sizeof(*ent));
	memset(ev, 0, sizeof(*ev));
	*col = -1;
	if (p->nargs > KPT_MAX_ARGS) {
		snprintf(msg, msglen, "too many arguments (at most %d)", KPT_MAX_ARGS);
		return -E2BIG;
	}
	ev->args = calloc(p->nargs ? p->nargs : 1, sizeof(*ev->args));
	if (!ev->args)
		return -ENOMEM;

	ev->index = idx;
	ev->spec = p;
	ev->kind = p->kind;
	ev->is_return = p->kind == SPEC_KRETPROBE || p->kind == SPEC_URETPROBE;
	ev->is_user = p->kind == SPEC_UPROBE || p->kind == SPEC_URETPROBE;
	snprintf(ev->group, sizeof(ev->group), "%s", p->group);
	snprintf(ev->event, sizeof(ev->event), "%s", p->event);
	snprintf(ev->func, sizeof(ev->func), "%s", r->func);
	ev->addr = r->kaddr;
	ev->uaddr = r->uaddr;
	ev->uoffset = r->uoffset;
	ev->path = p->path;
	ev->target = r->target;
	ev->tp_print = p->whole ? &r->tp : NULL;
	ev->tp_fmt = p->kind == SPEC_TRACEPOINT ? &r->tp : NULL;
	ev->nargs = p->nargs;

	ent->flags = (ev->is_return ? KPT_PF_RETURN : 0) | (ev->is_user ? KPT_PF_USER : 0) |
		     (p->kind == SPEC_TRACEPOINT ? KPT_PF_TP : 0) |
		     (p->kind == SPEC_UPROBE && r->uentry ? KPT_PF_UENTRY : 0);
	ent->nargs = p->nargs;

	/* Record: header, fault bitmap, then the slots packed in order. Packed,
	 * not aligned: padding would be bytes nobody writes, i.e. stale data. */
	pos = KPT_HDR_SIZE + (p->nargs + 7) / 8;
	for (i = 0; i < p->nargs; i++) {
		const struct spec_arg *a = &p->args[i];
		struct kpt_fetch *f = &ent->args[i];
		struct ev_arg *ea = &ev->args[i];

		enum spec_type type = field_type(a, r, r->opval[i]);

		*col = a->col;
		err = compile_arg(p, a, r, r->opval[i], type, f, msg, msglen);
		if (err)
			goto fail;
		snprintf(ea->name, sizeof(ea->name), "%s", a->name);
		ea->type = type;
		ea->hidden = a->hidden;
		if (!a->type_given && a->ops[0].kind == SPEC_OP_TPFIELD && a->nops == 1 &&
		    !a->bf_width)
			ea->tp_field = &r->tp.fields[r->opval[i][0]];
		ea->sym_name = type == SPEC_T_SYMBOL && ea->tp_field &&
			       ea->tp_field->symbol == TP_SYM_NAME;
		if (a->bf_width)
			ea->type = spec_type_int(a->bf_container / 8, false);
		ea->count = field_count(a, r, r->opval[i]);
		ea->null_end = !!(f->flags & KPT_FF_NULL_END);
		ea->vfmt = ev->is_user ? VALFMT_USER : 0;
		ea->size = f->size;
		ea->text = a->text;
		ea->spec = a;
		ea->enums = a->enums;
		ea->nenums = a->nenums;
		if (f->base == KPT_BASE_DATA) {
			ea->data = a->ops[0].data;
			continue;
		}
		f->slot = pos;
		ea->slot = pos;
		pos += f->size * f->count;
		if (pos > KPT_FIXED_MAX) {
			snprintf(msg, msglen,
				 "arguments need %u bytes of fixed record space, at most %d "
				 "(fewer or smaller arrays)", pos, KPT_FIXED_MAX);
			err = -E2BIG;
			goto fail;
		}
	}
	ent->fixed_size = pos;
	ev->fixed_size = pos;
	*col = -1;
	return 0;
fail:
	ev_desc_free(ev);
	return err;
}

void ev_desc_free(struct ev_desc *ev)
{
	free(ev->args);
	ev->args = NULL;
}
