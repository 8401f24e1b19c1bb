// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * kptrace diff A B: two runs' --json tables, key by key, with a test of
 * whether each distribution (or count) changed. See diff.h for the rules;
 * this file is the command: its options, the refusals of files that cannot
 * be compared, and the run from reading to printing.
 */
#include <argp.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "diff/diff.h"
#include "diff/internal.h"
#include "util/svg.h"

static void usage(FILE *f)
{
	fputs("Usage: kptrace diff [--threshold P] [--min-shift PCT] [--json] [--svg FILE] A.json "
	      "B.json\n"
	      "Compare two runs' --json output key by key: did each distribution (or count)\n"
	      "change, and by how much?\n\n"
	      "  --threshold P     the p-value below which a difference is significant\n"
	      "                    (default 0.01)\n"
	      "  --min-shift PCT   the smallest shift called a difference, in percent (default 5)\n"
	      "  --json            one JSON object per key instead of the tables\n"
	      "  --svg FILE        also draw both runs overlaid as one SVG picture: a panel per\n"
	      "                    hist or latency key (latency on its fine buckets, at most\n"
	      "                    48 rows) and per count table, A's bar over B's in each row,\n"
	      "                    both runs' p50/p90/p99 marked, each headed by its verdict;\n"
	      "                    the file is checked before A and B are read\n"
	      "  -h, --help        this text\n\n"
	      "Rows match by type, group, event and key (its names sorted); -i's intervals are\n"
	      "summed per key. hist and latency: the two-sample Kolmogorov-Smirnov test on the\n"
	      "bucketed distributions (latency's fine buckets, 1.6% wide, when both runs have\n"
	      "them; the printed rows otherwise), its p-value from Kolmogorov's asymptotic\n"
	      "distribution. Binning makes the test conservative: a shift smaller than a bucket\n"
	      "cannot be seen. count: the conditional binomial test of B given A + B at p = 1/2,\n"
	      "which assumes both runs lasted equally long.\n\n"
	      "A key DIFFERS when p < P and its p50, p90 or p99 (its count) moved by at least\n"
	      "PCT%: with many events every tiny shift is significant, and PCT is the practical\n"
	      "floor (a significant, smaller shift is shown as \"same*\"). A quantile's move is\n"
	      "the gap between the two runs' 99% confidence intervals of it, from its rank and\n"
	      "no assumed distribution; p90 and p99 count only with " SHIFT_TAIL_S " events\n"
	      "above them in both runs (1000 and 10000 events): p99 of 1000 events is the ten\n"
	      "slowest, which the machine's other work moves by half from run to run; with 10\n"
	      "above them they count when they moved by a factor of 4 beyond the intervals.\n"
	      "A hist or latency key also differs when its count does, by the count's test.\n"
	      "Pairs of runs of one workload (1000 to 1200 calls) were called different in 0\n"
	      "of 52.\n"
	      "A key in one run only differs when its count alone is significant; against an\n"
	      "empty file (a run without events) every key differs. Runs bucketed otherwise\n"
	      "(log2 against --linear) are refused.\n\n"
	      "Exit status as diff(1): 0 no key differs, 1 some key differs, 2 trouble.\n\n"
	      "Example:\n"
	      "  kptrace latency vfs_read -d 30 --json > before.json\n"
	      "  (change something)\n"
	      "  kptrace latency vfs_read -d 30 --json > after.json\n"
	      "  kptrace diff before.json after.json\n", f);
}

/* A number in [lo, hi] (lo excluded when open), or -1. */
static int parse_num(const char *s, double lo, bool open, double hi, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v < lo || (open && v == lo) || v > hi)
		return -1;
	*out = v;
	return 0;
}

/* Keys past a char's: argp makes a short option of a printable key, and only -h is one. */
enum { OPT_THRESHOLD = 0x100, OPT_MIN_SHIFT, OPT_JSON, OPT_SVG };

/* No docs: --help prints usage()'s text, not argp's. */
static const struct argp_option options[] = {
	{ "threshold", OPT_THRESHOLD, "P", 0, NULL, 0 },
	{ "min-shift", OPT_MIN_SHIFT, "PCT", 0, NULL, 0 },
	{ "json", OPT_JSON, NULL, 0, NULL, 0 },
	{ "svg", OPT_SVG, "FILE", 0, NULL, 0 },
	{ "help", 'h', NULL, 0, NULL, 0 },
	{ 0 }
};

/* What one parse fills, and the streams it speaks on. */
struct args {
	struct opts *o;
	FILE *out, *errf;
	char *files[2];
	int nfiles;
	bool help;		/* --help: its text printed, the parse stopped */
	bool said;		/* a refusal printed */
};

static error_t refuse(struct args *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* "kptrace diff: " and why on errf; EINVAL, which stops argp. */
static error_t refuse(struct args *a, const char *fmt, ...)
{
	va_list ap;

	fputs("kptrace diff: ", a->errf);
	va_start(ap, fmt);
	vfprintf(a->errf, fmt, ap);
	va_end(ap);
	fputc('\n', a->errf);
	a->said = true;
	return EINVAL;
}

/*
 * Whether word is a long option that takes a value (or a prefix of one, as
 * getopt takes it) without "=VALUE": getopt's refusal of it, with no word
 * after it, is then a missing value.
 */
static bool lacks_value(const char *word)
{
	const struct argp_option *opt;
	size_t n;

	if (strncmp(word, "--", 2) || strchr(word, '='))
		return false;
	n = strlen(word + 2);
	for (opt = options; opt->name; opt++)
		if (opt->arg && n && !strncmp(opt->name, word + 2, n))
			return true;
	return false;
}

static error_t parse_opt(int key, char *arg, struct argp_state *st)
{
	struct args *a = st->input;

	switch (key) {
	case ARGP_KEY_INIT:
		/* argp itself says nothing (ARGP_NO_ERRS); were it to, on the caller's streams */
		st->out_stream = a->out;
		st->err_stream = a->errf;
		break;
	case OPT_THRESHOLD:
		if (parse_num(arg, 0, true, 1, &a->o->threshold))
			return refuse(a, "--threshold: '%s' is not a number in (0, 1]", arg);
		break;
	case OPT_MIN_SHIFT:
		if (parse_num(arg, 0, false, 1e6, &a->o->min_shift))
			return refuse(a, "--min-shift: '%s' is not a number in [0, 1000000]", arg);
		a->o->min_shift /= 100;
		break;
	case OPT_JSON:
		a->o->json = true;
		break;
	case OPT_SVG:
		a->o->svg = arg;
		break;
	case 'h':
		usage(a->out);
		a->help = true;
		return ECANCELED;	/* nothing after --help is read */
	case ARGP_KEY_ARG:
		if (a->nfiles < 2)
			a->files[a->nfiles] = arg;
		a->nfiles++;
		break;
	case ARGP_KEY_END:
		if (a->nfiles != 2)
			return refuse(a, "%s", a->nfiles < 2 ? "two files to compare, A and B" :
				      "only two files: A and B");
		break;
	case ARGP_KEY_ERROR:
		/* getopt's refusal, unsaid: the word it stopped after (argp's next) */
		if (!a->help && !a->said)
			refuse(a, "%s: %s", st->argv[st->next - 1],
			       lacks_value(st->argv[st->next - 1]) ? "needs a value" :
			       "unknown option");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/*
 * The options into o and the two files into files: 0, -1 (said on errf) on
 * a usage error, -2 on --help (printed on out). argp does not exit
 * (ARGP_NO_EXIT) and prints nothing (ARGP_NO_ERRS), with no options of its
 * own (ARGP_NO_HELP): each refusal is diff's, on errf.
 */
static int parse_args(int argc, char **argv, struct opts *o, char **files, FILE *out, FILE *errf)
{
	static const struct argp argp = { options, parse_opt, NULL, NULL, NULL, NULL, NULL };
	struct args a = { .o = o, .out = out, .errf = errf };
	error_t err;

	*o = (struct opts){ .threshold = 0.01, .min_shift = 0.05 };
	err = argp_parse(&argp, argc, argv, ARGP_NO_EXIT | ARGP_NO_ERRS | ARGP_NO_HELP, NULL, &a);
	if (!err) {
		files[0] = a.files[0];
		files[1] = a.files[1];
		return 0;
	}
	if (a.help)
		return -2;
	/* argp's own failure (its memory): the only one not said already */
	if (!a.said)
		fprintf(errf, "kptrace diff: %s\n", strerror(err));
	fputs("Try `kptrace diff --help' for more information.\n", errf);
	return -1;
}

/* Up to 3 sections of f as "TYPE of EVENT", for the refusal. */
static void sect_list(const struct diff_file *f, bool group, char *buf, size_t len)
{
	size_t i, shown = 0, more = 0, used = 0;

	buf[0] = '\0';
	for (i = 0; i < f->n; i++) {
		const struct diff_row *r = &f->rows[i];

		if (i && diff_same_sect(f->rows[i - 1].id, r->id))
			continue;
		if (shown == 3) {
			more++;
			continue;
		}
		if (used < len)
			used += snprintf(buf + used, len - used, "%s%s of %s%s%s", shown ? ", " : "",
					 diff_kind_name[r->kind], group ? r->group : "",
					 group ? "/" : "", r->event);
		shown++;
	}
	if (more && used < len)
		snprintf(buf + used, len - used, " and %zu more", more);
}

/* Bucket [lo, hi) of a log2 layout: [0, 1), [2^k, 2^(k+1)), or a negative one, slog2's. */
static bool log2_shaped(const struct diff_bucket *k)
{
	if (k->lo == 0 && k->hi == 1)
		return true;
	if (k->lo > 0)
		return k->hi == 2 * k->lo;
	/* (-2^(k+1), -2^k] is written [-2^(k+1) + 1, -2^k]: one below each edge is a power */
	return k->hi <= 0 && k->lo - 1 == 2 * (k->hi - 1);
}

/* A row's bucket layout in words, for the refusal: log2 or linear, how wide. */
static void layout_name(const struct diff_row *r, char *buf, size_t len)
{
	bool log2 = true, lin = true;
	double w = -1;
	size_t i, n = 0;

	for (i = 0; i < r->ncoarse; i++) {
		const struct diff_bucket *k = &r->coarse[i];

		if (!isfinite(k->lo) || !isfinite(k->hi))
			continue;
		n++;
		log2 = log2 && log2_shaped(k);
		lin = lin && (w < 0 || k->hi - k->lo == w);
		w = k->hi - k->lo;
	}
	if (!n)
		snprintf(buf, len, "only open-ended rows");
	else if (log2)
		snprintf(buf, len, "log2 rows");
	else if (lin)
		snprintf(buf, len, "linear rows %.0f wide", w);
	else
		snprintf(buf, len, "rows of varying width");
}

/* "[LO, HI]" as the JSON says a bucket (max inclusive), open ends as "...". */
static void bucket_text(const struct diff_bucket *k, char *buf, size_t len)
{
	char lo[40] = "...", hi[40] = "...";

	if (isfinite(k->lo))
		snprintf(lo, sizeof(lo), "%.0f", k->lo);
	if (isfinite(k->hi))
		snprintf(hi, sizeof(hi), "%.0f", k->hi - 1);
	snprintf(buf, len, "[%s, %s]", lo, hi);
}

/*
 * Whether a bucket of a overlaps one of b without being the same (both
 * sorted): then the runs were bucketed differently (log2 against --linear,
 * other --linear steps or units) and no quantile or D of them means anything.
 * The two buckets in *ka and *kb.
 */
static bool layouts_clash(const struct diff_row *a, const struct diff_row *b,
			  const struct diff_bucket **ka, const struct diff_bucket **kb)
{
	size_t i = 0, j = 0;

	while (i < a->ncoarse && j < b->ncoarse) {
		const struct diff_bucket *x = &a->coarse[i], *y = &b->coarse[j];

		if (x->lo == y->lo && x->hi == y->hi) {
			i++;
			j++;
		} else if (x->hi <= y->lo) {
			i++;
		} else if (y->hi <= x->lo) {
			j++;
		} else {
			*ka = x;
			*kb = y;
			return true;
		}
	}
	return false;
}

/* Refused (said on errf, true) when a key of both runs has its buckets laid out otherwise. */
static bool layouts_differ(const struct diff_file *a, const struct diff_file *b, FILE *errf)
{
	const struct diff_bucket *ka, *kb;
	char la[64], lb[64], ta[96], tb[96], key[KEY_SHOW_MAX + 4];
	size_t i = 0, j = 0;
	int c;

	while (i < a->n && j < b->n) {
		const struct diff_row *x = &a->rows[i], *y = &b->rows[j];

		c = strcmp(x->id, y->id);
		i += c <= 0;
		j += c >= 0;
		if (c || x->kind == DIFF_COUNT || !layouts_clash(x, y, &ka, &kb))
			continue;
		layout_name(x, la, sizeof(la));
		layout_name(y, lb, sizeof(lb));
		bucket_text(ka, ta, sizeof(ta));
		bucket_text(kb, tb, sizeof(tb));
		diff_key_text(x, key, sizeof(key));
		fprintf(errf, "kptrace diff: %s %s/%s %s: the buckets differ: %s has %s, %s %s "
			"(%s against %s); nothing to compare (run both with the same --linear, or "
			"neither)\n", diff_kind_name[x->kind], x->group, x->event, key, a->path, la,
			b->path, lb, ta, tb);
		return true;
	}
	return false;
}

static void nothing_common(const struct diff_file *a, const struct diff_file *b, FILE *errf)
{
	char la[512], lb[512];
	bool group = false;

	sect_list(a, false, la, sizeof(la));
	sect_list(b, false, lb, sizeof(lb));
	if (!strcmp(la, lb)) {
		/* the same events of other groups: the groups tell them apart */
		group = true;
		sect_list(a, group, la, sizeof(la));
		sect_list(b, group, lb, sizeof(lb));
	}
	fprintf(errf, "kptrace diff: %s has %s, %s %s: nothing to compare\n", a->path, la, b->path,
		lb);
}

static int run(const char *pa, const char *pb, const struct opts *o, FILE *out, FILE *errf)
{
	struct diff_file a = { 0 }, b = { 0 };
	struct result *r = NULL;
	FILE *svg = NULL;
	char err[1024];
	size_t n = 0, i;
	int ret = 2, werr;

	/* --svg: a path that cannot be written is refused before either file is read */
	if (o->svg && svg_open(o->svg, &svg, err, sizeof(err))) {
		fprintf(errf, "kptrace diff: --svg: cannot write %s: %s\n", o->svg, err);
		return 2;
	}
	if (diff_load(pa, &a, err, sizeof(err)) || diff_load(pb, &b, err, sizeof(err))) {
		fprintf(errf, "kptrace diff: %s\n", err);
		goto cleanup;
	}
	if (a.n && b.n && !diff_any_common(&a, &b)) {
		nothing_common(&a, &b, errf);
		goto cleanup;
	}
	if (layouts_differ(&a, &b, errf))
		goto cleanup;
	if (diff_compare_all(&a, &b, o, &r, &n)) {
		fprintf(errf, "kptrace diff: out of memory\n");
		goto cleanup;
	}
	qsort(r, n, sizeof(*r), diff_res_cmp);
	if (o->json ? diff_print_json(out, r, n) : diff_print_text(out, &a, &b, r, n, o)) {
		fprintf(errf, "kptrace diff: out of memory\n");
		goto cleanup;
	}
	if (svg && (werr = diff_picture(svg, &a, &b, r, n))) {
		fprintf(errf, "kptrace diff: --svg: cannot write %s: %s\n", o->svg, strerror(-werr));
		goto cleanup;
	}
	ret = 0;
	for (i = 0; i < n; i++)
		ret |= r[i].differs;
cleanup:
	/* a picture lost at the close is trouble even when the runs differ */
	if (svg && fclose(svg) && ret < 2) {
		fprintf(errf, "kptrace diff: --svg: cannot write %s: %s\n", o->svg, strerror(errno));
		ret = 2;
	}
	free(r);
	diff_file_free(&a);
	diff_file_free(&b);
	return ret;
}

int diff_main(int argc, char **argv, FILE *out, FILE *errf)
{
	struct opts o;
	char *files[2];
	int err = parse_args(argc, argv, &o, files, out, errf);

	if (err == -2)
		return 0;
	if (err < 0)
		return 2;
	return run(files[0], files[1], &o, out, errf);
}

int kpt_diff(int argc, char **argv)
{
	int ret = diff_main(argc, argv, stdout, stderr);

	/* a full disk or a closed pipe is trouble, not a verdict */
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "kptrace diff: writing the output: %s\n", strerror(errno));
		return 2;
	}
	return ret;
}
