/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * kptrace timechart's kernel side (bpf/sched.bpf.h): its programs loaded,
 * its maps sized, its records' layouts read from tracefs, its tracepoints
 * attached. The loader calls these; agg/tchart.c reads what they keep.
 */
#ifndef KPT_LOAD_SCHED_H
#define KPT_LOAD_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct kptrace_bpf;
struct bpf_link;
struct btf;

/* The raw tracepoints, in attach order. */
#define SCHED_NTP	8

struct sched_opts {
	bool on;		/* a timechart: the programs loaded and attached */
	uint64_t width_ns;	/* a slice's width */
	uint32_t max_tasks;	/* 0: KPT_TC_TASKS */
	uint32_t pid_off, tgid_off;	/* in struct task_struct */
	uint32_t sum_off;	/* se.sum_exec_runtime in it, 0: not known */
	uint32_t state_off;	/* (__)state in it before 5.18, else 0: sched_switch's argument */
};

/* task_struct's layout from the kernel's BTF: 0, or -ENOENT with msg. */
int sched_layout(struct sched_opts *so, const struct btf *btf, char *msg, size_t msglen);
/* Before load: the programs on or off, the maps' sizes, the settings. */
void sched_setup(struct kptrace_bpf *skel, const struct sched_opts *so, int ncpus);
/* Attach each tracepoint (links[SCHED_NTP]): 0, or a negative errno with msg. */
int sched_attach(struct kptrace_bpf *skel, struct bpf_link **links, char *msg, size_t msglen);

/* What a timechart's report reads: the maps' fds, the run's slices, what did not fit. */
struct sched_maps {
	int tasks, slices, spans, cpu, cpuns;
	uint64_t t0, width;
	uint64_t tasks_full, slices_full, rqs_full, past_ns;
	uint64_t unseen;	/* switches in recovered from a task's CPU time */
};

void sched_maps(struct kptrace_bpf *skel, struct sched_maps *m);

#endif /* KPT_LOAD_SCHED_H */
