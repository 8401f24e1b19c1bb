// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * perfetto.c: a call's slice written out by hand, microseconds that keep
 * every nanosecond, comms that are not ASCII still valid JSON, one name
 * per thread (the latest comm) and per process (its main thread's: from
 * its records, else /proc's, never a worker's) through the table's
 * growth, the lost events' counter (sampled as it changes, bounded); a
 * streamed event's instant with its arguments, and a call's slice carrying
 * its start's arguments, found by the time the call began (recursion: each
 * its own; a --from/--to pair: another thread's).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "ev_layout.h"
#include "prepare/event.h"
#include "out/perfetto.h"

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

static struct ev_arg args[] = {
	{ .name = "usec", .type = SPEC_T_S64, .size = 8 },
	{ .name = "depth", .type = SPEC_T_U32, .size = 4 },
};
static struct ev_desc ev = {
	.group = "uprobes", .event = "p_t_sleep", .kind = SPEC_UPROBE, .nargs = 2, .args = args,
};

/* A record of ev: its header, the fault bitmap (none), usec and depth. */
static size_t rec_of(unsigned char *b, uint32_t tid, uint64_t ts, int64_t usec, uint32_t depth)
{
	struct kpt_rec_hdr h = hdr(tid, tid, "t", ts);

	memset(b, 0, ev.fixed_size);
	h.kind = KPT_REC_EVENT;
	h.size = ev.fixed_size;
	memcpy(b, &h, sizeof(h));
	memcpy(b + args[0].slot, &usec, 8);
	memcpy(b + args[1].slot, &depth, 4);
	return ev.fixed_size;
}

/* Instants, and slices with the arguments of their starts. */
static void test_args(void)
{
	char path[] = "/tmp/kpt-test-perfetto-XXXXXX", msg[256], *out;
	unsigned char b[256];
	struct kpt_rec_hdr h;
	struct perfetto *pf;
	int fd = mkstemp(path);
	size_t n;

	CHECK(fd >= 0, "mkstemp");
	close(fd);
	unlink(path);
	ev_layout(&ev);
	pf = perfetto_open(path, msg, sizeof(msg));
	CHECK(pf != NULL, "open: %s", msg);
	if (!pf)
		return;
	n = rec_of(b, 7, 1000, -5, 1);
	perfetto_instant(pf, &ev, b, n);
	/* recursion on thread 8: the outer call began at 2000, the inner at 2500 */
	perfetto_start(pf, &ev, b, rec_of(b, 8, 2000, 100, 2));
	perfetto_start(pf, &ev, b, rec_of(b, 8, 2500, 200, 1));
	/* another thread's start at the same time, and a pair's start on thread 9 */
	perfetto_start(pf, &ev, b, rec_of(b, 10, 2500, 300, 0));
	perfetto_start(pf, &ev, b, rec_of(b, 9, 4000, 400, 0));
	h = hdr(8, 8, "t", 2600);
	perfetto_call(pf, "inner", &h, 100);
	h = hdr(8, 8, "t", 3000);
	perfetto_call(pf, "outer", &h, 1000);
	h = hdr(11, 11, "t", 4500);
	perfetto_call(pf, "pair", &h, 500);
	h = hdr(8, 8, "t", 9000);
	perfetto_call(pf, "bare", &h, 10);
	/* thread 10's start never ends: freed at close */
	CHECK_INT(perfetto_close(pf, 0), 0, "close");
	out = slurp(path);
	unlink(path);
	CHECK(strstr(out, "{\"name\":\"p_t_sleep\",\"cat\":\"uprobes\",\"ph\":\"I\",\"ts\":1.000,"
			  "\"s\":\"t\",\"pid\":7,\"tid\":7,\"args\":{\"ts_ns\":1000,\"usec\":-5,"
			  "\"depth\":1}}") != NULL, "an instant with its typed arguments:\n%s", out);
	CHECK(strstr(out, "\"name\":\"inner\",\"cat\":\"kptrace\",\"ph\":\"X\",\"ts\":2.500,"
			  "\"dur\":0.100,\"pid\":8,\"tid\":8,\"args\":{\"ts_ns\":2500,\"dur_ns\":100,"
			  "\"usec\":200,\"depth\":1}}") != NULL, "the inner call: its own thread's start");
	CHECK(strstr(out, "\"name\":\"outer\"") && strstr(out, "\"dur_ns\":1000,\"usec\":100,"
							  "\"depth\":2}}"), "the outer call's");
	CHECK(strstr(out, "\"name\":\"pair\"") && strstr(out, "\"dur_ns\":500,\"usec\":400,"
							 "\"depth\":0}}"), "a pair: another thread's start");
	CHECK(strstr(out, "\"dur_ns\":10}}") != NULL, "a call with no start kept: no arguments");
	free(out);
}

/* This process's comm, as /proc has it. */
static const char *self_comm(void)
{
	static char comm[32];
	FILE *f = fopen("/proc/self/comm", "r");

	if (!f || !fgets(comm, sizeof(comm), f))
		comm[0] = '\0';
	if (f)
		fclose(f);
	comm[strcspn(comm, "\n")] = '\0';
	return comm;
}

/* The lost events read as the run goes: samples when the count changed, bounded. */
static void test_lost(void)
{
	char path[] = "/tmp/kpt-test-perfetto-XXXXXX", msg[256], *out;
	struct kpt_rec_hdr h;
	struct perfetto *pf;
	int fd = mkstemp(path);

	CHECK(fd >= 0, "mkstemp");
	close(fd);
	unlink(path);
	pf = perfetto_open(path, msg, sizeof(msg));
	CHECK(pf != NULL, "open: %s", msg);
	if (!pf)
		return;
	h = hdr(5, 5, "t", 1500);
	perfetto_call(pf, "f", &h, 10);
	CHECK(perfetto_lost_due(pf, 1000), "the first reading: due");
	perfetto_lost(pf, 1000, 0);
	CHECK(!perfetto_lost_due(pf, 1000 + PERFETTO_LOST_EVERY_NS - 1), "not within 100 ms");
	CHECK(perfetto_lost_due(pf, 1000 + PERFETTO_LOST_EVERY_NS), "due 100 ms after");
	perfetto_lost(pf, 2000, 0);
	perfetto_lost(pf, 3000, 5);
	perfetto_lost(pf, 4000, 5);
	perfetto_lost(pf, 5000, 9);
	perfetto_lost(pf, 6000, 12);
	CHECK_INT(perfetto_close(pf, 12), 0, "close");
	out = slurp(path);
	unlink(path);
	CHECK(strstr(out, "\"ts\":2.000,\"args\":{\"lost\":0}},\n"
			  "{\"name\":\"lost events\",\"ph\":\"C\",\"pid\":0,\"tid\":0,"
			  "\"ts\":3.000,\"args\":{\"lost\":5}}") != NULL,
	      "a change: the count before at the reading before, then the new:\n%s", out);
	CHECK(strstr(out, "\"ts\":4.000,\"args\":{\"lost\":5}}") &&
	      strstr(out, "\"ts\":5.000,\"args\":{\"lost\":9}}") &&
	      strstr(out, "\"ts\":6.000,\"args\":{\"lost\":12}}"),
	      "each change sampled; the total already the last sample, not again:\n%s", out);
	CHECK_INT((int)count_of(out, "\"lost events\""), 5, "no sample for an unchanged count");
	CHECK(!strstr(out, "\"ts\":1.000,"), "nothing at a reading that changed nothing");
	free(out);
}

int main(void)
{
	char path[] = "/tmp/kpt-test-perfetto-XXXXXX", msg[256], want[256], *out;
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
	/* a process whose main thread never called and that is gone (no pid is
	 * past PID_MAX_LIMIT, 2^22): no name rather than its worker's */
	h = hdr(4194400, 4194401, "w\"k\xe9r", 7000000000ull);
	perfetto_call(pf, "a\"b", &h, 7);
	/* a live one (this test's own pid): its main thread's comm from /proc */
	h = hdr((uint32_t)getpid(), 4194500, "worker2", 7000000001ull);
	perfetto_call(pf, "f", &h, 1);
	/* a worker first, then the main thread: the main thread's */
	h = hdr(4194600, 4194601, "worker1", 7000000002ull);
	perfetto_call(pf, "f", &h, 1);
	h = hdr(4194600, 4194600, "boss", 7000000003ull);
	perfetto_call(pf, "f", &h, 1);
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
	CHECK_INT((int)count_of(out, "\"thread_name\""), 105, "one name a thread, through growth");
	CHECK_INT((int)count_of(out, "\"process_name\""), 4, "one name a process known");
	CHECK(!strstr(out, "\"process_name\",\"ph\":\"M\",\"pid\":4194400,"),
	      "a process gone, its main thread unseen: no name, never a worker's");
	snprintf(want, sizeof(want), "\"process_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,"
		 "\"args\":{\"name\":\"%s\"}", (int)getpid(), (int)getpid(), self_comm());
	CHECK(strstr(out, want) != NULL, "a live process: /proc's comm, not its worker's: %s", want);
	snprintf(want, sizeof(want), "\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":4194500,"
		 "\"args\":{\"name\":\"worker2\"}", (int)getpid());
	CHECK(strstr(out, want) != NULL, "its thread: its own comm");
	CHECK(strstr(out, "\"process_name\",\"ph\":\"M\",\"pid\":4194600,\"tid\":4194600,"
			  "\"args\":{\"name\":\"boss\"}") != NULL, "the main thread's, seen after a worker");
	CHECK(strstr(out, "\"thread_name\",\"ph\":\"M\",\"pid\":4194600,\"tid\":4194601,"
			  "\"args\":{\"name\":\"worker1\"}") != NULL, "the worker: its own comm");
	CHECK(strstr(out, "\"process_name\",\"ph\":\"M\",\"pid\":300,\"tid\":300,\"args\":{\"name\":"
			  "\"lead\"}") != NULL, "the main thread's comm");
	CHECK(strstr(out, "{\"name\":\"lost events\",\"ph\":\"C\",\"pid\":0,\"tid\":0,"
			  "\"ts\":8000000.099,\"args\":{\"lost\":42}}\n]}\n") != NULL,
	      "the lost events at the last event's time, then the end");
	CHECK(!strncmp(out, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n", 40), "the head");
	free(out);
	test_args();
	test_lost();
	return check_report();
}
