// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The one JSON string escaper (json.h). */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "util/json.h"

/* Length of a valid UTF-8 sequence at s (RFC 3629: no overlongs, no surrogates), else 0. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	uint32_t cp, min;
	size_t len, i;

	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		cp = s[0] & 0x1f;
		min = 0x80;
	} else if ((s[0] & 0xf0) == 0xe0) {
		len = 3;
		cp = s[0] & 0x0f;
		min = 0x800;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		cp = s[0] & 0x07;
		min = 0x10000;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

/* "\\u%04x" of a byte: the escape of a control character or of a stray byte. */
static void json_u00(struct outbuf *ob, unsigned char c)
{
	static const char hex[16] = "0123456789abcdef";
	char *p = ob_room(ob, 6);

	memcpy(p, "\\u00", 4);
	p[4] = hex[c >> 4];
	p[5] = hex[c & 0xf];
	ob_commit(ob, p + 6);
}

/* Printable ASCII but for the two JSON escapes: copied as it is. */
static bool json_plain(unsigned char c)
{
	return c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
}

/*
 * A JSON string from arbitrary bytes. Kernel strings are bytes, not text: a
 * byte that is not part of valid UTF-8 becomes \u00XX (its Latin-1 reading)
 * so the output always parses.
 */
void json_ob_str(struct outbuf *ob, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, j, k;

	ob_char(ob, '"');
	while (i < n) {
		/* the common case, a run of plain characters, in one copy */
		for (j = i; j < n && json_plain(s[j]); j++)
			;
		ob_mem(ob, s + i, j - i);
		i = j;
		if (i == n)
			break;
		if (s[i] == '"' || s[i] == '\\') {
			ob_char(ob, '\\');
			ob_char(ob, (char)s[i]);
			i++;
		} else if (s[i] >= 0x80 && (k = utf8_len(s + i, n - i))) {
			ob_mem(ob, s + i, k);
			i += k;
		} else {
			/* control characters and bytes outside valid UTF-8 */
			json_u00(ob, s[i]);
			i++;
		}
	}
	ob_char(ob, '"');
}

void json_fput_str(FILE *f, const char *s, size_t max)
{
	struct outbuf ob;

	ob_init(&ob, f);
	json_ob_str(&ob, s, strnlen(s, max));
	ob_flush(&ob);
}
