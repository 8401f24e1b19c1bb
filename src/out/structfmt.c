// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A whole struct printed from BTF (structfmt.h). */
#include <string.h>
#include <bpf/btf.h>

#include "out/structfmt.h"
#include "sys/btfwalk.h"
#include "util/json.h"

struct sf {
	struct outbuf *ob;
	const struct btf *btf;
	const unsigned char *data;
	size_t len;
	bool json;
	uint32_t cut;
};

static void value(struct sf *f, uint32_t id, size_t off, uint32_t bitoff, uint32_t bits,
		  int depth);

/* bits bits at bit bitoff of the bytes at off (little-endian), at most 64. */
static uint64_t get_bits(const struct sf *f, size_t off, uint32_t bitoff, uint32_t bits)
{
	uint64_t v = 0;
	size_t n = (bitoff + bits + 7) / 8, i;

	for (i = 0; i < n && i < 8; i++)
		v |= (uint64_t)f->data[off + i] << (8 * i);
	v >>= bitoff;
	return bits < 64 ? v & ((1ull << bits) - 1) : v;
}

static void put_name(struct sf *f, const char *name)
{
	if (f->json) {
		json_ob_str(f->ob, name, strlen(name));
		ob_char(f->ob, ':');
	} else {
		ob_char(f->ob, '.');
		ob_str(f->ob, name);
		ob_char(f->ob, '=');
	}
}

static void put_hex(struct sf *f, uint64_t v)
{
	if (f->json)
		ob_char(f->ob, '"');
	ob_hex(f->ob, v);
	if (f->json)
		ob_char(f->ob, '"');
}

static void put_int(struct sf *f, const struct btf_type *t, uint64_t v, uint32_t bits)
{
	bool sgn = btf_is_int(t) && (btf_int_encoding(t) & BTF_INT_SIGNED);

	if (sgn && bits < 64 && (v >> (bits - 1)) & 1)
		v |= ~0ull << bits;	/* sign-extended */
	if (btf_is_int(t) && (btf_int_encoding(t) & BTF_INT_BOOL))
		ob_str(f->ob, v ? "true" : "false");
	else if (sgn)
		ob_s64(f->ob, (int64_t)v);
	else
		ob_u64(f->ob, v);
}

/* An enum's value by its name where it has one, else the number. */
static void put_enum(struct sf *f, const struct btf_type *t, uint64_t v)
{
	int i, n = btf_vlen(t);
	int64_t sv = t->size < 8 && btf_kflag(t) && (v >> (t->size * 8 - 1)) & 1 ?
		     (int64_t)(v | ~0ull << (t->size * 8)) : (int64_t)v;

	for (i = 0; i < n; i++) {
		uint64_t ev = btf_is_enum(t) ? (uint64_t)(int64_t)btf_enum(t)[i].val :
			      btf_enum64_value(btf_enum64(t) + i);
		uint32_t no = btf_is_enum(t) ? btf_enum(t)[i].name_off :
			      btf_enum64(t)[i].name_off;

		if (ev == v || (int64_t)ev == sv || (btf_is_enum(t) && (uint32_t)ev == v)) {
			const char *nm = btf__name_by_offset(f->btf, no);

			if (f->json)
				json_ob_str(f->ob, nm, strlen(nm));
			else
				ob_str(f->ob, nm);
			return;
		}
	}
	ob_s64(f->ob, sv);
}

static bool is_char(const struct btf *btf, uint32_t id)
{
	const struct btf_type *t = btf__type_by_id(btf, btfwalk_skip_mods(btf, id));

	return t && btf_is_int(t) && t->size == 1;
}

static void array(struct sf *f, const struct btf_type *t, size_t off, int depth)
{
	const struct btf_array *a = btf_array(t);
	uint32_t eid = btfwalk_skip_mods(f->btf, a->type), i, n = a->nelems;
	int64_t esz = btf__resolve_size(f->btf, eid);

	if (is_char(f->btf, a->type)) {
		/* a char array: the string up to its NUL, as :string prints it */
		size_t m = strnlen((const char *)f->data + off, n);

		if (f->json) {
			json_ob_str(f->ob, (const char *)f->data + off, m);
		} else {
			ob_char(f->ob, '"');
			ob_mem(f->ob, f->data + off, m);
			ob_char(f->ob, '"');
		}
		return;
	}
	ob_char(f->ob, '[');
	for (i = 0; i < n && esz > 0; i++) {
		if (i == STRUCTFMT_ELEMS) {
			f->cut += n - i;
			if (!f->json)
				ob_str(f->ob, ", ...");
			break;
		}
		if (i)
			ob_str(f->ob, f->json ? "," : ", ");
		value(f, eid, off + i * (size_t)esz, 0, 0, depth);
	}
	ob_char(f->ob, ']');
}

/* The members of struct or union t at off, into the braces open. first: none printed yet. */
static void members(struct sf *f, const struct btf_type *t, size_t off, int depth, bool *first)
{
	const struct btf_member *m = btf_members(t);
	int i, n = btf_vlen(t);

	for (i = 0; i < n; i++, m++) {
		const char *nm = btf__name_by_offset(f->btf, m->name_off);
		uint32_t bitoff = btf_member_bit_offset(t, i);
		uint32_t bits = btf_member_bitfield_size(t, i);
		uint32_t mid = btfwalk_skip_mods(f->btf, m->type);
		int64_t sz = btf__resolve_size(f->btf, mid);
		size_t moff = off + bitoff / 8;

		/* past the bytes read: left out, counted */
		if (sz < 0 || moff + (bits ? (bitoff % 8 + bits + 7) / 8 : (size_t)sz) > f->len) {
			f->cut++;
			continue;
		}
		if (!nm || !*nm) {
			/* an anonymous struct or union: its members are the outer's */
			const struct btf_type *mt = btf__type_by_id(f->btf, mid);

			if (mt && (btf_is_struct(mt) || btf_is_union(mt))) {
				members(f, mt, moff, depth, first);
				continue;
			}
		}
		if (!*first)
			ob_str(f->ob, f->json ? "," : ", ");
		*first = false;
		put_name(f, nm && *nm ? nm : "?");
		value(f, mid, moff, bits ? bitoff % 8 : 0, bits, depth);
	}
}

static void value(struct sf *f, uint32_t id, size_t off, uint32_t bitoff, uint32_t bits,
		  int depth)
{
	const struct btf_type *t = btf__type_by_id(f->btf, btfwalk_skip_mods(f->btf, id));
	bool first = true;

	if (!t) {
		ob_str(f->ob, f->json ? "null" : "?");
		return;
	}
	if (btf_is_struct(t) || btf_is_union(t)) {
		if (depth <= 0) {
			/* past the depth: not expanded */
			ob_str(f->ob, f->json ? "{}" : "{...}");
			return;
		}
		ob_char(f->ob, '{');
		members(f, t, off, depth - 1, &first);
		ob_char(f->ob, '}');
	} else if (btf_is_array(t)) {
		array(f, t, off, depth);
	} else if (btf_is_ptr(t)) {
		put_hex(f, get_bits(f, off, 0, 64));
	} else if (btf_is_any_enum(t)) {
		put_enum(f, t, get_bits(f, off, bitoff, bits ? bits : t->size * 8));
	} else if (btf_is_int(t) && t->size <= 8) {
		put_int(f, t, get_bits(f, off, bitoff, bits ? bits : t->size * 8),
			bits ? bits : t->size * 8);
	} else {
		/* a float, a 128-bit integer, a function: not printed */
		ob_str(f->ob, f->json ? "null" : "?");
	}
}

uint32_t structfmt(struct outbuf *ob, const struct btf *btf, uint32_t id, const void *data,
		   size_t len, int depth, bool json)
{
	struct sf f = { ob, btf, data, len, json, 0 };
	const struct btf_type *t = btf__type_by_id(btf, btfwalk_skip_mods(btf, id));
	bool first = true;

	if (!t || (!btf_is_struct(t) && !btf_is_union(t))) {
		value(&f, id, 0, 0, 0, depth);
		return f.cut;
	}
	ob_char(ob, '{');
	members(&f, t, 0, depth, &first);
	if (f.cut) {
		/* what was left out, counted where it would have been */
		if (!first)
			ob_str(ob, json ? "," : ", ");
		ob_str(ob, json ? "\"...\":" : "...");
		ob_u64(ob, f.cut);
		if (!json)
			ob_str(ob, " cut");
	}
	ob_char(ob, '}');
	return f.cut;
}
