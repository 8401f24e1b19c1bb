// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Separate debug files (debugfile.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include "sys/debugfile.h"
#include "sys/debuginfod.h"

static void id_hex(const unsigned char *id, size_t len, char *out)
{
	size_t i;

	for (i = 0; i < len; i++)
		sprintf(out + 2 * i, "%02x", id[i]);
	out[2 * len] = '\0';
}

/*
 * DEBUG_ROOT/.build-id/xx/yyyy.debug of id's first len bytes. An id shorter
 * than 20 bytes comes zero-padded, and its own last bytes may be zero too
 * (an MD5 id ends in 00 once in 256): try 0 takes all 20, try 1 the 16 of
 * MD5 and UUID ids, try 2 what is left with every trailing zero cut; -1
 * where a try's length is another's or the padding is not zero.
 */
static int build_id_debug_path(const char *root, const unsigned char *id, int try,
			       char *out, size_t size)
{
	static const unsigned char zero[KELF_BUILD_ID_SIZE];
	char hex[2 * KELF_BUILD_ID_SIZE + 1];
	size_t len = KELF_BUILD_ID_SIZE;

	if (try == 1) {
		len = 16;
		if (memcmp(id + len, zero, KELF_BUILD_ID_SIZE - len))
			return -1;
	} else if (try == 2) {
		while (len > 1 && !id[len - 1])
			len--;
		if (len == 16 || len == KELF_BUILD_ID_SIZE)
			return -1;
	}
	id_hex(id, len, hex);
	if (snprintf(out, size, "%s/.build-id/%.2s/%s.debug", root, hex, hex + 2) >=
	    (int)size)
		return -1;
	return 0;
}

/* ef (opened) has a .symtab and build id id; else it is closed. */
static bool debug_file_is(struct kelf *ef, const unsigned char *id)
{
	unsigned char got[KELF_BUILD_ID_SIZE];

	if (kelf_build_id(ef->e, got) && !memcmp(got, id, KELF_BUILD_ID_SIZE) &&
	    kelf_has_section(ef->e, SHT_SYMTAB))
		return true;
	kelf_close(ef);
	return false;
}

/* A debug file by build id, with a .symtab and the same build id: under
 * DEBUG_ROOT/.build-id/, else from a debuginfod server (DEBUGINFOD_URLS). */
int debugfile_by_id(const char *root, const unsigned char *id, struct kelf *ef,
			    char *path, size_t size)
{
	static const unsigned char zero[4];
	char hex[2 * KELF_BUILD_ID_SIZE + 1];
	int try;

	for (try = 0; try < 3; try++) {
		if (build_id_debug_path(root, id, try, path, size) || kelf_open(path, ef, NULL, 0))
			continue;
		if (debug_file_is(ef, id))
			return 0;
	}
	/* a 16-byte id (MD5, UUID) comes zero-padded to 20 */
	id_hex(id, memcmp(id + 16, zero, 4) ? KELF_BUILD_ID_SIZE : 16, hex);
	if (debuginfod_find(hex, path, size))
		return -ENOENT;
	if (!kelf_open(path, ef, NULL, 0) && debug_file_is(ef, id))
		return 0;
	unlink(path);	/* not the file asked for (a proxy's page): not kept */
	return -ENOENT;
}

static bool file_crc_is(int fd, off_t size, uint32_t want)
{
	uLong crc = crc32(0L, Z_NULL, 0);
	unsigned char *p;
	off_t done;

	if (size <= 0)
		return false;
	p = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		return false;
	for (done = 0; done < size; done += 1 << 30)
		crc = crc32(crc, p + done, size - done > (1 << 30) ? 1u << 30 : size - done);
	munmap(p, size);
	return (uint32_t)crc == want;
}

/* The debuglink's file in DIR/, DIR/.debug/, DEBUG_ROOT/DIR/, when its CRC32 matches;
 * its path into path. */
int debugfile_by_link(const char *root, Elf *e, const char *file_path,
			      const struct stat *self, struct kelf *ef, char *path, size_t size)
{
	char name[NAME_MAX + 1], dir[PATH_MAX];
	const char *fmt[] = { "%s/%s", "%s/.debug/%s", "%s%s/%s" };
	const char *slash;
	uint32_t crc;
	size_t i, dlen;
	int n;

	if (!kelf_debuglink(e, name, sizeof(name), &crc) || !(slash = strrchr(file_path, '/')))
		return -ENOENT;
	dlen = slash - file_path;
	if (dlen >= sizeof(dir))
		return -ENOENT;
	memcpy(dir, file_path, dlen);
	dir[dlen] = '\0';
	for (i = 0; i < 3; i++) {
		n = i < 2 ? snprintf(path, size, fmt[i], dir, name) :
			    snprintf(path, size, fmt[i], root, dir, name);
		if (n >= (int)size || kelf_open(path, ef, NULL, 0))
			continue;
		if ((ef->st.st_dev != self->st_dev || ef->st.st_ino != self->st_ino) &&
		    kelf_has_section(ef->e, SHT_SYMTAB) &&
		    file_crc_is(ef->fd, ef->st.st_size, crc))
			return 0;
		kelf_close(ef);
	}
	return -ENOENT;
}

int debugfile_open(const char *root, const struct kelf *f, const char *path, struct kelf *dbg,
		   char *dpath, size_t size)
{
	unsigned char id[KELF_BUILD_ID_SIZE];

	if (kelf_build_id(f->e, id) && !debugfile_by_id(root, id, dbg, dpath, size))
		return 0;
	return debugfile_by_link(root, f->e, path, &f->st, dbg, dpath, size);
}
