// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Probes told apart without BPF cookies (load/ident.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

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
		snprintf(msg, msglen, "this kernel has no BPF cookies (Linux 5.15+), and kptrace "
			 "tells its kprobes apart by the running kprobe instead, which needs "
			 "current_kprobe and __per_cpu_offset from kallsyms: this kernel's has no "
			 "%s (built without CONFIG_KALLSYMS_ALL?); run each kprobe in a kptrace "
			 "run of its own", !kp && (!pc || !pc->addr) ? "data symbols" :
			 !kp ? "current_kprobe" : "__per_cpu_offset");
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

int ident_setup(struct ident_set *id, const struct ev_desc *evs, int n, const struct ksyms *ks,
		const struct btf *btf, char *msg, size_t msglen)
{
	int i, j, err;

	if (n <= 1 || kfeat_cookies())
		return 0;	/* a run of one needs no telling apart */
	/* only a kprobe's hit is told by the running kprobe (bpf/ident.bpf.h) */
	for (i = 0; i < n && evs[i].kind != SPEC_KPROBE && evs[i].kind != SPEC_KRETPROBE; i++)
		;
	err = i < n ? ident_layout(id, ks, btf, msg, msglen) : 0;
	if (err)
		return err;
	id->keys = calloc((size_t)n, sizeof(*id->keys));
	if (!id->keys)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		err = ident_key(&evs[i], ks, &id->keys[i], msg, msglen);
		if (err < 0)
			return err;
		if (err)	/* no key: marked by a what no hit has */
			id->keys[i].what = ~0u;
		for (j = 0; !err && j < i; j++)
			if (id->keys[j].addr == id->keys[i].addr &&
			    id->keys[j].what == id->keys[i].what) {
				snprintf(msg, msglen, "%s/%s and %s/%s: this kernel has no BPF cookies "
					 "(Linux 5.15+), and kptrace tells probes apart by what they "
					 "hit, here %s; run them in separate kptrace runs",
					 evs[j].group, evs[j].event, evs[i].group, evs[i].event,
					 ident_what(&id->keys[i]));
				return -EOPNOTSUPP;
			}
	}
	return 0;
}

void ident_free(struct ident_set *id)
{
	free(id->keys);
	id->keys = NULL;
}
