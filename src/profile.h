/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The exit profile (the end of stage 6): each probe's hits, misses, drops,
 * faults, filtered and budget-skipped hits and its COST, then what the run
 * lost and why, and what the probes cost in all. Read once into a struct
 * profile; written to stderr as a table, or with --json as one JSON object.
 */
#ifndef KPT_PROFILE_H
#define KPT_PROFILE_H

#include "consumer.h"

/* What only the consumer's loop knows about the run. */
struct profile_run {
	unsigned long long records;	/* events read from the ring buffer */
	unsigned long long unprinted;	/* left in it: the drain's time was up */
	unsigned long long bad;		/* malformed records skipped */
	unsigned long long prog_misses;	/* program runs the kernel skipped */
	unsigned long long unseen;	/* --budget: estimated while probes were held */
	const long long *missed;	/* per probe, -1 unknown; may be NULL */
	double seconds;			/* attached for, for COST */
};

/* The profile on stderr: the table, or with --json one {"type":"profile"} line. */
void profile_print(struct loader *ld, const struct consume_opts *o, const struct profile_run *run);

#endif /* KPT_PROFILE_H */
