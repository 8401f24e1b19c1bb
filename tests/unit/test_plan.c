// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * plan_make(): what a whole run gets of the verifier's specialisations, on a
 * made-up system (fake_system.h): which runs take the direct paths and which
 * options or probes send them back to the generic one, the handler's uses,
 * the register mask, the tracepoint bounds, whether kallsyms is wanted.
 * test_direct.c checks the per-probe choices these are made of.
 */
#include "check.h"
#include "fake_system.h"
#include "prepare/plan.h"
#include "sys/kfeat.h"

/* prepare() and plan_make() for env: 0, or the first's error. */
static int plan_env(const struct kpt_opts *env, struct sysinfo *si, struct probeset *ps,
		    struct plan *pl)
{
	char msg[256];
	int err = prepare_env(env, si, ps);

	memset(pl, 0, sizeof(*pl));
	if (!err)
		err = plan_make(env, si, ps, 0, pl, msg, sizeof(msg));
	return err;
}

static void direct_hist(void)
{
	const char *one[] = { "p:vfs_read count" }, *glob[] = { "p vfs_* count" };
	const char *two[] = { "p:vfs_read fd count" };
	const char *filt[] = { "p:vfs_read count if count >= 512" };
	const char *filt2[] = { "p:vfs_read count if count >= 512 && count < 4096" };
	const char *fglob[] = { "p vfs_* count if count >= 512" };
	struct kpt_opts env = { .mode = MODE_HIST, .defs = one, .ndefs = 1, .field = "count" };
	struct sysinfo si;
	struct probeset ps;
	struct plan pl;

	CHECK_INT(plan_env(&env, &si, &ps, &pl), 0, "hist of a register argument");
	CHECK(ps.ents[0].flags & KPT_PF_DIRECT, "straight from the context");
	CHECK(pl.dh.on, "a run of one: its parameters constants");
	CHECK_INT(pl.uses, KPT_USE_DIRECT, "nothing else of the handler");
	CHECK_INT(pl.ds.size, 0, "no stream");
	CHECK_INT(pl.regs_mask, 1u << KPT_W_SI | 1u << KPT_W_IP, "count is the second argument");
	CHECK(!pl.keyed && !pl.latency && !pl.edata, "no keyed map, no latency, no entry data");
	CHECK(!pl.wants_symbols, "a number needs no kallsyms");
	done(&si, &ps);

	env.comm = "cat";
	CHECK_INT(plan_env(&env, &si, &ps, &pl), 0, "hist with --comm");
	CHECK(!(ps.ents[0].flags & KPT_PF_DIRECT) && !pl.dh.on, "--comm: the generic path");
	CHECK(pl.uses & KPT_USE_COMM, "which reads the comm");
	done(&si, &ps);

	env.comm = NULL;
	env.defs = glob;
	CHECK_INT(plan_env(&env, &si, &ps, &pl), 0, "hist of a glob");
	CHECK_INT(ps.n, 2, "two functions");
	CHECK((ps.ents[0].flags & ps.ents[1].flags) & KPT_PF_DIRECT, "each straight");
	CHECK(!pl.dh.on, "but two probes read their parameters from the table");
	done(&si, &ps);

	env.defs = filt;
	CHECK_INT(plan_env(&env, &si, &ps, &pl), 0, "hist filtered by one comparison");
	CHECK(ps.ents[0].flags & KPT_PF_DIRECT, "straight from the context, its filter too");
	CHECK_INT(pl.dh.fcmp, KPT_DH_FILTER | KPT_CMP_GE, "the comparison, its flag the word's sign");
	CHECK(pl.dh.fdirect == 1 && pl.dh.fsize == 8 && pl.dh.fimm == 512 &&
	      pl.dh.fsigned == ps.ents[0].post.ops[0].is_signed,
	      "count: the second argument register, 8 bytes, signed as the term, against 512");
	CHECK_INT(pl.uses, KPT_USE_DIRECT, "still nothing else of the handler");
	done(&si, &ps);

	env.defs = filt2;
	CHECK_INT(plan_env(&env, &si, &ps, &pl), 0, "hist filtered by two terms");
	CHECK(!(ps.ents[0].flags & KPT_PF_DIRECT) && !pl.dh.on, "two terms: the generic path");
	done(&si, &ps);

	env.defs = fglob;
	CHECK_INT(plan_env(&env, &si, &ps, &pl), 0, "a glob's histograms filtered by one comparison");
	CHECK(!(ps.ents[0].flags & KPT_PF_DIRECT) && !(ps.ents[1].flags & KPT_PF_DIRECT),
	      "the filter's constants are a run of one's: the generic path");
	done(&si, &ps);

	env.by = "fd";
	env.defs = two;
	env.field = "count";
	CHECK_INT(plan_env(&env, &si, &ps, &pl), 0, "hist by a key");
	CHECK(!(ps.ents[0].flags & KPT_PF_DIRECT) && pl.keyed, "keyed: the keyed map");
	done(&si, &ps);
}

static void direct_stream(void)
{
	const char *defs[] = { "p:vfs_read fd count" };
	struct kpt_opts env = { .mode = MODE_TRACE, .defs = defs, .ndefs = 1 };
	struct sysinfo si;
	struct probeset ps;
	struct plan pl;

	CHECK_INT(plan_env(&env, &si, &ps, &pl), 0, "a stream of two registers");
	CHECK_INT(pl.ds.nargs, 2, "straight from the registers");
	CHECK(pl.ds.size == ps.ents[0].fixed_size && pl.ds.size, "the record's size");
	CHECK(!pl.dh.on && !(ps.ents[0].flags & KPT_PF_DIRECT), "no histogram");
	done(&si, &ps);

	defs[0] = "p:vfs_read fd count if fd == 1";
	CHECK_INT(plan_env(&env, &si, &ps, &pl), 0, "a filtered stream");
	CHECK_INT(pl.ds.size, 0, "a filter: the generic path");
	CHECK(pl.uses & KPT_USE_FILTER, "which filters");
	done(&si, &ps);

	defs[0] = "p:vfs_read fd:symbol";
	CHECK_INT(plan_env(&env, &si, &ps, &pl), 0, "a symbol in a stream");
	CHECK(pl.wants_symbols, "kallsyms before attaching");
	done(&si, &ps);
}

static void latency(void)
{
	const char *defs[] = { "vfs_read" };
	struct kpt_opts env = { .mode = MODE_LATENCY, .defs = defs, .ndefs = 1 };
	struct sysinfo si;
	struct probeset ps;
	struct plan pl;

	CHECK_INT(plan_env(&env, &si, &ps, &pl), 0, "latency of a function");
	CHECK((ps.ents[0].flags & ps.ents[1].flags) & KPT_PF_DIRECT, "both halves straight");
	CHECK(pl.latency && !pl.keyed, "entry times, no keyed map");
	CHECK(ps.ents[1].flags & KPT_PF_OWN_STATS, "the end keeps its own stats");
	done(&si, &ps);

	env.interval = 1;
	CHECK_INT(plan_env(&env, &si, &ps, &pl), 0, "latency with -i");
	CHECK(!(ps.ents[1].flags & KPT_PF_OWN_STATS), "-i clears them: no own stats");
	done(&si, &ps);
}

static void tracepoint(void)
{
	const char *defs[] = { "t:sched/sched_switch prev_pid" };
	struct kpt_opts env = { .mode = MODE_HIST, .defs = defs, .ndefs = 1, .field = "prev_pid" };
	struct sysinfo si;
	struct probeset ps;
	struct plan pl;

	CHECK_INT(plan_env(&env, &si, &ps, &pl), 0, "hist of a tracepoint field");
	CHECK(ps.ents[0].flags & KPT_PF_DIRECT, "straight from the record");
	CHECK_INT(pl.tp_end, 60, "next_pid's end: the last field's");
	CHECK_INT(pl.tp_direct_word, kpt_tp_word_at(24, 4, 60), "prev_pid's word");
	CHECK(pl.tp_direct_word > 0, "a word at all");
	done(&si, &ps);
}

/*
 * --from/--to on one tracepoint: direct by the cpu or a field, filtered by
 * one comparison at most, through kpt_tp2 (where the kernel has cookies,
 * which kpt_tp2 tells its probes by), the end and the start in one go.
 */
static void pairs(void)
{
	/* defs: the starts, then the ends */
	const char *defs[] = { "t:sched/sched_switch", "t:sched/sched_switch" };
	struct kpt_opts env = { .mode = MODE_LATENCY, .defs = defs, .ndefs = 2, .from = defs,
				.nfrom = 1, .to = defs + 1, .nto = 1, .pair_key = "cpu" };
	bool tp2 = kfeat_cookies();
	struct sysinfo si;
	struct probeset ps;
	struct plan pl;

	CHECK_INT(plan_env(&env, &si, &ps, &pl), 0, "sched_switch at both ends by cpu");
	CHECK_INT(ps.n, 2, "a start and an end");
	CHECK(!!((ps.ents[0].flags & ps.ents[1].flags) & KPT_PF_DIRECT) == tp2 &&
	      ps.evs[0].pair_direct == tp2 && ps.evs[1].pair_direct == tp2,
	      "both direct through kpt_tp2 where the kernel has cookies");
	CHECK(pl.dp.on == tp2 && (!tp2 || pl.dp.end != pl.dp.start), "the end and its start in one go");
	CHECK(!tp2 || ps.ents[pl.dp.end].agg.action == KPT_ACT_PAIR_END, "the end first");
	CHECK(pl.pair_narrow, "a cpu's key: 8 bytes");
	CHECK(ps.ents[pl.dp.end].flags & KPT_PF_OWN_STATS, "the end keeps its own stats");
	done(&si, &ps);

	defs[0] = "t:sched/sched_switch if next_pid == 1";
	defs[1] = "t:sched/sched_switch if prev_pid == 1";
	CHECK_INT(plan_env(&env, &si, &ps, &pl), 0, "each filtered by one comparison");
	CHECK(pl.dp.on == tp2, "still in one go");
	done(&si, &ps);

	defs[0] = "t:sched/sched_switch if next_pid == 1 && prev_pid != 0";
	CHECK_INT(plan_env(&env, &si, &ps, &pl), 0, "a start filtered by two terms");
	CHECK(!pl.dp.on && !(ps.ents[0].flags & KPT_PF_DIRECT) && !ps.evs[0].pair_direct,
	      "two terms: the generic path, each probe its own");
	done(&si, &ps);

	defs[0] = "t:sched/sched_switch";
	defs[1] = "t:sched/sched_switch";
	env.pair_key = "prev_pid=next_pid";
	CHECK_INT(plan_env(&env, &si, &ps, &pl), 0, "keyed by a field of each");
	CHECK(pl.dp.on == tp2 && pl.pair_narrow, "in one go, a pid's key 8 bytes");
	done(&si, &ps);

	defs[1] = "t:sched/sched_switch prev_pid";
	env.by = "prev_pid";
	env.pair_key = "cpu";
	CHECK_INT(plan_env(&env, &si, &ps, &pl), 0, "--by an end's field");
	CHECK(!pl.dp.on && !((ps.ents[0].flags & ps.ents[1].flags) & KPT_PF_DIRECT),
	      "--by: the generic path for the probe it keys");
	done(&si, &ps);
}

int main(void)
{
	make_files();
	direct_hist();
	direct_stream();
	latency();
	tracepoint();
	pairs();
	remove_files();
	return check_report();
}
