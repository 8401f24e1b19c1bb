// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* kptrace timechart's programs: layout, setup, attach (sched.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "load/sched.h"
#include "sys/btfwalk.h"
#include "kpt_tchart.h"
#include "kptrace.skel.h"

int sched_layout(struct sched_opts *so, const struct btf *btf, char *msg, size_t msglen)
{
	const struct btf_type *t;
	__u32 se, sum;
	int id;

	/* without it, a switch in no program saw leaves the run counted as a wait */
	if (btfwalk_struct_member(btf, "task_struct", "se", &se) &&
	    btfwalk_struct_member(btf, "sched_entity", "sum_exec_runtime", &sum))
		so->sum_off = se + sum;
	/* sched_switch's prev_state argument came in 5.18: before, the task's own */
	id = btf__find_by_name_kind(btf, "btf_trace_sched_switch", BTF_KIND_TYPEDEF);
	t = id > 0 ? btf__type_by_id(btf, btf__type_by_id(btf, id)->type) : NULL;
	t = t && btf_is_ptr(t) ? btf__type_by_id(btf, t->type) : NULL;
	if (t && btf_is_func_proto(t) && btf_vlen(t) == 4 &&
	    !btfwalk_struct_member(btf, "task_struct", "__state", &so->state_off) &&
	    !btfwalk_struct_member(btf, "task_struct", "state", &so->state_off)) {
		snprintf(msg, msglen, "timechart reads task_struct's state on this kernel, which "
			 "the kernel's BTF does not have");
		return -ENOENT;
	}
	if (btfwalk_struct_member(btf, "task_struct", "pid", &so->pid_off) &&
	    btfwalk_struct_member(btf, "task_struct", "tgid", &so->tgid_off))
		return 0;
	snprintf(msg, msglen, "timechart reads task_struct's pid and tgid, which the kernel's "
		 "BTF does not have");
	return -ENOENT;
}

static struct bpf_program **progs(struct kptrace_bpf *skel, struct bpf_program *p[SCHED_NTP])
{
	p[0] = bpf_program__autoload(skel->progs.kpt_tc_switch3) ? skel->progs.kpt_tc_switch3 :
								    skel->progs.kpt_tc_switch;
	p[1] = skel->progs.kpt_tc_wakeup;
	p[2] = skel->progs.kpt_tc_wakeup_new;
	p[3] = skel->progs.kpt_tc_fork;
	p[4] = skel->progs.kpt_tc_exit;
	p[5] = skel->progs.kpt_tc_rq_issue;
	p[6] = skel->progs.kpt_tc_rq_complete;
	p[7] = NULL;
	return p;
}

static const char *const tps[SCHED_NTP] = {
	"sched_switch", "sched_wakeup", "sched_wakeup_new", "sched_process_fork",
	"sched_process_exit", "block_rq_issue", "block_rq_complete", NULL,
};

void sched_setup(struct kptrace_bpf *skel, const struct sched_opts *so, int ncpus)
{
	struct bpf_program *p[SCHED_NTP];
	int i;

	bpf_program__set_autoload(skel->progs.kpt_tc_switch3, so->on && so->state_off);
	bpf_program__set_autoload(skel->progs.kpt_tc_switch, so->on && !so->state_off);
	progs(skel, p);
	for (i = 1; p[i]; i++)
		bpf_program__set_autoload(p[i], so->on);
	if (!so->on) {
		bpf_map__set_max_entries(skel->maps.kpt_tc_tasks, 1);
		bpf_map__set_max_entries(skel->maps.kpt_tc_rqs, 1);
		return;
	}
	bpf_map__set_max_entries(skel->maps.kpt_tc_slices, KPT_TC_SLICE_KEYS);
	bpf_map__set_max_entries(skel->maps.kpt_tc_spans, KPT_TC_SPAN_KEYS);
	bpf_map__set_max_entries(skel->maps.kpt_tc_cpu, (uint32_t)ncpus * KPT_TC_SLICES);
	if (so->max_tasks)
		bpf_map__set_max_entries(skel->maps.kpt_tc_tasks, so->max_tasks);
	/* a task on two CPUs, on average */
	bpf_map__set_max_entries(skel->maps.kpt_tc_cpuns,
				 2 * (so->max_tasks ? so->max_tasks : KPT_TC_TASKS));
	skel->rodata->kpt_tc_width = so->width_ns;
	skel->rodata->kpt_tc_pid_off = so->pid_off;
	skel->rodata->kpt_tc_tgid_off = so->tgid_off;
	skel->rodata->kpt_tc_sum_off = so->sum_off;
	skel->rodata->kpt_tc_state_off = so->state_off;
}

int sched_attach(struct kptrace_bpf *skel, struct bpf_link **links, char *msg, size_t msglen)
{
	struct bpf_program *p[SCHED_NTP];
	int i, err;

	progs(skel, p);
	for (i = 0; p[i]; i++) {
		if (bpf_program__fd(p[i]) < 0)
			return 0;	/* not a timechart */
		links[i] = bpf_program__attach_raw_tracepoint(p[i], tps[i]);
		if (!links[i]) {
			err = -errno;
			snprintf(msg, msglen, "timechart: cannot attach to the raw tracepoint %s: %s",
				 tps[i], strerror(-err));
			return err;
		}
	}
	return 0;
}

void sched_maps(struct kptrace_bpf *skel, struct sched_maps *m)
{
	m->tasks = bpf_map__fd(skel->maps.kpt_tc_tasks);
	m->slices = bpf_map__fd(skel->maps.kpt_tc_slices);
	m->spans = bpf_map__fd(skel->maps.kpt_tc_spans);
	m->cpu = bpf_map__fd(skel->maps.kpt_tc_cpu);
	m->cpuns = bpf_map__fd(skel->maps.kpt_tc_cpuns);
	m->t0 = skel->bss->kpt_tc_t0;
	m->width = skel->rodata->kpt_tc_width;
	m->tasks_full = skel->bss->kpt_tc_tasks_full;
	m->slices_full = skel->bss->kpt_tc_slices_full;
	m->rqs_full = skel->bss->kpt_tc_rqs_full;
	m->past_ns = skel->bss->kpt_tc_past;
	m->unseen = skel->bss->kpt_tc_unseen;
}
