// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Links closed for a while here, the rest by a child process (reaper.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <bpf/libbpf.h>

#include "load/reaper.h"
#include "util/clock.h"

void reaper_begin(struct reaper *r, double fg_s)
{
	memset(r, 0, sizeof(*r));
	r->start = kpt_mono_s();
	r->until = r->start + fg_s;
}

void reaper_put_now(struct reaper *r, struct bpf_link *l)
{
	if (!l)
		return;
	bpf_link__destroy(l);
	r->closed++;
	r->closed_s = kpt_mono_s() - r->start;
}

void reaper_put(struct reaper *r, struct bpf_link *l)
{
	struct bpf_link **grown;

	if (!l)
		return;
	if (kpt_mono_s() < r->until) {
		reaper_put_now(r, l);
		return;
	}
	if (r->nkept == r->cap) {
		grown = realloc(r->kept, (r->cap ? 2 * r->cap : 64) * sizeof(*grown));
		if (!grown) {
			reaper_put_now(r, l);
			return;
		}
		r->kept = grown;
		r->cap = r->cap ? 2 * r->cap : 64;
	}
	r->kept[r->nkept++] = l;
}

static int cmp_int(const void *a, const void *b)
{
	return (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b);
}

/*
 * The child's: every fd but the n sorted ones closed; then, once this
 * process has closed its copies (go's EOF: whoever closes a link last
 * waits out its grace period, so the child must be last), those, in the
 * order given.
 */
static _Noreturn void reap(const int *sorted, const int *fds, int n, int go)
{
	unsigned int from = 0;
	char c;
	int i;

	for (i = 0; i < n; i++) {
		if ((unsigned int)sorted[i] > from)
			close_range(from, (unsigned int)sorted[i] - 1, 0);
		from = (unsigned int)sorted[i] + 1;
	}
	close_range(from, ~0U, 0);
	/* killed, its fds still close (the kernel's exit): nothing to guard */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	prctl(PR_SET_NAME, "kptrace-detach");
	while (read(go, &c, 1) < 0 && errno == EINTR)
		;
	close(go);
	for (i = 0; i < n; i++)
		if (fds[i] != go)
			close(fds[i]);
	_exit(0);
}

/*
 * A grandchild that closes the fds once *go_fd (returned) is closed; 0, or
 * -errno with nothing handed over. fds has room for one more.
 */
static int spawn(int *fds, int n, pid_t *pid, int *go_fd)
{
	int *sorted = malloc((n + 1) * sizeof(*sorted)), pfd[2], go[2], st;
	pid_t child;

	*pid = 0;
	if (!sorted)
		return -ENOMEM;
	/* the grandchild's pid back through a pipe (its parent exits at once) */
	if (pipe2(pfd, O_CLOEXEC)) {
		free(sorted);
		return -errno;
	}
	if (pipe2(go, O_CLOEXEC)) {
		close(pfd[0]);
		close(pfd[1]);
		free(sorted);
		return -errno;
	}
	fds[n] = go[0];
	memcpy(sorted, fds, (n + 1) * sizeof(*sorted));
	qsort(sorted, n + 1, sizeof(*sorted), cmp_int);
	child = fork();
	if (child == 0) {
		pid_t g = fork();

		if (g == 0)
			reap(sorted, fds, n + 1, go[0]);
		if (g > 0 && write(pfd[1], &g, sizeof(g)) != sizeof(g))
			g = -1;
		_exit(g > 0 ? 0 : 1);
	}
	free(sorted);
	close(pfd[1]);
	close(go[0]);
	if (child > 0 && waitpid(child, &st, 0) == child && WIFEXITED(st) && !WEXITSTATUS(st) &&
	    read(pfd[0], pid, sizeof(*pid)) == sizeof(*pid)) {
		close(pfd[0]);
		*go_fd = go[1];
		return 0;
	}
	close(pfd[0]);
	close(go[1]);	/* a grandchild made after all closes its copies at once */
	return child < 0 ? -errno : -ECHILD;
}

int reaper_end(struct reaper *r)
{
	int *fds = r->nkept ? malloc((r->nkept + 1) * sizeof(*fds)) : NULL;
	int i, n = 0, go = -1;

	for (i = 0; fds && i < r->nkept; i++)
		if ((fds[n] = bpf_link__fd(r->kept[i])) >= 0)
			n++;
	if (!n || spawn(fds, n, &r->pid, &go))
		n = 0;
	/* the child holds the kept links: these closes only drop a reference */
	for (i = 0; i < r->nkept; i++) {
		if (n)
			bpf_link__destroy(r->kept[i]);
		else
			reaper_put_now(r, r->kept[i]);
	}
	if (go >= 0)
		close(go);	/* the child's turn */
	free(fds);
	free(r->kept);
	r->kept = NULL;
	r->nkept = r->cap = 0;
	return n;
}
