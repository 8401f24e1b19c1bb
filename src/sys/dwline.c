// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* DWARF source locations (dwline.h), through libdw. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sys/dwline.h"

struct dwline {
	int fd;
	Dwarf *dw;
};

struct dwline *dwline_open(const char *path)
{
	struct dwline *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->fd = open(path, O_RDONLY | O_CLOEXEC);
	/* no .debug_info: dwarf_begin fails (DWARF_E_NO_DWARF) */
	if (d->fd < 0 || !(d->dw = dwarf_begin(d->fd, DWARF_C_READ))) {
		dwline_close(d);
		return NULL;
	}
	return d;
}

void dwline_close(struct dwline *d)
{
	if (!d)
		return;
	if (d->dw)
		dwarf_end(d->dw);
	if (d->fd >= 0)
		close(d->fd);
	free(d);
}

/* A file name as addr2line prints it: joined to the CU's directory when relative. */
static char *full_path(Dwarf_Die *cu, const char *name)
{
	Dwarf_Attribute a;
	const char *dir;
	char *out;

	if (!name)
		return NULL;
	dir = name[0] == '/' ? NULL : dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &a));
	if (!dir)
		return strdup(name);
	if (asprintf(&out, "%s/%s", dir, name) < 0)
		return NULL;
	return out;
}

/* The name a function DIE (or its abstract origin) gives: the linkage name first. */
static char *die_func(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &a));

	if (!name)
		name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a));
	if (!name)
		name = dwarf_diename(die);
	return name ? strdup(name) : NULL;
}

/* An inlined call's site in its caller: DW_AT_call_file and DW_AT_call_line. */
static void call_site(Dwarf_Die *cu, Dwarf_Die *inl, char **file, unsigned int *line)
{
	Dwarf_Attribute a;
	Dwarf_Files *files;
	Dwarf_Word idx = 0, ln = 0;
	size_t n;

	*file = NULL;
	*line = 0;
	if (dwarf_formudata(dwarf_attr(inl, DW_AT_call_line, &a), &ln) == 0)
		*line = (unsigned int)ln;
	if (dwarf_formudata(dwarf_attr(inl, DW_AT_call_file, &a), &idx) == 0 &&
	    dwarf_getsrcfiles(cu, &files, &n) == 0 && idx < n)
		*file = full_path(cu, dwarf_filesrc(files, idx, NULL, NULL));
}

int dwline_frames(struct dwline *d, uint64_t vaddr, struct dwframe *out, int max)
{
	Dwarf_Die cu, *scopes = NULL, inner;
	Dwarf_Line *l;
	char *file;
	unsigned int line = 0;
	int n, i, got = 0, ln = 0, tag;

	if (!d || max <= 0 || !dwarf_addrdie(d->dw, vaddr, &cu))
		return 0;
	l = dwarf_getsrc_die(&cu, vaddr);
	if (!l)
		return 0;
	file = full_path(&cu, dwarf_linesrc(l, NULL, NULL));
	if (!dwarf_lineno(l, &ln))
		line = (unsigned int)ln;
	/* the innermost scope at vaddr, then its concrete chain out to the function:
	 * dwarf_getscopes() would follow an inlined body's abstract origin instead */
	n = dwarf_getscopes(&cu, vaddr, &scopes);
	if (n > 0) {
		inner = scopes[0];
		free(scopes);
		scopes = NULL;
		n = dwarf_getscopes_die(&inner, &scopes);
	}
	for (i = 0; i < n && got < max; i++) {
		tag = dwarf_tag(&scopes[i]);
		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
			continue;
		out[got++] = (struct dwframe){ die_func(&scopes[i]), file, line,
					       tag == DW_TAG_inlined_subroutine };
		file = NULL;
		if (tag == DW_TAG_subprogram)
			break;
		call_site(&cu, &scopes[i], &file, &line);
	}
	/* no function DIE holds it (assembly with line info only): the line alone */
	if (!got)
		out[got++] = (struct dwframe){ NULL, file, line, false };
	else
		free(file);
	free(scopes);
	return got;
}

void dwline_frames_free(struct dwframe *f, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		free(f[i].func);
		free(f[i].file);
	}
}
