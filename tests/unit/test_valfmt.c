// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests of src/lang/valfmt.c, the extension types' text, against oracles of
 * their own: glibc's strerrorname_np() for the errno names, inet_ntop()
 * for IPv4, fixed RFC 5952 cases for IPv6, and each constant a filter
 * reads written back as the value prints.
 */
#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "lang/valfmt.h"

static void test_errno(void)
{
	char buf[VALFMT_MAX], want[VALFMT_MAX];
	int e, named = 0;

	for (e = 1; e < 4096; e++) {
		const char *g = strerrorname_np(e), *mine = valfmt_errno_name(e);

		if (g) {
			CHECK(mine && !strcmp(mine, g), "errno %d: %s, glibc %s", e,
			      mine ? mine : "(none)", g);
			named++;
		}
		valfmt_scalar(SPEC_T_ERRNO, (uint64_t)-e, 0, buf, sizeof(buf));
		if (mine)
			snprintf(want, sizeof(want), "-%s", mine);
		else
			snprintf(want, sizeof(want), "%d", -e);
		CHECK_STR(buf, want, "errno text");
		if (mine) {
			int64_t v = 0;
			const char *why = NULL;

			CHECK(valfmt_parse(SPEC_T_ERRNO, want, want + strlen(want), &v, &why) == 0 &&
			      v == -e, "-%s reads back as %lld", mine, (long long)v);
		}
	}
	CHECK(named >= 130, "glibc named %d errnos", named);
	/* the kernel's own, past glibc's: what kernel functions return */
	CHECK_STR(valfmt_errno_name(512), "ERESTARTSYS", "512");
	CHECK_STR(valfmt_errno_name(524), "ENOTSUPP", "524");
	CHECK(!valfmt_errno_name(520) && !valfmt_errno_name(0) && !valfmt_errno_name(-2),
	      "no names for 520, 0, -2");
	CHECK_INT(valfmt_errno_by_name("EWOULDBLOCK", 11), 11, "alias EWOULDBLOCK");
	CHECK_INT(valfmt_errno_by_name("ENOENTX", 7), 0, "ENOENTX");
	/* numbers that are no errno print as numbers */
	valfmt_scalar(SPEC_T_ERRNO, 0, 0, buf, sizeof(buf));
	CHECK_STR(buf, "0", "0");
	valfmt_scalar(SPEC_T_ERRNO, (uint64_t)-4096, 0, buf, sizeof(buf));
	CHECK_STR(buf, "-4096", "-4096, past MAX_ERRNO");
	valfmt_scalar(SPEC_T_ERRNO, 2147483647u, 0, buf, sizeof(buf));
	CHECK_STR(buf, "2147483647", "INT_MAX");
	valfmt_scalar(SPEC_T_ERRNO, 0xfffffffffffffffeull, 0, buf, sizeof(buf));
	CHECK_STR(buf, "-ENOENT", "a sign-extended -2");
	/*
	 * The value at its own width (issue 37): a long is no errno because
	 * its low 32 bits would be one. mmap's 0x7f12be000000 is a number,
	 * and so is a long whose int half is -2.
	 */
	valfmt_scalar(SPEC_T_ERRNO, 0x7f12be000000ull, 0, buf, sizeof(buf));
	CHECK_STR(buf, "139718473809920", "mmap's address: a number, not -1107296256");
	valfmt_scalar(SPEC_T_ERRNO, 0x00000000fffffffeull, 0, buf, sizeof(buf));
	CHECK_STR(buf, "4294967294", "a long 0xfffffffe: a number, not -ENOENT");
	valfmt_scalar(SPEC_T_ERRNO, (uint64_t)INT64_MIN, 0, buf, sizeof(buf));
	CHECK_STR(buf, "-9223372036854775808", "INT64_MIN");
	/* -1: -EPERM in the kernel; in user space the C library's failure */
	valfmt_scalar(SPEC_T_ERRNO, (uint64_t)-1, 0, buf, sizeof(buf));
	CHECK_STR(buf, "-EPERM", "the kernel's -1");
	valfmt_scalar(SPEC_T_ERRNO, (uint64_t)-1, VALFMT_USER, buf, sizeof(buf));
	CHECK_STR(buf, "-1", "user space's -1");
	valfmt_scalar(SPEC_T_ERRNO, (uint64_t)-2, VALFMT_USER, buf, sizeof(buf));
	CHECK_STR(buf, "-ENOENT", "user space's -2 (liburing's, libbpf's -errno)");
	CHECK(!valfmt_json_is_string(SPEC_T_ERRNO, (uint64_t)-1, VALFMT_USER) &&
	      valfmt_json_is_string(SPEC_T_ERRNO, (uint64_t)-1, 0) &&
	      !valfmt_json_is_string(SPEC_T_ERRNO, 0x7f12be000000ull, 0),
	      "JSON: user space's -1 and a long a number, the kernel's -1 a name");
}

static void test_ipv4(void)
{
	char buf[VALFMT_MAX], want[INET_ADDRSTRLEN];
	const char *why;
	uint32_t a;
	int64_t v;
	int i;

	srand(19);
	for (i = 0; i < 20000; i++) {
		a = (uint32_t)rand() ^ (uint32_t)rand() << 16;
		if (i < 4)
			a = (uint32_t[]){ 0, 0xffffffffu, 0x0100007fu, 0x0302010au }[i];
		/* the slot's bytes in memory order are the address's */
		inet_ntop(AF_INET, &a, want, sizeof(want));
		CHECK(valfmt_scalar(SPEC_T_IPV4, a, 0, buf, sizeof(buf)) == strlen(want) &&
		      !strcmp(buf, want), "0x%08x: %s, inet_ntop %s", a, buf, want);
		CHECK(valfmt_parse(SPEC_T_IPV4, buf, buf + strlen(buf), &v, &why) == 0 &&
		      v == (int64_t)a, "%s reads back as 0x%llx", buf, (long long)v);
	}
	static const char *const bad[] = { "", "1.2.3", "1.2.3.4.5", "256.1.1.1", "1..2.3",
					   "1.2.3.", ".1.2.3", "1.2.3.x", "-1.2.3.4" };
	for (i = 0; i < (int)(sizeof(bad) / sizeof(bad[0])); i++)
		CHECK(valfmt_parse(SPEC_T_IPV4, bad[i], bad[i] + strlen(bad[i]), &v, &why) < 0,
		      "'%s' is no address", bad[i]);
	/* a truncating buffer still ends in a NUL */
	CHECK(valfmt_scalar(SPEC_T_IPV4, 0xffffffffu, 0, buf, 4) == 3 && !strcmp(buf, "255"),
	      "truncated: %s", buf);
}

static void test_ipv6(void)
{
	static const char *const cases[] = {
		"::", "::1", "2001:db8::1", "fe80::", "::ffff:192.168.0.7",
		"2001:db8:0:1:1:1:1:1", "1:2:3:4:5:6:7:8",
	};
	char buf[VALFMT_MAX];
	uint8_t b[16];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		inet_pton(AF_INET6, cases[i], b);
		CHECK(valfmt_ipv6(b, buf, sizeof(buf)) == strlen(cases[i]) &&
		      !strcmp(buf, cases[i]), "%s printed %s", cases[i], buf);
	}
	memset(b, 0xff, sizeof(b));
	CHECK(valfmt_ipv6(b, buf, sizeof(buf)) == 39 &&
	      !strcmp(buf, "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"), "the longest: %s", buf);
	CHECK(valfmt_ipv6(b, buf, 8) == 0, "too small a buffer: nothing");
}

static void test_be(void)
{
	char buf[VALFMT_MAX];
	const char *why;
	int64_t v;

	valfmt_scalar(SPEC_T_BE16, htons(443), 0, buf, sizeof(buf));
	CHECK_STR(buf, "443", "be16 443");
	valfmt_scalar(SPEC_T_BE32, htonl(0xdeadbeef), 0, buf, sizeof(buf));
	CHECK_STR(buf, "3735928559", "be32 0xdeadbeef");
	CHECK(valfmt_parse(SPEC_T_BE16, "443", "443" + 3, &v, &why) == 0 && v == htons(443),
	      "443 as the slot holds it: 0x%llx", (long long)v);
	CHECK(valfmt_parse(SPEC_T_BE16, "0x1bb", "0x1bb" + 5, &v, &why) == 0 && v == htons(443),
	      "0x1bb: 0x%llx", (long long)v);
	CHECK(valfmt_parse(SPEC_T_BE16, "65536", "65536" + 5, &v, &why) < 0, "65536 > be16");
	CHECK(valfmt_parse(SPEC_T_BE32, "4294967295", "4294967295" + 10, &v, &why) == 0 &&
	      v == 0xffffffffu, "be32 max");
	CHECK(valfmt_parse(SPEC_T_BE32, "4294967296", "4294967296" + 10, &v, &why) < 0,
	      "past be32");
	/* the other types read constants as numbers */
	CHECK(valfmt_parse(SPEC_T_U32, "1", "1" + 1, &v, &why) == 1, "u32: a number");
	CHECK(valfmt_parse(SPEC_T_ERRNO, "-2", "-2" + 2, &v, &why) == 1, "errno -2: a number");
	CHECK(valfmt_scalar(SPEC_T_U32, 1, 0, buf, sizeof(buf)) == 0, "u32: not ours");
	CHECK(valfmt_json_is_string(SPEC_T_IPV4, 0, 0) && !valfmt_json_is_string(SPEC_T_BE16, 1, 0) &&
	      valfmt_json_is_string(SPEC_T_ERRNO, (uint64_t)-11, 0) &&
	      !valfmt_json_is_string(SPEC_T_ERRNO, 11, 0), "JSON strings: addresses, errno names");
}

int main(void)
{
	test_errno();
	test_ipv4();
	test_ipv6();
	test_be();
	return check_report();
}
