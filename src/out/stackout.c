// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Stacks: frames resolved to names, their text and folded names. */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "out/stackout.h"
#include "util/json.h"
#include "kptrace.h"

uint64_t stack_kip(const unsigned char *frames, unsigned int i)
{
	uint64_t ip;

	memcpy(&ip, frames + (size_t)i * KPT_KFRAME_SIZE, sizeof(ip));
	return ip;
}

/*
 * Functions that run between the probed point and the BPF program: what
 * a stack taken inside the program shows above the probe. By name, as
 * kallsyms gives them on the kernels kptrace runs on.
 */
static const char *const tracing_frames[] = {
	"bpf_prog_", "bpf_trampoline_", "__bpf_prog_enter", "__bpf_prog_exit",
	"bpf_trace_run", "__bpf_trace_", "perf_trace_", "trace_call_bpf",
	/* a raw tracepoint's runner, of 1 to 12 arguments (tp_btf) */
	"bpf_trace_run1", "bpf_trace_run2", "bpf_trace_run3", "bpf_trace_run4",
	"bpf_trace_run5", "bpf_trace_run6", "bpf_trace_run7", "bpf_trace_run8",
	"bpf_trace_run9", "bpf_trace_run10", "bpf_trace_run11", "bpf_trace_run12",
	"perf_syscall_enter", "perf_syscall_exit",
	"bpf_get_stack", "bpf_get_stackid", "__bpf_get_stack", "bpf_prog_run",
	"kprobe_perf_func", "kretprobe_perf_func", "kprobe_dispatcher", "kretprobe_dispatcher",
	"kprobe_ftrace_handler", "kprobe_multi_link_handler", "kprobe_multi_link_prog_run",
	"kprobe_multi_link_exit_handler", "fprobe_handler", "__fprobe_handler",
	"fprobe_exit_handler", "fprobe_entry", "fprobe_return", "fprobe_ftrace_entry",
	"arch_ftrace_ops_list_func", "ftrace_ops_list_func", "ftrace_regs_caller",
	"ftrace_caller", "ftrace_call", "ftrace_regs_call", "ftrace_trampoline",
	"__kretprobe_trampoline_handler", "kretprobe_trampoline_handler", "trampoline_handler",
	"rethook_trampoline_handler", "arch_rethook_trampoline_callback",
	"function_graph_enter", "ftrace_return_to_handler", "return_to_handler",
	"kprobe_int3_handler", "exc_int3", "asm_exc_int3", "do_int3", "opt_pre_handler",
	"optimized_callback", "aggr_pre_handler",
};

static bool is_tracing_frame(const struct ksym *s)
{
	size_t i, n;

	if (s->module && !strcmp(s->module, "bpf"))
		return true;
	for (i = 0; i < sizeof(tracing_frames) / sizeof(tracing_frames[0]); i++) {
		n = strlen(tracing_frames[i]);
		/* a prefix ends in '_'; else the whole name, or its .isra/.cold clone */
		if (!strncmp(s->name, tracing_frames[i], n) &&
		    (tracing_frames[i][n - 1] == '_' || !s->name[n] || s->name[n] == '.'))
			return true;
	}
	return false;
}

unsigned int stack_kernel_skip(const struct ksyms *ks, const unsigned char *frames, unsigned int n)
{
	unsigned int i;

	if (!ks)
		return 0;
	for (i = 0; i < n; i++) {
		const struct ksym *s = ksyms_by_addr(ks, stack_kip(frames, i));

		if (!s || !is_tracing_frame(s))
			break;
	}
	/* a stack of nothing but tracing frames is shown as it is */
	return i == n ? 0 : i;
}

/*
 * A BPF trampoline's program runs below the probed function's frame: the
 * stack shows the program and the trampoline (not named in kallsyms as
 * read before they loaded), then the function; a return (fexit), the
 * function's frame too, where the kernel's own stack starts at the caller.
 * So through a trampoline the stack starts at the function, or past it.
 */
unsigned int stack_kernel_first(const struct ksyms *ks, const unsigned char *frames, unsigned int n,
				const struct ev_desc *ev)
{
	const struct ksym *fn = NULL, *s;
	unsigned int i;

	if (ks && ev && ev->tpbtf) {
		/* a tp_btf program, above bpf_trace_run*(), is not in kallsyms
		 * as read before it loaded either: then as a tracepoint's */
		for (i = 0; i < n && !ksyms_by_addr(ks, stack_kip(frames, i)); i++)
			;
		if (i < n)
			return i + stack_kernel_skip(ks, frames + (size_t)i * KPT_KFRAME_SIZE,
						     n - i);
	}
	if (ks && ev && ev->tramp && ev->addr)
		fn = ksyms_by_addr(ks, ev->addr);
	for (i = 0; fn && i < n; i++) {
		s = ksyms_by_addr(ks, stack_kip(frames, i));
		if (s && s->addr == fn->addr)
			return ev->is_return ? i + 1 : i;
	}
	return stack_kernel_skip(ks, frames, n);
}

void stack_kframe(const struct ksyms *ks, uint64_t ip, struct sframe *f)
{
	const struct ksym *s = ks ? ksyms_by_addr(ks, ip) : NULL;

	memset(f, 0, sizeof(*f));
	f->addr = ip;
	if (ksym_kretprobe_trampoline(s, ip)) {
		/* as the kernel's own stacks name it: no caller of this frame's */
		f->sym = "[unknown/kretprobe'd]";
	} else if (s) {
		f->sym = s->name;
		f->off = ip - s->addr;
		f->obj = s->module;
	}
}

/* struct bpf_stack_build_id, as the kernel lays it out */
struct frame32 {
	int32_t status;
	unsigned char build_id[20];
	uint64_t offset_or_ip;
};
#define BUILD_ID_VALID	1

void stack_uframe(struct usym *us, uint32_t tgid, const unsigned char *frame, unsigned int i,
		  struct sframe *f)
{
	struct usym_frame uf = { 0 };
	struct frame32 fr;

	memcpy(&fr, frame, sizeof(fr));
	memset(f, 0, sizeof(*f));
	f->user = true;
	/* the kernel pairs a frame with the mapping above it when none holds it
	 * (a frame-pointer walk through code without them): no file has such
	 * an offset, and the frame is nothing's */
	if (fr.status == BUILD_ID_VALID && fr.offset_or_ip >= 1ull << 47)
		return;
	if (fr.status != BUILD_ID_VALID)
		f->addr = fr.offset_or_ip;
	if (us)
		usym_frame32(us, tgid, frame, i > 0, &uf);
	else if (fr.status == BUILD_ID_VALID)
		uf.file_off = fr.offset_or_ip;
	if (uf.addr)
		f->addr = uf.addr;
	f->sym = uf.sym;
	f->off = uf.sym_off;
	f->obj = uf.path;
	f->file_off = fr.status == BUILD_ID_VALID ? fr.offset_or_ip : uf.file_off;
	f->src_file = uf.src_file;
	f->src_line = uf.src_line;
	f->inl = uf.inl;
	f->ninl = uf.ninl;
	if (fr.status == BUILD_ID_VALID && !uf.path)
		f->build_id = frame + offsetof(struct frame32, build_id);
}

/*
 * Where a stack's walk ends when it is whole: a process's start (glibc's
 * and its static binaries', ld.so's), a thread's (glibc's start_thread
 * under clone3, or clone on older ones), Go's goroutines.
 */
static const char *const start_frames[] = {
	"_start", "__libc_start_call_main", "__libc_start_main", "__libc_start_main_impl",
	"_dl_start_user", "start_thread", "clone3", "__clone3", "clone", "__clone",
	"runtime.goexit", "runtime.mstart", "runtime.rt0_go",
};

static bool is_start_frame(const struct sframe *f)
{
	size_t i, n = strcspn(f->sym, "@");

	for (i = 0; i < sizeof(start_frames) / sizeof(start_frames[0]); i++)
		if (strlen(start_frames[i]) == n && !strncmp(f->sym, start_frames[i], n))
			return true;
	return false;
}

unsigned int stack_user_shown(const struct stack_syms *ss, uint32_t tgid,
			      const unsigned char *frames, unsigned int n, bool *cut)
{
	struct sframe f = { 0 };
	bool started = false, lost = false;
	unsigned int i;

	*cut = false;
	/* without the symbolizer nothing is named: nothing to tell by */
	if (!ss || !ss->us)
		return n;
	for (i = 0; i < n; i++) {
		stack_uframe(ss->us, tgid, frames + (size_t)i * KPT_UFRAME_SIZE, i, &f);
		if (f.sym && is_start_frame(&f)) {
			started = true;
			continue;
		}
		if (started)
			return i;
		/* in no file (a JIT's code without its map): whole only if the
		 * walk still reaches a start routine */
		if (i && !f.sym && !f.obj && !f.build_id)
			lost = true;
	}
	*cut = !started && (f.sym || lost);
	return n;
}

/* The build id as hex, trailing zero bytes (a shorter id's padding) left out. */
static void build_id_hex(const unsigned char *id, char *buf)
{
	int n = 20, i;

	while (n > 0 && !id[n - 1])
		n--;
	for (i = 0; i < n; i++)
		sprintf(buf + 2 * i, "%02x", id[i]);
	buf[2 * n] = '\0';
}

/* A user symbol without its version ("clock_gettime@@GLIBC_2.17"): as people name it. */
static int sym_len(const struct sframe *f)
{
	const char *at = f->user ? strchr(f->sym, '@') : NULL;

	return at && at > f->sym ? (int)(at - f->sym) : (int)strlen(f->sym);
}

size_t stack_frame_text(const struct sframe *f, char *buf, size_t len)
{
	char id[41];
	int n;

	if (f->cut) {
		n = snprintf(buf, len, "[cut short]");
	} else if (f->inlined) {
		n = snprintf(buf, len, "%s [inlined] (%s)", f->sym ? f->sym : "[unknown]",
			     f->obj ? f->obj : "?");
	} else if (!f->user) {
		if (!f->sym)
			n = snprintf(buf, len, "0x%" PRIx64, f->addr);
		else if (f->obj)
			n = snprintf(buf, len, "%s [%s]", f->sym, f->obj);
		else
			n = snprintf(buf, len, "%s", f->sym);
	} else if (f->sym) {
		n = snprintf(buf, len, "%.*s+0x%" PRIx64 " (%s)", sym_len(f), f->sym, f->off,
			     f->obj ? f->obj : "?");
	} else if (f->obj) {
		n = snprintf(buf, len, "[unknown] (%s+0x%" PRIx64 ")", f->obj, f->file_off);
	} else if (f->build_id) {
		build_id_hex(f->build_id, id);
		n = snprintf(buf, len, "[unknown] (build id %s+0x%" PRIx64 ")", id, f->file_off);
	} else {
		n = snprintf(buf, len, "[unknown] <0x%" PRIx64 ">", f->addr);
	}
	if (n >= 0 && (size_t)n < len && f->src_file)
		n += snprintf(buf + n, len - n, " %s:%u", f->src_file, f->src_line);
	return n < 0 ? 0 : (size_t)n >= len ? len - 1 : (size_t)n;
}

size_t stack_frame_name(const struct sframe *f, char *buf, size_t len)
{
	int n;

	if (f->cut)
		n = snprintf(buf, len, "[cut short]");
	else if (!f->sym)
		n = snprintf(buf, len, "[unknown]");
	else if (!f->user && f->obj)
		n = snprintf(buf, len, "%s [%s]", f->sym, f->obj);
	else
		n = snprintf(buf, len, "%.*s", sym_len(f), f->sym);
	return n < 0 ? 0 : (size_t)n >= len ? len - 1 : (size_t)n;
}

void stack_frame_json(struct outbuf *ob, const struct sframe *f)
{
	if (f->cut) {
		ob_str(ob, "{\"address\":null,\"symbol\":null,\"offset\":null,\"binary\":null,"
			   "\"cut_short\":true}");
		return;
	}
	ob_mem(ob, "{\"address\":", 11);
	if (f->addr) {
		ob_char(ob, '"');
		ob_hex(ob, f->addr);
		ob_char(ob, '"');
	} else {
		ob_mem(ob, "null", 4);
	}
	ob_mem(ob, ",\"symbol\":", 10);
	if (f->sym)
		json_ob_str(ob, f->sym, strlen(f->sym));
	else
		ob_mem(ob, "null", 4);
	ob_mem(ob, ",\"offset\":", 10);
	if (f->sym && !f->inlined)
		ob_commit(ob, fmt_u64(ob_room(ob, FMT_NUM_MAX), f->off));
	else
		ob_mem(ob, "null", 4);
	ob_str(ob, f->user ? ",\"binary\":" : ",\"module\":");
	if (f->obj)
		json_ob_str(ob, f->obj, strlen(f->obj));
	else
		ob_mem(ob, "null", 4);
	if (f->user && (f->obj || f->build_id)) {
		ob_str(ob, ",\"file_offset\":");
		ob_commit(ob, fmt_u64(ob_room(ob, FMT_NUM_MAX), f->file_off));
	}
	if (f->src_file) {
		ob_str(ob, ",\"file\":");
		json_ob_str(ob, f->src_file, strlen(f->src_file));
		ob_str(ob, ",\"line\":");
		ob_commit(ob, fmt_u64(ob_room(ob, FMT_NUM_MAX), f->src_line));
		ob_str(ob, f->inlined ? ",\"inlined\":true" : ",\"inlined\":false");
	}
	ob_char(ob, '}');
}

static void walk_start(struct stack_walk *w, bool reverse)
{
	w->reverse = reverse;
	w->i = reverse ? w->end : w->first;
}

void stack_walk_kernel(struct stack_walk *w, const struct stack_syms *ss,
		       const unsigned char *frames, unsigned int n, const struct ev_desc *ev,
		       unsigned int show, bool reverse)
{
	*w = (struct stack_walk){ .ss = ss, .frames = frames, .end = n, .mark = UINT_MAX };
	w->first = stack_kernel_first(ss ? ss->ks : NULL, frames, n, ev);
	if (show && w->first + show < w->end)
		w->end = w->first + show;
	walk_start(w, reverse);
}

void stack_walk_user(struct stack_walk *w, const struct stack_syms *ss, uint32_t tgid,
		     const unsigned char *frames, unsigned int n, bool reverse)
{
	bool cut;

	*w = (struct stack_walk){ .ss = ss, .user = true, .tgid = tgid, .frames = frames,
				  .mark = UINT_MAX };
	w->end = stack_user_shown(ss, tgid, frames, n, &cut);
	if (cut) {
		w->mark = w->end++;
		if (ss->cut)
			(*ss->cut)++;
	}
	walk_start(w, reverse);
}

/*
 * Item pos of w->cur's frames: innermost first, its inlined functions
 * (inl[0] the innermost) then the frame itself; reversed, the other way.
 * An inlined function is a frame of its own at the same address.
 */
static void walk_item(const struct stack_walk *w, unsigned int pos, struct sframe *f)
{
	unsigned int n = w->cur.ninl, k = w->reverse ? n - pos : pos;
	const struct usym_inline *in;

	*f = w->cur;
	if (w->reverse ? !pos : pos == n)
		return;
	in = &w->cur.inl[k];
	f->sym = in->func;
	f->off = 0;
	f->src_file = in->file;
	f->src_line = in->line;
	f->inlined = true;
	f->inl = NULL;
	f->ninl = 0;
}

bool stack_walk_next(struct stack_walk *w, struct sframe *f)
{
	unsigned int i;

	if (w->inl_left) {
		walk_item(w, w->cur.ninl + 1 - w->inl_left--, f);
		return true;
	}
	if (w->reverse ? w->i <= w->first : w->i >= w->end)
		return false;
	i = w->reverse ? --w->i : w->i++;
	if (i == w->mark) {
		memset(f, 0, sizeof(*f));
		f->user = f->cut = true;
	} else if (w->user)
		stack_uframe(w->ss ? w->ss->us : NULL, w->tgid,
			     w->frames + (size_t)i * KPT_UFRAME_SIZE, i, f);
	else
		stack_kframe(w->ss ? w->ss->ks : NULL, stack_kip(w->frames, i), f);
	if (f->ninl) {
		w->cur = *f;
		w->inl_left = f->ninl;
		walk_item(w, 0, f);
	}
	return true;
}

void stack_walk_json(struct outbuf *ob, struct stack_walk *w)
{
	struct sframe fr;
	bool first = true;

	ob_char(ob, '[');
	while (stack_walk_next(w, &fr)) {
		if (!first)
			ob_char(ob, ',');
		stack_frame_json(ob, &fr);
		first = false;
	}
	ob_char(ob, ']');
}
