/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * u:PATH:PROVIDER:NAME definitions made uprobe definitions: one
 * "p:GROUP/EVENT PATH:0xOFFSET(0xSEMAPHORE) ARGS" per location of each
 * matching USDT probe of PATH (sys/usdt.h), each argN rewritten into the
 * note's own fetch argument and, bare, typed with the note's size and
 * sign. The semaphore's file offset is the uprobe's reference counter,
 * which the kernel raises in every process mapping PATH while attached.
 */
#ifndef KPT_USDTDEF_H
#define KPT_USDTDEF_H

#include <sys/types.h>

#include "prepare/probeset.h"

/*
 * Probe i of ps (spec.usdt): its locations' definitions appended to ps
 * (probe i stays: the caller drops it); PATH "*" is every file process pid
 * (-p, 0 if none) maps executable, or without one, every object command
 * (-c) links. 0, or a negative errno (reported).
 */
int usdtdef_expand(struct probeset *ps, int i, pid_t pid, const char *command);

#endif /* KPT_USDTDEF_H */
