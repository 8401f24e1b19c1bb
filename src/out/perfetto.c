// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* --perfetto: the Trace Event Format writer (perfetto.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "out/callstart.h"
#include "out/output.h"
#include "out/outtime.h"
#include "out/perfetto.h"
#include "sys/privilege.h"

/* A thread seen: its process and the comm it had last. A process's entry
 * (tid its tgid) has its name, empty while unknown. */
struct pf_thread {
	uint32_t tid, tgid;
	bool by_main;		/* a process's: named by its main thread's own record */
	char comm[KPT_COMM_LEN + 1];
};

/* Open addressing by tid, cap a power of two, at most half full. */
struct pf_table {
	struct pf_thread *t;
	size_t n, cap;
};

struct perfetto {
	FILE *f;
	bool first;
	uint64_t last_ts;
	const struct ksyms *ks;
	struct call_starts starts;
	struct pf_table threads, procs;
	/* the lost events' counter: the count in its last sample, at lost_ts; the
	 * last reading of it, at lost_read; how many samples so far */
	uint64_t lost, lost_ts, lost_read;
	size_t nlost;
};

struct perfetto *perfetto_open(const char *path, char *msg, size_t msglen)
{
	struct perfetto *pf = calloc(1, sizeof(*pf));

	if (!pf || !(pf->threads.t = calloc(64, sizeof(struct pf_thread))) ||
	    !(pf->procs.t = calloc(64, sizeof(struct pf_thread)))) {
		if (pf)
			free(pf->threads.t);
		free(pf);
		snprintf(msg, msglen, "%s", strerror(ENOMEM));
		return NULL;
	}
	pf->threads.cap = pf->procs.cap = 64;
	/* as -o's file: created 0600, never through a symlink */
	pf->f = outfile_open(path);
	if (!pf->f) {
		msg[0] = '\0';		/* outfile_open() said why */
		free(pf->threads.t);
		free(pf->procs.t);
		free(pf);
		return NULL;
	}
	pf->first = true;
	fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n", pf->f);
	return pf;
}

static struct pf_thread *slot(struct pf_thread *t, size_t cap, uint32_t tid)
{
	size_t i = (tid * 2654435761u) & (cap - 1);

	while (t[i].tid && t[i].tid != tid)
		i = (i + 1) & (cap - 1);
	return &t[i];
}

/* id's entry in tb, added (its tid id, the rest zero) if new; NULL out of memory. */
static struct pf_thread *table_get(struct pf_table *tb, uint32_t id)
{
	struct pf_thread *e;
	size_t i;

	if (2 * (tb->n + 1) > tb->cap) {
		struct pf_thread *nt = calloc(tb->cap * 2, sizeof(*nt));

		if (!nt)
			return NULL;
		for (i = 0; i < tb->cap; i++)
			if (tb->t[i].tid)
				*slot(nt, tb->cap * 2, tb->t[i].tid) = tb->t[i];
		free(tb->t);
		tb->t = nt;
		tb->cap *= 2;
	}
	e = slot(tb->t, tb->cap, id);
	if (!e->tid) {
		e->tid = id;
		tb->n++;
	}
	return e;
}

/* Process tgid's main thread's comm, read while it lives; empty when it cannot be. */
static void proc_comm(uint32_t tgid, char *buf, size_t len)
{
	char path[32];
	ssize_t n = 0;
	int fd;

	snprintf(path, sizeof(path), "/proc/%u/comm", tgid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, len - 1);
		close(fd);
	}
	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

/*
 * Thread tid's entry, its comm the latest; tid 0 (the idle task) kept apart.
 * Its process is named by its main thread, whose comm is the process's in
 * ps and top: the latest that thread's own records had, else /proc's when
 * the process is first seen (a worker's comm would name it after the
 * worker). Never known (gone before its first record came): no name.
 */
static void note_thread(struct perfetto *pf, const struct kpt_rec_hdr *h)
{
	struct pf_thread *e, *p;
	bool fresh;

	if (!h->tid)
		return;
	/* a name less, never a call less */
	if (!(e = table_get(&pf->threads, h->tid)))
		return;
	fresh = e->tgid != h->tgid;
	e->tgid = h->tgid;
	memcpy(e->comm, h->comm, KPT_COMM_LEN);
	e->comm[KPT_COMM_LEN] = '\0';
	/* the process's table looked at only for its main thread or a new thread */
	if ((h->tid != h->tgid && !fresh) || !(p = table_get(&pf->procs, h->tgid)))
		return;
	if (h->tid == h->tgid) {
		memcpy(p->comm, e->comm, sizeof(p->comm));
		p->by_main = true;
	} else if (!p->by_main && !p->comm[0]) {
		proc_comm(h->tgid, p->comm, sizeof(p->comm));
	}
}

/* ns as microseconds with the nanoseconds as three decimals. */
static void put_us(FILE *f, uint64_t ns)
{
	fprintf(f, "%" PRIu64 ".%03" PRIu64, ns / 1000, ns % 1000);
}

void perfetto_set_ksyms(struct perfetto *pf, const struct ksyms *ks)
{
	pf->ks = ks;
}

/* An event's opening, up to its args' first member: ts is mono, shown on --time's clock. */
static void put_head(struct perfetto *pf, const char *name, const char *cat, const char *ph,
		     const struct kpt_rec_hdr *h, uint64_t ts)
{
	uint64_t t = ts + (uint64_t)outtime_offset();

	note_thread(pf, h);
	if (h->ts > pf->last_ts)
		pf->last_ts = h->ts;
	fputs(pf->first ? "" : ",\n", pf->f);
	pf->first = false;
	fputs("{\"name\":", pf->f);
	json_fput_str(pf->f, name, SIZE_MAX);
	fputs(",\"cat\":", pf->f);
	json_fput_str(pf->f, cat, SIZE_MAX);
	fprintf(pf->f, ",\"ph\":\"%s\",\"ts\":", ph);
	put_us(pf->f, t);
}

void perfetto_instant(struct perfetto *pf, const struct ev_desc *ev, const void *rec, size_t len)
{
	const struct kpt_rec_hdr *h = rec;
	uint64_t t = h->ts + (uint64_t)outtime_offset();

	if (decode_check(ev, rec, len))
		return;		/* the text output counts it as malformed */
	put_head(pf, ev->event, ev->group, "I", h, h->ts);
	fprintf(pf->f, ",\"s\":\"t\",\"pid\":%u,\"tid\":%u,\"args\":{\"ts_ns\":%" PRIu64,
		h->tgid, h->tid, t);
	output_json_args(pf->f, ev, pf->ks, rec, len, true);
	fputs("}}", pf->f);
}

void perfetto_start(struct perfetto *pf, const struct ev_desc *ev, const void *rec, size_t len)
{
	callstart_put(&pf->starts, ev, rec, len);
}

/* A call's complete event up to its args' timing members, the object still open. */
static void put_call_head(struct perfetto *pf, const char *name, const struct kpt_rec_hdr *h,
			  uint64_t start, uint64_t dur)
{
	put_head(pf, name, "kptrace", "X", h, start);
	fputs(",\"dur\":", pf->f);
	put_us(pf->f, dur);
	fprintf(pf->f, ",\"pid\":%u,\"tid\":%u,\"args\":{\"ts_ns\":%" PRIu64 ",\"dur_ns\":%" PRIu64,
		h->tgid, h->tid, start + (uint64_t)outtime_offset(), dur);
}

void perfetto_call(struct perfetto *pf, const char *name, const struct kpt_rec_hdr *h,
		   uint64_t dur)
{
	uint64_t start = h->ts >= dur ? h->ts - dur : 0;
	struct call_start *st = callstart_take(&pf->starts, start, h->tid);

	put_call_head(pf, name, h, start, dur);
	if (st) {
		output_json_args(pf->f, st->ev, pf->ks, st->rec, st->len, true);
		free(st);
	}
	fputs("}}", pf->f);
}

void perfetto_slice(struct perfetto *pf, const char *name, const struct kpt_rec_hdr *h,
		    uint64_t start, uint64_t dur, const char *args)
{
	put_call_head(pf, name, h, start, dur);
	if (args && *args)
		fprintf(pf->f, ",%s", args);
	fputs("}}", pf->f);
}

void perfetto_slow(struct perfetto *pf, const char *name, const struct call_start *st,
		   const struct ev_desc *ev, const void *rec, size_t len, uint64_t dur)
{
	const struct kpt_rec_hdr *h = rec;

	if (decode_check(ev, rec, len))
		return;		/* the text output counts it as malformed */
	put_call_head(pf, name, h, h->ts >= dur ? h->ts - dur : 0, dur);
	if (st) {
		fputs(",\"start\":{", pf->f);
		output_json_args(pf->f, st->ev, pf->ks, st->rec, st->len, false);
		fputc('}', pf->f);
	}
	fputs(",\"end\":{", pf->f);
	output_json_args(pf->f, ev, pf->ks, rec, len, false);
	fputs("}}}", pf->f);
}

/* A metadata event: process_name or thread_name. */
static void put_name(struct perfetto *pf, const char *what, uint32_t pid, uint32_t tid,
		     const char *name)
{
	fputs(pf->first ? "" : ",\n", pf->f);
	pf->first = false;
	fprintf(pf->f, "{\"name\":\"%s\",\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"args\":{\"name\":",
		what, pid, tid);
	json_fput_str(pf->f, name, KPT_COMM_LEN);
	fputs("}}", pf->f);
}

/* A sample of the lost events' counter: ts mono, shown on --time's clock. */
static void put_lost(struct perfetto *pf, uint64_t ts, uint64_t lost)
{
	fputs(pf->first ? "" : ",\n", pf->f);
	pf->first = false;
	fputs("{\"name\":\"lost events\",\"ph\":\"C\",\"pid\":0,\"tid\":0,\"ts\":", pf->f);
	put_us(pf->f, ts + (uint64_t)outtime_offset());
	fprintf(pf->f, ",\"args\":{\"lost\":%" PRIu64 "}}", lost);
	pf->lost = lost;
	pf->lost_ts = ts;
	pf->nlost++;
}

bool perfetto_lost_due(const struct perfetto *pf, uint64_t now)
{
	return !pf->lost_read || now - pf->lost_read >= PERFETTO_LOST_EVERY_NS;
}

void perfetto_lost(struct perfetto *pf, uint64_t now, uint64_t lost)
{
	if (lost != pf->lost) {
		/* the count before at the reading before: a step between the two
		 * readings is when the ring buffer was full, not a slope */
		if (pf->lost_read > pf->lost_ts && pf->lost_read < now)
			put_lost(pf, pf->lost_read, pf->lost);
		put_lost(pf, now, lost);
	}
	pf->lost_read = now;
}

int perfetto_close(struct perfetto *pf, uint64_t lost)
{
	size_t i;
	int err;

	if (!pf)
		return 0;
	for (i = 0; i < pf->threads.cap; i++) {
		const struct pf_thread *e = &pf->threads.t[i];

		if (e->tid)
			put_name(pf, "thread_name", e->tgid, e->tid, e->comm);
	}
	for (i = 0; i < pf->procs.cap; i++) {
		const struct pf_thread *e = &pf->procs.t[i];

		if (e->tid && e->comm[0])
			put_name(pf, "process_name", e->tid, e->tid, e->comm);
	}
	/* the total, unless the last sample has it: at the last event, or after
	 * the last sample */
	if (lost != pf->lost || !pf->nlost)
		put_lost(pf, pf->last_ts > pf->lost_ts ? pf->last_ts : pf->lost_ts, lost);
	fputs("\n]}\n", pf->f);
	err = ferror(pf->f) ? -EIO : 0;
	if (fclose(pf->f))
		err = -EIO;
	callstart_free(&pf->starts);
	free(pf->threads.t);
	free(pf->procs.t);
	free(pf);
	return err;
}
