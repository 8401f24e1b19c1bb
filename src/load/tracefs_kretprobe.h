/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Kretprobes with an explicit maxactive, through tracefs (see the .c file). */
#ifndef KPT_TRACEFS_KRETPROBE_H
#define KPT_TRACEFS_KRETPROBE_H

#include <stdbool.h>
#include <stddef.h>

struct tfs_probe {
	char dir[40];		/* tracefs mount */
	char group[32];		/* kptrace_PID */
	char event[48];
	int pfd;		/* perf fd until a BPF link owns it, else -1 */
	bool created;
};

/* Remove the kretprobes of kptrace processes that no longer exist. */
void tfs_cleanup_stale(void);
/* Create "rN:kptrace_PID/EVENT func" and open its perf event. Returns the
 * perf fd or a negative errno with msg set; nothing is left on failure. */
int tfs_kretprobe_create(const char *func, int maxactive, int idx, struct tfs_probe *tp,
			 char *msg, size_t msglen);
/* The kernel's nmissed for it (kprobe_profile), -1 if unknown. */
long long tfs_nmissed(const struct tfs_probe *tp);
/* Close the perf fd if still ours, delete the event. */
void tfs_kretprobe_remove(struct tfs_probe *tp);

#endif /* KPT_TRACEFS_KRETPROBE_H */
