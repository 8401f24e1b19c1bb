// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Stage 8, JSON: one NDJSON object per event, values typed:
 *
 *   {"ts":NS,"cpu":N,"pid":TGID,"tid":N,"comm":"..","group":"..","event":"..",
 *    "probe":"..", LOCATION, "args":{"name":VALUE,...}[,"faults":["name",...]]}
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

#include "kptrace.h"
#include "output.h"
#include "umaps.h"

#define SYM_BUF	1024

static bool is_data_loc(const struct ev_arg *a)
{
	if (a->data)
		return false;
	return a->type == SPEC_T_STRING || a->type == SPEC_T_USTRING ||
	       (a->type == SPEC_T_SYMSTR && a->size == 4);
}

/* Length of a valid UTF-8 sequence at s (RFC 3629: no overlongs, no surrogates), else 0. */
static size_t utf8_len(const unsigned char *s, size_t n)
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
static void json_str(FILE *f, const char *str, size_t n)
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
		} else if ((k = utf8_len(s + i, n - i))) {
			fwrite(s + i, 1, k, f);
			i += k;
		} else {
			fprintf(f, "\\u%04x", c);
			i++;
		}
	}
	fputc('"', f);
}

static void json_cstr(FILE *f, const char *s)
{
	json_str(f, s, strlen(s));
}

static void json_hex(FILE *f, uint64_t v)
{
	fprintf(f, "\"0x%" PRIx64 "\"", v);
}

static void print_scalar(FILE *f, const struct ev_arg *a, const struct ksyms *ks,
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
		json_str(f, &c, 1);
		break;
	case SPEC_T_SYMBOL:
	case SPEC_T_SYMSTR:
		json_cstr(f, ksyms_format(ks, v.u, true, buf, sizeof(buf)));
		break;
	default:
		json_hex(f, v.u);
		break;
	}
}

/* Returns false when the element is a faulted string (printed as null). */
static bool print_elem(FILE *f, const struct ev_arg *a, const struct ksyms *ks,
		       const void *rec, size_t len, uint32_t e)
{
	const char *s;
	size_t n;

	if (!is_data_loc(a)) {
		print_scalar(f, a, ks, decode_scalar(a, rec, e));
		return true;
	}
	s = decode_string(a, rec, len, e, &n);
	if (!s) {
		fputs("null", f);
		return false;
	}
	json_str(f, s, n);
	return true;
}

/* Returns true when the argument faulted. */
static bool print_arg(FILE *f, const struct ev_desc *ev, int i, const struct ksyms *ks,
		      const void *rec, size_t len)
{
	const struct ev_arg *a = &ev->args[i];
	bool ok = true;
	uint32_t e;

	json_cstr(f, a->name);
	fputc(':', f);
	if (a->data) {
		json_cstr(f, a->data);
		return false;
	}
	if (!is_data_loc(a) && decode_faulted(ev, rec, i)) {
		fputs("null", f);
		return true;
	}
	if (!a->count)
		return !print_elem(f, a, ks, rec, len, 0);
	fputc('[', f);
	for (e = 0; e < a->count; e++) {
		if (e)
			fputc(',', f);
		ok &= print_elem(f, a, ks, rec, len, e);
	}
	fputc(']', f);
	return !ok;
}

/* seq_print_ip_sym() into buf, as output_text.c prints it. */
static const char *ip_sym(char *buf, size_t len, const struct ksyms *ks, uint64_t ip,
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
		ksyms_format(ks, ip, true, buf, len);
	else if (s)
		snprintf(buf, len, "%s", s->name);
	else
		snprintf(buf, len, "0x%08" PRIx64, ip);
	return buf;
}

/* "probe": the parenthesized text of the trace line; then the addresses behind it. */
static void print_location(FILE *f, const struct ev_desc *ev, const struct ksyms *ks,
			   const struct kpt_rec_hdr *h)
{
	char a[SYM_BUF], b[SYM_BUF], probe[2 * SYM_BUF + 8];
	uint64_t ip = h->ip, func = 0;

	switch (ev->kind) {
	case SPEC_KRETPROBE:
		snprintf(probe, sizeof(probe), "%s <- %s", ip_sym(a, sizeof(a), ks, ip, true),
			 ip_sym(b, sizeof(b), ks, ev->addr, false));
		break;
	case SPEC_UPROBE:
		snprintf(probe, sizeof(probe), "0x%" PRIx64, ip);
		break;
	case SPEC_URETPROBE:
		func = umaps_func_addr(ev, h->tgid);
		snprintf(probe, sizeof(probe), "0x%" PRIx64 " <- 0x%" PRIx64, ip, func);
		break;
	default:
		/* the kprobe's address as the kernel placed it (past an ENDBR, say) */
		ip_sym(probe, sizeof(probe), ks, ip, true);
		break;
	}
	fputs(",\"probe\":", f);
	json_cstr(f, probe);
	if (ev->kind == SPEC_KRETPROBE || ev->kind == SPEC_URETPROBE) {
		fputs(",\"func\":", f);
		json_hex(f, ev->kind == SPEC_KRETPROBE ? ev->addr : func);
		fputs(",\"ret_ip\":", f);
	} else {
		fputs(",\"ip\":", f);
	}
	json_hex(f, ip);
}

int output_json(FILE *f, const struct ev_desc *ev, const struct ksyms *ks, const void *rec,
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
	json_str(f, h.comm, strnlen(h.comm, KPT_COMM_LEN));
	fputs(",\"group\":", f);
	json_cstr(f, ev->group);
	fputs(",\"event\":", f);
	json_cstr(f, ev->event);
	if (ev->kind != SPEC_TRACEPOINT)
		print_location(f, ev, ks, &h);
	fputs(",\"args\":{", f);
	for (i = 0; i < ev->nargs; i++) {
		if (i)
			fputc(',', f);
		if (print_arg(f, ev, i, ks, rec, len)) {
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
			json_cstr(f, ev->args[i].name);
		}
		fputc(']', f);
	}
	fputs("}\n", f);
	return 0;
}
