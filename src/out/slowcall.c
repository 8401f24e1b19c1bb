// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* latency --over: one line per call at or over it (slowcall.h). */
#include <stdlib.h>
#include <string.h>

#include "out/output.h"
#include "out/slowcall.h"
#include "util/json.h"

/* An event as the stream prints it, on one line (its newline dropped); NULL without memory. */
static char *event_text(bool json, const struct ksyms *ks, const struct ev_desc *ev,
			const void *rec, size_t len)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *m = open_memstream(&buf, &n);

	if (!m)
		return NULL;
	if (json)
		output_json(m, ev, ks, rec, len);
	else
		output_text(m, ev, ks, rec, len);
	if (fclose(m)) {
		free(buf);
		return NULL;
	}
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = 0;
	/* the text line's leading padding: one line, read left to right */
	if (!json)
		memmove(buf, buf + strspn(buf, " "), n - strspn(buf, " ") + 1);
	return buf;
}

void slowcall_print(FILE *f, bool json, const struct ksyms *ks, const char *name,
		    const char *unit, const struct call_start *st, const struct ev_desc *ev,
		    const void *rec, size_t len, uint64_t dur)
{
	double div = !strcmp(unit, "ms") ? 1e6 : !strcmp(unit, "ns") ? 1 : 1e3;
	char *from = st ? event_text(json, ks, st->ev, st->rec, st->len) : NULL;
	char *to = event_text(json, ks, ev, rec, len);

	if (json) {
		fputs("{\"type\":\"call\",\"pair\":", f);
		json_fput_str(f, name, SIZE_MAX);
		fprintf(f, ",\"dur_ns\":%llu,\"start\":%s,\"end\":%s}\n", (unsigned long long)dur,
			from ? from : "null", to ? to : "null");
	} else {
		fprintf(f, "@%s %.3f%s: %s => %s\n", name, (double)dur / div, unit,
			from ? from : "(the start's arguments not kept)", to ? to : "");
	}
	free(from);
	free(to);
}
