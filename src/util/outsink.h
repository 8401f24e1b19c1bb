/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The events' FILE, whose writes wait for a slow reader without
 * holding the run past its end. stdio's own writes block in write(2) while a
 * pipe is full, and nothing then checks -d, a signal or the traced command's
 * exit: here a write that cannot go on waits in poll(2), a tick at a time,
 * and asks its owner after each tick whether to go on waiting. Once told to
 * give up, the rest of the output is dropped and its lines counted.
 */
#ifndef KPT_OUTSINK_H
#define KPT_OUTSINK_H

#include <stdbool.h>
#include <stdio.h>

struct outsink;

/*
 * A FILE writing what f's descriptor writes, fully buffered, and the sink
 * behind it in *sp; f is closed by fclose() of the new FILE. A pipe or a
 * terminal is reopened for the sink alone, non-blocking (the O_NONBLOCK of
 * the descriptor it was given is shared with the reader's side and with
 * whoever else has it); anything else is written as it is. NULL with errno.
 */
FILE *outsink_open(FILE *f, struct outsink **sp);
/*
 * While a write waits for the reader: wait(arg) after each tick (or a
 * signal), false to give up. NULL: wait as long as the reader needs.
 */
void outsink_set_wait(struct outsink *s, bool (*wait)(void *arg), void *arg);
/* Give up from now on: what is still to be written is dropped. */
void outsink_give_up(struct outsink *s);
bool outsink_gave_up(const struct outsink *s);
/* Lines dropped since giving up (an event is one line). */
unsigned long long outsink_dropped_lines(const struct outsink *s);

#endif /* KPT_OUTSINK_H */
