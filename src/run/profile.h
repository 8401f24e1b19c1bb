/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The exit profile, printed once consume() returns: each probe's hits, misses, drops,
 * faults, filtered and budget-skipped hits and its COST, then what the run
 * lost and why, and what the probes cost in all. Read once into a struct
 * profile; written to stderr as a table, or with --json as one JSON object.
 */
#ifndef KPT_PROFILE_H
#define KPT_PROFILE_H

#include "run/consumer.h"

/* The profile on stderr: the table, or with --json one {"type":"profile"} line. */
void profile_print(struct loader *ld, const struct consume_opts *o, const struct consume_result *run);

#endif /* KPT_PROFILE_H */
