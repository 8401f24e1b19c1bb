// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * prepare/unsafe.c: which probe sites the table refuses, by class and by
 * end (a lock's entry is allowed, its return not), names as kernels spell
 * them (a module's, a compiler clone's), and a glob's matches skipped with
 * one line or, under --unsafe, kept. The names are the kernel's (6.1 and
 * 6.12's available_filter_functions); tests/vm/safety-guest.sh checks the
 * same sites against the kernel's own kprobe_events.
 */
#include <stdlib.h>

#include "check.h"
#include "prepare/unsafe.h"

struct row {
	const char *fn;
	int entry, ret;		/* the class refusing it, -1 if none */
};

static const struct row rows[] = {
	{ "_raw_spin_lock", -1, UNSAFE_LOCK },
	{ "_raw_spin_lock_irqsave", -1, UNSAFE_LOCK },
	{ "_raw_spin_unlock_irqrestore", -1, UNSAFE_LOCK },
	{ "_raw_read_lock_bh", -1, UNSAFE_LOCK },
	{ "_raw_write_trylock", -1, UNSAFE_LOCK },
	{ "queued_spin_lock_slowpath", -1, UNSAFE_LOCK },
	{ "native_queued_spin_lock_slowpath", -1, UNSAFE_LOCK },
	{ "__pv_queued_spin_lock_slowpath", -1, UNSAFE_LOCK },
	{ "__pv_queued_spin_unlock_slowpath", -1, UNSAFE_LOCK },
	{ "queued_write_lock_slowpath", -1, UNSAFE_LOCK },
	{ "do_raw_spin_lock", -1, UNSAFE_LOCK },
	{ "nmi_handle", UNSAFE_NMI, UNSAFE_NMI },
	{ "nmi_handle.part.0.cold", UNSAFE_NMI, UNSAFE_NMI },
	{ "perf_event_nmi_handler", UNSAFE_NMI, UNSAFE_NMI },
	{ "x86_pmu_handle_irq", UNSAFE_NMI, UNSAFE_NMI },
	{ "ghes_notify_nmi", UNSAFE_NMI, UNSAFE_NMI },
	{ "bpf_ringbuf_reserve", UNSAFE_TRACING, UNSAFE_TRACING },
	{ "__bpf_ringbuf_reserve", UNSAFE_TRACING, UNSAFE_TRACING },
	{ "htab_lru_map_update_elem", UNSAFE_TRACING, UNSAFE_TRACING },
	{ "bpf_lru_pop_free", UNSAFE_TRACING, UNSAFE_TRACING },
	{ "copy_from_kernel_nofault", UNSAFE_TRACING, UNSAFE_TRACING },
	{ "bpf_get_stackid", UNSAFE_TRACING, UNSAFE_TRACING },
	{ "__perf_event_overflow", UNSAFE_TRACING, UNSAFE_TRACING },
	{ "bpf_ktime_get_ns", UNSAFE_TRACING, UNSAFE_TRACING },
	/* the neighbours: sleeping locks, the NMI's senders, ordinary code */
	{ "mutex_lock", -1, -1 },
	{ "down_read", -1, -1 },
	{ "spin_lock_init", -1, -1 },
	{ "local_touch_nmi", -1, -1 },
	{ "nmi_raise_cpu_backtrace", -1, -1 },
	{ "copy_from_kernel_nofault_allowed", -1, -1 },
	{ "vfs_read", -1, -1 },
	{ "ext4:ext4_file_read_iter", -1, -1 },
	{ "kvm:_raw_spin_lock", -1, UNSAFE_LOCK },
};

static int class_of(const struct unsafe_site *u)
{
	return u ? (int)u->cls : -1;
}

static void table(void)
{
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		CHECK_INT(class_of(unsafe_refuses(rows[i].fn, false)), rows[i].entry, rows[i].fn);
		CHECK_INT(class_of(unsafe_refuses(rows[i].fn, true)), rows[i].ret, rows[i].fn);
		/* a lock's entry: not refused, but known (no trampoline for it) */
		CHECK_INT(class_of(unsafe_site_of(rows[i].fn)),
			  rows[i].ret >= 0 ? rows[i].ret : rows[i].entry, rows[i].fn);
	}
}

static void message(void)
{
	char msg[768];

	unsafe_message(unsafe_refuses("_raw_spin_lock", true), "_raw_spin_lock", true, msg,
		       sizeof(msg));
	CHECK(strstr(msg, "a return probe on '_raw_spin_lock'") && strstr(msg, "Instead: ") &&
	      strstr(msg, "p:FUNC") && strstr(msg, "--unsafe"), "%s", msg);
	CHECK(strlen(msg) < 512, "the refusal fits a probe report: %zu bytes", strlen(msg));
	unsafe_message(unsafe_refuses("bpf_ringbuf_reserve", false), "bpf_ringbuf_reserve", false,
		       msg, sizeof(msg));
	CHECK(strstr(msg, "a probe on 'bpf_ringbuf_reserve'") && strstr(msg, "Instead: "), "%s",
	      msg);
}

/* unsafe_drop() on a copy of want's names; what it wrote into line. */
static int drop(const char *const *in, int n, bool ret, bool allow, char **out, int *nout,
		char *line, size_t linelen)
{
	FILE *f = tmpfile();
	int i, dropped;

	for (i = 0; i < n; i++)
		out[i] = strdup(in[i]);
	*nout = n;
	dropped = unsafe_drop(out, nout, ret, allow, "GLOB", f);
	rewind(f);
	line[0] = 0;
	if (!fgets(line, (int)linelen, f))
		line[0] = 0;
	CHECK(fgetc(f) == EOF, "one line for the whole glob");
	fclose(f);
	return dropped;
}

static void glob(void)
{
	static const char *const in[] = { "vfs_read", "_raw_spin_lock", "mutex_lock",
					  "_raw_spin_unlock", "bpf_ringbuf_submit" };
	char *out[5], line[512];
	int n, i;

	/* returns: the two lock functions and the ring buffer's, in order */
	CHECK_INT(drop(in, 5, true, false, out, &n, line, sizeof(line)), 3, "returns");
	CHECK_INT(n, 2, "returns kept");
	CHECK(n == 2 && !strcmp(out[0], "vfs_read") && !strcmp(out[1], "mutex_lock"),
	      "the safe ones kept in order");
	CHECK(strstr(line, "'GLOB': skipped 3 matches") &&
	      strstr(line, "_raw_spin_lock _raw_spin_unlock bpf_ringbuf_submit\n"), "%s", line);
	for (i = 0; i < n; i++)
		free(out[i]);
	/* entries: a lock's entry is safe, the ring buffer's is not */
	CHECK_INT(drop(in, 5, false, false, out, &n, line, sizeof(line)), 1, "entries");
	CHECK(n == 4 && !strcmp(out[1], "_raw_spin_lock"), "a lock's entry kept");
	CHECK(strstr(line, "skipped 1 match ") && strstr(line, ": bpf_ringbuf_submit\n"), "%s",
	      line);
	for (i = 0; i < n; i++)
		free(out[i]);
	/* --unsafe: all kept, said once */
	CHECK_INT(drop(in, 5, true, true, out, &n, line, sizeof(line)), 0, "--unsafe");
	CHECK_INT(n, 5, "--unsafe keeps every match");
	CHECK(strstr(line, "--unsafe: kept 3 matches"), "%s", line);
	for (i = 0; i < n; i++)
		free(out[i]);
	/* many: the first few named, one "..." for the rest */
	{
		char *many[40];
		const char *in40[40];
		char names[40][32];

		for (i = 0; i < 40; i++) {
			snprintf(names[i], sizeof(names[i]), "_raw_spin_lock_%d", i);
			in40[i] = names[i];
		}
		CHECK_INT(drop(in40, 40, true, false, many, &n, line, sizeof(line)), 40, "40");
		CHECK(strstr(line, "skipped 40 matches") && strstr(line, "_raw_spin_lock_0 ") &&
		      strstr(line, " ...\n") && !strstr(line, "... ..."), "%s", line);
	}
	/* nothing unsafe: no line */
	CHECK_INT(drop(in, 1, true, false, out, &n, line, sizeof(line)), 0, "a safe glob");
	CHECK(!line[0], "no line for a safe glob: %s", line);
	free(out[0]);
}

int main(void)
{
	table();
	message();
	glob();
	return check_report();
}
