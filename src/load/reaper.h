/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Taking links off without waiting out the kernel. Closing a perf event
 * link (a kprobe's, uprobe's or tracepoint's) waits out RCU grace periods
 * under the kernel's event_mutex (perf_trace_destroy() ->
 * tracepoint_synchronize_unregister()): 30-60 ms each, one at a time
 * whichever thread closes them, so 360 tracepoints took 21 s. Once the BPF
 * side ignores its hits (kpt_stopped), nothing depends on when they go:
 * the links are closed here for a while, and the rest by a child process
 * that holds only their fds and closes them after kptrace has returned.
 */
#ifndef KPT_REAPER_H
#define KPT_REAPER_H

#include <sys/types.h>

struct bpf_link;

struct reaper {
	struct bpf_link **kept;	/* for the child */
	int nkept, cap;
	double start, until;	/* the foreground's span, monotonic seconds */
	int closed;		/* links closed in the foreground */
	double closed_s;	/* and the time they took */
	pid_t pid;		/* the child closing the kept ones, 0: none */
};

/* How long the foreground closes links before handing the rest over, seconds. */
#define KPT_REAP_FG_S	0.5

void reaper_begin(struct reaper *r, double fg_s);
/* The link closed now while the foreground's time lasts, else kept for the child. NULL: nothing. */
void reaper_put(struct reaper *r, struct bpf_link *l);
/* The link closed now, whatever the time (what must be gone before the next step). */
void reaper_put_now(struct reaper *r, struct bpf_link *l);
/*
 * The kept links to a child process (its own child, so nobody waits for
 * it), which closes every other fd first (a pipe kept open would hold the
 * reader of kptrace's output); then this process's copies closed, which
 * the kernel does not act on while the child holds them, and only then
 * the child's (whoever closes a link last waits out its grace periods).
 * Where no child can be made, closed here. Returns how many the child
 * closes.
 */
int reaper_end(struct reaper *r);

#endif /* KPT_REAPER_H */
