// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* kptrace timechart's programs: layout, setup, attach (sched.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>

#include "load/sched.h"
#include "sys/tracepoint.h"
#include "kpt_tchart.h"
#include "kptrace.skel.h"

/* Each record field the programs read, in sched_opts.off's order. */
static const char *const fields[][3] = {
	{ "sched", "sched_switch", "prev_comm" },
	{ "sched", "sched_switch", "prev_pid" },
	{ "sched", "sched_switch", "prev_state" },
	{ "sched", "sched_switch", "next_pid" },
	{ "sched", "sched_wakeup", "pid" },
	{ "sched", "sched_process_fork", "child_pid" },
	{ "block", "block_rq_issue", "dev" },
	{ "block", "block_rq_issue", "sector" },
	{ "block", "block_rq_complete", "dev" },
	{ "block", "block_rq_complete", "sector" },
};

int sched_layout(struct sched_opts *so, char *msg, size_t msglen)
{
	char why[256];
	size_t i;
	int err;

	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		err = tp_field_offset(fields[i][0], fields[i][1], fields[i][2], &so->off[i], why,
				      sizeof(why));
		if (err) {
			snprintf(msg, msglen, "timechart reads %s/%s's field '%s', which cannot be "
				 "read: %s", fields[i][0], fields[i][1], fields[i][2], why);
			return err;
		}
	}
	return 0;
}

static struct bpf_program **progs(struct kptrace_bpf *skel, struct bpf_program *p[SCHED_NTP])
{
	p[0] = skel->progs.kpt_tc_switch;
	p[1] = skel->progs.kpt_tc_wakeup;
	p[2] = skel->progs.kpt_tc_wakeup_new;
	p[3] = skel->progs.kpt_tc_fork;
	p[4] = skel->progs.kpt_tc_exit;
	p[5] = skel->progs.kpt_tc_rq_issue;
	p[6] = skel->progs.kpt_tc_rq_complete;
	p[7] = NULL;
	return p;
}

static const char *const tps[SCHED_NTP][2] = {
	{ "sched", "sched_switch" }, { "sched", "sched_wakeup" }, { "sched", "sched_wakeup_new" },
	{ "sched", "sched_process_fork" }, { "sched", "sched_process_exit" },
	{ "block", "block_rq_issue" }, { "block", "block_rq_complete" }, { NULL, NULL },
};

void sched_setup(struct kptrace_bpf *skel, const struct sched_opts *so, int ncpus)
{
	struct bpf_program *p[SCHED_NTP];
	int i;

	progs(skel, p);
	for (i = 0; p[i]; i++)
		bpf_program__set_autoload(p[i], so->on);
	if (!so->on) {
		bpf_map__set_max_entries(skel->maps.kpt_tc_tasks, 1);
		bpf_map__set_max_entries(skel->maps.kpt_tc_rqs, 1);
		return;
	}
	bpf_map__set_max_entries(skel->maps.kpt_tc_slices, KPT_TC_SLICE_KEYS);
	bpf_map__set_max_entries(skel->maps.kpt_tc_cpu, (uint32_t)ncpus * KPT_TC_SLICES);
	if (so->max_tasks)
		bpf_map__set_max_entries(skel->maps.kpt_tc_tasks, so->max_tasks);
	skel->rodata->kpt_tc_width = so->width_ns;
	skel->rodata->kpt_tc_sw_prev_comm = so->off[0];
	skel->rodata->kpt_tc_sw_prev_pid = so->off[1];
	skel->rodata->kpt_tc_sw_prev_state = so->off[2];
	skel->rodata->kpt_tc_sw_next_pid = so->off[3];
	skel->rodata->kpt_tc_wk_pid = so->off[4];
	skel->rodata->kpt_tc_fork_child = so->off[5];
	skel->rodata->kpt_tc_rq_dev = so->off[6];
	skel->rodata->kpt_tc_rq_sector = so->off[7];
	skel->rodata->kpt_tc_rqc_dev = so->off[8];
	skel->rodata->kpt_tc_rqc_sector = so->off[9];
}

int sched_attach(struct kptrace_bpf *skel, struct bpf_link **links, char *msg, size_t msglen)
{
	struct bpf_program *p[SCHED_NTP];
	int i, err;

	progs(skel, p);
	for (i = 0; p[i]; i++) {
		if (bpf_program__fd(p[i]) < 0)
			return 0;	/* not a timechart */
		links[i] = bpf_program__attach_tracepoint(p[i], tps[i][0], tps[i][1]);
		if (!links[i]) {
			err = -errno;
			snprintf(msg, msglen, "timechart: cannot attach to %s/%s: %s", tps[i][0],
				 tps[i][1], strerror(-err));
			return err;
		}
	}
	return 0;
}

void sched_maps(struct kptrace_bpf *skel, struct sched_maps *m)
{
	m->tasks = bpf_map__fd(skel->maps.kpt_tc_tasks);
	m->slices = bpf_map__fd(skel->maps.kpt_tc_slices);
	m->cpu = bpf_map__fd(skel->maps.kpt_tc_cpu);
	m->t0 = skel->bss->kpt_tc_t0;
	m->width = skel->rodata->kpt_tc_width;
	m->tasks_full = skel->bss->kpt_tc_tasks_full;
	m->slices_full = skel->bss->kpt_tc_slices_full;
	m->rqs_full = skel->bss->kpt_tc_rqs_full;
	m->past_ns = skel->bss->kpt_tc_past;
}
