// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Hand-written printf conversions and the line buffer (fmt.h says why).
 * Each writer matches the C library's output for its conversion exactly;
 * tests/unit/test_fmt.c checks that against snprintf over edge values
 * and every width and flag combination.
 */
#include "util/fmt.h"

/* "00".."99": two decimal digits per division halves the divisions. */
static const char dig2[200] =
	"00010203040506070809" "10111213141516171819" "20212223242526272829"
	"30313233343536373839" "40414243444546474849" "50515253545556575859"
	"60616263646566676869" "70717273747576777879" "80818283848586878889"
	"90919293949596979899";

static const char hexdig[16] = "0123456789abcdef";

/* Decimal digits in v (1 for 0). */
static unsigned int dec_len(uint64_t v)
{
	unsigned int n = 1;

	/* most values printed are small: a few comparisons, no division */
	for (; v >= 10000; v /= 10000)
		n += 4;
	return n + (v >= 10) + (v >= 100) + (v >= 1000);
}

char *fmt_u64(char *p, uint64_t v)
{
	char *end = p + dec_len(v), *q = end;

	/* from the last digit backwards, two at a time */
	while (v >= 100) {
		unsigned int r = (unsigned int)(v % 100);

		v /= 100;
		q -= 2;
		memcpy(q, dig2 + 2 * r, 2);
	}
	if (v >= 10) {
		q -= 2;
		memcpy(q, dig2 + 2 * v, 2);
	} else {
		*--q = (char)('0' + v);
	}
	return end;
}

char *fmt_s64(char *p, int64_t v)
{
	if (v >= 0)
		return fmt_u64(p, (uint64_t)v);
	*p++ = '-';
	/* negated as unsigned: INT64_MIN has no positive int64_t */
	return fmt_u64(p, 0 - (uint64_t)v);
}

char *fmt_x64(char *p, uint64_t v)
{
	unsigned int n = v ? (64 - (unsigned int)__builtin_clzll(v) + 3) / 4 : 1;
	char *end = p + n;

	while (n--) {
		p[n] = hexdig[v & 0xf];
		v >>= 4;
	}
	return end;
}

/*
 * printf's padding of an integer conversion: sign, then digits, in width;
 * '-' pads after with spaces, '0' between the sign and the digits, neither
 * before with spaces.
 */
static char *pad_num(char *p, bool neg, const char *d, size_t nd, unsigned int width,
		     unsigned int flags)
{
	size_t body = nd + neg, pad = width > body ? width - body : 0;

	if (!(flags & (FMT_LEFT | FMT_ZERO))) {
		memset(p, ' ', pad);
		p += pad;
	}
	if (neg)
		*p++ = '-';
	if ((flags & (FMT_LEFT | FMT_ZERO)) == FMT_ZERO) {
		memset(p, '0', pad);
		p += pad;
	}
	memcpy(p, d, nd);
	p += nd;
	if (flags & FMT_LEFT) {
		memset(p, ' ', pad);
		p += pad;
	}
	return p;
}

char *fmt_u64_w(char *p, uint64_t v, unsigned int width, unsigned int flags)
{
	char d[FMT_NUM_MAX];

	return pad_num(p, false, d, (size_t)(fmt_u64(d, v) - d), width, flags);
}

char *fmt_s64_w(char *p, int64_t v, unsigned int width, unsigned int flags)
{
	char d[FMT_NUM_MAX];
	uint64_t mag = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;

	return pad_num(p, v < 0, d, (size_t)(fmt_u64(d, mag) - d), width, flags);
}

char *fmt_x64_w(char *p, uint64_t v, unsigned int width, unsigned int flags)
{
	char d[FMT_NUM_MAX];

	return pad_num(p, false, d, (size_t)(fmt_x64(d, v) - d), width, flags);
}

char *fmt_str_w(char *p, const char *s, size_t n, unsigned int width, unsigned int flags)
{
	/* the '0' flag is undefined with %s in C: strings pad with spaces only */
	return pad_num(p, false, s, n, width, flags & FMT_LEFT);
}

void ob_flush(struct outbuf *ob)
{
	if (ob->n)
		fwrite(ob->buf, 1, ob->n, ob->f);
	ob->n = 0;
}

/* n bytes that do not fit in what is left of the buffer. */
void ob_mem_slow(struct outbuf *ob, const void *s, size_t n)
{
	ob_flush(ob);
	if (n > OUTBUF_SIZE) {
		/* longer than the whole buffer: no point copying it twice */
		fwrite(s, 1, n, ob->f);
		return;
	}
	memcpy(ob->buf, s, n);
	ob->n = n;
}
