// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer harness for src/serve/http.c's request head parser, http_parse_request(),
 * on arbitrary bytes (an exactly-sized copy: ASan sees any read past len),
 * with the default header_max and with one taken from the input. Every
 * result is checked against what http.h promises:
 *
 * - the return is 0, 1 or one of -400, -405, -414, -431, -505; never 1 once
 *   len reaches header_max;
 * - on 0: used in [1, min(len, header_max)], the head ends in an empty line,
 *   the method is GET or HEAD, the path is NUL-terminated, starts with '/',
 *   has no '?', control or non-ASCII byte and is what the request line says;
 *   the Accept value is NUL-terminated, has no control byte but tab and no
 *   blank at either end; the same head alone parses the same, one byte less
 *   is incomplete, and header_max = used - 1 is a 431;
 * - on anything else: used is 0 and req all zeros;
 * - prefixes and extensions agree: half the input is incomplete or the same
 *   result (the same head when complete); more bytes after an error or a
 *   complete head change nothing.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve/http.h"
#include "fuzz_common.h"

/* appended to check that an error or a complete head stays what it was */
static const char tail[] = "\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n";

static bool is_zero(const void *p, size_t n)
{
	const unsigned char *b = p;

	while (n--)
		if (*b++)
			return false;
	return true;
}

static bool same_req(const struct http_request *a, const struct http_request *b)
{
	return !memcmp(a, b, sizeof(*a));
}

static void check_complete(const char *buf, size_t len, size_t hm, const struct http_request *req,
			   size_t used)
{
	size_t mlen = strnlen(req->method, sizeof(req->method));
	size_t plen = strnlen(req->path, sizeof(req->path));
	size_t alen = strnlen(req->accept, sizeof(req->accept));
	char line[sizeof(req->method) + sizeof(req->path) + 1];
	size_t i;

	FUZZ_CHECK(used >= 1 && used <= len && used <= hm, "used %zu, len %zu, header_max %zu",
		   used, len, hm);
	/* the head ends in LF, then an empty line: LF or CRLF */
	FUZZ_CHECK(used >= 2 && buf[used - 1] == '\n' &&
		   (buf[used - 2] == '\n' ||
		    (used >= 3 && buf[used - 2] == '\r' && buf[used - 3] == '\n')),
		   "head without an empty line");
	FUZZ_CHECK(!strcmp(req->method, "GET") || !strcmp(req->method, "HEAD"),
		   "method \"%.8s\"", req->method);
	FUZZ_CHECK(is_zero(req->method + mlen, sizeof(req->method) - mlen),
		   "method not zero-padded");
	FUZZ_CHECK(plen < sizeof(req->path), "path not NUL-terminated");
	FUZZ_CHECK(req->path[0] == '/', "path \"%s\" not absolute", req->path);
	for (i = 0; i < plen; i++) {
		unsigned char c = req->path[i];

		FUZZ_CHECK(c > 0x20 && c < 0x7f && c != '?', "path byte 0x%02x at %zu", c, i);
	}
	/* what the request line says: "METHOD PATH" then a query or a space */
	snprintf(line, sizeof(line), "%s %s", req->method, req->path);
	FUZZ_CHECK(memmem(buf, used, line, strlen(line)), "\"%s\" is not in the head", line);
	FUZZ_CHECK(alen < sizeof(req->accept), "accept not NUL-terminated");
	for (i = 0; i < alen; i++)
		FUZZ_CHECK((unsigned char)req->accept[i] >= 0x20 || req->accept[i] == '\t',
			   "accept byte 0x%02x at %zu", (unsigned char)req->accept[i], i);
	FUZZ_CHECK(!alen || (req->accept[0] != ' ' && req->accept[0] != '\t' &&
			     req->accept[alen - 1] != ' ' && req->accept[alen - 1] != '\t'),
		   "accept \"%s\" not trimmed", req->accept);
}

/* One parse of buf[0..len) with header_max hm (0: the default), checked; its result. */
static int parse_checked(const char *buf, size_t len, size_t hm, struct http_request *req,
			 size_t *used)
{
	size_t eff = hm ? hm : HTTP_DEFAULT_HEADER_MAX;
	int r;

	memset(req, 0xa5, sizeof(*req));
	*used = 0xdeadbeef;
	r = http_parse_request(buf, len, hm, req, used);
	FUZZ_CHECK(r == 0 || r == 1 || r == -400 || r == -405 || r == -414 || r == -431 ||
		   r == -505, "returned %d", r);
	FUZZ_CHECK(r != 1 || len < eff, "incomplete at len %zu, header_max %zu", len, eff);
	if (r == 0)
		check_complete(buf, len, eff, req, *used);
	else
		FUZZ_CHECK(!*used && is_zero(req, sizeof(*req)), "result %d left used %zu or req",
			   r, *used);
	return r;
}

/* Prefixes, extensions and the limit around one result r of buf[0..len). */
static void check_consistent(const char *buf, size_t len, size_t hm, int r,
			     const struct http_request *req, size_t used, char *ext)
{
	struct http_request q;
	size_t u;
	int rq;

	/* half: incomplete, or the same (a complete head within the half) */
	rq = parse_checked(buf, len / 2, hm, &q, &u);
	FUZZ_CHECK(rq == 1 || rq == r, "half of %zu: %d, all: %d", len, rq, r);
	if (rq == 0)
		FUZZ_CHECK(u == used && same_req(&q, req), "half: another head");
	/* more bytes: an error stays, a complete head is the same head */
	memcpy(ext, buf, len);
	memcpy(ext + len, tail, sizeof(tail) - 1);
	rq = parse_checked(ext, len + sizeof(tail) - 1, hm, &q, &u);
	if (r != 1)
		FUZZ_CHECK(rq == r, "with more bytes: %d, before: %d", rq, r);
	if (r == 0)
		FUZZ_CHECK(u == used && same_req(&q, req), "with more bytes: another head");
	if (r != 0)
		return;
	/* the head alone, the head less its last byte, the head one over header_max */
	rq = parse_checked(buf, used, hm, &q, &u);
	FUZZ_CHECK(rq == 0 && u == used && same_req(&q, req), "the head alone: %d", rq);
	rq = parse_checked(buf, used - 1, hm, &q, &u);
	FUZZ_CHECK(rq == 1, "the head less a byte: %d", rq);
	rq = parse_checked(buf, len, used, &q, &u);
	FUZZ_CHECK(rq == 0 && u == used && same_req(&q, req), "header_max = used: %d", rq);
	if (used > 1) {
		rq = parse_checked(buf, len, used - 1, &q, &u);
		FUZZ_CHECK(rq == -431, "header_max = used - 1: %d", rq);
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct http_request req;
	char *buf, *ext;
	size_t used, hm;
	int r;

	/* exactly sized: ASan sees any read past len */
	buf = malloc(size ? size : 1);
	ext = malloc(size + sizeof(tail));
	if (!buf || !ext) {
		free(buf);
		free(ext);
		return 0;
	}
	memcpy(buf, data, size);

	r = parse_checked(buf, size, 0, &req, &used);
	check_consistent(buf, size, 0, r, &req, used, ext);
	/* a header_max of the input's own: around its length, often below it */
	if (size) {
		hm = 1 + ((size_t)(unsigned char)buf[size - 1] * 131 + size) % (size + 16);
		r = parse_checked(buf, size, hm, &req, &used);
		check_consistent(buf, size, hm, r, &req, used, ext);
	}
	free(buf);
	free(ext);
	return 0;
}
