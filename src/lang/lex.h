/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Characters and numbers of the grammars (probe definitions, filters): our
 * own classes, since <ctype.h> depends on the locale and the grammars do not.
 */
#ifndef KPT_LEX_H
#define KPT_LEX_H

#include <stdbool.h>
#include <stdint.h>

static inline bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static inline bool is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static inline bool is_alnum(char c)
{
	return is_alpha(c) || is_digit(c);
}

/* c's value as a digit of base up to 16; 99 for anything else. */
static inline unsigned int digit_value(char c)
{
	if (is_digit(c))
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return 99;
}

/*
 * [s, e) as an unsigned number, as kstrtoull() reads it: base 0 means
 * 0x/0X for hex, a leading 0 for octal, decimal otherwise. Unlike
 * simple_strtoul() the whole range must be digits, and unlike a plain
 * multiply-add an overflow is an error rather than a wrapped value.
 */
static inline bool parse_uint(const char *s, const char *e, unsigned int base, uint64_t *out)
{
	uint64_t v = 0;

	if (base == 0) {
		if (e - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
			base = 16;
			s += 2;
		} else if (e - s > 1 && s[0] == '0') {
			base = 8;
			s++;
		} else {
			base = 10;
		}
	}
	if (s >= e)
		return false;
	for (; s < e; s++) {
		unsigned int d = digit_value(*s);

		if (d >= base || v > (UINT64_MAX - d) / base)
			return false;
		v = v * base + d;
	}
	*out = v;
	return true;
}

#endif /* KPT_LEX_H */
