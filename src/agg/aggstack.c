// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Stacks as aggregation keys: frames read back from their maps, then printed. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>

#include "agg/aggstack.h"
#include "out/output.h"
#include "util/hash.h"

void aggstack_read(struct loader *ld, const struct ev_desc *ev, int kind, uint64_t id,
		   struct agg_stack *as)
{
	int fd;

	memset(as, 0, sizeof(*as));
	as->ev = ev;
	as->user = kind == KPT_K_USTACK;
	as->lost = true;
	if (id == KPT_STACK_LOST)
		return;
	fd = loader_map_fd(ld, as->user ? LM_USTK : LM_KSTK);
	if (bpf_map_lookup_elem(fd, &id, &as->v))
		return;
	as->lost = false;
	as->tgid = as->user ? as->v.u.tgid : 0;
	as->n = as->user ? as->v.u.nframes : as->v.k.nframes;
	if (as->n > KPT_STACK_MAX)
		as->n = KPT_STACK_MAX;
	as->frames = as->user ? (const unsigned char *)as->v.u.frame
			      : (const unsigned char *)as->v.k.ip;
}

/* A walk over as's frames, from the first shown (kernel: the tracing frames left out). */
static void walk(struct stack_walk *w, const struct stack_syms *ss, const struct agg_stack *as,
		 bool reverse)
{
	if (as->user)
		stack_walk_user(w, ss, as->tgid, as->frames, as->n, reverse);
	else
		stack_walk_kernel(w, ss, as->frames, as->n, as->ev, 0, reverse);
}

static void capture(const struct stack_syms *ss, const struct agg_stack *as)
{
	/* while the process may still live: frames without a build id need its maps */
	if (as->user && ss->us && as->tgid)
		usym_capture(ss->us, as->tgid);
}

/* A frame as -K prints it, or with offsets as ftrace's sym-offset option (sym+0xoff/0xsize). */
static void frame_text(const struct stack_syms *ss, const struct sframe *fr, bool offsets,
		       char *buf, size_t len)
{
	if (offsets && !fr->user && fr->sym && ss->ks)
		ksyms_format(ss->ks, fr->addr, true, buf, len);
	else
		stack_frame_text(fr, buf, len);
}

void aggstack_text(FILE *f, const struct stack_syms *ss, const struct agg_stack *as, bool offsets)
{
	struct stack_walk w;
	struct sframe fr;
	char text[STACK_FRAME_TEXT_MAX];

	if (as->lost) {
		fprintf(f, " => [%s stack lost: see the profile]\n", as->user ? "user" : "kernel");
		return;
	}
	if (!as->n)
		fprintf(f, " => [no %s stack]\n", as->user ? "user" : "kernel");
	capture(ss, as);
	walk(&w, ss, as, false);
	while (stack_walk_next(&w, &fr)) {
		frame_text(ss, &fr, offsets, text, sizeof(text));
		fprintf(f, " => %s\n", text);
	}
}

uint64_t aggstack_look(const struct stack_syms *ss, const struct agg_stack *as)
{
	uint64_t h = kpt_hash(&as->lost, sizeof(as->lost)) ^ (uint64_t)as->n;
	struct stack_walk w;
	struct sframe fr;
	char text[512];

	capture(ss, as);
	walk(&w, ss, as, false);
	while (stack_walk_next(&w, &fr)) {
		stack_frame_text(&fr, text, sizeof(text));
		h = (h ^ kpt_hash_str(text)) * KPT_FNV_PRIME;
	}
	return h;
}

void aggstack_json(FILE *f, const struct stack_syms *ss, const struct agg_stack *as)
{
	struct stack_walk w;
	struct outbuf ob;

	capture(ss, as);
	walk(&w, ss, as, false);	/* a lost stack has no frames: [] */
	ob_init(&ob, f);
	stack_walk_json(&ob, &w);
	ob_flush(&ob);
}

int aggstack_names(const struct stack_syms *ss, const struct agg_stack *as, char **names,
		   size_t max, size_t *n)
{
	struct stack_walk w;
	struct sframe fr;
	char text[STACK_FRAME_TEXT_MAX];

	if (as->lost || !as->n) {
		if (*n >= max)
			return 0;
		names[*n] = strdup(as->lost ? "[lost]" : "[no stack]");
		return names[(*n)++] ? 0 : -ENOMEM;
	}
	capture(ss, as);
	/* the map holds the innermost frame first; folded wants the root first */
	walk(&w, ss, as, true);
	while (*n < max && stack_walk_next(&w, &fr)) {
		stack_frame_name(&fr, text, sizeof(text));
		names[*n] = strdup(text);
		if (!names[(*n)++])
			return -ENOMEM;
	}
	return 0;
}

/* Whether key is in the set, adding it if not. */
static bool seen_add(struct aggstack_seen *sn, uint64_t key)
{
	struct hent *e = ht_get(&sn->ids, &key, sizeof(key));

	if (!e)
		return true;	/* no memory: capture nothing more, lose nothing else */
	if (e->num)
		return true;
	e->num = 1;
	return false;
}

void aggstack_capture_new(struct loader *ld, struct usym *us, struct aggstack_seen *sn)
{
	int fd = loader_map_fd(ld, LM_USTK);
	struct kpt_ustack v;
	uint64_t key, next;
	int err;

	if (!us)
		return;
	for (err = bpf_map_get_next_key(fd, NULL, &next); !err;
	     err = bpf_map_get_next_key(fd, &key, &next)) {
		key = next;
		if (!key || seen_add(sn, key))
			continue;
		if (!bpf_map_lookup_elem(fd, &key, &v) && v.tgid)
			usym_capture(us, v.tgid);
	}
}

void aggstack_seen_free(struct aggstack_seen *sn)
{
	ht_free(&sn->ids, NULL);
}
