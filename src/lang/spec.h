/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Parse: one probe definition in the ftrace kprobe_events /
 * uprobe_events grammar -> struct spec_probe. Pure text work: no kernel
 * access, so every error here is found before anything is loaded. Symbols
 * and register names are kept as text (with their column) for resolve.c.
 */
#ifndef KPT_SPEC_H
#define KPT_SPEC_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "lang/types.h"

struct btf;	/* libbpf's: a whole struct's types (spec_arg.whole_btf) */

#define SPEC_NAME_MAX	64	/* ftrace's MAX_EVENT_NAME_LEN */
#define SPEC_ARGSTR_MAX	63	/* ftrace's MAX_ARGSTR_LEN: an argument after NAME=, :TYPE in */
#define SPEC_TEXT_MAX	4096	/* one definition */
#define SPEC_MAX_OPS	16	/* ftrace's FETCH_INSN_MAX */
#define SPEC_USDT_MAX_ARGS 12	/* sys/sdt.h's STAP_PROBE12 */
#define SPEC_MAX_ARGN	2048	/* $argN: PARAM_MAX_STACK, x86-64's 16 KiB stacks */

/*
 * Errors, one table: enum value and message. The column of each error is in
 * struct spec_error. Names and texts are the current kernel's (trace_probe.h
 * ERRORS) where a kernel error exists; where kptrace says more, it follows
 * the kernel's text in parentheses, so the kernel's text stays a prefix.
 */
#define SPEC_ERRORS							\
	E(OK,			"no error")				\
	E(EMPTY,		"Empty definition")			\
	E(BAD_PROBE_TYPE,	"Unknown probe type (expected p, r, f, t, u or -)")	\
	E(BAD_MAXACT,		"Invalid maxactive number")		\
	E(MAXACT_TOO_BIG,	"Maxactive is too big")			\
	E(MAXACT_UPROBE,	"Maxactive is only for kretprobes and fprobe exits") \
	E(NO_GROUP_NAME,	"Group name is not specified")		\
	E(GROUP_TOO_LONG,	"Group name is too long")		\
	E(BAD_GROUP_NAME,	"Group name must follow the same rules as C identifiers") \
	E(NO_EVENT_NAME,	"Event name is not specified")		\
	E(EVENT_TOO_LONG,	"Event name is too long")		\
	E(BAD_EVENT_NAME,	"Event name must follow the same rules as C identifiers") \
	E(NO_TARGET,		"Probe point is not specified")	\
	E(BAD_PROBE_ADDR,	"Invalid probed address or symbol")	\
	E(BAD_ADDR_SUFFIX,	"Invalid probed address suffix")	\
	E(NON_UNIQ_SYMBOL,	"The symbol is not unique")		\
	E(FAIL_REG_PROBE,	"Failed to register probe event")	\
	E(EVENT_EXIST,		"Given group/event name is already used by another event") \
	E(DIFF_PROBE_TYPE,	"Probe type is different from existing probe") \
	E(DIFF_ARG_TYPE,	"Argument type or name is different from existing probe") \
	E(SAME_PROBE,		"There is already the exact same probe event") \
	E(BAD_MEM_SYM,		"Invalid probed address or symbol (@SYM: not a kernel symbol's name)") \
	E(BAD_MEM_SYM_OFFS,	"Failed to register probe event (@SYM+OFFS: the offset is not a number)") \
	E(BAD_RETPROBE,		"Retprobe address must be an function entry") \
	E(BAD_SYM_OFFS,		"Invalid symbol offset")		\
	E(BAD_MOD_NAME,		"Invalid module name")			\
	E(BAD_UPROBE_OFFS,	"Invalid uprobe offset")		\
	E(BAD_REFCNT,		"Invalid reference counter offset")	\
	E(REFCNT_OPEN_BRACE,	"Reference counter brace is not closed") \
	E(BAD_REFCNT_SUFFIX,	"Reference counter has wrong suffix")	\
	E(FILE_NOT_FOUND,	"Failed to find the given file")	\
	E(NO_REGULAR_FILE,	"Not a regular file")			\
	E(NO_UPROBE_PATH,	"Uprobe path is not specified")	\
	E(TOO_MANY_ARGS,	"Too many arguments are specified")	\
	E(ARG_NAME_TOO_LONG,	"Argument name is too long")		\
	E(NO_ARG_NAME,		"Argument name is not specified")	\
	E(BAD_ARG_NAME,		"Argument name must follow the same rules as C identifiers") \
	E(USED_ARG_NAME,	"This argument name is already used")	\
	E(ARG_TOO_LONG,		"Argument expression is too long (at most 63 bytes after NAME=, as ftrace)") \
	E(NO_ARG_BODY,		"No argument expression")		\
	E(BAD_REG_NAME,		"Invalid register name")		\
	E(BAD_MEM_ADDR,		"Invalid memory address")		\
	E(BAD_IMM,		"Invalid immediate value")		\
	E(IMMSTR_NO_CLOSE,	"String is not closed with '\"'")	\
	E(FILE_ON_KPROBE,	"File offset is not available with kprobe") \
	E(BAD_FILE_OFFS,	"Invalid file offset value")		\
	E(SYM_ON_UPROBE,	"Symbol is not available with uprobe")	\
	E(TOO_MANY_OPS,		"Dereference is too much nested")	\
	E(DEREF_NEED_BRACE,	"Dereference needs a brace")		\
	E(BAD_DEREF_OFFS,	"Invalid dereference offset")		\
	E(DEREF_OPEN_BRACE,	"Dereference brace is not closed")	\
	E(COMM_CANT_DEREF,	"$comm can not be dereferenced")	\
	E(BAD_FETCH_ARG,	"Invalid fetch argument")		\
	E(ARRAY_NO_CLOSE,	"Array is not closed")			\
	E(BAD_ARRAY_SUFFIX,	"Array has wrong suffix")		\
	E(BAD_ARRAY_NUM,	"Invalid array size")			\
	E(ARRAY_TOO_BIG,	"Array number is too big")		\
	E(BAD_TYPE,		"Unknown type is specified")		\
	E(IPV6_ARRAY,		"Invalid array size (ipv6 is the 16 bytes of one address: no [N])") \
	E(BAD_STRING,		"String accepts only memory argument")	\
	E(BAD_SYMSTRING,	"Symbol String doesn't accept data/userdata") \
	E(BAD_BITFIELD,		"Invalid bitfield")			\
	E(BAD_VAR,		"Invalid $-variable specified")		\
	E(BAD_VAR_ARGS,		"Invalid $-variable specified ($arg* must be an independent parameter without name etc.)") \
	E(NEED_STRING_TYPE,	"$comm and immediate-string only accepts string type") \
	E(BAD_STACK_NUM,	"Invalid stack number")			\
	E(BAD_ARG_NUM,		"Invalid argument number")		\
	E(RETVAL_ON_PROBE,	"$retval is not available on probe")	\
	E(NOFENTRY_ARGS,	"$arg* can be used only on function entry or exit") \
	E(BAD_INSN_BNDRY,	"Probe point is not an instruction boundary") \
	E(BAD_CHAR,		"Control character in definition")	\
	E(TOO_LONG,		"Definition is too long")		\
	E(NO_FILTER,		"Filter expression is not specified")	\
	E(BAD_TP_NAME,		"Tracepoint must be SUBSYSTEM/EVENT")	\
	E(NOT_ON_TP,		"Not available on a tracepoint: use its fields by name") \
	E(NOSUP_BTFARG,		"BTF is not available or not supported (BTF arguments are only for kernel function entries and returns)") \
	E(NO_BTF_ENTRY,		"No BTF entry for this probe point")	\
	E(NO_BTFARG,		"This variable is not found at this probe point") \
	E(BAD_TYPE4STR,		"This type does not fit for string.")	\
	E(NO_PTR_STRCT,		"This is not a pointer to union/structure.") \
	E(NO_BTF_FIELD,		"This field is not found.")		\
	E(BAD_HYPHEN,		"Failed to parse single hyphen. Forgot '>'?") \
	E(NOSUP_DAT_ARG,	"Non pointer structure/union argument is not supported.") \
	E(NO_RETVAL,		"This function returns 'void' type")	\
	E(DOUBLE_ARGS,		"$arg* can be used only once in the parameters") \
	E(BAD_BTF_TYPE,		"This type can not be printed: give a member or a :TYPE") \
	E(NO_BTF_STRUCT,	"No such struct or union in BTF")	\
	E(ARGS_2LONG,		"$arg* failed because the argument list is too long") \
	E(BAD_MAXACT_TYPE,	"Maxactive is only for function exit")	\
	E(BAD_PROFILE,		"A profile probe is profile:hz:N, N samples a second on each CPU (1 to 10000)") \
	E(PROFILE_ARGS,		"A profile probe takes no arguments: its keys are kstack, ustack, comm, pid, cpu") \
	E(BAD_USDT,		"A USDT probe is u[:[GRP/]EVENT] PATH:PROVIDER:NAME, globs allowed (a function is p:PATH:SYMBOL)") \
	E(BAD_USDT_ARG,		"A USDT probe's arguments are its note's: arg1 to arg12") \
	E(FPROBE_FUNC_ONLY,	"Failed to register probe event (an fprobe is on a kernel function's entry or exit: no +offs, address or path)")

#define E(a, b) SPEC_ERR_##a,
enum spec_err { SPEC_ERRORS SPEC_ERR__COUNT };
#undef E

struct spec_error {
	enum spec_err code;
	int col;		/* 0-based byte column in the definition text */
};

const char *spec_strerror(enum spec_err code);

enum spec_kind {
	SPEC_KPROBE = 1,	/* p: kernel SYM[+offs] | MOD:SYM | MEMADDR; f: SYM */
	SPEC_KRETPROBE,		/* r[N]: kernel function return; f[N]: SYM%return */
	SPEC_UPROBE,		/* p: PATH:SYMBOL[+offs] | PATH:OFFSET; u: PATH:PROVIDER:NAME */
	SPEC_URETPROBE,		/* r: PATH:SYMBOL | PATH:OFFSET */
	SPEC_REMOVE,		/* -:[GRP/]EVENT, only meaningful in -f files */
	SPEC_TRACEPOINT,	/* t[:[GRP/]EVENT] SUBSYS/TRACEPOINT [FIELDS] */
	SPEC_PROFILE,		/* profile:hz:N: a timer on each CPU (bpftrace's name) */
};

/* One fetch instruction, ftrace's fetch_insn before the store stage. */
enum spec_op_kind {
	SPEC_OP_REG = 1,	/* %NAME: reg holds the name */
	SPEC_OP_STACK,		/* $stackN: param */
	SPEC_OP_STACKP,		/* $stack */
	SPEC_OP_RETVAL,		/* $retval */
	SPEC_OP_ARG,		/* $argN: param = N (1-based, as written); a USDT probe's
				 * argN likewise, until prepare/usdtdef.c rewrites it */
	SPEC_OP_COMM,		/* $comm */
	SPEC_OP_IMM,		/* \IMM, or the address of @ADDR (then followed by DEREF 0) */
	SPEC_OP_DATA,		/* \"string": data */
	SPEC_OP_SYMBOL,		/* @SYM[+|-offs]: sym, imm = offs, then DEREF 0 as in the
				 * kernel: @ADDR/@SYM mean the memory at that address */
	SPEC_OP_FOFFS,		/* @+OFFSET (uprobe file offset): imm */
	SPEC_OP_DEREF,		/* +|-OFFS(...): imm = offset */
	SPEC_OP_UDEREF,		/* +|-uOFFS(...): imm = offset, user memory */
	SPEC_OP_TPFIELD,	/* a tracepoint field by name: sym; resolve finds its layout */
	SPEC_OP_BTFVAR,		/* a function parameter by name (sym), until btfarg.c
				 * makes it ARG or EDATA */
	SPEC_OP_EDATA,		/* at a return: entry argument saved in slot param */
};

struct spec_op {
	enum spec_op_kind kind;
	int col;		/* column of this operand in the definition */
	uint32_t param;
	int64_t imm;
	char reg[16];		/* SPEC_OP_REG */
	char *sym;		/* SPEC_OP_SYMBOL (heap) */
	char *data;		/* SPEC_OP_DATA (heap) */
};

/* An enum's value and its name, from BTF, for output by name. */
struct spec_enum {
	int64_t val;
	char *name;			/* heap */
};

struct spec_arg {
	char name[SPEC_NAME_MAX];	/* NAME= or ftrace's default "argN" */
	char *text;			/* the argument as written, "NAME=BODY:TYPE" (heap) */
	int col;			/* column of the argument in the definition */
	int body_col;			/* column of the body (after NAME=) */
	enum spec_type type;		/* explicit, or ftrace's default */
	bool type_given;
	uint32_t count;			/* array length, 0 for a scalar */
	/* bitfield b<width>@<offset>/<container>; width 0 = none */
	uint8_t bf_width, bf_offset, bf_container;
	int type_col;			/* column of the type after ':', or of the body */
	/*
	 * BTF: what btfarg.c still has to resolve against the kernel's types
	 * before the checks of spec_check_arg() can run (SPEC_BTF_*).
	 */
	uint8_t btf;
	char *cast;			/* "(STRUCT)" before the base: the struct's name (heap) */
	int cast_col;
	char *chain;			/* "->member.member->member" after the base (heap) */
	int chain_col;
	/* an enum-typed BTF value: its names (heap), for --json */
	struct spec_enum *enums;
	int nenums;
	/* the value's own bytes where BTF gives its type (btfarg.c), 0 if not
	 * known: an :errno is read at this width (compile.c) */
	uint8_t width;
	/* ops[0] is the base, then dereferences innermost first, as ftrace stages them */
	int nops;
	struct spec_op ops[SPEC_MAX_OPS];
	/* a tracepoint field only the filter names: fetched, never printed
	 * (spec_add_filter_field()) */
	bool hidden;
	/* :%pd (a dentry's name) or :%pD (a file's): 'd' or 'D'; btfarg.c
	 * adds the dereferences to the name, with offsets from BTF */
	char vfs;
	/* :struct (:*), :struct2, :struct3: the whole struct, its nested
	 * structs to this depth; btfarg.c makes it an array of its bytes and
	 * sets its type in the kernel's BTF, which out/structfmt.c prints */
	uint8_t whole;
	uint32_t whole_type;
	const struct btf *whole_btf;
	/* a value btfarg.c walked through BTF alone (a parameter, then "->"
	 * hops through pointers to structs): the bytes of what it ends at (8:
	 * the parameter itself), which a tp_btf program may load as the
	 * verifier checks them against BTF (plan.c); 0: not such a value,
	 * btf_not saying why where BTF was walked */
	uint8_t btf_load;
	const char *btf_not;
};

/* spec_arg.btf */
#define SPEC_BTF_DEFER	(1u << 0)	/* checks wait for btfarg.c */
#define SPEC_BTF_ARGN	(1u << 1)	/* a bare "$argN": named and typed from BTF when known */
#define SPEC_BTF_ALL	(1u << 2)	/* "$arg*": every parameter */
#define SPEC_BTF_RETVAL	(1u << 3)	/* a bare "$retval" of a kretprobe: typed from BTF
					 * (an :errno its width) */

/* Entry arguments a return probe saves (ftrace's entry data). */
#define SPEC_MAX_EDATA	8

struct spec_probe {
	char *text;			/* the definition as given (heap) */
	enum spec_kind kind;
	int maxactive;			/* r<N>:, 0 if not given */
	char group[SPEC_NAME_MAX];	/* given, or "kprobes" / "uprobes" */
	char event[SPEC_NAME_MAX];	/* given, or ftrace's default name */
	bool group_given;
	bool event_given;
	int target_col;			/* column of the probe point */
	/* kprobe target */
	char module[SPEC_NAME_MAX];	/* MOD:SYM, empty if none */
	char *symbol;			/* heap, NULL for a raw address */
	int64_t offset;			/* SYM+offs */
	uint64_t addr;			/* MEMADDR when symbol == NULL */
	uint32_t hz;			/* profile:hz:N */
	/* uprobe target */
	char *container;		/* CONTAINER:/PATH: the container whose PATH it is (heap) */
	char *path;			/* heap */
	char *usym;			/* PATH:SYMBOL, NULL for PATH:OFFSET (heap) */
	uint64_t uoffset;		/* PATH:OFFSET, or +offs after the symbol */
	uint64_t ref_ctr_offset;	/* PATH:OFFSET(REF_CTR_OFFSET): the USDT semaphore's
					 * file offset, which the kernel counts up while attached */
	bool has_ref_ctr;
	/* u: a USDT probe by its note's provider and name (each may be a
	 * glob): prepare/usdtdef.c makes a p: definition of each location */
	bool usdt;
	char usdt_provider[SPEC_NAME_MAX];
	char usdt_name[SPEC_NAME_MAX];
	/* tracepoint */
	char tp_system[SPEC_NAME_MAX];	/* SUBSYS of SUBSYS/TRACEPOINT */
	char tp_event[SPEC_NAME_MAX];
	int nargs;
	struct spec_arg *args;		/* heap, nargs entries */
	/* " if EXPR": the expression as written (heap), NULL if none. filter.c
	 * compiles it once the record layout is known. */
	char *filter;
	int filter_col;			/* column of the expression's first character */
	/* A return probe's entry arguments, saved at entry (1-based numbers):
	 * SPEC_OP_EDATA's param indexes this list. Set by btfarg.c. */
	int nedata;
	uint32_t edata_arg[SPEC_MAX_EDATA];
	bool fentry;			/* at a function's entry: $argN and BTF names hold */
	/* "p:A B ...": read as event A on B, as ftrace does; the text also
	 * reads as the "p:SYM ARGS" shorthand with B a parameter by name.
	 * btfarg.c reparses with SPEC_PARSE_SHORTHAND when B is no symbol. */
	bool alt_shorthand;
	/* the kernel symbol, the uprobe's SYMBOL or the tracepoint's SUBSYS or
	 * EVENT is a glob: one probe per match (prepare.c) */
	bool glob;
	bool fprobe;			/* f[N]:, ftrace's fprobe event: SYM[%return] only */
	bool whole;			/* a tracepoint given without fields: all, its own line */
	/* "-:EVENT PROBEPOINT [ARGS]": which of the event's probes to remove,
	 * as written (heap); NULL removes them all */
	char *remove_match;
	/* text the kernel's parser ignores and so do we (after a dereference's
	 * closing brace): its column, for a warning; 0 if none */
	int ignored_col;
};

/*
 * CONTAINER:/PATH...: a uprobe's path inside a container (prepare.c reads it
 * through a process of the container). No '/' before the first ':' and one
 * right after it: a kernel MOD:SYM's symbol never starts with '/'. The ':'
 * of [s, e) that ends CONTAINER, or NULL.
 */
const char *spec_container_colon(const char *s, const char *e);

/*
 * Parse one definition. Returns 0, or -EINVAL with *err set (code and
 * column). *out is always safe to pass to spec_free().
 */
int spec_parse(const char *text, struct spec_probe *out, struct spec_error *err);
void spec_free(struct spec_probe *p);

#define SPEC_PARSE_SHORTHAND	(1u << 0)	/* "p:NAME ..." names the probe point */
int spec_parse_ex(const char *text, struct spec_probe *out, struct spec_error *err,
		  unsigned int flags);

/*
 * A tracepoint definition's filter may name any field of its tracepoint, as
 * ftrace's event filters do, not only those it lists: add field name to p
 * as a hidden argument (recorded for the filter, never printed), at column
 * col (where the filter names it). 0, or -EINVAL with *err set.
 */
/*
 * A tracepoint given without fields prints the kernel's own line (its print
 * fmt): each of its fields added to p as an argument of its name, p->whole
 * set. 0, or -EINVAL with *err set.
 */
int spec_add_whole_field(struct spec_probe *p, const char *name, struct spec_error *err);
int spec_add_filter_field(struct spec_probe *p, const char *name, int col,
			  struct spec_error *err);

/*
 * The checks ftrace's finalize_fetch_insn() makes (string needs memory,
 * arrays, slots), for an argument whose ops btfarg.c just rewrote. 0, or
 * -EINVAL with *err set.
 */
int spec_check_arg(const struct spec_probe *p, const struct spec_arg *a, struct spec_error *err);

/*
 * Definition b names the event a (an earlier one) has. The kernel appends
 * it to that event as one more probe point when both are of one kind and
 * direction with the same argument names, types and counts, and refuses it
 * otherwise (append_trace_kprobe(), append_trace_uprobe()), as here: 0 to
 * append, or -EINVAL with *err set, the caret at b's head or at its
 * argument that differs. After btfarg.c, which settles names and types.
 */
int spec_check_append(const struct spec_probe *a, const struct spec_probe *b,
		      struct spec_error *err);

/*
 * Whether a and b define one event exactly: name, probe point, arguments
 * and filter. Two globs matching one function give two such definitions,
 * which are one probe (prepare.c's check_appends()).
 */
bool spec_same_definition(const struct spec_probe *a, const struct spec_probe *b);

/*
 * "-:EVENT PROBEPOINT [ARGS]": whether probe p is one that removal r names
 * (its probe point and first arguments as written). True for any of the
 * event's probes when r names none.
 */
bool spec_removal_matches(const struct spec_probe *r, const struct spec_probe *p);
/* The last member of a's BTF chain ("f_flags" of "->f_path.dentry->f_flags"), or NULL. */
const char *spec_chain_last(const struct spec_arg *a);
/* Whether a was named by hand (NAME=...), not by ftrace's default. */
bool spec_arg_named(const struct spec_arg *a);

/*
 * Print "kptrace: error: MSG" and the definition with a caret under col, as
 * the kernel's tracing/error_log does, to f.
 */
void spec_print_error(FILE *f, const char *text, const char *msg, int col);
/* The same as "kptrace: LEVEL: MSG" ("warning", "note"). */
void spec_print_diag(FILE *f, const char *level, const char *text, const char *msg, int col);

#endif /* KPT_SPEC_H */
