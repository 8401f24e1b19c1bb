/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * User-space symbolizer for stack frames taken by bpf_get_stack(BPF_F_USER_STACK |
 * BPF_F_USER_BUILD_ID): a frame is either a build id + file offset (symbolized without
 * the process, which may have exited) or a runtime address (symbolized from the
 * process's maps, read by usym_capture while it lives). Symbols come from .symtab,
 * else a separate debug file (build-id path, .gnu_debuglink, a debuginfod server), else
 * .dynsym; C++ and Rust names demangled (util/demangle.c) unless raw names are asked for;
 * file:line and inlined functions from DWARF (dwline.c), the file's or its debug file's;
 * code in no file from the process's perf map (perfmap.c). Each ELF file's symbols are
 * read once; lookups are binary searches with no file access, a line once per address.
 */
#ifndef KPT_USYM_H
#define KPT_USYM_H

#include <stdbool.h>
#include <stdint.h>

struct usym;

struct usym_opts {
	const char *proc_root;	/* default "/proc"; tests give a made-up tree */
	const char *debug_root;	/* default "/usr/lib/debug" */
	const char *perf_map_dir;	/* JITs' perf-PID.map files; default "/tmp" */
	bool raw_names;		/* symbols as in the file: C++, Rust names not demangled */
};

/* NULL o: defaults. NULL on ENOMEM. */
struct usym *usym_new(const struct usym_opts *o);
void usym_free(struct usym *u);

/*
 * Read PROC/TGID/maps now: its file-backed mappings remembered for usym_addr(), each
 * file's build id indexed for usym_build_id(). Once per tgid (a repeat returns the first
 * result, failure included, without reading anything); 0 or -errno.
 */
int usym_capture(struct usym *u, uint32_t tgid);
/* The process exec'd or its pid was reused: read its maps again at the next capture. */
void usym_forget(struct usym *u, uint32_t tgid);
/* A file whose build id must be known without any process (a uprobe's binary, -c's
 * program). 0 or -errno (-ENOEXEC: not an ELF file we can read). */
int usym_add_file(struct usym *u, const char *path);

/* A function inlined at a frame's address: its name (as sym) and line. */
struct usym_inline {
	const char *func;	/* NULL: DWARF names none */
	const char *file;
	unsigned int line;
};

struct usym_frame {
	uint64_t addr;		/* runtime address; 0 when not known (a build-id frame) */
	const char *sym;	/* the function (demangled), NULL: unknown (never a guess) */
	uint64_t sym_off;	/* offset into sym */
	const char *path;	/* the ELF file (as in maps, or the indexed path), NULL: none known */
	uint64_t file_off;	/* offset in path's file, when path is set */
	/* from DWARF, where the file or its debug file has it (else NULL, 0): */
	const char *src_file;	/* sym's source file and line at the address */
	unsigned int src_line;
	const struct usym_inline *inl;	/* the functions inlined there, innermost first */
	unsigned int ninl;
};

/*
 * ret_addr: the frame is a return address (every frame after the first): the lookup is
 * of the byte before it, so a call that ends a function names that function; sym_off and
 * file_off are still those of the address given. Strings stay valid until usym_free.
 */

/* by runtime address in process tgid (its captured maps; captures now if not yet); an
 * address in no file by the process's perf-PID.map, as path */
void usym_addr(struct usym *u, uint32_t tgid, uint64_t addr, bool ret_addr, struct usym_frame *f);
/* by build id (a shorter id zero-padded to 20 bytes) + file offset */
void usym_build_id(struct usym *u, const unsigned char id[20], uint64_t file_off, bool ret_addr,
		   struct usym_frame *f);

/* The kernel's struct bpf_stack_build_id, 32 bytes, for usym_frame32. */
#define USYM_FRAME32_SIZE	32
enum {
	USYM_FRAME_EMPTY = 0,	/* BPF_STACK_BUILD_ID_EMPTY: no frame */
	USYM_FRAME_VALID = 1,	/* BPF_STACK_BUILD_ID_VALID: build id + file offset */
	USYM_FRAME_IP	 = 2,	/* BPF_STACK_BUILD_ID_IP: runtime address only */
};
/* One bpf_stack_build_id frame (32 raw bytes, any alignment) of process tgid: dispatches
 * on its status; EMPTY or an unknown status gives an all-unknown frame. */
void usym_frame32(struct usym *u, uint32_t tgid, const void *frame, bool ret_addr,
		  struct usym_frame *f);

#endif /* KPT_USYM_H */
