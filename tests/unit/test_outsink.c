// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * outsink: the events' FILE. Through a pipe a reader drains, every byte
 * arrives in order; through a pipe nobody reads, a write waits a tick at a
 * time, asks, and gives up when told, the lines it dropped counted (with
 * those in the pipe, every line); a reader gone is stdio's error; a file
 * never waits.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "util/outsink.h"

#define LINE_LEN	64
#define NLINES		8192	/* 512 KiB: eight times a pipe's default capacity */

static void line_of(char *buf, int i)
{
	snprintf(buf, LINE_LEN + 1, "%-*d\n", LINE_LEN - 1, i);
}

/* Every line through f; the FILE's buffer smaller than the data. */
static int write_lines(FILE *f)
{
	char line[LINE_LEN + 1];
	int i;

	for (i = 0; i < NLINES; i++) {
		line_of(line, i);
		if (fputs(line, f) == EOF)
			return -1;
	}
	return fflush(f);
}

struct reader {
	int fd;
	char *got;
	size_t len;
};

static void *read_all(void *arg)
{
	struct reader *r = arg;
	ssize_t n;

	r->got = malloc((size_t)NLINES * LINE_LEN + 1);
	while (r->got && (n = read(r->fd, r->got + r->len, 65536)) > 0)
		r->len += n;
	return NULL;
}

static int ticks, give_up_at;

static bool count_ticks(void *arg)
{
	(void)arg;
	return ++ticks < give_up_at;
}

static void test_drained_pipe(void)
{
	struct outsink *s = NULL;
	struct reader r = { 0 };
	char want[LINE_LEN + 1];
	pthread_t th;
	int p[2], i, bad = 0;
	FILE *raw, *f;

	if (pipe(p))
		return;
	raw = fdopen(p[1], "w");
	f = outsink_open(raw, &s);
	CHECK(f && s, "outsink_open on a pipe: %s", strerror(errno));
	if (!f)
		return;
	setvbuf(f, NULL, _IOFBF, 1 << 16);
	r.fd = p[0];
	pthread_create(&th, NULL, read_all, &r);
	CHECK_INT(write_lines(f), 0, "a drained pipe: every write succeeds");
	CHECK(!outsink_gave_up(s), "a drained pipe: never given up");
	fclose(f);	/* and raw: the reader sees the end */
	pthread_join(th, NULL);
	CHECK_INT(r.len, (long long)NLINES * LINE_LEN, "a drained pipe: every byte arrives");
	for (i = 0; r.got && i < NLINES && (size_t)(i + 1) * LINE_LEN <= r.len; i++) {
		line_of(want, i);
		bad += memcmp(r.got + (size_t)i * LINE_LEN, want, LINE_LEN) != 0;
	}
	CHECK_INT(bad, 0, "a drained pipe: the lines in order, whole");
	free(r.got);
	close(p[0]);
}

static void test_stalled_pipe(void)
{
	struct outsink *s = NULL;
	struct reader r = { 0 };
	unsigned long long in_pipe = 0, dropped;
	int p[2];
	FILE *raw, *f;
	size_t i;

	if (pipe(p))
		return;
	raw = fdopen(p[1], "w");
	f = outsink_open(raw, &s);
	if (!f)
		return;
	setvbuf(f, NULL, _IOFBF, 1 << 16);
	ticks = 0;
	give_up_at = 3;
	outsink_set_wait(s, count_ticks, NULL);
	/* nobody reads: the pipe fills, each write waits, asks, is told to stop */
	CHECK_INT(write_lines(f), 0, "a stalled pipe: dropped writes are no error to stdio");
	CHECK(outsink_gave_up(s), "a stalled pipe: given up when told");
	CHECK_INT(ticks, 3, "a stalled pipe: asked after each tick until told");
	dropped = outsink_dropped_lines(s);
	fclose(f);	/* and s */
	r.fd = p[0];
	read_all(&r);
	for (i = 0; r.got && i < r.len; i++)
		in_pipe += r.got[i] == '\n';
	CHECK(in_pipe > 0 && in_pipe < NLINES, "a stalled pipe holds some lines: %llu", in_pipe);
	CHECK_INT(in_pipe + dropped, NLINES,
		  "a stalled pipe: lines in it + lines dropped = every line");
	free(r.got);
	close(p[0]);
}

static void test_reader_gone(void)
{
	struct outsink *s = NULL;
	int p[2];
	FILE *f;

	if (pipe(p))
		return;
	close(p[0]);
	f = outsink_open(fdopen(p[1], "w"), &s);
	if (!f)
		return;
	CHECK(write_lines(f) != 0 && ferror(f), "a reader gone: stdio's error (EPIPE)");
	CHECK(!outsink_gave_up(s), "a reader gone: an error, not a give-up");
	fclose(f);
}

static void test_file(void)
{
	char path[] = "/tmp/kpt-outsink-XXXXXX";
	struct outsink *s = NULL;
	int fd = mkstemp(path);
	FILE *f;

	if (fd < 0)
		return;
	f = outsink_open(fdopen(fd, "w"), &s);
	if (!f)
		return;
	ticks = 0;
	give_up_at = 1;	/* a file must never ask */
	outsink_set_wait(s, count_ticks, NULL);
	CHECK_INT(write_lines(f), 0, "a file: every write succeeds");
	CHECK_INT(ticks, 0, "a file: no write waits");
	fclose(f);
	fd = open(path, O_RDONLY);
	CHECK_INT(lseek(fd, 0, SEEK_END), (long long)NLINES * LINE_LEN, "a file: every byte");
	close(fd);
	unlink(path);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);	/* as kptrace: EPIPE is an ordinary end */
	test_drained_pipe();
	test_stalled_pipe();
	test_reader_gone();
	test_file();
	return check_report();
}
