/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A whole run prepared: the definitions (-f, the command line, the
 * subcommands'), globs expanded, BTF arguments, entry savers, resolved and
 * compiled, filters, the subcommand's actions. Every refusal happens here;
 * nothing is loaded or attached, so a test can run it on a made-up sysinfo.
 */
#ifndef KPT_PREPARE_H
#define KPT_PREPARE_H

#include "prepare/opts.h"
#include "prepare/probeset.h"
#include "prepare/resolve.h"

/* Fill ps for env. 0, or a negative errno, its messages printed. */
int prepare(const struct kpt_opts *env, struct sysinfo *si, struct probeset *ps);

/*
 * Kernel functions resolved without kallsyms (resolve.h), once it is read
 * after all: checked and given their addresses as resolve_probe() does, the
 * refusal reported as the resolution reports it.
 */
int prepare_complete_deferred(struct sysinfo *si, struct probeset *ps);

/* Whether a probe of ps was resolved without kallsyms. */
bool prepare_any_deferred(const struct probeset *ps);

#endif /* KPT_PREPARE_H */
