/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A tracepoint's own line, as the kernel's trace file prints it after
 * "EVENT: ", for a tracepoint given without fields: libtraceevent
 * evaluates the event's print fmt (its flag and symbol tables, ternaries,
 * __get_str()) over a record rebuilt in the kernel's layout from
 * kptrace's. The kernel's %p conversions it would print otherwise (%pS
 * with its /size, %p as bare hex) are kptrace's own functions, through
 * the run's kallsyms.
 */
#ifndef KPT_TPPRINT_H
#define KPT_TPPRINT_H

#include <stddef.h>
#include <stdint.h>

#include "prepare/event.h"
#include "sys/ksyms.h"

/*
 * ev's line from its print fmt (ev->tp_print) into out, NUL-terminated:
 * its length, or -1 when libtraceevent could not read the format (the
 * caller prints the fields as kptrace does).
 */
long tpprint_info(const struct ev_desc *ev, const struct ksyms *ks, const void *rec, size_t len,
		  char *out, size_t outlen);

/*
 * The name ev's print fmt gives value v of its tracepoint's field (the
 * __print_symbolic() over the field itself: a softirq's "BLOCK", a TCP
 * state's "TCP_SYN_SENT"), the print fmt's own table: NULL when it has
 * none for the field or none for v.
 */
const char *tpprint_symbol(const struct ev_desc *ev, const char *field, uint64_t v);

#endif /* KPT_TPPRINT_H */
