/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The record and sizes shared by bench/baseline.bpf.c and bench/baseline.c. */
#ifndef BENCH_BASELINE_H
#define BENCH_BASELINE_H

#define BL_BUCKETS	65
/* the string: as much as a typical hand-written tool keeps (NAME_MAX + 1) */
#define BL_STR		256

struct bl_event {
	__u64 ts;
	__u64 ip;
	__u32 tid;
	__u32 tgid;
	__u32 cpu;
	__u32 slen;	/* bytes read, terminator included; 0: fault */
	char comm[16];
	__u64 a;
	__u32 b;
	char s[BL_STR];
};

/* kprobe mode, the VM benchmark: ksys_lseek(fd, offset, whence); and the
 * tracepoint syscalls/sys_enter_lseek (ip 0) */
struct bl_kevent {
	__u64 ts;
	__u64 ip;
	__u32 tid;
	__u32 tgid;
	__u32 cpu;
	__u32 fd;
	char comm[16];
	__s64 off;
	__u32 whence;
};

/* kernel stacks: kptrace's depth (perf_event_max_stack's default) and the
 * stacks its kernel stack map holds */
#define BL_KSTACK_MAX	127
#define BL_STACKS	16384

/* the tracepoint's record (ip 0), then its kernel stack */
struct bl_kstack_event {
	struct bl_kevent e;
	__u32 nframes;	/* 0: bpf_get_stack() refused */
	__u32 pad;
	__u64 ip[BL_KSTACK_MAX];
};

#endif /* BENCH_BASELINE_H */
