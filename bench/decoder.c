// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Decoder throughput: kptrace's own output_text() (and output_json()) on
 * records built the way the BPF side writes them, for the streaming
 * scenario's event (a uprobe with a=u64 b=u32 s=ustring), into a fully
 * buffered FILE on /dev/null. Links kptrace's objects as the unit tests do.
 *
 *   decoder [SECONDS] [REPEATS] [text|json]
 *
 * prints one line per format and repeat:
 *   format=text lines=N cpu_s=X wall_s=Y lines_per_cpu_s=Z
 * Lines per second of this thread's CPU time (CLOCK_THREAD_CPUTIME_ID) is
 * the per-core rate, whatever else the machine is doing.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kptrace.h"
#include "output.h"
#include "spec.h"

#define NRECS	1024

static const char *const strs[4] = {
	"/usr/lib/bench/alpha", "/usr/lib/bench/bravo-longer",
	"/tmp/c", "/var/lib/bench/delta-the-longest-one",
};

struct rec {
	unsigned char b[256];
	size_t len;
};

static double clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Record i of the workload's stream: what bpf/kptrace.bpf.c sends for it. */
static void build(struct rec *r, const struct ev_desc *ev, uint64_t i)
{
	struct kpt_rec_hdr h = { 0 };
	uint64_t a = i * 7919;
	uint32_t b = (uint32_t)(i & 0xffff), dl;
	const char *s = strs[i & 3];
	size_t n = strlen(s) + 1;

	memset(r, 0, sizeof(*r));
	h.kind = KPT_REC_EVENT;
	h.probe = (uint16_t)ev->index;
	h.ts = 5068265974000ull + i * 1237;
	h.ip = 0x4014f0;
	h.tid = 16048 + (uint32_t)(i % 3);
	h.tgid = 16048;
	h.cpu = (uint32_t)(i & 1);
	memcpy(h.comm, "workload", 8);
	r->len = ev->fixed_size;
	memcpy(r->b + ev->args[0].slot, &a, 8);
	memcpy(r->b + ev->args[1].slot, &b, 4);
	dl = (uint32_t)r->len | (uint32_t)n << 16;
	memcpy(r->b + ev->args[2].slot, &dl, 4);
	memcpy(r->b + r->len, s, n);
	r->len += n;
	h.size = (uint32_t)r->len;
	memcpy(r->b, &h, sizeof(h));
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0;
	int repeats = argc > 2 ? atoi(argv[2]) : 5, rep, fmt, i;
	const char *only = argc > 3 ? argv[3] : NULL; /* one format only (profiling) */
	static struct rec recs[NRECS];
	static char fbuf[1 << 20];
	struct ev_arg args[3] = {
		{ .name = "a", .type = SPEC_T_U64, .size = 8 },
		{ .name = "b", .type = SPEC_T_U32, .size = 4 },
		{ .name = "s", .type = SPEC_T_USTRING, .size = 4 },
	};
	struct ev_desc ev = {
		.index = 0, .group = "kptbench", .event = "stream", .kind = SPEC_UPROBE,
		.is_user = true, .nargs = 3, .args = args,
	};
	char kpath[] = "/tmp/kptbench-ksyms-XXXXXX";
	struct ksyms *ks;
	unsigned int pos = KPT_HDR_SIZE + 1; /* header, then a 1-byte fault bitmap */
	FILE *f;
	int fd;

	/* slots packed after the header and the fault bitmap, as compile.c lays them */
	for (i = 0; i < 3; i++) {
		args[i].slot = (uint16_t)pos;
		pos += args[i].size;
	}
	ev.fixed_size = (uint16_t)pos;
	for (i = 0; i < NRECS; i++)
		build(&recs[i], &ev, (uint64_t)i);

	/* a uprobe's line needs no kernel symbol; an empty table will do */
	fd = mkstemp(kpath);
	if (fd < 0 || write(fd, "ffffffff81000000 T _stext\n", 26) != 26)
		return 2;
	close(fd);
	ks = ksyms_load(kpath);
	unlink(kpath);
	f = fopen("/dev/null", "w");
	if (!ks || !f || setvbuf(f, fbuf, _IOFBF, sizeof(fbuf)))
		return 2;

	for (rep = 0; rep < repeats; rep++) {
		for (fmt = 0; fmt < 2; fmt++) {
			if (only && strcmp(only, fmt ? "json" : "text"))
				continue;
			double c0 = clock_s(CLOCK_THREAD_CPUTIME_ID), w0 = clock_s(CLOCK_MONOTONIC);
			double c1 = c0;
			unsigned long long lines = 0;

			while (c1 - c0 < secs) {
				for (i = 0; i < NRECS; i++) {
					int err = fmt ? output_json(f, &ev, ks, recs[i].b, recs[i].len)
						      : output_text(f, &ev, ks, recs[i].b, recs[i].len);

					if (err) {
						fprintf(stderr, "decoder: record %d refused\n", i);
						return 1;
					}
				}
				lines += NRECS;
				c1 = clock_s(CLOCK_THREAD_CPUTIME_ID);
			}
			fflush(f);
			c1 = clock_s(CLOCK_THREAD_CPUTIME_ID);
			printf("format=%s lines=%llu cpu_s=%.4f wall_s=%.4f lines_per_cpu_s=%.0f\n",
			       fmt ? "json" : "text", lines, c1 - c0, clock_s(CLOCK_MONOTONIC) - w0,
			       lines / (c1 - c0));
			fflush(stdout);
		}
	}
	/* one sample line of each, for the record */
	fclose(f);
	output_text(stdout, &ev, ks, recs[1].b, recs[1].len);
	output_json(stdout, &ev, ks, recs[1].b, recs[1].len);
	ksyms_free(ks);
	return 0;
}
