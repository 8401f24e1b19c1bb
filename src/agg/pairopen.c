// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * latency --from/--to: the starts still open (kpt_pairs), at each report.
 * memleak's answer: allocations never freed, counted by the keys their
 * starts carry (--by of --from's fields, kstack, ustack), with the age of
 * the oldest.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>

#include "agg/agg.h"
#include "agg/aggstack.h"
#include "agg/pairopen.h"
#include "load/loader.h"
#include "util/json.h"

/* Open starts alike: their group, the words they carry, how many, the oldest. */
struct open_row {
	uint32_t group;
	__u64 w[KPT_KEY_WORDS];
	uint64_t count, oldest;
};

static int row_cmp(const void *a, const void *b)
{
	const struct open_row *x = a, *y = b;

	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	return x->count != y->count ? (x->count < y->count ? 1 : -1) : 0;
}

/* Row of (group, w) in rows[*n], added when new; NULL without memory. */
static struct open_row *row_of(struct open_row **rows, size_t *n, size_t *cap, uint32_t group,
			       const __u64 *w)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if ((*rows)[i].group == group && !memcmp((*rows)[i].w, w, sizeof((*rows)[i].w)))
			return &(*rows)[i];
	if (*n == *cap) {
		size_t nc = *cap ? 2 * *cap : 64;
		struct open_row *nr = realloc(*rows, nc * sizeof(*nr));

		if (!nr)
			return NULL;
		*rows = nr;
		*cap = nc;
	}
	memset(&(*rows)[*n], 0, sizeof(**rows));
	(*rows)[*n].group = group;
	memcpy((*rows)[*n].w, w, sizeof((*rows)[*n].w));
	return &(*rows)[(*n)++];
}

/* The first end of group (the keys' layout its starts carry), or -1. */
static int group_end(const struct agg_ctx *c, uint32_t group)
{
	int i;

	for (i = 0; i < c->n; i++)
		if (c->ents[i].agg.action == KPT_ACT_PAIR_END && c->ents[i].agg.lat_peer == group)
			return i;
	return -1;
}

/* One row: its title line and the start's stacks, or a JSON object. */
static void print_row(const struct agg_ctx *c, const struct open_row *r, uint64_t now)
{
	int e = group_end(c, r->group), i;
	const struct kpt_agg *g = e >= 0 ? &c->ents[e].agg : NULL;
	struct kpt_key k = { .probe = (uint32_t)e };
	double age = now > r->oldest ? (double)(now - r->oldest) / 1e9 : 0;
	char name[2 * SPEC_NAME_MAX + 8], part[160], keys[512] = "";
	size_t used = 0;

	if (!g)
		return;
	memcpy(k.w, r->w, sizeof(k.w));
	agg_probe_name(c->evs, c->n, g, e, name, sizeof(name));
	if (c->json) {
		fprintf(c->out, "{\"type\":\"open\",\"pair\":");
		json_fput_str(c->out, name, SIZE_MAX);
		fputs(",\"key\":{", c->out);
	}
	/* the start's keys only: the end's own are not known yet */
	for (i = 0; g->key_peer && i < g->nkeys; i++) {
		if (!(g->key_peer & (1u << i)))
			continue;
		if (agg_key_is_stack(g->key_kind[i])) {
			struct agg_stack as;

			if (!c->json)
				continue;	/* under the title line */
			fprintf(c->out, "%s\"%s\":", used++ ? "," : "", agg_key_name(c, e, i));
			aggstack_read(c->ld, agg_key_ev(&c->evs[e], g, i), g->key_kind[i],
				      agg_key_word(c, e, &k, i), &as);
			aggstack_json(c->out, &c->syms, &as);
			continue;
		}
		agg_key_text(c, e, &k, i, part, sizeof(part));
		if (c->json) {
			fprintf(c->out, "%s\"%s\":", used++ ? "," : "", agg_key_name(c, e, i));
			json_fput_str(c->out, part, SIZE_MAX);
		} else if (used < sizeof(keys)) {
			used += (size_t)snprintf(keys + used, sizeof(keys) - used, "%s%s",
						 used ? ", " : "", part);
		}
	}
	if (c->json) {
		fprintf(c->out, "},\"count\":%llu,\"oldest_s\":%.6f}\n",
			(unsigned long long)r->count, age);
		return;
	}
	fprintf(c->out, "open @%s%s%s%s: %llu starts not ended, the oldest %.3f s ago\n", name,
		keys[0] ? "[" : "", keys, keys[0] ? "]" : "", (unsigned long long)r->count, age);
	for (i = 0; i < g->nkeys; i++)
		if ((g->key_peer & (1u << i)) && agg_key_is_stack(g->key_kind[i])) {
			struct agg_stack as;

			aggstack_read(c->ld, agg_key_ev(&c->evs[e], g, i), g->key_kind[i],
				      agg_key_word(c, e, &k, i), &as);
			aggstack_text(c->out, &c->syms, &as, false);
		}
}

void agg_report_open(const struct agg_ctx *c)
{
	int fd = loader_map_fd(c->ld, LM_PAIRS);
	struct kpt_pair_key *keys;
	struct kpt_pair_val *v;
	struct open_row *rows = NULL, *r;
	size_t n = 0, cap = 0, i;
	struct timespec ts;
	uint32_t nk, e;
	uint64_t now;

	/* the run's keys and values as long as it needs: zero-padded */
	if (fd < 0 || loader_map_dump(fd, sizeof(*keys), sizeof(*v), (void **)&keys, (void **)&v, &nk))
		return;
	clock_gettime(CLOCK_MONOTONIC, &ts);	/* bpf_ktime_get_ns()'s clock */
	now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	for (e = 0; e < nk; e++) {
		r = row_of(&rows, &n, &cap, keys[e].probe, v[e].w);
		if (!r)
			break;
		r->count++;
		if (!r->oldest || v[e].ts < r->oldest)
			r->oldest = v[e].ts;
	}
	free(keys);
	free(v);
	if (n)
		qsort(rows, n, sizeof(*rows), row_cmp);
	for (i = 0; i < n; i++)
		print_row(c, &rows[i], now);
	free(rows);
	fflush(c->out);
}
