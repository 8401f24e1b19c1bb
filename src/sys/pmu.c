// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* latency --pmu: perf event names, their counters opened per CPU (sys/pmu.h). */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "sys/pmu.h"

#define SYSFS_PMUS "/sys/bus/event_source/devices"

static const struct {
	const char *name;
	uint32_t type;
	uint64_t config;
	bool ns;
} named[] = {
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, false },
	{ "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, false },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, false },
	{ "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, false },
	{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, false },
	{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, false },
	{ "branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, false },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, false },
	{ "bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES, false },
	{ "stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND,
	  false },
	{ "idle-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND,
	  false },
	{ "stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND,
	  false },
	{ "idle-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND, false },
	{ "ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES, false },
	{ "cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, true },
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, true },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, false },
	{ "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, false },
	{ "minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN, false },
	{ "major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ, false },
	{ "context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, false },
	{ "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, false },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, false },
	{ "migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, false },
	{ "alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS, false },
	{ "emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS, false },
};

/* perf's generic cache events: CACHE-OPs / CACHE-OP-misses */
static const struct {
	const char *name;
	unsigned int id;
} caches[] = {
	{ "L1-dcache", PERF_COUNT_HW_CACHE_L1D }, { "L1-icache", PERF_COUNT_HW_CACHE_L1I },
	{ "LLC", PERF_COUNT_HW_CACHE_LL },	  { "dTLB", PERF_COUNT_HW_CACHE_DTLB },
	{ "iTLB", PERF_COUNT_HW_CACHE_ITLB },	  { "branch", PERF_COUNT_HW_CACHE_BPU },
	{ "node", PERF_COUNT_HW_CACHE_NODE },
};

static const struct {
	const char *access, *miss;
	unsigned int id;
} cache_ops[] = {
	{ "loads", "load-misses", PERF_COUNT_HW_CACHE_OP_READ },
	{ "stores", "store-misses", PERF_COUNT_HW_CACHE_OP_WRITE },
	{ "prefetches", "prefetch-misses", PERF_COUNT_HW_CACHE_OP_PREFETCH },
};

int pmu_count(const char *list)
{
	int n = 0;

	if (!list || !*list)
		return 0;
	/* commas inside PMU/a=1,b=2/ separate terms, not events */
	for (bool in = false; *list; list++) {
		if (*list == '/')
			in = !in;
		else if (*list == ',' && !in)
			n++;
	}
	return n + 1;
}

static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	bool ok;

	if (!f)
		return -errno;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (!ok)
		return -EIO;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

/* Put value v into the bits "config1:0-7,32-35" names. */
static int place_bits(struct pmu_event *ev, const char *fmt, uint64_t v)
{
	uint64_t *dst;
	const char *p;
	unsigned int bit = 0;

	if (!strncmp(fmt, "config1:", 8))
		dst = &ev->config1, p = fmt + 8;
	else if (!strncmp(fmt, "config2:", 8))
		dst = &ev->config2, p = fmt + 8;
	else if (!strncmp(fmt, "config:", 7))
		dst = &ev->config, p = fmt + 7;
	else
		return -EINVAL;
	while (*p) {
		unsigned int lo, hi, b;
		int used = 0;

		if (sscanf(p, "%u-%u%n", &lo, &hi, &used) == 2) {
			;
		} else if (sscanf(p, "%u%n", &lo, &used) == 1) {
			hi = lo;
		} else {
			return -EINVAL;
		}
		if (hi < lo || hi > 63)
			return -EINVAL;
		for (b = lo; b <= hi; b++, bit++)
			if (bit < 64 && (v >> bit) & 1)
				*dst |= 1ULL << b;
		p += used;
		if (*p == ',')
			p++;
		else if (*p)
			return -EINVAL;
	}
	return 0;
}

/* "term=value,term,..." of PMU pmu; an alias (events/NAME) once, not nested. */
static int sysfs_terms(const char *pmu, char *terms, struct pmu_event *ev, int depth,
		       char *msg, size_t msglen)
{
	char *tok, *save = NULL, path[512], fmt[256], alias[512];
	int err;

	for (tok = strtok_r(terms, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		uint64_t v = 1;

		while (isspace((unsigned char)*tok))
			tok++;
		if (!*tok)
			continue;
		if (eq) {
			char *end;

			*eq = 0;
			errno = 0;
			v = strtoull(eq + 1, &end, 0);
			if (errno || end == eq + 1 || *end) {
				snprintf(msg, msglen, "%s: '%s' in %s/.../ is not a number", ev->name,
					 eq + 1, pmu);
				return -EINVAL;
			}
		}
		if (!strcmp(tok, "config") || !strcmp(tok, "config1") || !strcmp(tok, "config2")) {
			*(tok[6] == '1' ? &ev->config1 : tok[6] == '2' ? &ev->config2
								 : &ev->config) = v;
			continue;
		}
		snprintf(path, sizeof(path), SYSFS_PMUS "/%s/format/%s", pmu, tok);
		if (!read_line(path, fmt, sizeof(fmt))) {
			if (place_bits(ev, fmt, v)) {
				snprintf(msg, msglen, "%s: cannot read %s ('%s')", ev->name, path,
					 fmt);
				return -EINVAL;
			}
			continue;
		}
		snprintf(path, sizeof(path), SYSFS_PMUS "/%s/events/%s", pmu, tok);
		if (eq || depth || read_line(path, alias, sizeof(alias))) {
			snprintf(msg, msglen, "%s: PMU %s has no event or format term '%s' (see %s/%s/"
				 "events and format)", ev->name, pmu, tok, SYSFS_PMUS, pmu);
			return -ENOENT;
		}
		err = sysfs_terms(pmu, alias, ev, depth + 1, msg, msglen);
		if (err)
			return err;
	}
	return 0;
}

int pmu_parse_event(const char *name, struct pmu_event *ev, char *msg, size_t msglen)
{
	char buf[256], path[320], *slash, *end;
	size_t i, j, len = strlen(name);
	int err;

	memset(ev, 0, sizeof(*ev));
	if (!len || len >= sizeof(ev->name)) {
		snprintf(msg, msglen, "--pmu: '%s' is not an event name", name);
		return -EINVAL;
	}
	strcpy(ev->name, name);
	for (i = 0; i < sizeof(named) / sizeof(named[0]); i++) {
		if (!strcmp(name, named[i].name)) {
			ev->type = named[i].type;
			ev->config = named[i].config;
			ev->ns = named[i].ns;
			return 0;
		}
	}
	for (i = 0; i < sizeof(caches) / sizeof(caches[0]); i++) {
		size_t cl = strlen(caches[i].name);

		if (strncmp(name, caches[i].name, cl) || name[cl] != '-')
			continue;
		for (j = 0; j < sizeof(cache_ops) / sizeof(cache_ops[0]); j++) {
			bool miss = !strcmp(name + cl + 1, cache_ops[j].miss);

			if (!miss && strcmp(name + cl + 1, cache_ops[j].access))
				continue;
			ev->type = PERF_TYPE_HW_CACHE;
			ev->config = caches[i].id | (cache_ops[j].id << 8) |
				     ((miss ? PERF_COUNT_HW_CACHE_RESULT_MISS
					    : PERF_COUNT_HW_CACHE_RESULT_ACCESS) << 16);
			return 0;
		}
	}
	/* rNNNN: a raw event of the CPU's PMU */
	if (name[0] == 'r' && isxdigit((unsigned char)name[1])) {
		errno = 0;
		ev->config = strtoull(name + 1, &end, 16);
		if (!errno && !*end) {
			ev->type = PERF_TYPE_RAW;
			return 0;
		}
	}
	/* PMU/TERMS/: a PMU of /sys/bus/event_source/devices */
	slash = strchr(name, '/');
	if (slash && len > 2 && name[len - 1] == '/' && slash != name) {
		char pmu[64], typ[32];

		snprintf(pmu, sizeof(pmu), "%.*s", (int)(slash - name), name);
		snprintf(buf, sizeof(buf), "%.*s", (int)(len - (slash - name) - 2), slash + 1);
		if (strchr(pmu, '.')) {
			snprintf(msg, msglen, "--pmu %s: no such PMU '%s'", name, pmu);
			return -ENOENT;
		}
		snprintf(path, sizeof(path), SYSFS_PMUS "/%s/type", pmu);
		err = read_line(path, typ, sizeof(typ));
		if (err) {
			snprintf(msg, msglen, "--pmu %s: no PMU '%s' on this machine (%s: %s)", name,
				 pmu, path, strerror(-err));
			return -ENOENT;
		}
		ev->type = (uint32_t)strtoul(typ, NULL, 10);
		return sysfs_terms(pmu, buf, ev, 0, msg, msglen);
	}
	snprintf(msg, msglen, "--pmu: unknown event '%s' (perf's names: cycles, instructions, "
		 "cache-misses, branch-misses, L1-dcache-load-misses, ..., cpu-clock, task-clock, "
		 "page-faults, context-switches, cpu-migrations, rNNNN, PMU/EVENT/)", name);
	return -ENOENT;
}

int pmu_parse(const char *list, struct pmu_set *ps, char *msg, size_t msglen)
{
	const char *p = list, *start;
	char name[256];
	int err, i;

	memset(ps, 0, sizeof(*ps));
	ps->fd_stat = -1;
	if (pmu_count(list) > KPT_PMU_MAX) {
		snprintf(msg, msglen, "--pmu: at most %d counters", KPT_PMU_MAX);
		return -E2BIG;
	}
	while (p && *p) {
		bool in = false;

		for (start = p; *p && (in || *p != ','); p++)
			if (*p == '/')
				in = !in;
		if ((size_t)(p - start) >= sizeof(name) || p == start) {
			snprintf(msg, msglen, "--pmu: '%s' is not a list of events", list);
			return -EINVAL;
		}
		snprintf(name, sizeof(name), "%.*s", (int)(p - start), start);
		err = pmu_parse_event(name, &ps->ev[ps->n], msg, msglen);
		if (err)
			return err;
		for (i = 0; i < ps->n; i++) {
			if (!strcmp(ps->ev[i].name, name)) {
				snprintf(msg, msglen, "--pmu: %s twice", name);
				return -EINVAL;
			}
		}
		ps->n++;
		if (*p == ',')
			p++;
	}
	return 0;
}

/* Online CPUs from "0-3,5": a bitmap of up to ncpus. */
static void online_cpus(bool *on, int ncpus)
{
	char buf[1024], *p = buf;
	int i;

	if (read_line("/sys/devices/system/cpu/online", buf, sizeof(buf))) {
		for (i = 0; i < ncpus; i++)
			on[i] = true;
		return;
	}
	while (*p) {
		long lo = strtol(p, &p, 10), hi = lo;

		if (*p == '-')
			hi = strtol(p + 1, &p, 10);
		for (i = (int)lo; i <= hi && i < ncpus; i++)
			if (i >= 0)
				on[i] = true;
		if (*p != ',')
			break;
		p++;
	}
}

static bool have_cpu_pmu(void)
{
	static const char *const cpu_pmus[] = { "cpu", "cpu_core", "cpu_atom", "armv8_pmuv3",
						 "armv8_pmuv3_0" };
	char path[128];
	size_t i;

	for (i = 0; i < sizeof(cpu_pmus) / sizeof(cpu_pmus[0]); i++) {
		snprintf(path, sizeof(path), SYSFS_PMUS "/%s", cpu_pmus[i]);
		if (!access(path, F_OK))
			return true;
	}
	return false;
}

static void open_error(const struct pmu_event *ev, int cpu, int err, char *msg, size_t msglen)
{
	bool hw = ev->type == PERF_TYPE_HARDWARE || ev->type == PERF_TYPE_HW_CACHE ||
		  ev->type == PERF_TYPE_RAW;
	char par[32] = "?";

	switch (err) {
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		if (hw && !have_cpu_pmu()) {
			snprintf(msg, msglen, "%s: no hardware PMU on this machine (a virtual machine "
				 "without a virtual PMU?) (perf_event_open: %s)", ev->name,
				 strerror(err));
			return;
		}
		if (hw) {
			snprintf(msg, msglen, "%s: this CPU's PMU does not count it "
				 "(perf_event_open: %s)", ev->name, strerror(err));
			return;
		}
		break;
	case EACCES:
	case EPERM:
		read_line("/proc/sys/kernel/perf_event_paranoid", par, sizeof(par));
		snprintf(msg, msglen, "%s: not allowed (perf_event_open: %s): needs root or "
			 "CAP_PERFMON (kernel.perf_event_paranoid is %s)", ev->name, strerror(err),
			 par);
		return;
	case EMFILE:
	case ENFILE:
		snprintf(msg, msglen, "%s: too many open files for one counter per CPU "
			 "(perf_event_open: %s): raise ulimit -n", ev->name, strerror(err));
		return;
	default:
		break;
	}
	snprintf(msg, msglen, "%s: cannot count it on CPU %d (perf_event_open: %s)", ev->name, cpu,
		 strerror(err));
}

int pmu_open(struct pmu_set *ps, int ncpus, char *msg, size_t msglen)
{
	bool *on;
	int e, c, err = 0;

	ps->ncpus = ncpus;
	ps->fds = malloc(sizeof(*ps->fds) * (size_t)(ps->n ? ps->n : 1) * ncpus);
	on = calloc(ncpus, sizeof(*on));
	if (!ps->fds || !on) {
		free(on);
		return -ENOMEM;
	}
	for (e = 0; e < ps->n * ncpus; e++)
		ps->fds[e] = -1;
	online_cpus(on, ncpus);
	for (e = 0; !err && e < ps->n; e++) {
		struct perf_event_attr a;

		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = ps->ev[e].type;
		a.config = ps->ev[e].config;
		a.config1 = ps->ev[e].config1;
		a.config2 = ps->ev[e].config2;
		for (c = 0; c < ncpus; c++) {
			int fd;

			if (!on[c])
				continue;
			/* every task on CPU c: the programs read their CPU's */
			fd = (int)syscall(__NR_perf_event_open, &a, -1, c, -1, PERF_FLAG_FD_CLOEXEC);
			if (fd < 0) {
				err = -errno;
				open_error(&ps->ev[e], c, errno, msg, msglen);
				break;
			}
			ps->fds[e * ncpus + c] = fd;
		}
	}
	free(on);
	if (err)
		pmu_close(ps);
	return err;
}

void pmu_close(struct pmu_set *ps)
{
	int i;

	for (i = 0; ps->fds && i < ps->n * ps->ncpus; i++)
		if (ps->fds[i] >= 0)
			close(ps->fds[i]);
	free(ps->fds);
	ps->fds = NULL;
}
