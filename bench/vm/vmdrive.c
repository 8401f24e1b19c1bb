// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The VM benchmark's driver, run inside the guest (static: the busybox
 * initramfs has no libc, and busybox's date has no sub-second clock):
 *
 *   vmdrive loop N
 *       calls lseek(/dev/null, i, SEEK_SET) N times in a tight loop, timed
 *       with clock_gettime(CLOCK_MONOTONIC) around it; prints
 *       "calls=N ns_per_call=X". lseek(2) is the only caller of ksys_lseek,
 *       the kernel function the benchmark probes, and on /dev/null it does
 *       next to nothing, so the probe's cost is most of what changes.
 *       With VMDRIVE_READ=1 (here and under run): read(/dev/zero, 8
 *       bytes) instead, the why scenario's loop.
 *   vmdrive run N ERRFILE CMD [ARG...]
 *       starts CMD (a tracer) with its stderr on a pipe copied to ERRFILE,
 *       waits for a line starting with "Attached", runs the loop N times
 *       (none if N is 0), sends SIGINT and waits for the exit; prints
 *       "startup_ms=S ns_per_call=X stop_ms=T rc=R" (launch to "Attached",
 *       SIGINT to exit). Waits at most VMDRIVE_START_S (default 120) seconds
 *       for "Attached" and VMDRIVE_STOP_S (60) for the exit, then SIGTERM:
 *       never SIGKILL, as the host harness never SIGKILLs kptrace either.
 *       With VMDRIVE_STATS=1, N/4 more calls follow with the kernel's BPF
 *       run-time statistics on (BPF_ENABLE_STATS, for that window only, as
 *       they slow every program down), and "bpf_ns_per_call=X
 *       bpf_runs_per_call=R" gives the tracer's programs' own time: what
 *       the program costs, apart from the kprobe, trampoline or fprobe.
 *       "calls=" is every call made while the tracer was attached.
 *       With VMDRIVE_READY_FIFO=PATH, "attached" is instead the moment the
 *       tracer opens the FIFO PATH for reading (bpftrace's
 *       "BEGIN { cat(PATH) }": BEGIN runs once every probe is attached, as
 *       on the host, bench/bench.py); vmdrive then closes its end, which
 *       gives that cat() its EOF. With VMDRIVE_DRAIN_FILE=PATH, SIGINT
 *       waits (at most 60 s) until PATH has not grown for half a second:
 *       bpftrace drops what is still in its perf buffers when it exits,
 *       where kptrace drains its ring buffer first.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/bpf.h>

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/*
 * With VMDRIVE_READ=1, read(/dev/zero, 8 bytes) instead: the why scenario's
 * root is vfs_read(), whose call tree beneath (permission checks, fsnotify,
 * the device's read) is several functions deep where lseek's is one.
 */
static double read_loop(uint64_t n)
{
	int fd = open("/dev/zero", O_RDONLY);
	char buf[8];
	uint64_t i;
	double t0;

	if (fd < 0) {
		perror("vmdrive: /dev/zero");
		exit(1);
	}
	t0 = now_ms();
	for (i = 0; i < n; i++)
		if (read(fd, buf, sizeof(buf)) != sizeof(buf))
			exit(1);
	t0 = now_ms() - t0;
	close(fd);
	return n ? t0 * 1e6 / (double)n : 0;
}

static double loop(uint64_t n)
{
	const char *r = getenv("VMDRIVE_READ");
	int fd;
	uint64_t i;
	double t0;

	if (r && !strcmp(r, "1"))
		return read_loop(n);
	fd = open("/dev/null", O_RDONLY);
	if (fd < 0) {
		perror("vmdrive: /dev/null");
		exit(1);
	}
	t0 = now_ms();
	for (i = 0; i < n; i++)
		lseek(fd, (off_t)(i & 0xffff), SEEK_SET);
	t0 = now_ms() - t0;
	close(fd);
	return n ? t0 * 1e6 / (double)n : 0;
}

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

/*
 * Total run time and run count of the BPF programs process pid holds, by the
 * prog_id its program and link fds show in fdinfo (one id counted once).
 * BusyBox has no bpftool: the counters come from BPF_OBJ_GET_INFO_BY_FD.
 */
static void prog_stats(pid_t pid, unsigned long long *ns, unsigned long long *cnt)
{
	unsigned int ids[256], nids = 0, id, i;
	char path[320], line[128];
	struct dirent *de;
	DIR *d;

	*ns = *cnt = 0;
	snprintf(path, sizeof(path), "/proc/%d/fdinfo", (int)pid);
	d = opendir(path);
	while (d && (de = readdir(d))) {
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/fdinfo/%s", (int)pid, de->d_name);
		f = fopen(path, "r");
		while (f && fgets(line, sizeof(line), f)) {
			if (sscanf(line, "prog_id: %u", &id) != 1)
				continue;
			for (i = 0; i < nids && ids[i] != id; i++)
				;
			if (i == nids && nids < 256)
				ids[nids++] = id;
		}
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
	for (i = 0; i < nids; i++) {
		struct bpf_prog_info info;
		union bpf_attr a;
		int fd;

		memset(&a, 0, sizeof(a));
		a.prog_id = ids[i];
		fd = sys_bpf(BPF_PROG_GET_FD_BY_ID, &a);
		if (fd < 0)
			continue;
		memset(&info, 0, sizeof(info));
		memset(&a, 0, sizeof(a));
		a.info.bpf_fd = fd;
		a.info.info_len = sizeof(info);
		a.info.info = (unsigned long)&info;
		if (!sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &a)) {
			*ns += info.run_time_ns;
			*cnt += info.run_cnt;
		}
		close(fd);
	}
}

/*
 * Copies what the child writes on its stderr into out, until deadline (ms) or
 * EOF; with want set, returns as soon as a line starting with it was seen.
 * Returns 1 when want was seen (or, without want, at EOF), 0 otherwise.
 */
static int pump(int fd, FILE *out, const char *want, double deadline, char *line, size_t *len)
{
	char buf[4096];

	for (;;) {
		double left = deadline - now_ms();
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n, i;

		if (left <= 0)
			return 0;
		if (poll(&p, 1, left > 1000 ? 1000 : (int)left + 1) <= 0)
			continue;
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return !want;
		fwrite(buf, 1, n, out);
		fflush(out);
		for (i = 0; i < n; i++) {
			if (buf[i] == '\n') {
				line[*len] = 0;
				*len = 0;
				if (want && !strncmp(line, want, strlen(want)))
					return 1;
			} else if (*len < 511) {
				line[(*len)++] = buf[i];
			}
		}
	}
}

/*
 * Waits until the FIFO at path has a reader (a non-blocking open for writing
 * fails with ENXIO until then), until deadline (ms) or the child's exit,
 * copying the child's stderr to out meanwhile. 1: it has one.
 */
static int fifo_reader(const char *path, pid_t pid, int efd, FILE *out, double deadline)
{
	char buf[4096];
	siginfo_t si;
	ssize_t n;
	int fd;

	while (now_ms() < deadline) {
		fd = open(path, O_WRONLY | O_NONBLOCK);
		if (fd >= 0) {
			close(fd);
			return 1;
		}
		/* the tracer is gone: give up (left to be reaped by run()) */
		si.si_pid = 0;
		if (!waitid(P_PID, pid, &si, WEXITED | WNOHANG | WNOWAIT) && si.si_pid == pid)
			return 0;
		while ((n = read(efd, buf, sizeof(buf))) > 0)
			fwrite(buf, 1, n, out);
		usleep(500);
	}
	return 0;
}

/* Returns once path has kept its size for quiet_ms, or at deadline (ms). */
static void settle(const char *path, double quiet_ms, double deadline)
{
	double since = now_ms();
	off_t last = -1;
	struct stat st;

	while (now_ms() < deadline && now_ms() - since < quiet_ms) {
		off_t size = stat(path, &st) ? -1 : st.st_size;

		if (size != last) {
			last = size;
			since = now_ms();
		}
		usleep(50000);
	}
}

static int run(uint64_t n, const char *errpath, char **argv)
{
	const char *s = getenv("VMDRIVE_START_S"), *s2 = getenv("VMDRIVE_STOP_S");
	const char *fifo = getenv("VMDRIVE_READY_FIFO");
	double start_s = s ? atof(s) : 120, stop_s = s2 ? atof(s2) : 60;
	double t0, t_att, t_int, ns = 0;
	uint64_t calls = n;
	char stats[96] = "";
	char line[512];
	size_t len = 0;
	int pfd[2], status = 0, rc = -1, attached;
	FILE *err = fopen(errpath, "w");
	pid_t pid;

	if (!err || pipe(pfd)) {
		perror("vmdrive");
		return 1;
	}
	t0 = now_ms();
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		dup2(null, 0);
		dup2(null, 1);
		dup2(pfd[1], 2);
		close(pfd[0]);
		execvp(argv[0], argv);
		fprintf(stderr, "vmdrive: exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(pfd[1]);
	if (fifo && *fifo) {
		fcntl(pfd[0], F_SETFL, fcntl(pfd[0], F_GETFL) | O_NONBLOCK);
		attached = fifo_reader(fifo, pid, pfd[0], err, t0 + start_s * 1e3);
		fcntl(pfd[0], F_SETFL, fcntl(pfd[0], F_GETFL) & ~O_NONBLOCK);
	} else {
		attached = pump(pfd[0], err, "Attached", t0 + start_s * 1e3, line, &len);
	}
	t_att = now_ms();
	if (attached)
		ns = loop(n);
	s = getenv("VMDRIVE_STATS");
	if (attached && s && !strcmp(s, "1") && n >= 4) {
		union bpf_attr a;
		unsigned long long ns0, c0, ns1, c1;
		int sfd;

		memset(&a, 0, sizeof(a));
		a.enable_stats.type = BPF_STATS_RUN_TIME;
		sfd = sys_bpf(BPF_ENABLE_STATS, &a);
		if (sfd >= 0) {
			prog_stats(pid, &ns0, &c0);
			loop(n / 4);
			prog_stats(pid, &ns1, &c1);
			close(sfd);
			calls += n / 4;
			snprintf(stats, sizeof(stats), " bpf_ns_per_call=%.1f bpf_runs_per_call=%.2f",
				 (double)(ns1 - ns0) / (double)(n / 4), (double)(c1 - c0) / (double)(n / 4));
		}
	}
	s = getenv("VMDRIVE_DRAIN_FILE");
	if (attached && s && *s)
		settle(s, 500, now_ms() + 60e3);
	t_int = now_ms();
	kill(pid, SIGINT);
	if (!pump(pfd[0], err, NULL, t_int + stop_s * 1e3, line, &len)) {
		kill(pid, SIGTERM);
		pump(pfd[0], err, NULL, now_ms() + 30e3, line, &len);
	}
	/* stderr closed: the tracer is exiting or gone; reap it, bounded */
	for (int i = 0; i < 300; i++) {
		if (waitpid(pid, &status, WNOHANG) == pid) {
			rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
			break;
		}
		usleep(100000);
	}
	fclose(err);
	if (!attached) {
		printf("error=not_attached_within_%.0fs rc=%d\n", start_s, rc);
		return 1;
	}
	printf("startup_ms=%.1f ns_per_call=%.1f stop_ms=%.1f rc=%d calls=%llu%s\n", t_att - t0, ns,
	       now_ms() - t_int, rc, (unsigned long long)calls, stats);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "loop")) {
		uint64_t n = strtoull(argv[2], NULL, 0);

		printf("calls=%llu ns_per_call=%.1f\n", (unsigned long long)n, loop(n));
		return 0;
	}
	if (argc >= 5 && !strcmp(argv[1], "run"))
		return run(strtoull(argv[2], NULL, 0), argv[3], argv + 4);
	fprintf(stderr, "usage: vmdrive loop N | vmdrive run N ERRFILE CMD [ARG...]\n");
	return 2;
}
