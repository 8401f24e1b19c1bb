// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The user-space symbolizer (usym.h). Files (struct ufile) are cached by path, by
 * dev:inode and by build id; processes (struct proc) keep their sorted mappings. A file is
 * opened once: its PT_LOAD headers, build id and function symbols are copied out and the
 * ELF handle closed, so naming a frame opens no file. Its DWARF is opened when a frame
 * first asks for a line and kept, each address's answer too (struct loc).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "sys/debugfile.h"
#include "sys/dwline.h"
#include "sys/elf.h"
#include "sys/perfmap.h"
#include "sys/procmaps.h"
#include "sys/usym.h"
#include "util/demangle.h"
#include "util/htab.h"

#ifndef NT_GNU_BUILD_ID
#define NT_GNU_BUILD_ID 3
#endif

#define BUILD_ID_SIZE	KELF_BUILD_ID_SIZE
#define SCAN_MAX_FILES	4096	/* entries read per directory when hunting a build id */
#define DELETED		" (deleted)"
#define INLINE_MAX	16	/* inlined functions kept at one address */

/* ---- files ------------------------------------------------------------------------ */

struct seg {
	uint64_t off, filesz, vaddr;
};

struct sym {
	uint64_t start, size;
	const char *name;
	char *dem;		/* name demangled, once a frame needs it; NULL: not (yet) */
	bool dem_tried;
	uint32_t shndx;
	unsigned char bind;
};

struct sec {
	uint64_t addr, size;
	uint32_t idx;
};

enum { UF_NEW, UF_LOADED, UF_BAD };

struct ufile {
	struct ufile *next_all;
	char *path;		/* as reported: maps' text, or the indexed path */
	char *open_path;	/* where it is read from when not path (map_files), or NULL */
	bool rooted;		/* open_path is the file through /proc/PID/root: its folder
				 * is the process's, where its debug link points */
	uint64_t dev, ino;	/* ino 0: not known, not checked */
	unsigned char id[BUILD_ID_SIZE];
	bool has_id;
	bool debug_only;	/* a separate debug file standing in for the binary */
	bool unreachable;	/* could not be opened (as that file): another process may */
	int state;
	struct seg *segs;
	size_t nsegs;
	struct sym *syms;
	size_t nsyms;
	struct sec *secs;
	size_t nsecs;
	char *names;
	char *dwarf_path;	/* the file with its DWARF (itself, a debug file); NULL: none */
	struct dwline *dw;	/* opened when a frame first needs a line */
	bool dw_tried;
};

/* The source location of one address of a file, kept: names and files owned. */
struct loc {
	char *file;
	unsigned int line;
	struct usym_inline inl[INLINE_MAX];
	unsigned int ninl;
	char *strs[2 * INLINE_MAX + 1];
	unsigned int nstrs;
};

struct map {
	uint64_t start, end, pgoff;
	struct ufile *f;
};

struct proc {
	bool captured;
	int err;
	struct map *maps;
	size_t n;
	struct perfmap *jit;	/* its /tmp/perf-PID.map, read at the first frame in no file */
	char *jit_path;
	off_t jit_size;		/* as read; -1: not there */
};

struct usym {
	char *proc_root, *debug_root, *perf_map_dir;
	bool raw_names;
	struct htab procs;	/* tgid -> struct proc */
	struct htab by_path;	/* path -> ufile */
	struct htab by_devino;	/* dev, ino -> ufile */
	struct htab by_id;	/* build id -> ufile; NULL: a known miss */
	struct htab dirs;	/* directory -> (void *)1 when scanned, 0 when only seen */
	struct htab locs;	/* ufile pointer, vaddr -> struct loc */
	struct ufile *files;
};

static void ufile_free(struct ufile *f)
{
	size_t i;

	for (i = 0; i < f->nsyms; i++)
		free(f->syms[i].dem);
	dwline_close(f->dw);
	free(f->dwarf_path);
	free(f->path);
	free(f->open_path);
	free(f->segs);
	free(f->syms);
	free(f->secs);
	free(f->names);
	free(f);
}

static void loc_free(void *p)
{
	struct loc *l = p;
	unsigned int i;

	if (!l)		/* a remembered miss */
		return;
	for (i = 0; i < l->nstrs; i++)
		free(l->strs[i]);
	free(l);
}

static void proc_free(void *p)
{
	struct proc *pr = p;

	free(pr->maps);
	perfmap_free(pr->jit);
	free(pr->jit_path);
	free(pr);
}

struct usym *usym_new(const struct usym_opts *o)
{
	struct usym *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	u->proc_root = strdup(o && o->proc_root ? o->proc_root : "/proc");
	u->debug_root = strdup(o && o->debug_root ? o->debug_root : DEBUGFILE_ROOT);
	u->perf_map_dir = strdup(o && o->perf_map_dir ? o->perf_map_dir : "/tmp");
	u->raw_names = o && o->raw_names;
	if (!u->proc_root || !u->debug_root || !u->perf_map_dir) {
		usym_free(u);
		return NULL;
	}
	return u;
}

void usym_free(struct usym *u)
{
	struct ufile *f, *next;

	if (!u)
		return;
	ht_free(&u->procs, proc_free);
	ht_free(&u->by_path, NULL);
	ht_free(&u->by_devino, NULL);
	ht_free(&u->by_id, NULL);
	ht_free(&u->dirs, NULL);
	ht_free(&u->locs, loc_free);
	for (f = u->files; f; f = next) {
		next = f->next_all;
		ufile_free(f);
	}
	free(u->proc_root);
	free(u->debug_root);
	free(u->perf_map_dir);
	free(u);
}

/* ---- reading an ELF file ---------------------------------------------------------- */

/*
 * The file's PT_LOAD segments. rebuilt: a separate debug file's program headers keep
 * p_vaddr and p_memsz but not the binary's p_offset (objcopy --only-keep-debug rewrites
 * them); rebuild them the way GNU ld lays a file out: each segment at the lowest offset
 * past the previous one congruent to its vaddr modulo its alignment. Used only when the
 * binary itself is nowhere to be found.
 */
static int elf_segs(Elf *e, struct ufile *f, bool rebuilt)
{
	uint64_t end = 0, off, align;
	size_t n, i = 0;
	GElf_Phdr ph;

	if (kelf_phnum(e, &n))
		return -ENOEXEC;
	f->segs = calloc(n ? n : 1, sizeof(*f->segs));
	if (!f->segs)
		return -ENOMEM;
	while (kelf_next_load(e, &i, &ph)) {
		if (!rebuilt) {
			if (ph.p_filesz)
				f->segs[f->nsegs++] = (struct seg){ ph.p_offset, ph.p_filesz,
								    ph.p_vaddr };
			continue;
		}
		if (!ph.p_memsz)
			continue;
		align = ph.p_align > 1 && !(ph.p_align & (ph.p_align - 1)) ? ph.p_align : 1;
		off = (end & ~(align - 1)) | (ph.p_vaddr & (align - 1));
		if (off < end)
			off += align;
		if (!f->nsegs && ph.p_offset == 0)
			off = 0;	/* the first segment holds the headers, as kept */
		f->segs[f->nsegs++] = (struct seg){ off, ph.p_memsz, ph.p_vaddr };
		end = off + ph.p_memsz;
	}
	return 0;
}

static int sym_cmp(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	/* aliases at one address: a sized one, then the name a user knows first */
	if (!x->size != !y->size)
		return x->size ? -1 : 1;
	return kelf_alias_cmp(x->name, x->bind, y->name, y->bind);
}

/* Executable sections, for the zero-size symbol rule. */
static int elf_exec_secs(Elf *e, struct ufile *f)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t n = 0, cap = 0;
	struct sec *s;

	while ((scn = kelf_next_section(e, scn, 0, &sh))) {
		if ((sh.sh_flags & (SHF_ALLOC | SHF_EXECINSTR)) != (SHF_ALLOC | SHF_EXECINSTR))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			s = realloc(f->secs, cap * sizeof(*s));
			if (!s)
				return -ENOMEM;
			f->secs = s;
		}
		f->secs[n++] = (struct sec){ sh.sh_addr, sh.sh_size, (uint32_t)elf_ndxscn(scn) };
	}
	f->nsecs = n;
	return 0;
}

/* Copy the symbols' names into one block: elf_strptr's text dies with the handle. */
static int syms_own_names(struct ufile *f)
{
	size_t total = 0, i, len;
	char *p;

	for (i = 0; i < f->nsyms; i++)
		total += strlen(f->syms[i].name) + 1;
	f->names = malloc(total ? total : 1);
	if (!f->names)
		return -ENOMEM;
	for (p = f->names, i = 0; i < f->nsyms; i++) {
		len = strlen(f->syms[i].name) + 1;
		memcpy(p, f->syms[i].name, len);
		f->syms[i].name = p;
		p += len;
	}
	return 0;
}

/* FUNC and IFUNC symbols of e's section of type (SHT_SYMTAB or SHT_DYNSYM), sorted, one
 * per address. 0 (f->nsyms 0 if there is no such section) or -ENOMEM. */
static int elf_syms(Elf *e, GElf_Word type, struct ufile *f)
{
	struct kelf_symtab t;
	GElf_Sym s;
	size_t i, n, out;
	const char *name;
	int type_;

	if (!kelf_symtab(e, type, &t))
		return 0;
	f->syms = calloc(t.n ? t.n : 1, sizeof(*f->syms));
	if (!f->syms)
		return -ENOMEM;
	for (out = 0, i = 0; i < t.n; i++) {
		if (!kelf_sym(&t, i, &s, &name))
			break;
		type_ = GELF_ST_TYPE(s.st_info);
		if ((type_ != STT_FUNC && type_ != STT_GNU_IFUNC) || s.st_shndx == SHN_UNDEF ||
		    s.st_shndx >= SHN_LORESERVE || !s.st_value)
			continue;
		if (!name || !*name)
			continue;
		f->syms[out++] = (struct sym){ .start = s.st_value, .size = s.st_size,
					       .name = name, .shndx = s.st_shndx,
					       .bind = GELF_ST_BIND(s.st_info) };
	}
	qsort(f->syms, out, sizeof(*f->syms), sym_cmp);
	for (n = out, out = 0, i = 0; i < n; i++)
		if (!out || f->syms[out - 1].start != f->syms[i].start)
			f->syms[out++] = f->syms[i];
	f->nsyms = out;
	if (syms_own_names(f))
		return -ENOMEM;
	return elf_exec_secs(e, f);
}

/* ---- loading a file --------------------------------------------------------------- */

static bool has_dwarf(Elf *e)
{
	GElf_Shdr sh;

	return kelf_section_named(e, SHT_PROGBITS, ".debug_info", &sh) != NULL;
}

/* path as f's DWARF, when e (path's ELF) has any and f has none yet; 0 or -ENOMEM. */
static int note_dwarf(struct ufile *f, Elf *e, const char *path)
{
	if (f->dwarf_path || !has_dwarf(e))
		return 0;
	f->dwarf_path = strdup(path);
	return f->dwarf_path ? 0 : -ENOMEM;
}

/*
 * The file's symbols: .symtab, else a debug file's .symtab, else .dynsym;
 * its DWARF: its own, else the debug file's.
 */
static int ufile_syms(struct usym *u, struct ufile *f, struct kelf *ef)
{
	char path[PATH_MAX], base[PATH_MAX];
	bool own = kelf_has_section(ef->e, SHT_SYMTAB);
	struct kelf dbg;
	int err;

	if (note_dwarf(f, ef->e, f->open_path ? f->open_path : f->path))
		return -ENOMEM;
	if (own && f->dwarf_path)
		return elf_syms(ef->e, SHT_SYMTAB, f);
	snprintf(base, sizeof(base), "%s", f->rooted ? f->open_path : f->path);
	if (strlen(base) > strlen(DELETED) &&
	    !strcmp(base + strlen(base) - strlen(DELETED), DELETED))
		base[strlen(base) - strlen(DELETED)] = '\0';
	if ((f->has_id && !debugfile_by_id(u->debug_root, f->id, &dbg, path, sizeof(path))) ||
	    !debugfile_by_link(u->debug_root, ef->e, base, &ef->st, &dbg, path, sizeof(path))) {
		err = note_dwarf(f, dbg.e, path);
		if (!err)
			err = elf_syms(own ? ef->e : dbg.e, SHT_SYMTAB, f);
		kelf_close(&dbg);
		return err;
	}
	return elf_syms(ef->e, own ? SHT_SYMTAB : SHT_DYNSYM, f);
}

static void ufile_load(struct usym *u, struct ufile *f)
{
	unsigned char id[BUILD_ID_SIZE];
	struct kelf ef;
	GElf_Ehdr eh;
	bool has_id;

	if (f->state != UF_NEW)
		return;
	f->state = UF_BAD;
	if (kelf_open(f->open_path ? f->open_path : f->path, &ef, NULL, 0)) {
		f->unreachable = true;
		return;
	}
	/* the maps' (or the scan's) dev:inode: a file replaced since is another file */
	if (f->ino && (f->ino != (uint64_t)ef.st.st_ino || f->dev != (uint64_t)ef.st.st_dev)) {
		f->unreachable = true;
		goto out;
	}
	if (!gelf_getehdr(ef.e, &eh) || (eh.e_type != ET_EXEC && eh.e_type != ET_DYN))
		goto out;
	has_id = kelf_build_id(ef.e, id);
	if (f->has_id && (!has_id || memcmp(id, f->id, BUILD_ID_SIZE)))
		goto out;
	f->has_id = has_id;
	memcpy(f->id, id, sizeof(id));
	/* no loadable segment (a truncated file): nothing to look up in it */
	if (elf_segs(ef.e, f, f->debug_only) || !f->nsegs)
		goto out;
	if (f->debug_only ? note_dwarf(f, ef.e, f->path) || elf_syms(ef.e, SHT_SYMTAB, f) :
			    ufile_syms(u, f, &ef))
		goto out;
	f->state = UF_LOADED;
out:
	kelf_close(&ef);
}

static struct ufile *ufile_new(struct usym *u, const char *path, const char *open_path,
			       uint64_t dev, uint64_t ino)
{
	struct ufile *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->path = strdup(path);
	f->open_path = open_path ? strdup(open_path) : NULL;
	if (!f->path || (open_path && !f->open_path)) {
		ufile_free(f);
		return NULL;
	}
	f->dev = dev;
	f->ino = ino;
	f->next_all = u->files;
	u->files = f;
	return f;
}

static void devino_key(uint64_t dev, uint64_t ino, uint64_t key[2])
{
	key[0] = dev;
	key[1] = ino;
}

/* Remember f's directory, to be scanned for a build id nobody has mapped. */
static int note_dir(struct usym *u, const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash || slash == path || ht_find(&u->dirs, path, slash - path))
		return 0;
	return ht_put(&u->dirs, path, slash - path, NULL);
}

/* Index a loaded (or scanned) f by path, dev:inode and build id. */
static int ufile_index(struct usym *u, struct ufile *f, bool by_path)
{
	uint64_t key[2];
	struct hent *e;

	if (by_path && ht_put(&u->by_path, f->path, strlen(f->path), f))
		return -ENOMEM;
	devino_key(f->dev, f->ino, key);
	if (f->ino && ht_put(&u->by_devino, key, sizeof(key), f))
		return -ENOMEM;
	if (f->has_id) {
		e = ht_find(&u->by_id, f->id, BUILD_ID_SIZE);
		/* a known miss is forgotten; an indexed file keeps its place */
		if ((!e || !e->val) && ht_put(&u->by_id, f->id, BUILD_ID_SIZE, f))
			return -ENOMEM;
	}
	return by_path ? note_dir(u, f->path) : 0;
}

/* ---- processes -------------------------------------------------------------------- */

static struct proc *proc_get(struct usym *u, uint32_t tgid, bool create)
{
	struct hent *e = ht_find(&u->procs, &tgid, sizeof(tgid));
	struct proc *p;

	if (e || !create)
		return e ? e->val : NULL;
	p = calloc(1, sizeof(*p));
	if (!p || ht_put(&u->procs, &tgid, sizeof(tgid), p)) {
		free(p);
		return NULL;
	}
	return p;
}

/* Whether path is the file dev:ino (ino 0: any file there). */
static bool path_is(const char *path, uint64_t dev, uint64_t ino)
{
	struct stat st;

	return !stat(path, &st) && (!ino || (st.st_ino == ino && st.st_dev == dev));
}

/*
 * The file behind one mapping: cached by dev:inode, else (no inode known) by
 * path. Not the host's file at its path (a process in another mount
 * namespace, a container's): read through /proc/PID/root, whose folder holds
 * its debug link's file too; deleted, replaced or unreachable so: through
 * the mapping itself, /proc/PID/map_files.
 */
static struct ufile *map_file(struct usym *u, uint32_t tgid, const char *path, uint64_t start,
			      uint64_t end, uint64_t dev, uint64_t ino)
{
	char mf[PATH_MAX];
	bool deleted = strlen(path) > strlen(DELETED) &&
		       !strcmp(path + strlen(path) - strlen(DELETED), DELETED), rooted = false;
	struct ufile *f;
	struct hent *e;
	uint64_t key[2];

	devino_key(dev, ino, key);
	e = ino ? ht_find(&u->by_devino, key, sizeof(key)) :
		  ht_find(&u->by_path, path, strlen(path));
	if (e)
		return e->val;
	mf[0] = '\0';
	if (!deleted && !path_is(path, dev, ino)) {
		snprintf(mf, sizeof(mf), "%s/%" PRIu32 "/root%s", u->proc_root, tgid, path);
		rooted = path_is(mf, dev, ino);
	}
	if (deleted || (mf[0] && !rooted))
		snprintf(mf, sizeof(mf), "%s/%" PRIu32 "/map_files/%" PRIx64 "-%" PRIx64,
			 u->proc_root, tgid, start, end);
	f = ufile_new(u, path, mf[0] ? mf : NULL, dev, ino);
	if (!f)
		return NULL;
	f->rooted = rooted;
	ufile_load(u, f);
	/* not cached when it could not be opened: the next process's map_files may open it;
	 * by its path only where that is the host's (a container's is its folder's, scanned) */
	if (!f->unreachable && (ufile_index(u, f, !mf[0]) || (rooted && note_dir(u, mf))))
		return NULL;
	return f;
}

static int map_cmp(const void *a, const void *b)
{
	const struct map *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* read_maps()'s walk: the process and its maps as they grow. */
struct maps_walk {
	struct usym *u;
	uint32_t tgid;
	struct proc *p;
	size_t cap;
};

/* One mapping of a file kept (anonymous, [heap], [stack], [vdso], ... are not). */
static int maps_keep(void *arg, const struct procmap *pm)
{
	struct maps_walk *w = arg;
	struct map *grown;

	if (pm->path[0] != '/')
		return 0;
	if (w->p->n == w->cap) {
		w->cap = w->cap ? w->cap * 2 : 32;
		grown = realloc(w->p->maps, w->cap * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		w->p->maps = grown;
	}
	w->p->maps[w->p->n] = (struct map){ pm->start, pm->end, pm->pgoff, NULL };
	w->p->maps[w->p->n].f = map_file(w->u, w->tgid, pm->path, pm->start, pm->end, pm->dev,
					 pm->ino);
	if (!w->p->maps[w->p->n].f)
		return -ENOMEM;
	w->p->n++;
	return 0;
}

static int read_maps(struct usym *u, uint32_t tgid, struct proc *p)
{
	struct maps_walk w = { .u = u, .tgid = tgid, .p = p };
	int err;

	p->n = 0;
	err = procmaps_each(u->proc_root, tgid, maps_keep, &w);
	if (p->n)	/* no maps (the process is gone): an array qsort may not take */
		qsort(p->maps, p->n, sizeof(*p->maps), map_cmp);
	return err;
}

int usym_capture(struct usym *u, uint32_t tgid)
{
	struct proc *p = proc_get(u, tgid, true);

	if (!p)
		return -ENOMEM;
	if (p->captured)
		return p->err;
	p->captured = true;
	/* a failure is remembered too: a process gone is not looked for again per frame */
	p->err = read_maps(u, tgid, p);
	return p->err;
}

void usym_forget(struct usym *u, uint32_t tgid)
{
	struct proc *p = proc_get(u, tgid, false);

	if (!p)
		return;
	free(p->maps);
	p->maps = NULL;
	p->n = 0;
	perfmap_free(p->jit);
	p->jit = NULL;
	p->jit_size = 0;
	p->captured = false;
	p->err = 0;
}

int usym_add_file(struct usym *u, const char *path)
{
	struct stat st;
	struct ufile *f;
	struct hent *e;
	uint64_t key[2];

	if (stat(path, &st))
		return -errno;
	devino_key(st.st_dev, st.st_ino, key);
	e = ht_find(&u->by_devino, key, sizeof(key));
	f = e ? e->val : ufile_new(u, path, NULL, st.st_dev, st.st_ino);
	if (!f)
		return -ENOMEM;
	if (!e) {
		ufile_load(u, f);
		if (ufile_index(u, f, true))
			return -ENOMEM;
	}
	ufile_load(u, f);	/* a scanned file, indexed but not read yet */
	return f->state == UF_LOADED ? 0 : -ENOEXEC;
}

/* ---- lookups ---------------------------------------------------------------------- */

static bool off_to_vaddr(const struct ufile *f, uint64_t off, uint64_t *vaddr)
{
	size_t i;

	for (i = 0; i < f->nsegs; i++)
		if (off >= f->segs[i].off && off - f->segs[i].off < f->segs[i].filesz) {
			*vaddr = off - f->segs[i].off + f->segs[i].vaddr;
			return true;
		}
	return false;
}

static bool sec_holds(const struct ufile *f, uint32_t shndx, uint64_t a, uint64_t b)
{
	size_t i;

	for (i = 0; i < f->nsecs; i++)
		if (f->secs[i].idx == shndx)
			return a >= f->secs[i].addr && b - f->secs[i].addr < f->secs[i].size;
	return false;
}

/*
 * The symbol holding vaddr: a sized one containing it (the nearest below, or one a few
 * below that encloses it); else a zero-size nearest below in the same section (hand-written
 * assembly without .size). Anything else is unknown: never a neighbour's name.
 */
static struct sym *sym_at(const struct ufile *f, uint64_t vaddr)
{
	size_t lo = 0, hi = f->nsyms, i, j;
	struct sym *s;

	while (lo < hi) {	/* first symbol starting above vaddr */
		i = lo + (hi - lo) / 2;
		if (f->syms[i].start <= vaddr)
			lo = i + 1;
		else
			hi = i;
	}
	if (!lo)
		return NULL;
	i = lo - 1;
	for (j = 0; j < 8 && j <= i; j++) {
		s = &f->syms[i - j];
		if (s->size && vaddr - s->start < s->size)
			return s;
	}
	s = &f->syms[i];
	if (!s->size && sec_holds(f, s->shndx, s->start, vaddr))
		return s;
	return NULL;
}

/* s's name as printed: demangled (once, kept) unless raw names were asked for. */
static const char *sym_name(const struct usym *u, struct sym *s)
{
	if (u->raw_names)
		return s->name;
	if (!s->dem_tried) {
		s->dem_tried = true;
		s->dem = demangle(s->name);
	}
	return s->dem ? s->dem : s->name;
}

/* A DWARF name as a frame's: demangled unless raw names were asked for; owned by l. */
static const char *loc_name(const struct usym *u, struct loc *l, char *name)
{
	char *dem = name && !u->raw_names ? demangle(name) : NULL;

	if (dem) {
		free(name);
		name = dem;
	}
	if (name)
		l->strs[l->nstrs++] = name;
	return name;
}

/* l from dwline's frames, innermost first: the last one the symbol's own unless inlined. */
static void loc_fill(const struct usym *u, struct loc *l, struct dwframe *fr, int n)
{
	int own = fr[n - 1].inlined ? n : n - 1, i;

	for (i = 0; i < n; i++) {
		if (fr[i].file)
			l->strs[l->nstrs++] = fr[i].file;
		if (i == own || l->ninl == INLINE_MAX) {
			free(fr[i].func);
			if (i != own)
				continue;
			l->file = fr[i].file;
			l->line = fr[i].line;
			continue;
		}
		l->inl[l->ninl++] = (struct usym_inline){ loc_name(u, l, fr[i].func), fr[i].file,
							  fr[i].line };
	}
}

/* The source location of vaddr in f, from DWARF, read once per address; NULL: none. */
static const struct loc *file_loc(struct usym *u, struct ufile *f, uint64_t vaddr)
{
	uint64_t key[2] = { (uintptr_t)f, vaddr };
	struct dwframe fr[INLINE_MAX + 1];
	struct hent *e;
	struct loc *l = NULL;
	int n;

	if (!f->dwarf_path)
		return NULL;
	e = ht_find(&u->locs, key, sizeof(key));
	if (e)
		return e->val;
	if (!f->dw_tried) {
		f->dw_tried = true;
		f->dw = dwline_open(f->dwarf_path);
	}
	n = f->dw ? dwline_frames(f->dw, vaddr, fr, INLINE_MAX + 1) : 0;
	if (n && (l = calloc(1, sizeof(*l))))
		loc_fill(u, l, fr, n);
	else
		dwline_frames_free(fr, n);
	/* a miss is remembered too (NULL) */
	if (ht_put(&u->locs, key, sizeof(key), l)) {
		if (l)
			loc_free(l);
		return NULL;
	}
	return l;
}

/* Fill fr's sym from f at file offset real_off (looked up at look_off). */
static void resolve(struct usym *u, struct ufile *f, uint64_t look_off, uint64_t real_off,
		    struct usym_frame *fr)
{
	const struct loc *l;
	struct sym *s;
	uint64_t vaddr;

	ufile_load(u, f);
	if (f->state != UF_LOADED || !off_to_vaddr(f, look_off, &vaddr))
		return;
	s = sym_at(f, vaddr);
	if (!s)
		return;
	fr->sym = sym_name(u, s);
	fr->sym_off = vaddr + (real_off - look_off) - s->start;
	l = file_loc(u, f, vaddr);
	if (l) {
		fr->src_file = l->file;
		fr->src_line = l->line;
		fr->inl = l->ninl ? l->inl : NULL;
		fr->ninl = l->ninl;
	}
}

/*
 * A frame in no file (a JIT's code): named from the process's perf map,
 * read again when it has grown since (the JIT writes as it compiles).
 */
static void jit_frame(struct usym *u, uint32_t tgid, struct proc *p, uint64_t look,
		      uint64_t addr, struct usym_frame *f)
{
	struct stat st;
	uint64_t off;
	off_t size;

	if (!p->jit_path && asprintf(&p->jit_path, "%s/perf-%" PRIu32 ".map", u->perf_map_dir,
				     tgid) < 0) {
		p->jit_path = NULL;
		return;
	}
	size = stat(p->jit_path, &st) ? -1 : st.st_size;
	if (size != p->jit_size) {
		perfmap_free(p->jit);
		p->jit = size > 0 ? perfmap_read(p->jit_path) : NULL;
		p->jit_size = size;
	}
	f->sym = perfmap_find(p->jit, look, &off);
	if (f->sym) {
		f->sym_off = off + (addr - look);
		f->path = p->jit_path;
	}
}

void usym_addr(struct usym *u, uint32_t tgid, uint64_t addr, bool ret_addr, struct usym_frame *f)
{
	uint64_t look = ret_addr && addr ? addr - 1 : addr;
	struct proc *p;
	size_t lo = 0, hi, mid;
	struct map *m;

	memset(f, 0, sizeof(*f));
	f->addr = addr;
	if (usym_capture(u, tgid) == -ENOMEM || !(p = proc_get(u, tgid, false)))
		return;
	hi = p->n;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (p->maps[mid].start <= look)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || look >= p->maps[lo - 1].end) {
		jit_frame(u, tgid, p, look, addr, f);
		return;
	}
	m = &p->maps[lo - 1];
	f->path = m->f->path;
	f->file_off = addr - m->start + m->pgoff;
	resolve(u, m->f, look - m->start + m->pgoff, f->file_off, f);
}

/* Read only the build id of every regular ELF file in dir (bounded), to index them. */
static void scan_dir(struct usym *u, const char *dir)
{
	unsigned char id[BUILD_ID_SIZE];
	char path[PATH_MAX];
	struct dirent *de;
	struct kelf ef;
	struct ufile *f;
	uint64_t key[2];
	size_t seen = 0;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((de = readdir(d)) && seen++ < SCAN_MAX_FILES) {
		if (de->d_type != DT_REG && de->d_type != DT_LNK && de->d_type != DT_UNKNOWN)
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= (int)sizeof(path) ||
		    ht_find(&u->by_path, path, strlen(path)) || kelf_open(path, &ef, NULL, 0))
			continue;
		devino_key(ef.st.st_dev, ef.st.st_ino, key);
		if (!ht_find(&u->by_devino, key, sizeof(key)) && kelf_build_id(ef.e, id) &&
		    (f = ufile_new(u, path, NULL, ef.st.st_dev, ef.st.st_ino))) {
			memcpy(f->id, id, sizeof(id));
			f->has_id = true;
			/* loaded when a frame needs it; not by path: its directory is this one */
			ufile_index(u, f, false);
		}
		kelf_close(&ef);
	}
	closedir(d);
}

/* Directories of indexed files not scanned yet, each scanned once. */
static void scan_dirs(struct usym *u)
{
	char dir[PATH_MAX];
	struct hent *e;
	bool again = true;

	while (again) {	/* scanning adds no directory, but be safe with the table growing */
		again = false;
		for (e = ht_next(&u->dirs, NULL); e; e = ht_next(&u->dirs, e)) {
			if (e->val || e->klen >= sizeof(dir))
				continue;
			e->val = (void *)1;
			memcpy(dir, e->key, e->klen);
			dir[e->klen] = '\0';
			scan_dir(u, dir);
			again = true;
			break;
		}
	}
}

/* The file of build id: indexed, else in a directory of an indexed file, else a debug file
 * by id. A miss is remembered. */
static struct ufile *file_by_id(struct usym *u, const unsigned char id[BUILD_ID_SIZE])
{
	struct hent *e = ht_find(&u->by_id, id, BUILD_ID_SIZE);
	char path[PATH_MAX];
	struct kelf ef;
	struct ufile *f = NULL;

	if (e)
		return e->val;
	scan_dirs(u);
	e = ht_find(&u->by_id, id, BUILD_ID_SIZE);
	if (e)
		return e->val;
	if (!debugfile_by_id(u->debug_root, id, &ef, path, sizeof(path))) {
		kelf_close(&ef);
		f = ufile_new(u, path, NULL, ef.st.st_dev, ef.st.st_ino);
		if (f) {
			memcpy(f->id, id, BUILD_ID_SIZE);
			f->has_id = true;
			f->debug_only = true;
		}
	}
	ht_put(&u->by_id, id, BUILD_ID_SIZE, f);
	return f;
}

void usym_build_id(struct usym *u, const unsigned char id[20], uint64_t file_off, bool ret_addr,
		   struct usym_frame *f)
{
	struct ufile *uf;

	memset(f, 0, sizeof(*f));
	uf = file_by_id(u, id);
	if (!uf)
		return;
	ufile_load(u, uf);
	if (uf->state != UF_LOADED)
		return;
	f->path = uf->path;
	f->file_off = file_off;
	resolve(u, uf, ret_addr && file_off ? file_off - 1 : file_off, file_off, f);
}

void usym_frame32(struct usym *u, uint32_t tgid, const void *frame, bool ret_addr,
		  struct usym_frame *f)
{
	const unsigned char *p = frame;
	int32_t status;
	uint64_t v;

	/* struct bpf_stack_build_id: __s32 status; u8 build_id[20]; (pad) union { u64 } at 24 */
	memcpy(&status, p, sizeof(status));
	memcpy(&v, p + 24, sizeof(v));
	if (status == USYM_FRAME_VALID)
		usym_build_id(u, p + 4, v, ret_addr, f);
	else if (status == USYM_FRAME_IP)
		usym_addr(u, tgid, v, ret_addr, f);
	else
		memset(f, 0, sizeof(*f));
}
