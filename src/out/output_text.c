// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Text: one line per event, byte for byte what the kernel writes to
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
 *
 * The kernel's printf formats are written by hand (fmt.h) into one buffer
 * per line, which goes to the FILE in one fwrite(): the comments name the
 * format each piece reproduces.
 */
#include <errno.h>
#include <string.h>

#include "lang/valfmt.h"
#include "out/structfmt.h"
#include "out/output.h"
#include "out/outtime.h"
#include "out/tpprint.h"
#include "out/umaps.h"
#include "util/fmt.h"
#include "kptrace.h"

#define SYM_BUF	1024	/* KSYM_SYMBOL_LEN and then some */

/*
 * The context, at most: a 16-byte comm, two ints (11 characters each), the
 * time (OUTTIME_TEXT_MAX) and the fixed text between them; rounded up.
 */
#define CONTEXT_MAX	128

/* seq_print_ip_sym(): 0 is "0"; with offset sprint_symbol(), else the bare name. */
static void print_ip_sym(struct outbuf *ob, const struct ksyms *ks, uint64_t ip, bool offset)
{
	const struct ksym *s;
	char buf[SYM_BUF], *p;

	if (!ip) {
		ob_char(ob, '0');
		return;
	}
	s = ksyms_by_addr(ks, ip);
	if (ksym_kretprobe_trampoline(s, ip)) {
		ob_str(ob, "[unknown/kretprobe'd]");
	} else if (offset) {
		ob_str(ob, ksyms_format(ks, ip, true, buf, sizeof(buf)));
	} else if (s) {
		/* kallsyms_lookup(): the name only, no module */
		ob_str(ob, s->name);
	} else {
		/* "0x%08" PRIx64 */
		p = ob_room(ob, 2 + FMT_NUM_MAX);
		memcpy(p, "0x", 2);
		ob_commit(ob, fmt_x64_w(p + 2, ip, 8, FMT_ZERO));
	}
}

static void print_location(struct outbuf *ob, const struct ev_desc *ev,
			   const struct ksyms *ks, const struct kpt_rec_hdr *h)
{
	switch (ev->kind) {
	case SPEC_KRETPROBE:
		print_ip_sym(ob, ks, h->ip, true);
		ob_mem(ob, " <- ", 4);
		print_ip_sym(ob, ks, ev->addr, false);
		break;
	case SPEC_UPROBE:
		ob_hex(ob, h->ip);
		break;
	case SPEC_URETPROBE:
		ob_hex(ob, h->ip);
		ob_mem(ob, " <- ", 4);
		ob_hex(ob, umaps_func_addr(ev, h));
		break;
	default:
		/* the kprobe's address as the kernel placed it (past an ENDBR, say) */
		print_ip_sym(ob, ks, h->ip, true);
		break;
	}
}

/* trace_probe.c's print_type_*() formats. */
static void print_scalar(struct outbuf *ob, const struct ev_arg *a, const struct ksyms *ks,
			 struct dec_val v)
{
	char buf[SYM_BUF], *p;
	enum spec_num num;

	switch (a->type) {
	case SPEC_T_CHAR:
		/* "'%c'": the byte as is, even a NUL, as the kernel writes it */
		p = ob_room(ob, 3);
		p[0] = '\'';
		p[1] = (char)(v.u & 0xff);
		p[2] = '\'';
		ob_commit(ob, p + 3);
		break;
	case SPEC_T_SYMBOL:
		ob_str(ob, ksyms_format(ks, v.u, !a->sym_name, buf, sizeof(buf)));
		break;
	case SPEC_T_SYMSTR:
		/* FETCH_OP_ST_SYMSTR stores sprint_symbol() of the value */
		ob_char(ob, '"');
		ob_str(ob, ksyms_format(ks, v.u, true, buf, sizeof(buf)));
		ob_char(ob, '"');
		break;
	case SPEC_T_IPV4:
	case SPEC_T_BE16:
	case SPEC_T_BE32:
	case SPEC_T_ERRNO:
		/* signed: an errno at its own width */
		ob_mem(ob, buf, valfmt_scalar(a->type, (uint64_t)v.s, a->vfmt, buf, sizeof(buf)));
		break;
	default:
		num = spec_type_info(a->type)->num;
		if (num == SPEC_NUM_U)
			ob_u64(ob, v.u);
		else if (num == SPEC_NUM_S)
			ob_s64(ob, v.s);
		else	/* x8..x64, and anything unforeseen: hex loses nothing */
			ob_hex(ob, v.u);
		break;
	}
}

static void print_elem(struct outbuf *ob, const struct ev_arg *a, const struct ksyms *ks,
		       const void *rec, size_t len, uint32_t e)
{
	const char *s;
	size_t n;

	if (!ev_arg_is_data_loc(a)) {
		print_scalar(ob, a, ks, decode_scalar(a, rec, e));
		return;
	}
	s = decode_string(a, rec, len, e, &n);
	if (!s) {
		ob_mem(ob, "(fault)", 7);
		return;
	}
	/* "\"%s\"": raw bytes, control characters included, as the kernel */
	ob_char(ob, '"');
	ob_mem(ob, s, n);
	ob_char(ob, '"');
}

static void print_arg(struct outbuf *ob, const struct ev_desc *ev, int i,
		      const struct ksyms *ks, const void *rec, size_t len)
{
	const struct ev_arg *a = &ev->args[i];
	uint32_t e, n;

	/* "%s=", after the caller's space */
	ob_str(ob, a->name);
	ob_char(ob, '=');
	if (a->data) {
		ob_char(ob, '"');
		ob_str(ob, a->data);
		ob_char(ob, '"');
		return;
	}
	/*
	 * A string's own data_loc says which element faulted; a scalar only
	 * has the bitmap, which does not say which element, so the whole
	 * argument is "(fault)".
	 */
	if (!ev_arg_is_data_loc(a) && decode_faulted(ev, rec, i)) {
		ob_mem(ob, "(fault)", 7);
		return;
	}
	if (!a->count) {
		print_elem(ob, a, ks, rec, len, 0);
		return;
	}
	if (a->type == SPEC_T_IPV6) {
		char buf[VALFMT_MAX];
		size_t n6 = decode_ipv6(a, rec, buf, sizeof(buf));

		if (n6) {	/* else not the 16 bytes of one: as an array */
			ob_mem(ob, buf, n6);
			return;
		}
	}
	if (a->spec && a->spec->whole) {
		/* :struct: the bytes read, member by member */
		structfmt(ob, a->spec->whole_btf, a->spec->whole_type,
			  (const unsigned char *)rec + a->slot, (size_t)a->count * a->size,
			  a->spec->whole, false);
		return;
	}
	n = decode_count(a, rec);
	ob_char(ob, '{');
	for (e = 0; e < n; e++) {
		if (e)
			ob_char(ob, ',');
		print_elem(ob, a, ks, rec, len, e);
	}
	ob_char(ob, '}');
}

/* trace_print_context(): "%16s-%-7d [%03d] ..... %5lu.%06lu: " */
static void print_context(struct outbuf *ob, const struct kpt_rec_hdr *h)
{
	char *p = ob_room(ob, CONTEXT_MAX);

	/* trace_find_cmdline(): pid 0 is "<idle>" */
	if (h->tid)
		p = fmt_str_w(p, h->comm, strnlen(h->comm, KPT_COMM_LEN), 16, 0);
	else
		p = fmt_str_w(p, "<idle>", 6, 16, 0);
	*p++ = '-';
	p = fmt_s64_w(p, (int)h->tid, 7, FMT_LEFT);
	memcpy(p, " [", 2);
	p = fmt_s64_w(p + 2, (int)h->cpu, 3, FMT_ZERO);
	memcpy(p, "] ..... ", 8);
	p = outtime_text(p + 8, h->ts);		/* --time's clock; ftrace's by default */
	memcpy(p, ": ", 2);
	ob_commit(ob, p + 2);
}

/* Each frame of w as " => FRAME". */
static void print_frames(struct outbuf *ob, struct stack_walk *w)
{
	struct sframe fr;
	char text[STACK_FRAME_TEXT_MAX];
	size_t n;

	while (stack_walk_next(w, &fr)) {
		n = stack_frame_text(&fr, text, sizeof(text));
		ob_mem(ob, " => ", 4);
		ob_mem(ob, text, n);
		ob_char(ob, '\n');
	}
}

/*
 * -K/-U: ftrace's lines after the event's: its context, "<stack trace>"
 * (ftrace's stacktrace trigger) or "<user stack trace>" (its
 * userstacktrace option), then " => FRAME" each.
 */
static void print_stacks(struct outbuf *ob, const struct ev_desc *ev, const struct kpt_rec_hdr *h,
			 const struct stack_syms *ss, const void *rec, size_t len)
{
	struct dec_stacks st;
	struct stack_walk w;

	decode_stacks(rec, len, &st);
	if (st.nk) {
		print_context(ob, h);
		ob_str(ob, "<stack trace>\n");
		stack_walk_kernel(&w, ss, st.k, st.nk, ev, ev->kstack_show, false);
		print_frames(ob, &w);
	}
	if (st.nu) {
		print_context(ob, h);
		ob_str(ob, "<user stack trace>\n");
		stack_walk_user(&w, ss, h->tgid, st.u, st.nu, false);
		print_frames(ob, &w);
	}
}

int output_text(FILE *f, const struct ev_desc *ev, const struct ksyms *ks, const void *rec,
		size_t len)
{
	struct stack_syms ss = { .ks = ks };

	return output_text_ex(f, ev, &ss, rec, len);
}

/* " " and the kernel's own line for a tracepoint printed whole; false if it has none. */
static bool print_tp_info(struct outbuf *ob, const struct ev_desc *ev, const struct ksyms *ks,
			  const void *rec, size_t len)
{
	static char info[KPT_REC_MAX * 2];
	long n = tpprint_info(ev, ks, rec, len, info, sizeof(info));

	if (n < 0)
		return false;
	ob_char(ob, ' ');
	ob_mem(ob, info, (size_t)n);
	return true;
}

int output_text_ex(FILE *f, const struct ev_desc *ev, const struct stack_syms *ss,
		   const void *rec, size_t len)
{
	const struct ksyms *ks = ss ? ss->ks : NULL;
	struct kpt_rec_hdr h;
	struct outbuf ob;
	int i;

	if (decode_check(ev, rec, len))
		return -EINVAL;
	memcpy(&h, rec, sizeof(h));
	ob_init(&ob, f);
	print_context(&ob, &h);
	ob_str(&ob, ev->event);
	ob_char(&ob, ':');
	/* a tracepoint has no probed address: its fields follow the name */
	if (ev->kind != SPEC_TRACEPOINT) {
		ob_mem(&ob, " (", 2);
		print_location(&ob, ev, ks, &h);
		ob_char(&ob, ')');
	}
	if (!ev->tp_print || !print_tp_info(&ob, ev, ks, rec, len))
		for (i = 0; i < ev->nargs; i++)
			if (!ev->args[i].hidden) {
				ob_char(&ob, ' ');
				print_arg(&ob, ev, i, ks, rec, len);
			}
	ob_char(&ob, '\n');
	if (h.nkstack || h.nustack)
		print_stacks(&ob, ev, &h, ss, rec, len);
	/* the whole line in one write (or in OUTBUF_SIZE pieces if longer) */
	ob_flush(&ob);
	return 0;
}

int output_text_args(FILE *f, const struct ev_desc *ev, const struct ksyms *ks, const void *rec,
		     size_t len)
{
	struct outbuf ob;
	bool first = true;
	int i;

	if (decode_check(ev, rec, len))
		return -EINVAL;
	ob_init(&ob, f);
	for (i = 0; i < ev->nargs; i++) {
		if (ev->args[i].hidden)
			continue;
		if (!first)
			ob_char(&ob, ' ');
		first = false;
		print_arg(&ob, ev, i, ks, rec, len);
	}
	ob_flush(&ob);
	return 0;
}
