/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A made-up system for prepare() and plan_make(): four kernel functions in a
 * fake kallsyms (one blacklisted), their prototypes fn(int fd, long count) in
 * a BTF built here, and sched/sched_switch's format in a file written here.
 * make_files() first, remove_files() last; run_prepare() per case.
 */
#ifndef KPT_FAKE_SYSTEM_H
#define KPT_FAKE_SYSTEM_H

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/btf.h>

#include "prepare/prepare.h"

static const char fake_kallsyms[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81000100 T vfs_read\n"
	"ffffffff81000200 T vfs_write\n"
	"ffffffff81000300 T vfs_blocked\n"
	"ffffffff81000400 T do_nothing\n"
	"ffffffff81001000 B _end\n";

/* sched/sched_switch as a 6.x kernel has it, cut to a few fields. */
static const char fake_format[] =
	"name: sched_switch\n"
	"ID: 316\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"prev_pid=%d next_pid=%d\", REC->prev_pid, REC->next_pid\n";

static char dir[] = "/tmp/kpt_prepare_XXXXXX";
static char kallsyms_path[128], functions_path[128];

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f)) {
		perror(path);
		exit(2);
	}
}

static void make_files(void)
{
	char path[256];

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		exit(2);
	}
	snprintf(kallsyms_path, sizeof(kallsyms_path), "%s/kallsyms", dir);
	write_file(kallsyms_path, fake_kallsyms);
	/* no available_filter_functions: the globs match kallsyms' text symbols */
	snprintf(functions_path, sizeof(functions_path), "%s/none", dir);
	snprintf(path, sizeof(path), "%s/sched", dir);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/sched/sched_switch", dir);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/sched/sched_switch/format", dir);
	write_file(path, fake_format);
}

static void remove_files(void)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", dir);
}

/* fn(int fd, long count) in BTF, as vmlinux describes a function. */
static void add_func(struct btf *btf, const char *fn, int int_id, int long_id)
{
	int proto = btf__add_func_proto(btf, int_id);

	btf__add_func_param(btf, "fd", int_id);
	btf__add_func_param(btf, "count", long_id);
	btf__add_func(btf, fn, BTF_FUNC_GLOBAL, proto);
}

/* A system of four kernel functions, one blacklisted, and one tracepoint. */
static void fake_system(struct sysinfo *si)
{
	static char *blacklist[] = { "vfs_blocked" };
	int int_id, long_id;

	memset(si, 0, sizeof(*si));
	si->ksyms = ksyms_load(kallsyms_path);
	si->blacklist = malloc(sizeof(blacklist));
	si->blacklist[0] = strdup(blacklist[0]);
	si->nblacklist = 1;
	si->blacklist_read = true;
	si->have_kprobes = true;
	si->functions_path = functions_path;
	si->tp_format_dir = dir;
	si->btf = btf__new_empty();
	int_id = btf__add_int(si->btf, "int", 4, BTF_INT_SIGNED);
	long_id = btf__add_int(si->btf, "long", 8, BTF_INT_SIGNED);
	add_func(si->btf, "vfs_read", int_id, long_id);
	add_func(si->btf, "vfs_write", int_id, long_id);
	add_func(si->btf, "vfs_blocked", int_id, long_id);
	if (!si->ksyms || !si->btf || int_id < 0 || long_id < 0) {
		fprintf(stderr, "cannot build the fake system\n");
		exit(2);
	}
}

/* prepare() for env on the made-up system: 0 or its error. */
static inline int prepare_env(const struct kpt_opts *env, struct sysinfo *si, struct probeset *ps)
{
	fake_system(si);
	memset(ps, 0, sizeof(*ps));
	return prepare(env, si, ps);
}

/* prepare() on definitions defs in mode m. */
static inline int run_prepare(enum kpt_mode m, const char **defs, int n, struct sysinfo *si,
			      struct probeset *ps)
{
	struct kpt_opts env = { .mode = m, .defs = defs, .ndefs = n };

	return prepare_env(&env, si, ps);
}

static void done(struct sysinfo *si, struct probeset *ps)
{
	probeset_free(ps);
	sysinfo_free(si);
}

#endif /* KPT_FAKE_SYSTEM_H */
