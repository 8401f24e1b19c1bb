// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * .eh_frame and .debug_frame into rows (ehframe.h): each CIE and FDE read
 * as the LSB's "Exception Frame" and DWARF 5's section 6.4 say, the call
 * frame instructions run, a row kept wherever the CFA, return address or
 * frame pointer rule changes.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/ehframe.h"
#include "sys/elf.h"

/* pointer encodings (DW_EH_PE_*): the low nibble its format, then how it applies */
#define PE_OMIT		0xff
#define PE_FMT		0x0f
#define PE_APP		0x70
#define PE_PCREL	0x10
#define PE_INDIRECT	0x80

#define REMEMBER_MAX	16	/* DW_CFA_remember_state's depth kept */

/* A register's rule, for the two kept (return address, frame pointer). */
enum rule { R_SAME, R_OFFSET, R_UNDEF, R_OTHER };

struct reg_rule {
	uint8_t how;	/* enum rule */
	int64_t off;	/* R_OFFSET: CFA + off */
};

struct cfa_state {
	uint64_t reg;		/* the CFA's register */
	int64_t off;
	bool expr;		/* DW_CFA_def_cfa_expression */
	struct reg_rule ra, fp;
};

/* A reader over [p, end): reads past end set bad and yield 0. */
struct rd {
	const uint8_t *p, *end, *start;
	uint64_t addr;		/* the virtual address of start */
	bool bad;
};

struct cie {
	uint64_t code_align;
	int64_t data_align;
	uint64_t ra_reg;
	uint8_t fde_enc;
	bool aug_z;
	const uint8_t *insns, *insns_end;
};

struct machine {
	uint64_t sp, fp, ra;	/* DWARF register numbers */
	bool ra_in_reg;		/* the return address starts in a register (a link register) */
};

static uint64_t rd_bytes(struct rd *r, size_t n)
{
	uint64_t v = 0;
	size_t i;

	if (r->bad || (size_t)(r->end - r->p) < n) {
		r->bad = true;
		return 0;
	}
	for (i = 0; i < n; i++)	/* little-endian: both machines kept */
		v |= (uint64_t)r->p[i] << (8 * i);
	r->p += n;
	return v;
}

/* A LEB128 number; a signed one has its last byte's bit 6 extended. */
static uint64_t rd_leb(struct rd *r, bool sign)
{
	uint64_t v = 0;
	unsigned shift = 0;
	uint8_t b;

	do {
		if (r->bad || r->p >= r->end) {
			r->bad = true;
			return 0;
		}
		b = *r->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	if (sign && shift < 64 && (b & 0x40))
		v |= ~0ull << shift;
	return v;
}

static uint64_t rd_uleb(struct rd *r)
{
	return rd_leb(r, false);
}

static int64_t rd_sleb(struct rd *r)
{
	return (int64_t)rd_leb(r, true);
}

/* An encoded pointer (DW_EH_PE_*); false for an encoding this reader does not take. */
static bool rd_ptr(struct rd *r, uint8_t enc, uint64_t *v)
{
	uint64_t here = r->addr + (uint64_t)(r->p - r->start);

	switch (enc & PE_FMT) {
	case 0x00: *v = rd_bytes(r, 8); break;				/* absptr (64-bit) */
	case 0x01: *v = rd_uleb(r); break;
	case 0x02: *v = rd_bytes(r, 2); break;
	case 0x03: *v = rd_bytes(r, 4); break;
	case 0x04: *v = rd_bytes(r, 8); break;
	case 0x09: *v = (uint64_t)rd_sleb(r); break;
	case 0x0a: *v = (uint64_t)(int16_t)rd_bytes(r, 2); break;
	case 0x0b: *v = (uint64_t)(int32_t)rd_bytes(r, 4); break;
	case 0x0c: *v = rd_bytes(r, 8); break;
	default: return false;
	}
	switch (enc & PE_APP) {
	case 0:
		return true;
	case PE_PCREL:
		*v += here;
		return true;
	default:	/* text-, data-, function-relative: not in a linked .eh_frame's FDEs */
		return false;
	}
}

/* The skipped pointer of enc (a personality routine's): false if it cannot be. */
static bool skip_ptr(struct rd *r, uint8_t enc)
{
	uint64_t v;

	return enc == PE_OMIT || rd_ptr(r, enc & ~PE_INDIRECT, &v);
}

static const char *sec_name(enum ehf_sec sec)
{
	return sec == EHF_DEBUG_FRAME ? ".debug_frame" : ".eh_frame";
}

/* The CIE at p (its id read already, body [p, end)) into c. */
static int cie_read(struct rd *r, enum ehf_sec sec, struct cie *c, char *msg, size_t msglen,
		    size_t at)
{
	const char *aug;
	const uint8_t *aug_end = NULL;
	uint8_t version, addr_size = 8, seg_size = 0;
	size_t i;

	memset(c, 0, sizeof(*c));
	version = (uint8_t)rd_bytes(r, 1);
	aug = (const char *)r->p;
	while (r->p < r->end && *r->p)
		r->p++;
	if (r->p >= r->end || (version != 1 && version != 3 && version != 4)) {
		snprintf(msg, msglen, "%s: the CIE at 0x%zx has version %u or no augmentation",
			 sec_name(sec), at, version);
		return -ENOEXEC;
	}
	r->p++;
	if (!strcmp(aug, "eh"))
		rd_bytes(r, 8);
	if (version == 4) {
		addr_size = (uint8_t)rd_bytes(r, 1);
		seg_size = (uint8_t)rd_bytes(r, 1);
	}
	if (!r->bad && ((addr_size != 4 && addr_size != 8) || seg_size)) {
		snprintf(msg, msglen, "%s: the CIE at 0x%zx has address size %u and segment "
			 "selector size %u (4 or 8, and 0, are read)", sec_name(sec), at, addr_size,
			 seg_size);
		return -ENOEXEC;
	}
	c->code_align = rd_uleb(r);
	c->data_align = rd_sleb(r);
	c->ra_reg = version == 1 ? rd_bytes(r, 1) : rd_uleb(r);
	/* without an 'R' augmentation, addresses are absolute, of the CIE's size */
	c->fde_enc = addr_size == 4 ? 0x03 : 0x00;
	if (aug[0] == 'z') {
		uint64_t n = rd_uleb(r);

		c->aug_z = true;
		if (!r->bad && n <= (uint64_t)(r->end - r->p))
			aug_end = r->p + n;
		for (i = 1; aug[i] && aug_end && !r->bad; i++) {
			if (aug[i] == 'R')
				c->fde_enc = (uint8_t)rd_bytes(r, 1);
			else if (aug[i] == 'L')
				rd_bytes(r, 1);
			else if (aug[i] == 'P')
				r->bad |= !skip_ptr(r, (uint8_t)rd_bytes(r, 1));
			else if (aug[i] != 'S' && aug[i] != 'B' && aug[i] != 'G')
				break;	/* unknown: its data is skipped by the length */
		}
		if (aug_end)
			r->p = aug_end;
		else
			r->bad = true;
	} else if (aug[0] && strcmp(aug, "eh")) {
		snprintf(msg, msglen, "%s: the CIE at 0x%zx has augmentation \"%.16s\"",
			 sec_name(sec), at, aug);
		return -ENOEXEC;
	}
	if (r->bad || !c->code_align) {
		snprintf(msg, msglen, "%s: the CIE at 0x%zx is cut short", sec_name(sec), at);
		return -ENOEXEC;
	}
	c->insns = r->p;
	c->insns_end = r->end;
	return 0;
}

static int push_row(struct ehf_table *t, const struct ehf_row *row)
{
	struct ehf_row *n;

	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 1024;

		n = realloc(t->rows, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		t->rows = n;
		t->cap = cap;
	}
	t->rows[t->n++] = *row;
	return 0;
}

static bool fits32(int64_t v)
{
	return v >= INT32_MIN && v <= INT32_MAX && v;
}

/* The state as a row: what the walk needs of it, or EHF_BAD. */
static struct ehf_row row_of(const struct cfa_state *s, const struct machine *m, uint64_t pc)
{
	struct ehf_row row = { .pc = pc, .cfa = EHF_BAD };

	if (s->ra.how == R_UNDEF) {
		row.cfa = EHF_END;
		return row;
	}
	if (s->expr || (s->reg != m->sp && s->reg != m->fp) || s->off < INT32_MIN ||
	    s->off > INT32_MAX)
		return row;
	if (s->ra.how == R_OFFSET && fits32(s->ra.off))
		row.ra_off = (int32_t)s->ra.off;
	else if (!(s->ra.how == R_SAME && m->ra_in_reg))
		return row;
	if (s->fp.how == R_OFFSET && fits32(s->fp.off))
		row.fp_off = (int32_t)s->fp.off;
	else if (s->fp.how != R_SAME && s->fp.how != R_UNDEF)
		return row;
	row.cfa = s->reg == m->sp ? EHF_SP : EHF_FP;
	row.cfa_off = (int32_t)s->off;
	return row;
}

/* A row at pc unless it says what the FDE's last one said; one at the same pc replaced. */
static int emit(struct ehf_table *t, size_t first, const struct cfa_state *s,
		const struct machine *m, uint64_t pc)
{
	struct ehf_row row = row_of(s, m, pc), *last = t->n > first ? &t->rows[t->n - 1] : NULL;

	if (last && last->pc == pc) {
		t->n--;
		last = t->n > first ? &t->rows[t->n - 1] : NULL;
	}
	if (last && last->cfa == row.cfa && last->cfa_off == row.cfa_off &&
	    last->ra_off == row.ra_off && last->fp_off == row.fp_off)
		return 0;
	return push_row(t, &row);
}

/* A factored offset; out of range (a hostile table's) where it overflows: never kept. */
static int64_t scaled(int64_t v, int64_t factor)
{
	int64_t r;

	return __builtin_mul_overflow(v, factor, &r) ? INT64_MIN : r;
}

/* A DWARF expression's block: its length, then its bytes. */
static void skip_block(struct rd *r)
{
	uint64_t n = rd_uleb(r);

	if (r->bad || n > (uint64_t)(r->end - r->p))
		r->bad = true;
	else
		r->p += n;
}

static struct reg_rule *kept(struct cfa_state *s, const struct machine *m, const struct cie *c,
			     uint64_t reg)
{
	return reg == c->ra_reg ? &s->ra : reg == m->fp ? &s->fp : NULL;
}

struct interp {
	struct ehf_table *t;
	size_t first;		/* the FDE's first row */
	const struct machine *m;
	const struct cie *c;
	const struct cfa_state *init;	/* the CIE's state, for DW_CFA_restore */
	uint64_t loc, end;
	struct cfa_state stack[REMEMBER_MAX];
	int depth;
};

/* One register-rule instruction (op with the register decoded); false if unknown. */
static bool reg_op(struct interp *in, struct rd *r, struct cfa_state *s, uint8_t op, uint64_t reg)
{
	struct reg_rule *k = kept(s, in->m, in->c, reg);
	struct reg_rule v = { R_OTHER, 0 };

	switch (op) {
	case 0x05:	/* offset_extended */
	case 0x80:	/* offset */
		v = (struct reg_rule){ R_OFFSET, scaled((int64_t)rd_uleb(r), in->c->data_align) };
		break;
	case 0x11:	/* offset_extended_sf */
		v = (struct reg_rule){ R_OFFSET, scaled(rd_sleb(r), in->c->data_align) };
		break;
	case 0x2f:	/* GNU_negative_offset_extended */
		v = (struct reg_rule){ R_OFFSET, scaled(scaled((int64_t)rd_uleb(r), in->c->data_align), -1) };
		break;
	case 0x06:	/* restore_extended */
	case 0xc0:	/* restore */
		if (k)
			v = *kept((struct cfa_state *)in->init, in->m, in->c, reg);
		break;
	case 0x07:	/* undefined */
		v.how = R_UNDEF;
		break;
	case 0x08:	/* same_value */
		v.how = R_SAME;
		break;
	case 0x09:	/* register */
		rd_uleb(r);
		break;
	case 0x10:	/* expression */
	case 0x16:	/* val_expression */
		skip_block(r);
		break;
	case 0x14:	/* val_offset */
		rd_uleb(r);
		break;
	case 0x15:	/* val_offset_sf */
		rd_sleb(r);
		break;
	default:
		return false;
	}
	if (k)
		*k = v;
	return true;
}

/* One instruction at r; -ENOEXEC for one unknown or cut short. */
static int step(struct interp *in, struct rd *r, struct cfa_state *s)
{
	uint8_t op = (uint8_t)rd_bytes(r, 1), lo = op & 0x3f;
	uint64_t delta = 0, v;
	int err;

	if (op >> 6 == 1) {			/* advance_loc */
		delta = lo;
	} else if (op >> 6 == 2) {		/* offset */
		return reg_op(in, r, s, 0x80, lo) ? 0 : -ENOEXEC;
	} else if (op >> 6 == 3) {		/* restore */
		return reg_op(in, r, s, 0xc0, lo) ? 0 : -ENOEXEC;
	} else {
		switch (op) {
		case 0x00:			/* nop */
		case 0x2d:			/* GNU_window_save, AARCH64_negate_ra_state */
			return 0;
		case 0x01:			/* set_loc */
			if (!rd_ptr(r, in->c->fde_enc, &v) || v < in->loc)
				return -ENOEXEC;
			delta = (v - in->loc) / in->c->code_align;
			break;
		case 0x02: delta = rd_bytes(r, 1); break;	/* advance_loc1 */
		case 0x03: delta = rd_bytes(r, 2); break;
		case 0x04: delta = rd_bytes(r, 4); break;
		case 0x0a:			/* remember_state */
			if (in->depth >= REMEMBER_MAX)
				return -ENOEXEC;
			in->stack[in->depth++] = *s;
			return 0;
		case 0x0b:			/* restore_state: the CFA too, as gcc's unwinder does */
			if (!in->depth)
				return -ENOEXEC;
			*s = in->stack[--in->depth];
			return 0;
		case 0x0c:			/* def_cfa */
			s->reg = rd_uleb(r);
			s->off = (int64_t)rd_uleb(r);
			s->expr = false;
			return 0;
		case 0x12:			/* def_cfa_sf */
			s->reg = rd_uleb(r);
			s->off = scaled(rd_sleb(r), in->c->data_align);
			s->expr = false;
			return 0;
		case 0x0d:			/* def_cfa_register */
			s->reg = rd_uleb(r);
			s->expr = false;
			return 0;
		case 0x0e:			/* def_cfa_offset */
			s->off = (int64_t)rd_uleb(r);
			return 0;
		case 0x13:			/* def_cfa_offset_sf */
			s->off = scaled(rd_sleb(r), in->c->data_align);
			return 0;
		case 0x0f:			/* def_cfa_expression */
			skip_block(r);
			s->expr = true;
			return 0;
		case 0x2e:			/* GNU_args_size */
			rd_uleb(r);
			return 0;
		default:
			return reg_op(in, r, s, op, rd_uleb(r)) ? 0 : -ENOEXEC;
		}
	}
	if (r->bad)
		return -ENOEXEC;
	/* the row so far holds up to here: the next one starts after the advance */
	err = emit(in->t, in->first, s, in->m, in->loc);
	in->loc += delta * in->c->code_align;
	return err;
}

/* The instructions of [p, end) run on s; rows kept only when t is given. */
static int run(struct interp *in, const uint8_t *p, const uint8_t *end, struct cfa_state *s)
{
	struct rd r = { .p = p, .end = end, .start = p };
	int err;

	while (r.p < r.end && in->loc < in->end) {
		err = step(in, &r, s);
		if (err || r.bad)
			return err ? err : -ENOEXEC;
	}
	return 0;
}

/* Whether rows [0, base) (a section's read before, sorted) cover any of [lo, hi). */
static bool covered(const struct ehf_table *t, size_t base, uint64_t lo, uint64_t hi)
{
	const struct ehf_table before = { .rows = t->rows, .n = base };
	const struct ehf_row *r = ehframe_find(&before, lo);
	size_t next = r ? (size_t)(r - t->rows) + 1 : 0;

	return (r && r->cfa != EHF_GAP) || (next < base && t->rows[next].pc < hi);
}

/*
 * One FDE (body [r->p, r->end), its CIE's already read): its rows, then a
 * gap at its end; none where rows [0, base) cover some of it already.
 */
static int fde_read(struct ehf_table *t, size_t base, const struct machine *m,
		    const struct cie *c, struct rd *r)
{
	struct cfa_state init = { .ra = { R_SAME, 0 }, .fp = { R_SAME, 0 } }, s;
	struct interp in = { .t = t, .m = m, .c = c, .init = &init };
	struct ehf_row gap = { .cfa = EHF_GAP };
	uint64_t start, range;
	int err;

	if (!rd_ptr(r, c->fde_enc, &start) || !rd_ptr(r, c->fde_enc & PE_FMT, &range) || r->bad)
		return -ENOEXEC;
	if (c->aug_z)
		skip_block(r);
	if (r->bad)
		return -ENOEXEC;
	/* an empty FDE, as a linker leaves of a discarded function */
	if (!range || start + range < start || covered(t, base, start, start + range))
		return 0;
	/* the CIE's instructions make the initial state, no rows of their own */
	in.loc = 0;
	in.end = 1;
	in.first = SIZE_MAX;
	{
		struct ehf_table none = { 0 };

		in.t = &none;
		err = run(&in, c->insns, c->insns_end, &init);
		free(none.rows);
		if (err)
			return err;
	}
	in.t = t;
	in.first = t->n;
	in.loc = start;
	in.end = start + range;
	in.depth = 0;
	s = init;
	err = run(&in, r->p, r->end, &s);
	if (!err && in.loc < in.end)
		err = emit(t, in.first, &s, m, in.loc);
	if (err)
		return err;
	t->fdes++;
	gap.pc = start + range;
	return push_row(t, &gap);
}

static int row_cmp(const void *a, const void *b)
{
	const struct ehf_row *x = a, *y = b;

	if (x->pc != y->pc)
		return x->pc < y->pc ? -1 : 1;
	/* at one pc, an FDE's start before the end of the one before it */
	return (x->cfa == EHF_GAP) - (y->cfa == EHF_GAP);
}

/* Sorted, one row per pc (the first after sorting), consecutive equal ones merged. */
static void finish(struct ehf_table *t)
{
	size_t i, n = 0;

	if (!t->n)
		return;
	qsort(t->rows, t->n, sizeof(*t->rows), row_cmp);
	for (i = 0; i < t->n; i++) {
		const struct ehf_row *x = &t->rows[i], *l = n ? &t->rows[n - 1] : NULL;

		/* the first at a pc holds, even when merged into the row before */
		if (i && t->rows[i - 1].pc == x->pc)
			continue;
		if (l && l->cfa == x->cfa && l->cfa_off == x->cfa_off && l->ra_off == x->ra_off &&
		    l->fp_off == x->fp_off)
			continue;
		t->rows[n++] = *x;
	}
	t->n = n;
	t->bad = 0;
	for (i = 0; i < n; i++)
		t->bad += t->rows[i].cfa == EHF_BAD;
}

static bool machine_of(unsigned machine, struct machine *m)
{
	if (machine == EM_X86_64)
		*m = (struct machine){ .sp = 7, .fp = 6, .ra = 16 };
	else if (machine == EM_AARCH64)
		*m = (struct machine){ .sp = 31, .fp = 29, .ra = 30, .ra_in_reg = true };
	else
		return false;
	return true;
}

/*
 * An entry's length at r (4 bytes, or 0xffffffff then 8: 64-bit DWARF), r's
 * end set to the entry's; its id's size into *idsz (8 in a 64-bit
 * .debug_frame entry, else 4). false if it runs past the section.
 */
static bool entry_head(struct rd *r, enum ehf_sec sec, uint64_t *length, size_t *idsz)
{
	*length = rd_bytes(r, 4);
	*idsz = 4;
	if (*length == 0xffffffff) {
		*length = rd_bytes(r, 8);
		*idsz = sec == EHF_DEBUG_FRAME ? 8 : 4;
	}
	if (!*length)
		return !r->bad;
	if (r->bad || *length > (uint64_t)(r->end - r->p) || *length < *idsz)
		return false;
	r->end = r->p + *length;
	return true;
}

/* An id that says CIE: 0 in .eh_frame, all ones of its size in .debug_frame. */
static bool is_cie_id(enum ehf_sec sec, uint64_t id, size_t idsz)
{
	if (sec != EHF_DEBUG_FRAME)
		return !id;
	return idsz == 8 ? id == UINT64_MAX : id == 0xffffffff;
}

/*
 * The CIE of the FDE at at (its id field at idat, holding id) into c:
 * .eh_frame's id is the distance back from that field, .debug_frame's an
 * offset from the section's start.
 */
static int fde_cie(const uint8_t *buf, size_t len, uint64_t addr, enum ehf_sec sec, size_t at,
		   size_t idat, uint64_t id, struct cie *c, char *msg, size_t msglen)
{
	struct rd cr = { .end = buf + len, .start = buf, .addr = addr };
	uint64_t cl;
	size_t cie_at, idsz;

	if (sec == EHF_DEBUG_FRAME ? id >= len : id > idat) {
		snprintf(msg, msglen, "%s: the FDE at 0x%zx points outside the section",
			 sec_name(sec), at);
		return -ENOEXEC;
	}
	cie_at = sec == EHF_DEBUG_FRAME ? (size_t)id : idat - id;
	cr.p = buf + cie_at;
	if (!entry_head(&cr, sec, &cl, &idsz) || !cl ||
	    !is_cie_id(sec, rd_bytes(&cr, idsz), idsz) || cr.bad) {
		snprintf(msg, msglen, "%s: the FDE at 0x%zx has no CIE at 0x%zx", sec_name(sec),
			 at, cie_at);
		return -ENOEXEC;
	}
	return cie_read(&cr, sec, c, msg, msglen, cie_at);
}

int ehframe_parse(const uint8_t *buf, size_t len, uint64_t addr, unsigned machine,
		  enum ehf_sec sec, struct ehf_table *t, char *msg, size_t msglen)
{
	size_t off = 0, at, idsz, base = t->n;
	struct machine m;
	uint64_t length, id;
	struct cie c;
	int err;

	if (!machine_of(machine, &m)) {
		snprintf(msg, msglen, "no unwinding for ELF machine %u", machine);
		return -EOPNOTSUPP;
	}
	while (len - off >= 4) {
		struct rd r = { .p = buf + off, .end = buf + len, .start = buf, .addr = addr };

		at = off;
		if (!entry_head(&r, sec, &length, &idsz)) {
			snprintf(msg, msglen, "%s: the entry at 0x%zx runs past the section",
				 sec_name(sec), at);
			return -ENOEXEC;
		}
		if (!length) {
			if (sec != EHF_DEBUG_FRAME)
				break;	/* the terminator */
			off = (size_t)(r.p - buf);	/* padding */
			continue;
		}
		off = (size_t)(r.end - buf);
		id = rd_bytes(&r, idsz);
		if (is_cie_id(sec, id, idsz))
			continue;	/* a CIE: read with each of its FDEs */
		err = fde_cie(buf, len, addr, sec, at, (size_t)(r.p - idsz - buf), id, &c, msg,
			      msglen);
		if (err)
			return err;
		err = fde_read(t, base, &m, &c, &r);
		if (err == -ENOMEM)
			return err;
		if (err) {
			snprintf(msg, msglen, "%s: the FDE at 0x%zx is cut short or has an "
				 "instruction not known", sec_name(sec), at);
			return err;
		}
	}
	finish(t);
	return 0;
}

int ehframe_read(Elf *e, enum ehf_sec sec, struct ehf_table *t, char *msg, size_t msglen)
{
	GElf_Ehdr eh;
	GElf_Shdr sh;
	Elf_Scn *scn;
	Elf_Data *d;

	if (!gelf_getehdr(e, &eh)) {
		snprintf(msg, msglen, "no ELF header");
		return -ENOEXEC;
	}
	scn = kelf_section_named(e, SHT_PROGBITS, sec_name(sec), &sh);
	if (!scn) {
		snprintf(msg, msglen, "no %s", sec_name(sec));
		return -ENOENT;
	}
	/* debug files compress their .debug_* sections (objcopy --compress-debug-sections) */
	if ((sh.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0) {
		snprintf(msg, msglen, "%s cannot be decompressed: %s", sec_name(sec),
			 elf_errmsg(-1));
		return -ENOEXEC;
	}
	d = sh.sh_flags & SHF_COMPRESSED ? elf_getdata(scn, NULL) : elf_rawdata(scn, NULL);
	if (!d || !d->d_buf || eh.e_ident[EI_DATA] != ELFDATA2LSB ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64) {
		snprintf(msg, msglen, "%s cannot be read (or not a 64-bit little-endian ELF)",
			 sec_name(sec));
		return -ENOEXEC;
	}
	return ehframe_parse(d->d_buf, d->d_size, sh.sh_addr, eh.e_machine, sec, t, msg, msglen);
}

uint64_t ehframe_covered(const struct ehf_table *t, uint64_t lo, uint64_t hi)
{
	uint64_t sum = 0, a, b;
	size_t i;

	for (i = 0; i < t->n; i++) {
		if (t->rows[i].cfa == EHF_GAP)
			continue;
		a = t->rows[i].pc > lo ? t->rows[i].pc : lo;
		b = i + 1 < t->n && t->rows[i + 1].pc < hi ? t->rows[i + 1].pc : hi;
		if (b > a)
			sum += b - a;
	}
	return sum;
}

const struct ehf_row *ehframe_find(const struct ehf_table *t, uint64_t pc)
{
	size_t lo = 0, hi = t->n;

	/* the last row at or before pc */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->rows[mid].pc <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &t->rows[lo - 1] : NULL;
}

void ehframe_free(struct ehf_table *t)
{
	free(t->rows);
	memset(t, 0, sizeof(*t));
}
