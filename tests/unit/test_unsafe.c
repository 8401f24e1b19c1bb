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
#include "fake_system.h"
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
	const struct unsafe_site *lock = unsafe_refuses("_raw_spin_lock", true);
	const struct unsafe_site *rb = unsafe_refuses("bpf_ringbuf_reserve", false);
	char msg[768] = "";

	if (lock)
		unsafe_message(lock, "_raw_spin_lock", true, msg, sizeof(msg));
	CHECK(strstr(msg, "a return probe on '_raw_spin_lock'") && strstr(msg, "Instead: ") &&
	      strstr(msg, "p:FUNC") && strstr(msg, "--unsafe"), "%s", msg);
	CHECK(strlen(msg) < 512, "the refusal fits a probe report: %zu bytes", strlen(msg));
	msg[0] = 0;
	if (rb)
		unsafe_message(rb, "bpf_ringbuf_reserve", false, msg, sizeof(msg));
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

/* The made-up system (fake_system.h) with these functions in its kallsyms. */
static const char locks_kallsyms[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81000100 T vfs_read\n"
	"ffffffff81000200 T _raw_spin_lock\n"
	"ffffffff81000300 T _raw_spin_unlock\n"
	"ffffffff81000400 T mutex_lock\n"
	"ffffffff81000500 T bpf_ringbuf_reserve\n"
	"ffffffff81001000 B _end\n";

static const char modules_kallsyms[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81000100 T vfs_read\n"
	"ffffffff81000200 T _raw_spin_lock\n"
	"ffffffff81001000 B _end\n"
	"ffffffffc0000000 t etn_read\t[etn]\n"
	"ffffffffc0000100 t etn_write\t[etn]\n";

/* prepare() in mode m on defs, --unsafe or not; 0 or its error. */
static int try(enum kpt_mode m, const char *def, bool unsafe, struct sysinfo *si,
	       struct probeset *ps)
{
	struct kpt_opts env = { .mode = m, .defs = &def, .ndefs = 1 };

	fake_system(si);
	si->unsafe = unsafe;
	memset(ps, 0, sizeof(*ps));
	return prepare(&env, si, ps);
}

/* What prepare() makes of them: refusals by name, a glob's skips, --unsafe. */
static void prepared(void)
{
	struct sysinfo si;
	struct probeset ps;

	make_files();
	write_file(kallsyms_path, locks_kallsyms);
	CHECK_INT(try(MODE_TRACE, "r:_raw_spin_lock", false, &si, &ps), -EPERM, "a lock's return");
	done(&si, &ps);
	CHECK_INT(try(MODE_TRACE, "p:_raw_spin_lock", false, &si, &ps), 0, "a lock's entry");
	done(&si, &ps);
	CHECK_INT(try(MODE_TRACE, "p:bpf_ringbuf_reserve", false, &si, &ps), -EPERM,
		  "the ring buffer's entry");
	done(&si, &ps);
	CHECK_INT(try(MODE_LATENCY, "_raw_spin_lock", false, &si, &ps), -EPERM,
		  "latency on a lock");
	done(&si, &ps);
	CHECK_INT(try(MODE_LATENCY, "mutex_lock", false, &si, &ps), 0, "latency on a mutex");
	done(&si, &ps);
	/* globs: the lock functions skipped, the mutex kept */
	CHECK_INT(try(MODE_TRACE, "r:*_lock", false, &si, &ps), 0, "r:*_lock");
	CHECK(ps.n == 1 && !strcmp(ps.p[0].spec.symbol, "mutex_lock"), "r:*_lock: %d probes",
	      ps.n);
	done(&si, &ps);
	CHECK_INT(try(MODE_TRACE, "p:*_lock", false, &si, &ps), 0, "p:*_lock");
	CHECK_INT(ps.n, 2, "p:*_lock: the entries are safe");
	done(&si, &ps);
	CHECK_INT(try(MODE_TRACE, "r:_raw_*", false, &si, &ps), -ENOENT, "r:_raw_*: none left");
	done(&si, &ps);
	CHECK_INT(try(MODE_LATENCY, "*_lock", false, &si, &ps), 0, "latency *_lock");
	CHECK_INT(ps.n, 2, "latency *_lock: mutex_lock's pair only");
	done(&si, &ps);
	/* --unsafe: taken, with a note */
	CHECK_INT(try(MODE_TRACE, "r:_raw_spin_lock", true, &si, &ps), 0, "--unsafe");
	CHECK(ps.n == 1 && strstr(ps.p[0].res.note, "--unsafe"), "the note: %s",
	      ps.n ? ps.p[0].res.note : "");
	done(&si, &ps);
	CHECK_INT(try(MODE_TRACE, "r:_raw_*", true, &si, &ps), 0, "--unsafe r:_raw_*");
	CHECK_INT(ps.n, 2, "--unsafe r:_raw_*: both kept");
	done(&si, &ps);

	/* MOD:GLOB: the module's functions alone are matched, counted and
	 * skipped (ftrace's list, where a module's are "name [mod]") */
	write_file(kallsyms_path, modules_kallsyms);
	write_file(functions_path, "vfs_read\n_raw_spin_lock\netn_read [etn]\n"
		   "etn_write [etn]\n");
	CHECK_INT(try(MODE_TRACE, "r:etn:*", false, &si, &ps), 0, "r:etn:*");
	CHECK(ps.n == 2 && !strcmp(ps.p[0].spec.module, "etn") &&
	      !strcmp(ps.p[1].spec.module, "etn"), "r:etn:*: etn's two: %d", ps.n);
	done(&si, &ps);
	CHECK_INT(try(MODE_TRACE, "p:nosuch:*", false, &si, &ps), -ENOENT,
		  "a glob over a module not loaded");
	done(&si, &ps);
	unlink(functions_path);
	remove_files();
}

int main(void)
{
	table();
	message();
	glob();
	prepared();
	return check_report();
}
