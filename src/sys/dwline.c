// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* DWARF source locations (dwline.h), through libdw. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sys/dwline.h"
#include "sys/elf.h"
#include "util/htab.h"

struct dwline {
	int fd;
	Dwarf *dw;
	Elf *rel;		/* a relocatable file's (a .ko), relocated: dw's, ours to end */
};

/* Never look elsewhere: a file without DWARF of its own has none here. */
/*
 * Relocation value v at off of d (a debug section's data) by the machine's
 * absolute types, the only ones DWARF's sections of a .ko carry; another
 * type is left as it is.
 */
static void reloc_put(Elf_Data *d, GElf_Addr off, unsigned type, unsigned machine, uint64_t v)
{
	uint32_t w = (uint32_t)v;
	unsigned size = 0;

	if (machine == EM_X86_64)
		size = type == R_X86_64_64 ? 8 : type == R_X86_64_32 || type == R_X86_64_32S ? 4 : 0;
	else if (machine == EM_AARCH64)
		size = type == R_AARCH64_ABS64 ? 8 : type == R_AARCH64_ABS32 ? 4 : 0;
	if (!size || off > d->d_size || d->d_size - off < size)
		return;
	memcpy((char *)d->d_buf + off, size == 8 ? (const void *)&v : (const void *)&w, size);
}

/* RELA section rs's relocations applied to the section they are for, if a debug one. */
static void apply_rela(Elf *e, Elf_Scn *rs, const GElf_Shdr *rsh, unsigned machine)
{
	Elf_Scn *ts = elf_getscn(e, rsh->sh_info), *ss = elf_getscn(e, rsh->sh_link);
	Elf_Data *rd = elf_getdata(rs, NULL), *td, *sd;
	GElf_Shdr tsh;
	GElf_Rela r;
	GElf_Sym s;
	int i;

	/* code and data are not read here: their relocations wait for the loader */
	if (!ts || !ss || !rd || !gelf_getshdr(ts, &tsh) || (tsh.sh_flags & SHF_ALLOC))
		return;
	if ((tsh.sh_flags & SHF_COMPRESSED) && elf_compress(ts, 0, 0) < 0)
		return;
	td = elf_getdata(ts, NULL);
	sd = elf_getdata(ss, NULL);
	if (!td || !sd || !td->d_buf)
		return;
	for (i = 0; gelf_getrela(rd, i, &r); i++)
		if (gelf_getsym(sd, (int)GELF_R_SYM(r.r_info), &s))
			reloc_put(td, r.r_offset, (unsigned)GELF_R_TYPE(r.r_info), machine,
				  s.st_value + (uint64_t)r.r_addend);
}

/*
 * A relocatable file's DWARF (a kernel module's .ko): its .debug_info's
 * references to strings and other sections are relocations, which
 * dwarf_begin leaves unapplied. Applied here in a private mapping of the
 * file (section offsets as addresses: no layout is needed for names).
 */
static Dwarf *open_relocated(struct dwline *d)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Ehdr eh;

	d->rel = elf_begin(d->fd, ELF_C_READ_MMAP_PRIVATE, NULL);
	if (!d->rel || !gelf_getehdr(d->rel, &eh))
		return NULL;
	while ((scn = kelf_next_section(d->rel, scn, SHT_RELA, &sh)))
		apply_rela(d->rel, scn, &sh, eh.e_machine);
	return dwarf_begin_elf(d->rel, DWARF_C_READ, NULL);
}

struct dwline *dwline_open(const char *path)
{
	struct dwline *d = calloc(1, sizeof(*d));
	GElf_Ehdr eh;

	if (!d)
		return NULL;
	d->fd = open(path, O_RDONLY | O_CLOEXEC);
	/* no .debug_info: dwarf_begin fails (DWARF_E_NO_DWARF) */
	if (d->fd < 0 || !(d->dw = dwarf_begin(d->fd, DWARF_C_READ))) {
		dwline_close(d);
		return NULL;
	}
	if (gelf_getehdr(dwarf_getelf(d->dw), &eh) && eh.e_type == ET_REL) {
		dwarf_end(d->dw);
		d->dw = open_relocated(d);
		if (!d->dw) {
			dwline_close(d);
			return NULL;
		}
	}
	return d;
}

void dwline_close(struct dwline *d)
{
	if (!d)
		return;
	if (d->dw)
		dwarf_end(d->dw);
	if (d->rel)
		elf_end(d->rel);
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

/* Whether a file of a CU's (name as DWARF says it) matches glob: as written, joined
 * to the CU's directory, or relative to that directory when it is under it. */
static bool file_matches(Dwarf_Die *cu, const char *name, const char *glob)
{
	Dwarf_Attribute a;
	const char *dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &a));
	size_t dlen = dir ? strlen(dir) : 0;
	char *full;
	bool hit;

	if (!fnmatch(glob, name, 0))
		return true;
	if (dlen && name[0] == '/' && !strncmp(name, dir, dlen) && name[dlen] == '/')
		return !fnmatch(glob, name + dlen + 1, 0);
	full = full_path(cu, name);
	hit = full && !fnmatch(glob, full, 0);
	free(full);
	return hit;
}

/*
 * Whether a function DIE has code: an address or ranges. In a linked file
 * (linked) one at 0 or at -1 is a copy the linker discarded (a weak
 * function another file's overrides): DWARF keeps it, the program has none.
 */
static bool has_code(Dwarf_Die *die, bool linked)
{
	Dwarf_Addr lo, base, end;

	if (dwarf_lowpc(die, &lo) && dwarf_ranges(die, 0, &base, &lo, &end) <= 0)
		return false;
	return !linked || (lo && lo != (Dwarf_Addr)-1);
}

/* A function symbol's key: its address, then its name up to a compiler's suffix
 * (foo.isra.0 is foo); the key's length. */
static size_t sym_key(uint64_t addr, const char *name, char *key, size_t size)
{
	size_t n = strcspn(name, ".");

	if (n > size - sizeof(addr))
		n = size - sizeof(addr);
	memcpy(key, &addr, sizeof(addr));
	memcpy(key + sizeof(addr), name, n);
	return sizeof(addr) + n;
}

/* A linked file's function symbols (.symtab), by sym_key(); false: it has none. */
static bool func_syms(Dwarf *dw, struct htab *syms)
{
	struct kelf_symtab t;
	const char *name;
	char key[264];
	GElf_Sym sym;
	size_t i;

	if (!kelf_symtab(dwarf_getelf(dw), SHT_SYMTAB, &t))
		return false;
	for (i = 0; i < t.n; i++)
		if (kelf_sym(&t, i, &sym, &name) && name && GELF_ST_TYPE(sym.st_info) == STT_FUNC &&
		    !ht_get(syms, key, sym_key(sym.st_value, name, key, sizeof(key))))
			return false;
	return true;
}

/* A CU's functions that have code: an address or ranges, so neither a
 * declaration nor an inline-only body (their out-of-line copies name
 * themselves through DW_AT_abstract_origin), defined in a file glob
 * matches (not a header's static function emitted here). */
static int cu_funcs(Dwarf_Die *cu, const char *glob, bool linked, const struct htab *syms,
		    int (*fn)(const char *name, void *arg), void *arg)
{
	Dwarf_Attribute a;
	Dwarf_Addr lo;
	Dwarf_Die die;
	const char *name, *file;
	char key[264];
	int err = 0;

	if (dwarf_child(cu, &die))
		return 0;
	do {
		if (dwarf_tag(&die) != DW_TAG_subprogram || dwarf_hasattr(&die, DW_AT_declaration) ||
		    !has_code(&die, linked))
			continue;
		name = dwarf_formstring(dwarf_attr_integrate(&die, DW_AT_name, &a));
		file = dwarf_decl_file(&die);
		if (!name || (file && !file_matches(cu, file, glob)))
			continue;
		/* a weak function another file overrides keeps its code, not its symbol */
		if (syms && !dwarf_lowpc(&die, &lo) &&
		    !ht_find(syms, key, sym_key(lo, name, key, sizeof(key))))
			continue;
		err = fn(name, arg);
	} while (!err && !dwarf_siblingof(&die, &die));
	return err;
}

int dwline_cu_funcs(struct dwline *d, const char *glob, int (*fn)(const char *name, void *arg),
		    void *arg)
{
	Dwarf_Off off = 0, next;
	Dwarf_Die cu;
	size_t hsize;
	const char *name;
	struct htab syms = { 0 };
	bool have_syms = !d->rel && func_syms(d->dw, &syms);
	int ncu = 0, err = 0;

	while (!err && dwarf_nextcu(d->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(d->dw, off + hsize, &cu) && (name = dwarf_diename(&cu)) &&
		    file_matches(&cu, name, glob)) {
			ncu++;
			err = cu_funcs(&cu, glob, !d->rel, have_syms ? &syms : NULL, fn, arg);
		}
		off = next;
	}
	ht_free(&syms, NULL);
	return err ? err : ncu;
}
