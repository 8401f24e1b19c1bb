/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * latency --pmu EVENT[,EVENT]: perf_event counters read by the BPF programs
 * at each call's entry and return (bpf/agg.bpf.h), one counter per CPU per
 * event, opened here with perf_event_open and put in the kpt_pmu perf event
 * array. Per-CPU counters count everything on their CPU: a call that sleeps
 * counts what ran meanwhile; a call that returns on another CPU is left out
 * (counted as migrated).
 *
 * Event names are perf's:
 *	hardware	cycles (cpu-cycles), instructions, cache-references,
 *			cache-misses, branches (branch-instructions),
 *			branch-misses, bus-cycles, ref-cycles,
 *			stalled-cycles-frontend, stalled-cycles-backend
 *	cache		L1-dcache-loads, L1-dcache-load-misses, LLC-store-misses,
 *			dTLB-loads, ... (CACHE-OP[-misses], perf list's names)
 *	software	cpu-clock, task-clock, page-faults (faults),
 *			minor-faults, major-faults, context-switches (cs),
 *			cpu-migrations (migrations), alignment-faults,
 *			emulation-faults
 *	raw		rNNNN (hex config of the CPU's PMU)
 *	sysfs		PMU/EVENT/ or PMU/TERM=VAL,.../ as in
 *			/sys/bus/event_source/devices/PMU (e.g. msr/tsc/)
 */
#ifndef KPT_SYS_PMU_H
#define KPT_SYS_PMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "kptrace.h"

struct pmu_event {
	char name[64];		/* as given */
	uint32_t type;		/* perf_event_attr.type */
	uint64_t config, config1, config2;
	bool ns;		/* counts nanoseconds (cpu-clock, task-clock) */
};

struct pmu_set {
	struct pmu_event ev[KPT_PMU_MAX];
	int n;
	int ncpus;		/* possible CPUs: the map's stride */
	int *fds;		/* n * ncpus, -1 where none (offline CPU) */
	int fd_stat;		/* kpt_pmu_stat, after pmu_attach */
};

/* Events in a --pmu list; 0 for NULL. */
int pmu_count(const char *list);
/* Parse a --pmu list (names only, nothing opened). 0 or -EINVAL with msg. */
int pmu_parse(const char *list, struct pmu_set *ps, char *msg, size_t msglen);
/* One event name into ev. 0 or -EINVAL/-ENOENT with msg. */
int pmu_parse_event(const char *name, struct pmu_event *ev, char *msg, size_t msglen);
/*
 * Open every counter on every online CPU. 0, or -errno with a message that
 * names the counter and why ("cycles: no hardware PMU on this machine
 * (perf_event_open: No such file or directory)"); nothing stays open then.
 */
int pmu_open(struct pmu_set *ps, int ncpus, char *msg, size_t msglen);
void pmu_close(struct pmu_set *ps);

#endif /* KPT_SYS_PMU_H */
