/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Tracepoints as probe sources: the fields of SUBSYS/NAME, with the kernel's
 * own offsets, sizes and types, from tracefs's events/SUBSYS/NAME/format.
 */
#ifndef KPT_TRACEPOINT_H
#define KPT_TRACEPOINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct tp_field {
	char name[64];
	char type[96];		/* as the format file says, e.g. "unsigned long" */
	char decl[160];		/* the whole declaration, e.g. "char prev_comm[16]" */
	uint16_t offset;
	uint16_t size;
	bool is_signed;
	bool data_loc;		/* __data_loc char[]: a string elsewhere in the record */
	bool char_array;	/* char name[N]: a string in place */
	uint16_t array_len;	/* TYPE name[N] (not char): N elements of size / N bytes */
	bool pointer;		/* a pointer type */
	/* the print fmt shows it as a code address: TP_SYM_* */
	uint8_t symbol;
	/* ... or as an IP address (%pI4, %pI6, %pI6c): TP_ADDR_* */
	uint8_t addr;
};

enum {
	TP_ADDR_NONE,
	TP_ADDR_IPV4,		/* 4 bytes, printed as ipv4 */
	TP_ADDR_IPV6,		/* 16 bytes, printed as ipv6 */
};

enum {
	TP_SYM_NONE,
	TP_SYM_OFFSET,		/* %pS, %pB: "sym+0x1a/0x80" */
	TP_SYM_NAME,		/* %ps: "sym" */
};

struct tp_format {
	int id;
	int nfields;		/* common_* fields are left out */
	struct tp_field *fields;
	char *text;		/* the format file as read */
	size_t text_len;
};

/*
 * One conversion of a print fmt and the argument it takes: conv is the
 * conversion's letter ('p' for a plain %p, '*' for a width or precision
 * taken from an argument); for the kernel's %p<X> (ext) the X: 'S', 's',
 * 'B', '4' and '6' for %pI4 and %pI6[c], 'P' for any other. [fs, fe) is its
 * text in the format string, [as, ae) its argument's (NULL if the list is
 * short).
 */
struct tp_conv {
	char conv;
	bool ext;
	const char *fs, *fe;
	const char *as, *ae;
};

/* The conversions of a "print fmt: ..." line, up to max: their number, or -1. */
int tp_print_fmt_scan(const char *line, struct tp_conv *convs, int max);

/*
 * The tracefs mount ("/sys/kernel/tracing"), mounting it if absent; NULL if
 * none, errno EACCES where it is mounted but this user may not read it.
 */
const char *tp_tracefs(void);
/*
 * fn(name, its module or NULL, arg) for each function of tracefs's
 * available_filter_functions (path's in tests, when not NULL), until fn
 * returns non-zero, which is returned; -ENOENT if the list is unreadable.
 */
int tp_each_function(const char *path, int (*fn)(const char *name, const char *mod, void *arg),
		     void *arg);
/*
 * Whether ftrace can trace kernel function fn ("MOD:FN" is FN of MOD): 1 if
 * tracefs's available_filter_functions lists it, 0 if not (notrace, noinstr:
 * kprobes on it are refused without CONFIG_KPROBE_EVENTS_ON_NOTRACE), -1 if
 * the list is unreadable. A scan of ~50,000 lines: for an error's reason.
 */
int tp_function_traceable(const char *fn);
/* Why the last tp_tracefs() gave NULL, into msg, with what to do; -EACCES or -ENOENT. */
int tp_tracefs_missing(char *msg, size_t msglen);
/* SUBSYS/NAME's event id (tracefs's events/SUBSYS/NAME/id), the perf event's config; or -errno. */
int tp_event_id(const char *subsys, const char *name);
/* Load SUBSYS/NAME's format from tracefs (or from path when non-NULL, for tests). */
int tp_format_load(const char *subsys, const char *name, const char *path,
		   struct tp_format *fmt, char *msg, size_t msglen);
const struct tp_field *tp_field_find(const struct tp_format *fmt, const char *name);
/* "a, b, c": the fields' names, for a message (cut at len). */
void tp_field_names(const struct tp_format *fmt, char *buf, size_t len);
void tp_format_free(struct tp_format *fmt);

#endif /* KPT_TRACEPOINT_H */
