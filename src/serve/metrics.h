/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * serve's /metrics: each job's tables as metric families named for the job
 * (hist: a histogram; latency: a histogram in seconds; count: a counter, and
 * --sum's sums), the --by keys as labels; then every probe's health and the
 * exporter's own.
 */
#ifndef KPT_METRICS_H
#define KPT_METRICS_H

#include <stdint.h>
#include "prepare/opts.h"
#include "serve/promexp.h"

struct run;

struct metrics_job {
	const char *name;		/* the job file's NAME */
	const struct kpt_opts *env;
	struct run *run;
};

struct metrics_self {
	double start_time;		/* the process's, Unix seconds */
	uint64_t reloads, reload_failures;
	bool last_reload_ok;
	double last_scrape_s;		/* the previous scrape's duration */
	uint64_t http_requests, http_errors, http_rejected, http_timeouts;
};

void metrics_write(const struct prom_out *o, const struct metrics_job *jobs, int n,
		   const struct metrics_self *self);

/* The family name of job name's tables: kptrace_NAME[_seconds|_total]. */
void metrics_job_family(const char *name, enum kpt_mode mode, char *buf, size_t len);

#endif /* KPT_METRICS_H */
