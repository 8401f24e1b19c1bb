/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The kernel's BTF, read in one place: the running kernel's
 * (/sys/kernel/btf/vmlinux, as libbpf finds it), or a file given with
 * --btf for a kernel built without CONFIG_DEBUG_INFO_BTF (BTFHub's, pahole's
 * --btf_encode_detached, a vmlinux with a .BTF section). A file gives types
 * and offsets, not the running kernel's BTF ids: BPF trampolines (fentry,
 * fexit, tp_btf) attach by those, which only the kernel's own BTF has.
 */
#ifndef KPT_KBTF_H
#define KPT_KBTF_H

#include <stddef.h>

struct btf;
struct ksyms;

/*
 * The kernel's BTF from path (NULL: the running kernel's), or NULL with
 * msg saying what is missing or wrong, and the fix. A file is checked to be
 * a whole vmlinux BTF and, where ks (kallsyms) is given, this kernel's.
 */
struct btf *kbtf_load(const char *path, const struct ksyms *ks, char *msg, size_t msglen);

/* A module's BTF, split on base (the running kernel's), or NULL. */
struct btf *kbtf_load_module(const char *mod, struct btf *base);

/* Why fentry, fexit and tp_btf cannot attach here for want of the running
 * kernel's BTF ids, or NULL where /sys/kernel/btf/vmlinux is there. */
const char *kbtf_ids_why_not(const char *path);

#endif /* KPT_KBTF_H */
