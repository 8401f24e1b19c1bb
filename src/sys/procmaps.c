// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* /proc/PID/maps (procmaps.h). */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "sys/procmaps.h"

bool procmaps_parse(char *line, struct procmap *m)
{
	unsigned long long start, end, pgoff, ino;
	unsigned int maj, min;
	int pos = 0;
	size_t len;

	if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, m->perms, &pgoff, &maj,
		   &min, &ino, &pos) != 7 || !pos || start >= end)
		return false;
	m->start = start;
	m->end = end;
	m->pgoff = pgoff;
	m->dev = makedev(maj, min);
	m->ino = ino;
	m->path = line + pos;
	len = strlen(m->path);
	while (len && (m->path[len - 1] == '\n' || m->path[len - 1] == ' '))
		m->path[--len] = '\0';
	return true;
}

int procmaps_each(const char *proc_root, uint32_t tgid,
		  int (*fn)(void *arg, const struct procmap *m), void *arg)
{
	char path[PATH_MAX], *line = NULL;
	struct procmap m;
	size_t lcap = 0;
	int r = 0;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%" PRIu32 "/maps", proc_root, tgid);
	fp = fopen(path, "re");
	if (!fp)
		return -errno;
	while (!r && getline(&line, &lcap, fp) > 0)
		if (procmaps_parse(line, &m))
			r = fn(arg, &m);
	free(line);
	fclose(fp);
	return r;
}

long procstatus_field(pid_t id, const char *key)
{
	size_t klen = strlen(key);
	char path[64], line[128];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)id);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, klen) && line[klen] == ':') {
			v = strtol(line + klen + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}
