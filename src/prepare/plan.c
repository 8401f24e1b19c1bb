// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The verifier's specialisations of a run, decided once (plan.h). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "prepare/aggdef.h"
#include "prepare/backend.h"
#include "prepare/filter.h"
#include "prepare/plan.h"
#include "sys/kfeat.h"

/* Where the value of f is, as kpt_agg.direct; -1 if not as it is in the context. */
static int direct_source(const struct sysinfo *si, const struct kpt_fetch *f)
{
	if (f->store != KPT_ST_RAW || f->nderef || f->count != 1 || (f->flags & KPT_FF_BITFIELD))
		return -1;
	switch (f->base) {
	case KPT_BASE_ARG:
		return f->param < KPT_NR_REG_ARGS ? (int)f->param : -1;	/* past them: the stack */
	case KPT_BASE_RETVAL:
		return KPT_DIRECT_AX;
	case KPT_BASE_REG:
		return si->regs_btf ? resolve_arg_reg(si->regs_btf, f->param) : -1;
	case KPT_BASE_TPFIELD:
		return KPT_DIRECT_TPFIELD;
	default:
		return -1;
	}
}

/* An argument whose fetch reads no memory but the context's, so cannot fault. */
static bool cannot_fault(const struct kpt_fetch *f)
{
	if (f->nderef || (f->store != KPT_ST_RAW && f->store != KPT_ST_COMM &&
			  f->store != KPT_ST_NONE))
		return false;
	switch (f->base) {
	case KPT_BASE_STACK:
	case KPT_BASE_TPDATALOC:
		return false;
	case KPT_BASE_ARG:
		return f->param < KPT_NR_REG_ARGS;
	default:
		return true;
	}
}

/* Whether a direct value from src fits the probe's context: a tracepoint's field in a tracepoint's. */
static bool direct_fits(int src, const struct kpt_probe_entry *e)
{
	return src >= 0 && (src == KPT_DIRECT_TPFIELD) == !!(e->flags & KPT_PF_TP);
}

/* e's filter if it is one term comparing an argument with a constant, else NULL. */
static const struct kpt_pred_op *one_term(const struct kpt_probe_entry *e)
{
	const struct kpt_pred_op *op = &e->post.ops[0];

	if (e->pre.nops || e->post.nops != 1 || op->op != KPT_PO_TERM || op->field != KPT_FLD_ARG ||
	    op->cmp < KPT_CMP_EQ || op->cmp > KPT_CMP_BAND || op->argi >= e->nargs ||
	    (op->size != 1 && op->size != 2 && op->size != 4 && op->size != 8))
		return NULL;
	return op;
}

/*
 * A filter the direct path can evaluate: one term comparing a value straight
 * from the context (direct_source()) with a constant. Its source, or -1.
 */
static int direct_filter(const struct sysinfo *si, const struct kpt_probe_entry *e)
{
	const struct kpt_pred_op *op = one_term(e);
	int src;

	if (!op)
		return -1;
	src = direct_source(si, &e->args[op->argi]);
	return direct_fits(src, e) ? src : -1;
}

/* A KPT_DIRECT_TPBTF value's loads (bpf/direct.bpf.h's kpt_tpbtf_chain()) from its fetch. */
static void tpbtf_chain_of(const struct kpt_fetch *f, struct kpt_direct_chain *c)
{
	int i;

	memset(c, 0, sizeof(*c));
	c->word = (uint8_t)f->param;
	c->nhops = f->nderef;
	for (i = 0; i < f->nderef && i < KPT_DC_HOPS; i++)
		c->hop[i] = (uint32_t)f->off[i];
	if (f->store == KPT_ST_MEM) {
		c->size = f->size;
		c->off = (uint32_t)f->st_off;
	}
}

/*
 * Whether argument argi of tp_btf probe e is a direct value: TP_PROTO's
 * argument, or a member chain of it that btfarg.c walked through BTF alone
 * (spec_arg.btf_load), which the BPF side loads as the verifier checks each
 * load against the kernel's BTF. NULL if it is, else why not.
 */
static const char *tpbtf_value_not(const struct ev_desc *ev, const struct kpt_probe_entry *e,
				   int argi)
{
	const struct kpt_fetch *f = &e->args[argi];
	const struct spec_arg *a = argi < ev->nargs ? ev->args[argi].spec : NULL;
	int i;

	if (f->base != KPT_BASE_ARG || f->param >= ev->tp_nargs)
		return "not TP_PROTO's argument or a member chain of one";
	if (f->count != 1 || (f->store != KPT_ST_RAW && f->store != KPT_ST_MEM) ||
	    (f->store == KPT_ST_RAW && f->nderef) ||
	    (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8))
		return "not one scalar (an array, a string or a whole struct)";
	if (f->flags & KPT_FF_BITFIELD)
		return "a bitfield, which the direct loads do not cut out";
	if (!a || !a->btf_load)
		return a && a->btf_not ? a->btf_not : "offsets that BTF does not type";
	if (f->nderef > KPT_DC_HOPS)
		return "more pointers to follow than the direct loads take";
	for (i = 0; i < f->nderef; i++)
		if (f->off[i] < 0 || f->off[i] > INT32_MAX)
			return "an offset out of its struct";
	if (f->store == KPT_ST_MEM && (f->size > a->btf_load || f->st_off < 0 ||
				      f->st_off > INT32_MAX))
		return "a read wider than its member, which the verifier's BTF loads refuse";
	return NULL;
}

/*
 * A tp_btf histogram or count on the direct path: a direct histogram
 * (kpt_dh, its loads constants to the verifier) of a run of one probe,
 * whose value (none: a count of hits) and filter's one term are
 * tpbtf_value_not()'s values, and no other argument. Marks e
 * KPT_PF_DIRECT; else says why not in pl->tpbtf_not.
 */
static void plan_tpbtf_direct(struct probeset *ps, struct plan *pl)
{
	struct kpt_probe_entry *e = &ps->ents[0];
	const struct ev_desc *ev = &ps->evs[0];
	const struct kpt_pred_op *op = NULL;
	bool count = e->agg.action == KPT_ACT_COUNT, value = !count || e->agg.count_value;
	const char *why = NULL;
	int i, bad = -1;

	if (ps->n != 1 || !ev->tpbtf ||
	    !(e->agg.action == KPT_ACT_HIST || (count && (e->flags & KPT_PF_OWN_STATS))))
		return;
	if (e->agg.nkeys || e->agg.value_sub_argi != 0xff || (value && e->agg.value_argi >= e->nargs))
		why = "keyed, or of a difference: not a direct histogram";
	else if ((e->pre.nops || e->post.nops) && !(op = one_term(e)))
		why = "its filter is more than one comparison of a value with a constant";
	for (i = 0; !why && i < e->nargs; i++) {
		if ((!value || i != e->agg.value_argi) && (!op || i != op->argi))
			why = count ? "it fetches an argument the count does not read" :
				      "it fetches an argument the histogram does not read";
		else if ((why = tpbtf_value_not(ev, e, i)))
			bad = i;
	}
	if (why) {
		snprintf(pl->tpbtf_not, sizeof(pl->tpbtf_not), "%s%s%s", bad >= 0 ?
			 ev->args[bad].name : "", bad >= 0 ? " is " : "", why);
		return;
	}
	e->flags |= KPT_PF_DIRECT;
	e->agg.direct = KPT_DIRECT_TPBTF;
	e->agg.fdirect = op ? KPT_DIRECT_TPBTF : 0;
}

int plan_tpbtf_slot(const struct ev_desc *evs, int i)
{
	int j, k = 0;

	if (!evs[i].tpbtf)
		return -1;
	for (j = 0; j < i; j++)
		k += evs[j].tpbtf;
	return k < KPT_TPBTF_SLOTS ? k : -1;
}

/*
 * Why tp_btf --from/--to probe e is not a direct pair probe: keyed by the
 * thread, the cpu or one tpbtf_value_not() value, filtered by at most one
 * comparison of one, no other argument. NULL if it is; *bad: the argument
 * at fault, or -1.
 */
static const char *tpbtf_pair_not(const struct ev_desc *ev, const struct kpt_probe_entry *e,
				  int *bad)
{
	const struct kpt_pred_op *op = NULL;
	const struct kpt_agg *g = &e->agg;
	int i, key = g->npair && g->pair_argi[0] != KPT_PAIR_CPU ? g->pair_argi[0] : -1;
	const char *why;

	*bad = -1;
	if (g->nkeys || (e->flags & KPT_PF_EDATA) || g->npair > 1 || key >= e->nargs)
		return "keyed by more than one value, or by --by: not a direct pair";
	/* kpt_pair_direct() counts each end without its start unmatched */
	if (e->flags & KPT_PF_ANY_TASK)
		return "an end of any task's start (--key with a target), whose other tasks' "
		       "ends without one the generic path counts filtered";
	if ((e->pre.nops || e->post.nops) && !(op = one_term(e)))
		return "its filter is more than one comparison of a value with a constant";
	for (i = 0; i < e->nargs; i++) {
		if (i != key && (!op || i != op->argi))
			return "it fetches an argument neither its key nor its filter reads";
		if ((why = tpbtf_value_not(ev, e, i))) {
			*bad = i;
			return why;
		}
	}
	return NULL;
}

/*
 * Each tp_btf --from/--to probe that tpbtf_pair_not() takes, and that is
 * not direct already (kpt_direct() makes those, no value read), on the
 * direct pair path: its slot's kpt_tpbtf_pair (pl->tpair) holds its loads.
 * Else why not in pl->tpair_not.
 */
static void plan_tpbtf_pair(struct probeset *ps, struct plan *pl)
{
	int i, k, bad;

	for (i = 0; i < ps->n; i++) {
		struct kpt_probe_entry *e = &ps->ents[i];
		const struct ev_desc *ev = &ps->evs[i];
		const char *why;

		k = plan_tpbtf_slot(ps->evs, i);
		if (k < 0 || (e->flags & KPT_PF_DIRECT) ||
		    (e->agg.action != KPT_ACT_PAIR_START && e->agg.action != KPT_ACT_PAIR_END))
			continue;
		if ((why = tpbtf_pair_not(ev, e, &bad))) {
			snprintf(pl->tpair_not[k], sizeof(pl->tpair_not[k]), "%s%s%s", bad >= 0 ?
				 ev->args[bad].name : "", bad >= 0 ? " is " : "", why);
			continue;
		}
		e->flags |= KPT_PF_DIRECT;
		e->agg.direct = e->agg.npair && e->agg.pair_argi[0] != KPT_PAIR_CPU ?
				KPT_DIRECT_TPBTF : 0;
		e->agg.fdirect = e->post.nops ? KPT_DIRECT_TPBTF : 0;
		pl->tpair[k].on = 1;
		pl->tpair[k].by = !e->agg.npair ? KPT_TPP_THREAD : e->agg.direct ? KPT_TPP_VALUE :
				  KPT_TPP_CPU;
		pl->tpair[k].filtered = !!e->post.nops;
		if (e->agg.direct)
			tpbtf_chain_of(&e->args[e->agg.pair_argi[0]], &pl->tpair[k].key);
		if (e->post.nops)
			tpbtf_chain_of(&e->args[e->post.ops[0].argi], &pl->tpair[k].filter);
	}
}

void plan_mark_direct(const struct sysinfo *si, struct kpt_probe_entry *e)
{
	int i, src = 0, fsrc = 0;

	e->flags &= ~KPT_PF_DIRECT;
	if (e->agg.nkeys || (e->flags & KPT_PF_EDATA))
		return;
	/* a filter: only a histogram's or a pair's, whose rejected hits leave
	 * nothing behind (a latency's start must push its depth all the same) */
	if (e->pre.nops || e->post.nops) {
		fsrc = e->agg.action == KPT_ACT_HIST || e->agg.action == KPT_ACT_COUNT ||
		       e->agg.action == KPT_ACT_PAIR_START ||
		       e->agg.action == KPT_ACT_PAIR_END ? direct_filter(si, e) : -1;
		if (fsrc < 0)
			return;
	}
	/* the direct path fetches no argument: none may count a fault unseen */
	for (i = 0; i < e->nargs && i < KPT_MAX_ARGS; i++)
		if (!cannot_fault(&e->args[i]))
			return;
	switch (e->agg.action) {
	case KPT_ACT_HIST:
		if (e->agg.value_sub_argi != 0xff || e->agg.value_argi >= e->nargs)
			return;
		src = direct_source(si, &e->args[e->agg.value_argi]);
		if (!direct_fits(src, e))
			return;
		break;
	case KPT_ACT_COUNT:
		/* its count where its HITS are (own_stats()), and its --sum's
		 * value as a histogram's */
		if (!(e->flags & KPT_PF_OWN_STATS))
			return;
		if (e->agg.count_value) {
			if (e->agg.value_argi >= e->nargs)
				return;
			src = direct_source(si, &e->args[e->agg.value_argi]);
			if (!direct_fits(src, e))
				return;
		}
		break;
	case KPT_ACT_LAT_START:
	case KPT_ACT_LAT_END:
		break;
	case KPT_ACT_PAIR_START:
	case KPT_ACT_PAIR_END:
		/* keyed by the thread, or on a tracepoint (kpt_tp2) by the cpu or
		 * one field, and filtered by one comparison of a field */
		if (e->agg.npair > 1 ||
		    ((e->agg.npair || e->post.nops) && !(e->flags & KPT_PF_TP)))
			return;
		if (e->agg.npair && e->agg.pair_argi[0] != KPT_PAIR_CPU) {
			if (e->agg.pair_argi[0] >= e->nargs)
				return;
			src = direct_source(si, &e->args[e->agg.pair_argi[0]]);
			if (!direct_fits(src, e))
				return;
		}
		break;
	case KPT_ACT_WHY:
		/* a return's %ax, no argument read; the root's entry arguments
		 * are fetched by the generic path (kpt_why_start()) */
		if (e->nargs && !(e->flags & KPT_PF_RETURN))
			return;
		break;
	default:
		return;
	}
	e->flags |= KPT_PF_DIRECT;
	e->agg.direct = (__u8)src;
	e->agg.fdirect = (__u8)fsrc;
}

bool plan_direct_stream(const struct sysinfo *si, const struct kpt_probe_entry *e,
			struct kpt_direct_stream *ds)
{
	int i, src;

	memset(ds, 0, sizeof(*ds));
	if (e->agg.action != KPT_ACT_PRINT || e->pre.nops || e->post.nops ||
	    (e->flags & (KPT_PF_TP | KPT_PF_EDATA | KPT_PF_KSTACK | KPT_PF_USTACK)) || e->nargs > KPT_DS_MAX_ARGS ||
	    e->fixed_size < KPT_HDR_SIZE || e->fixed_size > KPT_FIXED_MAX)
		return false;
	for (i = 0; i < e->nargs; i++) {
		const struct kpt_fetch *f = &e->args[i];

		/* a register as it is, after the fault bitmap (one byte, which
		 * the handler zeroes), inside the record */
		src = direct_source(si, f);
		if (src < 0 || src == KPT_DIRECT_TPFIELD ||
		    (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8) ||
		    f->slot < KPT_HDR_SIZE + 1 || f->slot + f->size > e->fixed_size)
			return false;
		ds->args[i].reg = (uint8_t)src;
		ds->args[i].size = f->size;
		ds->args[i].slot = f->slot;
	}
	ds->nargs = e->nargs;
	ds->flags = e->flags;
	ds->size = e->fixed_size;
	return true;
}

/*
 * A tp_btf stream written straight from TP_PROTO's arguments (kpt_ds, as
 * plan_direct_stream()'s registers): a run of one printing probe, every
 * argument a tpbtf_value_not() value in its fixed slot, filtered by at most
 * one comparison of one of them with a constant.
 */
static bool plan_tpbtf_stream(const struct ev_desc *ev, const struct kpt_probe_entry *e,
			      struct kpt_direct_stream *ds)
{
	const struct kpt_pred_op *op = one_term(e);
	int i;

	memset(ds, 0, sizeof(*ds));
	if (!ev->tpbtf || e->agg.action != KPT_ACT_PRINT ||
	    ((e->pre.nops || e->post.nops) && !op) ||
	    (e->flags & (KPT_PF_EDATA | KPT_PF_KSTACK | KPT_PF_USTACK)) ||
	    e->nargs > KPT_DS_MAX_ARGS || e->fixed_size < KPT_HDR_SIZE ||
	    e->fixed_size > KPT_FIXED_MAX)
		return false;
	for (i = 0; i < e->nargs; i++) {
		const struct kpt_fetch *f = &e->args[i];

		/* after the fault bitmap (one byte, which the handler writes),
		 * inside the record */
		if (tpbtf_value_not(ev, e, i) || f->slot < KPT_HDR_SIZE + 1 ||
		    f->slot + f->size > e->fixed_size)
			return false;
		ds->args[i].reg = KPT_DIRECT_TPBTF;
		ds->args[i].size = f->size;
		ds->args[i].slot = f->slot;
		tpbtf_chain_of(f, &ds->chain[i]);
	}
	if (op) {
		ds->fcmp = KPT_DH_FILTER | op->cmp;
		ds->fsize = op->size;
		ds->fsigned = op->is_signed;
		ds->fimm = op->imm;
		tpbtf_chain_of(&e->args[op->argi], &ds->fchain);
	}
	ds->nargs = e->nargs;
	ds->flags = e->flags;
	ds->size = e->fixed_size;
	return true;
}

/* Where a direct value of argument f comes from (direct, KPT_DIRECT_*): a
 * tracepoint field's offset and size, or a tp_btf chain; else nothing. */
static void direct_source_of(const struct kpt_fetch *f, uint8_t direct, uint32_t *tp_off,
			     uint32_t *tp_size, struct kpt_direct_chain *c)
{
	if (direct == KPT_DIRECT_TPFIELD) {
		*tp_off = f->param;
		*tp_size = (uint32_t)f->imm;
	} else if (direct == KPT_DIRECT_TPBTF) {
		tpbtf_chain_of(f, c);
	}
}

bool plan_direct_hist(const struct kpt_probe_entry *e, struct kpt_direct_hist *dh)
{
	const struct kpt_agg *g = &e->agg;
	bool count = g->action == KPT_ACT_COUNT, value = !count || g->count_value;
	const struct kpt_fetch *f;

	memset(dh, 0, sizeof(*dh));
	if (!(e->flags & KPT_PF_DIRECT) ||
	    !(g->action == KPT_ACT_HIST || (count && (e->flags & KPT_PF_OWN_STATS))) ||
	    g->nkeys || (value && g->value_argi >= e->nargs) || g->hist_base || g->group)
		return false;
	dh->on = 1;
	dh->is_signed = g->value_signed;
	dh->own_stats = !!(e->flags & KPT_PF_OWN_STATS);
	/* a count: hist 0, its value's size 0 where it counts hits alone */
	dh->hist = count ? 0 : g->hist;
	f = &e->args[g->value_argi & (KPT_MAX_ARGS - 1)];
	if (value) {
		dh->direct = g->direct;
		dh->size = f->size;
		direct_source_of(f, g->direct, &dh->tp_off, &dh->tp_size, &dh->chain);
	}
	dh->nbuckets = g->nbuckets;
	dh->lin_min = g->lin_min;
	dh->lin_step = g->lin_step;
	if (e->post.nops) {
		const struct kpt_pred_op *op = &e->post.ops[0];

		f = &e->args[op->argi];
		dh->fcmp = KPT_DH_FILTER | op->cmp;
		dh->fdirect = g->fdirect;
		dh->fsize = op->size;
		dh->fsigned = op->is_signed;
		dh->fimm = op->imm;
		direct_source_of(f, g->fdirect, &dh->ftp_off, &dh->ftp_size, &dh->fchain);
		if (value && op->argi == g->value_argi && g->fdirect == g->direct)
			dh->on |= KPT_DH_SAME;
	}
	return true;
}

/*
 * Whether a direct --from/--to probe on ev goes through kpt_tp2, which
 * makes its start or end inline and takes its key or filter from the
 * record: a classic tracepoint's, where the kernel has BPF cookies (kpt_tp2
 * tells its probe by its cookie, as two on one tracepoint need).
 */
static bool pair_on_tp2(const struct ev_desc *ev)
{
	return ev->kind == SPEC_TRACEPOINT && !ev->tpbtf && kfeat_cookies();
}

bool plan_direct_pair(const struct probeset *ps, struct kpt_direct_pair *dp)
{
	const struct kpt_probe_entry *e = ps->ents;
	const struct ev_desc *a = &ps->evs[0], *b = &ps->evs[1];
	int end;

	memset(dp, 0, sizeof(*dp));
	if (ps->n != 2 || !pair_on_tp2(a) || !pair_on_tp2(b) ||
	    strcmp(a->target.tp_system, b->target.tp_system) ||
	    strcmp(a->target.tp_event, b->target.tp_event))
		return false;
	end = e[0].agg.action == KPT_ACT_PAIR_END ? 0 : 1;
	if (e[end].agg.action != KPT_ACT_PAIR_END || e[!end].agg.action != KPT_ACT_PAIR_START ||
	    e[end].agg.lat_peer != (uint32_t)!end || e[!end].agg.lat_peer != (uint32_t)!end)
		return false;
	if (!(e[0].flags & e[1].flags & KPT_PF_DIRECT) ||
	    ((e[0].flags | e[1].flags) & KPT_PF_ANY_TASK))
		return false;
	dp->on = 1;
	dp->end = (uint32_t)end;
	dp->start = (uint32_t)!end;
	return true;
}

/* A user stack at a function's entry: its caller is read from sp or the link register. */
static bool ustack_at_entry(const struct kpt_probe_entry *e)
{
	return (e->flags & KPT_PF_UENTRY) &&
	       ((e->flags & KPT_PF_USTACK) || (e->agg.stack_keys & KPT_SK_USTACK));
}

uint64_t plan_regs_used(const struct kpt_probe_entry *e)
{
	/* the words of the calling convention's argument registers */
#ifdef KPT_ARCH_ARM64
	static const uint8_t argw[] = { 0, 1, 2, 3, 4, 5, 6, 7 };	/* x0-x7 */
#else
	static const uint8_t argw[] = { KPT_W_DI, KPT_W_SI, KPT_W_DX, KPT_W_CX, KPT_W_R8,
					KPT_W_R9 };
#endif
	_Static_assert(sizeof(argw) == KPT_NR_REG_ARGS, "one word per argument register");
	uint64_t m = 1ull << KPT_W_IP;
	int i;

	if (ustack_at_entry(e))
#ifdef KPT_ARCH_ARM64
		m |= 1ull << KPT_W_LR;
#else
		m |= 1ull << KPT_W_SP;
#endif

	for (i = 0; i < e->nargs && i < KPT_MAX_ARGS; i++) {
		const struct kpt_fetch *f = &e->args[i];

		switch (f->base) {
		case KPT_BASE_REG:
			if (f->param / 8 >= KPT_REG_WORDS)
				return ~0ull;
			m |= 1ull << (f->param / 8);
			break;
		case KPT_BASE_STACK:
		case KPT_BASE_STACKP:
			m |= 1ull << KPT_W_SP;
			break;
		case KPT_BASE_RETVAL:
			m |= 1ull << KPT_W_RET;
			break;
		case KPT_BASE_ARG:
			m |= f->param < sizeof(argw) ? 1ull << argw[f->param] : 1ull << KPT_W_SP;
			break;
		case KPT_BASE_IPREL:	/* ip: in already */
		case KPT_BASE_IMM:
		case KPT_BASE_COMM:
		case KPT_BASE_DATA:
		case KPT_BASE_EDATA:
		case KPT_BASE_TPFIELD:
		case KPT_BASE_TPDATALOC:
		case KPT_BASE_TPADDR:
			break;
		default:
			return ~0ull;	/* a base this does not know: all of them */
		}
	}
	return m;
}

/*
 * What of the BPF handler a probe needs (kpt_uses): the verifier drops the
 * rest, and each hit skips it (a latency pair reads no registers or comm).
 */
static uint32_t handler_uses(const struct kpt_probe_entry *e)
{
	uint32_t u = 0;
	int k;

	if (e->flags & KPT_PF_DIRECT)
		return KPT_USE_DIRECT;	/* nothing else of the handler */
	if (e->nargs)
		u |= KPT_USE_FETCH | KPT_USE_REGS;
	if (e->pre.nops || e->post.nops)
		u |= KPT_USE_FILTER | KPT_USE_COMM;
	if (e->agg.action == KPT_ACT_SAVE_ARGS || (e->flags & KPT_PF_EDATA))
		u |= KPT_USE_EDATA;
	switch (e->agg.action) {
	case KPT_ACT_PRINT:	/* a record has its time, ip and comm */
		u |= KPT_USE_REGS | KPT_USE_COMM | KPT_USE_TIME;
		break;
	case KPT_ACT_SAVE_ARGS:
		break;
	case KPT_ACT_LAT_START:
	case KPT_ACT_LAT_END:
	case KPT_ACT_PAIR_START:
	case KPT_ACT_PAIR_END:
		u |= KPT_USE_AGG | KPT_USE_TIME;
		break;
	default:
		u |= KPT_USE_AGG;
		break;
	}
	for (k = 0; k < e->agg.nkeys && k < KPT_MAX_KEYS; k++)
		if (e->agg.key_kind[k] == KPT_K_COMM && !(e->agg.key_peer & (1u << k)))
			u |= KPT_USE_COMM;
	if ((e->flags & (KPT_PF_KSTACK | KPT_PF_USTACK)) || e->agg.stack_keys)
		u |= KPT_USE_STACK;
	if (ustack_at_entry(e))
		u |= KPT_USE_REGS;
	return u;
}

/* Why a tp_btf direct probe went back to the generic path: the kernel refused it. */
#define TPBTF_REFUSED	"the kernel refused its direct loads (an argument it types as a " \
			"scalar, one that may hold an error or a flag)"

/* plan_tpbtf_undo() for the tp_btf direct pair probes (pl->tpair); false if none. */
static bool tpbtf_pair_undo(struct probeset *ps, struct plan *pl)
{
	bool any = false;
	int i, k;

	for (i = 0; i < ps->n; i++) {
		k = plan_tpbtf_slot(ps->evs, i);
		if (k < 0 || !pl->tpair[k].on)
			continue;
		ps->ents[i].flags &= ~KPT_PF_DIRECT;
		memset(&pl->tpair[k], 0, sizeof(pl->tpair[k]));
		snprintf(pl->tpair_not[k], sizeof(pl->tpair_not[k]), "%s", TPBTF_REFUSED);
		any = true;
	}
	if (any)
		for (i = 0, pl->uses = 0; i < ps->n; i++)
			pl->uses |= handler_uses(&ps->ents[i]);
	return any;
}

bool plan_tpbtf_undo(struct probeset *ps, struct plan *pl)
{
	struct kpt_probe_entry *e = &ps->ents[0];

	if (tpbtf_pair_undo(ps, pl))
		return true;
	/* a count's loads may be its filter's alone */
	if (ps->n != 1 || !ps->evs[0].tpbtf ||
	    !((pl->dh.on && (pl->dh.direct == KPT_DIRECT_TPBTF ||
			     pl->dh.fdirect == KPT_DIRECT_TPBTF)) || pl->ds.size))
		return false;
	if (pl->dh.on) {
		e->flags &= ~KPT_PF_DIRECT;
		memset(&pl->dh, 0, sizeof(pl->dh));
		pl->uses = handler_uses(e);
		snprintf(pl->tpbtf_not, sizeof(pl->tpbtf_not), "%s", TPBTF_REFUSED);
	}
	memset(&pl->ds, 0, sizeof(pl->ds));
	return true;
}

/* The BPF loops' bounds: the largest of e's and those so far. */
static void loop_bounds(const struct kpt_probe_entry *e, struct plan *pl)
{
	int i;

	if (e->nargs > pl->max_args)
		pl->max_args = e->nargs;
	for (i = 0; i < e->nargs && i < KPT_MAX_ARGS; i++) {
		if (e->args[i].nderef > pl->max_deref)
			pl->max_deref = e->args[i].nderef;
		if (e->args[i].count > pl->max_count)
			pl->max_count = e->args[i].count;
	}
}

static int max_int(int a, int b)
{
	return a > b ? a : b;
}

/* The words of a probe's key (its kinds' widths). */
static int key_words(const struct kpt_agg *g)
{
	int i, w = 0;

	for (i = 0; i < g->nkeys && i < KPT_MAX_KEYS; i++)
		w += kpt_key_width(g->key_kind[i]);
	return w;
}

/*
 * KPT_PF_OWN_STATS: each unkeyed histogram with a group of its own keeps its
 * value stats in its kpt_stats entry, one lookup less a hit, and so does a
 * count without keys (its count there, no hash map lookup), in a run that
 * never clears them (-i clears the histograms each interval; HITS is for
 * the whole run).
 */
static void own_stats(const struct kpt_opts *env, struct kpt_probe_entry *ents, int n)
{
	int i, j;

	for (i = 0; i < n && env->interval <= 0; i++) {
		const struct kpt_agg *g = &ents[i].agg;

		if (g->nkeys || (g->action != KPT_ACT_HIST && g->action != KPT_ACT_LAT_END &&
				 g->action != KPT_ACT_PAIR_END && g->action != KPT_ACT_COUNT))
			continue;
		for (j = 0; j < n; j++)
			if (j != i && ents[j].agg.group == g->group)
				break;
		if (j == n)
			ents[i].flags |= KPT_PF_OWN_STATS;
	}
}

/* plan.tp_end: the smallest of the run's tracepoints' field ends. */
static void tp_end_bound(const struct tp_format *fmt, struct plan *pl)
{
	uint32_t end = 0;
	int i;

	for (i = 0; i < fmt->nfields; i++)
		if ((uint32_t)fmt->fields[i].offset + fmt->fields[i].size > end)
			end = (uint32_t)fmt->fields[i].offset + fmt->fields[i].size;
	if (!pl->tp_end || end < pl->tp_end)
		pl->tp_end = end;
}

/*
 * kpt_tp_direct_word: the record word the run's direct tracepoint probes
 * read (a histogram's value, a pair's key, the filter's one term of
 * either), when they all read the same one (a run of one, as a rule; a
 * pair's two ends on sys_enter and sys_exit, whose id is at the same
 * place): the BPF side then loads it with no check and no switch of
 * offsets. 0 otherwise. After tp_end_bound(): the bound is the run's.
 */
static uint32_t tp_direct_word(const struct ev_desc *evs, const struct kpt_probe_entry *ents,
			       int n, uint32_t end)
{
	int i, j, w, word = 0;

	for (i = 0; i < n; i++) {
		const struct kpt_probe_entry *e = &ents[i];
		const struct kpt_agg *g = &e->agg;
		bool pair = g->action == KPT_ACT_PAIR_START || g->action == KPT_ACT_PAIR_END;
		/* the value's field or the pair's key's, and the filter's */
		uint8_t argi[2] = { pair ? (g->npair && g->pair_argi[0] != KPT_PAIR_CPU ?
					    g->pair_argi[0] : 0xff) : g->value_argi,
				    e->post.nops ? e->post.ops[0].argi : 0xff };

		if (evs[i].kind != SPEC_TRACEPOINT || !(e->flags & KPT_PF_DIRECT) ||
		    (g->action != KPT_ACT_HIST && !pair))
			continue;
		for (j = 0; j < 2; j++) {
			const struct kpt_fetch *f = &e->args[argi[j] & (KPT_MAX_ARGS - 1)];

			if (argi[j] == 0xff)
				continue;
			w = kpt_tp_word_at(f->param, (uint32_t)f->imm, end);
			if (w <= 0 || (word && w != word))
				return 0;
			word = w;
		}
	}
	return word;
}

/*
 * Reading /proc/kallsyms costs ~40-60 ms of the kernel's time, several
 * times a tracepoint run's whole start-up, so only a run that may show a
 * kernel address as a symbol reads it before attaching: an aggregation key
 * that can hold one (agg_keys_symbolic(): not comm, pid, tid, cpu or a
 * narrow argument), which prints as a symbol when it is a text address, and,
 * in a stream, a :symbol or :symstr value (an aggregation prints no
 * arguments but its keys). Kernel function probes have it from resolving
 * their symbols, unless resolved without it: a stream of those reads it once
 * attached (run.c's symbols_after_attach()).
 */
/*
 * -K/-U: each printed probe's records end with its stacks; a kstack or
 * ustack key: the stack maps. Before the fast paths are chosen: neither
 * takes a stack.
 */
static void plan_stacks(const struct kpt_opts *env, struct probeset *ps, struct stack_plan *sp)
{
	int i;

	/* frames above the probe are dropped as they are printed: -K DEPTH takes
	 * a few more, so DEPTH are left to show */
	sp->kdepth = env->kstack ? (uint32_t)env->kstack + KPT_KSTACK_SLACK : KPT_STACK_MAX;
	if (sp->kdepth > KPT_STACK_MAX)
		sp->kdepth = KPT_STACK_MAX;
	sp->udepth = env->ustack ? (uint32_t)env->ustack : KPT_STACK_MAX;
	for (i = 0; i < ps->n; i++) {
		struct kpt_probe_entry *e = &ps->ents[i];

		if (e->agg.action == KPT_ACT_PRINT) {
			e->flags |= (env->kstack ? KPT_PF_KSTACK : 0) |
				    (env->ustack ? KPT_PF_USTACK : 0);
			ps->evs[i].kstack = env->kstack > 0;
			ps->evs[i].kstack_show = (uint16_t)env->kstack;
			ps->evs[i].ustack = env->ustack > 0;
		}
		sp->kkeys |= !!(e->agg.stack_keys & KPT_SK_KSTACK);
		sp->ukeys |= !!(e->agg.stack_keys & KPT_SK_USTACK);
	}
}

static bool wants_symbols(const struct kpt_opts *env, const struct ev_desc *evs,
			  const struct kpt_probe_entry *ents, int n)
{
	int i, j;

	for (i = 0; i < n; i++) {
		if (agg_keys_symbolic(&ents[i].agg, &evs[i]) ||
		    (ents[i].flags & KPT_PF_KSTACK) || (ents[i].agg.stack_keys & KPT_SK_KSTACK))
			return true;
		if (env->mode != MODE_TRACE)
			continue;
		for (j = 0; j < evs[i].nargs; j++)
			if (evs[i].args[j].type == SPEC_T_SYMBOL ||
			    evs[i].args[j].type == SPEC_T_SYMSTR)
				return true;
	}
	return false;
}

bool budget_droppable(const struct kpt_probe_entry *ent)
{
	switch (ent->agg.action) {
	case KPT_ACT_PRINT:
		return !(ent->flags & KPT_PF_EDATA);
	case KPT_ACT_HIST:
	case KPT_ACT_COUNT:
		return true;
	case KPT_ACT_WHY:
		/* whole calls: the root's entry decides, its call then logged
		 * or not (bpf/why.bpf.h), never a part of one */
		return ent->agg.why_role == KPT_WHY_ROOT && !(ent->flags & KPT_PF_RETURN);
	default:
		return false;
	}
}

/* --budget leaves hits out alone: a probe whose hits pair with another's cannot take one. */
static int budget_check(const struct probeset *ps, char *msg, size_t msglen)
{
	int i;

	for (i = 0; i < ps->n; i++) {
		/* why's budget is its root's (budget_droppable()) */
		if (budget_droppable(&ps->ents[i]) || ps->ents[i].agg.action == KPT_ACT_SAVE_ARGS ||
		    ps->ents[i].agg.action == KPT_ACT_WHY)
			continue;
		snprintf(msg, msglen, "--budget: %s/%s %s: its hits pair with another probe's, "
			 "which a budget could leave out on one side only", ps->evs[i].group,
			 ps->evs[i].event, ps->ents[i].flags & KPT_PF_EDATA ?
			 "reads its entry's arguments at the return" : "times a call");
		return -EINVAL;
	}
	return 0;
}

/*
 * kptrace why: what the root's return must be, its width from the type of
 * its ret=$retval (why_defs()): a pointer's is x64, BTF's; a type given (no
 * BTF for it) is unknown, and its errno an int's (a long's -22 is one too).
 */
static void plan_why(const struct kpt_opts *env, const struct probeset *ps, struct plan *pl)
{
	int i;

	pl->why_ret_size = 8;
	for (i = 0; i < ps->n; i++) {
		const struct ev_desc *ev = &ps->evs[i];

		if (ps->ents[i].agg.action != KPT_ACT_WHY ||
		    ps->ents[i].agg.why_role != KPT_WHY_ROOT || !ev->is_return || !ev->nargs)
			continue;
		if (ev->args[0].spec && ev->args[0].spec->type_given) {
			pl->why_ret_size = 4;
			continue;
		}
		pl->why_ret_size = ev->args[0].size == 4 ? 4 : 8;
		if (ev->args[0].type == SPEC_T_X64)
			pl->why_cond |= KPT_WHY_PTR;
	}
	if (env->why_error)
		pl->why_cond |= KPT_WHY_ERROR;
	if (env->why_slower_ns)
		pl->why_cond |= KPT_WHY_SLOWER;
	pl->why_slower = env->why_slower_ns;
}

/* Whether g keys by the task's cgroup (the cgroup or container key). */
static bool keys_cgroup(const struct kpt_agg *g)
{
	int k;

	for (k = 0; k < g->nkeys && k < KPT_MAX_KEYS; k++)
		if (g->key_kind[k] == KPT_K_CGROUP || g->key_kind[k] == KPT_K_CONTAINER)
			return true;
	return false;
}

/*
 * Two definitions on one classic tracepoint share one attachment of the
 * loader's kpt_tp2 (the kernel takes a program once per tracepoint); a
 * third would have no program to run it.
 */
static int tp_at_most_two(const struct probeset *ps, char *msg, size_t msglen)
{
	int i, j, k;

	for (i = 0; i < ps->n; i++) {
		const struct ev_desc *a = &ps->evs[i], *b;

		if (a->kind != SPEC_TRACEPOINT || a->tpbtf)
			continue;
		for (j = i + 1, k = 1; j < ps->n; j++) {
			b = &ps->evs[j];
			k += b->kind == SPEC_TRACEPOINT && !b->tpbtf &&
			     !strcmp(a->target.tp_system, b->target.tp_system) &&
			     !strcmp(a->target.tp_event, b->target.tp_event);
		}
		if (k > 2) {
			snprintf(msg, msglen, "%d definitions on tracepoint %s/%s (%s/%s and "
				 "others), where kptrace takes two at most: trace the others in "
				 "another run", k, a->target.tp_system, a->target.tp_event,
				 a->group, a->event);
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * Whether probe i's filter may stay on the direct path: a direct histogram
 * (kpt_dh) only, whose parameters are constants, which profile's program
 * does not take; a tracepoint's field in the record's first words, which
 * kpt_hist_direct() reads without a helper.
 */
static bool direct_filter_kept(const struct probeset *ps, int i, struct plan *pl)
{
	const struct kpt_probe_entry *e = &ps->ents[i];
	const struct kpt_fetch *f = &e->args[e->post.ops[0].argi & (KPT_MAX_ARGS - 1)];
	struct plan t = { 0 };

	if (ps->n != 1 || ps->evs[i].kind == SPEC_PROFILE || !plan_direct_hist(e, &pl->dh))
		return false;
	if (e->agg.fdirect != KPT_DIRECT_TPFIELD)
		return true;
	tp_end_bound(&ps->p[i].res.tp, &t);
	return kpt_tp_word_at(f->param, (uint32_t)f->imm, t.tp_end) > 0;
}

/* Whether a --from/--to probe's key is one value of 32 bits at most: the thread, the cpu, a pid. */
static bool pair_key_narrow(const struct kpt_probe_entry *e)
{
	const struct kpt_agg *g = &e->agg;

	return !g->npair || (g->npair == 1 && (g->pair_argi[0] == KPT_PAIR_CPU ||
					       (g->pair_argi[0] < e->nargs &&
						e->args[g->pair_argi[0]].size <= 4)));
}

/*
 * Whether direct probe i stays direct once its backend is chosen: a
 * histogram's filter only as direct_filter_kept() says; a count's value
 * (--sum's) only in a run of one (kpt_dh: kpt_fast_paths() reads a
 * histogram's alone, the handler's stack at the verifier's bound with
 * --pmu); a pair keyed or filtered by its context only through kpt_tp2
 * (pair_on_tp2()) or its tp_btf slot's kpt_tpbtf_pair.
 */
static bool direct_kept(const struct probeset *ps, int i, struct plan *pl)
{
	const struct kpt_probe_entry *e = &ps->ents[i];
	int k = plan_tpbtf_slot(ps->evs, i);

	if (e->agg.action == KPT_ACT_COUNT && e->agg.count_value && ps->n != 1)
		return false;

	/* an end of any task's start (--key in a targeted run) stays generic,
	 * which counts other tasks' ends without a start filtered, where
	 * kpt_pair_direct() would count them unmatched */
	if (e->agg.action == KPT_ACT_PAIR_START || e->agg.action == KPT_ACT_PAIR_END)
		return (!e->post.nops && !e->agg.npair) ||
		       (pair_on_tp2(&ps->evs[i]) && !(e->flags & KPT_PF_ANY_TASK)) ||
		       (k >= 0 && pl->tpair[k].on);
	return !e->post.nops || direct_filter_kept(ps, i, pl);
}

int plan_make(const struct kpt_opts *env, struct sysinfo *si, struct probeset *ps, uint32_t npmu,
	      struct plan *pl, char *msg, size_t msglen)
{
	struct kpt_probe_entry *ents = ps->ents;
	int i, n = ps->n, err;
	bool narrow = true;

	memset(pl, 0, sizeof(*pl));
	pl->budget = env->budget.pct > 0 || env->budget.rate;
	if (pl->budget && (err = budget_check(ps, msg, msglen)))
		return err;
	plan_stacks(env, ps, &pl->stacks);
	own_stats(env, ents, n);
	/* --comm compares the comm a record holds, --pmu reads its counters in
	 * kpt_aggregate(): the direct path has neither */
	/* latency --perfetto: each call a record, from kpt_aggregate(), so never direct */
	pl->lat_emit = (env->perfetto_path || env->over_ns) && env->mode == MODE_LATENCY;
	pl->lat_over = env->mode == MODE_LATENCY ? env->over_ns : 0;
	if (env->mode == MODE_WHY)
		plan_why(env, ps, pl);
	for (i = 0; i < n && !env->comm && !npmu && !pl->lat_emit; i++)
		plan_mark_direct(si, &ents[i]);
	err = backend_tp(env->backend, si, ps->evs, ents, n, msg, msglen);
	if (err)
		return err;
	/* --backend tracepoint or tp-btf: the kernel functions' auto */
	err = backend_choose(env->backend && (!strcmp(env->backend, "tracepoint") ||
					      !strcmp(env->backend, "tp-btf")) ?
			     NULL : env->backend, si, ps->evs, ents, n, msg, msglen);
	if (!err)
		err = tp_at_most_two(ps, msg, msglen);
	if (err)
		return err;
	if (!env->comm && !npmu)
		plan_tpbtf_direct(ps, pl);
	if (!env->comm && !npmu && !pl->lat_emit)
		plan_tpbtf_pair(ps, pl);
	for (i = 0; i < n; i++) {
		if ((ents[i].flags & KPT_PF_DIRECT) && !direct_kept(ps, i, pl))
			ents[i].flags &= ~KPT_PF_DIRECT;
		ps->evs[i].pair_direct = (ents[i].flags & KPT_PF_DIRECT) &&
					 (ents[i].agg.action == KPT_ACT_PAIR_START ||
					  ents[i].agg.action == KPT_ACT_PAIR_END) &&
					 pair_on_tp2(&ps->evs[i]);
	}
	for (i = 0; i < n; i++) {
		/* latency by key (--by) aggregates in the keyed map; plain latency
		 * needs only its entry times and depths */
		pl->keyed |= ents[i].agg.nkeys || (ents[i].agg.action == KPT_ACT_COUNT &&
						   !(ents[i].flags & KPT_PF_OWN_STATS));
		pl->key_words = max_int(pl->key_words, key_words(&ents[i].agg));
		pl->latency |= ents[i].agg.action == KPT_ACT_LAT_START;
		pl->pairs |= ents[i].agg.action == KPT_ACT_PAIR_START;
		pl->pair_words = max_int(pl->pair_words, ents[i].agg.npair ? ents[i].agg.npair : 1);
		if (ents[i].agg.action == KPT_ACT_PAIR_START || ents[i].agg.action == KPT_ACT_PAIR_END)
			narrow = narrow && pair_key_narrow(&ents[i]);
		pl->pair_carry |= ents[i].agg.action == KPT_ACT_PAIR_START && ents[i].agg.nkeys;
		pl->any_task_ends |= !!(ents[i].flags & KPT_PF_ANY_TASK);
		pl->cgroup_key |= keys_cgroup(&ents[i].agg);
		pl->edata |= !!(ents[i].flags & KPT_PF_EDATA);
		pl->uses |= handler_uses(&ents[i]);
		pl->acts |= 1u << ents[i].agg.action;
		if (ents[i].agg.nkeys > pl->max_nkeys)
			pl->max_nkeys = ents[i].agg.nkeys;
		pl->regs_mask |= plan_regs_used(&ents[i]);
		pl->stacks.ucaller |= ustack_at_entry(&ents[i]);
		pl->stacks.ustacks |= (ents[i].flags & KPT_PF_USTACK) ||
				      (ents[i].agg.stack_keys & KPT_SK_USTACK);
		loop_bounds(&ents[i], pl);
		if (ps->evs[i].kind == SPEC_TRACEPOINT && !ps->evs[i].tpbtf)
			tp_end_bound(&ps->p[i].res.tp, pl);
	}
	pl->pair_narrow = pl->pairs && narrow;
	pl->tp_direct_word = tp_direct_word(ps->evs, ents, n, pl->tp_end);
	/* a direct stream or histogram is a run of one probe */
	if (n == 1 && !npmu && !plan_tpbtf_stream(&ps->evs[0], &ents[0], &pl->ds))
		plan_direct_stream(si, &ents[0], &pl->ds);
	if (n == 1)
		plan_direct_hist(&ents[0], &pl->dh);
	plan_direct_pair(ps, &pl->dp);
	/* --perfetto names each thread and process by the comm its calls had */
	if (env->comm || pl->lat_emit)
		pl->uses |= KPT_USE_COMM;
	pl->wants_symbols = wants_symbols(env, ps->evs, ents, n);
	return 0;
}
