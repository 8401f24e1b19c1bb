// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Uprobe functions' run-time addresses from the traced process's maps (umaps.h). */
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

uint64_t umaps_func_addr(const struct ev_desc *ev, uint32_t tgid)
{
	struct slot *s = &cache[(tgid * 31u + (uint32_t)ev->index) & (UMAPS_SLOTS - 1)];
	uint64_t addr;

	if (s->tgid == tgid && s->probe == ev->index && s->addr)
		return s->addr;
	if (lookup(ev, tgid, &addr))
		return ev->uaddr; /* process gone, or not mapped: the ELF's address */
	s->tgid = tgid;
	s->probe = ev->index;
	s->addr = addr;
	return addr;
}
