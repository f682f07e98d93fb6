// SPDX-License-Identifier: GPL-2.0-or-later
/* Stage 5 for a root on the network: NFS through the kernel's client,
 * each version in turn (nfs_versions) until one mounts. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/wait.h>

#include "err.h"
#include "init/init.h"
#include "init/stages/stages.h"
#include "log.h"

/* The NFS root to mount: the command line's, or DHCP's root-path
 * (root=dhcp, or the kernel form layered over it). 0 or -1 (err set). */
static int nfs_target(struct init *in, struct nfs_root *out, bool *owned)
{
	struct netup *nu = &in->net;
	const char *rp = nu->from_dhcp && nu->lease.root_path[0] ? nu->lease.root_path : NULL;
	struct strv w = { 0 };
	int r = 0;

	*owned = false;
	if (nu->root.kind == NETROOT_NFS && !nu->root.nfs.kernel_form) {
		*out = nu->root.nfs;
		return 0;
	}
	if (nu->root.kind == NETROOT_NFS) {
		r = nfs_kernel_parse(nu->nfsroot, rp, out, &w);
	} else if (nu->root.kind == NETROOT_DHCP) {
		struct netroot dr;
		if (!rp) {
			strv_free(&w);
			return err_set("root=dhcp: the DHCP server gave no root-path");
		}
		r = netroot_from_root_path(rp, &dr, &w);
		if (r == 0 && dr.kind != NETROOT_NFS) {
			netroot_free(&dr);
			strv_free(&w);
			return err_set("root-path %s from DHCP: only NFS is supported there", rp);
		}
		if (r == 0) {
			*out = dr.nfs;
			memset(&dr.nfs, 0, sizeof(dr.nfs));
			netroot_free(&dr);
		}
	} else {
		strv_free(&w);
		return err_set("this network root is not supported yet");
	}
	for (size_t i = 0; i < w.n; i++)
		log_warn("%s", w.v[i]);
	if (r < 0) {
		r = err_set("cannot use the NFS root: %s", w.n ? w.v[w.n - 1] : "bad spec");
		strv_free(&w);
		return r;
	}
	strv_free(&w);
	if (rp)
		log_info("root-path %s from DHCP", rp);
	*owned = true;
	return 0;
}

static void free_nfs(struct nfs_root *r)
{
	free(r->server);
	free(r->path);
	free(r->options);
}

/* mount(2) of the NFS root, never past deadline (-1: none): 0, or
 * -errno (-ETIMEDOUT: no answer in time). */
static int nfs_mount(struct init *in, const struct nfs_mount *m, unsigned long flags,
		     long long deadline)
{
	pid_t pid;
	enum loop_end e;
	int st;

	if (!in->xops->mount_child)
		return in->ops->mount(m->source, "/sysroot", "nfs", flags, m->data);
	pid = in->xops->mount_child(m->source, "/sysroot", "nfs", flags, m->data);
	if (pid < 0)
		return -EAGAIN;
	e = loop_run(&in->loop, deadline, NULL, NULL, pid);
	if (e == LOOP_CHILD) {
		st = in->loop.child_status;
		if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
			return 0;
		return WIFEXITED(st) ? -WEXITSTATUS(st) : -EINTR;
	}
	/* the kernel's NFS client waits killably: end the attempt */
	kill(pid, SIGKILL);
	in->ops->waitpid(pid, &st, 0);
	return e == LOOP_TIMEOUT ? -ETIMEDOUT : -EIO;
}

int mount_net_root(struct init *in)
{
	struct netup *nu = &in->net;
	struct nfs_root nr;
	struct net_addr server = { 0 }, client = { .family = AF_INET, .v4 = nu->addr };
	const char *vers[NFS_MAX_TRIES];
	const char *ifname = nu->chosen >= 0 ? nu->v[nu->chosen].name : "?";
	char addr[INET6_ADDRSTRLEN];
	bool owned;
	int n, e = 0, ret;
	char *last_src = NULL;

	long long deadline = in->opt.timeout < 0 ? -1 : now_ms(in) + in->opt.timeout * 1000;

	if (nu->root.kind == NETROOT_HTTP)
		return mount_http_root(in);
	if ((ret = nfs_target(in, &nr, &owned)) < 0)
		return ret;
	if (nu->server.s_addr) {
		server.family = AF_INET;
		server.v4 = nu->server;
	}
	if (nu->family == AF_INET6) {
		/* the NFSv4 callback goes to the address the mount comes from */
		client.family = AF_INET6;
		client.v6 = nu->addr6;
		if (nu->ip && nu->ip->server.family == AF_INET6)
			server = nu->ip->server;
	}
	if ((e = in->ops->mkdir("/sysroot", 0755)) < 0 && e != -EEXIST) {
		ret = err_errno(e, "cannot create /sysroot");
		goto out;
	}
	e = 0;
	if (in->ml && modload_name(in->ml, "nfs") < 0)
		log_debug("nfs: %s", err_msg());
	n = nfs_versions(&nr, vers);
	for (int i = 0; i < n; i++) {
		struct nfs_mount m = { 0 };
		struct strv w = { 0 };
		unsigned long flags;

		if (nfs_mount_args(&nr, vers[i], server.family ? &server : NULL, &client, &m, &w) < 0) {
			ret = err_set("cannot mount the NFS root: %s", w.n ? w.v[w.n - 1] : "bad arguments");
			strv_free(&w);
			goto out;
		}
		strv_free(&w);
		if (in->ml)
			modload_name(in->ml, vers[i][0] == '4' ? "nfsv4" : vers[i][0] == '3' ? "nfsv3" : "nfsv2");
		flags = (m.read_only == 1 || (m.read_only < 0 && !in->opt.rw)) ? MS_RDONLY : 0;
		log_debug("mounting %s (nfs) on /sysroot, options %s", m.source, m.data);
		e = nfs_mount(in, &m, flags, deadline);
		if (e == 0) {
			log_info("mounted %s (NFS %s, %s) on /sysroot", m.source, vers[i],
				 flags & MS_RDONLY ? "ro" : "rw");
			in->fs_mounted = true;
			nfs_mount_free(&m);
			ret = 0;
			goto out;
		}
		log_debug("NFS %s: %s", vers[i], strerror(-e));
		free(last_src);
		last_src = xstrdup(m.source);
		nfs_mount_free(&m);
		/* a version the server does not speak: try the next */
		if (e != -EPROTONOSUPPORT && e != -EINVAL && e != -ENOENT && e != -EOPNOTSUPP)
			break;
	}
	net_addr_str(&client, addr);
	if (e == -ETIMEDOUT)
		ret = err_set_code(e, "cannot mount the NFS root %s from %s (%s/%d): no answer within %ld seconds",
				   last_src ? last_src : "?", ifname, addr,
				   nu->family == AF_INET6 ? nu->prefix6 : nu->prefix, in->opt.timeout);
	else
		ret = err_errno(e, "cannot mount the NFS root %s from %s (%s/%d)", last_src ? last_src : "?",
				ifname, addr, nu->family == AF_INET6 ? nu->prefix6 : nu->prefix);
out:
	free(last_src);
	if (owned)
		free_nfs(&nr);
	return ret;
}
