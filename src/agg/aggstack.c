// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Stacks as aggregation keys: frames read back from their maps, then printed. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>

#include "agg/aggstack.h"
#include "out/output.h"

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

/* Frame i of as resolved; the first frame shown is first (kernel: the tracing frames left out). */
static void frame_at(const struct stack_syms *ss, const struct agg_stack *as, unsigned int i,
		     struct sframe *fr)
{
	if (as->user)
		stack_uframe(ss->us, as->tgid, as->frames + (size_t)i * KPT_UFRAME_SIZE, i, fr);
	else
		stack_kframe(ss->ks, stack_kip(as->frames, i), fr);
}

static unsigned int first_frame(const struct stack_syms *ss, const struct agg_stack *as)
{
	return as->user ? 0 : stack_kernel_first(ss->ks, as->frames, as->n, as->ev);
}

static void capture(const struct stack_syms *ss, const struct agg_stack *as)
{
	/* while the process may still live: frames without a build id need its maps */
	if (as->user && ss->us && as->tgid)
		usym_capture(ss->us, as->tgid);
}

void aggstack_text(FILE *f, const struct stack_syms *ss, const struct agg_stack *as)
{
	struct sframe fr;
	char text[512];
	unsigned int i;

	if (as->lost) {
		fprintf(f, " => [%s stack lost: see the profile]\n", as->user ? "user" : "kernel");
		return;
	}
	if (!as->n)
		fprintf(f, " => [no %s stack]\n", as->user ? "user" : "kernel");
	capture(ss, as);
	for (i = first_frame(ss, as); i < as->n; i++) {
		frame_at(ss, as, i, &fr);
		stack_frame_text(&fr, text, sizeof(text));
		fprintf(f, " => %s\n", text);
	}
}

void aggstack_json(FILE *f, const struct stack_syms *ss, const struct agg_stack *as)
{
	struct sframe fr;
	unsigned int i, first = first_frame(ss, as);

	capture(ss, as);
	fputc('[', f);
	for (i = first; !as->lost && i < as->n; i++) {
		frame_at(ss, as, i, &fr);
		fputs(i > first ? ",{\"address\":" : "{\"address\":", f);
		if (fr.addr)
			fprintf(f, "\"0x%" PRIx64 "\"", fr.addr);
		else
			fputs("null", f);
		fputs(",\"symbol\":", f);
		if (fr.sym)
			json_fput_str(f, fr.sym, SIZE_MAX);
		else
			fputs("null", f);
		if (fr.sym)
			fprintf(f, ",\"offset\":%" PRIu64, fr.off);
		else
			fputs(",\"offset\":null", f);
		fputs(fr.user ? ",\"binary\":" : ",\"module\":", f);
		if (fr.obj)
			json_fput_str(f, fr.obj, SIZE_MAX);
		else
			fputs("null", f);
		if (fr.user && (fr.obj || fr.build_id))
			fprintf(f, ",\"file_offset\":%" PRIu64, fr.file_off);
		fputc('}', f);
	}
	fputc(']', f);
}

int aggstack_names(const struct stack_syms *ss, const struct agg_stack *as, char **names,
		   size_t max, size_t *n)
{
	unsigned int i, first = first_frame(ss, as);
	struct sframe fr;
	char text[512];

	if (as->lost || !as->n) {
		if (*n >= max)
			return 0;
		names[*n] = strdup(as->lost ? "[lost]" : "[no stack]");
		return names[(*n)++] ? 0 : -ENOMEM;
	}
	capture(ss, as);
	/* the map holds the innermost frame first; folded wants the root first */
	for (i = as->n; i-- > first && *n < max;) {
		frame_at(ss, as, i, &fr);
		stack_frame_name(&fr, text, sizeof(text));
		names[*n] = strdup(text);
		if (!names[(*n)++])
			return -ENOMEM;
	}
	return 0;
}

/* Whether key is in the set, adding it if not (open addressing, no removal). */
static bool seen_add(struct aggstack_seen *sn, uint64_t key)
{
	size_t i;

	if (!sn->slot) {
		sn->cap = 2 * KPT_USTACK_KEYS;	/* a power of two, never more than half full */
		sn->slot = calloc(sn->cap, sizeof(*sn->slot));
		if (!sn->slot)
			return true;	/* no memory: capture nothing more, lose nothing else */
	}
	for (i = (size_t)(key * 0x9e3779b97f4a7c15ull) & (sn->cap - 1); sn->slot[i];
	     i = (i + 1) & (sn->cap - 1))
		if (sn->slot[i] == key)
			return true;
	sn->slot[i] = key;	/* a key is never 0 (KPT_STACK_LOST) */
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
	free(sn->slot);
	sn->slot = NULL;
}
