// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer harness for src/sys/ehframe.c: the input is a .eh_frame or
 * .debug_frame section's bytes as a hostile binary could hold them (kptrace, as root,
 * reads the tables of every binary a uprobe or a traced process maps). The
 * first byte picks the machine (bit 0 clear: x86-64, set: arm64) and the
 * section (bit 1 clear: .eh_frame, set: .debug_frame), the next eight
 * the section's address; the rest is the section. Checked beyond
 * ASan/UBSan/LSan: ehframe_parse() returns 0, -ENOEXEC with a message that
 * names the section, or -ENOMEM; on success the rows are in strictly rising
 * pc order, each of a known kind, no two in a row alike, the count of
 * EHF_BAD rows is t.bad, and ehframe_find() gives each row at its own pc
 * and the row before at the pc before.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "sys/ehframe.h"
#include "fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

static void check_rows(const struct ehf_table *t)
{
	size_t i, bad = 0;

	for (i = 0; i < t->n; i++) {
		const struct ehf_row *r = &t->rows[i], *p = i ? r - 1 : NULL;

		FUZZ_CHECK(r->cfa <= EHF_END, "row %zu kind %u", i, r->cfa);
		FUZZ_CHECK(!p || p->pc < r->pc, "row %zu not after the one before", i);
		FUZZ_CHECK(!p || p->cfa != r->cfa || p->cfa_off != r->cfa_off ||
			   p->ra_off != r->ra_off || p->fp_off != r->fp_off,
			   "row %zu says what row %zu says", i, i - 1);
		bad += r->cfa == EHF_BAD;
		FUZZ_CHECK(ehframe_find(t, r->pc) == r, "row %zu not found at its pc", i);
		FUZZ_CHECK(ehframe_find(t, r->pc - 1) == p || !r->pc, "row %zu's pc - 1", i);
	}
	FUZZ_CHECK(bad == t->bad, "%zu rows EHF_BAD, t.bad %zu", bad, t->bad);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ehf_table t = { 0 };
	char msg[256] = "";
	uint64_t addr = 0;
	enum ehf_sec sec;
	unsigned machine;
	int err;

	if (size < 9)
		return 0;
	machine = data[0] & 1 ? EM_AARCH64 : EM_X86_64;
	sec = data[0] & 2 ? EHF_DEBUG_FRAME : EHF_EH_FRAME;
	memcpy(&addr, data + 1, 8);
	err = ehframe_parse(data + 9, size - 9, addr, machine, sec, &t, msg, sizeof(msg));
	FUZZ_CHECK(err == 0 || err == -ENOEXEC || err == -ENOMEM, "return %d", err);
	if (err == -ENOEXEC)
		FUZZ_CHECK(!strncmp(msg, sec == EHF_DEBUG_FRAME ? ".debug_frame: " : ".eh_frame: ",
				    sec == EHF_DEBUG_FRAME ? 14 : 11), "message '%s'", msg);
	if (!err)
		check_rows(&t);
	ehframe_free(&t);
	return 0;
}
