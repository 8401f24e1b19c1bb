// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * kptrace serve: load a job file's jobs, answer /metrics and /healthz, and
 * reload on SIGHUP. A reload keeps every job whose words did not change
 * (its attachments and its counters), starts the new ones and stops the
 * removed ones; a file with an error, or a new job that cannot start,
 * changes nothing. Signals come through a signalfd polled with the sockets:
 * nothing runs in a handler.
 */
#include <argp.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "cmd/cli.h"
#include "run/run.h"
#include "serve/http.h"
#include "serve/jobs.h"
#include "serve/metrics.h"
#include "serve/serve.h"
#include "sys/privilege.h"
#include "util/keylist.h"

struct serve_job {
	char name[65];
	int argc;
	char **argv;		/* "kptrace", then the job's words: env points into them */
	char **words;		/* the same strings in the file's order (argp permutes argv) */
	struct kpt_opts env;
	struct run *run;
};

struct serve {
	const char *path;
	const char *listen;
	bool check;
	int checked;		/* --check: the jobs the file has, all good */
	struct serve_job **jobs;
	int n;
	struct metrics_self self;
	struct http_server *http;
	int stats_fd;		/* BPF_ENABLE_STATS, held while serving */
	int gone_after;		/* --gone-after: seconds a gone container's series stay */
};

static double now_s(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* systemd's readiness protocol: one datagram to $NOTIFY_SOCKET, no libsystemd. */
static void sd_notify(const char *state)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	socklen_t len;
	int fd;

	if (!path || (path[0] != '/' && path[0] != '@') || strlen(path) >= sizeof(sa.sun_path))
		return;
	strcpy(sa.sun_path, path);
	if (path[0] == '@')
		sa.sun_path[0] = '\0';	/* an abstract socket */
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(path));
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	sendto(fd, state, strlen(state), MSG_NOSIGNAL, (struct sockaddr *)&sa, len);
	close(fd);
}

static void job_free(struct serve_job *sj)
{
	int i;

	if (!sj)
		return;
	run_stop(sj->run);
	cli_free(&sj->env);
	for (i = 0; i < sj->argc; i++)
		free(sj->words[i]);
	free(sj->words);
	free(sj->argv);
	free(sj);
}

/*
 * The word of job j an option error is about: the one it quotes ('xs' of
 * "--unit: 'xs' is not ns"), else the longest it names, else the mode's.
 */
static int error_word(const struct job *j, const char *why)
{
	char quoted[300];
	int i, best = 0;
	size_t blen = 0;

	for (i = 1; i < j->argc; i++) {
		snprintf(quoted, sizeof(quoted), "'%s'", j->argv[i]);
		if (strstr(why, quoted))
			return i;
	}
	for (i = 1; i < j->argc; i++) {
		size_t n = strlen(j->argv[i]);

		if (n > blen && strstr(why, j->argv[i])) {
			best = i;
			blen = n;
		}
	}
	return best;
}

/* What a job may not ask for: serve's jobs aggregate, untimed, unprinted. */
static const char *job_refusal(const struct kpt_opts *e)
{
	struct keylist by;

	if (e->mode != MODE_HIST && e->mode != MODE_LATENCY && e->mode != MODE_COUNT)
		return "a job is hist, latency or count";
	if (e->command || e->pid || e->tid)
		return "-c, -p and -t are for one run: a job traces every process (--comm, "
		       "--cgroup and filters narrow it)";
	if (e->duration > 0 || e->interval > 0)
		return "-d and -i are for one run: a job runs until serve stops";
	if (e->out_path || e->json || e->folded || e->dry_run || e->svg_path || e->over_ns)
		return "-o, --json, --folded, --svg, --over and --dry-run are for one run";
	keylist_parse(e->by, &by);
	if (e->kstack || e->ustack || keylist_index(&by, "kstack") >= 0 ||
	    keylist_index(&by, "ustack") >= 0 || keylist_index(&by, "to_kstack") >= 0 ||
	    keylist_index(&by, "to_ustack") >= 0)
		return "stacks are not labels: -K, -U and --by kstack/ustack are for one run";
	if (e->pmu)
		return "--pmu is for one run";
	return NULL;
}

/* Job j's words parsed into a new serve job, or NULL with msg. */
static struct serve_job *job_parse(const struct jobfile *jf, const struct job *j, char *msg,
				   size_t msglen)
{
	struct serve_job *sj = calloc(1, sizeof(*sj));
	char why[512];
	const char *no;
	int i, err;

	if (!sj || !(sj->argv = calloc((size_t)j->argc + 2, sizeof(char *))) ||
	    !(sj->words = calloc((size_t)j->argc + 2, sizeof(char *)))) {
		if (sj)
			free(sj->argv);
		free(sj);
		snprintf(msg, msglen, "out of memory");
		return NULL;
	}
	snprintf(sj->name, sizeof(sj->name), "%s", j->name);
	sj->words[sj->argc++] = strdup("kptrace");
	for (i = 0; i < j->argc; i++)
		sj->words[sj->argc++] = strdup(j->argv[i]);
	for (i = 0; i < sj->argc; i++) {
		sj->argv[i] = sj->words[i];
		if (!sj->words[i]) {
			job_free(sj);
			snprintf(msg, msglen, "out of memory");
			return NULL;
		}
	}
	err = cli_parse_job(sj->argc, sj->argv, &sj->env, why, sizeof(why));
	if (err) {
		jobfile_error_at(jf, j, error_word(j, why), why, msg, msglen);
		job_free(sj);
		return NULL;
	}
	no = job_refusal(&sj->env);
	if (no) {
		jobfile_error_at(jf, j, 0, no, msg, msglen);
		job_free(sj);
		return NULL;
	}
	return sj;
}

/* The running job whose words are j's, or -1. */
static int running_match(const struct serve *s, const struct job *j)
{
	int k;

	for (k = 0; k < s->n; k++) {
		/* its words as the file gave them: words[0] is argp's "kptrace" */
		struct job run = { .argc = s->jobs[k]->argc - 1, .argv = s->jobs[k]->words + 1 };

		snprintf(run.name, sizeof(run.name), "%s", s->jobs[k]->name);
		if (job_same(&run, j))
			return k;
	}
	return -1;
}

/* Each job of jf parsed, nothing started: 0 with nj[0, jf->n), or an error said. */
static int jobs_parse(const struct jobfile *jf, struct serve_job **nj)
{
	char msg[2048];
	int i;

	for (i = 0; i < jf->n; i++) {
		nj[i] = job_parse(jf, &jf->jobs[i], msg, sizeof(msg));
		if (!nj[i]) {
			fprintf(stderr, "%s\n", msg);
			return -EINVAL;
		}
	}
	return 0;
}

/* The new jobs that no running job is, started: 0, or an error said. */
static int jobs_start(const struct serve *s, const struct jobfile *jf, struct serve_job **nj,
		      const int *match)
{
	int i, err;

	for (i = 0; i < jf->n; i++) {
		if (match[i] >= 0)
			continue;
		fprintf(stderr, "kptrace serve: starting job %s (%s:%d)\n", nj[i]->name, s->path,
			jf->jobs[i].line);
		err = run_start(&nj[i]->env, &nj[i]->run);
		if (err) {
			fprintf(stderr, "%s:%d: error: job %s could not start (above)\n", s->path,
				jf->jobs[i].line, nj[i]->name);
			return err;
		}
	}
	return 0;
}

/*
 * The job file at s->path made the running set: the jobs whose words did
 * not change go on as they are, new ones start, removed ones stop. Any
 * error (in the file, or a job that cannot start) changes nothing.
 */
static int jobs_load(struct serve *s)
{
	struct jobfile jf = { 0 };
	struct serve_job **nj = NULL;
	int *match = NULL, i, err;
	char msg[2048];

	err = jobfile_read(s->path, &jf, msg, sizeof(msg));
	if (err) {
		fprintf(stderr, "%s\n", msg);
		return err;
	}
	nj = calloc((size_t)jf.n + 1, sizeof(*nj));
	match = calloc((size_t)jf.n + 1, sizeof(*match));
	err = nj && match ? jobs_parse(&jf, nj) : -ENOMEM;
	for (i = 0; !err && i < jf.n; i++)
		match[i] = running_match(s, &jf.jobs[i]);
	if (!err && !s->check)
		err = jobs_start(s, &jf, nj, match);
	if (!err && s->check)
		s->checked = jf.n;
	if (err || s->check) {
		for (i = 0; nj && i < jf.n; i++)
			job_free(nj[i]);
		free(nj);
	} else {
		/* commit: the running ones move over, the rest of the old set stops */
		for (i = 0; i < jf.n; i++) {
			if (match[i] < 0)
				continue;
			job_free(nj[i]);
			nj[i] = s->jobs[match[i]];
			s->jobs[match[i]] = NULL;
		}
		for (i = 0; i < s->n; i++)
			if (s->jobs[i])
				fprintf(stderr, "kptrace serve: stopping job %s\n", s->jobs[i]->name);
		for (i = 0; i < s->n; i++)
			job_free(s->jobs[i]);
		free(s->jobs);
		s->jobs = nj;
		s->n = jf.n;
	}
	free(match);
	jobfile_free(&jf);
	return err;
}

/* /metrics: every job's tables and health, in the format the scraper asked for. */
static void answer_metrics(struct serve *s, const struct http_request *req,
			   struct http_response *resp)
{
	struct metrics_job *mj = calloc((size_t)s->n + 1, sizeof(*mj));
	struct http_stats hs;
	struct prom_out o = { 0 };
	double t0 = now_s(CLOCK_MONOTONIC);
	int i;

	o.openmetrics = strstr(req->accept, "application/openmetrics-text") != NULL;
	o.f = mj ? open_memstream(&resp->body, &resp->len) : NULL;
	if (!o.f) {
		free(mj);
		resp->status = 500;
		return;
	}
	for (i = 0; i < s->n; i++) {
		mj[i].name = s->jobs[i]->name;
		mj[i].env = &s->jobs[i]->env;
		mj[i].run = s->jobs[i]->run;
	}
	http_get_stats(s->http, &hs);
	s->self.http_requests = hs.requests;
	s->self.http_errors = hs.errors;
	s->self.http_rejected = hs.rejected;
	s->self.http_timeouts = hs.timeouts;
	metrics_write(&o, mj, s->n, &s->self);
	fclose(o.f);
	free(mj);
	s->self.last_scrape_s = now_s(CLOCK_MONOTONIC) - t0;
	resp->status = 200;
	resp->content_type = o.openmetrics ?
		"application/openmetrics-text; version=1.0.0; charset=utf-8" :
		"text/plain; version=0.0.4; charset=utf-8";
}

static void answer_text(struct http_response *resp, int status, const char *text)
{
	resp->status = status;
	resp->content_type = "text/plain; charset=utf-8";
	resp->body = strdup(text);
	resp->len = resp->body ? strlen(resp->body) : 0;
}

static void answer(void *arg, const struct http_request *req, struct http_response *resp)
{
	struct serve *s = arg;

	if (!strcmp(req->path, "/metrics"))
		answer_metrics(s, req, resp);
	else if (!strcmp(req->path, "/healthz"))
		answer_text(resp, 200, "ok\n");	/* serving: every job is attached */
	else if (!strcmp(req->path, "/"))
		answer_text(resp, 200, "kptrace serve: /metrics, /healthz\n");
	else
		answer_text(resp, 404, "not found: /metrics, /healthz\n");
}

/* SIGHUP: the file again; an error leaves the running jobs as they are. */
static void reload(struct serve *s)
{
	int err;

	sd_notify("RELOADING=1");
	fprintf(stderr, "kptrace serve: SIGHUP: reloading %s\n", s->path);
	err = jobs_load(s);
	s->self.last_reload_ok = !err;
	if (err) {
		s->self.reload_failures++;
		fprintf(stderr, "kptrace serve: reload refused: the %d running job%s go on\n", s->n,
			s->n == 1 ? "" : "s");
	} else {
		s->self.reloads++;
		fprintf(stderr, "kptrace serve: %d job%s running\n", s->n, s->n == 1 ? "" : "s");
	}
	sd_notify("READY=1");
}

/* The loop: scrapes and signals until SIGINT or SIGTERM. */
static int serve_loop(struct serve *s, int sfd)
{
	struct signalfd_siginfo si;
	int r;

	for (;;) {
		for (int i = 0; i < s->n; i++)
			run_drop_gone(s->jobs[i]->run, (uint64_t)s->gone_after * 1000000000ull);
		r = http_step(s->http, 1000, sfd);
		if (r < 0) {
			fprintf(stderr, "kptrace serve: error: %s\n", strerror(-r));
			return r;
		}
		if (r == 0)
			continue;
		if (read(sfd, &si, sizeof(si)) != sizeof(si))
			continue;
		if (si.ssi_signo == SIGHUP) {
			reload(s);
			continue;
		}
		fprintf(stderr, "kptrace serve: stopping\n");
		return 0;
	}
}

static const struct argp_option serve_options[] = {
	{ "jobs", 'f', "FILE", 0, "the job file: NAME: hist|latency|count ... per line", 0 },
	{ "listen", 'l', "ADDR:PORT", 0, "where /metrics is served (default 127.0.0.1:9435)", 0 },
	{ "check", 'C', NULL, 0, "check the job file and exit (nothing is attached)", 0 },
	{ "gone-after", 'g', "SECONDS", 0,
	  "--by container/cgroup: a gone container's series end this long after (default 60)", 0 },
	{ 0 }
};

static error_t serve_opt(int key, char *arg, struct argp_state *st)
{
	struct serve *s = st->input;

	switch (key) {
	case 'f':
		s->path = arg;
		break;
	case 'l':
		s->listen = arg;
		break;
	case 'C':
		s->check = true;
		break;
	case 'g': {
		char *end;
		long v;

		errno = 0;
		v = strtol(arg, &end, 10);
		if (errno || end == arg || *end || v < 0 || v > 86400)
			argp_error(st, "--gone-after: '%s' is not a number of seconds, 0 to 86400",
				   arg);
		s->gone_after = (int)v;
		break;
	}
	case ARGP_KEY_ARG:
		argp_error(st, "serve takes its jobs from -f FILE, not '%s'", arg);
		break;
	case ARGP_KEY_END:
		if (!s->path)
			argp_error(st, "serve needs a job file: -f FILE");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static int serve_start(struct serve *s, int *sfd)
{
	struct http_limits lim = { 0 };
	char msg[512];
	sigset_t set;
	int err;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	/* blocked before anything attaches: a signal now waits for the loop */
	sigprocmask(SIG_BLOCK, &set, NULL);
	*sfd = signalfd(-1, &set, SFD_CLOEXEC);
	if (*sfd < 0)
		return -errno;
	err = http_listen(&s->http, s->listen, &lim, answer, s, msg, sizeof(msg));
	if (err) {
		fprintf(stderr, "kptrace serve: error: --listen %s: %s\n", s->listen, msg);
		return err;
	}
	if ((err = privilege_check()))
		return err;
	/* the kernel counts programs' run time while an fd of this is open:
	 * held for serve's life, never a global sysctl flipped */
	s->stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (s->stats_fd < 0)
		fprintf(stderr, "kptrace serve: note: no BPF run-time statistics (%s): "
			"kptrace_bpf_run_seconds_total stays 0\n", strerror(errno));
	err = jobs_load(s);
	if (err)
		return err;
	s->self.last_reload_ok = true;
	fprintf(stderr, "kptrace serve: %d job%s running, serving http://%s/metrics\n", s->n,
		s->n == 1 ? "" : "s", s->listen);
	sd_notify("READY=1");
	return 0;
}

int kpt_serve(int argc, char **argv)
{
	static const struct argp argp = { serve_options, serve_opt, NULL,
		"Serve the job file's aggregations for Prometheus.\v"
		"Example:\n  kptrace serve -f /etc/kptrace/jobs.kpt --listen 127.0.0.1:9435\n"
		"SIGHUP reloads the file: unchanged jobs keep running.", NULL, NULL, NULL };
	struct serve s = { .listen = "127.0.0.1:9435", .stats_fd = -1, .gone_after = 60 };
	int sfd = -1, err, i;

	char *name = argv[0];

	/* argp's usage names the program by argv[0] */
	argv[0] = "kptrace serve";
	argp_parse(&argp, argc, argv, 0, NULL, &s);
	argv[0] = name;
	s.self.start_time = now_s(CLOCK_REALTIME);
	if (s.check) {
		err = jobs_load(&s);
		if (!err)
			printf("%s: %d job%s, all good\n", s.path, s.checked,
			       s.checked == 1 ? "" : "s");
		return err ? 1 : 0;
	}
	err = serve_start(&s, &sfd);
	if (!err)
		err = serve_loop(&s, sfd);
	sd_notify("STOPPING=1");
	for (i = 0; i < s.n; i++)
		job_free(s.jobs[i]);
	free(s.jobs);
	http_close(s.http);
	if (s.stats_fd >= 0)
		close(s.stats_fd);
	if (sfd >= 0)
		close(sfd);
	return err ? 1 : 0;
}
