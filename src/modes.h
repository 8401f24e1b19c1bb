/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The subcommands as probe definitions and actions: "latency FUNC" is an
 * entry probe and a return probe paired in the kernel; "hist kmalloc" is
 * whichever kmalloc source the running kernel has; "hist"/"count" set the
 * action of the probes they are given.
 */
#ifndef KPT_MODES_H
#define KPT_MODES_H

#include <stddef.h>
#include <stdint.h>
#include "cli.h"
#include "event.h"
#include "kptrace.h"
#include "resolve.h"

/* A list of definition texts with where each came from (for messages). */
struct deflist {
	char **text;
	int n;
};

/* The definitions env's mode runs (heap texts). Returns 0 or -errno with msg. */
int modes_definitions(const struct env *env, struct sysinfo *si, struct deflist *out,
		      char *msg, size_t msglen);
void deflist_free(struct deflist *l);

/*
 * Set each probe's action for env's mode; *nbuckets gets the unkeyed
 * histogram buckets needed. Returns 0 or -EINVAL with msg about probe *which.
 */
int modes_actions(const struct env *env, const struct ev_desc *evs,
		  struct kpt_probe_entry *ents, int n, uint32_t *nbuckets, char *msg,
		  size_t msglen, int *which);

#endif /* KPT_MODES_H */
