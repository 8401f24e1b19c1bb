// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* In-kernel aggregation, its definition: each probe's struct kpt_agg from the options. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prepare/aggdef.h"
#include "util/keylist.h"

static bool is_scalar(const struct ev_arg *a)
{
	return !a->count && !a->data && !spec_type_is_string(a->type);
}

/* --by's keys that are not an argument: name, kind, key words. */
static const struct {
	const char *name;
	int kind, words;
} builtin_keys[] = {
	{ "comm", KPT_K_COMM, 2 },
	{ "pid", KPT_K_TGID, 1 },
	{ "tid", KPT_K_TID, 1 },
	{ "cpu", KPT_K_CPU, 1 },
	{ "CPU", KPT_K_CPU, 1 },
	{ "kstack", KPT_K_KSTACK, 1 },
	{ "ustack", KPT_K_USTACK, 1 },
	{ "cgroup", KPT_K_CGROUP, 1 },
	{ "container", KPT_K_CONTAINER, 1 },
};

/* builtin_keys' entry for name, or -1. */
static int builtin_key(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(builtin_keys) / sizeof(builtin_keys[0]); i++)
		if (!strcmp(name, builtin_keys[i].name))
			return (int)i;
	return -1;
}

bool agg_builtin_key(const char *name)
{
	return builtin_key(name) >= 0;
}

/* KPT_SK_* of a stack key's kind, 0 for others. */
static int stack_key_bit(int kind)
{
	return kind == KPT_K_KSTACK ? KPT_SK_KSTACK : kind == KPT_K_USTACK ? KPT_SK_USTACK : 0;
}

bool agg_key_is_stack(int kind)
{
	return stack_key_bit(kind) != 0;
}

/* At a pair's end (from), to_kstack and to_ustack: the end's own stack, as kstack, ustack. */
static const char *pair_stack(const char *tok, const struct ev_desc *from)
{
	return from && (!strcmp(tok, "to_kstack") || !strcmp(tok, "to_ustack")) ? tok + 3 : tok;
}

/*
 * --by: comm, pid, tid, cpu, kstack, ustack or a scalar argument's name,
 * comma separated. from: at a pair's end, its start, whose arguments the
 * end's do not name may be keys too (the start makes them: key_peer).
 */
static int parse_keys(const char *by, const struct ev_desc *ev, const struct ev_desc *from,
		      struct kpt_agg *g, char *msg, size_t msglen)
{
	struct keylist kl;
	int words = 0, a, b, k;

	if (!by || !*by)
		return 0;
	keylist_parse(by, &kl);
	for (k = 0; k < kl.n; k++) {
		const char *tok = kl.w[k];
		const struct ev_desc *kev;
		int kind, w = 1;

		if (g->nkeys == KPT_MAX_KEYS) {
			snprintf(msg, msglen, "--by: at most %d keys", KPT_MAX_KEYS);
			return -EINVAL;
		}
		a = ev_arg_index(ev, tok);
		kev = ev;
		if (a < 0 && from && (a = ev_arg_index(from, tok)) >= 0) {
			kev = from;
			g->key_peer |= 1u << g->nkeys;
		}
		if (a < 0 && !strcmp(tok, "probe")) {
			/* the table's probe column: no key word in the kernel */
			if (g->action == KPT_ACT_COUNT)
				continue;
			snprintf(msg, msglen, "--by probe: for count (hist and latency give each "
				 "probe a histogram of its own)");
			return -EINVAL;
		}
		if (a >= 0) {
			const struct ev_arg *ea = &kev->args[a];

			/* a string: its first KPT_KEY_STR - 1 bytes */
			if (spec_type_is_string(ea->type) && !ea->count && !ea->data &&
			    ea->type != SPEC_T_SYMSTR) {
				kind = KPT_K_STR;
			} else if (ea->type == SPEC_T_IPV6 && !ea->data) {
				kind = KPT_K_IPV6;	/* its 16 bytes, two words */
			} else if (!is_scalar(ea)) {
				snprintf(msg, msglen, "--by %s: only a number or a string can be a "
					 "key (not an array%s)", tok, ea->data ? ", nor a constant" :
					 ea->type == SPEC_T_SYMSTR ? ", nor a symstr: use :symbol" : "");
				return -EINVAL;
			} else {
				kind = KPT_K_ARG;
			}
			w = kpt_key_width(kind);
			g->key_argi[g->nkeys] = a;
		} else if ((b = builtin_key(pair_stack(tok, from))) >= 0) {
			kind = builtin_keys[b].kind;
			w = builtin_keys[b].words;
			/* a pair's kstack/ustack: its start's, carried (the sleeper's,
			 * not the waker's); to_kstack/to_ustack the end's */
			if (from && stack_key_bit(kind) && tok == pair_stack(tok, from)) {
				g->key_peer |= 1u << g->nkeys;
			} else if (g->stack_keys & stack_key_bit(kind)) {
				snprintf(msg, msglen, "--by %s: given twice", tok);
				return -EINVAL;
			} else {
				g->stack_keys |= stack_key_bit(kind);
			}
		} else {
			snprintf(msg, msglen, "--by %s: not comm, pid, tid, cpu, kstack, ustack, "
				 "cgroup, container, probe or an argument of %s/%s%s%s%s", tok, ev->group, ev->event,
				 from ? " (nor of --from's " : "", from ? from->event : "",
				 from ? ")" : "");
			return -EINVAL;
		}
		if (words + w > KPT_KEY_WORDS) {
			snprintf(msg, msglen, "--by %s: keys too wide (at most %d words: a number "
				 "takes one, comm two, a string %d)", by, KPT_KEY_WORDS,
				 KPT_KEY_STR_WORDS);
			return -EINVAL;
		}
		words += w;
		g->key_kind[g->nkeys++] = kind;
	}
	return 0;
}

/* count --sum FIELD (--avg, --min, --max): FIELD's value goes in each key's stats. */
static int count_value(const struct agg_opts *o, const struct ev_desc *ev, struct kpt_agg *g,
		       char *msg, size_t msglen)
{
	int a = ev_arg_index(ev, o->stat_field);

	if (a < 0) {
		snprintf(msg, msglen, "%s/%s has no argument '%s' to sum (name one of its "
			 "arguments or fields)", ev->group, ev->event, o->stat_field);
		return -EINVAL;
	}
	if (!is_scalar(&ev->args[a])) {
		snprintf(msg, msglen, "'%s' is not a number: --sum, --avg, --min and --max take "
			 "a scalar argument", o->stat_field);
		return -EINVAL;
	}
	g->value_argi = a;
	g->value_signed = spec_type_signed(ev->args[a].type);
	g->count_value = 1;
	return 0;
}

int agg_setup(const struct agg_opts *o, enum kpt_action action, const struct ev_desc *ev,
	      uint32_t peer, struct kpt_agg *g, uint32_t *next_bucket, char *msg, size_t msglen)
{
	int a = -1, err;

	memset(g, 0, sizeof(*g));
	g->action = action;
	g->group = ev->index;
	g->value_sub_argi = 0xff;
	switch (action) {
	case KPT_ACT_HIST:
		if (o->field) {
			a = ev_arg_index(ev, o->field);
			if (a < 0) {
				snprintf(msg, msglen, "%s/%s has no argument '%s' to histogram",
					 ev->group, ev->event, o->field);
				return -EINVAL;
			}
		} else {
			for (a = 0; a < ev->nargs && (!is_scalar(&ev->args[a]) ||
						       ev->args[a].hidden); a++)
				;
			if (a == ev->nargs) {
				snprintf(msg, msglen, "%s/%s has no numeric argument to histogram "
					 "(add one, e.g. size=%s:u64)", ev->group, ev->event,
					 KPT_EX_REG2);
				return -EINVAL;
			}
		}
		if (!is_scalar(&ev->args[a])) {
			snprintf(msg, msglen, "'%s' is not a number: a histogram needs a scalar "
				 "argument", ev->args[a].name);
			return -EINVAL;
		}
		g->value_argi = a;
		g->value_signed = spec_type_signed(ev->args[a].type);
		if (o->sub_field) {
			int b = ev_arg_index(ev, o->sub_field);

			if (b < 0 || !is_scalar(&ev->args[b])) {
				snprintf(msg, msglen, "%s/%s has no numeric argument '%s' (--slack "
					 "needs the kmem:kmalloc tracepoint)", ev->group, ev->event,
					 o->sub_field);
				return -EINVAL;
			}
			g->value_sub_argi = b;
		}
		/* a signed value's negatives get buckets of their own (KPT_H_SLOG2) */
		g->hist = o->kind && o->kind != KPT_H_LOG2 ? o->kind
			  : g->value_signed ? KPT_H_SLOG2 : KPT_H_LOG2;
		if (g->hist == KPT_H_LINEAR) {
			int64_t n;

			if (o->lin_step <= 0 || o->lin_max <= o->lin_min) {
				snprintf(msg, msglen, "--linear MIN,MAX,STEP needs MAX > MIN and "
					 "STEP > 0");
				return -EINVAL;
			}
			n = (o->lin_max - o->lin_min + o->lin_step - 1) / o->lin_step + 2;
			if (n > KPT_LINEAR_MAX) {
				snprintf(msg, msglen, "--linear: %" PRId64 " buckets, at most %d "
					 "(a larger STEP)", n, KPT_LINEAR_MAX);
				return -EINVAL;
			}
			g->nbuckets = (uint32_t)n;
			g->lin_min = o->lin_min;
			g->lin_step = o->lin_step;
		} else {
			g->nbuckets = g->hist == KPT_H_SLOG2 ? KPT_SLOG2_BUCKETS : KPT_LOG2_BUCKETS;
		}
		break;
	case KPT_ACT_LAT_END:
	case KPT_ACT_PAIR_END:
		g->hist = KPT_H_LOGLIN;
		g->nbuckets = KPT_LOGLIN_BUCKETS;
		g->lat_peer = peer;
		break;
	case KPT_ACT_COUNT:
		if (o->stat_field && (err = count_value(o, ev, g, msg, msglen)))
			return err;
		break;
	case KPT_ACT_PAIR_START:
		g->lat_peer = peer;	/* the group's key (kpt_pair_key.probe) */
		break;
	case KPT_ACT_LAT_START:
		break;
	default:
		return 0;
	}
	if (action != KPT_ACT_LAT_START && action != KPT_ACT_PAIR_START) {
		err = parse_keys(o->by, ev, action == KPT_ACT_PAIR_END && o->evs ? &o->evs[peer] :
				 NULL, g, msg, msglen);
		if (err)
			return err;
	}
	/* keyed too: their buckets past --max-keys, the overflow series */
	if (g->nbuckets) {
		g->hist_base = *next_bucket;
		*next_bucket += g->nbuckets;
	}
	if (action == KPT_ACT_LAT_END && o->pmu_n) {
		if (g->nkeys) {
			snprintf(msg, msglen, "--pmu does not combine with --by");
			return -EINVAL;
		}
		/* a log-linear histogram per counter, after the latency's */
		g->pmu_base = *next_bucket;
		*next_bucket += o->pmu_n * KPT_LOGLIN_BUCKETS;
	}
	return 0;
}

const struct ev_desc *agg_key_ev(const struct ev_desc *ev, const struct kpt_agg *g, int i)
{
	return g->key_peer & (1u << i) ? ev + ((int)g->lat_peer - ev->index) : ev;
}

const struct ev_arg *agg_key_arg(const struct ev_desc *ev, const struct kpt_agg *g, int i)
{
	return &agg_key_ev(ev, g, i)->args[g->key_argi[i]];
}


/* A key argument that may be a kernel text address: it prints as a symbol. */
bool agg_key_symbolic(const struct ev_arg *a)
{
	return a->type == SPEC_T_SYMBOL || a->size == 8;
}

bool agg_keys_symbolic(const struct kpt_agg *g, const struct ev_desc *ev)
{
	int i;

	for (i = 0; i < g->nkeys && i < KPT_MAX_KEYS; i++)
		if (g->key_kind[i] == KPT_K_ARG && agg_key_symbolic(agg_key_arg(ev, g, i)))
			return true;
	return false;
}
