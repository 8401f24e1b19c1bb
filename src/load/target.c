// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Who is traced: -p, -t, -c's command and what it creates (target.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>

#include "load/target.h"
#include "sys/procmaps.h"
#include "sys/tracepoint.h"

/* pidfd_open()'s flag for a thread's own pidfd (Linux 6.9+): O_EXCL's value. */
#ifndef PIDFD_THREAD
#define PIDFD_THREAD	O_EXCL
#endif

static void proc_comm(pid_t id, char *buf, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	buf[0] = 0;
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)id);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, len - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	buf[strcspn(buf, "\n")] = 0;
}

int target_open(struct target *t, pid_t pid, bool thread, char *msg, size_t msglen)
{
	pid_t tgid = (pid_t)procstatus_field(pid, "Tgid");

	memset(t, 0, sizeof(*t));
	t->pidfd = -1;
	if (tgid < 0 || (thread && kill(pid, 0) && errno == ESRCH)) {
		snprintf(msg, msglen, "%s %d: no such %s", thread ? "-t" : "-p", (int)pid,
			 thread ? "thread" : "process");
		return -ESRCH;
	}
	if (!thread && tgid != pid) {
		snprintf(msg, msglen, "-p %d: a thread of process %d, not a process (-p %d "
			 "traces the process, -t %d this thread alone)", (int)pid, (int)tgid,
			 (int)tgid, (int)pid);
		return -ESRCH;
	}
	t->pid = pid;
	t->thread = thread;
	proc_comm(pid, t->comm, sizeof(t->comm));
	/* a pidfd is the process itself, whatever becomes of its number; a
	 * thread's needs Linux 6.9: before, kill(2) polls it */
	t->pidfd = (int)syscall(SYS_pidfd_open, pid, thread ? PIDFD_THREAD : 0);
	if (t->pidfd < 0 && errno == ESRCH) {
		snprintf(msg, msglen, "%s %d: no such %s (it has just exited)",
			 thread ? "-t" : "-p", (int)pid, thread ? "thread" : "process");
		return -ESRCH;
	}
	return 0;
}

bool target_exited(struct target *t)
{
	struct pollfd pfd = { .fd = t->pidfd, .events = POLLIN };

	if (!t->pid)
		return false;
	if (t->pidfd >= 0)
		return poll(&pfd, 1, 0) > 0;
	return kill(t->pid, 0) && errno == ESRCH;
}

void target_close(struct target *t)
{
	if (t->pidfd >= 0)
		close(t->pidfd);
	t->pidfd = -1;
	t->pid = 0;
}

bool target_self_may_hit(const struct ev_desc *evs, int n)
{
	struct stat self, st;
	int i;

	if (stat("/proc/self/exe", &self))
		return true;
	for (i = 0; i < n; i++)
		if (!evs[i].is_user || stat(evs[i].path, &st) ||
		    (st.st_dev == self.st_dev && st.st_ino == self.st_ino))
			return true;
	return false;
}

/* The offset of field name of SYS/EVENT, 0 with msg if tracefs has none. */
static int field_off(const char *sys, const char *event, const char *name, uint32_t *off,
		     char *msg, size_t msglen)
{
	struct tp_format fmt = { 0 };
	const struct tp_field *f;
	char why[256];
	int err;

	err = tp_format_load(sys, event, NULL, &fmt, why, sizeof(why));
	f = err ? NULL : tp_field_find(&fmt, name);
	if (f)
		*off = f->offset;
	else
		snprintf(msg, msglen, "the processes a command creates are followed through "
			 "%s/%s, whose field '%s' %s: %s", sys, event, name,
			 err ? "cannot be read" : "is not found", err ? why : "no such field");
	tp_format_free(&fmt);
	return f ? 0 : err ? err : -ENOENT;
}

int target_set_layout(struct load_opts *lo, char *msg, size_t msglen)
{
	int err = field_off("sched", "sched_process_free", "pid", &lo->free_pid_off, msg, msglen);

	if (!err && lo->follow_forks)
		err = field_off("task", "task_newtask", "pid", &lo->nt_pid_off, msg, msglen);
	if (!err && lo->follow_forks)
		err = field_off("task", "task_newtask", "clone_flags", &lo->nt_flags_off, msg,
				msglen);
	return err;
}

int target_set_running(int procs_fd, pid_t root)
{
	__u32 key, next, *prev = NULL;
	int n = 0;

	while (!bpf_map_get_next_key(procs_fd, prev, &next)) {
		/* a zombie still counts: its parent has not waited for it yet */
		if ((pid_t)next != root && (!kill((pid_t)next, 0) || errno == EPERM))
			n++;
		key = next;
		prev = &key;
	}
	return n;
}
