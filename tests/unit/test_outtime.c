// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * --time: each clock's nanoseconds and text from a record's monotonic time,
 * with offsets set by hand; wall's text in two time zones; delta never
 * negative for records a little out of order. Expected texts written out
 * by hand.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "out/outtime.h"

static const char *text(uint64_t mono)
{
	static char buf[OUTTIME_TEXT_MAX + 1];

	*outtime_text(buf, mono) = '\0';
	return buf;
}

static void test_parse(void)
{
	enum out_clock c = OUT_CLOCK_MONO;

	CHECK(outtime_parse("wall", &c) && c == OUT_CLOCK_WALL, "wall");
	CHECK(outtime_parse("delta", &c) && c == OUT_CLOCK_DELTA, "delta");
	CHECK(outtime_parse("boot", &c) && c == OUT_CLOCK_BOOT, "boot");
	CHECK(outtime_parse("mono", &c) && c == OUT_CLOCK_MONO, "mono");
	CHECK(!outtime_parse("Wall", &c) && !outtime_parse("", &c) && !outtime_parse("walls", &c),
	      "other words refused");
}

static void test_mono_boot(void)
{
	outtime_set(OUT_CLOCK_MONO, 5000000000, 0);
	CHECK_STR(text(65386733740499), "65386.733740", "mono: ftrace's, rounded down below .5");
	CHECK_STR(text(65386733740500), "65386.733741", "mono: rounded to the nearest us");
	CHECK_STR(text(999), "    0.000001", "mono: five wide");
	CHECK(outtime_ns(42) == 42, "mono ns: the record's");
	outtime_set(OUT_CLOCK_BOOT, 5000000000, 0);
	CHECK_STR(text(1000), "    5.000001", "boot: the offset added");
	CHECK(outtime_ns(1) == 5000000001ull, "boot ns");
}

static void test_wall(void)
{
	/* 2026-12-02 04:05:06 UTC is 1796184306 */
	int64_t off = 1796184306ll * 1000000000 - 1000000000;

	setenv("TZ", "UTC", 1);
	tzset();
	outtime_set(OUT_CLOCK_WALL, 0, off);
	CHECK_STR(text(1000000000 + 123456499), "2026-12-02T04:05:06.123456+00:00",
		  "wall UTC: rounded down below .5 us, as mono");
	CHECK_STR(text(1000000000 + 123456500), "2026-12-02T04:05:06.123457+00:00",
		  "wall: rounded to the nearest us, as mono");
	CHECK_STR(text(1000000000 + 123456999), "2026-12-02T04:05:06.123457+00:00",
		  "wall: ...999 ns is the next us, as mono");
	CHECK_STR(text(1000000000 + 999999499), "2026-12-02T04:05:06.999999+00:00",
		  "wall: .999999 stays in its second below .5 us");
	CHECK_STR(text(1000000000 + 999999999), "2026-12-02T04:05:07.000000+00:00",
		  "wall: rounded into the next second, its date too, as mono");
	outtime_set(OUT_CLOCK_MONO, 0, 0);
	CHECK_STR(text(1000000000 + 999999999), "    2.000000", "mono: the same carry");
	outtime_set(OUT_CLOCK_WALL, 0, off);
	CHECK_STR(text(2000000000), "2026-12-02T04:05:07.000000+00:00", "wall: the next second");
	CHECK(outtime_ns(1000000000) == 1796184306ull * 1000000000, "wall ns: since the epoch");
	setenv("TZ", "IST-5:30", 1);
	tzset();
	outtime_set(OUT_CLOCK_WALL, 0, off);
	CHECK_STR(text(1000000000), "2026-12-02T09:35:06.000000+05:30", "wall: local, +HH:MM");
	setenv("TZ", "UTC", 1);
	tzset();
	CHECK((int)strlen("2026-12-02T09:35:06.000000+05:30") <= OUTTIME_TEXT_MAX, "the text's bound");
}

static void test_delta(void)
{
	outtime_set(OUT_CLOCK_DELTA, 0, 0);
	CHECK_STR(text(1000000), "    0.000000", "delta: the first event 0");
	CHECK_STR(text(3500000), "    0.002500", "delta: since the previous");
	CHECK(outtime_ns(3400000) == 0, "delta: a record a little older is 0, never negative");
	CHECK(outtime_ns(3600000) == 100000, "delta: from the latest seen");
	outtime_set(OUT_CLOCK_DELTA, 0, 0);
	CHECK(outtime_ns(7) == 0, "delta: set again, the first is 0 again");
}

int main(void)
{
	test_parse();
	test_mono_boot();
	test_wall();
	test_delta();
	return check_report();
}
