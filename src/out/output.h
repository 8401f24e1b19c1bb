/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Decode a record against its probe's ev_desc and print it,
 * as the kernel's /sys/kernel/tracing/trace line or as one NDJSON object.
 * Output goes through the caller's FILE (fully buffered); nothing here
 * allocates per event.
 */
#ifndef KPT_OUTPUT_H
#define KPT_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "out/stackout.h"
#include "prepare/event.h"
#include "sys/ksyms.h"
#include "util/json.h"

enum out_format {
	OUT_TEXT,	/* ftrace's trace format */
	OUT_JSON,	/* NDJSON, one object per event, typed values */
};

/* A decoded scalar. */
struct dec_val {
	uint64_t u;		/* zero-extended raw value */
	int64_t s;		/* sign-extended raw value */
};

/*
 * Record checks and access (decode.c). A record is valid when its header
 * size matches len, it is at least ev->fixed_size long, and every data_loc
 * points inside it. Returns 0 or -EINVAL.
 */
int decode_check(const struct ev_desc *ev, const void *rec, size_t len);
/* True when argument argi's read faulted (the bitmap after the header). */
bool decode_faulted(const struct ev_desc *ev, const void *rec, int argi);
/* Elements of an array argument to print: a NULL-terminated string array's up to its NULL. */
uint32_t decode_count(const struct ev_arg *a, const void *rec);
/* Element elem of a scalar argument. */
struct dec_val decode_scalar(const struct ev_arg *a, const void *rec, uint32_t elem);
/* An ipv6 argument's address as text into buf (VALFMT_MAX); its length, 0 if not one. */
size_t decode_ipv6(const struct ev_arg *a, const void *rec, char *buf, size_t len);
/*
 * Element elem of a string argument: pointer into rec and length without the
 * terminator; NULL for ftrace's "(fault)" (data_loc length 0).
 */
const char *decode_string(const struct ev_arg *a, const void *rec, size_t len, uint32_t elem,
			  size_t *slen);

/* A checked record's stacks, at its end: nk kernel frames (8 bytes, an
 * address each, unaligned) then nu user frames (struct bpf_stack_build_id). */
struct dec_stacks {
	const unsigned char *k;
	unsigned int nk;
	const unsigned char *u;
	unsigned int nu;
};
void decode_stacks(const void *rec, size_t len, struct dec_stacks *st);

/* --json's events carry "ns_pid" and "ns_tid" for tasks in a pid namespace
 * below ours (out/nspid.h): /proc is read once per task. Off by default. */
void output_json_nspids(bool on);
/* One event line/object to f. Returns 0, or -EINVAL for a malformed record. */
int output_text(FILE *f, const struct ev_desc *ev, const struct ksyms *ks, const void *rec,
		size_t len);
int output_json(FILE *f, const struct ev_desc *ev, const struct ksyms *ks, const void *rec,
		size_t len);
/* The same, with the stacks' frames named through ss (-K/-U). */
int output_text_ex(FILE *f, const struct ev_desc *ev, const struct stack_syms *ss,
		   const void *rec, size_t len);
int output_json_ex(FILE *f, const struct ev_desc *ev, const struct stack_syms *ss,
		   const void *rec, size_t len);

/*
 * The event's visible arguments as its text line gives them, "name=VALUE"
 * separated by spaces (a faulted one "(fault)"); for why's root. 0, or
 * -EINVAL for a malformed record.
 */
int output_text_args(FILE *f, const struct ev_desc *ev, const struct ksyms *ks, const void *rec,
		     size_t len);
/*
 * The event's visible arguments as JSON object members, "name":VALUE,... as
 * output_json() types them (a faulted one null), a comma before them if
 * comma; for --perfetto's args. 0, or -EINVAL for a malformed record.
 */
int output_json_args(FILE *f, const struct ev_desc *ev, const struct ksyms *ks, const void *rec,
		     size_t len, bool comma);

#endif /* KPT_OUTPUT_H */
