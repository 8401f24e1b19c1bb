/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * kptrace serve: the jobs of a job file (jobs.h), each an aggregation run
 * (run.h), exposed for Prometheus on /metrics (metrics.h) by a small HTTP
 * server (http.h); SIGHUP reloads the file without a gap.
 */
#ifndef KPT_SERVE_H
#define KPT_SERVE_H

/* argv[0] is "serve". Returns the process's exit status. */
int kpt_serve(int argc, char **argv);

#endif /* KPT_SERVE_H */
