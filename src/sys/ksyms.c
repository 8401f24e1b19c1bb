// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Kernel symbols from /proc/kallsyms, looked up the way the kernel's own
 * kallsyms does, so that "%pS" printed here matches the trace file.
 *
 * Memory: one array of struct ksym sorted by address, one string arena for
 * every name and module name (the file buffer itself, compacted in place),
 * and one open-addressing hash of 32-bit indices for lookups by name.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sys/ksyms.h"
#include "util/fmt.h"
#include "util/hash.h"

#define KSYM_NAME_MAX	512	/* the kernel's KSYM_NAME_LEN */
#define NO_OFF		UINT32_MAX

struct ksyms {
	struct ksym *syms;	/* sorted by address, file order among equal addresses */
	size_t n;
	char *arena;		/* NUL-terminated names and module names */
	uint32_t *hash;		/* index + 1 into syms, 0 = empty slot */
	size_t hmask;
	/*
	 * Where the kernel's is_ksym_addr() looks: [_stext, _end) with
	 * CONFIG_KALLSYMS_ALL (then _end is listed), else [_stext, _etext) and
	 * [_sinittext, _einittext). 0 when unknown (a file without them).
	 */
	uint64_t text_lo, text_hi, init_lo, init_hi;
	bool hidden;
	struct ksyms *older;	/* ksyms_reload()'s earlier tables, freed with this one */
};

/* Read a whole file; /proc files report size 0, so grow as we go. */
static char *slurp(const char *path, size_t *lenp)
{
	size_t cap = 1 << 20, len = 0;
	struct stat st;
	char *buf, *nb;
	ssize_t r;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (!fstat(fd, &st) && st.st_size > 0)
		cap = (size_t)st.st_size + 1;
	buf = malloc(cap);
	if (!buf)
		goto fail;
	for (;;) {
		if (cap - len < 2) {
			nb = realloc(buf, cap * 2);
			if (!nb)
				goto fail;
			buf = nb;
			cap *= 2;
		}
		r = read(fd, buf + len, cap - len - 1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			goto fail;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	buf[len] = '\0';
	*lenp = len;
	return buf;
fail:
	err = errno;
	free(buf);
	close(fd);
	errno = err;
	return NULL;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/*
 * While loading, name and module hold arena offsets (cast to pointers) so the
 * arena can be shrunk with realloc; ksyms_load() then makes them pointers.
 */
static inline uint32_t off_of(const char *p)
{
	return (uint32_t)(uintptr_t)p;
}

static inline const char *off_ptr(uint32_t off)
{
	return (const char *)(uintptr_t)off;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/*
	 * Names were written to the arena in file order, so their offsets keep
	 * the sort stable: the first symbol listed at an address is the one the
	 * kernel's lookups pick (scripts/kallsyms orders aliases by preference).
	 */
	return off_of(x->name) < off_of(y->name) ? -1 : 1;
}

/*
 * ELF mapping symbols ($x and $d on arm64; .L and L0 locals): 6.1's
 * /proc/kallsyms lists a module's, but the kernel's module lookups skip them
 * (is_mapping_symbol()), so etn_write+0x0 would print as $x+0x0.
 */
static bool mapping_symbol(const char *name)
{
	return name[0] == '$' || (name[0] == '.' && name[1] == 'L') ||
	       (name[0] == 'L' && name[1] == '0');
}

/*
 * Parse "addr type name[\t[module]]" lines in place. Names are copied to the
 * front of the same buffer (the write point never passes the read point,
 * since every line is longer than what is kept of it).
 */
static int parse(struct ksyms *ks, char *buf, size_t len, size_t *arena_len)
{
	uint32_t mods[256], nmods = 0, last_mod = NO_OFF;
	char *p = buf, *end = buf + len, *w = buf;
	size_t nlines = 0, n = 0, i;
	const char *q;

	for (q = buf; q < end; q++)
		nlines += *q == '\n';
	ks->syms = malloc((nlines + 1) * sizeof(*ks->syms));
	if (!ks->syms)
		return -ENOMEM;

	while (p < end) {
		char *eol = memchr(p, '\n', (size_t)(end - p));
		char *name, *mod = NULL, type;
		size_t nlen, mlen = 0;
		uint64_t addr = 0;
		uint32_t moff = NO_OFF;
		int d, digits = 0;

		if (!eol)
			eol = end;
		*eol = '\0';
		while ((d = hexval(*p)) >= 0) {
			addr = addr << 4 | (uint64_t)d;
			p++;
			digits++;
		}
		if (!digits || *p != ' ' || !p[1] || p[2] != ' ')
			goto next;
		type = p[1];
		name = p + 3;
		for (q = name; *q && *q != ' ' && *q != '\t'; q++)
			;
		nlen = (size_t)(q - name);
		if (!nlen || nlen >= KSYM_NAME_MAX)
			goto next;
		while (*q == ' ' || *q == '\t')
			q++;
		if (*q == '[') {
			mod = (char *)q + 1;
			for (q = mod; *q && *q != ']'; q++)
				;
			mlen = (size_t)(q - mod);
			if (*q != ']' || !mlen)
				goto next;
			/*
			 * Trampolines listed as [__builtin__ftrace] or
			 * [__builtin__kprobes] are not found by the kernel's
			 * %pS either: leave them out.
			 */
			if (mlen >= 11 && !strncmp(mod, "__builtin__", 11))
				goto next;
			if (mapping_symbol(name))
				goto next;
		}
		if (mod) {
			if (last_mod != NO_OFF && strlen(buf + last_mod) == mlen &&
			    !memcmp(buf + last_mod, mod, mlen)) {
				moff = last_mod;
			} else {
				for (i = 0; i < nmods; i++) {
					if (strlen(buf + mods[i]) == mlen &&
					    !memcmp(buf + mods[i], mod, mlen)) {
						moff = mods[i];
						break;
					}
				}
			}
		}
		/* name first: its offset is the sort tie-breaker */
		memmove(w, name, nlen);
		w[nlen] = '\0';
		ks->syms[n].name = off_ptr((uint32_t)(w - buf));
		w += nlen + 1;
		if (mod && moff == NO_OFF) {
			memmove(w, mod, mlen);
			w[mlen] = '\0';
			moff = (uint32_t)(w - buf);
			w += mlen + 1;
			if (nmods < sizeof(mods) / sizeof(mods[0]))
				mods[nmods++] = moff;
		}
		if (mod)
			last_mod = moff;
		ks->syms[n].module = moff == NO_OFF ? NULL : off_ptr(moff);
		ks->syms[n].addr = addr;
		ks->syms[n].size = 0;
		ks->syms[n].type = type;
		n++;
next:
		p = eol + 1;
	}
	ks->n = n;
	*arena_len = (size_t)(w - buf);
	return 0;
}

/*
 * Sizes as the kernel computes them: up to the next symbol at a different
 * address. Module symbols (find_kallsyms_symbol) only see their own module;
 * where the next symbol belongs elsewhere the module's text end is unknown
 * here, and size stays 0.
 */
static void compute_sizes(struct ksyms *ks)
{
	size_t i = 0, j;

	while (i < ks->n) {
		j = i + 1;
		while (j < ks->n && ks->syms[j].addr == ks->syms[i].addr)
			j++;
		if (j < ks->n) {
			const struct ksym *nx = &ks->syms[j];
			uint64_t size = nx->addr - ks->syms[i].addr;
			size_t k;

			for (k = i; k < j; k++)
				if (ks->syms[k].module == nx->module)
					ks->syms[k].size = size;
		}
		i = j;
	}
}

/*
 * Not util/htab.h: a name may have several symbols (static functions of one
 * name, all found in address order), and kallsyms's ~200k entries cost one
 * array of indices here, no allocation each.
 */
static int build_hash(struct ksyms *ks)
{
	size_t cap = 16, i, h;

	while (cap < ks->n * 2)
		cap <<= 1;
	ks->hash = calloc(cap, sizeof(*ks->hash));
	if (!ks->hash)
		return -ENOMEM;
	ks->hmask = cap - 1;
	/* in address order, so the first match found is the lowest address */
	for (i = 0; i < ks->n; i++) {
		h = kpt_hash_str(ks->syms[i].name) & ks->hmask;
		while (ks->hash[h])
			h = (h + 1) & ks->hmask;
		ks->hash[h] = (uint32_t)i + 1;
	}
	return 0;
}

static uint64_t core_addr(const struct ksyms *ks, const char *name)
{
	const struct ksym *s = ksyms_by_name(ks, name, NULL);

	return s && !s->module ? s->addr : 0;
}

static void core_ranges(struct ksyms *ks)
{
	ks->text_lo = core_addr(ks, "_stext");
	ks->text_hi = core_addr(ks, "_end");
	if (!ks->text_hi) {
		ks->text_hi = core_addr(ks, "_etext");
		ks->init_lo = core_addr(ks, "_sinittext");
		ks->init_hi = core_addr(ks, "_einittext");
	}
	if (!ks->text_lo || ks->text_hi <= ks->text_lo)
		ks->text_lo = ks->text_hi = 0;
	if (!ks->text_hi || ks->init_hi <= ks->init_lo)
		ks->init_lo = ks->init_hi = 0;
}

static bool in_core(const struct ksyms *ks, uint64_t addr)
{
	if (!ks->text_hi)
		return true;	/* no bounds known: trust the sizes alone */
	return (addr >= ks->text_lo && addr < ks->text_hi) ||
	       (addr >= ks->init_lo && addr < ks->init_hi);
}

struct ksyms *ksyms_load(const char *path)
{
	size_t len, arena_len, i;
	struct ksyms *ks;
	char *buf, *nb;
	int err;

	buf = slurp(path ? path : "/proc/kallsyms", &len);
	if (!buf)
		return NULL;
	ks = calloc(1, sizeof(*ks));
	if (!ks) {
		free(buf);
		errno = ENOMEM;
		return NULL;
	}
	/* arena offsets are 32-bit while loading */
	err = len < UINT32_MAX ? parse(ks, buf, len, &arena_len) : -EFBIG;
	if (err)
		goto fail;
	nb = realloc(buf, arena_len ? arena_len : 1);
	if (nb)
		buf = nb;
	ks->arena = buf;
	buf = NULL;

	/* the core kernel comes sorted; only modules usually need it */
	for (i = 1; i < ks->n; i++)
		if (ks->syms[i - 1].addr > ks->syms[i].addr)
			break;
	if (i < ks->n)
		qsort(ks->syms, ks->n, sizeof(*ks->syms), cmp_sym);
	ks->hidden = true;
	for (i = 0; i < ks->n; i++) {
		struct ksym *k = &ks->syms[i];

		k->name = ks->arena + off_of(k->name);
		if (k->module)
			k->module = ks->arena + off_of(k->module);
		if (k->addr)
			ks->hidden = false;
	}
	compute_sizes(ks);
	err = build_hash(ks);
	if (err)
		goto fail;

	core_ranges(ks);
	return ks;
fail:
	free(buf);
	ksyms_free(ks);
	errno = -err;
	return NULL;
}

int ksyms_reload(struct ksyms *ks, const char *path)
{
	struct ksyms *fresh = ksyms_load(path), tmp;

	if (!fresh)
		return -errno;
	/*
	 * The object stays where every holder points; its old tables go to
	 * the fresh chain's end, kept: a struct ksym or a name taken from them
	 * stays good until ksyms_free(). A module's load is rare: a few MB each.
	 */
	tmp = *ks;
	*ks = *fresh;
	*fresh = tmp;		/* the old tables, with their own older ones */
	ks->older = fresh;
	return 0;
}

void ksyms_free(struct ksyms *ks)
{
	if (!ks)
		return;
	ksyms_free(ks->older);
	free(ks->syms);
	free(ks->arena);
	free(ks->hash);
	free(ks);
}

bool ksyms_hidden(const struct ksyms *ks)
{
	return !ks || ks->hidden;
}

bool ksym_kretprobe_trampoline(const struct ksym *s, uint64_t addr)
{
	return s && s->addr == addr && !s->module &&
	       (!strcmp(s->name, "__kretprobe_trampoline") ||
		!strcmp(s->name, "kretprobe_trampoline") ||
		!strcmp(s->name, "arch_rethook_trampoline"));
}

const struct ksym *ksyms_by_addr(const struct ksyms *ks, uint64_t addr)
{
	size_t lo = 0, hi, mid;
	const struct ksym *s;

	if (!ks || ks->hidden || !ks->n || addr < ks->syms[0].addr)
		return NULL;
	/* last symbol with s->addr <= addr */
	hi = ks->n;
	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (ks->syms[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	/* among aliases the first listed wins, as in the kernel's get_symbol_pos() */
	while (lo && ks->syms[lo - 1].addr == ks->syms[lo].addr)
		lo--;
	s = &ks->syms[lo];
	/*
	 * The core kernel only answers inside its text (is_ksym_addr()):
	 * per-cpu offsets sit below it and must not swallow user addresses.
	 */
	if (!s->module && !in_core(ks, addr))
		return NULL;
	if (s->size ? addr - s->addr >= s->size : addr != s->addr)
		return NULL;
	return s;
}

size_t ksyms_count(const struct ksyms *ks)
{
	return ks ? ks->n : 0;
}

const struct ksym *ksyms_at(const struct ksyms *ks, size_t i)
{
	return ks && i < ks->n ? &ks->syms[i] : NULL;
}

const struct ksym *ksyms_by_name(const struct ksyms *ks, const char *name, const char *mod)
{
	const struct ksym *first_mod = NULL, *s;
	size_t h;

	if (!ks || !ks->hash || !name)
		return NULL;
	h = kpt_hash_str(name) & ks->hmask;
	for (; ks->hash[h]; h = (h + 1) & ks->hmask) {
		s = &ks->syms[ks->hash[h] - 1];
		if (strcmp(s->name, name))
			continue;
		if (mod) {
			if (s->module && !strcmp(s->module, mod))
				return s;
			continue;
		}
		/* like kallsyms_lookup_name(): the core kernel before modules */
		if (!s->module)
			return s;
		if (!first_mod)
			first_mod = s;
	}
	return first_mod;
}

size_t ksyms_count_name(const struct ksyms *ks, const char *name, const char *mod)
{
	const struct ksym *s;
	size_t h, n = 0;

	if (!ks || !ks->hash || !name)
		return 0;
	for (h = kpt_hash_str(name) & ks->hmask; ks->hash[h]; h = (h + 1) & ks->hmask) {
		s = &ks->syms[ks->hash[h] - 1];
		if (strcmp(s->name, name))
			continue;
		if (mod ? s->module && !strcmp(s->module, mod) : !s->module || strcmp(s->module, "bpf"))
			n++;
	}
	return n;
}

bool ksyms_has_module(const struct ksyms *ks, const char *mod)
{
	size_t i, k;

	for (i = 0; i < ks->n; i++) {
		const char *m = ks->syms[i].module;

		/* kallsyms writes '_' where the module's file name may have '-' */
		for (k = 0; m && m[k] && (m[k] == mod[k] || (m[k] == '_' && mod[k] == '-')); k++)
			;
		if (m && !m[k] && !mod[k])
			return true;
	}
	return false;
}

/* JITed BPF programs resolve with no module name (bpf_address_lookup()). */
static const char *mod_suffix(const struct ksym *s)
{
	if (!s->module || !strcmp(s->module, "bpf"))
		return NULL;
	return s->module;
}

/* Append n bytes of s at buf[*pos] as snprintf() would: never past len - 1 bytes. */
static void put_trunc(char *buf, size_t len, size_t *pos, const char *s, size_t n)
{
	size_t room = len - 1 - *pos;

	if (n > room)
		n = room;
	memcpy(buf + *pos, s, n);
	*pos += n;
}

/*
 * By hand rather than snprintf(): every kprobe line goes through here (see
 * fmt.h). The result is what "%s+0x%llx/0x%llx [%s]" gave, truncated alike.
 */
char *ksyms_format(const struct ksyms *ks, uint64_t addr, bool with_offset, char *buf, size_t len)
{
	const struct ksym *s = ksyms_by_addr(ks, addr);
	char num[2 * FMT_NUM_MAX + 8], *p = num;
	const char *mod;
	size_t pos = 0;

	if (!len)
		return buf;
	if (!s) {
		/* __sprint_symbol(): "0x%lx", no padding */
		memcpy(p, "0x", 2);
		p = fmt_x64(p + 2, addr);
		put_trunc(buf, len, &pos, num, (size_t)(p - num));
		buf[pos] = '\0';
		return buf;
	}
	mod = mod_suffix(s);
	put_trunc(buf, len, &pos, s->name, strlen(s->name));
	if (with_offset) {
		/* The kernel's "%#lx" prints 0 as "0x0", unlike the C library's. */
		memcpy(p, "+0x", 3);
		p = fmt_x64(p + 3, addr - s->addr);
		if (s->size) {
			memcpy(p, "/0x", 3);
			p = fmt_x64(p + 3, s->size);
		}
		put_trunc(buf, len, &pos, num, (size_t)(p - num));
	}
	if (mod) {
		put_trunc(buf, len, &pos, " [", 2);
		put_trunc(buf, len, &pos, mod, strlen(mod));
		put_trunc(buf, len, &pos, "]", 1);
	}
	buf[pos] = '\0';
	return buf;
}
