// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Kretprobes with an explicit maxactive ("r16:"). The perf kprobe PMU, which
 * gives fd-based kprobes, has no maxactive, so these are created through
 * tracefs's kprobe_events (as "r16:kptrace_PID/EVENT func") and the BPF
 * program attached to that event's perf fd. Such an event outlives a
 * SIGKILLed kptrace, disabled and with no program; the next run removes
 * every kptrace_PID group whose process is gone.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>

#include "load/tracefs_kretprobe.h"
#include "sys/tracepoint.h"

static const char *const tracefs_dirs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };

static const char *tracefs(void)
{
	char p[128];
	size_t i;

	for (i = 0; i < sizeof(tracefs_dirs) / sizeof(tracefs_dirs[0]); i++) {
		snprintf(p, sizeof(p), "%s/kprobe_events", tracefs_dirs[i]);
		if (!access(p, W_OK))
			return tracefs_dirs[i];
	}
	return NULL;
}

static int append_line(const char *dir, const char *file, const char *line)
{
	char p[160];
	int fd, err = 0;
	size_t n = strlen(line);

	snprintf(p, sizeof(p), "%s/%s", dir, file);
	fd = open(p, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, line, n) != (ssize_t)n)
		err = -errno;
	close(fd);
	return err;
}

void tfs_cleanup_stale(void)
{
	const char *dir = tracefs();
	char p[160], line[512], grp[64], cmd[200];
	FILE *f;
	int pid;

	if (!dir)
		return;
	snprintf(p, sizeof(p), "%s/kprobe_events", dir);
	f = fopen(p, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *ev = strchr(line, ':');

		if (!ev || sscanf(ev + 1, "kptrace_%d/%63[^ ]", &pid, grp) != 2)
			continue;
		if (kill(pid, 0) == 0 || errno != ESRCH)
			continue; /* its kptrace still runs */
		snprintf(cmd, sizeof(cmd), "-:kptrace_%d/%s\n", pid, grp);
		append_line(dir, "kprobe_events", cmd);
	}
	fclose(f);
}

int tfs_kretprobe_create(const char *func, int maxactive, int idx, struct tfs_probe *tp,
			 char *msg, size_t msglen)
{
	const char *dir = tracefs();
	struct perf_event_attr attr;
	char line[256];
	int err, id;

	memset(tp, 0, sizeof(*tp));
	tp->pfd = -1;
	if (!dir) {
		snprintf(msg, msglen, "r%d: maxactive needs a writable tracefs kprobe_events "
			 "(mount -t tracefs nodev /sys/kernel/tracing)", maxactive);
		return -ENOENT;
	}
	snprintf(tp->dir, sizeof(tp->dir), "%s", dir);
	snprintf(tp->group, sizeof(tp->group), "kptrace_%d", (int)getpid());
	/* unique across kptrace runs: kprobe_profile names events without group */
	snprintf(tp->event, sizeof(tp->event), "kpt%d_r%d", (int)getpid(), idx);
	snprintf(line, sizeof(line), "r%d:%s/%s %s\n", maxactive, tp->group, tp->event, func);
	err = append_line(dir, "kprobe_events", line);
	if (err) {
		snprintf(msg, msglen, "r%d: the kernel refuses the kretprobe on %s: %s",
			 maxactive, func, strerror(-err));
		return err;
	}
	tp->created = true;

	id = tp_event_id(tp->group, tp->event);
	if (id < 0) {
		snprintf(msg, msglen, "cannot read %s/events/%s/%s/id: %s", dir, tp->group,
			 tp->event, strerror(-id));
		tfs_kretprobe_remove(tp);
		return -ENOENT;
	}

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.config = id;
	attr.sample_period = 1;
	/* pid -1 needs a cpu; the program runs on every CPU all the same */
	tp->pfd = syscall(__NR_perf_event_open, &attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	if (tp->pfd < 0) {
		err = -errno;
		snprintf(msg, msglen, "perf_event_open for %s/%s: %s", tp->group, tp->event,
			 strerror(errno));
		tfs_kretprobe_remove(tp);
		return err;
	}
	return tp->pfd;
}

long long tfs_nmissed(const struct tfs_probe *tp)
{
	char p[160], line[512], name[128];
	unsigned long long hit, miss;
	long long ret = -1;
	FILE *f;

	if (!tp->created)
		return -1;
	snprintf(p, sizeof(p), "%s/kprobe_profile", tp->dir);
	f = fopen(p, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		/* "  EVENT  HITS  MISSES": the event name without its group */
		if (sscanf(line, " %127s %llu %llu", name, &hit, &miss) == 3 &&
		    !strcmp(name, tp->event)) {
			ret = (long long)miss;
			break;
		}
	}
	fclose(f);
	return ret;
}

void tfs_kretprobe_remove(struct tfs_probe *tp)
{
	char line[160];

	if (tp->pfd >= 0)
		close(tp->pfd);
	tp->pfd = -1;
	if (!tp->created)
		return;
	snprintf(line, sizeof(line), "-:%s/%s\n", tp->group, tp->event);
	append_line(tp->dir, "kprobe_events", line);
	tp->created = false;
}
