/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The probes of one run, each with what every stage made of it: its parsed
 * definition, where it came from, its peers, its resolution; once compiled,
 * the probe table (index = BPF cookie) and how to read its records, as the
 * arrays the loader, the consumer and the aggregation read.
 */
#ifndef KPT_PROBESET_H
#define KPT_PROBESET_H

#include <stdbool.h>
#include <stdint.h>
#include "lang/spec.h"
#include "prepare/event.h"
#include "prepare/resolve.h"
#include "kptrace.h"

enum probe_origin {
	PROBE_USER,		/* a definition as written, or a subcommand's */
	PROBE_GLOB,		/* one match of a glob: a later refusal skips it */
	PROBE_SAVER,		/* an entry probe saving a return probe's entry arguments */
};

enum probe_lat {
	PROBE_LAT_NONE,
	PROBE_LAT_START,	/* latency: the entry that starts the clock */
	PROBE_LAT_END,		/* latency: the return that stops it */
};

struct probe {
	struct spec_probe spec;
	char *where;		/* "FILE:LINE" or "definition N", for messages; or NULL */
	enum probe_origin origin;
	int saver;		/* the probe saving its entry arguments, or -1 */
	int saves;		/* PROBE_SAVER: the return probe it saves for, else -1 */
	enum probe_lat lat;
	int lat_peer;		/* the other half of its latency pair, or -1; --from/--to:
				 * its group's first start */
	char *pair_stem;	/* --from/--to glob's match: what the glob matched (heap) */
	struct resolved res;
};

struct probeset {
	struct probe *p;
	int n, cap;
	int nuser;		/* p[0, nuser): the definitions; after them, the entry savers */
	/* from compile on (the set is final then): probe i's table entry and
	 * record layout; evs[i] points into p[i].spec */
	struct kpt_probe_entry *ents;
	struct ev_desc *evs;
	uint32_t nbuckets;	/* unkeyed histogram buckets of all probes */
};

/*
 * Parse one definition into ps; "-:EVENT [PROBEPOINT [ARGS]]" removes an
 * earlier one's probes. where (copied, or NULL) names it in messages, which
 * are printed. 0, or a negative errno.
 */
int probeset_add(struct probeset *ps, const char *text, const char *where,
		 enum probe_origin origin);
/* Drop probe i; the links of those after it follow it. Before compile only. */
void probeset_remove(struct probeset *ps, int i);
void probeset_free(struct probeset *ps);

/* A message about a definition: "in WHERE:", then text with a caret under col (or -1). */
void probe_report(const char *where, const char *text, const char *msg, int col);
/* msg about probe i under its probe point, as tracefs says it; i < 0: msg alone. */
void probeset_report(const struct probeset *ps, int i, const char *msg);

#endif /* KPT_PROBESET_H */
