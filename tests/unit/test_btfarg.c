// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * BTF arguments against this machine's kernel BTF: each definition by name
 * must become exactly the ops of its register form (same base, same
 * dereferences, same type and bitfield), and each mistake an error with its
 * caret. Offsets the register forms need are read from BTF here with
 * libbpf's plain API, independently of src/prepare/btfarg.c's walk.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "check.h"
#include "prepare/btfarg.h"
#include "prepare/compile.h"
#include "out/output.h"
#include "lang/spec.h"

static struct btf *kbtf;
static struct sysinfo si;

/* Bit offset and bitfield size of STRUCT.MEMBER (direct members only). */
static int member(const char *sname, const char *mname, unsigned int *bitoff,
		  unsigned int *bitsize)
{
	int id = btf__find_by_name_kind(kbtf, sname, BTF_KIND_STRUCT);
	const struct btf_type *t;
	int i;

	if (id <= 0)
		return -1;
	t = btf__type_by_id(kbtf, id);
	for (i = 0; i < btf_vlen(t); i++) {
		const struct btf_member *m = btf_members(t) + i;

		if (!strcmp(btf__name_by_offset(kbtf, m->name_off), mname)) {
			*bitoff = btf_member_bit_offset(t, i);
			*bitsize = btf_member_bitfield_size(t, i);
			return 0;
		}
	}
	return -1;
}

/* Bit offset of MEMBER in struct or union id, also inside anonymous members. */
static int member_in(int id, const char *mname, unsigned int *bitoff)
{
	const struct btf_type *t = btf__type_by_id(kbtf, id);
	unsigned int sub;
	int i, mid;

	while (t && (btf_is_typedef(t) || btf_is_const(t) || btf_is_volatile(t))) {
		id = t->type;
		t = btf__type_by_id(kbtf, id);
	}
	if (!t || (!btf_is_struct(t) && !btf_is_union(t)))
		return -1;
	for (i = 0; i < btf_vlen(t); i++) {
		const struct btf_member *m = btf_members(t) + i;
		const char *n = btf__name_by_offset(kbtf, m->name_off);

		mid = (int)m->type;
		if (n && !strcmp(n, mname)) {
			*bitoff = btf_member_bit_offset(t, i);
			return 0;
		}
		if ((!n || !*n) && !member_in(mid, mname, &sub)) {
			*bitoff = btf_member_bit_offset(t, i) + sub;
			return 0;
		}
	}
	return -1;
}

static int resolve(const char *text, struct spec_probe *p, char *msg, size_t len, int *col)
{
	struct spec_error e;

	if (spec_parse(text, p, &e)) {
		snprintf(msg, len, "%s", spec_strerror(e.code));
		*col = e.col;
		return -EINVAL;
	}
	return btfarg_resolve(&si, p, msg, len, col);
}

static void same_args(const struct spec_arg *a, const struct spec_arg *b, const char *ctx)
{
	int j;

	CHECK(a->nops == b->nops, "%s: %d ops, want %d", ctx, a->nops, b->nops);
	for (j = 0; j < a->nops && j < b->nops; j++) {
		CHECK(a->ops[j].kind == b->ops[j].kind, "%s: op %d kind %d, want %d", ctx, j,
		      a->ops[j].kind, b->ops[j].kind);
		CHECK(a->ops[j].param == b->ops[j].param && a->ops[j].imm == b->ops[j].imm,
		      "%s: op %d param/imm %u/%lld, want %u/%lld", ctx, j, a->ops[j].param,
		      (long long)a->ops[j].imm, b->ops[j].param, (long long)b->ops[j].imm);
	}
	CHECK(a->type == b->type, "%s: type %s, want %s", ctx, spec_type_name(a->type),
	      spec_type_name(b->type));
	CHECK(a->bf_width == b->bf_width && a->bf_offset == b->bf_offset &&
	      a->bf_container == b->bf_container, "%s: bitfield b%u@%u/%u, want b%u@%u/%u", ctx,
	      a->bf_width, a->bf_offset, a->bf_container, b->bf_width, b->bf_offset,
	      b->bf_container);
	CHECK(a->count == b->count, "%s: count", ctx);
}

/* by-name definition == register definition, argument for argument, names too */
static void equiv(const char *byname, const char *byreg, const char *const *names)
{
	struct spec_probe a, b;
	struct spec_error e;
	char msg[512];
	int col, i, err;

	err = resolve(byname, &a, msg, sizeof(msg), &col);
	CHECK(!err, "%s: %s at %d", byname, msg, col);
	CHECK(!spec_parse(byreg, &b, &e), "%s: %s", byreg, spec_strerror(e.code));
	if (!err && b.nargs) {
		CHECK(a.nargs == b.nargs, "%s: %d args, want %d", byname, a.nargs, b.nargs);
		for (i = 0; i < a.nargs && i < b.nargs; i++) {
			same_args(&a.args[i], &b.args[i], byname);
			if (names)
				CHECK_STR(a.args[i].name, names[i], byname);
		}
	}
	spec_free(&a);
	spec_free(&b);
}

static void refused(const char *caret_text, enum spec_err code, const char *hint)
{
	char text[512], msg[512];
	const char *c = strchr(caret_text, '^');
	struct spec_probe p;
	int col = -2, err, want;

	want = (int)(c - caret_text);
	snprintf(text, sizeof(text), "%.*s%s", want, caret_text, c + 1);
	err = resolve(text, &p, msg, sizeof(msg), &col);
	CHECK(err < 0, "%s: accepted", text);
	CHECK(!strncmp(msg, spec_strerror(code), strlen(spec_strerror(code))),
	      "%s: message '%s', want '%s'", text, msg, spec_strerror(code));
	CHECK(col == want, "%s: caret at %d, want %d (%s)", text, col, want, msg);
	if (hint)
		CHECK(strstr(msg, hint), "%s: '%s' lacks '%s'", text, msg, hint);
	spec_free(&p);
}

static void test_names(void)
{
	static const char *const n1[] = { "dfd", "filename", "arg3", "arg4" };
	static const char *const n2[] = { "dfd", "filename", "how" };
	static const char *const n3[] = { "arg1", "r" };
	char reg[512];
	unsigned int off, bs;

	/* the example, and ftrace's naming: names, else argN */
	equiv("p:do_sys_openat2 dfd filename:string how->flags how->mode",
	      "p:do_sys_openat2 dfd=$arg1:s32 filename=+0($arg2):string +0($arg3):u64 "
	      "+8($arg3):u64", n1);
	/* $arg* is every parameter by name; a bare $argN takes its name */
	equiv("p:do_sys_openat2 $arg*", "p:do_sys_openat2 $arg1:s32 $arg2:x64 $arg3:x64", n2);
	equiv("p:do_sys_openat2 $arg2:string $arg1",
	      "p:do_sys_openat2 +0($arg2):string $arg1:s32", (const char *const[]){
		      "filename", "dfd" });
	/* named $argN stays untyped, as the kernel's */
	equiv("p:do_sys_openat2 d=$arg1", "p:do_sys_openat2 d=$arg1", NULL);
	/* casts, and chains after registers and $argN */
	equiv("p:do_sys_openat2 (open_how)%dx->resolve (open_how)$arg3->mode",
	      "p:do_sys_openat2 +16(%dx):u64 +8($arg3):u64", NULL);
	/* members through two structs: sk->__sk_common.skc_dport, a __be16 */
	if (!member("sock_common", "skc_dport", &off, &bs)) {
		snprintf(reg, sizeof(reg), "p:tcp_sendmsg +%u($arg1):u16 size=$arg3:u64", off / 8);
		equiv("p:tcp_sendmsg sk->__sk_common.skc_dport size", reg, NULL);
	}
	/* a bitfield member: b<width>@<bit>/<container> */
	if (!member("sk_buff", "pkt_type", &off, &bs) && bs) {
		snprintf(reg, sizeof(reg), "p:ip_rcv +%u($arg1):b%u@%u/8", off / 8, bs, off % 8);
		equiv("p:ip_rcv skb->pkt_type", reg, NULL);
	}
	/* a char array member as a string: the array itself */
	if (!member("task_struct", "comm", &off, &bs)) {
		snprintf(reg, sizeof(reg), "p:wake_up_process +%u($arg1):string", off / 8);
		equiv("p:wake_up_process p->comm:string", reg, NULL);
	}
	/* $retval has the function's type, whatever its name */
	equiv("r:vfs_read $retval r=$retval", "r:vfs_read $retval:s64 r=$retval:s64",
	      n3);
}

/*
 * :%pd and :%pD (kprobe_args_vfs.tc): the kernel rewrites them into
 * +0(+OFFS(ARG)):string with d_name.name's offset in struct dentry, after
 * f_path.dentry's in struct file for %pD; unnamed, they are argN.
 */
static void test_vfs(void)
{
	static const char *const a1[] = { "arg1" }, *const nm[] = { "name" };
	static const char *const two[] = { "arg1", "arg2" };
	unsigned int dname, qname, fpath, pdent;
	char reg[512];

	/* d_name: in an anonymous union with __d_name since 6.14 */
	if (member_in(btf__find_by_name_kind(kbtf, "dentry", BTF_KIND_STRUCT), "d_name", &dname) ||
	    member_in(btf__find_by_name_kind(kbtf, "qstr", BTF_KIND_STRUCT), "name", &qname) ||
	    member_in(btf__find_by_name_kind(kbtf, "file", BTF_KIND_STRUCT), "f_path", &fpath) ||
	    member_in(btf__find_by_name_kind(kbtf, "path", BTF_KIND_STRUCT), "dentry", &pdent)) {
		CHECK(0, "no struct dentry/qstr/file/path members in this BTF");
		return;
	}
	snprintf(reg, sizeof(reg), "p:dput arg1=+0(+%u($arg1)):string", (dname + qname) / 8);
	equiv("p:dput $arg1:%pd", reg, a1);
	snprintf(reg, sizeof(reg), "p:vfs_read name=+0(+%u(+%u($arg1))):string",
		 (dname + qname) / 8, (fpath + pdent) / 8);
	equiv("p:vfs_read name=$arg1:%pD", reg, nm);
	/* any base: a parameter by name, a register, a dereference */
	snprintf(reg, sizeof(reg), "p:vfs_read +0(+%u(+%u($arg1))):string %%si",
		 (dname + qname) / 8, (fpath + pdent) / 8);
	equiv("p:vfs_read file:%pD %si", reg, (const char *const[]){ "arg1", "arg2" });
	snprintf(reg, sizeof(reg), "p:vfs_read %%ax +0(+%u(+8(%%di))):string",
		 (dname + qname) / 8);
	equiv("p:vfs_read %ax +8(%di):%pd", reg, two);
}

/* At a return, parameters come from entry data: slots, deduplicated. */
static void test_return(void)
{
	struct spec_probe p;
	char msg[512];
	int col;

	CHECK(!resolve("r:vfs_read $retval buf:string file->f_flags count $arg1", &p, msg,
		       sizeof(msg), &col), "%s", msg);
	CHECK_INT(p.nedata, 3, "edata slots");
	CHECK_INT(p.edata_arg[0], 2, "slot 0 is $arg2");
	CHECK_INT(p.edata_arg[1], 1, "slot 1 is $arg1");
	CHECK_INT(p.edata_arg[2], 3, "slot 2 is $arg3");
	CHECK_INT(p.args[0].type, SPEC_T_S64, "$retval: ssize_t");
	CHECK_STR(p.args[0].name, "arg1", "$retval's name");
	CHECK_INT(p.args[1].ops[0].kind, SPEC_OP_EDATA, "buf from entry data");
	CHECK_INT(p.args[1].ops[0].param, 0, "buf in slot 0");
	CHECK_INT(p.args[1].nops, 2, "buf: saved pointer, then the string");
	CHECK_INT(p.args[2].ops[0].param, 1, "file in slot 1");
	CHECK_INT(p.args[2].type, SPEC_T_U32, "f_flags: unsigned int");
	CHECK_INT(p.args[3].type, SPEC_T_U64, "count: size_t");
	CHECK_INT(p.args[4].ops[0].param, 1, "$arg1 reuses slot 1");
	CHECK_STR(p.args[4].name, "file", "$arg1 is named file");
	spec_free(&p);
	/* no BTF needed for a named $argN at a return */
	CHECK(!resolve("r:vfs_read a=$arg2", &p, msg, sizeof(msg), &col), "%s", msg);
	CHECK_INT(p.args[0].ops[0].kind, SPEC_OP_EDATA, "named $arg2 at a return");
	CHECK_INT(p.args[0].type, SPEC_T_X64, "named: untyped");
	spec_free(&p);
	/*
	 * :errno at the value's own width (issue 37): vfs_read's ssize_t and
	 * filp_open's pointer are 8 bytes, vfs_open's int 4, a parameter by
	 * name its own; an errno BTF cannot type stays an int (0: compile's).
	 */
	CHECK(!resolve("r:vfs_read $retval:errno count:errno", &p, msg, sizeof(msg), &col), "%s",
	      msg);
	CHECK(p.args[0].type == SPEC_T_ERRNO && p.args[0].width == 8, "ssize_t $retval:errno: %u",
	      p.args[0].width);
	CHECK_INT(p.args[1].width, 8, "size_t count:errno");
	spec_free(&p);
	CHECK(!resolve("r:filp_open $retval:errno", &p, msg, sizeof(msg), &col), "%s", msg);
	CHECK_INT(p.args[0].width, 8, "a pointer's $retval:errno (ERR_PTR)");
	spec_free(&p);
	CHECK(!resolve("r:vfs_open $retval:errno", &p, msg, sizeof(msg), &col), "%s", msg);
	CHECK_INT(p.args[0].width, 4, "an int's $retval:errno");
	spec_free(&p);
	CHECK(!resolve("r:vfs_read e=%ax:errno", &p, msg, sizeof(msg), &col), "%s", msg);
	CHECK_INT(p.args[0].width, 0, "a register's errno: no BTF width");
	spec_free(&p);
	/* at most SPEC_MAX_EDATA saved arguments */
	CHECK(resolve("r:vfs_read $arg1 $arg2 $arg3 $arg4 $arg5 $arg6 $arg7 $arg8 $arg9", &p, msg,
		      sizeof(msg), &col) < 0, "nine entry arguments");
	spec_free(&p);
}

/* "p:A B": ftrace's event A on B, unless only A is a symbol */
static void test_shorthand(void)
{
	struct spec_probe p;
	char msg[512];
	int col;

	CHECK(!resolve("p:do_sys_openat2 dfd", &p, msg, sizeof(msg), &col), "%s", msg);
	CHECK_STR(p.symbol, "do_sys_openat2", "shorthand target");
	CHECK_INT(p.nargs, 1, "shorthand args");
	spec_free(&p);
	CHECK(!resolve("p:myprobe vfs_read count", &p, msg, sizeof(msg), &col), "%s", msg);
	CHECK_STR(p.symbol, "vfs_read", "ftrace's reading");
	CHECK_STR(p.event, "myprobe", "ftrace's event");
	spec_free(&p);
	CHECK(!resolve("p:wake_up_process p->comm:string", &p, msg, sizeof(msg), &col), "%s",
	      msg);
	CHECK_STR(p.symbol, "wake_up_process", "a chain is an argument");
	spec_free(&p);
}

static void test_errors(void)
{
	refused("p:do_sys_openat2 ^dfdd", SPEC_ERR_NO_BTFARG, "did you mean 'dfd'");
	refused("p:do_sys_openat2 ^nosuch", SPEC_ERR_NO_BTFARG, "dfd, filename, how");
	refused("p:do_sys_openat2 how->^flagz", SPEC_ERR_NO_BTF_FIELD, "did you mean 'flags'");
	refused("p:do_sys_openat2 how->flags.^x", SPEC_ERR_NO_PTR_STRCT, NULL);
	refused("p:do_sys_openat2 dfd->^x", SPEC_ERR_NO_PTR_STRCT, NULL);
	/* fprobe_syntax_errors.tc's: at the member, at the value */
	refused("f:vfs_read%return $retval->^foo", SPEC_ERR_NO_PTR_STRCT, NULL);
	refused("f:vfs_read file->^foo", SPEC_ERR_NO_BTF_FIELD, NULL);
	refused("f:vfs_read ^file:string", SPEC_ERR_BAD_TYPE4STR, NULL);
	refused("f:vfs_read x=file->^f_flags:string", SPEC_ERR_BAD_TYPE4STR, NULL);
	refused("p:vfs_read file->f_path.^dentry:string", SPEC_ERR_BAD_TYPE4STR, NULL);
	refused("p:do_sys_openat2 how.^flags", SPEC_ERR_NOSUP_DAT_ARG, NULL);
	/* a bare $argN: looked up in BTF first, whatever its number (6.12) */
	refused("p:vfs_read ^$arg10000", SPEC_ERR_NO_BTFARG, "vfs_read(file, buf, count, pos)");
	refused("f:vfs_read ^$arg10000", SPEC_ERR_NO_BTFARG, NULL);
	refused("r:vfs_read ^$arg3000", SPEC_ERR_NO_BTFARG, NULL);
	refused("p:no_such_function_xyz ^$arg10000", SPEC_ERR_BAD_ARG_NUM, NULL);

	refused("p:do_sys_openat2 ^how:string", SPEC_ERR_BAD_TYPE4STR, "open_how");
	refused("p:do_sys_openat2 ^dfd:string", SPEC_ERR_BAD_TYPE4STR, NULL);
	refused("p:do_sys_openat2 (^nosuchstruct)$arg3->x", SPEC_ERR_NO_BTF_STRUCT, NULL);
	refused("p:wake_up_process ^p->se", SPEC_ERR_BAD_BTF_TYPE, "struct sched_entity");
	refused("r:exit_creds ^$retval", SPEC_ERR_NO_RETVAL, NULL);
	refused("p:do_sys_openat2 ^$arg9", SPEC_ERR_NO_BTFARG, NULL);
	refused("p:do_sys_openat2 dfd ^$arg1", SPEC_ERR_USED_ARG_NAME, NULL);
	refused("p ^no_such_function_xyz dfd", SPEC_ERR_NO_BTF_ENTRY, NULL);
	/* the register form keeps its own errors when BTF can't help */
	refused("p:do_sys_openat2 d=$arg1:^string", SPEC_ERR_BAD_STRING, NULL);
}

/*
 * A tracepoint's TP_PROTO arguments (tp_btf): $argN of a kprobe's ops, N
 * counted after __data, the offsets libbpf reads here; a bare name is the
 * record's field where the format has it (prev_pid), else the argument.
 */
static void test_tracepoint(void)
{
	unsigned int off, bs, off2;
	char reg[512];

	if (btf__find_by_name_kind(kbtf, "__probestub_sched_switch", BTF_KIND_FUNC) <= 0 &&
	    btf__find_by_name_kind(kbtf, "__bpf_trace_sched_switch", BTF_KIND_FUNC) <= 0)
		return;
	if (!member("task_struct", "exit_code", &off, &bs) &&
	    !member("task_struct", "comm", &off2, &bs)) {
		snprintf(reg, sizeof(reg), "p:x +%u($arg1):s32 +%u($arg1):string", off / 8,
			 off2 / 8);
		equiv("t:sched/sched_process_exit p->exit_code p->comm:string", reg,
		      (const char *const[]){ "arg1", "arg2" });
	}
	if (!member("task_struct", "pid", &off, &bs)) {
		snprintf(reg, sizeof(reg), "p:x +%u($arg2):s32 +%u($arg3):s32 $arg3:x64", off / 8,
			 off / 8);
		equiv("t:sched/sched_switch prev->pid next->pid next", reg, NULL);
	}
	/* :struct: the words of the struct pointed to, or of the member reached */
	equiv("p:do_sys_openat2 how:struct", "p:x +0($arg3):x64[3]", NULL);
	if (!member("task_struct", "se", &off, &bs)) {
		long long sz = btf__resolve_size(kbtf, btf__find_by_name_kind(kbtf, "sched_entity",
									   BTF_KIND_STRUCT));

		snprintf(reg, sizeof(reg), "p:x +%u($arg1):x64[%lld]", off / 8,
			 (sz + 7) / 8 > 64 ? 64 : (sz + 7) / 8);
		equiv("t:sched/sched_process_exit p->se:struct2", reg, NULL);
	}
	refused("p:do_sys_openat2 dfd:^struct", SPEC_ERR_BAD_BTF_TYPE, "not a struct in memory");
	refused("t:sched/sched_switch prev->^pidd", SPEC_ERR_NO_BTF_FIELD, "did you mean 'pid'");
	refused("t:sched/sched_switch ^nosuch->pid", SPEC_ERR_NO_BTFARG,
		"sched_switch(preempt, prev, next");
}

/*
 * spec_arg.btf_load: what a tp_btf program may load of a value walked
 * through BTF alone (plan.c's direct histogram): a scalar member's bytes,
 * a parameter's word; none, with the reason, for a pointer value (the
 * verifier's to keep), offsets of its own, a char array at the end.
 */
static void test_btf_load(void)
{
	static const struct {
		const char *arg;
		int load;
		const char *why;
	} cases[] = {
		{ "prev->pid", 4, NULL },
		{ "prev->se.sum_exec_runtime", 8, NULL },
		{ "preempt", 8, NULL },
		{ "prev->mm->map_count", 4, NULL },
		{ "prev->pid:u16", 4, NULL },	/* narrower reads are plan.c's to allow */
		{ "prev->mm", 0, "a pointer" },
		{ "next", 0, "a pointer" },
		{ "+8(prev->mm):u64", 0, "offsets or dereferences of its own" },
		{ "prev->comm:string", 0, "not at a scalar member" },
	};
	char text[256], msg[512];
	struct spec_probe p;
	size_t i;
	int col;

	if (btf__find_by_name_kind(kbtf, "__probestub_sched_switch", BTF_KIND_FUNC) <= 0 &&
	    btf__find_by_name_kind(kbtf, "__bpf_trace_sched_switch", BTF_KIND_FUNC) <= 0)
		return;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(text, sizeof(text), "t:sched/sched_switch %s", cases[i].arg);
		if (resolve(text, &p, msg, sizeof(msg), &col)) {
			CHECK(0, "%s: %s at %d", text, msg, col);
			spec_free(&p);
			continue;
		}
		CHECK(p.nargs == 1 && p.args[0].btf_load == cases[i].load, "%s: btf_load %d, want %d",
		      text, p.nargs ? p.args[0].btf_load : -1, cases[i].load);
		if (cases[i].why)
			CHECK(p.args[0].btf_not && strstr(p.args[0].btf_not, cases[i].why),
			      "%s: why not '%s', want '%s'", text,
			      p.args[0].btf_not ? p.args[0].btf_not : "(none)", cases[i].why);
		spec_free(&p);
	}
}

/*
 * A function of no parameters: query_btf_context()'s nr_params is 0, so
 * traceprobe_expand_meta_args() looks nothing up (issue 37): a bare $argN
 * is a register and the number's to judge, $arg* a variable refused.
 */
static void test_noparams(void)
{
	struct spec_probe p;
	char msg[512];
	int col;

	CHECK(!resolve("p:schedule $arg1 $arg2048", &p, msg, sizeof(msg), &col), "%s", msg);
	CHECK(p.nargs == 2 && p.args[0].type == SPEC_T_X64 && p.args[0].ops[0].kind == SPEC_OP_ARG,
	      "schedule's $arg1: untyped, the first argument register");
	spec_free(&p);
	refused("p:schedule ^$arg10000", SPEC_ERR_BAD_ARG_NUM, NULL);
	refused("p:schedule ^$arg*", SPEC_ERR_BAD_VAR, "schedule() has no parameters");
	refused("r:schedule a=$arg1 ^$arg*", SPEC_ERR_BAD_VAR, NULL);
}

/* An enum parameter: s32 as ftrace prints it; --json by its BTF name. */
static void test_enum(void)
{
	struct spec_probe p;
	struct resolved r = { 0 };
	struct kpt_probe_entry *ent = calloc(1, sizeof(*ent));
	struct ev_desc ev;
	unsigned char rec[256] = { 0 };
	struct kpt_rec_hdr *h = (struct kpt_rec_hdr *)rec;
	char msg[512], *out = NULL;
	int64_t change = -1;
	size_t size;
	FILE *f;
	int col, i;

	CHECK(!resolve("p:kobject_uevent action", &p, msg, sizeof(msg), &col), "%s", msg);
	CHECK_INT(p.args[0].type, SPEC_T_S32, "an enum is s32");
	for (i = 0; i < p.args[0].nenums; i++)
		if (!strcmp(p.args[0].enums[i].name, "KOBJ_CHANGE"))
			change = p.args[0].enums[i].val;
	CHECK(change >= 0, "KOBJ_CHANGE among %d names", p.args[0].nenums);
	r.opval = calloc(1, sizeof(*r.opval));
	snprintf(r.func, sizeof(r.func), "kobject_uevent");
	CHECK(ent && r.opval && !compile_probe(&p, &r, 0, ent, &ev, msg, sizeof(msg), &col),
	      "compile: %s", msg);
	h->kind = KPT_REC_EVENT;
	h->size = ev.fixed_size;
	memcpy(h->comm, "udevd", 6);
	for (i = 0; i < 2; i++) {
		int32_t v = i ? 12345 : (int32_t)change;

		memcpy(rec + ev.args[0].slot, &v, 4);
		f = open_memstream(&out, &size);
		output_json(f, &ev, NULL, rec, ev.fixed_size);
		fclose(f);
		if (!i)
			CHECK(strstr(out, "\"action\":\"KOBJ_CHANGE\""), "json by name: %s", out);
		else
			CHECK(strstr(out, "\"action\":12345"), "json, a value without a name: %s",
			      out);
		free(out);
		f = open_memstream(&out, &size);
		output_text(f, &ev, NULL, rec, ev.fixed_size);
		fclose(f);
		snprintf(msg, sizeof(msg), " action=%d\n", (int)(i ? 12345 : change));
		CHECK(strstr(out, msg), "text as ftrace, a number: %s", out);
		free(out);
	}
	ev_desc_free(&ev);
	free(r.opval);
	free(ent);
	spec_free(&p);
}

/* A test that checked nothing passes whatever btfarg.c does: count it failed. */
static void run(void (*test)(void), const char *name)
{
	int before = check_passed + check_failed;

	test();
	CHECK(check_passed + check_failed > before, "%s ran no check", name);
}

/*
 * With --btf FILE (a vmlinux with its .BTF section, e.g. a VM kernel's from
 * tests/vm/vmlinux-btf.sh), the same tests run against that kernel's types.
 * BTF that cannot be read is a failure there; without --btf, a kernel with
 * no BTF is a skip, or a failure under make test (KPT_STRICT=1), which runs
 * where the kernel has it.
 */
int main(int argc, char **argv)
{
	const char *strict = getenv("KPT_STRICT");
	const char *path = argc == 3 ? argv[2] : "/sys/kernel/btf/vmlinux";

	if (argc != 1 && (argc != 3 || strcmp(argv[1], "--btf"))) {
		fprintf(stderr, "usage: %s [--btf VMLINUX]\n", argv[0]);
		return 2;
	}
	kbtf = argc == 3 ? btf__parse(path, NULL) : btf__load_vmlinux_btf();
	if (!kbtf) {
		char why[128];

		libbpf_strerror(errno, why, sizeof(why));
		if (argc == 3 || (strict && !strcmp(strict, "1"))) {
			printf("FAIL - no BTF to test against: %s: %s\n", path, why);
			check_failed++;
		} else {
			printf("skip - no kernel BTF (%s: %s)\n", path, why);
		}
		return check_report();
	}
	si.btf = kbtf;	/* what btfarg.c resolves against */
	run(test_names, "test_names");
	run(test_vfs, "test_vfs");
	run(test_return, "test_return");
	if (argc != 3)
		run(test_shorthand, "test_shorthand");	/* needs this kernel's kallsyms */
	run(test_errors, "test_errors");
	run(test_noparams, "test_noparams");
	run(test_enum, "test_enum");
	run(test_tracepoint, "test_tracepoint");
	run(test_btf_load, "test_btf_load");
	sysinfo_free(&si);
	return check_report();
}
