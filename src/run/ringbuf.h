/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Reading the BPF ring buffer (BPF_MAP_TYPE_RINGBUF) with its
 * data mapped once. libbpf's ring_buffer maps the data area twice, back to
 * back, so a record that wraps reads on; the pages are resident either way,
 * so that is twice the buffer in resident memory. Here the rare wrapping
 * record is copied into one piece instead.
 */
#ifndef KPT_RINGBUF_H
#define KPT_RINGBUF_H

#include <stddef.h>

/* Called per record; a negative return stops the loop and is returned. */
typedef int (*kpt_ring_cb)(void *ctx, void *data, size_t len);

struct kpt_ring;

/* NULL with errno set on failure. */
struct kpt_ring *kpt_ring_new(int map_fd, kpt_ring_cb cb, void *ctx);
/* Wait up to timeout_ms for a wakeup, then read what is there: the number
 * of records, or a negative errno (-EINTR when a signal came). */
int kpt_ring_poll(struct kpt_ring *r, int timeout_ms);
/* Read what is there without waiting: records, or a negative errno. */
int kpt_ring_consume(struct kpt_ring *r);
/* Skip what is there unread: the number of records skipped. */
unsigned long long kpt_ring_skip(struct kpt_ring *r);
void kpt_ring_free(struct kpt_ring *r);

#endif /* KPT_RINGBUF_H */
