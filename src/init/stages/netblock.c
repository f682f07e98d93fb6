// SPDX-License-Identifier: GPL-2.0-or-later
/* A root on a network block device: once the network is up, a job
 * (it blocks) runs iscsistart or nbd-client; the disk then comes as any
 * disk does (an iSCSI LUN's driver, sd_mod, by modalias) and root=
 * finds it in the registry. */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "init/init.h"
#include "init/net/nethandover.h"
#include "init/stack/stack.h"
#include "init/stages/stages.h"
#include "log.h"

#define DEFAULT_INITIATOR "iqn.2026-12.org.uniramfs:initiator"

static void handover_file(struct init *in, const char *const dirs[], const char *name, const struct buf *b)
{
	int e = net_run_file_write(in->ops, dirs, name, b->p ? b->p : "", b->len);

	if (e < 0)
		log_warn("cannot write %s/%s: %s", dirs[0], name, strerror(-e));
}

/* What the root's open-iscsi needs from a login the init made: Debian's
 * /run/initramfs/open-iscsi.interface (its udev handler keeps ifupdown
 * off that interface, its shutdown logs out last), and the initiator
 * name for iscsid (nethandover.h). */
static void iscsi_handover(struct init *in, const char *iqn)
{
	const struct netup *nu = &in->net;
	struct buf b = { 0 };

	if (nu->chosen >= 0) {
		static const char *const d[] = { "/run/initramfs", NULL };
		buf_printf(&b, "%s\n", nu->v[nu->chosen].name);
		handover_file(in, d, "open-iscsi.interface", &b);
		buf_free(&b);
	}
	if (net_iscsi_initiator_render(iqn, &b) < 0) {
		log_warn("iSCSI: the initiator name is not one iscsid can read: the root's iscsid keeps its own");
		return;
	}
	{
		static const char *const d[] = { "/run/uniramfs", NET_ISCSI_NAME_DIR, NULL };
		handover_file(in, d, NET_ISCSI_NAME_FILE, &b);
	}
	buf_free(&b);
	net_iscsid_dropin_render(&b);
	{
		static const char *const d[] = { "/run/systemd", "/run/systemd/system.control",
						 NET_ISCSID_DROPIN_DIR, NULL };
		handover_file(in, d, NET_ISCSID_DROPIN_NAME, &b);
	}
	buf_free(&b);
}

/* "eth0 (IPv4 10.0.2.15/24)": where a login went out from, for its
 * failure (malloc'd). */
static char *sent_from(const struct init *in)
{
	const struct netup *nu = &in->net;
	char a[INET_ADDRSTRLEN];

	if (nu->chosen < 0)
		return xstrdup("no configured interface");
	return xasprintf("%s (IPv4 %s/%d)", nu->v[nu->chosen].name, inet_ntop(AF_INET, &nu->addr, a, sizeof(a)),
			 nu->prefix);
}

/* What iscsistart's exit status says (open-iscsi's iscsi_err.h), for
 * the ones a login meets; "" for the others. */
static const char *iscsi_status_str(int st)
{
	switch (st) {
	case 4:
		return " (a transport error: no connection)";
	case 5:
		return " (the login failed)";
	case 8:
		return " (no connection within the timeout: nothing answered)";
	case 11:
		return " (an iSCSI request timed out)";
	case 12:
		return " (the iscsi_tcp transport is not loaded)";
	case 19:
		return " (the target refused the login)";
	case 21:
		return " (no such target)";
	case 24:
		return " (the target refused the login: authorization failed)";
	}
	return "";
}

/* One iscsistart for t (from the command line, DHCP or the iBFT, read
 * and checked by ibftboot.c: never iscsistart -b, which would read the
 * table again unchecked). Its exit status (-1: it did not run), said
 * when not 0. */
static int login_one(struct init *in, const struct iscsi_root *r, const struct iscsi_target *t)
{
	char port[16];
	struct strv argv = { 0 };
	int st;

	snprintf(port, sizeof(port), "%u", t->port ? t->port : 3260);
	strv_push(&argv, "iscsistart");
	strv_push(&argv, "-i");
	strv_push(&argv, r->initiator ? r->initiator : DEFAULT_INITIATOR);
	strv_push(&argv, "-t");
	strv_push(&argv, t->name ? t->name : "");
	strv_push(&argv, "-g");
	strv_push(&argv, "1");
	strv_push(&argv, "-a");
	strv_push(&argv, t->server ? t->server : "");
	strv_push(&argv, "-p");
	strv_push(&argv, port);
	if (t->user && t->password) {
		strv_push(&argv, "-u");
		strv_push(&argv, t->user);
		strv_push(&argv, "-w");
		strv_push(&argv, t->password);
	}
	if (t->in_user && t->in_password) {
		strv_push(&argv, "-U");
		strv_push(&argv, t->in_user);
		strv_push(&argv, "-W");
		strv_push(&argv, t->in_password);
	}
	/* an IPv6 server in brackets, as a portal is written */
	log_info("iSCSI: logging in to %s at %s%s%s:%s", t->name ? t->name : "?",
		 t->server && strchr(t->server, ':') ? "[" : "", t->server ? t->server : "?",
		 t->server && strchr(t->server, ':') ? "]" : "", port);
	st = tool_run(&in->stack_env, "iscsistart", argv.v, NULL, 0);
	/* a tool that did not run is "status -1" (docs/messages.md) */
	if (st < 0) {
		log_err("iscsistart for %s exited with status -1: %s", t->name ? t->name : "?", err_msg());
	} else if (st != 0) {
		char *from = sent_from(in);
		log_err("iscsistart for %s exited with status %d%s: the target at %s:%s, from %s",
			t->name ? t->name : "?", st, iscsi_status_str(st), t->server ? t->server : "?", port, from);
		free(from);
	}
	strv_free(&argv);
	return st;
}

static enum job_result iscsi_login(void *ctx, void *data)
{
	struct init *in = ctx;
	const struct iscsi_root *r = &in->net.root.iscsi;
	bool logged_in = false;

	(void)data;
	if (in->ml && modload_name(in->ml, "iscsi_tcp") < 0)
		log_warn("iscsi_tcp: %s", err_msg());
	/* the connection's digests ask the crypto API for crc32c: loaded
	 * here, before the login, rather than on the kernel's request */
	if (in->ml && modload_alias(in->ml, "crypto-crc32c") <= 0)
		log_debug("no module for crc32c in the image (built in?)");
	logged_in = login_one(in, r, &r->target) == 0;
	/* more portals of the LUN (multipath): each path that logs in is a
	 * disk of its own, the multipath plugin's claim row makes the map */
	for (size_t i = 0; i < r->nmore; i++)
		logged_in |= login_one(in, r, &r->more[i]) == 0;
	if (logged_in) /* else said by login_one */
		iscsi_handover(in, r->initiator ? r->initiator : DEFAULT_INITIATOR);
	return JOB_DONE;
}

#define NBD_DEVICE NETROOT_NBD_DEVICE

static enum job_result nbd_connect(void *ctx, void *data)
{
	struct init *in = ctx;
	const struct nbd_root *r = &in->net.root.nbd;
	char port[16];
	struct strv argv = { 0 };
	int st;

	(void)data;
	if (in->ml && modload_name(in->ml, "nbd") < 0)
		log_warn("nbd: %s", err_msg());
	snprintf(port, sizeof(port), "%u", r->port ? r->port : 10809);
	/* The root lives on this connection until the very end: systemd's
	 * shutdown spares a process whose argv[0] starts with '@' (its
	 * ROOT_STORAGE_DAEMONS convention; -systemd-mark does the same from
	 * inside), and -persist reconnects instead of failing the root when
	 * the server restarts. Both matter when nbd-client stays to serve
	 * the device (ioctl mode); over netlink, Debian's default, it hands
	 * the socket to the kernel and exits, and they cost nothing. */
	strv_push(&argv, "@nbd-client");
	strv_push(&argv, r->server);
	strv_push(&argv, port);
	strv_push(&argv, NBD_DEVICE);
	if (r->export) {
		strv_push(&argv, "-N");
		strv_push(&argv, r->export);
	}
	strv_push(&argv, "-persist");
	strv_push(&argv, "-systemd-mark");
	log_info("NBD: connecting " NBD_DEVICE " to %s:%s%s%s", r->server, port,
		 r->export ? " export " : "", r->export ? r->export : "");
	st = tool_run(&in->stack_env, "nbd-client", argv.v, NULL, 0);
	if (st != 0) {
		char *from = sent_from(in);
		log_err("nbd-client for %s:%s exited with status %d, from %s (its own message says what the "
			"server answered)", r->server, port, st < 0 ? -1 : st, from);
		free(from);
	}
	strv_free(&argv);
	return JOB_DONE;
}

/* netroot=dhcp (root=dhcp) whose root-path names a disk, nbd: or
 * iscsi:, as dracut reads it: the root becomes that disk's, for the
 * job below and the block path after (sequence.c). An NFS root-path
 * stays to netmount.c. */
static void root_from_lease(struct init *in)
{
	struct netup *nu = &in->net;
	const char *rp = nu->lease.root_path;
	struct netroot dr;
	struct strv w = { 0 };
	char *shown;

	if (nu->root.kind != NETROOT_DHCP || !nu->from_dhcp ||
	    !(str_has_prefix(rp, "nbd:") || str_has_prefix(rp, "iscsi:")))
		return;
	shown = netroot_shown(rp);
	if (netroot_from_root_path(rp, &dr, &w) == 0) {
		log_info("root-path %s from DHCP", shown);
		/* the command line's rd.iscsi.initiator= still names us */
		if (dr.kind == NETROOT_ISCSI && nu->root.iscsi.initiator && !dr.iscsi.initiator) {
			dr.iscsi.initiator = nu->root.iscsi.initiator;
			nu->root.iscsi.initiator = NULL;
		}
		netroot_free(&nu->root);
		nu->root = dr;
	}
	for (size_t i = 0; i < w.n; i++)
		log_warn("%s", w.v[i]);
	strv_free(&w);
	free(shown);
}

void netblock_up(void *arg)
{
	struct init *in = arg;
	struct job j = { .what = "iSCSI login", .run = iscsi_login, .ctx = in };

	root_from_lease(in);
	if (in->net.names_error) {
		/* the server is a name nobody could resolve: no tool would
		 * get further */
		log_err("%s: %s", in->net.root.kind == NETROOT_NBD ? "NBD: not connected" : "iSCSI: not logged in",
			in->net.names_error);
		return;
	}
	if (in->root_netdev && in->net.root.kind == NETROOT_ISCSI) {
		/* the LUN's by-path name holds the server's address: a server
		 * given by name is an address only now */
		const char *fstype, *flags;
		char *spec = netroot_root_spec(&in->net.root, NULL, &fstype, &flags);
		if (spec && strcmp(spec, in->opt.root)) {
			log_debug("the root is %s", spec);
			free(in->opt.root);
			in->opt.root = spec;
		} else {
			free(spec);
		}
	}
	if (in->net.root.kind == NETROOT_NBD && in->net.root.nbd.server) {
		j.what = "NBD connect";
		j.run = nbd_connect;
		jobq_push(&in->jobs, &j);
		return;
	}
	if (in->net.root.kind != NETROOT_ISCSI && !in->net.root.iscsi.firmware)
		return;
	if (!in->net.root.iscsi.target.name || !in->net.root.iscsi.target.server) {
		/* rd.iscsi.firmware whose table could not be read: said by ibftboot.c */
		if (!in->net.root.iscsi.firmware)
			log_err("iSCSI: the target needs a server address and a name");
		return;
	}
	jobq_push(&in->jobs, &j);
}

/* root=nbd:… or root=iscsi:… names the network disk itself, and so
 * does a netroot= of them with no root= (or root=/dev/root): the root
 * is the device that session brings, mounted like any other. */
void use_netroot_device(struct init *in)
{
	const char *fstype, *flags;
	char *spec = netroot_root_spec(&in->net.root, in->opt.root, &fstype, &flags);

	if (!spec)
		return;
	if (in->opt.root) {
		char *shown = netroot_shown(in->opt.root); /* iscsi:USER:PASS@… */
		log_debug("root=%s: the root is %s", shown, spec);
		free(shown);
	} else {
		log_debug("no root=: the root is the network disk, %s", spec);
	}
	free(in->opt.root);
	in->opt.root = spec;
	in->root_netdev = true;
	if (fstype && !in->opt.rootfstype)
		in->opt.rootfstype = xstrdup(fstype);
	if (flags && !in->opt.rootflags)
		in->opt.rootflags = xstrdup(flags);
}
