// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * --perfetto FILE: a run as the Trace Event Format (the JSON Perfetto and
 * chrome://tracing import).
 *
 * latency: every timed call a complete event,
 *	{"name":FUNC,"cat":"kptrace","ph":"X","ts":US,"dur":US,"pid":TGID,
 *	 "tid":TID,"args":{"ts_ns":NS,"dur_ns":NS[,ENTRY ARGUMENTS]}}
 * the entry's (or --from's) fetched arguments taken from its record, which
 * the kernel sends only for this and which is matched by its time: a call
 * starts at its end minus its latency, to the nanosecond. Calls nest by
 * their times, per thread, as recursion does. With --over, only the calls
 * at or over it, each with "start" and "end" objects of both ends'
 * arguments in args.
 * kptrace why: each call of a printed tree a complete event, on the root's
 * thread, args {"ts_ns","dur_ns"[,"ret"][,"origin":true][,"returned":false]}
 * ("ret" as --json gives it)
 * (a call whose return the log did not keep ends with its parent).
 * Streamed events: each an instant on its thread,
 *	{"name":EVENT,"cat":GROUP,"ph":"I","s":"t","ts":US,"pid":TGID,
 *	 "tid":TID,"args":{"ts_ns":NS,ARGUMENTS}}
 * arguments typed as --json types them ("I": DevTools reads no "i"; Perfetto
 * and chrome://tracing read both).
 *
 * ts on the text output's clock (monotonic, or --time boot or wall), in
 * microseconds with three decimals so no nanosecond is lost, and in args
 * the integers. At the end: each thread's name (metadata events, the comm
 * seen last), each process's (its main thread's comm: seen last, else read
 * from /proc when the process was first seen; none when neither could be),
 * and the records the ring buffer had no room for as a counter track, "lost
 * events": a sample each time the count was read changed (perfetto_lost(),
 * after one of the count before at the reading before, so the step falls
 * between two readings), and the total at the end.
 */
#ifndef KPT_PERFETTO_H
#define KPT_PERFETTO_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "kptrace.h"

struct perfetto;
struct ev_desc;
struct ksyms;
struct call_start;

/* Open path for writing: NULL when it cannot be, with msg (empty: said on stderr already). */
struct perfetto *perfetto_open(const char *path, char *msg, size_t msglen);
/* Who names a symbol argument (NULL: addresses). */
void perfetto_set_ksyms(struct perfetto *pf, const struct ksyms *ks);
/* A streamed event, as an instant. */
void perfetto_instant(struct perfetto *pf, const struct ev_desc *ev, const void *rec, size_t len);
/*
 * A call's start with arguments: kept (out/callstart.h, at most
 * CALLSTART_MAX at once) until the call that began at its time ends.
 */
void perfetto_start(struct perfetto *pf, const struct ev_desc *ev, const void *rec, size_t len);
/* One call of name: h its end's header (ts the end), dur its latency in ns. */
void perfetto_call(struct perfetto *pf, const char *name, const struct kpt_rec_hdr *h,
		   uint64_t dur);
/* One slice of name on h's thread from start for dur ns, args a JSON
 * fragment of more members of its "args" (NULL: none). */
void perfetto_slice(struct perfetto *pf, const char *name, const struct kpt_rec_hdr *h,
		    uint64_t start, uint64_t dur, const char *args);
/* How long between two readings of the lost events, at least, ns. */
#define PERFETTO_LOST_EVERY_NS	100000000ull
/*
 * latency --over: a call at or over it, as perfetto_call()'s slice, with
 * its start's arguments (st, NULL if not kept) under args.start and its
 * end's (the record rec of ev) under args.end.
 */
void perfetto_slow(struct perfetto *pf, const char *name, const struct call_start *st,
		   const struct ev_desc *ev, const void *rec, size_t len, uint64_t dur);
/* Whether the lost events are due a reading at now (monotonic ns). */
bool perfetto_lost_due(const struct perfetto *pf, uint64_t now);
/* The records lost so far, read at now (monotonic ns): samples when the count changed. */
void perfetto_lost(struct perfetto *pf, uint64_t now, uint64_t lost);
/*
 * The names, the lost events' total (unless the last sample has it: at the
 * last event's time, or the last sample's if later), the closing bracket;
 * then free. 0 or -EIO.
 */
int perfetto_close(struct perfetto *pf, uint64_t lost);

#endif /* KPT_PERFETTO_H */
