/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The one ELF reader (libelf underneath): a file opened and mapped, its
 * sections and symbol tables walked, its PT_LOAD segments, its build id.
 * For the uprobe resolver (prepare/resolve.c) and the user symbolizer
 * (sys/usym.c). libelf checks every offset against the file's size, so a
 * hostile file yields errors, not reads outside it.
 */
#ifndef KPT_ELF_H
#define KPT_ELF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <gelf.h>

#define KELF_BUILD_ID_SIZE	20	/* the longest NT_GNU_BUILD_ID kept (SHA-1's) */

struct kelf {
	int fd;
	Elf *e;
	struct stat st;
};

/*
 * path opened as a regular ELF file, mapped (huge files are not read in).
 * 0, or -errno (-ENOEXEC: not a regular file, or not ELF), with the reason
 * in msg when msg is given.
 */
int kelf_open(const char *path, struct kelf *f, char *msg, size_t msglen);
void kelf_close(struct kelf *f);

/* The section after scn (NULL: the first) of type (0: any), its header into *sh; NULL past the last. */
Elf_Scn *kelf_next_section(Elf *e, Elf_Scn *scn, GElf_Word type, GElf_Shdr *sh);

/* Whether e has a section of type. */
bool kelf_has_section(Elf *e, GElf_Word type);

/* A symbol table (SHT_SYMTAB or SHT_DYNSYM) as read. */
struct kelf_symtab {
	Elf *e;
	Elf_Data *d;
	size_t n;		/* its symbols */
	size_t strndx;		/* its names' section */
};

/* scn's table (sh its header); false if it has no data. */
bool kelf_symtab_of(Elf *e, Elf_Scn *scn, const GElf_Shdr *sh, struct kelf_symtab *t);
/* e's first table of type (SHT_SYMTAB or SHT_DYNSYM); false if there is none. */
bool kelf_symtab(Elf *e, GElf_Word type, struct kelf_symtab *t);
/*
 * Symbol i of t into *s, its name into *name (NULL if it has none; the text
 * lives as long as the ELF handle). false if it cannot be read.
 */
bool kelf_sym(const struct kelf_symtab *t, size_t i, GElf_Sym *s, const char **name);

/* The next PT_LOAD header from index *i on (start at 0) into *ph, *i past it; false at the end. */
bool kelf_next_load(Elf *e, size_t *i, GElf_Phdr *ph);
/* e's program header count; -ENOEXEC if it cannot be read. */
int kelf_phnum(Elf *e, size_t *n);

/*
 * The NT_GNU_BUILD_ID, zero-padded to KELF_BUILD_ID_SIZE bytes: from PT_NOTE
 * segments (near the file's start: a directory scan reads little), else from
 * SHT_NOTE sections (a debug file's notes are in no loaded segment of its own).
 */
bool kelf_build_id(Elf *e, unsigned char id[KELF_BUILD_ID_SIZE]);

/* The NT_GNU_BUILD_ID of raw notes (/sys/kernel/notes, a module's notes/.note.gnu.build-id). */
bool kelf_notes_build_id(const void *buf, size_t len, unsigned char id[KELF_BUILD_ID_SIZE]);

/* PT_INTERP's path (the dynamic loader) into path; false if e has none or it does not fit. */
bool kelf_interp(Elf *e, char *path, size_t len);
/*
 * fn on each DT_NEEDED, DT_RPATH and DT_RUNPATH string of e's dynamic
 * section, in order, until it returns non-zero (returned); 0 when done or
 * when e has no dynamic section.
 */
int kelf_dyn_strings(Elf *e, int (*fn)(int64_t tag, const char *s, void *arg), void *arg);
/* The section of type (0: any) named name, its header into *sh; NULL if there is none. */
Elf_Scn *kelf_section_named(Elf *e, GElf_Word type, const char *name, GElf_Shdr *sh);

/* .gnu_debuglink: the debug file's name (NUL-terminated, padded to 4) and its CRC32. */
bool kelf_debuglink(Elf *e, char *name, size_t size, uint32_t *crc);

/*
 * The file offset of virtual address v: from the PT_LOAD segment whose file
 * bytes hold it. false if none does.
 */
bool kelf_vaddr_offset(Elf *e, uint64_t v, uint64_t *off);

/*
 * One SystemTap SDT probe, a note of .note.stapsdt (type 3, owner
 * "stapsdt"): three addresses of the ELF's word size, then provider, name
 * and argument text. pc and sema are adjusted as the format prescribes:
 * by how far the .stapsdt.base section now is from the base the note
 * recorded (prelink moves the section, not the note).
 */
struct kelf_sdt {
	uint64_t pc;		/* the probe's nop: a virtual address */
	uint64_t base;		/* .stapsdt.base as the note recorded it */
	uint64_t sema;		/* the semaphore's virtual address, 0 if none */
	const char *provider;	/* these three live as long as the ELF handle */
	const char *name;
	const char *args;	/* "-4@%eax 8@16(%rsp)", "" if none */
};

/*
 * fn on each of e's SDT notes, in file order, until it returns non-zero
 * (returned). 0 when done; -ENOEXEC for a note cut short or without its
 * texts' terminators.
 */
int kelf_sdt_notes(Elf *e, int (*fn)(const struct kelf_sdt *n, void *arg), void *arg);

/*
 * Of two symbols at one address, the name a user knows first, as qsort()
 * orders: fewer leading '_' (glibc's getpid is a weak alias of the global
 * __getpid), global before weak before local, then by name.
 */
int kelf_alias_cmp(const char *xname, unsigned char xbind, const char *yname,
		   unsigned char ybind);

#endif /* KPT_ELF_H */
