/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The whole pipeline for one invocation. */
#ifndef KPT_RUN_H
#define KPT_RUN_H

#include "cli.h"

/* Returns 0 or a negative errno; messages are already printed. */
int kpt_run(const struct env *env);

#endif /* KPT_RUN_H */
