/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Source locations from DWARF (libdw underneath): an address of an ELF
 * file's to file:line, with the functions inlined there, as
 * `addr2line -f -i` reads them, and the functions of source files (why
 * --under ':GLOB'). The one place kptrace reads DWARF; the user
 * symbolizer (usym.c) calls it for files that have debug info.
 */
#ifndef KPT_DWLINE_H
#define KPT_DWLINE_H

#include <stdbool.h>
#include <stdint.h>

struct dwline;

/* path's DWARF (the binary's own or a separate debug file's); NULL if it has none. */
struct dwline *dwline_open(const char *path);
void dwline_close(struct dwline *d);

/* One source frame: a function at a line. Strings are malloc'd (dwline_frames_free). */
struct dwframe {
	char *func;		/* a linkage name (mangled) or DW_AT_name; NULL: none known */
	char *file;		/* absolute where the CU's directory says so */
	unsigned int line;
	bool inlined;		/* an inlined call's body; else the symbol's own function */
};

/*
 * The frames at vaddr (an address in the file's own terms, as its symbols'),
 * innermost first: each inlined function at its line, then the function
 * that holds them at the line of the outermost inlined call (without
 * inlining: that function at vaddr's line). At most max; the count, 0 when
 * DWARF says nothing of vaddr.
 */
int dwline_frames(struct dwline *d, uint64_t vaddr, struct dwframe *out, int max);
void dwline_frames_free(struct dwframe *f, int n);

/*
 * fn on the name of each function with code (not a declaration, not only
 * inlined) of d's compile units whose file matches glob (fnmatch, '*'
 * crossing '/'): DW_AT_name as written ("kernel/bpf/syscall.c" or
 * absolute), joined to DW_AT_comp_dir, or relative to it. A name may come
 * twice. The count of units matched, or fn's non-zero return.
 */
int dwline_cu_funcs(struct dwline *d, const char *glob, int (*fn)(const char *name, void *arg),
		    void *arg);

#endif /* KPT_DWLINE_H */
