// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The execution of a run: prepare (prepare.h) and plan (plan.h) it, then the
 * output, the -c child, load and attach with fallback, consume, clean up.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <linux/magic.h>
#include <sys/wait.h>
#include <wordexp.h>
#include <bpf/btf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "agg/agg.h"
#include "agg/pairopen.h"
#include "agg/aggstack.h"
#include "agg/tchart.h"
#include "load/budget.h"
#include "load/costwin.h"
#include "load/cfi.h"
#include "load/ident.h"
#include "load/loader.h"
#include "load/modwatch.h"
#include "load/pmu.h"
#include "load/target.h"
#include "out/output.h"
#include "out/outtime.h"
#include "out/perfetto.h"
#include "out/slowcall.h"
#include "prepare/backend.h"
#include "prepare/explain.h"
#include "prepare/opts.h"
#include "prepare/plan.h"
#include "prepare/prepare.h"
#include "prepare/probeset.h"
#include "run/consumer.h"
#include "run/profile.h"
#include "run/run.h"
#include "run/state.h"
#include "sys/container.h"
#include "sys/kfeat.h"
#include "sys/privilege.h"
#include "sys/usym.h"
#include "util/clock.h"
#include "util/keylist.h"
#include "util/svg.h"

static bool verbose;

/* run_drop_gone()'s question to agg_drop_keys(). */
struct run_gone {
	struct ctr_table *ctrs;
	uint64_t after_ns;
};
/*
 * run_once(): the kernel refused a function resolved without kallsyms, so
 * the run is resolved again with it; ESTALE, as no kernel call here returns it.
 */
#define KPT_ERETRY_KSYMS	(-ESTALE)

static int libbpf_log(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	/* Our own messages say what failed and why; libbpf's are for -v. */
	if (!verbose)
		return 0;
	(void)level;
	return vfprintf(stderr, fmt, ap);
}

/*
 * -c: the child waits on a pipe until every probe is attached, then execs.
 * The command is split into words (quotes honoured, no command substitution)
 * and run directly, not through sh -c, as perf and bpftrace run theirs: the
 * processes it creates are traced too (load_opts.follow_forks).
 */
static pid_t spawn_waiting(const char *cmd, int *go_fd)
{
	wordexp_t we;
	int pfd[2];
	pid_t pid;
	char c;

	if (wordexp(cmd, &we, WRDE_NOCMD))
		return -EINVAL;
	if (!we.we_wordc) {
		wordfree(&we);	/* an empty command: nothing to run, nothing kept */
		return -EINVAL;
	}
	if (pipe2(pfd, O_CLOEXEC)) {
		wordfree(&we);
		return -errno;
	}
	pid = fork();
	if (pid < 0) {
		int err = -errno;

		close(pfd[0]);
		close(pfd[1]);
		wordfree(&we);
		return err;
	}
	if (pid == 0) {
		close(pfd[1]);
		if (read(pfd[0], &c, 1) != 1)
			_exit(127); /* the tracer gave up: do not run untraced */
		signal(SIGPIPE, SIG_DFL);
		execvp(we.we_wordv[0], we.we_wordv);
		fprintf(stderr, "kptrace: cannot run %s: %s\n", we.we_wordv[0], strerror(errno));
		_exit(127);
	}
	wordfree(&we);
	close(pfd[0]);
	*go_fd = pfd[1];
	return pid;
}

/* User stacks as keys: their processes' maps read while they live. */
struct stack_watch {
	struct loader *ld;
	struct usym *us;
	struct aggstack_seen seen;
};

static void stack_watch(void *arg)
{
	struct stack_watch *w = arg;

	aggstack_capture_new(w->ld, w->us, &w->seen);
}

/* The walk's asks answered: -v says which tables were read late, and the
 * symbolizer knows their files, to name their frames after the process is gone. */
static void run_cfi_late(struct run *r)
{
	struct cfi_maps m = {
		.bins = loader_map_fd(&r->ld, LM_CFI_BINS),
		.rows = loader_map_fd(&r->ld, LM_CFI_ROWS),
		.procs = loader_map_fd(&r->ld, LM_UW_PROCS),
		.wanted = loader_map_fd(&r->ld, LM_UW_WANTED),
	};
	int i, n = cfi_fill_wanted(&r->cfi, &m);

	for (i = r->cfi.n - n; i < r->cfi.n; i++) {
		const struct cfi_bin *b = &r->cfi.bins[i];

		if (verbose)
			fprintf(stderr, "kptrace: unwind table of %s: %u rows, from %s, read late "
				"(pid %d's walk met it)\n", b->path, b->val.nrows, b->source,
				(int)b->pid);
		if (r->us)
			usym_add_file(r->us, b->path);
	}
}

/*
 * Each round while attached: the modules' watch; for --perfetto the lost
 * events read (a map lookup a probe, at most every 100 ms) so its counter
 * shows when the ring buffer was full, not only the total at the end.
 */
static void run_tick(void *arg)
{
	struct run *r = arg;
	uint64_t now;

	modwatch_tick(r->mw);
	if (r->lo.cfi && !r->ld.cfi_refused)
		run_cfi_late(r);
	if (r->pf && perfetto_lost_due(r->pf, now = kpt_mono_ns()))
		perfetto_lost(r->pf, now, loader_lost(&r->ld));
	r->cw_due = costwin_tick(&r->cw, &r->ld);
}

/* The probes stopped counting: the statistics given back before the drain. */
static void run_stopped(void *arg)
{
	struct run *r = arg;

	costwin_stop(&r->cw, &r->ld);
	r->cw_due = 0;
}

static void agg_tick(void *arg, bool final)
{
	struct run *r = arg;
	struct agg_ctx *c = r->ac;
	bool clear = !final && c->interval_reset;

	/* a sampled run's tables: scaled back by what was skipped since the last report */
	if (c->scale)
		budget_scales(&r->budget, r->ps.ents, clear, c->scale);
	/* with -i each report covers one interval: print, then reset */
	agg_report(c, clear);
	/* --from/--to: the starts still open, at each report (not reset) */
	if (r->env->nfrom && !c->folded)
		agg_report_open(c);
}

/* A cgroup v2 directory's id is its inode number. */
static int cgroup_id(const char *path, uint64_t *id)
{
	struct statfs sf;
	struct stat st;

	if (!path)
		return 0;
	if (stat(path, &st)) {
		fprintf(stderr, "kptrace: error: --cgroup %s: %s\n", path, strerror(errno));
		return -errno;
	}
	if (!S_ISDIR(st.st_mode)) {
		fprintf(stderr, "kptrace: error: --cgroup %s: not a cgroup directory\n", path);
		return -ENOTDIR;
	}
	/* a v1 hierarchy's directory has an inode too, never a task's v2 id */
	if (!statfs(path, &sf) && sf.f_type != CGROUP2_SUPER_MAGIC) {
		fprintf(stderr, "kptrace: error: --cgroup %s: not in a cgroup v2 hierarchy (on a "
			"cgroup v1 host, its path under the unified mount)\n", path);
		return -EINVAL;
	}
	*id = st.st_ino;
	return 0;
}

/*
 * 4. load, attach. Where auto chose fentry/fexit and the kernel refuses them,
 * at load or at attach (older trampolines take at most six arguments), once
 * more with kprobes.
 */
static int load_attach(struct run *r, bool deferred, bool *said_attaching)
{
	bool said = *said_attaching, attaching, fell_back;
	struct loader *ld = &r->ld;
	struct load_opts *lo = &r->lo;
	struct ev_desc *evs = r->ps.evs;
	int i, err, n = r->ps.n;
	char msg[512];

	for (;;) {
		attaching = false;
		err = loader_load(ld, lo, n, msg, sizeof(msg));
		if (!err && ld->cfi_refused)
			fprintf(stderr, "kptrace: warning: this kernel refused the unwinder of user "
				"stacks (-v shows the verifier's log): they are walked by frame "
				"pointers only, cut short in code without them\n");
		for (i = 0; !err && i < n; i++)
			err = loader_set_probe(ld, i, &r->ps.ents[i]);
		if (!err && lo->plan.budget) {
			budget_free(&r->budget);
			err = budget_start(&r->budget, &r->env->budget, ld, evs, r->ps.ents, n,
					   !r->stats_off[0]);
			if (err)
				snprintf(msg, sizeof(msg), "--budget: cannot set the probes' "
					 "buckets: %s", strerror(-err));
		}
		if (!err && r->pmu.n)
			err = pmu_attach(&r->pmu, ld, msg, sizeof(msg));
		if (!err) {
			attaching = true;
			if (!said)
				fprintf(stderr, "Attaching %d probe%s...\n", n, n == 1 ? "" : "s");
			said = *said_attaching = true;
			/* uprobes go where the kernel filters by process, but for
			 * a command's descendants, which exec other files */
			err = loader_attach(ld, evs, n, lo->follow_forks ? 0 : lo->target_tgid,
					    msg, sizeof(msg));
		}
		if (!err)
			return 0;
		fell_back = backend_fallback(r->env->backend, evs, n);
		if (!fell_back && !attaching && plan_tpbtf_undo(&r->ps, &lo->plan)) {
			if (r->env->verbose)
				fprintf(stderr, "kptrace: %s; the probe takes the generic path\n",
					msg);
			loader_close(ld);
			continue;
		}
		/* a name the kernel did not take: kpt_run() says why, with
		 * kallsyms; a refusal of the user's privileges is said as it is
		 * (kallsyms' addresses may be hidden from that user anyway) */
		if (!fell_back && deferred && err != -EPERM && err != -EACCES)
			return KPT_ERETRY_KSYMS;
		if (!fell_back) {
			if (attaching)
				snprintf(msg + strlen(msg), sizeof(msg) - strlen(msg),
					 "; nothing was left attached");
			/* a refusal of one probe: under its probe point, as tracefs does */
			probeset_report(&r->ps, attaching ? ld->failed : -1, msg);
			privilege_hint(err);
			return err;
		}
		fprintf(stderr, "kptrace: %s; using kprobes\n", msg);
		loader_close(ld);
	}
}

/*
 * A stream prints where each kernel probe fired as a symbol ("(vfs_read+0x4/
 * 0x130)") and a return probe's function: with probes resolved without
 * kallsyms, it is read now, once they are attached (what they record waits
 * in the ring buffer meanwhile). Hidden kernel addresses (kptr_restrict) or
 * an unreadable file only cost the symbols: the addresses print in hex.
 */
static void symbols_after_attach(struct sysinfo *si, struct probeset *ps)
{
	const struct ksym *s;
	char msg[256];
	int i;

	if (si->ksyms)
		return;
	if (sysinfo_need_ksyms(si, msg, sizeof(msg))) {
		fprintf(stderr, "kptrace: warning: %s; kernel addresses print in hex\n", msg);
		return;
	}
	for (i = 0; i < ps->n; i++) {
		if (!ps->p[i].res.deferred)
			continue;
		s = ksyms_by_name(si->ksyms, ps->evs[i].func, NULL);
		if (s)
			ps->evs[i].addr = s->addr;
	}
}

/* Whether --by names a cgroup or container key. */
static bool by_cgroup(const char *by)
{
	struct keylist kl;

	keylist_parse(by, &kl);
	return keylist_index(&kl, "cgroup") >= 0 || keylist_index(&kl, "container") >= 0;
}

/*
 * --container: each ID|NAME's cgroup and those under it, the cgroups traced;
 * --by cgroup/container: the table that names them when printed.
 */
static int run_containers(struct run *r)
{
	const struct kpt_opts *env = r->env;
	struct load_opts *lo = &r->lo;
	const struct ctr *cs[2];
	char msg[512];
	int i, n;

	if (!env->ncontainers && !by_cgroup(env->by))
		return 0;
	if (!r->ctrs && !(r->ctrs = ctr_table_new(NULL, NULL, msg, sizeof(msg)))) {
		fprintf(stderr, "kptrace: error: %s %s: %s\n", env->ncontainers ? "--container" :
			"--by", env->ncontainers ? env->containers[0] : env->by, msg);
		return -ENOENT;
	}
	for (i = 0; i < env->ncontainers; i++) {
		n = ctr_match(r->ctrs, env->containers[i], cs, 2);
		if (n != 1) {
			fprintf(stderr, "kptrace: error: --container %s: %s (see kptrace list "
				"--containers)\n", env->containers[i], n ? "names more than one "
				"container: give more of its id" : "no container has this name or id");
			return n ? -EINVAL : -ENOENT;
		}
		if (!i) {
			/* "": no process to read its files through (prepare says so) */
			if (cs[0]->pid)
				snprintf(r->ctr_root, sizeof(r->ctr_root), "/proc/%u/root",
					 cs[0]->pid);
			r->si.uprobe_root = r->ctr_root;
		}
		n = ctr_subtree(r->ctrs, cs[0], lo->target_cgroups + lo->target_ncgroups,
				KPT_TARGET_CGROUPS - (int)lo->target_ncgroups);
		if (n > KPT_TARGET_CGROUPS - (int)lo->target_ncgroups) {
			/* a cgroup left out would be a part of the container untraced */
			fprintf(stderr, "kptrace: error: --container %s: %d cgroups in all, the "
				"filter holds %d\n", env->containers[i], (int)lo->target_ncgroups + n,
				KPT_TARGET_CGROUPS);
			return -E2BIG;
		}
		lo->target_ncgroups += n;
	}
	return 0;
}

/* The options, the privileges and the counters' names: nothing opened yet. */
static int run_setup(struct run *r, bool defer)
{
	const struct kpt_opts *env = r->env;
	char msg[512];
	int err;

	verbose = env->verbose;
	libbpf_set_print(libbpf_log);
	r->si.by_trampoline = env->backend && !strcmp(env->backend, "fentry");
	r->si.defer_ksyms = defer;
	r->si.explain = env->dry_run;
	r->si.unsafe = env->unsafe;
	r->si.btf_path = env->btf_path;
	if (!env->dry_run && (err = privilege_check()))
		return err;
	/* a wrong --btf file is named now, whether or not a definition reads BTF */
	if (env->btf_path && (err = sysinfo_need_btf(&r->si, msg, sizeof(msg)))) {
		fprintf(stderr, "kptrace: error: %s\n", msg);
		return err;
	}
	if (env->pmu && pmu_parse(env->pmu, &r->pmu, msg, sizeof(msg))) {
		fprintf(stderr, "kptrace: error: %s\n", msg);
		return -EINVAL;
	}
	return run_containers(r);
}

/* -p/-t's process, --pmu's counters, the output, the -c child: before loading. */
static int run_open(struct run *r)
{
	const struct kpt_opts *env = r->env;
	char msg[512];
	FILE *raw;
	int err;

	/* -p, -t: a process or thread that is there, watched for its exit */
	if (env->pid || env->tid) {
		err = target_open(&r->target, env->pid ? env->pid : env->tid, !env->pid, msg,
				  sizeof(msg));
		if (err) {
			fprintf(stderr, "kptrace: error: %s\n", msg);
			return err;
		}
	}
	/* --pmu: every counter open before anything is loaded, or a clear no */
	if (r->pmu.n) {
		int ncpus = libbpf_num_possible_cpus();

		err = ncpus > 0 ? pmu_open(&r->pmu, ncpus, msg, sizeof(msg)) : ncpus;
		if (err) {
			fprintf(stderr, "kptrace: error: %s\n", ncpus > 0 ? msg : "cannot count CPUs");
			return err;
		}
	}
	/* --svg: a path that cannot be written is refused before anything runs */
	if (env->svg_path && (err = svg_open(env->svg_path, &r->svg, msg, sizeof(msg)))) {
		fprintf(stderr, "kptrace: error: --svg: cannot write %s: %s\n", env->svg_path, msg);
		return err;
	}
	if (env->perfetto_path && !(r->pf = perfetto_open(env->perfetto_path, msg, sizeof(msg)))) {
		if (msg[0])
			fprintf(stderr, "kptrace: error: --perfetto: %s\n", msg);
		return -EINVAL;
	}
	raw = env->out_path ? outfile_open(env->out_path) : stdout;
	r->out = raw ? outsink_open(raw, &r->sink) : NULL;
	if (!r->out) {
		err = -errno;
		if (raw && raw != stdout)
			fclose(raw);
		return err;
	}
	setvbuf(r->out, NULL, _IOFBF, 1 << 20);
	consumer_install_signals();
	if (env->command) {
		r->child = spawn_waiting(env->command, &r->go_fd);
		if (r->child < 0) {
			err = r->child;
			fprintf(stderr, "kptrace: error: cannot start '%s': %s\n", env->command,
				strerror(-err));
			r->child = 0;
			return err;
		}
	}
	return 0;
}

/*
 * kptrace timechart: its programs' settings; a slice is --slice, else a
 * thousandth of -d (1 ms at least), else 50 ms (KPT_TC_SLICES of them: 102 s).
 */
static int run_timechart_opts(struct run *r)
{
	struct sched_opts *so = &r->lo.sched;
	const struct kpt_opts *env = r->env;
	char msg[512];
	int err;

	so->on = true;
	so->max_tasks = env->max_keys;
	so->width_ns = env->tc_slice_ms ? (uint64_t)(env->tc_slice_ms * 1e6) :
		       env->duration ? (uint64_t)(env->duration * 1e6) : 50000000;
	if (so->width_ns < 1000000)
		so->width_ns = 1000000;
	err = sysinfo_need_btf(&r->si, msg, sizeof(msg));
	if (!err)
		err = sched_layout(so, r->si.btf, msg, sizeof(msg));
	if (err)
		fprintf(stderr, "kptrace: error: %s\n", msg);
	r->tc = err ? NULL : tchart_new();
	return err ? err : r->tc ? 0 : -ENOMEM;
}

/* The loader's options: the plan's, and the targets'. */
static int run_load_opts(struct run *r)
{
	const struct kpt_opts *env = r->env;
	const struct plan *pl = &r->lo.plan;
	struct load_opts *lo = &r->lo;
	char msg[512];
	int i, err;

	/* the self check costs a direct histogram a helper call a hit: where
	 * kptrace cannot hit a probe (uprobes in other files), it goes */
	lo->self_tgid = target_self_may_hit(r->ps.evs, r->ps.n) ? getpid() : 0;
	lo->target_tgid = r->child ? r->child : env->pid;
	/* a set where a traced process may end while the run goes on */
	lo->target_set = r->child || (env->pid && env->keep_running);
	lo->follow_forks = r->child != 0;
	if (lo->target_set && (err = target_set_layout(lo, msg, sizeof(msg)))) {
		fprintf(stderr, "kptrace: error: %s\n", msg);
		return err;
	}
	for (i = 0; i < r->ps.n; i++)
		if (r->ps.evs[i].tramp && r->ps.evs[i].is_return) {
			if (!sysinfo_need_btf(&r->si, msg, sizeof(msg)))
				loader_rethook_layout(lo, r->si.btf);
			break;
		}
	/* the task's cgroup by loads, not a second helper call a hit */
	if ((pl->cgroup_key || lo->target_ncgroups) && !sysinfo_need_btf(&r->si, NULL, 0))
		loader_cgroup_layout(lo, r->si.btf);
	/* a system-wide direct histogram's self check spared its helper call
	 * by the stack a hit runs on (kpt_own_by_stack()), which takes
	 * task_struct's layout from the kernel's own BTF (the verifier checks
	 * the loads by it; a --btf file's kernel may have none): read for it
	 * where not read already (a classic tracepoint's run): ~10 ms of
	 * start-up and 7 MB of peak RSS, freed once loaded, against ~20 ns a hit */
	if (pl->dh.on && lo->self_tgid && r->ps.n == 1 && !pl->budget && !env->btf_path &&
	    !lo->target_tgid && !env->tid && !env->cgroup && !kfeat_compat_why() &&
	    !sysinfo_need_btf(&r->si, NULL, 0))
		loader_stack_layout(lo, r->si.btf);
	/* user stacks through code without frame pointers: the binaries' CFI,
	 * found through vm_area_struct's offsets in the kernel's BTF */
	if (pl->stacks.ustacks && sysinfo_need_btf(&r->si, msg, sizeof(msg)))
		fprintf(stderr, "kptrace: warning: user stacks are walked by frame pointers "
			"only (the unwinder reads the kernel's structs by BTF): %s\n", msg);
	else if (pl->stacks.ustacks && kfeat_compat_why())
		/* the object such a kernel loads has no walk (bpf/unwind.bpf.h):
		 * no tables read for it */
		fprintf(stderr, "kptrace: warning: user stacks are walked by frame pointers "
			"only, cut short in code without them: the walk by the binaries' "
			"unwind tables (bpf_loop(), bpf_find_vma()) is the main BPF object's, "
			"and %s\n", kfeat_compat_why());
	else if (pl->stacks.ustacks && cfi_layout(&r->cfi, r->si.btf)) {
		r->cfi.late = env->unwind_rows_set ? env->unwind_rows : KPT_CFI_ROWS_LATE;
		cfi_collect(&r->cfi, r->ps.evs, r->ps.n, r->child ? 0 : env->pid,
			    r->child ? env->command : NULL);
		lo->cfi = &r->cfi;
		for (int i = 0; verbose && i < r->cfi.n; i++)
			fprintf(stderr, "kptrace: unwind table of %s: %u rows, from %s\n",
				r->cfi.bins[i].path, r->cfi.bins[i].val.nrows, r->cfi.bins[i].source);
		if (r->cfi.dropped)
			fprintf(stderr, "kptrace: warning: the unwind tables of %d binaries (%s "
				"first) did not fit in %u rows: their frames are walked by frame "
				"pointers only\n", r->cfi.dropped, r->cfi.dropped_path,
				KPT_CFI_ROWS_MAX);
	}
	lo->buffer_size = env->buffer_size;
	lo->btf_path = env->btf_path;
	lo->target_tid = env->tid;
	lo->target_comm = env->comm;
	lo->hist_buckets = r->ps.nbuckets;
	lo->max_keys = env->max_keys;
	/* Size what this run uses: aggregation never writes the ring buffer, and
	 * streaming never the keyed maps (measured: 8 MB of RSS, ms of start-up).
	 * latency --perfetto, the one aggregation that streams (each call, each
	 * start with arguments), needs streaming's ring: 4 KB lost half of 50k;
	 * why's call logs are up to 3 KB each. */
	if (env->mode != MODE_TRACE && env->mode != MODE_WHY && !env->buffer_size &&
	    !pl->lat_emit)
		lo->buffer_size = 4096;
	lo->pmu_n = r->pmu.n;
	lo->evs = r->ps.evs;
	/* no BPF cookies (before 5.15): the probes are told apart by what they hit */
	if (r->ps.n > 1 && !kfeat_cookies()) {
		if ((err = sysinfo_need_ksyms(&r->si, msg, sizeof(msg))) ||
		    (err = sysinfo_need_btf(&r->si, msg, sizeof(msg))) ||
		    (err = ident_setup(&r->ident, r->ps.evs, r->ps.n, r->si.ksyms, r->si.btf, msg,
				       sizeof(msg)))) {
			fprintf(stderr, "kptrace: error: %s\n", msg);
			return err;
		}
		lo->ident = &r->ident;
	} else if (!kfeat_compat_why()) {	/* the main object's fast slots */
		if ((err = ident_fast_slots(&r->ident, r->ps.evs, r->ps.n))) {
			fprintf(stderr, "kptrace: error: %s\n", strerror(-err));
			return err;
		}
		lo->ident = r->ident.slot ? &r->ident : NULL;
	}
	return env->timechart ? run_timechart_opts(r) : 0;
}

/* Whether an argument is a whole struct (:struct), printed from BTF. */
static bool prints_structs(const struct probeset *ps)
{
	int i, k;

	for (i = 0; i < ps->n; i++)
		for (k = 0; k < ps->evs[i].nargs; k++)
			if (ps->evs[i].args[k].spec && ps->evs[i].args[k].spec->whole)
				return true;
	return false;
}

/* What loading needs that may still be missing: kallsyms, the cgroup, fds. */
static int run_before_load(struct run *r)
{
	char msg[512];
	int i, nfds, err;

	if (!r->si.ksyms && r->lo.plan.wants_symbols) {
		err = sysinfo_need_ksyms(&r->si, msg, sizeof(msg));
		if (err) {
			fprintf(stderr, "kptrace: error: %s\n", msg);
			return err;
		}
	}
	/* libbpf loads the kernel's BTF itself: ours is done with, but
	 * where a :struct prints its types */
	if (!prints_structs(&r->ps)) {
		btf__free(r->si.btf);
		r->si.btf = NULL;
	}
	if ((err = cgroup_id(r->env->cgroup, &r->lo.target_cgroups[0])))
		return err;
	if (r->env->cgroup)
		r->lo.target_ncgroups = 1;
	/* a kprobe.multi link is one fd for all its functions */
	for (i = 0, nfds = 0; i < r->ps.n; i++)
		nfds += !r->ps.evs[i].multi;
	if ((err = fd_limit_check(nfds + 2, loader_object_maps())))
		return err;
	/* kallsyms read after all (an @symbol, kprobe.multi's addresses...):
	 * what was resolved without it is checked now, before anything loads */
	if (r->si.ksyms)
		return prepare_complete_deferred(&r->si, &r->ps);
	return 0;
}

/*
 * Attached: say so (and what waits for its module: modwatch.c attaches it as
 * the run goes), let the -c child exec, and read kallsyms if it waited.
 */
static int run_attached(struct run *r, bool deferred)
{
	char mods[128];
	int n = r->ps.n, waiting;

	r->mw = modwatch_new(&r->ps, &r->ld, &r->si);
	if (!r->mw)
		return -ENOMEM;
	waiting = modwatch_waiting(r->mw, mods, sizeof(mods));
	n -= waiting;
	fprintf(stderr, "Attached %d probe%s in %.0f ms", n, n == 1 ? "" : "s", r->ld.attach_ms);
	if (r->ld.nmulti[0] || r->ld.nmulti[1])
		fprintf(stderr, " (%d through kprobe.multi)", r->ld.nmulti[0] + r->ld.nmulti[1]);
	if (r->ld.ntramp)
		fprintf(stderr, " (%d through fentry/fexit)", r->ld.ntramp);
	if (waiting)
		fprintf(stderr, "; %d wait%s for module%s %s to load", waiting,
			waiting == 1 ? "s" : "", strchr(mods, ',') ? "s" : "", mods);
	fputc('\n', stderr);
	if (r->go_fd >= 0) {
		/* a write that fails is EOF to the child, which exits unrun:
		 * consume() sees it go */
		ssize_t w = write(r->go_fd, "g", 1);

		(void)w;
		close(r->go_fd);
		r->go_fd = -1;
	}
	if (r->env->mode == MODE_TRACE && deferred)
		symbols_after_attach(&r->si, &r->ps);
	return 0;
}

/* 5..8 run in the kernel and in the consumer, until the run ends. */
/*
 * User stacks' symbolizer, when the run takes any: the probed binaries'
 * build ids known up front, for the frames of a process gone before its
 * maps are read.
 */
static struct usym *run_usym(struct run *r)
{
	struct usym_opts o = { .raw_names = r->env->no_demangle };
	struct usym *us;
	int i;

	if (!r->env->ustack && !r->lo.plan.stacks.ukeys)
		return NULL;
	us = usym_new(&o);
	for (i = 0; us && i < r->ps.n; i++)
		if (r->ps.evs[i].is_user && r->ps.evs[i].path)
			usym_add_file(us, r->ps.evs[i].path);
	/* the files the unwinder has tables of: their frames come with build
	 * ids, named by them after the process is gone */
	for (i = 0; us && i < r->cfi.n; i++)
		usym_add_file(us, r->cfi.bins[i].path);
	return us;
}

/* --perfetto's file finished: the records the ring buffer had no room for as its counter. */
static int run_perfetto_close(struct run *r)
{
	uint64_t lost = loader_lost(&r->ld);
	int err;

	/* read now: a count grown since the last reading is sampled now, not at
	 * the last event (which may be long before, with the ring buffer full) */
	perfetto_lost(r->pf, kpt_mono_ns(), lost);
	err = perfetto_close(r->pf, lost);
	r->pf = NULL;
	if (err)
		fprintf(stderr, "kptrace: error: --perfetto: cannot write %s: %s\n",
			r->env->perfetto_path, strerror(-err));
	return err;
}

static int run_consume(struct run *r)
{
	const struct kpt_opts *env = r->env;
	struct consume_opts co = { 0 };
	struct agg_opts ao = { 0 };
	struct agg_ctx ac = { 0 };
	struct stack_watch sw = { .ld = &r->ld };
	struct consume_result res;
	int err, werr;

	/* one pair of clock readings for the whole run (--time boot, wall) */
	outtime_init(env->time_clock);
	co.out = r->out;
	co.format = env->json ? OUT_JSON : OUT_TEXT;
	/* a container's processes by its own pids too, beside the host's */
	output_json_nspids(env->json && env->mode == MODE_TRACE);
	co.duration = env->duration;
	co.child = r->child;
	co.target = r->target.pid ? &r->target : NULL;
	co.keep_running = env->keep_running;
	co.procs_fd = r->child ? loader_map_fd(&r->ld, LM_PROCS) : -1;
	co.sink = r->sink;
	co.ksyms = r->si.ksyms;
	co.syms.ks = r->si.ksyms;
	co.syms.us = r->us = run_usym(r);
	co.syms.cut = &r->ucut;
	co.evs = r->ps.evs;
	co.nevs = r->ps.n;
	co.cost_off = r->stats_off[0] ? r->stats_off : NULL;
	co.cost_win = &r->cw;
	co.budget = r->lo.plan.budget ? &r->budget : NULL;
	co.tick = run_tick;
	co.stopped = run_stopped;
	co.tick_arg = r;
	co.tick_due = &r->cw_due;
	err = costwin_start(&r->cw, &r->ld, r->ps.evs, r->ps.n);
	if (err)
		goto out;
	r->cw_due = r->cw.next;
	err = run_hooks(r, &co);
	if (err)
		goto out;
	if (env->mode != MODE_TRACE && env->mode != MODE_WHY) {
		ao.unit = env->unit;
		ao.top = env->top;
		ao.zeros = env->zeros;
		ao.by = env->by;
		ao.stats = env->stats;
		ao.sort_by = env->sort_by;
		ac.out = r->out;
		ac.json = env->json;
		ac.opts = &ao;
		ac.ld = &r->ld;
		ac.evs = r->ps.evs;
		ac.ents = r->ps.ents;
		ac.n = r->ps.n;
		ac.ksyms = r->si.ksyms;
		ac.syms = co.syms;
		ac.folded = env->folded;
		ac.interval_reset = env->interval > 0;
		ac.pmu = r->pmu.n ? &r->pmu : NULL;
		ac.ctrs = r->ctrs;
		co.report = agg_tick;
		co.report_arg = r;
		r->ac = &ac;
		if (r->lo.plan.budget && !(ac.scale = calloc(r->ps.n, sizeof(*ac.scale)))) {
			err = -ENOMEM;
			goto out;
		}
		co.interval = env->interval;
		if (r->svg && !(ac.svg = svg_new(ac.interval_reset))) {
			err = -ENOMEM;
			goto out;
		}
		if (co.syms.us && r->lo.plan.stacks.ukeys) {
			sw.us = co.syms.us;
			co.watch = stack_watch;
			co.watch_arg = &sw;
		}
	}
	err = consume(&r->ld, &co, &r->status, &res);
	if (res.ran)
		profile_print(&r->ld, &co, &res);
	free(res.missed);
	modwatch_end(r->mw);
	if (r->child && waitpid(r->child, &r->status, WNOHANG) == 0)
		kill(r->child, SIGTERM), waitpid(r->child, &r->status, 0);
	r->child = 0;
	if (r->tc_err)
		err = err ? err : r->tc_err;
	if (r->pf && (werr = run_perfetto_close(r)))
		err = err ? err : werr;
	if (ac.svg) {
		/* the picture of every table the run printed, once they all were */
		werr = svg_save(ac.svg, r->svg);

		if (werr) {
			fprintf(stderr, "kptrace: error: --svg: cannot write %s: %s\n",
				env->svg_path, strerror(-werr));
			err = err ? err : werr;
		}
	}
out:
	r->ac = NULL;
	if (r->over) {
		callstart_free(r->over);
		free(r->over);
		r->over = NULL;
	}
	free(ac.scale);
	svg_free(ac.svg);
	aggstack_seen_free(&sw.seen);
	usym_free(co.syms.us);
	r->us = NULL;
	return err;
}

/*
 * The profile's COST: the kernel counts programs' run time while an fd of
 * BPF_ENABLE_STATS is open, never a global sysctl flipped (one already on
 * serves as well). It is held in windows (costwin.h) but for --cost exact
 * and --budget, whose rates need the run time continuously.
 */
static void run_hold_stats(struct run *r)
{
	costwin_hold(&r->cw, !r->env->cost_exact && !r->lo.plan.budget, r->stats_off,
		     sizeof(r->stats_off));
}

static void run_close(struct run *r)
{
	budget_free(&r->budget);
	costwin_close(&r->cw);
	if (r->go_fd >= 0)
		close(r->go_fd); /* the child sees EOF and exits without running */
	if (r->child > 0)
		waitpid(r->child, &r->status, 0);
	modwatch_free(r->mw);
	loader_close(&r->ld);
	cfi_free(&r->cfi);
	ident_free(&r->ident);
	pmu_close(&r->pmu);
	target_close(&r->target);
	if (r->out)
		fclose(r->out);	/* and raw, but stdout, which is flushed */
	if (r->svg)
		fclose(r->svg);
	perfetto_close(r->pf, 0);	/* a run that ended before consuming: the file still JSON */
	probeset_free(&r->ps);
	sysinfo_free(&r->si);
	tchart_free(r->tc);
	ctr_table_free(r->ctrs);
}

static int run_once(const struct kpt_opts *env, bool defer, bool *said_attaching)
{
	struct run r = { .env = env, .target = { .pidfd = -1 }, .go_fd = -1, .cw.fd = -1 };
	char msg[512];
	bool deferred;
	int err;

	err = run_setup(&r, defer);
	if (!err)
		err = prepare(env, &r.si, &r.ps);
	if (!err) {
		err = plan_make(env, &r.si, &r.ps, r.pmu.n, &r.lo.plan, msg, sizeof(msg));
		if (err)
			fprintf(stderr, "kptrace: error: %s\n", msg);
	}
	if (!err && env->dry_run) {
		plan_print(stdout, &r.lo.plan, &r.ps);
		goto out;
	}
	if (!err)
		err = run_open(&r);
	if (!err)
		err = run_load_opts(&r);
	if (!err)
		err = run_before_load(&r);
	if (err)
		goto out;
	deferred = prepare_any_deferred(&r.ps);
	run_hold_stats(&r);
	err = load_attach(&r, deferred, said_attaching);
	if (!err)
		err = run_attached(&r, deferred);
	if (!err)
		err = run_consume(&r);
out:
	run_close(&r);
	return err;
}

/*
 * A run without kallsyms where it can go without (resolve.h). Where the
 * kernel refused to attach a function by the name given, the run again with
 * kallsyms: the same refusal as ever, or a name this run could not know
 * (foo as its clone foo.isra.0), nothing attached meanwhile.
 */
int kpt_run(const struct kpt_opts *env)
{
	bool said = false;
	int err = run_once(env, !env->dry_run, &said);

	if (err == KPT_ERETRY_KSYMS)
		err = run_once(env, false, &said);
	return err == KPT_ERETRY_KSYMS ? -EINVAL : err;
}

/*
 * serve's jobs: a run of aggregations loaded and attached, whose tables are
 * read on demand (run_visit()) instead of printed by the consumer. kallsyms
 * is read up front: a job attaches once, with no retry to make.
 */
int run_start(const struct kpt_opts *env, struct run **out)
{
	struct run *r = calloc(1, sizeof(*r));
	char msg[512];
	bool said = true;	/* serve says what it attaches, per job */
	int err;

	*out = NULL;
	if (!r)
		return -ENOMEM;
	r->env = env;
	r->cw.fd = -1;	/* serve holds BPF_ENABLE_STATS for its jobs */
	r->target.pidfd = -1;
	r->go_fd = -1;
	err = run_setup(r, false);
	if (!err)
		err = prepare(env, &r->si, &r->ps);
	if (!err) {
		err = plan_make(env, &r->si, &r->ps, r->pmu.n, &r->lo.plan, msg, sizeof(msg));
		if (err)
			fprintf(stderr, "kptrace: error: %s\n", msg);
	}
	for (int i = 0; !err && i < r->ps.n; i++) {
		/* nothing in serve looks at /proc/modules as it goes (modwatch.c) */
		if (!r->ps.evs[i].target.await)
			continue;
		snprintf(msg, sizeof(msg), "module %s is not loaded, and serve does not wait "
			 "for one: load it before the job starts", r->ps.evs[i].target.module);
		probeset_report(&r->ps, i, msg);
		err = -ENOENT;
	}
	if (!err)
		err = run_load_opts(r);
	if (!err)
		err = run_before_load(r);
	if (!err)
		err = load_attach(r, false, &said);
	if (err) {
		run_close(r);
		free(r);
		return err;
	}
	*out = r;
	return 0;
}

void run_visit(struct run *r, agg_series_fn fn, void *arg)
{
	const struct kpt_opts *env = r->env;
	struct agg_opts ao = { .unit = "ns", .by = env->by, .stats = env->stats };
	struct agg_ctx ac = {
		.opts = &ao,
		.ld = &r->ld,
		.evs = r->ps.evs,
		.ents = r->ps.ents,
		.n = r->ps.n,
		.ksyms = r->si.ksyms,
		.visit = fn,
		.visit_arg = arg,
		.ctrs = r->ctrs,
	};

	ac.syms.ks = r->si.ksyms;
	agg_report(&ac, false);
}

static bool cgroup_gone(void *arg, uint64_t id)
{
	const struct run_gone *g = arg;

	return ctr_gone_for(g->ctrs, id, g->after_ns);
}

int run_drop_gone(struct run *r, uint64_t after_ns)
{
	struct agg_opts ao = { .by = r->env->by };
	struct agg_ctx ac = { .opts = &ao, .ld = &r->ld, .evs = r->ps.evs, .ents = r->ps.ents,
			      .n = r->ps.n };
	struct run_gone g = { r->ctrs, after_ns };
	int n;

	if (!r->ctrs)
		return 0;
	/* once a second at most: a read of the cgroup tree is a walk of its folders */
	ctr_table_refresh(r->ctrs, 1000000000ull);
	if (!ctr_take_expired(r->ctrs, after_ns))
		return 0;
	n = agg_drop_keys(&ac, cgroup_gone, &g);
	if (n >= 0)
		ctr_forget_expired(r->ctrs);
	return n;
}

const struct probeset *run_probes(const struct run *r)
{
	return &r->ps;
}

struct loader *run_loader(struct run *r)
{
	return &r->ld;
}

void run_stop(struct run *r)
{
	if (!r)
		return;
	run_close(r);
	free(r);
}
