/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What this kernel's BPF has that kptrace's programs use and older kernels
 * lack, each asked once by a test load (libbpf_probe_bpf_helper()), never
 * by the kernel's version: a backport counts as what it is.
 */
#ifndef KPT_SYS_KFEAT_H
#define KPT_SYS_KFEAT_H

#include <stdbool.h>

/* BPF cookies: bpf_get_attach_cookie() in kprobe programs (Linux 5.15).
 * Without them a probe is told by what it hit (bpf/ident.bpf.h). */
bool kfeat_cookies(void);
/* bpf_loop() (Linux 5.17): without it the programs come from the object
 * that has no callbacks (load/loader.c), and the helpers kptrace's
 * fentry/fexit programs take, bpf_get_func_arg_cnt() and
 * bpf_get_func_ret(), came in the same release. */
bool kfeat_loop(void);
/* bpf_get_current_task_btf() verified (Linux 5.11, and the kernel built
 * with BTF: the helper returns a BTF id of the kernel's own BTF, which a
 * kernel built without has none of, and the verifier refuses the call). */
bool kfeat_task_btf(void);
/* NULL where the programs come from the main object (load/loader.c),
 * which takes bpf_loop() and the task by BTF (kpt_in_task()); else why
 * they come from the compat object, which has neither. */
const char *kfeat_compat_why(void);
/* The BPF ring buffer (Linux 5.8): every record and the loss counts go
 * through it, and kptrace's floor, 5.10, has it: without it, a refusal. */
bool kfeat_ringbuf(void);

#endif /* KPT_SYS_KFEAT_H */
