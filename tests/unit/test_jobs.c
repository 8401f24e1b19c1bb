// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests of src/serve/jobs.c, kptrace serve's job file: good files with the
 * exact words, lines and columns each job gets; bad ones with the exact
 * FILE:LINE:COL, the message and the caret line; the limits at their
 * edges; jobfile_error_at(), job_same(), jobfile_read().
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "serve/jobs.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
/* a literal and its length, NULs in it included */
#define T(s) s, sizeof(s) - 1

static const char example[] =
	"# /etc/kptrace/jobs.kpt\n"
	"kmalloc_bytes:   hist kmalloc --by comm\n"
	"vfs_read:        latency vfs_read\n"
	"open_errors:     count 'r:do_sys_openat2 ret=$retval:s32 if ret < 0' --by comm,ret\n"
	"lseek_offsets:   hist 't:syscalls/sys_enter_lseek offset' offset \\\n"
	"                     --linear 0,65536,4096\n";

/* The jobs as "NAME@LINE: [WORD]@LINE:COL ...", one line each. */
static void dump(const struct jobfile *jf, char *out, size_t size)
{
	size_t n = 0;
	int i, w;

	out[0] = '\0';
	for (i = 0; i < jf->n && n < size; i++) {
		const struct job *j = &jf->jobs[i];

		n += snprintf(out + n, size - n, "%s@%d:", j->name, j->line);
		for (w = 0; w < j->argc && n < size; w++)
			n += snprintf(out + n, size - n, " [%s]@%d:%d", j->argv[w], j->wline[w],
				      j->col[w]);
		if (n < size)
			n += snprintf(out + n, size - n, "%s\n",
				      j->argv[j->argc] ? " NOT-NULL" : "");
	}
}

/* Whether jf->lines are text's physical lines, a '\r' ending one dropped. */
static bool lines_match(const struct jobfile *jf, const char *text, size_t len)
{
	size_t at = 0, l;
	int i;

	for (i = 0; at < len; i++, at += l + 1) {
		const char *nl = memchr(text + at, '\n', len - at);

		l = nl ? (size_t)(nl - text) - at : len - at;
		if (i >= jf->nlines ||
		    strlen(jf->lines[i]) != l - (l && text[at + l - 1] == '\r') ||
		    memcmp(jf->lines[i], text + at, strlen(jf->lines[i])))
			return false;
	}
	return i == jf->nlines;
}

static void test_good(void)
{
	static const struct {
		const char *what;
		const char *text;
		size_t len;
		const char *jobs;	/* dump()'s */
	} good[] = {
		{ "the example", T(example),
		  "kmalloc_bytes@2: [hist]@2:18 [kmalloc]@2:23 [--by]@2:31 [comm]@2:36\n"
		  "vfs_read@3: [latency]@3:18 [vfs_read]@3:26\n"
		  "open_errors@4: [count]@4:18 [r:do_sys_openat2 ret=$retval:s32 if ret < 0]@4:24 "
		  "[--by]@4:70 [comm,ret]@4:75\n"
		  "lseek_offsets@5: [hist]@5:18 [t:syscalls/sys_enter_lseek offset]@5:23 "
		  "[offset]@5:59 [--linear]@6:22 [0,65536,4096]@6:31\n" },
		{ "nothing", T(""), "" },
		{ "comments and blanks only", T("# a\n\n   # b\n\t\n \t # c \\\n"), "" },
		{ "no final newline", T("a: count x"), "a@1: [count]@1:4 [x]@1:10\n" },
		{ "no space after the colon", T("a:count x"), "a@1: [count]@1:3 [x]@1:9\n" },
		{ "blanks before the name, tabs between words", T("\t  _a1:\tcount\t\tx  \n"),
		  "_a1@1: [count]@1:9 [x]@1:16\n" },
		{ "single quotes: all literal", T("a: count 'x \"y\" \\z $v `w` #'\n"),
		  "a@1: [count]@1:4 [x \"y\" \\z $v `w` #]@1:10\n" },
		{ "double quotes: four escapes, other backslashes kept",
		  T("a: count \"q \\\" b \\\\ d \\$x t \\` n \\n '\"\n"),
		  "a@1: [count]@1:4 [q \" b \\ d $x t ` n \\n ']@1:10\n" },
		{ "adjacent parts make one word", T("a: count 'a'b\"c\" x'y'z \"\"'' ''\n"),
		  "a@1: [count]@1:4 [abc]@1:10 [xyz]@1:18 []@1:24 []@1:29\n" },
		{ "backslashes outside quotes", T("a: count a\\ b \\#c \\'d \\\\e \\\"\n"),
		  "a@1: [count]@1:4 [a b]@1:10 [#c]@1:15 ['d]@1:19 [\\e]@1:23 [\"]@1:27\n" },
		{ "a comment at a word's start", T("a: count x # c 'd\n# e\nb: hist y #\n"),
		  "a@1: [count]@1:4 [x]@1:10\nb@3: [hist]@3:4 [y]@3:9\n" },
		{ "'#' inside a word or quoted", T("a: count a#b x\\#y '#q' \"#d\" \\#e\n"),
		  "a@1: [count]@1:4 [a#b]@1:10 [x#y]@1:14 [#q]@1:19 [#d]@1:24 [#e]@1:29\n" },
		{ "no globbing, no expansion", T("a: count 'p:vfs_*' vfs_* $HOME ~ *\n"),
		  "a@1: [count]@1:4 [p:vfs_*]@1:10 [vfs_*]@1:20 [$HOME]@1:26 [~]@1:32 [*]@1:34\n" },
		{ "a continuation between words", T("a: count x \\\n   y\n"),
		  "a@1: [count]@1:4 [x]@1:10 [y]@2:4\n" },
		{ "a continuation inside a word joins where it stands",
		  T("a: count ab\\\ncd e\\\n f\n"),
		  "a@1: [count]@1:4 [abcd]@1:10 [e]@2:4 [f]@3:2\n" },
		{ "a continuation inside double quotes", T("a: count \"x \\\n y\" z\n"),
		  "a@1: [count]@1:4 [x  y]@1:10 [z]@2:5\n" },
		{ "a continuation right after the colon", T("a: \\\n\tcount \\\n\\\n  x\n"),
		  "a@1: [count]@2:2 [x]@4:3\n" },
		{ "a continuation into an empty line ends the job",
		  T("a: count x \\\n\nb: hist y\n"),
		  "a@1: [count]@1:4 [x]@1:10\nb@3: [hist]@3:4 [y]@3:9\n" },
		{ "a comment after a continuation", T("a: count x \\\n  # y\nb: hist z\n"),
		  "a@1: [count]@1:4 [x]@1:10\nb@3: [hist]@3:4 [z]@3:9\n" },
		{ "'#' after a continuation inside a word", T("a: count x\\\n#y\n"),
		  "a@1: [count]@1:4 [x#y]@1:10\n" },
		{ "a comment's backslash continues nothing", T("a: count x # y \\\nb: hist z\n"),
		  "a@1: [count]@1:4 [x]@1:10\nb@2: [hist]@2:4 [z]@2:9\n" },
		{ "a continuation into the last line, no newline", T("a: count x \\\n y"),
		  "a@1: [count]@1:4 [x]@1:10 [y]@2:2\n" },
		{ "CRLF line endings", T("# c\r\na: count x\r\nb: hist 'y z' \\\r\n  w\r\n\r\n"),
		  "a@2: [count]@2:4 [x]@2:10\nb@3: [hist]@3:4 [y z]@3:9 [w]@4:3\n" },
		{ "CRLF, the last line without LF", T("a: count x\r"),
		  "a@1: [count]@1:4 [x]@1:10\n" },
		{ "a '\\r' inside a line is a character", T("a: count x\ry \r\n"),
		  "a@1: [count]@1:4 [x\ry]@1:10\n" },
		{ "UTF-8 counts one column a character",
		  T("a: count \xc3\xa9t\xc3\xa9 '\xe2\x82\xac' x\n"),
		  "a@1: [count]@1:4 [\xc3\xa9t\xc3\xa9]@1:10 [\xe2\x82\xac]@1:14 [x]@1:18\n" },
		{ "invalid UTF-8: one column a byte", T("a: count \xff\xc3 x \xe2\x82y z\n"),
		  "a@1: [count]@1:4 [\xff\xc3]@1:10 [x]@1:13 [\xe2\x82y]@1:15 [z]@1:19\n" },
		{ "UTF-8 of four bytes", T("a: count \xf0\x9f\x98\x80 x \xf4\x90\x80\x80 y\n"),
		  "a@1: [count]@1:4 [\xf0\x9f\x98\x80]@1:10 [x]@1:12 [\xf4\x90\x80\x80]@1:14 "
		  "[y]@1:19\n" },
		{ "every mode", T("h: hist x\nl: latency y z\nc: count w\n"),
		  "h@1: [hist]@1:4 [x]@1:9\nl@2: [latency]@2:4 [y]@2:12 [z]@2:14\n"
		  "c@3: [count]@3:4 [w]@3:10\n" },
		{ "a quoted mode word", T("a: 'hist' \"x\"\n"), "a@1: [hist]@1:4 [x]@1:11\n" },
		{ "names differing in case", T("a: count x\nA: count x\n"),
		  "a@1: [count]@1:4 [x]@1:10\nA@2: [count]@2:4 [x]@2:10\n" },
		{ "a 64-character name",
		  T("n234567890123456789012345678901234567890123456789012345678901234: count x\n"),
		  "n234567890123456789012345678901234567890123456789012345678901234@1: "
		  "[count]@1:67 [x]@1:73\n" },
	};
	char got[4096], msg[JOBS_MSG_MAX];
	struct jobfile jf;
	size_t i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(good); i++) {
		ret = jobfile_parse("t.kpt", good[i].text, good[i].len, &jf, msg, sizeof(msg));
		CHECK(ret == 0, "%s: %d, %s", good[i].what, ret, msg);
		if (ret)
			continue;
		dump(&jf, got, sizeof(got));
		CHECK_STR(got, good[i].jobs, good[i].what);
		CHECK(lines_match(&jf, good[i].text, good[i].len), "%s: lines[]", good[i].what);
		CHECK_STR(jf.path, "t.kpt", good[i].what);
		jobfile_free(&jf);
		CHECK(!jf.jobs && !jf.lines && !jf.path && !jf.n && !jf.nlines, "%s: freed",
		      good[i].what);
		jobfile_free(&jf);	/* twice is harmless */
	}
}

static void test_bad(void)
{
	static const struct {
		const char *text;
		size_t len;
		const char *at;		/* "LINE:COL" */
		const char *what;	/* in the message */
		const char *shown;	/* the line and caret lines */
	} bad[] = {
		/* names */
		{ T("a-b: count x\n"), "1:2", "'-' cannot be in a job name",
		  "  a-b: count x\n   ^\n" },
		{ T("kmalloc.bytes: count x\n"), "1:8", "'.' cannot be in a job name",
		  "  kmalloc.bytes: count x\n         ^\n" },
		{ T("1a: count x\n"), "1:1", "starts with a letter or '_', not '1'",
		  "  1a: count x\n  ^\n" },
		{ T("'a': count x\n"), "1:1", "not '''", "  'a': count x\n  ^\n" },
		{ T("\xc3\xa9: count x\n"), "1:1", "not '\xc3\xa9'", "  \xc3\xa9: count x\n  ^\n" },
		{ T(": count x\n"), "1:1", "a job needs a name before ':'", "  : count x\n  ^\n" },
		{ T("a : count x\n"), "1:2", "no ':' after the job name 'a'",
		  "  a : count x\n   ^\n" },
		{ T("count x --by comm\n"), "1:6", "no ':' after the job name 'count'",
		  "  count x --by comm\n       ^\n" },
		{ T("# c\n  abc"), "2:6", "no ':' after the job name 'abc'",
		  "    abc\n       ^\n" },
		{ T("\tb-: count\n"), "1:3", "'-' cannot be", "  \tb-: count\n  \t ^\n" },
		{ T("a\x01: count x\n"), "1:2", "'?' cannot be", "  a?: count x\n   ^\n" },
		{ T("  n2345678901234567890123456789012345678901234567890123456789012345: count\n"),
		  "1:67", "job name longer than 64 characters",
		  "    n2345678901234567890123456789012345678901234567890123456789012345: count\n"
		  "                                                                    ^\n" },
		{ T("a: count x\n\nb: count y\n a: hist z\n"), "4:2",
		  "job 'a' is already defined on line 1", "   a: hist z\n   ^\n" },
		/* no words, a mode that is none */
		{ T("a:\n"), "1:3", "job 'a' has no command", "  a:\n    ^\n" },
		{ T("a: # c\n"), "1:3", "job 'a' has no command", "  a: # c\n    ^\n" },
		{ T("a: \\\n\nb: count x\n"), "1:3", "has no command", "  a: \\\n    ^\n" },
		{ T("a: trace x\n"), "1:4",
		  "trace mode prints events and exports nothing: a job is hist, latency or count",
		  "  a: trace x\n     ^\n" },
		{ T("a:p:do_sys_open\n"), "1:3",
		  "'p:do_sys_open' is not a mode serve runs: a job is hist, latency or count",
		  "  a:p:do_sys_open\n    ^\n" },
		{ T("a: -d 5 hist x\n"), "1:4", "'-d' is not a mode",
		  "  a: -d 5 hist x\n     ^\n" },
		{ T("a: 'hist'x\n"), "1:4", "'histx' is not a mode", "  a: 'hist'x\n     ^\n" },
		{ T("a: list\n"), "1:4", "'list' is not a mode", "  a: list\n     ^\n" },
		{ T("a: HIST x\n"), "1:4", "'HIST' is not a mode", "  a: HIST x\n     ^\n" },
		{ T("a: '' x\n"), "1:4", "'' is not a mode", "  a: '' x\n     ^\n" },
		{ T("a: \\\n  explain x\n"), "2:3", "'explain' is not a mode",
		  "    explain x\n    ^\n" },
		{ T("a: 'x\x01\ty'\n"), "1:4", "'x??y' is not a mode", "  a: 'x?\ty'\n     ^\n" },
		{ T("a: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n"), "1:4",
		  "'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...' is not a mode",
		  "  a: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n     ^\n" },
		/* quotes */
		{ T("a: count 'x\n"), "1:10", "unterminated quote",
		  "  a: count 'x\n           ^\n" },
		{ T("a: count \"x\n"), "1:10", "unterminated quote",
		  "  a: count \"x\n           ^\n" },
		{ T("a: count x'y\n"), "1:11", "unterminated quote",
		  "  a: count x'y\n            ^\n" },
		{ T("a: count 'x' \"y'\n"), "1:14", "unterminated quote",
		  "  a: count 'x' \"y'\n               ^\n" },
		{ T("a: count \"x\\\ny\n"), "1:10", "unterminated quote",
		  "  a: count \"x\\\n           ^\n" },
		{ T("a: count 'x\\\ny'\n"), "1:10",
		  "'\\' is literal in '...' and continues no line",
		  "  a: count 'x\\\n           ^\n" },
		{ T("a: count \xc3\xa9 'x"), "1:12", "unterminated quote",
		  "  a: count \xc3\xa9 'x\n             ^\n" },
		{ T("a: count \xff 'x"), "1:12", "unterminated quote",
		  "  a: count ? 'x\n             ^\n" },
		{ T("a: count 'x\r\n"), "1:10", "unterminated quote",
		  "  a: count 'x\n           ^\n" },
		/* continuations */
		{ T("a: count x \\"), "1:12", "'\\' at the end of the file continues no line",
		  "  a: count x \\\n             ^\n" },
		{ T("a: count x \\\n"), "1:12", "at the end of the file",
		  "  a: count x \\\n             ^\n" },
		{ T("a: count x\\"), "1:11", "at the end of the file",
		  "  a: count x\\\n            ^\n" },
		{ T("a: count \"x\\"), "1:12", "at the end of the file",
		  "  a: count \"x\\\n             ^\n" },
		{ T("a: count x \\\r\n"), "1:12", "at the end of the file",
		  "  a: count x \\\n             ^\n" },
		/* NULs, first errors first */
		{ T("a: count x\0y\n"), "1:11", "NUL byte", "  a: count x?y\n            ^\n" },
		{ T("# \0\n"), "1:3", "NUL byte", "  # ?\n    ^\n" },
		{ T("a: count \\\n x\0\n"), "2:3", "NUL byte", "   x?\n    ^\n" },
		{ T("a: count 'x\n\0\n"), "1:10", "unterminated quote",
		  "  a: count 'x\n           ^\n" },
		{ T("a: trace 'x\n"), "1:4", "trace mode", "  a: trace 'x\n     ^\n" },
		{ T("a-: trace 'x\n"), "1:2", "cannot be in a job name", "  a-: trace 'x\n   ^\n" },
	};
	char msg[JOBS_MSG_MAX], head[64];
	struct jobfile jf;
	size_t i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		const char *nl;

		ret = jobfile_parse("bad.kpt", bad[i].text, bad[i].len, &jf, msg, sizeof(msg));
		CHECK(ret == -EINVAL, "row %zu: %d", i, ret);
		CHECK(!jf.jobs && !jf.lines && !jf.path && !jf.n, "row %zu: nothing left", i);
		snprintf(head, sizeof(head), "bad.kpt:%s: error: ", bad[i].at);
		CHECK(!strncmp(msg, head, strlen(head)), "row %zu: want %s in\n%s", i, head, msg);
		nl = strchr(msg, '\n');
		CHECK(nl && strstr(msg, bad[i].what) && strstr(msg, bad[i].what) < nl,
		      "row %zu: want \"%s\" in\n%s", i, bad[i].what, msg);
		CHECK_STR(nl ? nl + 1 : NULL, bad[i].shown, head);
	}
	/* and with nowhere to write, nothing written */
	ret = jobfile_parse("bad.kpt", T("a-\n"), &jf, NULL, 0);
	CHECK_INT(ret, -EINVAL, "msglen 0");
}

/* A file of n jobs, each "jI: count" and then words "wK" up to nwords. */
static char *many(int n, int nwords)
{
	size_t size = (size_t)n * (16 + nwords * 6) + 1, at = 0;
	char *s = malloc(size);
	int i, k;

	for (i = 0; i < n; i++) {
		at += snprintf(s + at, size - at, "j%d: count", i);
		for (k = 1; k < nwords; k++)
			at += snprintf(s + at, size - at, " w%d", k);
		at += snprintf(s + at, size - at, "\n");
	}
	return s;
}

static void test_limits(void)
{
	char msg[JOBS_MSG_MAX], want[64], *s, *caret, *shown;
	struct jobfile jf;
	int ret;

	s = many(JOBS_MAX, 2);
	ret = jobfile_parse("m.kpt", s, strlen(s), &jf, msg, sizeof(msg));
	CHECK(ret == 0 && jf.n == JOBS_MAX, "1000 jobs: %d, %d", ret, jf.n);
	jobfile_free(&jf);
	free(s);
	s = many(JOBS_MAX + 1, 2);
	ret = jobfile_parse("m.kpt", s, strlen(s), &jf, msg, sizeof(msg));
	CHECK(ret == -EINVAL && !strncmp(msg, "m.kpt:1001:1: error: more than 1000 jobs", 40),
	      "1001 jobs: %d, %s", ret, msg);
	free(s);

	s = many(1, JOB_WORDS_MAX);
	ret = jobfile_parse("m.kpt", s, strlen(s), &jf, msg, sizeof(msg));
	CHECK(ret == 0 && jf.n == 1 && jf.jobs[0].argc == JOB_WORDS_MAX &&
	      !jf.jobs[0].argv[JOB_WORDS_MAX] && !strcmp(jf.jobs[0].argv[255], "w255"),
	      "256 words: %d", ret);
	jobfile_free(&jf);
	free(s);
	s = many(1, JOB_WORDS_MAX + 1);
	ret = jobfile_parse("m.kpt", s, strlen(s), &jf, msg, sizeof(msg));
	/* "j0: count", then " wK" for K < 256: 9 + 9 * 3 + 90 * 4 + 156 * 5 characters */
	snprintf(want, sizeof(want), "m.kpt:1:%d: error: more than 256 words in one job",
		 9 + 9 * 3 + 90 * 4 + 156 * 5 + 2);
	CHECK(ret == -EINVAL && !strncmp(msg, want, strlen(want)), "257 words: %d, %s\nwant %s",
	      ret, msg, want);
	free(s);

	/* a line of 4096 bytes, its CRLF not counted; then one of 4097 */
	s = malloc(JOBS_LINE_MAX + 8);
	memset(s, 'x', JOBS_LINE_MAX + 8);
	memcpy(s, "a: count ", 9);
	memcpy(s + JOBS_LINE_MAX, "\r\n", 2);
	ret = jobfile_parse("l.kpt", s, JOBS_LINE_MAX + 2, &jf, msg, sizeof(msg));
	CHECK(ret == 0 && jf.n == 1 && strlen(jf.jobs[0].argv[1]) == JOBS_LINE_MAX - 9,
	      "a line of 4096: %d, %s", ret, msg);
	jobfile_free(&jf);
	s[JOBS_LINE_MAX] = 'Z';
	s[JOBS_LINE_MAX + 1] = '\n';
	ret = jobfile_parse("l.kpt", s, JOBS_LINE_MAX + 2, &jf, msg, sizeof(msg));
	CHECK(ret == -EINVAL &&
	      !strncmp(msg, "l.kpt:1:4097: error: line longer than 4096 bytes", 48),
	      "a line of 4097: %d, %.80s", ret, msg);
	/* shown in part, the caret under the 4097th byte */
	shown = strchr(msg, '\n');
	caret = shown ? strchr(shown + 1, '\n') : NULL;
	CHECK(shown && caret && !strncmp(shown + 1, "  ...", 5) && strchr(caret + 1, '^') &&
	      strchr(caret + 1, '^') - caret < caret - shown &&
	      shown[strchr(caret + 1, '^') - caret] == 'Z' && strlen(msg) < 512,
	      "the long line's caret:\n%s", msg);
	free(s);
}

static void test_error_at(void)
{
	char msg[JOBS_MSG_MAX];
	struct jobfile jf;
	int ret;

	ret = jobfile_parse("/etc/kptrace/jobs.kpt", T(example), &jf, msg, sizeof(msg));
	CHECK_INT(ret, 0, "the example");
	if (ret)
		return;
	jobfile_error_at(&jf, &jf.jobs[3], 3, "--linear: needs MAX > MIN", msg, sizeof(msg));
	CHECK_STR(msg, "/etc/kptrace/jobs.kpt:6:22: error: --linear: needs MAX > MIN\n"
		  "                       --linear 0,65536,4096\n"
		  "                       ^\n", "word 3 of lseek_offsets, on its second line");
	jobfile_error_at(&jf, &jf.jobs[2], 1, "unknown type", msg, sizeof(msg));
	CHECK_STR(msg, "/etc/kptrace/jobs.kpt:4:24: error: unknown type\n"
		  "  open_errors:     count 'r:do_sys_openat2 ret=$retval:s32 if ret < 0' "
		  "--by comm,ret\n"
		  "                         ^\n", "a quoted word: the caret at its quote");
	jobfile_error_at(&jf, &jf.jobs[1], -1, "the name", msg, sizeof(msg));
	CHECK_STR(msg, "/etc/kptrace/jobs.kpt:3:1: error: the name\n"
		  "  vfs_read:        latency vfs_read\n"
		  "  ^\n", "w -1: the name");
	jobfile_error_at(&jf, &jf.jobs[1], 2, "the name", msg, sizeof(msg));
	CHECK(!strncmp(msg, "/etc/kptrace/jobs.kpt:3:1: error: the name\n", 43),
	      "w == argc: the name: %s", msg);
	/* truncated, still a string */
	jobfile_error_at(&jf, &jf.jobs[1], 0, "x", msg, 10);
	CHECK_STR(msg, "/etc/kptr", "msglen 10");
	jobfile_free(&jf);

	ret = jobfile_parse("i.kpt", T("\t  a: count\t'x'\n"), &jf, msg, sizeof(msg));
	CHECK_INT(ret, 0, "indented");
	if (ret)
		return;
	jobfile_error_at(&jf, &jf.jobs[0], 9, "the name", msg, sizeof(msg));
	CHECK_STR(msg, "i.kpt:1:4: error: the name\n  \t  a: count\t'x'\n  \t  ^\n",
		  "indented name");
	jobfile_error_at(&jf, &jf.jobs[0], 1, "x", msg, sizeof(msg));
	CHECK_STR(msg, "i.kpt:1:13: error: x\n  \t  a: count\t'x'\n  \t          \t^\n",
		  "after a tab");
	jobfile_free(&jf);
}

static void test_same(void)
{
	static const char a[] =
		"x: count 'p:vfs_read' --by comm\n"
		"y: hist kmalloc\n"
		"z: hist kmalloc --by comm\n"
		"w: count \"p:vfs_read\" --by 'comm'\n"
		"v: count a b\n";
	static const char b[] =
		"\n\n  x:    count \\\n   p:vfs_read --by comm\n"
		"y: hist kmalloc --by comm\n"
		"v: count a c\n";
	char msg[JOBS_MSG_MAX];
	struct jobfile ja, jb;

	CHECK(!jobfile_parse("a", T(a), &ja, msg, sizeof(msg)) &&
	      !jobfile_parse("b", T(b), &jb, msg, sizeof(msg)), "parsed: %s", msg);
	if (ja.n != 5 || jb.n != 3)
		return;
	CHECK(job_same(&ja.jobs[0], &jb.jobs[0]), "x: moved and quoted otherwise, the same");
	CHECK(job_same(&ja.jobs[0], &ja.jobs[0]), "x: itself");
	CHECK(!job_same(&ja.jobs[1], &jb.jobs[1]), "y: more words");
	CHECK(!job_same(&jb.jobs[1], &ja.jobs[1]), "y: fewer words");
	CHECK(!job_same(&ja.jobs[2], &jb.jobs[1]), "z and y: the same words, not the same name");
	CHECK(!job_same(&ja.jobs[3], &ja.jobs[0]), "w and x: the same words, not the same name");
	CHECK(!job_same(&ja.jobs[4], &jb.jobs[2]), "v: a word differs");
	jobfile_free(&ja);
	jobfile_free(&jb);
}

/* path with n bytes of text: lines of 4096 bytes, comments. */
static void write_file(const char *path, size_t n, const char *head)
{
	char *s = malloc(n);
	size_t i;
	int fd;

	for (i = 0; i < n; i++)
		s[i] = i % JOBS_LINE_MAX == JOBS_LINE_MAX - 1 ? '\n' :
		       i % JOBS_LINE_MAX ? 'x' : '#';
	memcpy(s, head, strlen(head));
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0 && write(fd, s, n) == (ssize_t)n, "writing %s", path);
	close(fd);
	free(s);
}

static void test_read(void)
{
	char dir[] = "/tmp/test_jobs.XXXXXX", path[64], msg[JOBS_MSG_MAX], want[128];
	struct jobfile jf;
	int ret;

	if (!mkdtemp(dir)) {
		CHECK(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	snprintf(path, sizeof(path), "%s/jobs.kpt", dir);
	write_file(path, JOBS_FILE_MAX, "a: count x\n#");
	ret = jobfile_read(path, &jf, msg, sizeof(msg));
	CHECK(ret == 0 && jf.n == 1 && jf.nlines == JOBS_FILE_MAX / JOBS_LINE_MAX + 1 &&
	      !strcmp(jf.path, path), "1 MiB: %d, %s", ret, msg);
	jobfile_free(&jf);
	write_file(path, JOBS_FILE_MAX + 1, "a: count x\n#");
	ret = jobfile_read(path, &jf, msg, sizeof(msg));
	snprintf(want, sizeof(want), "%s: error: larger than 1048576 bytes", path);
	CHECK(ret == -EFBIG && !strncmp(msg, want, strlen(want)), "1 MiB + 1: %d, %s", ret, msg);
	write_file(path, 12, "a: count 'x\n");
	ret = jobfile_read(path, &jf, msg, sizeof(msg));
	snprintf(want, sizeof(want), "%s:1:10: error: unterminated quote", path);
	CHECK(ret == -EINVAL && !strncmp(msg, want, strlen(want)), "read, bad: %d, %s", ret, msg);
	unlink(path);
	ret = jobfile_read(path, &jf, msg, sizeof(msg));
	snprintf(want, sizeof(want), "%s: error: %s\n", path, strerror(ENOENT));
	CHECK(ret == -ENOENT && !strcmp(msg, want), "missing: %d, %s", ret, msg);
	ret = jobfile_read(dir, &jf, msg, sizeof(msg));
	CHECK(ret == -EISDIR && strstr(msg, strerror(EISDIR)), "a directory: %d, %s", ret, msg);
	CHECK(!jf.jobs && !jf.lines && !jf.path, "nothing left");
	rmdir(dir);
}

int main(void)
{
	test_good();
	test_bad();
	test_limits();
	test_error_at();
	test_same();
	test_read();
	return check_report();
}
