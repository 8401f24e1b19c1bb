// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Containers: cgroup v2 ids named by the runtimes' conventions (container.h). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sys/container.h"
#include "util/htab.h"

#define CTR_DEPTH	32		/* cgroup nesting walked, as the kernel's own limit */
#define CTR_RESCAN_NS	100000000ull	/* an unknown id reads the tree again at most this often */

struct ctr_table {
	char *root, *sys_root;
	struct htab by_id;		/* cgid -> struct ctr */
	uint64_t scanned_ns;
	unsigned int reads;		/* the tree's reads so far: struct ctr's seen */
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The first cgroup2 mount in /proc/self/mountinfo into buf; -ENOENT if none. */
static int find_v2_mount(char *buf, size_t len)
{
	char line[4096], mnt[PATH_MAX];
	int err = -ENOENT;
	FILE *f = fopen("/proc/self/mountinfo", "re");

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *sep = strstr(line, " - ");

		/* "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS... - FSTYPE SOURCE OPTS" */
		if (!sep || strncmp(sep + 3, "cgroup2 ", 8) ||
		    sscanf(line, "%*s %*s %*s %*s %4095s", mnt) != 1)
			continue;
		snprintf(buf, len, "%s", mnt);
		err = 0;
		break;
	}
	fclose(f);
	return err;
}

static bool all_hex(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return n >= 12;
}

static bool ends_with(const char *s, size_t n, const char *suf)
{
	size_t m = strlen(suf);

	return n >= m && !memcmp(s + n - m, suf, m);
}

/* A kubepods path's pod UID: "pod<uid>" (cgroupfs) or "...-pod<uid_>.slice" (systemd). */
static void pod_uid(const char *path, char *out, size_t len)
{
	const char *s = path;

	out[0] = '\0';
	while ((s = strchr(s, '/'))) {
		const char *seg = ++s, *end = strchrnul(seg, '/'), *p;
		size_t n = (size_t)(end - seg), i;

		p = n > 3 && !strncmp(seg, "pod", 3) ? seg + 3 : NULL;
		if (!p && ends_with(seg, n, ".slice")) {
			p = memmem(seg, n, "-pod", 4);
			p = p ? p + 4 : NULL;
			n -= 6;	/* ".slice" */
		}
		if (!p)
			continue;
		n = (size_t)(seg + n - p);
		if (n >= len)
			continue;
		for (i = 0; i < n; i++)
			out[i] = p[i] == '_' ? '-' : p[i];
		out[n] = '\0';
	}
}

/* The runtimes' scope prefixes: "<prefix><id>.scope" under systemd, "<prefix><id>" else. */
static const struct {
	const char *prefix, *runtime;
} scopes[] = {
	{ "docker-", "docker" },
	{ "libpod-", "podman" },
	{ "cri-containerd-", "containerd" },
	{ "crio-", "cri-o" },
};

void ctr_name_path(struct ctr *c)
{
	const char *last = strrchr(c->path, '/'), *parent;
	size_t n, i, pn;

	c->runtime = "cgroup";
	c->id[0] = c->pod[0] = '\0';
	if (!strcmp(c->path, "/") || !last) {
		c->runtime = "host";
		snprintf(c->name, sizeof(c->name), "host");
		return;
	}
	/* the segment before the last: docker's cgroupfs "/docker/<id>" */
	for (parent = last; parent > c->path && parent[-1] != '/'; parent--)
		;
	pn = (size_t)(last - parent);
	last++;
	n = strlen(last);
	if (ends_with(last, n, ".scope"))
		n -= 6;
	if (strstr(c->path, "kubepods"))
		pod_uid(c->path, c->pod, sizeof(c->pod));
	for (i = 0; i < sizeof(scopes) / sizeof(scopes[0]); i++) {
		size_t pl = strlen(scopes[i].prefix);

		if (n > pl && !strncmp(last, scopes[i].prefix, pl) &&
		    all_hex(last + pl, n - pl) && n - pl < sizeof(c->id)) {
			c->runtime = scopes[i].runtime;
			snprintf(c->id, sizeof(c->id), "%.*s", (int)(n - pl), last + pl);
			break;
		}
	}
	if (!c->id[0] && all_hex(last, n) && n < sizeof(c->id)) {
		/* cgroupfs drivers: the id is the directory's name */
		c->runtime = c->pod[0] ? "kubepods" :
			     pn == 6 && !strncmp(parent, "docker", 6) ? "docker" :
			     pn == 13 && !strncmp(parent, "libpod_parent", 13) ? "podman" : "cgroup";
		if (strcmp(c->runtime, "cgroup"))
			snprintf(c->id, sizeof(c->id), "%.*s", (int)n, last);
	}
	if (c->id[0]) {
		/* the runtimes' own short form */
		snprintf(c->name, sizeof(c->name), "%.12s", c->id);
		return;
	}
	n = strlen(last);
	if (ends_with(last, n, ".service") || ends_with(last, n, ".scope") ||
	    ends_with(last, n, ".slice")) {
		c->runtime = "systemd";
		snprintf(c->name, sizeof(c->name), "%s", last);
		return;
	}
	snprintf(c->name, sizeof(c->name), "%s", c->path);
}

bool ctr_is_container(const struct ctr *c)
{
	return c->id[0] != '\0';
}

static void ctr_free(void *p)
{
	struct ctr *c = p;

	if (c)
		free(c->path);
	free(c);
}

/* One cgroup directory (path relative to the mount, "/" the root) into the table. */
static void add_cgroup(struct ctr_table *t, const char *rel, uint64_t ino)
{
	struct hent *e = ht_get(&t->by_id, &ino, sizeof(ino));
	struct ctr *c;

	if (e && e->val)
		((struct ctr *)e->val)->seen = t->reads;
	if (!e || e->val)
		return;
	c = calloc(1, sizeof(*c));
	if (!c || !(c->path = strdup(rel))) {
		free(c);
		return;
	}
	c->cgid = ino;
	c->seen = t->reads;
	ctr_name_path(c);
	e->val = c;
}

/* The tree under dir (rel its path from the mount), depth levels at most. */
static void walk(struct ctr_table *t, char *rel, size_t rlen, int depth)
{
	char dir[PATH_MAX];
	struct dirent *d;
	struct stat st;
	DIR *dp;

	snprintf(dir, sizeof(dir), "%s%s", t->root, rel);
	if (stat(dir, &st) || !S_ISDIR(st.st_mode))
		return;
	add_cgroup(t, rlen ? rel : "/", st.st_ino);
	if (depth <= 0 || !(dp = opendir(dir)))
		return;
	while ((d = readdir(dp))) {
		size_t n = strlen(d->d_name);

		if (d->d_type != DT_DIR || d->d_name[0] == '.' || rlen + n + 2 > PATH_MAX)
			continue;
		rel[rlen] = '/';
		memcpy(rel + rlen + 1, d->d_name, n + 1);
		walk(t, rel, rlen + n + 1, depth - 1);
		rel[rlen] = '\0';
	}
	closedir(dp);
}

/* Process pid's v2 cgroup ("0::PATH" in /proc/PID/cgroup) into buf; false if none. */
static bool pid_cgroup(uint32_t pid, char *buf, size_t len)
{
	char p[64], line[PATH_MAX + 8];
	bool found = false;
	FILE *f;

	snprintf(p, sizeof(p), "/proc/%" PRIu32 "/cgroup", pid);
	f = fopen(p, "re");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "0::", 3))
			continue;
		line[strcspn(line, "\n")] = '\0';
		found = strlen(line + 3) < len;
		if (found)
			memcpy(buf, line + 3, strlen(line + 3) + 1);
	}
	fclose(f);
	return found;
}

/* The table's entry for a v2 path, by its directory's inode; NULL if none. */
static struct ctr *by_path(struct ctr_table *t, const char *rel)
{
	char dir[PATH_MAX];
	struct stat st;
	uint64_t ino;
	struct hent *e;

	if (snprintf(dir, sizeof(dir), "%s%s", t->root, rel) >= (int)sizeof(dir) || stat(dir, &st))
		return NULL;
	ino = st.st_ino;
	e = ht_find(&t->by_id, &ino, sizeof(ino));
	return e ? e->val : NULL;
}

/*
 * A runc state directory DIR/ID/state.json: the container ID's init process,
 * whose cgroup is the container's. Docker's and containerd's runc keep theirs
 * under /run/docker/runtime-runc/moby and /run/containerd/runc/NAMESPACE.
 */
static void runc_state(struct ctr_table *t, const char *dir, const char *id)
{
	char p[PATH_MAX], buf[8192], cg[PATH_MAX];
	const char *k;
	unsigned long pid;
	struct ctr *c;
	size_t n;
	FILE *f;

	if (snprintf(p, sizeof(p), "%s/%s/state.json", dir, id) >= (int)sizeof(p) ||
	    !(f = fopen(p, "re")))
		return;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	k = strstr(buf, "\"init_process_pid\":");
	if (!k || !(pid = strtoul(k + 19, NULL, 10)) || pid > UINT32_MAX ||
	    !pid_cgroup((uint32_t)pid, cg, sizeof(cg)) || !(c = by_path(t, cg)))
		return;
	if (!c->id[0] || !strcmp(c->runtime, "cgroup"))
		c->runtime = "runc";
	if (!strcmp(c->runtime, "runc") || !strncmp(id, c->id, strlen(id))) {
		snprintf(c->id, sizeof(c->id), "%s", id);
		if (!strcmp(c->runtime, "runc"))
			snprintf(c->name, sizeof(c->name), "%s", id);
	}
	c->pid = (uint32_t)pid;
}

/* Each DIR/ID of a runc state root (and one level deeper: NAMESPACE/ID). */
static void runc_states(struct ctr_table *t, const char *dir, int depth)
{
	char sub[PATH_MAX];
	struct dirent *d;
	DIR *dp = opendir(dir);

	if (!dp)
		return;
	while ((d = readdir(dp))) {
		if (d->d_name[0] == '.' || (d->d_type != DT_DIR && d->d_type != DT_UNKNOWN))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s/state.json", dir, d->d_name);
		if (!access(sub, R_OK))
			runc_state(t, dir, d->d_name);
		else if (depth > 0 && snprintf(sub, sizeof(sub), "%s/%s", dir, d->d_name) <
					      (int)sizeof(sub))
			runc_states(t, sub, depth - 1);
	}
	closedir(dp);
}

/* File path's first len - 1 bytes into buf, NUL-ended; false if unreadable. */
static bool read_text(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		return false;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	return n > 0;
}

/* The JSON string after key (as "\"Name\":\"") in text into c's name, less a leading skip. */
static void name_after(struct ctr *c, const char *text, const char *key, char skip)
{
	const char *s = strstr(text, key), *e;

	if (!s)
		return;
	s += strlen(key);
	if (*s == skip)
		s++;
	e = strchr(s, '"');
	if (e && e > s && (size_t)(e - s) < sizeof(c->name))
		snprintf(c->name, sizeof(c->name), "%.*s", (int)(e - s), s);
}

/*
 * Docker's and podman's names for their containers, from their state on
 * disk: docker's containers/ID/config.v2.json ("Name":"/web"), podman's
 * (containers/storage's) overlay-containers/containers.json, a list of
 * {"id":ID,"names":["web"],...}.
 */
static void runtime_names(struct ctr_table *t)
{
	char p[PATH_MAX], *pods = NULL, *buf = NULL;
	const char *at, *names, *next;
	struct hent *e = NULL;
	size_t cap = 1 << 20;	/* ~2000 containers' entries; past them, short ids */
	bool pods_read = false;

	while ((e = ht_next(&t->by_id, e))) {
		struct ctr *c = e->val;
		char id[sizeof(c->id) + 16];

		if (!c || c->gone_ns || !c->id[0] || c->named)
			continue;
		c->named = true;	/* asked once: a container keeps its name */
		if (!strcmp(c->runtime, "docker")) {
			snprintf(p, sizeof(p), "%s/var/lib/docker/containers/%s/config.v2.json",
				 t->sys_root, c->id);
			/* its whole config, environment and labels: room for them */
			if ((buf || (buf = malloc(cap))) && read_text(p, buf, cap))
				name_after(c, buf, "\"Name\":\"", '/');
		} else if (!strcmp(c->runtime, "podman")) {
			if (!pods_read) {
				pods_read = true;
				snprintf(p, sizeof(p), "%s/var/lib/containers/storage/"
					 "overlay-containers/containers.json", t->sys_root);
				if ((pods = malloc(cap)) && !read_text(p, pods, cap)) {
					free(pods);
					pods = NULL;
				}
			}
			if (!pods)
				continue;
			snprintf(id, sizeof(id), "\"id\":\"%s\"", c->id);
			at = strstr(pods, id);
			names = at ? strstr(at, "\"names\":[\"") : NULL;
			next = at ? strstr(at + 1, "\"id\":") : NULL;
			/* this container's object: its names before the next one's id */
			if (names && (!next || names < next))
				name_after(c, names, "\"names\":[\"", 0);
		}
	}
	free(pods);
	free(buf);
}

/* A container's process (the first in cgroup.procs) and its namespaces. */
static void fill_pid(struct ctr_table *t, struct ctr *c)
{
	char p[PATH_MAX];
	unsigned long pid = c->pid;
	struct stat st;
	FILE *f;

	if (!pid && snprintf(p, sizeof(p), "%s%s/cgroup.procs", t->root, c->path) < (int)sizeof(p) &&
	    (f = fopen(p, "re"))) {
		if (fscanf(f, "%lu", &pid) != 1)
			pid = 0;
		fclose(f);
	}
	c->pid = (uint32_t)pid;
	if (!pid)
		return;
	snprintf(p, sizeof(p), "/proc/%lu/ns/mnt", pid);
	c->mntns = stat(p, &st) ? 0 : st.st_ino;
	snprintf(p, sizeof(p), "/proc/%lu/ns/pid", pid);
	c->pidns = stat(p, &st) ? 0 : st.st_ino;
}

/* Read the tree again: new cgroups added (the known keep their entries), then named. */
static void scan(struct ctr_table *t)
{
	static const char *const runc_roots[] = { "run/runc", "run/containerd/runc",
						  "run/docker/runtime-runc" };
	char rel[PATH_MAX] = "", dir[PATH_MAX];
	struct hent *e = NULL;
	uint64_t now = now_ns();
	size_t i;

	t->reads++;
	walk(t, rel, 0, CTR_DEPTH);
	/* kept, with its name, for the counts it left: a cgroup id is never reused */
	while ((e = ht_next(&t->by_id, e))) {
		struct ctr *c = e->val;

		if (c && c->seen != t->reads && !c->gone_ns)
			c->gone_ns = now;
	}
	for (i = 0; i < sizeof(runc_roots) / sizeof(runc_roots[0]); i++) {
		snprintf(dir, sizeof(dir), "%s/%s", t->sys_root, runc_roots[i]);
		runc_states(t, dir, i ? 1 : 0);
	}
	runtime_names(t);
	while ((e = ht_next(&t->by_id, e)))
		if (e->val && ctr_is_container(e->val) && !((struct ctr *)e->val)->mntns)
			fill_pid(t, e->val);
	t->scanned_ns = now;
}

void ctr_table_refresh(struct ctr_table *t, uint64_t min_ns)
{
	if (now_ns() - t->scanned_ns >= min_ns)
		scan(t);
}

int ctr_take_expired(struct ctr_table *t, uint64_t after_ns)
{
	struct hent *e = NULL;
	uint64_t now = now_ns();
	int n = 0;

	while ((e = ht_next(&t->by_id, e))) {
		struct ctr *c = e->val;

		if (c && c->gone_ns && !c->expired && now - c->gone_ns >= after_ns) {
			c->expired = true;
			n++;
		}
	}
	return n;
}

void ctr_forget_expired(struct ctr_table *t)
{
	struct hent *e = NULL;

	/* the id stays, without its entry: a read does not make it again */
	while ((e = ht_next(&t->by_id, e)))
		if (e->val && ((struct ctr *)e->val)->expired) {
			ctr_free(e->val);
			e->val = NULL;
		}
}

bool ctr_gone_for(struct ctr_table *t, uint64_t cgid, uint64_t after_ns)
{
	struct hent *e = ht_find(&t->by_id, &cgid, sizeof(cgid));
	const struct ctr *c = e ? e->val : NULL;

	return c && c->gone_ns && now_ns() - c->gone_ns >= after_ns;
}

struct ctr_table *ctr_table_new(const char *cg_root, const char *sys_root, char *msg,
				size_t msglen)
{
	char mnt[PATH_MAX];
	struct ctr_table *t;

	if (!cg_root) {
		if (find_v2_mount(mnt, sizeof(mnt))) {
			snprintf(msg, msglen, "this host mounts no cgroup v2 hierarchy (no cgroup2 "
				 "in /proc/self/mountinfo): every task has the same v2 cgroup, "
				 "so the kernel cannot tell containers apart");
			return NULL;
		}
		cg_root = mnt;
	}
	t = calloc(1, sizeof(*t));
	if (!t || !(t->root = strdup(cg_root)) ||
	    !(t->sys_root = strdup(sys_root ? sys_root : ""))) {
		snprintf(msg, msglen, "out of memory");
		ctr_table_free(t);
		return NULL;
	}
	scan(t);
	return t;
}

void ctr_table_free(struct ctr_table *t)
{
	if (!t)
		return;
	ht_free(&t->by_id, ctr_free);
	free(t->root);
	free(t->sys_root);
	free(t);
}

const struct ctr *ctr_by_cgid(struct ctr_table *t, uint64_t cgid)
{
	struct hent *e = ht_find(&t->by_id, &cgid, sizeof(cgid));

	if (e && e->val)
		return e->val;
	if (now_ns() - t->scanned_ns < CTR_RESCAN_NS)
		return NULL;
	scan(t);
	e = ht_find(&t->by_id, &cgid, sizeof(cgid));
	return e ? e->val : NULL;
}

int ctr_match(struct ctr_table *t, const char *pat, const struct ctr **out, int max)
{
	size_t n = strlen(pat);
	struct hent *e = NULL;
	int got = 0;

	while ((e = ht_next(&t->by_id, e))) {
		const struct ctr *c = e->val;

		if (!c || !ctr_is_container(c) || !n ||
		    (strncmp(c->name, pat, n) && strncmp(c->id, pat, n)))
			continue;
		if (got < max)
			out[got] = c;
		got++;
	}
	return got;
}

int ctr_proc_root(const char *pat, char *root, size_t rootlen, char *msg, size_t msglen)
{
	struct ctr_table *t = ctr_table_new(NULL, NULL, msg, msglen);
	const struct ctr *cs[2];
	int n;

	*root = '\0';
	if (!t)
		return -ENOENT;
	n = ctr_match(t, pat, cs, 2);
	if (n == 1 && cs[0]->pid)
		snprintf(root, rootlen, "/proc/%u/root", cs[0]->pid);
	else
		snprintf(msg, msglen, "container '%s': %s (kptrace list --containers)", pat,
			 n > 1 ? "names more than one container: give more of its id" :
			 n ? "has no process now, through whose /proc/PID/root its files are read" :
			 "no container has this name or id");
	ctr_table_free(t);
	return n == 1 && *root ? 0 : n > 1 ? -EINVAL : n ? -ESRCH : -ENOENT;
}

int ctr_subtree(struct ctr_table *t, const struct ctr *c, uint64_t *ids, int max)
{
	size_t n = strlen(c->path);
	struct hent *e = NULL;
	int got = 0;

	if (got < max)
		ids[got] = c->cgid;
	got++;
	while ((e = ht_next(&t->by_id, e))) {
		const struct ctr *d = e->val;

		if (!d || d == c || d->gone_ns || strncmp(d->path, c->path, n) || d->path[n] != '/')
			continue;
		if (got < max)
			ids[got] = d->cgid;
		got++;
	}
	return got;
}

static int name_cmp(const void *a, const void *b)
{
	const struct ctr *const *x = a, *const *y = b;

	return strcmp((*x)->name, (*y)->name);
}

int ctr_containers(struct ctr_table *t, const struct ctr ***out)
{
	struct hent *e = NULL;
	int n = 0;

	*out = calloc(t->by_id.n + 1, sizeof(**out));
	if (!*out)
		return 0;
	while ((e = ht_next(&t->by_id, e)))
		if (e->val && ctr_is_container(e->val))
			(*out)[n++] = e->val;
	qsort(*out, (size_t)n, sizeof(**out), name_cmp);
	return n;
}
