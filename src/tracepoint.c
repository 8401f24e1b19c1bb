// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>

#include "tracepoint.h"

static const char *const tracefs_dirs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };

const char *tp_tracefs(void)
{
	char p[64];
	size_t i;

	for (i = 0; i < sizeof(tracefs_dirs) / sizeof(tracefs_dirs[0]); i++) {
		snprintf(p, sizeof(p), "%s/events", tracefs_dirs[i]);
		if (!access(p, F_OK))
			return tracefs_dirs[i];
	}
	/* Not mounted (a bare system): the tracepoint formats live there. */
	if (!mount("nodev", tracefs_dirs[0], "tracefs", 0, NULL))
		return tracefs_dirs[0];
	return NULL;
}

/* "field:TYPE NAME[N];\toffset:O;\tsize:S;\tsigned:G;" */
static int parse_field(char *line, struct tp_field *f)
{
	char *decl, *semi, *name, *br;
	unsigned int off, size, sgn;
	char *p;

	decl = strstr(line, "field:");
	if (!decl)
		return -1;
	decl += 6;
	semi = strchr(decl, ';');
	if (!semi)
		return -1;
	*semi = 0;
	p = strstr(semi + 1, "offset:");
	if (!p || sscanf(p, "offset:%u;\tsize:%u;\tsigned:%u;", &off, &size, &sgn) != 3)
		return -1;
	memset(f, 0, sizeof(*f));
	snprintf(f->decl, sizeof(f->decl), "%s", decl);
	f->offset = off;
	f->size = size;
	f->is_signed = sgn;
	/* The name is the last word of the declaration, less any [N]. */
	br = strchr(decl, '[');
	name = strrchr(decl, ' ');
	if (!name)
		return -1;
	if (br && br < name) {
		/* "__data_loc char[] name" */
		f->data_loc = !strncmp(decl, "__data_loc", 10);
	} else if (br) {
		*br = 0;
		f->char_array = strstr(decl, "char") != NULL;
	}
	*name++ = 0;
	while (*name == '*') {
		f->pointer = true;
		name++;
	}
	snprintf(f->name, sizeof(f->name), "%s", name);
	snprintf(f->type, sizeof(f->type), "%s", decl);
	if (strchr(decl, '*'))
		f->pointer = true;
	return 0;
}

int tp_format_load(const char *subsys, const char *name, const char *path,
		   struct tp_format *fmt, char *msg, size_t msglen)
{
	char buf[512], line[1024];
	const char *dir;
	FILE *f;
	int cap = 0;

	memset(fmt, 0, sizeof(*fmt));
	if (!path) {
		dir = tp_tracefs();
		if (!dir) {
			snprintf(msg, msglen, "tracepoints need tracefs (mount -t tracefs nodev "
				 "/sys/kernel/tracing)");
			return -ENOENT;
		}
		snprintf(buf, sizeof(buf), "%s/events/%s/%s/format", dir, subsys, name);
		path = buf;
	}
	f = fopen(path, "re");
	if (!f) {
		int err = -errno;

		snprintf(msg, msglen, "no tracepoint %s/%s in this kernel (%s: %s)", subsys, name,
			 path, strerror(errno));
		return err;
	}
	while (fgets(line, sizeof(line), f)) {
		struct tp_field fld;

		if (sscanf(line, "ID: %d", &fmt->id) == 1)
			continue;
		if (parse_field(line, &fld) || !strncmp(fld.name, "common_", 7))
			continue;
		if (fmt->nfields == cap) {
			struct tp_field *nf;

			cap = cap ? cap * 2 : 16;
			nf = realloc(fmt->fields, cap * sizeof(*nf));
			if (!nf) {
				fclose(f);
				tp_format_free(fmt);
				return -ENOMEM;
			}
			fmt->fields = nf;
		}
		fmt->fields[fmt->nfields++] = fld;
	}
	fclose(f);
	return 0;
}

const struct tp_field *tp_field_find(const struct tp_format *fmt, const char *name)
{
	int i;

	for (i = 0; i < fmt->nfields; i++)
		if (!strcmp(fmt->fields[i].name, name))
			return &fmt->fields[i];
	return NULL;
}

void tp_field_names(const struct tp_format *fmt, char *buf, size_t len)
{
	size_t used = 0;
	int i;

	buf[0] = 0;
	for (i = 0; i < fmt->nfields && used < len; i++)
		used += snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
				 fmt->fields[i].name);
}

void tp_format_free(struct tp_format *fmt)
{
	free(fmt->fields);
	memset(fmt, 0, sizeof(*fmt));
}
