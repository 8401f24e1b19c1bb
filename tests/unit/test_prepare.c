// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * prepare(): the whole of stages 1-3 on a made-up system (fake_system.h),
 * nothing loaded; each case checks what the probe set holds afterwards: the
 * expansions, their links, their actions.
 */
#include "check.h"
#include "fake_system.h"

static int find_event(const struct probeset *ps, const char *event)
{
	int i;

	for (i = 0; i < ps->n; i++)
		if (!strcmp(ps->p[i].spec.event, event))
			return i;
	return -1;
}

/* "p:vfs_* ARGS": one probe per traceable match, the blacklisted one left out. */
static void glob_expansion(void)
{
	const char *defs[] = { "p vfs_* count", "r:mine/do_nothing do_nothing" };
	struct sysinfo si;
	struct probeset ps;
	int r, w;

	CHECK_INT(run_prepare(MODE_TRACE, defs, 2, &si, &ps), 0, "a glob and a plain probe");
	CHECK_INT(ps.n, 3, "two matches and the plain probe");
	CHECK_INT(find_event(&ps, "p_vfs_blocked_0"), -1, "the blacklisted match");
	CHECK_INT(find_event(&ps, "vfs_*"), -1, "the glob itself");
	r = find_event(&ps, "p_vfs_read_0");
	w = find_event(&ps, "p_vfs_write_0");
	CHECK(r >= 0 && w >= 0, "each match named as ftrace names it: %d %d", r, w);
	if (r >= 0 && w >= 0) {
		CHECK_INT(ps.p[r].origin, PROBE_GLOB, "a match's origin");
		CHECK_STR(ps.p[w].spec.symbol, "vfs_write", "a match's function");
		/* the glob's arguments, typed from each match's BTF */
		CHECK_INT(ps.evs[r].nargs, 1, "a match's arguments");
		CHECK_STR(ps.evs[r].args[0].name, "count", "its argument by name");
		CHECK_INT(ps.evs[r].args[0].type, SPEC_T_S64, "its type from BTF");
		CHECK_INT(ps.evs[r].index, r, "the probe table index");
	}
	CHECK_INT(ps.p[0].origin, PROBE_USER, "the plain probe, first as written");
	CHECK_STR(ps.p[0].spec.event, "do_nothing", "the plain probe's event");
	CHECK_INT(ps.ents[0].agg.action, KPT_ACT_PRINT, "a stream prints");
	done(&si, &ps);

	defs[0] = "p nothing_matches_* count";
	CHECK_INT(run_prepare(MODE_TRACE, defs, 1, &si, &ps), -ENOENT, "a glob with no match");
	done(&si, &ps);
	defs[0] = "p vfs_blocked*";
	CHECK_INT(run_prepare(MODE_TRACE, defs, 1, &si, &ps), -ENOENT,
		  "a glob with only a blacklisted match");
	done(&si, &ps);
}

/* A return probe reading entry arguments: an entry probe saves them for it. */
static void entry_savers(void)
{
	const char *defs[] = { "r:vfs_read count=count ret=$retval", "p:vfs_write fd" };
	struct sysinfo si;
	struct probeset ps;
	int s;

	CHECK_INT(run_prepare(MODE_TRACE, defs, 2, &si, &ps), 0, "a return probe with entry args");
	CHECK_INT(ps.nuser, 2, "the definitions");
	CHECK_INT(ps.n, 3, "and one saver after them");
	s = ps.p[0].saver;
	CHECK_INT(s, 2, "the return probe's saver");
	CHECK_INT(ps.p[1].saver, -1, "an entry probe has none");
	if (s == 2) {
		CHECK_INT(ps.p[s].origin, PROBE_SAVER, "the saver's origin");
		CHECK_INT(ps.p[s].saves, 0, "the saver's link back");
		CHECK_INT(ps.p[s].spec.kind, SPEC_KPROBE, "an entry probe");
		CHECK_STR(ps.p[s].spec.symbol, "vfs_read", "on the same function");
		CHECK_STR(ps.p[s].spec.event, "r_vfs_read_0__entry", "named for its return probe");
		CHECK_INT(ps.ents[s].agg.action, KPT_ACT_SAVE_ARGS, "it saves, prints nothing");
		CHECK(ps.evs[s].attach_first, "attached before its return probe");
		CHECK(ps.ents[0].flags & KPT_PF_EDATA, "the return probe reads entry data");
		CHECK_INT(ps.ents[0].edata_peer, s, "from its saver");
	}
	done(&si, &ps);
}

/* latency FUNC: an entry and a return probe linked, whatever their places. */
static void latency_pairs(void)
{
	const char *defs[] = { "vfs_*", "do_nothing" };
	struct sysinfo si;
	struct probeset ps;
	int i;

	CHECK_INT(run_prepare(MODE_LATENCY, defs, 2, &si, &ps), 0, "latency of a glob and a fn");
	CHECK_INT(ps.n, 6, "three functions, two probes each");
	for (i = 0; i < ps.n; i++) {
		const struct probe *p = &ps.p[i];
		int peer = p->lat_peer;

		CHECK(peer >= 0 && peer < ps.n && ps.p[peer].lat_peer == i,
		      "probe %d linked both ways (peer %d)", i, peer);
		if (peer < 0 || peer >= ps.n)
			continue;
		CHECK_STR(ps.p[peer].spec.symbol, p->spec.symbol, "both halves on one function");
		if (p->lat == PROBE_LAT_END) {
			CHECK_INT(p->spec.kind, SPEC_KRETPROBE, "the end is the return");
			CHECK_INT(ps.ents[i].agg.action, KPT_ACT_LAT_END, "it stops the clock");
			CHECK_INT(ps.ents[i].agg.lat_peer, peer, "of its own entry");
		} else {
			CHECK_INT(p->lat, PROBE_LAT_START, "the other half starts");
			CHECK_INT(p->spec.kind, SPEC_KPROBE, "the start is the entry");
			CHECK_INT(ps.ents[i].agg.action, KPT_ACT_LAT_START, "it starts the clock");
		}
	}
	done(&si, &ps);
}

/* A tracepoint filter on a field the definition does not list: added, hidden. */
static void tracepoint_filter_fields(void)
{
	const char *defs[] = { "t:sched/sched_switch prev_pid if next_pid == 1 && prev_prio > 3" };
	struct sysinfo si;
	struct probeset ps;
	int a;

	CHECK_INT(run_prepare(MODE_TRACE, defs, 1, &si, &ps), 0, "a filter on unlisted fields");
	CHECK_INT(ps.n, 1, "one probe");
	CHECK_INT(ps.evs[0].nargs, 3, "its argument and the two fields the filter reads");
	a = ev_arg_index(&ps.evs[0], "next_pid");
	CHECK(a > 0 && ps.evs[0].args[a].hidden, "next_pid added, hidden (index %d)", a);
	a = ev_arg_index(&ps.evs[0], "prev_prio");
	CHECK(a > 0 && ps.evs[0].args[a].hidden, "prev_prio added, hidden (index %d)", a);
	a = ev_arg_index(&ps.evs[0], "prev_pid");
	CHECK(a == 0 && !ps.evs[0].args[a].hidden, "prev_pid as written, printed");
	CHECK(ps.ents[0].pre.nops || ps.ents[0].post.nops, "the filter compiled");
	CHECK_INT(ps.ents[0].nargs, 3, "all three fetched");
	done(&si, &ps);

	/* the definition's fields first, then --filter's, each once */
	{
		struct env env = { .mode = MODE_TRACE, .defs = defs, .ndefs = 1,
				   .filter = "prev_prio > 1 && next_pid != 3" };

		defs[0] = "t:sched/sched_switch prev_pid if next_pid == 1 || next_pid == 2";
		CHECK_INT(prepare_env(&env, &si, &ps), 0, "a filter and --filter");
		CHECK_INT(ps.evs[0].nargs, 3, "prev_pid, then next_pid, then prev_prio");
		CHECK_INT(ev_arg_index(&ps.evs[0], "next_pid"), 1, "the definition's field first");
		CHECK_INT(ev_arg_index(&ps.evs[0], "prev_prio"), 2, "--filter's after it");
		done(&si, &ps);
		env.filter = "no_such_field == 1";
		defs[0] = "t:sched/sched_switch prev_pid";
		CHECK_INT(prepare_env(&env, &si, &ps), -EINVAL, "--filter on a field it has not");
		done(&si, &ps);
		env.filter = "pid == 1";
		CHECK_INT(prepare_env(&env, &si, &ps), 0, "--filter on a built-in");
		CHECK_INT(ps.evs[0].nargs, 1, "a built-in adds no field");
		done(&si, &ps);
	}

	defs[0] = "t:sched/sched_switch prev_pid if no_such_field == 1";
	CHECK_INT(run_prepare(MODE_TRACE, defs, 1, &si, &ps), -EINVAL, "a field it has not");
	done(&si, &ps);
}

/* "p:A B": event A on B as ftrace reads it, or, where only A is a function, A with B. */
static void shorthand(void)
{
	const char *defs[] = { "p:vfs_read count" };
	struct sysinfo si;
	struct probeset ps;

	CHECK_INT(run_prepare(MODE_TRACE, defs, 1, &si, &ps), 0, "p:FUNC PARAM");
	CHECK_STR(ps.p[0].spec.symbol, "vfs_read", "the function is A");
	CHECK_INT(ps.evs[0].nargs, 1, "B an argument");
	if (ps.evs[0].nargs == 1)
		CHECK_STR(ps.evs[0].args[0].name, "count", "B by name");
	done(&si, &ps);

	defs[0] = "p:myevent vfs_write";
	CHECK_INT(run_prepare(MODE_TRACE, defs, 1, &si, &ps), 0, "p:EVENT FUNC");
	CHECK_STR(ps.p[0].spec.event, "myevent", "A the event");
	CHECK_STR(ps.p[0].spec.symbol, "vfs_write", "on B");
	CHECK_INT(ps.evs[0].nargs, 0, "no argument");
	done(&si, &ps);
}

int main(void)
{
	make_files();
	glob_expansion();
	entry_savers();
	latency_pairs();
	tracepoint_filter_fields();
	shorthand();
	remove_files();
	return check_report();
}
