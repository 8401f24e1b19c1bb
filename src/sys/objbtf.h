/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The BTF of kptrace's own BPF object (embedded by the skeleton): the types
 * the programs were compiled with. The registers a probe copies are indexed
 * by this struct pt_regs's layout, so %REG offsets come from here; it is a
 * few kilobytes to parse, where the kernel's BTF is megabytes (~40 ms).
 */
#ifndef KPT_OBJBTF_H
#define KPT_OBJBTF_H

struct btf;

/* A new BTF (free with btf__free), or NULL with errno set. */
struct btf *objbtf_load(void);

#endif /* KPT_OBJBTF_H */
