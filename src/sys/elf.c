// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The one ELF reader (elf.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sys/elf.h"

int kelf_open(const char *path, struct kelf *f, char *msg, size_t msglen)
{
	int err;

	f->e = NULL;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	f->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0) {
		err = -errno;
		if (msg)
			snprintf(msg, msglen, "cannot open %s: %s", path, strerror(errno));
		return err;
	}
	if (fstat(f->fd, &f->st) || !S_ISREG(f->st.st_mode))
		goto bad;
	f->e = elf_begin(f->fd, ELF_C_READ_MMAP, NULL);
	if (!f->e || elf_kind(f->e) != ELF_K_ELF)
		goto bad;
	return 0;
bad:
	if (msg)
		snprintf(msg, msglen, "%s is not an ELF file", path);
	kelf_close(f);
	return -ENOEXEC;
}

void kelf_close(struct kelf *f)
{
	if (f->e)
		elf_end(f->e);
	if (f->fd >= 0)
		close(f->fd);
	f->e = NULL;
	f->fd = -1;
}

Elf_Scn *kelf_next_section(Elf *e, Elf_Scn *scn, GElf_Word type, GElf_Shdr *sh)
{
	while ((scn = elf_nextscn(e, scn)))
		if (gelf_getshdr(scn, sh) && (!type || sh->sh_type == type))
			return scn;
	return NULL;
}

bool kelf_has_section(Elf *e, GElf_Word type)
{
	GElf_Shdr sh;

	return kelf_next_section(e, NULL, type, &sh) != NULL;
}

bool kelf_symtab_of(Elf *e, Elf_Scn *scn, const GElf_Shdr *sh, struct kelf_symtab *t)
{
	*t = (struct kelf_symtab){ .e = e, .strndx = sh->sh_link };
	t->d = elf_getdata(scn, NULL);
	if (!t->d || !sh->sh_entsize)
		return false;
	t->n = sh->sh_size / sh->sh_entsize;
	return true;
}

bool kelf_symtab(Elf *e, GElf_Word type, struct kelf_symtab *t)
{
	GElf_Shdr sh;
	Elf_Scn *scn = kelf_next_section(e, NULL, type, &sh);

	return scn && kelf_symtab_of(e, scn, &sh, t);
}

bool kelf_sym(const struct kelf_symtab *t, size_t i, GElf_Sym *s, const char **name)
{
	if (i >= t->n || !gelf_getsym(t->d, (int)i, s))
		return false;
	*name = elf_strptr(t->e, t->strndx, s->st_name);
	return true;
}

int kelf_phnum(Elf *e, size_t *n)
{
	return elf_getphdrnum(e, n) ? -ENOEXEC : 0;
}

bool kelf_next_load(Elf *e, size_t *i, GElf_Phdr *ph)
{
	size_t n;

	if (kelf_phnum(e, &n))
		return false;
	while (*i < n)
		if (gelf_getphdr(e, (int)(*i)++, ph) && ph->p_type == PT_LOAD)
			return true;
	return false;
}

bool kelf_interp(Elf *e, char *path, size_t len)
{
	size_t i, n, size;
	const char *raw = elf_rawfile(e, &size);
	GElf_Phdr ph;

	if (!raw || kelf_phnum(e, &n))
		return false;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_INTERP)
			continue;
		if (ph.p_offset >= size || ph.p_filesz > size - ph.p_offset || !ph.p_filesz ||
		    ph.p_filesz > len || raw[ph.p_offset + ph.p_filesz - 1])
			return false;
		memcpy(path, raw + ph.p_offset, ph.p_filesz);
		return true;
	}
	return false;
}

int kelf_dyn_strings(Elf *e, int (*fn)(int64_t tag, const char *s, void *arg), void *arg)
{
	GElf_Shdr sh;
	Elf_Scn *scn = kelf_next_section(e, NULL, SHT_DYNAMIC, &sh);
	Elf_Data *d;
	GElf_Dyn dyn;
	const char *s;
	size_t i;
	int err;

	if (!scn || !(d = elf_getdata(scn, NULL)) || !sh.sh_entsize)
		return 0;
	for (i = 0; i < sh.sh_size / sh.sh_entsize && gelf_getdyn(d, (int)i, &dyn); i++) {
		if (dyn.d_tag == DT_NULL)
			break;
		if (dyn.d_tag != DT_NEEDED && dyn.d_tag != DT_RPATH && dyn.d_tag != DT_RUNPATH)
			continue;
		s = elf_strptr(e, sh.sh_link, dyn.d_un.d_val);
		if (s && (err = fn(dyn.d_tag, s, arg)))
			return err;
	}
	return 0;
}

/* The NT_GNU_BUILD_ID note in d (a note section or segment). */
static bool note_build_id(Elf_Data *d, unsigned char id[KELF_BUILD_ID_SIZE])
{
	size_t off = 0, next, name_off, desc_off;
	GElf_Nhdr nh;

	while (d && off < d->d_size && (next = gelf_getnote(d, off, &nh, &name_off, &desc_off))) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp((char *)d->d_buf + name_off, "GNU", 4) && nh.n_descsz > 0 &&
		    nh.n_descsz <= KELF_BUILD_ID_SIZE) {
			memset(id, 0, KELF_BUILD_ID_SIZE);
			memcpy(id, (char *)d->d_buf + desc_off, nh.n_descsz);
			return true;
		}
		off = next;
	}
	return false;
}

bool kelf_build_id(Elf *e, unsigned char id[KELF_BUILD_ID_SIZE])
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Phdr ph;
	size_t n, i;

	if (!kelf_phnum(e, &n))
		for (i = 0; i < n; i++)
			if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_NOTE && ph.p_filesz &&
			    note_build_id(elf_getdata_rawchunk(e, ph.p_offset, ph.p_filesz,
							       ph.p_align == 8 ? ELF_T_NHDR8 :
										  ELF_T_NHDR),
					  id))
				return true;
	while ((scn = kelf_next_section(e, scn, SHT_NOTE, &sh)))
		if (note_build_id(elf_getdata(scn, NULL), id))
			return true;
	return false;
}

bool kelf_notes_build_id(const void *buf, size_t len, unsigned char id[KELF_BUILD_ID_SIZE])
{
	const unsigned char *p = buf;
	size_t off = 0, name, desc;
	Elf32_Nhdr nh;

	/* 4-byte aligned name and descriptor, as the kernel's notes are, 64-bit too */
	while (len - off >= sizeof(nh)) {
		memcpy(&nh, p + off, sizeof(nh));
		name = off + sizeof(nh);
		desc = name + ((nh.n_namesz + 3ul) & ~3ul);
		if (nh.n_namesz > len || nh.n_descsz > len || desc > len ||
		    len - desc < nh.n_descsz)
			return false;
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp(p + name, "GNU", 4) && nh.n_descsz > 0 &&
		    nh.n_descsz <= KELF_BUILD_ID_SIZE) {
			memset(id, 0, KELF_BUILD_ID_SIZE);
			memcpy(id, p + desc, nh.n_descsz);
			return true;
		}
		off = desc + ((nh.n_descsz + 3ul) & ~3ul);
		if (off > len)
			return false;
	}
	return false;
}

Elf_Scn *kelf_section_named(Elf *e, GElf_Word type, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	const char *sn;

	if (elf_getshdrstrndx(e, &shstrndx))
		return NULL;
	while ((scn = kelf_next_section(e, scn, type, sh))) {
		sn = elf_strptr(e, shstrndx, sh->sh_name);
		if (sn && !strcmp(sn, name))
			return scn;
	}
	return NULL;
}

bool kelf_debuglink(Elf *e, char *name, size_t size, uint32_t *crc)
{
	Elf_Scn *scn;
	GElf_Ehdr eh;
	GElf_Shdr sh;
	Elf_Data *d;
	const unsigned char *p, *c;
	size_t len;

	if (!gelf_getehdr(e, &eh))
		return false;
	scn = kelf_section_named(e, SHT_PROGBITS, ".gnu_debuglink", &sh);
	if (!scn)
		return false;
	d = elf_rawdata(scn, NULL);
	if (!d || !d->d_buf)
		return false;
	p = d->d_buf;
	len = strnlen((const char *)p, d->d_size);
	if (!len || len >= size || ((len + 4) & ~3u) + 4 > d->d_size || strchr((const char *)p, '/'))
		return false;
	memcpy(name, p, len + 1);
	c = p + ((len + 4) & ~3u);
	*crc = eh.e_ident[EI_DATA] == ELFDATA2MSB ?
		       (uint32_t)c[0] << 24 | c[1] << 16 | c[2] << 8 | c[3] :
		       (uint32_t)c[3] << 24 | c[2] << 16 | c[1] << 8 | c[0];
	return true;
}

int kelf_alias_cmp(const char *xname, unsigned char xbind, const char *yname,
		   unsigned char ybind)
{
	size_t ux = strspn(xname, "_"), uy = strspn(yname, "_");

	if (ux != uy)
		return ux < uy ? -1 : 1;
	if (xbind != ybind)
		return xbind == STB_GLOBAL ? -1 : ybind == STB_GLOBAL ? 1 :
		       xbind == STB_WEAK ? -1 : 1;
	return strcmp(xname, yname);
}

bool kelf_vaddr_offset(Elf *e, uint64_t v, uint64_t *off)
{
	GElf_Phdr ph;
	size_t i = 0;

	while (kelf_next_load(e, &i, &ph))
		if (v >= ph.p_vaddr && v < ph.p_vaddr + ph.p_filesz) {
			*off = v - ph.p_vaddr + ph.p_offset;
			return true;
		}
	return false;
}

#define NT_STAPSDT	3	/* systemtap's sdt.h: _SDT_NOTE_TYPE */

/* A word of the note's description, of the file's size and byte order. */
static uint64_t sdt_word(const unsigned char *p, size_t size, bool msb)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < size; i++)
		v |= (uint64_t)p[msb ? i : size - 1 - i] << (8 * (size - 1 - i));
	return v;
}

/* .stapsdt.base's address, the adjustment's reference; false if there is none. */
static bool sdt_base(Elf *e, uint64_t *addr)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t shstrndx;
	const char *sn;

	if (elf_getshdrstrndx(e, &shstrndx))
		return false;
	while ((scn = kelf_next_section(e, scn, SHT_PROGBITS, &sh))) {
		sn = elf_strptr(e, shstrndx, sh.sh_name);
		if (sn && !strcmp(sn, ".stapsdt.base")) {
			*addr = sh.sh_addr;
			return true;
		}
	}
	return false;
}

/* One note's description: three words, then provider, name and arguments. */
static int sdt_parse(const char *d, size_t len, size_t word, bool msb, struct kelf_sdt *n)
{
	const char *s = d + 3 * word, *end = d + len;
	const char **txt[] = { &n->provider, &n->name, &n->args };
	size_t i, l;

	if (len < 3 * word)
		return -ENOEXEC;
	n->pc = sdt_word((const unsigned char *)d, word, msb);
	n->base = sdt_word((const unsigned char *)d + word, word, msb);
	n->sema = sdt_word((const unsigned char *)d + 2 * word, word, msb);
	for (i = 0; i < 3; i++) {
		l = strnlen(s, (size_t)(end - s));
		if (s + l >= end)
			return -ENOEXEC;
		*txt[i] = s;
		s += l + 1;
	}
	return 0;
}

int kelf_sdt_notes(Elf *e, int (*fn)(const struct kelf_sdt *n, void *arg), void *arg)
{
	size_t off, next, name_off, desc_off, word;
	uint64_t base = 0;
	bool have_base = sdt_base(e, &base), msb;
	struct kelf_sdt n;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	GElf_Shdr sh;
	GElf_Nhdr nh;
	Elf_Data *d;
	int err;

	if (!gelf_getehdr(e, &eh))
		return -ENOEXEC;
	word = eh.e_ident[EI_CLASS] == ELFCLASS32 ? 4 : 8;
	msb = eh.e_ident[EI_DATA] == ELFDATA2MSB;
	while ((scn = kelf_next_section(e, scn, SHT_NOTE, &sh))) {
		d = elf_getdata(scn, NULL);
		for (off = 0; d && off < d->d_size &&
			      (next = gelf_getnote(d, off, &nh, &name_off, &desc_off)); off = next) {
			if (nh.n_type != NT_STAPSDT || nh.n_namesz != 8 ||
			    memcmp((char *)d->d_buf + name_off, "stapsdt", 8))
				continue;
			err = sdt_parse((char *)d->d_buf + desc_off, nh.n_descsz, word, msb, &n);
			if (err)
				return err;
			/* prelink moved the section: the note's addresses move with it */
			if (have_base && n.base) {
				n.pc += base - n.base;
				if (n.sema)
					n.sema += base - n.base;
			}
			err = fn(&n, arg);
			if (err)
				return err;
		}
	}
	return 0;
}
