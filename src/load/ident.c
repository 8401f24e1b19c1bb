// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Probes told apart without BPF cookies (load/ident.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "load/ident.h"
#include "sys/btfwalk.h"
#include "sys/kfeat.h"

/* Probe ev's key, as bpf/ident.bpf.h makes it of a hit; 0, or -errno with msg. */
static int ident_key(const struct ev_desc *ev, const struct ksyms *ks, struct kpt_ident *k,
		     char *msg, size_t msglen)
{
	const struct ksym *s;

	k->addr = 0;
	k->what = KPT_ID_OTHER;
	k->pad = 0;
	switch (ev->kind) {
	case SPEC_KPROBE:
	case SPEC_KRETPROBE:
		k->what = ev->is_return ? KPT_ID_RETURN : KPT_ID_ENTRY;
		if (!ev->target.by_name) {
			k->addr = ev->addr;
			return 0;
		}
		/* struct kprobe's addr: the symbol the kernel looked up, plus offs */
		s = ksyms_by_name(ks, ev->func, ev->target.module[0] ? ev->target.module : NULL);
		if (!s) {
			snprintf(msg, msglen, "%s/%s: %s is not in kallsyms, where this kernel "
				 "(no BPF cookies) needs its address", ev->group, ev->event, ev->func);
			return -ENOENT;
		}
		k->addr = s->addr + (uint64_t)ev->target.offset;
		return 0;
	case SPEC_TRACEPOINT:
		if (ev->tpbtf)
			return 1;	/* a slot's constant: no key */
		k->what = KPT_ID_TP;	/* the run's only one (bpf/ident.bpf.h) */
		return 0;
	default:
		return 0;	/* a uprobe, a profile: the run's only one */
	}
}

/* What a key's hit is, for the refusal. */
static const char *ident_what(const struct kpt_ident *k)
{
	switch (k->what) {
	case KPT_ID_ENTRY:
		return "the same kernel address";
	case KPT_ID_RETURN:
		return "the same function's return";
	case KPT_ID_TP:
		return "a tracepoint (more than one)";
	default:
		return "a uprobe or a profile (more than one of those)";
	}
}

static int ident_layout(struct ident_set *id, const struct ksyms *ks, const struct btf *btf,
			char *msg, size_t msglen)
{
	const struct ksym *kp = ks ? ksyms_by_name(ks, "current_kprobe", NULL) : NULL;
	const struct ksym *pc = ks ? ksyms_by_name(ks, "__per_cpu_offset", NULL) : NULL;

	if (!kp || !pc || !pc->addr) {
		/* data symbols are in kallsyms only with CONFIG_KALLSYMS_ALL */
		snprintf(msg, msglen, "this kernel has no BPF cookies (Linux 5.15+): kptrace "
			 "gives %d probes a program each, and tells further kprobes apart by the "
			 "running kprobe, which needs current_kprobe and __per_cpu_offset from "
			 "kallsyms: this kernel's has no %s (built without CONFIG_KALLSYMS_ALL?); "
			 "run at most %d probes in a kptrace run", KPT_ID_SLOTS,
			 !kp && (!pc || !pc->addr) ? "data symbols" :
			 !kp ? "current_kprobe" : "__per_cpu_offset", KPT_ID_SLOTS);
		return -ENOENT;
	}
	if (!btf || !btfwalk_struct_member(btf, "kprobe", "addr", &id->addr_off)) {
		snprintf(msg, msglen, "this kernel has no BPF cookies (Linux 5.15+), and kptrace "
			 "tells its probes apart by the running kprobe instead, which needs "
			 "struct kprobe from the kernel's BTF");
		return -ENOENT;
	}
	id->curkp = kp->addr;
	id->pcpu = pc->addr;
	return 0;
}

int ident_tp_partner(const struct ev_desc *ev, int n)
{
	const struct ev_desc *e, *evs = ev - ev->index;
	int found = -1;

	if (ev->kind != SPEC_TRACEPOINT || ev->tpbtf)
		return -1;
	for (e = evs; e < evs + n; e++) {
		if (e == ev || e->kind != SPEC_TRACEPOINT || e->tpbtf ||
		    strcmp(e->target.tp_system, ev->target.tp_system) ||
		    strcmp(e->target.tp_event, ev->target.tp_event))
			continue;
		if (found >= 0)
			return -2;	/* a third: plan_make() refuses it */
		found = e->index;
	}
	return found;
}

bool ident_tp_hosts(const struct ev_desc *ev, int partner)
{
	const struct ev_desc *o = ev - ev->index + partner;

	return ev->pair_entry != o->pair_entry ? !ev->pair_entry : ev->index < partner;
}

static bool ident_is_kprobe(const struct ev_desc *ev)
{
	return ev->kind == SPEC_KPROBE || ev->kind == SPEC_KRETPROBE;
}

/* Whether ev may take a slot: what kpt_entry, kpt_tp or kpt_tp2 would run. */
static bool ident_slot_kind(const struct ev_desc *ev)
{
	return !ev->multi && !ev->tramp && !ev->tpbtf && ev->kind != SPEC_PROFILE;
}

/*
 * The slots, in order: uprobes and tracepoints first, which have no other
 * way to share a run, then kprobes, which the running kprobe tells apart
 * where kallsyms has it. Returns whether a kprobe is left without one.
 */
static bool ident_slots(struct ident_set *id, const struct ev_desc *evs, int n)
{
	int i, pass, k = 0;
	bool left = false;

	for (i = 0; i < n; i++)
		id->slot[i] = -1;
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < n; i++) {
			int partner = ident_tp_partner(&evs[i], n);

			if (ident_is_kprobe(&evs[i]) != (pass == 1) ||
			    (partner >= 0 && !ident_tp_hosts(&evs[i], partner)))
				continue;	/* a pair's other: its host's slot */
			if (!ident_slot_kind(&evs[i]) || k == KPT_ID_SLOTS) {
				left |= pass == 1;
				continue;
			}
			if (partner >= 0)
				id->slot[partner] = k;
			id->slot[i] = k++;
		}
	return left;
}

int ident_setup(struct ident_set *id, const struct ev_desc *evs, int n, const struct ksyms *ks,
		const struct btf *btf, char *msg, size_t msglen)
{
	int i, j, err;

	if (n <= 1 || kfeat_cookies())
		return 0;	/* a run of one needs no telling apart */
	id->keys = calloc((size_t)n, sizeof(*id->keys));
	id->slot = calloc((size_t)n, sizeof(*id->slot));
	if (!id->keys || !id->slot)
		return -ENOMEM;
	/* only a kprobe's hit is told by the running kprobe (bpf/ident.bpf.h) */
	if (ident_slots(id, evs, n) && (err = ident_layout(id, ks, btf, msg, msglen)))
		return err;
	for (i = 0; i < n; i++) {
		err = id->slot[i] >= 0 ? 1 : ident_key(&evs[i], ks, &id->keys[i], msg, msglen);
		if (err < 0)
			return err;
		if (err)	/* no key: marked by a what no hit has */
			id->keys[i].what = ~0u;
		for (j = 0; !err && j < i; j++)
			if (id->keys[j].addr == id->keys[i].addr &&
			    id->keys[j].what == id->keys[i].what) {
				snprintf(msg, msglen, "%s/%s and %s/%s: this kernel has no BPF cookies "
					 "(Linux 5.15+), and kptrace gives %d probes a program each "
					 "(uprobes and tracepoints first) "
					 "and tells the others apart by what they hit, here %s; run "
					 "them in separate kptrace runs", evs[j].group, evs[j].event,
					 evs[i].group, evs[i].event, KPT_ID_SLOTS,
					 ident_what(&id->keys[i]));
				return -EOPNOTSUPP;
			}
	}
	return 0;
}

/* Whether ev may take one of the main object's tracepoint slots. */
static bool ident_fast_kind(const struct ev_desc *ev, int n)
{
	return ev->kind == SPEC_TRACEPOINT && !ev->tpbtf && ident_tp_partner(ev, n) == -1;
}

int ident_fast_slots(struct ident_set *id, const struct ev_desc *evs, int n)
{
	int i, k = 0;

	for (i = 0; i < n; i++)
		k += ident_fast_kind(&evs[i], n);
	if (n <= 1 || k == 0 || k > KPT_TP_FAST_SLOTS)
		return 0;
	id->slot = calloc((size_t)n, sizeof(*id->slot));
	if (!id->slot)
		return -ENOMEM;
	for (i = k = 0; i < n; i++)
		id->slot[i] = ident_fast_kind(&evs[i], n) ? k++ : -1;
	return 0;
}

void ident_free(struct ident_set *id)
{
	free(id->keys);
	free(id->slot);
	id->keys = NULL;
	id->slot = NULL;
}
