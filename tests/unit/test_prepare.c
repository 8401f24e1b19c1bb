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

	/*
	 * "p:do_nothing vfs_*": an event named as a function on a glob, as
	 * ftrace reads it, is most likely a slip for a probe on the function
	 * (issue 37): refused; a group, or a name no function has, means it
	 */
	defs[0] = "p:do_nothing vfs_*";
	CHECK_INT(run_prepare(MODE_TRACE, defs, 1, &si, &ps), -EINVAL,
		  "a glob's event named as a function");
	done(&si, &ps);
	defs[0] = "r:kprobes/do_nothing vfs_*";
	CHECK_INT(run_prepare(MODE_TRACE, defs, 1, &si, &ps), 0, "... with a group: meant");
	CHECK(find_event(&ps, "do_nothing_vfs_read") >= 0, "EVENT_MATCH");
	done(&si, &ps);
	defs[0] = "p:mine vfs_*";
	CHECK_INT(run_prepare(MODE_TRACE, defs, 1, &si, &ps), 0, "... named as no function");
	done(&si, &ps);
	defs[0] = "p:do_nothing vfs_read";
	CHECK_INT(run_prepare(MODE_TRACE, defs, 1, &si, &ps), 0,
		  "an event named as a function on one function: ftrace's reading");
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
		CHECK(ps.evs[s].pair_entry, "attached after its return probe");
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
		struct kpt_opts env = { .mode = MODE_TRACE, .defs = defs, .ndefs = 1,
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

/* sched/sched_wakeup, cut short: no prev_pid, which sched_switch has. */
static const char wakeup_format[] =
	"name: sched_wakeup\n"
	"ID: 320\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"pid=%d\", REC->pid\n";

/* Beside fake_system.h's sched/sched_switch: sched/sched_wakeup, a file that is
 * no event, and ftrace's own record, which no glob matches. */
static void make_tp_files(void)
{
	static const char *const dirs[] = { "sched/sched_wakeup", "ftrace", "ftrace/function" };
	char path[256];
	size_t i;

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, dirs[i]);
		mkdir(path, 0700);
	}
	snprintf(path, sizeof(path), "%s/sched/sched_wakeup/format", dir);
	write_file(path, wakeup_format);
	snprintf(path, sizeof(path), "%s/ftrace/function/format", dir);
	write_file(path, fake_format);
	snprintf(path, sizeof(path), "%s/sched/enable", dir);
	write_file(path, "0\n");
}

/* "t:SUBSYS/EVENT" with globs: a probe per tracepoint, those lacking a field skipped. */
static void tracepoint_globs(void)
{
	const char *defs[] = { "t:sched/* prev_pid" };
	struct sysinfo si;
	struct probeset ps;
	int sw, wk;

	CHECK_INT(run_prepare(MODE_COUNT, defs, 1, &si, &ps), 0, "a glob over sched's events");
	CHECK_INT(ps.n, 1, "sched_wakeup has no prev_pid: skipped");
	CHECK_STR(ps.p[0].spec.tp_event, "sched_switch", "the match that has it");
	CHECK_INT(ps.p[0].origin, PROBE_GLOB, "a match's origin");
	CHECK_STR(ps.p[0].spec.group, "sched", "named as a definition of it is: its group");
	CHECK_STR(ps.p[0].spec.event, "sched_switch", "and its event");
	CHECK_INT(ps.evs[0].nargs, 1, "the glob's field");
	CHECK_INT(ps.ents[0].agg.action, KPT_ACT_COUNT, "counted");
	done(&si, &ps);

	defs[0] = "t:s?hed/sched_[sw]*";
	CHECK_INT(run_prepare(MODE_COUNT, defs, 1, &si, &ps), 0, "globs in both halves");
	CHECK_INT(ps.n, 2, "both events of sched, not its enable file");
	sw = find_event(&ps, "sched_switch");
	wk = find_event(&ps, "sched_wakeup");
	CHECK(sw >= 0 && wk >= 0, "each its own probe: %d %d", sw, wk);
	CHECK_INT(find_event(&ps, "sched_[sw]*"), -1, "the glob itself");
	done(&si, &ps);

	defs[0] = "t:sched/* if prev_pid > 0";
	CHECK_INT(run_prepare(MODE_COUNT, defs, 1, &si, &ps), 0, "a filter on a field");
	CHECK_INT(ps.n, 1, "the match without the filter's field skipped");
	CHECK_STR(ps.p[0].spec.tp_event, "sched_switch", "the one that has it");
	CHECK(ps.ents[0].pre.nops || ps.ents[0].post.nops, "its filter compiled");
	done(&si, &ps);
	{
		struct kpt_opts env = { .mode = MODE_COUNT, .defs = defs, .ndefs = 1,
				   .filter = "prio == 5" };

		defs[0] = "t:sched/*";
		CHECK_INT(prepare_env(&env, &si, &ps), 0, "--filter on sched_wakeup's field");
		CHECK_INT(ps.n, 1, "sched_switch, without prio, skipped");
		CHECK_STR(ps.n ? ps.p[0].spec.tp_event : "", "sched_wakeup", "the one with it");
		done(&si, &ps);
		/* pid is built in (the process) where the event has no such field */
		env.filter = "pid == 5";
		CHECK_INT(prepare_env(&env, &si, &ps), 0, "--filter on a built-in");
		CHECK_INT(ps.n, 2, "none skipped");
		done(&si, &ps);
	}

	defs[0] = "t:ev sched/sched_*";
	CHECK_INT(run_prepare(MODE_TRACE, defs, 1, &si, &ps), 0, "a named glob");
	CHECK(find_event(&ps, "ev_sched_switch") >= 0 && find_event(&ps, "ev_sched_wakeup") >= 0,
	      "EVENT_MATCH, as a named kernel glob's");
	CHECK_STR(ps.n ? ps.p[0].spec.group : "", "sched", "in the match's subsystem");
	done(&si, &ps);

	defs[0] = "t:*/function";
	CHECK_INT(run_prepare(MODE_TRACE, defs, 1, &si, &ps), -ENOENT,
		  "ftrace's own records are no tracepoints");
	done(&si, &ps);
	defs[0] = "t:nosuch/*";
	CHECK_INT(run_prepare(MODE_TRACE, defs, 1, &si, &ps), -ENOENT, "no subsystem matches");
	done(&si, &ps);
	defs[0] = "t:sched/nosuch_*";
	CHECK_INT(run_prepare(MODE_TRACE, defs, 1, &si, &ps), -ENOENT, "no event matches");
	done(&si, &ps);
	defs[0] = "t:sched/* no_such_field";
	CHECK_INT(run_prepare(MODE_TRACE, defs, 1, &si, &ps), -EINVAL,
		  "every match skipped: nothing left to run");
	done(&si, &ps);
}

/* Functions of this test binary, for the uprobe globs. */
__attribute__((noinline, used)) void glob_unit_a1(void)
{
	__asm__ volatile("");
}

__attribute__((noinline, used)) void glob_unit_a2(void)
{
	__asm__ volatile("");
}

void __glob_unit_a2(void) __attribute__((alias("glob_unit_a2")));

/* "p:PATH:GLOB": a probe per function of the binary, aliases probed once. */
static void uprobe_globs(void)
{
	char exe[512], d0[600];
	const char *defs[] = { d0 };
	struct sysinfo si;
	struct probeset ps;
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int a1, a2;

	if (len <= 0 || access("/sys/bus/event_source/devices/uprobe", F_OK)) {
		printf("skip - uprobe globs: no /proc/self/exe or no uprobe PMU\n");
		return;
	}
	exe[len] = 0;
	snprintf(d0, sizeof(d0), "p %s:glob_unit_a* %%di", exe);
	CHECK_INT(run_prepare(MODE_COUNT, defs, 1, &si, &ps), 0, "a glob over our functions");
	CHECK_INT(ps.n, 2, "glob_unit_a1 and glob_unit_a2");
	a1 = find_event(&ps, "p_test_glob_unit_a1_0");
	a2 = find_event(&ps, "p_test_glob_unit_a2_0");
	CHECK(a1 >= 0 && a2 >= 0, "named as ftrace names a uprobe on each: %d %d", a1, a2);
	if (a1 >= 0 && a2 >= 0) {
		CHECK_STR(ps.p[a1].spec.usym, "glob_unit_a1", "a match's symbol");
		CHECK_INT(ps.p[a1].origin, PROBE_GLOB, "a match's origin");
		CHECK_INT(ps.evs[a1].nargs, 1, "the glob's argument");
		CHECK(ps.p[a1].res.uoffset != ps.p[a2].res.uoffset, "two places");
	}
	done(&si, &ps);

	snprintf(d0, sizeof(d0), "r %s:*glob_unit_a*", exe);
	CHECK_INT(run_prepare(MODE_COUNT, defs, 1, &si, &ps), 0, "the alias __glob_unit_a2 too");
	CHECK_INT(ps.n, 2, "one probe per address");
	CHECK(find_event(&ps, "p_test_glob_unit_a2_0") >= 0 &&
	      find_event(&ps, "p_test___glob_unit_a2_0") < 0, "of the aliases, the public name");
	CHECK_INT(ps.n ? ps.p[0].spec.kind : 0, SPEC_URETPROBE, "return probes stay returns");
	done(&si, &ps);

	/* latency: an entry and a return probe per match, linked */
	snprintf(d0, sizeof(d0), "%s:glob_unit_a*", exe);
	CHECK_INT(run_prepare(MODE_LATENCY, defs, 1, &si, &ps), 0, "latency over the glob");
	CHECK_INT(ps.n, 4, "two functions, two probes each");
	for (a1 = 0; a1 < ps.n; a1++) {
		a2 = ps.p[a1].lat_peer;
		CHECK(a2 >= 0 && a2 < ps.n && ps.p[a2].lat_peer == a1 &&
		      !strcmp(ps.p[a2].spec.usym, ps.p[a1].spec.usym),
		      "probe %d and its peer %d on one function", a1, a2);
	}
	done(&si, &ps);

	snprintf(d0, sizeof(d0), "p %s:glob_unit_none*", exe);
	CHECK_INT(run_prepare(MODE_COUNT, defs, 1, &si, &ps), -ENOENT, "a glob matching nothing");
	done(&si, &ps);
	snprintf(d0, sizeof(d0), "p /nonexistent/bin:glob_*");
	CHECK(run_prepare(MODE_COUNT, defs, 1, &si, &ps) < 0, "a binary that is not there");
	done(&si, &ps);
}

int main(void)
{
	make_files();
	make_tp_files();
	tracepoint_globs();
	uprobe_globs();
	glob_expansion();
	entry_savers();
	latency_pairs();
	tracepoint_filter_fields();
	shorthand();
	remove_files();
	return check_report();
}
