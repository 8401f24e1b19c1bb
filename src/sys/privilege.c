// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Refusals said up front: without CAP_BPF + CAP_PERFMON (or CAP_SYS_ADMIN)
 * the kernel answers EPERM to the first bpf() call; under
 * lockdown=confidentiality it hides bpf_probe_read_kernel from the verifier
 * ("unknown func") and refuses kprobes and tracefs; with too few file
 * descriptors the Nth attach fails with EMFILE. Each is checked here before
 * anything is loaded, and said with the fix.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "sys/privilege.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON	38
#endif
#ifndef CAP_BPF
#define CAP_BPF		39
#endif

/* Descriptors besides the two per probe and one per map: stdio, the
 * output, the programs, BTF, epoll, bpf_stats, the -c pipe; and what libbpf
 * opens while loading (measured: 15 of these with one probe). */
#define FD_BASE		24

static const char lockdown_path[] = "/sys/kernel/security/lockdown";

/* "none integrity [confidentiality]": the bracketed word; "" if unknown. */
static void lockdown_mode(char *out, size_t n)
{
	char buf[128], *l, *r;
	FILE *f = fopen(lockdown_path, "re");

	out[0] = '\0';
	if (!f)
		return;
	if (fgets(buf, sizeof(buf), f) && (l = strchr(buf, '[')) && (r = strchr(l, ']')))
		snprintf(out, n, "%.*s", (int)(r - l - 1), l + 1);
	fclose(f);
}

static bool cap_known(int cap)
{
	FILE *f = fopen("/proc/sys/kernel/cap_last_cap", "re");
	int last = -1;

	if (!f)
		return true;
	if (fscanf(f, "%d", &last) != 1)
		last = -1;
	fclose(f);
	return last < 0 || cap <= last;
}

/* The effective set's CAP_SYS_ADMIN, CAP_BPF, CAP_PERFMON; false if unknown. */
static bool caps(bool *admin, bool *bpf, bool *perfmon)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2];

#define HAS(c) (!!(data[(c) / 32].effective & (1u << ((c) % 32))))
	memset(data, 0, sizeof(data));
	if (syscall(SYS_capget, &hdr, data))
		return false;
	*admin = HAS(CAP_SYS_ADMIN);
	/* before 5.8, CAP_BPF and CAP_PERFMON were CAP_SYS_ADMIN */
	*bpf = cap_known(CAP_BPF) ? HAS(CAP_BPF) : *admin;
	*perfmon = cap_known(CAP_PERFMON) ? HAS(CAP_PERFMON) : *admin;
#undef HAS
	return true;
}

int privilege_check(void)
{
	char mode[64], missing[64] = "";
	bool admin, bpf, perfmon;

	if (!caps(&admin, &bpf, &perfmon))
		return 0; /* can't tell: let the kernel decide */
	if (!admin && !(bpf && perfmon)) {
		snprintf(missing, sizeof(missing), "%s%s%s", bpf ? "" : "CAP_BPF",
			 !bpf && !perfmon ? " and " : "", perfmon ? "" : "CAP_PERFMON");
		fprintf(stderr,
			"kptrace: error: this process (uid %u) lacks %s: loading BPF tracing "
			"programs and creating kprobes and uprobes needs CAP_BPF and "
			"CAP_PERFMON, or CAP_SYS_ADMIN; run kptrace as root (sudo kptrace ...)\n",
			(unsigned int)geteuid(), missing);
		return -EPERM;
	}
	lockdown_mode(mode, sizeof(mode));
	if (!strcmp(mode, "confidentiality")) {
		fprintf(stderr,
			"kptrace: error: the kernel is locked down (%s: confidentiality): it "
			"refuses kprobes, tracefs and BPF reads of kernel memory, which every "
			"kptrace program uses; boot without lockdown=confidentiality (integrity "
			"mode allows tracing)\n", lockdown_path);
		return -EPERM;
	}
	return 0;
}

int fd_limit_check(int nprobes, int nmaps)
{
	struct rlimit rl;
	rlim_t need = (rlim_t)nprobes * 2 + nmaps + FD_BASE;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= need)
		return 0;
	if (rl.rlim_max >= need) {
		rl.rlim_cur = need;
		if (!setrlimit(RLIMIT_NOFILE, &rl))
			return 0;
	}
	fprintf(stderr,
		"kptrace: error: %d probe%s need%s about %llu open files (two per probe, plus "
		"about %d for maps and programs), but the open-file limit (ulimit -n) is "
		"%llu; raise it (ulimit -n %llu) or trace fewer probes\n",
		nprobes, nprobes == 1 ? "" : "s", nprobes == 1 ? "s" : "", (unsigned long long)need,
		nmaps + FD_BASE,
		(unsigned long long)(rl.rlim_max < rl.rlim_cur ? rl.rlim_max : rl.rlim_cur),
		(unsigned long long)need);
	return -EMFILE;
}

/* kernel.perf_event_paranoid, or 2 (the kernel's default) if unreadable */
static int perf_paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
	int v = 2;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 2;
		fclose(f);
	}
	return v;
}

void privilege_hint(int err)
{
	bool admin, bpf, perfmon;
	char mode[64];
	struct rlimit rl;

	if (err == -EMFILE || err == -ENFILE) {
		if (!getrlimit(RLIMIT_NOFILE, &rl))
			fprintf(stderr, "kptrace: out of file descriptors: the open-file limit "
				"(ulimit -n) is %llu; each probe takes two\n",
				(unsigned long long)rl.rlim_cur);
		return;
	}
	if (err != -EPERM && err != -EACCES && err != -EINVAL)
		return;
	if (err != -EINVAL && caps(&admin, &bpf, &perfmon) && !admin) {
		if (perf_paranoid() > 2)
			/* Debian's and Ubuntu's level: their perf_event_open asks
			 * CAP_SYS_ADMIN of everyone, CAP_PERFMON or not */
			fprintf(stderr, "kptrace: note: this process has CAP_BPF and CAP_PERFMON, "
				"and kernel.perf_event_paranoid is %d: this kernel's "
				"perf_event_open (kprobes, uprobes, tracepoints) then wants "
				"CAP_SYS_ADMIN. Run kptrace as root, set "
				"kernel.perf_event_paranoid=2, or trace kernel functions with "
				"--backend fentry\n", perf_paranoid());
		else
			fprintf(stderr, "kptrace: note: this process has CAP_BPF and CAP_PERFMON "
				"but not CAP_SYS_ADMIN, and this kernel wanted more for this "
				"step: run kptrace as root\n");
	}
	lockdown_mode(mode, sizeof(mode));
	if (mode[0] && strcmp(mode, "none"))
		fprintf(stderr, "kptrace: note: the kernel is locked down (%s: %s)\n",
			lockdown_path, mode);
}

/* The directory holding path: sticky and writable by all, as /tmp is? */
static bool in_shared_dir(const char *path)
{
	char *copy = strdup(path);
	struct stat st;
	bool shared = false;

	if (!copy)
		return false;
	if (!stat(dirname(copy), &st))
		shared = (st.st_mode & S_ISVTX) && (st.st_mode & S_IWOTH);
	free(copy);
	return shared;
}

static FILE *refuse(int fd, const char *path, int err, const char *why)
{
	fprintf(stderr, "kptrace: error: refusing to write events to %s: %s\n", path, why);
	if (fd >= 0)
		close(fd);
	errno = err;
	return NULL;
}

FILE *outfile_open(const char *path)
{
	struct stat st;
	FILE *f;
	int fd;

	/* No O_TRUNC yet: a file is emptied only once it passed the checks. */
	fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0600);
	if (fd < 0) {
		int err = errno;

		if (err == ELOOP)
			return refuse(-1, path, err, "it is a symbolic link, and -o does not "
				      "follow links (give the file's real path)");
		fprintf(stderr, "kptrace: error: cannot write %s: %s\n", path, strerror(err));
		errno = err;
		return NULL;
	}
	if (fstat(fd, &st))
		return refuse(fd, path, errno, strerror(errno));
	if (S_ISREG(st.st_mode)) {
		if (st.st_nlink > 1)
			return refuse(fd, path, EPERM, "it has other hard links (a link planted "
				      "to another file?)");
		if (st.st_uid != geteuid() && in_shared_dir(path))
			return refuse(fd, path, EPERM, "it belongs to another user, in a "
				      "directory anyone can write to (a file planted in /tmp?)");
		if (ftruncate(fd, 0))
			return refuse(fd, path, errno, strerror(errno));
	} else if (!S_ISFIFO(st.st_mode) && !S_ISCHR(st.st_mode)) {
		return refuse(fd, path, EINVAL, "not a regular file, a pipe or a device");
	}
	f = fdopen(fd, "w");
	if (!f) {
		int err = errno;

		close(fd);
		errno = err;
	}
	return f;
}
