/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A minimal HTTP/1.1 server for kptrace serve's /metrics and /healthz: GET
 * and HEAD, one request per connection, single-threaded on poll(2) with
 * non-blocking sockets. libmicrohttpd can't be linked into the static binary
 * (its archive needs gnutls, whose static link needs libp11-kit, which
 * Debian ships shared only), and an exporter needs little more than this.
 *
 * Bad clients are bounded, not trusted: a connection holds at most
 * header_max bytes of request head and its one response, has timeout_ms to
 * send a complete head and timeout_ms more to take its response, and past
 * max_clients a new connection gets a fixed 503 and is closed at once.
 * Every response carries Content-Length and "Connection: close"; the
 * connection is closed once the response is written.
 */
#ifndef KPT_HTTP_H
#define KPT_HTTP_H

#include <stddef.h>
#include <stdint.h>

#define HTTP_DEFAULT_MAX_CLIENTS	64
#define HTTP_DEFAULT_HEADER_MAX		8192
#define HTTP_DEFAULT_TIMEOUT_MS		10000

struct http_request {
	char method[8];		/* "GET", "HEAD" */
	char path[256];		/* without the query string */
	char accept[256];	/* the Accept header's value, "" if none (OpenMetrics) */
};

struct http_response {
	int status;			/* 200, 404, ... */
	const char *content_type;	/* static string */
	char *body;			/* malloc'd by the handler; the server frees it */
	size_t len;
};

/*
 * Called once per complete, valid request. resp starts as status 500,
 * "text/plain; charset=utf-8", no body: a handler that can't build its answer
 * may just return. For HEAD the handler builds the body as for GET; the
 * server sends only its length.
 */
typedef void (*http_handler)(void *arg, const struct http_request *req, struct http_response *resp);

/* 0: defaults (64 clients, 8192 bytes, 10000 ms) */
struct http_limits {
	int max_clients;
	int header_max;
	int timeout_ms;
};

struct http_server;

/*
 * Parse one request head from buf[0..len): 0 complete (*used: bytes of the
 * head), 1 incomplete, or -STATUS for an error response:
 *
 *   -400  malformed: a bad request line or header line, a target that is
 *         not an absolute path or has control or non-ASCII bytes, a bare CR,
 *         a folded header, an HTTP/1.1 request without exactly one Host, or
 *         a request body (Content-Length other than 0, or Transfer-Encoding:
 *         bodies are not supported)
 *   -405  method not GET or HEAD (methods are case-sensitive)
 *   -414  the path (before '?') is over 255 bytes, or the target (with its
 *         query) does not end within header_max
 *   -431  the head does not end within header_max bytes
 *   -505  not HTTP/1.x
 *
 * Lines end in CRLF or a bare LF (RFC 9112 2.2 allows a server to accept
 * LF); empty lines before the request line are skipped. The Accept header's
 * value (several are joined with ", ") is cut at its last comma that fits,
 * so no media range is kept half. header_max 0 is the default (8192). Only
 * buf[0..header_max) is looked at, so the result for len >= header_max is
 * never 1, and an error, once returned for a prefix, stays the same for
 * every longer buffer. req is filled on 0 only (zeroed otherwise), *used is
 * 0 unless 0 is returned. Pure: no I/O, fuzzed.
 */
int http_parse_request(const char *buf, size_t len, size_t header_max, struct http_request *req,
		       size_t *used);

/*
 * Listen on ADDR:PORT ("127.0.0.1:9435", "[::1]:9435", "localhost:9435";
 * port 0 picks one). ADDR is an IPv4 address, an IPv6 address in brackets,
 * or localhost (127.0.0.1, not resolved: a static binary has no NSS).
 * 0 or -errno with msg: what is wrong, for the caller to print after the
 * option and its value ("no port (ADDR:PORT, e.g. 127.0.0.1:9435)", "bind:
 * Address already in use (...)"). lim may be NULL.
 */
int http_listen(struct http_server **out, const char *listen, const struct http_limits *lim,
		http_handler h, void *arg, char *msg, size_t msglen);
int http_port(const struct http_server *s);	/* the bound port (for port 0) */

/*
 * One round of the server: poll its sockets and extra_fd (may be -1) for up
 * to timeout_ms (-1: until something happens or a connection's deadline),
 * accept, read, answer complete requests through the handler, write what the
 * sockets take, close finished or timed-out connections. Returns 1 when
 * extra_fd is readable, 0 otherwise, -errno on a fatal error. EINTR is not
 * fatal (returns 0).
 */
int http_step(struct http_server *s, int timeout_ms, int extra_fd);

/*
 * Counters for the exporter's own metrics: requests passed to the handler;
 * errors: requests the server refused itself (its own 4xx/5xx) and
 * connections lost to a socket error; rejected: connections refused with the
 * fixed 503 (max_clients reached, or no memory for one more); timeouts:
 * connections closed at their deadline (a head not complete: a 408 is tried
 * first; a response not taken: reset); clients: connections open now.
 */
struct http_stats {
	uint64_t requests, errors, rejected, timeouts;
	int clients;
};
void http_get_stats(const struct http_server *s, struct http_stats *st);

void http_close(struct http_server *s);	/* NULL-safe */

#endif /* KPT_HTTP_H */
