// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Stage 8, text: one line per event, byte for byte what the kernel writes to
 * /sys/kernel/tracing/trace for the same kprobe/uprobe event:
 *
 *   trace_print_context()           "%16s-%-7d [%03d] ..... %5lu.%06lu: "
 *   print_{k,kret,u}probe_event()   "EVENT: (LOCATION)"
 *   trace_probe_print_args()        " name=value" each, arrays as "{a,b}"
 *
 * Differences: the irq/preempt flags are not known to a BPF program ("....."
 * always); a faulted non-string argument prints "(fault)" where the kernel
 * leaves whatever the ring buffer held; a uretprobe's function is its ELF
 * address, where the kernel prints where it is mapped (the same only for
 * non-PIE executables).
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "kptrace.h"
#include "output.h"
#include "umaps.h"

#define SYM_BUF	1024	/* KSYM_SYMBOL_LEN and then some */

static bool is_data_loc(const struct ev_arg *a)
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
static bool is_kretprobe_trampoline(const struct ksym *s, uint64_t addr)
{
	return s && s->addr == addr && !s->module &&
	       (!strcmp(s->name, "__kretprobe_trampoline") ||
		!strcmp(s->name, "kretprobe_trampoline") ||
		!strcmp(s->name, "arch_rethook_trampoline"));
}

/* seq_print_ip_sym(): 0 is "0"; with offset sprint_symbol(), else the bare name. */
static void print_ip_sym(FILE *f, const struct ksyms *ks, uint64_t ip, bool offset)
{
	const struct ksym *s;
	char buf[SYM_BUF];

	if (!ip) {
		fputc('0', f);
		return;
	}
	s = ksyms_by_addr(ks, ip);
	if (is_kretprobe_trampoline(s, ip)) {
		fputs("[unknown/kretprobe'd]", f);
	} else if (offset) {
		fputs(ksyms_format(ks, ip, true, buf, sizeof(buf)), f);
	} else if (s) {
		/* kallsyms_lookup(): the name only, no module */
		fputs(s->name, f);
	} else {
		fprintf(f, "0x%08" PRIx64, ip);
	}
}

static void print_location(FILE *f, const struct ev_desc *ev, const struct ksyms *ks,
			   const struct kpt_rec_hdr *h)
{
	switch (ev->kind) {
	case SPEC_KRETPROBE:
		print_ip_sym(f, ks, h->ip, true);
		fputs(" <- ", f);
		print_ip_sym(f, ks, ev->addr, false);
		break;
	case SPEC_UPROBE:
		fprintf(f, "0x%" PRIx64, (uint64_t)h->ip);
		break;
	case SPEC_URETPROBE:
		fprintf(f, "0x%" PRIx64 " <- 0x%" PRIx64, (uint64_t)h->ip,
			umaps_func_addr(ev, h->tgid));
		break;
	default:
		/* the kprobe's address as the kernel placed it (past an ENDBR, say) */
		print_ip_sym(f, ks, h->ip, true);
		break;
	}
}

/* trace_probe.c's print_type_*() formats. */
static void print_scalar(FILE *f, const struct ev_arg *a, const struct ksyms *ks,
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
		fputs(ksyms_format(ks, v.u, true, buf, sizeof(buf)), f);
		break;
	case SPEC_T_SYMSTR:
		/* FETCH_OP_ST_SYMSTR stores sprint_symbol() of the value */
		fprintf(f, "\"%s\"", ksyms_format(ks, v.u, true, buf, sizeof(buf)));
		break;
	default:	/* x8..x64, and anything unforeseen: hex loses nothing */
		fprintf(f, "0x%" PRIx64, v.u);
		break;
	}
}

static void print_elem(FILE *f, const struct ev_arg *a, const struct ksyms *ks,
		       const void *rec, size_t len, uint32_t e)
{
	const char *s;
	size_t n;

	if (!is_data_loc(a)) {
		print_scalar(f, a, ks, decode_scalar(a, rec, e));
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

static void print_arg(FILE *f, const struct ev_desc *ev, int i, const struct ksyms *ks,
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
	if (!is_data_loc(a) && decode_faulted(ev, rec, i)) {
		fputs("(fault)", f);
		return;
	}
	if (!a->count) {
		print_elem(f, a, ks, rec, len, 0);
		return;
	}
	fputc('{', f);
	for (e = 0; e < a->count; e++) {
		print_elem(f, a, ks, rec, len, e);
		fputc(e == a->count - 1 ? '}' : ',', f);
	}
}

int output_text(FILE *f, const struct ev_desc *ev, const struct ksyms *ks, const void *rec,
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
		print_location(f, ev, ks, &h);
		fputc(')', f);
	}
	for (i = 0; i < ev->nargs; i++)
		print_arg(f, ev, i, ks, rec, len);
	fputc('\n', f);
	return 0;
}
