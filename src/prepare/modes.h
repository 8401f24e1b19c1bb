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
#include "prepare/event.h"
#include "prepare/opts.h"
#include "prepare/probeset.h"
#include "prepare/resolve.h"
#include "kptrace.h"

/*
 * Add the definitions env's mode runs to ps (after -f's), latency's pairs
 * linked (probe.lat, probe.lat_peer). 0, or a negative errno with msg, ""
 * where the refusal of a definition is printed already.
 */
int modes_definitions(const struct kpt_opts *env, struct sysinfo *si, struct probeset *ps,
		      char *msg, size_t msglen);

/*
 * Probe match of glob probe glob, on name (its tracepoint "SUBSYS/EVENT" or
 * function): a --from/--to glob's role, and what its wildcards matched, by
 * which globs on both sides pair. 0 or -ENOMEM.
 */
int modes_glob_match(struct probeset *ps, int glob, int match, const char *name);

/*
 * Set the action of each of ps's definitions for env's mode; ps->nbuckets
 * gets the unkeyed histogram buckets needed. Returns 0 or -EINVAL with msg
 * about probe *which.
 */
int modes_actions(const struct kpt_opts *env, struct probeset *ps, char *msg, size_t msglen,
		  int *which);

#endif /* KPT_MODES_H */
