// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * perfetto.c: a call's slice written out by hand, microseconds that keep
 * every nanosecond, comms that are not ASCII still valid JSON, one name
 * per thread (the latest comm) and per process (its main thread's, else a
 * thread's) through the table's growth, and the lost calls' counter.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "perfetto.h"

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = calloc(1, 1 << 20);
	size_t n;

	if (!f || !buf) {
		perror(path);
		exit(2);
	}
	n = fread(buf, 1, (1 << 20) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static size_t count_of(const char *s, const char *what)
{
	size_t n = 0;

	for (; (s = strstr(s, what)); s++)
		n++;
	return n;
}

static struct kpt_rec_hdr hdr(uint32_t tgid, uint32_t tid, const char *comm, uint64_t ts)
{
	struct kpt_rec_hdr h = { .kind = KPT_REC_CALL, .ts = ts, .tid = tid, .tgid = tgid };

	memcpy(h.comm, comm, strnlen(comm, sizeof(h.comm)));
	return h;
}

int main(void)
{
	char path[] = "/tmp/kpt-test-perfetto-XXXXXX", msg[256], *out;
	struct kpt_rec_hdr h;
	struct perfetto *pf;
	int fd = mkstemp(path), i;

	CHECK(fd >= 0, "mkstemp");
	close(fd);
	unlink(path);		/* outfile_open() creates it */
	pf = perfetto_open(path, msg, sizeof(msg));
	CHECK(pf != NULL, "open: %s", msg);
	if (!pf)
		return check_report();
	h = hdr(100, 100, "main", 5000001234ull);
	perfetto_call(pf, "vfs_read", &h, 1001001);
	/* a comm renamed: the latest is the thread's name */
	h = hdr(100, 100, "main2", 6000000000ull);
	perfetto_call(pf, "vfs_read", &h, 5);
	/* a process whose main thread never called: named by its thread */
	h = hdr(200, 201, "w\"k\xe9r", 7000000000ull);
	perfetto_call(pf, "a\"b", &h, 7);
	for (i = 0; i < 100; i++) {
		h = hdr(300, 300 + (uint32_t)i, i ? "worker" : "lead", 8000000000ull + (uint64_t)i);
		perfetto_call(pf, "f", &h, 1);
	}
	CHECK_INT(perfetto_close(pf, 42), 0, "close");
	out = slurp(path);
	unlink(path);
	CHECK(strstr(out, "{\"name\":\"vfs_read\",\"cat\":\"kptrace\",\"ph\":\"X\",\"ts\":4999000.233,"
			  "\"dur\":1001.001,\"pid\":100,\"tid\":100,\"args\":{\"ts_ns\":4999000233,"
			  "\"dur_ns\":1001001}}") != NULL, "a slice: start = end - dur, us.ns");
	CHECK(strstr(out, "\"ts\":5999999.995,\"dur\":0.005,") != NULL, "five nanoseconds kept");
	CHECK(strstr(out, "{\"name\":\"a\\\"b\"") != NULL, "the name escaped");
	CHECK(strstr(out, "\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":100,\"tid\":100,"
			  "\"args\":{\"name\":\"main2\"}") != NULL, "the latest comm");
	CHECK(strstr(out, "\"args\":{\"name\":\"w\\\"k\\u00e9r\"}") != NULL,
	      "a comm past ASCII: escaped, valid JSON");
	CHECK_INT((int)count_of(out, "\"thread_name\""), 102, "one name a thread, through growth");
	CHECK_INT((int)count_of(out, "\"process_name\""), 3, "one name a process");
	CHECK(strstr(out, "\"process_name\",\"ph\":\"M\",\"pid\":200,\"tid\":200,\"args\":{\"name\":"
			  "\"w\\\"k\\u00e9r\"}") != NULL, "no main thread: a thread's comm");
	CHECK(strstr(out, "\"process_name\",\"ph\":\"M\",\"pid\":300,\"tid\":300,\"args\":{\"name\":"
			  "\"lead\"}") != NULL, "the main thread's comm");
	CHECK(strstr(out, "{\"name\":\"lost calls\",\"ph\":\"C\",\"pid\":0,\"tid\":0,"
			  "\"ts\":8000000.099,\"args\":{\"lost\":42}}\n]}\n") != NULL,
	      "the lost calls at the last call's time, then the end");
	CHECK(!strncmp(out, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n", 40), "the head");
	free(out);
	return check_report();
}
