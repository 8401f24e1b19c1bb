// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* JIT symbols from /tmp/perf-PID.map (perfmap.h). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/perfmap.h"

struct jsym {
	uint64_t start, size;
	size_t line;		/* the line's place: the later of two at one start wins */
	char *name;
};

struct perfmap {
	struct jsym *s;
	size_t n;
};

static int jsym_cmp(const void *a, const void *b)
{
	const struct jsym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->line < y->line) - (x->line > y->line);	/* the later first */
}

/* "START SIZE NAME": false for anything else (a malformed line is skipped). */
static bool parse_line(char *line, struct jsym *j)
{
	char *end, *name;

	j->start = strtoull(line, &end, 16);
	if (end == line || *end != ' ')
		return false;
	line = end + 1;
	j->size = strtoull(line, &end, 16);
	if (end == line || *end != ' ' || !j->size)
		return false;
	name = end + 1;
	name[strcspn(name, "\n")] = '\0';
	j->name = *name ? strdup(name) : NULL;
	return j->name != NULL;
}

struct perfmap *perfmap_read(const char *path)
{
	struct perfmap *m;
	struct jsym j, *grown;
	size_t cap = 0, len = 0, i, k;
	char *line = NULL;
	FILE *f = fopen(path, "re");

	if (!f)
		return NULL;
	m = calloc(1, sizeof(*m));
	while (m && getline(&line, &len, f) > 0) {
		if (!parse_line(line, &j))
			continue;
		if (m->n == cap) {
			cap = cap ? 2 * cap : 64;
			grown = realloc(m->s, cap * sizeof(*grown));
			if (!grown) {
				free(j.name);
				break;
			}
			m->s = grown;
		}
		j.line = m->n;
		m->s[m->n++] = j;
	}
	free(line);
	fclose(f);
	if (!m || !m->n) {
		perfmap_free(m);
		return NULL;
	}
	qsort(m->s, m->n, sizeof(*m->s), jsym_cmp);
	for (i = k = 1; i < m->n; i++) {	/* one entry per start: the latest */
		if (m->s[i].start == m->s[k - 1].start)
			free(m->s[i].name);
		else
			m->s[k++] = m->s[i];
	}
	m->n = k;
	return m;
}

void perfmap_free(struct perfmap *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->n; i++)
		free(m->s[i].name);
	free(m->s);
	free(m);
}

const char *perfmap_find(const struct perfmap *m, uint64_t addr, uint64_t *off)
{
	size_t lo = 0, hi = m ? m->n : 0, mid;
	const struct jsym *j;

	while (lo < hi) {	/* the first entry starting above addr */
		mid = lo + (hi - lo) / 2;
		if (m->s[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	j = &m->s[lo - 1];
	if (addr - j->start >= j->size)
		return NULL;
	*off = addr - j->start;
	return j->name;
}
