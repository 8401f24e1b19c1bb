// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "sys/kbtf.h"
#include "sys/ksyms.h"

#define KERNEL_BTF	"/sys/kernel/btf/vmlinux"
#define NO_BTF_FIX	"give this kernel's BTF with --btf FILE (BTFHub's, or pahole " \
			"--btf_encode_detached's from its vmlinux with DWARF), or run a kernel " \
			"built with CONFIG_DEBUG_INFO_BTF"
/* the share of a --btf file's functions kallsyms may lack, in percent */
#define KBTF_MISS_PCT	8

/*
 * Whether btf's functions are this kernel's: all are looked up in kallsyms
 * (hashed: 25-60 ms for 55,846 on the development VM, after the file's
 * ~100 ms parse; only --btf pays it). Of the running kernel's own BTF 1.7%
 * are not there (940 of 55,846 on 6.18: functions the compiler left only as
 * clones); of Debian's 6.12 against 6.18's kallsyms, 22%. Another kernel's
 * BTF would give wrong offsets and argument registers without a word.
 */
static int check_functions(const char *path, const struct btf *btf, const struct ksyms *ks,
			   char *msg, size_t msglen)
{
	int n = (int)btf__type_cnt(btf), nfunc = 0, miss = 0, id;
	const char *first = NULL;

	for (id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const char *name;

		if (!btf_is_func(t))
			continue;
		nfunc++;
		name = btf__name_by_offset(btf, t->name_off);
		if (!ksyms_by_name(ks, name, NULL) && !miss++)
			first = name;
	}
	if ((long)miss * 100 <= (long)nfunc * KBTF_MISS_PCT)
		return 0;
	snprintf(msg, msglen, "--btf %s: not this kernel's BTF: %d of its %d functions (%s "
		 "first) are not in /proc/kallsyms, where at most %d%% may be; another kernel's "
		 "offsets and argument registers would be wrong: give the BTF of this kernel "
		 "(uname -r)", path, miss, nfunc, first, KBTF_MISS_PCT);
	return -EINVAL;
}

/* A file's BTF: readable, BTF, a whole vmlinux's, this kernel's. */
static struct btf *load_file(const char *path, const struct ksyms *ks, char *msg, size_t msglen)
{
	struct btf *btf;
	int err;

	if (access(path, R_OK)) {
		snprintf(msg, msglen, "--btf %s: %s", path, strerror(errno));
		return NULL;
	}
	btf = btf__parse(path, NULL);
	err = libbpf_get_error(btf);
	if (err) {
		snprintf(msg, msglen, "--btf %s: not BTF: give a raw BTF file (BTFHub's "
			 "FILE.btf, /sys/kernel/btf/vmlinux copied) or an ELF file with a .BTF "
			 "section", path);
		return NULL;
	}
	/* a module's BTF, split from vmlinux's, or bpftool gen min_core_btf's,
	 * which keeps only what an object's CO-RE relocations use (kptrace's
	 * has none), lacks what every run may need */
	if (btf__find_by_name_kind(btf, "task_struct", BTF_KIND_STRUCT) <= 0 ||
	    btf__find_by_name_kind(btf, "schedule", BTF_KIND_FUNC) <= 0) {
		snprintf(msg, msglen, "--btf %s: not a whole vmlinux BTF (no struct task_struct "
			 "or function schedule: a module's, or one minimized by bpftool gen "
			 "min_core_btf?): give the kernel's whole BTF", path);
		btf__free(btf);
		return NULL;
	}
	if (ks && check_functions(path, btf, ks, msg, msglen)) {
		btf__free(btf);
		return NULL;
	}
	return btf;
}

struct btf *kbtf_load(const char *path, const struct ksyms *ks, char *msg, size_t msglen)
{
	struct btf *btf;

	if (path)
		return load_file(path, ks, msg, msglen);
	btf = btf__load_vmlinux_btf();
	if (libbpf_get_error(btf)) {
		snprintf(msg, msglen, "this kernel has no BTF (%s is missing or unreadable): %s",
			 KERNEL_BTF, NO_BTF_FIX);
		return NULL;
	}
	return btf;
}

struct btf *kbtf_load_module(const char *mod, struct btf *base)
{
	struct btf *btf = btf__load_module_btf(mod, base);

	return libbpf_get_error(btf) ? NULL : btf;
}

const char *kbtf_ids_why_not(const char *path)
{
	static int have = -1;
	unsigned char magic[2];
	int fd;

	if (have < 0) {
		fd = open(KERNEL_BTF, O_RDONLY | O_CLOEXEC);
		/* BTF's magic, 0xeb9f, in the machine's order */
		have = fd >= 0 && read(fd, magic, 2) == 2 &&
		       ((magic[0] == 0x9f && magic[1] == 0xeb) ||
			(magic[0] == 0xeb && magic[1] == 0x9f));
		if (fd >= 0)
			close(fd);
	}
	if (have)
		return NULL;
	return path ? "fentry, fexit and tp_btf attach by the running kernel's BTF ids, which "
		      "--btf FILE does not give (only " KERNEL_BTF " does); kprobes take BTF "
		      "arguments from FILE" :
		      "fentry, fexit and tp_btf attach by the running kernel's BTF ids, and this "
		      "kernel has no " KERNEL_BTF;
}
