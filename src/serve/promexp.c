// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Prometheus exposition: families, escaped labels, numbers as Prometheus
 * reads them, and kptrace's histograms on exact bucket edges.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "serve/promexp.h"
#include "kpt_buckets.h"

void prom_labels_init(struct prom_labels *l)
{
	l->len = 0;
	l->buf[0] = '\0';
	l->cut = false;
}

static void lput(struct prom_labels *l, const char *s, size_t n)
{
	if (l->cut || l->len + n >= sizeof(l->buf)) {
		l->cut = true;
		return;
	}
	memcpy(l->buf + l->len, s, n);
	l->len += n;
	l->buf[l->len] = '\0';
}

void prom_name(const char *in, char *out, size_t len)
{
	size_t i = 0;

	if (!len)
		return;
	if (*in >= '0' && *in <= '9' && i + 1 < len)
		out[i++] = '_';
	for (; *in && i + 1 < len; in++) {
		char c = *in;
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  (c >= '0' && c <= '9') || c == '_';

		out[i++] = ok ? c : '_';
	}
	if (!i && len > 1)
		out[i++] = '_';
	out[i] = '\0';
}

/* The text format's escapes in a label value: backslash, quote, newline. */
void prom_label(struct prom_labels *l, const char *name, const char *value)
{
	char n[128];

	prom_name(name, n, sizeof(n));
	lput(l, l->len ? "," : "", l->len ? 1 : 0);
	lput(l, n, strlen(n));
	lput(l, "=\"", 2);
	for (; *value; value++) {
		if (*value == '\\')
			lput(l, "\\\\", 2);
		else if (*value == '"')
			lput(l, "\\\"", 2);
		else if (*value == '\n')
			lput(l, "\\n", 2);
		else
			lput(l, value, 1);
	}
	lput(l, "\"", 1);
}

void prom_family(const struct prom_out *o, const char *name, const char *type, const char *help)
{
	/* OpenMetrics names a counter's family without the sample's _total */
	const char *sfx = !o->openmetrics && !strcmp(type, "counter") ? "_total" : "";

	fprintf(o->f, "# HELP %s%s %s\n# TYPE %s%s %s\n", name, sfx, help, name, sfx, type);
}

static void sample_head(const struct prom_out *o, const char *name, const char *suffix,
			const struct prom_labels *l)
{
	fprintf(o->f, "%s%s", name, suffix ? suffix : "");
	if (l && l->len)
		fprintf(o->f, "{%s}", l->buf);
	fputc(' ', o->f);
}

void prom_sample_u64(const struct prom_out *o, const char *name, const char *suffix,
		     const struct prom_labels *l, uint64_t v)
{
	if (l && l->cut)
		return;
	sample_head(o, name, suffix, l);
	fprintf(o->f, "%llu\n", (unsigned long long)v);
}

void prom_double(double v, char *buf, size_t len)
{
	int p;

	if (isnan(v)) {
		snprintf(buf, len, "NaN");
		return;
	}
	if (isinf(v)) {
		snprintf(buf, len, v > 0 ? "+Inf" : "-Inf");
		return;
	}
	/* an integer as one, exactly (2^53 and below); else the fewest
	 * digits that read back as the same double */
	if (v == floor(v) && fabs(v) <= 9007199254740992.0) {
		snprintf(buf, len, "%.0f", v);
		return;
	}
	for (p = 1; p <= 17; p++) {
		snprintf(buf, len, "%.*g", p, v);
		if (strtod(buf, NULL) == v)
			return;
	}
}

void prom_sample_f(const struct prom_out *o, const char *name, const char *suffix,
		   const struct prom_labels *l, double v)
{
	char num[40];

	if (l && l->cut)
		return;
	prom_double(v, num, sizeof(num));
	sample_head(o, name, suffix, l);
	fprintf(o->f, "%s\n", num);
}

/* An edge, if there is room: values of raw buckets below upto are <= le. */
static void edge(struct prom_edge *out, int max, int *n, double le, uint32_t upto)
{
	if (*n < max) {
		out[*n].le = le;
		out[*n].upto = upto;
		(*n)++;
	}
}

/* Log2's edges from raw bucket base on: [0] <= 0, [1] <= 1, [2, 4) <= 3 ... */
#define PROM_LOG2_TOP	32	/* 2^32 - 1: above it, +Inf alone */

int prom_edges(int kind, uint32_t nbuckets, int64_t lin_min, int64_t lin_step, bool seconds,
	       struct prom_edge *out, int max)
{
	double scale = seconds ? 1e-9 : 1;
	int n = 0, k;
	uint32_t b;

	switch (kind) {
	case KPT_H_LOG2:
		for (k = 0; k <= PROM_LOG2_TOP && (uint32_t)k + 1 < nbuckets; k++)
			edge(out, max, &n, k ? ldexp(1, k) - 1 : 0, (uint32_t)k + 1);
		break;
	case KPT_H_SLOG2:
		/* raw bucket 64 - k holds [-(2^k - 1), -2^(k-1)]: at most -2^(k-1) */
		for (k = PROM_LOG2_TOP; k >= 1; k--)
			edge(out, max, &n, -ldexp(1, k - 1), KPT_SLOG2_ZERO - k + 1);
		edge(out, max, &n, 0, KPT_SLOG2_ZERO + 1);
		for (k = 1; k <= PROM_LOG2_TOP; k++)
			edge(out, max, &n, ldexp(1, k) - 1, KPT_SLOG2_ZERO + k + 1);
		break;
	case KPT_H_LINEAR:
		/* raw 0 is below lin_min, raw i holds [min + (i-1)step, min + i step) */
		for (b = 0; b + 1 < nbuckets; b++)
			edge(out, max, &n, (double)(lin_min + (int64_t)b * lin_step - 1), b + 1);
		break;
	case KPT_H_LOGLIN:
		/* a power of two is a log-linear edge: values below it are < 2^k */
		for (k = 10; k <= 34; k++)
			edge(out, max, &n, (ldexp(1, k) - 1) * scale,
			     kpt_loglin_bucket((__u64)1 << k));
		break;
	default:
		break;
	}
	return n;
}

int prom_edges_every(struct prom_edge *e, int n, int every)
{
	int i, zero = 0, kept = 0;

	if (every <= 1)
		return n;
	for (i = 0; i < n; i++)
		if (e[i].le == 0) {
			zero = i;
			break;
		}
	for (i = 0; i < n; i++)
		if (abs(i - zero) % every == 0)
			e[kept++] = e[i];
	return kept;
}

void prom_histogram(const struct prom_out *o, const char *name, const struct prom_labels *l,
		    const struct prom_edge *edges, int nedges, const uint64_t *counts,
		    uint32_t nbuckets, double sum)
{
	struct prom_labels bl;
	uint64_t cum = 0, total = 0;
	uint32_t b = 0, i;
	char le[40];
	int e;

	if (l->cut)
		return;
	for (i = 0; i < nbuckets; i++)
		total += counts[i];
	for (e = 0; e < nedges; e++) {
		for (; b < edges[e].upto && b < nbuckets; b++)
			cum += counts[b];
		bl = *l;
		prom_double(edges[e].le, le, sizeof(le));
		prom_label(&bl, "le", le);
		prom_sample_u64(o, name, "_bucket", &bl, cum);
	}
	bl = *l;
	prom_label(&bl, "le", "+Inf");
	prom_sample_u64(o, name, "_bucket", &bl, total);
	prom_sample_f(o, name, "_sum", l, sum);
	prom_sample_u64(o, name, "_count", l, total);
}

void prom_end(const struct prom_out *o)
{
	if (o->openmetrics)
		fputs("# EOF\n", o->f);
}
