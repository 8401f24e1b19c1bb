// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Uprobe functions' run-time addresses from the traced process's maps (umaps.h). */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>

#include "out/umaps.h"
#include "sys/procmaps.h"

#define UMAPS_SLOTS 256	/* power of two; a collision just evicts */

struct slot {
	uint32_t tgid;
	int probe;
	uint64_t addr;
};

static struct slot cache[UMAPS_SLOTS];

/* lookup()'s walk: the file's device and inode, the probe's offset, what was found. */
struct func_walk {
	dev_t dev;
	ino_t ino;
	uint64_t off;
	uint64_t addr;
};

static int func_in(void *arg, const struct procmap *m)
{
	struct func_walk *w = arg;

	if (m->ino != (uint64_t)w->ino || m->dev != w->dev || w->off < m->pgoff ||
	    w->off >= m->pgoff + (m->end - m->start))
		return 0;
	w->addr = m->start + (w->off - m->pgoff);
	return 1;
}

/* Find the mapping of ev->path (by device and inode) holding its file offset. */
static int lookup(const struct ev_desc *ev, uint32_t tgid, uint64_t *addr)
{
	struct func_walk w;
	struct stat st;

	if (!ev->path || stat(ev->path, &st))
		return -1;
	w = (struct func_walk){ .dev = st.st_dev, .ino = st.st_ino, .off = ev->uoffset };
	if (procmaps_each("/proc", tgid, func_in, &w) != 1)
		return -1;
	*addr = w.addr;
	return 0;
}

uint64_t umaps_func_addr(const struct ev_desc *ev, const struct kpt_rec_hdr *h)
{
	uint32_t tgid = h->tgid;
	struct slot *s = &cache[(tgid * 31u + (uint32_t)ev->index) & (UMAPS_SLOTS - 1)];
	static bool said;
	uint64_t addr;

	if (h->func)
		return h->func;
	if (s->tgid == tgid && s->probe == ev->index && s->addr)
		return s->addr;
	if (lookup(ev, tgid, &addr)) {
		/* process gone, or not mapped: the ELF's address */
		if (!said)
			fprintf(stderr, "kptrace: %s/%s: process %u exited before its maps were "
				"read: its uretprobe lines show the function's address in %s (0x%"
				PRIx64 "), not the run-time one this kernel does not give (it does "
				"from Linux 6.6)\n", ev->group, ev->event, tgid,
				ev->path ? ev->path : "its file", ev->uaddr);
		said = true;
		return ev->uaddr;
	}
	s->tgid = tgid;
	s->probe = ev->index;
	s->addr = addr;
	return addr;
}
