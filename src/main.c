// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* kptrace: parse the command line, run the pipeline (run.c). */
#include <string.h>

#include "cmd/cli.h"
#include "cmd/list.h"
#include "diff/diff.h"
#include "run/run.h"
#include "serve/serve.h"

int main(int argc, char **argv)
{
	struct kpt_opts env;
	int err;

	if (argc > 1 && !strcmp(argv[1], "diff"))
		return kpt_diff(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "serve"))
		return kpt_serve(argc - 1, argv + 1);
	cli_parse(argc, argv, &env);
	err = env.mode == MODE_LIST ? kpt_list(&env) : kpt_run(&env);
	cli_free(&env);
	return err ? 1 : 0;
}
