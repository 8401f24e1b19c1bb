// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Parse: one probe definition in the ftrace kprobe_events /
 * uprobe_events grammar -> struct spec_probe.
 *
 * The kernel's parser (kernel/trace/trace_probe.c, trace_kprobe.c,
 * trace_uprobe.c) is the reference for what is accepted, for the default
 * names and for which error is reported where: a definition that works in
 * tracefs should work here and fail the same way, with the caret in the same
 * place. Where the kernel can only decide with the running kernel at hand
 * (symbol lookup, register names, instruction boundaries) we check syntax
 * only and leave the rest to resolve.c.
 *
 * The definition is never copied or modified: every token is a (pointer,
 * length) view into the caller's text, so that error columns are simply
 * pointer differences and nothing is allocated beyond what struct
 * spec_probe keeps.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lang/lex.h"
#include "lang/spec.h"
#include "lang/valfmt.h"

/* ftrace's limits, where the kernel has one (trace_probe.h, kprobes.h...) */
#define MAX_TRACE_ARGS		128	/* MAX_TRACE_ARGS */
#define MAX_ARG_NAME_LEN	32	/* MAX_ARG_NAME_LEN */
#define MAX_ARRAY_LEN		64	/* MAX_ARRAY_LEN */
#define MAXACTIVE_MAX		4096	/* KRETPROBE_MAXACTIVE_MAX */
#define PARAM_MAX_STACK		SPEC_MAX_ARGN
/* MODULE_NAME_LEN - 1 on 64-bit: longer can't be a loaded module */
#define MODULE_NAME_MAX		55
/* KSYM_NAME_LEN - 1: kallsyms has no longer names */
#define KSYM_NAME_MAX		511
/*
 * ftrace parses into FETCH_INSN_MAX slots, the last one reserved for
 * FETCH_OP_END. The base, the dereferences and then the store, bitfield
 * and array instructions must all fit in the others.
 */
#define INSN_SLOTS		(SPEC_MAX_OPS - 1)

#define E(a, b) [SPEC_ERR_##a] = b,
static const char *const err_text[SPEC_ERR__COUNT] = { SPEC_ERRORS };
#undef E

/* Fields every probe event already has: an argument can't shadow them. */
static const char *const reserved_names[] = {
	"common_type",
	"common_flags",
	"common_preempt_count",
	"common_pid",
	"common_tgid",
	"__probe_ip",
	"__probe_ret_ip",
	"__probe_func",
};

const char *spec_strerror(enum spec_err code)
{
	if ((unsigned int)code >= SPEC_ERR__COUNT)
		return "Unknown error";
	return err_text[code];
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* Characters of a kallsyms name: GCC adds ".isra.0", ".cold" and the like. */
static bool is_ksym_char(char c)
{
	return is_alnum(c) || c == '_' || c == '.';
}

/*
 * ELF symbols may also carry '$' and symbol versions ("memcpy@@GLIBC_2.14");
 * C++ and Rust names as demangled, "::", '~' and template brackets
 * ("shop::Cart<int>::~Cart").
 */
static bool is_usym_char(char c)
{
	return is_ksym_char(c) || c == '$' || c == '@' || c == ':' || c == '~' || c == '<' ||
	       c == '>';
}

static bool is_sym_start(char c)
{
	return is_alpha(c) || c == '_' || c == '.';
}

/*
 * "+N" or "-N" starting at the sign: N must keep the value within
 * [-max - 1, max]. kstrtol() would take "+-N"; we take one sign.
 */
static bool parse_offset(const char *q, const char *e, uint64_t max,
			 int64_t *out)
{
	uint64_t mag;

	if (!parse_uint(q + 1, e, 0, &mag) || mag > max + (*q == '-'))
		return false;
	/* two's complement: 0 - 2^63 is INT64_MIN */
	*out = *q == '-' ? (int64_t)(0 - mag) : (int64_t)mag;
	return true;
}

static bool span_eq(const char *s, const char *e, const char *lit)
{
	size_t n = strlen(lit);

	return (size_t)(e - s) == n && !memcmp(s, lit, n);
}

static const char *span_chr(const char *s, const char *e, char c)
{
	return s < e ? memchr(s, c, e - s) : NULL;
}

static const char *span_rchr(const char *s, const char *e, char c)
{
	while (e > s)
		if (*--e == c)
			return e;
	return NULL;
}

/* ftrace's is_good_name(): event, group and argument names are C identifiers. */
static bool good_name(const char *s, const char *e)
{
	if (s >= e || !(is_alpha(*s) || *s == '_'))
		return false;
	for (s++; s < e; s++)
		if (!is_alnum(*s) && *s != '_')
			return false;
	return true;
}

/*
 * A glob over names: name characters (ok), '*', '?' and [SET] ("[!a-c]"; a
 * ']' first in the set is one of its members), as fnmatch(3), the filter's ~
 * and kptrace list take them. Returns where the span from s ends (at e, or at
 * the first character that is none of these, or an unclosed '['); *glob is
 * set when it holds any of * ? [.
 */
static const char *glob_span(const char *s, const char *e, bool (*ok)(char), bool *glob)
{
	const char *q = s, *c;

	while (q < e) {
		if (*q == '*' || *q == '?') {
			*glob = true;
			q++;
			continue;
		}
		if (*q != '[') {
			if (!ok(*q))
				break;
			q++;
			continue;
		}
		c = q + 1;
		if (c < e && (*c == '!' || *c == '^'))
			c++;
		if (c < e && *c == ']')
			c++;
		while (c < e && *c != ']')
			c++;
		if (c == e)
			break;
		*glob = true;
		q = c + 1;
	}
	return q;
}

static bool is_name_char(char c)
{
	return is_alnum(c) || c == '_';
}

/*
 * A group or event name from a tracepoint's SUBSYS or EVENT: itself, or for
 * a glob ("sys_enter_*", "[4]kmem"), its characters that are a name's, each
 * other one a '_': the probe of a glob is a name too until prepare.c
 * expands it into its matches, which have their own.
 */
static void ident_of(char *out, size_t len, const char *name)
{
	size_t i;

	snprintf(out, len, "%s", name);
	for (i = 0; out[i]; i++)
		if (!is_name_char(out[i]))
			out[i] = '_';
	if (out[0] >= '0' && out[0] <= '9')
		out[0] = '_';
}

/* A tracepoint's SUBSYS or EVENT: a C identifier, or a glob of one. */
static bool good_tp_name(const char *s, const char *e, bool *glob)
{
	bool g = false;

	if (good_name(s, e))
		return true;
	if (s == e || glob_span(s, e, is_name_char, &g) != e || !g)
		return false;
	*glob = true;
	return true;
}

static char *span_dup(const char *s, const char *e)
{
	size_t n = e - s;
	char *d = malloc(n + 1);

	if (d) {
		memcpy(d, s, n);
		d[n] = '\0';
	}
	return d;
}

/* One run of non-blank characters; the kernel's argv_split() boundaries. */
struct tok {
	const char *s, *e;
};

static bool next_tok(const char **pos, struct tok *t)
{
	const char *p = *pos;

	while (is_blank(*p))
		p++;
	if (!*p)
		return false;
	t->s = p;
	while (*p && !is_blank(*p))
		p++;
	t->e = p;
	*pos = p;
	return true;
}

struct ctx {
	const char *text;
	struct spec_error *err;
	struct spec_probe *p;
	bool user;	/* uprobe: user memory, no kernel symbols */
	bool ret;	/* return probe */
	bool fentry;	/* on a function entry: $argN is meaningful */
	bool tp;	/* tracepoint: arguments are its fields */
	bool force_shorthand;	/* "p:NAME ..." is "p NAME ..." */
	bool fprobe;	/* "f": return only by %return, on a function only */
	bool usdt;	/* "u": arguments are the note's argN */
	bool ambiguous;		/* ... and might have been */
	/*
	 * A refusal the kernel only makes as it registers the probe (an @SYM
	 * that cannot resolve), after every argument parsed: the first such,
	 * reported once the rest parsed cleanly, as in the kernel's order.
	 */
	enum spec_err late_code;
	const char *late_at;
};

static int fail(struct ctx *c, enum spec_err code, const char *at)
{
	c->err->code = code;
	c->err->col = (int)(at - c->text);
	return -EINVAL;
}

static void fail_late(struct ctx *c, enum spec_err code, const char *at)
{
	if (!c->late_code) {
		c->late_code = code;
		c->late_at = at;
	}
}

/* Bounded append for generated names: truncates like ftrace's snprintf(). */
static void name_add(char *buf, size_t *len, const char *s, size_t n)
{
	while (n-- && *len < SPEC_NAME_MAX - 1)
		buf[(*len)++] = *s++;
	buf[*len] = '\0';
}

static void name_addf(char *buf, size_t *len, const char *fmt, uint64_t v)
{
	char num[32];

	snprintf(num, sizeof(num), fmt, v);
	name_add(buf, len, num, strlen(num));
}

/*
 * The kernel only rewrites the ':' '.' '*' it expects in symbols; mapping
 * everything outside [A-Za-z0-9_] gives the same result for any name ftrace
 * accepts, and keeps ours valid whatever the symbol or path holds.
 */
static void sanitize_name(char *s)
{
	for (; *s; s++)
		if (!is_alnum(*s) && *s != '_')
			*s = '_';
}

/*
 * [GRP/]EVENT or [GRP.]EVENT after the "p:" / "r:" / "-:". The columns are
 * those of traceprobe_parse_event_name(): group errors at the start of the
 * group, event errors at the start of the event.
 */
static int parse_event_name(struct ctx *c, const char *s, const char *e,
			    bool removal)
{
	struct spec_probe *p = c->p;
	const char *sep = span_chr(s, e, '/');
	const char *ev = s;

	if (!sep)
		sep = span_chr(s, e, '.');
	if (sep) {
		if (sep == s)
			return fail(c, SPEC_ERR_NO_GROUP_NAME, s);
		if (sep - s > SPEC_NAME_MAX - 1)
			return fail(c, SPEC_ERR_GROUP_TOO_LONG, s);
		if (!good_name(s, sep))
			return fail(c, SPEC_ERR_BAD_GROUP_NAME, s);
		memcpy(p->group, s, sep - s);
		p->group[sep - s] = '\0';
		p->group_given = true;
		ev = sep + 1;
	}
	if (ev == e) {
		/*
		 * "GRP/" alone asks for a generated event name, as in recent
		 * kernels; a removal has nothing to generate it from.
		 */
		if (sep && !removal)
			return 0;
		return fail(c, SPEC_ERR_NO_EVENT_NAME, ev);
	}
	if (e - ev > SPEC_NAME_MAX - 1)
		return fail(c, SPEC_ERR_EVENT_TOO_LONG, ev);
	if (!good_name(ev, e))
		return fail(c, SPEC_ERR_BAD_EVENT_NAME, ev);
	memcpy(p->event, ev, e - ev);
	p->event[e - ev] = '\0';
	p->event_given = true;
	return 0;
}

/*
 * "p", "p:NAME", "r", "rN", "rN:NAME". Maxactive errors go at column 1 as
 * in trace_kprobe.c. Whether maxactive is legal depends on the target, so
 * it is only range-checked here. With shorthand ("p:SYM", see
 * name_is_target()) NAME is left for the target parser.
 */
static int parse_head(struct ctx *c, struct tok t, bool shorthand)
{
	const char *q = t.s + 1;

	if (*t.s == 'p' && q < t.e && is_digit(*q))
		return fail(c, SPEC_ERR_BAD_MAXACT_TYPE, q);
	/* f's is checked once %return is known (an fprobe's exit takes one) */
	if ((*t.s == 'r' || *t.s == 'f') && q < t.e && is_digit(*q)) {
		const char *me = span_chr(q, t.e, ':');
		uint64_t v;

		if (!me)
			me = t.e;
		if (!parse_uint(q, me, 0, &v) || !v)
			return fail(c, SPEC_ERR_BAD_MAXACT, q);
		if (v > MAXACTIVE_MAX)
			return fail(c, SPEC_ERR_MAXACT_TOO_BIG, q);
		c->p->maxactive = (int)v;
		q = me;
	}
	if (q == t.e)
		return 0;
	if (*q != ':')
		return fail(c, SPEC_ERR_BAD_PROBE_TYPE, q);
	if (shorthand)
		return 0;
	return parse_event_name(c, q + 1, t.e, false);
}

/*
 * What can only be a fetch argument, never a probe point: NAME=..., a
 * register, variable, memory, dereference or immediate. "if" starts a filter.
 */
static bool is_arg_tok(struct tok t)
{
	const char *q;

	if (span_chr(t.s, t.e, '=') || strchr("%$@+-\\(", *t.s) || span_eq(t.s, t.e, "if"))
		return true;
	/* a member chain: no symbol holds "->" */
	for (q = t.s; q + 1 < t.e; q++)
		if (q[0] == '-' && q[1] == '>')
			return true;
	return false;
}

/*
 * A bare word could be a parameter by name ("p:do_sys_openat2 dfd") as well
 * as a probe point ("p:myprobe do_sys_openat2"): NAME[:TYPE] or a chain.
 */
static bool could_be_btf_arg(struct tok t)
{
	const char *ne = span_chr(t.s, t.e, ':'), *q;

	if (!ne)
		ne = t.e;
	for (q = t.s; q < ne && (is_alnum(*q) || *q == '_' || *q == '.'); q++)
		;
	return q > t.s && (is_alpha(*t.s) || *t.s == '_') && q == ne;
}

/*
 * The shorthand "p:SYM [FETCHARGS]" for "p SYM [FETCHARGS]": NAME in
 * "p:NAME" is the probe point when nothing that could be one follows it.
 * A '/' in NAME is a group separator unless NAME is a uprobe's PATH:..., so
 * "p:grp/ev" keeps asking for a probe point while "p:/bin/sh:main" is one.
 */
static bool name_is_target(const char *s, const char *e, const char *rest)
{
	const char *colon = span_chr(s, e, ':');
	const char *slash = span_chr(s, e, '/');
	struct tok t;

	/* CONTAINER:/PATH:... (split_container()) is a target too */
	if (s == e || (slash && !(colon && (slash < colon || colon[1] == '/'))))
		return false;
	/* no event name has a ':': "p:MOD:SYM count" is MOD's SYM, count by name */
	if (colon)
		return true;
	return !next_tok(&rest, &t) || is_arg_tok(t);
}

/* "p:A B": A could also be the probe point, B its first argument by name. */
static bool name_could_be_target(const char *s, const char *e, const char *rest)
{
	const char *slash = span_chr(s, e, '/');
	struct tok t;

	/* A must be a good event name too: else its own error stands */
	return s < e && !slash && e - s < SPEC_NAME_MAX && good_name(s, e) &&
	       next_tok(&rest, &t) && could_be_btf_arg(t);
}

/*
 * trace_fprobe.c: an fprobe an argument of which reads $retval is its
 * function's exit, with %return or without.
 */
static bool args_read_retval(const char *pos)
{
	struct tok t;
	const char *q;

	while (next_tok(&pos, &t))
		for (q = t.s; q + 7 <= t.e; q++)
			if (!memcmp(q, "$retval", 7) &&
			    (q + 7 == t.e || !(is_alnum(q[7]) || q[7] == '_')))
				return true;
	return false;
}

/* A trailing "%return" turns p into a return probe (kernel 5.11+). */
static int split_return(struct ctx *c, const char *s, const char **e)
{
	const char *pct = span_chr(s, *e, '%');

	if (!pct)
		return 0;
	if (!span_eq(pct, *e, "%return"))
		return fail(c, SPEC_ERR_BAD_ADDR_SUFFIX, pct);
	c->ret = true;
	*e = pct;
	return 0;
}

/* [MOD:]SYM[+offs] | MEMADDR, each with an optional %return. */
static int parse_ktarget(struct ctx *c, struct tok t)
{
	struct spec_probe *p = c->p;
	const char *s = t.s, *e = t.e, *colon, *sym, *q;
	uint64_t v;
	int ret;

	ret = split_return(c, s, &e);
	if (ret)
		return ret;
	if (s == e)
		return fail(c, SPEC_ERR_BAD_PROBE_ADDR, s);

	/*
	 * trace_kprobe.c takes anything kstrtoul() reads as an address and
	 * the rest as a symbol: "9p:v9fs_mount" is module 9p's.
	 */
	if (is_digit(*s) && parse_uint(s, e, 0, &v)) {
		p->addr = v;
		c->fentry = !c->ret;
		return 0;
	}

	sym = s;
	colon = span_chr(s, e, ':');
	if (colon) {
		/* ":0x1234" is a uprobe whose path went missing, not a module */
		if (colon == s && colon + 1 < e && is_digit(colon[1]))
			return fail(c, SPEC_ERR_NO_UPROBE_PATH, s);
		if (colon == s || colon - s > MODULE_NAME_MAX)
			return fail(c, SPEC_ERR_BAD_MOD_NAME, s);
		for (q = s; q < colon; q++)
			if (!is_alnum(*q) && *q != '_' && *q != '-')
				return fail(c, SPEC_ERR_BAD_MOD_NAME, s);
		memcpy(p->module, s, colon - s);
		p->module[colon - s] = '\0';
		sym = colon + 1;
	}

	if (sym == e || !(is_sym_start(*sym) || *sym == '*' || *sym == '?'))
		return fail(c, SPEC_ERR_BAD_PROBE_ADDR, s);
	/* a glob ("vfs_*") is every traceable match: prepare.c expands it */
	for (q = sym; q < e && (is_ksym_char(*q) || *q == '*' || *q == '?' || *q == '|'); q++)
		if (*q == '*' || *q == '?')
			p->glob = true;
	if (q - sym > KSYM_NAME_MAX)
		return fail(c, SPEC_ERR_BAD_PROBE_ADDR, s);
	if (q < e) {
		/*
		 * kprobes can't go before a symbol: only +offs, within a uint.
		 * trace_kprobe.c puts the caret at the probe point, not the
		 * offset, for any of these.
		 */
		if (*q != '+' && *q != '-')
			return fail(c, SPEC_ERR_BAD_PROBE_ADDR, s);
		if (*q == '-' || !parse_uint(q + 1, e, 0, &v) || v > UINT32_MAX)
			return fail(c, p->glob ? SPEC_ERR_BAD_SYM_OFFS : SPEC_ERR_BAD_PROBE_ADDR,
				    p->glob ? q : s);
		p->offset = (int64_t)v;
	}
	if (c->ret && p->offset)
		return fail(c, SPEC_ERR_BAD_RETPROBE, t.s);
	if (p->glob && p->offset)
		return fail(c, SPEC_ERR_BAD_SYM_OFFS, q);
	p->symbol = span_dup(sym, q);
	if (!p->symbol)
		return -ENOMEM;
	c->fentry = !c->ret && !p->offset;
	return 0;
}

/*
 * Where a uprobe's path ends: at the last ':' as in trace_uprobe.c, so a
 * path may hold ':'; but a symbol (not an offset) may be a C++ or Rust
 * name as demangled ("shop::checkout"), whose "::" pairs are its own: the
 * path ends at the ':' before them.
 */
static const char *utarget_colon(const char *s, const char *e)
{
	const char *colon = span_rchr(s, e, ':'), *q;

	if (!colon || colon + 1 == e || is_digit(colon[1]))
		return colon;
	for (q = colon; q > s && q[-1] == ':' && q[0] == ':';) {
		/* q is the second of a pair: the one before the pair ends the path, if any */
		q = span_rchr(s, q - 1, ':');
		if (!q)
			return colon;
	}
	return q;
}

const char *spec_container_colon(const char *s, const char *e)
{
	const char *colon = span_chr(s, e, ':');

	return colon && colon > s && colon + 1 < e && colon[1] == '/' && !span_chr(s, colon, '/') ?
	       colon : NULL;
}

static int split_container(struct ctx *c, struct tok *t)
{
	const char *colon = spec_container_colon(t->s, t->e);

	if (!colon)
		return 0;
	c->p->container = span_dup(t->s, colon);
	if (!c->p->container)
		return -ENOMEM;
	t->s = colon + 1;
	c->p->target_col = (int)(t->s - c->text);
	return 0;
}

/*
 * PATH:OFFSET or PATH:SYMBOL[+offs], each with an optional %return and
 * reference counter, (REF_CTR_OFFSET): a USDT semaphore's file offset. The
 * path ends at utarget_colon(); as in trace_uprobe.c, the counter is read
 * first, then the suffix, then the offset.
 */
static int parse_utarget(struct ctx *c, struct tok t)
{
	struct spec_probe *p = c->p;
	const char *colon = utarget_colon(t.s, t.e);
	const char *s = colon + 1, *e = t.e, *q, *rp;
	uint64_t v;
	int ret;

	if (colon[-1] == '/')
		return fail(c, SPEC_ERR_NO_UPROBE_PATH, t.s);
	q = span_chr(s, e, '(');
	if (q) {
		rp = span_chr(q, e, ')');
		if (!rp)
			return fail(c, SPEC_ERR_REFCNT_OPEN_BRACE, e);
		if (rp + 1 != e)
			return fail(c, SPEC_ERR_BAD_REFCNT_SUFFIX, rp + 1);
		if (!parse_uint(q + 1, rp, 0, &v))
			return fail(c, SPEC_ERR_BAD_REFCNT, q + 1);
		p->ref_ctr_offset = v;
		p->has_ref_ctr = true;
		e = q;
	}
	ret = split_return(c, s, &e);
	if (ret)
		return ret;

	if (s < e && is_digit(*s)) {
		if (!parse_uint(s, e, 0, &v))
			return fail(c, SPEC_ERR_BAD_UPROBE_OFFS, s);
		p->uoffset = v;
		c->fentry = !c->ret;
	} else if (s < e && (is_sym_start(*s) || *s == '*' || *s == '?' || *s == '[')) {
		/* a glob ("parse_*") is every function it matches: prepare.c expands it */
		q = glob_span(s, e, is_usym_char, &p->glob);
		if (q < e) {
			if (*q != '+' && *q != '-')
				return fail(c, SPEC_ERR_BAD_PROBE_ADDR, s);
			if (*q == '-' || !parse_uint(q + 1, e, 0, &v) || p->glob)
				return fail(c, SPEC_ERR_BAD_SYM_OFFS, q);
			p->uoffset = v;
		}
		if (c->ret && p->uoffset)
			return fail(c, SPEC_ERR_BAD_RETPROBE, t.s);
		p->usym = span_dup(s, q);
		if (!p->usym)
			return -ENOMEM;
		c->fentry = !c->ret && !p->uoffset;
	} else {
		return fail(c, SPEC_ERR_BAD_UPROBE_OFFS, s);
	}
	p->path = span_dup(t.s, colon);
	return p->path ? 0 : -ENOMEM;
}

/* The names ftrace makes when none is given. */
static void default_event(struct spec_probe *p, bool ret)
{
	char *buf = p->event;
	size_t len = 0;

	if (p->path) {
		/*
		 * trace_uprobe.c: "p_" + the file name cut at its first '.',
		 * '-' or '_', + "_0x" + the offset; 'p' even for uretprobes.
		 * The kernel has no PATH:SYMBOL; we put "_SYM_offs" in place of
		 * the offset, kprobe-style, so sym and sym+4 differ.
		 */
		const char *base = strrchr(p->path, '/');

		base = base ? base + 1 : p->path;
		name_add(buf, &len, "p_", 2);
		name_add(buf, &len, base, strcspn(base, ".-_"));
		if (p->usym) {
			name_add(buf, &len, "_", 1);
			name_add(buf, &len, p->usym, strlen(p->usym));
			name_addf(buf, &len, "_%" PRIu64, p->uoffset);
		} else {
			name_addf(buf, &len, "_0x%" PRIx64, p->uoffset);
		}
	} else if (p->symbol && p->fprobe) {
		/* trace_fprobe.c: "%s__entry" or "%s__exit" */
		name_add(buf, &len, p->symbol, strlen(p->symbol));
		name_add(buf, &len, ret ? "__exit" : "__entry", ret ? 6 : 7);
	} else if (p->symbol) {
		/* trace_kprobe.c: "%c_%s_%ld" with MOD: kept in the symbol */
		name_add(buf, &len, ret ? "r_" : "p_", 2);
		if (p->module[0]) {
			name_add(buf, &len, p->module, strlen(p->module));
			name_add(buf, &len, ":", 1);
		}
		name_add(buf, &len, p->symbol, strlen(p->symbol));
		name_addf(buf, &len, "_%" PRIu64, (uint64_t)p->offset);
	} else {
		/*
		 * "%c_0x%p": %p is the zero-padded address when pointers aren't
		 * hashed; a hashed name can't be predicted, so we don't hash.
		 */
		name_add(buf, &len, ret ? "r_" : "p_", 2);
		name_addf(buf, &len, "0x%016" PRIx64, p->addr);
	}
	sanitize_name(buf);
}

/* ftrace's fetch_insn slots used so far: its @SYM takes two for the base. */
static int insn_slots(const struct spec_arg *a)
{
	return a->nops + (a->nops && a->ops[0].kind == SPEC_OP_SYMBOL);
}

static struct spec_op *add_op(struct ctx *c, struct spec_arg *a,
			      enum spec_op_kind kind, const char *at)
{
	struct spec_op *op = &a->ops[a->nops++];

	op->kind = kind;
	op->col = (int)(at - c->text);
	return op;
}

/* $retval, $stack, $stackN, $comm, $argN */
static int parse_var(struct ctx *c, struct spec_arg *a, const char *s,
		     const char *e)
{
	const char *v = s + 1;
	uint64_t n;

	if (span_eq(v, e, "retval")) {
		if (!c->ret)
			return fail(c, SPEC_ERR_RETVAL_ON_PROBE, s);
		add_op(c, a, SPEC_OP_RETVAL, s);
		return 0;
	}
	if (e - v >= 5 && !memcmp(v, "stack", 5)) {
		if (v + 5 == e) {
			add_op(c, a, SPEC_OP_STACKP, s);
			return 0;
		}
		if (!is_digit(v[5]) || !parse_uint(v + 5, e, 10, &n))
			return fail(c, SPEC_ERR_BAD_VAR, s);
		/* The kernel stack is bounded; a user stack only by param's width. */
		if (n > (c->user ? UINT32_MAX : PARAM_MAX_STACK))
			return fail(c, SPEC_ERR_BAD_STACK_NUM, s);
		add_op(c, a, SPEC_OP_STACK, s)->param = (uint32_t)n;
		return 0;
	}
	/* "$COMM" is accepted by recent kernels too */
	if (span_eq(v, e, "comm") || span_eq(v, e, "COMM")) {
		add_op(c, a, SPEC_OP_COMM, s);
		return 0;
	}
	if (e - v >= 3 && !memcmp(v, "arg", 3)) {
		/*
		 * "$arg*" named or dereferenced: the kernel reads it as a
		 * variable, BAD_VAR; its table's BAD_VAR_ARGS says why
		 */
		if (span_eq(v, e, "arg*") && !c->user && !c->tp)
			return fail(c, SPEC_ERR_BAD_VAR_ARGS, s);
		if (!is_digit(v[3]) || !parse_uint(v + 3, e, 10, &n))
			return fail(c, SPEC_ERR_BAD_VAR, s);
		/*
		 * A bare $argN is first looked up in BTF (6.12): past the
		 * prototype it is "not found" there, whatever its number;
		 * btfarg.c says which, or BAD_ARG_NUM where BTF has nothing.
		 */
		if (!n || (n > PARAM_MAX_STACK && !((a->btf & SPEC_BTF_ARGN) && !a->nops &&
						    n <= UINT32_MAX)))
			return fail(c, SPEC_ERR_BAD_ARG_NUM, s);
		/*
		 * Arguments are only where the calling convention still holds:
		 * on entry, or, as recent kernels do for kretprobes (and we for
		 * uretprobes too), at a return from what the entry saved
		 * (btfarg.c turns the op into SPEC_OP_EDATA).
		 */
		if (!c->fentry && !c->ret)
			return fail(c, SPEC_ERR_NOFENTRY_ARGS, s);
		if (c->ret)
			a->btf |= SPEC_BTF_DEFER;
		add_op(c, a, SPEC_OP_ARG, s)->param = (uint32_t)n;
		return 0;
	}
	return fail(c, SPEC_ERR_BAD_VAR, s);
}

/* $argN at a tracepoint: TP_PROTO's, by BTF (btfarg.c's tp_resolve()). */
static int parse_tp_argn(struct ctx *c, struct spec_arg *a, const char *s, const char *e)
{
	uint64_t n;

	if (!parse_uint(s + 4, e, 10, &n))
		return fail(c, SPEC_ERR_BAD_VAR, s);
	if (!n || n > PARAM_MAX_STACK)
		return fail(c, SPEC_ERR_BAD_ARG_NUM, s);
	a->btf |= SPEC_BTF_DEFER;
	add_op(c, a, SPEC_OP_ARG, s)->param = (uint32_t)n;
	return 0;
}

/* @ADDR, @+OFFSET (uprobes), @SYM[+|-offs] (kprobes): all read memory. */
static int parse_mem(struct ctx *c, struct spec_arg *a, const char *s,
		     const char *e)
{
	struct spec_op *op;
	uint64_t v;
	int64_t off = 0;

	if (s + 1 < e && is_digit(s[1])) {
		if (!parse_uint(s + 1, e, 0, &v))
			return fail(c, SPEC_ERR_BAD_MEM_ADDR, s);
		add_op(c, a, SPEC_OP_IMM, s)->imm = (int64_t)v;
	} else if (s + 1 < e && s[1] == '+') {
		if (!c->user)
			return fail(c, SPEC_ERR_FILE_ON_KPROBE, s);
		if (!parse_uint(s + 2, e, 0, &v) || v > INT64_MAX)
			return fail(c, SPEC_ERR_BAD_FILE_OFFS, s);
		add_op(c, a, SPEC_OP_FOFFS, s)->imm = (int64_t)v;
	} else {
		const char *q, *name_end;

		if (c->user)
			return fail(c, SPEC_ERR_SYM_ON_UPROBE, s);
		/*
		 * The kernel keeps "SYM[+|-OFFS]" as text and resolves it as the
		 * probe registers (traceprobe_update_arg()): the name up to the
		 * first sign, the rest kstrtol()'s. What cannot resolve is
		 * refused there, with the caret at the probe point.
		 */
		name_end = s + 1;
		while (name_end < e && *name_end != '+' && *name_end != '-')
			name_end++;
		for (q = s + 1; q < name_end && is_ksym_char(*q); q++)
			;
		if (q != name_end || q == s + 1 || !is_sym_start(s[1]) ||
		    q - s - 1 > KSYM_NAME_MAX)
			fail_late(c, SPEC_ERR_BAD_MEM_SYM, c->text + c->p->target_col);
		else if (q < e && !parse_offset(q, e, INT64_MAX, &off))
			fail_late(c, SPEC_ERR_BAD_MEM_SYM_OFFS, c->text + c->p->target_col);
		op = add_op(c, a, SPEC_OP_SYMBOL, s);
		op->imm = off;
		op->sym = span_dup(s + 1, name_end);
		if (!op->sym)
			return -ENOMEM;
	}
	/*
	 * ftrace loads the address, then dereferences it. (Its DEREF after a
	 * file offset reuses the offset as displacement, adding it twice;
	 * ours is 0.)
	 */
	add_op(c, a, SPEC_OP_DEREF, s);
	return 0;
}

static int parse_fetch(struct ctx *c, struct spec_arg *a, const char *s,
		       const char *e);

/*
 * +|-[u]OFFS(FETCHARG). The inner argument ends at the last ')', as in
 * parse_probe_arg(), which ignores what follows: so do we, noting where for
 * a warning.
 */
static int parse_deref(struct ctx *c, struct spec_arg *a, const char *s,
		       const char *e)
{
	enum spec_op_kind kind = SPEC_OP_DEREF;
	const char *q = s + 1, *lp, *in, *rp;
	uint64_t mag;
	int64_t off;
	int ret;

	if (q < e && *q == 'u') {
		kind = SPEC_OP_UDEREF;
		q++;
	}
	lp = span_chr(q, e, '(');
	if (!lp)
		return fail(c, SPEC_ERR_DEREF_NEED_BRACE, s);
	/* fetch_insn.offset is an int; the sign is before the 'u' */
	if (!parse_uint(q, lp, 0, &mag) ||
	    mag > (uint64_t)INT32_MAX + (*s == '-'))
		return fail(c, SPEC_ERR_BAD_DEREF_OFFS, s);
	off = *s == '-' ? -(int64_t)mag : (int64_t)mag;
	in = lp + 1;
	rp = span_rchr(in, e, ')');
	if (!rp)
		return fail(c, SPEC_ERR_DEREF_OPEN_BRACE, e);
	if (rp + 1 != e && !c->p->ignored_col)
		c->p->ignored_col = (int)(rp + 1 - c->text);

	ret = parse_fetch(c, a, in, rp);
	if (ret)
		return ret;
	if (a->ops[a->nops - 1].kind == SPEC_OP_COMM ||
	    a->ops[a->nops - 1].kind == SPEC_OP_DATA)
		return fail(c, SPEC_ERR_COMM_CANT_DEREF, in);
	if (insn_slots(a) + 1 > INSN_SLOTS)
		return fail(c, SPEC_ERR_TOO_MANY_OPS, in);
	add_op(c, a, kind, s)->imm = off;
	return 0;
}

/* \IMM or \"STRING" */
static int parse_imm(struct ctx *c, struct spec_arg *a, const char *s,
		     const char *e)
{
	const char *v = s + 1;
	struct spec_op *op;
	uint64_t u;
	int64_t i;

	if (v < e && *v == '"') {
		/* No escapes, as in ftrace: the text between the quotes. */
		if (e - s < 3 || e[-1] != '"')
			return fail(c, SPEC_ERR_IMMSTR_NO_CLOSE, e);
		op = add_op(c, a, SPEC_OP_DATA, s);
		op->data = span_dup(s + 2, e - 1);
		return op->data ? 0 : -ENOMEM;
	}
	/* str_to_immediate(): unsigned if it starts with a digit, else signed */
	if (v < e && is_digit(*v)) {
		if (!parse_uint(v, e, 0, &u))
			return fail(c, SPEC_ERR_BAD_IMM, v);
		i = (int64_t)u;
	} else if (v < e && (*v == '-' || *v == '+')) {
		if (!parse_offset(v, e, INT64_MAX, &i))
			return fail(c, SPEC_ERR_BAD_IMM, v);
	} else {
		return fail(c, SPEC_ERR_BAD_IMM, v);
	}
	add_op(c, a, SPEC_OP_IMM, s)->imm = i;
	return 0;
}

/*
 * A parameter's member chain starts at the first '.' or '-' ("->", or a typo
 * of it); after $VAR or %REG only at "->", so their own errors stay ftrace's.
 */
static const char *chain_start(const char *s, const char *e)
{
	bool named = *s != '$' && *s != '%';

	for (; s < e; s++)
		if ((named && (*s == '.' || *s == '-')) ||
		    (s + 1 < e && s[0] == '-' && s[1] == '>'))
			return s;
	return NULL;
}

/*
 * [(STRUCT)]BASE[->MEMBER[.MEMBER]...], the kernel's BTF argument syntax:
 * BASE is a parameter's name, or $argN, $retval, $stackN, %REG. Only the
 * shape here; btfarg.c resolves names, members and types against BTF.
 */
static int parse_btf(struct ctx *c, struct spec_arg *a, const char *s,
		     const char *e)
{
	const char *q = s, *ch, *be;
	struct spec_op *op;

	if (a->cast || a->chain || a->nops)
		return fail(c, SPEC_ERR_BAD_FETCH_ARG, s);
	/* btf_find_func_proto() needs a function: its entry, or its return;
	 * a '(' is no fetch argument at all to a kernel without casts */
	if (c->user || (!c->fentry && !c->ret && !c->tp))
		return fail(c, *q == '(' ? SPEC_ERR_BAD_FETCH_ARG : SPEC_ERR_NOSUP_BTFARG, s);
	if (*q == '(') {
		const char *rp = span_chr(q, e, ')');

		/* "(STRUCT)BASE": kernels without casts refuse the '(' itself */
		if (!rp || rp + 1 == e || !good_name(q + 1, rp))
			return fail(c, SPEC_ERR_BAD_FETCH_ARG, q);
		a->cast = span_dup(q + 1, rp);
		if (!a->cast)
			return -ENOMEM;
		a->cast_col = (int)(q + 1 - c->text);
		q = rp + 1;
	}
	ch = chain_start(q, e);
	be = ch ? ch : e;
	if (ch) {
		const char *m = ch, *me;

		/* ("->" | ".") MEMBER, repeated: the shape; btfarg.c the meaning */
		while (m < e) {
			if (m[0] == '-' && (m + 1 >= e || m[1] != '>'))
				return fail(c, SPEC_ERR_BAD_HYPHEN, m);
			if (m[0] != '-' && m[0] != '.')
				return fail(c, SPEC_ERR_BAD_FETCH_ARG, m);
			m += m[0] == '-' ? 2 : 1;
			for (me = m; me < e && *me != '-' && *me != '.'; me++)
				;
			if (!good_name(m, me))
				return fail(c, SPEC_ERR_BAD_FETCH_ARG, m);
			m = me;
		}
		a->chain = span_dup(ch, e);
		if (!a->chain)
			return -ENOMEM;
		a->chain_col = (int)(ch - c->text);
	}
	a->btf |= SPEC_BTF_DEFER;
	if (is_alpha(*q) || *q == '_') {
		/* parse_btf_arg() looks any such word up: no parameter has it */
		if (!good_name(q, be) || be - q >= SPEC_NAME_MAX)
			return fail(c, SPEC_ERR_NO_BTFARG, q);
		op = add_op(c, a, SPEC_OP_BTFVAR, q);
		op->sym = span_dup(q, be);
		return op->sym ? 0 : -ENOMEM;
	}
	if (q == be || (*q != '$' && *q != '%'))
		return fail(c, SPEC_ERR_BAD_FETCH_ARG, q);
	if (span_eq(q, be, "$comm") || span_eq(q, be, "$COMM"))
		return fail(c, SPEC_ERR_COMM_CANT_DEREF, q);
	return parse_fetch(c, a, q, be);
}

/* A USDT probe's argN, N from 1 to SPEC_USDT_MAX_ARGS: which note argument. */
static int parse_usdt_arg(struct ctx *c, struct spec_arg *a, const char *s, const char *e)
{
	uint64_t n;

	if (e - s < 4 || memcmp(s, "arg", 3) || !is_digit(s[3]) || !parse_uint(s + 3, e, 10, &n) ||
	    !n || n > SPEC_USDT_MAX_ARGS)
		return fail(c, SPEC_ERR_BAD_USDT_ARG, s);
	add_op(c, a, SPEC_OP_ARG, s)->param = (uint32_t)n;
	return 0;
}

/* One FETCHARG (no name, no type): appends its ops, base first. */
static int parse_fetch(struct ctx *c, struct spec_arg *a, const char *s,
		       const char *e)
{
	const char *q;

	if (s == e)
		return fail(c, SPEC_ERR_BAD_FETCH_ARG, s);
	if (c->usdt && (is_alpha(*s) || *s == '_'))
		return parse_usdt_arg(c, a, s, e);
	/* Names, casts and member chains: kernel function probes only. */
	if (!c->tp &&
	    (is_alpha(*s) || *s == '_' || *s == '(' ||
	     ((*s == '$' || *s == '%') && !a->chain && chain_start(s, e))))
		return parse_btf(c, a, s, e);
	if (c->tp) {
		struct spec_op *op;

		/* an argument's member chain, a cast: TP_PROTO's, by BTF (btfarg.c) */
		if (((is_alpha(*s) || *s == '_' || *s == '$') && chain_start(s, e)) || *s == '(')
			return parse_btf(c, a, s, e);
		/* TP_PROTO's Nth argument, as ftrace's tprobe takes it: a record's
		 * field of the same name cannot hide it (sys_enter's id) */
		if (e - s > 4 && !memcmp(s, "$arg", 4) && is_digit(s[4]))
			return parse_tp_argn(c, a, s, e);
		/* A field by name; derefs of it and immediates work as usual. */
		if (is_alpha(*s) || *s == '_') {
			if (!good_name(s, e))
				return fail(c, SPEC_ERR_BAD_FETCH_ARG, s);
			op = add_op(c, a, SPEC_OP_TPFIELD, s);
			op->sym = span_dup(s, e);
			return op->sym ? 0 : -ENOMEM;
		}
		if ((*s == '$' && !span_eq(s, e, "$comm") && !span_eq(s, e, "$COMM")) ||
		    *s == '%' || *s == '@')
			return fail(c, SPEC_ERR_NOT_ON_TP, s);
	}
	switch (*s) {
	case '$':
		return parse_var(c, a, s, e);
	case '%':
		/* an fprobe takes $argN, $retval and names, no register (the
		 * kernel's last word on it: BAD_VAR, then BAD_FETCH_ARG) */
		if (c->fprobe)
			return fail(c, SPEC_ERR_BAD_FETCH_ARG, s);
		/* Only the shape here: resolve.c knows the arch's pt_regs. */
		if (e - s < 2 || e - s - 1 > (int)sizeof(a->ops[0].reg) - 1)
			return fail(c, SPEC_ERR_BAD_REG_NAME, s);
		for (q = s + 1; q < e; q++)
			if (!(*q >= 'a' && *q <= 'z') && !is_digit(*q) && *q != '_')
				return fail(c, SPEC_ERR_BAD_REG_NAME, s);
		memcpy(add_op(c, a, SPEC_OP_REG, s)->reg, s + 1, e - s - 1);
		return 0;
	case '@':
		return parse_mem(c, a, s, e);
	case '+':
	case '-':
		return parse_deref(c, a, s, e);
	case '\\':
		return parse_imm(c, a, s, e);
	default:
		return fail(c, SPEC_ERR_BAD_FETCH_ARG, s);
	}
}

/* b<width>@<offset>/<container>: a 'b' and not a type of that name */
static bool is_bitfield_type(const char *s, const char *e)
{
	return s < e && *s == 'b' && spec_type_by_name(s, (unsigned int)(e - s)) == SPEC_T_NONE;
}

static enum spec_type lookup_type(const char *s, const char *e)
{
	const char *slash;
	uint64_t bits;

	/* find_fetch_type(): "b..." is a bitfield typed by its container (but be16, be32) */
	if (is_bitfield_type(s, e)) {
		slash = span_chr(s, e, '/');
		if (!slash || !parse_uint(slash + 1, e, 0, &bits))
			return SPEC_T_NONE;
		return bits % 8 || bits > 64 ? SPEC_T_NONE : spec_type_int(bits / 8, false);
	}
	return spec_type_by_name(s, (unsigned int)(e - s));
}

/* b<width>@<offset>/<container>; the container was checked by lookup_type(). */
static bool parse_bitfield(struct spec_arg *a, const char *s, const char *e)
{
	const char *slash = span_chr(s, e, '/');
	const char *at = span_chr(s + 1, slash, '@');
	int bits = spec_type_size(a->type) * 8;
	uint64_t w, o;

	if (!at || !parse_uint(s + 1, at, 0, &w) || !w ||
	    !parse_uint(at + 1, slash, 0, &o) ||
	    w > (uint64_t)bits || o > bits - w)
		return false;
	a->bf_width = (uint8_t)w;
	a->bf_offset = (uint8_t)o;
	a->bf_container = (uint8_t)bits;
	return true;
}

/*
 * An argument's name: NAME= (*body is what follows), or what ftrace makes
 * of none: a tracepoint field's or a parameter's own name
 * (generate_probe_arg_name()), else argN, as for a %pd/%pD, which the kernel
 * rewrites before it names it. Unique, and none of the event's own fields.
 */
static int arg_name(struct ctx *c, int idx, struct tok t, bool vfs, const char **body,
		    bool *named)
{
	struct spec_probe *p = c->p;
	struct spec_arg *a = &p->args[idx];
	bool immstr = t.e - t.s >= 2 && t.s[0] == '\\' && t.s[1] == '"';
	const char *q, *ne = span_chr(t.s, t.e, ':');
	size_t i;

	if (!ne)
		ne = t.e;
	/*
	 * ftrace splits the name at the first '=', which breaks an unnamed
	 * \"a=b"; no name can start with '\', so we don't look there.
	 */
	q = immstr ? NULL : span_chr(t.s, t.e, '=');
	*named = q != NULL;
	*body = q ? q + 1 : t.s;
	if (q) {
		if (q - t.s > MAX_ARG_NAME_LEN)
			return fail(c, SPEC_ERR_ARG_NAME_TOO_LONG, t.s);
		if (q == t.s)
			return fail(c, SPEC_ERR_NO_ARG_NAME, t.s);
		if (!good_name(t.s, q))
			return fail(c, SPEC_ERR_BAD_ARG_NAME, t.s);
		memcpy(a->name, t.s, q - t.s);
	} else if (vfs) {
		snprintf(a->name, sizeof(a->name), "arg%d", idx + 1);
	} else if (c->tp && (is_alpha(*t.s) || *t.s == '_') && !chain_start(t.s, ne)) {
		/* a tracepoint field names itself: "bytes_req", "call_site:symbol" */
		if (ne - t.s >= (int)sizeof(a->name) || !good_name(t.s, ne))
			return fail(c, SPEC_ERR_BAD_FETCH_ARG, t.s);
		memcpy(a->name, t.s, ne - t.s);
	} else if ((!c->user || c->usdt) && (is_alpha(*t.s) || *t.s == '_') &&
		   ne - t.s < (int)sizeof(a->name) && good_name(t.s, ne)) {
		/* so does a parameter by name, and a USDT probe's argN */
		memcpy(a->name, t.s, ne - t.s);
	} else {
		snprintf(a->name, sizeof(a->name), "arg%d", idx + 1);
	}
	for (i = 0; i < sizeof(reserved_names) / sizeof(reserved_names[0]); i++)
		if (!strcmp(a->name, reserved_names[i]))
			return fail(c, SPEC_ERR_USED_ARG_NAME, t.s);
	for (i = 0; i < (size_t)idx; i++)
		if (!strcmp(a->name, p->args[i].name))
			return fail(c, SPEC_ERR_USED_ARG_NAME, t.s);
	return 0;
}

/*
 * ":TYPE[[N]]" after body: a's type, count and type columns. *e becomes
 * the body's end; *tname and *tend the type's text, NULL if none given.
 */
static int parse_type(struct ctx *c, struct spec_arg *a, const char *body, const char **e,
		      const char **tname, const char **tend)
{
	bool immstr = *e - body >= 2 && body[0] == '\\' && body[1] == '"';
	const char *q, *colon, *tcol;

	/*
	 * The type follows the first ':', except that an immediate string
	 * may hold ':' itself: there it follows the closing quote.
	 */
	q = immstr ? span_rchr(body + 2, *e, '"') : NULL;
	colon = span_chr(q ? q : body, *e, ':');
	*tname = *tend = NULL;
	if (colon) {
		const char *lb, *rb;
		uint64_t n;

		*tname = colon + 1;
		*tend = *e;
		lb = span_chr(*tname, *e, '[');
		if (lb) {
			rb = span_chr(lb + 1, *e, ']');
			if (!rb)
				return fail(c, SPEC_ERR_ARRAY_NO_CLOSE, *e);
			if (rb + 1 != *e)
				return fail(c, SPEC_ERR_BAD_ARRAY_SUFFIX, rb + 1);
			if (!parse_uint(lb + 1, rb, 0, &n) || !n)
				return fail(c, SPEC_ERR_BAD_ARRAY_NUM, lb + 1);
			if (n > MAX_ARRAY_LEN)
				return fail(c, SPEC_ERR_ARRAY_TOO_BIG, lb + 1);
			a->count = (uint32_t)n;
			*tend = lb;
		}
		*e = colon;
	}
	tcol = *tname ? *tname : body;
	a->type_col = (int)(tcol - c->text);
	a->type_given = *tname != NULL;

	if (span_eq(body, *e, "$comm") || span_eq(body, *e, "$COMM") || immstr) {
		/* Already a string in memory: string it is, and one of it. */
		if (a->count || (*tname && !span_eq(*tname, *tend, "string")))
			return fail(c, SPEC_ERR_NEED_STRING_TYPE, tcol);
		a->type = SPEC_T_STRING;
	} else if (*tname && !a->count && (span_eq(*tname, *tend, "%pd") ||
					   span_eq(*tname, *tend, "%pD"))) {
		/*
		 * A dentry's name (%pd) or a file's (%pD), 6.5+: the kernel
		 * rewrites the argument into +0(+OFFS(ARG)):string with the
		 * offsets of the structs it was built with. Ours come from BTF
		 * (btfarg.c).
		 */
		if (c->user || c->tp)
			return fail(c, SPEC_ERR_BAD_TYPE, tcol);
		a->vfs = (*tname)[2];
		a->type = SPEC_T_STRING;
		a->btf |= SPEC_BTF_DEFER;
	} else if (*tname && !a->count && (span_eq(*tname, *tend, "struct") ||
					   span_eq(*tname, *tend, "*") ||
					   ((*tend - *tname) == 7 && !memcmp(*tname, "struct", 6) &&
					    (*tname)[6] >= '1' && (*tname)[6] <= '3'))) {
		/* the whole struct a BTF value is or points to (btfarg.c) */
		if (c->user)
			return fail(c, SPEC_ERR_BAD_TYPE, tcol);
		a->whole = *tend - *tname == 7 ? (uint8_t)((*tname)[6] - '0') : 1;
		a->type = SPEC_T_U64;
		a->btf |= SPEC_BTF_DEFER;
	} else if (*tname) {
		a->type = lookup_type(*tname, *tend);
		/* No kallsyms for user addresses */
		if (c->user && (a->type == SPEC_T_SYMBOL || a->type == SPEC_T_SYMSTR))
			a->type = SPEC_T_NONE;
		if (a->type == SPEC_T_NONE)
			return fail(c, SPEC_ERR_BAD_TYPE, tcol);
		/* an extension: 16 bytes read as an array, printed as one address */
		if (a->type == SPEC_T_IPV6 && a->count)
			return fail(c, SPEC_ERR_IPV6_ARRAY, *tend);
		if (a->type == SPEC_T_IPV6)
			a->count = VALFMT_IPV6_LEN;
	} else {
		/* DEFAULT_FETCH_TYPE: x<BITS_PER_LONG> */
		a->type = SPEC_T_X64;
	}
	return 0;
}

/* [NAME=]FETCHARG[:TYPE[[N]]], as traceprobe_parse_probe_arg() and friends. */
static int parse_arg(struct ctx *c, int idx, struct tok t)
{
	struct spec_probe *p = c->p;
	struct spec_arg *a = &p->args[idx];
	const char *body, *e = t.e, *tname, *tend;
	bool immstr = e - t.s >= 2 && t.s[0] == '\\' && t.s[1] == '"', named;
	/* the kernel's glob "*:%p[dD]": the argument is rewritten, nameless */
	bool vfs = !immstr && e - t.s > 4 && !memcmp(e - 4, ":%p", 3) &&
		   (e[-1] == 'd' || e[-1] == 'D');
	size_t i;
	int ret;

	a->col = (int)(t.s - c->text);
	a->text = span_dup(t.s, t.e);
	if (!a->text)
		return -ENOMEM;

	/* "$arg*": every parameter, by name; btfarg.c expands it from BTF. */
	if (span_eq(t.s, t.e, "$arg*")) {
		if (c->user || c->tp)
			return fail(c, SPEC_ERR_BAD_VAR, t.s);
		if (!c->fentry && !c->ret)
			return fail(c, SPEC_ERR_NOFENTRY_ARGS, t.s);
		for (i = 0; i < (size_t)idx; i++)
			if (p->args[i].btf & SPEC_BTF_ALL)
				return fail(c, SPEC_ERR_DOUBLE_ARGS, t.s);
		strcpy(a->name, "$arg*");
		a->type = SPEC_T_X64;
		a->btf = SPEC_BTF_ALL | SPEC_BTF_DEFER;
		a->body_col = a->type_col = a->col;
		return 0;
	}

	ret = arg_name(c, idx, t, vfs, &body, &named);
	if (ret)
		return ret;
	a->body_col = (int)(body - c->text);
	if (e - body > SPEC_ARGSTR_MAX)
		return fail(c, SPEC_ERR_ARG_TOO_LONG, body);
	if (body == e)
		return fail(c, SPEC_ERR_NO_ARG_BODY, body);
	ret = parse_type(c, a, body, &e, &tname, &tend);
	if (ret)
		return ret;

	/* a bare "$argN" is renamed and typed from BTF where the kernel has it */
	if (!named && !a->vfs && !c->user && e - body > 4 && !memcmp(body, "$arg", 4) &&
	    is_digit(body[4]))
		a->btf |= SPEC_BTF_ARGN | SPEC_BTF_DEFER;
	/* untyped, or an errno, which takes the value's width from BTF */
	if ((!tname || a->type == SPEC_T_ERRNO) && c->ret && !c->user && span_eq(body, e, "$retval"))
		a->btf |= SPEC_BTF_RETVAL | SPEC_BTF_DEFER;

	ret = parse_fetch(c, a, body, e);
	if (ret)
		return ret;
	if (tname && is_bitfield_type(tname, tend) && !parse_bitfield(a, tname, tend))
		return fail(c, SPEC_ERR_BAD_BITFIELD, c->text + a->type_col);
	if (a->btf & SPEC_BTF_DEFER)
		return 0;
	return spec_check_arg(p, a, c->err);
}

static int check_fail(struct spec_error *err, enum spec_err code, int col)
{
	err->code = code;
	err->col = col;
	return -EINVAL;
}

int spec_check_arg(const struct spec_probe *p, const struct spec_arg *a, struct spec_error *err)
{
	enum spec_op_kind last;
	int extra;

	(void)p;
	if (!a->nops)
		return check_fail(err, SPEC_ERR_BAD_FETCH_ARG, a->body_col);
	/*
	 * What finalize_fetch_insn() checks. The last deref stays in ops
	 * (the compiler makes it the store); when the last op isn't a deref
	 * ftrace needs one more slot for the store, and bitfield and array
	 * take one each.
	 */
	last = a->ops[a->nops - 1].kind;
	extra = 0;
	if (a->type == SPEC_T_SYMSTR) {
		/* an address to look up, not memory to copy from */
		if (last != SPEC_OP_REG && last != SPEC_OP_STACK &&
		    last != SPEC_OP_RETVAL && last != SPEC_OP_ARG &&
		    last != SPEC_OP_EDATA && last != SPEC_OP_DEREF)
			return check_fail(err, SPEC_ERR_BAD_SYMSTRING, a->type_col);
		extra = 1;
	} else if (spec_type_is_string(a->type)) {
		/* a tracepoint field may be a string itself (char[], __data_loc) */
		if (last != SPEC_OP_DEREF && last != SPEC_OP_UDEREF &&
		    last != SPEC_OP_IMM && last != SPEC_OP_COMM &&
		    last != SPEC_OP_DATA && last != SPEC_OP_TPFIELD)
			return check_fail(err, SPEC_ERR_BAD_STRING, a->type_col);
		/* string[N] reads N pointers, then the strings they point to */
		if (last == SPEC_OP_IMM || last == SPEC_OP_COMM ||
		    last == SPEC_OP_DATA || a->count)
			extra = 1;
	} else if (last != SPEC_OP_DEREF && last != SPEC_OP_UDEREF) {
		extra = 1;
	}
	if (insn_slots(a) + extra > INSN_SLOTS)
		return check_fail(err, SPEC_ERR_TOO_MANY_OPS, a->body_col);

	if (a->bf_width && insn_slots(a) + ++extra > INSN_SLOTS)
		return check_fail(err, SPEC_ERR_TOO_MANY_OPS, a->body_col);

	if (a->count) {
		/*
		 * An array is read from memory. ftrace forgets user memory
		 * (ST_UMEM) here though +u works for strings; we take both.
		 */
		/* a tracepoint's field is memory too: the record's bytes */
		if (a->type == SPEC_T_SYMSTR ||
		    (!spec_type_is_string(a->type) && last != SPEC_OP_DEREF &&
		     last != SPEC_OP_UDEREF && last != SPEC_OP_TPFIELD))
			return check_fail(err, SPEC_ERR_BAD_STRING, a->type_col);
		if (insn_slots(a) + ++extra > INSN_SLOTS)
			return check_fail(err, SPEC_ERR_TOO_MANY_OPS, a->body_col);
	}
	return 0;
}

/*
 * "-:[GRP/]EVENT [PROBEPOINT [ARGS]]": the event, or only its probes on
 * PROBEPOINT (with these arguments first), as in kprobe_events.
 */
static int parse_removal(struct ctx *c, struct tok head, const char *rest)
{
	const char *start, *e;
	struct tok t;

	if (head.s + 1 == head.e || head.s[1] != ':')
		return fail(c, SPEC_ERR_NO_EVENT_NAME, head.s + 1);
	if (parse_event_name(c, head.s + 2, head.e, true))
		return -EINVAL;
	c->p->kind = SPEC_REMOVE;
	if (!next_tok(&rest, &t))
		return 0;
	start = t.s;
	for (e = t.e; next_tok(&rest, &t);)
		e = t.e;
	c->p->remove_match = span_dup(start, e);
	return c->p->remove_match ? 0 : -ENOMEM;
}

/* The arguments after the probe point, from pos. */
static int parse_args(struct ctx *c, const char *pos)
{
	struct spec_probe *p = c->p;
	const char *args = pos;
	struct tok t;
	int nargs = 0, i, ret;

	while (next_tok(&pos, &t))
		if (++nargs > MAX_TRACE_ARGS)
			return fail(c, SPEC_ERR_TOO_MANY_ARGS, t.s);
	if (!nargs)
		return 0;
	p->args = calloc(nargs, sizeof(*p->args));
	if (!p->args)
		return -ENOMEM;
	p->nargs = nargs;
	for (i = 0; next_tok(&args, &t); i++) {
		ret = parse_arg(c, i, t);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * t[:[GRP/]EVENT] SUBSYS/TRACEPOINT [[NAME=]FIELD[:TYPE]]... Not in ftrace's
 * grammar (its eprobes name fields $FIELD); fields go by their bare names
 * here. "t:SUBSYS/TRACEPOINT ..." is the shorthand: when the next word has
 * no '/', the head names the tracepoint, not the event.
 */
/*
 * A "t:..." or "u:..." head after its letter (q): the probe point itself
 * (shorthand), or an event name with the probe point as the next word.
 */
static int head_target(struct ctx *c, struct tok head, const char *q, const char **pos,
		       bool shorthand, struct tok *target)
{
	if (q < head.e && shorthand) {
		target->s = q + 1;
		target->e = head.e;
		return 0;
	}
	if (q < head.e && parse_event_name(c, q + 1, head.e, false))
		return -EINVAL;
	if (!next_tok(pos, target))
		return fail(c, SPEC_ERR_NO_TARGET, head.e + 1);
	return 0;
}

static int parse_tracepoint(struct ctx *c, struct tok head, const char *pos)
{
	struct spec_probe *p = c->p;
	const char *q = head.s + 1, *slash, *rest = pos;
	struct tok target, next;
	bool have_next;

	c->tp = true;
	p->kind = SPEC_TRACEPOINT;
	if (q < head.e && *q != ':')
		return fail(c, SPEC_ERR_BAD_PROBE_TYPE, q);
	have_next = next_tok(&rest, &next);
	if (head_target(c, head, q, &pos, !have_next || !span_chr(next.s, next.e, '/'), &target))
		return -EINVAL;
	p->target_col = (int)(target.s - c->text);
	slash = span_chr(target.s, target.e, '/');
	/* SUBSYS and EVENT may each be a glob ("syscalls/sys_enter_*"): prepare.c
	 * expands it to every tracepoint it matches */
	if (!slash || !good_tp_name(target.s, slash, &p->glob) ||
	    !good_tp_name(slash + 1, target.e, &p->glob) ||
	    slash - target.s >= SPEC_NAME_MAX || target.e - slash - 1 >= SPEC_NAME_MAX)
		return fail(c, SPEC_ERR_BAD_TP_NAME, target.s);
	memcpy(p->tp_system, target.s, slash - target.s);
	memcpy(p->tp_event, slash + 1, target.e - slash - 1);
	if (!p->group[0])
		ident_of(p->group, sizeof(p->group), p->tp_system);
	if (!p->event_given)
		ident_of(p->event, sizeof(p->event), p->tp_event);
	return parse_args(c, pos);
}

/*
 * profile:hz:N [if FILTER]: not ftrace's; bpftrace's spelling of a
 * sampling timer on every CPU. No arguments: what it has is the sample's
 * task, CPU and stacks, the keys of count/hist.
 */
#define PROFILE_HZ_MAX	10000
static int parse_profile(struct ctx *c, struct tok head, const char *pos)
{
	struct spec_probe *p = c->p;
	const char *q = head.s + 8;	/* past "profile:" */
	struct tok t;
	uint64_t hz;

	p->kind = SPEC_PROFILE;
	if (head.e - q < 4 || strncmp(q, "hz:", 3) || !parse_uint(q + 3, head.e, 10, &hz) ||
	    !hz || hz > PROFILE_HZ_MAX)
		return fail(c, SPEC_ERR_BAD_PROFILE, q);
	p->hz = (uint32_t)hz;
	p->target_col = (int)(head.s - c->text);
	snprintf(p->group, sizeof(p->group), "profile");
	snprintf(p->event, sizeof(p->event), "hz_%u", p->hz);
	if (next_tok(&pos, &t))
		return fail(c, SPEC_ERR_PROFILE_ARGS, t.s);
	return 0;
}

/*
 * PROVIDER or NAME of a USDT probe: a C identifier (sys/sdt.h makes them
 * of the macro's words), or a glob of one; not a digit first, as NAME is
 * the event's default name.
 */
static bool good_usdt_name(const char *s, const char *e, bool *glob)
{
	return s < e && e - s < SPEC_NAME_MAX && !is_digit(*s) &&
	       glob_span(s, e, is_name_char, glob) == e;
}

/*
 * u[:[GRP/]EVENT] PATH:PROVIDER:NAME [ARGS] [if FILTER]: not ftrace's; a
 * uprobe at each location of a USDT probe (perf's sdt_PROVIDER:NAME,
 * bpftrace's usdt:PATH:PROVIDER:NAME). Its own letter, so PATH:SYMBOL stays
 * p's: PROVIDER and NAME are the last two ':'-separated words, the path
 * what precedes them; "*" is every object of -p's process. "u:PATH:..." is
 * the shorthand, as "t:SUBSYS/EVENT": the head names the probe point when it
 * holds a ':' (no event name does), or when no word follows it.
 */
static int parse_usdt(struct ctx *c, struct tok head, const char *pos)
{
	struct spec_probe *p = c->p;
	const char *q = head.s + 1, *c2, *c1, *rest;
	struct tok target, next;
	int ret;

	c->user = c->usdt = true;
	p->usdt = true;
	p->kind = SPEC_UPROBE;
	/* "uprobe:", "uretprobe:": no type of ours, as the kernel says of a 'u' */
	if (q < head.e && *q != ':')
		return fail(c, SPEC_ERR_BAD_PROBE_TYPE, head.s);
	rest = pos;
	if (head_target(c, head, q, &pos, !next_tok(&rest, &next) || span_chr(q + 1, head.e, ':'),
			&target))
		return -EINVAL;
	p->target_col = (int)(target.s - c->text);
	ret = split_container(c, &target);
	if (ret)
		return ret;
	c2 = span_rchr(target.s, target.e, ':');
	c1 = c2 ? span_rchr(target.s, c2, ':') : NULL;
	if (!c1 || c1 == target.s)
		return fail(c, c1 ? SPEC_ERR_NO_UPROBE_PATH : SPEC_ERR_BAD_USDT, target.s);
	if (!good_usdt_name(c1 + 1, c2, &p->glob))
		return fail(c, SPEC_ERR_BAD_USDT, c1 + 1);
	if (!good_usdt_name(c2 + 1, target.e, &p->glob))
		return fail(c, SPEC_ERR_BAD_USDT, c2 + 1);
	memcpy(p->usdt_provider, c1 + 1, c2 - c1 - 1);
	memcpy(p->usdt_name, c2 + 1, target.e - c2 - 1);
	p->path = span_dup(target.s, c1);
	if (!p->path)
		return -ENOMEM;
	/* perf's names: group sdt_PROVIDER, event NAME (prepare/usdtdef.c
	 * names each match of a glob) */
	if (!p->group[0]) {
		snprintf(p->group, sizeof(p->group), "sdt_%.*s", SPEC_NAME_MAX - 5,
			 p->usdt_provider);
		sanitize_name(p->group);
	}
	if (!p->event_given) {
		snprintf(p->event, sizeof(p->event), "%s", p->usdt_name);
		sanitize_name(p->event);
	}
	ret = parse_args(c, pos);
	if (!ret && c->late_code)
		return fail(c, c->late_code, c->late_at);
	return ret;
}

static int parse_probe(struct ctx *c)
{
	struct spec_probe *p = c->p;
	const char *pos = c->text, *colon;
	struct tok head, target;
	int ret;

	next_tok(&pos, &head);
	if (*head.s == '-')
		return parse_removal(c, head, pos);
	if (*head.s == 't')
		return parse_tracepoint(c, head, pos);
	if (*head.s == 'u')
		return parse_usdt(c, head, pos);
	if (head.e - head.s > 8 && !strncmp(head.s, "profile:", 8))
		return parse_profile(c, head, pos);
	if (*head.s != 'p' && *head.s != 'r' && *head.s != 'f')
		return fail(c, SPEC_ERR_BAD_PROBE_TYPE, head.s);
	c->ret = *head.s == 'r';
	c->fprobe = *head.s == 'f';
	colon = span_chr(head.s, head.e, ':');
	if (colon && !c->force_shorthand && !name_is_target(colon + 1, head.e, pos) &&
	    name_could_be_target(colon + 1, head.e, pos))
		p->alt_shorthand = c->ambiguous = true;
	if (colon && (c->force_shorthand || name_is_target(colon + 1, head.e, pos))) {
		ret = parse_head(c, head, true);
		if (ret)
			return ret;
		target.s = colon + 1;
		target.e = head.e;
	} else {
		ret = parse_head(c, head, false);
		if (ret)
			return ret;
		/* Like ftrace's "after the last argument" caret: one past a space. */
		if (!next_tok(&pos, &target))
			return fail(c, SPEC_ERR_NO_TARGET, head.e + 1);
	}
	p->target_col = (int)(target.s - c->text);
	ret = split_container(c, &target);
	if (ret)
		return ret;

	/* A '/' before the first ':' is a path: "./bin:f", not "ext4:f". */
	colon = span_chr(target.s, target.e, ':');
	c->user = colon && span_chr(target.s, colon, '/');
	if (c->user && c->fprobe)
		return fail(c, SPEC_ERR_FPROBE_FUNC_ONLY, target.s);
	if (c->user && p->maxactive)
		return fail(c, SPEC_ERR_MAXACT_UPROBE, head.s + 1);
	if (c->fprobe && !c->user && args_read_retval(pos))
		c->ret = true;
	ret = c->user ? parse_utarget(c, target) : parse_ktarget(c, target);
	if (ret)
		return ret;
	/* ftrace's fprobe events: a function's entry, or its exit by %return */
	if (c->fprobe && (!p->symbol || p->offset))
		return fail(c, SPEC_ERR_FPROBE_FUNC_ONLY, target.s);
	if (c->fprobe && p->maxactive && !c->ret)
		return fail(c, SPEC_ERR_BAD_MAXACT_TYPE, head.s + 1);
	p->fprobe = c->fprobe;

	if (c->user)
		p->kind = c->ret ? SPEC_URETPROBE : SPEC_UPROBE;
	else
		p->kind = c->ret ? SPEC_KRETPROBE : SPEC_KPROBE;
	if (!p->group[0])
		strcpy(p->group, c->user ? "uprobes" : c->fprobe ? "fprobes" : "kprobes");
	if (!p->event_given)
		default_event(p, c->ret);
	p->fentry = c->fentry;
	ret = parse_args(c, pos);
	if (!ret && c->late_code)
		return fail(c, c->late_code, c->late_at);
	return ret;
}

/*
 * " if EXPR": the first token "if" standing alone outside double quotes
 * (after something: a definition can't start with it). Returns where it
 * starts, or NULL.
 */
static const char *find_if(const char *text)
{
	bool quoted = false;
	const char *q;

	for (q = text; *q; q++) {
		if (*q == '"')
			quoted = !quoted;
		else if (!quoted && q > text && is_blank(q[-1]) && q[0] == 'i' &&
			 q[1] == 'f' && (!q[2] || is_blank(q[2])))
			return q;
	}
	return NULL;
}

/*
 * The definition up to "if" (parsed as if it were all there is, so its
 * columns stay those of the whole text), then the filter kept as written:
 * filter.c compiles it once the record layout is known.
 */
static int parse_with_filter(struct ctx *c)
{
	const char *at = find_if(c->text), *text = c->text, *expr;
	struct spec_probe *p = c->p;
	char *def;
	int ret;

	if (!at)
		return parse_probe(c);
	def = span_dup(text, at);
	if (!def)
		return -ENOMEM;
	if (strspn(def, " \t") == strlen(def)) {
		free(def);
		return fail(c, SPEC_ERR_EMPTY, text);
	}
	c->text = def;
	ret = parse_probe(c);
	c->text = text;
	free(def);
	if (ret)
		return ret;
	/* "-:EVENT" takes nothing after it, a filter neither. */
	if (p->kind == SPEC_REMOVE)
		return fail(c, SPEC_ERR_TOO_MANY_ARGS, at);
	for (expr = at + 2; is_blank(*expr); expr++)
		;
	if (!*expr)
		return fail(c, SPEC_ERR_NO_FILTER, at + 3);
	p->filter = strdup(expr);
	p->filter_col = (int)(expr - text);
	return p->filter ? 0 : -ENOMEM;
}

int spec_parse(const char *text, struct spec_probe *out, struct spec_error *err)
{
	return spec_parse_ex(text, out, err, 0);
}

static int parse_text(struct ctx *c, const char *text, struct spec_probe *out,
		      struct spec_error *err);

int spec_parse_ex(const char *text, struct spec_probe *out, struct spec_error *err,
		  unsigned int flags)
{
	struct spec_error dummy, err2;
	struct ctx c = { .text = text, .p = out,
			 .force_shorthand = flags & SPEC_PARSE_SHORTHAND };
	int ret;

	if (!err)
		err = &dummy;
	ret = parse_text(&c, text, out, err);
	/* "p:A B ..." that fails as event A on B may be the shorthand */
	if (ret == -EINVAL && c.ambiguous) {
		struct ctx c2 = { .text = text, .p = out, .force_shorthand = true };

		if (!parse_text(&c2, text, out, &err2)) {
			*err = err2;
			return 0;
		}
	}
	return ret;
}

static int parse_text(struct ctx *c_, const char *text, struct spec_probe *out,
		      struct spec_error *err)
{
	struct ctx c = *c_;
	size_t len, i;
	int ret;

	memset(out, 0, sizeof(*out));
	c.err = err;
	err->code = SPEC_ERR_OK;
	err->col = 0;

	if (!text)
		return fail(&c, SPEC_ERR_EMPTY, text);
	/* Bounded: a runaway line shouldn't be scanned to its end. */
	len = strnlen(text, SPEC_TEXT_MAX + 1);
	if (len > SPEC_TEXT_MAX)
		return fail(&c, SPEC_ERR_TOO_LONG, text + SPEC_TEXT_MAX);
	for (i = 0; i < len; i++) {
		unsigned char ch = text[i];

		if ((ch < 0x20 && ch != '\t') || ch == 0x7f)
			return fail(&c, SPEC_ERR_BAD_CHAR, text + i);
	}
	if (strspn(text, " \t") == len)
		return fail(&c, SPEC_ERR_EMPTY, text);

	out->text = strdup(text);
	ret = out->text ? parse_with_filter(&c) : -ENOMEM;
	c_->ambiguous = c.ambiguous;
	if (ret) {
		/* Nothing half-parsed escapes; the error stays in *err. */
		spec_free(out);
		if (ret == -ENOMEM) {
			err->code = SPEC_ERR_OK;
			err->col = 0;
		}
	}
	return ret;
}

static int add_field(struct spec_probe *p, const char *name, int col, bool hidden,
		     struct spec_error *err);

int spec_add_filter_field(struct spec_probe *p, const char *name, int col,
			  struct spec_error *err)
{
	return add_field(p, name, col, true, err);
}

int spec_add_whole_field(struct spec_probe *p, const char *name, struct spec_error *err)
{
	p->whole = true;
	return add_field(p, name, -1, false, err);
}

static int add_field(struct spec_probe *p, const char *name, int col, bool hidden,
		     struct spec_error *err)
{
	struct spec_probe one = { 0 };
	struct spec_arg *args;
	char *text = NULL;
	int ret;

	err->code = SPEC_ERR_TOO_MANY_ARGS;
	err->col = col;
	if (p->kind != SPEC_TRACEPOINT || p->nargs >= MAX_TRACE_ARGS)
		return -EINVAL;
	/* parsed as the one argument of the same tracepoint: its checks, its
	 * name rules */
	if (asprintf(&text, "t:%s/%s %s", p->tp_system, p->tp_event, name) < 0)
		return -ENOMEM;
	ret = spec_parse(text, &one, err);
	free(text);
	if (!ret && one.nargs != 1)
		ret = -EINVAL;
	if (!ret) {
		args = realloc(p->args, (p->nargs + 1) * sizeof(*args));
		if (!args) {
			ret = -ENOMEM;
		} else {
			p->args = args;
			args[p->nargs] = one.args[0];
			memset(&one.args[0], 0, sizeof(one.args[0]));	/* moved */
			args[p->nargs].hidden = hidden;
			args[p->nargs].col = args[p->nargs].body_col = col;
			args[p->nargs].type_col = col;
			p->nargs++;
		}
	}
	err->col = col;
	spec_free(&one);
	return ret;
}

/* Which kernel event type a definition makes: kprobe, fprobe, uprobe, ours. */
static int event_family(const struct spec_probe *p)
{
	switch (p->kind) {
	case SPEC_KPROBE:
	case SPEC_KRETPROBE:
		return p->fprobe ? 2 : 1;
	case SPEC_UPROBE:
	case SPEC_URETPROBE:
		return 3;
	default:
		return 4;	/* a tracepoint: one definition an event */
	}
}

/* The first word of text from col on, and its length. */
static size_t word_at(const char *text, int col, const char **w)
{
	*w = text + col;
	return strcspn(*w, " \t");
}

/* An argument's body as written, its type included (the kernel's parg->comm). */
static const char *arg_body(const struct spec_arg *a)
{
	return a->text + (a->body_col - a->col);
}

static bool same_probe_point(const struct spec_probe *a, const struct spec_probe *b)
{
	if (a->path || b->path)
		return a->path && b->path && !strcmp(a->path, b->path) &&
		       !a->container == !b->container &&
		       (!a->container || !strcmp(a->container, b->container)) &&
		       !a->usym == !b->usym && (!a->usym || !strcmp(a->usym, b->usym)) &&
		       a->uoffset == b->uoffset && a->ref_ctr_offset == b->ref_ctr_offset;
	if (!a->symbol || !b->symbol)
		return !a->symbol && !b->symbol && a->addr == b->addr;
	return !strcmp(a->module, b->module) && !strcmp(a->symbol, b->symbol) &&
	       a->offset == b->offset;
}

int spec_check_append(const struct spec_probe *a, const struct spec_probe *b,
		      struct spec_error *err)
{
	bool ret_a = a->kind == SPEC_KRETPROBE || a->kind == SPEC_URETPROBE;
	bool ret_b = b->kind == SPEC_KRETPROBE || b->kind == SPEC_URETPROBE;
	size_t end;
	int i;

	err->code = SPEC_ERR_OK;
	err->col = 0;
	/* another event type's name: its own event, which exists */
	if (event_family(a) != event_family(b) || event_family(b) == 4)
		err->code = SPEC_ERR_EVENT_EXIST;
	else if (ret_a != ret_b)
		err->code = SPEC_ERR_DIFF_PROBE_TYPE;
	if (err->code)
		return -EINVAL;
	/* trace_probe_compare_arg_type(): an argument missing is one past the end */
	for (i = 0; i < a->nargs || i < b->nargs; i++) {
		if (i >= b->nargs) {
			const char *w;

			/* past the probe point or the last argument, whatever follows */
			end = b->nargs ? (size_t)b->args[b->nargs - 1].col +
						 strlen(b->args[b->nargs - 1].text)
				       : (size_t)b->target_col + word_at(b->text, b->target_col, &w);
			err->code = SPEC_ERR_DIFF_ARG_TYPE;
			err->col = (int)end + 1;
			return -EINVAL;
		}
		if (i >= a->nargs || a->args[i].type != b->args[i].type ||
		    a->args[i].count != b->args[i].count ||
		    strcmp(a->args[i].name, b->args[i].name)) {
			err->code = SPEC_ERR_DIFF_ARG_TYPE;
			err->col = b->args[i].col;
			return -EINVAL;
		}
	}
	if (!same_probe_point(a, b))
		return 0;
	for (i = 0; i < b->nargs; i++)
		if (strcmp(arg_body(&a->args[i]), arg_body(&b->args[i])))
			return 0;
	err->code = SPEC_ERR_SAME_PROBE;
	return -EINVAL;
}

const char *spec_chain_last(const struct spec_arg *a)
{
	const char *last = a->chain ? a->chain + strlen(a->chain) : NULL;

	while (last && last > a->chain && last[-1] != '.' && last[-1] != '>')
		last--;
	return last && *last ? last : NULL;
}

bool spec_arg_named(const struct spec_arg *a)
{
	size_t n = strlen(a->name);

	return a->text && !strncmp(a->text, a->name, n) && a->text[n] == '=';
}

bool spec_same_definition(const struct spec_probe *a, const struct spec_probe *b)
{
	int i;

	if (a->kind != b->kind || a->maxactive != b->maxactive || a->fprobe != b->fprobe ||
	    a->nargs != b->nargs || strcmp(a->group, b->group) || strcmp(a->event, b->event) ||
	    !a->filter != !b->filter || (a->filter && strcmp(a->filter, b->filter)))
		return false;
	if (a->kind == SPEC_TRACEPOINT) {
		if (strcmp(a->tp_system, b->tp_system) || strcmp(a->tp_event, b->tp_event))
			return false;
	} else if (!same_probe_point(a, b)) {
		return false;
	}
	for (i = 0; i < a->nargs; i++)
		if (a->args[i].type != b->args[i].type || a->args[i].count != b->args[i].count ||
		    strcmp(a->args[i].name, b->args[i].name) ||
		    strcmp(arg_body(&a->args[i]), arg_body(&b->args[i])))
			return false;
	return true;
}

bool spec_removal_matches(const struct spec_probe *r, const struct spec_probe *p)
{
	const char *q = r->remove_match, *w;
	size_t n, len;
	int i;

	if (!q)
		return true;
	/* the probe point as written, then each argument as written */
	for (i = -1; *q; i++) {
		n = strcspn(q, " \t");
		if (i < 0)
			len = word_at(p->text, p->target_col, &w);
		else if (i < p->nargs)
			len = strlen(w = p->args[i].text);
		else
			return false;
		if (n != len || memcmp(q, w, n))
			return false;
		q += n;
		q += strspn(q, " \t");
	}
	return true;
}

void spec_free(struct spec_probe *p)
{
	int i, j;

	if (!p)
		return;
	for (i = 0; p->args && i < p->nargs; i++) {
		struct spec_arg *a = &p->args[i];

		for (j = 0; j < a->nops; j++) {
			free(a->ops[j].sym);
			free(a->ops[j].data);
		}
		free(a->text);
		free(a->cast);
		free(a->chain);
		for (j = 0; j < a->nenums; j++)
			free(a->enums[j].name);
		free(a->enums);
	}
	free(p->args);
	free(p->text);
	free(p->symbol);
	free(p->container);
	free(p->path);
	free(p->usym);
	free(p->filter);
	free(p->remove_match);
	memset(p, 0, sizeof(*p));
}

void spec_print_error(FILE *f, const char *text, const char *msg, int col)
{
	spec_print_diag(f, "error", text, msg, col);
}

void spec_print_diag(FILE *f, const char *level, const char *text, const char *msg, int col)
{
	size_t len = text ? strlen(text) : 0;
	size_t i;

	fprintf(f, "kptrace: %s: %s\n  ", level, msg ? msg : "");
	/*
	 * Control bytes (the BAD_CHAR case) would move the cursor; print one
	 * visible column for each so the caret still lines up.
	 */
	for (i = 0; i < len; i++) {
		unsigned char ch = text[i];

		fputc((ch < 0x20 && ch != '\t') || ch == 0x7f ? '?' : ch, f);
	}
	fputs("\n  ", f);
	/* Echo tabs so the caret lands under the same tab stop. */
	for (i = 0; col > 0 && i < (size_t)col; i++)
		fputc(i < len && text[i] == '\t' ? '\t' : ' ', f);
	fputs("^\n", f);
}
