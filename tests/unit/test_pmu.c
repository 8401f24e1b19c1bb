// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * --pmu event names: perf's hardware, cache and software names and aliases
 * to perf_event_attr type/config, raw events, lists (commas inside PMU/.../
 * belong to the event), and the refusals.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <linux/perf_event.h>

#include "check.h"
#include "sys/pmu.h"

static void check_event(const char *name, unsigned int type, unsigned long long config, bool ns)
{
	struct pmu_event ev;
	char msg[512] = "";
	int err = pmu_parse_event(name, &ev, msg, sizeof(msg));

	CHECK(!err, "%s: %d %s", name, err, msg);
	if (err)
		return;
	CHECK_INT(ev.type, type, name);
	CHECK_INT(ev.config, config, name);
	CHECK_INT(ev.ns, ns, name);
	CHECK_STR(ev.name, name, name);
}

static void check_refused(const char *name, int want, const char *text)
{
	struct pmu_event ev;
	char msg[512] = "";
	int err = pmu_parse_event(name, &ev, msg, sizeof(msg));

	CHECK_INT(err, want, name);
	CHECK(strstr(msg, text) != NULL, "%s: message '%s' lacks '%s'", name, msg, text);
}

#define HWC(c, op, res) ((c) | ((op) << 8) | ((res) << 16))

int main(void)
{
	struct pmu_set ps;
	char msg[512];

	check_event("cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, false);
	check_event("cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, false);
	check_event("instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, false);
	check_event("cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, false);
	check_event("branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, false);
	check_event("branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, false);
	check_event("ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES, false);
	check_event("stalled-cycles-backend", PERF_TYPE_HARDWARE,
		    PERF_COUNT_HW_STALLED_CYCLES_BACKEND, false);
	check_event("cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, true);
	check_event("task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, true);
	check_event("page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, false);
	check_event("faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, false);
	check_event("minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN, false);
	check_event("major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ, false);
	check_event("context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, false);
	check_event("cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, false);
	check_event("cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, false);
	check_event("migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, false);
	check_event("L1-dcache-loads", PERF_TYPE_HW_CACHE,
		    HWC(PERF_COUNT_HW_CACHE_L1D, PERF_COUNT_HW_CACHE_OP_READ,
			PERF_COUNT_HW_CACHE_RESULT_ACCESS), false);
	check_event("L1-dcache-load-misses", PERF_TYPE_HW_CACHE,
		    HWC(PERF_COUNT_HW_CACHE_L1D, PERF_COUNT_HW_CACHE_OP_READ,
			PERF_COUNT_HW_CACHE_RESULT_MISS), false);
	check_event("LLC-store-misses", PERF_TYPE_HW_CACHE,
		    HWC(PERF_COUNT_HW_CACHE_LL, PERF_COUNT_HW_CACHE_OP_WRITE,
			PERF_COUNT_HW_CACHE_RESULT_MISS), false);
	check_event("dTLB-prefetches", PERF_TYPE_HW_CACHE,
		    HWC(PERF_COUNT_HW_CACHE_DTLB, PERF_COUNT_HW_CACHE_OP_PREFETCH,
			PERF_COUNT_HW_CACHE_RESULT_ACCESS), false);
	check_event("branch-load-misses", PERF_TYPE_HW_CACHE,
		    HWC(PERF_COUNT_HW_CACHE_BPU, PERF_COUNT_HW_CACHE_OP_READ,
			PERF_COUNT_HW_CACHE_RESULT_MISS), false);
	check_event("r003c", PERF_TYPE_RAW, 0x3c, false);
	check_event("r1a2b3c", PERF_TYPE_RAW, 0x1a2b3c, false);

	check_refused("bogus", -ENOENT, "unknown event 'bogus'");
	check_refused("L1-dcache-reads", -ENOENT, "unknown event");
	check_refused("rxyz", -ENOENT, "unknown event");
	check_refused("", -EINVAL, "not an event name");
	check_refused("no-such-pmu-here/event=1/", -ENOENT, "no PMU 'no-such-pmu-here'");
	check_refused("../x/", -ENOENT, "no such PMU '..'");

	CHECK_INT(pmu_count(NULL), 0, "pmu_count(NULL)");
	CHECK_INT(pmu_count("cycles"), 1, "pmu_count one");
	CHECK_INT(pmu_count("cycles,instructions,cs"), 3, "pmu_count three");
	CHECK_INT(pmu_count("cpu/event=0x3c,umask=0/,cs"), 2, "commas inside PMU/.../");

	CHECK_INT(pmu_parse("page-faults,cs,cpu-clock", &ps, msg, sizeof(msg)), 0, msg);
	CHECK_INT(ps.n, 3, "three events");
	CHECK_STR(ps.ev[1].name, "cs", "second event");
	CHECK_INT(ps.ev[2].ns, 1, "cpu-clock counts ns");
	CHECK_INT(pmu_parse("cs,page-faults,cs", &ps, msg, sizeof(msg)), -EINVAL, "twice");
	CHECK(strstr(msg, "cs twice") != NULL, "%s", msg);
	CHECK_INT(pmu_parse("a,b,c,d,e", &ps, msg, sizeof(msg)), -E2BIG, "five");
	CHECK_INT(pmu_parse("cs,,page-faults", &ps, msg, sizeof(msg)), -EINVAL, "empty name");
	CHECK_INT(pmu_parse("cs,nope", &ps, msg, sizeof(msg)), -ENOENT, "second unknown");
	CHECK(strstr(msg, "'nope'") != NULL, "%s", msg);
	return check_report();
}
