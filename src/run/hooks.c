// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The consumer's callbacks for a run's other outputs: --perfetto,
 * timechart, latency --over (state.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "agg/agg.h"
#include "agg/tchart.h"
#include "out/perfetto.h"
#include "out/slowcall.h"
#include "out/whytree.h"
#include "run/state.h"
#include "util/clock.h"

/* --perfetto: a timed call, named as its histogram is (the function, or --from->--to). */
static void perfetto_on_call(void *arg, const struct kpt_rec_hdr *h, uint64_t dur)
{
	struct run *r = arg;
	char name[2 * SPEC_NAME_MAX + 3];

	agg_probe_name(r->ps.evs, r->ps.n, &r->ps.ents[h->probe].agg, h->probe, name, sizeof(name));
	perfetto_call(r->pf, name, h, dur);
}

/* --perfetto: a streamed event, an instant. */
static void perfetto_on_event(void *arg, const struct ev_desc *ev, const void *rec, size_t len)
{
	perfetto_instant(((struct run *)arg)->pf, ev, rec, len);
}

/* --perfetto: a latency's start, with the arguments its slice shows. */
static void perfetto_on_start(void *arg, const struct ev_desc *ev, const void *rec, size_t len)
{
	perfetto_start(((struct run *)arg)->pf, ev, rec, len);
}

/* timechart: a fork or exec (its probes' only records), a mark on its process's lane. */
static void timechart_on_event(void *arg, const struct ev_desc *ev, const void *rec, size_t len)
{
	const struct kpt_rec_hdr *h = rec;
	struct run *r = arg;

	if (len < KPT_HDR_SIZE)
		return;
	tchart_event(r->tc, strstr(ev->event, "exec") != NULL, h->comm, h->ts, h->tid, h->tgid);
	if (r->pf)
		perfetto_instant(r->pf, ev, rec, len);
}

/*
 * timechart: the consumer's last report, once stopped and drained (every
 * fork and exec in): the kernel's tables read as the run stopped, then each
 * output.
 */
static void timechart_report(void *arg, bool final)
{
	struct run *r = arg;
	uint64_t end = r->ld.stopped ? (uint64_t)(r->ld.stopped * 1e9) : kpt_mono_ns();
	int err;

	if (!final)
		return;
	err = r->tc_err = tchart_read(r->tc, &r->ld, end);
	if (err) {
		fprintf(stderr, "kptrace: error: timechart: cannot read its tables: %s\n",
			strerror(-err));
		return;
	}
	tchart_summary(r->tc, r->out, r->env->json);
	if (r->pf)
		tchart_perfetto(r->tc, r->pf);
	if (r->svg && (err = r->tc_err = tchart_svg(r->tc, r->svg)))
		fprintf(stderr, "kptrace: error: --svg: cannot write %s: %s\n", r->env->svg_path,
			strerror(-err));
}

/* latency --over: a start's record, kept for its call's line. */
static void over_on_start(void *arg, const struct ev_desc *ev, const void *rec, size_t len)
{
	callstart_put(((struct run *)arg)->over, ev, rec, len);
}

/* latency --over: any call ended; its start, if still kept, goes. */
static void over_on_call(void *arg, const struct kpt_rec_hdr *h, uint64_t dur)
{
	free(callstart_take(((struct run *)arg)->over, h->ts >= dur ? h->ts - dur : 0, h->tid));
}

/* latency --over: a call at or over it, its line (and slice) with both ends' arguments. */
static void over_on_slow(void *arg, const struct ev_desc *ev, const void *rec, size_t len,
			 uint64_t dur)
{
	struct run *r = arg;
	const struct kpt_rec_hdr *h = rec;
	struct call_start *st = callstart_take(r->over, h->ts >= dur ? h->ts - dur : 0, h->tid);
	char name[2 * SPEC_NAME_MAX + 3];

	agg_probe_name(r->ps.evs, r->ps.n, &r->ps.ents[h->probe].agg, h->probe, name, sizeof(name));
	slowcall_print(r->out, r->env->json, r->si.ksyms, name,
		       r->env->unit ? r->env->unit : "us", st, ev, rec, len, dur);
	if (r->pf)
		perfetto_slow(r->pf, name, st, ev, rec, len, dur);
	free(st);
}

/* kptrace why: a root call that met the condition, its tree. */
static void why_on_record(void *arg, const void *rec, size_t len)
{
	struct run *r = arg;
	struct why_print o = { .f = r->out, .json = r->env->json, .pf = r->pf, .evs = r->ps.evs,
			       .nevs = r->ps.n, .ks = r->si.ksyms };

	whytree_print(&o, rec, len, &r->why);
}

/* kptrace why: at the end, what was printed and what was cut short (stderr). */
static void why_report(void *arg, bool final)
{
	struct run *r = arg;
	unsigned long long full = loader_why_full(&r->ld);
	struct kpt_stats st;

	if (!final)
		return;
	fprintf(stderr, "kptrace: why: %lu calls printed", r->why.calls);
	/* --budget leaves the root's calls out whole (its SKIPPED) */
	if (r->budget.why_root >= 0 && r->budget.p &&
	    !loader_stats(&r->ld, r->budget.why_root, &st) && st.sampled + st.paused)
		fprintf(stderr, ", %llu calls left out whole by --budget (none cut short)",
			(unsigned long long)(st.sampled + st.paused));
	if (r->why.cut)
		fprintf(stderr, ", %lu of them cut short (the log keeps %d entries, %d deep)",
			r->why.cut, KPT_WHY_ENTRIES, KPT_WHY_DEPTH);
	if (r->why.bad)
		fprintf(stderr, ", %lu logs unreadable", r->why.bad);
	if (full)
		fprintf(stderr, ", %llu calls not logged (no room for their thread's log)", full);
	fprintf(stderr, "\n");
}

int run_hooks(struct run *r, struct consume_opts *co)
{
	if (r->env->mode == MODE_WHY) {
		co->on_why = why_on_record;
		co->hook_arg = r;
		co->report = why_report;
		co->report_arg = r;
	}
	/* why's trees go to --perfetto from why_on_record() */
	if (r->pf && r->env->mode != MODE_WHY) {
		perfetto_set_ksyms(r->pf, r->si.ksyms);
		co->on_call = perfetto_on_call;
		/* latency's records of events are its starts' arguments, not lines */
		co->on_event = r->env->mode == MODE_TRACE ? perfetto_on_event : perfetto_on_start;
		co->hook_only = r->env->mode != MODE_TRACE;
		co->hook_arg = r;
	}
	if (r->tc) {
		co->on_event = timechart_on_event;
		co->hook_only = true;
		co->hook_arg = r;
		co->report = timechart_report;
		co->report_arg = r;
	}
	if (r->env->over_ns) {
		r->over = calloc(1, sizeof(*r->over));
		if (!r->over)
			return -ENOMEM;
		co->on_call = over_on_call;
		co->on_event = over_on_start;
		co->on_slow = over_on_slow;
		co->hook_only = true;
		co->hook_arg = r;
	}
	return 0;
}
