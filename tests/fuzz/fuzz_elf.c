// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer harness for the one ELF reader (src/sys/elf.c) and the user-stack
 * symbolizer on top of it (src/sys/usym.c): the input is an ELF file as a
 * hostile user could leave it where kptrace, as root, symbolizes a stack.
 * It is written to a file, then:
 *
 * - kelf_open() and every walk elf.h offers: sections, both symbol tables
 *   symbol by symbol, PT_LOAD headers, the build id, .gnu_debuglink, the
 *   interpreter and the dynamic section's strings;
 * - usym_add_file(), then a made-up /proc/1/maps mapping the file twice
 *   (at 0x400000 from offset 0, and from the input's first PT_LOAD's offset
 *   at 0x7f0000000000), usym_capture(), and lookups by address (every
 *   symbol's value, the mappings' edges, a few steered by the input), by
 *   build id + offset and by raw bpf_stack_build_id frames cut from the input.
 *
 * Checked beyond ASan/UBSan/LSan: kelf_open() returns 0 or -errno, -ENOEXEC
 * with a reason for a file that is no ELF; kelf_sym() of an index past the
 * table fails; a symbol's name is a C string; a frame's name and path are C
 * strings, a named frame has a path, a frame found in the mapped file has
 * that file's path; a build-id frame of an unknown id is all unknown.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sys/elf.h"
#include "sys/usym.h"
#include "fuzz_common.h"

static char dir[64], path[PATH_MAX], proc_root[PATH_MAX], debug_root[PATH_MAX];

#define BASE_EXEC	0x400000ull
#define BASE_HIGH	0x7f0000000000ull

/* The made-up tree goes with the process. */
static void cleanup(void)
{
	char p[PATH_MAX + 16];

	unlink(path);
	snprintf(p, sizeof(p), "%s/1/maps", proc_root);
	unlink(p);
	snprintf(p, sizeof(p), "%s/1", proc_root);
	rmdir(p);
	rmdir(proc_root);
	rmdir(debug_root);
	rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char maps[PATH_MAX + 16];

	(void)argc;
	(void)argv;
	snprintf(dir, sizeof(dir), "/tmp/fuzz_elf.%d", getpid());
	snprintf(path, sizeof(path), "%s/target", dir);
	snprintf(proc_root, sizeof(proc_root), "%s/proc", dir);
	snprintf(debug_root, sizeof(debug_root), "%s/debug", dir);
	snprintf(maps, sizeof(maps), "%s/1", proc_root);
	if ((mkdir(dir, 0700) && errno != EEXIST) || (mkdir(proc_root, 0700) && errno != EEXIST) ||
	    (mkdir(maps, 0700) && errno != EEXIST) || (mkdir(debug_root, 0700) && errno != EEXIST)) {
		perror(dir);
		exit(2);
	}
	atexit(cleanup);
	return 0;
}

static void write_file(const char *p, const void *data, size_t size)
{
	FILE *f = fopen(p, "we");

	if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f)) {
		perror(p);
		exit(2);
	}
}

static void check_frame(const struct usym_frame *f, const char *what)
{
	if (f->sym)
		FUZZ_CHECK(strlen(f->sym) < SIZE_MAX && f->path, "%s: %s without a path", what,
			   f->sym);
	if (f->path)
		FUZZ_CHECK(strlen(f->path) < PATH_MAX, "%s: a path past PATH_MAX", what);
}

/* Every walk elf.h offers; the first PT_LOAD's offset and the build id out. */
/* a DT_NEEDED/RPATH/RUNPATH string: NUL-terminated within the file */
static int dyn_string(int64_t tag, const char *str, void *arg)
{
	(void)arg;
	FUZZ_CHECK(tag == DT_NEEDED || tag == DT_RPATH || tag == DT_RUNPATH, "tag %lld",
		   (long long)tag);
	FUZZ_CHECK(strlen(str) < SIZE_MAX, "a dynamic string");
	return 0;
}

static bool walk_elf(uint64_t *load_off, unsigned char id[KELF_BUILD_ID_SIZE], uint64_t *vals,
		     size_t *nvals, size_t maxvals)
{
	char msg[256] = "", link[256];
	struct kelf_symtab t;
	struct kelf f;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Phdr ph;
	GElf_Sym s;
	const char *name;
	size_t i, n, k;
	uint32_t crc;
	bool has_id;
	int ret;

	ret = kelf_open(path, &f, msg, sizeof(msg));
	FUZZ_CHECK(ret <= 0, "kelf_open returned %d", ret);
	if (ret) {
		FUZZ_CHECK(ret != -ENOEXEC || msg[0], "-ENOEXEC without a reason");
		return false;
	}
	while ((scn = kelf_next_section(f.e, scn, 0, &sh)))
		if ((sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM) &&
		    kelf_symtab_of(f.e, scn, &sh, &t))
			FUZZ_CHECK(!kelf_sym(&t, t.n, &s, &name), "symbol %zu of %zu read", t.n,
				   t.n);
	for (k = 0; k < 2; k++) {
		if (!kelf_symtab(f.e, k ? SHT_DYNSYM : SHT_SYMTAB, &t))
			continue;
		for (i = 0; i < t.n && i < 4096; i++) {
			if (!kelf_sym(&t, i, &s, &name))
				continue;
			if (name)
				FUZZ_CHECK(strlen(name) < SIZE_MAX, "a name");
			if (*nvals < maxvals)
				vals[(*nvals)++] = s.st_value;
		}
	}
	*load_off = 0;
	i = 0;
	n = 0;
	while (kelf_next_load(f.e, &i, &ph))
		if (!n++)
			*load_off = ph.p_offset;
	kelf_phnum(f.e, &n);
	has_id = kelf_build_id(f.e, id);
	if (kelf_debuglink(f.e, link, sizeof(link), &crc))
		FUZZ_CHECK(memchr(link, 0, sizeof(link)), "a debuglink name without its NUL");
	if (kelf_interp(f.e, link, sizeof(link)))
		FUZZ_CHECK(memchr(link, 0, sizeof(link)), "an interpreter without its NUL");
	kelf_dyn_strings(f.e, dyn_string, NULL);
	kelf_close(&f);
	return has_id;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char id[KELF_BUILD_ID_SIZE] = { 0 }, other[KELF_BUILD_ID_SIZE];
	struct usym_opts o = { .proc_root = proc_root, .debug_root = debug_root };
	char maps[PATH_MAX + 16], line[2 * PATH_MAX + 128];
	uint64_t vals[64], load_off = 0, a;
	struct usym_frame fr;
	struct usym *u;
	size_t nvals = 0, i;
	bool has_id;
	int ret;

	write_file(path, data, size);
	has_id = walk_elf(&load_off, id, vals, &nvals, 48);

	u = usym_new(&o);
	if (!u)
		return 0;
	ret = usym_add_file(u, path);
	FUZZ_CHECK(ret <= 0, "usym_add_file returned %d", ret);
	snprintf(maps, sizeof(maps), "%s/1/maps", proc_root);
	snprintf(line, sizeof(line),
		 "%llx-%llx r-xp 00000000 00:00 1 %s\n%llx-%llx r--p %08llx 00:00 1 %s\n",
		 BASE_EXEC, BASE_EXEC + 0x100000, path, BASE_HIGH, BASE_HIGH + 0x10000,
		 (unsigned long long)(load_off & ~0xfffull), path);
	write_file(maps, line, strlen(line));
	ret = usym_capture(u, 1);
	FUZZ_CHECK(ret <= 0, "usym_capture returned %d", ret);

	/* the mappings' edges, and addresses the input steers */
	vals[nvals++] = BASE_EXEC;
	vals[nvals++] = BASE_EXEC + 0xfffff;
	vals[nvals++] = BASE_HIGH;
	vals[nvals++] = BASE_HIGH + 0x10000;
	for (i = 0; i + 8 <= size && i < 64 && nvals < 64; i += 8) {
		memcpy(&a, data + size - 8 - i, 8);
		vals[nvals++] = BASE_EXEC + a % 0x100000;
	}
	for (i = 0; i < nvals; i++) {
		usym_addr(u, 1, vals[i], i & 1, &fr);
		check_frame(&fr, "by address");
		if (fr.sym && vals[i] >= BASE_EXEC && vals[i] < BASE_EXEC + 0x100000)
			FUZZ_CHECK(!strcmp(fr.path, path), "0x%llx found in %s, not the mapped file",
				   (unsigned long long)vals[i], fr.path);
		if (vals[i] < BASE_EXEC + 0x100000) {
			usym_build_id(u, id, vals[i] - (vals[i] >= BASE_EXEC ? BASE_EXEC : 0),
				      i & 1, &fr);
			check_frame(&fr, "by build id");
			if (!has_id)
				FUZZ_CHECK(!fr.sym, "a build-id frame named without a build id");
		}
	}
	/* an id no file has: nothing known */
	memset(other, 0xa5, sizeof(other));
	usym_build_id(u, other, 0x1000, false, &fr);
	FUZZ_CHECK(!fr.sym && !fr.path, "an unknown build id named %s", fr.path);
	/* raw frames as the kernel's bpf_stack_build_id, cut from the input */
	for (i = 0; i + USYM_FRAME32_SIZE <= size && i < 4 * USYM_FRAME32_SIZE;
	     i += USYM_FRAME32_SIZE) {
		usym_frame32(u, 1, data + i, i, &fr);
		check_frame(&fr, "frame32");
	}
	usym_free(u);
	return 0;
}
