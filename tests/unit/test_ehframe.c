// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * sys/ehframe.c against binutils' readelf --debug-dump=frames-interp on
 * real binaries: /bin/bash and libc (Debian's -O2 builds, without frame
 * pointers), the dynamic linker, this test program (static: glibc's own
 * objects), and tests/host/unwind_target.c built -O2 -fomit-frame-pointer
 * here (a tail call, a .cold split). For every FDE readelf prints, each of
 * its rows' CFA rule, return address and rbp rule are the row ehframe_find()
 * gives at that address, and each of our rows inside the FDE is readelf's
 * row at its address (the two step functions are equal); past an FDE's end
 * where no other starts, ours says no FDE covers it. The same program built
 * for aarch64 -mbranch-protection=standard too: its pointer authentication
 * steps (DW_CFA_AARCH64_negate_ra_state) leave the rows walkable.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "sys/elf.h"
#include "sys/ehframe.h"

/* One readelf row, already as the walk keeps it. */
struct rrow {
	uint64_t pc;
	struct ehf_row want;
};

struct rfde {
	uint64_t start, end;
	struct ehf_row cie;	/* its CIE's initial rules */
	struct rrow *rows;
	size_t n;
};

/*
 * readelf's rule texts as ehframe.h's row: "rsp+8", "c-16", "u", "exp";
 * arm64's "sp+16" and "x29+16". readelf prints "u" for a register without
 * a rule as for one undefined: arm64's return address without a rule is in
 * the link register (ra_off 0), which row_eq() takes for either.
 */
static struct ehf_row want_of(const char *cfa, const char *rbp, const char *ra, bool arm64)
{
	struct ehf_row w = { .cfa = EHF_BAD };
	int n;

	if (!strcmp(ra, "u") && !arm64) {
		w.cfa = EHF_END;
		return w;
	}
	if (sscanf(cfa, arm64 ? "sp%d" : "rsp%d", &n) == 1)
		w.cfa = EHF_SP;
	else if (sscanf(cfa, arm64 ? "x29%d" : "rbp%d", &n) == 1)
		w.cfa = EHF_FP;
	else
		return w;
	w.cfa_off = n;
	if (arm64 && !strcmp(ra, "u"))
		n = 0;
	else if (sscanf(ra, "c%d", &n) != 1 || !n) {
		w.cfa = EHF_BAD;
		return w;
	}
	w.ra_off = n;
	if (sscanf(rbp, "c%d", &n) == 1)
		w.fp_off = n;
	else if (strcmp(rbp, "u") && strcmp(rbp, "s"))
		w = (struct ehf_row){ .cfa = EHF_BAD };
	return w;
}

static bool row_eq(const struct ehf_row *g, const struct ehf_row *w)
{
	/* arm64's "u": in the link register, or undefined (the outermost frame) */
	if (g->cfa == EHF_END && (w->cfa == EHF_SP || w->cfa == EHF_FP) && !w->ra_off)
		return true;
	if (g->cfa != w->cfa)
		return false;
	if (g->cfa == EHF_BAD || g->cfa == EHF_END)
		return true;
	return g->cfa_off == w->cfa_off && g->ra_off == w->ra_off && g->fp_off == w->fp_off;
}

static const char *row_str(const struct ehf_row *r, char *b, size_t n)
{
	static const char *k[] = { "gap", "sp", "fp", "bad", "end" };

	snprintf(b, n, "%s%+d ra %d fp %d", r->cfa <= EHF_END ? k[r->cfa] : "?", r->cfa_off,
		 r->ra_off, r->fp_off);
	return b;
}

/* The columns of a "LOC CFA reg... ra" header: the frame pointer's (rbp, x29)
 * and ra's indexes (-1: none). */
static void columns(char *line, int *rbp, int *ra)
{
	char *tok, *save;
	int i = 0;

	*rbp = *ra = -1;
	for (tok = strtok_r(line, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save), i++) {
		if (!strcmp(tok, "rbp") || !strcmp(tok, "x29"))
			*rbp = i;
		else if (!strcmp(tok, "ra"))
			*ra = i;
	}
}

static void add_row(struct rfde *f, uint64_t pc, const struct ehf_row *w)
{
	f->rows = realloc(f->rows, (f->n + 1) * sizeof(*f->rows));
	if (!f->rows)
		exit(2);
	f->rows[f->n].pc = pc;
	f->rows[f->n++].want = *w;
}

/* readelf's FDEs of path; an FDE without rows of its own takes its CIE's. */
static struct rfde *readelf_fdes(const char *path, size_t *nf, bool arm64)
{
	char cmd[512], line[4096], *tok[64], *save;
	struct ehf_row cies[64] = { 0 };
	unsigned long cie_off[64];
	unsigned long long a, b, off, cie;
	struct rfde *f = NULL, *cur = NULL;
	int ncie = 0, rbp = -1, ra = -1, nt, i;
	bool in_cie = false;
	FILE *p;

	*nf = 0;
	snprintf(cmd, sizeof(cmd), "readelf --debug-dump=frames-interp '%s' 2>/dev/null", path);
	p = popen(cmd, "r");
	if (!p)
		return NULL;
	while (fgets(line, sizeof(line), p)) {
		/* a section's CIE offsets are its own */
		if (!strncmp(line, "Contents of the ", 16)) {
			ncie = 0;
			continue;
		}
		if (strstr(line, " CIE ") && sscanf(line, "%llx", &off) == 1) {
			in_cie = true;
			cur = NULL;
			if (ncie < 64)
				cie_off[ncie++] = off;
			continue;
		}
		if (sscanf(line, "%llx %*x %*x FDE cie=%llx pc=%llx..%llx", &off, &cie, &a, &b) == 4) {
			in_cie = false;
			f = realloc(f, (*nf + 1) * sizeof(*f));
			if (!f)
				exit(2);
			cur = &f[(*nf)++];
			*cur = (struct rfde){ .start = a, .end = b };
			for (i = 0; i < ncie; i++)
				if (cie_off[i] == cie)
					cur->cie = cies[i];
			continue;
		}
		if (strstr(line, "LOC") && strstr(line, "CFA")) {
			columns(line, &rbp, &ra);
			continue;
		}
		if (strstr(line, "ZERO terminator"))
			continue;
		/* a register rule prints as "r10 (r10)": one column */
		nt = 0;
		for (char *t = strtok_r(line, " \n", &save); t && nt < 63;
		     t = strtok_r(NULL, " \n", &save))
			if (*t != '(')
				tok[nt++] = t;
		/* no ra column: arm64's CIEs leave it in the link register */
		if (nt < 2 || (ra < 0 && !arm64) || ra >= nt || sscanf(tok[0], "%llx", &a) != 1)
			continue;
		{
			struct ehf_row w = want_of(tok[1], rbp > 0 && rbp < nt ? tok[rbp] : "u",
						   ra < 0 ? "u" : tok[ra], arm64);

			if (in_cie && ncie)
				cies[ncie - 1] = w;
			else if (cur)
				add_row(cur, a, &w);
		}
	}
	pclose(p);
	/* rowless FDEs: readelf prints nothing, the CIE's initial rules hold */
	for (size_t j = 0; j < *nf; j++)
		if (!f[j].n)
			add_row(&f[j], f[j].start, &f[j].cie);
	return f;
}

/*
 * path's rows against readelf's; with debug, .debug_frame's too, read after
 * .eh_frame (which a debug file has not: its .eh_frame holds no bytes).
 */
static void check_file(const char *path, size_t min, bool debug)
{
	struct ehf_table t = { 0 };
	struct rfde *f;
	struct kelf k;
	GElf_Ehdr eh;
	char msg[256], g[64], w[64], ctx[512];
	size_t nf, i, j, r, mism = 0, checked = 0;
	int err;

	err = kelf_open(path, &k, msg, sizeof(msg));
	CHECK(!err, "%s: %s", path, msg);
	if (err)
		return;
	err = ehframe_read(k.e, EHF_EH_FRAME, &t, msg, sizeof(msg));
	CHECK(!err || (debug && err == -ENOENT), "%s: ehframe_read: %s", path, msg);
	if (debug) {
		size_t eh_fdes = t.fdes;

		err = ehframe_read(k.e, EHF_DEBUG_FRAME, &t, msg, sizeof(msg));
		CHECK(!err && t.fdes > eh_fdes, "%s: .debug_frame: %s, %zu FDEs", path, err ? msg : "read",
		      t.fdes - eh_fdes);
	}
	f = readelf_fdes(path, &nf, gelf_getehdr(k.e, &eh) && eh.e_machine == EM_AARCH64);
	CHECK(nf >= min / 10, "%s: readelf printed %zu FDEs", path, nf);
	CHECK(t.fdes >= nf, "%s: %zu FDEs read, readelf prints %zu", path, t.fdes, nf);
	for (i = 0; i < nf; i++) {
		const struct rfde *d = &f[i];

		for (j = 0; j < d->n; j++) {
			const struct ehf_row *got = ehframe_find(&t, d->rows[j].pc);

			checked++;
			if (!got || !row_eq(got, &d->rows[j].want)) {
				if (mism++ < 8) {
					snprintf(ctx, sizeof(ctx), "%s at 0x%" PRIx64 ": got %s, want %s",
						 path, d->rows[j].pc,
						 got ? row_str(got, g, sizeof(g)) : "none",
						 row_str(&d->rows[j].want, w, sizeof(w)));
					CHECK(0, "%s", ctx);
				}
			}
		}
		/* ours inside the FDE: each is readelf's row at its pc */
		for (r = 0; r < t.n && d->n; r++) {
			const struct ehf_row *o = &t.rows[r];
			const struct rrow *want = NULL;

			if (o->pc < d->start || o->pc >= d->end)
				continue;
			for (j = 0; j < d->n && d->rows[j].pc <= o->pc; j++)
				want = &d->rows[j];
			checked++;
			if (!want || !row_eq(o, &want->want)) {
				if (mism++ < 8)
					CHECK(0, "%s: our row at 0x%" PRIx64 " (%s) is not readelf's (%s)",
					      path, o->pc, row_str(o, g, sizeof(g)),
					      want ? row_str(&want->want, w, sizeof(w)) : "none");
			}
		}
		free(f[i].rows);
	}
	CHECK(!mism, "%s: %zu of %zu rows differ from readelf's", path, mism, checked);
	CHECK(checked >= min, "%s: only %zu rows compared", path, checked);
	printf("# %s: %zu FDEs, %zu rows (%zu kept as not walkable), %zu compared\n", path, t.fdes,
	       t.n, t.bad, checked);
	free(f);
	ehframe_free(&t);
	kelf_close(&k);
}

/* .eh_frame: a CIE ("zR", code 1, data -8, ra 16, R = pcrel|sdata4), then an FDE */
static const uint8_t good[] = {
	0x14, 0, 0, 0,  0, 0, 0, 0,  1, 'z', 'R', 0, 1, 0x78, 0x10, 1, 0x1b,
	0x0c, 0x07, 0x08, 0x90, 0x01, 0, 0,
	0x14, 0, 0, 0,  0x1c, 0, 0, 0,  0x10, 0, 0, 0,  0x20, 0, 0, 0,  0,
	0x41, 0x0e, 0x10, 0,
	0, 0, 0, 0,
};

/* bytes as x86-64's section sec at addr into t; msg holds 256 */
static int parse(const uint8_t *b, size_t n, uint64_t addr, enum ehf_sec sec,
		 struct ehf_table *t, char *msg)
{
	return ehframe_parse(b, n, addr, EM_X86_64, sec, t, msg, 256);
}

/* Hostile tables: each refused with the place named, nothing read outside. */
static void check_bad(void)
{
	struct ehf_table t = { 0 };
	const struct ehf_row *r;
	uint8_t b[sizeof(good)];
	char msg[256];
	size_t i;

	CHECK_INT(parse(good, sizeof(good), 0x1000, EHF_EH_FRAME, &t, msg), 0,
		  "a CIE and an FDE");
	/* the FDE's pc: pcrel from its field at 0x1000 + 0x20, plus 0x10 */
	r = ehframe_find(&t, 0x1030);
	CHECK(r && r->cfa == EHF_SP && r->cfa_off == 8 && r->ra_off == -8, "entry row");
	r = ehframe_find(&t, 0x1031);
	CHECK(r && r->cfa == EHF_SP && r->cfa_off == 16, "after advance_loc 1");
	r = ehframe_find(&t, 0x1050);
	CHECK(r && r->cfa == EHF_GAP, "past the FDE's 0x20 bytes");
	ehframe_free(&t);
	memcpy(b, good, sizeof(b));
	b[24] = 0x40;	/* the FDE's length past the section */
	CHECK_INT(parse(b, sizeof(b), 0x1000, EHF_EH_FRAME, &t, msg), -ENOEXEC,
		  "an FDE past the section");
	CHECK(strstr(msg, "0x18"), "the FDE's offset named: %s", msg);
	ehframe_free(&t);
	memcpy(b, good, sizeof(b));
	b[28] = 0x7f;	/* the CIE pointer before the section */
	CHECK_INT(parse(b, sizeof(b), 0x1000, EHF_EH_FRAME, &t, msg), -ENOEXEC,
		  "a CIE pointer before the section");
	ehframe_free(&t);
	memcpy(b, good, sizeof(b));
	b[16] = 0x05;	/* an encoding not known */
	CHECK_INT(parse(b, sizeof(b), 0x1000, EHF_EH_FRAME, &t, msg), -ENOEXEC,
		  "an unknown pointer encoding");
	ehframe_free(&t);
	CHECK_INT(ehframe_parse(good, sizeof(good), 0, EM_PPC64, EHF_EH_FRAME, &t, msg, sizeof(msg)),
		  -EOPNOTSUPP, "another machine");
	/* every prefix: refused or read, never out of bounds (ASan's run) */
	for (i = 0; i < sizeof(good); i++) {
		uint8_t *cut = malloc(i ? i : 1);

		memcpy(cut, good, i);
		parse(cut, i, 0, EHF_EH_FRAME, &t, msg);
		ehframe_free(&t);
		free(cut);
	}
}

/*
 * .debug_frame by hand: a CIE of each form (32-bit DWARF version 1, 64-bit
 * DWARF version 4 with address size 8, version 4 with address size 4), its
 * FDE's rows where the bytes put them; what is refused, named; and after
 * .eh_frame, an FDE of code it covers skipped, one of code it does not read.
 */
static void check_debug(void)
{
	/* CIE: id ~0, version 1, "", code 1, data -8, ra 16 (a byte), def_cfa rsp+8, ra at
	 * cfa-8; FDE: CIE at 0, pc 0x401000 and range 0x20 (8 bytes each), advance 1,
	 * def_cfa_offset 16 */
	static const uint8_t v1[] = {
		0x14, 0, 0, 0,  0xff, 0xff, 0xff, 0xff,  1, 0, 1, 0x78, 0x10,
		0x0c, 0x07, 0x08, 0x90, 0x01, 0, 0, 0, 0, 0, 0,
		0x18, 0, 0, 0,  0, 0, 0, 0,  0x00, 0x10, 0x40, 0, 0, 0, 0, 0,
		0x20, 0, 0, 0, 0, 0, 0, 0,  0x41, 0x0e, 0x10, 0,
	};
	/* the same in 64-bit DWARF: 0xffffffff, an 8-byte length, 8-byte ids; version 4's
	 * address size 8 and segment selector size 0 */
	static const uint8_t v4_64[] = {
		0xff, 0xff, 0xff, 0xff,  0x14, 0, 0, 0, 0, 0, 0, 0,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,  4, 0, 8, 0, 1, 0x78, 0x10,
		0x0c, 0x07, 0x08, 0x90, 0x01,
		0xff, 0xff, 0xff, 0xff,  0x1c, 0, 0, 0, 0, 0, 0, 0,  0, 0, 0, 0, 0, 0, 0, 0,
		0x00, 0x10, 0x40, 0, 0, 0, 0, 0,  0x20, 0, 0, 0, 0, 0, 0, 0,  0x41, 0x0e, 0x10, 0,
	};
	/* version 4, address size 4: the FDE's pc and range in 4 bytes each */
	static const uint8_t v4_32[] = {
		0x10, 0, 0, 0,  0xff, 0xff, 0xff, 0xff,  4, 0, 4, 0, 1, 0x78, 0x10,
		0x0c, 0x07, 0x08, 0x90, 0x01,
		0x10, 0, 0, 0,  0, 0, 0, 0,  0x00, 0x10, 0x40, 0,  0x20, 0, 0, 0,
		0x41, 0x0e, 0x10, 0,
	};
	static const struct { const char *name; const uint8_t *b; size_t n; size_t fde; } forms[] = {
		{ "32-bit DWARF, version 1", v1, sizeof(v1), 0x18 },
		{ "64-bit DWARF, version 4", v4_64, sizeof(v4_64), 0x20 },
		{ "version 4, address size 4", v4_32, sizeof(v4_32), 0x14 },
	};
	struct ehf_table t = { 0 };
	const struct ehf_row *r;
	uint8_t b[sizeof(v4_64)];
	char msg[256];
	size_t f, i;

	for (f = 0; f < sizeof(forms) / sizeof(forms[0]); f++) {
		const char *name = forms[f].name;

		CHECK_INT(parse(forms[f].b, forms[f].n, 0, EHF_DEBUG_FRAME, &t, msg), 0, name);
		CHECK(t.fdes == 1, "%s: %zu FDEs", name, t.fdes);
		r = ehframe_find(&t, 0x401000);
		CHECK(r && r->cfa == EHF_SP && r->cfa_off == 8 && r->ra_off == -8,
		      "%s: the entry row at the absolute pc", name);
		r = ehframe_find(&t, 0x401001);
		CHECK(r && r->cfa == EHF_SP && r->cfa_off == 16, "%s: after advance_loc 1", name);
		r = ehframe_find(&t, 0x401020);
		CHECK(r && r->cfa == EHF_GAP, "%s: past the FDE's 0x20 bytes", name);
		CHECK(!ehframe_find(&t, 0x400fff), "%s: nothing before it", name);
		ehframe_free(&t);
		/* the same bytes as .eh_frame: the CIE's id is no 0 there */
		CHECK_INT(parse(forms[f].b, forms[f].n, 0, EHF_EH_FRAME, &t, msg), -ENOEXEC, name);
		ehframe_free(&t);
		/* every prefix: refused or read, never out of bounds (ASan's run) */
		for (i = 0; i < forms[f].n; i++) {
			memcpy(b, forms[f].b, i);
			parse(b, i, 0, EHF_DEBUG_FRAME, &t, msg);
			ehframe_free(&t);
		}
	}
	memcpy(b, v4_32, sizeof(v4_32));
	b[11] = 1;	/* a segment selector */
	CHECK_INT(parse(b, sizeof(v4_32), 0, EHF_DEBUG_FRAME, &t, msg), -ENOEXEC,
		  "a segment selector size of 1");
	CHECK(strstr(msg, ".debug_frame: the CIE at 0x0 has address size 4 and segment selector "
		     "size 1"), "the CIE and its sizes named: %s", msg);
	ehframe_free(&t);
	memcpy(b, v1, sizeof(v1));
	b[28] = 0x40;	/* the CIE pointer (an offset from the start) past the section */
	CHECK_INT(parse(b, sizeof(v1), 0, EHF_DEBUG_FRAME, &t, msg), -ENOEXEC, "a CIE out");
	CHECK(strstr(msg, ".debug_frame: the FDE at 0x18 points outside"), "%s", msg);
	ehframe_free(&t);
	b[28] = 0x18;	/* the FDE itself */
	CHECK_INT(parse(b, sizeof(v1), 0, EHF_DEBUG_FRAME, &t, msg), -ENOEXEC, "an FDE as CIE");
	CHECK(strstr(msg, "the FDE at 0x18 has no CIE at 0x18"), "%s", msg);
	ehframe_free(&t);

	/* after .eh_frame's FDE (0x1030..0x1050): .debug_frame's of 0x1040..0x1060 skipped,
	 * of 0x401000 read */
	memcpy(b, v1, sizeof(v1));
	CHECK_INT(parse(good, sizeof(good), 0x1000, EHF_EH_FRAME, &t, msg), 0, ".eh_frame first");
	b[32] = 0x40;
	b[33] = 0x10;
	b[34] = 0;
	CHECK_INT(parse(b, sizeof(v1), 0, EHF_DEBUG_FRAME, &t, msg), 0, "then .debug_frame");
	r = ehframe_find(&t, 0x1040);
	CHECK(r && r->cfa == EHF_SP && r->cfa_off == 16, "0x1040 is .eh_frame's row (sp+16)");
	r = ehframe_find(&t, 0x1050);
	CHECK(r && r->cfa == EHF_GAP, "0x1050: .eh_frame's end, no .debug_frame row after it");
	CHECK(t.fdes == 1, "the overlapping FDE skipped (%zu FDEs)", t.fdes);
	ehframe_free(&t);
	CHECK_INT(parse(good, sizeof(good), 0x1000, EHF_EH_FRAME, &t, msg), 0, ".eh_frame first");
	CHECK_INT(parse(v1, sizeof(v1), 0, EHF_DEBUG_FRAME, &t, msg), 0, "then .debug_frame");
	r = ehframe_find(&t, 0x401001);
	CHECK(t.fdes == 2 && r && r->cfa == EHF_SP && r->cfa_off == 16,
	      "an FDE of code .eh_frame lacks read (%zu FDEs)", t.fdes);
	r = ehframe_find(&t, 0x1031);
	CHECK(r && r->cfa == EHF_SP && r->cfa_off == 16, ".eh_frame's rows kept");
	ehframe_free(&t);
}

/* tests/host/unwind_target.c for aarch64 with return addresses signed: rows as readelf's */
static void check_arm64_pac(void)
{
	char tgt[] = "/tmp/kpt_ehframe_XXXXXX", cmd[512];
	int fd = mkstemp(tgt);

	if (fd < 0)
		return;
	close(fd);
	snprintf(cmd, sizeof(cmd),
		 "aarch64-linux-gnu-gcc -O2 -fomit-frame-pointer -mbranch-protection=standard "
		 "-static tests/host/unwind_target.c -o %s", tgt);
	if (system(cmd)) {
		CHECK(0, "cannot build tests/host/unwind_target.c for aarch64 (gcc-aarch64-linux-gnu, "
		      "libc6-dev-arm64-cross: make deps): %s", cmd);
	} else {
		snprintf(cmd, sizeof(cmd),
			 "readelf --debug-dump=frames %s | grep -q AARCH64_negate_ra_state", tgt);
		CHECK(!system(cmd), "%s: readelf finds no DW_CFA_AARCH64_negate_ra_state", tgt);
		check_file(tgt, 1000, false);
	}
	unlink(tgt);
}

int main(void)
{
	char self[4096], tgt[] = "/tmp/kpt_ehframe_XXXXXX", cmd[640];
	ssize_t n;
	int fd;

	check_bad();
	check_debug();
	check_file("/bin/bash", 1000, false);
	check_file("/lib/x86_64-linux-gnu/libc.so.6", 1000, false);
	check_file("/lib64/ld-linux-x86-64.so.2", 1000, false);
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = 0;
		check_file(self, 1000, false);
	}
	fd = mkstemp(tgt);
	if (fd >= 0) {
		close(fd);
		snprintf(cmd, sizeof(cmd),
			 "cc -O2 -fomit-frame-pointer tests/host/unwind_target.c -o %s", tgt);
		if (!system(cmd))
			check_file(tgt, 30, false);
		else
			CHECK(0, "cannot build tests/host/unwind_target.c: %s", cmd);
		/* without .eh_frame for its code: .debug_frame, then a debug file's
		 * (compressed, as Debian's are) */
		snprintf(cmd, sizeof(cmd),
			 "cc -O2 -fomit-frame-pointer -fno-asynchronous-unwind-tables -g "
			 "tests/host/unwind_target.c -o %s && objcopy --only-keep-debug "
			 "--compress-debug-sections %s %s.debug", tgt, tgt, tgt);
		if (!system(cmd)) {
			check_file(tgt, 30, true);
			snprintf(cmd, sizeof(cmd), "%s.debug", tgt);
			check_file(cmd, 30, true);
			unlink(cmd);
		} else {
			CHECK(0, "cannot build tests/host/unwind_target.c: %s", cmd);
		}
		unlink(tgt);
	}
	check_arm64_pac();
	return check_report();
}
