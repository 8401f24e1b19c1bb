/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A compiled probe as userspace sees it: how to read its records back. Made
 * by compile.c from a resolved spec_probe, read by decode/output/explain.
 * The BPF side gets struct kpt_probe_entry (include/kptrace.h) instead.
 */
#ifndef KPT_EVENT_H
#define KPT_EVENT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include "lang/spec.h"

struct tp_field;

struct ev_arg {
	char name[SPEC_NAME_MAX];
	enum spec_type type;	/* print type; a bitfield prints as its container uN */
	uint32_t count;		/* 0: scalar, else array elements */
	uint16_t slot;		/* offset of the value in the record */
	uint8_t size;		/* bytes per element in the record: 1/2/4/8, 4 for a data_loc */
	const char *data;	/* immediate string (\"..."): printed as is, nothing in the record */
	const char *text;	/* the argument as written, for explain */
	const struct spec_arg *spec;	/* parsed form, for explain */
	const struct spec_enum *enums;	/* BTF enum names (--json prints them), or NULL */
	int nenums;
	bool hidden;		/* recorded for the filter only, never printed */
	bool sym_name;		/* a symbol printed without +off/size (a tracepoint's %ps) */
	bool null_end;		/* a string array its NULL ends (KPT_FF_NULL_END): KPT_DL_END after */
	unsigned int vfmt;	/* valfmt_scalar()'s flags: VALFMT_USER on a user-space probe */
	/* the tracepoint field it reads as is (no type given, no dereference),
	 * whose name in the print fmt a key shows (a dev_t's MAJOR,MINOR, a
	 * __print_symbolic()'s name); NULL if none */
	const struct tp_field *tp_field;
};

/*
 * Where a probe attaches, as resolve leaves it (struct resolved): what the
 * backend and the loader need of the definition, so neither reads the parse
 * tree. The function, address, path and file offset are ev_desc's own.
 */
struct ev_target {
	bool by_name;		/* a kernel function by name (SYM[+offs]), not an address */
	int64_t offset;		/* SYM+offs: into the function */
	char module[SPEC_NAME_MAX];	/* MOD:SYM: the module's name, "" if none */
	char symbol[128];	/* SYM of SYM[+offs] (MOD:SYM's too), "" for an address */
	/* MOD:SYM of a module not loaded at start: no address yet; the run
	 * attaches it when the module loads and detaches it when it goes
	 * (modwatch.c) */
	bool await;
	int maxactive;		/* r<N>: a kretprobe's maxactive (through tracefs), 0 if none */
	uint64_t ref_ctr_offset;	/* a uprobe's USDT semaphore, 0 if none */
	uint32_t hz;		/* profile:hz:N: samples a second on each CPU */
	char tp_system[SPEC_NAME_MAX];	/* a tracepoint's SUBSYS/EVENT */
	char tp_event[SPEC_NAME_MAX];
};

struct tp_format;

struct ev_desc {
	int index;		/* probe table index == BPF cookie */
	char group[SPEC_NAME_MAX];
	char event[SPEC_NAME_MAX];
	enum spec_kind kind;
	bool is_return;
	bool is_user;
	uint64_t addr;		/* kprobe: resolved address printed as (sym+off/size) */
	char func[128];		/* kretprobe: function name printed after "<-"; uprobe: symbol */
	uint64_t uaddr;		/* uprobe: virtual address of the probe in the binary */
	const char *path;	/* uprobe binary */
	uint64_t uoffset;	/* uprobe: file offset */
	uint16_t fixed_size;	/* header + fault bitmap + slots */
	bool multi;		/* attached through one kprobe.multi link with others */
	bool tramp;		/* attached through a BPF trampoline: fentry, or fexit for returns */
	const char *not_tramp;	/* why not (--dry-run), where backend_choose() weighed it */
	bool tpbtf;		/* a tracepoint through tp_btf (backend_tp()) */
	uint8_t tp_nargs;	/* tpbtf: TP_PROTO's arguments */
	/* an entry its return probe pairs with (it saves arguments, or starts a
	 * latency): on after that return and off after it, so no return is ever
	 * paired with an entry whose own return was never hooked */
	bool pair_entry;
	/* latency --from/--to: 1 + the index of its pair group's first start
	 * (modes.c), 0: none; pair_start: it starts the clock */
	int pair_group;
	bool pair_start;
	/* a direct --from/--to probe on a classic tracepoint: kpt_tp2 serves
	 * it (plan.c) */
	bool pair_direct;
	bool kstack, ustack;	/* -K/-U: its records end with the stacks */
	uint16_t kstack_show;	/* -K DEPTH: the frames printed, below the tracing's own */
	struct ev_target target;
	/* a tracepoint printed as the kernel prints it (spec's whole): its format */
	const struct tp_format *tp_print;
	const struct tp_format *tp_fmt;	/* a tracepoint's format, whatever it prints */
	int nargs;
	struct ev_arg *args;
	const struct spec_probe *spec;
};

/* The index of ev's argument called name (the first), or -1. */
static inline int ev_arg_index(const struct ev_desc *ev, const char *name)
{
	int i;

	for (i = 0; i < ev->nargs; i++)
		if (!strcmp(ev->args[i].name, name))
			return i;
	return -1;
}

/* Whether argument a's slot holds ftrace's data_loc (len << 16 | offset). */
static inline bool ev_arg_is_data_loc(const struct ev_arg *a)
{
	return !a->data && spec_type_is_string(a->type) &&
	       (a->type != SPEC_T_SYMSTR || a->size == 4);
}

#endif /* KPT_EVENT_H */
