// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The ring buffer loop, signals, loss accounting (consumer.h). */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <bpf/libbpf.h>

#include "run/consumer.h"
#include "run/ringbuf.h"
#include "util/clock.h"

static volatile sig_atomic_t stop_requested;
/* the BPF side's kpt_stopped while consume() runs: the window ends with the signal */
static struct loader *volatile stop_loader;

static void on_signal(int sig)
{
	struct loader *ld = stop_loader;

	/* A second Ctrl-C means "now": no drain, no profile. */
	if (stop_requested)
		_exit(128 + sig);
	stop_requested = sig;
	/* a store to the mapped .bss, safe in a handler: the tables are the
	 * signal's, not the moment the loop comes round to it */
	if (ld)
		loader_stop_now(ld);
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
	struct loader *ld;
	int *child_status;
	unsigned long long records, bad, write_err;
	unsigned long long prog_misses;
	unsigned long long unseen;	/* --budget: hits estimated while probes were held detached */
	unsigned long long unprinted;	/* left in the ring buffer: the drain's time was up */
	unsigned long long seen_drops, seen_misses;
	long long *missed;		/* per probe, read just before detaching */
	double start, last_watch, last_check;
	double stopped;			/* when detached: the run's time, for COST */
	double drain_until;		/* once stopping: when the drain gives up */
	unsigned int since_check;	/* records since the clock was last read */
	bool stopping;			/* detached: draining what is buffered */
	bool child_done, target_done, said_slow;
};

static bool keep_consuming(struct ctx *c);

/*
 * latency --over: a call's KPT_REC_SLOW, its end's record then its latency;
 * the record, a copy marked as the event it is, checked, to on_slow.
 */
static int on_slow(struct ctx *c, const void *data, size_t len)
{
	const struct kpt_rec_hdr *h = data;
	struct kpt_rec_hdr *copy;
	uint64_t dur;

	len -= sizeof(dur);
	copy = len >= KPT_HDR_SIZE && c->o->on_slow ? malloc(len) : NULL;
	if (copy) {
		memcpy(copy, data, len);
		copy->kind = KPT_REC_EVENT;
	}
	if (!copy || decode_check(&c->o->evs[h->probe], copy, len)) {
		free(copy);
		c->bad++;
		return 0;
	}
	memcpy(&dur, (const char *)data + len, sizeof(dur));
	c->o->on_slow(c->o->hook_arg, &c->o->evs[h->probe], copy, len, dur);
	free(copy);
	c->records++;
	return 0;
}

static int on_record(void *arg, void *data, size_t len)
{
	struct ctx *c = arg;
	const struct kpt_rec_hdr *h = data;
	int err;

	/* a stream that never lets the ring empty still ends on time: the
	 * clock is read every 64 records (a signal is seen at once) */
	if ((stop_requested || !(++c->since_check & 63)) && !keep_consuming(c)) {
		c->unprinted++;
		return -ECANCELED;	/* stops kpt_ring_consume() */
	}
	if (len < sizeof(*h) || h->probe >= c->o->nevs) {
		c->bad++;
		return 0;
	}
	if (h->kind == KPT_REC_CALL) {
		if (len < KPT_HDR_SIZE + sizeof(uint64_t) || !c->o->on_call) {
			c->bad++;
			return 0;
		}
		c->o->on_call(c->o->hook_arg, h, *(const uint64_t *)((const char *)data +
								   KPT_HDR_SIZE));
		c->records++;
		return 0;
	}
	if (h->kind == KPT_REC_SLOW)
		return on_slow(c, data, len);
	if (h->kind == KPT_REC_WHY) {
		if (c->o->on_why)
			c->o->on_why(c->o->hook_arg, data, len);
		else
			c->bad++;
		c->records++;
		return 0;
	}
	/* a user stack is named from its process's files: their maps now, while it lives */
	if (c->o->syms.us && h->nustack)
		usym_capture(c->o->syms.us, h->tgid);
	if (c->o->on_event) {
		if (decode_check(&c->o->evs[h->probe], data, len)) {
			c->bad++;
			return 0;
		}
		c->o->on_event(c->o->hook_arg, &c->o->evs[h->probe], data, len);
		if (c->o->hook_only) {
			c->records++;
			return 0;
		}
	}
	if (c->o->format == OUT_JSON)
		err = output_json_ex(c->o->out, &c->o->evs[h->probe], &c->o->syms, data, len);
	else
		err = output_text_ex(c->o->out, &c->o->evs[h->probe], &c->o->syms, data, len);
	if (err)
		c->bad++;
	c->records++;
	if (ferror(c->o->out)) {
		c->write_err++;
		return -EPIPE; /* stops kpt_ring_poll() */
	}
	return 0;
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

/*
 * Totals over every probe; warn as soon as something new is lost. Once
 * stopped, the misses are those read before detaching: a detached probe's
 * (a tracefs kretprobe's above all) are gone.
 */
static void check_loss(struct ctx *c)
{
	const struct consume_opts *o = c->o;
	unsigned long long drops = loader_lost(c->ld), misses, prog;
	long long *missed = c->missed;
	char why[512];
	int i;

	if (!c->stopping) {
		missed = calloc(o->nevs ? o->nevs : 1, sizeof(*missed));
		for (i = 0; missed && i < o->nevs; i++)
			missed[i] = loader_missed(c->ld, i);
	}
	misses = prog = c->stopping ? c->prog_misses : loader_prog_misses(c->ld);
	for (i = 0; missed && i < o->nevs; i++)
		if (missed[i] > 0)
			misses += missed[i];
	if (drops > c->seen_drops) {
		fprintf(stderr,
			"kptrace: warning: %llu events lost so far: the ring buffer was full "
			"(raise --buffer-size, or write to a file with -o)\n", drops);
		c->seen_drops = drops;
	}
	if (misses > c->seen_misses) {
		fprintf(stderr, "kptrace: warning: the kernel missed %llu probe hits so far (%s)\n",
			misses, consumer_miss_causes(o->evs, o->nevs, missed, prog > 0, why, sizeof(why)));
		c->seen_misses = misses;
	}
	if (missed != c->missed)
		free(missed);
}

/* What loader_detach() left to its child process, and for how long about. */
static void say_handed(const struct loader *ld)
{
	char about[32] = "";

	if (!ld->handed)
		return;
	if (ld->detached)
		snprintf(about, sizeof(about), ", about %.0f s",
			 ld->handed * ld->detach_s / ld->detached);
	fprintf(stderr, "kptrace: stopped; the last %d link%s released in the background "
		"(process %d%s: the kernel waits out an RCU grace period for each)\n",
		ld->handed, ld->handed == 1 ? " is" : "s are", (int)ld->reaper, about);
}

/*
 * The end (-d, a signal, the target's exit): the BPF side ignores every hit
 * from now on, so the tables, the profile and the stream are this moment's
 * however long the kernel takes to detach; then detach, and give the drain
 * of what is buffered KPT_DRAIN_S. The kernel's miss counts are read
 * before detaching: they go with the links.
 */
static void stop_tracing(struct ctx *c)
{
	const struct consume_opts *o = c->o;
	struct loader *ld = c->ld;

	if (c->stopping)
		return;
	loader_stop(ld);
	c->stopped = ld->stopped ? ld->stopped : kpt_mono_s();
	c->missed = calloc(o->nevs ? o->nevs : 1, sizeof(*c->missed));
	c->prog_misses = loader_prog_misses(ld);
	for (int i = 0; c->missed && i < o->nevs; i++)
		c->missed[i] = loader_missed(ld, i);
	loader_detach(ld);
	say_handed(ld);
	c->stopping = true;
	c->drain_until = kpt_mono_s() + KPT_DRAIN_S;
}

/* -c's command and -p's process: whether they have exited, said once. */
static void watch_targets(struct ctx *c)
{
	const struct consume_opts *o = c->o;
	const char *more = o->keep_running ? "; still tracing (--keep-running): -d or a "
					     "signal stops" : "";

	if (!c->child_done && o->child && waitpid(o->child, c->child_status, WNOHANG) == o->child) {
		c->child_done = true;
		if (o->keep_running)
			fprintf(stderr, "kptrace: the command exited%s\n", more);
	}
	if (!c->target_done && o->target && target_exited(o->target)) {
		c->target_done = true;
		fprintf(stderr, "kptrace: %s %d%s%s%s exited%s\n",
			o->target->thread ? "thread" : "process", (int)o->target->pid,
			o->target->comm[0] ? " (" : "", o->target->comm,
			o->target->comm[0] ? ")" : "", more);
	}
}

/*
 * Whether to go on reading records and writing them out: until a stop
 * (which detaches), then until the drain's time is up or the output gave
 * up. Reads the clock; the targets' state once every 50 ms at most.
 */
static bool keep_consuming(struct ctx *c)
{
	const struct consume_opts *o = c->o;
	double now = kpt_mono_s();

	if (now - c->last_watch >= 0.05) {
		watch_targets(c);
		c->last_watch = now;
	}
	if (!c->stopping && (stop_requested || (o->duration > 0 && now - c->start >= o->duration) ||
			     (!o->keep_running && (c->child_done || c->target_done))))
		stop_tracing(c);
	if (!c->stopping)
		return true;
	return now < c->drain_until && !(o->sink && outsink_gave_up(o->sink));
}

/*
 * The sink's question while a write waits for a slow reader: the loss
 * warnings go on meanwhile, and -d, a signal or the target's exit still
 * stop the run (detached at once), whose drain then waits KPT_DRAIN_S at
 * most, said once.
 */
static bool output_wait(void *arg)
{
	struct ctx *c = arg;
	bool more = keep_consuming(c);

	if (kpt_mono_s() - c->last_check >= 1.0) {
		check_loss(c);
		c->last_check = kpt_mono_s();
	}
	if (c->stopping && more && !c->said_slow) {
		fprintf(stderr, "kptrace: the output is not keeping up: detached; writing what "
			"is buffered for at most %.0f s more (a second Ctrl-C quits at once)\n",
			KPT_DRAIN_S);
		c->said_slow = true;
	}
	return more;
}

/* -c without --keep-running: what the command started and left running. */
static void say_left_running(const struct ctx *c)
{
	const struct consume_opts *o = c->o;
	int n;

	if (!o->child || !c->child_done || o->keep_running || o->procs_fd < 0)
		return;
	n = target_set_running(o->procs_fd, o->child);
	if (n > 0)
		fprintf(stderr, "kptrace: the command exited; %d process%s it started still "
			"run%s, not traced from here (--keep-running follows them)\n", n,
			n == 1 ? "" : "es", n == 1 ? "s" : "");
}

/* How long a poll may wait: 50 ms, less so that -d's deadline and the tick are on time. */
static int poll_ms(const struct ctx *c)
{
	double left = 0.05, now = kpt_mono_s();

	if (c->o->duration > 0 && c->start + c->o->duration - now < left)
		left = c->start + c->o->duration - now;
	if (c->o->tick_due && *c->o->tick_due > 0 && *c->o->tick_due - now < left)
		left = *c->o->tick_due - now;
	if (left >= 0.05)
		return 50;
	return left > 0 ? (int)(left * 1e3) + 1 : 0;
}

int consume(struct loader *ld, const struct consume_opts *o, int *child_status,
	    struct consume_result *res)
{
	struct ctx c = { .o = o, .ld = ld, .child_status = child_status };
	struct kpt_ring *rb;
	double last_report, last_watch;
	int err = 0;

	*res = (struct consume_result){ 0 };
	rb = kpt_ring_new(loader_events_fd(ld), on_record, &c);
	if (!rb)
		return -errno;
	c.start = c.last_check = c.last_watch = last_report = last_watch = kpt_mono_s();
	/* -d counts from when the probes began to count, not from here */
	if (ld->started > 0 && ld->started <= c.start)
		c.start = ld->started;
	stop_loader = ld;
	if (o->sink)
		outsink_set_wait(o->sink, output_wait, &c);

	while (!c.stopping) {
		/* The BPF side wakes us at most once a millisecond or past a fill
		 * mark (sampled wakeups); after a timeout the poll reads whatever
		 * came without one. */
		err = kpt_ring_poll(rb, poll_ms(&c));
		if (err < 0 && err != -EINTR && err != -ECANCELED)
			break;
		err = 0;
		/* Once per batch, not per record: no syscall per event. */
		fflush(o->out);
		if (kpt_mono_s() - c.last_check >= 1.0) {
			check_loss(&c);
			c.last_check = kpt_mono_s();
			if (o->budget)
				budget_tick(o->budget);
		}
		if (o->tick)
			o->tick(o->tick_arg);
		if (o->watch && kpt_mono_s() - last_watch >= KPT_WATCH_S) {
			o->watch(o->watch_arg);
			last_watch = kpt_mono_s();
		}
		/* -i's interval that -d ends is the last report's, not a sliver after it */
		if (o->report && o->interval > 0 && kpt_mono_s() - last_report >= o->interval &&
		    !(o->duration > 0 && kpt_mono_s() - c.start >= o->duration)) {
			o->report(o->report_arg, false);
			last_report = kpt_mono_s();
		}
		c.last_watch = 0;	/* each round looks at the targets */
		keep_consuming(&c);
	}
	stop_tracing(&c);
	stop_loader = NULL;
	if (o->stopped)
		o->stopped(o->tick_arg);
	if (o->budget)
		c.unseen = budget_stop(o->budget);
	say_left_running(&c);
	/* what is buffered, as long as the drain's time lasts */
	if (err != -EPIPE)
		kpt_ring_consume(rb);
	fflush(o->out);
	c.unprinted += kpt_ring_skip(rb);
	kpt_ring_free(rb);
	if (c.write_err)
		err = 0; /* reader went away: a normal end */
	if (o->watch)
		o->watch(o->watch_arg);
	if (o->report)
		o->report(o->report_arg, true);
	fflush(o->out);
	if (o->sink) {
		/* nothing is written after this: c goes with the return */
		outsink_set_wait(o->sink, NULL, NULL);
		outsink_give_up(o->sink);
	}
	check_loss(&c);
	*res = (struct consume_result){ .ran = true, .records = c.records, .unprinted = c.unprinted,
					.bad = c.bad, .prog_misses = c.prog_misses,
					.unseen = c.unseen, .missed = c.missed,
					.seconds = c.stopped > c.start ? c.stopped - c.start : 0 };
	return err;
}
