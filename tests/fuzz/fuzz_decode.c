// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer harness for stages 7 and 8: arbitrary records against arbitrary
 * probe layouts. decode_check() must accept exactly the records output.h
 * calls valid, and output_text() / output_json() must then print them
 * without reading outside the record (the record is copied into a buffer of
 * exactly its length, so ASan sees any stray read) and, for JSON, print one
 * well-formed object (RFC 8259, valid UTF-8) and a newline. A rejected
 * record makes both printers return -EINVAL and print nothing.
 *
 * Input layout (all little-endian):
 *
 *   0   u8  flags  bits 0-2  kind: 0 kprobe, 1 kretprobe, 2 uprobe,
 *                            3 uretprobe, 4 tracepoint, 5-7 kprobe
 *                  bit 3     symbolize with the fake kallsyms (else ksyms NULL)
 *                  bit 4     raw layout: types, counts, sizes, slots and
 *                            fixed_size as given (else packed as compile.c
 *                            packs them, with the types' own sizes)
 *                  bit 5     record header as given (else kind, probe and
 *                            size are made right)
 *                  bit 6     ev->index = -1 (records of any probe)
 *                  bit 7     is_return
 *   1   u8  nargs
 *   2   u16 fixed_size  (raw layout only)
 *   4   u64 addr        (ev->addr; ev->uaddr for uprobes)
 *   12  nargs x 5 bytes: type, count, size, slot (u16)
 *           type: bit 7 an immediate string (ev_arg.data, nothing recorded),
 *                 bits 0-4 the type (auto: 1 + n % 17; raw: n % 18, 0 = none)
 *           count: auto: bit 7 set means an array of (n & 0x7f) % 65; raw: as is
 *           size:  auto: 0 the type's slot size, else 1 << (n & 3); raw: as is
 *           slot:  raw only
 *   then the record, header first (struct kpt_rec_hdr).
 *
 * tests/fuzz/seed.py writes seeds in this layout.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* open_memstream() */
#endif
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kptrace.h"
#include "out/output.h"
#include "fuzz_common.h"

#define F_KIND		0x07
#define F_KSYMS		0x08
#define F_RAW		0x10
#define F_HDR_ASIS	0x20
#define F_ANY_PROBE	0x40
#define F_RETURN	0x80
#define LAYOUT_HDR	12
#define LAYOUT_ARG	5
#define PROBE_INDEX	3

/* test_ksyms.c's and test_output.c's made-up kallsyms, together. */
static const char fake_kallsyms[] =
	"0000000000000000 A fixed_percpu_data\n"
	"0000000000002000 D per_cpu_var\n"
	"ffffffff81000000 T _stext\n"
	"ffffffff81000000 T _text\n"
	"ffffffff81000100 T do_sys_openat2\n"
	"ffffffff810001e0 t helper\n"
	"ffffffff810001e0 t helper_alias\n"
	"ffffffff81000300 t dup\n"
	"ffffffff81000380 t dup\n"
	"ffffffff81000400 T __kretprobe_trampoline\n"
	"ffffffff81000410 T after_trampoline\n"
	"ffffffff81000500 D some_data\n"
	"this line is garbage\n"
	"ffffffff81000600 X\n"
	"\n"
	"ffffffff81001000 B _end\n"
	"ffffffffc0001080 t mod_func2\t[mymod]\n"
	"ffffffffc0001000 t mod_func\t[mymod]\n"
	"ffffffffc00010c0 d mod_data\t[mymod]\n"
	"ffffffffc0002000 t other_func\t[othermod]\n"
	"ffffffffc0002040 t do_sys_openat2\t[othermod]\n"
	"ffffffffc0003000 t bpf_prog_abc_foo\t[bpf]\n"
	"ffffffffc0004000 t ftrace_trampoline\t[__builtin__ftrace]\n";

static struct ksyms *ks;
/* KPT_FUZZ_VERBOSE=1: print each input's verdict and output to stderr (seed checks) */
static bool verbose;

/* Immediate strings and argument names, some needing JSON escapes. */
static const char *const imm_data[] = { "hello", "q\"uo\\te", "ctl\x01\x1f\x7f", "\xc3\xa9\xff" };
static const char *const odd_names[] = { "na\"me", "back\\slash", "ctl\x01", "utf8_\xc3\xa9",
					 "bad_\xff", "" };

static int slot_size(enum spec_type t)
{
	return t == SPEC_T_SYMSTR ? 8 : spec_type_size(t);
}

/* ---- the record's validity, as output.h and ARCHITECTURE.md state it ---- */

static bool is_data_loc(const struct ev_arg *a)
{
	return !a->data && (a->type == SPEC_T_STRING || a->type == SPEC_T_USTRING ||
			    (a->type == SPEC_T_SYMSTR && a->size == 4));
}

static bool ref_valid(const struct ev_desc *ev, const uint8_t *r, size_t len)
{
	struct kpt_rec_hdr h;
	size_t first, n, e, end;
	int i;

	if (len < KPT_HDR_SIZE || ev->nargs < 0 || ev->nargs > KPT_MAX_ARGS)
		return false;
	memcpy(&h, r, sizeof(h));
	/* the harness's probes take no stacks: a record with any is malformed */
	if (h.size != len || h.kind != KPT_REC_EVENT || h.nkstack || h.nustack ||
	    (ev->index >= 0 && h.probe != (unsigned int)ev->index))
		return false;
	first = KPT_HDR_SIZE + ((size_t)ev->nargs + 7) / 8;
	if (ev->fixed_size < first || len < ev->fixed_size)
		return false;
	end = ev->fixed_size;	/* strings: back to back after the slots, in order */
	for (i = 0; i < ev->nargs; i++) {
		const struct ev_arg *a = &ev->args[i];

		if (a->data)
			continue;
		if (a->size != 1 && a->size != 2 && a->size != 4 && a->size != 8)
			return false;
		if (a->count > KPT_MAX_ARRAY)
			return false;
		n = a->count ? a->count : 1;
		if (a->slot < first || a->slot + n * a->size > ev->fixed_size)
			return false;
		if (!is_data_loc(a))
			continue;
		if (a->size != 4)
			return false;
		for (e = 0; e < n; e++) {
			uint32_t dl, l, off;

			memcpy(&dl, r + a->slot + 4 * e, 4);
			l = dl >> 16;
			off = dl & 0xffff;
			if (!l)
				continue;
			if (off != end || off + l > len || r[off + l - 1])
				return false;
			for (size_t k = 0; k + 1 < l; k++)
				if (!r[off + k])
					return false;	/* a byte past a terminator */
			end += l;
		}
	}
	return end == len;
}

/* ---- a strict JSON checker: one object, then "\n", then nothing ---- */

struct js {
	const unsigned char *p, *e;
	int depth;
};

static bool js_ws(struct js *j)
{
	while (j->p < j->e && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
		j->p++;
	return true;
}

static bool js_lit(struct js *j, const char *s)
{
	size_t n = strlen(s);

	if ((size_t)(j->e - j->p) < n || memcmp(j->p, s, n))
		return false;
	j->p += n;
	return true;
}

static bool js_hex4(struct js *j, unsigned int *v)
{
	int i;

	*v = 0;
	for (i = 0; i < 4; i++, j->p++) {
		unsigned char c;

		if (j->p >= j->e)
			return false;
		c = *j->p;
		*v <<= 4;
		if (c >= '0' && c <= '9')
			*v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			*v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			*v |= c - 'A' + 10;
		else
			return false;
	}
	return true;
}

/* One UTF-8 sequence (RFC 3629) at j->p, past its first byte c. */
static bool js_utf8(struct js *j, unsigned char c)
{
	unsigned int cp, min, n, i;

	if (c >= 0xc2 && c <= 0xdf) {
		n = 1, cp = c & 0x1f, min = 0x80;
	} else if ((c & 0xf0) == 0xe0) {
		n = 2, cp = c & 0x0f, min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 3, cp = c & 0x07, min = 0x10000;
	} else {
		return false;
	}
	if ((size_t)(j->e - j->p) < n)
		return false;
	for (i = 0; i < n; i++) {
		if ((j->p[i] & 0xc0) != 0x80)
			return false;
		cp = cp << 6 | (j->p[i] & 0x3f);
	}
	j->p += n;
	return cp >= min && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff);
}

static bool js_string(struct js *j)
{
	unsigned int v;

	if (j->p >= j->e || *j->p != '"')
		return false;
	j->p++;
	while (j->p < j->e) {
		unsigned char c = *j->p++;

		if (c == '"')
			return true;
		if (c < 0x20)
			return false;
		if (c == '\\') {
			if (j->p >= j->e)
				return false;
			c = *j->p++;
			if (c == 'u') {
				if (!js_hex4(j, &v))
					return false;
				/* a lone surrogate is not a character */
				if (v >= 0xdc00 && v <= 0xdfff)
					return false;
				if (v >= 0xd800 && v <= 0xdbff &&
				    (!js_lit(j, "\\u") || !js_hex4(j, &v) || v < 0xdc00 || v > 0xdfff))
					return false;
			} else if (!strchr("\"\\/bfnrt", c)) {
				return false;
			}
		} else if (c >= 0x80 && !js_utf8(j, c)) {
			return false;
		}
	}
	return false;
}

static bool js_digits(struct js *j)
{
	const unsigned char *s = j->p;

	while (j->p < j->e && *j->p >= '0' && *j->p <= '9')
		j->p++;
	return j->p > s;
}

static bool js_number(struct js *j)
{
	if (j->p < j->e && *j->p == '-')
		j->p++;
	if (j->p < j->e && *j->p == '0')
		j->p++;
	else if (!(j->p < j->e && *j->p >= '1' && *j->p <= '9') || !js_digits(j))
		return false;
	if (j->p < j->e && *j->p == '.') {
		j->p++;
		if (!js_digits(j))
			return false;
	}
	if (j->p < j->e && (*j->p == 'e' || *j->p == 'E')) {
		j->p++;
		if (j->p < j->e && (*j->p == '+' || *j->p == '-'))
			j->p++;
		if (!js_digits(j))
			return false;
	}
	return true;
}

static bool js_value(struct js *j);

static bool js_members(struct js *j, bool object)
{
	char close = object ? '}' : ']';

	j->p++;
	if (++j->depth > 64)
		return false;
	js_ws(j);
	if (j->p < j->e && *j->p == close) {
		j->p++;
		j->depth--;
		return true;
	}
	for (;;) {
		js_ws(j);
		if (object) {
			if (!js_string(j))
				return false;
			js_ws(j);
			if (j->p >= j->e || *j->p++ != ':')
				return false;
		}
		if (!js_value(j))
			return false;
		js_ws(j);
		if (j->p >= j->e)
			return false;
		if (*j->p == ',') {
			j->p++;
			continue;
		}
		if (*j->p++ != close)
			return false;
		j->depth--;
		return true;
	}
}

static bool js_value(struct js *j)
{
	js_ws(j);
	if (j->p >= j->e)
		return false;
	switch (*j->p) {
	case '{':
		return js_members(j, true);
	case '[':
		return js_members(j, false);
	case '"':
		return js_string(j);
	case 't':
		return js_lit(j, "true");
	case 'f':
		return js_lit(j, "false");
	case 'n':
		return js_lit(j, "null");
	default:
		return js_number(j);
	}
}

static void check_json(const char *out, size_t n)
{
	struct js j = { (const unsigned char *)out, (const unsigned char *)out + n, 0 };

	FUZZ_CHECK(n >= 3 && out[0] == '{', "JSON output doesn't start an object: %.*s",
		   (int)(n < 200 ? n : 200), out);
	FUZZ_CHECK(js_value(&j), "malformed JSON at byte %zu of %zu: %.*s", (size_t)(j.p -
		   (const unsigned char *)out), n, (int)(n < 2000 ? n : 2000), out);
	FUZZ_CHECK(j.p + 1 == j.e && *j.p == '\n', "JSON object not followed by exactly one "
		   "newline (%zu bytes left)", (size_t)(j.e - j.p));
}

/* ---- the harness ---- */

static void build_desc(struct ev_desc *ev, const uint8_t *lay, uint8_t flags)
{
	static const enum spec_kind kinds[] = {
		SPEC_KPROBE, SPEC_KRETPROBE, SPEC_UPROBE, SPEC_URETPROBE, SPEC_TRACEPOINT,
		SPEC_KPROBE, SPEC_KPROBE, SPEC_KPROBE,
	};
	bool raw = flags & F_RAW;
	unsigned int pos;
	uint64_t addr;
	uint16_t fixed;
	int i;

	ev->kind = kinds[flags & F_KIND];
	ev->is_return = flags & F_RETURN;
	ev->is_user = ev->kind == SPEC_UPROBE || ev->kind == SPEC_URETPROBE;
	ev->index = flags & F_ANY_PROBE ? -1 : PROBE_INDEX;
	memcpy(&fixed, lay + 2, 2);
	memcpy(&addr, lay + 4, 8);
	ev->addr = addr;
	ev->uaddr = addr;
	ev->uoffset = addr >> 1;
	ev->path = NULL;	/* umaps: no /proc lookups from a fuzzer */
	snprintf(ev->group, sizeof(ev->group), "%s", ev->kind == SPEC_TRACEPOINT ? "kmem" :
		 "fuzz\"grp");
	snprintf(ev->event, sizeof(ev->event), "fuzz_event");
	snprintf(ev->func, sizeof(ev->func), "do_sys_openat2");

	pos = KPT_HDR_SIZE + (ev->nargs + 7) / 8;
	for (i = 0; i < ev->nargs; i++) {
		const uint8_t *b = lay + LAYOUT_HDR + LAYOUT_ARG * i;
		struct ev_arg *a = &ev->args[i];

		memset(a, 0, sizeof(*a));
		if (i % 7 == 3)
			snprintf(a->name, sizeof(a->name), "%s",
				 odd_names[(i / 7) % (sizeof(odd_names) / sizeof(odd_names[0]))]);
		else
			snprintf(a->name, sizeof(a->name), "a%d", i);
		if (b[0] & 0x80)
			a->data = imm_data[(b[0] >> 5) & 3];
		if (raw) {
			a->type = (enum spec_type)((b[0] & 0x1f) % SPEC_T__COUNT);
			a->count = b[1];
			a->size = b[2];
			a->slot = (uint16_t)(b[3] | b[4] << 8);
			continue;
		}
		a->type = (enum spec_type)(1 + (b[0] & 0x1f) % (SPEC_T__COUNT - 1));
		a->count = b[1] & 0x80 ? (b[1] & 0x7f) % (KPT_MAX_ARRAY + 1) : 0;
		a->size = b[2] ? 1u << (b[2] & 3) : (uint8_t)slot_size(a->type);
		if (a->data)
			continue;
		a->slot = (uint16_t)pos;
		pos += a->size * (a->count ? a->count : 1);
	}
	ev->fixed_size = raw ? fixed : (uint16_t)(pos > 0xffff ? 0xffff : pos);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char path[] = "/tmp/kpt_fuzz_kallsyms_XXXXXX";
	size_t n = strlen(fake_kallsyms);
	int fd;

	(void)argc;
	(void)argv;
	fd = mkstemp(path);
	if (fd < 0 || write(fd, fake_kallsyms, n) != (ssize_t)n) {
		perror("mkstemp/write");
		exit(2);
	}
	close(fd);
	ks = ksyms_load(path);
	unlink(path);
	if (!ks) {
		perror("ksyms_load");
		exit(2);
	}
	fuzz_devnull();
	verbose = getenv("KPT_FUZZ_VERBOSE") != NULL;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct ksyms *k;
	struct ev_desc ev;
	size_t laylen, len, jn = 0;
	uint8_t flags, *rec;
	char *json = NULL;
	bool valid;
	FILE *jf;
	int rc;

	if (size < LAYOUT_HDR)
		return 0;
	flags = data[0];
	memset(&ev, 0, sizeof(ev));
	ev.nargs = data[1];
	laylen = LAYOUT_HDR + (size_t)LAYOUT_ARG * ev.nargs;
	if (size < laylen)
		return 0;
	/* exactly sized, like the record: an index past nargs is caught */
	ev.args = ev.nargs ? malloc(sizeof(*ev.args) * ev.nargs) : NULL;
	build_desc(&ev, data, flags);
	k = flags & F_KSYMS ? ks : NULL;

	len = size - laylen;
	rec = malloc(len ? len : 1);
	if (!rec) {
		free(ev.args);
		return 0;
	}
	memcpy(rec, data + laylen, len);
	if (!(flags & F_HDR_ASIS) && len >= KPT_HDR_SIZE) {
		struct kpt_rec_hdr h;

		memcpy(&h, rec, sizeof(h));
		h.kind = KPT_REC_EVENT;
		if (ev.index >= 0)
			h.probe = (uint16_t)ev.index;
		h.size = (uint32_t)len;
		memcpy(rec, &h, sizeof(h));
	}

	valid = ref_valid(&ev, rec, len);
	rc = decode_check(&ev, rec, len);
	FUZZ_CHECK(rc == 0 || rc == -EINVAL, "decode_check returned %d", rc);
	FUZZ_CHECK(!rc == valid, "decode_check says %d, the record is %svalid", rc,
		   valid ? "" : "in");

	jf = open_memstream(&json, &jn);
	FUZZ_CHECK(jf, "open_memstream");
	if (rc == 0) {
		FUZZ_CHECK(output_text(fuzz_devnull(), &ev, k, rec, len) == 0, "output_text failed");
		FUZZ_CHECK(output_json(jf, &ev, k, rec, len) == 0, "output_json failed");
		fclose(jf);
		check_json(json, jn);
		if (verbose) {
			fprintf(stderr, "valid (%d args, %zu bytes):\n", ev.nargs, len);
			output_text(stderr, &ev, k, rec, len);
			fprintf(stderr, "%s", json);
		}
	} else {
		FUZZ_CHECK(output_text(fuzz_devnull(), &ev, k, rec, len) == -EINVAL,
			   "output_text printed a rejected record");
		FUZZ_CHECK(output_json(jf, &ev, k, rec, len) == -EINVAL,
			   "output_json printed a rejected record");
		fclose(jf);
		FUZZ_CHECK(jn == 0, "output_json wrote %zu bytes for a rejected record", jn);
		if (verbose)
			fprintf(stderr, "rejected (%d args, %zu bytes)\n", ev.nargs, len);
	}
	free(json);
	free(rec);
	free(ev.args);
	return 0;
}
