// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * BTF arguments -> plain fetch ops. The rules are the kernel's
 * (trace_probe.c, CONFIG_PROBE_EVENTS_BTF_ARGS), so the same definition
 * prints the same line as 6.5+'s kprobe_events:
 *   - a bare name is a parameter, named after itself; "a->b.c" reads
 *     member c of the struct member b of *a (one dereference per "->");
 *   - with no :TYPE, the last type decides: sN/uN for integers, s32 for an
 *     enum, x64 for a pointer, b<w>@<o>/<c> for a bitfield member;
 *   - :string on a char pointer reads the string it points to, on a char
 *     array the array itself, and is refused on anything else;
 *   - a bare $argN is renamed after the parameter and typed; $arg* is every
 *     parameter; a kretprobe's $retval gets the function's return type;
 *   - at a return, parameters are the values saved at entry.
 * Beyond the kernel: (STRUCT) casts of any base and member chains after
 * %REG, $stackN, $argN and $retval.
 * :%pd and :%pD (6.5+) are the dereferences to a dentry's or a file's name
 * that the kernel rewrites them into, with this kernel's offsets, on every
 * kernel with BTF.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>

#include "kptrace.h"
#include "prepare/btfarg.h"
#include "sys/btfwalk.h"
#include "sys/tracepoint.h"
#include "util/suggest.h"

struct fn {
	struct btf *btf;		/* vmlinux or module BTF; NULL if none */
	struct btf *modbtf;		/* owned when the function is a module's */
	const struct btf_type *proto;	/* FUNC_PROTO, NULL if not found */
	const char *name;
	int first;			/* params before the arguments: a tracepoint's __data */
};

struct err {
	char *msg;
	size_t msglen;
	int *col;
};

static int fail(struct err *e, enum spec_err code, int col, const char *extra)
{
	snprintf(e->msg, e->msglen, "%s%s", spec_strerror(code), extra ? extra : "");
	*e->col = col;
	return -EINVAL;
}

static bool arg_needs_btf(const struct spec_arg *a)
{
	return (a->btf & SPEC_BTF_ALL) || a->cast || a->chain ||
	       (a->nops && a->ops[0].kind == SPEC_OP_BTFVAR);
}

static int load_fn(struct sysinfo *si, const struct spec_probe *p, struct fn *fn)
{
	const char *name = p->symbol;
	const struct ksym *ks;
	const char *mod = p->module[0] ? p->module : NULL;
	struct btf *btf;
	char buf[256];
	int id;

	memset(fn, 0, sizeof(*fn));
	if (!name && p->addr && !sysinfo_need_ksyms(si, buf, sizeof(buf))) {
		/* a raw address at a function's start: that function */
		ks = ksyms_by_addr(si->ksyms, p->addr);
		if (ks && ks->addr == p->addr) {
			name = ks->name;
			mod = ks->module;
		}
	}
	if (!name || sysinfo_need_btf(si, buf, sizeof(buf)))
		return -ENOENT;
	if (strchr(name, '|') && !sysinfo_need_ksyms(si, buf, sizeof(buf))) {
		/* alternatives: the one this kernel has (a clone has no BTF of its own) */
		ks = resolve_function(si, name, mod);
		if (!ks || strchr(ks->name, '.'))
			return -ENOENT;
		name = ks->name;
	}
	fn->name = name;
	/* a module's function? vmlinux's BTF first, as kallsyms lists the
	 * kernel before modules; kallsyms only where the run reads it anyway
	 * or BTF does not say (resolve.h) */
	if (!mod && !si->ksyms && si->defer_ksyms && sysinfo_btf_has_func(si, name)) {
		/* vmlinux's */
	} else if (!mod && !sysinfo_need_ksyms(si, buf, sizeof(buf))) {
		ks = ksyms_by_name(si->ksyms, name, NULL);
		if (ks)
			mod = ks->module;
	}
	btf = si->btf;
	if (mod) {
		fn->modbtf = sysinfo_module_btf(si, mod);
		if (!fn->modbtf)
			return -ENOENT;
		btf = fn->modbtf;
	}
	id = btf__find_by_name_kind(btf, name, BTF_KIND_FUNC);
	if (id <= 0)
		return -ENOENT;
	fn->btf = btf;
	fn->proto = btf__type_by_id(btf, btf__type_by_id(btf, id)->type);
	if (!fn->proto || !btf_is_func_proto(fn->proto)) {
		fn->proto = NULL;
		return -ENOENT;
	}
	return 0;
}

/*
 * A tracepoint's arguments: void *__data then TP_PROTO's, what a BTF-typed
 * tracepoint program's context holds, one word each. btf_trace_<event>, the
 * typedef tp_btf attaches by, has their types but not their names: those
 * are in the iterator every event defines (__traceiter_<event>, 5.10+),
 * the stub (__probestub_<event>, 6.7+), or a TRACE_EVENT's own
 * __bpf_trace_<event> (a DEFINE_EVENT's is its class's, of other names).
 */
static int load_tp(struct sysinfo *si, const struct spec_probe *p, struct fn *fn)
{
	static const char *const fmts[] = { "__traceiter_%s", "__probestub_%s", "__bpf_trace_%s" };
	const struct btf_type *t;
	char name[SPEC_NAME_MAX + 16], buf[256];
	size_t k;
	int id;

	memset(fn, 0, sizeof(*fn));
	fn->name = p->tp_event;
	if (sysinfo_need_btf(si, buf, sizeof(buf)))
		return -ENOENT;
	for (k = 0; k < sizeof(fmts) / sizeof(fmts[0]); k++) {
		snprintf(name, sizeof(name), fmts[k], p->tp_event);
		id = btf__find_by_name_kind(si->btf, name, BTF_KIND_FUNC);
		t = id > 0 ? btf__type_by_id(si->btf, btf__type_by_id(si->btf, id)->type) : NULL;
		if (t && btf_is_func_proto(t) && btf_vlen(t) >= 1) {
			fn->btf = si->btf;
			fn->proto = t;
			fn->first = 1;
			return 0;
		}
	}
	return -ENOENT;
}

static const struct btf_param *param(const struct fn *fn, int i)
{
	return &btf_params(fn->proto)[fn->first + i];
}

static const char *param_name(const struct fn *fn, int i)
{
	return btf__name_by_offset(fn->btf, param(fn, i)->name_off);
}

static int nparams(const struct fn *fn)
{
	int n = btf_vlen(fn->proto) - fn->first;

	/* "f(int a, ...)": the last param is the variadic marker */
	if (n > 0 && !param(fn, n - 1)->type && !param(fn, n - 1)->name_off)
		n--;
	return n;
}

static int find_param(const struct fn *fn, const char *name)
{
	int i, n = nparams(fn);

	for (i = 0; i < n; i++)
		if (!strcmp(param_name(fn, i), name))
			return i;
	return -1;
}

/* The function's parameter names, "a, b, c", for messages. */
static void param_list(const struct fn *fn, char *buf, size_t len)
{
	size_t used = 0;
	int i, n = nparams(fn);

	buf[0] = '\0';
	for (i = 0; i < n && used < len; i++)
		used += snprintf(buf + used, len - used, "%s%s", i ? ", " : "", param_name(fn, i));
}

/* Index into p's entry-data slots of (1-based) argument n, added if new. */
static int edata_slot(struct spec_probe *p, uint32_t n)
{
	int i;

	for (i = 0; i < p->nedata; i++)
		if (p->edata_arg[i] == n)
			return i;
	if (p->nedata == SPEC_MAX_EDATA)
		return -1;
	p->edata_arg[p->nedata] = n;
	return p->nedata++;
}

static void member_suggest(const struct btf *btf, __u32 sid, struct suggest *sg, int depth)
{
	const struct btf_type *st = btf__type_by_id(btf, sid);
	const struct btf_member *m;
	int i, n;

	if (!st || depth > 8 || (!btf_is_struct(st) && !btf_is_union(st)))
		return;
	m = btf_members(st);
	n = btf_vlen(st);
	for (i = 0; i < n; i++, m++) {
		const char *mn = btf__name_by_offset(btf, m->name_off);

		if (mn && *mn)
			suggest_add(sg, mn);
		else
			member_suggest(btf, btfwalk_skip_mods(btf, m->type), sg, depth + 1);
	}
}

/* "struct sock", "union u" or "sock": a struct or union of that name. */
static int find_struct(const struct btf *btf, const char *text)
{
	const char *name = text;
	int id;

	if (!strncmp(name, "struct ", 7))
		name += 7;
	else if (!strncmp(name, "union ", 6))
		name += 6;
	while (*name == ' ')
		name++;
	id = btf__find_by_name_kind(btf, name, BTF_KIND_STRUCT);
	if (id <= 0 && strncmp(text, "struct ", 7))
		id = btf__find_by_name_kind(btf, name, BTF_KIND_UNION);
	return id;
}

/* What the BTF walk learnt about an argument's value. */
struct walk {
	__u32 type;		/* type of the value (modifiers skipped), 0 if unknown */
	__u32 bitsize;		/* bitfield member: its width, else 0 */
	__u32 bitoffs;		/* bit offset within the byte the last deref reads */
	struct spec_op ins[SPEC_MAX_OPS];
	int nins;		/* dereferences the chain adds after the base */
	const char *untrusted;	/* a hop a BPF program's BTF loads cannot take, or NULL */
};

static bool is_aggregate(const struct btf_type *t)
{
	return t && (btf_is_struct(t) || btf_is_union(t));
}

static const char *kind_word(const struct btf_type *t)
{
	return btf_is_union(t) ? "union" : "struct";
}

/*
 * What keeps the verifier from loading through pointer ptr as BTF types
 * it (check_ptr_to_btf_access()): a __user or __percpu tag on it. NULL if
 * nothing does.
 */
static const char *ptr_untrusted(const struct btf *btf, const struct btf_type *ptr)
{
	const struct btf_type *t = btf__type_by_id(btf, ptr->type);
	const char *tag;

	while (t && (btf_is_mod(t) || btf_is_typedef(t))) {
		tag = btf_is_type_tag(t) ? btf__name_by_offset(btf, t->name_off) : NULL;
		if (tag && !strcmp(tag, "user"))
			return "a __user pointer, which the verifier's BTF loads refuse";
		if (tag && !strcmp(tag, "percpu"))
			return "a __percpu pointer, which the verifier's BTF loads refuse";
		t = btf__type_by_id(btf, t->type);
	}
	return NULL;
}

/*
 * The chain "->a.b->c" from a value of type w->type (a pointer), or, with a
 * cast, a pointer to struct cast_id. ftrace's parse_btf_field().
 */
static int walk_chain(const struct btf *btf, const struct spec_arg *a, __u32 cast_id,
		      struct walk *w, struct err *e)
{
	const char *q = a->chain;
	char name[SPEC_NAME_MAX], extra[160];
	bool first = true;

	while (*q) {
		const struct btf_type *t;
		__u32 sid, bitoffs = 0;
		int col = a->chain_col + (int)(q - a->chain);

		if (*q == '.')
			/* a parameter is never a struct: the first step is "->";
			 * the kernel's caret is at the member */
			return fail(e, SPEC_ERR_NOSUP_DAT_ARG, col + 1, NULL);
		q += 2;
		/* parse_btf_field(): the caret at the member the "->" reaches for */
		col += 2;
		if (first && cast_id) {
			sid = cast_id;
			w->untrusted = "a cast, which the verifier's BTF types do not follow";
		} else {
			t = btf__type_by_id(btf, w->type);
			if (!w->type || !t || !btf_is_ptr(t))
				return fail(e, SPEC_ERR_NO_PTR_STRCT, col, NULL);
			sid = btfwalk_skip_mods(btf, t->type);
			if (!w->untrusted)
				w->untrusted = ptr_untrusted(btf, t);
		}
		first = false;
		/* ->a.b.c: offsets add up within one dereference */
		for (;;) {
			const char *ne = q;
			__u32 mtype = 0, bitsize = 0;
			size_t len;

			t = btf__type_by_id(btf, sid);
			col = a->chain_col + (int)(q - a->chain);
			if (!is_aggregate(t))
				return fail(e, SPEC_ERR_NO_PTR_STRCT, col, NULL);
			while (*ne && *ne != '.' && *ne != '-')
				ne++;
			len = (size_t)(ne - q);
			if (len >= sizeof(name))
				return fail(e, SPEC_ERR_NO_BTF_FIELD, col, NULL);
			memcpy(name, q, len);
			name[len] = '\0';
			if (!btfwalk_member(btf, sid, name, &bitoffs, &bitsize, &mtype)) {
				struct suggest sg;
				char dym[96];
				const char *sn = btf__name_by_offset(btf, t->name_off);

				suggest_init(&sg, name);
				member_suggest(btf, sid, &sg, 0);
				snprintf(extra, sizeof(extra), " (%s %s has no '%s')%s", kind_word(t),
					 sn && *sn ? sn : "(anon)", name,
					 suggest_text(&sg, dym, sizeof(dym)));
				return fail(e, SPEC_ERR_NO_BTF_FIELD, col, extra);
			}
			w->bitsize = bitsize;
			w->type = btfwalk_skip_mods(btf, mtype);
			q = ne;
			if (*q != '.')
				break;
			q++;
			sid = w->type;
		}
		if (w->nins == SPEC_MAX_OPS)
			return fail(e, SPEC_ERR_TOO_MANY_OPS, a->chain_col, NULL);
		w->ins[w->nins].kind = SPEC_OP_DEREF;
		w->ins[w->nins].col = a->chain_col;
		w->ins[w->nins].imm = bitoffs / 8;
		w->nins++;
		w->bitoffs = bitoffs % 8;
	}
	return 0;
}

static bool is_char(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(btf, btfwalk_skip_mods(btf, id));

	return t && btf_is_int(t) && btf_int_bits(t) == 8;
}

/* fetch_type_from_btf_type(): the type a value of BTF type id prints as. */
static enum spec_type type_of(const struct btf *btf, __u32 id, struct walk *w)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	bool sgn;

	if (!id || !t)
		return SPEC_T_NONE;
	if (btf_is_ptr(t))
		return SPEC_T_X64;
	if (btf_is_enum(t)) {
		/* ftrace: an enum is an int, s32; a packed one is its size */
		sgn = t->size == 4 || btf_kflag(t);
		switch (t->size) {
		case 1:
			return sgn ? SPEC_T_S8 : SPEC_T_U8;
		case 2:
			return sgn ? SPEC_T_S16 : SPEC_T_U16;
		case 8:
			return SPEC_T_S64;
		default:
			return SPEC_T_S32;
		}
	}
	if (btf_is_enum64(t))
		return SPEC_T_S64;
	if (!btf_is_int(t))
		return SPEC_T_NONE;
	sgn = btf_int_encoding(t) & BTF_INT_SIGNED;
	if (!btf_int_offset(t)) {
		switch (btf_int_bits(t)) {
		case 8:
			return sgn ? SPEC_T_S8 : SPEC_T_U8;
		case 16:
			return sgn ? SPEC_T_S16 : SPEC_T_U16;
		case 32:
			return sgn ? SPEC_T_S32 : SPEC_T_U32;
		case 64:
			return sgn ? SPEC_T_S64 : SPEC_T_U64;
		default:
			break;
		}
	}
	if (sgn || btf_int_bits(t) > 64)
		return SPEC_T_NONE;
	/* an old-style bitfield: width and offset in the int type itself */
	w->bitsize = btf_int_bits(t);
	w->bitoffs += btf_int_offset(t);
	return SPEC_T_U64;
}

static void type_desc(const struct btf *btf, __u32 id, char *buf, size_t len)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const char *n = t ? btf__name_by_offset(btf, t->name_off) : NULL;

	if (!t)
		snprintf(buf, len, "void");
	else if (btf_is_ptr(t)) {
		char sub[96];

		type_desc(btf, btfwalk_skip_mods(btf, t->type), sub, sizeof(sub));
		snprintf(buf, len, "a pointer to %s", sub);
	} else if (btf_is_struct(t) || btf_is_union(t))
		snprintf(buf, len, "%s %s", kind_word(t), n && *n ? n : "(anon)");
	else if (btf_is_array(t))
		snprintf(buf, len, "an array");
	else if (btf_is_func_proto(t))
		snprintf(buf, len, "a function");
	else
		snprintf(buf, len, "%s", n && *n ? n : "this type");
}

/* An enum's names, so --json can print the value by name (the text stays ftrace's number). */
static int keep_enum_names(const struct btf *btf, __u32 id, struct spec_arg *a)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	int i, n;

	if (!t || !btf_is_any_enum(t) || a->enums)
		return 0;
	n = btf_vlen(t);
	a->enums = calloc(n ? n : 1, sizeof(*a->enums));
	if (!a->enums)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const char *nm;
		int64_t v;

		if (btf_is_enum(t)) {
			nm = btf__name_by_offset(btf, btf_enum(t)[i].name_off);
			v = btf_kflag(t) || t->size == 4 ? (int64_t)btf_enum(t)[i].val
							 : (int64_t)(uint32_t)btf_enum(t)[i].val;
		} else {
			nm = btf__name_by_offset(btf, btf_enum64(t)[i].name_off);
			v = (int64_t)btf_enum64_value(btf_enum64(t) + i);
		}
		a->enums[a->nenums].val = v;
		a->enums[a->nenums].name = strdup(nm ? nm : "");
		if (!a->enums[a->nenums].name)
			return -ENOMEM;
		a->nenums++;
	}
	return 0;
}

/* The byte offset of member path "a.b" in struct sname, from BTF; -1 if none. */
static long member_path_offset(const struct btf *btf, const char *sname, const char *path)
{
	char name[SPEC_NAME_MAX];
	__u32 bits = 0, bitsize, type;
	const char *q = path, *dot;
	int id = btf__find_by_name_kind(btf, sname, BTF_KIND_STRUCT);

	if (id <= 0)
		return -1;
	for (type = (__u32)id; *q; q = *dot ? dot + 1 : dot) {
		dot = q + strcspn(q, ".");
		snprintf(name, sizeof(name), "%.*s", (int)(dot - q), q);
		if (!btfwalk_member(btf, btfwalk_skip_mods(btf, type), name, &bits, &bitsize, &type))
			return -1;
	}
	return bits % 8 ? -1 : (long)(bits / 8);
}

/*
 * :%pd / :%pD: traceprobe_expand_dentry_args() makes the argument
 * +0(+OFFS(ARG)):string, OFFS being d_name.name's in struct dentry, and a
 * file's dentry (f_path.dentry) one dereference before: the same ops here.
 */
static int add_vfs_derefs(const struct btf *btf, struct spec_arg *a, struct err *e)
{
	long off[3];
	int i, n = 0;

	if (a->vfs == 'D')
		off[n++] = member_path_offset(btf, "file", "f_path.dentry");
	off[n++] = member_path_offset(btf, "dentry", "d_name.name");
	off[n++] = 0;	/* the string's own address, which :string reads */
	for (i = 0; i < n; i++) {
		if (off[i] < 0)
			return fail(e, SPEC_ERR_NO_BTF_FIELD, a->type_col, a->vfs == 'D' ?
				    " (no struct file's f_path.dentry or struct dentry's "
				    "d_name.name in this kernel's BTF)" :
				    " (no struct dentry's d_name.name in this kernel's BTF)");
		if (a->nops == SPEC_MAX_OPS)
			return fail(e, SPEC_ERR_TOO_MANY_OPS, a->body_col, NULL);
		a->ops[a->nops].kind = SPEC_OP_DEREF;
		a->ops[a->nops].col = a->type_col;
		a->ops[a->nops].imm = off[i];
		a->nops++;
	}
	return 0;
}

/* The ops of a, with the chain's dereferences put right after the base. */
static int splice(struct spec_arg *a, const struct walk *w, struct err *e)
{
	int i;

	if (a->nops + w->nins > SPEC_MAX_OPS)
		return fail(e, SPEC_ERR_TOO_MANY_OPS, a->body_col, NULL);
	memmove(&a->ops[1 + w->nins], &a->ops[1], (a->nops - 1) * sizeof(a->ops[0]));
	for (i = 0; i < w->nins; i++)
		a->ops[1 + i] = w->ins[i];
	a->nops += w->nins;
	return 0;
}

/* A value's type from its BTF type, where no :TYPE was given (a bitfield too). */
static int type_from_btf(const struct fn *fn, struct spec_arg *a, struct walk *w, struct err *e)
{
	enum spec_type t = type_of(fn->btf, w->type, w);
	char extra[512];
	int err;

	if (t == SPEC_T_NONE) {
		char desc[128];

		type_desc(fn->btf, w->type, desc, sizeof(desc));
		snprintf(extra, sizeof(extra), " ('%s' is %s)",
			 a->chain ? a->chain : a->ops[0].sym ? a->ops[0].sym : a->text, desc);
		return fail(e, SPEC_ERR_BAD_BTF_TYPE, a->body_col, extra);
	}
	a->type = t;
	err = keep_enum_names(fn->btf, w->type, a);
	if (err)
		return err;
	if (w->bitsize % 8 || w->bitoffs) {
		int bits = spec_type_size(t) * 8;

		/* one read holds the whole field, whatever the type's width */
		if ((int)(w->bitoffs + w->bitsize) > bits)
			bits = 64;
		a->bf_width = (uint8_t)w->bitsize;
		a->bf_offset = (uint8_t)w->bitoffs;
		a->bf_container = (uint8_t)bits;
	}
	return 0;
}

/*
 * :string on a BTF value (check_prepare_btf_string_fetch()): a char array
 * is the string, a char pointer points at it; anything else is refused,
 * the caret at the value's name (the last member's), as the kernel's.
 */
static int string_from_btf(const struct fn *fn, struct spec_arg *a, __u32 type, struct err *e)
{
	const struct btf_type *t = btf__type_by_id(fn->btf, type);
	const char *last = spec_chain_last(a);
	char extra[512], desc[128];
	int vcol;

	vcol = last ? a->chain_col + (int)(last - a->chain) : a->body_col;
	if (t && btf_is_array(t) && is_char(fn->btf, btf_array(t)->type)) {
		/* char[]: the array is the string; the last deref points at it */
		if (a->nops == 1)
			return fail(e, SPEC_ERR_BAD_TYPE4STR, vcol, NULL);
		return 0;
	}
	if (t && btf_is_ptr(t) && is_char(fn->btf, t->type)) {
		/* char *: one more dereference, of the pointer's value */
		if (a->nops == SPEC_MAX_OPS)
			return fail(e, SPEC_ERR_TOO_MANY_OPS, a->body_col, NULL);
		a->ops[a->nops].kind = a->type == SPEC_T_USTRING ? SPEC_OP_UDEREF : SPEC_OP_DEREF;
		a->ops[a->nops].col = a->type_col;
		a->ops[a->nops].imm = 0;
		a->nops++;
		return 0;
	}
	type_desc(fn->btf, type, desc, sizeof(desc));
	snprintf(extra, sizeof(extra), " ('%s' is %s, not a char pointer or array)",
		 a->chain ? a->chain + (a->chain[0] == '-' ? 2 : 1) : a->text, desc);
	return fail(e, SPEC_ERR_BAD_TYPE4STR, vcol, extra);
}

/*
 * :struct: the struct the value points to, or the struct member the last
 * dereference reaches, read whole as an array of words (at most
 * KPT_MAX_ARRAY, the rest of a bigger struct left out and counted when
 * printed), its type kept for out/structfmt.c. vmlinux's types only: a
 * module's BTF is not kept for the run.
 */
static int struct_from_btf(const struct fn *fn, struct spec_arg *a, const struct walk *w,
			   const struct btf *vmlinux, struct err *e)
{
	const struct btf_type *t = btf__type_by_id(fn->btf, w->type);
	char extra[256], desc[128];
	__u32 sid = 0;
	long long size;

	if (t && btf_is_ptr(t)) {
		sid = btfwalk_skip_mods(fn->btf, t->type);
		if (a->nops == SPEC_MAX_OPS)
			return fail(e, SPEC_ERR_TOO_MANY_OPS, a->body_col, NULL);
		a->ops[a->nops].kind = SPEC_OP_DEREF;
		a->ops[a->nops].col = a->type_col;
		a->ops[a->nops].imm = 0;
		a->nops++;
	} else if (is_aggregate(t) && a->nops > 1) {
		sid = w->type;	/* the last dereference is at its address */
	}
	if (!sid || !is_aggregate(btf__type_by_id(fn->btf, sid))) {
		type_desc(fn->btf, w->type, desc, sizeof(desc));
		snprintf(extra, sizeof(extra), " ('%s' is %s, not a struct in memory or a pointer "
			 "to one)", a->chain ? a->chain + (a->chain[0] == '-' ? 2 : 1) : a->text,
			 desc);
		return fail(e, SPEC_ERR_BAD_BTF_TYPE, a->type_col, extra);
	}
	if (fn->btf != vmlinux)
		return fail(e, SPEC_ERR_BAD_BTF_TYPE, a->type_col,
			    " (:struct prints vmlinux's types, not a module's)");
	size = btf__resolve_size(fn->btf, sid);
	if (size <= 0)
		return fail(e, SPEC_ERR_BAD_BTF_TYPE, a->type_col, " (a struct of no size)");
	a->type = SPEC_T_X64;
	a->count = size / 8 + !!(size % 8);
	if (a->count > KPT_MAX_ARRAY)
		a->count = KPT_MAX_ARRAY;
	a->whole_type = sid;
	a->whole_btf = fn->btf;
	return 0;
}

/*
 * The argument's base against the prototype: a parameter's name becomes its
 * number, $argN takes the parameter's name; w->type is the BTF type there.
 */
static int resolve_base(struct spec_probe *p, int idx, const struct fn *fn, struct walk *w,
			struct err *e)
{
	struct spec_arg *a = &p->args[idx];
	struct spec_op *base = &a->ops[0];
	char extra[512], list[384];
	int i;

	switch (base->kind) {
	case SPEC_OP_BTFVAR:
		i = find_param(fn, base->sym);
		if (i < 0) {
			struct suggest sg;
			char dym[96];
			int k;

			suggest_init(&sg, base->sym);
			for (k = 0; k < nparams(fn); k++)
				suggest_add(&sg, param_name(fn, k));
			param_list(fn, list, sizeof(list));
			snprintf(extra, sizeof(extra), ": %s(%s)%s", fn->name, list,
				 suggest_text(&sg, dym, sizeof(dym)));
			return fail(e, SPEC_ERR_NO_BTFARG, base->col, extra);
		}
		free(base->sym);
		base->sym = NULL;
		base->kind = SPEC_OP_ARG;
		base->param = (uint32_t)i + 1;
		w->type = btfwalk_skip_mods(fn->btf, param(fn, i)->type);
		break;
	case SPEC_OP_ARG:
		if (fn->proto && base->param <= (uint32_t)nparams(fn)) {
			int n = (int)base->param - 1;

			w->type = btfwalk_skip_mods(fn->btf, param(fn, n)->type);
			if (a->btf & SPEC_BTF_ARGN) {
				/* traceprobe_expand_meta_args(): $argN is its name */
				const char *nm = param_name(fn, n);

				for (i = 0; i < p->nargs; i++)
					if (i != idx && !strcmp(p->args[i].name, nm)) {
						char why[160];

						snprintf(why, sizeof(why), ": $arg%u takes the "
							 "prototype's name %s, as another argument "
							 "is named; name it (x=$arg%u)", base->param,
							 nm, base->param);
						return fail(e, SPEC_ERR_USED_ARG_NAME, a->col, why);
					}
				if (*nm && strlen(nm) < sizeof(a->name))
					snprintf(a->name, sizeof(a->name), "%s", nm);
			}
		} else if (fn->proto && nparams(fn) && (a->btf & SPEC_BTF_ARGN)) {
			/*
			 * the kernel refuses a $argN past the prototype; one of
			 * no parameters it never looks up (query_btf_context()'s
			 * nr_params 0): the number's own check, below
			 */
			param_list(fn, list, sizeof(list));
			snprintf(extra, sizeof(extra), ": %s(%s)", fn->name, list);
			return fail(e, SPEC_ERR_NO_BTFARG, base->col, extra);
		} else if (base->param > SPEC_MAX_ARGN) {
			/* nothing to look it up in: the number's own refusal */
			return fail(e, SPEC_ERR_BAD_ARG_NUM, base->col, NULL);
		}
		break;
	case SPEC_OP_RETVAL:
		if (fn->proto) {
			if (!fn->proto->type)
				return fail(e, SPEC_ERR_NO_RETVAL, base->col, NULL);
			w->type = btfwalk_skip_mods(fn->btf, fn->proto->type);
		}
		break;
	default:
		break;
	}
	return 0;
}

/*
 * a->btf_load: whether the value is BTF's alone, the parameter and the
 * chain's hops and nothing else, and what its last load may read.
 */
static void btf_load_of(const struct btf *btf, struct spec_arg *a, const struct walk *w,
			bool whole)
{
	const struct btf_type *t = btf && w->type ? btf__type_by_id(btf, w->type) : NULL;
	long long size = t ? btf__resolve_size(btf, w->type) : 0;

	a->btf_load = 0;
	a->btf_not = NULL;
	if (!btf || !w->type)
		a->btf_not = "a value of no BTF type";
	else if (!whole || a->nops != 1 + w->nins || a->vfs || a->whole)
		a->btf_not = "offsets or dereferences of its own around the BTF members";
	else if (w->untrusted)
		a->btf_not = w->untrusted;
	else if (t && btf_is_ptr(t))
		/* the verifier types it, and refuses a bucket's arithmetic on it */
		a->btf_not = "a pointer, which the verifier keeps as one";
	else if (!a->chain)
		a->btf_load = 8;	/* the parameter: a word of the context */
	else if (!t || !(btf_is_int(t) || btf_is_any_enum(t)) || size <= 0)
		a->btf_not = "it ends at a struct, union or array, not at a scalar member";
	else
		a->btf_load = (uint8_t)(size > 8 ? 8 : size);
}

/* One argument: base, cast, chain, type; then ftrace's checks. */
static int resolve_arg(struct spec_probe *p, int idx, const struct fn *fn,
		       const struct btf *vmlinux, struct err *e)
{
	struct spec_arg *a = &p->args[idx];
	struct spec_op *base = &a->ops[0];
	bool ret = p->kind == SPEC_KRETPROBE || p->kind == SPEC_URETPROBE;
	bool whole = a->nops == 1;	/* no +OFFS(...) around the BTF part */
	struct walk w = { 0 };
	int cast_id = 0;
	char extra[512];
	struct spec_error se;
	int err, slot;

	if (arg_needs_btf(a) && !fn->proto) {
		snprintf(extra, sizeof(extra), " (no BTF function '%s' in this kernel)",
			 fn->name ? fn->name : p->symbol ? p->symbol : "?");
		return fail(e, SPEC_ERR_NO_BTF_ENTRY, base->col, extra);
	}

	err = resolve_base(p, idx, fn, &w, e);
	if (err)
		return err;
	/* at a return, arguments are what the entry saved */
	if (ret && base->kind == SPEC_OP_ARG) {
		slot = edata_slot(p, base->param);
		if (slot < 0) {
			snprintf(extra, sizeof(extra),
				 " (a return probe saves at most %d entry arguments)", SPEC_MAX_EDATA);
			return fail(e, SPEC_ERR_TOO_MANY_ARGS, a->col, extra);
		}
		base->kind = SPEC_OP_EDATA;
		base->param = (uint32_t)slot;
	}

	if (a->cast) {
		cast_id = find_struct(fn->btf, a->cast);
		if (cast_id <= 0) {
			snprintf(extra, sizeof(extra), ": '%s'", a->cast);
			return fail(e, SPEC_ERR_NO_BTF_STRUCT, a->cast_col, extra);
		}
		if (!a->chain) {
			/* a cast alone types nothing printable: a pointer */
			w.type = 0;
		}
	}
	if (a->chain) {
		err = walk_chain(fn->btf, a, (__u32)cast_id, &w, e);
		if (err)
			return err;
		err = splice(a, &w, e);
		if (err)
			return err;
	}

	/* the type, where the BTF value is the argument's value */
	err = 0;
	if (a->whole)
		err = struct_from_btf(fn, a, &w, vmlinux, e);
	else if (a->vfs)
		err = add_vfs_derefs(fn->btf ? fn->btf : vmlinux, a, e);
	else if (whole && w.type && !a->type_given)
		err = type_from_btf(fn, a, &w, e);
	else if (whole && w.type && spec_type_is_string(a->type) && a->type != SPEC_T_SYMSTR)
		err = string_from_btf(fn, a, w.type, e);
	else if (whole && w.type && a->type == SPEC_T_ERRNO && !w.bitsize && !w.bitoffs)
		/* an errno is the value at its own width: a long's, a pointer's */
		a->width = (uint8_t)spec_type_size(type_of(fn->btf, w.type, &w));
	if (err)
		return err;
	btf_load_of(fn->btf, a, &w, whole);

	a->btf &= (uint8_t)~SPEC_BTF_DEFER;
	err = spec_check_arg(p, a, &se);
	if (err)
		return fail(e, se.code, se.col, NULL);
	return 0;
}

/* "$arg*" -> one argument per parameter, named after it. */
static int expand_all(struct spec_probe *p, const struct fn *fn, struct err *e)
{
	struct spec_arg *na;
	int at, n, i, j, k;

	for (at = 0; at < p->nargs && !(p->args[at].btf & SPEC_BTF_ALL); at++)
		;
	if (at == p->nargs)
		return 0;
	if (!fn->proto)
		return fail(e, SPEC_ERR_NO_BTF_ENTRY, p->args[at].col,
			    " ($arg* needs the function's BTF)");
	n = nparams(fn);
	if (!n) {
		/*
		 * traceprobe_expand_meta_args() expands nothing for a function
		 * of no parameters: "$arg*" is then read as a variable, which
		 * the kernel refuses as such
		 */
		char extra[160];

		snprintf(extra, sizeof(extra), " ($arg*: %s() has no parameters)",
			 fn->name ? fn->name : p->symbol);
		return fail(e, SPEC_ERR_BAD_VAR, p->args[at].col, extra);
	}
	if (p->nargs - 1 + n > 128)
		return fail(e, SPEC_ERR_ARGS_2LONG, p->args[at].col, NULL);
	na = calloc(p->nargs - 1 + n ? p->nargs - 1 + n : 1, sizeof(*na));
	if (!na)
		return -ENOMEM;
	for (i = 0, j = 0; i < p->nargs; i++) {
		if (i != at) {
			na[j++] = p->args[i];
			continue;
		}
		for (k = 0; k < n; k++, j++) {
			struct spec_arg *a = &na[j];
			const char *nm = param_name(fn, k);

			a->col = a->body_col = a->type_col = p->args[at].col;
			snprintf(a->name, sizeof(a->name), "%s", *nm ? nm : "arg");
			if (!*nm)
				snprintf(a->name, sizeof(a->name), "arg%d", j + 1);
			a->text = strdup(a->name);
			a->type = SPEC_T_X64;
			a->btf = SPEC_BTF_DEFER;
			a->nops = 1;
			a->ops[0].kind = SPEC_OP_BTFVAR;
			a->ops[0].col = a->col;
			a->ops[0].sym = strdup(nm);
			if (!a->text || !a->ops[0].sym) {
				free(na);	/* the strings go with p when its args are freed */
				return -ENOMEM;
			}
		}
	}
	free(p->args[at].text);
	free(p->args);
	p->args = na;
	p->nargs = j;
	/* names must stay unique, as ftrace's traceprobe_conflict_field_name() */
	for (i = 0; i < p->nargs; i++)
		for (k = 0; k < i; k++)
			if (!strcmp(p->args[i].name, p->args[k].name))
				return fail(e, SPEC_ERR_USED_ARG_NAME, p->args[i].col, NULL);
	return 0;
}

/*
 * "p:A B ..." was read as ftrace reads it, event A on B. When B is no kernel
 * symbol and A is one, the user meant the shorthand: A, B its parameter.
 */
static void settle_shorthand(struct sysinfo *si, struct spec_probe *p)
{
	struct spec_probe alt;
	struct spec_error e;
	char buf[256];

	if (!p->alt_shorthand || !p->symbol || sysinfo_need_ksyms(si, buf, sizeof(buf)))
		return;
	if (ksyms_by_name(si->ksyms, p->symbol, p->module[0] ? p->module : NULL) ||
	    !ksyms_by_name(si->ksyms, p->event, NULL))
		return;
	if (spec_parse_ex(p->text, &alt, &e, SPEC_PARSE_SHORTHAND))
		return;
	spec_free(p);
	*p = alt;
}

/*
 * A bare name at a tracepoint is its record's field, as ftrace's; one the
 * record lacks may be TP_PROTO's argument (tp_resolve()). Marks those in
 * p's args; how many, or 0 (and then no BTF is read for the names: a run
 * of record fields reads it only for its self check, run_load_opts()).
 */
static int tp_unknown_names(struct sysinfo *si, const struct spec_probe *p, bool *unknown)
{
	struct tp_format fmt = { 0 };
	char path[512], msg[256];
	int i, n = 0;

	if (si->tp_format_dir)
		snprintf(path, sizeof(path), "%s/%s/%s/format", si->tp_format_dir, p->tp_system,
			 p->tp_event);
	if (tp_format_load(p->tp_system, p->tp_event, si->tp_format_dir ? path : NULL, &fmt,
			   msg, sizeof(msg)))
		return 0;	/* resolve_probe() says why */
	for (i = 0; i < p->nargs; i++) {
		const struct spec_arg *a = &p->args[i];

		unknown[i] = a->nops && a->ops[0].kind == SPEC_OP_TPFIELD &&
			     !tp_field_find(&fmt, a->ops[0].sym);
		n += unknown[i];
	}
	tp_format_free(&fmt);
	return n;
}

/* A tracepoint's $argN past its TP_PROTO: refused, naming the arguments. */
static int tp_argn_past(const struct spec_probe *p, int idx, const struct fn *fn, struct err *e)
{
	const struct spec_op *base = &p->args[idx].ops[0];
	char extra[512], list[384];

	if (base->kind != SPEC_OP_ARG || base->param <= (uint32_t)nparams(fn))
		return 0;
	param_list(fn, list, sizeof(list));
	snprintf(extra, sizeof(extra), ": %s(%s)", fn->name, list);
	return fail(e, SPEC_ERR_NO_BTFARG, base->col, extra);
}

/*
 * A tracepoint's TP_PROTO arguments by name and their member chains, from
 * its BTF prototype (load_tp()): the same ops as a kprobe's parameters
 * ($argN), which the BTF-typed tracepoint program lays out as a kprobe's
 * registers.
 */
static int tp_resolve(struct sysinfo *si, struct spec_probe *p, struct err *e)
{
	bool need = false, *unknown;
	struct fn fn;
	char extra[512];
	int i, err = 0, nunknown;

	unknown = calloc(p->nargs ? p->nargs : 1, sizeof(*unknown));
	if (!unknown)
		return -ENOMEM;
	for (i = 0; i < p->nargs; i++)
		need |= !!(p->args[i].btf & SPEC_BTF_DEFER);
	nunknown = tp_unknown_names(si, p, unknown);
	if (!need && !nunknown)
		goto out;
	if (load_tp(si, p, &fn))
		fn.proto = NULL;
	for (i = 0; fn.proto && i < p->nargs; i++) {
		struct spec_arg *a = &p->args[i];

		if (unknown[i] && find_param(&fn, a->ops[0].sym) >= 0) {
			a->ops[0].kind = SPEC_OP_BTFVAR;
			a->btf |= SPEC_BTF_DEFER;
		}
	}
	for (i = 0; !err && i < p->nargs; i++) {
		if (!(p->args[i].btf & SPEC_BTF_DEFER))
			continue;
		if (!fn.proto) {
			if (sysinfo_need_btf(si, extra, sizeof(extra)) == 0)
				snprintf(extra, sizeof(extra), "no __traceiter_%s, __probestub_%s "
					 "or __bpf_trace_%s in this kernel's BTF", p->tp_event,
					 p->tp_event, p->tp_event);
			snprintf(e->msg, e->msglen, "%s: %s (a tracepoint's arguments by name "
				 "need its BTF prototype)", spec_strerror(SPEC_ERR_NO_BTF_ENTRY),
				 extra);
			*e->col = p->args[i].col;
			err = -ENOENT;
			break;
		}
		err = tp_argn_past(p, i, &fn, e);
		if (!err)
			err = resolve_arg(p, i, &fn, si->btf, e);
	}
out:
	free(unknown);
	return err;
}

int btfarg_resolve(struct sysinfo *si, struct spec_probe *p, char *msg, size_t msglen, int *col)
{
	struct err e = { msg, msglen, col };
	bool want = false, need = false, typed = false;
	struct fn fn = { 0 };
	int i, err = 0;

	*col = -1;
	settle_shorthand(si, p);
	if (p->kind == SPEC_TRACEPOINT)
		return tp_resolve(si, p, &e);
	/* uretprobes: entry arguments only, no BTF */
	if (p->kind != SPEC_KPROBE && p->kind != SPEC_KRETPROBE && p->kind != SPEC_URETPROBE)
		return 0;
	for (i = 0; i < p->nargs; i++) {
		want |= !!(p->args[i].btf & SPEC_BTF_DEFER);
		need |= arg_needs_btf(&p->args[i]);
		typed |= !!(p->args[i].btf & (SPEC_BTF_ARGN | SPEC_BTF_RETVAL));
	}
	if (!want)
		return 0;
	/* Typing a bare $argN or $retval is a bonus: only names need BTF. */
	if ((need || typed) && load_fn(si, p, &fn) && need) {
		char extra[512];

		if (sysinfo_need_btf(si, extra, sizeof(extra))) {
			/* no BTF at all: the argument is what cannot be, not the function */
			for (i = 0; i < p->nargs && !arg_needs_btf(&p->args[i]); i++)
				;
			snprintf(msg, msglen, "an argument by name, a -> chain or a type from BTF "
				 "needs the kernel's BTF: %s", extra);
			*col = i < p->nargs ? p->args[i].col : p->target_col;
			err = -ENOENT;
			goto out;
		}
		snprintf(extra, sizeof(extra), "no BTF function '%s'%s%s in this kernel%s",
			 fn.name ? fn.name : p->symbol ? p->symbol : "at this address",
			 p->module[0] ? " in module " : "", p->module,
			 p->module[0] && si->btf_path ? " (a module's BTF is split on the "
			 "running kernel's own, which --btf does not stand in for)" : "");
		snprintf(msg, msglen, "%s: %s", spec_strerror(SPEC_ERR_NO_BTF_ENTRY), extra);
		*col = p->target_col;
		err = -ENOENT;
		goto out;
	}
	err = expand_all(p, &fn, &e);
	for (i = 0; !err && i < p->nargs; i++) {
		if (p->args[i].vfs && !si->btf && sysinfo_need_btf(si, msg, msglen)) {
			*col = p->args[i].type_col;
			err = -ENOENT;
		} else if (p->args[i].btf & SPEC_BTF_DEFER) {
			err = resolve_arg(p, i, &fn, si->btf, &e);
		}
	}
out:
	btf__free(fn.modbtf);
	return err;
}
