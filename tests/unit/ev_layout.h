/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Test records laid out as compile.c lays them out: after the header and
 * the fault bitmap, the slots packed in argument order. One copy for the
 * unit tests and the fuzzers that build records by hand.
 */
#ifndef KPT_TEST_EV_LAYOUT_H
#define KPT_TEST_EV_LAYOUT_H

#include <stdint.h>
#include "prepare/event.h"
#include "kptrace.h"

static inline void ev_layout(struct ev_desc *ev)
{
	unsigned int pos = KPT_HDR_SIZE + (ev->nargs + 7) / 8;
	int i;

	for (i = 0; i < ev->nargs; i++) {
		struct ev_arg *a = &ev->args[i];

		if (a->data)
			continue;
		a->slot = (uint16_t)pos;
		pos += a->size * (a->count ? a->count : 1);
	}
	ev->fixed_size = (uint16_t)pos;
}

#endif /* KPT_TEST_EV_LAYOUT_H */
