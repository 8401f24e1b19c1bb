// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What this build is: the version git describe gave at build time, the
 * libbpf it is linked with, and the BPF object it embeds. Only this file
 * includes the generated headers, so a new version recompiles it alone.
 */
#include <argp.h>
#include <stdio.h>
#include <bpf/libbpf.h>

#include "bpf_id.h"	/* .output/bpf_id.h: KPT_BPF_SHA256 */
#include "cmd/cli.h"
#include "version.h"	/* .output/version.h: KPT_GIT_VERSION */

const char *kpt_version(void)
{
	return KPT_GIT_VERSION;
}

/*
 * The embedded object's hash says which BPF programs a binary carries even
 * when two builds share a version (a dirty tree, a changed clang): compare
 * it with sha256sum .output/kptrace.bpf.o of a build.
 */
void kpt_print_version(FILE *f, struct argp_state *st)
{
	(void)st;
	fprintf(f, "kptrace %s\n", KPT_GIT_VERSION);
	fprintf(f, "libbpf %u.%u (linked statically)\n", libbpf_major_version(),
		libbpf_minor_version());
	fprintf(f, "BPF object sha256:%s\n", KPT_BPF_SHA256);
}
