// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The hand-written formatting of src/util/fmt.c against the C library: every
 * writer compared with snprintf() for its conversion over edge values (0,
 * each power of two and of ten and their neighbours, the limits of every
 * width, INT64_MIN) and random values of every bit length, at every width
 * and flag combination; the line buffer against what was put into it; and
 * output_text()/output_json() against the printf()-based printers they
 * replaced (ref_output.h) on random records of every type, kind and corner:
 * special bytes in strings and comm, arrays, faults, symbols, immediates,
 * lines longer than the buffer.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "util/fmt.h"
#include "kptrace.h"
#include "out/output.h"
#include "ref_output.h"

#define NARGS(a)	((int)(sizeof(a) / sizeof((a)[0])))

static uint64_t rnd_state = 0x9e3779b97f4a7c15ull;

/* xorshift64*: deterministic, so a failure reproduces */
static uint64_t rnd(void)
{
	rnd_state ^= rnd_state >> 12;
	rnd_state ^= rnd_state << 25;
	rnd_state ^= rnd_state >> 27;
	return rnd_state * 0x2545f4914f6cdd1dull;
}

static unsigned int rnd_below(unsigned int n)
{
	return (unsigned int)(rnd() % n);
}

/* Edge values: 0, powers of two and ten with neighbours, every type's limits. */
static size_t edge_values(uint64_t *v, size_t max)
{
	static const uint64_t limits[] = {
		0, 1, INT8_MAX, (uint64_t)INT8_MIN, UINT8_MAX, INT16_MAX, (uint64_t)INT16_MIN,
		UINT16_MAX, INT32_MAX, (uint64_t)INT32_MIN, UINT32_MAX, INT64_MAX,
		(uint64_t)INT64_MIN, UINT64_MAX,
	};
	uint64_t p10 = 1;
	size_t n = 0, i;
	int b, d;

	for (i = 0; i < sizeof(limits) / sizeof(limits[0]); i++) {
		v[n++] = limits[i];
		v[n++] = limits[i] - 1;
		v[n++] = limits[i] + 1;
	}
	for (b = 0; b < 64; b++) {
		v[n++] = (1ull << b) - 1;
		v[n++] = 1ull << b;
		v[n++] = (1ull << b) + 1;
	}
	for (d = 0; d < 20; d++, p10 *= 10) {
		v[n++] = p10 - 1;
		v[n++] = p10;
		v[n++] = p10 + 1;
	}
	if (n > max)
		abort();
	return n;
}

/* Random values of every bit length, and sign-extended from every bit length. */
static size_t random_values(uint64_t *v, size_t per_len)
{
	size_t n = 0, i;
	int b;

	for (b = 1; b <= 64; b++) {
		for (i = 0; i < per_len; i++) {
			uint64_t x = rnd() >> (64 - b);

			v[n++] = x;
			v[n++] = (uint64_t)((int64_t)(x << (64 - b)) >> (64 - b));
		}
	}
	return n;
}

#define GUARD	0x5a	/* filled after what a writer should write, checked untouched */

/*
 * What a writer wrote between buf and end against snprintf's want, and
 * nothing past end. Counts mismatches; describes the first few.
 */
static int mismatches;

static void compare(const char *what, const char *want, const char *buf, const char *end,
		    size_t bufsz)
{
	size_t n = (size_t)(end - buf), i;
	bool ok = end >= buf && n == strlen(want) && !memcmp(buf, want, n);

	for (i = n; ok && i < bufsz; i++)
		ok = (unsigned char)buf[i] == GUARD;
	if (!ok && ++mismatches <= 10)
		fprintf(stderr, "%s: want \"%s\", got \"%.*s\"%s\n", what, want,
			(int)(end >= buf ? n : 0), buf,
			n == strlen(want) ? " (wrote past its end)" : "");
}

static void check_numbers(const uint64_t *v, size_t n, const char *ctx)
{
	char buf[64], want[64], what[96];
	size_t i;

	mismatches = 0;
	for (i = 0; i < n; i++) {
		snprintf(what, sizeof(what), "fmt_u64(%" PRIu64 ")", v[i]);
		memset(buf, GUARD, sizeof(buf));
		snprintf(want, sizeof(want), "%" PRIu64, v[i]);
		compare(what, want, buf, fmt_u64(buf, v[i]), sizeof(buf));

		memset(buf, GUARD, sizeof(buf));
		snprintf(want, sizeof(want), "%" PRId64, (int64_t)v[i]);
		compare(what, want, buf, fmt_s64(buf, (int64_t)v[i]), sizeof(buf));

		memset(buf, GUARD, sizeof(buf));
		snprintf(want, sizeof(want), "%" PRIx64, v[i]);
		compare(what, want, buf, fmt_x64(buf, v[i]), sizeof(buf));
	}
	CHECK(!mismatches, "%d mismatches in %zu values (%s)", mismatches, n, ctx);
}

static const char *const flag_str[4] = { "", "-", "0", "-0" };

/* Every width 0..30 and flag combination, for u64, s64 and x64. */
static void check_padded(const uint64_t *v, size_t n, const char *ctx)
{
	char buf[96], want[96], fmt[16], what[96];
	unsigned int w, fl;
	size_t i;

	mismatches = 0;
	for (i = 0; i < n; i++) {
		for (fl = 0; fl < 4; fl++) {
			for (w = 0; w <= 30; w++) {
				snprintf(what, sizeof(what), "width %u flags '%s' of %" PRIu64,
					 w, flag_str[fl], v[i]);
				snprintf(fmt, sizeof(fmt), "%%%s*%s", flag_str[fl], PRIu64);
				snprintf(want, sizeof(want), fmt, (int)w, v[i]);
				memset(buf, GUARD, sizeof(buf));
				compare(what, want, buf, fmt_u64_w(buf, v[i], w, fl), sizeof(buf));

				snprintf(fmt, sizeof(fmt), "%%%s*%s", flag_str[fl], PRId64);
				snprintf(want, sizeof(want), fmt, (int)w, (int64_t)v[i]);
				memset(buf, GUARD, sizeof(buf));
				compare(what, want, buf, fmt_s64_w(buf, (int64_t)v[i], w, fl),
					sizeof(buf));

				snprintf(fmt, sizeof(fmt), "%%%s*%s", flag_str[fl], PRIx64);
				snprintf(want, sizeof(want), fmt, (int)w, v[i]);
				memset(buf, GUARD, sizeof(buf));
				compare(what, want, buf, fmt_x64_w(buf, v[i], w, fl), sizeof(buf));
			}
		}
	}
	CHECK(!mismatches, "%d mismatches in %zu values x 31 widths x 4 flags (%s)",
	      mismatches, n, ctx);
}

static void test_numbers(void)
{
	static uint64_t v[64 * 2 * 2000];
	size_t n;

	n = edge_values(v, sizeof(v) / sizeof(v[0]));
	check_numbers(v, n, "edge values");
	check_padded(v, n, "edge values");
	n = random_values(v, 2000);
	check_numbers(v, n, "random values of every bit length");
	n = random_values(v, 10);
	check_padded(v, n, "random values of every bit length");

	/* the context line's own conversions, spelled out */
	{
		char buf[64];

		*fmt_s64_w(buf, INT32_MIN, 7, FMT_LEFT) = '\0';
		CHECK_STR(buf, "-2147483648", "%-7d of INT_MIN");
		*fmt_s64_w(buf, -5, 3, FMT_ZERO) = '\0';
		CHECK_STR(buf, "-05", "%03d of -5");
		*fmt_u64_w(buf, 0, 6, FMT_ZERO) = '\0';
		CHECK_STR(buf, "000000", "%06lu of 0");
		*fmt_x64(buf, 0) = '\0';
		CHECK_STR(buf, "0", "%lx of 0");
	}
}

/* "%*.*s" and "%-*.*s" over strings of every byte but NUL. */
static void test_strings(void)
{
	char s[32], buf[96], want[96], what[64];
	unsigned int w, fl, len, i, round;

	mismatches = 0;
	for (round = 0; round < 200; round++) {
		for (len = 0; len <= 24; len++) {
			for (i = 0; i < len; i++)
				s[i] = (char)(1 + rnd_below(255));
			for (fl = 0; fl < 2; fl++) {
				for (w = 0; w <= 30; w++) {
					snprintf(what, sizeof(what), "string of %u, width %u%s", len,
						 w, fl ? " left" : "");
					snprintf(want, sizeof(want), fl ? "%-*.*s" : "%*.*s", (int)w,
						 (int)len, s);
					memset(buf, GUARD, sizeof(buf));
					compare(what, want, buf, fmt_str_w(buf, s, len, w, fl),
						sizeof(buf));
				}
			}
		}
	}
	CHECK(!mismatches, "%d mismatches in padded strings", mismatches);

	/* '0' is not for strings: spaces still */
	*fmt_str_w(buf, "ab", 2, 5, FMT_ZERO) = '\0';
	CHECK_STR(buf, "   ab", "%5s with FMT_ZERO");
	/* n bytes, not up to a NUL: the caller has measured them */
	CHECK(fmt_str_w(buf, "a\0b", 3, 4, FMT_LEFT) - buf == 4 && !memcmp(buf, "a\0b ", 4),
	      "embedded NUL copied");
}

/* The line buffer: random pieces of every size, through a memstream, come out whole. */
static void test_outbuf(void)
{
	static char want[1 << 20], piece[3 * OUTBUF_SIZE];
	struct outbuf ob;
	size_t wn = 0, sz = 0, n, i;
	char *got = NULL, *p;
	FILE *f = open_memstream(&got, &sz);
	int k;

	if (!f)
		abort();
	for (i = 0; i < sizeof(piece); i++)
		piece[i] = (char)rnd();
	ob_init(&ob, f);
	for (k = 0; k < 5000 && wn < sizeof(want) - 4 * OUTBUF_SIZE; k++) {
		uint64_t v = rnd();

		switch (rnd_below(6)) {
		case 0:
			ob_char(&ob, (char)v);
			want[wn++] = (char)v;
			break;
		case 1:	/* short pieces, the usual */
			n = rnd_below(40);
			ob_mem(&ob, piece, n);
			memcpy(want + wn, piece, n);
			wn += n;
			break;
		case 2:	/* up to three buffers' worth, across every boundary */
			n = rnd_below(sizeof(piece));
			ob_mem(&ob, piece + sizeof(piece) - n, n);
			memcpy(want + wn, piece + sizeof(piece) - n, n);
			wn += n;
			break;
		case 3:
			ob_u64(&ob, v);
			wn += (size_t)snprintf(want + wn, 32, "%" PRIu64, v);
			break;
		case 4:
			v >>= rnd_below(64);
			ob_hex(&ob, v);
			wn += (size_t)snprintf(want + wn, 32, "0x%" PRIx64, v);
			break;
		default: /* a room asked for and partly used */
			n = 1 + rnd_below(OUTBUF_SIZE);
			p = ob_room(&ob, n);
			CHECK(ob.n + n <= OUTBUF_SIZE, "ob_room(%zu) gave less", n);
			n = rnd_below((unsigned int)n + 1);
			memcpy(p, piece, n);
			ob_commit(&ob, p + n);
			memcpy(want + wn, piece, n);
			wn += n;
			break;
		}
	}
	ob_flush(&ob);
	fclose(f);
	CHECK(sz == wn && !memcmp(got, want, wn), "outbuf: %zu bytes out, %zu put in", sz, wn);
	free(got);
}

/* ob_room() and ob_char() at the buffer's end: room exactly, or a flush first. */
static void test_outbuf_edges(void)
{
	static struct outbuf ob;
	static char src[OUTBUF_SIZE + 1];
	size_t k, bad = 0;
	FILE *f = fopen("/dev/null", "w");

	if (!f)
		abort();
	for (k = 0; k <= OUTBUF_SIZE; k++) {
		ob_init(&ob, f);
		ob.n = OUTBUF_SIZE - k;	/* k bytes left */
		bad += ob_room(&ob, k) != ob.buf + OUTBUF_SIZE - k;	/* fits: no flush */
		if (k < OUTBUF_SIZE) {
			bad += ob_room(&ob, k + 1) != ob.buf || ob.n;	/* does not: flushed */
			ob.n = OUTBUF_SIZE - k;
			ob_char(&ob, 'x');
			bad += k ? ob.n != OUTBUF_SIZE - k + 1 : ob.n != 1;
			/* ob_mem: k + 1 bytes do not fit in k */
			ob.n = OUTBUF_SIZE - k;
			ob_mem(&ob, src, k + 1);
			bad += ob.n != k + 1;
		}
		/* ... and k bytes do */
		ob.n = OUTBUF_SIZE - k;
		ob_mem(&ob, src, k);
		bad += ob.n != OUTBUF_SIZE;
	}
	fclose(f);
	CHECK(!bad, "%zu wrong answers from ob_room/ob_char at the end of the buffer", bad);
}

/* ---- output_text()/output_json() against the printf()-based printers ---- */

static struct ksyms *ks;

static char long_name[1101], long_mod[1001];

static const uint64_t sym_addrs[] = {
	0xffffffff81000000ull, 0xffffffff81000100ull, 0xffffffff810001e0ull,
	0xffffffff81000300ull, 0xffffffff81000400ull, 0xffffffff81000410ull,
	0xffffffff81000500ull, 0xffffffff81001000ull, 0xffffffffc0001000ull,
	0xffffffffc0001080ull, 0xffffffffc00010c0ull, 0xffffffffc0002000ull,
	0xffffffffc0003000ull,
};

/*
 * Core and module symbols, aliases, a BPF program (no module printed), the
 * kretprobe trampoline, and names longer than the printers' 1024-byte
 * symbol buffer (truncation must match too).
 */
static struct ksyms *load_kallsyms(void)
{
	char path[] = "/tmp/kpt-test-fmt-XXXXXX";
	int fd = mkstemp(path);
	struct ksyms *k;
	FILE *f;

	memset(long_name, 'n', sizeof(long_name) - 1);
	memset(long_mod, 'm', sizeof(long_mod) - 1);
	if (fd < 0 || !(f = fdopen(fd, "w")))
		abort();
	fprintf(f, "ffffffff81000000 T _stext\n"
		   "ffffffff81000100 T do_sys_openat2\n"
		   "ffffffff810001e0 t helper\n"
		   "ffffffff81000300 t %s\n"
		   "ffffffff81000400 T __kretprobe_trampoline\n"
		   "ffffffff81000410 T after_trampoline\n"
		   "ffffffff81000500 T alias_a\n"
		   "ffffffff81000500 T alias_b\n"
		   "ffffffff81001000 B _end\n"
		   "ffffffffc0001000 t mod_func\t[mymod]\n"
		   "ffffffffc0001080 t mod_func2\t[mymod]\n"
		   "ffffffffc00010c0 d mod_data\t[mymod]\n"
		   "ffffffffc0002000 t bpf_prog_6deef7357e7b4530_x\t[bpf]\n"
		   "ffffffffc0003000 t lmod_func\t[%s]\n",
		long_name, long_mod);
	fclose(f);
	k = ksyms_load(path);
	unlink(path);
	return k;
}

/* An address near a symbol (start, inside, at its end, past it) or anything else. */
static uint64_t rnd_addr(void)
{
	static const uint64_t offs[] = { 0, 1, 3, 0x10, 0xdf, 0xe0, 0x11f, 0x1000 };

	switch (rnd_below(4)) {
	case 0:
		return rnd_below(2) ? 0 : rnd() >> rnd_below(64);
	case 1:
		return 0x401106 + rnd_below(0x100);
	default:
		return sym_addrs[rnd_below(NARGS(sym_addrs))] + offs[rnd_below(NARGS(offs))];
	}
}

static uint64_t rnd_value(void)
{
	static uint64_t edges[1024];
	static size_t nedges;

	if (!nedges)
		nedges = edge_values(edges, NARGS(edges));
	return rnd_below(2) ? edges[rnd_below((unsigned int)nedges)] : rnd() >> rnd_below(64);
}

/*
 * n bytes that exercise escaping: quotes, controls, DEL, UTF-8 valid and
 * not, and NUL only if nul (a string prints up to its first NUL).
 */
static void rnd_bytes(char *s, size_t n, bool nul)
{
	static const char *const pieces[] = {
		"a", "Z", " ", "/", "%s", "%n", "\"", "\\", "\x01", "\t", "\n", "\x1f",
		"\x7f", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xc0\x80",
		"\xed\xa0\x80", "\xf4\x90\x80\x80", "\xf5\x80", "\xe2\x82", "\x80", "\xff",
		"\xc2", "\0",
	};
	size_t i = 0, k, len;

	while (i < n) {
		k = rnd_below(NARGS(pieces));
		len = k == NARGS(pieces) - 1 ? 1 : strlen(pieces[k]);
		if (rnd_below(4) == 0) {	/* any byte at all */
			s[i++] = (char)rnd();
			continue;
		}
		if (len > n - i)
			len = n - i;
		memcpy(s + i, pieces[k], len);
		i += len;
	}
	for (i = 0; !nul && i < n; i++)
		if (!s[i])
			s[i] = 'x';
}

struct rrec {
	unsigned char b[KPT_REC_MAX];
	size_t len;
};

static const char *const immediates[] = { "", "hello", "q\"uo\\te", "\x01\xff\xc3\xa9", "%d" };

/* A random probe: kind, name, and up to 10 arguments of random types and shapes. */
static void rnd_event(struct ev_desc *ev, struct ev_arg *args)
{
	static const enum spec_kind kinds[] = {
		SPEC_KPROBE, SPEC_KRETPROBE, SPEC_UPROBE, SPEC_URETPROBE, SPEC_TRACEPOINT,
	};
	static const char *const events[] = {
		"e", "stream", "an_event_name_of_the_longest_kind_ftrace_allows_is_63_chars_xx",
	};
	static const uint8_t sizes[] = { 1, 2, 4, 8 };
	unsigned int pos;
	int i;

	memset(ev, 0, sizeof(*ev));
	ev->index = (int)rnd_below(4);
	strcpy(ev->group, "g");
	strcpy(ev->event, events[rnd_below(NARGS(events))]);
	ev->kind = kinds[rnd_below(NARGS(kinds))];
	ev->addr = rnd_addr();
	ev->uaddr = rnd_addr();
	ev->nargs = (int)rnd_below(11);
	ev->args = args;
	pos = KPT_HDR_SIZE + ((unsigned int)ev->nargs + 7) / 8;
	for (i = 0; i < ev->nargs; i++) {
		struct ev_arg *a = &args[i];

		memset(a, 0, sizeof(*a));
		snprintf(a->name, sizeof(a->name), "arg%d", i);
		/* ftrace's types: the oracle predates kptrace's own (test_valfmt.c) */
		a->type = (enum spec_type)(1 + rnd_below(SPEC_T_SYMSTR));
		if (!rnd_below(10)) {
			a->data = immediates[rnd_below(NARGS(immediates))];
			continue;
		}
		if (a->type == SPEC_T_STRING || a->type == SPEC_T_USTRING)
			a->size = 4;
		else if (a->type == SPEC_T_SYMSTR)
			a->size = rnd_below(2) ? 4 : 8;	/* data_loc, or an address */
		else
			a->size = sizes[rnd_below(4)];
		a->count = rnd_below(4) ? 0 : 1 + rnd_below(6);
		a->slot = (uint16_t)pos;
		pos += a->size * (a->count ? a->count : 1);
	}
	ev->fixed_size = (uint16_t)pos;
}

static bool is_str(const struct ev_arg *a)
{
	return !a->data && a->size == 4 && (a->type == SPEC_T_STRING ||
		a->type == SPEC_T_USTRING || a->type == SPEC_T_SYMSTR);
}

/* A record of ev as the BPF side writes it, with random values everywhere. */
static void rnd_record(struct rrec *r, const struct ev_desc *ev)
{
	static const uint32_t ids[] = { 0, 1, 7, 1234567, 0x7fffffff, 0x80000000, UINT32_MAX };
	static const uint64_t tss[] = { 0, 499, 500, 999999500, UINT64_MAX, UINT64_MAX - 500 };
	struct kpt_rec_hdr h;
	uint32_t e, n, dl;
	size_t slen;
	bool nul;
	int i;

	memset(r, 0, sizeof(*r));
	memset(&h, 0, sizeof(h));
	h.kind = KPT_REC_EVENT;
	h.probe = (uint16_t)ev->index;
	h.ts = rnd_below(3) ? rnd() >> rnd_below(64) : tss[rnd_below(NARGS(tss))];
	h.ip = rnd_addr();
	h.tid = rnd_below(2) ? ids[rnd_below(NARGS(ids))] : (uint32_t)rnd();
	h.tgid = (uint32_t)rnd();
	h.cpu = rnd_below(2) ? ids[rnd_below(NARGS(ids))] : rnd_below(300);
	rnd_bytes(h.comm, rnd_below(KPT_COMM_LEN + 1), rnd_below(2));
	r->len = ev->fixed_size;
	for (i = 0; i < ev->nargs; i++) {
		const struct ev_arg *a = &ev->args[i];

		if (!rnd_below(6))
			r->b[KPT_HDR_SIZE + i / 8] |= (unsigned char)(1u << (i % 8));
		if (a->data)
			continue;
		n = a->count ? a->count : 1;
		for (e = 0; e < n; e++) {
			uint64_t v = (a->type == SPEC_T_SYMBOL || a->type == SPEC_T_SYMSTR) &&
				     rnd_below(4) ? rnd_addr() : rnd_value();

			if (!is_str(a)) {
				memcpy(r->b + a->slot + e * a->size, &v, a->size);
				continue;
			}
			/* strings: some faulted (length 0), a few longer than the line buffer */
			dl = (uint32_t)r->len;
			slen = rnd_below(50);
			nul = rnd_below(4) == 0;
			if (!rnd_below(40)) {
				slen = OUTBUF_SIZE - 100 + rnd_below(2 * OUTBUF_SIZE);
				nul = false;	/* printed whole */
			}
			if (r->len + slen + 1 > KPT_REC_MAX / 2)
				slen = 3;
			if (rnd_below(8)) {
				rnd_bytes((char *)r->b + r->len, slen, nul);
				r->b[r->len + slen] = '\0';
				r->len += slen + 1;
				dl |= (uint32_t)(slen + 1) << 16;
			}
			memcpy(r->b + a->slot + 4 * e, &dl, 4);
		}
	}
	h.size = (uint32_t)r->len;
	memcpy(r->b, &h, sizeof(h));
}

typedef int (*out_fn)(FILE *, const struct ev_desc *, const struct ksyms *, const void *,
		      size_t);

/* One printer's output in memory; *rc its result. */
static char *run(out_fn out, const struct ev_desc *ev, const struct rrec *r, int *rc,
		 size_t *n)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, n);

	if (!f)
		abort();
	*rc = out(f, ev, ks, r->b, r->len);
	fclose(f);
	return buf;
}

static bool same(out_fn got_fn, out_fn want_fn, const struct ev_desc *ev, const struct rrec *r,
		 const char *what, int iter)
{
	size_t gn, wn;
	int grc, wrc;
	char *got = run(got_fn, ev, r, &grc, &gn), *want = run(want_fn, ev, r, &wrc, &wn);
	bool ok = grc == wrc && gn == wn && !memcmp(got, want, gn);

	if (!ok && ++mismatches <= 5)
		fprintf(stderr, "%s, record %d (rc %d/%d, %zu/%zu bytes):\n  got  %.*s  want %.*s",
			what, iter, grc, wrc, gn, wn, (int)(gn > 600 ? 600 : gn), got,
			(int)(wn > 600 ? 600 : wn), want);
	free(got);
	free(want);
	return ok;
}

static void test_against_printf(void)
{
	static struct rrec r;
	struct ev_arg args[10];
	struct ev_desc ev;
	int iter, text_bad = 0, json_bad = 0, long_lines = 0;
	size_t n;
	char *line;
	int rc;

	ks = load_kallsyms();
	CHECK(ks != NULL, "fake kallsyms loaded");
	if (!ks)
		return;
	mismatches = 0;
	for (iter = 0; iter < 20000; iter++) {
		rnd_event(&ev, args);
		rnd_record(&r, &ev);
		line = run(output_text, &ev, &r, &rc, &n);
		long_lines += n > OUTBUF_SIZE;
		free(line);
		text_bad += !same(output_text, ref_output_text, &ev, &r, "text", iter);
		json_bad += !same(output_json, ref_output_json, &ev, &r, "json", iter);
	}
	CHECK(!text_bad, "%d of 20000 text lines differ from the printf printer", text_bad);
	CHECK(!json_bad, "%d of 20000 JSON objects differ from the printf printer", json_bad);
	CHECK(long_lines > 100, "only %d lines longer than the line buffer", long_lines);

	/* the 1100-byte name: cut at the printers' 1024-byte buffer, like snprintf */
	{
		char got[1024], want[1024];
		uint64_t addrs[] = { 0xffffffff81000300ull, 0xffffffff81000310ull,
				     0xffffffffc0003008ull, 0xffffffffc0002004ull, 0x1234 };
		size_t lens[] = { 1, 2, 16, 1023, 1024 };
		unsigned int i, j, off;

		for (i = 0; i < NARGS(addrs); i++)
			for (j = 0; j < NARGS(lens); j++)
				for (off = 0; off < 2; off++) {
					memset(got, GUARD, sizeof(got));
					ksyms_format(ks, addrs[i], off, got, lens[j]);
					ref_ksyms_format(ks, addrs[i], off, want, lens[j]);
					CHECK(!strcmp(got, want) && strlen(got) < lens[j],
					      "ksyms_format(%#" PRIx64 ", %u, len %zu): %.40s",
					      addrs[i], off, lens[j], got);
				}
	}
	ksyms_free(ks);
}

int main(void)
{
	test_numbers();
	test_strings();
	test_outbuf();
	test_outbuf_edges();
	test_against_printf();
	return check_report();
}
