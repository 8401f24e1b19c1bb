/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The command line: one struct kpt_opts with defaults, strict numbers, cross-checks. */
#ifndef KPT_CLI_H
#define KPT_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "prepare/opts.h"

/*
 * kptrace's version (git describe at build time, src/cmd/version.c), as
 * --version and serve's kptrace_build_info say it.
 */
#define KPT_VERSION kpt_version()
const char *kpt_version(void);
struct argp_state;
/* --version: the version, libbpf's, the embedded BPF object's SHA-256. */
void kpt_print_version(FILE *f, struct argp_state *st);

/* Parse argv into env. Returns 0, or exits with a usage error. */
int cli_parse(int argc, char **argv, struct kpt_opts *env);
/* The same for a serve job's words: 0, or -EINVAL with the reason in msg (never exits). */
int cli_parse_job(int argc, char **argv, struct kpt_opts *env, char *msg, size_t msglen);
void cli_free(struct kpt_opts *env);

#endif /* KPT_CLI_H */
