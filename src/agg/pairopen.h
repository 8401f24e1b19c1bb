/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* latency --from/--to: the starts still open at a report (pairopen.c). */
#ifndef KPT_PAIROPEN_H
#define KPT_PAIROPEN_H

#include "agg/agg.h"

/* Print the open starts by group and carried keys (--by of --from's, kstack, ustack). */
void agg_report_open(const struct agg_ctx *c);

#endif /* KPT_PAIROPEN_H */
