/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Between parse and resolve: arguments by name, from the running
 * kernel's BTF, as the kernel's own kprobe_events (6.5+) takes them:
 * parameter names, $arg*, a bare $argN renamed and typed, a typed $retval,
 * "->" and "." member chains, (STRUCT) casts, and entry arguments at a
 * return probe. Each is rewritten into the same ops a register definition
 * gives ($argN, +OFFS(...), b<w>@<o>/<c>, :TYPE), so a name costs exactly
 * what the equivalent register spec costs.
 */
#ifndef KPT_BTFARG_H
#define KPT_BTFARG_H

#include <stddef.h>
#include "lang/spec.h"
#include "prepare/resolve.h"

/*
 * Resolve p's BTF arguments in place. BTF is loaded only when p has such an
 * argument. Returns 0, or a negative errno with msg and *col (the caret's
 * column in p->text, -1 if none).
 */
int btfarg_resolve(struct sysinfo *si, struct spec_probe *p, char *msg, size_t msglen, int *col);

#endif /* KPT_BTFARG_H */
