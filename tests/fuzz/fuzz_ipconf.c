// SPDX-License-Identifier: GPL-2.0-or-later
/* The network words of a kernel command line (ip=, ifname=, BOOTIF=,
 * nameserver=, root=, netroot=, nfsroot=, nbdroot=, rd.iscsi.*), then
 * the NFS mount arguments and the IFACE.conf built from them, and the
 * same bytes as a DHCP root-path. A boot loader's line must never
 * crash PID 1. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cmdline.h"
#include "log.h"
#include "init/net/ipconf.h"
#include "init/net/netconf.h"
#include "init/net/nethandover.h"
#include "init/net/netroot.h"

/* The kernel form root=/dev/nfs nfsroot=…: DHCP's root-path (the text
 * after the first newline, else all of it) layered under the
 * administrator's nfsroot=. Whatever the root-path says, the mount goes
 * to the server nfsroot= names: its address is the last option (issue
 * 24). A violation traps, as a crash would. */
static void nfs_under_nfsroot(const struct cmdline *c, const char *text, const struct net_addr *server,
			      const struct net_addr *client, struct strv *w)
{
	const struct cmdline_param *p = cmdline_last(c, "nfsroot");
	const char *nl = strchr(text, '\n'), *rp = nl ? nl + 1 : text;
	struct nfs_root k;
	struct net_addr named;
	const char *vers[NFS_MAX_TRIES];
	int nv;

	if (!p || !p->val || !*p->val || nfs_kernel_parse(p->val, rp, &k, w) < 0)
		return;
	nv = nfs_versions(&k, vers);
	for (int i = 0; i < nv; i++) {
		struct nfs_mount m;
		if (nfs_mount_args(&k, vers[i], server, client, &m, w) < 0)
			continue;
		if (k.server && net_parse_addr(k.server, &named) == 0) {
			char a[NET_ADDR_TEXT], *want;
			const char *last = strrchr(m.data, ',');
			net_addr_str(&named, a);
			want = malloc(strlen(a) + 7);
			strcpy(want, ",addr=");
			strcat(want, a);
			if (!last || strcmp(last, want) != 0)
				__builtin_trap();
			free(want);
		}
		nfs_mount_free(&m);
	}
	free(k.server);
	free(k.path);
	free(k.options);
}

/* What the log does to every message (log.h): nothing it writes may
 * be a control character, and escaping twice changes nothing. */
static void escaped(const char *text)
{
	static char once[8192], twice[8192];
	size_t n = log_escape(once, sizeof(once), text);

	for (size_t i = 0; i < n; i++)
		if ((unsigned char)once[i] < 0x20 || once[i] == 0x7f ||
		    ((unsigned char)once[i] == 0xc2 && (unsigned char)once[i + 1] < 0xa0))
			__builtin_trap();
	log_escape(twice, sizeof(twice), once);
	if (strcmp(once, twice) != 0)
		__builtin_trap();
}

/* A secret the command line gives (CHAP's password, in a spec or in
 * rd.iscsi.password=) never shows in the text every message quotes.
 * Told apart by a byte above ASCII that the line holds only inside
 * that one copy of the secret: if netroot_shown gives that byte back,
 * part of the secret went out. */
static void masked(const char *text, const char *shown, const char *secret)
{
	for (const unsigned char *b = (const unsigned char *)secret; secret && *b; b++) {
		size_t in_text = 0, in_secret = 0;
		if (*b < 0x80)
			continue;
		for (const char *t = text; *t; t++)
			in_text += (unsigned char)*t == *b;
		for (const char *t = secret; *t; t++)
			in_secret += (unsigned char)*t == *b;
		if (in_text == in_secret && strchr(shown, *b))
			__builtin_trap();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cmdline c = { 0 };
	struct net_cmdline n;
	struct netroot r;
	struct strv w = { 0 };
	struct net_addr client = { 0 }, server = { 0 };
	char *text = malloc(size + 1);

	memcpy(text, data, size);
	text[size] = '\0';
	cmdline_parse(&c, text);
	net_cmdline_parse(&n, &c);
	for (size_t i = 0; i < n.n_ip; i++) {
		struct net_conf nc;
		struct buf b = { 0 };
		net_conf_from_ip(&nc, n.ip[i].device ? n.ip[i].device : "eth0", &n.ip[i]);
		net_conf_render(&nc, &b, &w);
		net_resolv_render(&nc, n.nameserver, n.n_nameserver, n.peerdns, &b, &w);
		/* what the real system reads: initramfs-tools', networkd's, NM's */
		net_conf_render_klibc(&nc, &b, &w);
		net_networkd_render(&nc, &b);
		net_nm_unmanaged_render(nc.device, &b);
		net_iscsi_initiator_render(nc.hostname, &b);
		buf_free(&b);
		if (n.ip[i].client.family)
			client = n.ip[i].client;
		if (n.ip[i].server.family)
			server = n.ip[i].server;
	}
	int nr = netroot_from_cmdline(&c, &r, &w);
	if (nr == 0 && r.kind == NETROOT_ISCSI) {
		char *shown = netroot_shown(text);
		masked(text, shown, r.iscsi.target.password);
		masked(text, shown, r.iscsi.target.in_password);
		free(shown);
	}
	if (nr == 0 && r.kind == NETROOT_NFS) {
		const char *vers[NFS_MAX_TRIES];
		int nv = nfs_versions(&r.nfs, vers);
		for (int i = 0; i < nv; i++) {
			struct nfs_mount m;
			if (nfs_mount_args(&r.nfs, vers[i], &server, &client, &m, &w) == 0)
				nfs_mount_free(&m);
		}
	}
	netroot_free(&r);
	nfs_under_nfsroot(&c, text, &server, &client, &w);
	free(netroot_shown(text));
	escaped(text);
	if (netroot_from_root_path(text, &r, &w) == 0)
		netroot_free(&r);
	netroot_free(&r);
	net_cmdline_free(&n);
	cmdline_free(&c);
	strv_free(&w);
	free(text);
	return 0;
}
