/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Latency calls' starts with their arguments (the start records the kernel
 * sends with kpt_lat_emit), kept until the call's record comes: --perfetto's
 * slices and --over's lines show the start's arguments.
 */
#ifndef KPT_CALLSTART_H
#define KPT_CALLSTART_H

#include <stddef.h>
#include <stdint.h>
#include "prepare/event.h"

#define CALLSTART_BUCKETS	4096	/* chains of kept starts, by their time */
#define CALLSTART_MAX		65536	/* at most this many kept at once */

/* A call's start with arguments, waiting for the call's end. */
struct call_start {
	struct call_start *next;
	uint64_t ts;
	uint32_t tid;
	const struct ev_desc *ev;
	size_t len;
	unsigned char rec[];
};

struct call_starts {
	struct call_start *b[CALLSTART_BUCKETS];
	size_t n;
};

/* Keep a start record (checked against ev); past CALLSTART_MAX, or without memory, not. */
void callstart_put(struct call_starts *cs, const struct ev_desc *ev, const void *rec, size_t len);
/*
 * The start kept for a call that began at ts on tid (a --from/--to pair's:
 * of any thread), unlinked, for the caller to free(); or NULL.
 */
struct call_start *callstart_take(struct call_starts *cs, uint64_t ts, uint32_t tid);
/* Free the starts whose calls never ended (in flight, or their end filtered). */
void callstart_free(struct call_starts *cs);

#endif /* KPT_CALLSTART_H */
