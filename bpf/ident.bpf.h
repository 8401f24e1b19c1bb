/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Which probe a hit is: the attachment's BPF cookie, or where the kernel
 * has none (before 5.15) and the probe has no slot program of its own
 * (kptrace.bpf.c) what the hit itself says, looked up in kpt_ident.
 * A kprobe handler runs with the per-CPU current_kprobe set to its struct
 * kprobe, a kretprobe's handler to the kretprobe's (whose addr is the
 * function's entry): its addr tells the function, and the registers' ip
 * the direction (just past the probe's breakpoint at an entry, the return
 * trampoline at a return). A tracepoint's record would start with its
 * event id, but the kernel writes the registers' address over its first 8
 * bytes before the program runs (perf_trace_run_bpf_submit()): the only
 * tracepoint without a slot. A uprobe runs with no current kprobe: the
 * only uprobe without a slot, as the only profile. The loader refuses
 * what this cannot tell apart.
 */
#ifndef KPT_IDENT_BPF_H
#define KPT_IDENT_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "settings.bpf.h"
#include "maps.bpf.h"
#include "scratch.bpf.h"
#include "regs.bpf.h"

#ifdef KPT_ARCH_X86
#define KPT_BRK_LEN	1	/* an int3's ip is past it */
#else
#define KPT_BRK_LEN	0	/* a BRK's is its own */
#endif

/* Which probe an attachment of kind's hit is (~0: none of the run's). */
static __always_inline __u32 kpt_probe_of(void *ctx, int kind)
{
	struct kpt_ident k = { 0, KPT_ID_OTHER, 0 };
	__u64 off = 0, kp = 0, ip;
	__u32 *idx, cpu;

	if (!kpt_no_cookie)
		return (__u32)bpf_get_attach_cookie(ctx);
	if (kind == KPT_CTX_TP) {
		k.what = KPT_ID_TP;
	} else if (kind == KPT_CTX_REGS) {
		cpu = bpf_get_smp_processor_id();
		if (!bpf_probe_read_kernel(&off, sizeof(off), (void *)(kpt_id_pcpu + cpu * 8)) &&
		    !bpf_probe_read_kernel(&kp, sizeof(kp), (void *)(kpt_id_curkp + off)) && kp &&
		    !bpf_probe_read_kernel(&k.addr, sizeof(k.addr),
					   (void *)(kp + kpt_id_addr_off))) {
			/* kptrace's own copy of the type: no CO-RE relocation */
			ip = PT_REGS_IP((struct kpt_regs *)ctx);
			k.what = ip - KPT_BRK_LEN == k.addr ? KPT_ID_ENTRY : KPT_ID_RETURN;
		}
	}
	idx = bpf_map_lookup_elem(&kpt_ident, &k);
	return idx ? *idx : ~0u;
}

#endif /* KPT_IDENT_BPF_H */
