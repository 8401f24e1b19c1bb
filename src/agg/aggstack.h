/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Stacks as aggregation keys, userspace half: a kstack or ustack key word
 * is the hash the BPF side stored the frames under (kpt_kstk, kpt_ustk);
 * here they are read back and printed under their row or histogram, as
 * JSON frames, or as the folded format's names.
 */
#ifndef KPT_AGGSTACK_H
#define KPT_AGGSTACK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "load/loader.h"
#include "util/htab.h"
#include "out/stackout.h"
#include "kptrace.h"

/* A key's stack, as read from its map. */
struct agg_stack {
	const struct ev_desc *ev;	/* its probe */
	bool user;
	bool lost;		/* KPT_STACK_LOST, or gone from the map: no frames */
	uint32_t tgid;		/* user: the process it was first seen in */
	unsigned int n;		/* frames */
	const unsigned char *frames;	/* into v */
	union {
		struct kpt_kstack k;
		struct kpt_ustack u;
	} v;
};

/* Read the stack of key word id of kind KPT_K_KSTACK or KPT_K_USTACK. */
void aggstack_read(struct loader *ld, const struct ev_desc *ev, int kind, uint64_t id,
		   struct agg_stack *as);
/*
 * Its frames, shown as -K/-U show them: " => FRAME" lines, the innermost
 * first; with offsets, kernel frames as ftrace's sym-offset option shows
 * them (sym+0xoff/0xsize), which tells apart two call sites in a function.
 */
void aggstack_text(FILE *f, const struct stack_syms *ss, const struct agg_stack *as, bool offsets);
/* A hash of the text aggstack_text() prints without offsets: equal when two stacks read alike. */
uint64_t aggstack_look(const struct stack_syms *ss, const struct agg_stack *as);
/* Its frames as a JSON array of frame objects (as --json events have them). */
void aggstack_json(FILE *f, const struct stack_syms *ss, const struct agg_stack *as);
/*
 * Its frames' folded names, ROOT FIRST, appended to names[*n..max) (each
 * malloc'ed, the caller frees them). 0, or -ENOMEM.
 */
int aggstack_names(const struct stack_syms *ss, const struct agg_stack *as, char **names,
		   size_t max, size_t *n);

/*
 * User stacks' processes, while they live: each stack new in the map since
 * the last call has its process's maps read now (usym_capture()), for its
 * frames without a build id (the kernel gives none where it cannot read the
 * file, as in a timer's interrupt). Called as the run goes.
 */
struct aggstack_seen {
	struct htab ids;	/* the stack ids whose process was captured */
};
void aggstack_capture_new(struct loader *ld, struct usym *us, struct aggstack_seen *sn);
void aggstack_seen_free(struct aggstack_seen *sn);

#endif /* KPT_AGGSTACK_H */
