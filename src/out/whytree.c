// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kptrace.h"
#include "lang/valfmt.h"
#include "out/output.h"
#include "out/perfetto.h"
#include "out/whytree.h"
#include "util/json.h"

/* One call of the tree: node 0 is the root, the others in order of entry. */
struct wnode {
	int probe;		/* its entry's probe */
	int ret_probe;		/* its return's, -1: its return not kept */
	int parent, depth;
	uint64_t start, end, ret;
	bool on_path;		/* the error's path, root to origin */
};

struct wtree {
	const struct ev_desc *evs;
	int nevs;
	const struct ksyms *ks;
	const struct kpt_why_log *log;
	const struct kpt_why_ent *e;	/* the log's entries, after the root's record */
	const void *args;		/* the root's entry record, NULL: none kept */
	struct wnode n[KPT_WHY_ENTRIES + 1];
	int count;
	int origin;		/* -1: none (no error, or the root's own) */
	unsigned int misnested;	/* returns of another function than the open one */
};

/*
 * A return's kind by its type (the return probe's ret=$retval); W_UNKNOWN: a
 * type given where BTF has none (why_ret_arg()), an errno if an int's is.
 */
enum wkind { W_VOID, W_SIGNED, W_UNSIGNED, W_PTR, W_UNKNOWN };

static enum wkind ret_kind(const struct wtree *t, int probe, int64_t *v, uint64_t raw)
{
	const struct ev_desc *ev = probe >= 0 && probe < t->nevs ? &t->evs[probe] : NULL;
	const struct ev_arg *a = ev && ev->nargs ? &ev->args[0] : NULL;
	enum spec_num num;

	if (!a) {
		*v = 0;
		return W_VOID;
	}
	if (a->spec && a->spec->type_given) {
		*v = (int32_t)raw < 0 && (int32_t)raw >= -4095 ? (int32_t)raw : (int64_t)raw;
		return W_UNKNOWN;
	}
	num = spec_type_info(a->type)->num;
	if (a->size == 4)
		*v = num == SPEC_NUM_S ? (int64_t)(int32_t)raw : (int64_t)(uint32_t)raw;
	else if (a->size == 2)
		*v = num == SPEC_NUM_S ? (int64_t)(int16_t)raw : (int64_t)(uint16_t)raw;
	else if (a->size == 1)
		*v = num == SPEC_NUM_S ? (int64_t)(int8_t)raw : (int64_t)(uint8_t)raw;
	else
		*v = (int64_t)raw;
	return num == SPEC_NUM_X ? W_PTR : num == SPEC_NUM_S ? W_SIGNED : W_UNSIGNED;
}

/* Whether a return of kind k and value v is an error: an errno, NULL or ERR_PTR. */
static bool is_error(enum wkind k, int64_t v)
{
	if (k == W_PTR)
		return !v || (v < 0 && v >= -4095);
	return (k == W_SIGNED || k == W_UNKNOWN) && v < 0 && v >= -4095;
}

static bool node_error(const struct wtree *t, const struct wnode *n, int64_t *v)
{
	enum wkind k;

	if (n->ret_probe < 0)
		return false;
	k = ret_kind(t, n->ret_probe, v, n->ret);	/* sets *v: before is_error() reads it */
	return is_error(k, *v);
}

/* The function's name: its entry probe's. */
static const char *fname(const struct wtree *t, int probe)
{
	return probe >= 0 && probe < t->nevs ? t->evs[probe].func : "?";
}

/* The root's return probe: why_defs() names it why/root_ret. */
static int root_ret_probe(const struct wtree *t)
{
	int i;

	for (i = 0; i < t->nevs; i++)
		if (!strcmp(t->evs[i].event, "root_ret"))
			return i;
	return -1;
}

/*
 * The log's entries into nodes, nested as entered and returned, and the
 * root's entry record (decode_check()'s, as its probe's event). 0, -1: not
 * a log.
 */
static int build(struct wtree *t, size_t len)
{
	const struct kpt_why_log *l = t->log;
	int stack[KPT_WHY_ENTRIES + 1], sp = 0;
	size_t off;
	uint32_t i;

	if (len < KPT_WHY_HDR_SIZE || l->i.n > KPT_WHY_ENTRIES ||
	    l->i.args_len > KPT_WHY_ARGS_MAX || l->h.probe >= t->nevs)
		return -1;
	off = KPT_WHY_ENT_OFF(l->i.args_len);
	if (len < KPT_WHY_HDR_SIZE + off + (size_t)l->i.n * sizeof(struct kpt_why_ent))
		return -1;
	if (l->i.args_len &&
	    decode_check(&t->evs[l->h.probe], l->body, l->i.args_len))
		return -1;
	t->args = l->i.args_len ? l->body : NULL;
	t->e = (const struct kpt_why_ent *)(l->body + off);
	t->n[0] = (struct wnode){ .probe = l->h.probe, .ret_probe = root_ret_probe(t),
				  .parent = -1, .start = l->h.ts, .end = l->i.end,
				  .ret = l->i.ret };
	t->count = 1;
	stack[0] = 0;
	for (i = 0; i < l->i.n; i++) {
		const struct kpt_why_ent *e = &t->e[i];
		struct wnode *n;

		if (e->probe >= t->nevs)
			return -1;
		if (!(e->flags & KPT_WHY_RET)) {
			n = &t->n[t->count];
			*n = (struct wnode){ .probe = e->probe, .ret_probe = -1,
					     .parent = stack[sp], .depth = sp + 1,
					     .start = e->ts };
			stack[++sp] = t->count++;
			continue;
		}
		if (!sp)
			return -1;	/* the kernel pairs by depth: never */
		n = &t->n[stack[sp--]];
		if (strcmp(fname(t, n->probe), fname(t, e->probe)))
			t->misnested++;
		n->ret_probe = e->probe;
		n->end = e->ts;
		n->ret = e->ret;
	}
	return 0;
}

/*
 * The error's origin: from the root down, the last child that returned the
 * error its parent returned, until a call none of whose children did. An
 * error returned by a call and handled (its parent went on) is no origin.
 */
static void find_origin(struct wtree *t)
{
	int cur = 0, c, next;
	int64_t pv = 0, cv = 0;

	t->origin = -1;
	if (!node_error(t, &t->n[0], &pv))
		return;
	t->n[0].on_path = true;
	for (;;) {
		next = -1;
		for (c = cur + 1; c < t->count; c++)
			if (t->n[c].parent == cur && node_error(t, &t->n[c], &cv) && cv == pv)
				next = c;
		if (next < 0)
			break;
		cur = next;
		t->n[cur].on_path = true;
	}
	t->origin = cur;
}

static bool has_children(const struct wtree *t, int i)
{
	return i + 1 < t->count && t->n[i + 1].parent == i;
}

/* A return value as its type prints, an errno's name after it. */
static void fmt_ret(const struct wtree *t, const struct wnode *n, char *buf, size_t len)
{
	int64_t v;
	enum wkind k = ret_kind(t, n->ret_probe, &v, n->ret);
	const char *name = is_error(k, v) && v ? valfmt_errno_name((int)-v) : NULL;

	if ((k == W_PTR || k == W_UNKNOWN) && !(v < 0 && v >= -4095))
		snprintf(buf, len, "0x%" PRIx64, (uint64_t)v);
	else if (k == W_UNSIGNED)
		snprintf(buf, len, "%" PRIu64, (uint64_t)v);
	else
		snprintf(buf, len, "%" PRId64 "%s%s%s", v, name ? " (" : "", name ? name : "",
			 name ? ")" : "");
}

/* One line: function_graph's CPU and duration columns ("%7.3f us" where it
 * prints one, else as many blanks), two spaces a level, then text. */
static void text_line(FILE *f, const struct wtree *t, const struct wnode *n, bool dur,
		      const char *text)
{
	fprintf(f, " %u) ", t->log->h.cpu);
	if (dur)
		fprintf(f, "%7.3f us    |  ", (double)(n->end - n->start) / 1e3);
	else
		fprintf(f, "              |  ");
	/* the origin marked where its return value is */
	fprintf(f, "%*s%s%s\n", 2 * n->depth, "", text,
		dur && t->origin >= 0 && n == &t->n[t->origin] ? "  <== origin" : "");
}

/* Call i and those beneath it: a leaf "f();", else "f() {" ... "}", as ftrace prints them. */
static void text_node(FILE *f, const struct wtree *t, int i)
{
	const struct wnode *n = &t->n[i];
	const char *name = fname(t, n->probe);
	char rv[64] = "", line[320];
	int64_t v;
	int c;

	if (n->ret_probe >= 0 && ret_kind(t, n->ret_probe, &v, n->ret) != W_VOID)
		fmt_ret(t, n, rv, sizeof(rv));
	if (!has_children(t, i) && n->ret_probe >= 0) {
		snprintf(line, sizeof(line), "%s();%s%s%s", name, rv[0] ? " /* = " : "", rv,
			 rv[0] ? " */" : "");
		text_line(f, t, n, true, line);
		return;
	}
	snprintf(line, sizeof(line), "%s() {", name);
	text_line(f, t, n, false, line);
	for (c = i + 1; c < t->count; c++)
		if (t->n[c].parent == i)
			text_node(f, t, c);
	if (n->ret_probe < 0)
		snprintf(line, sizeof(line), "} /* %s: return not kept */", name);
	else if (rv[0])
		snprintf(line, sizeof(line), "} /* %s = %s */", name, rv);
	else
		snprintf(line, sizeof(line), "}");
	text_line(f, t, n, n->ret_probe >= 0, line);
}

static void text_print(FILE *f, const struct wtree *t)
{
	const struct kpt_why_log *l = t->log;
	const struct wnode *r = &t->n[0];
	char rv[64] = "void";
	int64_t v;
	int i;

	if (r->ret_probe >= 0 && ret_kind(t, r->ret_probe, &v, r->ret) != W_VOID)
		fmt_ret(t, r, rv, sizeof(rv));
	fprintf(f, "# why: %s", fname(t, r->probe));
	/* the root's arguments as its probe's line gives them, in its call */
	if (t->args) {
		fputc('(', f);
		output_text_args(f, &t->evs[r->probe], t->ks, t->args, l->i.args_len);
		fputc(')', f);
	} else if (l->i.args_lost) {
		fprintf(f, "(arguments not kept: %u bytes, the log keeps %d)", l->i.args_lost,
			KPT_WHY_ARGS_MAX);
	}
	fprintf(f, " = %s in %.3f us: %.16s-%u (pid %u) [%03u] %" PRIu64 ".%06" PRIu64
		"\n", rv, (double)(r->end - r->start) / 1e3, l->h.comm,
		l->h.tid, l->h.tgid, l->h.cpu, (uint64_t)(r->start / 1000000000),
		(uint64_t)(r->start / 1000 % 1000000));
	text_node(f, t, 0);
	if (t->origin >= 0) {
		fmt_ret(t, &t->n[t->origin], rv, sizeof(rv));
		fprintf(f, "# origin: %s = %s, its stack from the root:\n",
			fname(t, t->n[t->origin].probe), rv);
		for (i = 0; i < t->count; i++)
			if (t->n[i].on_path)
				fprintf(f, "#   %*s%s\n", 2 * t->n[i].depth, "",
					fname(t, t->n[i].probe));
	}
	if (l->i.dropped)
		fprintf(f, "# cut short: %u entries and returns past the log's bounds (%d deep, "
			"%d entries) not kept\n", l->i.dropped, KPT_WHY_DEPTH, KPT_WHY_ENTRIES);
	if (l->i.unmatched || t->misnested)
		fprintf(f, "# %u returns without their entry (hits the kernel missed)\n",
			l->i.unmatched + t->misnested);
	fprintf(f, "\n");
}

/* A kept return's "ret" member as --json and --perfetto give it (a
 * pointer's as a hex string, an errno's as a number) into buf; false for
 * a function that returns nothing. */
static bool json_ret(const struct wtree *t, const struct wnode *n, char *buf, size_t len)
{
	int64_t v;

	switch (ret_kind(t, n->ret_probe, &v, n->ret)) {
	case W_VOID:
		return false;
	case W_PTR:
	case W_UNKNOWN:
		if (v < 0 && v >= -4095)
			snprintf(buf, len, "\"ret\":%" PRId64, v);
		else
			snprintf(buf, len, "\"ret\":\"0x%" PRIx64 "\"", (uint64_t)v);
		return true;
	case W_UNSIGNED:
		snprintf(buf, len, "\"ret\":%" PRIu64, (uint64_t)v);
		return true;
	default:
		snprintf(buf, len, "\"ret\":%" PRId64, v);
		return true;
	}
}

static void json_node(FILE *f, const struct wtree *t, int i)
{
	const struct wnode *n = &t->n[i];
	const char *sep = "";
	char rv[48];
	int c;

	fprintf(f, "{\"func\":");
	json_fput_str(f, fname(t, n->probe), 128);
	if (n->ret_probe >= 0) {
		fprintf(f, ",\"duration_ns\":%" PRIu64, n->end - n->start);
		if (json_ret(t, n, rv, sizeof(rv)))
			fprintf(f, ",%s", rv);
	} else {
		fprintf(f, ",\"returned\":false");
	}
	if (t->origin == i)
		fprintf(f, ",\"origin\":true");
	if (has_children(t, i)) {
		fprintf(f, ",\"calls\":[");
		for (c = i + 1; c < t->count; c++)
			if (t->n[c].parent == i) {
				fprintf(f, "%s", sep);
				json_node(f, t, c);
				sep = ",";
			}
		fprintf(f, "]");
	}
	fprintf(f, "}");
}

static void json_print(FILE *f, const struct wtree *t)
{
	const struct kpt_why_log *l = t->log;
	const char *sep = "";
	int i;

	fprintf(f, "{\"why\":");
	json_fput_str(f, fname(t, t->n[0].probe), 128);
	fprintf(f, ",\"comm\":");
	json_fput_str(f, l->h.comm, sizeof(l->h.comm));
	fprintf(f, ",\"pid\":%u,\"tid\":%u,\"cpu\":%u,\"ts_ns\":%" PRIu64 ",\"cut\":%u",
		l->h.tgid, l->h.tid, l->h.cpu, (uint64_t)l->h.ts, l->i.dropped);
	/* the root's arguments as a streamed event's "args" */
	if (t->args) {
		fprintf(f, ",\"args\":{");
		output_json_args(f, &t->evs[t->n[0].probe], t->ks, t->args, l->i.args_len, false);
		fprintf(f, "}");
	} else if (l->i.args_lost) {
		fprintf(f, ",\"args_lost\":%u", l->i.args_lost);
	}
	if (t->origin >= 0) {
		fprintf(f, ",\"origin\":");
		json_fput_str(f, fname(t, t->n[t->origin].probe), 128);
		fprintf(f, ",\"origin_stack\":[");
		for (i = 0; i < t->count; i++)
			if (t->n[i].on_path) {
				fprintf(f, "%s", sep);
				json_fput_str(f, fname(t, t->n[i].probe), 128);
				sep = ",";
			}
		fprintf(f, "]");
	}
	fprintf(f, ",\"tree\":");
	json_node(f, t, 0);
	fprintf(f, "}\n");
}

/* The root's slice's args: args, then its entry arguments (malloc'd; NULL
 * if it has none kept, or on no memory: the slice goes without them). */
static char *root_slice_args(const struct wtree *t, const char *args)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *m;

	if (!t->args || !(m = open_memstream(&buf, &n)))
		return NULL;
	fputs(args, m);
	output_json_args(m, &t->evs[t->n[0].probe], t->ks, t->args, t->log->i.args_len,
			 args[0] != 0);
	if (fclose(m)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* The tree as nested slices on the root's thread: Perfetto nests them by
 * their times, as function_graph by its braces. */
static void perfetto_tree(struct perfetto *pf, const struct wtree *t)
{
	uint64_t end[KPT_WHY_ENTRIES + 1];
	struct kpt_rec_hdr h = t->log->h;
	char args[96], *ra;
	int i, at;

	for (i = 0; i < t->count; i++) {
		const struct wnode *n = &t->n[i];

		/* a return not kept: the call ends with its parent */
		end[i] = n->ret_probe >= 0 || n->parent < 0 ? n->end : end[n->parent];
		if (end[i] < n->start)
			end[i] = n->start;
		at = 0;
		if (n->ret_probe < 0)
			at = snprintf(args, sizeof(args), "\"returned\":false");
		else if (json_ret(t, n, args, sizeof(args)))
			at = (int)strlen(args);
		if (t->origin == i)
			snprintf(args + at, sizeof(args) - at, "%s\"origin\":true", at ? "," : "");
		else if (!at)
			args[0] = 0;
		h.ts = end[i];
		ra = i ? NULL : root_slice_args(t, args);
		perfetto_slice(pf, fname(t, n->probe), &h, n->start, end[i] - n->start,
			       ra ? ra : args);
		free(ra);
	}
}

void whytree_print(const struct why_print *o, const void *rec, size_t len, struct why_counts *c)
{
	static struct wtree t;	/* 4 KiB of nodes; the consumer is one thread */
	FILE *f = o->f;

	memset(&t, 0, sizeof(t));
	t.evs = o->evs;
	t.nevs = o->nevs;
	t.ks = o->ks;
	t.log = rec;
	if (build(&t, len)) {
		c->bad++;
		return;
	}
	find_origin(&t);
	c->calls++;
	c->cut += !!t.log->i.dropped;
	if (o->json)
		json_print(f, &t);
	else
		text_print(f, &t);
	if (o->pf)
		perfetto_tree(o->pf, &t);
}
