// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A minimal HTTP/1.1 server for /metrics and /healthz, bounded against bad clients (http.h). */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "serve/http.h"

#define HTTP_HEAD_MAX		512	/* a response's status line and headers */
#define HTTP_ACCEPT_BATCH	64	/* per step: a flood of connects can't starve the others */
#define HTTP_LINGER_MS		1000	/* at most, draining a client's input after its response */
#define HTTP_PAUSE_MS		100	/* the listener rests this long when out of descriptors */
#define HTTP_MAX_CLIENTS_MAX	4096
#define HTTP_HEADER_MAX_MIN	64
#define HTTP_HEADER_MAX_MAX	(1 << 20)
#define HTTP_TIMEOUT_MS_MAX	3600000
#define HTTP_TEXT		"text/plain; charset=utf-8"
#define HTTP_BUSY_BODY		"too many clients\n"

/* ---- the request head ------------------------------------------------- */

struct head_parse {
	const char *buf;
	size_t lim;		/* bytes that may be looked at: min(len, header_max) */
	bool at_limit;		/* lim is header_max: no byte to come will count */
	size_t pos;
	size_t method_off, method_len;
	size_t path_off, path_len;
	int minor;		/* HTTP/1.minor */
	int hosts;
};

static bool is_tchar(unsigned char c)
{
	/* RFC 9110 5.6.2's token characters */
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* The next byte, false at the end of what may be looked at. */
static bool next_byte(struct head_parse *h, unsigned char *c)
{
	if (h->pos == h->lim)
		return false;
	*c = h->buf[h->pos++];
	return true;
}

/* RFC 9112 2.2: a server SHOULD ignore empty lines before the request line. */
static int skip_empty_lines(struct head_parse *h)
{
	while (h->pos < h->lim) {
		if (h->buf[h->pos] == '\n') {
			h->pos++;
			continue;
		}
		if (h->buf[h->pos] != '\r')
			return 0;
		if (h->pos + 1 == h->lim)
			return 1;
		if (h->buf[h->pos + 1] != '\n')
			return -400;	/* a bare CR */
		h->pos += 2;
	}
	return 1;
}

static int parse_method(struct head_parse *h)
{
	size_t start = h->pos, n;
	unsigned char c;

	for (;;) {
		if (!next_byte(h, &c))
			return 1;
		if (c == ' ')
			break;
		if (!is_tchar(c))
			return -400;
		/* decided at the 8th token character, not at a far-off SP: no
		 * method served is that long, and the answer must not wait */
		if (h->pos - start == sizeof(((struct http_request *)0)->method))
			return -405;
	}
	n = h->pos - 1 - start;
	if (!n)
		return -400;
	if (!(n == 3 && !memcmp(h->buf + start, "GET", 3)) &&
	    !(n == 4 && !memcmp(h->buf + start, "HEAD", 4)))
		return -405;
	h->method_off = start;
	h->method_len = n;
	return 0;
}

/* origin-form only: an absolute path, then an optional query, which is dropped */
static int parse_target(struct head_parse *h)
{
	size_t start = h->pos, max = sizeof(((struct http_request *)0)->path) - 1;
	bool query = false;
	unsigned char c;

	for (;;) {
		/* a request line cut by header_max is a target too long */
		if (!next_byte(h, &c))
			return h->at_limit ? -414 : 1;
		if (h->pos - 1 == start && c != '/')
			return -400;
		if (c == ' ')
			break;
		if (c <= 0x20 || c >= 0x7f)
			return -400;
		if (c == '?' && !query) {
			query = true;
			h->path_len = h->pos - 1 - start;
		} else if (!query && h->pos - 1 - start == max) {
			return -414;
		}
	}
	if (!query)
		h->path_len = h->pos - 1 - start;
	h->path_off = start;
	return 0;
}

/* "HTTP/1.x" and the line's end: RFC 9112 2.3's DIGIT "." DIGIT, case-sensitive */
static int parse_version(struct head_parse *h)
{
	static const char name[] = "HTTP/";
	unsigned char c;
	size_t i;

	for (i = 0; i < sizeof(name) - 1; i++) {
		if (!next_byte(h, &c))
			return 1;
		if (c != (unsigned char)name[i])
			return -400;
	}
	if (!next_byte(h, &c))
		return 1;
	if (c < '0' || c > '9')
		return -400;
	if (c != '1')
		return -505;
	if (!next_byte(h, &c))
		return 1;
	if (c != '.')
		return -400;
	if (!next_byte(h, &c))
		return 1;
	if (c < '0' || c > '9')
		return -400;
	h->minor = c - '0';
	if (!next_byte(h, &c))
		return 1;
	if (c == '\r' && !next_byte(h, &c))
		return 1;
	return c == '\n' ? 0 : -400;
}

static bool name_is(const char *name, size_t n, const char *want)
{
	return n == strlen(want) && !strncasecmp(name, want, n);
}

/*
 * Another Accept value joined to dst, cut at its last comma that fits: a
 * media range is kept whole or not at all, so negotiation never sees half of
 * "application/openmetrics-text; version=1.0.0".
 */
static void accept_add(char *dst, size_t cap, const char *v, size_t n)
{
	size_t have = strlen(dst), sep = have ? 2 : 0, room;
	const char *comma;

	if (!n || have + sep + 1 >= cap)
		return;
	if (have + sep + n >= cap) {
		room = cap - 1 - have - sep;
		comma = memrchr(v, ',', room + 1);
		if (!comma)
			return;
		n = comma - v;
		while (n && (v[n - 1] == ' ' || v[n - 1] == '\t'))
			n--;
		if (!n)
			return;
	}
	memcpy(dst + have, ", ", sep);
	memcpy(dst + have + sep, v, n);
	dst[have + sep + n] = '\0';
}

/* One header line, line[0..end) without its CRLF. */
static int parse_header(struct head_parse *h, const char *line, const char *end,
			struct http_request *req)
{
	const char *p = line, *v, *ve;
	size_t n;

	while (p < end && is_tchar(*p))
		p++;
	/* no name, a space before the colon or a folded line: RFC 9112 5.1, 5.2 say 400 */
	if (p == line || p == end || *p != ':')
		return -400;
	n = p - line;
	for (v = ++p; p < end; p++)
		if (((unsigned char)*p < 0x20 && *p != '\t') || *p == 0x7f)
			return -400;
	while (v < end && (*v == ' ' || *v == '\t'))
		v++;
	ve = end;
	while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t'))
		ve--;
	if (name_is(line, n, "host")) {
		/* RFC 9112 3.2: more than one Host is a 400 */
		if (++h->hosts > 1)
			return -400;
	} else if (name_is(line, n, "content-length")) {
		/* a body is not supported; anything but digits is malformed anyway */
		if (v == ve)
			return -400;
		for (p = v; p < ve; p++)
			if (*p != '0')
				return -400;
	} else if (name_is(line, n, "transfer-encoding")) {
		return -400;
	} else if (name_is(line, n, "accept")) {
		accept_add(req->accept, sizeof(req->accept), v, ve - v);
	}
	return 0;
}

static int parse_headers(struct head_parse *h, struct http_request *req)
{
	const char *line, *nl, *end;
	int err;

	/* each round takes one line: bounded by lim */
	for (;;) {
		line = h->buf + h->pos;
		nl = memchr(line, '\n', h->lim - h->pos);
		if (!nl)
			return 1;
		end = nl > line && nl[-1] == '\r' ? nl - 1 : nl;
		h->pos = nl + 1 - h->buf;
		if (end == line)
			return 0;
		err = parse_header(h, line, end, req);
		if (err)
			return err;
	}
}

int http_parse_request(const char *buf, size_t len, size_t header_max, struct http_request *req,
		       size_t *used)
{
	struct head_parse h = { .buf = buf };
	int r;

	memset(req, 0, sizeof(*req));
	*used = 0;
	if (!header_max)
		header_max = HTTP_DEFAULT_HEADER_MAX;
	if (!len)
		return 1;
	h.lim = len < header_max ? len : header_max;
	h.at_limit = len >= header_max;

	r = skip_empty_lines(&h);
	if (!r)
		r = parse_method(&h);
	if (!r)
		r = parse_target(&h);
	if (!r)
		r = parse_version(&h);
	if (!r)
		r = parse_headers(&h, req);
	/* a head that has not ended within header_max never will */
	if (r == 1 && h.at_limit)
		r = -431;
	if (!r && h.minor >= 1 && !h.hosts)
		r = -400;	/* RFC 9112 3.2: an HTTP/1.1 request without Host */
	if (r) {
		memset(req, 0, sizeof(*req));
		return r;
	}
	memcpy(req->method, buf + h.method_off, h.method_len);
	memcpy(req->path, buf + h.path_off, h.path_len);
	*used = h.pos;
	return 0;
}

/* ---- responses ---------------------------------------------------------- */

/* Each status the server knows: its reason phrase and, for its own errors, the body. */
static const struct http_status {
	int code;
	const char *reason;
	const char *body;
} http_statuses[] = {
	{ 200, "OK", NULL },
	{ 301, "Moved Permanently", NULL },
	{ 302, "Found", NULL },
	{ 400, "Bad Request", "bad request\n" },
	{ 403, "Forbidden", NULL },
	{ 404, "Not Found", NULL },
	{ 405, "Method Not Allowed", "only GET and HEAD\n" },
	{ 406, "Not Acceptable", NULL },
	{ 408, "Request Timeout", "request timeout\n" },
	{ 414, "URI Too Long", "URI too long\n" },
	{ 431, "Request Header Fields Too Large", "request head too large\n" },
	{ 500, "Internal Server Error", "internal error\n" },
	{ 501, "Not Implemented", NULL },
	{ 503, "Service Unavailable", HTTP_BUSY_BODY },
	{ 505, "HTTP Version Not Supported", "only HTTP/1.x\n" },
};

static const struct http_status *status_of(int code)
{
	size_t i;

	for (i = 0; i < sizeof(http_statuses) / sizeof(http_statuses[0]); i++)
		if (http_statuses[i].code == code)
			return &http_statuses[i];
	return NULL;
}

/* Past max_clients: fixed, so refusing costs nothing (RFC 9110 6.6.1: no Date needed on a 5xx). */
static const char http_busy[] = "HTTP/1.1 503 Service Unavailable\r\n"
				"Content-Type: " HTTP_TEXT "\r\n"
				"Content-Length: 17\r\n"
				"Retry-After: 1\r\n"
				"Connection: close\r\n"
				"\r\n"
				HTTP_BUSY_BODY;
_Static_assert(sizeof(HTTP_BUSY_BODY) - 1 == 17, "http_busy's Content-Length");

/* RFC 9110 5.6.7's IMF-fixdate, from fixed names: strftime's %a and %b follow the locale. */
static void http_date(char *out, size_t cap)
{
	static const char days[7][4] = { "Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat" };
	static const char months[12][4] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
					    "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
	time_t t = time(NULL);
	struct tm tm;

	if (!gmtime_r(&t, &tm) || tm.tm_wday < 0 || tm.tm_wday > 6 || tm.tm_mon < 0 ||
	    tm.tm_mon > 11 || tm.tm_year < 0 || tm.tm_year > 8099) {
		snprintf(out, cap, "Thu, 01 Jan 1970 00:00:00 GMT");
		return;
	}
	snprintf(out, cap, "%s, %02d %s %04d %02d:%02d:%02d GMT", days[tm.tm_wday],
		 tm.tm_mday % 100, months[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour % 100,
		 tm.tm_min % 100, tm.tm_sec % 100);
}

/* The status line and headers into out: its length, or -ENOSPC. */
static int format_head(char *out, size_t cap, int code, const char *type, size_t len)
{
	const struct http_status *st = status_of(code);
	char date[40];
	int n;

	http_date(date, sizeof(date));
	/* RFC 9110 15.5.6: a 405 says what is allowed */
	n = snprintf(out, cap,
		     "HTTP/1.1 %d %s\r\nDate: %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
		     "%sConnection: close\r\n\r\n",
		     code, st ? st->reason : "", date, type, len,
		     code == 405 ? "Allow: GET, HEAD\r\n" : "");
	return n < 0 || (size_t)n >= cap ? -ENOSPC : n;
}

/* ---- the server ----------------------------------------------------------- */

enum conn_state { CONN_FREE, CONN_READ, CONN_WRITE, CONN_LINGER };

struct http_conn {
	int fd;
	enum conn_state state;
	int64_t deadline;	/* ms of CLOCK_MONOTONIC: the head, the response, the drain */
	char *in;		/* header_max bytes while reading the head, then freed */
	size_t in_len;
	char head[HTTP_HEAD_MAX];
	size_t head_len;
	const char *body;	/* what follows the head: owned, or one of ours */
	char *owned;		/* the handler's body, freed with the connection */
	size_t body_len;	/* bytes to send after the head: 0 for HEAD */
	size_t sent;		/* of head_len + body_len */
};

struct http_server {
	int fd;
	int port;
	struct http_limits lim;
	http_handler handler;
	void *arg;
	struct http_conn *conns;	/* lim.max_clients slots */
	struct pollfd *pfds;		/* the listener, extra_fd and each connection */
	int *slot_of;			/* pfds[i]'s connection */
	int64_t paused_until;		/* the listener's rest when out of descriptors */
	struct http_stats stats;
};

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void conn_close(struct http_server *s, struct http_conn *c, bool abortive)
{
	/* a RST instead of a FIN: the kernel drops the unsent rest of the
	 * response at once instead of holding it for a client that won't read */
	if (abortive)
		setsockopt(c->fd, SOL_SOCKET, SO_LINGER, &(struct linger){ 1, 0 },
			   sizeof(struct linger));
	close(c->fd);
	free(c->in);
	free(c->owned);
	memset(c, 0, sizeof(*c));
	c->fd = -1;
	c->state = CONN_FREE;
	s->stats.clients--;
}

static void conn_write(struct http_server *s, struct http_conn *c, int64_t now)
{
	struct iovec iov[2];
	struct msghdr mh = { .msg_iov = iov };
	size_t off;
	ssize_t n;

	if (c->sent < c->head_len)
		iov[mh.msg_iovlen++] = (struct iovec){ c->head + c->sent, c->head_len - c->sent };
	off = c->sent > c->head_len ? c->sent - c->head_len : 0;
	if (off < c->body_len)
		iov[mh.msg_iovlen++] = (struct iovec){ (char *)c->body + off, c->body_len - off };
	/* MSG_NOSIGNAL: a client gone mid-response must not SIGPIPE the tracer */
	n = sendmsg(c->fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
	if (n < 0) {
		if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
			return;
		s->stats.errors++;
		conn_close(s, c, true);
		return;
	}
	c->sent += n;
	if (c->sent < c->head_len + c->body_len)
		return;
	/*
	 * All taken. A close with the client's input unread would answer it
	 * with a RST, which can destroy the response still in flight: send the
	 * FIN, then drain what the client still sends until it closes.
	 */
	free(c->owned);
	c->owned = NULL;
	c->body = NULL;
	shutdown(c->fd, SHUT_WR);
	c->state = CONN_LINGER;
	c->deadline = now + (s->lim.timeout_ms < HTTP_LINGER_MS ? s->lim.timeout_ms :
							       HTTP_LINGER_MS);
}

/*
 * The response to send: the head formatted now, the body kept as it is
 * (owned: freed with the connection). len is the Content-Length; a HEAD
 * response sends no body. Then as much as the socket takes at once.
 */
static int conn_respond(struct http_server *s, struct http_conn *c, int code, const char *type,
			const char *body, char *owned, size_t len, bool head_only, int64_t now)
{
	int n = format_head(c->head, sizeof(c->head), code, type, len);

	if (n < 0)
		return n;
	free(c->in);
	c->in = NULL;
	c->head_len = n;
	c->body = head_only ? NULL : body;
	c->body_len = head_only ? 0 : len;
	if (head_only)
		free(owned);
	else
		c->owned = owned;
	c->sent = 0;
	c->state = CONN_WRITE;
	c->deadline = now + s->lim.timeout_ms;
	conn_write(s, c, now);
	return 0;
}

/* One of the server's own error responses (format_head can't fail on these). */
static void conn_error(struct http_server *s, struct http_conn *c, int code, int64_t now)
{
	const struct http_status *st = status_of(code);
	const char *body = st && st->body ? st->body : "error\n";

	s->stats.errors++;
	if (conn_respond(s, c, code, HTTP_TEXT, body, NULL, strlen(body), false, now) < 0)
		conn_close(s, c, false);
}

/* A complete head, or an error in it: through the handler, or answered here. */
static void conn_answer(struct http_server *s, struct http_conn *c, int64_t now)
{
	struct http_response resp = { .status = 500, .content_type = HTTP_TEXT };
	struct http_request req;
	size_t used;
	int r;

	r = http_parse_request(c->in, c->in_len, s->lim.header_max, &req, &used);
	if (r == 1)
		return;
	if (r < 0) {
		conn_error(s, c, -r, now);
		return;
	}
	s->stats.requests++;
	s->handler(s->arg, &req, &resp);
	if (!resp.body)
		resp.len = 0;
	if (!resp.content_type)
		resp.content_type = HTTP_TEXT;
	/* RFC 9110 8.6: no Content-Length on a 1xx or 204, and a 304 has no body */
	if (resp.status < 200 || resp.status > 599 || resp.status == 204 || resp.status == 304 ||
	    conn_respond(s, c, resp.status, resp.content_type, resp.body, resp.body, resp.len,
			 !strcmp(req.method, "HEAD"), now) < 0) {
		free(resp.body);
		conn_error(s, c, 500, now);
	}
}

static void conn_read(struct http_server *s, struct http_conn *c, int64_t now)
{
	ssize_t n;

	/* never full here: http_parse_request ends every head at header_max */
	n = recv(c->fd, c->in + c->in_len, s->lim.header_max - c->in_len, MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		return;
	if (n <= 0) {
		/* gone before a complete head: an error only if it was a socket's */
		if (n < 0)
			s->stats.errors++;
		conn_close(s, c, false);
		return;
	}
	c->in_len += n;
	conn_answer(s, c, now);
}

/* After the response: what the client still sends is dropped until it closes. */
static void conn_drain(struct http_server *s, struct http_conn *c)
{
	char scratch[4096];
	ssize_t n = recv(c->fd, scratch, sizeof(scratch), MSG_DONTWAIT);

	if (n > 0 || (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)))
		return;
	conn_close(s, c, false);
}

/* A 408, best effort: one non-blocking send, whatever it takes. */
static void send_timeout(struct http_conn *c)
{
	const char *body = status_of(408)->body;
	size_t len = strlen(body);
	int n = format_head(c->head, sizeof(c->head), 408, HTTP_TEXT, len);

	if (n < 0 || (size_t)n + len > sizeof(c->head))
		return;
	memcpy(c->head + n, body, len);
	send(c->fd, c->head, n + len, MSG_NOSIGNAL | MSG_DONTWAIT);
}

static void conn_expire(struct http_server *s, struct http_conn *c, int64_t now)
{
	if (now < c->deadline)
		return;
	switch (c->state) {
	case CONN_READ:
		s->stats.timeouts++;
		send_timeout(c);
		conn_close(s, c, false);
		break;
	case CONN_WRITE:
		s->stats.timeouts++;
		conn_close(s, c, true);
		break;
	case CONN_LINGER:
		conn_close(s, c, false);
		break;
	case CONN_FREE:
		break;
	}
}

static void conn_ready(struct http_server *s, struct http_conn *c, int64_t now)
{
	switch (c->state) {
	case CONN_READ:
		conn_read(s, c, now);
		break;
	case CONN_WRITE:
		conn_write(s, c, now);
		break;
	case CONN_LINGER:
		conn_drain(s, c);
		break;
	case CONN_FREE:
		break;
	}
}

/* A slot for a new connection: false when there is none (or no memory for its head). */
static bool conn_open(struct http_server *s, int fd, int64_t now)
{
	struct http_conn *c = NULL;
	int i;

	if (s->stats.clients >= s->lim.max_clients)
		return false;
	for (i = 0; i < s->lim.max_clients && !c; i++)
		if (s->conns[i].state == CONN_FREE)
			c = &s->conns[i];
	if (!c)
		return false;
	c->in = malloc(s->lim.header_max);
	if (!c->in)
		return false;
	c->fd = fd;
	c->state = CONN_READ;
	c->in_len = 0;
	c->deadline = now + s->lim.timeout_ms;
	s->stats.clients++;
	return true;
}

static int accept_batch(struct http_server *s, int64_t now)
{
	int i, fd;

	for (i = 0; i < HTTP_ACCEPT_BATCH; i++) {
		fd = accept4(s->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			switch (errno) {
			case EBADF:
			case EFAULT:
			case EINVAL:
			case ENOTSOCK:
				return -errno;
			case EMFILE:
			case ENFILE:
			case ENOBUFS:
			case ENOMEM:
				/* the listener stays readable: polling it now would spin */
				s->paused_until = now + HTTP_PAUSE_MS;
				return 0;
			default:
				/* EAGAIN, or a network error accept(2) passes on from the
				 * new connection: the next step tries again */
				return 0;
			}
		}
		if (!conn_open(s, fd, now)) {
			send(fd, http_busy, sizeof(http_busy) - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
			close(fd);
			s->stats.rejected++;
		}
	}
	return 0;
}

/* poll's timeout: the smaller of wait (-1: none) and ms to a deadline */
static int min_wait(int wait, int64_t ms)
{
	if (ms < 0)
		ms = 0;
	if (ms > INT_MAX)
		ms = INT_MAX;
	return wait < 0 || ms < wait ? (int)ms : wait;
}

int http_step(struct http_server *s, int timeout_ms, int extra_fd)
{
	int i, n, nfds = 0, lfd = -1, efd = -1, wait = timeout_ms, ret = 0;
	int64_t now = now_ms();
	struct http_conn *c;

	if (!s)
		return -EINVAL;
	if (now >= s->paused_until) {
		s->pfds[nfds] = (struct pollfd){ .fd = s->fd, .events = POLLIN };
		lfd = nfds++;
	} else {
		wait = min_wait(wait, s->paused_until - now);
	}
	if (extra_fd >= 0) {
		s->pfds[nfds] = (struct pollfd){ .fd = extra_fd, .events = POLLIN };
		efd = nfds++;
	}
	for (i = 0; i < s->lim.max_clients; i++) {
		c = &s->conns[i];
		if (c->state == CONN_FREE)
			continue;
		s->pfds[nfds] = (struct pollfd){
			.fd = c->fd,
			.events = c->state == CONN_WRITE ? POLLOUT : POLLIN,
		};
		s->slot_of[nfds++] = i;
		wait = min_wait(wait, c->deadline - now);
	}

	n = poll(s->pfds, nfds, wait);
	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	now = now_ms();

	if (efd >= 0 && s->pfds[efd].revents) {
		if (s->pfds[efd].revents & POLLNVAL)
			return -EBADF;
		ret = 1;
	}
	for (i = 0; i < nfds; i++)
		if (i != lfd && i != efd && s->pfds[i].revents)
			conn_ready(s, &s->conns[s->slot_of[i]], now);
	for (i = 0; i < s->lim.max_clients; i++)
		if (s->conns[i].state != CONN_FREE)
			conn_expire(s, &s->conns[i], now);
	if (lfd >= 0 && s->pfds[lfd].revents) {
		if (s->pfds[lfd].revents & POLLNVAL)
			return -EBADF;
		n = accept_batch(s, now);
		if (n < 0)
			return n;
	}
	return ret;
}

/* ---- listening ---------------------------------------------------------- */

static int parse_port(const char *p, unsigned short *port)
{
	unsigned long v = 0;
	size_t i;

	for (i = 0; p[i]; i++) {
		if (p[i] < '0' || p[i] > '9' || i == 5)
			return -EINVAL;
		v = v * 10 + (p[i] - '0');
	}
	if (!i || v > 65535)
		return -EINVAL;
	*port = v;
	return 0;
}

/* ADDR:PORT strictly, into ss: 0 or -EINVAL with msg. No resolver (a static binary has no NSS). */
static int parse_listen(const char *spec, struct sockaddr_storage *ss, socklen_t *sl, char *msg,
			size_t msglen)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	char host[INET6_ADDRSTRLEN];
	const char *hs, *he, *ps;
	unsigned short port;
	bool v6 = spec[0] == '[';

	if (v6) {
		hs = spec + 1;
		he = strchr(hs, ']');
		if (!he) {
			snprintf(msg, msglen, "no ] after the IPv6 address");
			return -EINVAL;
		}
		if (he[1] && he[1] != ':') {
			snprintf(msg, msglen, "not :PORT after ]");
			return -EINVAL;
		}
		ps = he[1] ? he + 2 : he + 1;
	} else {
		he = strrchr(spec, ':');
		hs = spec;
		if (he && memchr(spec, ':', he - spec)) {
			snprintf(msg, msglen, "an IPv6 address goes in brackets, e.g. [::1]:9435");
			return -EINVAL;
		}
		ps = he ? he + 1 : spec + strlen(spec);
		if (!he)
			he = ps;
	}
	if (!*ps) {
		snprintf(msg, msglen, "no port (ADDR:PORT, e.g. 127.0.0.1:9435)");
		return -EINVAL;
	}
	if (parse_port(ps, &port)) {
		snprintf(msg, msglen, "port %s is not a number in 0..65535", ps);
		return -EINVAL;
	}
	if (he == hs) {
		snprintf(msg, msglen, "no address (0.0.0.0:%s for every IPv4 address, [::]:%s "
			 "for IPv6)", ps, ps);
		return -EINVAL;
	}
	if ((size_t)(he - hs) >= sizeof(host))
		goto not_addr;
	memcpy(host, hs, he - hs);
	host[he - hs] = '\0';

	memset(ss, 0, sizeof(*ss));
	if (v6) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
		if (inet_pton(AF_INET6, host, &sin6->sin6_addr) != 1)
			goto not_addr;
		*sl = sizeof(*sin6);
		return 0;
	}
	sin->sin_family = AF_INET;
	sin->sin_port = htons(port);
	*sl = sizeof(*sin);
	if (!strcasecmp(host, "localhost")) {
		sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		return 0;
	}
	if (inet_pton(AF_INET, host, &sin->sin_addr) == 1)
		return 0;
not_addr:
	snprintf(msg, msglen, "%.*s is not an address (an IPv4 address, [IPv6] or localhost)",
		 (int)(he - hs), hs);
	return -EINVAL;
}

static int set_limits(const struct http_limits *in, struct http_limits *l, char *msg,
		      size_t msglen)
{
	*l = in ? *in : (struct http_limits){ 0 };
	if (!l->max_clients)
		l->max_clients = HTTP_DEFAULT_MAX_CLIENTS;
	if (!l->header_max)
		l->header_max = HTTP_DEFAULT_HEADER_MAX;
	if (!l->timeout_ms)
		l->timeout_ms = HTTP_DEFAULT_TIMEOUT_MS;
	if (l->max_clients < 1 || l->max_clients > HTTP_MAX_CLIENTS_MAX) {
		snprintf(msg, msglen, "max_clients %d is not in 1..%d", l->max_clients,
			 HTTP_MAX_CLIENTS_MAX);
		return -EINVAL;
	}
	if (l->header_max < HTTP_HEADER_MAX_MIN || l->header_max > HTTP_HEADER_MAX_MAX) {
		snprintf(msg, msglen, "header_max %d is not in %d..%d", l->header_max,
			 HTTP_HEADER_MAX_MIN, HTTP_HEADER_MAX_MAX);
		return -EINVAL;
	}
	if (l->timeout_ms < 1 || l->timeout_ms > HTTP_TIMEOUT_MS_MAX) {
		snprintf(msg, msglen, "timeout_ms %d is not in 1..%d", l->timeout_ms,
			 HTTP_TIMEOUT_MS_MAX);
		return -EINVAL;
	}
	return 0;
}

static const char *bind_hint(int err)
{
	switch (err) {
	case EADDRINUSE:
		return " (another process listens there: pick another port)";
	case EACCES:
		return " (a port below 1024 needs CAP_NET_BIND_SERVICE)";
	case EADDRNOTAVAIL:
		return " (no interface of this host has that address)";
	default:
		return "";
	}
}

/* The listening socket for ss: the descriptor, or -errno with msg. */
static int open_listener(const struct sockaddr_storage *ss, socklen_t sl, int *port, char *msg,
			 size_t msglen)
{
	struct sockaddr_storage got;
	socklen_t gl = sizeof(got);
	const char *what;
	int fd, one = 1, err;

	fd = socket(ss->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		what = "socket";
		goto fail;
	}
	/* a restart must not wait out the last run's TIME_WAIT connections */
	what = "SO_REUSEADDR";
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)))
		goto fail;
	/* [::] means IPv6 only, whatever net.ipv6.bindv6only says */
	what = "IPV6_V6ONLY";
	if (ss->ss_family == AF_INET6 &&
	    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)))
		goto fail;
	what = "bind";
	if (bind(fd, (const struct sockaddr *)ss, sl))
		goto fail;
	what = "listen";
	if (listen(fd, SOMAXCONN))
		goto fail;
	what = "getsockname";
	if (getsockname(fd, (struct sockaddr *)&got, &gl))
		goto fail;
	*port = ntohs(got.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&got)->sin6_port :
						  ((struct sockaddr_in *)&got)->sin_port);
	return fd;
fail:
	err = errno;
	snprintf(msg, msglen, "%s: %s%s", what, strerror(err), bind_hint(err));
	if (fd >= 0)
		close(fd);
	return -err;
}

int http_listen(struct http_server **out, const char *listen, const struct http_limits *lim,
		http_handler h, void *arg, char *msg, size_t msglen)
{
	struct http_server *s = NULL;
	struct sockaddr_storage ss;
	struct http_limits l;
	socklen_t sl;
	int err, i;

	*out = NULL;
	if (msglen)
		msg[0] = '\0';
	if (!h) {
		snprintf(msg, msglen, "no handler");
		return -EINVAL;
	}
	if (!listen || !*listen) {
		snprintf(msg, msglen, "no address (ADDR:PORT, e.g. 127.0.0.1:9435)");
		return -EINVAL;
	}
	err = parse_listen(listen, &ss, &sl, msg, msglen);
	if (!err)
		err = set_limits(lim, &l, msg, msglen);
	if (err)
		return err;

	err = -ENOMEM;
	s = calloc(1, sizeof(*s));
	if (!s)
		goto nomem;
	s->fd = -1;
	s->lim = l;
	s->handler = h;
	s->arg = arg;
	s->conns = calloc(l.max_clients, sizeof(*s->conns));
	s->pfds = calloc(l.max_clients + 2, sizeof(*s->pfds));
	s->slot_of = calloc(l.max_clients + 2, sizeof(*s->slot_of));
	if (!s->conns || !s->pfds || !s->slot_of)
		goto nomem;
	for (i = 0; i < l.max_clients; i++)
		s->conns[i].fd = -1;
	s->fd = open_listener(&ss, sl, &s->port, msg, msglen);
	if (s->fd < 0) {
		err = s->fd;
		goto cleanup;
	}
	*out = s;
	return 0;
nomem:
	snprintf(msg, msglen, "out of memory");
cleanup:
	http_close(s);
	return err;
}

int http_port(const struct http_server *s)
{
	return s ? s->port : -EINVAL;
}

void http_get_stats(const struct http_server *s, struct http_stats *st)
{
	if (s)
		*st = s->stats;
	else
		memset(st, 0, sizeof(*st));
}

void http_close(struct http_server *s)
{
	int i;

	if (!s)
		return;
	for (i = 0; s->conns && i < s->lim.max_clients; i++)
		if (s->conns[i].state != CONN_FREE)
			conn_close(s, &s->conns[i], false);
	if (s->fd >= 0)
		close(s->fd);
	free(s->conns);
	free(s->pfds);
	free(s->slot_of);
	free(s);
}
