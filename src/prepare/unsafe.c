// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Probe sites that can hang the machine or recurse (unsafe.h). */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "prepare/unsafe.h"

/* each a clause after "it is CLASS; " in a refusal: kept short, as the
 * refusal adds what to do instead */
#define LOCK_HELD							\
	"a return there runs with the lock held, and kptrace's program then "	\
	"takes spinning locks of its own (the ring buffer's, a map's): on the "	\
	"same lock the CPU spins forever"
#define NMI_CTX								\
	"nothing masks an NMI: the probe can interrupt kptrace's own program "	\
	"amid a ring buffer or map update on its CPU and take that lock again"
#define OWN_PATH(what)							\
	"kptrace's programs call it on every hit (" what "): the probe "	\
	"re-enters itself, a miss at best, a deadlock where the outer call "	\
	"holds a lock"

/*
 * From the kernel's sources: kernel/locking/spinlock.c (_raw_*), qspinlock
 * and qrwlock's slow paths (with paravirt's and BPF's resilient variant),
 * CONFIG_DEBUG_SPINLOCK's do_raw_*; the NMI handlers arch/x86/kernel/nmi.c,
 * the perf PMUs and the hard-lockup watchdog run (those not NOKPROBE:
 * the kernel's blacklist refuses the others); kernel/bpf's ring buffer,
 * hash and LRU maps, the helpers kptrace's programs call, the fault-safe
 * copies the fetches use, perf's callchain and overflow path. Sleeping
 * locks (mutex, rwsem) are not here: no BPF program can wait for one.
 */
static const struct unsafe_site sites[] = {
	{ "_raw_spin_*", UNSAFE_LOCK, LOCK_HELD },
	{ "_raw_read_*", UNSAFE_LOCK, LOCK_HELD },
	{ "_raw_write_*", UNSAFE_LOCK, LOCK_HELD },
	{ "*queued_spin_lock_slowpath", UNSAFE_LOCK, LOCK_HELD },
	{ "__pv_queued_spin_unlock*", UNSAFE_LOCK, LOCK_HELD },
	{ "queued_read_lock_slowpath", UNSAFE_LOCK, LOCK_HELD },
	{ "queued_write_lock_slowpath", UNSAFE_LOCK, LOCK_HELD },
	{ "do_raw_spin_*", UNSAFE_LOCK, LOCK_HELD },
	{ "do_raw_read_*", UNSAFE_LOCK, LOCK_HELD },
	{ "do_raw_write_*", UNSAFE_LOCK, LOCK_HELD },
	{ "nmi_handle", UNSAFE_NMI, NMI_CTX },
	{ "default_do_nmi", UNSAFE_NMI, NMI_CTX },
	{ "exc_nmi", UNSAFE_NMI, NMI_CTX },
	{ "*_nmi_handler", UNSAFE_NMI, NMI_CTX },
	{ "nmi_cpu_backtrace*", UNSAFE_NMI, NMI_CTX },
	{ "unknown_nmi_error", UNSAFE_NMI, NMI_CTX },
	{ "ghes_notify_nmi", UNSAFE_NMI, NMI_CTX },
	{ "*pmu_handle_irq", UNSAFE_NMI, NMI_CTX },
	{ "watchdog_overflow_callback", UNSAFE_NMI, NMI_CTX },
	{ "watchdog_hardlockup_check", UNSAFE_NMI, NMI_CTX },
	{ "*bpf_ringbuf_*", UNSAFE_TRACING, OWN_PATH("the ring buffer's reserve and submit") },
	{ "htab_*", UNSAFE_TRACING, OWN_PATH("a keyed table's or a latency's map update") },
	{ "__htab_*", UNSAFE_TRACING, OWN_PATH("a keyed table's or a latency's map update") },
	{ "bpf_lru_*", UNSAFE_TRACING, OWN_PATH("a latency's LRU map, whose locks have no "
						 "recursion check") },
	{ "*pcpu_freelist_*", UNSAFE_TRACING, OWN_PATH("a hash map's free list") },
	{ "bpf_map_*_elem", UNSAFE_TRACING, OWN_PATH("the map helpers") },
	{ "bpf_probe_read_*", UNSAFE_TRACING, OWN_PATH("the fetches' reads") },
	{ "*_nofault", UNSAFE_TRACING, OWN_PATH("the fetches' reads") },
	{ "bpf_get_stack*", UNSAFE_TRACING, OWN_PATH("-K/-U and stack keys") },
	{ "get_perf_callchain", UNSAFE_TRACING, OWN_PATH("-K/-U and stack keys") },
	{ "perf_callchain_*", UNSAFE_TRACING, OWN_PATH("-K/-U and stack keys") },
	{ "bpf_get_current_*", UNSAFE_TRACING, OWN_PATH("the helpers every hit calls") },
	{ "bpf_ktime_get_*", UNSAFE_TRACING, OWN_PATH("the helpers every hit calls") },
	{ "*perf_event_overflow", UNSAFE_TRACING, OWN_PATH("profile:hz's sampling, in NMI "
							    "context for hardware events") },
};

static const char *const instead[] = {
	[UNSAFE_LOCK] = "its entry (p:FUNC, by kprobe), the caller's latency, or "
			"t:lock/contention_begin and contention_end",
	[UNSAFE_NMI] = "t:nmi/nmi_handler (x86: each handler's delta_ns)",
	[UNSAFE_TRACING] = "kptrace's exit profile (hits, misses, cost), bpftool prog "
			   "show (run_time_ns), or the bpf() syscall side",
};

static const char *const class_name[] = {
	[UNSAFE_LOCK] = "a spinning lock's acquire or release",
	[UNSAFE_NMI] = "an NMI handler",
	[UNSAFE_TRACING] = "tracing's and BPF's own path",
};

static const char *bare(const char *fn)
{
	const char *c = strchr(fn, ':');

	return c ? c + 1 : fn;
}

#define NSITES	(sizeof(sites) / sizeof(sites[0]))

/* Each pattern's longest run without a wildcard: a name without it cannot
 * match, and strstr() rules out most names, where fnmatch() over the table
 * took ~10 us a name (p:* is 40,000 names). */
static char literal[NSITES][32];

static void literals(void)
{
	size_t i, at, run, best, from;

	for (i = 0; i < NSITES; i++) {
		const char *g = sites[i].glob;

		for (at = 0, best = 0, from = 0; g[at]; at += run ? run : 1) {
			run = strcspn(g + at, "*?[");
			if (run > best) {
				best = run;
				from = at;
			}
		}
		snprintf(literal[i], sizeof(literal[i]), "%.*s", (int)best, g + from);
	}
}

const struct unsafe_site *unsafe_site_of(const char *fn)
{
	char name[256];
	size_t i;

	if (!literal[0][0])
		literals();
	/* a module's function is its name; a compiler's clone
	 * (nmi_handle.part.0.cold) is its function's */
	snprintf(name, sizeof(name), "%.*s", (int)strcspn(bare(fn), "."), bare(fn));
	for (i = 0; i < NSITES; i++)
		if (strstr(name, literal[i]) && !fnmatch(sites[i].glob, name, 0))
			return &sites[i];
	return NULL;
}

const struct unsafe_site *unsafe_refuses(const char *fn, bool ret)
{
	const struct unsafe_site *u = unsafe_site_of(fn);

	/* at a lock's entry nothing is held yet (bcc#2300's own finding) */
	if (u && u->cls == UNSAFE_LOCK && !ret)
		return NULL;
	return u;
}

void unsafe_message(const struct unsafe_site *u, const char *fn, bool ret, char *msg,
		    size_t msglen)
{
	snprintf(msg, msglen, "%s on '%s' can hang the machine: it is %s; %s. Instead: %s "
		 "(or --unsafe)", ret ? "a return probe" : "a probe", bare(fn), class_name[u->cls],
		 u->why, instead[u->cls]);
}

int unsafe_drop(char **names, int *n, bool ret, bool allow, const char *glob, FILE *f)
{
	char list[256] = "";
	size_t len = 0;
	int i, k = 0, hit = 0;
	bool more = false;

	for (i = 0; i < *n; i++) {
		if (!unsafe_refuses(names[i], ret)) {
			names[k++] = names[i];
			continue;
		}
		/* the first few named, then "...": the count says how many */
		if (len < sizeof(list) - 64)
			len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s",
						hit ? " " : "", names[i]);
		else
			more = true;
		hit++;
		if (allow)
			names[k++] = names[i];
		else
			free(names[i]);
	}
	*n = k;
	if (hit)
		fprintf(f, "kptrace: '%s': %s %d match%s that can hang the machine as %s "
			"(kptrace-definitions(5), UNSAFE PROBE SITES%s): %s%s\n", glob,
			allow ? "--unsafe: kept" : "skipped", hit, hit == 1 ? "" : "es",
			ret ? "return probes" : "probes", allow ? "" : "; --unsafe takes them",
			list, more ? " ..." : "");
	return allow ? 0 : hit;
}

void unsafe_explain(FILE *f, const char *fn, bool ret)
{
	const struct unsafe_site *u = unsafe_site_of(fn);

	if (!u)
		return;
	if (unsafe_refuses(fn, ret))
		fprintf(f, "unsafe: taken by --unsafe: it is %s; %s\n", class_name[u->cls],
			u->why);
	else
		fprintf(f, "safety: %s, at its entry: allowed, the run's probes all by kprobe: "
			"kprobe programs never run inside one another on a CPU, so none waits "
			"on a lock its CPU holds (a trampoline's program guards only itself: "
			"bpftrace#3144); its return would be refused\n", class_name[u->cls]);
}
