/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Kernel functions a probe can hang the machine at, or recurse at: one
 * table (unsafe.c), a reason per entry. Three classes:
 *   lock:    spinning-lock acquire and release paths; a return there runs
 *            with the lock held, so returns (kretprobe, fexit, rN:, latency,
 *            --from/--to ends) are refused, entries allowed (by kprobes);
 *   nmi:     NMI handlers, any probe;
 *   tracing: what kptrace's own programs and the kernel's way to them call
 *            (ring buffer, maps, fetches, stack walks), any probe.
 * A name given is refused, a glob's match skipped with a line; --unsafe
 * (sysinfo.unsafe) lets them through with a note.
 */
#ifndef KPT_UNSAFE_H
#define KPT_UNSAFE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum unsafe_class { UNSAFE_LOCK, UNSAFE_NMI, UNSAFE_TRACING };

struct unsafe_site {
	const char *glob;		/* fnmatch() pattern over function names */
	enum unsafe_class cls;
	const char *why;		/* what goes wrong there, a clause */
};

/* The entry naming kernel function fn ("MOD:FN" is FN), whatever the probe,
 * or NULL. */
const struct unsafe_site *unsafe_site_of(const char *fn);

/* The entry refusing a probe on fn, a return (ret) or an entry; NULL if none. */
const struct unsafe_site *unsafe_refuses(const char *fn, bool ret);

/* "a return probe on FN can deadlock: ... instead: ..." into msg. */
void unsafe_message(const struct unsafe_site *u, const char *fn, bool ret, char *msg,
		    size_t msglen);

/*
 * A glob's matches: those unsafe_refuses() refuses are dropped from names[]
 * (freed; *n the rest), each said on f as "kptrace: 'GLOB': skipped FN: ...",
 * unless allow (--unsafe), which keeps them and says so once. Returns how
 * many were dropped.
 */
int unsafe_drop(char **names, int *n, bool ret, bool allow, const char *glob, FILE *f);

/* For --dry-run: what the table says of a probe on fn that goes ahead (a
 * lock function's entry, or anything under --unsafe); nothing if nothing. */
void unsafe_explain(FILE *f, const char *fn, bool ret);

#endif /* KPT_UNSAFE_H */
