// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer harness for src/serve/jobs.c: jobfile_parse() on arbitrary bytes (an
 * exactly sized copy, no NUL after it: the text is not a C string), then
 * jobfile_error_at(), job_same() and jobfile_free(). Besides what ASan,
 * UBSan and LeakSanitizer see, every result is checked against jobs.h:
 *
 * - the return is 0, -EINVAL or -ENOMEM;
 * - an error leaves *jf empty and a message "fuzz.kpt:LINE:COL: error: ..."
 *   with LINE a line of the input, then the line and a caret line: blanks
 *   only before the '^', as many as COL says (past any "..." of a line
 *   shown in part), nothing after it;
 * - a parse keeps the path and the input's physical lines (no '\n' in one,
 *   a '\r' ending one dropped); each job has a unique name of
 *   [a-zA-Z_][a-zA-Z0-9_]{0,63} on its line, followed by ':'; 1..256 words,
 *   argv NULL-terminated after argc of them, the first a mode; each word's
 *   line and column inside the file, after the previous word's, at a
 *   character that can start a word; jobs in the order of their lines;
 * - the words written back, each single-quoted, double-quoted or
 *   backslash-escaped (and cut into continued pieces, so that no line grows
 *   past the limit), parse to the same jobs (job_same());
 * - jobfile_error_at() on a word gives that word's line and column, and
 *   the same message cut to a small msglen.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve/jobs.h"
#include "fuzz_common.h"

#define PATH "fuzz.kpt"

static bool is_name(const char *s)
{
	size_t i, n = strnlen(s, JOB_NAME_MAX + 1);

	if (n == 0 || n > JOB_NAME_MAX)
		return false;
	for (i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
		      (i && c >= '0' && c <= '9')))
			return false;
	}
	return true;
}

/* Physical lines of data, as jobs.h defines them. */
static int count_lines(const uint8_t *data, size_t size)
{
	size_t i;
	int n = 0;

	for (i = 0; i < size; i++)
		if (data[i] == '\n')
			n++;
	return n + (size && data[size - 1] != '\n');
}

/* Line i (0-based) of data: its start and length, a '\r' ending it dropped. */
static const uint8_t *line_of(const uint8_t *data, size_t size, int i, size_t *len)
{
	const uint8_t *s = data, *e = data + size, *nl;

	for (; i > 0; i--)
		s = memchr(s, '\n', e - s) + 1;
	nl = memchr(s, '\n', e - s);
	*len = (nl ? nl : e) - s;
	if (*len && s[*len - 1] == '\r')
		(*len)--;
	return s;
}

/*
 * The bytes of the character at s (at most n): a valid UTF-8 sequence, else
 * one byte. Decoded, not table-driven as jobs.c is: an oracle of its own.
 */
static int u8_step(const uint8_t *s, size_t n)
{
	uint32_t cp;
	size_t i, len;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0) {
		len = 2;
		cp = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		len = 3;
		cp = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		len = 4;
		cp = s[0] & 0x07;
	} else {
		return 1;
	}
	if (len > n)
		return 1;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 1;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 1;
	return len;
}

/* The byte offset of column col in s (len bytes); len + 1 past the end. */
static size_t col_offset(const uint8_t *s, size_t len, int col)
{
	size_t i = 0;
	int c;

	for (c = 1; c < col; c++) {
		if (i >= len)
			return len + 1;
		i += u8_step(s + i, len - i);
	}
	return i;
}

/* Characters of s (len bytes). */
static size_t chars(const uint8_t *s, size_t len)
{
	size_t i, n = 0;

	for (i = 0; i < len; i += u8_step(s + i, len - i))
		n++;
	return n;
}

/*
 * The message: "fuzz.kpt:LINE:COL: error: ...\n  LINE\n  CARET\n", about
 * jf's line LINE, or data's if no jf.
 */
static void check_message(const char *msg, int nlines, const struct jobfile *jf,
			  const uint8_t *data, size_t size)
{
	const char *nl1, *nl2, *caret, *p;
	const uint8_t *line;
	int lineno, col, n = -1;
	size_t before, len, nch;

	FUZZ_CHECK(sscanf(msg, PATH ":%d:%d: error: %n", &lineno, &col, &n) == 2 && n > 0,
		   "message \"%.200s\"", msg);
	FUZZ_CHECK(lineno >= 1 && lineno <= nlines && col >= 1, "error at %d:%d, %d lines",
		   lineno, col, nlines);
	if (jf) {
		line = (const uint8_t *)jf->lines[lineno - 1];
		len = strlen(jf->lines[lineno - 1]);
	} else {
		line = line_of(data, size, lineno - 1, &len);
	}
	nch = chars(line, len);
	FUZZ_CHECK((size_t)col <= nch + 1, "error at %d:%d, past the line's %zu characters",
		   lineno, col, nch);
	nl1 = strchr(msg, '\n');
	FUZZ_CHECK(nl1 && !strncmp(nl1 + 1, "  ", 2), "no line shown: \"%.200s\"", msg);
	nl2 = strchr(nl1 + 1, '\n');
	FUZZ_CHECK(nl2 && !strncmp(nl2 + 1, "  ", 2), "no caret line: \"%.200s\"", msg);
	caret = strchr(nl2 + 1, '^');
	FUZZ_CHECK(caret && !strcmp(caret, "^\n"), "the caret line does not end in ^");
	for (p = nl2 + 1; p < caret; p++)
		FUZZ_CHECK(*p == ' ' || *p == '\t', "0x%02x in the caret line", *p);
	/* one blank a character, after "  " and the "..." of a line shown in part */
	before = caret - (nl2 + 1) - 2;
	if (nch > JOBS_SHOW_MAX) {
		/* shown from its start, or cut there: "..." then the part before the caret */
		FUZZ_CHECK((before == (size_t)col - 1 && before <= JOBS_SHOW_MAX) ||
			   (!strncmp(nl1 + 1, "  ...", 5) && before >= 3 &&
			    before - 3 < (size_t)col - 1 && before - 3 <= JOBS_SHOW_MAX),
			   "caret after %zu, col %d of a long line", before, col);
	} else {
		FUZZ_CHECK(before == (size_t)col - 1, "caret after %zu, col %d", before, col);
		FUZZ_CHECK(chars((const uint8_t *)nl1 + 3, nl2 - nl1 - 3) == nch,
			   "line %d shown with other than its %zu characters", lineno, nch);
	}
	FUZZ_CHECK(strlen(msg) < JOBS_MSG_MAX, "a message of %zu bytes", strlen(msg));
}

/* What can start a word: a character that is no blank and starts no comment. */
static void check_word(const struct jobfile *jf, const struct job *j, int w)
{
	const char *line;
	size_t len, at;

	FUZZ_CHECK(j->argv[w], "job %s: word %d NULL", j->name, w);
	FUZZ_CHECK(!strchr(j->argv[w], '\n'), "job %s: a newline in word %d", j->name, w);
	FUZZ_CHECK(j->wline[w] >= j->line && j->wline[w] <= jf->nlines, "job %s word %d line %d",
		   j->name, w, j->wline[w]);
	if (w)
		FUZZ_CHECK(j->wline[w] > j->wline[w - 1] ||
			   (j->wline[w] == j->wline[w - 1] && j->col[w] > j->col[w - 1]),
			   "job %s: word %d at %d:%d, before word %d", j->name, w, j->wline[w],
			   j->col[w], w - 1);
	line = jf->lines[j->wline[w] - 1];
	len = strlen(line);
	at = col_offset((const uint8_t *)line, len, j->col[w]);
	FUZZ_CHECK(j->col[w] >= 1 && at < len && line[at] != ' ' && line[at] != '\t' &&
		   line[at] != '#', "job %s word %d at column %d", j->name, w, j->col[w]);
}

static void check_job(const struct jobfile *jf, int i)
{
	const struct job *j = &jf->jobs[i];
	const char *line;
	int w;

	FUZZ_CHECK(is_name(j->name), "job %d name \"%.70s\"", i, j->name);
	FUZZ_CHECK(j->line >= 1 && j->line <= jf->nlines, "job %s line %d", j->name, j->line);
	line = jf->lines[j->line - 1];
	line += strspn(line, " \t");
	FUZZ_CHECK(!strncmp(line, j->name, strlen(j->name)) && line[strlen(j->name)] == ':',
		   "job %s is not on its line %d", j->name, j->line);
	if (i) {
		const struct job *prev = &jf->jobs[i - 1];

		FUZZ_CHECK(j->line > prev->wline[prev->argc - 1], "job %s overlaps %s", j->name,
			   prev->name);
	}
	FUZZ_CHECK(j->argc >= 1 && j->argc <= JOB_WORDS_MAX, "job %s argc %d", j->name, j->argc);
	FUZZ_CHECK(!j->argv[j->argc], "job %s: argv not NULL-terminated", j->name);
	FUZZ_CHECK(!strcmp(j->argv[0], "hist") || !strcmp(j->argv[0], "latency") ||
		   !strcmp(j->argv[0], "count"), "job %s mode \"%.40s\"", j->name, j->argv[0]);
	for (w = 0; w < j->argc; w++)
		check_word(jf, j, w);
	FUZZ_CHECK(job_same(j, j), "job %s is not itself", j->name);
}

/* How write_back() quotes a word: each takes another path through the tokenizer. */
enum quoting { Q_SINGLE, Q_DOUBLE, Q_BACKSLASH, Q__COUNT };

/*
 * word in quoting q into s (room for 4 bytes a byte and 8 every 1000), cut
 * every 1000 bytes by a continuation so that no line grows past the limit:
 * 'ab'\ + 'cd', "ab\ + cd", ab\ + cd.
 */
static size_t put_quoted(char *s, const char *word, enum quoting q)
{
	static const char open[] = { '\'', '"', 0 };
	size_t n = 0, k;

	if (q == Q_BACKSLASH && !word[0])
		return sprintf(s, "''");
	if (open[q])
		s[n++] = open[q];
	for (k = 0; word[k]; k++) {
		char c = word[k];

		if (k && k % 1000 == 0)
			n += sprintf(s + n, q == Q_SINGLE ? "'\\\n'" : "\\\n");
		if (q == Q_SINGLE && c == '\'')
			n += sprintf(s + n, "'\\''");
		else if (q == Q_DOUBLE && strchr("\"\\$`", c))
			n += sprintf(s + n, "\\%c", c);
		else if (q == Q_BACKSLASH && c == '\r')
			/* a '\r' before the line's end would end it: quoted */
			n += sprintf(s + n, "'\r'");
		else if (q == Q_BACKSLASH && !((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')))
			n += sprintf(s + n, "\\%c", c);
		else
			s[n++] = c;
	}
	if (open[q])
		s[n++] = open[q];
	return n;
}

/* Room for need bytes in *s. */
static bool room(char **s, size_t *cap, size_t need)
{
	char *t;

	if (need <= *cap)
		return true;
	while (*cap < need)
		*cap *= 2;
	t = realloc(*s, *cap);
	if (!t)
		return false;
	*s = t;
	return true;
}

/* The jobs written back, each word quoted in q: text that parses to the same jobs. */
static char *write_back(const struct jobfile *jf, enum quoting q, size_t *len)
{
	size_t cap = 4096, n = 0, wl;
	char *s = malloc(cap);
	int i, w;

	for (i = 0; s && i < jf->n; i++) {
		const struct job *j = &jf->jobs[i];

		if (!room(&s, &cap, n + JOB_NAME_MAX + 2))
			goto fail;
		n += sprintf(s + n, "%s:", j->name);
		for (w = 0; w < j->argc; w++) {
			wl = strlen(j->argv[w]);
			/* " ", the word, " \\\n" and the final "\n" */
			if (!room(&s, &cap, n + 4 * wl + 8 * (wl / 1000 + 1) + 8))
				goto fail;
			s[n++] = ' ';
			n += put_quoted(s + n, j->argv[w], q);
			if (w + 1 < j->argc)
				n += sprintf(s + n, " \\\n");
		}
		s[n++] = '\n';
	}
	*len = n;
	return s;
fail:
	free(s);
	return NULL;
}

static void check_write_back(const struct jobfile *jf)
{
	char msg[JOBS_MSG_MAX];
	struct jobfile again;
	size_t len = 0;
	char *text;
	int i, q, ret;

	for (q = 0; q < Q__COUNT; q++) {
		text = write_back(jf, q, &len);
		if (!text)
			return;
		ret = jobfile_parse(PATH, text, len, &again, msg, sizeof(msg));
		FUZZ_CHECK(ret == 0 || ret == -ENOMEM, "written back (%d), refused: %s", q, msg);
		if (!ret) {
			FUZZ_CHECK(again.n == jf->n, "written back (%d), %d jobs of %d", q,
				   again.n, jf->n);
			for (i = 0; i < jf->n; i++)
				FUZZ_CHECK(job_same(&jf->jobs[i], &again.jobs[i]),
					   "job %s written back (%d) is another",
					   jf->jobs[i].name, q);
		}
		jobfile_free(&again);
		free(text);
	}
}

static void check_parse(const struct jobfile *jf, const uint8_t *data, size_t size)
{
	char msg[JOBS_MSG_MAX], want[64], small[64];
	int i, k, n;
	size_t len;

	FUZZ_CHECK(jf->path && !strcmp(jf->path, PATH), "path not kept");
	FUZZ_CHECK(jf->nlines == count_lines(data, size), "%d lines, want %d", jf->nlines,
		   count_lines(data, size));
	for (i = 0; i < jf->nlines; i++) {
		const uint8_t *l = line_of(data, size, i, &len);

		FUZZ_CHECK(strlen(jf->lines[i]) == len && !memcmp(jf->lines[i], l, len),
			   "line %d is not the input's", i + 1);
	}
	FUZZ_CHECK(jf->n >= 0 && jf->n <= JOBS_MAX && (!jf->n || jf->jobs), "%d jobs", jf->n);
	for (i = 0; i < jf->n; i++) {
		check_job(jf, i);
		for (k = 0; k < i; k++) {
			FUZZ_CHECK(strcmp(jf->jobs[k].name, jf->jobs[i].name), "two jobs %s",
				   jf->jobs[i].name);
			FUZZ_CHECK(!job_same(&jf->jobs[k], &jf->jobs[i]), "jobs %d and %d same", k,
				   i);
		}
	}
	if (jf->n) {
		/* a word steered by the input: the message of an error there */
		const struct job *j = &jf->jobs[size % jf->n];
		int w = (int)(size % (j->argc + 1)) - (size & 1);

		jobfile_error_at(jf, j, w, "what", msg, sizeof(msg));
		check_message(msg, jf->nlines, jf, NULL, 0);
		/* cut to a small msglen: still a string, within it; nothing written for 0 */
		memset(small, 'z', sizeof(small));
		jobfile_error_at(jf, j, w, "what", small, size % sizeof(small));
		FUZZ_CHECK(size % sizeof(small) ? strlen(small) < size % sizeof(small) &&
			   !strncmp(small, msg, strlen(small)) : small[0] == 'z',
			   "error_at in %zu bytes", size % sizeof(small));
		if (w >= 0 && w < j->argc) {
			n = snprintf(want, sizeof(want), PATH ":%d:%d: error: what\n", j->wline[w],
				     j->col[w]);
			FUZZ_CHECK(!strncmp(msg, want, n), "error_at: %.100s, want %s", msg, want);
		}
	}
	check_write_back(jf);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char msg[JOBS_MSG_MAX];
	struct jobfile jf;
	char *text;
	int ret;

	/* exactly sized, no NUL after it: ASan sees any read past the end */
	text = malloc(size ? size : 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	memset(msg, 'z', sizeof(msg));
	ret = jobfile_parse(PATH, text, size, &jf, msg, sizeof(msg));
	FUZZ_CHECK(ret == 0 || ret == -EINVAL || ret == -ENOMEM, "returned %d", ret);
	if (ret) {
		FUZZ_CHECK(!jf.path && !jf.lines && !jf.jobs && !jf.n && !jf.nlines,
			   "a failed parse left something in *jf");
		FUZZ_CHECK(!strncmp(msg, PATH ":", strlen(PATH) + 1), "message \"%.100s\"", msg);
		if (ret == -EINVAL)
			check_message(msg, count_lines(data, size), NULL, data, size);
	} else {
		check_parse(&jf, data, size);
	}
	jobfile_free(&jf);
	FUZZ_CHECK(!jf.path && !jf.lines && !jf.jobs, "jobfile_free left something");
	jobfile_free(&jf);	/* twice is harmless */
	free(text);
	return 0;
}
