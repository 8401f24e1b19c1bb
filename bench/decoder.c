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
 *
 *   decoder usym [SECONDS] [REPEATS]
 *
 * instead: the user-stack symbolizer, usym_addr(), on addresses of live
 * processes' code, by runtime address as -U's frames without a build id
 * are: this program (static, .symtab) and a child `sleep` (a stripped PIE
 * and libc.so.6, .dynsym, or their debug files where installed). NADDR
 * addresses spread over each process's executable file mappings, 7 in 8
 * taken as return addresses (every frame but a stack's first). One line per
 * target and repeat:
 *   usym target=T frames=N named=M cpu_s=X frames_per_cpu_s=Z cold_ms=C
 * named: frames given a function (the rest fall in gaps between symbols, or
 * in a file with none); cold_ms: a new symbolizer's first pass (the maps
 * read, each file's symbols loaded), wall time.
 */
#include <inttypes.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kptrace.h"
#include "out/output.h"
#include "lang/spec.h"
#include "sys/usym.h"

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

#define NADDR	4096
#define NMAPS	256

/* NADDR addresses spread evenly (by a fixed LCG) over pid's executable file
 * mappings, weighted by their sizes; their number, 0 when none. */
static int code_addrs(pid_t pid, uint64_t *addrs)
{
	uint64_t lo[NMAPS], hi[NMAPS], total = 0, x = 88172645463325252ull, r;
	char path[64], line[512], perms[8], file[256];
	int n = 0, i, j;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (n < NMAPS && fgets(line, sizeof(line), f)) {
		file[0] = 0;
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %*s %*s %*s %255s", &lo[n], &hi[n],
			   perms, file) < 3)
			continue;
		if (perms[2] == 'x' && file[0] == '/') {
			total += hi[n] - lo[n];
			n++;
		}
	}
	fclose(f);
	if (!total)
		return 0;
	for (i = 0; i < NADDR; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		r = x % total;
		for (j = 0; r >= hi[j] - lo[j]; j++)
			r -= hi[j] - lo[j];
		addrs[i] = lo[j] + r;
	}
	return NADDR;
}

/* One pass over the addresses; the frames named. */
static unsigned long pass(struct usym *u, pid_t pid, const uint64_t *addrs)
{
	struct usym_frame fr;
	unsigned long named = 0;
	int i;

	for (i = 0; i < NADDR; i++) {
		usym_addr(u, (uint32_t)pid, addrs[i], (i & 7) != 0, &fr);
		named += fr.sym != NULL;
	}
	return named;
}

static int usym_bench(double secs, int repeats)
{
	static uint64_t addrs[2][NADDR];
	const char *names[2] = { "self", "sleep+libc" };
	pid_t pids[2] = { getpid(), fork() };
	int rep, t, err = 0;

	if (pids[1] == 0) {
		/* it goes with us, however we end (a closed pipe, a signal) */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		execlp("sleep", "sleep", "600", (char *)NULL);
		_exit(127);
	}
	if (pids[1] < 0)
		return 2;
	/* the child's maps are its own once it has exec'd sleep and mapped libc
	 * (bounded: 5 s) */
	for (t = 0; t < 500; t++) {
		char exe[64], buf[256];
		bool libc = false;
		ssize_t len;
		FILE *f;

		snprintf(exe, sizeof(exe), "/proc/%d/maps", (int)pids[1]);
		f = fopen(exe, "r");
		while (f && fgets(buf, sizeof(buf), f))
			libc |= strstr(buf, "/libc.so") != NULL;
		if (f)
			fclose(f);
		snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)pids[1]);
		len = readlink(exe, buf, sizeof(buf) - 1);
		if (libc && len > 0 && (buf[len] = 0, strstr(buf, "sleep")))
			break;
		usleep(10000);
	}
	if (t == 500) {
		fprintf(stderr, "decoder: the child did not become sleep with libc in 5 s\n");
		err = 1;
		goto out;
	}
	for (t = 0; t < 2; t++)
		if (code_addrs(pids[t], addrs[t]) != NADDR) {
			fprintf(stderr, "decoder: no code mappings in /proc/%d/maps\n", (int)pids[t]);
			err = 1;
			goto out;
		}
	for (rep = 0; rep < repeats; rep++) {
		for (t = 0; t < 2; t++) {
			struct usym *u = usym_new(NULL);
			unsigned long long frames = 0;
			unsigned long named;
			double w0, cold, c0, c1;

			if (!u) {
				err = 2;
				goto out;
			}
			w0 = clock_s(CLOCK_MONOTONIC);
			named = pass(u, pids[t], addrs[t]);
			cold = clock_s(CLOCK_MONOTONIC) - w0;
			c0 = c1 = clock_s(CLOCK_THREAD_CPUTIME_ID);
			while (c1 - c0 < secs) {
				pass(u, pids[t], addrs[t]);
				frames += NADDR;
				c1 = clock_s(CLOCK_THREAD_CPUTIME_ID);
			}
			printf("usym target=%s frames=%llu named=%lu cpu_s=%.4f frames_per_cpu_s=%.0f "
			       "cold_ms=%.2f\n", names[t], frames, named, c1 - c0, frames / (c1 - c0),
			       cold * 1e3);
			if (!rep) {
				/* one frame of each, for the record */
				struct usym_frame fr;

				usym_addr(u, (uint32_t)pids[t], addrs[t][1], true, &fr);
				printf("usym-sample target=%s addr=0x%" PRIx64 " %s+0x%" PRIx64 " (%s)\n",
				       names[t], fr.addr, fr.sym ? fr.sym : "[unknown]", fr.sym_off,
				       fr.path ? fr.path : "?");
			}
			fflush(stdout);
			usym_free(u);
		}
	}
out:
	kill(pids[1], SIGTERM);
	waitpid(pids[1], NULL, 0);
	return err;
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

	if (argc > 1 && !strcmp(argv[1], "usym"))
		return usym_bench(argc > 2 ? atof(argv[2]) : 1.0, argc > 3 ? atoi(argv[3]) : 5);
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
