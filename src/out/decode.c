// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Check a record from the ring buffer against its probe's ev_desc
 * and read values out of it. Records come from a BPF program we wrote, but
 * they are still checked in full once, in decode_check(), so that the
 * printers can index them without further bounds checks.
 */
#include <errno.h>
#include <string.h>

#include "lang/valfmt.h"
#include "out/output.h"
#include "kptrace.h"

static size_t bitmap_bytes(const struct ev_desc *ev)
{
	return ((size_t)ev->nargs + 7) / 8;
}

/*
 * String and ustring slots hold ftrace's data_loc. A symstr slot holds the
 * raw address (8 bytes) that userspace symbolizes; a 4-byte symstr slot
 * would be a data_loc, so size decides.
 */
static uint32_t get_u32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

int decode_check(const struct ev_desc *ev, const void *rec, size_t len)
{
	const unsigned char *r = rec;
	struct kpt_rec_hdr h;
	size_t fixed, first_slot, end, stacks;
	uint32_t e, n, dl, l, off;
	int i;

	if (!ev || !rec || len < KPT_HDR_SIZE || ev->nargs < 0 || ev->nargs > KPT_MAX_ARGS)
		return -EINVAL;
	memcpy(&h, rec, sizeof(h));
	if (h.size != len || h.kind != KPT_REC_EVENT)
		return -EINVAL;
	/* the stacks are the record's end, and only a probe that takes them has any */
	if ((h.nkstack && !ev->kstack) || (h.nustack && !ev->ustack) ||
	    h.nkstack > KPT_STACK_MAX || h.nustack > KPT_STACK_MAX)
		return -EINVAL;
	stacks = (size_t)h.nkstack * KPT_KFRAME_SIZE + (size_t)h.nustack * KPT_UFRAME_SIZE;
	if (stacks > len)
		return -EINVAL;
	len -= stacks;
	if (ev->index >= 0 && h.probe != (unsigned int)ev->index)
		return -EINVAL;
	fixed = ev->fixed_size;
	first_slot = KPT_HDR_SIZE + bitmap_bytes(ev);
	if (fixed < first_slot || len < fixed)
		return -EINVAL;
	/* the strings follow the slots back to back, in argument order: the
	 * record ends with the last one, nothing after or between them */
	end = fixed;

	for (i = 0; i < ev->nargs; i++) {
		const struct ev_arg *a = &ev->args[i];

		if (a->data)
			continue;
		if (a->size != 1 && a->size != 2 && a->size != 4 && a->size != 8)
			return -EINVAL;
		if (a->count > KPT_MAX_ARRAY)
			return -EINVAL;
		n = a->count ? a->count : 1;
		/* the desc itself: slots inside the fixed part */
		if (a->slot < first_slot || a->slot + (size_t)n * a->size > fixed)
			return -EINVAL;
		if (!ev_arg_is_data_loc(a))
			continue;
		if (a->size != 4)
			return -EINVAL;
		for (e = 0; e < n; e++) {
			dl = get_u32(r + a->slot + 4 * e);
			l = dl >> 16;
			off = dl & 0xffff;
			if (dl == KPT_DL_END && a->null_end) {
				/* past a NULL-terminated array's end: nothing after it */
				while (++e < n)
					if (get_u32(r + a->slot + 4 * e) != KPT_DL_END)
						return -EINVAL;
				break;
			}
			if (!l)
				continue;	/* ftrace's (fault); its offset means nothing */
			if (off != end || (size_t)off + l > len || r[off + l - 1] != '\0' ||
			    memchr(r + off, '\0', l - 1))
				return -EINVAL;	/* a gap, an overlap, or bytes past the terminator */
			end += l;
		}
	}
	return end == len ? 0 : -EINVAL;
}

void decode_stacks(const void *rec, size_t len, struct dec_stacks *st)
{
	const unsigned char *r = rec;
	struct kpt_rec_hdr h;

	memcpy(&h, rec, sizeof(h));
	st->nk = h.nkstack;
	st->nu = h.nustack;
	st->u = r + len - (size_t)st->nu * KPT_UFRAME_SIZE;
	st->k = st->u - (size_t)st->nk * KPT_KFRAME_SIZE;
}

uint32_t decode_count(const struct ev_arg *a, const void *rec)
{
	const unsigned char *r = rec;
	uint32_t e;

	if (!ev_arg_is_data_loc(a) || !a->null_end)
		return a->count;
	for (e = 0; e < a->count; e++)
		if (get_u32(r + a->slot + 4 * e) == KPT_DL_END)
			break;
	return e;
}

bool decode_faulted(const struct ev_desc *ev, const void *rec, int argi)
{
	const unsigned char *r = rec;

	if (!ev || argi < 0 || argi >= ev->nargs)
		return false;
	return r[KPT_HDR_SIZE + argi / 8] & (1u << (argi % 8));
}

struct dec_val decode_scalar(const struct ev_arg *a, const void *rec, uint32_t elem)
{
	const unsigned char *p = (const unsigned char *)rec + a->slot + (size_t)elem * a->size;
	struct dec_val v = { 0, 0 };
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;

	switch (a->size) {
	case 1:
		memcpy(&u8, p, 1);
		v.u = u8;
		v.s = (int8_t)u8;
		break;
	case 2:
		memcpy(&u16, p, 2);
		v.u = u16;
		v.s = (int16_t)u16;
		break;
	case 4:
		memcpy(&u32, p, 4);
		v.u = u32;
		v.s = (int32_t)u32;
		break;
	case 8:
		memcpy(&u64, p, 8);
		v.u = u64;
		v.s = (int64_t)u64;
		break;
	}
	return v;
}

size_t decode_ipv6(const struct ev_arg *a, const void *rec, char *buf, size_t len)
{
	uint8_t b[VALFMT_IPV6_LEN];

	if (a->count != VALFMT_IPV6_LEN || a->size != 1)
		return 0;
	memcpy(b, (const unsigned char *)rec + a->slot, sizeof(b));
	return valfmt_ipv6(b, buf, len);
}

const char *decode_string(const struct ev_arg *a, const void *rec, size_t len, uint32_t elem,
			  size_t *slen)
{
	const unsigned char *r = rec;
	uint32_t dl, l, off;

	*slen = 0;
	if ((size_t)a->slot + 4 * ((size_t)elem + 1) > len)
		return NULL;
	dl = get_u32(r + a->slot + 4 * elem);
	l = dl >> 16;
	off = dl & 0xffff;
	/* rechecked here too: this is cheap and keeps callers honest */
	if (!l || (size_t)off + l > len || r[off + l - 1] != '\0')
		return NULL;
	/* ftrace prints with "%s": the string ends at its first NUL */
	*slen = strnlen((const char *)r + off, l - 1);
	return (const char *)r + off;
}
