// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests for src/lang/spec.c, table-driven.
 *
 * Good rows compare a one-line rendering of the whole struct spec_probe
 * (kind, names, target, and per argument name, type, count, bitfield and
 * every op with its parameter), so a row states everything the parser
 * produced and any stray field shows up as a diff.
 *
 * Bad rows mark the expected caret with '^' in the definition itself, the
 * way the kernel's ftrace selftests do (kprobe_syntax_errors.tc): the '^'
 * is removed and its position is the column spec_parse() must report.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* open_memstream(), stpcpy() */
#endif
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "load/loader.h"
#include "prepare/resolve.h"
#include "lang/spec.h"
#include "check.h"

struct buf {
	char *s;
	size_t size, len;
};

static void put(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(b->s + b->len, b->size - b->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		b->len += (size_t)n < b->size - b->len ? (size_t)n : b->size - b->len - 1;
}

static void describe_op(struct buf *b, const struct spec_op *op)
{
	switch (op->kind) {
	case SPEC_OP_REG:
		put(b, " reg:%s", op->reg);
		break;
	case SPEC_OP_STACK:
		put(b, " stack:%u", op->param);
		break;
	case SPEC_OP_STACKP:
		put(b, " stackp");
		break;
	case SPEC_OP_RETVAL:
		put(b, " retval");
		break;
	case SPEC_OP_ARG:
		put(b, " arg:%u", op->param);
		break;
	case SPEC_OP_COMM:
		put(b, " comm");
		break;
	case SPEC_OP_IMM:
		put(b, " imm:0x%llx", (unsigned long long)op->imm);
		break;
	case SPEC_OP_DATA:
		put(b, " data:\"%s\"", op->data);
		break;
	case SPEC_OP_SYMBOL:
		put(b, " sym:%s%+lld", op->sym, (long long)op->imm);
		break;
	case SPEC_OP_FOFFS:
		put(b, " foffs:0x%llx", (unsigned long long)op->imm);
		break;
	case SPEC_OP_DEREF:
		put(b, " deref:%lld", (long long)op->imm);
		break;
	case SPEC_OP_UDEREF:
		put(b, " uderef:%lld", (long long)op->imm);
		break;
	case SPEC_OP_TPFIELD:
		put(b, " field:%s", op->sym);
		break;
	default:
		put(b, " ?%d", op->kind);
	}
}

/* One line for the whole probe; see the good[] table for the shape. */
static void describe(const struct spec_probe *p, char *out, size_t size)
{
	static const char *const kinds[] = {
		"?", "kprobe", "kretprobe", "uprobe", "uretprobe", "remove", "tracepoint",
		"profile",
	};
	struct buf b = { out, size, 0 };
	int i, j;

	out[0] = '\0';
	put(&b, "%s %s/%s", kinds[p->kind <= SPEC_PROFILE ? p->kind : 0],
	    p->group[0] ? p->group : "*", p->event);
	if (!p->event_given)
		put(&b, " auto");
	if (p->maxactive)
		put(&b, " max=%d", p->maxactive);
	if (p->kind == SPEC_KPROBE || p->kind == SPEC_KRETPROBE) {
		if (p->symbol)
			put(&b, " sym=%s%s%s+%lld", p->module,
			    p->module[0] ? ":" : "", p->symbol,
			    (long long)p->offset);
		else
			put(&b, " addr=0x%llx", (unsigned long long)p->addr);
	} else if (p->kind == SPEC_TRACEPOINT) {
		put(&b, " tp=%s:%s", p->tp_system, p->tp_event);
	} else if (p->kind == SPEC_PROFILE) {
		put(&b, " hz=%u", p->hz);
	} else if (p->kind == SPEC_UPROBE || p->kind == SPEC_URETPROBE) {
		if (p->container)
			put(&b, " container=%s", p->container);
		put(&b, " path=%s", p->path);
		if (p->usym)
			put(&b, " usym=%s+%llu", p->usym,
			    (unsigned long long)p->uoffset);
		else
			put(&b, " off=0x%llx", (unsigned long long)p->uoffset);
		if (p->has_ref_ctr)
			put(&b, " ref=0x%llx", (unsigned long long)p->ref_ctr_offset);
	} else if (p->kind == SPEC_REMOVE && p->remove_match) {
		put(&b, " match=[%s]", p->remove_match);
	}
	if (p->glob)
		put(&b, " glob");
	for (i = 0; i < p->nargs; i++) {
		const struct spec_arg *a = &p->args[i];

		put(&b, " | %s ", a->name);
		put(&b, a->type_given ? "%s" : "(%s)", spec_type_name(a->type));
		if (a->count)
			put(&b, "[%u]", a->count);
		if (a->bf_width)
			put(&b, "{%u@%u/%u}", a->bf_width, a->bf_offset,
			    a->bf_container);
		if (a->vfs)
			put(&b, "{%%p%c}", a->vfs);
		for (j = 0; j < a->nops; j++)
			describe_op(&b, &a->ops[j]);
	}
	if (p->filter)
		put(&b, " if=[%s]@%d", p->filter, p->filter_col);
}

#define KP	"kprobe kprobes/p_vfs_read_0 auto sym=vfs_read+0 | arg1 "
#define KR	"kretprobe kprobes/r_vfs_read_0 auto sym=vfs_read+0 | arg1 "
#define UP	"uprobe uprobes/p_x_0x10 auto path=/bin/x off=0x10 | arg1 "
#define UR	"uretprobe uprobes/p_x_0x10 auto path=/bin/x off=0x10 | arg1 "

static const struct good {
	const char *text;
	const char *want;
} good[] = {
	/* probe heads, groups, events, default names */
	{ "p vfs_read", "kprobe kprobes/p_vfs_read_0 auto sym=vfs_read+0" },
	{ "p:myprobe do_sys_open dfd=%ax filename=%dx flags=%cx mode=+4($stack)",
	  "kprobe kprobes/myprobe sym=do_sys_open+0 | dfd (x64) reg:ax"
	  " | filename (x64) reg:dx | flags (x64) reg:cx"
	  " | mode (x64) stackp deref:4" },
	{ "r:myretprobe do_sys_open $retval",
	  "kretprobe kprobes/myretprobe sym=do_sys_open+0 | arg1 (x64) retval" },
	{ "p:grp/ev vfs_read+16", "kprobe grp/ev sym=vfs_read+16" },
	{ "p:grp.ev vfs_read", "kprobe grp/ev sym=vfs_read+0" },
	{ "p:grp/ vfs_read", "kprobe grp/p_vfs_read_0 auto sym=vfs_read+0" },
	{ "p:grp. vfs_read", "kprobe grp/p_vfs_read_0 auto sym=vfs_read+0" },
	{ "p:_G1/_e2 vfs_read", "kprobe _G1/_e2 sym=vfs_read+0" },
	{ "r vfs_read", "kretprobe kprobes/r_vfs_read_0 auto sym=vfs_read+0" },
	{ "r100 vfs_read",
	  "kretprobe kprobes/r_vfs_read_0 auto max=100 sym=vfs_read+0" },
	{ "r4096:rp vfs_read", "kretprobe kprobes/rp max=4096 sym=vfs_read+0" },
	{ "r0x10:g/e vfs_read+0", "kretprobe g/e max=16 sym=vfs_read+0" },
	{ "p ext4:ext4_sync_fs",
	  "kprobe kprobes/p_ext4_ext4_sync_fs_0 auto sym=ext4:ext4_sync_fs+0" },
	{ "p my-mod:func+4", "kprobe kprobes/p_my_mod_func_4 auto sym=my-mod:func+4" },
	{ "p vfs_read+0x10", "kprobe kprobes/p_vfs_read_16 auto sym=vfs_read+16" },
	{ "p vfs_read+010", "kprobe kprobes/p_vfs_read_8 auto sym=vfs_read+8" },
	{ "p vfs_read+4294967295",
	  "kprobe kprobes/p_vfs_read_4294967295 auto sym=vfs_read+4294967295" },
	{ "p 9p:v9fs_mount", "kprobe kprobes/p_9p_v9fs_mount_0 auto sym=9p:v9fs_mount+0" },
	{ "p foo.isra.0", "kprobe kprobes/p_foo_isra_0_0 auto sym=foo.isra.0+0" },
	{ "p 0xffffffff81000000",
	  "kprobe kprobes/p_0xffffffff81000000 auto addr=0xffffffff81000000" },
	{ "p 4096", "kprobe kprobes/p_0x0000000000001000 auto addr=0x1000" },
	{ "r 0xffffffff81000000",
	  "kretprobe kprobes/r_0xffffffff81000000 auto addr=0xffffffff81000000" },
	{ "p vfs_read%return", "kretprobe kprobes/r_vfs_read_0 auto sym=vfs_read+0" },
	{ "p vfs_read+0%return $retval", KR "(x64) retval" },
	{ "r vfs_read%return", "kretprobe kprobes/r_vfs_read_0 auto sym=vfs_read+0" },
	{ "  p:ev\t vfs_read  \t%ax  ",
	  "kprobe kprobes/ev sym=vfs_read+0 | arg1 (x64) reg:ax" },

	/* uprobes */
	{ "p /bin/bash:0x4245c0",
	  "uprobe uprobes/p_bash_0x4245c0 auto path=/bin/bash off=0x4245c0" },
	{ "r /bin/bash:0x4245c0",
	  "uretprobe uprobes/p_bash_0x4245c0 auto path=/bin/bash off=0x4245c0" },
	{ "p /bin/bash:0x4245c0%return",
	  "uretprobe uprobes/p_bash_0x4245c0 auto path=/bin/bash off=0x4245c0" },
	{ "p:zfree_entry /bin/zsh:0x46420 %ip %ax",
	  "uprobe uprobes/zfree_entry path=/bin/zsh off=0x46420"
	  " | arg1 (x64) reg:ip | arg2 (x64) reg:ax" },
	{ "p ./a.out:main", "uprobe uprobes/p_a_main_0 auto path=./a.out usym=main+0" },
	/* CONTAINER:/PATH: the path inside a container; a module's symbol has no '/' */
	{ "p web:/usr/sbin/nginx:main",
	  "uprobe uprobes/p_nginx_main_0 auto container=web path=/usr/sbin/nginx usym=main+0" },
	{ "p:web:/usr/sbin/nginx:main",
	  "uprobe uprobes/p_nginx_main_0 auto container=web path=/usr/sbin/nginx usym=main+0" },
	{ "r:g/e 3f2a9c:/bin/x:0x10",
	  "uretprobe g/e container=3f2a9c path=/bin/x off=0x10" },
	{ "p /usr/lib/libc.so.6:malloc+4 %di",
	  "uprobe uprobes/p_libc_malloc_4 auto path=/usr/lib/libc.so.6"
	  " usym=malloc+4 | arg1 (x64) reg:di" },
	{ "p /lib/libc-2.31.so:0x1000",
	  "uprobe uprobes/p_libc_0x1000 auto path=/lib/libc-2.31.so off=0x1000" },
	{ "p /bin/my_tool:100",
	  "uprobe uprobes/p_my_0x64 auto path=/bin/my_tool off=0x64" },
	{ "p /a:b/c:0x10", "uprobe uprobes/p_c_0x10 auto path=/a:b/c off=0x10" },
	{ "p bin/tool:memcpy@@GLIBC_2.14",
	  "uprobe uprobes/p_tool_memcpy__GLIBC_2_14_0 auto path=bin/tool"
	  " usym=memcpy@@GLIBC_2.14+0" },
	{ "r:u/ret /bin/x:main $retval",
	  "uretprobe u/ret path=/bin/x usym=main+0 | arg1 (x64) retval" },
	{ "p:u.e /bin/x:0 %ax", "uprobe u/e path=/bin/x off=0x0 | arg1 (x64) reg:ax" },
	/* reference counters: PATH:OFFSET[%return](REF_CTR_OFFSET) */
	{ "p /bin/x:0x10(0x20)", "uprobe uprobes/p_x_0x10 auto path=/bin/x off=0x10 ref=0x20" },
	{ "p /bin/x:0x10%return(32)",
	  "uretprobe uprobes/p_x_0x10 auto path=/bin/x off=0x10 ref=0x20" },
	{ "r:u/e /bin/x:main(0) $retval",
	  "uretprobe u/e path=/bin/x usym=main+0 ref=0x0 | arg1 (x64) retval" },
	{ "p /a:b/c:0x10(0x8) %di",
	  "uprobe uprobes/p_c_0x10 auto path=/a:b/c off=0x10 ref=0x8 | arg1 (x64) reg:di" },

	/* profile:hz:N, bpftrace's sampling timer */
	{ "profile:hz:99", "profile profile/hz_99 auto hz=99" },
	{ "profile:hz:10000 if comm == \"x\"",
	  "profile profile/hz_10000 auto hz=10000 if=[comm == \"x\"]@20" },

	/* tracepoints: fields by name, derefs of them, types, filters */
	{ "t kmem/kmalloc", "tracepoint kmem/kmalloc auto tp=kmem:kmalloc" },
	{ "t:kmem/kmalloc bytes_req", "tracepoint kmem/kmalloc auto tp=kmem:kmalloc"
	  " | bytes_req (x64) field:bytes_req" },
	{ "t:km kmem/kmalloc b=bytes_req:u32 call_site:symbol",
	  "tracepoint kmem/km tp=kmem:kmalloc | b u32 field:bytes_req"
	  " | call_site symbol field:call_site" },
	{ "t:g/e sched/sched_process_exec filename:string",
	  "tracepoint g/e tp=sched:sched_process_exec | filename string field:filename" },
	{ "t:sched/sched_switch prev_comm:string c=$comm n=+0(next_pid):u8 if prev_pid > 0",
	  "tracepoint sched/sched_switch auto tp=sched:sched_switch | prev_comm string"
	  " field:prev_comm | c (string) comm | n u8 field:next_pid deref:0"
	  " if=[prev_pid > 0]@67" },

	/* globs over tracepoints (either half) and a uprobe's symbols: * ? [set] */
	{ "t:syscalls/sys_enter_* fd",
	  "tracepoint syscalls/sys_enter__ auto tp=syscalls:sys_enter_* glob | fd (x64) field:fd" },
	{ "t */sched_switch", "tracepoint _/sched_switch auto tp=*:sched_switch glob" },
	{ "t:sched/sched_[!w]?* if prev_pid > 0",
	  "tracepoint sched/sched___w___ auto tp=sched:sched_[!w]?* glob if=[prev_pid > 0]@24" },
	{ "t:ev s[]c]hed/sched_switch", "tracepoint s__c_hed/ev tp=s[]c]hed:sched_switch glob" },
	{ "t sched/sched_switch", "tracepoint sched/sched_switch auto tp=sched:sched_switch" },
	{ "p /bin/x:parse_* %di",
	  "uprobe uprobes/p_x_parse___0 auto path=/bin/x usym=parse_*+0 glob | arg1 (x64) reg:di" },
	{ "r:u/e /bin/x:[a-c]?z $retval",
	  "uretprobe u/e path=/bin/x usym=[a-c]?z+0 glob | arg1 (x64) retval" },
	{ "p ./a.out:*", "uprobe uprobes/p_a___0 auto path=./a.out usym=*+0 glob" },

	/* removal */
	{ "-:myprobe", "remove */myprobe" },
	{ "-:grp/ev", "remove grp/ev" },
	{ "  -:grp.ev  ", "remove grp/ev" },
	/* one probe of a multiprobe event (kprobe_multiprobe.tc) */
	{ "-:kprobes/testevent kernel_clone", "remove kprobes/testevent match=[kernel_clone]" },
	{ "-:ev vfs_read  a=%di\t%si ", "remove */ev match=[vfs_read  a=%di\t%si]" },

	/* every fetcharg form */
	{ "p vfs_read %di", KP "(x64) reg:di" },
	{ "p vfs_read %r15", KP "(x64) reg:r15" },
	{ "p vfs_read %abcdefghijklmno", KP "(x64) reg:abcdefghijklmno" },
	{ "p vfs_read @0xffffffff82000000", KP "(x64) imm:0xffffffff82000000 deref:0" },
	{ "p vfs_read @jiffies", KP "(x64) sym:jiffies+0 deref:0" },
	{ "p vfs_read @jiffies+8", KP "(x64) sym:jiffies+8 deref:0" },
	{ "p vfs_read @jiffies-0x10", KP "(x64) sym:jiffies-16 deref:0" },
	{ "p vfs_read $stack", KP "(x64) stackp" },
	{ "p vfs_read $stack0", KP "(x64) stack:0" },
	{ "p vfs_read $stack2048", KP "(x64) stack:2048" },
	{ "p vfs_read $arg1", KP "(x64) arg:1" },
	{ "p vfs_read $arg6:s32", KP "s32 arg:6" },
	{ "p 0xffffffff81000000 $arg1",
	  "kprobe kprobes/p_0xffffffff81000000 auto addr=0xffffffff81000000"
	  " | arg1 (x64) arg:1" },
	{ "p vfs_read $comm", KP "(string) comm" },
	{ "p vfs_read $COMM", KP "(string) comm" },
	{ "p vfs_read $comm:string", KP "string comm" },
	{ "r vfs_read $retval:s32", KR "s32 retval" },
	{ "p vfs_read \\1234", KP "(x64) imm:0x4d2" },
	{ "p vfs_read \\0x10", KP "(x64) imm:0x10" },
	{ "p vfs_read \\-1", KP "(x64) imm:0xffffffffffffffff" },
	{ "p vfs_read \\+5", KP "(x64) imm:0x5" },
	{ "p vfs_read \\18446744073709551615", KP "(x64) imm:0xffffffffffffffff" },
	{ "p vfs_read \\-9223372036854775808", KP "(x64) imm:0x8000000000000000" },
	{ "p vfs_read \\\"hello\"", KP "(string) data:\"hello\"" },
	{ "p vfs_read \\\"a:b=c\"", KP "(string) data:\"a:b=c\"" },
	{ "p vfs_read \\\"\"", KP "(string) data:\"\"" },
	{ "p vfs_read s=\\\"x\":string", "kprobe kprobes/p_vfs_read_0 auto"
	  " sym=vfs_read+0 | s string data:\"x\"" },
	{ "p vfs_read +8(%si)", KP "(x64) reg:si deref:8" },
	{ "p vfs_read -8(%si)", KP "(x64) reg:si deref:-8" },
	{ "p vfs_read +u8(%si)", KP "(x64) reg:si uderef:8" },
	{ "p vfs_read -u0x10(%si)", KP "(x64) reg:si uderef:-16" },
	{ "p vfs_read +8(+0(%si))", KP "(x64) reg:si deref:0 deref:8" },
	{ "p vfs_read +0(+8(@jiffies))",
	  KP "(x64) sym:jiffies+0 deref:0 deref:8 deref:0" },
	{ "p vfs_read +0(+u4($stack))", KP "(x64) stackp uderef:4 deref:0" },
	{ "p vfs_read -2147483648(%ax)", KP "(x64) reg:ax deref:-2147483648" },
	{ "p vfs_read +0x7fffffff(%ax)", KP "(x64) reg:ax deref:2147483647" },
	{ "p vfs_read +0(\\4096)", KP "(x64) imm:0x1000 deref:0" },
	/* the kernel ignores what follows a dereference's last ')' */
	{ "p vfs_read +0(%ax)+10", KP "(x64) reg:ax deref:0" },
	{ "p vfs_read +0(+8(%ax))x:u32", KP "u32 reg:ax deref:8 deref:0" },

	/* a dentry's and a file's name, 6.5+: btfarg.c adds the dereferences */
	{ "p dput $arg1:%pd", "kprobe kprobes/p_dput_0 auto sym=dput+0 | arg1 string{%pd} arg:1" },
	{ "p:testprobe vfs_read name=$arg1:%pD",
	  "kprobe kprobes/testprobe sym=vfs_read+0 | name string{%pD} arg:1" },
	{ "p vfs_read %ax %di:%pD", KP "(x64) reg:ax | arg2 string{%pD} reg:di" },
	{ "r vfs_read f=+0(%di):%pD", "kretprobe kprobes/r_vfs_read_0 auto sym=vfs_read+0"
	  " | f string{%pD} reg:di deref:0" },

	/* names */
	{ "p vfs_read %ax %bx",
	  KP "(x64) reg:ax | arg2 (x64) reg:bx" },
	{ "p vfs_read a=%ax %bx",
	  "kprobe kprobes/p_vfs_read_0 auto sym=vfs_read+0"
	  " | a (x64) reg:ax | arg2 (x64) reg:bx" },
	{ "p vfs_read arg2x=%ax %bx",
	  "kprobe kprobes/p_vfs_read_0 auto sym=vfs_read+0"
	  " | arg2x (x64) reg:ax | arg2 (x64) reg:bx" },
	{ "p vfs_read _=%ax", "kprobe kprobes/p_vfs_read_0 auto sym=vfs_read+0"
	  " | _ (x64) reg:ax" },

	/* every type */
	{ "p vfs_read %ax:u8", KP "u8 reg:ax" },
	{ "p vfs_read %ax:u16", KP "u16 reg:ax" },
	{ "p vfs_read %ax:u32", KP "u32 reg:ax" },
	{ "p vfs_read %ax:u64", KP "u64 reg:ax" },
	{ "p vfs_read %ax:s8", KP "s8 reg:ax" },
	{ "p vfs_read %ax:s16", KP "s16 reg:ax" },
	{ "p vfs_read %ax:s32", KP "s32 reg:ax" },
	{ "p vfs_read %ax:s64", KP "s64 reg:ax" },
	{ "p vfs_read %ax:x8", KP "x8 reg:ax" },
	{ "p vfs_read %ax:x16", KP "x16 reg:ax" },
	{ "p vfs_read %ax:x32", KP "x32 reg:ax" },
	{ "p vfs_read %ax:x64", KP "x64 reg:ax" },
	{ "p vfs_read %ax:char", KP "char reg:ax" },
	{ "p vfs_read %ax:symbol", KP "symbol reg:ax" },
	{ "p vfs_read +0(%ax):string", KP "string reg:ax deref:0" },
	{ "p vfs_read +u0(%ax):string", KP "string reg:ax uderef:0" },
	{ "p vfs_read +0(%ax):ustring", KP "ustring reg:ax deref:0" },
	{ "p vfs_read \\0xffffffff82000000:string", KP "string imm:0xffffffff82000000" },
	{ "p vfs_read %ax:symstr", KP "symstr reg:ax" },
	{ "p vfs_read +8(%ax):symstr", KP "symstr reg:ax deref:8" },
	{ "p vfs_read $stack1:symstr", KP "symstr stack:1" },
	{ "p vfs_read $arg1:symstr", KP "symstr arg:1" },
	{ "r vfs_read $retval:symstr", KR "symstr retval" },

	/* bitfields: the type is the container's uN */
	{ "p vfs_read +0(%si):b4@2/8", KP "u8{4@2/8} reg:si deref:0" },
	{ "p vfs_read +0(%si):b32@32/64", KP "u64{32@32/64} reg:si deref:0" },
	{ "p vfs_read +0(%si):b1@0/0x10", KP "u16{1@0/16} reg:si deref:0" },
	{ "p vfs_read %ax:b3@29/32", KP "u32{3@29/32} reg:ax" },
	{ "p vfs_read +0(%si):b64@0/64", KP "u64{64@0/64} reg:si deref:0" },

	/* arrays */
	{ "p vfs_read +0(%si):u8[4]", KP "u8[4] reg:si deref:0" },
	{ "p vfs_read +0(%si):x32[64]", KP "x32[64] reg:si deref:0" },
	{ "p vfs_read +0(%si):u8[1]", KP "u8[1] reg:si deref:0" },
	{ "p vfs_read +0(%si):string[2]", KP "string[2] reg:si deref:0" },
	{ "p vfs_read +u0(%si):u16[0x3]", KP "u16[3] reg:si uderef:0" },
	{ "p vfs_read @jiffies:u64[2]", KP "u64[2] sym:jiffies+0 deref:0" },
	{ "p vfs_read \\0x1000:string[2]", KP "string[2] imm:0x1000" },
	{ "p vfs_read +0(%si):b4@0/8[2]", KP "u8[2]{4@0/8} reg:si deref:0" },

	/* uprobe fetchargs */
	{ "p /bin/x:0x10 @+0x20", UP "(x64) foffs:0x20 deref:0" },
	{ "p /bin/x:0x10 @0x601000:u32", UP "u32 imm:0x601000 deref:0" },
	{ "p /bin/x:0x10 $arg2", UP "(x64) arg:2" },
	{ "p /bin/x:main $arg1",
	  "uprobe uprobes/p_x_main_0 auto path=/bin/x usym=main+0 | arg1 (x64) arg:1" },
	{ "p /bin/x:0x10 +0(%di):ustring", UP "ustring reg:di deref:0" },
	{ "p /bin/x:0x10 $stack5000", UP "(x64) stack:5000" },
	{ "p /bin/x:0x10 +u8(%sp):u8[8]", UP "u8[8] reg:sp uderef:8" },
	{ "r /bin/x:0x10 $retval:s32", UR "s32 retval" },
	{ "p /bin/x:0x10 $comm", UP "(string) comm" },

	/* "p:SYM": the name is the probe point when no probe point follows */
	{ "p:do_sys_openat2", "kprobe kprobes/p_do_sys_openat2_0 auto sym=do_sys_openat2+0" },
	{ "p:ev ", "kprobe kprobes/p_ev_0 auto sym=ev+0" },
	{ "r5:ev ", "kretprobe kprobes/r_ev_0 auto max=5 sym=ev+0" },
	{ "p:vfs_read count=%dx:u64", "kprobe kprobes/p_vfs_read_0 auto sym=vfs_read+0"
	  " | count u64 reg:dx" },
	{ "p:vfs_read %di", KP "(x64) reg:di" },
	{ "p:vfs_read $arg1", KP "(x64) arg:1" },
	{ "p:vfs_read @jiffies", KP "(x64) sym:jiffies+0 deref:0" },
	{ "p:vfs_read +0(%si):string", KP "string reg:si deref:0" },
	{ "p:vfs_read -8(%si)", KP "(x64) reg:si deref:-8" },
	{ "p:vfs_read \\1", KP "(x64) imm:0x1" },
	{ "p:vfs_read \\\"s\"", KP "(string) data:\"s\"" },
	{ "r:vfs_read $retval:s64", KR "s64 retval" },
	{ "r:vfs_read", "kretprobe kprobes/r_vfs_read_0 auto sym=vfs_read+0" },
	{ "r8:vfs_read", "kretprobe kprobes/r_vfs_read_0 auto max=8 sym=vfs_read+0" },
	{ "p:vfs_read+16 %di", "kprobe kprobes/p_vfs_read_16 auto sym=vfs_read+16"
	  " | arg1 (x64) reg:di" },
	{ "p:vfs_read%return $retval", KR "(x64) retval" },
	{ "p:ext4:ext4_sync_fs", "kprobe kprobes/p_ext4_ext4_sync_fs_0 auto"
	  " sym=ext4:ext4_sync_fs+0" },
	{ "p:0xffffffff81000000",
	  "kprobe kprobes/p_0xffffffff81000000 auto addr=0xffffffff81000000" },
	/* '.' is a symbol character (foo.isra.0): grp.ev alone is a symbol */
	{ "p:grp.ev", "kprobe kprobes/p_grp_ev_0 auto sym=grp.ev+0" },
	{ "p:/bin/bash:readline",
	  "uprobe uprobes/p_bash_readline_0 auto path=/bin/bash usym=readline+0" },
	{ "r:/bin/bash:readline line=+0($retval):ustring",
	  "uretprobe uprobes/p_bash_readline_0 auto path=/bin/bash usym=readline+0"
	  " | line ustring retval deref:0" },
	{ "p:/bin/x:0x10 %ax", UP "(x64) reg:ax" },
	{ "p:/a:b/c:0x10", "uprobe uprobes/p_c_0x10 auto path=/a:b/c off=0x10" },
	/* a C++ or Rust name as demangled: its "::" are the name's, the path ends before */
	{ "p:/bin/shop:shop::checkout",
	  "uprobe uprobes/p_shop_shop__checkout_0 auto path=/bin/shop usym=shop::checkout+0" },
	{ "r:/a:b/c:ns::Cart<int>::~Cart",
	  "uretprobe uprobes/p_c_ns__Cart_int____Cart_0 auto path=/a:b/c"
	  " usym=ns::Cart<int>::~Cart+0" },
	{ "p:/bin/x:shop::*", "uprobe uprobes/p_x_shop____0 auto path=/bin/x usym=shop::*+0 glob" },
	/* an offset after "::" is the kernel's PATH:OFFSET, the path holding ':' */
	{ "p:/a/b::0x10", "uprobe uprobes/p_b__0x10 auto path=/a/b: off=0x10" },
	/* ... and the ordinary form when one does */
	{ "p:myprobe do_sys_openat2 dfd=%di",
	  "kprobe kprobes/myprobe sym=do_sys_openat2+0 | dfd (x64) reg:di" },
	{ "p:myprobe do_sys_openat2", "kprobe kprobes/myprobe sym=do_sys_openat2+0" },
	{ "p:grp/ev vfs_read %di", "kprobe grp/ev sym=vfs_read+0 | arg1 (x64) reg:di" },
	{ "p:grp/ vfs_read %di", "kprobe grp/p_vfs_read_0 auto sym=vfs_read+0"
	  " | arg1 (x64) reg:di" },
	{ "p:ev /bin/x:0x10", "uprobe uprobes/ev path=/bin/x off=0x10" },
	{ "p:ev ./a.out:main", "uprobe uprobes/ev path=./a.out usym=main+0" },
	{ "p:ev 0x1000", "kprobe kprobes/ev addr=0x1000" },
	{ "r4:ev vfs_read", "kretprobe kprobes/ev max=4 sym=vfs_read+0" },

	/* " if EXPR": the rest of the line, as written, and where it starts */
	{ "p vfs_read if common_pid == 1",
	  "kprobe kprobes/p_vfs_read_0 auto sym=vfs_read+0 if=[common_pid == 1]@14" },
	{ "p:rd vfs_read count=%dx:u64 if count > 4096 && comm ~ \"py*\"",
	  "kprobe kprobes/rd sym=vfs_read+0 | count u64 reg:dx"
	  " if=[count > 4096 && comm ~ \"py*\"]@31" },
	{ "p:vfs_read count=%dx:u64 if count>1",
	  "kprobe kprobes/p_vfs_read_0 auto sym=vfs_read+0 | count u64 reg:dx"
	  " if=[count>1]@28" },
	{ "p:do_sys_openat2 if comm == \"cat\"",
	  "kprobe kprobes/p_do_sys_openat2_0 auto sym=do_sys_openat2+0"
	  " if=[comm == \"cat\"]@20" },
	{ "r:/bin/bash:readline if pid == 42  ",
	  "uretprobe uprobes/p_bash_readline_0 auto path=/bin/bash usym=readline+0"
	  " if=[pid == 42  ]@24" },
	{ "p vfs_read\tif\t(x)", "kprobe kprobes/p_vfs_read_0 auto sym=vfs_read+0"
	  " if=[(x)]@14" },
	{ "p vfs_read if x if y", "kprobe kprobes/p_vfs_read_0 auto sym=vfs_read+0"
	  " if=[x if y]@14" },
	{ "p vfs_read if if", "kprobe kprobes/p_vfs_read_0 auto sym=vfs_read+0"
	  " if=[if]@14" },
	{ "p vfs_read x=\\\"if\" if x", "kprobe kprobes/p_vfs_read_0 auto"
	  " sym=vfs_read+0 | x (string) data:\"if\" if=[x]@22" },
	/* "if" not alone is no filter: an argument name, a symbol */
	{ "p vfs_read if=%di", "kprobe kprobes/p_vfs_read_0 auto sym=vfs_read+0"
	  " | if (x64) reg:di" },
	{ "p iffy", "kprobe kprobes/p_iffy_0 auto sym=iffy+0" },
	{ "p vfs_read_if", "kprobe kprobes/p_vfs_read_if_0 auto sym=vfs_read_if+0" },
};

static const struct bad {
	const char *text;	/* '^' marks the expected column */
	enum spec_err code;
} bad[] = {
	/* the definition as a whole */
	{ "^", SPEC_ERR_EMPTY },
	{ "^   \t  ", SPEC_ERR_EMPTY },
	{ "p vfs_read^\n", SPEC_ERR_BAD_CHAR },
	{ "p vfs^\x01read", SPEC_ERR_BAD_CHAR },
	{ "p vfs_read ^\x7f", SPEC_ERR_BAD_CHAR },
	{ "^\rp vfs_read", SPEC_ERR_BAD_CHAR },

	/* probe type and maxactive */
	{ "^x vfs_read", SPEC_ERR_BAD_PROBE_TYPE },
	{ "^P vfs_read", SPEC_ERR_BAD_PROBE_TYPE },
	{ "p^x vfs_read", SPEC_ERR_BAD_PROBE_TYPE },
	{ "r^x:foo vfs_read", SPEC_ERR_BAD_PROBE_TYPE },
	{ "p^100 vfs_read", SPEC_ERR_BAD_MAXACT_TYPE },
	{ "r^5 /bin/x:0x10", SPEC_ERR_MAXACT_UPROBE },
	{ "r^1a111 vfs_read", SPEC_ERR_BAD_MAXACT },
	{ "r^0 vfs_read", SPEC_ERR_BAD_MAXACT },
	{ "r^99999999999999999999:foo vfs_read", SPEC_ERR_BAD_MAXACT },
	{ "r^100000 vfs_read", SPEC_ERR_MAXACT_TOO_BIG },
	{ "r^4097 vfs_read", SPEC_ERR_MAXACT_TOO_BIG },
	{ "f^3 vfs_read", SPEC_ERR_BAD_MAXACT_TYPE },
	{ "f:a ^vfs_read+4", SPEC_ERR_FPROBE_FUNC_ONLY },
	{ "f ^0xffffffff81000000 %di", SPEC_ERR_FPROBE_FUNC_ONLY },
	{ "f ^/bin/sh:main", SPEC_ERR_FPROBE_FUNC_ONLY },

	/* group and event names */
	{ "p:^/bar vfs_read", SPEC_ERR_NO_GROUP_NAME },
	{ "p:^. vfs_read", SPEC_ERR_NO_GROUP_NAME },
	{ "p:^1234567890123456789012345678901234567890123456789012345678901234/bar vfs_read",
	  SPEC_ERR_GROUP_TOO_LONG },
	{ "p:^foo.1/bar vfs_read", SPEC_ERR_BAD_GROUP_NAME },
	{ "p:^1grp/ev vfs_read", SPEC_ERR_BAD_GROUP_NAME },
	{ "p:^my-grp/ev vfs_read", SPEC_ERR_BAD_GROUP_NAME },
	{ "p:^ vfs_read", SPEC_ERR_NO_EVENT_NAME },
	{ "r10:^ vfs_read", SPEC_ERR_NO_EVENT_NAME },
	{ "p:foo/^1234567890123456789012345678901234567890123456789012345678901234 vfs_read",
	  SPEC_ERR_EVENT_TOO_LONG },
	{ "p:foo/^bar.1 vfs_read", SPEC_ERR_BAD_EVENT_NAME },
	{ "p:^bad-name vfs_read", SPEC_ERR_BAD_EVENT_NAME },
	{ "p:g/^9ev vfs_read", SPEC_ERR_BAD_EVENT_NAME },

	/* the shorthand's target is parsed as any other */
	{ "p:^/bin/x %di", SPEC_ERR_NO_GROUP_NAME },
	{ "p:^bad-name", SPEC_ERR_BAD_PROBE_ADDR },
	{ "p:^vfs!read %di", SPEC_ERR_BAD_PROBE_ADDR },
	{ "r^5:/bin/x:main", SPEC_ERR_MAXACT_UPROBE },
	{ "r:^vfs_read+8 $retval", SPEC_ERR_BAD_RETPROBE },
	{ "p:^/usr/bin/:0x10", SPEC_ERR_NO_UPROBE_PATH },
	{ "p:vfs_read ^$retval", SPEC_ERR_RETVAL_ON_PROBE },

	/* profile */
	{ "profile:^hz:0", SPEC_ERR_BAD_PROFILE },
	{ "profile:^hz:10001", SPEC_ERR_BAD_PROFILE },
	{ "profile:^ms:10", SPEC_ERR_BAD_PROFILE },
	{ "profile:^hz:", SPEC_ERR_BAD_PROFILE },
	{ "profile:hz:99 ^%di", SPEC_ERR_PROFILE_ARGS },

	/* USDT: u PATH:PROVIDER:NAME, arguments arg1..arg12 */
	{ "u ^/bin/x:main", SPEC_ERR_BAD_USDT },
	{ "u:^/bin/x", SPEC_ERR_BAD_USDT },
	{ "u ^:python:line", SPEC_ERR_NO_UPROBE_PATH },
	{ "u /bin/x:^py-thon:line", SPEC_ERR_BAD_USDT },
	{ "u /bin/x:python:^line+4", SPEC_ERR_BAD_USDT },
	{ "u /bin/x:python:^", SPEC_ERR_BAD_USDT },
	{ "u /bin/x:p:n ^arg0", SPEC_ERR_BAD_USDT_ARG },
	{ "u /bin/x:p:n ^arg13", SPEC_ERR_BAD_USDT_ARG },
	{ "u /bin/x:p:n x=+0(^argv):string", SPEC_ERR_BAD_USDT_ARG },
	{ "u /bin/x:p:n ^$arg1", SPEC_ERR_NOFENTRY_ARGS },
	{ "^ux:/bin/x:p:n", SPEC_ERR_BAD_PROBE_TYPE },

	/* tracepoints */
	{ "t ^kmem", SPEC_ERR_BAD_TP_NAME },
	{ "t ^kmem/", SPEC_ERR_BAD_TP_NAME },
	{ "t ^/kmalloc", SPEC_ERR_BAD_TP_NAME },
	{ "t:^km-em/kmalloc x", SPEC_ERR_BAD_TP_NAME },
	/* a glob is of name characters and * ? [set], the set closed */
	{ "t ^sched/sched_[ab", SPEC_ERR_BAD_TP_NAME },
	{ "t ^sched/a-b*", SPEC_ERR_BAD_TP_NAME },
	{ "t ^s*/", SPEC_ERR_BAD_TP_NAME },
	{ "t ^sched/*.x", SPEC_ERR_BAD_TP_NAME },
	{ "p /bin/x:parse_*^+4", SPEC_ERR_BAD_SYM_OFFS },
	{ "p /bin/x:^pa[rse", SPEC_ERR_BAD_PROBE_ADDR },
	{ "t kmem/kmalloc ^%di", SPEC_ERR_NOT_ON_TP },
	{ "t kmem/kmalloc ^$retval", SPEC_ERR_NOT_ON_TP },
	{ "t kmem/kmalloc ^@jiffies", SPEC_ERR_NOT_ON_TP },
	{ "t kmem/kmalloc ^$arg0", SPEC_ERR_BAD_ARG_NUM },
	{ "t kmem/kmalloc ^$argx", SPEC_ERR_NOT_ON_TP },
	{ "t kmem/kmalloc x=^9a", SPEC_ERR_BAD_FETCH_ARG },
	{ "t^x kmem/kmalloc", SPEC_ERR_BAD_PROBE_TYPE },
	{ "t:kmem/kmalloc bytes_req ^bytes_req", SPEC_ERR_USED_ARG_NAME },

	/* filters */
	{ "p vfs_read if ^", SPEC_ERR_NO_FILTER },
	{ "p vfs_read if\t^ ", SPEC_ERR_NO_FILTER },
	{ "p:vfs_read if ^", SPEC_ERR_NO_FILTER },
	{ "^if x", SPEC_ERR_BAD_PROBE_TYPE },
	{ "^  if x", SPEC_ERR_EMPTY },
	{ "-:ev ^if x", SPEC_ERR_TOO_MANY_ARGS },
	{ "p vfs_read \\\"x^ if\"", SPEC_ERR_IMMSTR_NO_CLOSE },
	{ "p vfs_read %ax:^u7 if x == 1", SPEC_ERR_BAD_TYPE },

	/* removal */
	{ "-^", SPEC_ERR_NO_EVENT_NAME },
	{ "-^foo", SPEC_ERR_NO_EVENT_NAME },
	{ "-:^", SPEC_ERR_NO_EVENT_NAME },
	{ "-:grp/^", SPEC_ERR_NO_EVENT_NAME },
	{ "-:^/ev", SPEC_ERR_NO_GROUP_NAME },
	{ "-:^e-v", SPEC_ERR_BAD_EVENT_NAME },
	{ "-:ev vfs_read ^if x", SPEC_ERR_TOO_MANY_ARGS },

	/* kprobe targets */
	{ "p ^", SPEC_ERR_NO_TARGET },
	{ "p:grp/ev ^", SPEC_ERR_NO_TARGET },
	{ "r5:g/ev ^", SPEC_ERR_NO_TARGET },
	{ "p:grp/ev ^if x", SPEC_ERR_NO_TARGET },
	{ "p ^if x == 1", SPEC_ERR_NO_TARGET },
	{ "p ^vfs!read", SPEC_ERR_BAD_PROBE_ADDR },
	{ "p ^9vfs_read+4", SPEC_ERR_BAD_PROBE_ADDR },
	{ "p ^0x12345g", SPEC_ERR_BAD_PROBE_ADDR },
	{ "p ^0x1ffffffffffffffff", SPEC_ERR_BAD_PROBE_ADDR },
	{ "p ^ext4:", SPEC_ERR_BAD_PROBE_ADDR },
	{ "p ^a:b:c", SPEC_ERR_BAD_PROBE_ADDR },
	{ "p ^/bin/x", SPEC_ERR_BAD_PROBE_ADDR },
	/* kprobe_syntax_errors.tc's columns: the suffix at its '%', offsets at the symbol */
	{ "p vfs_read^%hoge", SPEC_ERR_BAD_ADDR_SUFFIX },
	{ "p vfs_read^%return%return", SPEC_ERR_BAD_ADDR_SUFFIX },
	{ "p vfs_read+4^%hoge", SPEC_ERR_BAD_ADDR_SUFFIX },
	{ "p ^%return", SPEC_ERR_BAD_PROBE_ADDR },
	{ "p ^hoge-fuga", SPEC_ERR_BAD_PROBE_ADDR },
	{ "p ^hoge+1000-1000", SPEC_ERR_BAD_PROBE_ADDR },
	{ "p ^vfs_read+", SPEC_ERR_BAD_PROBE_ADDR },
	{ "p ^vfs_read-4", SPEC_ERR_BAD_PROBE_ADDR },
	{ "p ^vfs_read+0x100000000", SPEC_ERR_BAD_PROBE_ADDR },
	{ "p ^vfs_read+99999999999999999999999", SPEC_ERR_BAD_PROBE_ADDR },
	{ "p:ev ^ext4:ext4_sync_fs+zz", SPEC_ERR_BAD_PROBE_ADDR },
	{ "p vfs_*^+4", SPEC_ERR_BAD_SYM_OFFS },
	{ "r ^vfs_read+10", SPEC_ERR_BAD_RETPROBE },
	{ "p ^vfs_read+10%return", SPEC_ERR_BAD_RETPROBE },
	{ "p ^:vfs_read", SPEC_ERR_BAD_MOD_NAME },
	{ "p ^bad!mod:func", SPEC_ERR_BAD_MOD_NAME },
	{ "p ^mmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmm:func",
	  SPEC_ERR_BAD_MOD_NAME },

	/* uprobe targets */
	{ "p ^:0x1234", SPEC_ERR_NO_UPROBE_PATH },
	{ "p ^/usr/bin/:0x10", SPEC_ERR_NO_UPROBE_PATH },
	{ "p /bin/x:^", SPEC_ERR_BAD_UPROBE_OFFS },
	{ "p /bin/x:^0x10g", SPEC_ERR_BAD_UPROBE_OFFS },
	{ "p /bin/x:^+4", SPEC_ERR_BAD_UPROBE_OFFS },
	{ "p /bin/x:^99999999999999999999999", SPEC_ERR_BAD_UPROBE_OFFS },
	{ "p /bin/x:^%return", SPEC_ERR_BAD_UPROBE_OFFS },
	{ "p /bin/x:^zz!", SPEC_ERR_BAD_PROBE_ADDR },
	{ "p /bin/x:0x10^%foo", SPEC_ERR_BAD_ADDR_SUFFIX },
	{ "p /bin/sh:10^%hoge", SPEC_ERR_BAD_ADDR_SUFFIX },
	/* reference counters (uprobe_syntax_errors.tc), read before the suffix */
	{ "p /bin/sh:10(^1a)", SPEC_ERR_BAD_REFCNT },
	{ "p /bin/sh:10(^)", SPEC_ERR_BAD_REFCNT },
	{ "p /bin/sh:10(^-1)", SPEC_ERR_BAD_REFCNT },
	{ "p /bin/sh:10(^99999999999999999999999)", SPEC_ERR_BAD_REFCNT },
	{ "p /bin/sh:10(10^", SPEC_ERR_REFCNT_OPEN_BRACE },
	{ "p /bin/sh:10(10)^a", SPEC_ERR_BAD_REFCNT_SUFFIX },
	{ "p /bin/sh:10(10)^%return", SPEC_ERR_BAD_REFCNT_SUFFIX },
	{ "p /bin/sh:10^%hoge(0x20)", SPEC_ERR_BAD_ADDR_SUFFIX },
	{ "p /bin/sh:^10a(0x20)", SPEC_ERR_BAD_UPROBE_OFFS },
	{ "p /bin/sh:^10a", SPEC_ERR_BAD_UPROBE_OFFS },
	{ "p /bin/x:main^+zz", SPEC_ERR_BAD_SYM_OFFS },
	{ "p /bin/x:main^-4", SPEC_ERR_BAD_SYM_OFFS },
	{ "r ^/bin/x:main+4", SPEC_ERR_BAD_RETPROBE },
	{ "p ^/bin/x:main+4%return", SPEC_ERR_BAD_RETPROBE },

	/* argument names */
	{ "p vfs_read ^arg123456789012345678901234567890=@11", SPEC_ERR_ARG_NAME_TOO_LONG },
	{ "p vfs_read ^=@11", SPEC_ERR_NO_ARG_NAME },
	{ "p vfs_read ^var.1=@11", SPEC_ERR_BAD_ARG_NAME },
	{ "p vfs_read ^1var=@11", SPEC_ERR_BAD_ARG_NAME },
	{ "p vfs_read ^a-b=%ax", SPEC_ERR_BAD_ARG_NAME },
	{ "p vfs_read var1=@11 ^var1=@12", SPEC_ERR_USED_ARG_NAME },
	{ "p vfs_read arg2=%ax ^%bx", SPEC_ERR_USED_ARG_NAME },
	{ "p vfs_read ^common_pid=%ax", SPEC_ERR_USED_ARG_NAME },
	{ "p vfs_read ^__probe_ip=%ax", SPEC_ERR_USED_ARG_NAME },
	{ "r vfs_read ^__probe_ret_ip=%ax", SPEC_ERR_USED_ARG_NAME },
	{ "p vfs_read arg1=^", SPEC_ERR_NO_ARG_BODY },
	/* ftrace's MAX_ARGSTR_LEN: 63 bytes after NAME=, type included; the
	 * caret where the body starts (kprobe_syntax_errors.tc) */
	{ "p vfs_read ^+1234567(+1234567(+1234567(+1234567(+1234567(+1234567(@1234))))))",
	  SPEC_ERR_ARG_TOO_LONG },
	{ "p vfs_read name=^+1234567(+1234567(+1234567(+1234567(+1234567(+12345(@1234)))))):u8",
	  SPEC_ERR_ARG_TOO_LONG },
	{ "p /bin/sh:10 ^+1234567(+1234567(+1234567(+1234567(+1234567(+1234567(@1234))))))",
	  SPEC_ERR_ARG_TOO_LONG },

	/* fetch args */
	{ "p vfs_read ^%none-reg", SPEC_ERR_BAD_REG_NAME },
	{ "p vfs_read ^%", SPEC_ERR_BAD_REG_NAME },
	{ "p vfs_read ^%AX", SPEC_ERR_BAD_REG_NAME },
	{ "p vfs_read ^%abcdefghijklmnop", SPEC_ERR_BAD_REG_NAME },
	{ "p vfs_read +0(^%a.x)", SPEC_ERR_BAD_REG_NAME },
	{ "p vfs_read ^@12345678abcde", SPEC_ERR_BAD_MEM_ADDR },
	{ "p vfs_read ^@0x1ffffffffffffffff", SPEC_ERR_BAD_MEM_ADDR },
	/* an @SYM is resolved as the kernel registers the probe: its refusals
	 * have the caret at the probe point (kprobe_args_syntax.tc) */
	{ "p ^vfs_read @", SPEC_ERR_BAD_MEM_SYM },
	{ "p ^vfs_read @foo!", SPEC_ERR_BAD_MEM_SYM },
	{ "p ^vfs_read @-8", SPEC_ERR_BAD_MEM_SYM },
	{ "p ^vfs_read @_sdata*10", SPEC_ERR_BAD_MEM_SYM },
	{ "p ^vfs_read @_sdata/10", SPEC_ERR_BAD_MEM_SYM },
	{ "p ^vfs_read @_sdata%10", SPEC_ERR_BAD_MEM_SYM },
	{ "p ^vfs_read @_sdata&10", SPEC_ERR_BAD_MEM_SYM },
	{ "p ^vfs_read @_sdata|10", SPEC_ERR_BAD_MEM_SYM },
	{ "p:ev ^vfs_read %di +0(@a*b)", SPEC_ERR_BAD_MEM_SYM },
	{ "p ^vfs_read @jiffies+zz", SPEC_ERR_BAD_MEM_SYM_OFFS },
	{ "p ^vfs_read @jiffies+-8", SPEC_ERR_BAD_MEM_SYM_OFFS },
	{ "p ^vfs_read @jiffies-10+5", SPEC_ERR_BAD_MEM_SYM_OFFS },
	{ "f ^vfs_read @a*b", SPEC_ERR_BAD_MEM_SYM },
	/* ... after every argument parsed: a parse error comes first */
	{ "p vfs_read @a*b ^%none-reg", SPEC_ERR_BAD_REG_NAME },
	{ "p vfs_read arg1=\\^x", SPEC_ERR_BAD_IMM },
	{ "p vfs_read \\^", SPEC_ERR_BAD_IMM },
	{ "p vfs_read \\^99999999999999999999", SPEC_ERR_BAD_IMM },
	{ "p vfs_read \\^-9223372036854775809", SPEC_ERR_BAD_IMM },
	{ "p vfs_read \\^+-5", SPEC_ERR_BAD_IMM },
	{ "p vfs_read arg1=\\\"abcd^", SPEC_ERR_IMMSTR_NO_CLOSE },
	{ "p vfs_read \\\"^", SPEC_ERR_IMMSTR_NO_CLOSE },
	{ "p vfs_read \\\"abc^:string", SPEC_ERR_IMMSTR_NO_CLOSE },
	{ "p vfs_read ^@+10", SPEC_ERR_FILE_ON_KPROBE },
	{ "p /bin/x:0x10 ^@+zz", SPEC_ERR_BAD_FILE_OFFS },
	{ "p /bin/x:0x10 ^@+", SPEC_ERR_BAD_FILE_OFFS },
	{ "p /bin/x:0x10 ^@jiffies", SPEC_ERR_SYM_ON_UPROBE },
	{ "p vfs_read ^+0@0)", SPEC_ERR_DEREF_NEED_BRACE },
	{ "p vfs_read ^-u8", SPEC_ERR_DEREF_NEED_BRACE },
	{ "p vfs_read ^+0ab1(@0)", SPEC_ERR_BAD_DEREF_OFFS },
	{ "p vfs_read ^+(%ax)", SPEC_ERR_BAD_DEREF_OFFS },
	{ "p vfs_read ^+u(%ax)", SPEC_ERR_BAD_DEREF_OFFS },
	{ "p vfs_read ^++8(%ax)", SPEC_ERR_BAD_DEREF_OFFS },
	{ "p vfs_read ^+0x80000000(%ax)", SPEC_ERR_BAD_DEREF_OFFS },
	{ "p vfs_read ^-2147483649(%ax)", SPEC_ERR_BAD_DEREF_OFFS },
	{ "p vfs_read +0(+0(@0^)", SPEC_ERR_DEREF_OPEN_BRACE },
	{ "p vfs_read +8(%ax^", SPEC_ERR_DEREF_OPEN_BRACE },
	{ "p vfs_read +0(^$comm)", SPEC_ERR_COMM_CANT_DEREF },
	{ "p vfs_read +0(+0(^\\\"s\"))", SPEC_ERR_COMM_CANT_DEREF },
	{ "p vfs_read ^&1", SPEC_ERR_BAD_FETCH_ARG },
	{ "p /bin/x:0x1 ^count", SPEC_ERR_NOSUP_BTFARG },
	{ "p vfs_read+4 ^count", SPEC_ERR_NOSUP_BTFARG },
	{ "p vfs_read ^count$", SPEC_ERR_NO_BTFARG },
	{ "p vfs_read file^-f_mode", SPEC_ERR_BAD_HYPHEN },
	{ "p vfs_read file->f_path^-dentry", SPEC_ERR_BAD_HYPHEN },
	{ "p vfs_read ^()file", SPEC_ERR_BAD_FETCH_ARG },
	{ "p vfs_read ^(file)", SPEC_ERR_BAD_FETCH_ARG },
	{ "p vfs_read ^(file", SPEC_ERR_BAD_FETCH_ARG },
	/* not a cast: refused at the '(' (kprobe_args_syntax.tc) */
	{ "p vfs_read ^(%ax)", SPEC_ERR_BAD_FETCH_ARG },
	{ "p vfs_read ^(%ax+10)", SPEC_ERR_BAD_FETCH_ARG },
	{ "p vfs_read ^(a-b)file", SPEC_ERR_BAD_FETCH_ARG },
	{ "p vfs_read x=^(%ax)", SPEC_ERR_BAD_FETCH_ARG },
	{ "p vfs_read ^$comm->x", SPEC_ERR_COMM_CANT_DEREF },
	{ "p vfs_read $arg* ^$arg*", SPEC_ERR_DOUBLE_ARGS },
	/*
	 * A $arg* that is not alone: the kernel (6.12, 6.18) logs BAD_VAR for
	 * it, never its table's BAD_VAR_ARGS, whose words follow as the why
	 */
	{ "p vfs_read args=^$arg*", SPEC_ERR_BAD_VAR_ARGS },
	{ "p vfs_read +0(^$arg*)", SPEC_ERR_BAD_VAR_ARGS },
	{ "f vfs_read args=^$arg*", SPEC_ERR_BAD_VAR_ARGS },
	{ "r vfs_read +8(^$arg*):u32", SPEC_ERR_BAD_VAR_ARGS },
	/* where no $arg* is, the kernel's word alone */
	{ "p /bin/x:0x1 x=^$arg*", SPEC_ERR_BAD_VAR },
	/* a word no parameter can have: not found (kprobe_args_syntax.tc) */
	{ "p vfs_read varname=^varname2=%ax", SPEC_ERR_NO_BTFARG },
	{ "p vfs_read ^x!y", SPEC_ERR_NO_BTFARG },
	{ "p vfs_read+4 ^$arg*", SPEC_ERR_NOFENTRY_ARGS },
	{ "p vfs_read +0(^)", SPEC_ERR_BAD_FETCH_ARG },
	/* an fprobe reads no register (fprobe_syntax_errors.tc) */
	{ "f vfs_read ^%ax", SPEC_ERR_BAD_FETCH_ARG },
	{ "f vfs_read%return ^%ax", SPEC_ERR_BAD_FETCH_ARG },
	{ "f vfs_read x=+8(^%di):u32", SPEC_ERR_BAD_FETCH_ARG },
	{ "f vfs_read ^%di->f_flags", SPEC_ERR_BAD_FETCH_ARG },
	{ "f:e vfs_read a=$arg1 ^%si", SPEC_ERR_BAD_FETCH_ARG },
	{ "p vfs_read ^$none_var", SPEC_ERR_BAD_VAR },
	{ "p vfs_read ^$", SPEC_ERR_BAD_VAR },
	{ "p vfs_read ^$stackx", SPEC_ERR_BAD_VAR },
	{ "p vfs_read ^$stack1x", SPEC_ERR_BAD_VAR },
	{ "p vfs_read ^$stack0x10", SPEC_ERR_BAD_VAR },
	{ "p vfs_read ^$stack99999999999999999999999", SPEC_ERR_BAD_VAR },
	{ "p vfs_read ^$arg", SPEC_ERR_BAD_VAR },
	{ "p vfs_read ^$argx", SPEC_ERR_BAD_VAR },
	{ "p /bin/x:0x1 ^$arg*", SPEC_ERR_BAD_VAR },
	{ "p vfs_read ^$arg*x", SPEC_ERR_BAD_VAR },
	{ "r vfs_read ^$retvalx", SPEC_ERR_BAD_VAR },
	{ "p vfs_read ^$stack10000", SPEC_ERR_BAD_STACK_NUM },
	{ "p vfs_read ^$stack2049", SPEC_ERR_BAD_STACK_NUM },
	{ "p /bin/x:0x10 ^$stack4294967296", SPEC_ERR_BAD_STACK_NUM },
	{ "p vfs_read ^$arg0", SPEC_ERR_BAD_ARG_NUM },
	/* named, or not a kernel function's: no BTF to look it up in first */
	{ "p vfs_read x=^$arg10000", SPEC_ERR_BAD_ARG_NUM },
	{ "p vfs_read +0(^$arg10000)", SPEC_ERR_BAD_ARG_NUM },
	{ "p vfs_read ^$arg99999999999", SPEC_ERR_BAD_ARG_NUM },
	{ "p /bin/x:0x10 ^$arg10000", SPEC_ERR_BAD_ARG_NUM },
	{ "p vfs_read ^$retval", SPEC_ERR_RETVAL_ON_PROBE },
	{ "p /bin/x:0x10 ^$retval", SPEC_ERR_RETVAL_ON_PROBE },
	{ "p vfs_read+20 ^$arg1", SPEC_ERR_NOFENTRY_ARGS },
	{ "p /bin/x:main+4 ^$arg1", SPEC_ERR_NOFENTRY_ARGS },
	{ "p /bin/x:main+4 ^$arg1", SPEC_ERR_NOFENTRY_ARGS },
	{ "p vfs_read+8 +0(^$arg1)", SPEC_ERR_NOFENTRY_ARGS },
	/* ftrace's own TOO_MANY_OPS case: @0 is two insns, +14 derefs */
	{ "p vfs_read +0(^+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(@0))))))))))))))",
	  SPEC_ERR_TOO_MANY_OPS },

	/* types and arrays */
	{ "p vfs_read +0(@11):u8[10^", SPEC_ERR_ARRAY_NO_CLOSE },
	{ "p vfs_read +0(@11):u8[10]^a", SPEC_ERR_BAD_ARRAY_SUFFIX },
	{ "p vfs_read +0(@11):u8[^10a]", SPEC_ERR_BAD_ARRAY_NUM },
	{ "p vfs_read +0(@11):u8[^0]", SPEC_ERR_BAD_ARRAY_NUM },
	{ "p vfs_read +0(@11):u8[^]", SPEC_ERR_BAD_ARRAY_NUM },
	{ "p vfs_read +0(@11):u8[^-1]", SPEC_ERR_BAD_ARRAY_NUM },
	{ "p vfs_read +0(@11):u8[^65]", SPEC_ERR_ARRAY_TOO_BIG },
	{ "p vfs_read +0(@11):u8[^256]", SPEC_ERR_ARRAY_TOO_BIG },
	/* kptrace's ipv6: one address of 16 bytes, no [N] (the caret at '[') */
	{ "p vfs_read +0(@11):ipv6^[2]", SPEC_ERR_IPV6_ARRAY },
	/* be16 is a type, not a bitfield's 'b' */
	{ "p vfs_read +0(@11):^be17", SPEC_ERR_BAD_TYPE },
	{ "p vfs_read @11:^unknown_type", SPEC_ERR_BAD_TYPE },
	{ "p vfs_read %ax:^", SPEC_ERR_BAD_TYPE },
	{ "p vfs_read %ax:^U8", SPEC_ERR_BAD_TYPE },
	{ "p vfs_read +0(@11):^[4]", SPEC_ERR_BAD_TYPE },
	{ "p vfs_read $comm:^u8", SPEC_ERR_NEED_STRING_TYPE },
	{ "p vfs_read $comm:^x64", SPEC_ERR_NEED_STRING_TYPE },
	{ "p vfs_read $comm:^string[2]", SPEC_ERR_NEED_STRING_TYPE },
	{ "p vfs_read $comm:^ustring", SPEC_ERR_NEED_STRING_TYPE },
	{ "p vfs_read $COMM:^symbol", SPEC_ERR_NEED_STRING_TYPE },
	{ "p vfs_read \\\"x\":^u32", SPEC_ERR_NEED_STRING_TYPE },
	{ "p vfs_read s=\\\"hoge\":^u8[2]", SPEC_ERR_NEED_STRING_TYPE },
	/* %pd/%pD only as the whole type, on kernel functions */
	{ "p vfs_read $arg1:^%pd[2]", SPEC_ERR_BAD_TYPE },
	{ "p vfs_read $arg1:^%pdx", SPEC_ERR_BAD_TYPE },
	{ "p vfs_read $arg1:^%px", SPEC_ERR_BAD_TYPE },
	{ "p vfs_read $arg1:^%PD", SPEC_ERR_BAD_TYPE },
	{ "p /bin/x:0x10 %di:^%pd", SPEC_ERR_BAD_TYPE },
	{ "t:g/e sched/sched_switch prev_pid:^%pD", SPEC_ERR_BAD_TYPE },
	{ "p vfs_read %ax:^b3@2/24", SPEC_ERR_BAD_TYPE },
	{ "p vfs_read %ax:^b3@2", SPEC_ERR_BAD_TYPE },
	{ "p vfs_read %ax:^b3@2/8x", SPEC_ERR_BAD_TYPE },
	{ "p /bin/x:0x1 %ax:^symbol", SPEC_ERR_BAD_TYPE },
	{ "p /bin/x:0x1 %ax:^symstr", SPEC_ERR_BAD_TYPE },
	{ "p vfs_read $stack0:^string", SPEC_ERR_BAD_STRING },
	{ "p vfs_read %ax:^ustring", SPEC_ERR_BAD_STRING },
	{ "p vfs_read $stack:^string", SPEC_ERR_BAD_STRING },
	{ "p vfs_read %ax:^u8[4]", SPEC_ERR_BAD_STRING },
	{ "p vfs_read \\1:^u8[4]", SPEC_ERR_BAD_STRING },
	{ "p vfs_read %ax:^symstr[2]", SPEC_ERR_BAD_STRING },
	{ "p vfs_read +u0(%ax):^symstr", SPEC_ERR_BAD_SYMSTRING },
	{ "p vfs_read \\1:^symstr", SPEC_ERR_BAD_SYMSTRING },
	{ "p vfs_read $stack:^symstr", SPEC_ERR_BAD_SYMSTRING },
	{ "p vfs_read @11:^b10@a/16", SPEC_ERR_BAD_BITFIELD },
	{ "p vfs_read %ax:^b0@0/8", SPEC_ERR_BAD_BITFIELD },
	{ "p vfs_read %ax:^b9@0/8", SPEC_ERR_BAD_BITFIELD },
	{ "p vfs_read %ax:^b4@5/8", SPEC_ERR_BAD_BITFIELD },
	{ "p vfs_read %ax:^b3/8", SPEC_ERR_BAD_BITFIELD },
	{ "p vfs_read %ax:^b4@/8", SPEC_ERR_BAD_BITFIELD },
	{ "p vfs_read %ax:^b@1/8", SPEC_ERR_BAD_BITFIELD },
	{ "p vfs_read %ax:^b1@99999999999999999999999/64", SPEC_ERR_BAD_BITFIELD },
};

/* The text with its first '^' removed, and where it was. */
static int uncaret(const char *in, char *out, size_t size)
{
	const char *c = strchr(in, '^');
	size_t n = strlen(in);

	if (n >= size)
		return -1;
	if (!c) {
		memcpy(out, in, n + 1);
		return -1;
	}
	memcpy(out, in, c - in);
	memcpy(out + (c - in), c + 1, n - (c - in));
	return (int)(c - in);
}

static bool covered[SPEC_ERR__COUNT];

static void expect_error(const char *text, enum spec_err code, int col,
			 const char *label)
{
	struct spec_probe p;
	struct spec_error err = { SPEC_ERR_OK, -1 };
	int ret = spec_parse(text, &p, &err);

	covered[code] = true;
	CHECK(ret == -EINVAL, "%s: returned %d, want -EINVAL", label, ret);
	CHECK(err.code == code && err.col == col,
	      "%s: got %s (%s) at %d, want %s at %d", label,
	      spec_strerror(err.code), err.code == code ? "same" : "differs",
	      err.col, spec_strerror(code), col);
	/* a failed parse leaves nothing behind */
	CHECK(!p.text && !p.args && !p.nargs && !p.symbol && !p.path && !p.usym,
	      "%s: output not cleared", label);
	spec_free(&p);
}

static void expect_good(const char *text, const char *want, const char *label)
{
	struct spec_probe p;
	struct spec_error err = { SPEC_ERR_OK, 0 };
	char got[8192];
	int ret = spec_parse(text, &p, &err);

	CHECK(ret == 0, "%s: returned %d: %s at %d", label, ret,
	      spec_strerror(err.code), err.col);
	if (ret == 0) {
		describe(&p, got, sizeof(got));
		CHECK_STR(got, want, label);
		CHECK_STR(p.text, text, label);
	}
	spec_free(&p);
}

static void test_tables(void)
{
	char text[SPEC_TEXT_MAX + 8];
	size_t i;
	int col;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		expect_good(good[i].text, good[i].want, good[i].text);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		col = uncaret(bad[i].text, text, sizeof(text));
		CHECK(col >= 0, "row without a caret: %s", bad[i].text);
		expect_error(text, bad[i].code, col, bad[i].text);
	}
}

/* Exact columns of arguments, bodies, ops and the target. */
static void test_columns(void)
{
	const char *t = "p:ev  vfs_read+8\tx=+4(+u8(%si)):u32  \\\"s\"";
	struct spec_probe p;
	struct spec_error err;

	CHECK(spec_parse(t, &p, &err) == 0, "columns: %s", spec_strerror(err.code));
	CHECK_INT(p.target_col, 6, "target_col");
	CHECK_INT(p.nargs, 2, "nargs");
	if (p.nargs == 2) {
		CHECK_INT(p.args[0].col, 17, "arg0 col");
		CHECK_INT(p.args[0].body_col, 19, "arg0 body_col");
		CHECK_INT(p.args[0].nops, 3, "arg0 nops");
		CHECK_INT(p.args[0].ops[0].col, 26, "reg col");
		CHECK_INT(p.args[0].ops[1].col, 22, "uderef col");
		CHECK_INT(p.args[0].ops[2].col, 19, "deref col");
		CHECK_STR(p.args[0].text, "x=+4(+u8(%si)):u32", "arg0 text");
		CHECK_INT(p.args[1].col, 37, "arg1 col");
		CHECK_INT(p.args[1].body_col, 37, "arg1 body_col");
		CHECK_STR(p.args[1].name, "arg2", "arg1 name");
		CHECK(!p.args[1].type_given, "immediate string: default type");
		CHECK_INT(p.args[0].type_given, 1, "explicit type");
	}
	spec_free(&p);
	CHECK(!p.text && !p.args, "spec_free clears");
	spec_free(&p);	/* twice is harmless */
}

/* The shorthand's target column, the filter's text and column. */
static void test_shorthand_filter(void)
{
	struct spec_probe p;
	struct spec_error err;

	CHECK(spec_parse("p:vfs_read count=%dx:u64 if count > 1 ", &p, &err) == 0,
	      "shorthand + filter: %s", spec_strerror(err.code));
	CHECK_INT(p.target_col, 2, "shorthand target_col");
	CHECK_INT(p.nargs, 1, "shorthand nargs");
	if (p.nargs == 1)
		CHECK_INT(p.args[0].col, 11, "shorthand arg col");
	CHECK_STR(p.filter, "count > 1 ", "filter text");
	CHECK_INT(p.filter_col, 28, "filter_col");
	CHECK(!p.event_given, "shorthand: default event name");
	spec_free(&p);
	CHECK(!p.filter, "spec_free clears the filter");

	CHECK(spec_parse("p vfs_read %di", &p, &err) == 0 && !p.filter && !p.filter_col,
	      "no filter");
	spec_free(&p);

	/* past the end, as NO_TARGET: one past the space "if" needs */
	expect_error("p vfs_read if", SPEC_ERR_NO_FILTER, 14, "bare if");
	CHECK(spec_parse("p:ev", &p, &err) == 0 && p.symbol && !strcmp(p.symbol, "ev") &&
	      p.target_col == 2, "p:ev probes ev");
	spec_free(&p);
}

static char *repeat(char *dst, const char *s, int n)
{
	while (n-- > 0)
		dst = stpcpy(dst, s);
	return dst;
}

/* Build "<pre>" + open*n + base + ")"*n + "<post>" */
static void nest(char *out, const char *pre, const char *open, int n,
		 const char *base, const char *post)
{
	char *q = stpcpy(out, pre);

	q = repeat(q, open, n);
	q = stpcpy(q, base);
	q = repeat(q, ")", n);
	strcpy(q, post);
}

/*
 * "+0(%ax)TYPE" with n dereferences in all: those past the text's 63 bytes
 * (MAX_ARGSTR_LEN) spliced in after the base, as btfarg.c splices a BTF
 * chain's, then held to the budget by spec_check_arg(). 0 or -EINVAL.
 */
static int deep_check(int n, const char *type, struct spec_error *err)
{
	struct spec_probe p;
	struct spec_arg *a;
	char t[128];
	int ret, i;

	snprintf(t, sizeof(t), "p vfs_read +0(%%ax)%s", type);
	ret = spec_parse(t, &p, err);
	CHECK(ret == 0, "%s: %s", t, spec_strerror(err->code));
	if (ret)
		return ret;
	a = &p.args[0];
	for (i = 1; i < n && a->nops < SPEC_MAX_OPS; i++) {
		memmove(&a->ops[2], &a->ops[1], (size_t)(a->nops - 1) * sizeof(a->ops[0]));
		a->ops[1] = a->ops[2];
		a->nops++;
	}
	ret = spec_check_arg(&p, a, err);
	spec_free(&p);
	return ret;
}

/*
 * ftrace's budget is FETCH_INSN_MAX - 1 = 15 fetch_insn for base, derefs,
 * and store/bitfield/array when they need their own. Each row is at the
 * limit and then one past it; where the text would pass 63 bytes, BTF's
 * dereferences reach the limit instead (deep_check()).
 */
static void test_nesting(void)
{
	char t[512], want[2048], *q;
	struct spec_probe p;
	struct spec_error err;
	int i;

	/* %ax + 14 derefs: the last deref is the store, 15 slots */
	nest(t, "p vfs_read ", "+0(", 14, "%ax", "");
	q = stpcpy(want, KP "(x64) reg:ax");
	for (i = 0; i < 14; i++)
		q = stpcpy(q, " deref:0");
	expect_good(t, want, "14 derefs of a register");
	CHECK(spec_parse(t, &p, &err) == 0 && p.args[0].nops == 15, "nops 15");
	spec_free(&p);

	/* 15 derefs: the outermost doesn't fit, caret at its inner body */
	nest(t, "p vfs_read ", "+0(", 15, "%ax", "");
	expect_error(t, SPEC_ERR_TOO_MANY_OPS, 14, "15 derefs of a register");

	/* as a string the last deref still becomes the store */
	CHECK(deep_check(14, ":string", &err) == 0, "14 derefs as string: %s",
	      spec_strerror(err.code));
	/* past 63 bytes the text itself is refused, as ftrace's, where the body starts */
	nest(t, "p vfs_read ", "+0(", 14, "%ax", ":string");
	expect_error(t, SPEC_ERR_ARG_TOO_LONG, 11, "14 derefs as string: 66 bytes");

	/* an array needs a loop insn: 14 + 1 + 1 > 15 ... */
	CHECK(deep_check(14, ":u8[2]", &err) == -EINVAL && err.code == SPEC_ERR_TOO_MANY_OPS &&
	      err.col == 11, "14 derefs as array: %s at %d", spec_strerror(err.code), err.col);
	/* ... 13 fit */
	nest(t, "p vfs_read ", "+0(", 13, "%ax", ":u8[2]");
	q = stpcpy(want, KP "u8[2] reg:ax");
	for (i = 0; i < 13; i++)
		q = stpcpy(q, " deref:0");
	expect_good(t, want, "13 derefs as array");

	/* bitfield: one more insn, like the array */
	CHECK(deep_check(14, ":b1@0/8", &err) == -EINVAL && err.code == SPEC_ERR_TOO_MANY_OPS,
	      "14 derefs + bitfield: %s", spec_strerror(err.code));
	CHECK(deep_check(13, ":b1@0/8", &err) == 0, "13 derefs + bitfield: %s",
	      spec_strerror(err.code));

	/* a register stored raw needs a store insn: 1 + 14 derefs ok only if last is a deref */
	CHECK(deep_check(14, ":symstr", &err) == -EINVAL && err.code == SPEC_ERR_TOO_MANY_OPS,
	      "symstr needs a store insn: %s", spec_strerror(err.code));
	CHECK(deep_check(13, ":symstr", &err) == 0, "symstr, 13 derefs: %s",
	      spec_strerror(err.code));

	/* @SYM is two insns in ftrace: 2 + 1 + 12 wrappers = 15 */
	nest(t, "p vfs_read ", "+0(", 12, "@jiffies", "");
	CHECK(spec_parse(t, &p, &err) == 0 && p.args[0].nops == 14,
	      "@sym + 12 derefs: %s", spec_strerror(err.code));
	spec_free(&p);
	nest(t, "p vfs_read ", "+0(", 13, "@jiffies", "");
	expect_error(t, SPEC_ERR_TOO_MANY_OPS, 14, "@sym + 13 derefs");

	/* @ADDR: 2 + 13 = 15; one more fails at the second-outermost */
	nest(t, "p vfs_read ", "+0(", 13, "@0", "");
	CHECK(spec_parse(t, &p, &err) == 0, "@0 + 13 derefs");
	spec_free(&p);
	nest(t, "p vfs_read ", "+0(", 15, "@0", "");
	expect_error(t, SPEC_ERR_TOO_MANY_OPS, 17, "@0 + 15 derefs");

	/* \IMM stored raw: 1 + 13 derefs + the deref-store; immediate as base */
	nest(t, "p vfs_read ", "+0(", 14, "\\1", "");
	CHECK(spec_parse(t, &p, &err) == 0, "\\1 + 14 derefs");
	spec_free(&p);

	/* way past the limit: too long first, as ftrace measures before it parses */
	nest(t, "p vfs_read ", "+1(", 60, "%ax", "");
	expect_error(t, SPEC_ERR_ARG_TOO_LONG, 11, "60 derefs");
}

static void test_limits(void)
{
	char t[SPEC_TEXT_MAX + 64], want[8192], name[80], *q;
	struct spec_probe p;
	struct spec_error err;
	int i, len;

	/* event and group names: 63 chars fit, 64 don't */
	memset(name, 'e', 63);
	name[63] = '\0';
	snprintf(t, sizeof(t), "p:%s/%s vfs_read", name, name);
	snprintf(want, sizeof(want), "kprobe %s/%s sym=vfs_read+0", name, name);
	expect_good(t, want, "63-char group and event");
	snprintf(t, sizeof(t), "p:%se vfs_read", name);
	expect_error(t, SPEC_ERR_EVENT_TOO_LONG, 2, "64-char event");
	snprintf(t, sizeof(t), "p:%se/ev vfs_read", name);
	expect_error(t, SPEC_ERR_GROUP_TOO_LONG, 2, "64-char group");
	snprintf(t, sizeof(t), "-:%se", name);
	expect_error(t, SPEC_ERR_EVENT_TOO_LONG, 2, "64-char removal");

	/* argument names: ftrace's MAX_ARG_NAME_LEN is 32 */
	memset(name, 'a', 32);
	name[32] = '\0';
	snprintf(t, sizeof(t), "p vfs_read %s=%%ax", name);
	snprintf(want, sizeof(want), "kprobe kprobes/p_vfs_read_0 auto "
		 "sym=vfs_read+0 | %s (x64) reg:ax", name);
	expect_good(t, want, "32-char arg name");
	snprintf(t, sizeof(t), "p vfs_read %sa=%%ax", name);
	expect_error(t, SPEC_ERR_ARG_NAME_TOO_LONG, 11, "33-char arg name");

	/* module names: MODULE_NAME_LEN - 1 = 55 */
	memset(name, 'm', 55);
	name[55] = '\0';
	snprintf(t, sizeof(t), "p %s:f", name);
	CHECK(spec_parse(t, &p, &err) == 0 && !strcmp(p.module, name),
	      "55-char module: %s", spec_strerror(err.code));
	spec_free(&p);

	/* a default name longer than 63 is cut, as ftrace's snprintf() does */
	memset(name, 's', 70);
	name[70] = '\0';
	snprintf(t, sizeof(t), "p %s", name);
	CHECK(spec_parse(t, &p, &err) == 0, "long symbol");
	snprintf(want, sizeof(want), "p_%s", name);
	want[63] = '\0';
	CHECK_STR(p.event, want, "truncated default event");
	spec_free(&p);

	/* argument body: 63 fits (ftrace's MAX_ARGSTR_LEN), 64 not */
	q = stpcpy(t, "p vfs_read \\\"");
	q = repeat(q, "x", 60);
	strcpy(q, "\"");
	CHECK(spec_parse(t, &p, &err) == 0 && strlen(p.args[0].ops[0].data) == 60,
	      "63-char body: %s", spec_strerror(err.code));
	spec_free(&p);
	q = stpcpy(t, "p vfs_read n=\\\"");
	q = repeat(q, "x", 61);
	strcpy(q, "\"");
	expect_error(t, SPEC_ERR_ARG_TOO_LONG, 13, "64-char body");

	/* 128 arguments fit, the 129th is reported where it starts */
	q = stpcpy(t, "p vfs_read");
	for (i = 0; i < 128; i++)
		q = stpcpy(q, " %ax");
	CHECK(spec_parse(t, &p, &err) == 0 && p.nargs == 128 &&
	      !strcmp(p.args[127].name, "arg128"), "128 args: %s",
	      spec_strerror(err.code));
	spec_free(&p);
	len = (int)(q - t);
	strcpy(q, " %bx");
	expect_error(t, SPEC_ERR_TOO_MANY_ARGS, len + 1, "129 args");

	/* the whole definition: SPEC_TEXT_MAX fits, one more doesn't */
	q = stpcpy(t, "p vfs_read");
	while (SPEC_TEXT_MAX - (q - t) > 70) {
		q = stpcpy(q, " \\\"");
		q = repeat(q, "y", 57);
		q = stpcpy(q, "\"");
	}
	q = stpcpy(q, " \\\"");
	q = repeat(q, "z", SPEC_TEXT_MAX - (int)(q - t) - 1);
	strcpy(q, "\"");
	CHECK_INT(strlen(t), SPEC_TEXT_MAX, "built text length");
	CHECK(spec_parse(t, &p, &err) == 0, "%d-byte definition: %s at %d",
	      SPEC_TEXT_MAX, spec_strerror(err.code), err.col);
	spec_free(&p);
	strcat(t, " ");
	expect_error(t, SPEC_ERR_TOO_LONG, SPEC_TEXT_MAX, "one byte too long");
}

static void test_misc(void)
{
	struct spec_probe p;
	struct spec_error err;
	char *out = NULL;
	size_t size = 0;
	FILE *f;
	int i;

	/* NULL text and NULL err are tolerated */
	CHECK(spec_parse(NULL, &p, &err) == -EINVAL && err.code == SPEC_ERR_EMPTY,
	      "NULL text");
	spec_free(&p);
	CHECK(spec_parse("p vfs_read", &p, NULL) == 0, "NULL err");
	spec_free(&p);
	CHECK(spec_parse("p ^", &p, NULL) == -EINVAL, "NULL err, bad text");
	spec_free(&p);
	spec_free(NULL);

	/* every error has a message */
	for (i = 0; i < SPEC_ERR__COUNT; i++)
		CHECK(spec_strerror(i) && *spec_strerror(i), "message for %d", i);
	CHECK_STR(spec_strerror(SPEC_ERR_BAD_TYPE), "Unknown type is specified",
		  "strerror");
	CHECK(spec_strerror(SPEC_ERR__COUNT) != NULL, "strerror out of range");

	/* types */
	CHECK_STR(spec_type_name(SPEC_T_U8), "u8", "type name");
	CHECK_STR(spec_type_name(SPEC_T_SYMSTR), "symstr", "type name");
	CHECK_INT(spec_type_size(SPEC_T_S16), 2, "size s16");
	CHECK_INT(spec_type_size(SPEC_T_X64), 8, "size x64");
	CHECK_INT(spec_type_size(SPEC_T_SYMBOL), 8, "size symbol");
	CHECK_INT(spec_type_size(SPEC_T_STRING), 4, "size string");
	CHECK_INT(spec_type_size(SPEC_T_NONE), 0, "size none");
	CHECK_INT(spec_type_size(SPEC_T__COUNT), 0, "size out of range");
	CHECK(spec_type_is_string(SPEC_T_STRING) && spec_type_is_string(SPEC_T_USTRING) &&
	      spec_type_is_string(SPEC_T_SYMSTR) && !spec_type_is_string(SPEC_T_SYMBOL) &&
	      !spec_type_is_string(SPEC_T_CHAR), "is_string");
	/* the rest of the table, against the kernel's probe_fetch_types[] */
	CHECK_STR(spec_type_info(SPEC_T_X16)->format, "u16", "format x16");
	CHECK_STR(spec_type_info(SPEC_T_SYMBOL)->format, "u64", "format symbol");
	CHECK_STR(spec_type_info(SPEC_T_CHAR)->format, "u8", "format char");
	CHECK_STR(spec_type_info(SPEC_T_USTRING)->format, "__data_loc char[]", "format ustring");
	CHECK_STR(spec_type_info(SPEC_T_S64)->format, "s64", "format s64");
	CHECK_STR(spec_type_info(SPEC_T_U64)->print_fmt, "%Lu", "print fmt u64");
	CHECK_STR(spec_type_info(SPEC_T_S32)->print_fmt, "%d", "print fmt s32");
	CHECK_STR(spec_type_info(SPEC_T_X64)->print_fmt, "0x%Lx", "print fmt x64");
	CHECK_STR(spec_type_info(SPEC_T_CHAR)->print_fmt, "'%c'", "print fmt char");
	CHECK_STR(spec_type_info(SPEC_T_SYMBOL)->print_fmt, "%pS", "print fmt symbol");
	CHECK_STR(spec_type_info(SPEC_T_STRING)->print_fmt, "\\\"%s\\\"", "print fmt string");
	CHECK(spec_type_signed(SPEC_T_S8) && !spec_type_signed(SPEC_T_U8) &&
	      !spec_type_signed(SPEC_T_X64) && !spec_type_signed(SPEC_T_STRING), "signed");
	CHECK(spec_type_hex(SPEC_T_X8) && spec_type_hex(SPEC_T_SYMBOL) &&
	      !spec_type_hex(SPEC_T_U32) && !spec_type_hex(SPEC_T_CHAR), "hex");
	CHECK_INT(spec_type_slot(SPEC_T_SYMSTR), 8, "slot symstr: the address");
	CHECK_INT(spec_type_slot(SPEC_T_STRING), 4, "slot string");
	CHECK_INT(spec_type_int(4, true), SPEC_T_S32, "int 4 signed");
	CHECK_INT(spec_type_int(1, false), SPEC_T_U8, "int 1 unsigned");
	CHECK_INT(spec_type_int(8, false), SPEC_T_U64, "int 8 unsigned");
	CHECK_INT(spec_type_int(3, false), SPEC_T_NONE, "int 3");
	CHECK_INT(spec_type_int(0, true), SPEC_T_NONE, "int 0");
	CHECK_INT(spec_type_by_name("ustring", 7), SPEC_T_USTRING, "by name");
	CHECK_INT(spec_type_by_name("u", 1), SPEC_T_NONE, "by name prefix");
	CHECK_INT(spec_type_by_name("u8x", 3), SPEC_T_NONE, "by name longer");
	CHECK_STR(spec_type_name(SPEC_T__COUNT), "unknown", "name out of range");

	/* the error printout */
	f = open_memstream(&out, &size);
	spec_print_error(f, "p vfs_read $retval", "$retval is not available on probe", 11);
	spec_print_error(f, "p\tx\x01y", "tab", 4);
	spec_print_error(f, "p", "past the end", 3);
	fclose(f);
	CHECK_STR(out,
		  "kptrace: error: $retval is not available on probe\n"
		  "  p vfs_read $retval\n"
		  "             ^\n"
		  "kptrace: error: tab\n"
		  "  p\tx?y\n"
		  "   \t  ^\n"
		  "kptrace: error: past the end\n"
		  "  p\n"
		  "     ^\n", "spec_print_error");
	free(out);

	/* the kprobe_syntax_errors.tc caret and ours agree on a real case */
	CHECK(spec_parse("p vfs_read +0(@11):u8[10]a", &p, &err) == -EINVAL,
	      "suffix");
	f = open_memstream(&out, &size);
	spec_print_error(f, "p vfs_read +0(@11):u8[10]a", spec_strerror(err.code), err.col);
	fclose(f);
	CHECK_STR(out, "kptrace: error: Array has wrong suffix\n"
		  "  p vfs_read +0(@11):u8[10]a\n"
		  "                           ^\n", "printed caret");
	free(out);
}

/*
 * One event, several definitions (kprobe_multiprobe.tc and the multiprobe
 * rows of kprobe_syntax_errors.tc): appended, or refused as the kernel does.
 */
static void test_append(void)
{
	static const struct {
		const char *a, *b;	/* b's '^' marks the caret */
		enum spec_err code;
	} rows[] = {
		{ "p:kprobes/testevent kernel_clone", "p:kprobes/testevent do_exit", SPEC_ERR_OK },
		{ "p:ev vfs_read a=%di:u32", "p:ev vfs_write a=%si:u32", SPEC_ERR_OK },
		{ "p:ev vfs_read a=%di", "p:ev vfs_read a=%si", SPEC_ERR_OK },
		{ "p:ev vfs_read a=+0(%di):u8[4]", "p:ev ksys_read+4 a=+8(%si):u8[4]", SPEC_ERR_OK },
		{ "r:ev vfs_read $retval", "p:ev vfs_write%return $retval", SPEC_ERR_OK },
		{ "p:u/e /bin/x:0x10 %di", "p:u/e /bin/x:0x20 %si", SPEC_ERR_OK },
		{ "f:e vfs_read", "f:e vfs_write", SPEC_ERR_OK },
		{ "p:kprobes/testevent kernel_clone", "^r:kprobes/testevent do_exit",
		  SPEC_ERR_DIFF_PROBE_TYPE },
		{ "f:fprobes/testevent kernel_clone", "^f:fprobes/testevent do_exit%return",
		  SPEC_ERR_DIFF_PROBE_TYPE },
		{ "p:u/e /bin/x:0x10", "^r:u/e /bin/x:0x20", SPEC_ERR_DIFF_PROBE_TYPE },
		{ "p:kprobes/testevent kernel_clone abcd=\\1",
		  "p:kprobes/testevent kernel_clone ^bcd=\\1", SPEC_ERR_DIFF_ARG_TYPE },
		{ "p:kprobes/testevent kernel_clone abcd=\\1",
		  "p:kprobes/testevent kernel_clone ^abcd=\\1:u8", SPEC_ERR_DIFF_ARG_TYPE },
		{ "p:kprobes/testevent kernel_clone abcd=\\1",
		  "p:kprobes/testevent kernel_clone ^abcd=\\\"foo\"", SPEC_ERR_DIFF_ARG_TYPE },
		{ "p:ev vfs_read a=+0(%di):u8[4]", "p:ev vfs_write ^a=+0(%di):u8[2]",
		  SPEC_ERR_DIFF_ARG_TYPE },
		{ "p:ev vfs_read a=+0(%di):string", "p:ev vfs_write ^a=+0(%di):ustring",
		  SPEC_ERR_DIFF_ARG_TYPE },
		{ "p:ev vfs_read a=%di", "p:ev vfs_write a=%di ^b=%si", SPEC_ERR_DIFF_ARG_TYPE },
		/* one argument too few: the caret one past the end, as tracefs's */
		{ "p:kprobes/testevent kernel_clone", "p:kprobes/testevent kernel_clone ^$stack",
		  SPEC_ERR_DIFF_ARG_TYPE },
		{ "p:ev vfs_read a=%di b=%si", "p:ev vfs_write a=%di ^", SPEC_ERR_DIFF_ARG_TYPE },
		{ "p:ev vfs_read a=%di b=%si", "p:ev vfs_write a=%di ^ if a > 1",
		  SPEC_ERR_DIFF_ARG_TYPE },
		{ "p:ev vfs_read a=%di", "p:ev vfs_write ^", SPEC_ERR_DIFF_ARG_TYPE },
		{ "p:kprobes/testevent kernel_clone abcd=\\1",
		  "^p:kprobes/testevent kernel_clone abcd=\\1", SPEC_ERR_SAME_PROBE },
		{ "p:ev vfs_read+4 %di", "^p:ev vfs_read+4 %di", SPEC_ERR_SAME_PROBE },
		{ "p:u/e /bin/x:0x10 %di", "^p:u/e /bin/x:0x10 %di", SPEC_ERR_SAME_PROBE },
		{ "p:ev 0xffffffff81000000", "^p:ev 0xffffffff81000000", SPEC_ERR_SAME_PROBE },
		{ "p:kprobes/ev vfs_read", "^f:kprobes/ev vfs_write", SPEC_ERR_EVENT_EXIST },
		{ "p:g/ev vfs_read", "^p:g/ev /bin/x:0x10", SPEC_ERR_EVENT_EXIST },
		{ "t:g/ev sched/sched_switch", "^t:g/ev sched/sched_switch prev_pid",
		  SPEC_ERR_EVENT_EXIST },
	};
	struct spec_probe a, b;
	struct spec_error err;
	char text[256];
	size_t i;
	int col;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		col = uncaret(rows[i].b, text, sizeof(text));
		/* a caret past the end: the text had a trailing blank for it */
		if (col > 0 && (size_t)col == strlen(text) && text[col - 1] == ' ')
			text[col - 1] = '\0';
		CHECK(!spec_parse(rows[i].a, &a, &err) && !spec_parse(text, &b, &err),
		      "append: parse %s / %s", rows[i].a, text);
		covered[rows[i].code] = true;
		if (rows[i].code == SPEC_ERR_OK) {
			CHECK(spec_check_append(&a, &b, &err) == 0,
			      "append %s to %s: %s at %d", text, rows[i].a,
			      spec_strerror(err.code), err.col);
		} else {
			CHECK(spec_check_append(&a, &b, &err) == -EINVAL &&
			      err.code == rows[i].code && err.col == col,
			      "append %s to %s: %s at %d, want %s at %d", text, rows[i].a,
			      spec_strerror(err.code), err.col, spec_strerror(rows[i].code), col);
		}
		spec_free(&a);
		spec_free(&b);
	}
}

/* "-:EVENT [PROBEPOINT [ARGS]]": which of an event's probes it names. */
static void test_removal(void)
{
	static const struct {
		const char *rm, *def;
		bool match;
	} rows[] = {
		{ "-:kprobes/testevent", "p:kprobes/testevent kernel_clone", true },
		{ "-:kprobes/testevent kernel_clone", "p:kprobes/testevent kernel_clone", true },
		{ "-:kprobes/testevent kernel_clone", "p:kprobes/testevent do_exit", false },
		{ "-:testevent kernel_clone", "p:kprobes/testevent kernel_clone+4", false },
		{ "-:ev vfs_read a=%di", "p:ev vfs_read a=%di b=%si", true },
		{ "-:ev vfs_read a=%di b=%si", "p:ev vfs_read a=%di", false },
		{ "-:ev vfs_read a=%si", "p:ev vfs_read a=%di", false },
		{ "-:u/e /bin/x:0x10", "p:u/e /bin/x:0x10 %di", true },
	};
	struct spec_probe r, p;
	struct spec_error err;
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		CHECK(!spec_parse(rows[i].rm, &r, &err) && !spec_parse(rows[i].def, &p, &err),
		      "removal: parse %s / %s", rows[i].rm, rows[i].def);
		CHECK(spec_removal_matches(&r, &p) == rows[i].match, "'%s' %s '%s'", rows[i].rm,
		      rows[i].match ? "removes" : "leaves", rows[i].def);
		spec_free(&r);
		spec_free(&p);
	}
}

/*
 * The refusals the kernel makes against its symbols and files, resolved
 * against a kallsyms of our own: non-unique names, offsets past a
 * function's end (probed in the next one, as _kprobe_addr() does), data
 * symbols, @SYM, uprobe paths. msg must start with the kernel's text.
 */
static const char fake_kallsyms[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81100000 t __pfx_tracefs_create_dir\n"
	"ffffffff81100010 T tracefs_create_dir\n"
	"ffffffff81100050 t __pfx_next_fn\n"
	"ffffffff81100060 T next_fn\n"
	"ffffffff81100200 t name_show\n"
	"ffffffff81100300 t name_show\n"
	"ffffffff81100400 t foo\n"
	"ffffffff81100500 T bl_fn\n"
	"ffffffff81100600 T last_fn\n"
	"ffffffff81100700 T _etext\n"
	"ffffffff82000000 D jiffies\n"
	"ffffffff82000010 D _end\n"
	"ffffffffc0000000 t foo\t[ext4]\n"
	"ffffffffc0000100 t ext4_fn\t[ext4]\n"
	"ffffffffc0000200 t bpf_prog_x_name_show\t[bpf]\n";

static void test_resolve(void)
{
	static const struct {
		const char *text;	/* '^': the caret; none: accepted */
		enum spec_err code;
		unsigned long long kaddr;	/* accepted: where the probe goes */
		const char *in_msg;		/* the message (or note) says this */
	} rows[] = {
		{ "p:testprobe tracefs_create_dir", SPEC_ERR_OK, 0xffffffff81100010ULL, NULL },
		{ "p tracefs_create_dir+0x3f", SPEC_ERR_OK, 0xffffffff8110004fULL, NULL },
		/* probepoint.tc: the next symbol's start, __pfx_ padding or not */
		{ "p:testprobe tracefs_create_dir+64", SPEC_ERR_OK, 0xffffffff81100050ULL,
		  "it probes __pfx_next_fn+0x0" },
		{ "p:testprobe tracefs_create_dir+80", SPEC_ERR_OK, 0xffffffff81100060ULL,
		  "it probes next_fn+0x0" },
		{ "p next_fn+0x10", SPEC_ERR_OK, 0xffffffff81100070ULL, NULL },
		{ "p ext4:foo", SPEC_ERR_OK, 0xffffffffc0000000ULL, NULL },
		{ "p ext4:ext4_fn", SPEC_ERR_OK, 0xffffffffc0000100ULL, NULL },
		{ "p:test_non_unique ^name_show", SPEC_ERR_NON_UNIQ_SYMBOL, 0,
		  "0xffffffff81100200, 0xffffffff81100300" },
		{ "p ^foo", SPEC_ERR_NON_UNIQ_SYMBOL, 0, "ext4:foo" },
		{ "p:ev ^name_show+4 %di", SPEC_ERR_NON_UNIQ_SYMBOL, 0,
		  "a kprobe at name_show: several functions have this name, 2 symbols" },
		{ "r ^name_show", SPEC_ERR_NON_UNIQ_SYMBOL, 0, NULL },
		{ "p ^non_exist_func", SPEC_ERR_BAD_PROBE_ADDR, 0, "no symbol 'non_exist_func'" },
		{ "p ^ext4:nosuch", SPEC_ERR_BAD_PROBE_ADDR, 0, "module 'ext4'" },
		{ "p ^jiffies", SPEC_ERR_FAIL_REG_PROBE, 0, "not a function" },
		{ "p ^last_fn+0x10000000", SPEC_ERR_FAIL_REG_PROBE, 0, "in no function" },
		{ "p ^bl_fn", SPEC_ERR_FAIL_REG_PROBE, 0, "blacklists" },
		{ "p ^tracefs_create_dir+0x4f0", SPEC_ERR_FAIL_REG_PROBE, 0, "'bl_fn'" },
		{ "p ^vfs_read_at_next_fn @nosuch", SPEC_ERR_BAD_PROBE_ADDR, 0, NULL },
		{ "p ^next_fn x=@nosuch", SPEC_ERR_BAD_PROBE_ADDR, 0, "@nosuch" },
		{ "p next_fn x=@jiffies+8", SPEC_ERR_OK, 0xffffffff81100060ULL, NULL },
		{ "p ^/nonexistent/kpt/x:0x10", SPEC_ERR_FILE_NOT_FOUND, 0, "No such file" },
		{ "p ^/tmp:100", SPEC_ERR_NO_REGULAR_FILE, 0, "/tmp" },
	};
	char path[] = "/tmp/kpt-spec-kallsyms.XXXXXX", text[256], msg[512];
	char *bl[] = { "bl_fn" };
	struct sysinfo si = { 0 };
	struct spec_probe p;
	struct spec_error err;
	struct resolved r;
	int fd = mkstemp(path), col, got, ret;
	size_t i;

	if (fd < 0 || write(fd, fake_kallsyms, sizeof(fake_kallsyms) - 1) !=
		      (ssize_t)sizeof(fake_kallsyms) - 1) {
		CHECK(0, "cannot write %s", path);
		return;
	}
	close(fd);
	si.ksyms = ksyms_load(path);
	unlink(path);
	CHECK(si.ksyms != NULL, "fake kallsyms loads");
	if (!si.ksyms)
		return;
	si.have_kprobes = true;
	si.blacklist_read = true;
	si.blacklist = bl;
	si.nblacklist = 1;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		col = uncaret(rows[i].text, text, sizeof(text));
		CHECK(spec_parse(text, &p, &err) == 0, "resolve: parse %s: %s", text,
		      spec_strerror(err.code));
		ret = resolve_probe(&si, &p, &r, msg, sizeof(msg), &got);
		covered[rows[i].code] = true;
		if (rows[i].code == SPEC_ERR_OK) {
			CHECK(ret == 0 && r.kaddr == rows[i].kaddr,
			      "resolve %s: %d (%s), at 0x%llx, want 0x%llx", text, ret,
			      ret ? msg : "", (unsigned long long)r.kaddr, rows[i].kaddr);
			CHECK(!rows[i].in_msg == !r.note[0] &&
			      (!rows[i].in_msg || strstr(r.note, rows[i].in_msg)),
			      "resolve %s: note '%s', want '%s'", text, r.note,
			      rows[i].in_msg ? rows[i].in_msg : "");
		} else {
			const char *k = spec_strerror(rows[i].code);

			CHECK(ret < 0 && !strncmp(msg, k, strlen(k)) && got == col &&
			      (!rows[i].in_msg || strstr(msg, rows[i].in_msg)),
			      "resolve %s: %d '%s' at %d; want '%s...%s' at %d", text, ret, msg, got,
			      k, rows[i].in_msg ? rows[i].in_msg : "", col);
		}
		resolved_free(&r);
		spec_free(&p);
	}
	/*
	 * MOD:SYM of a module kallsyms has nothing of waits for it (modwatch.c
	 * attaches it as it loads), the shorthand with names too; a loaded
	 * module's function is resolved now (its misspelt one refused above).
	 */
	{
		static const struct {
			const char *text, *func;
			bool await;
		} mods[] = {
			{ "p etn:etn_write count=%dx:u64", "etn:etn_write", true },
			{ "p:etn:etn_write count pos", "etn:etn_write", true },
			{ "r:ev etn-x:f_x $retval", "etn-x:f_x", true },
			{ "p ext4:ext4_fn", "ext4:ext4_fn", false },
		};

		for (i = 0; i < sizeof(mods) / sizeof(mods[0]); i++) {
			ret = spec_parse(mods[i].text, &p, &err);
			CHECK(ret == 0, "parse %s: %s", mods[i].text, spec_strerror(err.code));
			if (ret)
				continue;
			ret = resolve_probe(&si, &p, &r, msg, sizeof(msg), &got);
			CHECK(ret == 0 && r.target.await == mods[i].await &&
			      !strcmp(r.func, mods[i].func) && (mods[i].await ? !r.kaddr : !!r.kaddr),
			      "resolve %s: %d '%s', await %d at 0x%llx as '%s'; want await %d as '%s'",
			      mods[i].text, ret, ret ? msg : "", r.target.await,
			      (unsigned long long)r.kaddr, r.func, mods[i].await, mods[i].func);
			resolved_free(&r);
			spec_free(&p);
		}
		ret = spec_parse("p etn:bl_fn", &p, &err);
		CHECK(ret == 0, "parse p etn:bl_fn: %s", spec_strerror(err.code));
		if (!ret) {
			ret = resolve_probe(&si, &p, &r, msg, sizeof(msg), &got);
			CHECK(ret < 0 && strstr(msg, "blacklists"),
			      "a module not loaded: its blacklisted name refused: %d '%s'", ret, msg);
			resolved_free(&r);
			spec_free(&p);
		}
	}
	/* a glob's matches: the names several functions have left out */
	{
		char *names[] = { strdup("name_show"), strdup("next_fn"), strdup("ext4:foo"),
				  strdup("foo"), strdup("ext4:ext4_fn") };
		int n = 5, dropped = sysinfo_drop_non_unique(&si, names, &n);

		CHECK(dropped == 2 && n == 3 && !strcmp(names[0], "next_fn") &&
		      !strcmp(names[1], "ext4:foo") && !strcmp(names[2], "ext4:ext4_fn"),
		      "glob: %d dropped, %d kept (%s ...)", dropped, n, n ? names[0] : "");
		while (n)
			free(names[--n]);
	}
	si.blacklist = NULL;
	si.nblacklist = 0;
	sysinfo_free(&si);
}

/* The kernel's error for an errno at attach (trace_kprobe_create()'s). */
static void test_attach_errors(void)
{
	static const struct {
		int err;
		bool user, tp;
		enum spec_err code;
	} rows[] = {
		{ -EILSEQ, false, false, SPEC_ERR_BAD_INSN_BNDRY },
		{ -ENOENT, false, false, SPEC_ERR_BAD_PROBE_ADDR },
		{ -EADDRNOTAVAIL, false, false, SPEC_ERR_NON_UNIQ_SYMBOL },
		{ -EINVAL, false, false, SPEC_ERR_FAIL_REG_PROBE },
		{ -EBUSY, false, false, SPEC_ERR_FAIL_REG_PROBE },
		{ -ENOENT, true, false, SPEC_ERR_FILE_NOT_FOUND },
		{ -EINVAL, true, false, SPEC_ERR_FAIL_REG_PROBE },
		{ -ENOMEM, false, false, SPEC_ERR_OK },
		{ -EPERM, false, false, SPEC_ERR_OK },
		{ -EMFILE, true, false, SPEC_ERR_OK },
		{ -ENOENT, false, true, SPEC_ERR_OK },
	};
	struct ev_desc ev;
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		memset(&ev, 0, sizeof(ev));
		ev.is_user = rows[i].user;
		ev.kind = rows[i].tp ? SPEC_TRACEPOINT : rows[i].user ? SPEC_UPROBE : SPEC_KPROBE;
		covered[rows[i].code] = true;
		CHECK(loader_attach_error(&ev, rows[i].err) == rows[i].code,
		      "attach errno %d (%s): %s, want %s", -rows[i].err,
		      rows[i].user ? "uprobe" : rows[i].tp ? "tracepoint" : "kprobe",
		      spec_strerror(loader_attach_error(&ev, rows[i].err)),
		      spec_strerror(rows[i].code));
	}
}

static void test_coverage(void)
{
	int i;

	/* every error the grammar can produce has at least one bad row */
	for (i = SPEC_ERR_OK + 1; i < SPEC_ERR__COUNT; i++) {
		/* found against BTF: tests/unit/test_btfarg.c */
		if (i == SPEC_ERR_NO_BTF_ENTRY || i == SPEC_ERR_NO_BTFARG ||
		    i == SPEC_ERR_BAD_TYPE4STR || i == SPEC_ERR_NO_PTR_STRCT ||
		    i == SPEC_ERR_NO_BTF_FIELD || i == SPEC_ERR_NOSUP_DAT_ARG ||
		    i == SPEC_ERR_NO_RETVAL || i == SPEC_ERR_BAD_BTF_TYPE ||
		    i == SPEC_ERR_NO_BTF_STRUCT || i == SPEC_ERR_ARGS_2LONG)
			continue;
		CHECK(covered[i], "no test for %s", spec_strerror(i));
	}
}

/* ftrace's fprobe events: a function's entry or exit, their own default names. */
/* u: a uprobe of its path, provider and name; argN kept as ops at their columns */
static void test_usdt(void)
{
	static const struct {
		const char *text, *path, *provider, *name, *group, *event;
		bool glob;
	} good[] = {
		{ "u /usr/bin/python3.11:python:function__entry", "/usr/bin/python3.11", "python",
		  "function__entry", "sdt_python", "function__entry", false },
		{ "u:/a:b/c:d:e:gc__*", "/a:b/c:d", "e", "gc__*", "sdt_e", "gc___", true },
		{ "u:g/ev ./x:p:n", "./x", "p", "n", "g", "ev", false },
		{ "u:ev ./x:p:n", "./x", "p", "n", "sdt_p", "ev", false },
		{ "u:web:/usr/bin/python3:python:line", "/usr/bin/python3", "python", "line",
		  "sdt_python", "line", false },
		/* a ':' in the head makes it the probe point: "*" is -p's objects */
		{ "u:*:python:gc__start arg1", "*", "python", "gc__start", "sdt_python", "gc__start",
		  false },
	};
	struct spec_probe p;
	struct spec_error e;
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		CHECK_INT(spec_parse(good[i].text, &p, &e), 0, good[i].text);
		CHECK(p.usdt && p.kind == SPEC_UPROBE, "%s: a USDT uprobe", good[i].text);
		CHECK_STR(p.path, good[i].path, good[i].text);
		CHECK_STR(p.usdt_provider, good[i].provider, good[i].text);
		CHECK_STR(p.usdt_name, good[i].name, good[i].text);
		CHECK_STR(p.group, good[i].group, good[i].text);
		CHECK_STR(p.event, good[i].event, good[i].text);
		CHECK_INT(p.glob, good[i].glob, good[i].text);
		spec_free(&p);
	}
	/* a bare argN names itself; in a dereference it is the base, at its column */
	CHECK_INT(spec_parse("u ./x:p:n arg3 f=+0(arg1):ustring", &p, &e), 0, "args");
	CHECK_INT(p.nargs, 2, "args");
	if (p.nargs == 2) {
		CHECK_STR(p.args[0].name, "arg3", "bare argN");
		CHECK(p.args[0].ops[0].kind == SPEC_OP_ARG && p.args[0].ops[0].param == 3 &&
		      p.args[0].ops[0].col == 10, "arg3: op ARG 3 at 10");
		CHECK(p.args[1].nops == 2 && p.args[1].ops[0].kind == SPEC_OP_ARG &&
		      p.args[1].ops[0].param == 1 && p.args[1].ops[0].col == 20,
		      "+0(arg1): op ARG 1 at 20, then a dereference");
	}
	spec_free(&p);
}

static void test_fprobe(void)
{
	static const struct {
		const char *text;
		enum spec_kind kind;
		const char *group, *event;
		int maxactive;
	} good[] = {
		{ "f vfs_read", SPEC_KPROBE, "fprobes", "vfs_read__entry", 0 },
		{ "f vfs_read%return $retval", SPEC_KRETPROBE, "fprobes", "vfs_read__exit", 0 },
		{ "f:g/e vfs_read count=$arg3", SPEC_KPROBE, "g", "e", 0 },
		{ "f:e vfs_read", SPEC_KPROBE, "fprobes", "e", 0 },
		{ "f16:g/e vfs_read%return", SPEC_KRETPROBE, "g", "e", 16 },
		{ "f ext4:ext4_sync_file", SPEC_KPROBE, "fprobes", "ext4_sync_file__entry", 0 },
		{ "f vfs_*%return", SPEC_KRETPROBE, "fprobes", "", 0 },
		/* an argument reading $retval makes it the exit (trace_fprobe.c) */
		{ "f vfs_read $retval $arg1", SPEC_KRETPROBE, "fprobes", "vfs_read__exit", 0 },
		{ "f:e vfs_read r=+0($retval):u8", SPEC_KRETPROBE, "fprobes", "e", 0 },
		{ "f vfs_read x=\\\"$retvalx\"", SPEC_KPROBE, "fprobes", "vfs_read__entry", 0 },
	};
	static const struct {
		const char *text;
		enum spec_err code;
		int col;
	} bad[] = {
		{ "f vfs_read+4", SPEC_ERR_FPROBE_FUNC_ONLY, 2 },
		{ "f 0xffffffff81000000", SPEC_ERR_FPROBE_FUNC_ONLY, 2 },
		{ "f /bin/sh:main", SPEC_ERR_FPROBE_FUNC_ONLY, 2 },
		{ "f3 vfs_read", SPEC_ERR_BAD_MAXACT_TYPE, 1 },
		{ "f vfs_read%retur", SPEC_ERR_BAD_ADDR_SUFFIX, 10 },
		{ "f vfs_read+10", SPEC_ERR_FPROBE_FUNC_ONLY, 2 },
	};
	struct spec_probe p;
	struct spec_error err;
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		int r = spec_parse(good[i].text, &p, &err);

		CHECK(r == 0 && p.fprobe && p.kind == good[i].kind &&
		      !strcmp(p.group, good[i].group) &&
		      (!good[i].event[0] || !strcmp(p.event, good[i].event)) &&
		      p.maxactive == good[i].maxactive && p.symbol && !p.offset,
		      "fprobe '%s': r %d (%s) kind %d %s/%s maxactive %d", good[i].text, r,
		      r ? spec_strerror(err.code) : "", p.kind, p.group, p.event, p.maxactive);
		spec_free(&p);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int r = spec_parse(bad[i].text, &p, &err);

		CHECK(r == -EINVAL && err.code == bad[i].code && err.col == bad[i].col,
		      "fprobe '%s' refused: r %d, %s at %d", bad[i].text, r,
		      spec_strerror(err.code), err.col);
		spec_free(&p);
	}
	CHECK(spec_parse("p vfs_read", &p, &err) == 0 && !p.fprobe && !strcmp(p.group, "kprobes"),
	      "p: is no fprobe");
	spec_free(&p);
}

/* A filter's field added as a hidden argument: parsed as a listed one is. */
static void test_filter_field(void)
{
	struct spec_probe p;
	struct spec_error err;
	int r;

	CHECK(spec_parse("t:g/e sched/sched_process_exec pid if old_pid > 1", &p, &err) == 0,
	      "filter field: parse");
	r = spec_add_filter_field(&p, "old_pid", 40, &err);
	CHECK(r == 0 && p.nargs == 2 && !strcmp(p.args[1].name, "old_pid") && p.args[1].hidden &&
	      !p.args[0].hidden && p.args[1].col == 40 && p.args[1].nops == 1 &&
	      p.args[1].ops[0].kind == p.args[0].ops[0].kind && !strcmp(p.filter, "old_pid > 1"),
	      "filter field: old_pid hidden at 40 (r %d, nargs %d)", r, p.nargs);
	r = spec_add_filter_field(&p, "no way", 7, &err);
	CHECK(r == -EINVAL && p.nargs == 2 && err.col == 7, "filter field: a bad name refused");
	spec_free(&p);
	CHECK(spec_parse("p:g/e vfs_read %di if x > 1", &p, &err) == 0, "filter field: kprobe");
	CHECK(spec_add_filter_field(&p, "x", 20, &err) == -EINVAL && p.nargs == 1,
	      "filter field: a kprobe has no fields to add");
	spec_free(&p);
}

int main(void)
{
	test_tables();
	test_columns();
	test_shorthand_filter();
	test_nesting();
	test_limits();
	test_misc();
	test_append();
	test_removal();
	test_resolve();
	test_attach_errors();
	test_coverage();
	test_filter_field();
	test_fprobe();
	test_usdt();
	return check_report();
}
