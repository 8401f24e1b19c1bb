// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* latency --perfetto: the Trace Event Format writer (perfetto.h). */
#include <errno.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "privilege.h"
#include "perfetto.h"

/* A thread seen: its process and the comm it had last. */
struct pf_thread {
	uint32_t tid, tgid;
	char comm[KPT_COMM_LEN + 1];
};

struct perfetto {
	FILE *f;
	bool first;
	uint64_t last_ts;
	/* open addressing by tid, cap a power of two, at most half full */
	struct pf_thread *t;
	size_t n, cap;
};

struct perfetto *perfetto_open(const char *path, char *msg, size_t msglen)
{
	struct perfetto *pf = calloc(1, sizeof(*pf));

	if (!pf || !(pf->t = calloc(64, sizeof(*pf->t)))) {
		free(pf);
		snprintf(msg, msglen, "%s", strerror(ENOMEM));
		return NULL;
	}
	pf->cap = 64;
	/* as -o's file: created 0600, never through a symlink */
	pf->f = outfile_open(path);
	if (!pf->f) {
		msg[0] = '\0';		/* outfile_open() said why */
		free(pf->t);
		free(pf);
		return NULL;
	}
	pf->first = true;
	fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n", pf->f);
	return pf;
}

/* A JSON string of s: every byte past ASCII escaped, so any comm is valid JSON. */
static void put_str(FILE *f, const char *s, size_t max)
{
	size_t i;

	fputc('"', f);
	for (i = 0; i < max && s[i]; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static struct pf_thread *slot(struct pf_thread *t, size_t cap, uint32_t tid)
{
	size_t i = (tid * 2654435761u) & (cap - 1);

	while (t[i].tid && t[i].tid != tid)
		i = (i + 1) & (cap - 1);
	return &t[i];
}

/* Thread tid's entry, its comm the latest; tid 0 (the idle task) kept apart. */
static void note_thread(struct perfetto *pf, const struct kpt_rec_hdr *h)
{
	struct pf_thread *e;
	size_t i;

	if (!h->tid)
		return;
	if (2 * (pf->n + 1) > pf->cap) {
		struct pf_thread *nt = calloc(pf->cap * 2, sizeof(*nt));

		if (!nt)
			return;		/* a name less, never a call less */
		for (i = 0; i < pf->cap; i++)
			if (pf->t[i].tid)
				*slot(nt, pf->cap * 2, pf->t[i].tid) = pf->t[i];
		free(pf->t);
		pf->t = nt;
		pf->cap *= 2;
	}
	e = slot(pf->t, pf->cap, h->tid);
	if (!e->tid)
		pf->n++;
	e->tid = h->tid;
	e->tgid = h->tgid;
	memcpy(e->comm, h->comm, KPT_COMM_LEN);
	e->comm[KPT_COMM_LEN] = '\0';
}

/* ns as microseconds with the nanoseconds as three decimals. */
static void put_us(FILE *f, uint64_t ns)
{
	fprintf(f, "%" PRIu64 ".%03" PRIu64, ns / 1000, ns % 1000);
}

void perfetto_call(struct perfetto *pf, const char *name, const struct kpt_rec_hdr *h,
		   uint64_t dur)
{
	uint64_t start = h->ts >= dur ? h->ts - dur : 0;

	note_thread(pf, h);
	if (h->ts > pf->last_ts)
		pf->last_ts = h->ts;
	fputs(pf->first ? "" : ",\n", pf->f);
	pf->first = false;
	fputs("{\"name\":", pf->f);
	put_str(pf->f, name, SIZE_MAX);
	fputs(",\"cat\":\"kptrace\",\"ph\":\"X\",\"ts\":", pf->f);
	put_us(pf->f, start);
	fputs(",\"dur\":", pf->f);
	put_us(pf->f, dur);
	fprintf(pf->f, ",\"pid\":%u,\"tid\":%u,\"args\":{\"ts_ns\":%" PRIu64 ",\"dur_ns\":%" PRIu64
		"}}", h->tgid, h->tid, start, dur);
}

/* A metadata event: process_name or thread_name. */
static void put_name(struct perfetto *pf, const char *what, uint32_t pid, uint32_t tid,
		     const char *name)
{
	fputs(pf->first ? "" : ",\n", pf->f);
	pf->first = false;
	fprintf(pf->f, "{\"name\":\"%s\",\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"args\":{\"name\":",
		what, pid, tid);
	put_str(pf->f, name, KPT_COMM_LEN);
	fputs("}}", pf->f);
}

/* Whether entry i is its process's first in the table (a process whose main thread made no call). */
static bool first_of(const struct perfetto *pf, size_t i)
{
	size_t j;

	for (j = 0; j < i; j++)
		if (pf->t[j].tid && pf->t[j].tgid == pf->t[i].tgid)
			return false;
	return true;
}

int perfetto_close(struct perfetto *pf, uint64_t lost)
{
	size_t i;
	int err;

	if (!pf)
		return 0;
	for (i = 0; i < pf->cap; i++) {
		const struct pf_thread *e = &pf->t[i];
		const struct pf_thread *lead;

		if (!e->tid)
			continue;
		put_name(pf, "thread_name", e->tgid, e->tid, e->comm);
		/* a process by its main thread's comm, else by the first of its threads here */
		lead = slot(pf->t, pf->cap, e->tgid);
		if (lead->tid ? lead == e : first_of(pf, i))
			put_name(pf, "process_name", e->tgid, e->tgid, lead->tid ? lead->comm : e->comm);
	}
	fputs(pf->first ? "" : ",\n", pf->f);
	fputs("{\"name\":\"lost calls\",\"ph\":\"C\",\"pid\":0,\"tid\":0,\"ts\":", pf->f);
	put_us(pf->f, pf->last_ts);
	fprintf(pf->f, ",\"args\":{\"lost\":%" PRIu64 "}}\n]}\n", lost);
	err = ferror(pf->f) ? -EIO : 0;
	if (fclose(pf->f))
		err = -EIO;
	free(pf->t);
	free(pf);
	return err;
}
