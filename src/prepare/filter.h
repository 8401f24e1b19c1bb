/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Event filters: the kernel's event filter language (ftrace's
 * Documentation/trace/events.rst, "Event filtering") compiled into the two
 * postfix programs of a probe entry (struct kpt_pred_prog, include/kptrace.h),
 * which bpf/filter.bpf.h runs in the kernel.
 *
 *   EXPR  := EXPR || EXPR | EXPR && EXPR | !EXPR | ( EXPR ) | FIELD OP VALUE
 *   OP    := == != < <= > >= &           on numbers (& is "bits in common")
 *            == != ~                     on strings, ~ a glob: * ? [abc] [a-z] [!x] \c
 *   VALUE := 123 | -123 | 0x1f | 017     numbers as kstrtoll/kstrtoull read them
 *            "text" | 'text'             strings, no escapes (as the kernel)
 *   FIELD := an argument's name | common_pid (the thread) | pid (the process)
 *            | tid | comm | COMM | CPU | cpu (an argument's name wins)
 *
 * && binds tighter than ||. The top-level conjuncts that use no argument go
 * to the "pre" program, run before anything is fetched; the rest to "post".
 */
#ifndef KPT_FILTER_H
#define KPT_FILTER_H

#include <stddef.h>
#include <stdio.h>

#include "prepare/event.h"
#include "kptrace.h"

/*
 * Compile expr against ev's arguments into pre and post (both zeroed first;
 * nops == 0 is a program that passes). expr NULL: no filter, both empty.
 * Returns 0, or -EINVAL with a message in msg and the 0-based column of the
 * error in expr in *col (msg and col may be NULL).
 */
int filter_compile(const char *expr, const struct ev_desc *ev, struct kpt_pred_prog *pre,
		   struct kpt_pred_prog *post, char *msg, size_t msglen, int *col);

/*
 * The field names expr compares, each as it is met with its column: to the
 * end, or to the first error (then an unknown name is the last one told).
 * For a caller that adds fields before compiling (prepare.c, a tracepoint's).
 */
enum filter_field_kind {
	FILTER_FIELD_ARG,	/* an argument of ev */
	FILTER_FIELD_BUILTIN,	/* common_pid, pid, tid, comm, CPU... */
	FILTER_FIELD_UNKNOWN,
};
typedef void (*filter_field_fn)(const char *name, int col, enum filter_field_kind kind,
				void *arg);
void filter_fields(const char *expr, const struct ev_desc *ev, filter_field_fn fn, void *arg);

/*
 * One line for --dry-run: the program p as an expression ("true" if empty),
 * with ev's argument names (ev may be NULL), then a newline.
 */
void filter_explain(FILE *f, const struct kpt_pred_prog *p, const struct ev_desc *ev);

#endif /* KPT_FILTER_H */
