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

int cfi_add_file(struct cfi_set *cs, const char *path, char *msg, size_t msglen)
{
	char src[PATH_MAX + 64];
	struct ehf_table t = { 0 };
	struct cfi_bin *b;
	struct kelf f;
	int i, err;

	err = kelf_open(path, &f, msg, msglen);
	if (err)
		return err;
	for (i = 0; i < cs->n; i++)
		if (cs->bins[i].key.dev == kdev(f.st.st_dev) && cs->bins[i].key.ino == f.st.st_ino)
			goto out;
	err = table_of(&f, path, &t, src, sizeof(src), msg, msglen);
	if (err == -ENOENT || err == -EOPNOTSUPP) {
		err = 0;	/* no table: its frames are walked by frame pointers */
		goto out;
	}
	if (err)
		goto out;
	if (cs->n == KPT_CFI_BINS || t.n > KPT_CFI_ROWS_MAX - cs->rows) {
		if (!cs->dropped++)
			snprintf(cs->dropped_path, sizeof(cs->dropped_path), "%s", path);
		goto out;
	}
	b = &cs->bins[cs->n];
	memset(b, 0, sizeof(*b));
	b->key.dev = kdev(f.st.st_dev);
	b->key.ino = f.st.st_ino;
	{
		/* struct bpf_stack_build_id's head: status 1 (BPF_STACK_BUILD_ID_VALID),
		 * the build id after it */
		unsigned char head[24] = { 1 };

		kelf_build_id(f.e, head + 4);
		memcpy(b->val.head, head, sizeof(head));
	}
	err = rows_of(f.e, &t, b);
	if (err)
		goto out;
	b->path = strdup(path);
	b->source = strdup(src);
	if (!b->path || !b->source) {
		free(b->path);
		free(b->source);
		free(b->rows);
		err = -ENOMEM;
		goto out;
	}
	b->val.first = cs->rows;
	cs->rows += b->val.nrows;
	cs->n++;
out:
	ehframe_free(&t);
	kelf_close(&f);
	return err;
}

struct proc_add {
	struct cfi_set *cs;
	pid_t pid;
};

static int add_mapping(void *arg, const struct procmap *m)
{
	const struct proc_add *a = arg;
	char path[PATH_MAX], msg[256];
	struct stat st;

	/* an executable mapping of a file: its tables (errors: no table, frame
	 * pointers then); its path is its mount namespace's: where that is not
	 * the host's file (a container's), through the process's root, a name
	 * that frames print */
	if (m->perms[2] != 'x' || m->path[0] != '/')
		return 0;
	if (!stat(m->path, &st) && st.st_dev == m->dev && st.st_ino == m->ino)
		cfi_add_file(a->cs, m->path, msg, sizeof(msg));
	else if (snprintf(path, sizeof(path), "/proc/%d/root%s", (int)a->pid, m->path) <
		 (int)sizeof(path))
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
}

struct proc_fill {
	const struct cfi_set *cs;
	struct kpt_uw_proc p;
};

/* An executable mapping of a binary with a table: into the process's table. */
static int fill_mapping(void *arg, const struct procmap *m)
{
	struct proc_fill *f = arg;
	struct kpt_cfi_key key = { kdev(m->dev), m->ino };
	int i;

	if (m->perms[2] != 'x' || f->p.n == KPT_UW_MAPS)
		return 0;
	for (i = 0; i < f->cs->n; i++)
		if (f->cs->bins[i].key.dev == key.dev && f->cs->bins[i].key.ino == key.ino) {
			f->p.m[f->p.n++] = (struct kpt_uw_map){ m->start, m->end, m->pgoff >> f->cs->page_shift, key };
			break;
		}
	return 0;
}

void cfi_fill_wanted(struct cfi_set *cs, int procs_fd, int wanted_fd)
{
	enum { BATCH = 64 };
	__u32 tgid[BATCH], key;
	__u64 mm[BATCH];
	struct proc_fill f;
	void *prev = NULL;
	int n = 0, i;

	if (!cs->n || kpt_mono_s() < cs->next_fill)
		return;
	cs->next_fill = kpt_mono_s() + 0.1;
	for (i = 0; i < 2 * BATCH && n < BATCH && !bpf_map_get_next_key(wanted_fd, prev, &key);
	     i++, prev = &key)
		if (!bpf_map_lookup_elem(wanted_fd, &key, &mm[n]))
			tgid[n++] = key;
	for (i = 0; i < n; i++) {
		memset(&f, 0, sizeof(f));
		f.cs = cs;
		f.p.mm = mm[i];
		/* a process gone: nothing to fill; one without such mappings gets
		 * an empty table all the same, so that its walks stop asking */
		if (!procmaps_each("/proc", tgid[i], fill_mapping, &f))
			bpf_map_update_elem(procs_fd, &tgid[i], &f.p, BPF_ANY);
		bpf_map_delete_elem(wanted_fd, &tgid[i]);
	}
}

void cfi_free(struct cfi_set *cs)
{
	int i;

	for (i = 0; i < cs->n; i++) {
		free(cs->bins[i].rows);
		free(cs->bins[i].path);
		free(cs->bins[i].source);
	}
	cs->n = 0;
	cs->rows = 0;
}
