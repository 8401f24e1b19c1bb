/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A run's kprobes on module functions as their modules load and unload
 * (modwatch.c): MOD:SYM waiting for MOD (ev_target.await) attached as it
 * loads, any module's probe detached as it goes.
 */
#ifndef KPT_MODWATCH_H
#define KPT_MODWATCH_H

#include <stddef.h>
#include "load/loader.h"
#include "prepare/probeset.h"
#include "prepare/resolve.h"

struct modwatch;

/* The set's module kprobes, those attached taken as attached; NULL on ENOMEM. */
struct modwatch *modwatch_new(struct probeset *ps, struct loader *ld, struct sysinfo *si);
/* How many probes are not attached, their modules' names into mods. */
int modwatch_waiting(const struct modwatch *mw, char *mods, size_t len);
/* As the run goes (often): /proc/modules looked at if a module came or went. */
void modwatch_tick(struct modwatch *mw);
/* At the end: each probe whose module never loaded, said. */
void modwatch_end(struct modwatch *mw);
void modwatch_free(struct modwatch *mw);

#endif /* KPT_MODWATCH_H */
