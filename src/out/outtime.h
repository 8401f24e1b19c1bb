// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * --time: the clock a streamed event's time is printed in. Records carry
 * CLOCK_MONOTONIC nanoseconds (bpf_ktime_get_ns()); boot and wall time are
 * that plus an offset from one pair of clock readings at start, so every
 * event of a run is on one clock and costs no system call.
 *	mono	ftrace's "%5lu.%06lu" seconds (the default)
 *	boot	the same on CLOCK_BOOTTIME (counts suspend)
 *	wall	ISO 8601, local time with microseconds and the UTC offset:
 *		2026-12-02T04:05:06.123456+00:00
 *	delta	seconds since the previous event printed, "%5lu.%06lu"
 * Each rounds to the nearest microsecond, as ftrace's ns2usecs() does.
 */
#ifndef KPT_OUTTIME_H
#define KPT_OUTTIME_H

#include <stdbool.h>
#include <stdint.h>
#include "prepare/opts.h"


/* The longest text outtime_text() writes, its NUL not included. */
#define OUTTIME_TEXT_MAX	40

/* "mono", "boot", "wall" or "delta" to *c; false for another word. */
bool outtime_parse(const char *s, enum out_clock *c);
/* Choose the clock; for boot and wall, read their offsets from CLOCK_MONOTONIC now. */
void outtime_init(enum out_clock c);
/* Set the offsets by hand (tests): boot and wall minus monotonic, nanoseconds. */
void outtime_set(enum out_clock c, int64_t boot_off, int64_t wall_off);
/*
 * An event's time, mono its record's nanoseconds: the chosen clock's
 * nanoseconds (wall: since the epoch; delta: since the previous call's
 * event). Each call is the next event: delta remembers it.
 */
uint64_t outtime_ns(uint64_t mono);
/* outtime_ns(mono) as the text prints it, into p; returns the end. */
char *outtime_text(char *p, uint64_t mono);
/* What boot or wall adds to a monotonic time, ns; 0 for mono and delta. */
int64_t outtime_offset(void);
/* The clock chosen. */
enum out_clock outtime_clock(void);

#endif /* KPT_OUTTIME_H */
