// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The kernel's BPF features kptrace falls back from (sys/kfeat.h). */
#include <bpf/libbpf.h>

#include "sys/kfeat.h"

/* 1 or 0 once asked, -1 before */
static int cookies = -1, loop = -1, ringbuf = -1;

static bool ask(int *cache, enum bpf_func_id fn)
{
	if (*cache < 0)
		*cache = libbpf_probe_bpf_helper(BPF_PROG_TYPE_KPROBE, fn, NULL) == 1;
	return *cache;
}

bool kfeat_cookies(void)
{
	return ask(&cookies, BPF_FUNC_get_attach_cookie);
}

bool kfeat_loop(void)
{
	return ask(&loop, BPF_FUNC_loop);
}

bool kfeat_ringbuf(void)
{
	return ask(&ringbuf, BPF_FUNC_ringbuf_reserve);
}
