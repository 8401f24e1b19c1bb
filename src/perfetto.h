// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * latency --perfetto FILE: every timed call as a complete event of the
 * Trace Event Format (the JSON Perfetto and chrome://tracing import):
 *	{"name":FUNC,"cat":"kptrace","ph":"X","ts":US,"dur":US,"pid":TGID,
 *	 "tid":TID,"args":{"ts_ns":NS,"dur_ns":NS}}
 * ts the call's start on the text output's clock (CLOCK_MONOTONIC), in
 * microseconds with three decimals so no nanosecond is lost, and in
 * args the integers. Calls nest by their times, per thread, as recursion
 * does. At the end: each process's and thread's name (metadata events, the
 * comm seen last) and the events the ring buffer had no room for as a
 * counter track, "lost calls".
 */
#ifndef KPT_PERFETTO_H
#define KPT_PERFETTO_H

#include <stdint.h>
#include <stdio.h>

#include "kptrace.h"

struct perfetto;

/* Open path for writing: NULL when it cannot be, with msg (empty: said on stderr already). */
struct perfetto *perfetto_open(const char *path, char *msg, size_t msglen);
/* One call of name: h its return's header (ts the end), dur its latency in ns. */
void perfetto_call(struct perfetto *pf, const char *name, const struct kpt_rec_hdr *h,
		   uint64_t dur);
/* The names, the lost calls (at the last call's time), the closing bracket; then free. 0 or -EIO. */
int perfetto_close(struct perfetto *pf, uint64_t lost);

#endif /* KPT_PERFETTO_H */
