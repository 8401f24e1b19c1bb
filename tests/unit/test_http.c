// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * http: the request head parser by table (good heads, every error status,
 * each row's prefixes: a good head is incomplete up to its last byte, a bad
 * one incomplete or the same error; the limits at and one past), the
 * --listen parser's messages, then a live server on 127.0.0.1 port 0 with
 * a client thread: GET byte for byte, HEAD, 404, Accept, garbage, 405, 431,
 * a slowloris timed out, max_clients' 503s, a client that never reads 4 MB
 * beside one served meanwhile, a client gone mid-response, and a burst of
 * 1000 connections each answered. Every wait has a deadline.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include "check.h"
#include "serve/http.h"

/* ---- the parser ------------------------------------------------------------ */

#define IN(s) s, sizeof(s) - 1
#define H11 "Host: x\r\n"
/* a head the parser refuses: -STATUS, with header_max LIM's or the default */
#define BAD(s, err) { IN(s), 0, err, NULL, NULL, NULL, 0 }
#define LIM(s, hm, err) { IN(s), hm, err, NULL, NULL, NULL, 0 }

struct parse_row {
	const char *in;
	size_t len;
	size_t header_max;	/* 0: the default */
	int ret;
	const char *method, *path, *accept;
	long used;		/* -1: all of in */
};

static const struct parse_row parse_rows[] = {
	/* good heads */
	{ IN("GET / HTTP/1.1\r\n" H11 "\r\n"), 0, 0, "GET", "/", "", -1 },
	{ IN("HEAD /metrics HTTP/1.0\r\n\r\n"), 0, 0, "HEAD", "/metrics", "", -1 },
	{ IN("GET /metrics?name[]=up&x=%20 HTTP/1.1\r\n" H11 "\r\n"), 0, 0, "GET", "/metrics", "",
	  -1 },
	{ IN("GET /? HTTP/1.1\r\n" H11 "\r\n"), 0, 0, "GET", "/", "", -1 },
	{ IN("GET /a?b?c HTTP/1.1\r\n" H11 "\r\n"), 0, 0, "GET", "/a", "", -1 },
	{ IN("GET //a/../b/%2e HTTP/1.1\r\n" H11 "\r\n"), 0, 0, "GET", "//a/../b/%2e", "", -1 },
	/* bare LF, mixed, and an empty line before the request line */
	{ IN("GET / HTTP/1.1\nHost: x\n\n"), 0, 0, "GET", "/", "", -1 },
	{ IN("GET / HTTP/1.1\r\nHost: x\n\r\n"), 0, 0, "GET", "/", "", -1 },
	{ IN("\r\n\nGET / HTTP/1.0\r\n\r\n"), 0, 0, "GET", "/", "", -1 },
	/* bytes after the head are not the head's */
	{ IN("GET / HTTP/1.0\r\n\r\nGET /next HTTP/1.0\r\n\r\n"), 0, 0, "GET", "/", "", 18 },
	/* a higher minor version is still 1.x */
	{ IN("GET / HTTP/1.9\r\n" H11 "\r\n"), 0, 0, "GET", "/", "", -1 },
	/* header names in any case, OWS trimmed, several Accepts joined */
	{ IN("GET / HTTP/1.1\r\nhOsT: x\r\nACCEPT:  \t application/openmetrics-text;"
	     "version=1.0.0,text/plain;q=0.5 \t\r\n\r\n"),
	  0, 0, "GET", "/", "application/openmetrics-text;version=1.0.0,text/plain;q=0.5", -1 },
	{ IN("GET / HTTP/1.1\r\naccept: a/b\r\n" H11 "Accept: c/d;q=0.1\r\n\r\n"), 0, 0, "GET", "/",
	  "a/b, c/d;q=0.1", -1 },
	{ IN("GET / HTTP/1.1\r\nAccept:\r\n" H11 "\r\n"), 0, 0, "GET", "/", "", -1 },
	{ IN("GET / HTTP/1.1\r\nAccepts: a/b\r\nX-Accept: c/d\r\n" H11 "\r\n"), 0, 0, "GET", "/",
	  "", -1 },
	/* an empty Host is allowed (RFC 9112 3.2), and so are a zero body, tabs, obs-text */
	{ IN("GET / HTTP/1.1\r\nHost:\r\n\r\n"), 0, 0, "GET", "/", "", -1 },
	{ IN("GET / HTTP/1.1\r\n" H11 "Content-Length: 0\r\ncontent-length: 000\r\n\r\n"), 0, 0,
	  "GET", "/", "", -1 },
	{ IN("GET / HTTP/1.1\r\n" H11 "User-Agent: a\tb \xc3\xa9\xff\r\nX:\r\n\r\n"), 0, 0, "GET",
	  "/", "", -1 },
	{ IN("GET / HTTP/1.1\r\n" H11 "!#$%&'*+-.^_`|~09azAZ: v\r\n\r\n"), 0, 0, "GET", "/", "",
	  -1 },

	/* 405: methods other than GET and HEAD, case-sensitive; 8 token bytes decide at once */
	BAD("OPTIONS / HTTP/1.1\r\n" H11 "\r\n", -405),
	BAD("POST / HTTP/1.1\r\n" H11 "\r\n", -405),
	BAD("get / HTTP/1.1\r\n" H11 "\r\n", -405),
	BAD("GETS / HTTP/1.1\r\n" H11 "\r\n", -405),
	BAD("HEADHEAD", -405),
	BAD("PROPFIND / HTTP/1.1\r\n\r\n", -405),
	/* 400: the request line */
	BAD("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", -400),
	BAD("\0GET / HTTP/1.1\r\n\r\n", -400),
	BAD(" GET / HTTP/1.1\r\n" H11 "\r\n", -400),
	BAD("\rGET / HTTP/1.1\r\n" H11 "\r\n", -400),
	BAD("GET\t/ HTTP/1.1\r\n" H11 "\r\n", -400),
	BAD("GET  / HTTP/1.1\r\n" H11 "\r\n", -400),
	BAD("GET http://x/ HTTP/1.1\r\n" H11 "\r\n", -400),
	BAD("GET * HTTP/1.1\r\n" H11 "\r\n", -400),
	BAD("GET metrics HTTP/1.1\r\n" H11 "\r\n", -400),
	BAD("GET /a\x01 HTTP/1.1\r\n" H11 "\r\n", -400),
	BAD("GET /a\tb HTTP/1.1\r\n" H11 "\r\n", -400),
	BAD("GET /a\x7f HTTP/1.1\r\n" H11 "\r\n", -400),
	BAD("GET /\xc3\xa9 HTTP/1.1\r\n" H11 "\r\n", -400),
	BAD("GET /a\0b HTTP/1.1\r\n" H11 "\r\n", -400),
	BAD("GET /\r\n\r\n", -400),
	BAD("GET / \r\n\r\n", -400),
	BAD("GET / http/1.1\r\n" H11 "\r\n", -400),
	BAD("GET / HTTP/1.10\r\n" H11 "\r\n", -400),
	BAD("GET / HTTP/1.1 \r\n" H11 "\r\n", -400),
	BAD("GET / HTTP/1.\r\n" H11 "\r\n", -400),
	BAD("GET / HTTP/1x1\r\n" H11 "\r\n", -400),
	BAD("GET / HTTP/x.1\r\n" H11 "\r\n", -400),
	BAD("GET / HTTP/1.1\rHost: x\r\n\r\n", -400),
	BAD("GET / HTTP/1.1\r\r\n" H11 "\r\n", -400),
	/* 505: not HTTP/1.x */
	BAD("GET / HTTP/2.0\r\n" H11 "\r\n", -505),
	BAD("GET / HTTP/0.9\r\n\r\n", -505),
	BAD("GET / HTTP/3", -505),
	/* 400: the header lines */
	BAD("GET / HTTP/1.1\r\n\r\n", -400),
	BAD("GET / HTTP/1.1\r\nHost: a\r\nhost: b\r\n\r\n", -400),
	BAD("GET / HTTP/1.0\r\nHost: a\r\nHost: a\r\n\r\n", -400),
	BAD("GET / HTTP/1.1\r\nHost : x\r\n\r\n", -400),
	BAD("GET / HTTP/1.1\r\n" H11 "X-A: 1\r\n  folded\r\n\r\n", -400),
	BAD("GET / HTTP/1.1\r\n" H11 "\tfolded\r\n\r\n", -400),
	BAD("GET / HTTP/1.1\r\n" H11 "NoColon\r\n\r\n", -400),
	BAD("GET / HTTP/1.1\r\n" H11 ": no name\r\n\r\n", -400),
	BAD("GET / HTTP/1.1\r\n" H11 "X(y): z\r\n\r\n", -400),
	BAD("GET / HTTP/1.1\r\n" H11 "X: a\x01z\r\n\r\n", -400),
	BAD("GET / HTTP/1.1\r\n" H11 "X: a\0z\r\n\r\n", -400),
	BAD("GET / HTTP/1.1\r\n" H11 "X: a\x7fz\r\n\r\n", -400),
	BAD("GET / HTTP/1.1\r\n" H11 "X: a\rz\r\n\r\n", -400),
	BAD("GET / HTTP/1.1\r\n" H11 "\r\r\n", -400),
	/* 400: a request body, or what would say there is one */
	BAD("GET / HTTP/1.1\r\n" H11 "Content-Length: 5\r\n\r\nhello", -400),
	BAD("GET / HTTP/1.1\r\n" H11 "Content-Length: 01\r\n\r\n", -400),
	BAD("GET / HTTP/1.1\r\n" H11 "Content-Length:\r\n\r\n", -400),
	BAD("GET / HTTP/1.1\r\n" H11 "Content-Length: -0\r\n\r\n", -400),
	BAD("GET / HTTP/1.1\r\n" H11 "Content-Length: 0, 0\r\n\r\n", -400),
	BAD("GET / HTTP/1.1\r\n" H11 "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n", -400),
	BAD("GET / HTTP/1.1\r\n" H11 "transfer-encoding: identity\r\n\r\n", -400),
	/* the limits, small: the head must end within header_max */
	{ IN("GET / HTTP/1.0\r\n\r\n"), 18, 0, "GET", "/", "", -1 },
	LIM("GET / HTTP/1.0\r\n\r\n", 17, -431),
	LIM("GET / HTTP/1.0\r\n\r\n", 16, -431),
	{ IN("GET / HTTP/1.0\r\n\r\nmore"), 18, 0, "GET", "/", "", 18 },
	LIM("\r\n\r\n\r\n\r\n", 8, -431),
	LIM("GET /abcdefgh", 13, -414),
	LIM("GET /?abcdefgh", 14, -414),
	LIM("GET / HTTP/1.0", 14, -431),
	LIM("GET", 3, -431),
};

static void check_row(const struct parse_row *r, int i)
{
	struct http_request req;
	size_t used = 12345, k, want_used = r->used < 0 ? r->len : (size_t)r->used;
	int ret, bad = 0;
	char ctx[64];

	snprintf(ctx, sizeof(ctx), "row %d", i);
	ret = http_parse_request(r->in, r->len, r->header_max, &req, &used);
	CHECK_INT(ret, r->ret, ctx);
	if (ret == 0 && r->ret == 0) {
		CHECK_STR(req.method, r->method, ctx);
		CHECK_STR(req.path, r->path, ctx);
		CHECK_STR(req.accept, r->accept, ctx);
		CHECK_INT(used, want_used, ctx);
	} else {
		CHECK(!used && !req.method[0] && !req.path[0] && !req.accept[0],
		      "%s: a result other than 0 left used %zu, method \"%s\"", ctx, used,
		      req.method);
	}
	/* every split point: incomplete before the head's end, the same after;
	 * a bad head is incomplete or the same error from its first byte on */
	for (k = 0; k < r->len; k++) {
		int rk = http_parse_request(r->in, k, r->header_max, &req, &used);

		if (r->ret == 0 ? (k < want_used ? rk != 1 : rk != 0 || used != want_used) :
				  rk != 1 && rk != r->ret) {
			if (!bad++)
				fprintf(stderr, "%s: prefix %zu returned %d\n", ctx, k, rk);
		}
	}
	CHECK(!bad, "%s: %d prefixes wrong", ctx, bad);
}

/* A head of exactly n bytes: a request line, Host, and a filler header. */
static char *head_of(size_t n)
{
	static const char start[] = "GET /lim HTTP/1.1\r\nHost: x\r\nX-Fill: ";
	char *b = malloc(n + 1);
	size_t fill = n - (sizeof(start) - 1) - 4;

	memcpy(b, start, sizeof(start) - 1);
	memset(b + sizeof(start) - 1, 'f', fill);
	memcpy(b + n - 4, "\r\n\r\n", 5);
	return b;
}

static void test_limits(void)
{
	struct http_request req;
	char path[300], line[400];
	size_t used;
	char *b;

	/* the head exactly at header_max, then one byte over */
	b = head_of(1024);
	CHECK_INT(http_parse_request(b, 1024, 1024, &req, &used), 0, "1024 at 1024");
	CHECK_INT(used, 1024, "used at the limit");
	CHECK_INT(http_parse_request(b, 1024, 1023, &req, &used), -431, "1024 at 1023");
	CHECK_INT(http_parse_request(b, 1023, 1023, &req, &used), -431, "1023 bytes at 1023");
	CHECK_INT(http_parse_request(b, 1022, 1023, &req, &used), 1, "1022 bytes at 1023");
	free(b);
	/* header_max 0 is 8192 */
	b = head_of(8192);
	CHECK_INT(http_parse_request(b, 8192, 0, &req, &used), 0, "8192 at the default");
	free(b);
	b = head_of(8193);
	CHECK_INT(http_parse_request(b, 8193, 0, &req, &used), -431, "8193 at the default");
	CHECK_INT(http_parse_request(b, 8192, 0, &req, &used), -431, "8192 of 8193");
	CHECK_INT(http_parse_request(b, 8191, 0, &req, &used), 1, "8191 of 8193");
	free(b);

	/* a path of 255 bytes fits path[256]; 256 is 414, decided at its 256th byte */
	path[0] = '/';
	memset(path + 1, 'p', 254);
	path[255] = '\0';
	snprintf(line, sizeof(line), "GET %s HTTP/1.1\r\nHost: x\r\n\r\n", path);
	CHECK_INT(http_parse_request(line, strlen(line), 0, &req, &used), 0, "path 255");
	CHECK_STR(req.path, path, "path 255");
	snprintf(line, sizeof(line), "GET %sq?%s HTTP/1.1\r\nHost: x\r\n\r\n", path, path);
	CHECK_INT(http_parse_request(line, strlen(line), 0, &req, &used), -414, "path 256");
	CHECK_INT(http_parse_request(line, 4 + 256, 0, &req, &used), -414, "256 bytes of path");
	CHECK_INT(http_parse_request(line, 4 + 255, 0, &req, &used), 1, "255 bytes of path");
	/* the query doesn't count against path[]: only header_max bounds it */
	snprintf(line, sizeof(line), "GET /q?%s HTTP/1.1\r\nHost: x\r\n\r\n", path);
	CHECK_INT(http_parse_request(line, strlen(line), 0, &req, &used), 0, "long query");
	CHECK_STR(req.path, "/q", "long query");
	CHECK_INT(http_parse_request(line, strlen(line), 100, &req, &used), -414,
		  "query past header_max");
}

/* An Accept over 255 bytes is cut at its last comma that fits. */
static void test_accept_cut(void)
{
	char hdr[1024], want[300], line[1300];
	struct http_request req;
	size_t used, n = 0, i;

	for (i = 0; i < 40; i++) {
		char one[32];

		snprintf(one, sizeof(one), "%stype/sub%02zu;q=0.%zu", i ? ", " : "", i, i % 10);
		strcpy(hdr + n, one);
		n += strlen(one);
		if (n <= 255)
			strcpy(want, hdr);
	}
	snprintf(line, sizeof(line), "GET / HTTP/1.1\r\nHost: x\r\nAccept: %s\r\n\r\n", hdr);
	CHECK_INT(http_parse_request(line, strlen(line), 0, &req, &used), 0, "long accept");
	CHECK_STR(req.accept, want, "long accept, cut at a comma");
	/* a first value that fills it: the second is left out, not half kept */
	snprintf(line, sizeof(line),
		 "GET / HTTP/1.1\r\nHost: x\r\nAccept: %s\r\nAccept: a/b\r\n\r\n", want);
	CHECK_INT(http_parse_request(line, strlen(line), 0, &req, &used), 0, "two accepts");
	CHECK(!strcmp(req.accept, want) || (strlen(req.accept) <= 255 &&
	      !strncmp(req.accept, want, strlen(want))), "two accepts: \"%s\"", req.accept);
	/* no comma within 255 bytes: nothing rather than a cut media range */
	memset(hdr, 'a', 300);
	hdr[300] = '\0';
	snprintf(line, sizeof(line), "GET / HTTP/1.1\r\nHost: x\r\nAccept: %s,b/c\r\n\r\n", hdr);
	CHECK_INT(http_parse_request(line, strlen(line), 0, &req, &used), 0, "no comma");
	CHECK_STR(req.accept, "", "no comma within the room");
}

static void test_parse(void)
{
	struct http_request req;
	size_t used = 7, i;

	for (i = 0; i < sizeof(parse_rows) / sizeof(parse_rows[0]); i++)
		check_row(&parse_rows[i], i);
	CHECK_INT(http_parse_request("", 0, 0, &req, &used), 1, "empty");
	CHECK_INT(used, 0, "empty: used");
	test_limits();
	test_accept_cut();
}

/* ---- --listen ---------------------------------------------------------------- */

static void nop_handler(void *arg, const struct http_request *req, struct http_response *resp)
{
	(void)arg;
	(void)req;
	resp->status = 200;
}

#define NOT_ADDR "is not an address (an IPv4 address, [IPv6] or localhost)"

/* msg is what is wrong; the caller prints it after "--listen SPEC: " */
static const struct {
	const char *spec;
	const char *msg;	/* all of it */
} listen_bad[] = {
	{ "", "no address (ADDR:PORT, e.g. 127.0.0.1:9435)" },
	{ "127.0.0.1", "no port (ADDR:PORT, e.g. 127.0.0.1:9435)" },
	{ "127.0.0.1:", "no port (ADDR:PORT, e.g. 127.0.0.1:9435)" },
	{ "[::1]", "no port (ADDR:PORT, e.g. 127.0.0.1:9435)" },
	{ "[::1]:", "no port (ADDR:PORT, e.g. 127.0.0.1:9435)" },
	{ "127.0.0.1:65536", "port 65536 is not a number in 0..65535" },
	{ "127.0.0.1:-1", "port -1 is not a number in 0..65535" },
	{ "127.0.0.1:+80", "port +80 is not a number in 0..65535" },
	{ "127.0.0.1:80 ", "port 80  is not a number in 0..65535" },
	{ "127.0.0.1:0x50", "port 0x50 is not a number in 0..65535" },
	{ "127.0.0.1:000080", "port 000080 is not a number in 0..65535" },
	{ ":9435", "no address (0.0.0.0:9435 for every IPv4 address, [::]:9435 for IPv6)" },
	{ "[]:9435", "no address (0.0.0.0:9435 for every IPv4 address, [::]:9435 for IPv6)" },
	{ "::1:9435", "an IPv6 address goes in brackets, e.g. [::1]:9435" },
	{ "[::1:9435", "no ] after the IPv6 address" },
	{ "[::1]9435", "not :PORT after ]" },
	{ "example.com:80", "example.com " NOT_ADDR },
	{ "127.1:80", "127.1 " NOT_ADDR },
	{ "1.2.3.4.5:80", "1.2.3.4.5 " NOT_ADDR },
	{ "[127.0.0.1]:80", "127.0.0.1 " NOT_ADDR },
	{ "[fe80::1%lo]:80", "fe80::1%lo " NOT_ADDR },
};

static void test_listen(void)
{
	struct http_limits bad_lim[] = { { -1, 0, 0 }, { 5000, 0, 0 }, { 0, 10, 0 }, { 0, 0, -5 } };
	struct http_server *s, *t;
	char msg[256], ctx[64];
	size_t i;
	int err;

	for (i = 0; i < sizeof(listen_bad) / sizeof(listen_bad[0]); i++) {
		s = (struct http_server *)1;
		err = http_listen(&s, listen_bad[i].spec, NULL, nop_handler, NULL, msg,
				  sizeof(msg));
		snprintf(ctx, sizeof(ctx), "--listen '%s'", listen_bad[i].spec);
		CHECK_INT(err, -EINVAL, ctx);
		CHECK(!s, "%s: *out not NULL", ctx);
		CHECK_STR(msg, listen_bad[i].msg, ctx);
	}
	for (i = 0; i < sizeof(bad_lim) / sizeof(bad_lim[0]); i++) {
		err = http_listen(&s, "127.0.0.1:0", &bad_lim[i], nop_handler, NULL, msg,
				  sizeof(msg));
		CHECK(err == -EINVAL && strstr(msg, " is not in "), "limits %zu: %d %s", i, err,
		      msg);
	}

	err = http_listen(&s, "localhost:0", NULL, nop_handler, NULL, msg, sizeof(msg));
	CHECK(!err && http_port(s) > 0, "localhost:0: %d %s", err, msg);
	if (!err) {
		/* the same port again: in use, and the message says so */
		char spec[32];

		snprintf(spec, sizeof(spec), "127.0.0.1:%d", http_port(s));
		err = http_listen(&t, spec, NULL, nop_handler, NULL, msg, sizeof(msg));
		CHECK(err == -EADDRINUSE && !t, "second bind: %d", err);
		CHECK_STR(msg, "bind: Address already in use (another process listens there: "
			  "pick another port)", "second bind");
		/* nothing to do: a step times out and returns 0 */
		CHECK_INT(http_step(s, 1, -1), 0, "an idle step");
	}
	http_close(s);
	err = http_listen(&s, "[::1]:0", NULL, nop_handler, NULL, msg, sizeof(msg));
	if (err == -EADDRNOTAVAIL || err == -EAFNOSUPPORT)
		fprintf(stderr, "note: no IPv6 loopback here (%s): [::1] not tried\n", msg);
	else
		CHECK(!err && http_port(s) > 0, "[::1]:0: %d %s", err, msg);
	http_close(s);
	http_close(NULL);
	CHECK_INT(http_step(NULL, 0, -1), -EINVAL, "step NULL");
}

/* ---- the live server ------------------------------------------------------------ */

#define METRICS_LEN	(100 * 1024 + 7)
#define BIG_LEN		(4 << 20)
/* the server's deadline: long enough that a loaded machine (a shared CI
 * host, ASan doubling the work) still serves another client well inside
 * it, so the checks below judge the server, not the load */
#define TIMEOUT_MS	1000
#define MAX_CLIENTS	4
#define BURST		1000

struct live {
	struct http_server *s;
	int port;
	char *metrics;		/* every byte value, in an order that shows a shift */
	int seen503;		/* the client thread's count of the server's rejections */
	int done[2];		/* the client thread's end, through extra_fd */
};

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static char *dup_body(const char *s, size_t n)
{
	char *b = malloc(n ? n : 1);

	if (b)
		memcpy(b, s, n);
	return b;
}

/* Runs in the server's thread, like the exporter's: nothing here CHECKs. */
static void live_handler(void *arg, const struct http_request *req, struct http_response *resp)
{
	struct live *l = arg;
	struct http_stats st;
	char buf[32];

	resp->status = 200;
	if (!strcmp(req->path, "/metrics")) {
		resp->content_type = "text/plain; version=0.0.4; charset=utf-8";
		resp->body = dup_body(l->metrics, METRICS_LEN);
		resp->len = METRICS_LEN;
	} else if (!strcmp(req->path, "/big")) {
		resp->body = malloc(BIG_LEN);
		if (resp->body)
			memset(resp->body, 'b', BIG_LEN);
		resp->len = BIG_LEN;
	} else if (!strcmp(req->path, "/accept")) {
		resp->body = dup_body(req->accept, strlen(req->accept));
		resp->len = strlen(req->accept);
	} else if (!strcmp(req->path, "/clients")) {
		http_get_stats(l->s, &st);
		snprintf(buf, sizeof(buf), "%d", st.clients);
		resp->body = dup_body(buf, strlen(buf));
		resp->len = strlen(buf);
	} else if (!strcmp(req->path, "/healthz")) {
		resp->body = dup_body("ok\n", 3);
		resp->len = 3;
	} else {
		resp->status = 404;
		resp->body = dup_body("not found\n", 10);
		resp->len = 10;
	}
}

static int dial(int port, int rcvbuf)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	struct timeval tv = { .tv_sec = 2 };	/* bounds connect() and send() */
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (rcvbuf)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	if (connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

static int send_all(int fd, const char *buf, size_t len)
{
	ssize_t n;

	while (len) {
		n = send(fd, buf, len, MSG_NOSIGNAL);
		if (n < 0)
			return -errno;
		buf += n;
		len -= n;
	}
	return 0;
}

/*
 * Read until EOF (or a reset after some data: a server's close with input
 * unread) within ms; buf NULL counts only. The count, or -errno.
 */
static ssize_t read_all(int fd, char *buf, size_t cap, int ms)
{
	int64_t end = now_ms() + ms;
	char scratch[65536];
	size_t n = 0;
	ssize_t k;

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int64_t left = end - now_ms();

		if (left <= 0 || poll(&p, 1, left) == 0)
			return -ETIMEDOUT;
		if (buf && n == cap)
			return -E2BIG;
		k = buf ? recv(fd, buf + n, cap - n, MSG_DONTWAIT) :
			  recv(fd, scratch, sizeof(scratch), MSG_DONTWAIT);
		if (k == 0)
			return n;
		if (k < 0 && errno == ECONNRESET && n)
			return n;
		if (k < 0 && errno != EAGAIN && errno != EINTR)
			return -errno;
		if (k > 0)
			n += k;
	}
}

struct resp {
	int status;
	long clen;		/* Content-Length, -1 if none */
	const char *body;
	size_t body_len;
	const char *head;	/* NUL-terminated copy */
	char headbuf[1024];
};

/* The response in buf[0..n): false if it isn't one with every header we promise. */
static bool parse_resp(const char *buf, ssize_t n, struct resp *r)
{
	const char *end, *cl;

	memset(r, 0, sizeof(*r));
	r->clen = -1;
	if (n < 12 || memcmp(buf, "HTTP/1.1 ", 9))
		return false;
	r->status = atoi(buf + 9);
	end = memmem(buf, n, "\r\n\r\n", 4);
	if (!end || end + 4 - buf >= (long)sizeof(r->headbuf))
		return false;
	memcpy(r->headbuf, buf, end + 4 - buf);
	r->headbuf[end + 4 - buf] = '\0';
	r->head = r->headbuf;
	r->body = end + 4;
	r->body_len = n - (end + 4 - buf);
	cl = strstr(r->head, "\r\nContent-Length: ");
	if (cl)
		r->clen = atol(cl + 18);
	/* the fixed 503 has no Date (RFC 9110 6.6.1: optional on a 5xx) */
	return cl && strstr(r->head, "\r\nConnection: close\r\n") &&
	       strstr(r->head, "\r\nContent-Type: ") &&
	       (r->status == 503 || strstr(r->head, "\r\nDate: "));
}

/* One connection: send req, read the whole response. The bytes read, or -errno. */
static ssize_t roundtrip(int port, const char *req, size_t len, char *buf, size_t cap)
{
	int fd = dial(port, 0);
	ssize_t n;

	if (fd < 0)
		return fd;
	n = send_all(fd, req, len);
	if (!n)
		n = read_all(fd, buf, cap, 2000);
	close(fd);
	return n;
}

/* A request and its response's status and body (want_body NULL: not compared). */
static void expect(struct live *l, const char *what, const char *req, size_t len, int status,
		   const char *want_body, size_t want_len)
{
	size_t cap = METRICS_LEN + 4096;
	char *buf = malloc(cap);
	struct resp r;
	ssize_t n;

	n = roundtrip(l->port, req, len, buf, cap);
	CHECK(n > 0 && parse_resp(buf, n, &r), "%s: %zd bytes, not a full response", what, n);
	if (n > 0 && parse_resp(buf, n, &r)) {
		CHECK(r.status == status, "%s: status %d, want %d", what, r.status, status);
		CHECK(r.clen == (long)r.body_len, "%s: Content-Length %ld, body %zu", what, r.clen,
		      r.body_len);
		if (want_body)
			CHECK(r.body_len == want_len && !memcmp(r.body, want_body, want_len),
			      "%s: body of %zu bytes is not the %zu wanted", what, r.body_len,
			      want_len);
	}
	free(buf);
}

static void live_basic(struct live *l)
{
	char buf[4096], req[3000];
	struct resp r;
	ssize_t n;

	expect(l, "GET /metrics", IN("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"), 200, l->metrics,
	       METRICS_LEN);
	n = roundtrip(l->port, IN("HEAD /metrics?x=1 HTTP/1.1\r\nHost: x\r\n\r\n"), buf,
		      sizeof(buf));
	CHECK(n > 0 && parse_resp(buf, n, &r) && r.status == 200 && r.clen == METRICS_LEN &&
	      !r.body_len && strstr(r.head, "Content-Type: text/plain; version=0.0.4"),
	      "HEAD: %zd bytes, status %d, Content-Length %ld, %zu of body", n, r.status, r.clen,
	      r.body_len);
	expect(l, "404", IN("GET /nope HTTP/1.0\r\n\r\n"), 404, IN("not found\n"));
	expect(l, "Accept", IN("GET /accept HTTP/1.1\nHost: x\naccept: application/"
			       "openmetrics-text; version=1.0.0\n\n"),
	       200, IN("application/openmetrics-text; version=1.0.0"));
	expect(l, "garbage", IN("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03"), 400,
	       IN("bad request\n"));
	expect(l, "no Host", IN("GET /healthz HTTP/1.1\r\n\r\n"), 400, IN("bad request\n"));
	expect(l, "body", IN("GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"),
	       400, IN("bad request\n"));
	n = roundtrip(l->port, IN("POST /metrics HTTP/1.1\r\nHost: x\r\n\r\n"), buf, sizeof(buf));
	CHECK(n > 0 && parse_resp(buf, n, &r) && r.status == 405 &&
	      strstr(r.head, "\r\nAllow: GET, HEAD\r\n"), "POST: %zd, status %d", n, r.status);
	expect(l, "HTTP/2", IN("GET / HTTP/2.0\r\n\r\n"), 505, IN("only HTTP/1.x\n"));
	/* header_max is 2048 here: a 2900-byte head is refused, and the response
	 * arrives although the rest of the head is never read */
	snprintf(req, sizeof(req), "GET /healthz HTTP/1.1\r\nHost: x\r\nX: %02880d\r\n\r\n", 0);
	expect(l, "431", req, strlen(req), 431, IN("request head too large\n"));
	memset(req, 'a', 2500);
	memcpy(req, "GET /", 5);
	expect(l, "414", req, 2500, 414, IN("URI too long\n"));
}

/* A slowloris: a byte each 30 ms is not a head; it gets a 408 at the timeout. */
static void live_slowloris(struct live *l)
{
	static const char req[] = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n";
	int fd = dial(l->port, 0), sent = 0;
	int64_t t0 = now_ms(), dt;
	char buf[1024];
	struct resp r;
	ssize_t n = -1;

	CHECK(fd >= 0, "slowloris: dial %d", fd);
	if (fd < 0)
		return;
	while (now_ms() - t0 < 3 * TIMEOUT_MS && sent < (int)sizeof(req) - 1) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		if (poll(&p, 1, 30) > 0)
			break;	/* the server spoke: the 408 */
		if (send(fd, req + sent, 1, MSG_NOSIGNAL) == 1)
			sent++;
	}
	n = read_all(fd, buf, sizeof(buf), 1000);
	dt = now_ms() - t0;
	close(fd);
	CHECK(n > 0 && parse_resp(buf, n, &r) && r.status == 408 && r.clen == (long)r.body_len,
	      "slowloris: %zd bytes, status %d", n, r.status);
	CHECK(sent < (int)sizeof(req) - 1 && dt >= TIMEOUT_MS - 20 && dt < TIMEOUT_MS + 500,
	      "slowloris: %d bytes sent, closed after %lld ms", sent, (long long)dt);
}

/* How many connections the server has open, asked over one more (which counts itself). */
static int clients_now(struct live *l)
{
	char buf[1024];
	struct resp r;
	ssize_t n = roundtrip(l->port, IN("GET /clients HTTP/1.0\r\n\r\n"), buf, sizeof(buf) - 1);

	if (n >= 0)
		buf[n] = '\0';	/* for atoi() of the body */
	if (n > 0 && parse_resp(buf, n, &r) && r.status == 503)
		l->seen503++;	/* the earlier test's connections not let go yet */
	if (n <= 0 || !parse_resp(buf, n, &r) || r.status != 200)
		return -1;
	return atoi(r.body) - 1;
}

/* Wait (bounded) until the server has let go of the earlier tests' connections. */
static void settle(struct live *l)
{
	int64_t t0 = now_ms();

	while (clients_now(l) != 0 && now_ms() - t0 < 1000)
		usleep(5000);
	usleep(10000);	/* and of the one that asked */
}

/* max_clients idle connections held, then two more get the 503 at once. */
static void live_capacity(struct live *l)
{
	int idle[MAX_CLIENTS], i, fd, got503 = 0, n_idle = 0;
	char buf[1024];
	struct resp r;
	ssize_t n;

	settle(l);
	for (i = 0; i < MAX_CLIENTS; i++) {
		idle[i] = dial(l->port, 0);
		n_idle += idle[i] >= 0;
	}
	usleep(20000);	/* the server takes them in */
	for (i = 0; i < 2; i++) {
		fd = dial(l->port, 0);
		if (fd < 0)
			continue;
		send_all(fd, IN("GET /healthz HTTP/1.0\r\n\r\n"));
		n = read_all(fd, buf, sizeof(buf), 1000);
		close(fd);
		got503 += n > 0 && parse_resp(buf, n, &r) && r.status == 503 &&
			  r.clen == (long)r.body_len && !memcmp(r.body, "too many clients\n", 17) &&
			  strstr(r.head, "\r\nRetry-After: 1\r\n");
	}
	CHECK(n_idle == MAX_CLIENTS && got503 == 2, "capacity: %d idle, %d of 2 got the 503",
	      n_idle, got503);
	l->seen503 += got503;
	/* the idle ones were the first max_clients, held: nothing said to them yet */
	for (i = 0; i < MAX_CLIENTS; i++) {
		struct pollfd p = { .fd = idle[i], .events = POLLIN };

		if (idle[i] < 0)
			continue;
		CHECK(poll(&p, 1, 0) == 0, "capacity: idle connection %d was answered", i);
		close(idle[i]);
	}
}

/*
 * A client that never reads 4 MB holds its slot, not the server: another is
 * served before the slow one's deadline, and the slow one is then cut with
 * far less than its 4 MB taken, so it was still being written meanwhile.
 */
static void live_slow_reader(struct live *l)
{
	static const char req[] = "GET /big HTTP/1.1\r\nHost: x\r\n\r\n";
	int64_t t0, dt;
	ssize_t n;
	int fd;

	settle(l);
	fd = dial(l->port, 4096);
	CHECK(fd >= 0, "slow reader: dial %d", fd);
	if (fd < 0)
		return;
	send_all(fd, IN(req));
	t0 = now_ms();
	usleep(30000);
	expect(l, "GET beside a slow reader", IN("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"), 200,
	       l->metrics, METRICS_LEN);
	dt = now_ms() - t0;
	CHECK(dt < TIMEOUT_MS - 50, "slow reader: the other served after %lld ms", (long long)dt);
	/* only once its deadline is past: far less than the response arrives, then the end */
	usleep((TIMEOUT_MS + 100) * 1000 - dt * 1000);
	n = read_all(fd, NULL, 0, 2000);
	CHECK(n >= 0 && n < BIG_LEN, "slow reader: %zd of %d bytes before the cut", n, BIG_LEN);
	close(fd);
}

/* A client gone mid-response: the server's next write must not SIGPIPE it. */
static void live_gone(struct live *l)
{
	struct linger lg = { 1, 0 };
	int fd = dial(l->port, 4096);

	if (fd < 0)
		return;
	send_all(fd, IN("GET /big HTTP/1.0\r\n\r\n"));
	usleep(20000);
	setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	close(fd);
	usleep(20000);
	expect(l, "after a client gone", IN("GET /healthz HTTP/1.0\r\n\r\n"), 200, IN("ok\n"));
}

/* BURST connections at once, each with its request sent: every one answered, 200 or 503. */
static void live_burst(struct live *l)
{
	int *fds = calloc(BURST, sizeof(int)), i, open = 0, n200 = 0, n503 = 0, other = 0;
	int64_t end;
	char buf[1024];
	struct resp r;
	ssize_t n;

	settle(l);
	for (i = 0; i < BURST; i++) {
		fds[i] = dial(l->port, 0);
		if (fds[i] >= 0 && send_all(fds[i], IN("GET /healthz HTTP/1.0\r\n\r\n"))) {
			close(fds[i]);
			fds[i] = -1;
		}
		open += fds[i] >= 0;
	}
	end = now_ms() + 2000;
	for (i = 0; i < BURST; i++) {
		if (fds[i] < 0)
			continue;
		n = read_all(fds[i], buf, sizeof(buf), end - now_ms() > 1 ? end - now_ms() : 1);
		if (n > 0 && parse_resp(buf, n, &r) && r.status == 200 && r.body_len == 3)
			n200++;
		else if (n > 0 && parse_resp(buf, n, &r) && r.status == 503)
			n503++;
		else
			other++;
		close(fds[i]);
	}
	free(fds);
	CHECK(open == BURST && n200 + n503 == BURST && n200 >= 1 && n503 >= 1 && !other,
	      "burst: %d open, %d ok, %d 503, %d neither", open, n200, n503, other);
	l->seen503 += n503;
}

static void *live_clients(void *arg)
{
	struct live *l = arg;

	live_basic(l);
	live_slowloris(l);
	live_capacity(l);
	live_slow_reader(l);
	live_gone(l);
	live_burst(l);
	if (write(l->done[1], "x", 1) != 1)
		perror("done");
	return NULL;
}

/* Up to BURST client descriptors and the server's: the soft limit raised if it is lower. */
static bool enough_files(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return false;
	if (rl.rlim_cur >= BURST + 128)
		return true;
	if (rl.rlim_max < BURST + 128)
		return false;
	rl.rlim_cur = BURST + 128;
	return !setrlimit(RLIMIT_NOFILE, &rl);
}

static void test_live(void)
{
	struct http_limits lim = { .max_clients = MAX_CLIENTS, .header_max = 2048,
				   .timeout_ms = TIMEOUT_MS };
	struct live l = { 0 };
	int err, r = 0, i, saw_done = 0;
	struct http_stats st;
	char msg[256];
	pthread_t th;
	int64_t end;

	/* a write to a closed socket without MSG_NOSIGNAL kills the test */
	signal(SIGPIPE, SIG_DFL);
	if (!enough_files()) {
		CHECK(0, "RLIMIT_NOFILE below %d: the burst can't run", BURST + 128);
		return;
	}
	l.metrics = malloc(METRICS_LEN);
	for (i = 0; i < METRICS_LEN; i++)
		l.metrics[i] = (char)(i ^ (i >> 8) ^ (i >> 16));
	err = http_listen(&l.s, "127.0.0.1:0", &lim, live_handler, &l, msg, sizeof(msg));
	CHECK(!err, "listen: %d %s", err, msg);
	if (err || pipe(l.done)) {
		free(l.metrics);
		return;
	}
	l.port = http_port(l.s);
	pthread_create(&th, NULL, live_clients, &l);
	/* the server, as kptrace serve would run it, until the clients say done */
	end = now_ms() + 15000;
	while (now_ms() < end) {
		r = http_step(l.s, 100, l.done[0]);
		if (r) {
			saw_done = r == 1;
			break;
		}
	}
	/* still serving while the thread finishes, should the loop have ended early */
	while (pthread_tryjoin_np(th, NULL) == EBUSY)
		http_step(l.s, 10, -1);
	CHECK(saw_done, "http_step: %d, not 1 for extra_fd", r);
	/* the last connections let go, bounded */
	for (i = 0; i < 100; i++) {
		http_get_stats(l.s, &st);
		if (!st.clients)
			break;
		http_step(l.s, 10, -1);
	}
	http_get_stats(l.s, &st);
	CHECK(!st.clients, "%d clients left", st.clients);
	CHECK(st.rejected == (uint64_t)l.seen503, "rejected %llu, %d 503s seen",
	      (unsigned long long)st.rejected, l.seen503);
	/* the slowloris and the slow reader, and maybe a capacity idler */
	CHECK(st.timeouts >= 2 && st.timeouts <= 2 + MAX_CLIENTS, "timeouts %llu",
	      (unsigned long long)st.timeouts);
	/* garbage, no Host, body, POST, HTTP/2, 431, 414 */
	CHECK(st.errors >= 7, "errors %llu", (unsigned long long)st.errors);
	CHECK(st.requests >= 10, "requests %llu", (unsigned long long)st.requests);
	http_close(l.s);
	close(l.done[0]);
	close(l.done[1]);
	free(l.metrics);
}

int main(void)
{
	test_parse();
	test_listen();
	test_live();
	return check_report();
}
