// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The events' FILE, writes that wait for the reader bounded (outsink.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "util/outsink.h"

/* How long a write waits for the reader before asking its owner again. */
#define OUTSINK_TICK_MS	50

struct outsink {
	FILE *f;		/* the FILE given, closed with the sink's (unless stdout) */
	int fd;			/* where the bytes go: f's, or our own reopening of it */
	bool own_fd;
	/* the most one write(2) takes: a blocking pipe or socket's write
	 * waits until all of it fits, so after POLLOUT only PIPE_BUF bytes
	 * are sure to go at once */
	size_t chunk;
	bool (*wait)(void *arg);
	void *arg;
	bool gave_up;
	unsigned long long dropped_lines;
};

static unsigned long long count_lines(const char *buf, size_t n)
{
	unsigned long long k = 0;
	const char *p = buf, *e = buf + n;

	while ((p = memchr(p, '\n', e - p))) {
		k++;
		p++;
	}
	return k;
}

/* Wait for room, a tick at a time, asking the owner after each: false to give up. */
static bool wait_room(struct outsink *s)
{
	struct pollfd pfd = { .fd = s->fd, .events = POLLOUT };

	for (;;) {
		if (poll(&pfd, 1, OUTSINK_TICK_MS) > 0)
			return true;	/* room, or an error the write will see */
		/* a tick without room, or a signal (-d and Ctrl-C are the owner's) */
		if (s->wait && !s->wait(s->arg))
			return false;
	}
}

static ssize_t sink_write(void *cookie, const char *buf, size_t size)
{
	struct outsink *s = cookie;
	size_t done = 0, want;
	ssize_t n;

	while (done < size) {
		if (s->gave_up) {
			s->dropped_lines += count_lines(buf + done, size - done);
			return size;	/* dropped, counted: not an error to stdio */
		}
		if (s->chunk != SIZE_MAX && !wait_room(s)) {
			s->gave_up = true;
			continue;
		}
		want = size - done < s->chunk ? size - done : s->chunk;
		n = write(s->fd, buf + done, want);
		if (n > 0) {
			done += n;
			continue;
		}
		if (n < 0 && errno == EAGAIN) {
			if (!wait_room(s))
				s->gave_up = true;
			continue;
		}
		if (n < 0 && errno == EINTR) {
			if (s->wait && !s->wait(s->arg))
				s->gave_up = true;
			continue;
		}
		/* EPIPE (the reader went away) and the like: stdio's error */
		return done ? (ssize_t)done : 0;
	}
	return done;
}

static int sink_close(void *cookie)
{
	struct outsink *s = cookie;
	int err = 0;

	if (s->own_fd)
		close(s->fd);
	if (s->f == stdout)
		err = fflush(stdout);
	else
		err = fclose(s->f);
	free(s);
	return err ? EOF : 0;
}

/*
 * A pipe or a terminal, opened again for ourselves: the same pipe or
 * terminal, a file description of our own, which O_NONBLOCK changes for
 * nobody else. -1 where it cannot be (a socket; no /proc).
 */
static int reopen_nonblocking(int fd)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	return open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
}

FILE *outsink_open(FILE *f, struct outsink **sp)
{
	cookie_io_functions_t io = { .write = sink_write, .close = sink_close };
	struct outsink *s = calloc(1, sizeof(*s));
	struct stat st;
	FILE *out;

	if (!s)
		return NULL;
	s->f = f;
	s->fd = fileno(f);
	s->chunk = PIPE_BUF;
	if (fstat(s->fd, &st) == 0 && (S_ISREG(st.st_mode) || (S_ISCHR(st.st_mode) &&
								  !isatty(s->fd)))) {
		s->chunk = SIZE_MAX;	/* a file, /dev/null: a write never waits on a reader */
	} else if (fstat(s->fd, &st) == 0 && (S_ISFIFO(st.st_mode) || isatty(s->fd))) {
		int fd = reopen_nonblocking(s->fd);

		if (fd >= 0) {
			s->fd = fd;
			s->own_fd = true;
			s->chunk = SIZE_MAX;	/* a write takes what fits, then EAGAIN */
		}
	}
	out = fopencookie(s, "w", io);
	if (!out) {
		int err = errno;

		if (s->own_fd)
			close(s->fd);
		free(s);
		errno = err;
		return NULL;
	}
	*sp = s;
	return out;
}

void outsink_set_wait(struct outsink *s, bool (*wait)(void *arg), void *arg)
{
	s->wait = wait;
	s->arg = arg;
}

void outsink_give_up(struct outsink *s)
{
	s->gave_up = true;
}

bool outsink_gave_up(const struct outsink *s)
{
	return s->gave_up;
}

unsigned long long outsink_dropped_lines(const struct outsink *s)
{
	return s->dropped_lines;
}
