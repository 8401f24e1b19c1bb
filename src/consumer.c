// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Stage 6: the ring buffer loop, signals, loss accounting, exit profile. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include <bpf/libbpf.h>

#include "consumer.h"
#include "ringbuf.h"

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	/* A second Ctrl-C means "now": no drain, no profile. */
	if (stop_requested)
		_exit(128 + sig);
	stop_requested = sig;
}

void consumer_install_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/* A closed pipe (kptrace | head) is an ordinary end: EPIPE from the write
	 * stops the loop, then the links go. */
	signal(SIGPIPE, SIG_IGN);
}

struct ctx {
	const struct consume_opts *o;
	unsigned long long records, bad, write_err;
	unsigned long long prog_misses;
};

static int on_record(void *arg, void *data, size_t len)
{
	struct ctx *c = arg;
	const struct kpt_rec_hdr *h = data;
	int err;

	if (len < sizeof(*h) || h->probe >= c->o->nevs) {
		c->bad++;
		return 0;
	}
	if (c->o->format == OUT_JSON)
		err = output_json(c->o->out, &c->o->evs[h->probe], c->o->ksyms, data, len);
	else
		err = output_text(c->o->out, &c->o->evs[h->probe], c->o->ksyms, data, len);
	if (err)
		c->bad++;
	c->records++;
	if (ferror(c->o->out)) {
		c->write_err++;
		return -EPIPE; /* stops kpt_ring_poll() */
	}
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void add_cause(char *buf, size_t len, size_t *used, const char *cause)
{
	if (*used < len)
		*used += (size_t)snprintf(buf + *used, len - *used, "%s%s", *used ? "; " : "",
					  cause);
}

const char *consumer_miss_causes(const struct ev_desc *evs, int n, const long long *missed,
				 bool prog_missed, char *buf, size_t len)
{
	bool kret = false, kprobe = false, tramp = false, other = false;
	size_t used = 0;
	int i;

	for (i = 0; i < n; i++) {
		bool kfunc = evs[i].kind == SPEC_KPROBE || evs[i].kind == SPEC_KRETPROBE;

		/* a link's own count: only kprobes (and kprobe.multi) keep one */
		if (missed && missed[i] > 0 && kfunc && !evs[i].tramp) {
			kprobe = true;
			kret |= evs[i].kind == SPEC_KRETPROBE;
		}
		tramp |= prog_missed && evs[i].tramp;
		other |= prog_missed && !evs[i].tramp;
	}
	if (len)
		buf[0] = '\0';
	if (kret)
		add_cause(buf, len, &used, "kretprobe instances exhausted: raise rN:");
	if (kprobe)
		add_cause(buf, len, &used, "probe recursion: the function was hit inside another "
			  "kprobe's handler on that CPU");
	/* bpf_prog_active: the programs of perf events (kprobes, tracepoints)
	 * and of kprobe.multi do not nest on a CPU */
	if (other)
		add_cause(buf, len, &used, "another BPF program was running on that CPU: the "
			  "probe fired inside it, or in an interrupt while it ran");
	/* a trampoline's program does not nest in itself */
	if (tramp)
		add_cause(buf, len, &used, "its fentry/fexit program was already running on that "
			  "CPU: the function was called inside it, or in an interrupt while it "
			  "ran");
	return buf;
}

/* Totals over every probe; warn as soon as something new is lost. */
static void check_loss(struct loader *ld, const struct ev_desc *evs, int n,
		       unsigned long long *seen_drops, unsigned long long *seen_misses)
{
	unsigned long long drops = 0, misses, prog;
	long long *missed = calloc(n ? n : 1, sizeof(*missed));
	struct kpt_stats st;
	char why[512];
	int i;

	misses = prog = loader_prog_misses(ld);
	for (i = 0; i < n; i++) {
		if (!loader_stats(ld, i, &st))
			drops += st.drops;
		if (!missed)
			continue;
		missed[i] = loader_missed(ld, i);
		if (missed[i] > 0)
			misses += missed[i];
	}
	if (drops > *seen_drops) {
		fprintf(stderr,
			"kptrace: warning: %llu events lost so far: the ring buffer was full "
			"(raise --buffer-size, or write to a file with -o)\n", drops);
		*seen_drops = drops;
	}
	if (misses > *seen_misses) {
		fprintf(stderr, "kptrace: warning: the kernel missed %llu probe hits so far (%s)\n",
			misses, consumer_miss_causes(evs, n, missed, prog > 0, why, sizeof(why)));
		*seen_misses = misses;
	}
	free(missed);
}

static void print_profile(struct loader *ld, const struct consume_opts *o,
			  const struct ctx *c, const long long *missed)
{
	unsigned long long drops = 0, faults = 0, misses = 0, unmatched = 0, keys_full = 0;
	struct kpt_stats st;
	char why[512];
	int i;

	fprintf(stderr, "\n%-32s %12s %10s %10s %10s %10s\n", "PROBE", "HITS", "MISSES",
		"DROPS", "FAULTS", "FILTERED");
	for (i = 0; i < o->nevs; i++) {
		char name[2 * SPEC_NAME_MAX + 2], miss[24];

		if (loader_stats(ld, i, &st))
			memset(&st, 0, sizeof(st));
		snprintf(name, sizeof(name), "%s/%s", o->evs[i].group, o->evs[i].event);
		/* MISSES: the kprobe's nmissed where the kernel tells (6.7+ link
		 * info); uprobes have none; "-" where it cannot be known. */
		if (missed && missed[i] >= 0)
			snprintf(miss, sizeof(miss), "%lld", missed[i]);
		else
			snprintf(miss, sizeof(miss), "%s", o->evs[i].is_user ? "0" : "-");
		fprintf(stderr, "%-32s %12llu %10s %10llu %10llu %10llu\n", name,
			(unsigned long long)st.hits, miss, (unsigned long long)st.drops,
			(unsigned long long)st.faults, (unsigned long long)st.filtered);
		unmatched += st.unmatched;
		keys_full += st.keys_full;
		if (missed && missed[i] > 0)
			misses += missed[i];
		drops += st.drops;
		faults += st.faults;
	}
	if (o->report)
		fprintf(stderr, "aggregated in the kernel");
	else
		fprintf(stderr, "%llu events printed", c->records);
	if (drops)
		fprintf(stderr, ", %llu LOST (ring buffer full: raise --buffer-size)", drops);
	if (misses)
		fprintf(stderr, ", %llu MISSED by the kernel (%s)", misses,
			consumer_miss_causes(o->evs, o->nevs, missed, false, why, sizeof(why)));
	if (c->prog_misses)
		fprintf(stderr, ", %llu hits NOT RUN by the kernel: %s", c->prog_misses,
			consumer_miss_causes(o->evs, o->nevs, NULL, true, why, sizeof(why)));
	if (faults)
		fprintf(stderr, ", %llu argument reads faulted (printed as (fault))", faults);
	if (c->bad)
		fprintf(stderr, ", %llu malformed records skipped", c->bad);
	if (unmatched)
		fprintf(stderr, ", %llu returns without their entry (started before tracing, "
			"or evicted: raise --max-keys)", unmatched);
	if (keys_full)
		fprintf(stderr, ", %llu events NOT COUNTED: the key map was full (raise "
			"--max-keys)", keys_full);
	fprintf(stderr, "\n");
}

int consume(struct loader *ld, const struct consume_opts *o, int *child_status)
{
	struct ctx c = { .o = o };
	unsigned long long seen_drops = 0, seen_misses = 0;
	struct kpt_ring *rb;
	double start = now_s(), last_check = start, last_report = start;
	bool child_done = !o->child;
	long long *missed;
	int err = 0;

	rb = kpt_ring_new(loader_events_fd(ld), on_record, &c);
	if (!rb)
		return -errno;

	while (!stop_requested) {
		/* The BPF side wakes us at most once a millisecond or past a fill
		 * mark (sampled wakeups); after a timeout the poll reads whatever
		 * came without one. */
		err = kpt_ring_poll(rb, 50);
		if (err == -EINTR) {
			err = 0;
			continue;
		}
		if (err < 0)
			break;
		err = 0;
		/* Once per batch, not per record: no syscall per event. */
		fflush(o->out);
		if (now_s() - last_check >= 1.0) {
			check_loss(ld, o->evs, o->nevs, &seen_drops, &seen_misses);
			last_check = now_s();
		}
		if (o->report && o->interval > 0 && now_s() - last_report >= o->interval) {
			o->report(o->report_arg, false);
			last_report = now_s();
		}
		if (o->duration > 0 && now_s() - start >= o->duration)
			break;
		if (!child_done && waitpid(o->child, child_status, WNOHANG) == o->child)
			child_done = true;
		if (child_done && o->child)
			break;
	}
	/* Read the kernel's miss counts while the links exist; then detach so
	 * nothing new arrives, then drain what is buffered. */
	missed = calloc(o->nevs ? o->nevs : 1, sizeof(*missed));
	c.prog_misses = loader_prog_misses(ld);
	for (int i = 0; missed && i < o->nevs; i++)
		missed[i] = loader_missed(ld, i);
	loader_detach(ld);
	if (err != -EPIPE)
		kpt_ring_consume(rb);
	fflush(o->out);
	kpt_ring_free(rb);
	if (c.write_err)
		err = 0; /* reader went away: a normal end */
	if (o->report)
		o->report(o->report_arg, true);
	check_loss(ld, o->evs, o->nevs, &seen_drops, &seen_misses);
	print_profile(ld, o, &c, missed);
	free(missed);
	return err;
}
