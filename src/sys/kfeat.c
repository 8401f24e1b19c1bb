// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The kernel's BPF features kptrace falls back from (sys/kfeat.h). */
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "sys/kfeat.h"

/* 1 or 0 once asked, -1 before */
static int cookies = -1, loop = -1, ringbuf = -1, task_btf = -1;

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

bool kfeat_task_btf(void)
{
	/* r0 = bpf_get_current_task_btf(); r0 = 0; exit: libbpf's helper
	 * probe takes any refusal but "unknown func" for a yes, and this one
	 * is "invalid return type" */
	const struct bpf_insn insns[] = {
		{ .code = BPF_JMP | BPF_CALL, .imm = BPF_FUNC_get_current_task_btf },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int fd;

	if (task_btf < 0) {
		fd = bpf_prog_load(BPF_PROG_TYPE_KPROBE, NULL, "GPL", insns,
				   sizeof(insns) / sizeof(insns[0]), NULL);
		task_btf = fd >= 0;
		if (fd >= 0)
			close(fd);
	}
	return task_btf;
}

const char *kfeat_compat_why(void)
{
	if (!kfeat_loop())
		return "this kernel has no bpf_loop() (Linux 5.17)";
	if (!kfeat_task_btf())
		return "this kernel's verifier has no BTF of its own to type a task by "
		       "(a kernel built without BTF)";
	return NULL;
}
