// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Containers (sys/container.c): cgroup paths as docker, podman, containerd,
 * CRI-O, the kubelet and systemd make them, named; a cgroup tree built here
 * read by id (inode, as the kernel's cgroup ids are), matched by prefix, its
 * subtrees, a cgroup made after the first read found when asked for, and
 * one removed kept with its name, gone from the read that missed it.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "check.h"
#include "sys/container.h"

#define HEX64 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define UID_ "1a2b3c4d_1111_2222_3333_444455556666"
#define UID "1a2b3c4d-1111-2222-3333-444455556666"

static const struct {
	const char *path, *runtime, *id, *name, *pod;
} paths[] = {
	{ "/", "host", "", "host", "" },
	{ "/system.slice/docker-" HEX64 ".scope", "docker", HEX64, "0123456789ab", "" },
	{ "/docker/" HEX64, "docker", HEX64, "0123456789ab", "" },
	{ "/machine.slice/libpod-" HEX64 ".scope", "podman", HEX64, "0123456789ab", "" },
	{ "/libpod_parent/libpod-" HEX64, "podman", HEX64, "0123456789ab", "" },
	/* conmon, podman's monitor, is no container: a unit */
	{ "/machine.slice/libpod-conmon-" HEX64 ".scope", "systemd", "",
	  "libpod-conmon-" HEX64 ".scope", "" },
	{ "/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UID_
	  ".slice/cri-containerd-" HEX64 ".scope", "containerd", HEX64, "0123456789ab", UID },
	{ "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_
	  ".slice/crio-" HEX64 ".scope", "cri-o", HEX64, "0123456789ab", UID },
	{ "/kubepods/burstable/pod" UID "/" HEX64, "kubepods", HEX64, "0123456789ab", UID },
	{ "/system.slice/sshd.service", "systemd", "", "sshd.service", "" },
	{ "/user.slice/user-0.slice/session-3.scope", "systemd", "", "session-3.scope", "" },
	{ "/kptrace-test/web", "cgroup", "", "/kptrace-test/web", "" },
	/* hex, but too short for an id: a plain cgroup */
	{ "/docker/abc", "cgroup", "", "/docker/abc", "" },
};

static void test_paths(void)
{
	size_t i;

	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		struct ctr c = { .path = (char *)paths[i].path };

		ctr_name_path(&c);
		CHECK_STR(c.runtime, paths[i].runtime, paths[i].path);
		CHECK_STR(c.id, paths[i].id, paths[i].path);
		CHECK_STR(c.name, paths[i].name, paths[i].path);
		CHECK_STR(c.pod, paths[i].pod, paths[i].path);
		CHECK_INT(ctr_is_container(&c), paths[i].id[0] != '\0', paths[i].path);
	}
}

static uint64_t ino_of(const char *root, const char *rel)
{
	char p[PATH_MAX];
	struct stat st;

	snprintf(p, sizeof(p), "%s%s", root, rel);
	return stat(p, &st) ? 0 : st.st_ino;
}

#define PODA "aaaa456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define PODB "bbbb456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static void write_file(const char *root, const char *rel, const char *text)
{
	char p[PATH_MAX];
	FILE *f;

	snprintf(p, sizeof(p), "%s%s", root, rel);
	f = fopen(p, "w");
	CHECK(f && fputs(text, f) >= 0, "write %s", p);
	if (f)
		fclose(f);
}

static void mkdirs(const char *root, const char *rel)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s%s", root, rel);
	CHECK(!mkdir(p, 0755), "mkdir %s: %s", p, strerror(errno));
}

static void test_tree(void)
{
	char root[] = "/tmp/kpt-ctr-unit.XXXXXX", state[256], msg[256], cmd[PATH_MAX + 16];
	const struct ctr *cs[4], *c;
	struct ctr_table *t;
	uint64_t ids[8], gone_id;
	int n;

	if (!mkdtemp(root)) {
		CHECK(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	snprintf(state, sizeof(state), "%s/sys", root);
	/* the runtimes' state: docker's config of HEX64, podman's list (two containers) */
	snprintf(cmd, sizeof(cmd), "mkdir -p %s/var/lib/docker/containers/" HEX64 " %s/var/lib/"
		 "containers/storage/overlay-containers", state, state);
	CHECK(!system(cmd), "%s", cmd);
	write_file(state, "/var/lib/docker/containers/" HEX64 "/config.v2.json",
		   "{\"ID\":\"" HEX64 "\",\"Config\":{\"Env\":[\"A=1\"]},\"Name\":\"/web\"}");
	write_file(state, "/var/lib/containers/storage/overlay-containers/containers.json",
		   "[{\"id\":\"" PODA "\",\"names\":[\"db\"],\"image\":\"x\"},"
		   "{\"id\":\"" PODB "\",\"names\":[\"cache\",\"c2\"]}]");
	mkdirs(root, "/machine.slice");
	mkdirs(root, "/machine.slice/libpod-" PODA ".scope");
	mkdirs(root, "/machine.slice/libpod-" PODB ".scope");
	mkdirs(root, "/system.slice");
	mkdirs(root, "/system.slice/docker-" HEX64 ".scope");
	mkdirs(root, "/system.slice/docker-" HEX64 ".scope/init");
	mkdirs(root, "/system.slice/docker-fedcba9876543210fedcba9876543210.scope");
	mkdirs(root, "/system.slice/sshd.service");
	t = ctr_table_new(root, state, msg, sizeof(msg));
	CHECK(t, "ctr_table_new: %s", msg);
	if (!t)
		goto out;
	c = ctr_by_cgid(t, ino_of(root, ""));
	CHECK(c && !strcmp(c->name, "host"), "the root is the host");
	c = ctr_by_cgid(t, ino_of(root, "/system.slice/docker-" HEX64 ".scope"));
	CHECK(c && !strcmp(c->name, "web"), "docker's name from its config.v2.json: %s",
	      c ? c->name : "none");
	c = ctr_by_cgid(t, ino_of(root, "/machine.slice/libpod-" PODA ".scope"));
	CHECK(c && !strcmp(c->name, "db"), "podman's name from containers.json: %s",
	      c ? c->name : "none");
	c = ctr_by_cgid(t, ino_of(root, "/machine.slice/libpod-" PODB ".scope"));
	CHECK(c && !strcmp(c->name, "cache"), "the second one's first name: %s",
	      c ? c->name : "none");
	CHECK_INT(ctr_match(t, "we", cs, 4), 1, "docker's container by its name's prefix");
	c = ctr_by_cgid(t, ino_of(root, "/system.slice/sshd.service"));
	CHECK(c && !strcmp(c->name, "sshd.service") && !strcmp(c->runtime, "systemd"),
	      "a unit by its id");
	/* by its id's prefix; ambiguous when short */
	CHECK_INT(ctr_match(t, "0123456789ab", cs, 4), 1, "a docker container's short id");
	CHECK_INT(ctr_match(t, HEX64, cs, 4), 1, "its whole id");
	CHECK_INT(ctr_match(t, "sshd", cs, 4), 0, "a unit is no container");
	CHECK_INT(ctr_match(t, "nosuch", cs, 4), 0, "no container");
	mkdirs(root, "/system.slice/docker-0123456789abcdef0123456789abcdef.scope");
	usleep(150000);	/* past the table's rescan bound: a new id reads the tree again */
	c = ctr_by_cgid(t, ino_of(root, "/system.slice/docker-0123456789abcdef0123456789abcdef."
				   "scope"));
	CHECK(c && !strcmp(c->runtime, "docker"), "a cgroup made after the first read");
	n = ctr_match(t, "0123456789ab", cs, 4);
	CHECK_INT(n, 2, "a prefix two containers share");
	c = ctr_by_cgid(t, ino_of(root, "/system.slice/docker-0123456789abcdef0123456789abcdef."
				   "scope"));
	CHECK(c && !strcmp(c->name, "0123456789ab"), "no config: the short id");
	n = ctr_match(t, HEX64, cs, 4);
	if (n == 1) {
		n = ctr_subtree(t, cs[0], ids, 8);
		CHECK_INT(n, 2, "the container's cgroup and its init child");
		CHECK_INT(ctr_subtree(t, cs[0], ids + 4, 1), 2, "the number, past max too");
		CHECK(n == 2 && ids[0] == cs[0]->cgid &&
		      ids[1] == ino_of(root, "/system.slice/docker-" HEX64 ".scope/init"),
		      "the subtree's ids, its own first");
	}
	/* a cgroup removed: kept with its name, gone from the next read on, counted once */
	c = ctr_by_cgid(t, ino_of(root, "/system.slice/sshd.service"));
	gone_id = c ? c->cgid : 0;
	snprintf(cmd, sizeof(cmd), "%s/system.slice/sshd.service", root);
	CHECK(c && !rmdir(cmd), "rmdir %s", cmd);
	CHECK(c && !ctr_gone_for(t, c->cgid, 0), "not gone before a read sees it");
	ctr_table_refresh(t, 0);
	CHECK(c && ctr_gone_for(t, c->cgid, 0) && !ctr_gone_for(t, c->cgid, 3600000000000ull),
	      "gone since the read that missed it, not for an hour");
	CHECK(c && !strcmp(c->name, "sshd.service"), "its name kept");
	CHECK_INT(ctr_take_expired(t, 0), 1, "one cgroup gone");
	CHECK_INT(ctr_take_expired(t, 0), 0, "counted once");
	ctr_forget_expired(t);
	CHECK(ctr_by_cgid(t, ino_of(root, "/system.slice")) != NULL, "the others kept");
	usleep(150000);	/* past the rescan bound: a lookup of the forgotten id reads the tree */
	CHECK(!c || !ctr_by_cgid(t, gone_id), "forgotten once expired, not read back");
	ctr_table_free(t);
out:
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	CHECK(!system(cmd), "%s", cmd);
}

int main(void)
{
	test_paths();
	test_tree();
	return check_report();
}
