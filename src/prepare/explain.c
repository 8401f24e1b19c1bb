// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * --dry-run: say what each argument will read and where it lands in our
 * record, then print the event's format as the kernel's
 * events/GROUP/EVENT/format would show it for the same definition
 * (trace_events.c f_show(), trace_probe.c traceprobe_define_arg_fields() and
 * __set_print_fmt()), so the two can be compared line by line.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>

#include "prepare/backend.h"
#include "prepare/explain.h"
#include "prepare/filter.h"
#include "prepare/plan.h"
#include "prepare/unsafe.h"
#include "sys/kfeat.h"
#include "kptrace.h"

#ifdef KPT_ARCH_ARM64
/* The calling convention (AAPCS64), as regs_get_kernel_argument(). */
static const char *const arg_regs[] = { "x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7" };
#define RET_REG	"x0"

/* arm64's user_pt_regs, for the explanation only: the compiler takes real
 * offsets from BTF. x0-x30, then sp, pc and pstate (enum kpt_reg_word). */
static int reg_offset(const char *name)
{
	char *end;
	unsigned long n;

	if (*name == '%')
		name++;
	if (name[0] == 'x' && name[1] >= '0' && name[1] <= '9') {
		n = strtoul(name + 1, &end, 10);
		return *end || n > 30 ? -1 : (int)(KPT_W_X0 + n) * 8;
	}
	if (!strcmp(name, "sp"))
		return KPT_W_SP * 8;
	if (!strcmp(name, "pc"))
		return KPT_W_IP * 8;
	if (!strcmp(name, "pstate"))
		return (KPT_W_IP + 1) * 8;
	return -1;
}
#else
/*
 * x86-64 struct pt_regs, for the explanation only: the compiler takes real
 * offsets from BTF. Same names as the kernel's regoffset_table.
 */
static const struct {
	const char *name;
	unsigned int off;
} x86_regs[] = {
	{ "r15", 0 },	{ "r14", 8 },	{ "r13", 16 },	{ "r12", 24 },
	{ "bp", 32 },	{ "bx", 40 },	{ "r11", 48 },	{ "r10", 56 },
	{ "r9", 64 },	{ "r8", 72 },	{ "ax", 80 },	{ "cx", 88 },
	{ "dx", 96 },	{ "si", 104 },	{ "di", 112 },	{ "orig_ax", 120 },
	{ "ip", 128 },	{ "cs", 136 },	{ "flags", 144 }, { "sp", 152 },
	{ "ss", 160 },
};

/* The x86-64 SysV calling convention, as regs_get_kernel_argument(). */
static const char *const arg_regs[] = { "di", "si", "dx", "cx", "r8", "r9" };
#define RET_REG	"ax"

static int reg_offset(const char *name)
{
	size_t i;

	if (*name == '%')
		name++;
	for (i = 0; i < sizeof(x86_regs) / sizeof(x86_regs[0]); i++)
		if (!strcmp(x86_regs[i].name, name))
			return (int)x86_regs[i].off;
	return -1;
}
#endif
_Static_assert(sizeof(arg_regs) / sizeof(arg_regs[0]) == KPT_NR_REG_ARGS,
	       "one name per argument register");

static void print_reg(FILE *f, const char *name)
{
	int off = reg_offset(name);

	if (*name == '%')
		name++;
	if (off >= 0)
		fprintf(f, "%%%s (pt_regs+0x%x)", name, off);
	else
		fprintf(f, "%%%s", name);
}

/* fetch_type.is_signed: the s types, and the string types (declared signed). */
static int format_signed(enum spec_type t)
{
	return spec_type_signed(t) || spec_type_is_string(t);
}

/* An immediate string or $comm is a "string" to ftrace whatever was written. */
static enum spec_type kernel_type(const struct ev_arg *a)
{
	if (a->type == SPEC_T_ERRNO && a->size != spec_type_size(SPEC_T_ERRNO))
		return spec_type_int(a->size, true);	/* an errno at its value's width */
	return a->data ? SPEC_T_STRING : a->type;
}

static const char *mem_kind(const struct ev_desc *ev, bool user)
{
	if (ev->is_user)
		return "user memory of the traced process";
	if (user)
		return "user memory";
	/* trace_kprobe.c probe_mem_read() on x86 (non-overlapping address spaces) */
	return "user memory if the address < TASK_SIZE, else kernel, as ftrace";
}

static void print_off(FILE *f, int64_t off)
{
	if (off < 0)
		fprintf(f, " - 0x%" PRIx64, -(uint64_t)off);
	else
		fprintf(f, " + 0x%" PRIx64, (uint64_t)off);
}

static void explain_base(FILE *f, const struct ev_desc *ev, const struct spec_op *op)
{
	unsigned int n, m;

	fputs("      from ", f);
	switch (op->kind) {
	case SPEC_OP_REG:
		fputs("register ", f);
		print_reg(f, op->reg);
		break;
	case SPEC_OP_STACK:
		fprintf(f, "$stack%u: stack slot %u, *(%%sp + %u) (%s)", op->param, op->param,
			op->param * 8, ev->is_user ? "user stack" : "kernel stack");
		break;
	case SPEC_OP_STACKP:
		fputs("$stack: the stack pointer, ", f);
		print_reg(f, "sp");
		break;
	case SPEC_OP_RETVAL:
		fputs("$retval: the return value register, ", f);
		print_reg(f, RET_REG);
		break;
	case SPEC_OP_ARG:
		n = op->param;
		if (ev->kind == SPEC_TRACEPOINT) {
			fprintf(f, "TP_PROTO's argument %u, word %u of the tp_btf context", n,
				n - 1);
		} else if (n >= 1 && n <= KPT_NR_REG_ARGS) {
			fprintf(f, "$arg%u = ", n);
			print_reg(f, arg_regs[n - 1]);
			fputs(" by the calling convention", f);
		} else {
			/* regs_get_kernel_argument(): on x86-64 slot 1 is just
			 * above the return address (KPT_STACK_ARG0) */
			m = n - 1 - KPT_NR_REG_ARGS + KPT_STACK_ARG0;
			fprintf(f, "$arg%u: stack slot %u, *(%%sp + %u), by the calling convention",
				n, m, m * 8);
		}
		break;
	case SPEC_OP_EDATA:
		n = ev->spec && op->param < (uint32_t)ev->spec->nedata ?
			    ev->spec->edata_arg[op->param] : 0;
		fprintf(f, "$arg%u as it was at the function's entry (saved there, per thread "
			"and call depth, by %s/%s__entry)", n, ev->group, ev->event);
		break;
	case SPEC_OP_COMM:
		fputs("$comm: the current task's comm, as a string", f);
		break;
	case SPEC_OP_IMM:
		fprintf(f, "the immediate value 0x%" PRIx64, (uint64_t)op->imm);
		break;
	case SPEC_OP_DATA:
		fprintf(f, "the immediate string \"%s\": printed as is, nothing fetched",
			op->data ? op->data : "");
		break;
	case SPEC_OP_SYMBOL:
		fprintf(f, "the address of %s", op->sym ? op->sym : "?");
		if (op->imm)
			print_off(f, op->imm);
		fputs(" (kallsyms, at load)", f);
		break;
	case SPEC_OP_TPFIELD:
		fprintf(f, "field %s of the tracepoint's record", op->sym ? op->sym : "?");
		break;
	case SPEC_OP_FOFFS:
		fprintf(f, "file offset 0x%" PRIx64 " of %s, where the traced process maps it",
			(uint64_t)op->imm, ev->path ? ev->path : "the binary");
		break;
	default:
		fputs("?", f);
		break;
	}
	fputc('\n', f);
}

static void explain_arg(FILE *f, const struct ev_desc *ev, const struct ev_arg *a)
{
	const struct spec_arg *sa = a->spec;
	/* as given, else as resolved (a tracepoint field's or BTF's type) */
	enum spec_type t = sa && sa->type_given ? sa->type : a->type;
	/* an errno is read at its value's own width */
	unsigned int tsize = t == SPEC_T_ERRNO ? a->size : (unsigned int)spec_type_size(t);
	const struct spec_op *last;
	bool absorb, str;
	int i;

	fprintf(f, "  %s: %s", a->name, spec_type_name(t));
	if (sa && sa->bf_width)
		fprintf(f, " b%u@%u/%u", sa->bf_width, sa->bf_offset, sa->bf_container);
	if (a->count)
		fprintf(f, "[%u]", a->count);
	if (a->text)
		fprintf(f, "  (%s)", a->text);
	if (a->hidden)
		fputs("  for the filter, not printed", f);
	fputc('\n', f);
	if (a->data)
		fputs("      record: nothing; printed from the definition\n", f);
	else if (a->count)
		fprintf(f, "      record: +%u, %u x %u bytes%s\n", a->slot, a->count, a->size,
			ev_arg_is_data_loc(a) ? " (data_loc: len << 16 | offset)" : "");
	else
		fprintf(f, "      record: +%u, %u bytes%s\n", a->slot, a->size,
			ev_arg_is_data_loc(a) ? " (data_loc: len << 16 | offset)" : "");
	if (!sa || sa->nops < 1)
		return;
	if (sa->whole)
		fprintf(f, "      printed member by member as BTF's %s (type %u), nested structs "
			"%u deep\n", btf__name_by_offset(sa->whole_btf, btf__type_by_id(sa->whole_btf,
			sa->whole_type)->name_off), sa->whole_type, sa->whole);

	explain_base(f, ev, &sa->ops[0]);
	last = &sa->ops[sa->nops - 1];
	str = t == SPEC_T_STRING || t == SPEC_T_USTRING;
	/* As ftrace stages it: the last dereference becomes the store, but for symstr. */
	absorb = sa->nops > 1 && t != SPEC_T_SYMSTR &&
		 (last->kind == SPEC_OP_DEREF || last->kind == SPEC_OP_UDEREF);
	for (i = 1; i < sa->nops - absorb; i++) {
		const struct spec_op *op = &sa->ops[i];

		fputs("      then the pointer *(u64 *)(value", f);
		print_off(f, op->imm);
		fprintf(f, ") (%s)\n", mem_kind(ev, op->kind == SPEC_OP_UDEREF));
	}
	if (absorb) {
		bool user = last->kind == SPEC_OP_UDEREF || t == SPEC_T_USTRING;

		if (str && a->count)
			fprintf(f, "      then %u string pointers at value", a->count);
		else if (str)
			fputs("      then the string at value", f);
		else if (a->count)
			fprintf(f, "      then %u x %u bytes at value", a->count, tsize);
		else
			fprintf(f, "      then %u bytes at value", tsize);
		print_off(f, last->imm);
		if (str && a->count)
			fputs(", and the strings they point to", f);
		fprintf(f, " (%s)\n", mem_kind(ev, user));
	} else if (str && sa->ops[0].kind == SPEC_OP_IMM) {
		fprintf(f, "      then the string at that address (%s)\n",
			mem_kind(ev, t == SPEC_T_USTRING));
	} else if (a->count && sa->ops[0].kind == SPEC_OP_TPFIELD && str) {
		fprintf(f, "      then up to %u string pointers at value, to the first NULL, and "
			"the strings they point to (%s)\n", a->count,
			mem_kind(ev, t == SPEC_T_USTRING));
	} else if (a->count && sa->ops[0].kind == SPEC_OP_TPFIELD) {
		fprintf(f, "      read in place: %u x %u bytes of the field\n", a->count, tsize);
	}
	if (sa->bf_width)
		fprintf(f, "      then bits %u..%u of the u%u, printed as u%u\n", sa->bf_offset,
			sa->bf_offset + sa->bf_width - 1, sa->bf_container, sa->bf_container);
	if (t == SPEC_T_SYMBOL)
		fputs("      printed as %pS: sym+0xoff/0xsize\n", f);
	else if (t == SPEC_T_IPV4 || t == SPEC_T_IPV6)
		fputs("      kptrace's type: printed as an address (ftrace's %pI4 / %pI6c)\n", f);
	else if (t == SPEC_T_BE16 || t == SPEC_T_BE32)
		fputs("      kptrace's type: network order, printed in host order\n", f);
	else if (t == SPEC_T_ERRNO)
		fprintf(f, "      kptrace's type: printed as -ENAME where it is an errno (-4095..-1 "
			"as the %u-byte value it is%s)\n", a->size,
			ev->is_user ? "; -1 the C library's failure, printed as -1" : "");
	else if (t == SPEC_T_SYMSTR)
		fputs("      kept as the address; printed as the string sprint_symbol() makes\n",
		      f);
}

static void print_field(FILE *f, const char *type, const char *name, unsigned int off,
			unsigned int size, int sign)
{
	fprintf(f, "\tfield:%s %s;\toffset:%u;\tsize:%u;\tsigned:%d;\n", type, name, off, size,
		sign);
}

/* events/GROUP/EVENT/format, as the kernel would create it for this definition. */
static void explain_format(FILE *f, const struct ev_desc *ev)
{
	/* struct trace_entry, then the probe's own fields (kprobe_trace_entry_head etc.) */
	unsigned int off = 8;
	int i, j;

	fprintf(f, "name: %s\n", ev->event);
	/* an ID is what the kernel's registration assigns: there is none */
	fputs("ID: (none)\n", f);
	fputs("format:\n", f);
	print_field(f, "unsigned short", "common_type", 0, 2, 0);
	print_field(f, "unsigned char", "common_flags", 2, 1, 0);
	print_field(f, "unsigned char", "common_preempt_count", 3, 1, 0);
	print_field(f, "int", "common_pid", 4, 4, 1);
	fputc('\n', f);
	if (ev->is_return) {
		print_field(f, "unsigned long", "__probe_func", off, 8, 0);
		print_field(f, "unsigned long", "__probe_ret_ip", off + 8, 8, 0);
		off += 16;
	} else {
		print_field(f, "unsigned long", "__probe_ip", off, 8, 0);
		off += 8;
	}
	for (i = 0; i < ev->nargs; i++) {
		const struct ev_arg *a = &ev->args[i];
		enum spec_type t = kernel_type(a);
		unsigned int n = a->count ? a->count : 1;
		unsigned int size = (unsigned int)spec_type_size(t) * n;
		const char *ft = spec_type_info(t)->format;

		/*
		 * traceprobe_parse_probe_arg_body() types an array "TYPE[N]";
		 * f_show() then prints "TYPE NAME[]" (the field's len is 0 for
		 * probe events), but leaves __data_loc types whole.
		 */
		if (!a->count)
			print_field(f, ft, a->name, off, size, format_signed(t));
		else if (spec_type_is_string(t))
			fprintf(f, "\tfield:%s[%u] %s;\toffset:%u;\tsize:%u;\tsigned:%d;\n", ft,
				a->count, a->name, off, size, format_signed(t));
		else
			fprintf(f, "\tfield:%s %s[];\toffset:%u;\tsize:%u;\tsigned:%d;\n", ft,
				a->name, off, size, format_signed(t));
		off += size;
	}

	/* __set_print_fmt() */
	fprintf(f, "\nprint fmt: \"%s", ev->is_return ? "(%lx <- %lx)" : "(%lx)");
	for (i = 0; i < ev->nargs; i++) {
		const struct ev_arg *a = &ev->args[i];
		const char *pf = spec_type_info(kernel_type(a))->print_fmt;

		fprintf(f, " %s=", a->name);
		if (!a->count) {
			fputs(pf, f);
			continue;
		}
		fprintf(f, "{%s", pf);
		for (j = 1; j < (int)a->count; j++)
			fprintf(f, ",%s", pf);
		fputc('}', f);
	}
	fputs(ev->is_return ? "\", REC->__probe_func, REC->__probe_ret_ip" : "\", REC->__probe_ip",
	      f);
	for (i = 0; i < ev->nargs; i++) {
		const struct ev_arg *a = &ev->args[i];
		bool s = spec_type_is_string(kernel_type(a));

		if (!a->count) {
			fprintf(f, s ? ", __get_str(%s)" : ", REC->%s", a->name);
			continue;
		}
		for (j = 0; j < (int)a->count; j++)
			fprintf(f, s ? ", __get_str(%s[%d])" : ", REC->%s[%d]", a->name, j);
	}
	fputc('\n', f);
}

void explain_event(FILE *f, const struct ev_desc *ev)
{
	unsigned int bitmap = ((unsigned int)ev->nargs + 7) / 8, slots;
	int i;

	fprintf(f, "%s/%s:", ev->group, ev->event);
	if (ev->spec && ev->spec->text)
		fprintf(f, " %s", ev->spec->text);
	fputc('\n', f);
	if (ev->target.await)
		fprintf(f, "  %s on %s: module %s is not loaded; attached as it loads\n",
			ev->kind == SPEC_KRETPROBE ? "kretprobe" : "kprobe", ev->func,
			ev->spec->module);
	else switch (ev->kind) {
	case SPEC_KPROBE:
		fprintf(f, "  kprobe at 0x%016" PRIx64 " (%s)\n", ev->addr, ev->func);
		break;
	case SPEC_KRETPROBE:
		fprintf(f, "  kretprobe on 0x%016" PRIx64 " (%s), fires on return\n", ev->addr,
			ev->func);
		break;
	case SPEC_TRACEPOINT:
		fprintf(f, "  tracepoint %s\n", ev->func);
		if (ev->tp_print)
			fputs("  no fields given: all of them, the line its print fmt makes of "
			      "them, as the kernel's trace prints it\n", f);
		break;
	case SPEC_PROFILE:
		fprintf(f, "  a CPU clock (perf's cpu-clock) sampling %u times a second on each "
			"CPU, the interrupted task's\n", ev->target.hz);
		break;
	default:
		fprintf(f, "  %s at %s, file offset 0x%" PRIx64 ", vaddr 0x%" PRIx64 "%s%s%s%s\n",
			ev->is_return ? "uretprobe" : "uprobe", ev->path ? ev->path : "?",
			ev->uoffset, ev->uaddr, ev->func[0] ? " (" : "", ev->func,
			ev->func[0] ? ")" : "", ev->is_return ? ", fires on return" : "");
		break;
	}
	slots = ev->fixed_size > KPT_HDR_SIZE + bitmap ? ev->fixed_size - KPT_HDR_SIZE - bitmap : 0;
	fprintf(f, "  record: %u bytes fixed (header %u, fault bitmap %u, slots %u), "
		"strings after\n", ev->fixed_size, KPT_HDR_SIZE, bitmap, slots);
	for (i = 0; i < ev->nargs; i++)
		explain_arg(f, ev, &ev->args[i]);
	fputc('\n', f);
	if (ev->kind == SPEC_TRACEPOINT)
		fprintf(f, "format: the tracepoint's own, events/%s/format in tracefs\n",
			ev->func);
	else
		explain_format(f, ev);
}

/* The path plan_make() chose for probe i, if not the generic one. */
static void print_path(FILE *f, const struct plan *pl, const struct probeset *ps, int i)
{
	const struct kpt_probe_entry *e = &ps->ents[i];
	int k = plan_tpbtf_slot(ps->evs, i);
	bool pair = e->agg.action == KPT_ACT_PAIR_START || e->agg.action == KPT_ACT_PAIR_END;

	if ((e->flags & KPT_PF_DIRECT) && e->agg.action == KPT_ACT_HIST)
		fprintf(f, "hist: %s taken straight from the context into its bucket%s, no record "
			"built%s%s\n", ps->evs[i].args[e->agg.value_argi].name,
			e->post.nops ? ", the filter's one comparison from the context too" : "",
			pl->dh.on ? ", its parameters constants to the verifier" : "",
			e->agg.direct == KPT_DIRECT_TPBTF ? ", each load through TP_PROTO's "
			"arguments checked by the verifier against BTF" : "");
	else if ((e->flags & KPT_PF_DIRECT) && e->agg.action == KPT_ACT_COUNT)
		fprintf(f, "count: counted beside the probe's HITS%s%s, no record built, no map "
			"lookup%s\n", e->agg.count_value ? ", its value straight from the context" :
			"", e->post.nops ? ", the filter's one comparison from the context" : "",
			pl->dh.on ? ", its parameters constants to the verifier" : "");
	else if (e->agg.action == KPT_ACT_COUNT && (e->flags & KPT_PF_OWN_STATS))
		fprintf(f, "count: the generic path (fetch, record slots), counted beside the "
			"probe's HITS, no map lookup%s%s\n", ps->evs[i].tpbtf && pl->tpbtf_not[0] ?
			"; not the direct one: " : "", ps->evs[i].tpbtf ? pl->tpbtf_not : "");
	else if (ps->evs[i].tpbtf && e->agg.action == KPT_ACT_HIST && pl->tpbtf_not[0])
		fprintf(f, "hist: the generic path (fetch, record slots), not the direct one: %s\n",
			pl->tpbtf_not);
	else if ((e->flags & KPT_PF_DIRECT) && e->agg.action == KPT_ACT_WHY)
		fprintf(f, "why: %s of the thread's log of the root's call, no record built\n",
			e->agg.why_role == KPT_WHY_ROOT ? "starts or ends and sends" : "an entry");
	else if (e->agg.action == KPT_ACT_WHY)
		fprintf(f, "why: its arguments fetched%s, kept at the start of the thread's log of "
			"the root's call\n", e->pre.nops || e->post.nops ? " and filtered" : "");
	else if ((e->flags & KPT_PF_DIRECT) && pl->dp.on)
		fprintf(f, "latency: timed straight from the context, no record built, the end "
			"and the next start in one go%s\n", e->post.nops ?
			", the filter's one comparison from the context too" : "");
	else if (e->flags & KPT_PF_DIRECT)
		fprintf(f, "latency: timed straight from the context, no record built%s%s\n",
			e->post.nops ? ", the filter's one comparison from the context too" : "",
			k >= 0 && pl->tpair[k].on ? ", each load through TP_PROTO's arguments "
			"checked by the verifier against BTF" : "");
	else if (pair && k >= 0 && pl->tpair_not[k][0])
		fprintf(f, "latency: the generic path (fetch, record slots), not the direct one: "
			"%s\n", pl->tpair_not[k]);
	else if (pl->ds.size && ps->evs[i].tpbtf)
		fprintf(f, "stream: the record written straight from TP_PROTO's arguments into "
			"the ring buffer, no copy%s, each load checked by the verifier against "
			"BTF\n", pl->ds.fcmp ? ", the filter's one comparison first" : "");
	else if (pl->ds.size)
		fprintf(f, "stream: the record written straight from the registers into the "
			"ring buffer, no copy\n");
}

/* What of its stacks probe e takes, and where they go. */
static void print_stacks(FILE *f, const struct plan *pl, const struct kpt_probe_entry *e)
{
	if (e->flags & KPT_PF_KSTACK)
		fprintf(f, "stack: the kernel stack, up to %u frames (%u shown below the "
			"tracing's own), at the end of each record\n", pl->stacks.kdepth,
			pl->stacks.kdepth < KPT_STACK_MAX ? pl->stacks.kdepth - KPT_KSTACK_SLACK :
			KPT_STACK_MAX);
	if (e->flags & KPT_PF_USTACK)
		fprintf(f, "stack: the user stack, up to %u frames with their files' build ids "
			"(frame pointers needed), at the end of each record\n", pl->stacks.udepth);
	if (e->agg.stack_keys)
		fprintf(f, "stack: the %s stack a key, its frames stored once in the kernel "
			"(at most %d distinct stacks)\n",
			e->agg.stack_keys == KPT_SK_KSTACK ? "kernel" :
			e->agg.stack_keys == KPT_SK_USTACK ? "user" : "kernel and the user",
			e->agg.stack_keys & KPT_SK_USTACK ? KPT_USTACK_KEYS : KPT_KSTACK_KEYS);
}

void plan_print(FILE *f, const struct plan *pl, const struct probeset *ps)
{
	int i, nglob = 0;

	for (i = 0; i < ps->n; i++)
		nglob += ps->p[i].origin == PROBE_GLOB;
	for (i = 0; i < ps->n; i++) {
		const struct kpt_probe_entry *e = &ps->ents[i];
		const struct ev_desc *ev = &ps->evs[i];

		explain_event(f, ev);
		if (ev->kind == SPEC_KPROBE || ev->kind == SPEC_KRETPROBE ||
		    ev->kind == SPEC_TRACEPOINT)
			fprintf(f, "attach: %s\n", backend_describe(ev));
		if (ev->not_tramp && !ev->tramp && !ev->multi && !ev->tpbtf)
			fprintf(f, "not %s: %s\n", ev->kind == SPEC_KRETPROBE ? "fexit" :
				ev->kind == SPEC_TRACEPOINT ? "tp_btf" : "fentry", ev->not_tramp);
		if (ev->kind == SPEC_KPROBE || ev->kind == SPEC_KRETPROBE)
			unsafe_explain(f, ev->func, ev->kind == SPEC_KRETPROBE);
		if (ev->target.module[0] && !ev->tramp && !ev->multi)
			fprintf(f, "not kprobe.multi: a module's function; a kprobe of its own is "
				"detached as the module unloads and attached again as it loads, "
				"where a multi link would keep it from unloading\n");
		if (ps->p[i].res.no_kprobes && !ev->target.await)
			fprintf(f, "not checked: this kernel has no kprobes (CONFIG_KPROBES off), "
				"so not whether a kernel with them takes this probe point and "
				"attaches it; checked: the symbol in this kernel's kallsyms, the "
				"arguments against its BTF, the record and the format above\n");
		print_path(f, pl, ps, i);
		print_stacks(f, pl, e);
		if (!e->pre.nops && !e->post.nops)
			continue;
		fputs("filter, before fetching: ", f);
		filter_explain(f, &e->pre, ev);
		fputs("\nfilter, after fetching: ", f);
		filter_explain(f, &e->post, ev);
		fputc('\n', f);
	}
	/* the kernel's features, probed: what this run falls back to */
	if (ps->n > 1 && !kfeat_cookies())
		fprintf(f, "\nprobes told apart: by a BPF program each for %d of them (uprobes "
			"and tracepoints first), as this kernel has no BPF cookies (Linux 5.15); "
			"kprobes past them by what each hits (its address and direction, through "
			"current_kprobe in kallsyms)\n", KPT_ID_SLOTS);
	/* asked where it changes what the run prints: a test load allocates */
	if (pl->stacks.ustacks && kfeat_compat_why())
		fprintf(f, "\nBPF object: the one without callbacks, as %s: user stacks by "
			"frame pointers only, a caller's build id not looked up\n",
			kfeat_compat_why());
	/* a glob's count, said first on stderr, is screens away by now */
	if (nglob && ps->n > 2)
		fprintf(f, "\n%d probes explained above, %d of them a glob's matches (a probe "
			"each)\n", ps->n, nglob);
}
