/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Stacks: a captured frame as the user reads it. Kernel
 * frames are named from kallsyms, as ftrace's stacktrace trigger names
 * them; user frames from the process's files (usym.c). The outputs
 * (output_text.c, output_json.c, agg.c's tables and --folded) print what
 * this resolves.
 */
#ifndef KPT_STACKOUT_H
#define KPT_STACKOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "prepare/event.h"
#include "sys/ksyms.h"
#include "sys/usym.h"
#include "util/fmt.h"

/* What names frames: kallsyms for the kernel's, the symbolizer for users'. */
struct stack_syms {
	const struct ksyms *ks;		/* NULL: kernel frames print as addresses */
	struct usym *us;		/* NULL: user frames print as addresses */
	uint64_t *cut;			/* user stacks printed cut short, counted (NULL: not) */
};

/* One frame resolved. */
struct sframe {
	bool user;
	uint64_t addr;			/* 0: not known (a build-id frame of a process gone) */
	const char *sym;		/* NULL: unknown, never a guess */
	uint64_t off;			/* into sym */
	const char *obj;		/* kernel: its module (NULL: the core kernel); user: its file */
	uint64_t file_off;		/* user: the frame's offset in obj (or in the build id's file) */
	const unsigned char *build_id;	/* user: the file's build id, when obj is not known */
	/* user, from DWARF: the source line at addr (NULL, 0: not known), the functions
	 * inlined there (the walk gives each as a frame of its own, inlined set) */
	const char *src_file;
	unsigned int src_line;
	bool inlined;
	const struct usym_inline *inl;
	unsigned int ninl;
	bool cut;			/* not a frame: the mark after a stack cut short */
};

/* Room for one frame's text: a C++ name, a path and a source location. */
#define STACK_FRAME_TEXT_MAX	1024

/* Frame i of n kernel frames (8 bytes each, unaligned). */
uint64_t stack_kip(const unsigned char *frames, unsigned int i);
/*
 * How many of the top kernel frames are BPF's and the tracing machinery's
 * (a trampoline, the program, perf's tracepoint glue): the stack starts
 * below them, at the probed function or the tracepoint's caller.
 */
unsigned int stack_kernel_skip(const struct ksyms *ks, const unsigned char *frames, unsigned int n);
/* The first frame to show of probe ev's stack: the above, and a trampoline's own frames. */
unsigned int stack_kernel_first(const struct ksyms *ks, const unsigned char *frames, unsigned int n,
				const struct ev_desc *ev);
void stack_kframe(const struct ksyms *ks, uint64_t ip, struct sframe *f);
/* User frame i (struct bpf_stack_build_id) of process tgid: i > 0 is a return address. */
void stack_uframe(struct usym *us, uint32_t tgid, const unsigned char *frame, unsigned int i,
		  struct sframe *f);
/*
 * How many of a user stack's n frames (32 bytes each) to show, and whether
 * it was cut short. A walk is whole at a run of frames where a process's
 * or a thread's stack starts (_start, __libc_start_call_main, start_thread,
 * clone3...); what follows them is a frame-pointer walk reading on through
 * a libc built without frame pointers, not shown. It was cut short at a
 * frame past the first in no file (a data word read as a return address,
 * or a bare address of a process gone), or when its last frame is named
 * and is no start; a last frame its file does not name cannot tell.
 */
unsigned int stack_user_shown(const struct stack_syms *ss, uint32_t tgid,
			      const unsigned char *frames, unsigned int n, bool *cut);
/*
 * A frame's text after " => ": a kernel frame as ftrace prints it ("sym",
 * "sym [mod]" for a module's, "0x..." unknown); a user frame
 * "sym+0xoff (file)", "[unknown] (file+0xoff)" or "[unknown] <0xaddr>",
 * then " src.c:LINE" where DWARF has it; an inlined function's frame
 * "func [inlined] (file) src.c:LINE".
 */
size_t stack_frame_text(const struct sframe *f, char *buf, size_t len);
/* A frame's name in the folded format: "sym", "sym [mod]", "[unknown]". */
size_t stack_frame_name(const struct sframe *f, char *buf, size_t len);
/*
 * A frame as JSON: {"address","symbol","offset","module"} for the kernel's,
 * "binary" and "file_offset" for a user's, and "file", "line" and
 * "inlined" where DWARF has its line; null where not known.
 */
void stack_frame_json(struct outbuf *ob, const struct sframe *f);

/*
 * The one walk over a captured stack's frames, each resolved: innermost
 * first, or the root first (reverse, as folded stacks are written).
 */
struct stack_walk {
	const struct stack_syms *ss;
	bool user, reverse;
	uint32_t tgid;
	const unsigned char *frames;
	unsigned int first, end, i;
	struct sframe cur;		/* the frame whose inlined functions are being given */
	unsigned int inl_left;		/* its items (stack_walk_next()) still to give */
	unsigned int mark;	/* the index of the "[cut short]" mark (stack_user_shown()), or none */
};

/*
 * Kernel frames (n of them, 8 bytes each) of probe ev's stack: from the
 * first one to show (stack_kernel_first()), show of them at most (0: all).
 */
void stack_walk_kernel(struct stack_walk *w, const struct stack_syms *ss,
		       const unsigned char *frames, unsigned int n, const struct ev_desc *ev,
		       unsigned int show, bool reverse);
/* User frames (n struct bpf_stack_build_id) of process tgid; a stack cut short
 * ends (reverse: starts) with a mark, a frame whose cut is set, and is counted. */
void stack_walk_user(struct stack_walk *w, const struct stack_syms *ss, uint32_t tgid,
		     const unsigned char *frames, unsigned int n, bool reverse);
/* The next frame into *f, a user frame's inlined functions first (innermost
 * first; reversed, after it); false past the last. */
bool stack_walk_next(struct stack_walk *w, struct sframe *f);
/* The rest of w's frames as a JSON array of stack_frame_json()'s objects. */
void stack_walk_json(struct outbuf *ob, struct stack_walk *w);

#endif /* KPT_STACKOUT_H */
