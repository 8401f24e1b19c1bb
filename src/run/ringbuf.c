// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The BPF ring buffer, its data mapped once (see ringbuf.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <bpf/bpf.h>
#include <linux/bpf.h>

#include "run/ringbuf.h"

struct kpt_ring {
	int map_fd, epoll_fd;
	size_t page;
	uint64_t mask;			/* data bytes - 1 (a power of two) */
	unsigned long *consumer_pos;	/* the writable page */
	unsigned long *producer_pos;	/* the first read-only page */
	uint8_t *data;			/* after it, once */
	uint8_t *copy;			/* a wrapping record, in one piece */
	size_t copy_cap;
	kpt_ring_cb cb;
	void *ctx;
};

void kpt_ring_free(struct kpt_ring *r)
{
	if (!r)
		return;
	if (r->consumer_pos)
		munmap(r->consumer_pos, r->page);
	if (r->producer_pos)
		munmap(r->producer_pos, r->page + r->mask + 1);
	if (r->epoll_fd >= 0)
		close(r->epoll_fd);
	free(r->copy);
	free(r);
}

struct kpt_ring *kpt_ring_new(int map_fd, kpt_ring_cb cb, void *ctx)
{
	struct bpf_map_info info;
	__u32 len = sizeof(info);
	struct epoll_event ev = { .events = EPOLLIN };
	struct kpt_ring *r;
	void *p;
	int err;

	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(map_fd, &info, &len))
		return NULL;
	if (info.type != BPF_MAP_TYPE_RINGBUF || !info.max_entries ||
	    (info.max_entries & (info.max_entries - 1))) {
		errno = EINVAL;
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->map_fd = map_fd;
	r->epoll_fd = -1;
	r->page = (size_t)sysconf(_SC_PAGESIZE);
	r->mask = info.max_entries - 1;
	r->cb = cb;
	r->ctx = ctx;
	p = mmap(NULL, r->page, PROT_READ | PROT_WRITE, MAP_SHARED, map_fd, 0);
	if (p == MAP_FAILED)
		goto fail;
	r->consumer_pos = p;
	/* the producer page and the data, once: the kernel takes any length
	 * up to its own double mapping */
	p = mmap(NULL, r->page + info.max_entries, PROT_READ, MAP_SHARED, map_fd, r->page);
	if (p == MAP_FAILED)
		goto fail;
	r->producer_pos = p;
	r->data = (uint8_t *)p + r->page;
	r->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	if (r->epoll_fd < 0 || epoll_ctl(r->epoll_fd, EPOLL_CTL_ADD, map_fd, &ev))
		goto fail;
	return r;
fail:
	err = errno;
	kpt_ring_free(r);
	errno = err;
	return NULL;
}

/* The record at data offset off, len bytes, in one piece. */
static void *record_at(struct kpt_ring *r, uint64_t off, uint32_t len)
{
	uint64_t size = r->mask + 1, first;

	if (off + len <= size)
		return r->data + off;
	if (len > r->copy_cap) {
		uint8_t *c = realloc(r->copy, len);

		if (!c)
			return NULL;
		r->copy = c;
		r->copy_cap = len;
	}
	first = size - off;
	memcpy(r->copy, r->data + off, first);
	memcpy(r->copy + first, r->data, len - first);
	return r->copy;
}

int kpt_ring_consume(struct kpt_ring *r)
{
	unsigned long cons, prod;
	uint32_t hdr, len;
	bool more;
	int n = 0, err;

	cons = __atomic_load_n(r->consumer_pos, __ATOMIC_ACQUIRE);
	do {
		more = false;
		prod = __atomic_load_n(r->producer_pos, __ATOMIC_ACQUIRE);
		while (cons < prod) {
			/* a record: 8 bytes of header (length and flags, page
			 * offset), 8-byte aligned, so the header never wraps */
			hdr = __atomic_load_n((uint32_t *)(r->data + (cons & r->mask)),
					      __ATOMIC_ACQUIRE);
			if (hdr & BPF_RINGBUF_BUSY_BIT)
				return n;	/* reserved, not yet committed */
			more = true;
			len = hdr & ~(BPF_RINGBUF_BUSY_BIT | BPF_RINGBUF_DISCARD_BIT);
			if (!(hdr & BPF_RINGBUF_DISCARD_BIT)) {
				void *rec = record_at(r, (cons + BPF_RINGBUF_HDR_SZ) & r->mask, len);

				err = rec ? r->cb(r->ctx, rec, len) : -ENOMEM;
				if (err < 0) {
					cons += (len + BPF_RINGBUF_HDR_SZ + 7) & ~7UL;
					__atomic_store_n(r->consumer_pos, cons, __ATOMIC_RELEASE);
					return err;
				}
				n++;
			}
			cons += (len + BPF_RINGBUF_HDR_SZ + 7) & ~7UL;
			__atomic_store_n(r->consumer_pos, cons, __ATOMIC_RELEASE);
		}
	} while (more);
	return n;
}

unsigned long long kpt_ring_skip(struct kpt_ring *r)
{
	unsigned long cons = __atomic_load_n(r->consumer_pos, __ATOMIC_ACQUIRE);
	unsigned long prod = __atomic_load_n(r->producer_pos, __ATOMIC_ACQUIRE);
	unsigned long long n = 0;
	uint32_t hdr;

	while (cons < prod) {
		hdr = __atomic_load_n((uint32_t *)(r->data + (cons & r->mask)), __ATOMIC_ACQUIRE);
		if (hdr & BPF_RINGBUF_BUSY_BIT)
			break;	/* reserved, not yet committed */
		n += !(hdr & BPF_RINGBUF_DISCARD_BIT);
		cons += ((hdr & ~(BPF_RINGBUF_BUSY_BIT | BPF_RINGBUF_DISCARD_BIT)) +
			 BPF_RINGBUF_HDR_SZ + 7) & ~7UL;
	}
	__atomic_store_n(r->consumer_pos, cons, __ATOMIC_RELEASE);
	return n;
}

int kpt_ring_poll(struct kpt_ring *r, int timeout_ms)
{
	struct epoll_event ev;
	int n = epoll_wait(r->epoll_fd, &ev, 1, timeout_ms);

	if (n < 0)
		return -errno;
	return kpt_ring_consume(r);
}
