/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What a refused word most likely meant, for the messages of the command
 * line and of the parser: a subcommand's typo ("hsit"), bpftrace's spelling of a
 * probe ("kprobe:vfs_read", "tracepoint:sched:sched_switch") and the
 * kptrace definition that means the same. Text work, but for finding the
 * library a bpftrace-style "uprobe:libc:malloc" names (libpath.c).
 */
#ifndef KPT_HINT_H
#define KPT_HINT_H

#include <stddef.h>
#include "lang/spec.h"

/*
 * The subcommand a word that is none most likely means ("hsit", "lst",
 * "histogram"), or NULL: a misspelling or a lengthening of one.
 */
const char *hint_subcommand(const char *word);

/*
 * For a definition spec_parse() refused with code at column col: how to
 * write what it most likely means, as "; " and a sentence, into buf.
 * Returns buf's length, 0 (buf "") when there is nothing to add.
 */
size_t hint_definition(const char *text, enum spec_err code, int col, char *buf, size_t len);

#endif /* KPT_HINT_H */
