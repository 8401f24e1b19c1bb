/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The oracle for tests/unit/test_fmt.c: the text and JSON printers and
 * ksyms_format() as they were before they formatted by hand (commit
 * 33f0612, src/out/output_text.c, src/out/output_json.c, src/sys/ksyms.c), printf()
 * throughout. Only renamed (rt_ text, rj_ JSON, ref_ public) so that both
 * live in one test program next to the real ones. Do not "fix" this
 * file: its job is to be the old behaviour, byte for byte.
 */
#ifndef KPT_REF_OUTPUT_H
#define KPT_REF_OUTPUT_H

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "kptrace.h"
#include "sys/ksyms.h"
#include "out/output.h"
#include "out/umaps.h"

#define SYM_BUF	1024

/* ksyms.c's mod_suffix() and ksyms_format() */
static const char *ref_mod_suffix(const struct ksym *s)
{
	if (!s->module || !strcmp(s->module, "bpf"))
		return NULL;
	return s->module;
}

static char *ref_ksyms_format(const struct ksyms *ks, uint64_t addr, bool with_offset, char *buf, size_t len)
{
	const struct ksym *s = ksyms_by_addr(ks, addr);
	const char *mod;
	int n;

	if (!len)
		return buf;
	if (!s) {
		/* __sprint_symbol(): "0x%lx", no padding */
		snprintf(buf, len, "0x%llx", (unsigned long long)addr);
		return buf;
	}
	mod = ref_mod_suffix(s);
	/* The kernel's "%#lx" prints 0 as "0x0", unlike the C library's. */
	if (!with_offset)
		n = snprintf(buf, len, "%s", s->name);
	else if (s->size)
		n = snprintf(buf, len, "%s+0x%llx/0x%llx", s->name,
			     (unsigned long long)(addr - s->addr), (unsigned long long)s->size);
	else
		n = snprintf(buf, len, "%s+0x%llx", s->name, (unsigned long long)(addr - s->addr));
	if (mod && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, " [%s]", mod);
	return buf;
}

/* output_text.c */
static bool rt_is_data_loc(const struct ev_arg *a)
{
	if (a->data)
		return false;
	return a->type == SPEC_T_STRING || a->type == SPEC_T_USTRING ||
	       (a->type == SPEC_T_SYMSTR && a->size == 4);
}

/*
 * trace_seq_print_sym(): the kretprobe trampoline is not a caller worth
 * naming; the kernel says so instead of printing its symbol.
 */
static bool rt_is_kretprobe_trampoline(const struct ksym *s, uint64_t addr)
{
	return s && s->addr == addr && !s->module &&
	       (!strcmp(s->name, "__kretprobe_trampoline") ||
		!strcmp(s->name, "kretprobe_trampoline") ||
		!strcmp(s->name, "arch_rethook_trampoline"));
}

/* seq_print_ip_sym(): 0 is "0"; with offset sprint_symbol(), else the bare name. */
static void rt_print_ip_sym(FILE *f, const struct ksyms *ks, uint64_t ip, bool offset)
{
	const struct ksym *s;
	char buf[SYM_BUF];

	if (!ip) {
		fputc('0', f);
		return;
	}
	s = ksyms_by_addr(ks, ip);
	if (rt_is_kretprobe_trampoline(s, ip)) {
		fputs("[unknown/kretprobe'd]", f);
	} else if (offset) {
		fputs(ref_ksyms_format(ks, ip, true, buf, sizeof(buf)), f);
	} else if (s) {
		/* kallsyms_lookup(): the name only, no module */
		fputs(s->name, f);
	} else {
		fprintf(f, "0x%08" PRIx64, ip);
	}
}

static void rt_print_location(FILE *f, const struct ev_desc *ev, const struct ksyms *ks,
			   const struct kpt_rec_hdr *h)
{
	switch (ev->kind) {
	case SPEC_KRETPROBE:
		rt_print_ip_sym(f, ks, h->ip, true);
		fputs(" <- ", f);
		rt_print_ip_sym(f, ks, ev->addr, false);
		break;
	case SPEC_UPROBE:
		fprintf(f, "0x%" PRIx64, (uint64_t)h->ip);
		break;
	case SPEC_URETPROBE:
		fprintf(f, "0x%" PRIx64 " <- 0x%" PRIx64, (uint64_t)h->ip,
			umaps_func_addr(ev, h));
		break;
	default:
		/* the kprobe's address as the kernel placed it (past an ENDBR, say) */
		rt_print_ip_sym(f, ks, h->ip, true);
		break;
	}
}

/* trace_probe.c's print_type_*() formats. */
static void rt_print_scalar(FILE *f, const struct ev_arg *a, const struct ksyms *ks,
			 struct dec_val v)
{
	char buf[SYM_BUF];

	switch (a->type) {
	case SPEC_T_U8:
	case SPEC_T_U16:
	case SPEC_T_U32:
	case SPEC_T_U64:
		fprintf(f, "%" PRIu64, v.u);
		break;
	case SPEC_T_S8:
	case SPEC_T_S16:
	case SPEC_T_S32:
	case SPEC_T_S64:
		fprintf(f, "%" PRId64, v.s);
		break;
	case SPEC_T_CHAR:
		/* "'%c'": the byte as is, even a NUL, as the kernel writes it */
		fputc('\'', f);
		fputc((int)(v.u & 0xff), f);
		fputc('\'', f);
		break;
	case SPEC_T_SYMBOL:
		fputs(ref_ksyms_format(ks, v.u, true, buf, sizeof(buf)), f);
		break;
	case SPEC_T_SYMSTR:
		/* FETCH_OP_ST_SYMSTR stores sprint_symbol() of the value */
		fprintf(f, "\"%s\"", ref_ksyms_format(ks, v.u, true, buf, sizeof(buf)));
		break;
	default:	/* x8..x64, and anything unforeseen: hex loses nothing */
		fprintf(f, "0x%" PRIx64, v.u);
		break;
	}
}

static void rt_print_elem(FILE *f, const struct ev_arg *a, const struct ksyms *ks,
		       const void *rec, size_t len, uint32_t e)
{
	const char *s;
	size_t n;

	if (!rt_is_data_loc(a)) {
		rt_print_scalar(f, a, ks, decode_scalar(a, rec, e));
		return;
	}
	s = decode_string(a, rec, len, e, &n);
	if (!s) {
		fputs("(fault)", f);
		return;
	}
	/* "\"%s\"": raw bytes, control characters included, as the kernel */
	fputc('"', f);
	fwrite(s, 1, n, f);
	fputc('"', f);
}

static void rt_print_arg(FILE *f, const struct ev_desc *ev, int i, const struct ksyms *ks,
		      const void *rec, size_t len)
{
	const struct ev_arg *a = &ev->args[i];
	uint32_t e;

	fprintf(f, " %s=", a->name);
	if (a->data) {
		fprintf(f, "\"%s\"", a->data);
		return;
	}
	/*
	 * A string's own data_loc says which element faulted; a scalar only
	 * has the bitmap, which does not say which element, so the whole
	 * argument is "(fault)".
	 */
	if (!rt_is_data_loc(a) && decode_faulted(ev, rec, i)) {
		fputs("(fault)", f);
		return;
	}
	if (!a->count) {
		rt_print_elem(f, a, ks, rec, len, 0);
		return;
	}
	fputc('{', f);
	for (e = 0; e < a->count; e++) {
		rt_print_elem(f, a, ks, rec, len, e);
		fputc(e == a->count - 1 ? '}' : ',', f);
	}
}

static int ref_output_text(FILE *f, const struct ev_desc *ev, const struct ksyms *ks, const void *rec,
		size_t len)
{
	struct kpt_rec_hdr h;
	char comm[KPT_COMM_LEN + 1];
	uint64_t usecs;
	int i;

	if (decode_check(ev, rec, len))
		return -EINVAL;
	memcpy(&h, rec, sizeof(h));
	/* trace_find_cmdline(): pid 0 is "<idle>" */
	if (h.tid) {
		memcpy(comm, h.comm, KPT_COMM_LEN);
		comm[KPT_COMM_LEN] = '\0';
	} else {
		strcpy(comm, "<idle>");
	}
	/* ns2usecs() rounds to the nearest microsecond */
	usecs = (h.ts + 500) / 1000;
	fprintf(f, "%16s-%-7d [%03d] ..... %5" PRIu64 ".%06" PRIu64 ": %s:", comm,
		(int)h.tid, (int)h.cpu, usecs / 1000000, usecs % 1000000, ev->event);
	/* a tracepoint has no probed address: its fields follow the name */
	if (ev->kind != SPEC_TRACEPOINT) {
		fputs(" (", f);
		rt_print_location(f, ev, ks, &h);
		fputc(')', f);
	}
	for (i = 0; i < ev->nargs; i++)
		rt_print_arg(f, ev, i, ks, rec, len);
	fputc('\n', f);
	return 0;
}

/* output_json.c */
static bool rj_is_data_loc(const struct ev_arg *a)
{
	if (a->data)
		return false;
	return a->type == SPEC_T_STRING || a->type == SPEC_T_USTRING ||
	       (a->type == SPEC_T_SYMSTR && a->size == 4);
}

/* Length of a valid UTF-8 sequence at s (RFC 3629: no overlongs, no surrogates), else 0. */
static size_t rj_utf8_len(const unsigned char *s, size_t n)
{
	uint32_t cp, min;
	size_t len, i;

	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		cp = s[0] & 0x1f;
		min = 0x80;
	} else if ((s[0] & 0xf0) == 0xe0) {
		len = 3;
		cp = s[0] & 0x0f;
		min = 0x800;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		cp = s[0] & 0x07;
		min = 0x10000;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

/*
 * A JSON string from arbitrary bytes. Kernel strings are bytes, not text: a
 * byte that is not part of valid UTF-8 becomes \u00XX (its Latin-1 reading)
 * so the output always parses.
 */
static void rj_json_str(FILE *f, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, k;

	fputc('"', f);
	while (i < n) {
		unsigned char c = s[i];

		if (c == '"' || c == '\\') {
			fputc('\\', f);
			fputc(c, f);
			i++;
		} else if (c < 0x20) {
			fprintf(f, "\\u%04x", c);
			i++;
		} else if (c < 0x80) {
			fputc(c, f);
			i++;
		} else if ((k = rj_utf8_len(s + i, n - i))) {
			fwrite(s + i, 1, k, f);
			i += k;
		} else {
			fprintf(f, "\\u%04x", c);
			i++;
		}
	}
	fputc('"', f);
}

static void rj_json_cstr(FILE *f, const char *s)
{
	rj_json_str(f, s, strlen(s));
}

static void rj_json_hex(FILE *f, uint64_t v)
{
	fprintf(f, "\"0x%" PRIx64 "\"", v);
}

static void rj_print_scalar(FILE *f, const struct ev_arg *a, const struct ksyms *ks,
			 struct dec_val v)
{
	char buf[SYM_BUF], c;

	switch (a->type) {
	case SPEC_T_U8:
	case SPEC_T_U16:
	case SPEC_T_U32:
	case SPEC_T_U64:
		fprintf(f, "%" PRIu64, v.u);
		break;
	case SPEC_T_S8:
	case SPEC_T_S16:
	case SPEC_T_S32:
	case SPEC_T_S64:
		fprintf(f, "%" PRId64, v.s);
		break;
	case SPEC_T_CHAR:
		c = (char)(v.u & 0xff);
		rj_json_str(f, &c, 1);
		break;
	case SPEC_T_SYMBOL:
	case SPEC_T_SYMSTR:
		rj_json_cstr(f, ref_ksyms_format(ks, v.u, true, buf, sizeof(buf)));
		break;
	default:
		rj_json_hex(f, v.u);
		break;
	}
}

/* Returns false when the element is a faulted string (printed as null). */
static bool rj_print_elem(FILE *f, const struct ev_arg *a, const struct ksyms *ks,
		       const void *rec, size_t len, uint32_t e)
{
	const char *s;
	size_t n;

	if (!rj_is_data_loc(a)) {
		rj_print_scalar(f, a, ks, decode_scalar(a, rec, e));
		return true;
	}
	s = decode_string(a, rec, len, e, &n);
	if (!s) {
		fputs("null", f);
		return false;
	}
	rj_json_str(f, s, n);
	return true;
}

/* Returns true when the argument faulted. */
static bool rj_print_arg(FILE *f, const struct ev_desc *ev, int i, const struct ksyms *ks,
		      const void *rec, size_t len)
{
	const struct ev_arg *a = &ev->args[i];
	bool ok = true;
	uint32_t e;

	rj_json_cstr(f, a->name);
	fputc(':', f);
	if (a->data) {
		rj_json_cstr(f, a->data);
		return false;
	}
	if (!rj_is_data_loc(a) && decode_faulted(ev, rec, i)) {
		fputs("null", f);
		return true;
	}
	if (!a->count)
		return !rj_print_elem(f, a, ks, rec, len, 0);
	fputc('[', f);
	for (e = 0; e < a->count; e++) {
		if (e)
			fputc(',', f);
		ok &= rj_print_elem(f, a, ks, rec, len, e);
	}
	fputc(']', f);
	return !ok;
}

/* seq_print_ip_sym() into buf, as output_text.c prints it. */
static const char *rj_ip_sym(char *buf, size_t len, const struct ksyms *ks, uint64_t ip,
			  bool offset)
{
	const struct ksym *s = ksyms_by_addr(ks, ip);

	if (!ip)
		snprintf(buf, len, "0");
	else if (s && s->addr == ip && !s->module &&
		 (!strcmp(s->name, "__kretprobe_trampoline") ||
		  !strcmp(s->name, "kretprobe_trampoline") ||
		  !strcmp(s->name, "arch_rethook_trampoline")))
		snprintf(buf, len, "[unknown/kretprobe'd]");
	else if (offset)
		ref_ksyms_format(ks, ip, true, buf, len);
	else if (s)
		snprintf(buf, len, "%s", s->name);
	else
		snprintf(buf, len, "0x%08" PRIx64, ip);
	return buf;
}

/* "probe": the parenthesized text of the trace line; then the addresses behind it. */
static void rj_print_location(FILE *f, const struct ev_desc *ev, const struct ksyms *ks,
			   const struct kpt_rec_hdr *h)
{
	char a[SYM_BUF], b[SYM_BUF], probe[2 * SYM_BUF + 8];
	uint64_t ip = h->ip, func = 0;

	switch (ev->kind) {
	case SPEC_KRETPROBE:
		snprintf(probe, sizeof(probe), "%s <- %s", rj_ip_sym(a, sizeof(a), ks, ip, true),
			 rj_ip_sym(b, sizeof(b), ks, ev->addr, false));
		break;
	case SPEC_UPROBE:
		snprintf(probe, sizeof(probe), "0x%" PRIx64, ip);
		break;
	case SPEC_URETPROBE:
		func = umaps_func_addr(ev, h);
		snprintf(probe, sizeof(probe), "0x%" PRIx64 " <- 0x%" PRIx64, ip, func);
		break;
	default:
		/* the kprobe's address as the kernel placed it (past an ENDBR, say) */
		rj_ip_sym(probe, sizeof(probe), ks, ip, true);
		break;
	}
	fputs(",\"probe\":", f);
	rj_json_cstr(f, probe);
	if (ev->kind == SPEC_KRETPROBE || ev->kind == SPEC_URETPROBE) {
		fputs(",\"func\":", f);
		rj_json_hex(f, ev->kind == SPEC_KRETPROBE ? ev->addr : func);
		fputs(",\"ret_ip\":", f);
	} else {
		fputs(",\"ip\":", f);
	}
	rj_json_hex(f, ip);
}

static int ref_output_json(FILE *f, const struct ev_desc *ev, const struct ksyms *ks, const void *rec,
		size_t len)
{
	/* which arguments faulted, for the list after "args" */
	uint64_t fbits[(KPT_MAX_ARGS + 63) / 64] = { 0 };
	struct kpt_rec_hdr h;
	bool faults = false;
	int i, j;

	if (decode_check(ev, rec, len))
		return -EINVAL;
	memcpy(&h, rec, sizeof(h));
	fprintf(f, "{\"ts\":%" PRIu64 ",\"cpu\":%u,\"pid\":%u,\"tid\":%u,\"comm\":",
		(uint64_t)h.ts, (unsigned int)h.cpu, (unsigned int)h.tgid, (unsigned int)h.tid);
	rj_json_str(f, h.comm, strnlen(h.comm, KPT_COMM_LEN));
	fputs(",\"group\":", f);
	rj_json_cstr(f, ev->group);
	fputs(",\"event\":", f);
	rj_json_cstr(f, ev->event);
	if (ev->kind != SPEC_TRACEPOINT)
		rj_print_location(f, ev, ks, &h);
	fputs(",\"args\":{", f);
	for (i = 0; i < ev->nargs; i++) {
		if (i)
			fputc(',', f);
		if (rj_print_arg(f, ev, i, ks, rec, len)) {
			fbits[i / 64] |= 1ull << (i % 64);
			faults = true;
		}
	}
	fputc('}', f);
	if (faults) {
		fputs(",\"faults\":[", f);
		for (i = 0, j = 0; i < ev->nargs; i++) {
			if (!(fbits[i / 64] & (1ull << (i % 64))))
				continue;
			if (j++)
				fputc(',', f);
			rj_json_cstr(f, ev->args[i].name);
		}
		fputc(']', f);
	}
	fputs("}\n", f);
	return 0;
}

#endif /* KPT_REF_OUTPUT_H */
