// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A debuginfod client over plain HTTP (debuginfod.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sys/debuginfod.h"

#define DEAD_MAX	8
#define URL_MAX		256

/* servers that did not answer in time: not asked again by this process */
static char dead[DEAD_MAX][URL_MAX];
static int ndead;

static long long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000LL + t.tv_nsec / 1000000;
}

/* Wait for fd to be ready for events until the deadline; false when it passed. */
static bool wait_fd(int fd, short events, long long deadline)
{
	struct pollfd p = { .fd = fd, .events = events };
	long long left = deadline - now_ms();

	return left > 0 && poll(&p, 1, (int)left) == 1;
}

static int cache_dir(char *out, size_t size)
{
	const char *d = getenv("DEBUGINFOD_CACHE_PATH"), *x = getenv("XDG_CACHE_HOME"),
		   *h = getenv("HOME");
	int n;

	if (d && *d)
		n = snprintf(out, size, "%s", d);
	else if (x && *x)
		n = snprintf(out, size, "%s/debuginfod_client", x);
	else if (h && *h)
		n = snprintf(out, size, "%s/.cache/debuginfod_client", h);
	else
		return -ENOENT;
	return n < (int)size ? 0 : -ENAMETOOLONG;
}

/*
 * A connected socket to host:port within the deadline, or -1. host is a
 * numeric address or localhost: a static binary has no NSS to look names
 * up with (glibc's getaddrinfo needs its shared libraries at run time).
 */
static int dial(const char *host, const char *port, long long deadline)
{
	struct sockaddr_storage ss = { 0 };
	struct sockaddr_in *in = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
	long pn = strtol(port, NULL, 10);
	int fd, err;
	socklen_t len = sizeof(err), slen;

	if (pn <= 0 || pn > 65535)
		return -1;
	if (!strcmp(host, "localhost"))
		host = "127.0.0.1";
	if (inet_pton(AF_INET, host, &in->sin_addr) == 1) {
		in->sin_family = AF_INET;
		in->sin_port = htons((uint16_t)pn);
		slen = sizeof(*in);
	} else if (inet_pton(AF_INET6, host, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)pn);
		slen = sizeof(*in6);
	} else {
		return -1;
	}
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&ss, slen) &&
	    (errno != EINPROGRESS || !wait_fd(fd, POLLOUT, deadline) ||
	     getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) || err)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Read the response into out; 0 on "200" with its body written, -ENOENT else, -ETIME late. */
static int read_response(int fd, FILE *out, long long deadline)
{
	char buf[16384], *body;
	size_t have = 0;
	ssize_t n;
	bool head = true;

	for (;;) {
		if (!wait_fd(fd, POLLIN, deadline))
			return -ETIME;
		n = read(fd, buf + have, sizeof(buf) - have - 1);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n <= 0)	/* the server closes after the body (HTTP/1.0) */
			return head ? -ENOENT : 0;
		have += n;
		if (!head) {
			if (fwrite(buf, 1, have, out) != have)
				return -EIO;
			have = 0;
			continue;
		}
		buf[have] = '\0';
		body = strstr(buf, "\r\n\r\n");
		if (!body) {
			if (have == sizeof(buf) - 1)
				return -ENOENT;	/* headers past 16 KiB: not a server we know */
			continue;
		}
		if (strncmp(buf, "HTTP/1.", 7) || strncmp(buf + 8, " 200", 4))
			return -ENOENT;
		head = false;
		body += 4;
		have -= body - buf;
		if (have && fwrite(body, 1, have, out) != have)
			return -EIO;
		have = 0;
	}
}

/* GET URL/buildid/HEX/debuginfo into out: 0, -ENOENT or -ETIME. */
static int fetch(const char *url, const char *hex, FILE *out)
{
	char host[256], port[8] = "80", req[1024];
	const char *p = url + 7, *slash = strchr(p, '/'), *colon;
	long long deadline = now_ms() + DEBUGINFOD_WAIT_MS;
	size_t hlen = slash ? (size_t)(slash - p) : strlen(p);
	int fd, err, n;

	/* [v6]:port: the port's ':' is the one after ']' */
	colon = *p == '[' && memchr(p, ']', hlen) ? memchr(memchr(p, ']', hlen), ':',
		hlen - ((const char *)memchr(p, ']', hlen) - p)) : memchr(p, ':', hlen);
	if (colon) {
		snprintf(port, sizeof(port), "%.*s", (int)(hlen - (colon - p) - 1), colon + 1);
		hlen = colon - p;
	}
	if (!hlen || hlen >= sizeof(host))
		return -ENOENT;
	if (*p == '[' && hlen > 2 && p[hlen - 1] == ']') {
		p++;
		hlen -= 2;
	}
	memcpy(host, p, hlen);
	host[hlen] = '\0';
	n = snprintf(req, sizeof(req), "GET %s/buildid/%s/debuginfo HTTP/1.0\r\nHost: %s\r\n"
		     "User-Agent: kptrace\r\n\r\n", slash ? slash : "", hex, host);
	/* the path of "http://host/" ends in '/': no "//buildid" */
	if (slash && slash[strlen(slash) - 1] == '/')
		n = snprintf(req, sizeof(req), "GET %sbuildid/%s/debuginfo HTTP/1.0\r\n"
			     "Host: %s\r\nUser-Agent: kptrace\r\n\r\n", slash, hex, host);
	if (n >= (int)sizeof(req))
		return -ENOENT;
	fd = dial(host, port, deadline);
	if (fd < 0)
		return now_ms() >= deadline ? -ETIME : -ENOENT;
	err = write(fd, req, n) == n ? read_response(fd, out, deadline) : -ENOENT;
	close(fd);
	return err;
}

static bool is_dead(const char *url)
{
	int i;

	for (i = 0; i < ndead; i++)
		if (!strcmp(dead[i], url))
			return true;
	return false;
}

/* One server: into DIR/HEX/debuginfo through a temporary file, renamed when whole. */
static int try_server(const char *url, const char *hex, const char *file)
{
	char tmp[PATH_MAX];
	FILE *out;
	int fd, err;

	if (strncmp(url, "http://", 7) || strlen(url) >= URL_MAX || is_dead(url))
		return -ENOENT;
	if (snprintf(tmp, sizeof(tmp), "%s.XXXXXX", file) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = mkstemp(tmp);
	out = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!out) {
		if (fd >= 0)
			close(fd);
		return -errno;
	}
	err = fetch(url, hex, out);
	if (fclose(out) && !err)
		err = -EIO;
	if (!err && rename(tmp, file))
		err = -errno;
	if (err)
		unlink(tmp);
	if (err == -ETIME) {
		fprintf(stderr, "kptrace: debuginfod server %s did not answer within %d ms: not "
			"asked again\n", url, DEBUGINFOD_WAIT_MS);
		if (ndead < DEAD_MAX)
			snprintf(dead[ndead++], URL_MAX, "%s", url);
	}
	return err;
}

/* path and its parents, as mkdir -p. */
static int mkdirs(char *path)
{
	char *p;

	for (p = path + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		if (mkdir(path, 0700) && errno != EEXIST) {
			*p = '/';
			return -errno;
		}
		*p = '/';
	}
	return mkdir(path, 0700) && errno != EEXIST ? -errno : 0;
}

int debuginfod_find(const char *hex, char *path, size_t size)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	char dir[PATH_MAX], *list, *url, *save = NULL;
	struct stat st;
	int err = -ENOENT;

	if (!urls || !*urls || cache_dir(dir, sizeof(dir)))
		return -ENOENT;
	if (snprintf(path, size, "%s/%s/debuginfo", dir, hex) >= (int)size)
		return -ENAMETOOLONG;
	if (!stat(path, &st) && st.st_size > 0)
		return 0;	/* cached */
	snprintf(path, size, "%s/%s", dir, hex);
	if (mkdirs(path))
		return -ENOENT;
	snprintf(path, size, "%s/%s/debuginfo", dir, hex);
	list = strdup(urls);
	for (url = list ? strtok_r(list, " ", &save) : NULL; url && err;
	     url = strtok_r(NULL, " ", &save))
		err = try_server(url, hex, path);
	free(list);
	return err ? -ENOENT : 0;
}
