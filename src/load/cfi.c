// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The binaries' CFI tables for the BPF unwinder (cfi.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>

#include "load/cfi.h"
#include "prepare/event.h"
#include "sys/btfwalk.h"
#include "sys/debugfile.h"
#include "sys/ehframe.h"
#include "sys/elf.h"
#include "sys/libpath.h"
#include "sys/procmaps.h"
#include "util/clock.h"

_Static_assert((int)KPT_CFI_GAP == EHF_GAP && (int)KPT_CFI_SP == EHF_SP &&
	       (int)KPT_CFI_FP == EHF_FP && (int)KPT_CFI_BAD == EHF_BAD &&
	       (int)KPT_CFI_END == EHF_END,
	       "the BPF rows' kinds are ehframe.h's");

bool cfi_layout(struct cfi_set *cs, const struct btf *btf)
{
	cs->page_shift = (uint32_t)__builtin_ctzl((unsigned long)sysconf(_SC_PAGESIZE));
	return btfwalk_struct_member(btf, "vm_area_struct", "vm_pgoff", &cs->vma_pgoff_off) &&
	       btfwalk_struct_member(btf, "vm_area_struct", "vm_file", &cs->vma_file_off) &&
	       btfwalk_struct_member(btf, "file", "f_inode", &cs->file_inode_off) &&
	       btfwalk_struct_member(btf, "inode", "i_ino", &cs->inode_ino_off) &&
	       btfwalk_struct_member(btf, "inode", "i_sb", &cs->inode_sb_off) &&
	       btfwalk_struct_member(btf, "super_block", "s_dev", &cs->sb_dev_off) &&
	       btfwalk_struct_member(btf, "task_struct", "mm", &cs->task_mm_off);
}

/* The kernel's dev_t (MKDEV: major << 20 | minor), as a super block holds it. */
static uint64_t kdev(dev_t d)
{
	return (uint64_t)major(d) << 20 | minor(d);
}

/*
 * The file offset of virtual address v: from the PT_LOAD segment holding
 * it, its end included (an FDE's end is a gap row's start).
 */
static bool file_offset(Elf *e, uint64_t v, uint64_t *off)
{
	GElf_Phdr ph;
	size_t i = 0;

	while (kelf_next_load(e, &i, &ph))
		if (v >= ph.p_vaddr && v <= ph.p_vaddr + ph.p_filesz) {
			*off = v - ph.p_vaddr + ph.p_offset;
			return true;
		}
	return false;
}

/* t's rows as the BPF side reads them, into b; rows out of a segment or of range dropped. */
static int rows_of(Elf *e, const struct ehf_table *t, struct cfi_bin *b)
{
	uint64_t off;
	size_t i;

	b->rows = calloc(t->n ? t->n : 1, sizeof(*b->rows));
	if (!b->rows)
		return -ENOMEM;
	for (i = 0; i < t->n; i++) {
		const struct ehf_row *r = &t->rows[i];
		struct kpt_cfi_row *o = &b->rows[b->val.nrows];

		if (!file_offset(e, r->pc, &off) || off > UINT32_MAX)
			continue;
		o->off = (uint32_t)off;
		o->kind = r->cfa;
		o->cfa_off = r->cfa_off;
		/* a save further than 32 KiB from the CFA is no x86-64 or arm64 frame's */
		if (r->ra_off < INT16_MIN || r->ra_off > INT16_MAX || r->fp_off < INT16_MIN ||
		    r->fp_off > INT16_MAX)
			o->kind = KPT_CFI_BAD;
		o->ra_off = (int16_t)r->ra_off;
		o->fp_off = (int16_t)r->fp_off;
		b->val.nrows++;
	}
	return 0;
}

/* The bytes of f's code (its executable sections) and how many of them t's FDEs cover. */
static void code_covered(Elf *e, const struct ehf_table *t, uint64_t *code, uint64_t *covered)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	*code = *covered = 0;
	while ((scn = kelf_next_section(e, scn, SHT_PROGBITS, &sh)))
		if (sh.sh_flags & SHF_EXECINSTR) {
			*code += sh.sh_size;
			*covered += ehframe_covered(t, sh.sh_addr, sh.sh_addr + sh.sh_size);
		}
}

/*
 * f's table into t: its .eh_frame, and where that covers under half its
 * code (built -fno-asynchronous-unwind-tables -g, or stripped of it), the
 * FDEs of its .debug_frame, or its debug file's, for the rest. Which
 * sections were read into src. -ENOENT if none.
 */
static int table_of(struct kelf *f, const char *path, struct ehf_table *t, char *src,
		    size_t srclen, char *msg, size_t msglen)
{
	char dpath[PATH_MAX];
	uint64_t code, covered;
	size_t fdes, n;
	struct kelf dbg;
	int err;

	err = ehframe_read(f->e, EHF_EH_FRAME, t, msg, msglen);
	if (err && err != -ENOENT)
		return err;
	snprintf(src, srclen, "%s", err ? "" : ".eh_frame");
	code_covered(f->e, t, &code, &covered);
	if (2 * covered >= code)
		return err;
	fdes = t->fdes;
	n = t->n;
	err = ehframe_read(f->e, EHF_DEBUG_FRAME, t, msg, msglen);
	if (err == -ENOENT &&
	    !debugfile_open(DEBUGFILE_ROOT, f, path, &dbg, dpath, sizeof(dpath))) {
		err = ehframe_read(dbg.e, EHF_DEBUG_FRAME, t, msg, msglen);
		kelf_close(&dbg);
	} else {
		dpath[0] = '\0';
	}
	if (err) {
		/* .eh_frame's rows stay, without the bad section's half-read ones */
		t->n = n;
		t->fdes = fdes;
		return src[0] && err != -ENOMEM ? 0 : err;
	}
	snprintf(src + strlen(src), srclen - strlen(src), "%s.debug_frame%s%s (%zu FDEs)",
		 src[0] ? " and " : "", dpath[0] ? " of " : "", dpath, t->fdes - fdes);
	return 0;
}

/* Whether binary k has been read: a table, or none (asked for, and it has none). */
static bool cfi_known(const struct cfi_set *cs, struct kpt_cfi_key k)
{
	int i;

	for (i = 0; i < cs->n; i++)
		if (cs->bins[i].key.dev == k.dev && cs->bins[i].key.ino == k.ino)
			return true;
	for (i = 0; i < cs->nnone; i++)
		if (cs->none[i].dev == k.dev && cs->none[i].ino == k.ino)
			return true;
	return false;
}

static void bin_free(struct cfi_bin *b)
{
	free(b->rows);
	free(b->path);
	free(b->source);
	memset(b, 0, sizeof(*b));
}

/* f's table (opened from path) into b: 0; 1 where it has none; -errno, the reason in msg. */
static int bin_read(struct kelf *f, const char *path, struct cfi_bin *b, char *msg,
		    size_t msglen)
{
	char src[PATH_MAX + 64];
	struct ehf_table t = { 0 };
	/* struct bpf_stack_build_id's head: status 1 (BPF_STACK_BUILD_ID_VALID),
	 * the build id after it */
	unsigned char head[24] = { 1 };
	int err;

	memset(b, 0, sizeof(*b));
	err = table_of(f, path, &t, src, sizeof(src), msg, msglen);
	if (err == -ENOENT || err == -EOPNOTSUPP) {
		err = 1;	/* no table: its frames are walked by frame pointers */
		goto out;
	}
	if (err)
		goto out;
	b->key.dev = kdev(f->st.st_dev);
	b->key.ino = f->st.st_ino;
	kelf_build_id(f->e, head + 4);
	memcpy(b->val.head, head, sizeof(head));
	err = rows_of(f->e, &t, b);
	if (!err) {
		b->path = strdup(path);
		b->source = strdup(src);
		if (!b->path || !b->source)
			err = -ENOMEM;
	}
	if (err)
		bin_free(b);
out:
	ehframe_free(&t);
	return err;
}

/* b appended to cs, its rows after the others'. */
static int bin_append(struct cfi_set *cs, struct cfi_bin *b)
{
	if (cs->n == cs->cap) {
		int cap = cs->cap ? 2 * cs->cap : 16;
		struct cfi_bin *nb = realloc(cs->bins, (size_t)cap * sizeof(*nb));

		if (!nb)
			return -ENOMEM;
		cs->bins = nb;
		cs->cap = cap;
	}
	b->val.first = cs->rows;
	cs->rows += b->val.nrows;
	cs->bins[cs->n++] = *b;
	return 0;
}

int cfi_add_file(struct cfi_set *cs, const char *path, char *msg, size_t msglen)
{
	struct cfi_bin b;
	struct kelf f;
	int err;

	err = kelf_open(path, &f, msg, msglen);
	if (err)
		return err;
	if (cfi_known(cs, (struct kpt_cfi_key){ kdev(f.st.st_dev), f.st.st_ino }))
		goto out;
	err = bin_read(&f, path, &b, msg, msglen);
	if (err) {
		err = err > 0 ? 0 : err;
		goto out;
	}
	if (cs->n == KPT_CFI_BINS || b.val.nrows > KPT_CFI_ROWS_MAX - cs->rows) {
		if (!cs->dropped++)
			snprintf(cs->dropped_path, sizeof(cs->dropped_path), "%s", path);
		bin_free(&b);
		goto out;
	}
	err = bin_append(cs, &b);
	if (err)
		bin_free(&b);
out:
	kelf_close(&f);
	return err;
}

struct proc_add {
	struct cfi_set *cs;
	pid_t pid;
};

/* an executable mapping of a file: its tables (errors: no table, frame
 * pointers then), read where procmaps_file() finds the mapping's file, a
 * name that frames print */
static int add_mapping(void *arg, const struct procmap *m)
{
	const struct proc_add *a = arg;
	char path[PATH_MAX], msg[256];

	if (m->perms[2] != 'x' || m->path[0] != '/')
		return 0;
	procmaps_file("/proc", (uint32_t)a->pid, m, path, sizeof(path));
	cfi_add_file(a->cs, path, msg, sizeof(msg));
	return 0;
}

int cfi_add_process(struct cfi_set *cs, pid_t pid)
{
	struct proc_add a = { cs, pid };

	return procmaps_each("/proc", (uint32_t)pid, add_mapping, &a);
}

/* An object -c's program links: its tables (errors: no table, frame pointers then) */
static int add_linked(const char *path, void *arg)
{
	char msg[256];

	cfi_add_file(arg, path, msg, sizeof(msg));
	return 0;
}

void cfi_collect(struct cfi_set *cs, const struct ev_desc *evs, int n, pid_t pid,
		 const char *command)
{
#ifdef KPT_ARCH_ARM64
	static const char *const libs[] = { "libc", "ld-linux-aarch64" };
#else
	static const char *const libs[] = { "libc", "ld-linux-x86-64" };
#endif
	char path[4096], msg[256];
	int i;

	for (i = 0; i < n; i++)
		if (evs[i].is_user && evs[i].path)
			cfi_add_file(cs, evs[i].path, msg, sizeof(msg));
	if (pid > 0)
		cfi_add_process(cs, pid);
	if (command)
		libpath_command_objects(command, add_linked, cs);
	for (i = 0; i < (int)(sizeof(libs) / sizeof(libs[0])); i++)
		if (!libpath_find(libs[i], path, sizeof(path)))
			cfi_add_file(cs, path, msg, sizeof(msg));
	cs->room = cs->late < KPT_CFI_ROWS_MAX - cs->rows ? cs->rows + cs->late : KPT_CFI_ROWS_MAX;
}

struct proc_fill {
	uint32_t page_shift;
	struct kpt_uw_proc p;
};

/* An executable mapping of a file, with a table or not (the walk asks for
 * one it meets without), or the vDSO (a pc there is no reason to read the
 * mappings again): into the process's table. */
static int fill_mapping(void *arg, const struct procmap *m)
{
	struct proc_fill *f = arg;

	if (m->perms[2] != 'x' || (!m->ino && strcmp(m->path, "[vdso]")) ||
	    f->p.n == KPT_UW_MAPS)
		return 0;
	f->p.m[f->p.n++] = (struct kpt_uw_map){ m->start, m->end, m->pgoff >> f->page_shift,
						{ kdev(m->dev), m->ino } };
	return 0;
}

/* The process's mappings into kpt_uw_procs, for mm. */
static void fill_process(const struct cfi_set *cs, int procs_fd, uint32_t tgid, uint64_t mm)
{
	struct proc_fill f;

	memset(&f, 0, sizeof(f));
	f.page_shift = cs->page_shift;
	f.p.mm = mm;
	f.p.read_ns = kpt_mono_ns();
	/* a process gone: nothing to fill; one without such mappings gets
	 * an empty table all the same, so that its walks stop asking */
	if (!procmaps_each("/proc", tgid, fill_mapping, &f))
		bpf_map_update_elem(procs_fd, &tgid, &f.p, BPF_ANY);
}

/* late_bin()'s search: the asking process's mapping of the binary, as a path to read. */
struct bin_find {
	struct kpt_cfi_key key;
	uint32_t tgid;
	char path[PATH_MAX];
};

static int find_mapping(void *arg, const struct procmap *m)
{
	struct bin_find *b = arg;

	if (m->perms[2] != 'x' || kdev(m->dev) != b->key.dev || m->ino != b->key.ino)
		return 0;
	procmaps_file("/proc", b->tgid, m, b->path, sizeof(b->path));
	return 1;
}

/* Binary k asked for and without a table: remembered, and its entry with
 * no rows written, so that the walks step it by frame pointers and stop asking. */
static void bin_none(struct cfi_set *cs, int bins_fd, struct kpt_cfi_key k)
{
	struct kpt_cfi_bin none = { 0 };

	if (cs->nnone == cs->none_cap) {
		int cap = cs->none_cap ? 2 * cs->none_cap : 16;
		struct kpt_cfi_key *nk = realloc(cs->none, (size_t)cap * sizeof(*nk));

		if (!nk)
			return;	/* asked again next round */
		cs->none = nk;
		cs->none_cap = cap;
	}
	cs->none[cs->nnone++] = k;
	bpf_map_update_elem(bins_fd, &k, &none, BPF_ANY);
}

int cfi_bin_load(const struct cfi_bin *b, int bins_fd, int rows_fd)
{
	uint32_t n = b->val.nrows, j, *keys = calloc(n ? n : 1, sizeof(*keys));
	int err = 0;

	if (!keys)
		return -ENOMEM;
	for (j = 0; j < n; j++)
		keys[j] = b->val.first + j;
	if (n && bpf_map_update_batch(rows_fd, keys, b->rows, &n, NULL))
		err = -errno;
	if (!err && bpf_map_update_elem(bins_fd, &b->key, &b->val, BPF_ANY))
		err = -errno;
	free(keys);
	return err;
}

/* No room for path's table of nrows rows: said once. */
static void late_full(struct cfi_set *cs, const char *path, uint32_t nrows)
{
	if (cs->late_full_said)
		return;
	cs->late_full_said = true;
	fprintf(stderr, "kptrace: warning: no room for the unwind table of %s (%u rows; %u of "
		"the run's %u left, %d binaries' at most): its frames, and those of any other "
		"binary whose table does not fit, are walked by frame pointers only (raise "
		"--unwind-rows, now %u; %u rows in all at most)\n", path, nrows,
		cs->room - cs->rows, cs->room, KPT_CFI_BINS, cs->late, KPT_CFI_ROWS_MAX);
}

/*
 * Binary k, asked for by process tgid: its table read through the process's
 * mapping of it and loaded; remembered as without one where it has none.
 * 1 where a table was loaded.
 */
static int late_bin(struct cfi_set *cs, const struct cfi_maps *m, uint32_t tgid,
		    struct kpt_cfi_key k)
{
	struct bin_find bf = { .key = k, .tgid = tgid };
	struct cfi_bin b;
	struct kelf f;
	char msg[256];
	int err;

	/* known already (asked for by two processes), or no longer mapped
	 * (asked for again, by a process that still maps it, if ever) */
	if (cfi_known(cs, k) || procmaps_each("/proc", tgid, find_mapping, &bf) != 1)
		return 0;
	/* --unwind-rows 0: no table read late, as asked */
	if (!cs->late || kelf_open(bf.path, &f, msg, sizeof(msg))) {
		bin_none(cs, m->bins, k);
		return 0;
	}
	/* the file opened is the one mapped: else its table is not the walk's */
	err = kdev(f.st.st_dev) != k.dev || f.st.st_ino != k.ino ? 1 :
	      bin_read(&f, bf.path, &b, msg, sizeof(msg));
	kelf_close(&f);
	if (err) {
		bin_none(cs, m->bins, k);
		return 0;
	}
	if (cs->n == KPT_CFI_BINS || b.val.nrows > cs->room - cs->rows) {
		late_full(cs, bf.path, b.val.nrows);
		bin_free(&b);
		bin_none(cs, m->bins, k);
		return 0;
	}
	b.pid = (pid_t)tgid;
	b.val.first = cs->rows;
	if (cfi_bin_load(&b, m->bins, m->rows) || bin_append(cs, &b)) {
		/* its entry, if written, replaced by one without rows: its rows'
		 * room is the next table's */
		bin_free(&b);
		bin_none(cs, m->bins, k);
		return 0;
	}
	free(cs->bins[cs->n - 1].rows);
	cs->bins[cs->n - 1].rows = NULL;
	return 1;
}

int cfi_fill_wanted(struct cfi_set *cs, const struct cfi_maps *m)
{
	enum { BATCH = 64 };
	struct kpt_uw_want want[BATCH], key;
	__u64 mm[BATCH];
	void *prev = NULL;
	int n = 0, i, loaded = 0;

	if (kpt_mono_s() < cs->next_fill)
		return 0;
	cs->next_fill = kpt_mono_s() + 0.1;
	for (i = 0; i < 2 * BATCH && n < BATCH && !bpf_map_get_next_key(m->wanted, prev, &key);
	     i++, prev = &key)
		if (!bpf_map_lookup_elem(m->wanted, &key, &mm[n]))
			want[n++] = key;
	for (i = 0; i < n; i++) {
		if (want[i].bin.ino)
			loaded += late_bin(cs, m, want[i].tgid, want[i].bin);
		else
			fill_process(cs, m->procs, want[i].tgid, mm[i]);
		bpf_map_delete_elem(m->wanted, &want[i]);
	}
	return loaded;
}

void cfi_free(struct cfi_set *cs)
{
	int i;

	for (i = 0; i < cs->n; i++)
		bin_free(&cs->bins[i]);
	free(cs->bins);
	free(cs->none);
	cs->bins = NULL;
	cs->none = NULL;
	cs->n = cs->cap = cs->nnone = cs->none_cap = 0;
	cs->rows = 0;
}
