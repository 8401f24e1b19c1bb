// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* --time: an event's clock and its text (outtime.h). */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "out/outtime.h"
#include "util/fmt.h"

static struct {
	enum out_clock clock;
	int64_t boot_off, wall_off;	/* that clock minus CLOCK_MONOTONIC, ns */
	uint64_t prev;			/* delta: the previous event's monotonic ns */
	bool have_prev;
	/* wall: the last second's "YYYY-MM-DDTHH:MM:SS" and "+HH:MM", made once a second */
	int64_t sec;
	char date[24], zone[8];
} ot = { .sec = -1 };

bool outtime_parse(const char *s, enum out_clock *c)
{
	static const char *const names[] = { "mono", "boot", "wall", "delta" };
	unsigned int i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i])) {
			*c = (enum out_clock)i;
			return true;
		}
	return false;
}

static int64_t ts_ns(const struct timespec *t)
{
	return (int64_t)t->tv_sec * 1000000000 + t->tv_nsec;
}

/* clk minus CLOCK_MONOTONIC, against the mean of two monotonic readings around it. */
static int64_t offset_of(clockid_t clk)
{
	struct timespec a, x, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	clock_gettime(clk, &x);
	clock_gettime(CLOCK_MONOTONIC, &b);
	return ts_ns(&x) - (ts_ns(&a) + (ts_ns(&b) - ts_ns(&a)) / 2);
}

void outtime_set(enum out_clock c, int64_t boot_off, int64_t wall_off)
{
	ot.clock = c;
	ot.boot_off = boot_off;
	ot.wall_off = wall_off;
	ot.have_prev = false;
	ot.sec = -1;
}

void outtime_init(enum out_clock c)
{
	outtime_set(c, c == OUT_CLOCK_BOOT ? offset_of(CLOCK_BOOTTIME) : 0,
		    c == OUT_CLOCK_WALL ? offset_of(CLOCK_REALTIME) : 0);
}

int64_t outtime_offset(void)
{
	if (ot.clock == OUT_CLOCK_BOOT)
		return ot.boot_off;
	return ot.clock == OUT_CLOCK_WALL ? ot.wall_off : 0;
}

enum out_clock outtime_clock(void)
{
	return ot.clock;
}

uint64_t outtime_ns(uint64_t mono)
{
	uint64_t d;

	switch (ot.clock) {
	case OUT_CLOCK_BOOT:
		return mono + (uint64_t)ot.boot_off;
	case OUT_CLOCK_WALL:
		return mono + (uint64_t)ot.wall_off;
	case OUT_CLOCK_DELTA:
		/* records of several CPUs may come a little out of order: never negative */
		d = ot.have_prev && mono > ot.prev ? mono - ot.prev : 0;
		if (!ot.have_prev || mono > ot.prev)
			ot.prev = mono;
		ot.have_prev = true;
		return d;
	default:
		return mono;
	}
}

/* The wall clock's second sec as date and zone, once for each new second. */
static void wall_second(int64_t sec)
{
	time_t t = (time_t)sec;
	struct tm tm;
	char z[8];

	if (sec == ot.sec)
		return;
	ot.sec = sec;
	localtime_r(&t, &tm);
	strftime(ot.date, sizeof(ot.date), "%Y-%m-%dT%H:%M:%S", &tm);
	/* %z is +HHMM; ISO 8601's extended form wants +HH:MM */
	strftime(z, sizeof(z), "%z", &tm);
	snprintf(ot.zone, sizeof(ot.zone), "%.3s:%.2s", z, z + 3);
}

char *outtime_text(char *p, uint64_t mono)
{
	/* ns2usecs() rounds to the nearest microsecond, into the next second
	 * too: every clock's text, so wall and mono agree on an event's us */
	uint64_t usecs = (outtime_ns(mono) + 500) / 1000;

	if (ot.clock == OUT_CLOCK_WALL) {
		wall_second((int64_t)(usecs / 1000000));
		p += sprintf(p, "%s.", ot.date);
		p = fmt_u64_w(p, usecs % 1000000, 6, FMT_ZERO);
		memcpy(p, ot.zone, strlen(ot.zone));
		return p + strlen(ot.zone);
	}
	p = fmt_u64_w(p, usecs / 1000000, 5, 0);
	*p++ = '.';
	return fmt_u64_w(p, usecs % 1000000, 6, FMT_ZERO);
}
