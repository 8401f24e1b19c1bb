/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A binary's call frame information (.eh_frame, .debug_frame) as rows the
 * BPF unwinder walks (bpf/unwind.bpf.h): per address range, the CFA rule
 * (sp+N or fp+N) and where the return address and the frame pointer are
 * saved (CFA+N).
 * Only those three rules are kept; a range whose rules are others (a
 * DW_CFA expression, as PLT stubs and signal frames have) is marked, so a
 * walk reaching it stops there, cut short. The input is hostile (any file
 * a uprobe names, parsed as root): every read is bounded by the section.
 */
#ifndef KPT_EHFRAME_H
#define KPT_EHFRAME_H

#include <stddef.h>
#include <stdint.h>
#include <gelf.h>

enum ehf_cfa {
	EHF_GAP,	/* no FDE covers the range */
	EHF_SP,		/* CFA = sp + cfa_off */
	EHF_FP,		/* CFA = fp (rbp, x29) + cfa_off */
	EHF_BAD,	/* a rule not kept (an expression, another register): stop */
	EHF_END,	/* the return address is undefined: the outermost frame */
};

struct ehf_row {
	uint64_t pc;		/* the range's first address (virtual, as the file says) */
	int32_t cfa_off;
	uint8_t cfa;		/* enum ehf_cfa */
	/* where the return address is (CFA + ra_off); 0: in its register
	 * (arm64's link register at a function's entry) */
	int32_t ra_off;
	/* where the caller's frame pointer is (CFA + fp_off); 0: unchanged */
	int32_t fp_off;
};

struct ehf_table {
	struct ehf_row *rows;	/* sorted by pc; a range ends where the next row starts */
	size_t n, cap;
	size_t fdes;		/* the FDEs read */
	size_t bad;		/* rows marked EHF_BAD */
};

/*
 * Which section the bytes are: .eh_frame's CIE pointers are relative and
 * its addresses encoded as the CIE's augmentation says; .debug_frame's CIE
 * pointers are offsets from its start, its CIE ids all ones, its addresses
 * absolute of the CIE's address size.
 */
enum ehf_sec { EHF_EH_FRAME, EHF_DEBUG_FRAME };

/*
 * The rows of sec's bytes (len of them, loaded at virtual address addr) of
 * a machine (EM_X86_64, EM_AARCH64) into t, appended and then sorted. An
 * FDE covering any address the rows already in t cover (a section read
 * before) is skipped: the first section read wins. 0, or -ENOEXEC with
 * where it went wrong in msg (a table cut short, an unknown encoding, a
 * CIE pointer out of the section); -EOPNOTSUPP for another machine; -ENOMEM.
 */
int ehframe_parse(const uint8_t *buf, size_t len, uint64_t addr, unsigned machine,
		  enum ehf_sec sec, struct ehf_table *t, char *msg, size_t msglen);

/* The rows of e's sec (decompressed if need be) into t (ehframe_parse()); -ENOENT if it has none. */
int ehframe_read(Elf *e, enum ehf_sec sec, struct ehf_table *t, char *msg, size_t msglen);

/* The bytes of [lo, hi) that t's FDEs cover (rows other than EHF_GAP). */
uint64_t ehframe_covered(const struct ehf_table *t, uint64_t lo, uint64_t hi);

/* The row covering pc, or NULL if none does (before the first row). */
const struct ehf_row *ehframe_find(const struct ehf_table *t, uint64_t pc);

void ehframe_free(struct ehf_table *t);

#endif /* KPT_EHFRAME_H */
