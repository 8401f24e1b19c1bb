/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The command line: one struct env with defaults, strict numbers, cross-checks. */
#ifndef KPT_CLI_H
#define KPT_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct env {
	const char **defs;	/* definitions from the command line, in order */
	int ndefs;
	const char *def_file;	/* -f */
	const char *out_path;	/* -o */
	const char *command;	/* -c */
	pid_t pid;		/* -p */
	double duration;	/* -d */
	uint32_t buffer_size;	/* --buffer-size, bytes */
	bool json;
	bool dry_run;
	bool verbose;
};

/* Parse argv into env. Returns 0, or exits with a usage error. */
int cli_parse(int argc, char **argv, struct env *env);
void cli_free(struct env *env);

#endif /* KPT_CLI_H */
