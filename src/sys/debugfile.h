/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A binary's separate debug file, where its symbols, DWARF and
 * .debug_frame went when it was stripped: by build id under
 * ROOT/.build-id/xx/yyyy.debug, else fetched by build id from a debuginfod
 * server (debuginfod.h), else by its .gnu_debuglink (DIR/, DIR/.debug/,
 * ROOT/DIR/, its CRC32 checked). A file found is kept only if it has a
 * .symtab and the binary's build id (or link CRC): a proxy's page or
 * another build is not taken. For the symbolizer (usym.c) and the unwind
 * tables (load/cfi.c).
 */
#ifndef KPT_DEBUGFILE_H
#define KPT_DEBUGFILE_H

#include <stddef.h>
#include <sys/stat.h>

#include "sys/elf.h"

#define DEBUGFILE_ROOT	"/usr/lib/debug"

/* By build id id (zero-padded to KELF_BUILD_ID_SIZE): opened into ef, its path into path; -ENOENT. */
int debugfile_by_id(const char *root, const unsigned char *id, struct kelf *ef, char *path,
		    size_t size);

/*
 * By e's .gnu_debuglink, e being file_path's ELF (self its stat: the link
 * never names the file itself): opened into ef, its path into path; -ENOENT.
 */
int debugfile_by_link(const char *root, Elf *e, const char *file_path, const struct stat *self,
		      struct kelf *ef, char *path, size_t size);

/* f's (opened from path) debug file, by build id, else by link, into dbg; -ENOENT. */
int debugfile_open(const char *root, const struct kelf *f, const char *path, struct kelf *dbg,
		   char *dpath, size_t size);

#endif /* KPT_DEBUGFILE_H */
