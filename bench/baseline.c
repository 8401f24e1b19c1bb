// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The benchmark's floor, userspace half (see baseline.bpf.c):
 *
 *   baseline nop|stream|hist|latency BINARY FUNC [-o FILE] [-b BYTES]
 *   baseline kstream|stackid|pair tracepoint GROUP/EVENT [-o FILE] [-b BYTES]
 *   baseline nop|pair tracepoint G/E[,G/E...] [G/E[,G/E...]]
 *   baseline switch tracepoint sched/sched_switch
 *   baseline nop|stream|hist|pair raw|btf NR [-o FILE] [-b BYTES]
 *   baseline nop|count BINARY 0xOFFSET
 *
 * attaches one uprobe (latency: a uprobe and a uretprobe) on BINARY:FUNC for
 * every process (BINARY "kernel": a kprobe and a kretprobe on the kernel
 * function FUNC, which stream takes to be ksys_lseek; BINARY "tracepoint":
 * the tracepoint FUNC, syscalls/sys_enter_lseek, for nop, stream and hist,
 * the histogram of its offset), says "Attached N probes" on stderr, then until SIGINT or
 * SIGTERM: stream prints each record as ftrace's trace line to FILE (stdout
 * by default) from a ring buffer of BYTES (default 4M); hist and latency
 * print a log2 histogram at exit. kstream: stream's record with the event's
 * kernel stack, printed as ftrace's stacktrace trigger does but with the bare
 * addresses (no symbols); stackid: the count per kernel stack, printed at exit
 * (each count, then its frames' addresses); pair: the histogram of the time
 * from sys_enter_lseek to sys_exit_lseek per thread; with lists, the same
 * programs on each tracepoint of the first (the starts, or nop's empty program)
 * and of the second (the ends; by default each start's sys_enter_ as sys_exit_),
 * any start ended by any end of the same thread; switch: sched/sched_switch at
 * both ends, the histogram of the time between two switches on a CPU (one
 * program, as cpudist's). raw|btf: raw_syscalls/sys_enter (pair: to
 * sys_exit) through the classic tracepoint (raw) or tp_btf (btf), kept to
 * system call NR by each program (nop: unfiltered); stream's record holds
 * the call's first three arguments, hist histograms the number. A FUNC
 * given as 0xOFFSET is the uprobe's file offset (a USDT probe's address);
 * count: its hits. On exit: "events=N drops=N" on
 * stderr: events with a stack (a record, or a count, with frames), drops the
 * records the ring had no room for, the stacks not stored or not walked.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "baseline.h"
#include "baseline.skel.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = sig;
}

struct out {
	FILE *f;
	unsigned long long events;
	unsigned long long stackless;	/* kstream: records without frames */
};

/* ftrace's context of a trace line: "comm-tid [cpu] ..... secs.usecs: EVENT: (0xIP)";
 * a tracepoint's line (kptrace's too) has no address: ip 0 */
static void context(FILE *f, const char *ecomm, __u32 tid, __u32 cpu, __u64 ts, const char *event,
		    __u64 ip)
{
	char comm[17];
	uint64_t us = (ts + 500) / 1000;

	memcpy(comm, ecomm, 16);
	comm[16] = 0;
	fprintf(f, "%16s-%-7d [%03d] ..... %5" PRIu64 ".%06" PRIu64 ": %s:", comm,
		(int)tid, (int)cpu, us / 1000000, us % 1000000, event);
	if (ip)
		fprintf(f, " (0x%" PRIx64 ")", (uint64_t)ip);
}

static int on_event(void *arg, void *data, size_t len)
{
	struct out *o = arg;
	const struct bl_event *e = data;

	if (len < sizeof(*e))
		return 0;
	context(o->f, e->comm, e->tid, e->cpu, e->ts, "stream", e->ip);
	fprintf(o->f, " a=%" PRIu64 " b=%u s=", (uint64_t)e->a, e->b);
	if (e->slen && e->slen <= BL_STR) {
		fputc('"', o->f);
		fwrite(e->s, 1, e->slen - 1, o->f);
		fputs("\"\n", o->f);
	} else {
		fputs("(fault)\n", o->f);
	}
	o->events++;
	return 0;
}

static int on_kevent(void *arg, void *data, size_t len)
{
	struct out *o = arg;
	const struct bl_kevent *e = data;

	if (len < sizeof(*e))
		return 0;
	context(o->f, e->comm, e->tid, e->cpu, e->ts, "hot", e->ip);
	fprintf(o->f, " fd=%u off=%" PRId64 " whence=%u\n", e->fd, (int64_t)e->off, e->whence);
	o->events++;
	return 0;
}

/* the tracepoint's record, as kptrace prints 't:kptbench/tpstream ... fd offset whence' */
static int on_tpevent(void *arg, void *data, size_t len)
{
	struct out *o = arg;
	const struct bl_kevent *e = data;

	if (len < sizeof(*e))
		return 0;
	context(o->f, e->comm, e->tid, e->cpu, e->ts, "tpstream", 0);
	fprintf(o->f, " fd=%u offset=%" PRId64 " whence=%u\n", e->fd, (int64_t)e->off, e->whence);
	o->events++;
	return 0;
}

/* the tracepoint's record, then its frames; a record without any is not an event seen */
static int on_kstack(void *arg, void *data, size_t len)
{
	struct out *o = arg;
	const struct bl_kstack_event *e = data;
	__u32 i;

	if (len < sizeof(*e))
		return 0;
	on_tpevent(arg, data, len);
	o->events--; /* counted below, if it has a stack */
	if (!e->nframes || e->nframes > BL_KSTACK_MAX) {
		o->stackless++;
		return 0;
	}
	context(o->f, e->e.comm, e->e.tid, e->e.cpu, e->e.ts, "<stack trace>", 0);
	fputc('\n', o->f);
	for (i = 0; i < e->nframes; i++)
		fprintf(o->f, " => 0x%" PRIx64 "\n", (uint64_t)e->ip[i]);
	o->events++;
	return 0;
}

/* Every stack counted, its count then its frames; the total of the counts
 * whose stack the map still holds with frames. */
static unsigned long long print_stacks(FILE *f, int counts_fd, int stacks_fd)
{
	__u64 ip[BL_KSTACK_MAX], count;
	unsigned long long total = 0;
	__u32 key, next, *prev = NULL;
	int i;

	while (!bpf_map_get_next_key(counts_fd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(counts_fd, &key, &count))
			continue;
		memset(ip, 0, sizeof(ip));
		if (bpf_map_lookup_elem(stacks_fd, &key, ip) || !ip[0]) {
			fprintf(f, "%" PRIu64 " (stack %u gone)\n", (uint64_t)count, key);
			continue;
		}
		fprintf(f, "%" PRIu64 "\n", (uint64_t)count);
		for (i = 0; i < BL_KSTACK_MAX && ip[i]; i++)
			fprintf(f, " => 0x%" PRIx64 "\n", (uint64_t)ip[i]);
		total += count;
	}
	return total;
}

static unsigned long long percpu_sum(int fd, __u32 key, int ncpus)
{
	unsigned long long sum = 0;
	__u64 *v = calloc(ncpus, sizeof(*v));
	int i;

	if (v && !bpf_map_lookup_elem(fd, &key, v))
		for (i = 0; i < ncpus; i++)
			sum += v[i];
	free(v);
	return sum;
}

static void print_hist(FILE *f, int fd, int ncpus, unsigned long long *total)
{
	unsigned long long c;
	__u32 b;

	*total = 0;
	for (b = 0; b < BL_BUCKETS; b++) {
		c = percpu_sum(fd, b, ncpus);
		*total += c;
		if (!c)
			continue;
		if (b == 0)
			fprintf(f, "[0] %llu\n", c);
		else
			fprintf(f, "[%llu, %llu) %llu\n", 1ull << (b - 1),
				b < 64 ? 1ull << b : ~0ull, c);
	}
}

static struct bpf_link *attach_tp(struct bpf_program *prog, const char *tp)
{
	char cat[64];
	const char *slash = strchr(tp, '/');

	if (!slash || slash - tp >= (long)sizeof(cat)) {
		errno = EINVAL;
		return NULL;
	}
	memcpy(cat, tp, slash - tp);
	cat[slash - tp] = 0;
	return bpf_program__attach_tracepoint(prog, cat, slash + 1);
}

static struct bpf_link *attach(struct bpf_program *prog, const char *bin, const char *func,
			       bool ret)
{
	LIBBPF_OPTS(bpf_uprobe_opts, uo, .func_name = func, .retprobe = ret);
	size_t off = 0;

	if (!strcmp(bin, "kernel"))
		return bpf_program__attach_kprobe(prog, ret, func);
	if (!strncmp(func, "0x", 2)) {
		uo.func_name = NULL;
		off = strtoul(func, NULL, 16);
	}
	return bpf_program__attach_uprobe_opts(prog, -1, bin, off, &uo);
}

#define BL_LINKS 8

/* raw_syscalls' programs for mode through either attachment (btf: tp_btf);
 * which 1: the pair's end; NULL for a mode it has none of */
static struct bpf_program *sys_prog(struct baseline_bpf *skel, const char *mode, bool btf,
				    int which)
{
	if (!strcmp(mode, "pair"))
		return which ? (btf ? skel->progs.bl_btf_pair_end : skel->progs.bl_raw_pair_end) :
			       (btf ? skel->progs.bl_btf_pair_start : skel->progs.bl_raw_pair_start);
	if (which)
		return NULL;
	if (!strcmp(mode, "nop"))
		return btf ? skel->progs.bl_btf_nop : skel->progs.bl_raw_nop;
	if (!strcmp(mode, "stream"))
		return btf ? skel->progs.bl_btf_stream : skel->progs.bl_raw_stream;
	if (!strcmp(mode, "hist"))
		return btf ? skel->progs.bl_btf_hist : skel->progs.bl_raw_hist;
	return NULL;
}

/* list ("a,b,c") split in place into at most BL_LINKS names; their number */
static int split(char *list, char **names)
{
	int n = 0;
	char *save = NULL, *t;

	for (t = strtok_r(list, ",", &save); t && n < BL_LINKS; t = strtok_r(NULL, ",", &save))
		names[n++] = t;
	return n;
}

/*
 * baseline multicount kernel FILE: why's floor (bench/vm/): the functions
 * named in FILE, one a line (why's root and its --under set), through one
 * kprobe.multi link of an entry program and one of a return program that
 * only count. On exit "events=ENTRIES drops=0 returns=RETURNS" on stderr.
 */
static int multicount(const char *path)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, opts);
	struct bpf_link *entry = NULL, *ret = NULL;
	struct baseline_bpf *skel = NULL;
	struct bpf_program *prog;
	char line[256], **syms = NULL;
	size_t n = 0, cap = 0;
	int ncpus, err = 1;
	FILE *f = fopen(path, "r");

	if (!f) {
		fprintf(stderr, "baseline: %s: %s\n", path, strerror(errno));
		return 1;
	}
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, " \t\n")] = 0;
		if (!line[0])
			continue;
		if (n == cap) {
			char **more = realloc(syms, (cap ? 2 * cap : 256) * sizeof(*syms));

			if (!more)
				goto out;
			syms = more;
			cap = cap ? 2 * cap : 256;
		}
		if (!(syms[n] = strdup(line)))
			goto out;
		n++;
	}
	skel = baseline_bpf__open();
	if (!skel || !n) {
		fprintf(stderr, "baseline: %s\n", skel ? "no function named" : strerror(errno));
		goto out;
	}
	/* these two alone: the others' programs and the 16 MB stack map are other modes' */
	bpf_object__for_each_program(prog, skel->obj)
		bpf_program__set_autoload(prog, prog == skel->progs.bl_multi_entry ||
					  prog == skel->progs.bl_multi_exit);
	bpf_map__set_autocreate(skel->maps.bl_stacks, false);
	bpf_map__set_autocreate(skel->maps.bl_stack_counts, false);
	bpf_map__set_max_entries(skel->maps.bl_events, 4096);
	if (baseline_bpf__load(skel)) {
		fprintf(stderr, "baseline: load: %s\n", strerror(errno));
		goto out;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	opts.syms = (const char **)syms;
	opts.cnt = n;
	fprintf(stderr, "Attaching %zu probes...\n", 2 * n);
	entry = bpf_program__attach_kprobe_multi_opts(skel->progs.bl_multi_entry, NULL, &opts);
	opts.retprobe = true;
	ret = entry ? bpf_program__attach_kprobe_multi_opts(skel->progs.bl_multi_exit, NULL, &opts) :
		      NULL;
	if (!ret) {
		fprintf(stderr, "baseline: kprobe.multi on %zu functions: %s\n", n, strerror(errno));
		goto out;
	}
	fprintf(stderr, "Attached %zu probes\n", 2 * n);
	while (!stop)
		pause();
	bpf_link__destroy(ret);
	bpf_link__destroy(entry);
	ret = entry = NULL;
	ncpus = libbpf_num_possible_cpus();
	fprintf(stderr, "events=%llu drops=0 returns=%llu\n",
		percpu_sum(bpf_map__fd(skel->maps.bl_multi_hits), 0, ncpus),
		percpu_sum(bpf_map__fd(skel->maps.bl_multi_hits), 1, ncpus));
	err = 0;
out:
	bpf_link__destroy(ret);
	bpf_link__destroy(entry);
	baseline_bpf__destroy(skel);
	while (n)
		free(syms[--n]);
	free(syms);
	fclose(f);
	return err;
}

int main(int argc, char **argv)
{
	struct baseline_bpf *skel;
	struct bpf_program *progs[2] = {}, *p;
	struct bpf_link *links[2 * BL_LINKS] = {};
	struct bpf_program *lprog[2 * BL_LINKS] = {};
	char *starts[BL_LINKS], *ends[BL_LINKS], *lname[2 * BL_LINKS];
	static char derived[BL_LINKS][128];
	int nstarts = 1, nends = 0, nlinks = 0;
	struct ring_buffer *rb = NULL;
	struct out o = { .f = stdout };
	const char *mode, *bin, *func, *path = NULL;
	unsigned long bufsize = 4 << 20;
	unsigned long long total = 0;
	int ncpus, nprogs = 1, i, opt, err = 1;
	bool kernel, tp, stacks, sys, btf;

	if (argc == 4 && !strcmp(argv[1], "multicount") && !strcmp(argv[2], "kernel"))
		return multicount(argv[3]);
	while ((opt = getopt(argc, argv, "o:b:")) != -1) {
		if (opt == 'o')
			path = optarg;
		else if (opt == 'b')
			bufsize = strtoul(optarg, NULL, 0);
		else
			goto usage;
	}
	if (argc - optind != 3 && argc - optind != 4)
		goto usage;
	mode = argv[optind];
	bin = argv[optind + 1];
	func = argv[optind + 2];
	kernel = !strcmp(bin, "kernel");
	tp = !strcmp(bin, "tracepoint");
	btf = !strcmp(bin, "btf");
	sys = btf || !strcmp(bin, "raw");
	if (argc - optind == 4 && (!tp || strcmp(mode, "pair")))
		goto usage;
	if (tp) {
		nstarts = split(argv[optind + 2], starts);
		if (argc - optind == 4)
			nends = split(argv[optind + 3], ends);
		if (!nstarts || (argc - optind == 4 && !nends) ||
		    (nstarts > 1 && strcmp(mode, "nop") && strcmp(mode, "pair")))
			goto usage;
		if (!strcmp(mode, "pair") && !nends) {
			/* a start's end: the syscall's exit */
			for (i = 0; i < nstarts; i++) {
				const char *e = strstr(starts[i], "sys_enter_");

				if (!e)
					goto usage;
				snprintf(derived[i], sizeof(derived[i]), "%.*ssys_exit_%s",
					 (int)(e - starts[i]), starts[i], e + strlen("sys_enter_"));
				ends[i] = derived[i];
			}
			nends = nstarts;
		}
	}

	ncpus = libbpf_num_possible_cpus();
	skel = baseline_bpf__open();
	if (!skel) {
		fprintf(stderr, "baseline: open: %s\n", strerror(errno));
		return 1;
	}
	bpf_map__set_max_entries(skel->maps.bl_events, bufsize);
	if (sys) {
		skel->rodata->bl_nr = strtol(func, NULL, 0);
		progs[0] = sys_prog(skel, mode, btf, 0);
		progs[1] = sys_prog(skel, mode, btf, 1);
		nprogs = progs[1] ? 2 : 1;
		if (!progs[0])
			goto usage;
	} else if (!strcmp(mode, "nop")) {
		progs[0] = tp ? skel->progs.bl_tp_nop : skel->progs.bl_nop;
	} else if (!strcmp(mode, "stream")) {
		progs[0] = tp ? skel->progs.bl_tp_stream :
		      kernel ? skel->progs.bl_kstream : skel->progs.bl_stream;
	} else if (!strcmp(mode, "hist")) {
		progs[0] = tp ? skel->progs.bl_tp_hist : skel->progs.bl_hist_prog;
	} else if (!strcmp(mode, "count") && !tp && !kernel) {
		progs[0] = skel->progs.bl_count;
	} else if (!strcmp(mode, "kstream") && tp) {
		progs[0] = skel->progs.bl_tp_kstack;
	} else if (!strcmp(mode, "stackid") && tp) {
		progs[0] = skel->progs.bl_tp_stackid;
	} else if (!strcmp(mode, "latency") && !tp) {
		progs[0] = skel->progs.bl_lat_entry;
		progs[1] = skel->progs.bl_lat_return;
		nprogs = 2;
	} else if (!strcmp(mode, "pair") && tp) {
		progs[0] = skel->progs.bl_tp_pair_start;
		progs[1] = skel->progs.bl_tp_pair_end;
		nprogs = 2;
	} else if (!strcmp(mode, "switch") && tp) {
		progs[0] = skel->progs.bl_tp_switch;
	} else {
		goto usage;
	}
	/* load only what this mode runs (a tp_btf program needs its tracepoint) */
	bpf_object__for_each_program(p, skel->obj)
		bpf_program__set_autoload(p, p == progs[0] || (nprogs == 2 && p == progs[1]));
	/* the stack maps are the stackid mode's only (the stack trace map's
	 * buckets are allocated at creation: 16 MB) */
	stacks = progs[0] == skel->progs.bl_tp_stackid;
	bpf_map__set_autocreate(skel->maps.bl_stacks, stacks);
	bpf_map__set_autocreate(skel->maps.bl_stack_counts, stacks);
	if (baseline_bpf__load(skel)) {
		fprintf(stderr, "baseline: load: %s\n", strerror(errno));
		goto out;
	}
	if (path && !(o.f = fopen(path, "w"))) {
		fprintf(stderr, "baseline: %s: %s\n", path, strerror(errno));
		goto out;
	}
	if (progs[0] == skel->progs.bl_stream || progs[0] == skel->progs.bl_kstream ||
	    progs[0] == skel->progs.bl_tp_stream || progs[0] == skel->progs.bl_tp_kstack ||
	    progs[0] == skel->progs.bl_raw_stream || progs[0] == skel->progs.bl_btf_stream) {
		rb = ring_buffer__new(bpf_map__fd(skel->maps.bl_events),
				      progs[0] == skel->progs.bl_tp_kstack ? on_kstack :
				      tp || sys ? on_tpevent : kernel ? on_kevent : on_event, &o, NULL);
		if (!rb)
			goto out;
	}
	/* what attaches where: a tracepoint's programs on each start (and end) */
	for (i = 0; i < (tp ? nstarts : 1); i++) {
		lprog[nlinks] = progs[0];
		lname[nlinks++] = tp ? starts[i] : sys ? "raw_syscalls/sys_enter" : (char *)func;
	}
	for (i = 0; nprogs == 2 && i < (tp ? nends : 1); i++) {
		lprog[nlinks] = progs[1];
		lname[nlinks++] = tp ? ends[i] : sys ? "raw_syscalls/sys_exit" : (char *)func;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	fprintf(stderr, "Attaching %d probes...\n", nlinks);
	for (i = 0; i < nlinks; i++) {
		links[i] = tp || (sys && !btf) ? attach_tp(lprog[i], lname[i]) :
			   btf ? bpf_program__attach(lprog[i]) :
			   attach(lprog[i], bin, lname[i], lprog[i] == progs[1]);
		if (!links[i]) {
			fprintf(stderr, "baseline: attach %s:%s: %s\n", bin, lname[i], strerror(errno));
			goto out;
		}
	}
	fprintf(stderr, "Attached %d probes\n", nlinks);

	while (!stop) {
		if (rb) {
			if (ring_buffer__poll(rb, 100) < 0 && errno != EINTR && !stop)
				break;
			fflush(o.f); /* once per batch, as kptrace */
		} else {
			pause();
		}
	}
	for (i = 0; i < nlinks; i++)
		bpf_link__destroy(links[i]), links[i] = NULL;
	if (rb)
		ring_buffer__consume(rb);
	fflush(o.f);
	if (stacks)
		total = print_stacks(o.f, bpf_map__fd(skel->maps.bl_stack_counts),
				     bpf_map__fd(skel->maps.bl_stacks));
	else if (!rb)
		print_hist(o.f, bpf_map__fd(skel->maps.bl_hist), ncpus, &total);
	fflush(o.f);
	fprintf(stderr, "events=%llu drops=%llu\n", rb ? o.events : total,
		percpu_sum(bpf_map__fd(skel->maps.bl_drops), 0, ncpus) + o.stackless);
	err = 0;
out:
	for (i = 0; i < nlinks; i++)
		bpf_link__destroy(links[i]);
	ring_buffer__free(rb);
	if (o.f && o.f != stdout)
		fclose(o.f);
	baseline_bpf__destroy(skel);
	return err;
usage:
	fprintf(stderr, "usage: baseline nop|stream|hist|latency BINARY FUNC [-o FILE] [-b BYTES]\n"
			"       baseline nop|stream|hist|kstream|stackid|pair tracepoint GROUP/EVENT [-o FILE] [-b BYTES]\n"
			"       baseline nop|pair tracepoint G/E[,G/E...] [G/E[,G/E...]] (pair: the ends)\n"
			"       baseline switch tracepoint sched/sched_switch\n"
			"       baseline nop|stream|hist|pair raw|btf NR [-o FILE] [-b BYTES]\n"
			"       baseline nop|count BINARY 0xOFFSET\n");
	return 2;
}
