// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* In-kernel aggregation, userspace half: map reading and tables (prepare/aggdef.c configures). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>

#include "agg/agg.h"
#include "agg/aggstack.h"
#include "agg/hist.h"
#include "agg/pmu_report.h"
#include "lang/valfmt.h"
#include "out/output.h"
#include "out/tpprint.h"
#include "sys/tracepoint.h"
#include "util/folded.h"
#include "util/hash.h"
#include "util/keylist.h"
#include "util/svg.h"
#include "util/table.h"

/* ---- reading ---- */

struct kentry {
	struct kpt_key k;
	struct kpt_aggval v;
};

struct kset {
	struct kentry *e;
	size_t n, cap;
};

static void aggval_merge(struct kpt_aggval *to, const struct kpt_aggval *from, bool sgn)
{
	if (!from->count)
		return;
	if (!to->count || (sgn ? (int64_t)from->min < (int64_t)to->min : from->min < to->min))
		to->min = from->min;
	if (!to->count || (sgn ? (int64_t)from->max > (int64_t)to->max : from->max > to->max))
		to->max = from->max;
	to->count += from->count;
	to->sum += from->sum;
}

/* Sum a per-CPU value array of aggvals into one. */
static void aggval_sum(const struct kpt_aggval *pc, int ncpus, bool sgn, struct kpt_aggval *out)
{
	int i;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < ncpus; i++)
		aggval_merge(out, &pc[i], sgn);
}

/* --budget: group g's scale for an estimate, 1 where nothing of it was skipped. */
static double group_scale(const struct agg_ctx *c, uint32_t g)
{
	return c->scale && g < (uint32_t)c->n ? c->scale[g] : 1.0;
}

static uint64_t scaled(double f, uint64_t v)
{
	return f == 1.0 ? v : (uint64_t)((double)v * f + 0.5);
}

/* A sampled group's count and sum scaled back: min and max stay what was seen. */
static void scale_val(const struct agg_ctx *c, uint32_t g, struct kpt_aggval *v)
{
	double f = group_scale(c, g);

	v->count = scaled(f, v->count);
	v->sum = (uint64_t)(int64_t)((double)(int64_t)v->sum * f);
}

/* Room for one more entry at s->e[s->n]: 0, or -ENOMEM. */
static int kset_room(struct kset *s)
{
	size_t cap;
	struct kentry *ne;

	if (s->n < s->cap)
		return 0;
	cap = s->cap ? s->cap * 2 : 256;
	ne = realloc(s->e, cap * sizeof(*ne));
	if (!ne)
		return -ENOMEM;
	s->e = ne;
	s->cap = cap;
	return 0;
}

static int kset_load(struct kset *s, int fd, int ncpus, const struct agg_ctx *c)
{
	struct kpt_key *keys;
	struct kpt_aggval *vals;
	uint32_t n, i;
	int err = loader_map_dump(fd, sizeof(*keys), ncpus * sizeof(*vals), (void **)&keys,
				  (void **)&vals, &n);

	/* the map's keys are as long as the run's, the rest of each 0 */
	for (i = 0; !err && i < n; i++) {
		struct kpt_key *key = &keys[i];

		if ((err = kset_room(s)))
			break;
		s->e[s->n].k = *key;
		/* key.probe is the group: its first probe says how to compare */
		aggval_sum(vals + (size_t)i * ncpus, ncpus,
			   key->probe < (__u32)c->n && c->ents[key->probe].agg.value_signed,
			   &s->e[s->n].v);
		scale_val(c, key->probe, &s->e[s->n].v);
		s->n++;
	}
	free(keys);
	free(vals);
	return err;
}

/*
 * A key's bucket AGG_BUCKET_OVER (never the kernel's): the overflow series
 * of a keyed probe, its events past --max-keys (kpt_overflow_stats()), which
 * every output names "<overflow>" in each key part.
 */
#define AGG_BUCKET_OVER		0xfffffffeu

static bool key_over(const struct kpt_key *k)
{
	return k && k->bucket == AGG_BUCKET_OVER;
}

/*
 * Group i's value stats in kpt_hstat, summed over the CPUs; for -i, then
 * zeroed. An unkeyed histogram's, or a keyed probe's overflow.
 */
static void read_group_stats(const struct agg_ctx *c, int i, bool clear, struct kpt_aggval *out)
{
	const struct kpt_agg *g = &c->ents[i].agg;
	int sfd = loader_map_fd(c->ld, LM_HSTAT), ncpus = c->ld->ncpus;
	struct kpt_aggval *pv = calloc(ncpus, sizeof(*pv));
	__u32 key = g->group;

	memset(out, 0, sizeof(*out));
	if (!pv || bpf_map_lookup_elem(sfd, &key, pv))
		goto out;
	aggval_sum(pv, ncpus, g->value_signed, out);
	if (clear && out->count) {
		memset(pv, 0, ncpus * sizeof(*pv));
		bpf_map_update_elem(sfd, &key, pv, BPF_ANY);
	}
	scale_val(c, g->group, out);
out:
	free(pv);
}

/*
 * Probe i's value stats kept beside its HITS (KPT_PF_OWN_STATS: no -i, so
 * never cleared), summed over the CPUs.
 */
static void read_own_stats(const struct agg_ctx *c, int i, struct kpt_aggval *out)
{
	const struct kpt_agg *g = &c->ents[i].agg;
	struct kpt_stats *ps = loader_stats_cpus(c->ld, i);
	int cpu;

	memset(out, 0, sizeof(*out));
	for (cpu = 0; ps && cpu < c->ld->ncpus; cpu++)
		aggval_merge(out, &ps[cpu].val, g->value_signed);
	free(ps);
	scale_val(c, g->group, out);
}

/*
 * The count rows the keyed map does not hold, each where it counted
 * something: a keyed count's overflow, and a count without keys kept
 * beside its HITS, as the row the map would have held.
 */
static int kset_add_stats_rows(struct kset *s, const struct agg_ctx *c, bool clear)
{
	int i;

	for (i = 0; i < c->n; i++) {
		const struct kpt_agg *g = &c->ents[i].agg;
		struct kentry e = { .k = { .probe = (__u32)i } };

		if (g->action != KPT_ACT_COUNT)
			continue;
		if (c->ents[i].flags & KPT_PF_OWN_STATS) {
			e.k.bucket = KPT_BUCKET_STATS;
			read_own_stats(c, i, &e.v);
		} else if (g->nkeys && g->group == (__u32)i) {
			e.k.bucket = AGG_BUCKET_OVER;
			read_group_stats(c, i, clear, &e.v);
		}
		if (!e.v.count)
			continue;
		if (kset_room(s))
			return -ENOMEM;
		s->e[s->n++] = e;
	}
	return 0;
}

/* Order: probe, key words, bucket (stats entries last). */
static int kentry_cmp(const void *a, const void *b)
{
	const struct kentry *x = a, *y = b;
	int c;

	if (x->k.probe != y->k.probe)
		return x->k.probe < y->k.probe ? -1 : 1;
	c = memcmp(x->k.w, y->k.w, sizeof(x->k.w));
	if (c)
		return c;
	return x->k.bucket < y->k.bucket ? -1 : x->k.bucket > y->k.bucket;
}

/* ---- printing ---- */

static const char *key_kind_name(const struct kpt_agg *g, const struct ev_desc *ev, int i)
{
	switch (g->key_kind[i]) {
	case KPT_K_COMM:
		return "comm";
	case KPT_K_TGID:
		return "pid";
	case KPT_K_TID:
		return "tid";
	case KPT_K_CPU:
		return "cpu";
	case KPT_K_KSTACK:
	case KPT_K_USTACK:
		/* a pair end's own stack is to_kstack: kstack is its start's */
		if (g->action == KPT_ACT_PAIR_END && !(g->key_peer & (1u << i)))
			return g->key_kind[i] == KPT_K_KSTACK ? "to_kstack" : "to_ustack";
		return g->key_kind[i] == KPT_K_KSTACK ? "kstack" : "ustack";
	case KPT_K_CGROUP:
		return "cgroup";
	case KPT_K_CONTAINER:
		return "container";
	default:
		return agg_key_arg(ev, g, i)->name;
	}
}

/*
 * A tracepoint field's value as the kernel's print fmt shows it: a dev_t as
 * its MAJOR,MINOR (the kernel's MINORBITS, 20), a __print_symbolic()'s name.
 */
static bool tp_named(const struct ev_desc *ev, const struct ev_arg *a, uint64_t v, char *buf,
		     size_t len)
{
	const char *s;

	if (!strcmp(a->tp_field->type, "dev_t")) {
		snprintf(buf, len, "%u,%u", (unsigned int)(v >> 20), (unsigned int)(v & 0xfffff));
		return true;
	}
	s = tpprint_symbol(ev, a->tp_field->name, v);
	if (s)
		snprintf(buf, len, "%s", s);
	return s;
}

/* Key part i as text: comms as strings, addresses symbolized, numbers, the kernel's names. */
static void format_key_part(const struct agg_ctx *c, const struct kpt_agg *g,
			    const struct ev_desc *ev, const struct kpt_key *k, int i, int *w,
			    char *buf, size_t len)
{
	const struct ev_arg *a;
	uint64_t v;

	if (key_over(k)) {
		*w += kpt_key_width(g->key_kind[i]);
		snprintf(buf, len, "<overflow>");
		return;
	}
	if (g->key_kind[i] == KPT_K_COMM || g->key_kind[i] == KPT_K_STR) {
		char str[KPT_KEY_STR + 1] = { 0 };
		int n = kpt_key_width(g->key_kind[i]);

		if (*w + n > KPT_KEY_WORDS) {
			buf[0] = '\0';
			return;
		}
		memcpy(str, &k->w[*w], (size_t)n * 8);
		*w += n;
		snprintf(buf, len, "%s", str);
		return;
	}
	if (g->key_kind[i] == KPT_K_IPV6) {
		uint8_t b[VALFMT_IPV6_LEN];

		if (*w + 2 > KPT_KEY_WORDS) {
			buf[0] = '\0';
			return;
		}
		memcpy(b, &k->w[*w], sizeof(b));
		*w += 2;
		valfmt_ipv6(b, buf, len);
		return;
	}
	v = k->w[(*w)++];
	if (agg_key_is_stack(g->key_kind[i])) {
		buf[0] = '\0';		/* printed as frames, under the row (print_key_stacks()) */
		return;
	}
	if (g->key_kind[i] == KPT_K_CGROUP || g->key_kind[i] == KPT_K_CONTAINER) {
		/* named now, not in the kernel: a cgroup made since is read then */
		const struct ctr *ct = c->ctrs ? ctr_by_cgid(c->ctrs, v) : NULL;

		if (ct)
			snprintf(buf, len, "%s", g->key_kind[i] == KPT_K_CGROUP ? ct->path : ct->name);
		else
			snprintf(buf, len, "cgroup:%" PRIu64, v);
		return;
	}
	if (g->key_kind[i] != KPT_K_ARG) {
		snprintf(buf, len, "%" PRIu64, v);
		return;
	}
	a = agg_key_arg(ev, g, i);
	if (a->tp_field && tp_named(ev, a, v, buf, len))
		return;
	/* A key that is a kernel text address reads best as a symbol. */
	if (c->ksyms && agg_key_symbolic(a) && (a->type == SPEC_T_SYMBOL || v >> 47 == 0x1ffff) &&
	    ksyms_by_addr(c->ksyms, v)) {
		ksyms_format(c->ksyms, v, true, buf, len);
		return;
	}
	/* the key holds the slot's bytes zero-extended: a signed value's sign
	 * is at the top of its own width (an s32 -4096, an errno at its width) */
	if (spec_type_signed(a->type) && a->size && a->size < 8 && (v >> (a->size * 8 - 1) & 1))
		v |= ~UINT64_C(0) << (a->size * 8);
	if (valfmt_scalar(a->type, v, a->vfmt, buf, len))
		return;		/* an address, a network-order number, an errno name */
	switch (spec_type_info(a->type)->num) {
	case SPEC_NUM_S:
		snprintf(buf, len, "%" PRId64, (int64_t)v);
		break;
	case SPEC_NUM_U:
		snprintf(buf, len, "%" PRIu64, v);
		break;
	default:	/* x types, symbols, chars */
		snprintf(buf, len, "0x%" PRIx64, v);
		break;
	}
}

static void format_key(const struct agg_ctx *c, const struct kpt_agg *g, const struct ev_desc *ev,
		       const struct kpt_key *k, const char *sep, char *buf, size_t len)
{
	size_t used = 0;
	int i, w = 0;

	buf[0] = 0;
	for (i = 0; i < g->nkeys && used < len; i++) {
		char part[160];

		format_key_part(c, g, ev, k, i, &w, part, sizeof(part));
		if (agg_key_is_stack(g->key_kind[i]))
			continue;
		used += snprintf(buf + used, len - used, "%s%s", used ? sep : "", part);
	}
}

/* The word of key part i in k (a comm takes two). */
/* The first word of key part i: the widths of the parts before it. */
static int key_offset(const struct kpt_agg *g, int i)
{
	int j, w = 0;

	for (j = 0; j < i; j++)
		w += kpt_key_width(g->key_kind[j]);
	return w;
}

static uint64_t key_word(const struct kpt_agg *g, const struct kpt_key *k, int i)
{
	int w = key_offset(g, i);

	return w < KPT_KEY_WORDS ? k->w[w] : 0;
}

/* Whether any cgroup or container part of probe's key k is one drop() names. */
static bool key_dropped(const struct agg_ctx *c, const struct kpt_key *k, agg_drop_fn drop,
			void *arg)
{
	const struct kpt_agg *g;
	int i;

	if (k->probe >= (__u32)c->n)
		return false;
	g = &c->ents[k->probe].agg;
	for (i = 0; i < g->nkeys; i++)
		if ((g->key_kind[i] == KPT_K_CGROUP || g->key_kind[i] == KPT_K_CONTAINER) &&
		    drop(arg, key_word(g, k, i)))
			return true;
	return false;
}

int agg_drop_keys(const struct agg_ctx *c, agg_drop_fn drop, void *arg)
{
	int fd = loader_map_fd(c->ld, LM_KAGG), n = 0, i, err = 0;
	struct kpt_key key = { 0 }, next = { 0 }, *del = NULL, *grown;
	void *prev = NULL;
	size_t cap = 0;

	if (fd < 0)
		return 0;
	/* found first, deleted after: a deletion in the walk would restart it */
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		if (!key_dropped(c, &key, drop, arg))
			continue;
		if ((size_t)n == cap) {
			cap = cap ? cap * 2 : 64;
			grown = realloc(del, cap * sizeof(*del));
			if (!grown) {
				err = -ENOMEM;
				break;
			}
			del = grown;
		}
		del[n++] = key;
	}
	for (i = 0; i < n; i++)
		bpf_map_delete_elem(fd, &del[i]);
	free(del);
	return err ? err : n;
}

/*
 * A key's stacks, each as -K/-U print one, under its row or histogram title;
 * kernel frames with offsets when another row's would read the same.
 */
/* Whether a key part is a stack: its own (stack_keys), or a pair start's. */
static bool has_stack_key(const struct kpt_agg *g)
{
	int i;

	for (i = 0; i < g->nkeys && i < KPT_MAX_KEYS; i++)
		if (agg_key_is_stack(g->key_kind[i]))
			return true;
	return false;
}

static void print_key_stacks(const struct agg_ctx *c, const struct kpt_agg *g,
			     const struct ev_desc *ev, const struct kpt_key *k, bool offsets)
{
	struct agg_stack as;
	int i;

	for (i = 0; i < g->nkeys && !key_over(k); i++) {
		if (!agg_key_is_stack(g->key_kind[i]))
			continue;
		aggstack_read(c->ld, agg_key_ev(ev, g, i), g->key_kind[i], key_word(g, k, i), &as);
		aggstack_text(c->out, &c->syms, &as, offsets);
	}
}

/* How a count row reads without offsets: its probe, its other keys' words, its stacks' names. */
static uint64_t row_look(const struct agg_ctx *c, const struct table_row *r)
{
	const struct kpt_agg *g = &c->ents[r->probe].agg;
	uint64_t h = kpt_hash(&r->probe, sizeof(r->probe)), v;
	struct agg_stack as;
	int i, w = 0, n;

	for (i = 0; i < g->nkeys && w < KPT_KEY_WORDS; i++) {
		n = kpt_key_width(g->key_kind[i]);
		n = w + n > KPT_KEY_WORDS ? KPT_KEY_WORDS - w : n;
		if (agg_key_is_stack(g->key_kind[i])) {
			aggstack_read(c->ld, agg_key_ev(&c->evs[r->probe], g, i), g->key_kind[i],
				      r->key.w[w], &as);
			v = aggstack_look(&c->syms, &as);
		} else {
			v = kpt_hash(&r->key.w[w], (size_t)n * sizeof(r->key.w[0]));
		}
		h = (h ^ v) * KPT_FNV_PRIME;
		w += n;
	}
	return h;
}

struct look {
	uint64_t h;
	size_t row;
};

static int look_cmp(const void *x, const void *y)
{
	const struct look *a = x, *b = y;

	return a->h < b->h ? -1 : a->h > b->h;
}

/*
 * The rows of t that would read alike, their stacks named without offsets
 * (two call sites in one function): a flag per row, malloc'ed, or NULL
 * (then none is flagged).
 */
static bool *alike_rows(const struct agg_ctx *c, const struct table *t)
{
	struct look *l = calloc(t->n ? t->n : 1, sizeof(*l));
	bool *alike = calloc(t->n ? t->n : 1, sizeof(*alike));
	size_t i;

	if (!l || !alike) {
		free(l);
		free(alike);
		return NULL;
	}
	for (i = 0; i < t->n; i++)
		l[i] = (struct look){ t->rows[i].has_key ? row_look(c, &t->rows[i]) : i, i };
	qsort(l, t->n, sizeof(*l), look_cmp);
	for (i = 1; i < t->n; i++)
		if (l[i].h == l[i - 1].h)
			alike[l[i].row] = alike[l[i - 1].row] = true;
	free(l);
	return alike;
}

static void json_key(FILE *f, const struct agg_ctx *c, const struct kpt_agg *g,
		     const struct ev_desc *ev, const struct kpt_key *k)
{
	int i, w = 0;

	fputs("{", f);
	for (i = 0; i < g->nkeys; i++) {
		char part[160];

		format_key_part(c, g, ev, k, i, &w, part, sizeof(part));
		if (agg_key_is_stack(g->key_kind[i]) && !key_over(k)) {
			struct agg_stack as;

			fprintf(f, "%s\"%s\":", i ? "," : "", key_kind_name(g, ev, i));
			aggstack_read(c->ld, agg_key_ev(ev, g, i), g->key_kind[i],
				      key_word(g, k, i), &as);
			aggstack_json(f, &c->syms, &as);
			continue;
		}
		fprintf(f, "%s\"%s\":", i ? "," : "", key_kind_name(g, ev, i));
		json_fput_str(f, part, SIZE_MAX);
	}
	fputs("}", f);
}

/* A latency: a function's entry to its return, or --from to --to. */
static bool is_latency(const struct kpt_agg *g)
{
	return g->action == KPT_ACT_LAT_END || g->action == KPT_ACT_PAIR_END;
}

static const char *agg_unit(const struct agg_ctx *c, const struct kpt_agg *g)
{
	if (!is_latency(g))
		return NULL;
	return c->opts->unit ? c->opts->unit : "us";
}

void agg_probe_name(const struct ev_desc *evs, int n, const struct kpt_agg *g, int i, char *buf,
		    size_t len)
{
	const struct ev_desc *peer = &evs[g->lat_peer < (uint32_t)n ? g->lat_peer : (uint32_t)i];

	size_t at = 0;
	int j;

	if (g->action == KPT_ACT_PAIR_END) {
		/* --from to --to: the starts of its group, '|' between, then the end */
		for (j = 0; j < n && at < len; j++)
			if (evs[j].pair_start && evs[j].pair_group == evs[i].pair_group)
				at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? "|" : "",
						       evs[j].event);
		if (!at)
			at = (size_t)snprintf(buf, len, "%s", peer->event);
		if (at < len)
			snprintf(buf + at, len - at, "->%s", evs[i].event);
	} else if (g->action == KPT_ACT_LAT_END)
		snprintf(buf, len, "%s", peer->func[0] ? peer->func : peer->event);
	else
		snprintf(buf, len, "%s", evs[i].event);
}

/* The title of probe i's histogram, bpftrace style: @name[key]. */
static void hist_title(const struct agg_ctx *c, int i, const char *key, char *buf, size_t len)
{
	const struct kpt_agg *g = &c->ents[i].agg;
	char timed[2 * SPEC_NAME_MAX + 3];
	const char *name = timed;

	if (is_latency(g))
		agg_probe_name(c->evs, c->n, g, i, timed, sizeof(timed));
	else
		name = c->evs[i].args[g->value_argi].name;
	if (key && *key)
		snprintf(buf, len, "@%s[%s]:", name, key);
	else
		snprintf(buf, len, "@%s:", name);
}

/* ---- --svg: the tables as the text prints them, for svg.c ---- */

struct hist_rows {
	struct hist_row *r;
	size_t n, cap;
	bool oom;
};

static void collect_row(void *arg, const struct hist_row *r)
{
	struct hist_rows *hr = arg;

	if (hr->n == hr->cap) {
		size_t cap = hr->cap ? 2 * hr->cap : 64;
		struct hist_row *nr = realloc(hr->r, cap * sizeof(*nr));

		if (!nr) {
			hr->oom = true;
			return;
		}
		hr->r = nr;
		hr->cap = cap;
	}
	hr->r[hr->n++] = *r;
}

/* rows into svg_row form, into *out (NULL and n 0 when there are none); false without memory. */
static bool svg_rows_of(const struct hist_rows *hr, struct svg_row **out)
{
	size_t k;

	*out = NULL;
	if (!hr->n)
		return !hr->oom;
	if (hr->oom || !(*out = calloc(hr->n, sizeof(**out))))
		return false;
	for (k = 0; k < hr->n; k++)
		(*out)[k] = (struct svg_row){ .index = hr->r[k].index, .label = hr->r[k].label,
					      .count = hr->r[k].count, .lo = hr->r[k].lo,
					      .hi = hr->r[k].hi };
	return true;
}

/*
 * Every row h's layout has, as if each bucket held a call: a heatmap keeps
 * the rows between its lowest and highest non-empty bucket over all the
 * intervals, which no one interval's rows may span.
 */
static void layout_rows(const struct hist_view *h, struct hist_rows *all)
{
	uint64_t *ones = calloc(h->nbuckets ? h->nbuckets : 1, sizeof(*ones));
	struct hist_view v = *h;
	uint32_t b;

	if (!ones) {
		all->oom = true;
		return;
	}
	for (b = 0; b < h->nbuckets; b++)
		ones[b] = 1;
	v.counts = ones;
	hist_rows(&v, collect_row, all);
	free(ones);
}

/*
 * The p50, p90, p99 of a histogram that is not a latency's: nearest rank
 * (hist_rank(), as hist.c's) over the printed rows, the text of the row
 * holding that call, placed at hist_percentile()'s estimate inside it.
 */
static size_t row_pcts(const struct hist_view *h, const struct hist_rows *hr,
		       struct svg_pct *pcts, const char *const *names, const double *qs)
{
	unsigned __int128 total = 0, cum;
	size_t k, r, n = 0;

	for (r = 0; r < hr->n; r++)
		total += hr->r[r].count;
	for (k = 0; total && k < 3; k++) {
		unsigned __int128 rank = hist_rank(qs[k], total);

		for (r = 0, cum = 0; r < hr->n; r++)
			if ((cum += hr->r[r].count) >= rank)
				break;
		if (r == hr->n || hist_percentile(h, qs[k], &pcts[n].value))
			continue;
		pcts[n].name = names[k];
		pcts[n].text = hr->r[r].label;
		n++;
	}
	return n;
}

/* One histogram into the picture: its rows' labels, stats and percentiles as printed. */
static void svg_hist_of(const struct agg_ctx *c, int i, const char *title,
			const struct hist_view *h)
{
	static const char *const names[] = { "p50", "p90", "p99" };
	static const double qs[] = { 0.5, 0.9, 0.99 };
	const struct kpt_agg *g = &c->ents[i].agg;
	char axis[128], stats[512], ptext[3][64];
	struct hist_rows hr = { 0 }, all = { 0 };
	struct svg_row *rows = NULL, *span = NULL;
	struct svg_pct pcts[3];
	struct svg_hist sh = { .title = title, .axis = axis, .stats = stats, .pcts = pcts };
	size_t k;
	int n;

	n = hist_rows(h, collect_row, &hr);
	if (c->interval_reset)
		layout_rows(h, &all);
	sh.invalid = n < 0 || !svg_rows_of(&hr, &rows) || !svg_rows_of(&all, &span);
	sh.rows = rows;
	sh.nrows = rows ? hr.n : 0;
	sh.span = span;
	sh.nspan = span ? all.n : 0;
	if (is_latency(g))
		snprintf(axis, sizeof(axis), "latency (%s)", h->unit);
	else
		snprintf(axis, sizeof(axis), "%s", c->evs[i].args[g->value_argi].name);
	hist_stats_line(h, stats, sizeof(stats));
	/* latency's percentiles as its summary line prints them, each interval's */
	for (k = 0; is_latency(g) && k < 3; k++) {
		pcts[k] = (struct svg_pct){ .name = names[k], .text = ptext[k] };
		hist_percentile_text(h, qs[k], &pcts[k].value, ptext[k], sizeof(ptext[k]));
		sh.npcts = k + 1;
	}
	if (!is_latency(g) && !sh.invalid)
		sh.npcts = row_pcts(h, &hr, pcts, names, qs);
	svg_add_hist(c->svg, &sh);
	free(rows);
	free(span);
	free(hr.r);
	free(all.r);
}

/* Under a sampled table: that its counts are estimates, and by how much they were scaled. */
static void print_estimate(const struct agg_ctx *c, uint32_t g)
{
	double f = group_scale(c, g);

	if (f != 1.0)
		fprintf(c->out, "~ estimates: --budget recorded 1 hit in %.2f of %s/%s; counts and "
			"sums scaled by it, min and max as seen\n", f, c->evs[g].group,
			c->evs[g].event);
}

static void print_one_hist(const struct agg_ctx *c, int i, const char *key_text,
			   const struct kpt_key *key, const uint64_t *counts,
			   const struct kpt_aggval *stats, bool clear)
{
	const struct kpt_agg *g = &c->ents[i].agg;
	struct hist_view h = {
		.kind = g->hist,
		.nbuckets = g->nbuckets,
		.counts = counts,
		.lin_min = g->lin_min,
		.lin_step = g->lin_step,
		.stats = *stats,
		.unit = agg_unit(c, g),
		.value_signed = g->value_signed,
	};
	char title[256];

	if (c->visit) {
		struct agg_series as = { .probe = i, .key = key, .counts = counts, .stats = stats,
					 .over = key_over(key) };

		c->visit(c->visit_arg, c, &as);
		return;
	}
	hist_title(c, i, key_text, title, sizeof(title));
	if (c->svg)
		svg_hist_of(c, i, title, &h);
	if (c->json) {
		fprintf(c->out, "{\"group\":\"%s\",\"event\":\"%s\",\"type\":\"%s\"",
			c->evs[i].group, c->evs[i].event,
			is_latency(g) ? "latency" : "hist");
		if (key) {
			fputs(",\"key\":", c->out);
			json_key(c->out, c, g, &c->evs[i], key);
		}
		if (group_scale(c, g->group) != 1.0)
			fprintf(c->out, ",\"estimate\":true,\"scale\":%.4f", group_scale(c, g->group));
		fputs(",\"hist\":", c->out);
		hist_print_json(c->out, &h);
		if (c->pmu && g->action == KPT_ACT_LAT_END && !key)
			pmu_report(c->out, true, c->pmu, c->ld, g, i, h.unit, clear);
		fputs("}\n", c->out);
		return;
	}
	/* a latency of one call: its one value on the title's line, a list of them compact */
	if (is_latency(g) && !(c->pmu && !key) && group_scale(c, g->group) == 1.0 &&
	    hist_print_one(c->out, title, &h)) {
		if (key && has_stack_key(g)) {
			print_key_stacks(c, g, &c->evs[i], key, false);
			fputc('\n', c->out);
		}
		return;
	}
	if (key && has_stack_key(g)) {
		/* the title, its stacks, then the histogram */
		fprintf(c->out, "%s\n", title);
		print_key_stacks(c, g, &c->evs[i], key, false);
		hist_print(c->out, NULL, &h);
	} else {
		hist_print(c->out, title, &h);
	}
	if (is_latency(g))
		hist_print_latency_summary(c->out, &h);
	if (c->pmu && g->action == KPT_ACT_LAT_END && !key)
		pmu_report(c->out, false, c->pmu, c->ld, g, i, h.unit, clear);
	print_estimate(c, g->group);
	fputc('\n', c->out);
}

/*
 * Group i's unkeyed histogram: counts[nbuckets] from kpt_hist, the stats
 * beside the probe's HITS (KPT_PF_OWN_STATS, no -i) or in kpt_hstat; for
 * -i, then zeroed. An unkeyed probe's histogram, or a keyed one's overflow.
 */
static void read_unkeyed(const struct agg_ctx *c, int i, bool clear, uint64_t *counts,
			 struct kpt_aggval *stats)
{
	const struct kpt_agg *g = &c->ents[i].agg;
	__u32 b;

	if (loader_hist_read(c->ld, g->hist_base, g->nbuckets, clear, counts))
		memset(counts, 0, g->nbuckets * sizeof(*counts));
	for (b = 0; b < g->nbuckets; b++)
		counts[b] = scaled(group_scale(c, g->group), counts[b]);
	if (c->ents[i].flags & KPT_PF_OWN_STATS)
		read_own_stats(c, i, stats);
	else
		read_group_stats(c, i, clear, stats);
}

/*
 * -i: an interval's count is the sum of its buckets. They and its stats are
 * read (and zeroed) one map after the other while the probes run, so a call
 * in between lands in this interval's stats and the next one's buckets (473
 * rows under "count 474", then 476 under "count 475"). Its sum, min and max
 * stay the stats' (that call's value at most is in the other interval),
 * unless the stats saw none of the calls: then they have no min and max to
 * give, and the count stays theirs.
 */
static void interval_count(const struct kpt_agg *g, const uint64_t *counts,
			   struct kpt_aggval *stats)
{
	uint64_t n = 0;
	uint32_t b;

	for (b = 0; b < g->nbuckets; b++)
		n += counts[b];
	if (!n)
		memset(stats, 0, sizeof(*stats));
	else if (stats->count)
		stats->count = n;
}

/* Whether the run pairs several --to ends (globs: syscount -L's hundreds). */
static bool several_ends(const struct agg_ctx *c)
{
	int i, n = 0;

	for (i = 0; i < c->n && n < 2; i++)
		n += c->ents[i].agg.action == KPT_ACT_PAIR_END;
	return n > 1;
}

/* 1 when left out: among several --to ends, one without a call (unless --zeros). */
static int report_unkeyed(const struct agg_ctx *c, int i, bool clear)
{
	uint64_t *counts = calloc(c->ents[i].agg.nbuckets, sizeof(*counts));
	struct kpt_aggval stats;
	int quiet;

	if (!counts)
		return 0;
	read_unkeyed(c, i, clear, counts, &stats);
	if (c->interval_reset)
		interval_count(&c->ents[i].agg, counts, &stats);
	quiet = !stats.count && !c->opts->zeros && c->ents[i].agg.action == KPT_ACT_PAIR_END &&
		several_ends(c);
	if (!quiet)
		print_one_hist(c, i, NULL, NULL, counts, &stats, clear);
	free(counts);
	return quiet;
}

/* A keyed histogram's events past --max-keys, as one more histogram. */
static void report_overflow_hist(const struct agg_ctx *c, int i, bool clear, uint64_t *counts)
{
	const struct kpt_agg *g = &c->ents[i].agg;
	struct kpt_key over = { .probe = g->group, .bucket = AGG_BUCKET_OVER };
	struct kpt_aggval stats;
	uint64_t n = 0;
	uint32_t b;

	read_unkeyed(c, i, clear, counts, &stats);
	for (b = 0; b < g->nbuckets; b++)
		n += counts[b];
	if (n || stats.count)
		print_one_hist(c, i, "<overflow>", &over, counts, &stats, clear);
}

/* Keyed histograms of probe i: its entries of the sorted set, then its overflow. */
static void report_keyed_hist(const struct agg_ctx *c, int i, const struct kset *s, bool clear)
{
	const struct kpt_agg *g = &c->ents[i].agg;
	uint64_t *counts = calloc(g->nbuckets, sizeof(*counts));
	size_t j = 0, k;

	if (!counts)
		return;
	while (j < s->n) {
		struct kpt_aggval stats = { 0 };
		char key[256];

		if (s->e[j].k.probe != g->group) {
			j++;
			continue;
		}
		memset(counts, 0, g->nbuckets * sizeof(*counts));
		for (k = j; k < s->n && s->e[k].k.probe == g->group &&
			    !memcmp(s->e[k].k.w, s->e[j].k.w, sizeof(s->e[j].k.w)); k++) {
			if (s->e[k].k.bucket == KPT_BUCKET_STATS)
				stats = s->e[k].v;
			else if (s->e[k].k.bucket < g->nbuckets)
				counts[s->e[k].k.bucket] += s->e[k].v.count;
		}
		format_key(c, g, &c->evs[i], &s->e[j].k, ", ", key, sizeof(key));
		print_one_hist(c, i, key, &s->e[j].k, counts, &stats, false);
		j = k;
	}
	report_overflow_hist(c, i, clear, counts);
	free(counts);
}

static const char *const stat_names[] = { "SUM", "AVG", "MIN", "MAX" };
static const char *const stat_keys[] = { "sum", "avg", "min", "max" };	/* --json's */

/* Where "probe" is among --by's keys (a column of the table, no key word), or -1. */
static int probe_key_pos(const char *by)
{
	struct keylist kl;

	keylist_parse(by, &kl);
	return keylist_index(&kl, "probe");
}

/* --avg's value: the mean, rounded toward zero, as bpftrace's avg(). */
static int64_t stat_avg(const struct kpt_aggval *v, bool sgn)
{
	if (!v->count)
		return 0;
	return sgn ? (int64_t)v->sum / (int64_t)v->count : (int64_t)(v->sum / v->count);
}

/* One statistic (AGG_ST_*) of v as text, signed or not. */
static void format_stat(const struct kpt_aggval *v, unsigned int st, bool sgn, char *buf,
			size_t len)
{
	uint64_t x = st == AGG_ST_SUM ? v->sum : st == AGG_ST_MIN ? v->min :
		     st == AGG_ST_MAX ? v->max : (uint64_t)stat_avg(v, sgn);

	if (sgn)
		snprintf(buf, len, "%" PRId64, (int64_t)x);
	else
		snprintf(buf, len, "%" PRIu64, x);
}

/* What a row sorts by, largest first: the count or a statistic, signed ones in order. */
static uint64_t sort_value(const struct kpt_aggval *v, unsigned int by, bool sgn)
{
	uint64_t x = by == AGG_ST_SUM ? v->sum : by == AGG_ST_MIN ? v->min :
		     by == AGG_ST_MAX ? v->max : by == AGG_ST_AVG ? (uint64_t)stat_avg(v, sgn) :
		     v->count;

	return sgn && by ? x ^ (1ull << 63) : x;
}

/* The text of a count row's cells: the count, its statistics, then the columns in order. */
static int count_row(const struct agg_ctx *c, struct table *t, int i, const struct kentry *e,
		     int probe_col)
{
	const struct kpt_agg *g = &c->ents[i].agg;
	const struct ev_desc *ev = &c->evs[i];
	char parts[TABLE_MAX_COLS][160], probe[160];
	const char *cells[TABLE_MAX_COLS];
	int k, w = 0, col = 1, b, err;

	snprintf(parts[0], sizeof(parts[0]), "%llu", e ? (unsigned long long)e->v.count : 0ull);
	cells[0] = parts[0];
	for (b = 0; b < 4; b++) {
		if (!(c->opts->stats & (1u << b)))
			continue;
		if (e)
			format_stat(&e->v, 1u << b, g->value_signed, parts[col], sizeof(parts[col]));
		else
			strcpy(parts[col], "-");
		cells[col] = parts[col];
		col++;
	}
	snprintf(probe, sizeof(probe), "%s/%s", ev->group, ev->event);
	for (k = 0; k <= g->nkeys; k++) {
		if (col == probe_col)
			cells[col++] = probe;
		if (k == g->nkeys)
			break;
		if (e)
			format_key_part(c, g, ev, &e->k, k, &w, parts[col], sizeof(parts[col]));
		else
			strcpy(parts[col], "-");	/* a probe nothing hit: no key */
		if (agg_key_is_stack(g->key_kind[k]))
			continue;	/* no column: the frames go under the row */
		cells[col] = parts[col];
		col++;
	}
	err = table_add(t, e ? sort_value(&e->v, c->opts->sort_by, g->value_signed) : 0,
			(uint32_t)i, e ? &e->k : NULL, cells);
	if (!err && e)
		t->rows[t->n - 1].agg = e->v;
	return err;
}

struct row_stacks {
	const struct agg_ctx *c;
	const struct table *t;
	const bool *alike;	/* alike_rows()'s, or NULL */
};

/* Under a count row, its stacks (table_print_each()'s callback). */
static void count_row_stacks(const struct table_row *r, void *arg)
{
	const struct row_stacks *rs = arg;
	const struct agg_ctx *c = rs->c;

	if (r->has_key)
		print_key_stacks(c, &c->ents[r->probe].agg, &c->evs[r->probe], &r->key,
				 rs->alike && rs->alike[r - rs->t->rows]);
}

/* One count row as JSON: the probe, the count and the key (null for a row of zero). */
static void json_count_row(const struct agg_ctx *c, const struct table_row *r)
{
	const struct kpt_agg *g = &c->ents[r->probe].agg;
	const struct ev_desc *ev = &c->evs[r->probe];

	int b;

	fprintf(c->out, "{\"group\":\"%s\",\"event\":\"%s\",\"type\":\"count\","
		"\"count\":%llu,", ev->group, ev->event, (unsigned long long)r->agg.count);
	if (group_scale(c, g->group) != 1.0)
		fprintf(c->out, "\"estimate\":true,\"scale\":%.4f,", group_scale(c, g->group));
	for (b = 0; b < 4; b++) {
		char v[32];

		if (!(c->opts->stats & (1u << b)))
			continue;
		format_stat(&r->agg, 1u << b, g->value_signed, v, sizeof(v));
		fprintf(c->out, "\"%s\":%s,", stat_keys[b], r->has_key ? v : "null");
	}
	fputs("\"key\":", c->out);
	if (r->has_key)
		json_key(c->out, c, g, ev, &r->key);
	else
		fputs(g->nkeys ? "null" : "{}", c->out);
	fputs("}\n", c->out);
}

/* A count bar's length: the column the rows sort by, a negative one none. */
static uint64_t bar_value(const struct kpt_aggval *v, unsigned int by, bool sgn)
{
	uint64_t x = by == AGG_ST_SUM ? v->sum : by == AGG_ST_MIN ? v->min :
		     by == AGG_ST_MAX ? v->max : by == AGG_ST_AVG ? (uint64_t)stat_avg(v, sgn) :
		     v->count;

	return by && sgn && (int64_t)x < 0 ? 0 : x;
}

/* "A  B" of t's cells (or names, row NULL) from column from on; "" when none. */
static void join_cols(const struct table *t, const struct table_row *row, int from, char *buf,
		      size_t len)
{
	size_t used = 0;
	int k;

	buf[0] = '\0';
	for (k = from; k < t->ncols && used < len; k++)
		used += snprintf(buf + used, len - used, "%s%s", used ? "  " : "",
				 row ? row->cell[k] : t->name[k]);
}

/* The count table as printed, after --top, into the picture: a bar per row. */
static void svg_count_of(const struct agg_ctx *c, const struct table *t, int first,
			 int probe_col)
{
	int nst = __builtin_popcount(c->opts->stats & 15u), vcol = 0;
	struct svg_count_row *rows = calloc(t->n ? t->n : 1, sizeof(*rows));
	char (*labels)[512] = calloc(t->n ? t->n : 1, sizeof(*labels));
	char title[160], keys[512];
	struct svg_count sc = { .title = title, .keys = keys, .rows = rows };
	size_t j;

	if (!rows || !labels)
		goto out;
	if (c->opts->sort_by)
		vcol = 1 + __builtin_popcount(c->opts->stats & (c->opts->sort_by - 1));
	sc.value_name = t->name[vcol];
	join_cols(t, NULL, 1 + nst, keys, sizeof(keys));
	if (probe_col < 0)
		snprintf(title, sizeof(title), "%s/%s:", c->evs[first].group, c->evs[first].event);
	else
		snprintf(title, sizeof(title), "%s by %s", t->name[vcol], keys);
	for (j = 0; j < t->n; j++) {
		const struct table_row *r = &t->rows[j];
		const struct ev_desc *ev = &c->evs[r->probe];

		join_cols(t, r, 1 + nst, labels[j], sizeof(labels[j]));
		if (!labels[j][0])	/* no key column: the probe is the row */
			snprintf(labels[j], sizeof(labels[j]), "%s/%s", ev->group, ev->event);
		rows[j] = (struct svg_count_row){
			.label = labels[j], .text = r->cell[vcol],
			.value = bar_value(&r->agg, c->opts->sort_by,
					   c->ents[r->probe].agg.value_signed),
		};
	}
	sc.nrows = t->n;
	svg_add_count(c->svg, &sc);
out:
	free(rows);
	free(labels);
}

/*
 * Every count probe's rows as one table: sorted by count, --top over all of
 * it, the probe a column when there are several or --by names it, and a
 * probe nothing hit left out unless --zeros.
 */
static void report_counts(const struct agg_ctx *c, const struct kset *s)
{
	int i, k, first = -1, ngroups = 0, probe_col = -1, pos = probe_key_pos(c->opts->by);
	const struct kpt_agg *g;
	struct row_stacks rs;
	struct table t;
	size_t j;

	for (i = 0; i < c->n; i++) {
		if (c->ents[i].agg.action != KPT_ACT_COUNT || c->ents[i].agg.group != (__u32)i)
			continue;
		if (first < 0)
			first = i;
		ngroups++;
	}
	if (first < 0)
		return;
	g = &c->ents[first].agg;
	table_init(&t);
	/* COUNT twelve wide, as the single table always was */
	table_col(&t, "COUNT", true, 12);
	for (k = 0; k < 4; k++)
		if (c->opts->stats & (1u << k))
			table_col(&t, stat_names[k], true, 0);
	if (pos < 0 && ngroups > 1)
		pos = 0;
	for (k = 0; k <= g->nkeys; k++) {
		if (k == pos)
			probe_col = table_col(&t, "probe", false, 0);
		if (k < g->nkeys && !agg_key_is_stack(g->key_kind[k]))
			table_col(&t, key_kind_name(g, &c->evs[first], k), false, 0);
	}
	for (i = first; i < c->n; i++) {
		bool any = false;

		if (c->ents[i].agg.action != KPT_ACT_COUNT || c->ents[i].agg.group != (__u32)i)
			continue;
		for (j = 0; j < s->n; j++) {
			if (s->e[j].k.probe != (__u32)i)
				continue;
			any = true;
			if (count_row(c, &t, i, &s->e[j], probe_col))
				goto cleanup;
		}
		if (!any && c->opts->zeros && count_row(c, &t, i, NULL, probe_col))
			goto cleanup;
	}
	table_sort(&t);
	if (c->opts->top > 0)
		table_truncate(&t, (size_t)c->opts->top);
	if (c->svg)
		svg_count_of(c, &t, first, probe_col);
	if (c->json) {
		for (j = 0; j < t.n; j++)
			json_count_row(c, &t.rows[j]);
		goto cleanup;
	}
	if (probe_col < 0)
		fprintf(c->out, "%s/%s:\n", c->evs[first].group, c->evs[first].event);
	rs = (struct row_stacks){ c, &t, has_stack_key(g) ? alike_rows(c, &t) : NULL };
	table_print_each(&t, c->out, has_stack_key(g) ? count_row_stacks : NULL, &rs);
	free((void *)rs.alike);
	for (i = first; i < c->n; i++)
		if (c->ents[i].agg.action == KPT_ACT_COUNT && c->ents[i].agg.group == (__u32)i)
			print_estimate(c, (uint32_t)i);
	fputc('\n', c->out);
cleanup:
	table_free(&t);
}

/* Key e's frames for --folded, root first: its other keys, the user stack, the kernel stack. */
static int folded_key(const struct agg_ctx *c, const struct kpt_agg *g, const struct ev_desc *ev,
		      const struct kpt_key *k, char **names, size_t max, size_t *n)
{
	int kinds[2] = { KPT_K_USTACK, KPT_K_KSTACK }, i, j, w = 0, err = 0;
	struct agg_stack as;
	char part[160];

	for (i = 0; i < g->nkeys && *n < max; i++) {
		format_key_part(c, g, ev, k, i, &w, part, sizeof(part));
		if (agg_key_is_stack(g->key_kind[i]))
			continue;
		if (!(names[(*n)++] = strdup(part)))
			return -ENOMEM;
	}
	for (j = 0; j < 2 && !err && !key_over(k); j++)
		for (i = 0; i < g->nkeys && !err; i++)
			if (g->key_kind[i] == kinds[j]) {
				aggstack_read(c->ld, agg_key_ev(ev, g, i), kinds[j],
					      key_word(g, k, i), &as);
				err = aggstack_names(&c->syms, &as, names, max, n);
			}
	return err;
}

/*
 * --folded: every key's events as one line, root;...;leaf COUNT, identical
 * stacks merged (a count's rows, a histogram's events per key).
 */
static void report_folded(const struct agg_ctx *c, const struct kset *s)
{
	struct folded *fd = folded_new();
	char *names[KPT_MAX_KEYS + 2 * KPT_STACK_MAX];
	size_t j, n, m;

	for (j = 0; fd && j < s->n; j++) {
		const struct kentry *e = &s->e[j];
		const struct kpt_agg *g;

		if ((e->k.bucket != KPT_BUCKET_STATS && !key_over(&e->k)) || (int)e->k.probe >= c->n)
			continue;
		g = &c->ents[e->k.probe].agg;
		n = 0;
		if (!folded_key(c, g, &c->evs[e->k.probe], &e->k, names,
				sizeof(names) / sizeof(names[0]), &n))
			folded_add(fd, (const char *const *)names, n, e->v.count);
		for (m = 0; m < n; m++)
			free(names[m]);
	}
	if (fd)
		folded_print(fd, c->out);
	else
		fprintf(stderr, "kptrace: error: --folded: out of memory\n");
	folded_free(fd);
}

/* Each count probe's rows to c->visit, in the set's order. */
static void visit_counts(const struct agg_ctx *c, const struct kset *s)
{
	size_t j;

	for (j = 0; j < s->n; j++) {
		const struct kentry *e = &s->e[j];
		struct agg_series as = { .probe = (int)e->k.probe, .key = &e->k, .stats = &e->v };

		if (e->k.probe >= (__u32)c->n || c->ents[e->k.probe].agg.action != KPT_ACT_COUNT ||
		    (e->k.bucket != KPT_BUCKET_STATS && !key_over(&e->k)))
			continue;
		as.over = key_over(&e->k);
		c->visit(c->visit_arg, c, &as);
	}
}

void agg_key_text(const struct agg_ctx *c, int probe, const struct kpt_key *k, int i, char *buf,
		  size_t len)
{
	const struct kpt_agg *g = &c->ents[probe].agg;
	int w = key_offset(g, i);

	format_key_part(c, g, &c->evs[probe], k, i, &w, buf, len);
}

uint64_t agg_key_word(const struct agg_ctx *c, int probe, const struct kpt_key *k, int i)
{
	return key_word(&c->ents[probe].agg, k, i);
}

const char *agg_key_name(const struct agg_ctx *c, int probe, int i)
{
	return key_kind_name(&c->ents[probe].agg, &c->evs[probe], i);
}

void agg_report(const struct agg_ctx *c, bool clear)
{
	struct kset s = { 0 };
	int kfd = loader_map_fd(c->ld, LM_KAGG);
	bool keyed = false;
	int i, quiet = 0;

	for (i = 0; i < c->n; i++)
		keyed |= c->ents[i].agg.nkeys > 0 || c->ents[i].agg.action == KPT_ACT_COUNT;
	if (keyed) {
		kset_load(&s, kfd, c->ld->ncpus, c);
		kset_add_stats_rows(&s, c, clear);
		if (s.n)	/* an empty set's array is NULL, which qsort may not take */
			qsort(s.e, s.n, sizeof(*s.e), kentry_cmp);
	}
	/*
	 * -i: every report is an interval's, the last one (the rest since the
	 * one before, clear false) too; each under its own time, in the text
	 * as in the picture, where each is a column.
	 */
	if (c->interval_reset && !c->visit) {
		time_t t = time(NULL);
		struct tm tm;
		char ts[32];

		strftime(ts, sizeof(ts), "%H:%M:%S", localtime_r(&t, &tm));
		if (!c->json)
			fprintf(c->out, "%s\n", ts);
		if (c->svg)
			svg_column(c->svg, ts);
	}
	for (i = 0; i < c->n && !c->folded; i++) {
		const struct kpt_agg *g = &c->ents[i].agg;

		if (g->group != (__u32)i)
			continue; /* reported with its group's first probe */
		if (g->action == KPT_ACT_COUNT)
			continue; /* one table of them all, below */
		if (g->action == KPT_ACT_HIST || is_latency(g)) {
			if (g->nkeys)
				report_keyed_hist(c, i, &s, clear);
			else
				quiet += report_unkeyed(c, i, clear);
		}
	}
	if (quiet && !c->json && !c->visit)
		fprintf(c->out, "(%d --from/--to pairs without a call left out: --zeros shows "
			"them)\n", quiet);
	if (c->visit)
		visit_counts(c, &s);
	else if (c->folded)
		report_folded(c, &s);
	else
		report_counts(c, &s);
	if (clear) {
		size_t j;

		for (j = 0; j < s.n; j++)
			if (!key_over(&s.e[j].k))
				bpf_map_delete_elem(kfd, &s.e[j].k);
	}
	free(s.e);
	fflush(c->out);
}
