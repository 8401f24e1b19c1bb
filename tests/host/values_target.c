// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The workloads of tests/host/values.sh, each with values known in advance
 * (the suite states them again, independently of kptrace): signed values
 * for a histogram, failing and succeeding opens, one loopback TCP
 * connection, an execve with a known argv, addresses, ports and errnos
 * passed to one function (issue 19), errnos returned and maps made at a
 * known address (issue 37), and functions called a known number of times
 * for a count over many probes. Built static, -O0
 * -fno-inline, no PIE: the process opens nothing but what it is asked to.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#define PROBED __attribute__((noinline, used))

PROBED long kpt_sval(long v)
{
	return v;
}

/* addrs: an address, a port, an IPv6 address, an errno, a be32 (issue 19) */
PROBED int kpt_addr(uint32_t a, uint16_t port, const uint8_t *v6, int err, uint32_t b)
{
	return (int)(a + port + v6[0] + err + b);
}

/* errs: an int returned as C returns errors (issue 37) */
PROBED int kpt_err(int v)
{
	return v;
}

/* count over a glob: kpt_cnt_N is called N times, kpt_cnt_0 never */
PROBED int kpt_cnt_0(void) { return 0; }
PROBED int kpt_cnt_1(void) { return 1; }
PROBED int kpt_cnt_2(void) { return 2; }
PROBED int kpt_cnt_3(void) { return 3; }
PROBED int kpt_cnt_5(void) { return 5; }
PROBED int kpt_cnt_8(void) { return 8; }

/* The signed values of "svals": the suite's SVALS, in the same order. */
static const long svals[] = {
	INT64_MIN, INT64_MIN + 1, -4611686018427387905L, -1025, -1024, -1000, -8, -7, -5,
	-4, -3, -2, -2, -1, -1, -1, 0, 0, 1, 2, 3, 4, 1000, 1024, 4611686018427387905L,
	INT64_MAX, INT64_MAX,
};

/* One connection to 127.0.0.1:port (0: any free port), accepted and closed. */
static int tcp_loopback(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int l, c, s;

	l = socket(AF_INET, SOCK_STREAM, 0);
	if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 1) ||
	    getsockname(l, (struct sockaddr *)&a, &len))
		return 1;
	c = socket(AF_INET, SOCK_STREAM, 0);
	if (c < 0 || connect(c, (struct sockaddr *)&a, sizeof(a)))
		return 1;
	s = accept(l, NULL, NULL);
	if (s < 0)
		return 1;
	close(c);
	close(s);
	close(l);
	return 0;
}

int main(int argc, char **argv)
{
	size_t i;
	int n;

	if (argc < 2)
		return 2;
	if (!strcmp(argv[1], "svals")) {
		for (i = 0; i < sizeof(svals) / sizeof(svals[0]); i++)
			kpt_sval(svals[i]);
		return 0;
	}
	if (!strcmp(argv[1], "loop") && argc > 2) {
		/* N calls, half of them negative: BPF time per hit */
		long k, m = atol(argv[2]);

		for (k = 0; k < m; k++)
			kpt_sval(k - m / 2);
		return 0;
	}
	if (!strcmp(argv[1], "opens")) {
		/* 7 x -ENOENT, 3 x -EISDIR, 2 x fd 3 */
		for (n = 3; n < 1024; n++)
			close(n);	/* whatever the caller passed on (flock's lock fd) */
		for (n = 0; n < 7; n++)
			open("/nonexistent/kpt", O_RDONLY);
		for (n = 0; n < 3; n++)
			open("/", O_WRONLY);
		for (n = 0; n < 2; n++)
			close(open("/dev/null", O_RDONLY));
		return 0;
	}
	if (!strcmp(argv[1], "addrs")) {
		/* the suite's ADDRS: 3 calls, in this order */
		struct in6_addr v6a, v6b;

		inet_pton(AF_INET6, "2001:db8::1", &v6a);
		inet_pton(AF_INET6, "::ffff:192.168.0.7", &v6b);
		kpt_addr(htonl(0x0a010203), htons(443), v6a.s6_addr, -2, htonl(0xdeadbeef));
		kpt_addr(htonl(0x7f000001), htons(8080), v6b.s6_addr, 5, htonl(1));
		kpt_addr(htonl(0x0a010203), htons(443), v6a.s6_addr, -4096, 0);
		return 0;
	}
	if (!strcmp(argv[1], "errs")) {
		/* -1 (the C library's failure), -ENOENT twice, -4096, 3 */
		kpt_err(-1);
		kpt_err(-2);
		kpt_err(-2);
		kpt_err(-4096);
		kpt_err(3);
		return 0;
	}
	if (!strcmp(argv[1], "mmaps")) {
		/*
		 * Two maps at an address whose low 32 bits read as a negative
		 * int (0xc0000000), one refused with -EINVAL (no length):
		 * mmap's long ret, cut to an int, was a failure that never was
		 */
		void *at = (void *)0x7e00c0000000ul, *m;

		for (n = 0; n < 2; n++) {
			m = mmap(at, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
				 -1, 0);
			if (m != at)
				return 1;
			munmap(m, 4096);
		}
		return mmap(NULL, 0, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) == MAP_FAILED ? 0 : 1;
	}
	if (!strcmp(argv[1], "tcp"))
		return tcp_loopback(argc > 2 ? atoi(argv[2]) : 0);
	if (!strcmp(argv[1], "exec")) {
		/* argv of five strings and its NULL: what argv:ustring[6] reads */
		char *const av[] = { "values_target", "exec-done", "bb", "", "dddd", NULL };

		execv("/proc/self/exe", av);
		return 1;
	}
	if (!strcmp(argv[1], "exec-done"))
		return 0;
	if (!strcmp(argv[1], "count")) {
		kpt_cnt_1();
		for (n = 0; n < 2; n++)
			kpt_cnt_2();
		for (n = 0; n < 3; n++)
			kpt_cnt_3();
		for (n = 0; n < 5; n++)
			kpt_cnt_5();
		for (n = 0; n < 8; n++)
			kpt_cnt_8();
		return 0;
	}
	return 2;
}
