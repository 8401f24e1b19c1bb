// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * JSON: one NDJSON object per event, values typed:
 *
 *   {"ts":NS[,"time":ISO],"cpu":N,"pid":TGID,"tid":N[,"ns_pid":N,"ns_tid":N],
 *    "comm":"..","group":"..",
 *    "event":"..","probe":"..", LOCATION, "args":{"name":VALUE,...}
 *    [,"faults":["name",...]]}
 *
 * ns_pid and ns_tid: the ids in the task's own pid namespace, for a task in
 * one below kptrace's (a container's) that still lived at its first event
 * (out/nspid.h), once output_json_nspids() turned them on.
 *
 * ts is on --time's clock (outtime.h): monotonic ns by default, boot, ns
 * since the epoch for wall (with its ISO 8601 text as "time"), or since
 * the previous event.
 *
 * "probe" is the text ftrace prints in parentheses; LOCATION gives the raw
 * addresses as hex strings: "ip" for entry probes, "func" and "ret_ip" for
 * return probes. Values: u/s types as numbers, x types as "0x.." strings,
 * char and strings as strings, symbol/symstr as "sym+0x../0x..", arrays as
 * arrays, faulted values as null (and the argument named in "faults").
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "lang/valfmt.h"
#include "out/structfmt.h"
#include "out/output.h"
#include "out/nspid.h"
#include "out/outtime.h"
#include "out/umaps.h"
#include "util/json.h"
#include "util/fmt.h"
#include "kptrace.h"

#define SYM_BUF	1024


static void json_cstr(struct outbuf *ob, const char *s)
{
	json_ob_str(ob, s, strlen(s));
}

/* "\"0x%" PRIx64 "\"" */
static void json_hex(struct outbuf *ob, uint64_t v)
{
	ob_char(ob, '"');
	ob_hex(ob, v);
	ob_char(ob, '"');
}

static void print_scalar(struct outbuf *ob, const struct ev_arg *a, const struct ksyms *ks,
			 struct dec_val v)
{
	char buf[SYM_BUF], c;
	enum spec_num num;
	size_t n;

	/* an enum from BTF: by name where the value has one */
	for (int i = 0; i < a->nenums; i++) {
		if (a->enums[i].val == v.s) {
			json_cstr(ob, a->enums[i].name);
			return;
		}
	}
	switch (a->type) {
	case SPEC_T_CHAR:
		c = (char)(v.u & 0xff);
		json_ob_str(ob, &c, 1);
		break;
	case SPEC_T_SYMBOL:
	case SPEC_T_SYMSTR:
		json_cstr(ob, ksyms_format(ks, v.u, !a->sym_name, buf, sizeof(buf)));
		break;
	case SPEC_T_IPV4:
	case SPEC_T_BE16:
	case SPEC_T_BE32:
	case SPEC_T_ERRNO:
		/* addresses and errno names as strings, other values as numbers */
		n = valfmt_scalar(a->type, (uint64_t)v.s, a->vfmt, buf, sizeof(buf));
		if (valfmt_json_is_string(a->type, (uint64_t)v.s, a->vfmt))
			json_ob_str(ob, buf, n);
		else
			ob_mem(ob, buf, n);
		break;
	default:
		num = spec_type_info(a->type)->num;
		if (num == SPEC_NUM_U)
			ob_u64(ob, v.u);
		else if (num == SPEC_NUM_S)
			ob_s64(ob, v.s);
		else	/* the x types: "0x.." strings */
			json_hex(ob, v.u);
		break;
	}
}

/* Returns false when the element is a faulted string (printed as null). */
static bool print_elem(struct outbuf *ob, const struct ev_arg *a, const struct ksyms *ks,
		       const void *rec, size_t len, uint32_t e)
{
	const char *s;
	size_t n;

	if (!ev_arg_is_data_loc(a)) {
		print_scalar(ob, a, ks, decode_scalar(a, rec, e));
		return true;
	}
	s = decode_string(a, rec, len, e, &n);
	if (!s) {
		ob_mem(ob, "null", 4);
		return false;
	}
	json_ob_str(ob, s, n);
	return true;
}

/* Returns true when the argument faulted. */
static bool print_arg(struct outbuf *ob, const struct ev_desc *ev, int i,
		      const struct ksyms *ks, const void *rec, size_t len)
{
	const struct ev_arg *a = &ev->args[i];
	bool ok = true;
	uint32_t e, n;

	json_cstr(ob, a->name);
	ob_char(ob, ':');
	if (a->data) {
		json_cstr(ob, a->data);
		return false;
	}
	if (!ev_arg_is_data_loc(a) && decode_faulted(ev, rec, i)) {
		ob_mem(ob, "null", 4);
		return true;
	}
	if (!a->count)
		return !print_elem(ob, a, ks, rec, len, 0);
	if (a->type == SPEC_T_IPV6) {
		char buf[VALFMT_MAX];
		size_t n6 = decode_ipv6(a, rec, buf, sizeof(buf));

		if (n6) {	/* else not the 16 bytes of one: as an array */
			json_ob_str(ob, buf, n6);
			return false;
		}
	}
	if (a->spec && a->spec->whole) {
		/* :struct: the bytes read, member by member */
		structfmt(ob, a->spec->whole_btf, a->spec->whole_type,
			  (const unsigned char *)rec + a->slot, (size_t)a->count * a->size,
			  a->spec->whole, true);
		return false;
	}
	n = decode_count(a, rec);
	ob_char(ob, '[');
	for (e = 0; e < n; e++) {
		if (e)
			ob_char(ob, ',');
		ok &= print_elem(ob, a, ks, rec, len, e);
	}
	ob_char(ob, ']');
	return !ok;
}

/* seq_print_ip_sym() into buf, as output_text.c prints it. */
static const char *ip_sym(char *buf, size_t len, const struct ksyms *ks, uint64_t ip,
			  bool offset)
{
	const struct ksym *s = ksyms_by_addr(ks, ip);

	if (!ip)
		snprintf(buf, len, "0");
	else if (ksym_kretprobe_trampoline(s, ip))
		snprintf(buf, len, "[unknown/kretprobe'd]");
	else if (offset)
		ksyms_format(ks, ip, true, buf, len);
	else if (s)
		snprintf(buf, len, "%s", s->name);
	else
		snprintf(buf, len, "0x%08" PRIx64, ip);
	return buf;
}

/* "0x%" PRIx64 into p (NUL-terminated); returns the NUL. */
static char *hex_str(char *p, uint64_t v)
{
	memcpy(p, "0x", 2);
	p = fmt_x64(p + 2, v);
	*p = '\0';
	return p;
}

/* "probe": the parenthesized text of the trace line; then the addresses behind it. */
static void print_location(struct outbuf *ob, const struct ev_desc *ev,
			   const struct ksyms *ks, const struct kpt_rec_hdr *h)
{
	char a[SYM_BUF], b[SYM_BUF], probe[2 * SYM_BUF + 8], *p;
	uint64_t ip = h->ip, func = 0;

	switch (ev->kind) {
	case SPEC_KRETPROBE:
		snprintf(probe, sizeof(probe), "%s <- %s", ip_sym(a, sizeof(a), ks, ip, true),
			 ip_sym(b, sizeof(b), ks, ev->addr, false));
		break;
	case SPEC_UPROBE:
		hex_str(probe, ip);
		break;
	case SPEC_URETPROBE:
		/* "0x%" PRIx64 " <- 0x%" PRIx64 */
		func = umaps_func_addr(ev, h);
		p = hex_str(probe, ip);
		memcpy(p, " <- ", 4);
		hex_str(p + 4, func);
		break;
	default:
		/* the kprobe's address as the kernel placed it (past an ENDBR, say) */
		ip_sym(probe, sizeof(probe), ks, ip, true);
		break;
	}
	ob_mem(ob, ",\"probe\":", 9);
	json_cstr(ob, probe);
	if (ev->kind == SPEC_KRETPROBE || ev->kind == SPEC_URETPROBE) {
		ob_mem(ob, ",\"func\":", 8);
		json_hex(ob, ev->kind == SPEC_KRETPROBE ? ev->addr : func);
		ob_mem(ob, ",\"ret_ip\":", 10);
	} else {
		ob_mem(ob, ",\"ip\":", 6);
	}
	json_hex(ob, ip);
}

static bool with_nspids;

void output_json_nspids(bool on)
{
	with_nspids = on;
}

/* "{\"ts\":%" PRIu64 ",\"cpu\":%u,\"pid\":%u,\"tid\":%u,\"comm\":" */
static void print_header(struct outbuf *ob, const struct kpt_rec_hdr *h)
{
	char *p = ob_room(ob, 96 + 6 * FMT_NUM_MAX + OUTTIME_TEXT_MAX);
	struct nspid ns;

	/* --time's clock in nanoseconds (wall: since the epoch), and wall's text beside */
	memcpy(p, "{\"ts\":", 6);
	p = fmt_u64(p + 6, outtime_ns(h->ts));
	if (outtime_clock() == OUT_CLOCK_WALL) {
		memcpy(p, ",\"time\":\"", 9);
		p = outtime_text(p + 9, h->ts);
		*p++ = '"';
	}
	memcpy(p, ",\"cpu\":", 7);
	p = fmt_u64(p + 7, h->cpu);
	memcpy(p, ",\"pid\":", 7);
	p = fmt_u64(p + 7, h->tgid);
	memcpy(p, ",\"tid\":", 7);
	p = fmt_u64(p + 7, h->tid);
	if (with_nspids && nspid_get(h->tid, h->comm, &ns)) {
		memcpy(p, ",\"ns_pid\":", 10);
		p = fmt_u64(p + 10, ns.tgid);
		memcpy(p, ",\"ns_tid\":", 10);
		p = fmt_u64(p + 10, ns.tid);
	}
	memcpy(p, ",\"comm\":", 8);
	ob_commit(ob, p + 8);
}

/* -K/-U: "kstack" and "ustack", arrays of frames, the innermost first. */
static void print_stacks(struct outbuf *ob, const struct ev_desc *ev, const struct kpt_rec_hdr *h,
			 const struct stack_syms *ss, const void *rec, size_t len)
{
	struct dec_stacks st;
	struct stack_walk w;

	decode_stacks(rec, len, &st);
	if (h->nkstack) {
		ob_str(ob, ",\"kstack\":");
		stack_walk_kernel(&w, ss, st.k, st.nk, ev, ev->kstack_show, false);
		stack_walk_json(ob, &w);
	}
	if (h->nustack) {
		ob_str(ob, ",\"ustack\":");
		stack_walk_user(&w, ss, h->tgid, st.u, st.nu, false);
		stack_walk_json(ob, &w);
	}
}

/* The visible arguments as members, "a":1,"b":"x" (a comma first if comma); true if one faulted. */
static bool print_args(struct outbuf *ob, const struct ev_desc *ev, const struct ksyms *ks,
		       const void *rec, size_t len, bool comma, uint64_t *fbits)
{
	bool faults = false;
	int i;

	for (i = 0; i < ev->nargs; i++) {
		if (ev->args[i].hidden)
			continue;
		if (comma)
			ob_char(ob, ',');
		comma = true;
		if (print_arg(ob, ev, i, ks, rec, len)) {
			fbits[i / 64] |= 1ull << (i % 64);
			faults = true;
		}
	}
	return faults;
}

int output_json_args(FILE *f, const struct ev_desc *ev, const struct ksyms *ks, const void *rec,
		     size_t len, bool comma)
{
	uint64_t fbits[(KPT_MAX_ARGS + 63) / 64] = { 0 };
	struct outbuf ob;

	if (decode_check(ev, rec, len))
		return -EINVAL;
	ob_init(&ob, f);
	print_args(&ob, ev, ks, rec, len, comma, fbits);
	ob_flush(&ob);
	return 0;
}

int output_json(FILE *f, const struct ev_desc *ev, const struct ksyms *ks, const void *rec,
		size_t len)
{
	struct stack_syms ss = { .ks = ks };

	return output_json_ex(f, ev, &ss, rec, len);
}

int output_json_ex(FILE *f, const struct ev_desc *ev, const struct stack_syms *ss,
		   const void *rec, size_t len)
{
	const struct ksyms *ks = ss ? ss->ks : NULL;
	/* which arguments faulted, for the list after "args" */
	uint64_t fbits[(KPT_MAX_ARGS + 63) / 64] = { 0 };
	struct kpt_rec_hdr h;
	struct outbuf ob;
	bool faults = false;
	int i, j;

	if (decode_check(ev, rec, len))
		return -EINVAL;
	memcpy(&h, rec, sizeof(h));
	ob_init(&ob, f);
	print_header(&ob, &h);
	json_ob_str(&ob, h.comm, strnlen(h.comm, KPT_COMM_LEN));
	ob_mem(&ob, ",\"group\":", 9);
	json_cstr(&ob, ev->group);
	ob_mem(&ob, ",\"event\":", 9);
	json_cstr(&ob, ev->event);
	if (ev->kind != SPEC_TRACEPOINT)
		print_location(&ob, ev, ks, &h);
	ob_mem(&ob, ",\"args\":{", 9);
	faults = print_args(&ob, ev, ks, rec, len, false, fbits);
	ob_char(&ob, '}');
	if (faults) {
		ob_mem(&ob, ",\"faults\":[", 11);
		for (i = 0, j = 0; i < ev->nargs; i++) {
			if (!(fbits[i / 64] & (1ull << (i % 64))))
				continue;
			if (j++)
				ob_char(&ob, ',');
			json_cstr(&ob, ev->args[i].name);
		}
		ob_char(&ob, ']');
	}
	if (h.nkstack || h.nustack)
		print_stacks(&ob, ev, &h, ss, rec, len);
	ob_mem(&ob, "}\n", 2);
	/* the whole object in one write (or in OUTBUF_SIZE pieces if longer) */
	ob_flush(&ob);
	return 0;
}
