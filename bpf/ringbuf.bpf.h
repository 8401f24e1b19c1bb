/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* When a record sent to the ring buffer wakes the consumer. */
#ifndef KPT_RINGBUF_BPF_H
#define KPT_RINGBUF_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "settings.bpf.h"
#include "maps.bpf.h"

/*
 * Sampled wakeups: a wakeup costs the traced task microseconds (irq_work, a
 * self-IPI; a VM exit in a guest), so the consumer is not woken per record.
 * It is woken once a millisecond at most while records come, so a trickle
 * still shows at once, and once more when the data waiting crosses
 * kpt_wakeup_bytes with this record, so a burst cannot fill the buffer
 * before it reads. Only at the crossing: a consumer that is behind is awake
 * and reading already, and a wakeup forced on every record above the mark
 * made each record dear under TCG (bench/README.md). Below it all, the
 * consumer's poll timeout drains what is there. kpt_wakeup_bytes 0: the
 * kernel's default (wake a consumer that has caught up).
 */
#define KPT_WAKEUP_NS	1000000ULL

static __always_inline __u64 kpt_wakeup_flags(__u64 now, __u64 size)
{
	__u64 waiting;

	if (!kpt_wakeup_bytes)
		return 0;
	if (now - kpt_last_wakeup < KPT_WAKEUP_NS) {
		/* racy across CPUs: two records may cross together unseen; the
		 * next millisecond's wakeup comes all the same */
		waiting = bpf_ringbuf_query(&kpt_events, BPF_RB_AVAIL_DATA);
		if (waiting >= kpt_wakeup_bytes || waiting + size < kpt_wakeup_bytes)
			return BPF_RB_NO_WAKEUP;
	}
	kpt_last_wakeup = now;	/* racy across CPUs: at worst one wakeup more */
	return BPF_RB_FORCE_WAKEUP;
}

#endif /* KPT_RINGBUF_BPF_H */
