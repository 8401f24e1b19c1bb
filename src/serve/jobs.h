/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The job file of `kptrace serve`: one aggregation per job, each written as
 * its command line would be.
 *
 *   # /etc/kptrace/jobs.kpt
 *   kmalloc_bytes:   hist kmalloc --by comm
 *   open_errors:     count 'r:do_sys_openat2 ret=$retval:s32 if ret < 0' --by comm,ret
 *   lseek_offsets:   hist 't:syscalls/sys_enter_lseek offset' offset \
 *                        --linear 0,65536,4096
 *
 * The grammar:
 *
 * - The file is at most JOBS_FILE_MAX bytes of lines ending in "\n" (the
 *   last may end without); a "\r" ending a line goes with it, so CRLF files
 *   read as LF ones. A NUL byte, or a line over JOBS_LINE_MAX bytes (its
 *   "\r\n" not counted), is an error. A file without jobs is one.
 * - Blank lines and lines whose first non-blank character is '#' are
 *   ignored. Blanks are space and tab.
 * - A job is NAME: WORDS. NAME, after any blanks, is [a-zA-Z_][a-zA-Z0-9_]*
 *   of at most JOB_NAME_MAX characters, then ':' at once: it prefixes the
 *   job's Prometheus metric names, so nothing else can be in it. Names are
 *   unique in a file (case counts). At most JOBS_MAX jobs.
 * - WORDS are read as sh reads a command's words, without expansions:
 *   . blanks separate words;
 *   . '...' is everything up to the next ' literally;
 *   . "..." is everything up to the next unescaped ", where \" \\ \$ \`
 *     are the second character and any other \ stays as it is;
 *   . outside quotes \ makes the next character an ordinary one;
 *   . a \ ending a line, outside '...', joins the next line where it stands
 *     (a continuation: inside a word, "ab\" then "cd" is abcd; inside "...",
 *     the quote goes on);
 *   . quoted and unquoted parts that touch make one word: 'a'b"c" is abc,
 *     '' an empty word;
 *   . '#' starting a word outside quotes comments out the rest of the line,
 *     whose \ then continues nothing (a#b is one word);
 *   . no $variables, no ~, no globbing: vfs_* stays vfs_*.
 *   A quote closes on its line ("..." may go on past a continuation; '...'
 *   cannot, a \ being literal in it): an unclosed one is an error at the
 *   opening quote. The job ends with the first line no continuation ends.
 * - The first word is the job's mode: hist, latency or count (trace prints
 *   events and has nothing to export). A job has 1 to JOB_WORDS_MAX words.
 *
 * Errors are "FILE:LINE:COL: error: WHAT", then the line and a caret under
 * the column, LINE and COL the physical line and 1-based column (counted in
 * UTF-8 characters, a tab or a byte of invalid UTF-8 one) of the first
 * character in error. Reading, from the top, stops at the first error.
 */
#ifndef KPT_JOBS_H
#define KPT_JOBS_H

#include <stdbool.h>
#include <stddef.h>

#define JOB_NAME_MAX	64
#define JOB_WORDS_MAX	256
#define JOBS_MAX	1000
#define JOBS_LINE_MAX	4096
#define JOBS_FILE_MAX	(1 << 20)
/* A line of more characters is shown in part, around the caret: a message fits a terminal. */
#define JOBS_SHOW_MAX	160
/* Room for any message of a path under PATH_MAX. */
#define JOBS_MSG_MAX	8192

struct job {
	char name[JOB_NAME_MAX + 1];
	int argc;
	char **argv;		/* argv[0] is the mode word; NULL-terminated */
	int line;		/* 1-based physical line of the name */
	int *col;		/* col[i]: 1-based column of word i on its line */
	int *wline;		/* wline[i]: the physical line word i starts on */
};

struct jobfile {
	char *path;
	char **lines;		/* the physical lines, without "\n", for carets (one block) */
	int nlines;
	struct job *jobs;
	int n;
};

/*
 * Parse text (len bytes, not necessarily NUL-terminated) as the job file
 * path. 0 (a file without jobs is one), or -EINVAL with msg holding the
 * whole message ("FILE:LINE:COL: error: ...\n  <line>\n  <caret line>\n",
 * cut to msglen as snprintf() cuts; JOBS_MSG_MAX holds it for a path under
 * PATH_MAX); -EFBIG for text over JOBS_FILE_MAX and -ENOMEM say so in msg
 * as "FILE: error: WHY\n". On error *jf is left empty (jobfile_free() on
 * it is harmless).
 */
int jobfile_parse(const char *path, const char *text, size_t len, struct jobfile *jf, char *msg,
		  size_t msglen);

/*
 * Read and parse the file (at most JOBS_FILE_MAX bytes). As jobfile_parse(),
 * or the open's or read's negative errno with "FILE: error: WHY\n" in msg.
 */
int jobfile_read(const char *path, struct jobfile *jf, char *msg, size_t msglen);

/*
 * The message for an error found later in word w of job j (by the option
 * parser, say): "FILE:LINE:COL: error: WHAT", the line and a caret under
 * the word, into msg. A w outside [0, argc) puts the caret at the name.
 */
void jobfile_error_at(const struct jobfile *jf, const struct job *j, int w, const char *what,
		      char *msg, size_t msglen);

/* Whether two jobs are the same job (same name and words): a reload keeps such a job running. */
bool job_same(const struct job *a, const struct job *b);

void jobfile_free(struct jobfile *jf);

#endif /* KPT_JOBS_H */
