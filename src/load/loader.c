// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The skeleton's lifecycle in order: open, configure, load, attach. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "load/cfi.h"
#include "load/ident.h"
#include "load/loader.h"
#include "load/reaper.h"
#include "load/tracefs_kretprobe.h"
#include "prepare/plan.h"
#include "sys/btfwalk.h"
#include "sys/kfeat.h"
#include "sys/tracepoint.h"
#include "util/clock.h"
#include "kpt_budget.h"
#include "kptrace.skel.h"
#include "kptrace_compat.skel.h"

/* A per-key map: one entry when unused, --max-keys when given, else as declared. */
static void size_keyed(struct bpf_map *m, bool used, uint32_t max_keys)
{
	if (!used)
		bpf_map__set_max_entries(m, 1);
	else if (max_keys)
		bpf_map__set_max_entries(m, max_keys);
}

/* Slot program k of prefix's max (kpt_tramp3), or NULL past them. */
static struct bpf_program *slot_prog(struct bpf_object *obj, const char *prefix, int k, int max)
{
	char name[32];

	snprintf(name, sizeof(name), "%s%d", prefix, k);
	return k < max ? bpf_object__find_program_by_name(obj, name) : NULL;
}

/* None of prefix's slots loaded, until a probe takes one. */
static void slots_off(struct bpf_object *obj, const char *prefix, int max)
{
	int i;

	for (i = 0; i < max; i++)
		bpf_program__set_autoload(slot_prog(obj, prefix, i, max), false);
}

/*
 * fentry/fexit: one slot program per probe, given its direction and
 * function; the unused slots are not loaded. Returns how many are used.
 */
static int setup_tramps(struct loader *ld, const struct ev_desc *evs, int n, char *msg,
			size_t msglen)
{
	int i, k = 0, err;

	slots_off(ld->skel->obj, "kpt_tramp", KPT_TRAMP_SLOTS);
	for (i = 0; i < n; i++) {
		struct bpf_program *prog;

		if (!evs[i].tramp)
			continue;
		prog = slot_prog(ld->skel->obj, "kpt_tramp", k, KPT_TRAMP_SLOTS);
		if (!prog) {
			snprintf(msg, msglen, "more than %d fentry/fexit probes", KPT_TRAMP_SLOTS);
			return -E2BIG;
		}
		bpf_program__set_expected_attach_type(prog, evs[i].is_return ? BPF_TRACE_FEXIT :
									    BPF_TRACE_FENTRY);
		err = bpf_program__set_attach_target(prog, 0, evs[i].func);
		if (err) {
			snprintf(msg, msglen, "no BTF prototype for %s, which fentry/fexit need: "
				 "%s; use --backend kprobe", evs[i].func, strerror(-err));
			return err;
		}
		bpf_program__set_autoload(prog, true);
		ld->tramp[i] = prog;
		k++;
	}
	return k;
}

/*
 * tp_btf: one slot program per probe, verified against its tracepoint's
 * btf_trace_<event>; its probe and argument count are the slot's settings
 * (bpf/tp.bpf.h). Kept in ld->tramp: a tracing link, as a trampoline's.
 */
static int setup_tpbtf(struct loader *ld, const struct ev_desc *evs, int n, char *msg,
		       size_t msglen)
{
	int i, k, err;

	slots_off(ld->skel->obj, "kpt_tpbtf", KPT_TPBTF_SLOTS);
	for (i = 0; i < n; i++) {
		struct bpf_program *prog = NULL;

		if (!evs[i].tpbtf)
			continue;
		k = plan_tpbtf_slot(evs, i);
		if (k == 0 && ld->dh_own)
			prog = ld->skel->progs.kpt_tpbtf_dh;
		else if (k >= 0)
			prog = slot_prog(ld->skel->obj, "kpt_tpbtf", k, KPT_TPBTF_SLOTS);
		if (!prog) {
			snprintf(msg, msglen, "more than %d tp_btf probes", KPT_TPBTF_SLOTS);
			return -E2BIG;
		}
		err = bpf_program__set_attach_target(prog, 0, evs[i].target.tp_event);
		if (err) {
			snprintf(msg, msglen, "no btf_trace_%s, which tp_btf needs: %s; use "
				 "--backend tracepoint", evs[i].target.tp_event, strerror(-err));
			return err;
		}
		bpf_program__set_autoload(prog, true);
		ld->skel->rodata->kpt_tpbtf_probe[k] = (__u32)i;
		ld->skel->rodata->kpt_tpbtf_nargs[k] = evs[i].tp_nargs;
		ld->tramp[i] = prog;
	}
	return 0;
}

static bool tp_chained(const struct loader *ld, const struct ev_desc *ev);

/* Probe ev's slot program (ld->slot[ev->index] >= 0: load/ident.h). */
static struct bpf_program *slot_of(struct loader *ld, const struct ev_desc *ev)
{
	return slot_prog(ld->skel->obj, ev->kind == SPEC_TRACEPOINT ? "kpt_tp_s" : "kpt_entry_s",
			 ld->slot[ev->index], KPT_ID_SLOTS);
}

/*
 * A program of its own for each probe given a slot (load/ident.h: no BPF
 * cookies, or a few tracepoints), its probe a read-only constant; the unused
 * slots are not loaded, so each slot's verification is paid only where a
 * probe has it.
 */
static void setup_slots(struct loader *ld, const struct load_opts *o, int n)
{
	int i;

	slots_off(ld->skel->obj, "kpt_entry_s", KPT_ID_SLOTS);
	slots_off(ld->skel->obj, "kpt_tp_s", KPT_ID_SLOTS);
	ld->slot = o->ident ? o->ident->slot : NULL;
	for (i = 0; ld->slot && i < n; i++) {
		int partner = ident_tp_partner(&o->evs[i], n);

		if (ld->slot[i] < 0 || tp_chained(ld, &o->evs[i]))
			continue;	/* a pair's other probe: its host's slot runs it */
		bpf_program__set_autoload(slot_of(ld, &o->evs[i]), true);
		ld->skel->rodata->kpt_slot_probe[ld->slot[i]] = (__u32)i;
		ld->skel->rodata->kpt_slot_then[ld->slot[i]] = partner >= 0 ? (__u32)partner + 1 : 0;
	}
}

/*
 * The BPF object the skeleton embeds (~400 KB of the binary) is read at
 * open only: libbpf keeps its own copies of what it needs, and the kernel
 * has the programs. Its pages are the binary's, clean, so they can leave
 * this process's RSS for the rest of the run (a later read, as a reload
 * after a fallback, faults them back in from the page cache).
 */
static void drop_object_pages(bool compat)
{
	size_t sz = 0;
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t start = compat ? (uintptr_t)kptrace_compat_bpf__elf_bytes(&sz) :
				   (uintptr_t)kptrace_bpf__elf_bytes(&sz);
	uintptr_t b = (start + pg - 1) & ~(pg - 1), e = (start + sz) & ~(pg - 1);

	if (pg && e > b)
		madvise((void *)b, e - b, MADV_DONTNEED);	/* advice: no error to act on */
}

/* The kernel refused the programs: say which kind, and what to do. */
static void load_refused(struct loader *ld, const struct ev_desc *evs, int err, char *msg,
			 size_t msglen)
{
	size_t len;
	int i;

	if (!ld->ntramp) {
		if (err == -EPERM)
			snprintf(msg, msglen,
				 "loading BPF programs needs root (CAP_BPF and CAP_PERFMON): %s",
				 strerror(-err));
		else
			snprintf(msg, msglen,
				 "the kernel refused the BPF programs: %s (run with -v for the "
				 "verifier log)", strerror(-err));
		return;
	}
	/* root was checked before: a refusal here is the trampolines' */
	snprintf(msg, msglen, "the kernel refused fentry/fexit programs (%s) on", strerror(-err));
	for (i = 0; i < ld->nprobes; i++) {
		len = strlen(msg);
		if (ld->tramp[i] && len < msglen)
			snprintf(msg + len, msglen - len, " %s%s", evs[i].func,
				 evs[i].is_return ? "%return" : "");
	}
	len = strlen(msg);
	if (len < msglen)
		snprintf(msg + len, msglen - len, " (no BPF trampolines in this kernel, or not for "
			 "these functions; -v shows the verifier's reason)");
}

/*
 * The ring buffer, unless --buffer-size: 1 MiB per CPU as a power of two,
 * 1 to 32 MiB, like ftrace's per-CPU buffers (1.4 MB each). Its pages are
 * resident memory (mapped once: src/run/ringbuf.c): 2 MiB on 2 CPUs keeps a
 * streaming kptrace under 5 MB.
 */
uint32_t loader_default_ring(int ncpus)
{
	uint32_t want = 1u << 20, ring = 1u << 20;

	if (ncpus > 0)
		want *= (uint32_t)ncpus;
	while (ring < want && ring < (32u << 20))
		ring <<= 1;
	return ring;
}

/* latency --pmu: size and configure the counters' maps (src/load/pmu.c fills them). */
/* Stack keys' maps (allocated as stacks come: their size only bounds them) and the depths. */
static void stacks_setup(struct kptrace_bpf *skel, const struct stack_plan *sp, bool compat)
{
	skel->rodata->kpt_kstack_depth = sp->kdepth ? sp->kdepth : KPT_STACK_MAX;
	skel->rodata->kpt_ustack_depth = sp->udepth ? sp->udepth : KPT_STACK_MAX;
	skel->rodata->kpt_stack_keyed = (sp->kkeys ? KPT_SK_KSTACK : 0) |
					(sp->ukeys ? KPT_SK_USTACK : 0);
	bpf_map__set_max_entries(skel->maps.kpt_kstk, sp->kkeys ? KPT_KSTACK_KEYS : 1);
	bpf_map__set_max_entries(skel->maps.kpt_ustk, sp->ukeys ? KPT_USTACK_KEYS : 1);
	/* Before 6.1 a kprobe program with a map allocated as it fills is the
	 * verifier's WARN ("trace type BPF program uses run-time allocation",
	 * a panic under panic_on_warn; measured on 5.10): the compat object's
	 * kernels (before 5.17) get them allocated up front. */
	if (compat) {
		bpf_map__set_map_flags(skel->maps.kpt_kstk, 0);
		bpf_map__set_map_flags(skel->maps.kpt_ustk, 0);
	}
}

/* The CFI unwinder's settings and its rows' room (bpf/unwind.bpf.h), where a run has tables. */
static void cfi_setup(struct kptrace_bpf *skel, const struct cfi_set *cs)
{
	/* a run without tables at start keeps the walk: the tables of the
	 * binaries it meets are read then */
	if (!cs || !cs->vma_file_off) {
		bpf_map__set_max_entries(skel->maps.kpt_cfi_bins, 1);
		bpf_map__set_max_entries(skel->maps.kpt_uw_procs, 1);
		bpf_map__set_max_entries(skel->maps.kpt_uw_wanted, 1);
		return;
	}
	skel->rodata->kpt_cfi_on = true;
	skel->rodata->kpt_vma_pgoff_off = cs->vma_pgoff_off;
	skel->rodata->kpt_vma_file_off = cs->vma_file_off;
	skel->rodata->kpt_file_inode_off = cs->file_inode_off;
	skel->rodata->kpt_inode_ino_off = cs->inode_ino_off;
	skel->rodata->kpt_inode_sb_off = cs->inode_sb_off;
	skel->rodata->kpt_sb_dev_off = cs->sb_dev_off;
	skel->rodata->kpt_task_mm_off = cs->task_mm_off;
	skel->rodata->kpt_page_shift = cs->page_shift;
	bpf_map__set_max_entries(skel->maps.kpt_cfi_rows, cs->room ? cs->room : 1);
}

/* The tables into their maps, before anything is attached. */
static int cfi_fill(struct kptrace_bpf *skel, const struct cfi_set *cs, char *msg,
		    size_t msglen)
{
	int bins = bpf_map__fd(skel->maps.kpt_cfi_bins), rows = bpf_map__fd(skel->maps.kpt_cfi_rows);
	int i, err = 0;

	for (i = 0; i < cs->n && !err; i++)
		err = cfi_bin_load(&cs->bins[i], bins, rows);
	if (err)
		snprintf(msg, msglen, "cannot load the unwind tables: %s", strerror(-err));
	return err;
}

static void pmu_setup(struct kptrace_bpf *skel, uint32_t n, int ncpus, uint32_t max_keys)
{
	if (!n)
		return; /* every map at one entry; the programs leave them alone */
	skel->rodata->kpt_pmu_n = n;
	skel->rodata->kpt_pmu_stride = ncpus;
	bpf_map__set_max_entries(skel->maps.kpt_pmu, n * ncpus);
	bpf_map__set_max_entries(skel->maps.kpt_pmu_start, max_keys ? max_keys : 10240);
	bpf_map__set_max_entries(skel->maps.kpt_pmu_stat,
				 bpf_map__max_entries(skel->maps.kpt_probes));
}

/* Each map sized for this run; returns the ring buffer's size. */
static uint32_t size_maps(struct kptrace_bpf *skel, const struct load_opts *o, int nprobes,
			  int ncpus)
{
	uint32_t ring;

	bpf_map__set_max_entries(skel->maps.kpt_probes, nprobes);
	bpf_map__set_max_entries(skel->maps.kpt_stats, nprobes);
	bpf_map__set_max_entries(skel->maps.kpt_budget, o->plan.budget ? nprobes : 1);
	/* mapped: a bucket's rate changes while the kernel writes its tat (loader_set_budget) */
	if (o->plan.budget)
		bpf_map__set_map_flags(skel->maps.kpt_budget, BPF_F_MMAPABLE);
	bpf_map__set_max_entries(skel->maps.kpt_scratch, ncpus);
	ring = o->buffer_size ? o->buffer_size : loader_default_ring(ncpus);
	bpf_map__set_max_entries(skel->maps.kpt_events, ring);
	bpf_map__set_max_entries(skel->maps.kpt_hist, o->hist_buckets ? o->hist_buckets : 1);
	bpf_map__set_max_entries(skel->maps.kpt_hstat, nprobes);
	bpf_map__set_max_entries(skel->maps.kpt_why_logs, o->plan.why_cond ? KPT_WHY_THREADS : 1);
	/* Maps this run never touches get one entry: memory, and start-up. */
	size_keyed(skel->maps.kpt_kagg, o->plan.keyed, o->max_keys);
	/* probe, bucket and the words the keys use: a string's room only for a string */
	bpf_map__set_key_size(skel->maps.kpt_kagg, (uint32_t)(offsetof(struct kpt_key, w) +
			      8 * (o->plan.key_words > 0 ? o->plan.key_words : 1)));
	size_keyed(skel->maps.kpt_depth, o->plan.latency || o->plan.edata, o->max_keys);
	size_keyed(skel->maps.kpt_edata, o->plan.edata, o->max_keys);
	size_keyed(skel->maps.kpt_pairs, o->plan.pairs, o->max_keys);
	/* the probe and the words the key uses: each lookup hashes all of it */
	bpf_map__set_key_size(skel->maps.kpt_pairs, o->plan.pair_narrow ?
			      (uint32_t)offsetof(struct kpt_pair_key, w) :
			      (uint32_t)(offsetof(struct kpt_pair_key, w) +
					 8 * (o->plan.pair_words > 0 ? o->plan.pair_words : 1)));
	bpf_map__set_value_size(skel->maps.kpt_pairs, o->plan.pair_carry ? sizeof(struct kpt_pair_val)
				: sizeof(__u64));
	size_keyed(skel->maps.kpt_procs, o->target_set, o->max_keys);
	return ring;
}

/*
 * A direct histogram's flags of the run (kpt_self_hit(), kpt_hist_self()):
 * untargeted, it reads no task ids at a hit's start; kptrace's own hits
 * are left out once the filter passed, told by the stack a hit runs on
 * where task_struct's layout was read (loader_stack_layout()), else by
 * asking; where kptrace cannot hit the probe (self_tgid 0), never. Under
 * a budget that may, at the start: its hits must take no token.
 */
static uint8_t dh_run_flags(const struct load_opts *o)
{
	if (o->target_tgid || o->target_tid || o->target_ncgroups)
		return 0;
	if (!o->self_tgid)
		return KPT_DH_NO_IDS;
	if (o->plan.budget)
		return 0;
	return KPT_DH_NO_IDS | (o->oncpu_stack_off ? KPT_DH_SELF_STACK : KPT_DH_SELF_ASK);
}

/* Only the programs this run's probes attach are loaded; dh_own: a direct
 * histogram's in place of kpt_entry, kpt_tp and tp_btf slot 0. */
static void choose_programs(struct kptrace_bpf *skel, const struct load_opts *o, int nprobes,
			    bool dh_own)
{
	bool use_entry = false, use_tp = false, use_multi = false, use_perf = false, use_tp2 = false;
	int i;

	bpf_program__set_autoload(skel->progs.kpt_newtask, o->target_set && o->follow_forks);
	bpf_program__set_autoload(skel->progs.kpt_procfree, o->target_set);
	for (i = 0; i < nprobes; i++) {
		const struct ev_desc *ev = &o->evs[i];

		if (o->ident && o->ident->slot && o->ident->slot[i] >= 0)
			continue;	/* its own program: setup_slots() */
		use_tp |= ev->kind == SPEC_TRACEPOINT && !ev->tpbtf &&
			  ident_tp_partner(ev, nprobes) < 0 && !ev->pair_direct;
		use_tp2 |= ident_tp_partner(ev, nprobes) >= 0 || ev->pair_direct;
		use_perf |= ev->kind == SPEC_PROFILE;
		use_multi |= ev->multi;
		use_entry |= !ev->multi && !ev->tramp && ev->kind != SPEC_TRACEPOINT &&
			     ev->kind != SPEC_PROFILE;
	}
	bpf_program__set_autoload(skel->progs.kpt_perf, use_perf);
	bpf_program__set_autoload(skel->progs.kpt_entry, use_entry && !dh_own);
	bpf_program__set_autoload(skel->progs.kpt_entry_dh, use_entry && dh_own);
	bpf_program__set_autoload(skel->progs.kpt_tp, use_tp && !dh_own);
	bpf_program__set_autoload(skel->progs.kpt_tp_dh, use_tp && dh_own);
	bpf_program__set_autoload(skel->progs.kpt_tpbtf_dh, false);	/* setup_tpbtf() */
	bpf_program__set_autoload(skel->progs.kpt_tp2, use_tp2);
	bpf_program__set_autoload(skel->progs.kpt_entry_multi, use_multi);
}

/* The read-only settings: the plan's, the targets', the fast paths'. */
static void set_rodata(struct kptrace_bpf *skel, const struct load_opts *o, int nprobes,
		       uint32_t ring)
{
	int i;

	skel->rodata->kpt_target_tgid = o->target_tgid;
	skel->rodata->kpt_target_tid = o->target_tid;
	memcpy((void *)skel->rodata->kpt_target_cgroups, o->target_cgroups,
	       sizeof(o->target_cgroups));
	skel->rodata->kpt_target_ncgroups = o->target_ncgroups;
	skel->rodata->kpt_targeted = o->target_tgid || o->target_tid || o->target_ncgroups;
	skel->rodata->kpt_self_tgid = o->self_tgid;
	skel->rodata->kpt_oncpu_stack_off = o->oncpu_stack_off;
	skel->rodata->kpt_task_tgid_off = o->task_tgid_off;
	skel->rodata->kpt_target_set = o->target_set && o->target_tgid;
	skel->rodata->kpt_any_task_ends = o->plan.any_task_ends;
	skel->rodata->kpt_cgroup_key = o->plan.cgroup_key;
	skel->rodata->kpt_cg_loads = o->cg_loads;
	for (i = 0; i < 5; i++)
		skel->rodata->kpt_cg_off[i] = o->cg_off[i];
	skel->rodata->kpt_nt_pid_off = o->nt_pid_off;
	skel->rodata->kpt_nt_flags_off = o->nt_flags_off;
	skel->rodata->kpt_free_pid_off = o->free_pid_off;
	skel->rodata->kpt_rh_task_off = o->rh_task_off;
	skel->rodata->kpt_rh_llist_off = o->rh_llist_off;
	skel->rodata->kpt_rh_ret_off = o->rh_ret_off;
	skel->rodata->kpt_rh_frame_off = o->rh_frame_off;
	skel->rodata->kpt_uses = o->plan.uses;
	skel->rodata->kpt_acts = o->plan.acts;
	skel->rodata->kpt_max_nkeys = o->plan.max_nkeys;
	skel->rodata->kpt_regs_mask = o->plan.regs_mask ? o->plan.regs_mask : ~0ull;	/* 0: not said */
	skel->rodata->kpt_max_args = o->plan.max_args;
	skel->rodata->kpt_max_deref = o->plan.max_deref;
	skel->rodata->kpt_max_count = o->plan.max_count;
	skel->rodata->kpt_tp_end = o->plan.tp_end;
	skel->rodata->kpt_tp_direct_word = o->plan.tp_direct_word;
	skel->rodata->kpt_one_probe = nprobes == 1;
	if (o->ident && o->ident->keys) {	/* no BPF cookies (load/ident.h) */
		skel->rodata->kpt_no_cookie = true;
		skel->rodata->kpt_id_curkp = o->ident->curkp;
		skel->rodata->kpt_id_pcpu = o->ident->pcpu;
		skel->rodata->kpt_id_addr_off = o->ident->addr_off;
		bpf_map__set_max_entries(skel->maps.kpt_ident, nprobes);
	}
	skel->rodata->kpt_pair_carry = o->plan.pair_carry;
	skel->rodata->kpt_lat_emit = o->plan.lat_emit;
	skel->rodata->kpt_lat_over = o->plan.lat_over;
	skel->rodata->kpt_budget_on = o->plan.budget;
	skel->rodata->kpt_why_cond = o->plan.why_cond;
	skel->rodata->kpt_why_ret_size = o->plan.why_ret_size;
	skel->rodata->kpt_why_slower = o->plan.why_slower;
	for (i = 0; i < nprobes; i++)
		if (o->evs[i].kind == SPEC_URETPROBE) {
			skel->rodata->kpt_func_ip = libbpf_probe_bpf_helper(BPF_PROG_TYPE_KPROBE,
									    BPF_FUNC_get_func_ip,
									    NULL) > 0;
			break;
		}
	/* asked only when used: a probe program's load */
	skel->rodata->kpt_have_find_vma =
		(o->plan.stacks.ucaller || skel->rodata->kpt_cfi_on) &&
		libbpf_probe_bpf_helper(BPF_PROG_TYPE_KPROBE, BPF_FUNC_find_vma, NULL) == 1;
	if (nprobes == 1) {	/* the BPF side writes probe 0's records, counts its buckets */
		memcpy((void *)&skel->rodata->kpt_ds, &o->plan.ds, sizeof(o->plan.ds));
		memcpy((void *)&skel->rodata->kpt_dh, &o->plan.dh, sizeof(o->plan.dh));
		if (o->plan.dh.on)
			skel->rodata->kpt_dh.on |= dh_run_flags(o);
	}
	/* a pair on one tracepoint: kpt_tp2 does both probes' work in one go */
	if (!skel->rodata->kpt_no_cookie)
		memcpy((void *)&skel->rodata->kpt_dp, &o->plan.dp, sizeof(o->plan.dp));
	skel->rodata->kpt_pair_late = nprobes > 0 && !skel->rodata->kpt_targeted &&
				      !o->plan.budget && !skel->rodata->kpt_dp.on &&
				      !skel->rodata->kpt_no_cookie;
	for (i = 0; i < nprobes; i++)
		skel->rodata->kpt_pair_late &= o->evs[i].pair_direct;
	/* tp_btf slots' direct pair probes: their starts and ends inline */
	memcpy((void *)skel->rodata->kpt_tpbtf_pair, o->plan.tpair, sizeof(o->plan.tpair));
	/* wake the consumer at an eighth full: no wakeup per event, no drop for want of one */
	skel->rodata->kpt_wakeup_bytes = ring / 8;
	if (o->target_comm)
		strncpy((char *)skel->rodata->kpt_target_comm, o->target_comm,
			sizeof(skel->rodata->kpt_target_comm) - 1);
}

void loader_rethook_layout(struct load_opts *lo, const struct btf *btf)
{
	if (!btfwalk_struct_member(btf, "task_struct", "rethooks", &lo->rh_task_off) ||
	    !btfwalk_struct_member(btf, "rethook_node", "llist", &lo->rh_llist_off) ||
	    !btfwalk_struct_member(btf, "rethook_node", "ret_addr", &lo->rh_ret_off) ||
	    !btfwalk_struct_member(btf, "rethook_node", "frame", &lo->rh_frame_off))
		lo->rh_task_off = 0;
}

/* task_struct.tgid's offset, looked up once for whichever layout needs it */
static bool task_tgid_layout(struct load_opts *lo, const struct btf *btf)
{
	return lo->task_tgid_off ||
	       btfwalk_struct_member(btf, "task_struct", "tgid", &lo->task_tgid_off);
}

void loader_cgroup_layout(struct load_opts *lo, const struct btf *btf)
{
	lo->cg_loads = btfwalk_struct_member(btf, "task_struct", "cgroups", &lo->cg_off[0]) &&
		       btfwalk_struct_member(btf, "css_set", "dfl_cgrp", &lo->cg_off[1]) &&
		       btfwalk_struct_member(btf, "cgroup", "kn", &lo->cg_off[2]) &&
		       btfwalk_struct_member(btf, "kernfs_node", "id", &lo->cg_off[3]) &&
		       btfwalk_struct_member(btf, "task_struct", "pid", &lo->cg_off[4]) &&
		       task_tgid_layout(lo, btf);
}

void loader_stack_layout(struct load_opts *lo, const struct btf *btf)
{
	if (!btfwalk_struct_member(btf, "task_struct", "stack", &lo->oncpu_stack_off) ||
	    !task_tgid_layout(lo, btf))
		lo->oncpu_stack_off = 0;
}

int loader_object_maps(void)
{
	struct kptrace_bpf *skel = calloc(1, sizeof(*skel));
	int n = 0;

	if (skel && !kptrace_bpf__create_skeleton(skel))
		n = skel->skeleton->map_cnt;
	kptrace_bpf__destroy(skel);
	return n;
}

/*
 * The skeleton on the object this kernel loads: kernels without bpf_loop()
 * (before 5.17) get the one built without callbacks (KPT_COMPAT), which
 * kernels before 5.13 refuse in any code, run or not; the Makefile checks
 * that it lays out as the main one. NULL and errno on failure.
 */
static struct kptrace_bpf *open_object(bool compat, const struct bpf_object_open_opts *opts)
{
	struct kptrace_bpf *skel = calloc(1, sizeof(*skel));
	int err;

	if (!skel)
		return NULL;
	err = kptrace_bpf__create_skeleton(skel);
	if (!err && compat)
		skel->skeleton->data = kptrace_compat_bpf__elf_bytes(&skel->skeleton->data_sz);
	if (!err)
		err = bpf_object__open_skeleton(skel->skeleton, opts);
	if (err) {
		kptrace_bpf__destroy(skel);
		errno = -err;
		return NULL;
	}
	return skel;
}

/* No BPF cookies: each probe's key into kpt_ident (load/ident.h). */
static int ident_fill(struct loader *ld, const struct ident_set *id, char *msg, size_t msglen)
{
	int i, err;

	for (i = 0; i < ld->nprobes; i++) {
		__u32 idx = (__u32)i;

		if (id->keys[i].what == ~0u)
			continue;	/* a tp_btf slot's: a constant */
		err = bpf_map__update_elem(ld->skel->maps.kpt_ident, &id->keys[i],
					   sizeof(id->keys[i]), &idx, sizeof(idx), BPF_NOEXIST);
		if (err) {
			snprintf(msg, msglen, "cannot write probe %d's key (no BPF cookies): %s", i,
				 strerror(-err));
			return err;
		}
	}
	return 0;
}

int loader_load(struct loader *ld, const struct load_opts *o, int nprobes, char *msg,
		size_t msglen)
{
	LIBBPF_OPTS(bpf_object_open_opts, open_opts);
	struct kptrace_bpf *skel;
	uint32_t ring;
	int err;

	memset(ld, 0, sizeof(*ld));
	ld->nprobes = nprobes;
	ld->failed = -1;
	ld->ncpus = libbpf_num_possible_cpus();
	if (ld->ncpus <= 0) {
		snprintf(msg, msglen, "cannot count CPUs: %s", strerror(-ld->ncpus));
		return ld->ncpus ? ld->ncpus : -EINVAL;
	}
	if (!kfeat_ringbuf()) {
		snprintf(msg, msglen, "this kernel's BPF has no ring buffer (bpf_ringbuf_reserve(), "
			 "Linux 5.8): kptrace needs Linux 5.10 or later");
		return -EOPNOTSUPP;
	}
	ld->compat = kfeat_compat_why() != NULL;
	ld->no_cookie = o->ident && o->ident->keys;
	/* CO-RE relocations, were there any, against --btf's file: libbpf
	 * finds no kernel BTF of its own there */
	open_opts.btf_custom_path = o->btf_path;
	skel = open_object(ld->compat, &open_opts);
	if (!skel) {
		err = -errno;
		snprintf(msg, msglen, "cannot open the BPF object: %s", strerror(errno));
		return err;
	}
	ld->skel = skel;

	ring = size_maps(skel, o, nprobes, ld->ncpus);
	ld->dh_own = nprobes == 1 && o->plan.dh.on && (dh_run_flags(o) & KPT_DH_NO_IDS);
	choose_programs(skel, o, nprobes, ld->dh_own);
	ld->tramp = calloc(nprobes ? nprobes : 1, sizeof(*ld->tramp));
	if (!ld->tramp)
		return -ENOMEM;
	ld->ntramp = setup_tramps(ld, o->evs, nprobes, msg, msglen);
	if (ld->ntramp < 0)
		return ld->ntramp;
	err = setup_tpbtf(ld, o->evs, nprobes, msg, msglen);
	if (err)
		return err;
	setup_slots(ld, o, nprobes);
	pmu_setup(skel, o->pmu_n, ld->ncpus, o->max_keys);
	sched_setup(skel, &o->sched, ld->ncpus);
	stacks_setup(skel, &o->plan.stacks, ld->compat);
	cfi_setup(skel, o->cfi);
	set_rodata(skel, o, nprobes, ring);

	err = kptrace_bpf__load(skel);
	if (err && skel->rodata->kpt_have_find_vma) {
		/* 6.1's verifier adds bpf_find_vma()'s callback's frame to the
		 * program's stack, past 512 bytes: again without it, the caller at
		 * an entry then a bare address (bpf/stack.bpf.h), user stacks by
		 * frame pointers only (bpf/unwind.bpf.h) */
		struct load_opts again = *o;

		again.plan.stacks.ucaller = false;
		again.cfi = NULL;
		free(ld->tramp);
		kptrace_bpf__destroy(skel);
		err = loader_load(ld, &again, nprobes, msg, msglen);
		ld->cfi_refused = o->cfi && o->cfi->n;
		return err;
	}
	if (err) {
		load_refused(ld, o->evs, err, msg, msglen);
		return err;
	}
	drop_object_pages(ld->compat);
	if (ld->no_cookie && (err = ident_fill(ld, o->ident, msg, msglen)))
		return err;
	if (skel->rodata->kpt_cfi_on && (err = cfi_fill(skel, o->cfi, msg, msglen)))
		return err;
	if (o->plan.budget) {
		ld->budget_len = (size_t)nprobes * sizeof(struct kpt_budget);
		ld->budget = mmap(NULL, ld->budget_len, PROT_READ | PROT_WRITE, MAP_SHARED,
				  bpf_map__fd(skel->maps.kpt_budget), 0);
		if (ld->budget == MAP_FAILED) {
			err = -errno;
			ld->budget = NULL;
			snprintf(msg, msglen, "cannot map --budget's buckets: %s", strerror(-err));
			return err;
		}
	}
	if (o->target_set && o->target_tgid) {
		__u32 key = o->target_tgid, one = 1;

		/* the first of the set, before anything is attached */
		err = bpf_map__update_elem(skel->maps.kpt_procs, &key, sizeof(key), &one,
					   sizeof(one), BPF_ANY);
		if (err) {
			snprintf(msg, msglen, "cannot set the traced process: %s", strerror(-err));
			return err;
		}
	}
	ld->links = calloc(nprobes ? nprobes : 1, sizeof(*ld->links));
	ld->pair_entry = calloc(nprobes ? nprobes : 1, sizeof(*ld->pair_entry));
	ld->tfs = calloc(nprobes ? nprobes : 1, sizeof(*ld->tfs));
	if (!ld->links || !ld->pair_entry || !ld->tfs)
		return -ENOMEM;
	for (int i = 0; i < nprobes; i++)
		ld->tfs[i].pfd = -1;
	/* Leftovers of SIGKILLed runs that used "rN:" */
	tfs_cleanup_stale();
	return 0;
}

int loader_set_probe(struct loader *ld, int idx, const struct kpt_probe_entry *ent)
{
	__u32 key = idx;

	return bpf_map__update_elem(ld->skel->maps.kpt_probes, &key, sizeof(key), ent,
				    sizeof(*ent), BPF_ANY);
}

int loader_set_budget(struct loader *ld, int idx, const struct kpt_budget *b)
{
	struct kpt_budget *k;

	if (!ld->budget || idx < 0 || idx >= ld->nprobes)
		return -ENOENT;
	/* all but tat, the kernel's: written back, a stale one would give a
	 * bucket its credit again at each change of rate */
	k = &ld->budget[idx];
	__atomic_store_n(&k->period, b->period, __ATOMIC_RELAXED);
	__atomic_store_n(&k->burst, b->burst, __ATOMIC_RELAXED);
	__atomic_store_n(&k->sample, b->sample, __ATOMIC_RELAXED);
	__atomic_store_n(&k->armed, b->armed, __ATOMIC_RELAXED);
	return 0;
}

int loader_budget_armed(struct loader *ld, int idx)
{
	if (!ld->budget || idx < 0 || idx >= ld->nprobes)
		return -ENOENT;
	return (int)__atomic_load_n(&ld->budget[idx].armed, __ATOMIC_RELAXED);
}

static const char *attach_hint(const struct ev_desc *ev, int err)
{
	if (ev->is_user) {
		if (err == -EINVAL)
			return " (not an instruction of the file's text, or another uprobe on this "
			       "offset has another reference counter)";
		return "";
	}
	if (ev->tramp && err == -524)	/* the kernel's ENOTSUPP */
		return " (this kernel's BPF trampolines cannot take this function: more "
		       "arguments than they save, or a struct passed by value; --backend kprobe)";
	if (ev->tramp)
		return " (fentry/fexit: a function ftrace cannot trace? --backend kprobe)";
	if (err == -ENOENT)
		return " (no such symbol in the running kernel)";
	if (err == -EILSEQ)
		return " (the offset falls inside an instruction: pick one from a disassembly)";
	/* the kernel's reason, where ftrace's list gives it: trace_kprobe.c's
	 * within_notrace_func() */
	if (err == -EINVAL && (ev->kind == SPEC_KPROBE || ev->kind == SPEC_KRETPROBE) &&
	    ev->target.by_name && !ev->target.offset && !tp_function_traceable(ev->func))
		return " (ftrace cannot trace it: notrace or noinstr, not in "
		       "available_filter_functions; the kernel takes kprobes there only when "
		       "built with CONFIG_KPROBE_EVENTS_ON_NOTRACE)";
	if (err == -EINVAL)
		return " (the kernel refuses to probe it: blacklisted, not in its text, or not "
		       "traceable)";
	if (err == -EBUSY)
		return " (probe point is busy)";
	if (err == -EADDRNOTAVAIL)	/* Linux 6.7+, and its stable kernels */
		return " (several functions have this name, static ones of different files: "
		       "probe one by its address, from /proc/kallsyms)";
	if (err == -EPERM || err == -EACCES)
		return " (needs root; or the kernel is locked down)";
	return "";
}

/*
 * The kernel's word for a refusal at attach, as kprobe_events and
 * uprobe_events log it for the same errno (trace_kprobe_create(),
 * __trace_uprobe_create()): the caret goes under the probe point.
 */
enum spec_err loader_attach_error(const struct ev_desc *ev, int err)
{
	if (ev->kind == SPEC_TRACEPOINT || ev->kind == SPEC_PROFILE || ev->tramp)
		return SPEC_ERR_OK;	/* no such event in tracefs: our own words */
	switch (err) {
	case -EILSEQ:
		return SPEC_ERR_BAD_INSN_BNDRY;
	case -ENOENT:
		return ev->is_user ? SPEC_ERR_FILE_NOT_FOUND : SPEC_ERR_BAD_PROBE_ADDR;
	case -EADDRNOTAVAIL:
		return SPEC_ERR_NON_UNIQ_SYMBOL;
	case -ENOMEM:
	case -EEXIST:
	case -EPERM:
	case -EACCES:
	case -EMFILE:
		return SPEC_ERR_OK;	/* the system's, not the probe's */
	default:
		return SPEC_ERR_FAIL_REG_PROBE;
	}
}

/* The attachment's BPF cookie: the probe's index, where the kernel has them. */
static __u64 cookie_of(const struct loader *ld, const struct ev_desc *ev)
{
	return ld->no_cookie ? 0 : (__u64)ev->index;
}

/* "rN:": the perf kprobe PMU has no maxactive, tracefs has. */
static struct bpf_link *attach_maxactive(struct loader *ld, struct bpf_program *prog,
					 const struct ev_desc *ev, char *msg, size_t msglen)
{
	LIBBPF_OPTS(bpf_perf_event_opts, po, .bpf_cookie = cookie_of(ld, ev));
	struct tfs_probe *tp = &ld->tfs[ev->index];
	struct bpf_link *l;
	char func[160];
	int pfd;

	snprintf(func, sizeof(func), "%s", ev->func);
	pfd = tfs_kretprobe_create(func, ev->target.maxactive, ev->index, tp, msg, msglen);
	if (pfd < 0) {
		errno = -pfd;
		return NULL;
	}
	l = bpf_program__attach_perf_event_opts(prog, pfd, &po);
	if (!l) {
		int err = errno;

		snprintf(msg, msglen, "cannot attach to %s/%s: %s", tp->group, tp->event,
			 strerror(err));
		tfs_kretprobe_remove(tp);
		errno = err;
		return NULL;
	}
	tp->pfd = -1; /* the link closes it */
	return l;
}

static struct bpf_program *prog_of(struct loader *ld, const struct ev_desc *ev);

/*
 * A classic tracepoint through a perf event of our own, as libbpf opens it
 * (CPU 0, any task), then disabled: the program hangs on the tracepoint and
 * runs on every CPU all the same, while a disabled event is off its CPU's
 * list of the tracepoint's perf events, so a program returning 1 (for a
 * perf beside us) does not have the kernel hand each hit on that CPU to an
 * event no one reads. On kernels without BPF perf links (before 5.15),
 * libbpf attaches by PERF_EVENT_IOC_SET_BPF: the same program list.
 */
static struct bpf_link *attach_tracepoint(struct loader *ld, const struct ev_desc *ev)
{
	LIBBPF_OPTS(bpf_perf_event_opts, po, .bpf_cookie = cookie_of(ld, ev));
	struct perf_event_attr attr = { .type = PERF_TYPE_TRACEPOINT, .size = sizeof(attr) };
	int id, pfd, err, partner = ident_tp_partner(ev, ld->nprobes);
	struct bpf_link *l;

	/* the pair's other probe, in the cookie's upper half (kpt_tp2) */
	if (partner >= 0 && !ld->no_cookie)
		po.bpf_cookie |= (__u64)(partner + 1) << 32;

	id = tp_event_id(ev->target.tp_system, ev->target.tp_event);
	if (id < 0) {
		errno = -id;
		return NULL;
	}
	attr.config = id;
	pfd = syscall(__NR_perf_event_open, &attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	if (pfd < 0)
		return NULL;
	l = bpf_program__attach_perf_event_opts(prog_of(ld, ev), pfd, &po);
	if (!l) {
		err = errno;
		close(pfd);
		errno = err;
		return NULL;
	}
	/* the link closes pfd; enabled, the event only costs time */
	ioctl(pfd, PERF_EVENT_IOC_DISABLE, 0);
	return l;
}

static struct bpf_link *attach_one(struct loader *ld, const struct ev_desc *ev, pid_t upid,
				   char *msg, size_t msglen)
{
	/* returns too */
	struct bpf_program *prog = prog_of(ld, ev);

	if (ev->is_user) {
		/* a USDT semaphore: the kernel counts it up while attached */
		LIBBPF_OPTS(bpf_uprobe_opts, uo, .bpf_cookie = cookie_of(ld, ev),
			    .retprobe = ev->is_return, .ref_ctr_offset = ev->target.ref_ctr_offset);

		return bpf_program__attach_uprobe_opts(prog, upid ? upid : -1, ev->path,
						       ev->uoffset, &uo);
	}
	if (ev->tpbtf)
		return bpf_program__attach_trace(ld->tramp[ev->index]);
	if (ev->kind == SPEC_TRACEPOINT)
		return attach_tracepoint(ld, ev);
	if (ev->kind == SPEC_KRETPROBE && ev->target.maxactive)
		return attach_maxactive(ld, prog, ev, msg, msglen);
	if (ld->tramp[ev->index]) {
		LIBBPF_OPTS(bpf_trace_opts, to, .cookie = cookie_of(ld, ev));

		return bpf_program__attach_trace_opts(ld->tramp[ev->index], &to);
	}
	LIBBPF_OPTS(bpf_kprobe_opts, ko, .bpf_cookie = cookie_of(ld, ev),
		    .retprobe = ev->is_return);
	if (!ev->target.by_name) {
		/* raw address: libbpf takes it as the offset with no function */
		ko.offset = ev->addr;
		return bpf_program__attach_kprobe_opts(prog, NULL, &ko);
	}
	ko.offset = ev->target.offset;
	return bpf_program__attach_kprobe_opts(prog, ev->func, &ko);
}

/*
 * profile:hz:N: a CPU clock sampling at N Hz on each possible CPU (as perf
 * record -F and bcc's profile), each with the program and the probe's
 * cookie. A CPU that is offline has no event: it takes no samples.
 */
static int attach_profile(struct loader *ld, const struct ev_desc *ev, char *msg, size_t msglen)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_freq = ev->target.hz,
		.freq = 1,
	};
	LIBBPF_OPTS(bpf_perf_event_opts, po, .bpf_cookie = cookie_of(ld, ev));
	struct bpf_link **grown, *l;
	int cpu, fd, err;

	grown = realloc(ld->plinks, (ld->nplinks + ld->ncpus) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	ld->plinks = grown;
	for (cpu = 0; cpu < ld->ncpus; cpu++) {
		fd = syscall(__NR_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0 && errno == ENODEV)
			continue;	/* offline */
		if (fd < 0) {
			err = -errno;
			snprintf(msg, msglen, "cannot open a %u Hz CPU clock on CPU %d: %s%s",
				 ev->target.hz, cpu, strerror(-err), err == -EINVAL ?
				 " (above kernel.perf_event_max_sample_rate?)" : "");
			return err;
		}
		l = bpf_program__attach_perf_event_opts(ld->skel->progs.kpt_perf, fd, &po);
		if (!l) {
			err = -errno;
			close(fd);
			snprintf(msg, msglen, "cannot attach profile:hz:%u on CPU %d: %s",
				 ev->target.hz, cpu, strerror(-err));
			return err;
		}
		ld->plinks[ld->nplinks++] = l;	/* the link closes the event */
	}
	return 0;
}

/*
 * Every probe marked multi, of one direction, through kprobe.multi links: one
 * link per occurrence of a function (a link takes each address once: its
 * cookie is found by address), so usually one link for them all.
 */
static int attach_multi(struct loader *ld, const struct ev_desc *evs, int n, bool ret,
			char *msg, size_t msglen)
{
	unsigned long *addrs = calloc(n ? n : 1, sizeof(*addrs));
	__u64 *cookies = calloc(n ? n : 1, sizeof(*cookies));
	int *round = calloc(n ? n : 1, sizeof(*round));
	int i, j, r, k, nr = 0, err = 0;

	if (!addrs || !cookies || !round) {
		err = -ENOMEM;
		goto out;
	}
	/* round[i]: how many earlier probes share probe i's function */
	for (i = 0; i < n; i++) {
		if (!evs[i].multi || evs[i].is_return != ret)
			continue;
		for (j = 0; j < i; j++)
			round[i] += evs[j].multi && evs[j].is_return == ret &&
				    evs[j].addr == evs[i].addr;
		if (round[i] + 1 > nr)
			nr = round[i] + 1;
	}
	for (r = 0; r < nr && !err; r++) {
		struct bpf_program *prog = ld->skel->progs.kpt_entry_multi;
		struct bpf_link *l, **nl;

		for (i = 0, k = 0; i < n; i++) {
			if (!evs[i].multi || evs[i].is_return != ret || round[i] != r)
				continue;
			addrs[k] = evs[i].addr;
			cookies[k++] = evs[i].index;
		}
		LIBBPF_OPTS(bpf_kprobe_multi_opts, mo, .addrs = addrs, .cookies = cookies,
			    .cnt = k, .retprobe = ret);
		l = bpf_program__attach_kprobe_multi_opts(prog, NULL, &mo);
		if (!l) {
			err = -errno;
			snprintf(msg, msglen, "cannot attach %d %s through kprobe.multi: %s%s", k,
				 ret ? "return probes" : "probes", strerror(errno),
				 err == -EOPNOTSUPP || err == -ENOENT ?
					 " (this kernel lacks it: CONFIG_FPROBE; use --backend kprobe)" :
					 " (a function ftrace cannot trace? --backend kprobe says which)");
			break;
		}
		nl = realloc(ld->mlinks, (ld->nmlinks + 1) * sizeof(*nl));
		if (!nl) {
			bpf_link__destroy(l);
			err = -ENOMEM;
			break;
		}
		ld->mlinks = nl;
		ld->mlinks[ld->nmlinks++] = l;
		ld->nmulti[ret] += k;
	}
out:
	free(addrs);
	free(cookies);
	free(round);
	return err;
}

/* Why ev did not attach: the kernel's error class where it says one, the hint. */
static void attach_failed_msg(const struct ev_desc *ev, int err, char *msg, size_t msglen)
{
	enum spec_err kerr = loader_attach_error(ev, err);
	char at[64] = "";

	if (!ev->is_user && ev->target.by_name && ev->target.offset)
		snprintf(at, sizeof(at), "+0x%llx", (unsigned long long)ev->target.offset);
	snprintf(msg, msglen, "%s%scannot attach %s/%s at %s%s: %s%s%s",
		 kerr ? spec_strerror(kerr) : "", kerr ? " (" : "", ev->group, ev->event,
		 ev->is_user ? ev->path : ev->func, at,
		 err == -524 ? "not supported (ENOTSUPP)" : strerror(-err), attach_hint(ev, err),
		 kerr ? ")" : "");
}

/*
 * The traced processes' comings and goings, attached before any probe: a
 * process the command creates from then on is traced from its start.
 */
static int attach_life(struct loader *ld, char *msg, size_t msglen)
{
	static const char *const tp[2][2] = {
		{ "task", "task_newtask" }, { "sched", "sched_process_free" },
	};
	struct bpf_program *prog[2] = { ld->skel->progs.kpt_newtask, ld->skel->progs.kpt_procfree };
	int i, err;

	for (i = 0; i < 2; i++) {
		if (bpf_program__fd(prog[i]) < 0)
			continue;	/* not loaded this run */
		ld->life[i] = bpf_program__attach_tracepoint(prog[i], tp[i][0], tp[i][1]);
		if (!ld->life[i]) {
			err = -errno;
			snprintf(msg, msglen, "cannot attach to %s/%s, which follows the traced "
				 "processes: %s", tp[i][0], tp[i][1], strerror(-err));
			return err;
		}
	}
	return 0;
}

/* Whether ev runs through its tracepoint partner's attachment, with no link of its own. */
static bool tp_chained(const struct loader *ld, const struct ev_desc *ev)
{
	int partner = ident_tp_partner(ev, ld->nprobes);

	return partner >= 0 && !ident_tp_hosts(ev, partner);
}

/* The probes of links[] whose pair_entry is pass: 0, or the error with ld->failed set. */
static int attach_links(struct loader *ld, const struct ev_desc *evs, int n, bool pass,
			char *msg, size_t msglen)
{
	int i, err;

	for (i = 0; i < n; i++) {
		struct bpf_link *l;

		msg[0] = 0;
		if (evs[i].pair_entry != pass)
			continue;
		ld->pair_entry[i] = pass;
		ld->nlinks++;
		if (evs[i].multi || evs[i].target.await || tp_chained(ld, &evs[i]))
			continue;
		if (evs[i].kind == SPEC_PROFILE) {
			err = attach_profile(ld, &evs[i], msg, msglen);
			if (err) {
				ld->failed = i;
				return err;
			}
			continue;
		}
		l = attach_one(ld, &evs[i], ld->upid, msg, msglen);
		if (!l) {
			err = -errno;
			if (!msg[0])
				attach_failed_msg(&evs[i], err, msg, msglen);
			ld->failed = i;
			return err ? err : -EINVAL;
		}
		ld->links[i] = l;
	}
	return 0;
}

/* The BPF side's kpt_stopped, through the mapped .bss: seen by the next hit on any CPU. */
static void set_stopped(struct loader *ld, __u32 v)
{
	if (ld->skel && ld->skel->bss)
		__atomic_store_n(&ld->skel->bss->kpt_stopped, v, __ATOMIC_SEQ_CST);
}

/*
 * Returns before the entries they pair with (event.h's pair_entry), as
 * loader_detach() takes them off: an entry is then never left as a call in
 * flight whose return was not hooked, for a later return to be paired with.
 * kprobe.multi's returns first, its entries before the paired entries of
 * links[], whichever mechanism each side of a pair went through.
 */
int loader_attach(struct loader *ld, const struct ev_desc *evs, int n, pid_t upid, char *msg,
		  size_t msglen)
{
	double t0 = 1e3 * kpt_mono_s();
	int err;

	ld->upid = upid;
	/* every probe counts from the same moment: the last one's attach */
	set_stopped(ld, 1);
	err = attach_life(ld, msg, msglen);
	if (!err)
		err = sched_attach(ld->skel, ld->sched, msg, msglen);
	if (!err)
		err = attach_multi(ld, evs, n, true, msg, msglen);
	if (!err)
		err = attach_links(ld, evs, n, false, msg, msglen);
	if (!err)
		err = attach_multi(ld, evs, n, false, msg, msglen);
	if (!err)
		err = attach_links(ld, evs, n, true, msg, msglen);
	if (err) {
		loader_detach(ld);
		return err;
	}
	ld->started = kpt_mono_s();
	ld->skel->bss->kpt_tc_t0 = kpt_mono_ns();	/* timechart's slice 0 */
	set_stopped(ld, 0);
	ld->attach_ms = 1e3 * ld->started - t0;
	return 0;
}

int loader_attach_late(struct loader *ld, const struct ev_desc *ev, char *msg, size_t msglen)
{
	struct bpf_link *l;

	msg[0] = 0;
	if (tp_chained(ld, ev))
		return 0;	/* its partner's attachment runs it */
	l = attach_one(ld, ev, ld->upid, msg, msglen);
	if (!l) {
		int err = -errno;

		if (!msg[0])
			attach_failed_msg(ev, err, msg, msglen);
		return err ? err : -EINVAL;
	}
	ld->links[ev->index] = l;
	return 0;
}

void loader_detach_one(struct loader *ld, int idx)
{
	bpf_link__destroy(ld->links[idx]);
	ld->links[idx] = NULL;
	if (ld->tfs)
		tfs_kretprobe_remove(&ld->tfs[idx]);
}

bool loader_can_hold(struct loader *ld, const struct ev_desc *ev)
{
	int i = ev->index;

	/* a link of its own: not a kprobe.multi's, a profile's per-CPU ones, or
	 * a tracefs kretprobe's (removed and made again would be a new event);
	 * not an entry a return pairs with (its returns would go unpaired); not
	 * one of two on a tracepoint (one link runs both) */
	return i >= 0 && i < ld->nprobes && ld->links && ld->links[i] && !ev->multi &&
	       ev->kind != SPEC_PROFILE && !(ld->tfs && ld->tfs[i].created) &&
	       !ld->pair_entry[i] && ident_tp_partner(ev, ld->nprobes) == -1;
}

int loader_hold(struct loader *ld, const struct ev_desc *ev)
{
	if (!loader_can_hold(ld, ev))
		return -EOPNOTSUPP;
	loader_detach_one(ld, ev->index);
	return 0;
}

static void detach_links(struct loader *ld, struct reaper *r, bool pass)
{
	for (int i = 0; ld->links && i < ld->nprobes; i++) {
		if (ld->pair_entry[i] != pass)
			continue;
		/* a tracefs kretprobe is removed once its perf event is gone */
		if (ld->tfs && ld->tfs[i].created)
			reaper_put_now(r, ld->links[i]);
		else
			reaper_put(r, ld->links[i]);
		ld->links[i] = NULL;
	}
}

/* Each loaded program's id, run time and runs (BPF_ENABLE_STATS), kept at the stop. */
struct loader_prog_snap {
	const struct bpf_program *prog;
	uint32_t id;
	uint64_t ns, runs;
};

/* prog's id, run time and runs: as they were at the stop once stopped, else now. */
static int prog_stats(struct loader *ld, const struct bpf_program *prog,
		      struct loader_prog_snap *out)
{
	struct bpf_prog_info info = { 0 };
	__u32 len = sizeof(info);
	int i, fd;

	if (ld->snap) {
		for (i = 0; i < ld->nsnap && ld->snap[i].prog != prog; i++)
			;
		if (i == ld->nsnap)
			return -1;
		*out = ld->snap[i];
		return 0;
	}
	fd = bpf_program__fd(prog);
	if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len))
		return -1;
	*out = (struct loader_prog_snap){
		.prog = prog, .id = info.id, .ns = info.run_time_ns, .runs = info.run_cnt,
	};
	return 0;
}

void loader_stop_now(struct loader *ld)
{
	set_stopped(ld, 1);
	if (!ld->stopped)
		ld->stopped = kpt_mono_s();
}

void loader_stop(struct loader *ld)
{
	struct loader_prog_snap *snap;
	struct bpf_program *prog;
	int n = 0;

	if (!ld->skel || ld->snapped)
		return;
	loader_stop_now(ld);
	ld->snapped = true;
	/* the COST of the window: the programs still run (and return at once)
	 * until their links are gone */
	bpf_object__for_each_program(prog, ld->skel->obj)
		n++;
	snap = calloc(n ? n : 1, sizeof(*snap));
	if (!snap)
		return;
	n = 0;
	bpf_object__for_each_program(prog, ld->skel->obj)
		n += !prog_stats(ld, prog, &snap[n]);
	ld->snap = snap;
	ld->nsnap = n;
}

void loader_detach(struct loader *ld)
{
	struct reaper r;
	int i;

	loader_stop(ld);
	reaper_begin(&r, KPT_REAP_FG_S);
	/* as loader_attach() put them on: the paired entries of links[] last,
	 * kprobe.multi's links before them (returns first, as made); stopped,
	 * no hit is paired whatever the order the kernel finishes in */
	detach_links(ld, &r, false);
	for (i = 0; i < ld->nmlinks; i++)
		reaper_put(&r, ld->mlinks[i]);
	ld->nmlinks = 0;
	detach_links(ld, &r, true);
	ld->nlinks = 0;
	for (i = 0; i < ld->nplinks; i++)
		reaper_put(&r, ld->plinks[i]);
	ld->nplinks = 0;
	for (i = 0; ld->tfs && i < ld->nprobes; i++)
		tfs_kretprobe_remove(&ld->tfs[i]);
	for (i = 0; i < 2; i++) {
		reaper_put(&r, ld->life[i]);
		ld->life[i] = NULL;
	}
	for (i = 0; i < SCHED_NTP; i++) {
		reaper_put(&r, ld->sched[i]);
		ld->sched[i] = NULL;
	}
	if (r.nkept) {
		ld->handed += reaper_end(&r);
		if (r.pid)
			ld->reaper = r.pid;
	}
	ld->detached += r.closed;
	ld->detach_s += r.closed_s;
}

struct kpt_stats *loader_stats_cpus(struct loader *ld, int idx)
{
	struct kpt_stats *v = calloc(ld->ncpus, sizeof(*v));
	__u32 key = idx;

	if (v && bpf_map__lookup_elem(ld->skel->maps.kpt_stats, &key, sizeof(key), v,
				      sizeof(*v) * ld->ncpus, 0)) {
		free(v);
		v = NULL;
	}
	return v;
}

/* Buckets [base, base + n) of kpt_hist, one CPU's after another's, by the
 * per-element lookups of a kernel without batches for arrays (5.6). */
static int hist_read_each(int fd, __u32 base, __u32 n, int ncpus, uint64_t *vals)
{
	for (__u32 b = 0; b < n; b++) {
		__u32 key = base + b;

		if (bpf_map_lookup_elem(fd, &key, vals + (size_t)b * ncpus))
			return -errno;
	}
	return 0;
}

int loader_hist_read(struct loader *ld, __u32 base, __u32 n, bool clear, uint64_t *counts)
{
	int fd = loader_map_fd(ld, LM_HIST), ncpus = ld->ncpus, err = 0;
	uint64_t *vals = calloc((size_t)n * ncpus, sizeof(*vals)), *zero = NULL;
	__u32 *keys = calloc(n, sizeof(*keys)), in = base - 1, out, got = 0, count;

	if (!vals || !keys) {
		err = -ENOMEM;
		goto out;
	}
	/* a percpu array's batch continues after the key it is given: a
	 * histogram of 3,776 buckets is one system call, not 3,776 */
	while (got < n && !err) {
		count = n - got;
		err = bpf_map_lookup_batch(fd, base + got ? &in : NULL, &out, keys + got,
					   vals + (size_t)got * ncpus, &count, NULL);
		got += count;
		in = out;
		if (err == -ENOENT)	/* the map's end: not reached inside it */
			err = count ? 0 : -ENOENT;
	}
	if (err && err != -ENOENT)
		err = hist_read_each(fd, base, n, ncpus, vals);
	for (__u32 b = 0, key; !err && b < n; b++) {
		counts[b] = 0;
		for (int cpu = 0; cpu < ncpus; cpu++)
			counts[b] += vals[(size_t)b * ncpus + cpu];
		if (!clear || !counts[b])
			continue;
		/* -i: each bucket that counted back to zero, the rest left alone */
		if (!zero && !(zero = calloc(ncpus, sizeof(*zero)))) {
			err = -ENOMEM;
			break;
		}
		key = base + b;
		bpf_map_update_elem(fd, &key, zero, BPF_ANY);
	}
out:
	free(zero);
	free(keys);
	free(vals);
	return err;
}

/* Room for at least want entries of ksz/vsz in *k, *v (*room of them). */
static int dump_room(char **k, char **v, size_t ksz, size_t vsz, __u32 *room, __u32 want)
{
	__u32 r = *room ? *room : 64;
	char *nk, *nv;

	while (r < want)
		r *= 2;
	if (r == *room)
		return 0;
	nk = realloc(*k, (size_t)r * ksz);
	if (nk)
		*k = nk;
	nv = nk ? realloc(*v, (size_t)r * vsz) : NULL;
	if (!nv)
		return -ENOMEM;
	*v = nv;
	*room = r;
	return 0;
}

/* The key walk and a lookup each, for a kernel without batches for hash
 * maps (5.6): keys msz bytes apart in room for ksz each, values vm apart in
 * room for vsz; one deleted meanwhile is left out. */
static int dump_each(int fd, size_t msz, size_t ksz, size_t vm, size_t vsz, char **k, char **v,
		     __u32 *room, __u32 *n)
{
	char *cur = malloc(msz);
	int err = cur ? 0 : -ENOMEM;

	for (bool first = true; !err; first = false) {
		if ((err = dump_room(k, v, ksz, vsz, room, *n + 1)) ||
		    bpf_map_get_next_key(fd, first ? NULL : cur, *k + (size_t)*n * msz))
			break;
		memcpy(cur, *k + (size_t)*n * msz, msz);
		if (!bpf_map_lookup_elem(fd, cur, *v + (size_t)*n * vm))
			(*n)++;
	}
	free(cur);
	return err;
}

/* A value's bytes in a lookup's buffer: a per-CPU map's, 8-aligned, for
 * every possible CPU. */
static size_t map_value_stride(const struct bpf_map_info *info)
{
	switch (info->type) {
	case BPF_MAP_TYPE_PERCPU_HASH:
	case BPF_MAP_TYPE_LRU_PERCPU_HASH:
	case BPF_MAP_TYPE_PERCPU_ARRAY:
		return (size_t)((info->value_size + 7) & ~7u) * libbpf_num_possible_cpus();
	default:
		return info->value_size;
	}
}

/* Keys (or values) of msz bytes each, n of them, widened in place to ksz,
 * zero-padded. */
static void dump_widen(char *k, size_t msz, size_t ksz, __u32 n)
{
	for (__u32 i = n; msz < ksz && i-- > 0;) {
		memmove(k + (size_t)i * ksz, k + (size_t)i * msz, msz);
		memset(k + (size_t)i * ksz + msz, 0, ksz - msz);
	}
}

int loader_map_dump(int fd, size_t ksz, size_t vsz, void **keys, void **vals, uint32_t *n)
{
	struct bpf_map_info info = { 0 };
	__u32 len = sizeof(info), room = 0, count;
	__u64 in = 0, out = 0;	/* the batch's position: a hash map's bucket */
	char *k = NULL, *v = NULL;
	size_t msz, vm;
	int err;

	*n = 0;
	*keys = *vals = NULL;
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	/* the map's keys may be shorter than the caller's (a run's keys are as
	 * long as it needs): read at theirs, widened at the end */
	msz = info.key_size;
	vm = map_value_stride(&info);
	if (msz > ksz || vm > vsz || (vm != vsz && vm != info.value_size))
		return -EINVAL;	/* a per-CPU map's values are not widened */
	/* a batch at a time into the room left, which doubles when full or
	 * when the next bucket would not fit (ENOSPC); the map's end is
	 * ENOENT with the count it read */
	for (bool first = true;; first = false) {
		if ((err = dump_room(&k, &v, ksz, vsz, &room, *n + 64)))
			break;
		count = room - *n;
		err = bpf_map_lookup_batch(fd, first ? NULL : &in, &out, k + (size_t)*n * msz,
					   v + (size_t)*n * vm, &count, NULL);
		if (err == -ENOSPC && !count && (err = dump_room(&k, &v, ksz, vsz, &room, room * 2)))
			break;
		*n += count;
		in = out;
		if (err == -ENOENT) {
			err = 0;
			break;
		}
		if (err && err != -ENOSPC) {
			*n = 0;
			err = first ? dump_each(fd, msz, ksz, vm, vsz, &k, &v, &room, n) : err;
			break;
		}
	}
	if (!err) {
		dump_widen(k, msz, ksz, *n);
		dump_widen(v, vm, vsz, *n);
	} else {
		free(k);
		free(v);
		k = v = NULL;
		*n = 0;
	}
	*keys = k;
	*vals = v;
	return err;
}

unsigned long long loader_lost(struct loader *ld)
{
	unsigned long long lost = 0;
	struct kpt_stats st;

	for (int i = 0; i < ld->nprobes; i++)
		if (!loader_stats(ld, i, &st))
			lost += st.drops;
	return lost;
}

int loader_stats(struct loader *ld, int idx, struct kpt_stats *out)
{
	struct kpt_stats *v = loader_stats_cpus(ld, idx);
	int i, err = v ? 0 : -ENOENT;

	memset(out, 0, sizeof(*out));
	for (i = 0; !err && i < ld->ncpus; i++) {
		out->hits += v[i].hits;
		out->drops += v[i].drops;
		out->faults += v[i].faults;
		out->filtered += v[i].filtered;
		out->unmatched += v[i].unmatched;
		out->keys_full += v[i].keys_full;
		out->stack_failed += v[i].stack_failed;
		out->stack_full += v[i].stack_full;
		out->stack_deep += v[i].stack_deep;
		out->pair_replaced += v[i].pair_replaced;
		out->pair_idle += v[i].pair_idle;
		out->keys_cut += v[i].keys_cut;
		out->sampled += v[i].sampled;
		out->paused += v[i].paused;
	}
	free(v);
	return err;
}

/*
 * The perf-event part of struct bpf_link_info as of Linux 6.7, which added
 * kprobe "missed" (nmissed: handler not run, e.g. kretprobe maxactive
 * exhausted or recursion). Declared here because Debian 12's UAPI headers
 * predate it; older kernels leave it zero and type 0 tells us so.
 */
struct kpt_link_info {
	__u32 type;
	__u32 id;
	__u32 prog_id;
	__u32 pad;
	__u32 pe_type;		/* enum bpf_perf_event_type: 3 kprobe, 4 kretprobe */
	__u32 pad2;
	__u64 func_name;
	__u32 name_len;
	__u32 offset;
	__u64 addr;
	__u64 missed;
	__u64 cookie;
};

unsigned long long loader_prog_misses(struct loader *ld)
{
	unsigned long long n = 0;
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, ld->skel->obj) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);

		memset(&info, 0, sizeof(info));
		if (bpf_program__fd(prog) < 0)
			continue; /* not loaded this run */
		if (!bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len))
			n += info.recursion_misses;
	}
	return n;
}

long long loader_missed(struct loader *ld, int idx)
{
	struct kpt_link_info info;
	__u32 len = sizeof(info);

	if (idx < 0 || idx >= ld->nprobes || !ld->links[idx] || ld->tramp[idx])
		return -1;	/* a tracing link counts no misses */
	if (ld->tfs[idx].created)
		return tfs_nmissed(&ld->tfs[idx]);
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(bpf_link__fd(ld->links[idx]), &info, &len))
		return -1;
	if (info.pe_type != 3 && info.pe_type != 4)
		return -1;
	return (long long)info.missed;
}

unsigned long long loader_procs_full(struct loader *ld)
{
	return ld->skel && ld->skel->bss ? ld->skel->bss->kpt_procs_full : 0;
}

unsigned long long loader_why_full(struct loader *ld)
{
	return ld->skel && ld->skel->bss ? ld->skel->bss->kpt_why_full : 0;
}

unsigned long long loader_pairs_open(struct loader *ld)
{
	unsigned char key[sizeof(struct kpt_pair_key)], next[sizeof(key)];
	unsigned long long n = 0;
	int fd;

	if (!ld->skel)
		return 0;
	fd = bpf_map__fd(ld->skel->maps.kpt_pairs);
	for (; fd >= 0 && !bpf_map_get_next_key(fd, n ? key : NULL, next); n++)
		memcpy(key, next, sizeof(key));
	return n;
}

int loader_map_fd(struct loader *ld, enum loader_map m)
{
	switch (m) {
	case LM_HIST:
		return bpf_map__fd(ld->skel->maps.kpt_hist);
	case LM_HSTAT:
		return bpf_map__fd(ld->skel->maps.kpt_hstat);
	case LM_PROCS:
		return bpf_map__fd(ld->skel->maps.kpt_procs);
	case LM_PMU:
		return bpf_map__fd(ld->skel->maps.kpt_pmu);
	case LM_PMU_STAT:
		return bpf_map__fd(ld->skel->maps.kpt_pmu_stat);
	case LM_KSTK:
		return bpf_map__fd(ld->skel->maps.kpt_kstk);
	case LM_USTK:
		return bpf_map__fd(ld->skel->maps.kpt_ustk);
	case LM_PAIRS:
		return bpf_map__fd(ld->skel->maps.kpt_pairs);
	case LM_UW_PROCS:
		return bpf_map__fd(ld->skel->maps.kpt_uw_procs);
	case LM_UW_WANTED:
		return bpf_map__fd(ld->skel->maps.kpt_uw_wanted);
	case LM_CFI_BINS:
		return bpf_map__fd(ld->skel->maps.kpt_cfi_bins);
	case LM_CFI_ROWS:
		return bpf_map__fd(ld->skel->maps.kpt_cfi_rows);
	default:
		return bpf_map__fd(ld->skel->maps.kpt_kagg);
	}
}

int loader_events_fd(struct loader *ld)
{
	return bpf_map__fd(ld->skel->maps.kpt_events);
}

void loader_close(struct loader *ld)
{
	loader_detach(ld);
	free(ld->links);
	free(ld->pair_entry);
	free(ld->mlinks);
	free(ld->plinks);
	free(ld->tfs);
	free(ld->tramp);
	free(ld->snap);
	if (ld->budget)
		munmap(ld->budget, ld->budget_len);
	kptrace_bpf__destroy(ld->skel);
	memset(ld, 0, sizeof(*ld));
}

/* The program that serves ev (as attach_one() and attach_multi() attach it). */
static struct bpf_program *prog_of(struct loader *ld, const struct ev_desc *ev)
{
	if (ev->index >= 0 && ev->index < ld->nprobes && ld->tramp[ev->index])
		return ld->tramp[ev->index];
	if (ld->slot && ev->index >= 0 && ev->index < ld->nprobes && ld->slot[ev->index] >= 0)
		return slot_of(ld, ev);
	if (ev->kind == SPEC_TRACEPOINT)
		return ident_tp_partner(ev, ld->nprobes) >= 0 || ev->pair_direct ?
			       ld->skel->progs.kpt_tp2 :
			       ld->dh_own ? ld->skel->progs.kpt_tp_dh : ld->skel->progs.kpt_tp;
	if (ev->kind == SPEC_PROFILE)
		return ld->skel->progs.kpt_perf;
	if (ev->multi)
		return ld->skel->progs.kpt_entry_multi;
	return ld->dh_own ? ld->skel->progs.kpt_entry_dh : ld->skel->progs.kpt_entry;
}

int loader_probe_prog(struct loader *ld, const struct ev_desc *ev, uint32_t *id, uint64_t *ns,
		      uint64_t *runs)
{
	struct loader_prog_snap ps;

	*id = 0;
	*ns = *runs = 0;
	if (!ld->skel || prog_stats(ld, prog_of(ld, ev), &ps))
		return -1;
	*id = ps.id;
	*ns = ps.ns;
	*runs = ps.runs;
	return 0;
}

void loader_prog_stats(struct loader *ld, void (*fn)(void *arg, const char *name, uint64_t ns,
						     uint64_t runs), void *arg)
{
	struct loader_prog_snap ps;
	struct bpf_program *prog;

	if (!ld->skel)
		return;
	bpf_object__for_each_program(prog, ld->skel->obj)
		if (!prog_stats(ld, prog, &ps))
			fn(arg, bpf_program__name(prog), ps.ns, ps.runs);
}
