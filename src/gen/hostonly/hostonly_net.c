// SPDX-License-Identifier: GPL-2.0-or-later
/* Hostonly for a network root (issue 11): an nfs/nfs4 root mount, a root
 * disk under an iSCSI session, or /dev/nbdN (NVMe over TCP: hostonly_nvmf.c).
 * From the server's address
 * the routing table (/proc/net/route, /proc/net/ipv6_route) gives the
 * interface, and /sys/class/net/IFACE/device its NIC's driver; then the
 * command line the init needs is written in dracut's spellings:
 * netroot=nfs4:SERVER:/PATH, netroot=iscsi:SERVER::PORT:LUN:TARGET with
 * rd.iscsi.initiator=, netroot=nbd:SERVER:PORT[/EXPORT][:FSTYPE], and
 * ifname=IFACE:MAC ip=IFACE:dhcp. Everything read here comes from the
 * host and is checked before it goes on a command line. */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "gen/hostonly/hostonly_net_priv.h"
#include "gen/hostonly/hostonly_priv.h"
#include "log.h"

#define MAX_DEPTH 16

bool hostonly_net_is_nfs(const char *fstype)
{
	return !strcmp(fstype, "nfs") || !strcmp(fstype, "nfs4");
}

void hostonly_net_free(struct hostonly_net *n)
{
	free(n->kind);
	free(n->server);
	free(n->iface);
	strv_free(&n->cmdline);
	memset(n, 0, sizeof(*n));
}

/* An address as a netroot= server: IPv6 in brackets. */
static char *server_field(const char *addr)
{
	return strchr(addr, ':') ? xasprintf("[%s]", addr) : xstrdup(addr);
}

static void set_net(const struct ctx *c, const char *kind, const char *server)
{
	struct hostonly_net *n = &c->h->net;

	free(n->kind);
	free(n->server);
	n->kind = xstrdup(kind);
	n->server = server ? xstrdup(server) : NULL;
}

/* ---- NFS ---- */

/* "SERVER:/PATH" or "[V6]:/PATH"; -EINVAL for anything else (the
 * caller says it). */
static int split_source(const char *source, char **host, const char **path)
{
	const char *colon;

	if (source[0] == '[') {
		const char *end = strchr(source, ']');
		if (!end || end[1] != ':')
			return -EINVAL;
		*host = xstrndup(source + 1, (size_t)(end - source - 1));
		colon = end + 1;
	} else {
		colon = strchr(source, ':');
		if (!colon)
			return -EINVAL;
		*host = xstrndup(source, (size_t)(colon - source));
	}
	*path = colon + 1;
	if (**path != '/') {
		free(*host);
		return -EINVAL;
	}
	return 0;
}

int hostonly_net_nfs(const struct ctx *c, const struct mount *root)
{
	bool v4 = !strcmp(root->fstype, "nfs4");
	char *host = NULL, *addr, *vers = optlist_value(root->opts, "vers"), *srv, *spec, *t;
	const char *path;
	int family, r;

	if (split_source(root->source, &host, &path) < 0) {
		t = hostonly_printable(root->source);
		err_set("the root filesystem is %s on \"%s\", not SERVER:/PATH", root->fstype, t);
		free(t);
		free(vers);
		return err_code();
	}
	/* The kernel records the address it mounted from: a name in the
	 * source is no use to an initramfs that resolves none. */
	addr = optlist_value(root->opts, "addr");
	if (!addr)
		addr = xstrdup(host);
	if (!hostonly_net_is_addr(addr, &family)) {
		t = hostonly_printable(addr);
		err_set("the root is %s from \"%s\", not an IP address (the initramfs resolves no names), "
			"and mountinfo gives no addr=", root->fstype, t);
		r = err_code();
		goto out;
	}
	if (strchr(path, ':')) {
		t = hostonly_printable(path);
		err_set("NFS root path \"%s\" has a ':', which ends the path in netroot=nfs:", t);
		r = err_code();
		goto out;
	}
	set_net(c, "nfs", addr);
	hostonly_net_push_module(c, "nfs");
	hostonly_net_push_module(c, v4 ? "nfsv4" : vers && vers[0] == '2' ? "nfsv2" : "nfsv3");
	srv = server_field(addr);
	/* nfs4: lets the init try 4.2, 4.1, 4.0; nfs: names the host's version. */
	if (v4 || !vers)
		spec = xasprintf("%s:%s:%s", v4 ? "nfs4" : "nfs", srv, path);
	else
		spec = xasprintf("nfs:%s:%s:vers=%s", srv, path, vers);
	free(srv);
	r = hostonly_net_push_word(c, "netroot", spec, "the NFS root");
	free(spec);
	if (r == 0)
		r = hostonly_net_reach_server(c);
out:
	free(host);
	free(addr);
	free(vers);
	return r;
}

/* ---- iSCSI ---- */

/* "sessionN" in a /sys/devices path, or NULL. */
static char *session_of(const char *path)
{
	for (const char *p = strstr(path, "/session"); p; p = strstr(p + 1, "/session")) {
		const char *d = p + 8;
		size_t n = strspn(d, "0123456789");
		if (n && (d[n] == '/' || !d[n]))
			return xstrndup(p + 1, 7 + n);
	}
	return NULL;
}

/* The LUN: the last field of the SCSI device "H:C:T:L" above "/block/". */
static char *lun_of(const char *path)
{
	const char *blk = strstr(path, "/block/"), *start, *colon;

	if (!blk)
		return NULL;
	for (start = blk; start > path && start[-1] != '/'; start--)
		;
	colon = memrchr(start, ':', (size_t)(blk - start));
	if (!colon || colon + 1 == blk || strspn(colon + 1, "0123456789") != (size_t)(blk - colon - 1))
		return NULL;
	return xstrndup(colon + 1, (size_t)(blk - colon - 1));
}

/* The first connection of sessionN: /sys/class/iscsi_connection/connectionN:0. */
static char *connection_dir(const struct ctx *c, const char *session)
{
	char *dirpath = at_root(c, "/sys/class/iscsi_connection");
	char *prefix = xasprintf("connection%s:", session + 7), *found = NULL;
	struct dirent **ents = NULL;
	int n = scandir(dirpath, &ents, NULL, alphasort);

	for (int i = 0; i < n; i++) {
		if (!found && str_has_prefix(ents[i]->d_name, prefix))
			found = xasprintf("%s/%s", dirpath, ents[i]->d_name);
		free(ents[i]);
	}
	free(ents);
	free(prefix);
	free(dirpath);
	return found;
}

static int iscsi_root(const struct ctx *c, const char *session, const char *lun)
{
	char *sdir = xasprintf("%s/sys/class/iscsi_session/%s", c->root, session);
	char *target = read_attr(sdir, "targetname"), *initiator = read_attr(sdir, "initiatorname");
	char *user = read_attr(sdir, "username"), *cdir = connection_dir(c, session);
	char *addr = cdir ? read_attr(cdir, "persistent_address") : NULL;
	char *port = cdir ? read_attr(cdir, "persistent_port") : NULL;
	char *srv = NULL, *spec = NULL, *t;
	int family, r = 0;

	if (!target || !*target) {
		r = err_set("the root is on iSCSI %s, but %s has no targetname", session, sdir);
		goto out;
	}
	if (!addr || !hostonly_net_is_addr(addr, &family)) {
		t = addr ? hostonly_printable(addr) : NULL;
		r = err_set("the root is on iSCSI %s, but its connection has no address%s%s%s", session,
			t ? " (\"" : "", t ? t : "", t ? "\" is not one)" : "");
		free(t);
		goto out;
	}
	if (port && (!*port || strspn(port, "0123456789") != strlen(port) || strlen(port) > 5 ||
		     atoi(port) < 1 || atoi(port) > 65535)) {
		t = hostonly_printable(port);
		r = err_set("iSCSI %s: persistent_port \"%s\" is not a port", session, t);
		free(t);
		goto out;
	}
	/* The init's iscsi: parser takes no white space in the name (nor
	 * does RFC 3720): refuse it here, naming it, not at boot. */
	for (const unsigned char *p = (const unsigned char *)target; *p; p++)
		if (*p <= ' ' || *p >= 0x7f || *p == '"') {
			t = hostonly_printable(target);
			r = err_set("iSCSI %s: target name \"%s\" has a space, quote or control character: "
				"it cannot go on the kernel command line", session, t);
			free(t);
			goto out;
		}
	if (user && *user && strcmp(user, "(null)") != 0)
		log_warn("hostonly: iSCSI %s logs in with CHAP: the image carries no secret; give "
			 "rd.iscsi.username= and rd.iscsi.password= on the kernel command line", session);
	/* the init's iscsi: parser takes 0 to 16383 */
	if (strlen(lun) > 5 || atoi(lun) > 16383) {
		r = err_set("iSCSI %s: LUN %s is past 16383, which netroot=iscsi: cannot carry", session, lun);
		goto out;
	}
	set_net(c, "iscsi", addr);
	hostonly_net_push_module(c, "iscsi_tcp");
	srv = server_field(addr);
	spec = xasprintf("iscsi:%s::%s:%s:%s", srv, port && strcmp(port, "3260") ? port : "", lun, target);
	r = hostonly_net_push_word(c, "netroot", spec, "the iSCSI root");
	if (r == 0 && initiator && *initiator)
		r = hostonly_net_push_word(c, "rd.iscsi.initiator", initiator, "the iSCSI initiator name");
	if (r == 0)
		r = hostonly_net_reach_server(c);
out:
	free(spec);
	free(srv);
	free(port);
	free(addr);
	free(cdir);
	free(user);
	free(initiator);
	free(target);
	free(sdir);
	return r;
}

/* ---- NBD ---- */

/* nbd-client's options that take a value (nbd-client(8)). */
static bool takes_value(const char *o)
{
	static const char *const with[] = { "N", "name", "b", "block-size", "t", "timeout", "C", "connections",
					    "i", "identifier", "F", "certfile", "K", "keyfile", "A", "cacertfile",
					    "H", "tlshostname", "u", "unix" };
	while (*o == '-')
		o++;
	for (size_t i = 0; i < sizeof(with) / sizeof(with[0]); i++)
		if (!strcmp(o, with[i]))
			return true;
	return false;
}

/* nbd-client's command line from /proc/PID/cmdline: "nbd-client [OPTS]
 * HOST [PORT] /dev/nbdN [OPTS]" with -N EXPORT. */
static void parse_nbd_client(char *data, size_t len, char **host, char **port, char **export)
{
	int pos = 0;

	for (size_t i = strlen(data) + 1; i < len; i += strlen(data + i) + 1) {
		const char *a = data + i;
		if (a[0] == '-') {
			bool named = !strcmp(a, "-N") || !strcmp(a, "-name") || !strcmp(a, "--name");
			if (takes_value(a) && i + strlen(a) + 1 < len) {
				i += strlen(a) + 1;
				if (named && !*export)
					*export = xstrdup(data + i);
			}
			continue;
		}
		if (pos == 0)
			*host = xstrdup(a);
		else if (pos == 1 && *a && strspn(a, "0123456789") == strlen(a))
			*port = xstrdup(a);
		pos++;
	}
}

static int nbd_root(const struct ctx *c, const char *disk, const char *name, const char *fstype)
{
	char *pid = read_attr(disk, "pid"), *data = NULL, *host = NULL, *port = NULL, *export = NULL;
	char *srv, *spec, *t;
	size_t len = 0;
	int family, r;

	set_net(c, "nbd", NULL);
	hostonly_net_push_module(c, "nbd");
	if (pid && *pid && strspn(pid, "0123456789") == strlen(pid)) {
		char *p = xasprintf("%s/proc/%s/cmdline", c->root, pid);
		if (read_file(p, &data, &len) == 0)
			parse_nbd_client(data, len, &host, &port, &export);
		free(p);
	}
	r = 0;
	if (!host || !hostonly_net_is_addr(host, &family)) {
		t = host ? hostonly_printable(host) : NULL;
		log_warn("hostonly: the root is on %s, but %s: give nbdroot=SERVER:PORT/EXPORT with --cmdline", name,
			 t ? "its server is a name (the initramfs resolves none)"
			   : "no nbd-client tells its server");
		free(t);
		goto out;
	}
	if (export && strpbrk(export, ":/")) {
		t = hostonly_printable(export);
		err_set("NBD export \"%s\" has a ':' or '/', which netroot=nbd: cannot carry", t);
		free(t);
		r = err_code();
		goto out;
	}
	set_net(c, "nbd", host);
	srv = server_field(host);
	spec = xasprintf("nbd:%s:%s%s%s:%s", srv, port ? port : "10809", export ? "/" : "", export ? export : "",
			 fstype);
	free(srv);
	r = hostonly_net_push_word(c, "netroot", spec, "the NBD root");
	free(spec);
	if (r == 0)
		r = hostonly_net_reach_server(c);
out:
	free(export);
	free(port);
	free(host);
	free(data);
	free(pid);
	return r;
}

/* ---- the root device ---- */

static bool is_nbd_name(const char *name)
{
	return str_has_prefix(name, "nbd") && name[3] && strspn(name + 3, "0123456789") == strlen(name + 3);
}

/* From the root device down its slaves (LVM or LUKS on an iSCSI disk)
 * to the first disk on the network. */
static int find_net_disk(const struct ctx *c, const char *dir, const char *fstype, int depth)
{
	char *disk = xstrdup(dir), *part = xasprintf("%s/partition", dir), *session, *slaves;
	struct dirent **ents = NULL;
	int n, r = 0;

	if (access(part, F_OK) == 0)
		*strrchr(disk, '/') = '\0';
	free(part);
	if ((session = session_of(disk))) {
		char *lun = lun_of(disk);
		r = lun ? iscsi_root(c, session, lun)
			: err_set("the root is on iSCSI %s, but %s is not under a SCSI device H:C:T:L", session, disk);
		free(lun);
		free(session);
		free(disk);
		return r;
	}
	if (is_nbd_name(strrchr(disk, '/') + 1)) {
		r = nbd_root(c, disk, strrchr(disk, '/') + 1, fstype);
		free(disk);
		return r;
	}
	if ((r = hostonly_net_nvmf(c, disk)) <= 0) { /* 1: not NVMe over Fabrics */
		free(disk);
		return r;
	}
	r = 0;
	slaves = xasprintf("%s/slaves", disk);
	n = depth < MAX_DEPTH ? scandir(slaves, &ents, NULL, alphasort) : 0;
	for (int i = 0; i < n; i++) {
		if (r == 0 && !c->h->net.kind && ents[i]->d_name[0] != '.') {
			char *link = xasprintf("%s/%s", slaves, ents[i]->d_name), *real = NULL;
			if (hostonly_resolve_link(c, link, &real) == 0)
				r = find_net_disk(c, real, fstype, depth + 1);
			free(real);
			free(link);
		}
		free(ents[i]);
	}
	free(ents);
	free(slaves);
	free(disk);
	return r;
}

int hostonly_net_block(const struct ctx *c, const char *majmin, const char *fstype)
{
	char *link = xasprintf("%s/sys/dev/block/%s", c->root, majmin), *real = NULL;
	int r = hostonly_resolve_link(c, link, &real);

	free(link);
	if (r == 0)
		r = find_net_disk(c, real, fstype, 0);
	free(real);
	return r < 0 ? -1 : 0;
}
