// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A tracepoint's line from its print fmt, through libtraceevent (tpprint.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "out/output.h"
#include "out/tpprint.h"
#include "sys/tracepoint.h"
#include "kptrace.h"

/*
 * One handle for the process, its events parsed on their first line: the
 * output stage is one thread. Each parsed event is remembered by the
 * format it came from (NULL event: libtraceevent refused it).
 */
static struct tep_handle *tep;
static const struct ksyms *cur_ks;	/* the kallsyms of the line being printed */
static struct parsed {
	const struct tp_format *fmt;
	struct tep_event *event;
} *parsed;
static int nparsed;

#define RAW_MAX	(KPT_REC_MAX + 4096)

/*
 * libtraceevent's tep_free() frees the plugin directories
 * tep_add_plugin_path() added, through this function of its
 * event-plugin.o. A static link takes that whole object for it, and with
 * it plugin loading's dlopen(), which glibc warns of on every link (the
 * first thing `make` showed). kptrace loads no plugins and adds no
 * directory, so the list is always empty: defined here, the linker has
 * what event-parse.o asks for and leaves event-plugin.o out. Were
 * event-plugin.o ever pulled in for something else, the link would fail
 * on two definitions, not go quiet.
 */
void free_tep_plugin_paths(struct tep_handle *tep);
void free_tep_plugin_paths(struct tep_handle *tep)
{
	(void)tep;
}

/* The kernel's %pS (sprint_symbol(): sym+0xoff/0xsize [mod]) and %ps. */
static unsigned long long fn_sym(struct trace_seq *s, unsigned long long *args, bool off)
{
	char buf[512];

	trace_seq_puts(s, ksyms_format(cur_ks, args[0], off, buf, sizeof(buf)));
	return 0;
}

static unsigned long long fn_pS(struct trace_seq *s, unsigned long long *args)
{
	return fn_sym(s, args, true);
}

static unsigned long long fn_ps(struct trace_seq *s, unsigned long long *args)
{
	return fn_sym(s, args, false);
}

/* %p: the address itself, as ftrace prints it with options/hash-ptr off (%px). */
static unsigned long long fn_p(struct trace_seq *s, unsigned long long *args)
{
	trace_seq_printf(s, "%016llx", args[0]);
	return 0;
}

static struct tep_handle *handle(void)
{
	if (tep)
		return tep;
	tep = tep_alloc();
	if (!tep)
		return NULL;
	tep_set_long_size(tep, 8);
	tep_register_print_function(tep, fn_pS, TEP_FUNC_ARG_STRING, "__kpt_pS",
				    TEP_FUNC_ARG_LONG, TEP_FUNC_ARG_VOID);
	tep_register_print_function(tep, fn_ps, TEP_FUNC_ARG_STRING, "__kpt_ps",
				    TEP_FUNC_ARG_LONG, TEP_FUNC_ARG_VOID);
	tep_register_print_function(tep, fn_p, TEP_FUNC_ARG_STRING, "__kpt_p",
				    TEP_FUNC_ARG_LONG, TEP_FUNC_ARG_VOID);
	return tep;
}

/* Appends [s, s + n) to the buffer at *p of *cap bytes; -1 if it is full. */
static int put(char **p, size_t *cap, const char *s, size_t n)
{
	if (n >= *cap)
		return -1;
	memcpy(*p, s, n);
	*p += n;
	*cap -= n;
	**p = 0;
	return 0;
}

/* %pS, %ps, %pB and a plain %p: printed by kptrace's functions */
static bool wrapped(const struct tp_conv *c)
{
	return c->ext ? c->conv == 'S' || c->conv == 's' || c->conv == 'B' : c->conv == 'p';
}

/*
 * The print fmt line with the kernel's %pS, %ps, %pB and %p as %s of
 * kptrace's functions of the same argument, into out. 0, or -1.
 */
static int rewrite_print_fmt(const char *line, char *out, size_t cap)
{
	struct tp_conv c[128];
	const char *q = strchr(line, '"'), *end = q ? q + 1 : NULL;
	int n = tp_print_fmt_scan(line, c, 128), i;

	if (n < 0 || n >= 128)
		return -1;
	while (*end && *end != '"')
		end += *end == '\\' && end[1] ? 2 : 1;
	if (put(&out, &cap, line, (size_t)(q + 1 - line)))
		return -1;
	q++;
	for (i = 0; i < n; i++) {
		if (!wrapped(&c[i]))
			continue;
		if (put(&out, &cap, q, (size_t)(c[i].fs - q)) || put(&out, &cap, "%s", 2))
			return -1;
		q = c[i].fe;
	}
	if (put(&out, &cap, q, (size_t)(end + 1 - q)))
		return -1;
	for (i = 0; i < n; i++) {
		const char *fn = !c[i].ext ? "__kpt_p(" : c[i].conv == 's' ? "__kpt_ps(" :
				 "__kpt_pS(";
		bool wrap = wrapped(&c[i]);

		if (!c[i].as)
			return -1;
		if (put(&out, &cap, ", ", 2) || (wrap && put(&out, &cap, fn, strlen(fn))) ||
		    put(&out, &cap, c[i].as, (size_t)(c[i].ae - c[i].as)) ||
		    (wrap && put(&out, &cap, ")", 1)))
			return -1;
	}
	return put(&out, &cap, "\n", 1);
}

/* fmt's event in the handle, parsed from its text with the print fmt rewritten. */
static struct tep_event *event_of(const struct tp_format *fmt, const char *system)
{
	struct parsed *np;
	struct tep_event *te = NULL;
	char *text, *pf, *eol, *o;
	size_t cap;
	int i;

	for (i = 0; i < nparsed; i++)
		if (parsed[i].fmt == fmt)
			return parsed[i].event;
	np = realloc(parsed, (nparsed + 1) * sizeof(*np));
	if (!np)
		return NULL;
	parsed = np;
	cap = fmt->text_len * 2 + 4096;
	text = malloc(cap);
	pf = fmt->text ? strstr(fmt->text, "\nprint fmt:") : NULL;
	if (text && pf && handle()) {
		pf++;
		eol = strchr(pf, '\n');
		memcpy(text, fmt->text, (size_t)(pf - fmt->text));
		o = text + (pf - fmt->text);
		if (eol) {
			char *line = strndup(pf, (size_t)(eol - pf));

			if (line && !rewrite_print_fmt(line, o, cap - (size_t)(o - text)) &&
			    tep_parse_format(tep, &te, text, strlen(text), system))
				te = NULL;
			free(line);
		}
	}
	free(text);
	parsed[nparsed++] = (struct parsed){ fmt, te };
	return te;
}

/* Field f's value from ev's argument of its name into the kernel's record raw. */
static int put_field(const struct tep_format_field *f, const struct ev_desc *ev,
		     const void *rec, size_t len, unsigned char *raw, size_t *pos)
{
	int i = ev_arg_index(ev, f->name);
	const struct ev_arg *a;
	const char *s;
	size_t n;
	uint32_t dl;

	if (i < 0 || (size_t)f->offset + (size_t)f->size > RAW_MAX)
		return 0;
	a = &ev->args[i];
	if (!ev_arg_is_data_loc(a)) {
		if (decode_faulted(ev, rec, i))
			return 0;
		n = (size_t)a->size * (a->count ? a->count : 1);
		memcpy(raw + f->offset, (const unsigned char *)rec + a->slot,
		       n < (size_t)f->size ? n : (size_t)f->size);
		return 0;
	}
	s = decode_string(a, rec, len, 0, &n);
	if (!s)
		s = "(fault)", n = 7;
	if (!(f->flags & TEP_FIELD_IS_DYNAMIC)) {	/* char name[N]: in place */
		n = n < (size_t)f->size ? n : (size_t)f->size - 1;
		memcpy(raw + f->offset, s, n);
		return 0;
	}
	if (*pos + n + 1 > RAW_MAX || f->size != 4)
		return -1;
	memcpy(raw + *pos, s, n);
	raw[*pos + n] = 0;
	/* __data_loc: len << 16 | offset; __rel_loc's offset from the field's end */
	dl = (uint32_t)(n + 1) << 16 |
	     (uint32_t)(*pos - (f->flags & TEP_FIELD_IS_RELATIVE ? (size_t)f->offset + 4 : 0));
	memcpy(raw + f->offset, &dl, 4);
	*pos += (n + 1 + 3) & ~(size_t)3;
	return 0;
}

long tpprint_info(const struct ev_desc *ev, const struct ksyms *ks, const void *rec, size_t len,
		  char *out, size_t outlen)
{
	static unsigned char raw[RAW_MAX];
	struct tep_event *te = ev->tp_print ? event_of(ev->tp_print, ev->target.tp_system) : NULL;
	struct tep_record r = { 0 };
	struct tep_format_field *f;
	struct kpt_rec_hdr h;
	struct trace_seq s;
	uint16_t type;
	size_t pos = 0;
	long n;

	if (!te || (te->flags & TEP_EVENT_FL_FAILED) || outlen == 0)
		return -1;
	memcpy(&h, rec, sizeof(h));
	for (f = te->format.fields; f; f = f->next)
		if ((size_t)f->offset + (size_t)f->size > pos)
			pos = (size_t)f->offset + (size_t)f->size;
	pos = (pos + 3) & ~(size_t)3;
	if (pos > RAW_MAX)
		return -1;
	memset(raw, 0, pos);
	type = (uint16_t)te->id;
	memcpy(raw, &type, 2);
	memcpy(raw + 4, &h.tid, 4);	/* common_pid */
	for (f = te->format.fields; f; f = f->next)
		if (put_field(f, ev, rec, len, raw, &pos))
			return -1;
	r.data = raw;
	r.size = (int)pos;
	r.cpu = (int)h.cpu;
	cur_ks = ks;
	trace_seq_init(&s);
	tep_print_event(tep, &s, &r, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&s);
	n = s.state == TRACE_SEQ__GOOD ? (long)s.len : -1;
	if (n >= 0)
		snprintf(out, outlen, "%s", s.buffer);
	trace_seq_destroy(&s);
	return n < 0 ? -1 : (long)strlen(out);
}

/* The name of v in a __print_symbolic() table, or NULL. */
static const char *sym_of(const struct tep_print_flag_sym *sym, uint64_t v)
{
	char *end;

	for (; sym; sym = sym->next)
		if (sym->value && strtoull(sym->value, &end, 0) == v && end != sym->value && !*end)
			return sym->str;
	return NULL;
}

/* The table of a __print_symbolic() over field itself in arg (or below it), or NULL. */
static const struct tep_print_flag_sym *table_in(const struct tep_print_arg *arg, const char *field)
{
	const struct tep_print_flag_sym *t = NULL;

	if (!arg)
		return NULL;
	switch (arg->type) {
	case TEP_PRINT_SYMBOL:
		if (arg->symbol.field && arg->symbol.field->type == TEP_PRINT_FIELD &&
		    !strcmp(arg->symbol.field->field.name, field))
			return arg->symbol.symbols;
		break;
	case TEP_PRINT_OP:
		t = table_in(arg->op.left, field);
		if (!t)
			t = table_in(arg->op.right, field);
		break;
	case TEP_PRINT_TYPE:
		t = table_in(arg->typecast.item, field);
		break;
	default:
		break;
	}
	return t;
}

const char *tpprint_symbol(const struct ev_desc *ev, const char *field, uint64_t v)
{
	struct tep_event *te = ev->tp_fmt ? event_of(ev->tp_fmt, ev->target.tp_system) : NULL;
	const struct tep_print_arg *arg;
	const struct tep_print_flag_sym *t;

	if (!te || (te->flags & TEP_EVENT_FL_FAILED))
		return NULL;
	for (arg = te->print_fmt.args; arg; arg = arg->next) {
		t = table_in(arg, field);
		if (t)
			return sym_of(t, v);
	}
	return NULL;
}
