// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * kptrace list: prototypes printed from a BTF built here with libbpf's
 * writer (every shape a kernel prototype takes: typedefs, pointers to
 * structs, const, varargs, no parameters, function pointers in and out,
 * enums, duplicate names), the FUNC index, and the GLOB split.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "check.h"
#include "cmd/list.h"

static void check_proto(struct list_btf *lb, const char *name, const char *want)
{
	char buf[512];
	int id = list_btf_find(lb, name), n;

	CHECK(id > 0, "FUNC %s not found (%d)", name, id);
	if (id <= 0)
		return;
	n = list_btf_proto(lb, id, name, buf, sizeof(buf));
	CHECK_INT(n, (long long)strlen(want), name);
	CHECK_STR(buf, want, name);
}

static void test_protos(void)
{
	struct btf *b = btf__new_empty();
	struct list_btf *lb;
	int t_int, t_char, t_long, t_ulong, t_ll, t_ssize, t_size, t_loff, t_file, p_file, p_char,
	    p_loff, t_cchar, p_cchar, t_void_p, fp, cbp, cb, t_enum, hp, h, first, id;
	char buf[64];

	t_int = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	t_char = btf__add_int(b, "char", 1, BTF_INT_SIGNED | BTF_INT_CHAR);
	t_long = btf__add_int(b, "long", 8, BTF_INT_SIGNED);
	t_ulong = btf__add_int(b, "unsigned long", 8, 0);
	t_ll = btf__add_int(b, "long long", 8, BTF_INT_SIGNED);
	t_ssize = btf__add_typedef(b, "ssize_t", t_long);
	t_size = btf__add_typedef(b, "size_t", t_ulong);
	t_loff = btf__add_typedef(b, "loff_t", t_ll);
	t_file = btf__add_fwd(b, "file", BTF_FWD_STRUCT);
	p_file = btf__add_ptr(b, t_file);
	p_char = btf__add_ptr(b, t_char);
	p_loff = btf__add_ptr(b, t_loff);
	t_cchar = btf__add_const(b, t_char);
	p_cchar = btf__add_ptr(b, t_cchar);
	t_void_p = btf__add_ptr(b, 0);

	/* ssize_t vfs_read(struct file *file, char *buf, size_t count, loff_t *pos) */
	fp = btf__add_func_proto(b, t_ssize);
	btf__add_func_param(b, "file", p_file);
	btf__add_func_param(b, "buf", p_char);
	btf__add_func_param(b, "count", t_size);
	btf__add_func_param(b, "pos", p_loff);
	btf__add_func(b, "vfs_read", BTF_FUNC_GLOBAL, fp);

	/* int _printk(const char *fmt, ...) */
	fp = btf__add_func_proto(b, t_int);
	btf__add_func_param(b, "fmt", p_cchar);
	btf__add_func_param(b, NULL, 0);
	btf__add_func(b, "_printk", BTF_FUNC_GLOBAL, fp);

	/* void schedule(void): no parameters at all */
	fp = btf__add_func_proto(b, 0);
	btf__add_func(b, "schedule", BTF_FUNC_GLOBAL, fp);

	/* int reg(int (*cb)(void *, int), void *data) */
	cb = btf__add_func_proto(b, t_int);
	btf__add_func_param(b, NULL, t_void_p);
	btf__add_func_param(b, NULL, t_int);
	cbp = btf__add_ptr(b, cb);
	fp = btf__add_func_proto(b, t_int);
	btf__add_func_param(b, "cb", cbp);
	btf__add_func_param(b, "data", t_void_p);
	btf__add_func(b, "reg", BTF_FUNC_GLOBAL, fp);

	/* void (*get_handler(int sig))(int): returns a function pointer */
	h = btf__add_func_proto(b, 0);
	btf__add_func_param(b, NULL, t_int);
	hp = btf__add_ptr(b, h);
	fp = btf__add_func_proto(b, hp);
	btf__add_func_param(b, "sig", t_int);
	btf__add_func(b, "get_handler", BTF_FUNC_GLOBAL, fp);

	/* void set_mode(enum mode m) */
	t_enum = btf__add_enum(b, "mode", 4);
	btf__add_enum_value(b, "MODE_A", 0);
	fp = btf__add_func_proto(b, 0);
	btf__add_func_param(b, "m", t_enum);
	btf__add_func(b, "set_mode", BTF_FUNC_STATIC, fp);

	/* two static functions of one name: the first (lowest id) wins */
	fp = btf__add_func_proto(b, t_int);
	btf__add_func_param(b, "a", t_int);
	first = btf__add_func(b, "dup", BTF_FUNC_STATIC, fp);
	fp = btf__add_func_proto(b, t_long);
	btf__add_func_param(b, "b", t_long);
	btf__add_func(b, "dup", BTF_FUNC_STATIC, fp);

	/* two different structs of one name (vmlinux has them): btf_dump
	 * calls the second walk_control___2, the listing the source's name */
	{
		int s1 = btf__add_struct(b, "walk_control", 4), s2, p1, p2;

		btf__add_field(b, "a", t_int, 0, 0);
		s2 = btf__add_struct(b, "walk_control", 8);
		btf__add_field(b, "b", t_long, 0, 0);
		p2 = btf__add_ptr(b, s2);
		p1 = btf__add_ptr(b, s1);
		fp = btf__add_func_proto(b, t_int);
		btf__add_func_param(b, "wc", p2);
		btf__add_func_param(b, "wc1", p1);
		btf__add_func(b, "do_walk_down", BTF_FUNC_STATIC, fp);
	}

	CHECK(!libbpf_get_error(b), "btf__new_empty");
	lb = list_btf_new(b);
	CHECK(lb != NULL, "list_btf_new");
	if (!lb) {
		btf__free(b);
		return;
	}
	check_proto(lb, "vfs_read",
		    "ssize_t vfs_read(struct file *file, char *buf, size_t count, loff_t *pos)");
	check_proto(lb, "_printk", "int _printk(const char *fmt, ...)");
	check_proto(lb, "schedule", "void schedule(void)");
	check_proto(lb, "reg", "int reg(int (*cb)(void *, int), void *data)");
	check_proto(lb, "get_handler", "void (*get_handler(int sig))(int)");
	check_proto(lb, "set_mode", "void set_mode(enum mode m)");
	check_proto(lb, "dup", "int dup(int a)");
	check_proto(lb, "do_walk_down",
		    "int do_walk_down(struct walk_control *wc, struct walk_control *wc1)");
	CHECK_INT(list_btf_find(lb, "dup"), first, "duplicate names: the first FUNC");
	CHECK_INT(list_btf_find(lb, "nosuch"), -ENOENT, "missing FUNC");
	CHECK_INT(list_btf_find(lb, "vfs_rea"), -ENOENT, "a prefix is not a match");
	CHECK_INT(list_btf_find(lb, "ssize_t"), -ENOENT, "a typedef is not a FUNC");

	/* types alone, for --json's params */
	list_btf_type(lb, p_file, buf, sizeof(buf));
	CHECK_STR(buf, "struct file *", "pointer to a struct");
	list_btf_type(lb, 0, buf, sizeof(buf));
	CHECK_STR(buf, "void", "type 0");
	list_btf_type(lb, cbp, buf, sizeof(buf));
	CHECK_STR(buf, "int (*)(void *, int)", "function pointer type");
	/* truncation: the full length comes back, the buffer stays terminated */
	id = list_btf_find(lb, "vfs_read");
	CHECK_INT(list_btf_proto(lb, id, "vfs_read", buf, 8),
		  (long long)strlen("ssize_t vfs_read(struct file *file, char *buf, size_t count, loff_t *pos)"),
		  "truncated length");
	CHECK_STR(buf, "ssize_t", "truncated text");
	CHECK(list_btf_proto(lb, t_int, "x", buf, sizeof(buf)) < 0, "not a FUNC: refused");

	list_btf_free(lb);
	btf__free(b);
}

static void check_split(const char *glob, const char *fmod, const char *ffunc, const char *tsys,
			const char *tev)
{
	const char *m, *f, *s, *e;
	char buf[128];

	list_split_glob(glob, buf, &m, &f, &s, &e);
#define SAME(got, want) CHECK((!(got) && !(want)) || ((got) && (want) && !strcmp(got, want)), \
			      "list_split_glob(%s): %s is %s, want %s", glob ? glob : "NULL", \
			      #got, (got) ? (got) : "NULL", (want) ? (want) : "NULL")
	SAME(m, fmod);
	SAME(f, ffunc);
	SAME(s, tsys);
	SAME(e, tev);
#undef SAME
}

static void test_split(void)
{
	check_split(NULL, NULL, "*", "*", "*");
	check_split("", NULL, "*", "*", "*");
	check_split("vfs_*", NULL, "vfs_*", "*", "vfs_*");
	check_split("sched/*", NULL, NULL, "sched", "*");
	check_split("*/sched_switch", NULL, NULL, "*", "sched_switch");
	check_split("ext4:*", "ext4", "*", "ext4", "*");
	check_split("x?:a[bc]*", "x?", "a[bc]*", "x?", "a[bc]*");
	/* a '/' wins: a tracepoint whose event has a ':' in it */
	check_split("a/b:c", NULL, NULL, "a", "b:c");
}

int main(void)
{
	test_protos();
	test_split();
	return check_report();
}
