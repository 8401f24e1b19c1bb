// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stddef.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "kptrace.h"	/* the skeleton's rodata has its types */
#include "sys/objbtf.h"
#include "kptrace.skel.h"

struct btf *objbtf_load(void)
{
	struct bpf_object *obj;
	const void *raw;
	struct btf *btf = NULL;
	size_t sz;
	__u32 rsz;

	raw = kptrace_bpf__elf_bytes(&sz);
	obj = bpf_object__open_mem(raw, sz, NULL);
	if (!obj)
		return NULL;
	/* a copy of its own: the object goes */
	if (bpf_object__btf(obj)) {
		raw = btf__raw_data(bpf_object__btf(obj), &rsz);
		btf = raw ? btf__new(raw, rsz) : NULL;
	}
	bpf_object__close(obj);
	if (!btf && !errno)
		errno = ENOENT;
	return btf;
}
