// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* /proc/PID/maps (procmaps.h). */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/* Whether path is the file of device dev and inode ino. */
static bool file_is(const char *path, dev_t dev, uint64_t ino)
{
	struct stat st;

	return !stat(path, &st) && st.st_dev == dev && st.st_ino == ino;
}

enum procmap_via procmaps_file(const char *proc_root, uint32_t tgid, const struct procmap *m,
			       char *buf, size_t len)
{
	if (m->path[0] == '/' && file_is(m->path, m->dev, m->ino) &&
	    snprintf(buf, len, "%s", m->path) < (int)len)
		return PROCMAP_HOST;
	if (m->path[0] == '/' &&
	    snprintf(buf, len, "%s/%" PRIu32 "/root%s", proc_root, tgid, m->path) < (int)len &&
	    file_is(buf, m->dev, m->ino))
		return PROCMAP_ROOT;
	snprintf(buf, len, "%s/%" PRIu32 "/map_files/%" PRIx64 "-%" PRIx64, proc_root, tgid,
		 m->start, m->end);
	return PROCMAP_MAPFILES;
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

/* The last number of a status line's value ("\t4242\t7\n": 7), and how many there were. */
static int last_number(const char *v, uint32_t *out)
{
	int n = 0;
	char *end;

	for (;;) {
		unsigned long x = strtoul(v, &end, 10);

		if (end == v)
			return n;
		*out = (uint32_t)x;
		n++;
		v = end;
	}
}

int procstatus_nspids(pid_t id, uint32_t *tgid, uint32_t *tid)
{
	char path[64], line[256];
	int levels = -1, got = 0, n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)id);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (got < 2 && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "NStgid:", 7)) {
			n = last_number(line + 7, tgid);
			got++;
		} else if (!strncmp(line, "NSpid:", 6)) {
			levels = n = last_number(line + 6, tid);
			got++;
		} else {
			continue;
		}
		if (n < 1)
			levels = -1, got = 2;
	}
	fclose(f);
	return got == 2 ? levels : -1;
}
