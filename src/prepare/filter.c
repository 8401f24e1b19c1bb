// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Event filters: text -> two struct kpt_pred_prog (see filter.h for the
 * language).
 *
 * The kernel's kernel/trace/trace_events_filter.c is the reference for what
 * is accepted and what it means: the operators and their precedence, which
 * operator goes with which field type, numbers read by kstrtoll() for signed
 * fields and kstrtoull() for the others (so no negative constant for an
 * unsigned field), strings in single or double quotes without escapes, a
 * leading '!' in a ~ pattern negating it, and an argument hiding a builtin
 * field of the same name. Where the kernel silently truncates a constant to
 * the field's width we refuse it instead, and our error columns point at the
 * start of the offending token, for the caret.
 *
 * The expression is parsed into a small tree (recursive descent; nesting is
 * bounded), then its top-level conjuncts are sorted into "pre" (no argument)
 * and "post" and each is emitted in postfix, the form the BPF evaluator runs
 * without recursion. No allocation: the tree lives in fixed arrays sized by
 * the programs' limits.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "lang/lex.h"
#include "lang/valfmt.h"
#include "prepare/filter.h"

/* '(' and '!' nesting: the parser recurses on them. */
#define MAX_DEPTH	32
/*
 * Every node is one op in pre or post, bar the top-level &&s that join
 * them: more nodes than both programs can hold is an error already.
 */
#define MAX_NODES	(2 * KPT_MAX_PRED + 1)

enum node_kind { N_TERM = 1, N_AND, N_OR, N_NOT };

struct node {
	enum node_kind kind;
	int l, r;		/* children: AND/OR both, NOT l */
	int col;		/* term: its field; '!', '&&', '||': the operator */
	int scol;		/* term: its string constant, for the limit's caret */
	bool uses_arg;		/* an argument's value is needed: post only */
	struct kpt_pred_op op;	/* N_TERM, str not yet assigned */
	char str[KPT_PRED_STR];	/* N_TERM on a string */
};

/* A field a predicate names, resolved. */
struct field {
	char name[SPEC_NAME_MAX];
	enum kpt_pred_field fld;
	int argi;
	bool is_string;
	bool is_signed;
	bool is_hex;		/* an x-type: explain prints its constants in hex */
	int size;		/* scalar bytes */
	int slot;
	const char *type;	/* for messages */
	enum spec_type vtype;	/* an argument's type: extensions read their own constants */
};

struct parser {
	const char *s;		/* the expression */
	const char *p;		/* the cursor */
	const struct ev_desc *ev;
	struct node nodes[MAX_NODES];
	int nnodes;
	int depth;
	char *msg;
	size_t msglen;
	int col;
	/* filter_fields(): told of every field name, as it is met */
	filter_field_fn on_field;
	void *on_arg;
};

static int perr(struct parser *ps, const char *at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int perr(struct parser *ps, const char *at, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ps->msg, ps->msglen, fmt, ap);
	va_end(ap);
	ps->col = (int)(at - ps->s);
	return -EINVAL;
}

static bool is_ident(char c)
{
	return is_alnum(c) || c == '_';
}

static void skip_ws(struct parser *ps)
{
	while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r')
		ps->p++;
}

static int new_node(struct parser *ps, enum node_kind kind, int l, int r, const char *at)
{
	struct node *n;

	if (ps->nnodes >= MAX_NODES)
		return perr(ps, at, "Too many terms in predicate expression: at most %d "
			    "operations (comparisons, &&, ||, !) per program; simplify the filter",
			    KPT_MAX_PRED);
	n = &ps->nodes[ps->nnodes];
	memset(n, 0, sizeof(*n));
	n->kind = kind;
	n->l = l;
	n->r = r;
	n->col = (int)(at - ps->s);
	if (l >= 0)
		n->uses_arg = ps->nodes[l].uses_arg;
	if (r >= 0)
		n->uses_arg |= ps->nodes[r].uses_arg;
	return ps->nnodes++;
}

/* The builtin fields: ftrace's common_pid, CPU and comm, and our pid and tid. */
static const struct {
	const char *name;
	enum kpt_pred_field fld;
} builtins[] = {
	{ "common_pid", KPT_FLD_TID },
	{ "pid", KPT_FLD_TGID },
	{ "tid", KPT_FLD_TID },
	{ "comm", KPT_FLD_COMM },
	{ "COMM", KPT_FLD_COMM },
	{ "CPU", KPT_FLD_CPU },
	{ "cpu", KPT_FLD_CPU },
};

/* builtins' entry called name, or -1. */
static int builtin_index(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++)
		if (!strcmp(builtins[i].name, name))
			return (int)i;
	return -1;
}

static enum filter_field_kind field_kind(const struct ev_desc *ev, const char *name)
{
	if (ev && ev_arg_index(ev, name) >= 0)
		return FILTER_FIELD_ARG;
	return builtin_index(name) >= 0 ? FILTER_FIELD_BUILTIN : FILTER_FIELD_UNKNOWN;
}

static int find_field(struct parser *ps, const char *s, const char *e, struct field *f)
{
	const struct ev_desc *ev = ps->ev;
	size_t n = e - s;
	int a, b;

	memset(f, 0, sizeof(*f));
	if (n >= sizeof(f->name))
		return perr(ps, s, "Field not found: %.*s", (int)n, s);
	memcpy(f->name, s, n);
	if (ps->on_field)
		ps->on_field(f->name, (int)(s - ps->s), field_kind(ev, f->name), ps->on_arg);

	/* The event's own fields first, as trace_find_event_field() looks. */
	a = ev ? ev_arg_index(ev, f->name) : -1;
	if (a >= 0) {
		const struct ev_arg *ea = &ev->args[a];

		f->argi = a;
		f->slot = ea->slot;
		f->type = spec_type_name(ea->type);
		f->vtype = ea->type;
		if (ea->data)
			return perr(ps, s, "Field '%s' is an immediate string, a constant "
				    "that is not recorded: it can't be filtered on", f->name);
		if (ea->count)
			return perr(ps, s, "Field '%s' is an array (%s[%u]): arrays can't be "
				    "filtered on", f->name, f->type, ea->count);
		if (ea->type == SPEC_T_SYMSTR)
			return perr(ps, s, "Field '%s' is a symstr, recorded as an address and "
				    "named in userspace: it can't be filtered on (fetch it as "
				    ":symbol to compare the address)", f->name);
		if (spec_type_is_string(ea->type)) {
			f->fld = KPT_FLD_ARGSTR;
			f->is_string = true;
			return 0;
		}
		if (ea->size != 1 && ea->size != 2 && ea->size != 4 && ea->size != 8)
			return perr(ps, s, "Field '%s' has a %u-byte slot: only 1, 2, 4 and 8 "
				    "can be compared", f->name, ea->size);
		f->fld = KPT_FLD_ARG;
		f->size = ea->size;
		f->is_signed = spec_type_signed(ea->type);
		f->is_hex = spec_type_hex(ea->type);
		return 0;
	}

	b = builtin_index(f->name);
	if (b >= 0) {
		f->fld = builtins[b].fld;
		f->argi = 0;
		switch (f->fld) {
		case KPT_FLD_COMM:
			f->is_string = true;
			f->type = "comm";
			f->slot = offsetof(struct kpt_rec_hdr, comm);
			f->size = KPT_COMM_LEN;
			break;
		default:
			/* "int" in ftrace's common fields: signed, 4 bytes */
			f->is_signed = true;
			f->size = 4;
			f->type = "s32";
			f->slot = f->fld == KPT_FLD_TID ? offsetof(struct kpt_rec_hdr, tid) :
				  f->fld == KPT_FLD_TGID ? offsetof(struct kpt_rec_hdr, tgid) :
				  offsetof(struct kpt_rec_hdr, cpu);
			break;
		}
		return 0;
	}
	return perr(ps, s, "Field not found: %s", f->name);
}

/*
 * The constant at [s, e) for field f, as the s64 the evaluator compares
 * with the field's value once sign- or zero-extended. A signed field takes
 * what fits its width as a signed number or as a bit pattern (0xff for an
 * s8 is -1, as the kernel's cast makes it); an unsigned one no sign.
 */
static int number_value(struct parser *ps, const struct field *f, const char *s, const char *e,
			int64_t *out)
{
	bool neg = *s == '-';
	unsigned int bits = f->size * 8;
	uint64_t mag, umax = bits == 64 ? UINT64_MAX : (1ULL << bits) - 1;

	if (!parse_uint(s + neg, e, 0, &mag))
		return perr(ps, s, "Illegal integer value: %.*s", (int)(e - s), s);
	if (neg && !f->is_signed)
		return perr(ps, s, "Illegal integer value: '%s' is unsigned (%s); give the "
			    "argument a signed type (s8..s64) to compare it with a negative "
			    "number", f->name, f->type);
	if (!neg && f->is_signed && bits == 64 && mag > INT64_MAX)
		return perr(ps, s, "Illegal integer value: %.*s does not fit %s field '%s'",
			    (int)(e - s), s, f->type, f->name);
	if ((neg && mag > (1ULL << (bits - 1))) || (!neg && mag > umax))
		return perr(ps, s, "Illegal integer value: %.*s does not fit %s field '%s'",
			    (int)(e - s), s, f->type, f->name);
	if (neg) {
		*out = (int64_t)(0 - mag);
	} else if (f->is_signed && bits < 64 && mag >> (bits - 1)) {
		/* the high bit set in the field's width: a negative number */
		*out = (int64_t)(mag | ~umax);
	} else {
		*out = (int64_t)mag;
	}
	return 0;
}

/*
 * The character at i of [s, e), 0 past the end: lib/glob.c's view of a
 * NUL-terminated pattern.
 */
static char at_or_nul(const char *s, const char *e, long i)
{
	return s + i < e ? s[i] : '\0';
}

/*
 * A ~ pattern as the evaluator wants it. lib/glob.c matches a '[' that has
 * no closing ']' as a literal; whether it has one depends on the pattern
 * only, so it is decided here and such a '[' is written "\[". The BPF
 * matcher then never meets an unclosed class. Returns the length, or -1 if
 * the result does not fit KPT_PRED_STR.
 */
static int glob_normalize(const char *s, const char *e, char *out)
{
	int n = 0;
	long i = 0, j;
	char a;

#define PUT(ch)								\
	do {								\
		if (n >= KPT_PRED_STR - 1)				\
			return -1;					\
		out[n++] = (ch);					\
	} while (0)

	while (s + i < e) {
		if (s[i] == '\\') {
			PUT('\\');
			if (s + i + 1 < e)
				PUT(s[i + 1]);
			i += 2;
			continue;
		}
		if (s[i] != '[') {
			PUT(s[i]);
			i++;
			continue;
		}
		/* glob_match()'s class scan: the first span may be ']' */
		j = i + 1 + (at_or_nul(s, e, i + 1) == '!');
		a = at_or_nul(s, e, j++);
		for (;;) {
			if (!a)
				break;
			if (at_or_nul(s, e, j) == '-' && at_or_nul(s, e, j + 1) != ']') {
				if (!at_or_nul(s, e, j + 1)) {
					a = '\0';
					break;
				}
				j += 2;
			}
			a = at_or_nul(s, e, j++);
			if (a == ']')
				break;
		}
		if (!a) {
			PUT('\\');
			PUT('[');
			i++;
			continue;
		}
		for (; i < j; i++)
			PUT(s[i]);
	}
#undef PUT
	out[n] = '\0';
	return n;
}

static bool has_glob_meta(const char *s)
{
	return strpbrk(s, "*?[\\") != NULL;
}

/* FIELD OP VALUE */
/* The comparison at ps->p, after field f: *cmp and its text's length. */
static int parse_cmp(struct parser *ps, const struct field *f, enum kpt_pred_cmp *cmp,
		     size_t *oplen)
{
	static const struct {
		const char *text;
		enum kpt_pred_cmp cmp;
	} ops[] = {
		/* longest first: "<=" before "<" */
		{ "==", KPT_CMP_EQ }, { "!=", KPT_CMP_NE }, { "<=", KPT_CMP_LE },
		{ "<", KPT_CMP_LT }, { ">=", KPT_CMP_GE }, { ">", KPT_CMP_GT },
		{ "~", KPT_CMP_GLOB }, { "&", KPT_CMP_BAND },
	};
	const char *opat = ps->p;
	size_t i;

	*cmp = 0;
	/* "x && ..." is a missing operator, not x & "& ..." */
	if (!(opat[0] == '&' && opat[1] == '&')) {
		for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
			*oplen = strlen(ops[i].text);
			if (!strncmp(opat, ops[i].text, *oplen)) {
				*cmp = ops[i].cmp;
				break;
			}
		}
	}
	if (!*cmp) {
		if (!*opat || *opat == ')' || *opat == '&' || *opat == '|')
			return perr(ps, opat, "Missing operator after '%s'", f->name);
		return perr(ps, opat, "Invalid operator");
	}
	return 0;
}

/*
 * The quoted constant at vat for string field f, into term n: *cmp becomes
 * the string comparison, *negate a glob's leading '!'. opat, oplen: the
 * operator, for the caret.
 */
static int string_value(struct parser *ps, const struct field *f, struct node *n,
			const char *opat, size_t oplen, const char *vat,
			enum kpt_pred_cmp *cmp, bool *negate)
{
	char quote = *vat;
	const char *q = strchr(vat + 1, quote);
	int len;

	if (!q)
		return perr(ps, vat, "Missing matching quote");
	if (!f->is_string)
		return perr(ps, vat, "Field '%s' is a number (%s): compare it with a "
			    "number, not a string", f->name, f->type);
	if (*cmp != KPT_CMP_EQ && *cmp != KPT_CMP_NE && *cmp != KPT_CMP_GLOB)
		return perr(ps, opat, "Illegal operation for field type: '%.*s' on "
			    "string field '%s' (use ==, != or ~)", (int)oplen, opat,
			    f->name);
	len = (int)(q - vat - 1);
	if (*cmp == KPT_CMP_GLOB) {
		/* filter_parse_regex(): a leading '!' negates the match */
		const char *gs;

		*negate = vat[1] == '!';
		/* "\!..." is how a pattern starting with a literal '!' is
		 * written (explain writes it so); stored, a leading '!' is
		 * literal already: one program for both spellings, and the
		 * backslash does not count against the length */
		gs = vat + 1 + *negate;
		if (q - gs >= 2 && gs[0] == '\\' && gs[1] == '!')
			gs++;
		len = glob_normalize(gs, q, n->str);
		/* No wildcard: a plain comparison, cheaper in the kernel */
		*cmp = len >= 0 && !has_glob_meta(n->str) ? KPT_CMP_STREQ : KPT_CMP_GLOB;
	} else if (len < KPT_PRED_STR) {
		memcpy(n->str, vat + 1, len);
		n->str[len] = '\0';
		*cmp = *cmp == KPT_CMP_EQ ? KPT_CMP_STREQ : KPT_CMP_STRNE;
	}
	if (len < 0 || len > KPT_PRED_STR - 1)
		return perr(ps, vat, "String constant too long: at most %d bytes",
			    KPT_PRED_STR - 1);
	n->op.size = f->fld == KPT_FLD_COMM ? KPT_COMM_LEN : 4;
	ps->p = q + 1;
	return 0;
}

/*
 * The constant at vat for an extension type's field (valfmt.h): an
 * address, a network-order number, an errno name. 1 if it is read as any
 * number is, else 0 (n's imm set, ps->p past it) or an error.
 */
static int ext_value(struct parser *ps, const struct field *f, struct node *n,
		     enum kpt_pred_cmp cmp, const char *opat, const char *vat)
{
	const char *q = vat + 1, *why = "";
	int64_t imm;
	int ret;

	while (is_ident(*q) || *q == '.')
		q++;
	ret = valfmt_parse(f->vtype, vat, q, &imm, &why);
	if (ret > 0)
		return 1;
	if (ret < 0)
		return perr(ps, vat, "Invalid value: %.*s: %s", (int)(q - vat), vat, why);
	/* network order: only equality means the same thing swapped */
	if (f->vtype != SPEC_T_ERRNO && cmp != KPT_CMP_EQ && cmp != KPT_CMP_NE)
		return perr(ps, opat, "Illegal operation for field type: '%s' is %s, in network "
			    "order: compare it with == or !=", f->name, f->type);
	n->op.imm = imm;
	n->op.size = f->size;
	n->op.is_signed = f->is_signed;
	ps->p = q;
	return 0;
}

static int parse_pred(struct parser *ps)
{
	const char *at = ps->p, *opat, *vat, *q;
	enum kpt_pred_cmp cmp;
	bool negate = false;
	struct field f;
	struct node *n;
	size_t oplen = 0;
	int ret, idx;
	int64_t imm = 0;

	if (!*at)
		return perr(ps, at, "Missing predicate at the end of the filter");
	if (!is_ident(*at) || is_digit(*at))
		return perr(ps, at, "Expected a field name");
	for (q = at; is_ident(*q); q++)
		;
	ret = find_field(ps, at, q, &f);
	if (ret)
		return ret;
	ps->p = q;
	skip_ws(ps);

	opat = ps->p;
	ret = parse_cmp(ps, &f, &cmp, &oplen);
	if (ret)
		return ret;
	ps->p += oplen;
	skip_ws(ps);
	vat = ps->p;

	idx = new_node(ps, N_TERM, -1, -1, at);
	if (idx < 0)
		return idx;
	n = &ps->nodes[idx];
	n->scol = (int)(vat - ps->s);
	n->uses_arg = f.fld == KPT_FLD_ARG || f.fld == KPT_FLD_ARGSTR;
	n->op.op = KPT_PO_TERM;
	n->op.field = f.fld;
	n->op.argi = f.argi;
	n->op.slot = f.slot;

	if (*vat == '"' || *vat == '\'') {
		ret = string_value(ps, &f, n, opat, oplen, vat, &cmp, &negate);
		if (ret)
			return ret;
	} else if (valfmt_is_ext(f.vtype) && (is_alnum(*vat) || *vat == '-') &&
		   (ret = ext_value(ps, &f, n, cmp, opat, vat)) <= 0) {
		if (ret)
			return ret;
	} else if (is_digit(*vat) || *vat == '-') {
		if (f.is_string)
			return perr(ps, vat, "Field '%s' is a string: compare it with a quoted "
				    "string", f.name);
		if (cmp == KPT_CMP_GLOB)
			return perr(ps, opat, "Illegal operation for field type: '~' needs a "
				    "string field, '%s' is %s", f.name, f.type);
		/* as the kernel: an optional '-', then letters and digits */
		for (q = vat + 1; is_alnum(*q); q++)
			;
		ret = number_value(ps, &f, vat, q, &imm);
		if (ret)
			return ret;
		n->op.imm = imm;
		n->op.size = f.size;
		n->op.is_signed = f.is_signed;
		ps->p = q;
	} else if (!*vat) {
		return perr(ps, vat, "Missing value after '%.*s'", (int)oplen, opat);
	} else if (f.is_string) {
		return perr(ps, vat, "Invalid value (did you forget quotes?)");
	} else {
		return perr(ps, vat, "Invalid value: '%s' is a number field, expected a number",
			    f.name);
	}
	n->op.cmp = cmp;
	if (!negate)
		return idx;
	/* the '!' of the pattern, where the caret for a limit should go */
	return new_node(ps, N_NOT, idx, -1, vat + 1);
}

static int parse_or(struct parser *ps);

/* '!' UNARY | '(' EXPR ')' | PRED */
static int parse_unary(struct parser *ps)
{
	const char *at;
	int n;

	skip_ws(ps);
	at = ps->p;
	if (*at != '!' && *at != '(')
		return parse_pred(ps);
	if (++ps->depth > MAX_DEPTH)
		return perr(ps, at, "Filter nested too deeply: at most %d levels of '(' "
			    "and '!'", MAX_DEPTH);
	ps->p++;
	if (*at == '!') {
		n = parse_unary(ps);
		if (n < 0)
			return n;
		ps->depth--;
		/* "!!x" is x: drop the inner NOT, the node allocated last */
		if (ps->nodes[n].kind == N_NOT && n == ps->nnodes - 1) {
			ps->nnodes--;
			return ps->nodes[n].l;
		}
		return new_node(ps, N_NOT, n, -1, at);
	}
	n = parse_or(ps);
	if (n < 0)
		return n;
	skip_ws(ps);
	if (!*ps->p)
		return perr(ps, at, "Too many '(': this one is not closed");
	if (*ps->p != ')')
		return perr(ps, ps->p, "Expected '&&', '||' or ')'");
	ps->p++;
	ps->depth--;
	return n;
}

static int parse_and(struct parser *ps)
{
	const char *at;
	int l, r;

	l = parse_unary(ps);
	while (l >= 0) {
		skip_ws(ps);
		at = ps->p;
		if (at[0] != '&' || at[1] != '&')
			break;
		ps->p += 2;
		r = parse_unary(ps);
		if (r < 0)
			return r;
		l = new_node(ps, N_AND, l, r, at);
	}
	return l;
}

/* && binds tighter than || */
static int parse_or(struct parser *ps)
{
	const char *at;
	int l, r;

	l = parse_and(ps);
	while (l >= 0) {
		skip_ws(ps);
		at = ps->p;
		if (at[0] != '|' || at[1] != '|')
			break;
		ps->p += 2;
		r = parse_and(ps);
		if (r < 0)
			return r;
		l = new_node(ps, N_OR, l, r, at);
	}
	return l;
}

/* One program being emitted. */
struct emit {
	struct parser *ps;
	struct kpt_pred_prog *prog;
	const char *which;	/* for messages */
	int depth;		/* evaluator stack depth after the ops so far */
	int nstr;		/* string constants used */
};

static int emit_op(struct emit *em, const struct kpt_pred_op *op, int col, int push)
{
	struct parser *ps = em->ps;

	if (em->prog->nops >= KPT_MAX_PRED)
		return perr(ps, ps->s + col, "Too many terms in predicate expression: the %s "
			    "program holds at most %d operations (comparisons, &&, ||, !); "
			    "simplify the filter", em->which, KPT_MAX_PRED);
	em->depth += push;
	if (em->depth > KPT_PRED_STACK)
		return perr(ps, ps->s + col, "Filter nested too deeply for the evaluator's "
			    "stack of %d values", KPT_PRED_STACK);
	em->prog->ops[em->prog->nops++] = *op;
	return 0;
}

/* A string constant's index in prog, shared by equal constants. */
static int intern(struct emit *em, const struct node *n)
{
	int i;

	for (i = 0; i < em->nstr; i++)
		if (!strcmp(em->prog->strs[i], n->str))
			return i;
	if (em->nstr >= KPT_MAX_PRED_STR)
		return perr(em->ps, em->ps->s + n->scol, "Too many string constants: the %s "
			    "program holds at most %d different ones", em->which,
			    KPT_MAX_PRED_STR);
	strcpy(em->prog->strs[em->nstr], n->str);
	return em->nstr++;
}

static int emit_node(struct emit *em, int idx)
{
	const struct node *n = &em->ps->nodes[idx];
	struct kpt_pred_op op;
	int ret;

	memset(&op, 0, sizeof(op));
	switch (n->kind) {
	case N_TERM:
		op = n->op;
		if (op.cmp >= KPT_CMP_STREQ) {
			ret = intern(em, n);
			if (ret < 0)
				return ret;
			op.str = ret;
		}
		return emit_op(em, &op, n->col, 1);
	case N_NOT:
		ret = emit_node(em, n->l);
		if (ret)
			return ret;
		op.op = KPT_PO_NOT;
		return emit_op(em, &op, n->col, 0);
	default:
		ret = emit_node(em, n->l);
		if (!ret)
			ret = emit_node(em, n->r);
		if (ret)
			return ret;
		op.op = n->kind == N_AND ? KPT_PO_AND : KPT_PO_OR;
		return emit_op(em, &op, n->col, -1);
	}
}

/* The top-level conjuncts: the root split at its &&s, in order. */
static void conjuncts(const struct parser *ps, int idx, int *out, int *n)
{
	if (ps->nodes[idx].kind == N_AND) {
		conjuncts(ps, ps->nodes[idx].l, out, n);
		conjuncts(ps, ps->nodes[idx].r, out, n);
	} else {
		out[(*n)++] = idx;
	}
}

/* The conjuncts that use arguments (or not), joined by &&, into prog. */
static int emit_part(struct parser *ps, const int *conj, int nconj, bool args,
		     struct kpt_pred_prog *prog, const char *which)
{
	struct emit em = { .ps = ps, .prog = prog, .which = which };
	struct kpt_pred_op and = { .op = KPT_PO_AND };
	int i, k = 0, ret;

	for (i = 0; i < nconj; i++) {
		if (ps->nodes[conj[i]].uses_arg != args)
			continue;
		ret = emit_node(&em, conj[i]);
		if (!ret && k++)
			ret = emit_op(&em, &and, ps->nodes[conj[i]].col, -1);
		if (ret)
			return ret;
	}
	return 0;
}

static int compile(const char *expr, const struct ev_desc *ev, struct kpt_pred_prog *pre,
		   struct kpt_pred_prog *post, char *msg, size_t msglen, int *col,
		   filter_field_fn on_field, void *on_arg)
{
	int conj[MAX_NODES], nconj = 0, root, ret, dcol;
	struct parser *ps, pstate;
	char dummy[1];

	memset(pre, 0, sizeof(*pre));
	memset(post, 0, sizeof(*post));
	if (!msg || !msglen) {
		msg = dummy;
		msglen = sizeof(dummy);
	}
	msg[0] = '\0';
	if (!col)
		col = &dcol;
	*col = 0;
	if (!expr)
		return 0;

	ps = &pstate;
	memset(ps, 0, sizeof(*ps));
	ps->s = expr;
	ps->p = expr;
	ps->ev = ev;
	ps->msg = msg;
	ps->msglen = msglen;
	ps->on_field = on_field;
	ps->on_arg = on_arg;

	/* as spec_parse() does for a definition: a control byte would be
	 * invisible in the message (whitespace is fine: --filter may wrap) */
	for (const char *q = expr; *q; q++) {
		if (((unsigned char)*q < 0x20 && !strchr("\t\n\r", *q)) || *q == 0x7f) {
			ret = perr(ps, q, "Control character in filter expression");
			goto fail;
		}
	}
	skip_ws(ps);
	if (!*ps->p) {
		ret = perr(ps, ps->p, "Empty filter expression");
		goto fail;
	}
	root = parse_or(ps);
	if (root < 0) {
		ret = root;
		goto fail;
	}
	skip_ws(ps);
	if (*ps->p == ')') {
		ret = perr(ps, ps->p, "Too few '(': this ')' closes nothing");
		goto fail;
	}
	if (*ps->p) {
		ret = perr(ps, ps->p, "Expected '&&' or '||'");
		goto fail;
	}

	conjuncts(ps, root, conj, &nconj);
	ret = emit_part(ps, conj, nconj, false, pre, "pre-fetch (pid, tid, CPU, comm)");
	if (!ret)
		ret = emit_part(ps, conj, nconj, true, post, "post-fetch (arguments)");
	if (!ret)
		return 0;
fail:
	*col = ps->col;
	memset(pre, 0, sizeof(*pre));
	memset(post, 0, sizeof(*post));
	return ret;
}

int filter_compile(const char *expr, const struct ev_desc *ev, struct kpt_pred_prog *pre,
		   struct kpt_pred_prog *post, char *msg, size_t msglen, int *col)
{
	return compile(expr, ev, pre, post, msg, msglen, col, NULL, NULL);
}

void filter_fields(const char *expr, const struct ev_desc *ev, filter_field_fn fn, void *arg)
{
	struct kpt_pred_prog pre, post;

	compile(expr, ev, &pre, &post, NULL, 0, NULL, fn, arg);
}

/* filter_explain(): postfix back to infix, on a stack of strings. */
#define EXPLAIN_LEN	1024

struct xentry {
	char s[EXPLAIN_LEN];
	int prec;		/* 1 ||, 2 &&, 3 a term or !term */
};

static const char *cmp_text(unsigned int cmp)
{
	static const char *const t[] = {
		[KPT_CMP_EQ] = "==", [KPT_CMP_NE] = "!=", [KPT_CMP_LT] = "<",
		[KPT_CMP_LE] = "<=", [KPT_CMP_GT] = ">", [KPT_CMP_GE] = ">=",
		[KPT_CMP_BAND] = "&", [KPT_CMP_STREQ] = "==", [KPT_CMP_STRNE] = "!=",
		[KPT_CMP_GLOB] = "~",
	};

	return cmp < sizeof(t) / sizeof(t[0]) && t[cmp] ? t[cmp] : "?";
}

/*
 * A builtin field's name as the filter reads it back: the first of its
 * names (common_pid, pid, comm, CPU first) that no argument of ev hides.
 */
static const char *builtin_name(enum kpt_pred_field fld, const struct ev_desc *ev)
{
	const char *first = NULL;
	size_t i;
	int a;

	for (i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++) {
		if (builtins[i].fld != fld)
			continue;
		if (!first)
			first = builtins[i].name;
		for (a = 0; ev && a < ev->nargs; a++)
			if (!strcmp(ev->args[a].name, builtins[i].name))
				break;
		if (!ev || a == ev->nargs)
			return builtins[i].name;
	}
	/* every name hidden: no text compiles to this term; say which it is */
	return first ? first : "?";
}

static void term_text(char *buf, size_t n, const struct kpt_pred_prog *p,
		      const struct kpt_pred_op *op, const struct ev_desc *ev)
{
	const char *name = NULL, *str;
	char argname[32], val[VALFMT_MAX];
	bool hex = op->cmp == KPT_CMP_BAND;
	uint64_t imm = (uint64_t)op->imm;
	enum spec_type t = SPEC_T_NONE;
	unsigned int vfmt = 0;

	switch (op->field) {
	case KPT_FLD_TID:
	case KPT_FLD_TGID:
	case KPT_FLD_CPU:
	case KPT_FLD_COMM:
		name = builtin_name(op->field, ev);
		break;
	case KPT_FLD_ARG:
	case KPT_FLD_ARGSTR:
		if (ev && op->argi < ev->nargs) {
			name = ev->args[op->argi].name;
			t = ev->args[op->argi].type;
			vfmt = ev->args[op->argi].vfmt;
			hex |= spec_type_hex(t);
		} else {
			snprintf(argname, sizeof(argname), "arg#%u", op->argi);
			name = argname;
		}
		break;
	default:
		name = "?";
	}
	if (op->cmp >= KPT_CMP_STREQ) {
		str = op->str < KPT_MAX_PRED_STR ? p->strs[op->str] : "?";
		/* the quote the constant can be written in; a pattern's leading
		 * '!' escaped, or it would read as "not" */
		snprintf(buf, n, strchr(str, '"') ? "%s %s '%s%.*s'" : "%s %s \"%s%.*s\"", name,
			 cmp_text(op->cmp), op->cmp == KPT_CMP_GLOB && str[0] == '!' ? "\\" : "",
			 KPT_PRED_STR, str);
	} else if (!hex && valfmt_scalar(t, imm, vfmt, val, sizeof(val))) {
		/* as the value prints: an address, a port, -ENOENT */
		snprintf(buf, n, "%s %s %s", name, cmp_text(op->cmp), val);
	} else if (hex && !(op->is_signed && op->size == 8 && op->imm < 0)) {
		/* the field's width: a signed field's constant is stored
		 * sign-extended (s8 & 0x80 holds -128), but reads back as bits
		 * (an s64's negative one only as a negative number: below) */
		if (op->size && op->size < 8)
			imm &= (UINT64_C(1) << (op->size * 8)) - 1;
		snprintf(buf, n, "%s %s 0x%" PRIx64, name, cmp_text(op->cmp), imm);
	} else if (op->is_signed) {
		snprintf(buf, n, "%s %s %" PRId64, name, cmp_text(op->cmp), (int64_t)op->imm);
	} else {
		snprintf(buf, n, "%s %s %" PRIu64, name, cmp_text(op->cmp), (uint64_t)op->imm);
	}
}

/* Cut to EXPLAIN_LEN: an explanation that long is unreadable anyway. */
static void set_text(char *dst, const char *src)
{
	size_t n = strnlen(src, EXPLAIN_LEN - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

void filter_explain(FILE *f, const struct kpt_pred_prog *p, const struct ev_desc *ev)
{
	struct xentry st[KPT_PRED_STACK + 1];
	char tmp[2 * EXPLAIN_LEN + 16];
	int sp = 0, i, prec;

	if (!p->nops) {
		fputs("true\n", f);
		return;
	}
	for (i = 0; i < p->nops && i < KPT_MAX_PRED; i++) {
		const struct kpt_pred_op *op = &p->ops[i];
		struct xentry *a, *b;

		switch (op->op) {
		case KPT_PO_TERM:
			if (sp > KPT_PRED_STACK)
				goto bad;
			term_text(st[sp].s, sizeof(st[sp].s), p, op, ev);
			st[sp++].prec = 3;
			break;
		case KPT_PO_NOT:
			if (sp < 1)
				goto bad;
			a = &st[sp - 1];
			snprintf(tmp, sizeof(tmp), "!(%s)", a->s);
			set_text(a->s, tmp);
			a->prec = 3;
			break;
		case KPT_PO_AND:
		case KPT_PO_OR:
			if (sp < 2)
				goto bad;
			a = &st[sp - 2];
			b = &st[sp - 1];
			prec = op->op == KPT_PO_AND ? 2 : 1;
			snprintf(tmp, sizeof(tmp), "%s%s%s %s %s%s%s",
				 a->prec < prec ? "(" : "", a->s, a->prec < prec ? ")" : "",
				 prec == 2 ? "&&" : "||",
				 b->prec <= prec ? "(" : "", b->s, b->prec <= prec ? ")" : "");
			set_text(a->s, tmp);
			a->prec = prec;
			sp--;
			break;
		default:
			goto bad;
		}
	}
	if (sp != 1)
		goto bad;
	fprintf(f, "%s\n", st[0].s);
	return;
bad:
	fputs("(invalid filter program)\n", f);
}
