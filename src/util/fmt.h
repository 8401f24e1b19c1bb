/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Hand-written formatting for the output stage. printf() parses its format
 * string on every call and goes through stdio's locking and padding code
 * for every field; at millions of lines a second that was ~85% of the
 * decoder's time. These writers produce exactly what the printf
 * conversions named in their comments produce (tests/unit/test_fmt.c
 * compares them with snprintf), and struct outbuf gathers a line so that
 * it reaches the FILE in one fwrite().
 */
#ifndef KPT_FMT_H
#define KPT_FMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/*
 * Number writers: write at p (no terminator), return the end. p must have
 * room for FMT_NUM_MAX bytes, or for the width if that is larger.
 */
#define FMT_NUM_MAX	24	/* "-9223372036854775808", 20 decimal digits, 16 hex */

char *fmt_u64(char *p, uint64_t v);	/* "%" PRIu64 */
char *fmt_s64(char *p, int64_t v);	/* "%" PRId64 */
char *fmt_x64(char *p, uint64_t v);	/* "%" PRIx64 */

/* Flags for the padded writers, as printf's. */
#define FMT_LEFT	1u	/* '-': pad on the right with spaces */
#define FMT_ZERO	2u	/* '0': pad with zeros after the sign (ignored with FMT_LEFT) */

char *fmt_u64_w(char *p, uint64_t v, unsigned int width, unsigned int flags);	/* "%*" PRIu64 */
char *fmt_s64_w(char *p, int64_t v, unsigned int width, unsigned int flags);	/* "%*" PRId64 */
char *fmt_x64_w(char *p, uint64_t v, unsigned int width, unsigned int flags);	/* "%*" PRIx64 */
/* "%*.*s": n bytes of s (no NUL needed), space-padded to width. p needs max(n, width). */
char *fmt_str_w(char *p, const char *s, size_t n, unsigned int width, unsigned int flags);

/*
 * A line being built, flushed to f when full and at the end. Writers ask
 * for room first (ob_room), so that a number or a fixed piece is written
 * straight into the buffer; arbitrarily long pieces (strings) go through
 * ob_mem, which passes what does not fit straight to the FILE.
 */
#define OUTBUF_SIZE	4096

struct outbuf {
	FILE *f;
	size_t n;		/* bytes used in buf */
	char buf[OUTBUF_SIZE];
};

void ob_flush(struct outbuf *ob);
void ob_mem_slow(struct outbuf *ob, const void *s, size_t n);

static inline void ob_init(struct outbuf *ob, FILE *f)
{
	ob->f = f;
	ob->n = 0;
}

/* A pointer to at least n (<= OUTBUF_SIZE) free bytes; ob_commit() says how many were used. */
static inline char *ob_room(struct outbuf *ob, size_t n)
{
	if (OUTBUF_SIZE - ob->n < n)
		ob_flush(ob);
	return ob->buf + ob->n;
}

/* The bytes written at the pointer ob_room() returned end at end. */
static inline void ob_commit(struct outbuf *ob, char *end)
{
	ob->n = (size_t)(end - ob->buf);
}

static inline void ob_mem(struct outbuf *ob, const void *s, size_t n)
{
	if (OUTBUF_SIZE - ob->n < n) {
		ob_mem_slow(ob, s, n);
		return;
	}
	memcpy(ob->buf + ob->n, s, n);
	ob->n += n;
}

static inline void ob_str(struct outbuf *ob, const char *s)
{
	ob_mem(ob, s, strlen(s));
}

static inline void ob_char(struct outbuf *ob, char c)
{
	if (ob->n == OUTBUF_SIZE)
		ob_flush(ob);
	ob->buf[ob->n++] = c;
}

static inline void ob_u64(struct outbuf *ob, uint64_t v)
{
	ob_commit(ob, fmt_u64(ob_room(ob, FMT_NUM_MAX), v));
}

static inline void ob_s64(struct outbuf *ob, int64_t v)
{
	ob_commit(ob, fmt_s64(ob_room(ob, FMT_NUM_MAX), v));
}

/* "0x%" PRIx64 */
static inline void ob_hex(struct outbuf *ob, uint64_t v)
{
	char *p = ob_room(ob, 2 + FMT_NUM_MAX);

	p[0] = '0';
	p[1] = 'x';
	ob_commit(ob, fmt_x64(p + 2, v));
}

#endif /* KPT_FMT_H */
