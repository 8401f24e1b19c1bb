/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * JSON strings from arbitrary bytes, the one escaper of every JSON kptrace
 * writes. Kernel strings are bytes, not text: a byte that is not part of
 * valid UTF-8, and a control character, becomes \u00XX (its Latin-1
 * reading), so the output always parses.
 */
#ifndef KPT_JSON_H
#define KPT_JSON_H

#include <stddef.h>
#include <stdio.h>
#include "util/fmt.h"

/* s's n bytes as a JSON string, quotes included, into ob (the events' hot path). */
void json_ob_str(struct outbuf *ob, const char *s, size_t n);
/* The same of s (at most max bytes, NUL-terminated before) to f. */
void json_fput_str(FILE *f, const char *s, size_t max);

#endif /* KPT_JSON_H */
