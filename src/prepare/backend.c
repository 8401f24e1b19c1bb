// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The attach mechanism of each kernel function probe. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>

#include "prepare/backend.h"
#include "prepare/unsafe.h"
#include "sys/kbtf.h"
#include "sys/kfeat.h"

/* auto: kprobe.multi from this many distinct functions (one link, one syscall) */
#define KPT_MULTI_MIN	8
/* auto: fentry/fexit for at most this many probes; each is a program to verify
 * (~20 ms), where kprobes share one */
#define KPT_TRAMP_AUTO	4
#define STR_(x)		#x
#define STR(x)		STR_(x)

#ifdef KPT_ARCH_ARM64
#define SAVED_REGS	"%x0 to %x7"
#define LAST_REG_ARG	"eighth"
#else
#define SAVED_REGS	"%di, %si, %dx, %cx, %r8 and %r9"
#define LAST_REG_ARG	"sixth"
#endif

static bool multi_eligible(const struct ev_desc *ev)
{
	/* a module's function: one perf link of its own, made as the module
	 * loads (modwatch.c); a multi link would hold the module (6.3+: rmmod
	 * refused while kptrace runs, said nowhere) or, before, outlive it */
	if (ev->target.await || ev->target.module[0])
		return false;
	return (ev->kind == SPEC_KPROBE && ev->target.by_name && !ev->target.offset) ||
	       (ev->kind == SPEC_KRETPROBE && !ev->target.maxactive);
}

const char *backend_ret_needs_caller(const struct kpt_probe_entry *ent)
{
	if (ent->agg.action == KPT_ACT_PRINT)
		return "its record shows where the function returns to, which an arm64 "
		       "trampoline does not give";
	/* taken in the trampoline, below the caller a kretprobe's stack starts
	 * from: not shown to be the same frames */
	if (ent->agg.stack_keys & KPT_SK_KSTACK)
		return "its key is a kernel stack, which through an arm64 trampoline is "
		       "not checked against a kretprobe's";
	return NULL;
}

/*
 * Why a probe cannot go through a trampoline, or NULL if it can. A
 * trampoline attaches to a whole function of vmlinux's BTF and saves its
 * argument registers (and the return value): nothing else of the register
 * file, no stack pointer.
 */
static const char *tramp_why_not(struct sysinfo *si, const struct ev_desc *ev,
				 const struct kpt_probe_entry *ent)
{
	bool ret = ev->kind == SPEC_KRETPROBE;
	const char *why;
	int i, reg;

	if (ev->kind != SPEC_KPROBE && !ret)
		return "not a kernel function probe";
	if (!ev->target.by_name || ev->target.offset)
		return "it probes inside a function, at SYM+offs or an address";
	if (ev->target.maxactive)
		return "rN: sets a kretprobe's maxactive";
	if (ev->target.module[0])
		return "it is a module's function: kptrace puts trampolines on vmlinux's only";
	if (strchr(ev->func, '.'))
		return "a compiler clone such as .isra or .constprop has no BTF prototype";
#ifdef KPT_ARCH_ARM64
	/* arm64's trampoline frame is not x86-64's: kpt_tramp_ip() cannot say
	 * where the function returns to, so only returns that never show it */
	why = ret ? backend_ret_needs_caller(ent) : NULL;
	if (why)
		return why;
#endif
	why = kbtf_ids_why_not(si->btf_path);
	if (why)
		return why;
	if (sysinfo_need_regs_btf(si, NULL, 0))
		return "the registers' layout is unknown";
	for (i = 0; i < ent->nargs && i < KPT_MAX_ARGS; i++) {
		const struct kpt_fetch *f = &ent->args[i];

		switch (f->base) {
		case KPT_BASE_REG:
			reg = resolve_arg_reg(si->regs_btf, f->param);
			if (ret && reg != KPT_DIRECT_AX)
				return "at a return it reads a register other than %ax";
			if (!ret && (reg < 0 || reg == KPT_DIRECT_AX))
				return "it reads a register that holds no argument: only "
				       SAVED_REGS " are saved";
			break;
		case KPT_BASE_ARG:
			if (f->param >= KPT_NR_REG_ARGS)
				return "an argument past the " LAST_REG_ARG " is on the stack";
			break;
		case KPT_BASE_RETVAL:
		case KPT_BASE_EDATA:
		case KPT_BASE_IMM:
		case KPT_BASE_COMM:
		case KPT_BASE_DATA:
			break;
		default:
			return "it reads the stack";
		}
	}
	return NULL;
}

/*
 * Why no probe of the run goes through a trampoline, or NULL: one is on a
 * spinning lock's path (or another site unsafe.h lists, under --unsafe).
 * kprobe, kprobe.multi and tracepoint programs share one per-CPU guard
 * (bpf_prog_active), so none runs inside another; a trampoline's program
 * guards only itself. A trampoline program holding the ring buffer's lock
 * would reach a kprobe at a release's entry, whose program then spins on
 * that lock; two trampoline programs on lock functions deadlock each other
 * (bpftrace#3144).
 */
static const char *run_on_lock(const struct ev_desc *evs, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if ((evs[i].kind == SPEC_KPROBE || evs[i].kind == SPEC_KRETPROBE) &&
		    unsafe_site_of(evs[i].func))
			return "a probe of this run is on a spinning lock's path (or another "
			       "site kptrace-definitions(5) lists under UNSAFE PROBE SITES): "
			       "kprobes for all, whose programs share one recursion guard per "
			       "CPU";
	return NULL;
}

/* One function: by address, or by name where one was resolved without
 * kallsyms (address 0, resolve.h). */
static bool same_function(const struct ev_desc *a, const struct ev_desc *b)
{
	if (a->addr && b->addr)
		return a->addr == b->addr;
	return !strcmp(a->func, b->func);
}

/*
 * Whether the kernel has function fn: in kallsyms where it was read, else
 * in its BTF (a few milliseconds, where kallsyms is tens: resolve.h). What
 * is looked up here is a global function BTF lists wherever it is built in.
 */
static bool kernel_has(struct sysinfo *si, const char *fn, char *msg, size_t msglen)
{
	if (si->ksyms || !si->defer_ksyms)
		return !sysinfo_need_ksyms(si, msg, msglen) && ksyms_by_name(si->ksyms, fn, NULL);
	return sysinfo_btf_has_func(si, fn);
}

/* Why no probe goes through a trampoline on a kernel before 5.17. */
#define TRAMP_OLD "this kernel's fentry/fexit programs lack bpf_get_func_arg_cnt() and " \
		  "bpf_get_func_ret(), which kptrace's take (Linux 5.17, as bpf_loop(), " \
		  "which this kernel lacks too)"

int backend_choose(const char *name, struct sysinfo *si, struct ev_desc *evs,
		   const struct kpt_probe_entry *ents, int n, char *msg, size_t msglen)
{
	const char *b = name ? name : "auto", *why;
	int i, j, eligible = 0, ntramp = 0;
	bool have;
	int kerr;

	/* functions, not probes: many probes on one function need no multi link */
	for (i = 0; i < n; i++) {
		bool ok = multi_eligible(&evs[i]);

		for (j = 0; ok && j < i; j++)
			ok = !same_function(&evs[j], &evs[i]);
		eligible += ok;
	}
	if (!strcmp(b, "kprobe"))
		return 0;

	if (!strcmp(b, "fentry") || (!strcmp(b, "auto") && eligible)) {
		bool force = !strcmp(b, "fentry");

		const char *lock = run_on_lock(evs, n);

		why = kbtf_ids_why_not(si->btf_path);
		if (force && why) {
			snprintf(msg, msglen, "--backend fentry: %s; use --backend kprobe", why);
			return -EOPNOTSUPP;
		}
		/* before 5.17 (sys/kfeat.h): not tried, the verifier would refuse them */
		if (!kfeat_loop()) {
			if (force) {
				snprintf(msg, msglen, "--backend fentry: %s; use --backend kprobe",
					 TRAMP_OLD);
				return -EOPNOTSUPP;
			}
			/* the BTF ids' want first where both hold, as --backend fentry says */
			lock = why ? why : TRAMP_OLD;
		}

		/* marked where a trampoline can go; auto may take them back */
		for (i = 0; i < n; i++) {
			why = lock ? lock : tramp_why_not(si, &evs[i], &ents[i]);
			evs[i].tramp = !why;
			evs[i].not_tramp = why;
			if (!why) {
				ntramp++;
				continue;
			}
			if (force && !si->have_kprobes &&
			    (evs[i].kind == SPEC_KPROBE || evs[i].kind == SPEC_KRETPROBE)) {
				snprintf(msg, msglen, "--backend fentry: %s/%s cannot go through "
					 "fentry/fexit, and this kernel has no kprobes: %s",
					 evs[i].group, evs[i].event, why);
				return -EOPNOTSUPP;
			}
		}
		if (force && ntramp > KPT_TRAMP_SLOTS) {
			snprintf(msg, msglen, "--backend fentry: %d probes, at most %d go through "
				 "fentry/fexit in one run (a BPF program each); use --backend "
				 "kprobe-multi for many functions", ntramp, KPT_TRAMP_SLOTS);
			return -E2BIG;
		}
		/* auto: a trampoline for a few probes where the kernel has them
		 * (tried at load: a refusal sends them back to kprobes) */
		if (force)
			return 0;
		if (ntramp > KPT_TRAMP_AUTO)
			why = "auto: more than " STR(KPT_TRAMP_AUTO) " probes could, and each "
			      "trampoline is a program to verify";
		else if (eligible >= KPT_MULTI_MIN)
			why = "auto: " STR(KPT_MULTI_MIN) " or more functions take kprobe.multi "
			      "where the kernel has it, else kprobes";
		else if (ntramp && !kernel_has(si, "register_ftrace_direct", msg, msglen))
			why = "this kernel has no BPF trampolines (no register_ftrace_direct)";
		else
			return 0;
		for (i = 0; i < n; i++) {
			if (evs[i].tramp)
				evs[i].not_tramp = why;
			evs[i].tramp = false;
		}
	}

	/* no kernel function probes, or too few for auto to take a multi
	 * link: no kallsyms to read */
	if (!eligible || (!strcmp(b, "auto") && eligible < KPT_MULTI_MIN))
		return 0;
	/* CONFIG_FPROBE: what kprobe.multi links are built on; they attach
	 * by address, so kallsyms is read here in any case */
	kerr = sysinfo_need_ksyms(si, msg, msglen);
	have = !kerr && ksyms_by_name(si->ksyms, "register_fprobe_ips", NULL);
	if (!strcmp(b, "kprobe-multi") && !have) {
		/* as a user who reads kallsyms' names but not their addresses
		 * (CAP_BPF and CAP_PERFMON without CAP_SYSLOG) */
		if (kerr == -EPERM)
			snprintf(msg, msglen, "--backend kprobe-multi: a kprobe.multi link attaches "
				 "by address, and kallsyms hides them from this user "
				 "(kernel.kptr_restrict): run as root, or use --backend kprobe");
		else
			snprintf(msg, msglen, "--backend kprobe-multi: this kernel has no kprobe.multi "
				 "(Linux 5.18+ built with CONFIG_FPROBE); use --backend kprobe");
		return -EOPNOTSUPP;
	}
	if (!have || (!strcmp(b, "auto") && eligible < KPT_MULTI_MIN))
		return 0;
	for (i = 0; i < n; i++)
		evs[i].multi = multi_eligible(&evs[i]);
	return 0;
}

/* What of its tracepoint probe i reads: the record, TP_PROTO's arguments. */
static void tp_reads(const struct ev_desc *ev, const struct kpt_probe_entry *ent, bool *record,
		     bool *args)
{
	int i;

	*record = ev->tp_print != NULL;
	*args = false;
	for (i = 0; i < ent->nargs && i < KPT_MAX_ARGS; i++) {
		switch (ent->args[i].base) {
		case KPT_BASE_TPFIELD:
		case KPT_BASE_TPDATALOC:
		case KPT_BASE_TPADDR:
			*record = true;
			break;
		case KPT_BASE_ARG:
			*args = true;
			break;
		default:
			break;
		}
	}
}

/* TP_PROTO's argument count, from btf_trace_<event> (less its __data), or -1. */
static int tp_btf_nargs(struct sysinfo *si, const char *event)
{
	const struct btf_type *t;
	char name[160];
	int id;

	if (sysinfo_need_btf(si, NULL, 0))
		return -1;
	snprintf(name, sizeof(name), "btf_trace_%s", event);
	id = btf__find_by_name_kind(si->btf, name, BTF_KIND_TYPEDEF);
	t = id > 0 ? btf__type_by_id(si->btf, btf__type_by_id(si->btf, id)->type) : NULL;
	t = t && btf_is_ptr(t) ? btf__type_by_id(si->btf, t->type) : NULL;
	return t && btf_is_func_proto(t) && btf_vlen(t) >= 1 ? (int)btf_vlen(t) - 1 : -1;
}

int backend_tp(const char *name, struct sysinfo *si, struct ev_desc *evs,
	       const struct kpt_probe_entry *ents, int n, char *msg, size_t msglen)
{
	const char *b = name ? name : "auto";
	bool force_tp = !strcmp(b, "tracepoint"), force_btf = !strcmp(b, "tp-btf");
	int i, na, used = 0;

	for (i = 0; i < n; i++) {
		struct ev_desc *ev = &evs[i];
		bool record, args;

		if (ev->kind != SPEC_TRACEPOINT)
			continue;
		tp_reads(ev, &ents[i], &record, &args);
		if (record && args) {
			snprintf(msg, msglen, "%s: reads the record's fields and TP_PROTO's "
				 "arguments, which no one program has (a tracepoint program the "
				 "record, tp_btf the arguments): define two probes", ev->func);
			return -EINVAL;
		}
		if (record || force_tp) {
			ev->not_tramp = record ? "it reads the record's fields, which only the "
						 "tracepoint program has" : "--backend tracepoint";
			if (force_btf)
				goto refuse;
			if (args) {
				snprintf(msg, msglen, "--backend tracepoint: %s reads TP_PROTO's "
					 "arguments, which only tp_btf has", ev->func);
				return -EOPNOTSUPP;
			}
			continue;
		}
		if (!args && !force_btf && !si->btf) {
			/* the kernel's BTF read and a program verified: most of a
			 * count's start (0.4 s and 11 MB here) for ~10% of each
			 * hit's BPF time */
			ev->not_tramp = "auto: no probe of this run reads the kernel's BTF, which "
					"tp_btf would (--backend tp-btf takes it)";
			continue;
		}
		ev->not_tramp = kbtf_ids_why_not(si->btf_path);
		if (ev->not_tramp) {
			if (args || force_btf)
				goto refuse;
			continue;
		}
		na = tp_btf_nargs(si, ev->target.tp_event);
		if (na < 0 || na > KPT_NR_REG_ARGS || used == KPT_TPBTF_SLOTS ||
		    (!args && !force_btf && used == KPT_TRAMP_AUTO)) {
			ev->not_tramp = na < 0 ? "no btf_trace_ prototype in this kernel's BTF" :
					na > KPT_NR_REG_ARGS ? "more TP_PROTO arguments than kptrace "
							       "lays out" :
					"auto: each tp_btf probe is a program to verify; this run "
					"has " STR(KPT_TRAMP_AUTO) " already";
			if (args || force_btf)
				goto refuse;
			continue;
		}
		ev->tpbtf = true;
		ev->tp_nargs = (uint8_t)na;
		used++;
	}
	return 0;
refuse:
	snprintf(msg, msglen, "%s cannot go through tp_btf: %s%s", evs[i].func, evs[i].not_tramp,
		 used == KPT_TPBTF_SLOTS ? " (at most " STR(KPT_TPBTF_SLOTS) " in one run)" : "");
	return -EOPNOTSUPP;
}

bool backend_fallback(const char *name, struct ev_desc *evs, int n)
{
	bool any = false;
	int i;

	if (name && strcmp(name, "auto"))
		return false;
	for (i = 0; i < n; i++) {
		any |= evs[i].tramp;
		evs[i].tramp = false;
	}
	return any;
}

const char *backend_describe(const struct ev_desc *ev)
{
	if (ev->kind == SPEC_TRACEPOINT)
		return ev->tpbtf ? "tp_btf (BTF-typed tracepoint: TP_PROTO's arguments, no record)" :
				   "tracepoint (its record's fields)";
	if (ev->tramp)
		return ev->kind == SPEC_KRETPROBE ? "fexit (BPF trampoline)" :
						    "fentry (BPF trampoline)";
	if (ev->multi)
		return "kprobe.multi (one link for all)";
	if (ev->target.maxactive)
		return "kretprobe through tracefs (maxactive)";
	return ev->kind == SPEC_KRETPROBE ? "kretprobe" : "kprobe";
}
