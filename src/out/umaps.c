// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "out/umaps.h"

#define UMAPS_SLOTS 256	/* power of two; a collision just evicts */

struct slot {
	uint32_t tgid;
	int probe;
	uint64_t addr;
};

static struct slot cache[UMAPS_SLOTS];

/* Find the mapping of ev->path (by device and inode) holding its file offset. */
static int lookup(const struct ev_desc *ev, uint32_t tgid, uint64_t *addr)
{
	unsigned long long start, end, pgoff, ino;
	unsigned int major, minor;
	char path[64], line[512];
	struct stat st;
	FILE *f;
	int found = -1;

	if (!ev->path || stat(ev->path, &st))
		return -1;
	snprintf(path, sizeof(path), "/proc/%" PRIu32 "/maps", tgid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (found && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx-%llx %*s %llx %x:%x %llu", &start, &end, &pgoff, &major,
			   &minor, &ino) != 6)
			continue;
		if (ino != (unsigned long long)st.st_ino ||
		    ((uint64_t)major << 8 | minor) != ((uint64_t)major(st.st_dev) << 8 | minor(st.st_dev)))
			continue;
		if (ev->uoffset >= pgoff && ev->uoffset < pgoff + (end - start)) {
			*addr = start + (ev->uoffset - pgoff);
			found = 0;
		}
	}
	fclose(f);
	return found;
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
