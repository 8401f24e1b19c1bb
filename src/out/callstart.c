// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Latency calls' starts, kept until their call's record (callstart.h). */
#include <stdlib.h>
#include <string.h>

#include "out/callstart.h"
#include "out/output.h"
#include "kptrace.h"

static size_t start_bucket(uint64_t ts)
{
	return (size_t)((ts * 0x9e3779b97f4a7c15ull) >> 52) & (CALLSTART_BUCKETS - 1);
}

void callstart_put(struct call_starts *cs, const struct ev_desc *ev, const void *rec, size_t len)
{
	const struct kpt_rec_hdr *h = rec;
	struct call_start *st;
	size_t b;

	/* past the cap a call goes without its start's arguments, never missing */
	if (cs->n >= CALLSTART_MAX || decode_check(ev, rec, len))
		return;
	st = malloc(sizeof(*st) + len);
	if (!st)
		return;
	st->ts = h->ts;
	st->tid = h->tid;
	st->ev = ev;
	st->len = len;
	memcpy(st->rec, rec, len);
	b = start_bucket(h->ts);
	st->next = cs->b[b];
	cs->b[b] = st;
	cs->n++;
}

struct call_start *callstart_take(struct call_starts *cs, uint64_t ts, uint32_t tid)
{
	struct call_start **pp, **any = NULL, *st;

	if (!cs->n)
		return NULL;
	for (pp = &cs->b[start_bucket(ts)]; *pp; pp = &(*pp)->next) {
		if ((*pp)->ts != ts)
			continue;
		if ((*pp)->tid == tid)
			break;
		if (!any)
			any = pp;
	}
	if (!*pp)
		pp = any;
	if (!pp)
		return NULL;
	st = *pp;
	*pp = st->next;
	cs->n--;
	return st;
}

void callstart_free(struct call_starts *cs)
{
	struct call_start *st, *next;
	size_t b;

	for (b = 0; b < CALLSTART_BUCKETS; b++) {
		for (st = cs->b[b]; st; st = next) {
			next = st->next;
			free(st);
		}
		cs->b[b] = NULL;
	}
	cs->n = 0;
}
