// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The job file of kptrace serve (jobs.h): lines, names, sh-like words. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lang/lex.h"
#include "serve/jobs.h"

static const char *const job_modes[] = { "hist", "latency", "count" };

/* ---- characters: columns count UTF-8 characters, so must the carets ---- */

/*
 * The length of the valid UTF-8 sequence at s (1 for ASCII), 0 if none
 * starts there (RFC 3629: no overlong forms, surrogates or past U+10FFFF).
 * Reads no further than a byte that is not a continuation one, so never
 * past a NUL.
 */
static int utf8_len(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	unsigned char lo = 0x80, hi = 0xbf;
	int n, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		lo = s[0] == 0xe0 ? 0xa0 : 0x80;
		hi = s[0] == 0xed ? 0x9f : 0xbf;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		lo = s[0] == 0xf0 ? 0x90 : 0x80;
		hi = s[0] == 0xf4 ? 0x8f : 0xbf;
	} else {
		return 0;
	}
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

/* The bytes of the character at s: a byte of invalid UTF-8 is one character. */
static int char_step(const char *s)
{
	int n = utf8_len(s);

	return n ? n : 1;
}

/* Whether the character at s prints as itself: control bytes would move the cursor. */
static bool printable(const char *s)
{
	unsigned char c = s[0];
	int n = utf8_len(s);

	if (n == 1)
		return c == '\t' || (c >= 0x20 && c != 0x7f);
	/* U+0080..U+009F, the C1 controls, are 0xc2 0x80..0x9f */
	return n > 1 && !(c == 0xc2 && (unsigned char)s[1] < 0xa0);
}

/* ---- messages: snprintf()'s truncation, appended piece by piece ---- */

struct sbuf {
	char *s;
	size_t cap, n;
};

static void sb_putn(struct sbuf *b, const char *s, size_t n)
{
	if (!b->cap)
		return;
	if (n > b->cap - 1 - b->n)
		n = b->cap - 1 - b->n;
	memcpy(b->s + b->n, s, n);
	b->n += n;
	b->s[b->n] = '\0';
}

static void sb_puts(struct sbuf *b, const char *s)
{
	sb_putn(b, s, strlen(s));
}

__attribute__((format(printf, 2, 3))) static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int r;

	if (!b->cap)
		return;
	va_start(ap, fmt);
	r = vsnprintf(b->s + b->n, b->cap - b->n, fmt, ap);
	va_end(ap);
	if (r > 0)
		b->n = b->n + r < b->cap ? b->n + r : b->cap - 1;
}

/*
 * line (len bytes, a NUL after them) and a caret under column col, each
 * indented by two as spec_print_diag() does, with its look: a '?' for a
 * byte that would move the cursor, tabs echoed under tabs. Past JOBS_SHOW_MAX
 * characters only the part around col is shown, "..." where it is cut.
 */
static void put_line(struct sbuf *b, const char *line, size_t len, int col)
{
	size_t i, k, nch = 0, first = 0, last, at;
	int n;

	for (i = 0; i < len; i += char_step(line + i))
		nch++;
	/* the caret's character: col - 1, at most one past the last */
	at = col < 1 ? 0 : (size_t)col - 1;
	if (at > nch)
		at = nch;
	last = nch;
	if (nch > JOBS_SHOW_MAX) {
		first = at > JOBS_SHOW_MAX / 2 ? at - JOBS_SHOW_MAX / 2 : 0;
		if (first > nch - JOBS_SHOW_MAX)
			first = nch - JOBS_SHOW_MAX;
		last = first + JOBS_SHOW_MAX;
	}
	sb_puts(b, first ? "  ..." : "  ");
	for (i = 0, k = 0; i < len && k < last; i += n, k++) {
		n = char_step(line + i);
		if (k < first)
			continue;
		if (printable(line + i))
			sb_putn(b, line + i, n);
		else
			sb_putn(b, "?", 1);
	}
	sb_puts(b, last < nch ? "...\n  " : "\n  ");
	if (first)
		sb_puts(b, "   ");
	for (i = 0, k = 0; i < len && k < at; i += char_step(line + i), k++)
		if (k >= first)
			sb_putn(b, line[i] == '\t' ? "\t" : " ", 1);
	sb_puts(b, "^\n");
}

/* "PATH:LINE:COL: error: WHAT", then the line with a caret: the message of every error. */
static void put_error(char *msg, size_t msglen, const char *path, int lineno, const char *line,
		      size_t len, int col, const char *what)
{
	struct sbuf b = { .s = msg, .cap = msglen };

	if (msglen)
		msg[0] = '\0';
	sb_printf(&b, "%s:%d:%d: error: %s\n", path, lineno, col, what);
	if (line)
		put_line(&b, line, len, col);
}

/* The character at s as text for a message (buf: 5 bytes), "?" for what would not print. */
static const char *char_text(char *buf, const char *s)
{
	int n = char_step(s);

	if (!printable(s) || *s == '\t')
		return "?";
	memcpy(buf, s, n);
	buf[n] = '\0';
	return buf;
}

/* A word for a message: at most 32 characters, a '?' for what would not print. */
static void put_word(char *buf, size_t size, const char *w)
{
	struct sbuf b = { .s = buf, .cap = size };
	char c[5];
	int k;

	buf[0] = '\0';
	for (k = 0; *w && k < 32; k++, w += char_step(w))
		sb_puts(&b, char_text(c, w));
	if (*w)
		sb_puts(&b, "...");
}

/* ---- the parser ---- */

struct parser {
	struct jobfile *jf;
	size_t *llen;		/* each line's bytes, NULs in it included */
	char *msg;
	size_t msglen;
	int jcap;		/* room in jf->jobs */
	/* where the parse is: p in line li, at column col */
	int li;
	const char *p;
	int col;
	/* the job being read: its words so far, and the word being read */
	char *words[JOB_WORDS_MAX];
	int wcol[JOB_WORDS_MAX];
	int wline[JOB_WORDS_MAX];
	int nw;
	char *w;
	size_t wn, wcap;
};

__attribute__((format(printf, 4, 5))) static int fail(struct parser *ps, int li, int col,
						       const char *fmt, ...)
{
	char what[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	put_error(ps->msg, ps->msglen, ps->jf->path, li + 1, ps->jf->lines[li], ps->llen[li], col,
		  what);
	return -EINVAL;
}

/* Column of the character holding byte off of line li. */
static int col_of(const struct parser *ps, int li, size_t off)
{
	const char *line = ps->jf->lines[li];
	size_t i;
	int col = 0;

	for (i = 0; i <= off && i < ps->llen[li]; i += char_step(line + i))
		col++;
	return col ? col : 1;
}

/*
 * What makes line li no line of a job file, at the first byte in error:
 * the tokenizer reads lines as C strings, so this comes before it does.
 */
static int check_line(struct parser *ps, int li)
{
	const char *nul = memchr(ps->jf->lines[li], '\0', ps->llen[li]);
	size_t off = nul ? (size_t)(nul - ps->jf->lines[li]) : ps->llen[li];

	if (off < JOBS_LINE_MAX && nul)
		return fail(ps, li, col_of(ps, li, off), "NUL byte: a job file is text");
	if (ps->llen[li] > JOBS_LINE_MAX)
		return fail(ps, li, col_of(ps, li, JOBS_LINE_MAX),
			    "line longer than %d bytes: split it with a '\\' ending a line",
			    JOBS_LINE_MAX);
	return 0;
}

static void advance(struct parser *ps)
{
	ps->p += char_step(ps->p);
	ps->col++;
}

static void skip_blanks(struct parser *ps)
{
	while (*ps->p == ' ' || *ps->p == '\t')
		advance(ps);
}

/* Onto the next line, for a continuation: the '\' at ps->p ends this one. */
static int next_line(struct parser *ps)
{
	if (ps->li + 1 >= ps->jf->nlines)
		return fail(ps, ps->li, ps->col,
			    "'\\' at the end of the file continues no line: remove it");
	ps->li++;
	ps->p = ps->jf->lines[ps->li];
	ps->col = 1;
	return check_line(ps, ps->li);
}

static int word_putn(struct parser *ps, const char *s, size_t n)
{
	if (ps->wn + n + 1 > ps->wcap) {
		size_t cap = ps->wcap ? ps->wcap : 64;
		char *w;

		while (cap < ps->wn + n + 1)
			cap *= 2;
		w = realloc(ps->w, cap);
		if (!w)
			return -ENOMEM;
		ps->w = w;
		ps->wcap = cap;
	}
	memcpy(ps->w + ps->wn, s, n);
	ps->wn += n;
	ps->w[ps->wn] = '\0';
	return 0;
}

/* The character at ps->p into the word, and past it. */
static int take(struct parser *ps)
{
	int ret = word_putn(ps, ps->p, char_step(ps->p));

	advance(ps);
	return ret;
}

/* '...' at ps->p: all of it literally, on this line. */
static int single_quoted(struct parser *ps)
{
	const char *end = strchr(ps->p + 1, '\'');
	int qcol = ps->col, ret;

	if (!end) {
		size_t n = strlen(ps->p);

		return fail(ps, ps->li, qcol, "unterminated quote: close it on this line%s",
			    n > 1 && ps->p[n - 1] == '\\' ?
			    " ('\\' is literal in '...' and continues no line)" : "");
	}
	advance(ps);
	while (ps->p < end) {
		ret = take(ps);
		if (ret)
			return ret;
	}
	advance(ps);
	return 0;
}

/* "..." at ps->p: \" \\ \$ \` escape, a '\' ending a line continues it. */
static int double_quoted(struct parser *ps)
{
	int qli = ps->li, qcol = ps->col, ret = 0;

	advance(ps);
	while (!ret && *ps->p != '"') {
		if (!*ps->p)
			return fail(ps, qli, qcol, "unterminated quote: close it on this line, or "
				    "continue the line with a '\\' ending it");
		if (*ps->p != '\\') {
			ret = take(ps);
		} else if (!ps->p[1]) {
			ret = next_line(ps);
		} else if (strchr("\"\\$`", ps->p[1])) {
			advance(ps);
			ret = take(ps);
		} else {
			/* as in sh: any other backslash is itself */
			ret = take(ps);
		}
	}
	if (!ret)
		advance(ps);
	return ret;
}

/* One word from ps->p, a non-blank character that starts no comment, into ps->w. */
static int read_word(struct parser *ps)
{
	int ret;

	ps->wn = 0;
	ret = word_putn(ps, "", 0);
	while (!ret && *ps->p && *ps->p != ' ' && *ps->p != '\t') {
		switch (*ps->p) {
		case '\'':
			ret = single_quoted(ps);
			break;
		case '"':
			ret = double_quoted(ps);
			break;
		case '\\':
			if (!ps->p[1]) {
				/* joined where it stands: "ab\" then "cd" is abcd */
				ret = next_line(ps);
				break;
			}
			advance(ps);
			ret = take(ps);
			break;
		default:
			ret = take(ps);
		}
	}
	return ret;
}

/* Word 0 names the mode; serve exports aggregations only. */
static int check_mode(struct parser *ps)
{
	char shown[160];
	size_t m;

	for (m = 0; m < sizeof(job_modes) / sizeof(job_modes[0]); m++)
		if (!strcmp(ps->words[0], job_modes[m]))
			return 0;
	if (!strcmp(ps->words[0], "trace"))
		return fail(ps, ps->wline[0] - 1, ps->wcol[0], "trace mode prints events and "
			    "exports nothing: a job is hist, latency or count");
	put_word(shown, sizeof(shown), ps->words[0]);
	return fail(ps, ps->wline[0] - 1, ps->wcol[0],
		    "'%s' is not a mode serve runs: a job is hist, latency or count", shown);
}

/* The words after a job's colon, up to the line that ends without a continuation. */
static int read_words(struct parser *ps)
{
	int ret;

	for (;;) {
		skip_blanks(ps);
		if (!*ps->p || *ps->p == '#')
			return 0;
		if (*ps->p == '\\' && !ps->p[1]) {
			ret = next_line(ps);
			if (ret)
				return ret;
			continue;
		}
		if (ps->nw == JOB_WORDS_MAX)
			return fail(ps, ps->li, ps->col, "more than %d words in one job",
				    JOB_WORDS_MAX);
		ps->wline[ps->nw] = ps->li + 1;
		ps->wcol[ps->nw] = ps->col;
		ret = read_word(ps);
		if (ret)
			return ret;
		ps->words[ps->nw] = strdup(ps->w);
		if (!ps->words[ps->nw])
			return -ENOMEM;
		ps->nw++;
		if (ps->nw == 1) {
			ret = check_mode(ps);
			if (ret)
				return ret;
		}
	}
}

/* NAME ':' at ps->p, into j: the checks in the order of their columns. */
static int read_name(struct parser *ps, struct job *j)
{
	const char *s = ps->p, *q = s;
	int col = ps->col, i;
	char c[5];
	size_t n;

	if (*s == ':')
		return fail(ps, ps->li, col, "a job needs a name before ':'");
	if (!is_alpha(*s) && *s != '_')
		return fail(ps, ps->li, col, "a job name starts with a letter or '_', not '%s'",
			    char_text(c, s));
	while (is_alnum(*q) || *q == '_')
		q++;
	n = q - s;
	if (n > JOB_NAME_MAX)
		return fail(ps, ps->li, col + JOB_NAME_MAX, "job name longer than %d characters",
			    JOB_NAME_MAX);
	if (*q == ' ' || *q == '\t' || !*q)
		return fail(ps, ps->li, col + (int)n, "no ':' after the job name '%.*s' (a job is "
			    "NAME: ARGS...)", (int)n, s);
	if (*q != ':')
		return fail(ps, ps->li, col + (int)n, "'%s' cannot be in a job name (letters, "
			    "digits and '_' only)", char_text(c, q));
	if (ps->jf->n == JOBS_MAX)
		return fail(ps, ps->li, col, "more than %d jobs in one file", JOBS_MAX);
	memcpy(j->name, s, n);
	j->name[n] = '\0';
	for (i = 0; i < ps->jf->n; i++)
		if (!strcmp(ps->jf->jobs[i].name, j->name))
			return fail(ps, ps->li, col, "job '%s' is already defined on line %d",
				    j->name, ps->jf->jobs[i].line);
	j->line = ps->li + 1;
	ps->p = q + 1;
	ps->col = col + (int)n + 1;
	return 0;
}

static void job_free(struct job *j)
{
	int i;

	for (i = 0; j->argv && i < j->argc; i++)
		free(j->argv[i]);
	free(j->argv);
	free(j->col);
	free(j->wline);
	memset(j, 0, sizeof(*j));
}

/* The job whose name is at ps->p, to the end of its last line, appended to ps->jf. */
static int read_job(struct parser *ps)
{
	struct job j = {}, *jobs;
	int ret, i, li, col;

	ret = read_name(ps, &j);
	if (ret)
		return ret;
	li = ps->li;
	col = ps->col;
	ret = read_words(ps);
	if (ret)
		return ret;
	if (!ps->nw)
		return fail(ps, li, col, "job '%s' has no command: give hist, latency or count "
			    "and its arguments", j.name);
	if (ps->jf->n == ps->jcap) {
		int cap = ps->jcap ? ps->jcap * 2 : 16;

		jobs = realloc(ps->jf->jobs, cap * sizeof(*jobs));
		if (!jobs)
			return -ENOMEM;
		ps->jf->jobs = jobs;
		ps->jcap = cap;
	}
	j.argv = calloc(ps->nw + 1, sizeof(*j.argv));
	j.col = calloc(ps->nw, sizeof(*j.col));
	j.wline = calloc(ps->nw, sizeof(*j.wline));
	if (!j.argv || !j.col || !j.wline) {
		job_free(&j);
		return -ENOMEM;
	}
	/* the words are the job's from here: nothing is left to fail */
	for (i = 0; i < ps->nw; i++) {
		j.argv[i] = ps->words[i];
		j.col[i] = ps->wcol[i];
		j.wline[i] = ps->wline[i];
	}
	j.argc = ps->nw;
	ps->nw = 0;
	ps->jf->jobs[ps->jf->n++] = j;
	return 0;
}

/*
 * text as jf->lines: one copy, each line's '\n' (and a '\r' before it)
 * overwritten by a NUL, so lines[0] holds them all. *llen gets their lengths.
 */
static int split_lines(struct jobfile *jf, const char *text, size_t len, size_t **llen)
{
	const char *nl;
	size_t at, n = 0, l;
	char *copy;
	int i;

	for (at = 0; at < len; at = nl - text + 1, n++) {
		nl = memchr(text + at, '\n', len - at);
		if (!nl)
			nl = text + len;
	}
	*llen = calloc(n ? n : 1, sizeof(**llen));
	jf->lines = calloc(n ? n : 1, sizeof(*jf->lines));
	if (!*llen || !jf->lines)
		return -ENOMEM;
	if (!n)
		return 0;
	copy = malloc(len + 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, text, len);
	copy[len] = '\0';
	for (at = 0, i = 0; at < len; at += l + 1, i++) {
		nl = memchr(copy + at, '\n', len - at);
		l = nl ? (size_t)(nl - copy) - at : len - at;
		jf->lines[i] = copy + at;
		(*llen)[i] = l && copy[at + l - 1] == '\r' ? l - 1 : l;
		copy[at + (*llen)[i]] = '\0';
	}
	jf->nlines = n;
	return 0;
}

static int parse_lines(struct parser *ps)
{
	int ret;

	for (ps->li = 0; ps->li < ps->jf->nlines; ps->li++) {
		ret = check_line(ps, ps->li);
		if (ret)
			return ret;
		ps->p = ps->jf->lines[ps->li];
		ps->col = 1;
		skip_blanks(ps);
		if (!*ps->p || *ps->p == '#')
			continue;
		/* past the job's continuation lines, if any */
		ret = read_job(ps);
		if (ret)
			return ret;
	}
	return 0;
}

int jobfile_parse(const char *path, const char *text, size_t len, struct jobfile *jf, char *msg,
		  size_t msglen)
{
	struct parser *ps;
	size_t *llen = NULL;
	int ret, i;

	memset(jf, 0, sizeof(*jf));
	if (msglen)
		msg[0] = '\0';
	/* an int counts lines and columns */
	if (len > JOBS_FILE_MAX) {
		snprintf(msg, msglen, "%s: error: larger than %d bytes: a job file is at most "
			 "1 MiB\n", path, JOBS_FILE_MAX);
		return -EFBIG;
	}
	ps = calloc(1, sizeof(*ps));
	jf->path = strdup(path);
	if (!ps || !jf->path) {
		ret = -ENOMEM;
		goto cleanup;
	}
	ret = split_lines(jf, text, len, &llen);
	if (ret)
		goto cleanup;
	ps->jf = jf;
	ps->llen = llen;
	ps->msg = msg;
	ps->msglen = msglen;
	ret = parse_lines(ps);
cleanup:
	if (ret == -ENOMEM)
		snprintf(msg, msglen, "%s: error: out of memory\n", path);
	if (ps) {
		for (i = 0; i < ps->nw; i++)
			free(ps->words[i]);
		free(ps->w);
	}
	free(ps);
	free(llen);
	if (ret)
		jobfile_free(jf);
	return ret;
}

int jobfile_read(const char *path, struct jobfile *jf, char *msg, size_t msglen)
{
	size_t n = 0;
	ssize_t r;
	char *buf;
	int fd, ret;

	memset(jf, 0, sizeof(*jf));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		snprintf(msg, msglen, "%s: error: %s\n", path, strerror(-ret));
		return ret;
	}
	/* one byte more than a file may have: to tell the largest from too large */
	buf = malloc(JOBS_FILE_MAX + 1);
	if (!buf) {
		ret = -ENOMEM;
		snprintf(msg, msglen, "%s: error: out of memory\n", path);
		goto cleanup;
	}
	while (n <= JOBS_FILE_MAX) {
		r = read(fd, buf + n, JOBS_FILE_MAX + 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			ret = -errno;
			snprintf(msg, msglen, "%s: error: %s\n", path, strerror(-ret));
			goto cleanup;
		}
		if (!r)
			break;
		n += r;
	}
	ret = jobfile_parse(path, buf, n, jf, msg, msglen);
cleanup:
	free(buf);
	close(fd);
	return ret;
}

void jobfile_error_at(const struct jobfile *jf, const struct job *j, int w, const char *what,
		      char *msg, size_t msglen)
{
	const char *line = NULL;
	int lineno, col;

	if (w >= 0 && w < j->argc) {
		lineno = j->wline[w];
		col = j->col[w];
	} else {
		lineno = j->line;
		col = 1;
	}
	if (lineno >= 1 && lineno <= jf->nlines) {
		line = jf->lines[lineno - 1];
		if (w < 0 || w >= j->argc)
			col += strspn(line, " \t");
	}
	put_error(msg, msglen, jf->path, lineno, line, line ? strlen(line) : 0, col, what);
}

bool job_same(const struct job *a, const struct job *b)
{
	int i;

	if (strcmp(a->name, b->name) || a->argc != b->argc)
		return false;
	for (i = 0; i < a->argc; i++)
		if (strcmp(a->argv[i], b->argv[i]))
			return false;
	return true;
}

void jobfile_free(struct jobfile *jf)
{
	int i;

	for (i = 0; i < jf->n; i++)
		job_free(&jf->jobs[i]);
	free(jf->jobs);
	/* the lines are one copy of the file, from lines[0] on */
	if (jf->lines && jf->nlines)
		free(jf->lines[0]);
	free(jf->lines);
	free(jf->path);
	memset(jf, 0, sizeof(*jf));
}
