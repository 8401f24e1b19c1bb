/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Containers as the kernel shows them: each cgroup of the v2 hierarchy
 * (bpf_get_current_cgroup_id()'s ids: on a cgroup v1 host, its v2 "unified"
 * mount, where runc, systemd and the runtimes give each container a cgroup
 * of its own), named from its path by the runtimes' conventions (docker,
 * podman, containerd and CRI-O under kubepods: container id, pod UID; systemd
 * units as themselves; "/" the host) and from the runtimes' state on disk
 * (a runc container's id as `runc list` shows it, docker's and podman's names). Read once, read again when an id
 * is asked for that the last read did not see (a cgroup made since).
 */
#ifndef KPT_CONTAINER_H
#define KPT_CONTAINER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ctr {
	uint64_t cgid;		/* the cgroup v2 id: its directory's inode */
	char *path;		/* under the v2 mount, "/" for the root */
	const char *runtime;	/* docker, podman, containerd, cri-o, kubepods, runc,
				 * systemd, cgroup or host */
	char id[72];		/* the runtime's container id, "" if none */
	char name[128];		/* what prints: a runc container's id, the short id,
				 * a unit, the host, else the path */
	char pod[40];		/* a kubepods pod's UID, "" if none */
	uint32_t pid;		/* a process in it when read, 0 if none */
	uint64_t mntns, pidns;	/* that process's namespaces' ids, 0 if none */
	uint64_t gone_ns;	/* CLOCK_MONOTONIC when a read first missed it, 0: there */
	unsigned int seen;	/* the last read that found it */
	bool expired;		/* gone long enough: ctr_take_expired() counted it */
	bool named;		/* its runtime's state asked for its name */
};

struct ctr_table;

/*
 * cg_root: the v2 hierarchy's mount (NULL: found in /proc/self/mountinfo);
 * sys_root: the root the runtimes' state is read under (NULL: "/"; their
 * run/ and var/lib/ folders: runc's state, docker's and podman's names). NULL with a
 * message in msg when the host has no cgroup v2 hierarchy at all (pure
 * cgroup v1: every task's v2 id is the same root, nothing to tell apart).
 */
struct ctr_table *ctr_table_new(const char *cg_root, const char *sys_root, char *msg,
				size_t msglen);
void ctr_table_free(struct ctr_table *t);

/* The cgroup of id cgid (read again once if unseen); NULL when it is gone. */
const struct ctr *ctr_by_cgid(struct ctr_table *t, uint64_t cgid);

/* Read the tree again if the last read is older than min_ns: new cgroups, gone ones. */
void ctr_table_refresh(struct ctr_table *t, uint64_t min_ns);

/* Whether the cgroup of id cgid has been gone (removed) for after_ns or more. */
bool ctr_gone_for(struct ctr_table *t, uint64_t cgid, uint64_t after_ns);

/* The cgroups gone for after_ns or more that no earlier call counted. */
int ctr_take_expired(struct ctr_table *t, uint64_t after_ns);
/* Those counted freed, their names with them (their keys are dropped):
 * a host that churns containers does not grow the table without bound. */
void ctr_forget_expired(struct ctr_table *t);

/* Whether c is a runtime's container (not the host, a unit or a plain cgroup). */
bool ctr_is_container(const struct ctr *c);

/*
 * The containers whose name or id starts with pat, into out (at most max);
 * their number, 0 when none matches.
 */
int ctr_match(struct ctr_table *t, const char *pat, const struct ctr **out, int max);

/*
 * "/proc/PID/root" of a process of the one container whose name or id starts
 * with pat, into root (a table read for it): 0, or -errno with msg.
 */
int ctr_proc_root(const char *pat, char *root, size_t rootlen, char *msg, size_t msglen);

/* The cgroups under c's (c's own first) into ids (at most max); their number, max or not. */
int ctr_subtree(struct ctr_table *t, const struct ctr *c, uint64_t *ids, int max);

/* Every container, sorted by name, into *out (the table's; free(*out) after); their number. */
int ctr_containers(struct ctr_table *t, const struct ctr ***out);

/* Classify a cgroup path: runtime, id, name, pod (c->path set). For tests too. */
void ctr_name_path(struct ctr *c);

#endif /* KPT_CONTAINER_H */
