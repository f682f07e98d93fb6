// SPDX-License-Identifier: GPL-2.0-or-later
/* The NFS mount data the init builds for root=/dev/nfs: an
 * administrator's nfsroot= (the input's first line; none when the line
 * is empty) with a DHCP server's root-path, option 17, under it (the
 * rest, any bytes). The DHCP server is hostile (issue 24): when
 * nfsroot= names a server, every mount goes to that server: one addr=,
 * the last option, with its address, the source on it too, and no
 * port=, mountaddr=, mountport= or proto= the administrator did not
 * write. Without nfsroot=, root=dhcp's path reads the same text alone.
 * A broken rule traps, as a crash would. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "init/net/netroot.h"

/* The server an administrator's nfsroot= names, read here on its own:
 * the first comma field's "ADDRESS:" or "[ADDRESS]:" before the path. */
static int named_server(const char *nfsroot, struct net_addr *a)
{
	char text[64];
	size_t n;

	if (nfsroot[0] == '[') {
		const char *end = strchr(nfsroot, ']');
		if (!end || end[1] != ':' || (size_t)(end - nfsroot) >= sizeof(text) ||
		    memchr(nfsroot, ',', (size_t)(end - nfsroot)))
			return -1;
		n = (size_t)(end - nfsroot - 1);
		memcpy(text, nfsroot + 1, n);
	} else {
		if (nfsroot[0] < '0' || nfsroot[0] > '9')
			return -1;
		n = strcspn(nfsroot, ":,");
		if (nfsroot[n] != ':' || n >= sizeof(text))
			return -1;
		memcpy(text, nfsroot, n);
	}
	text[n] = '\0';
	return net_parse_addr(text, a);
}

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Is "KEY=…" an option of the administrator's text (after its path)?
 * Options are compared without their edge blanks, as they are split. */
static bool admin_said(const char *nfsroot, const char *opt, size_t len)
{
	const char *p = strchr(nfsroot, ',');

	while (p) {
		size_t n;
		p++;
		n = strcspn(p, ",");
		while (n && blank(*p))
			p++, n--;
		while (n && blank(p[n - 1]))
			n--;
		if (n == len && strncmp(p, opt, len) == 0)
			return true;
		p = strchr(p, ',');
	}
	return false;
}

static void check(const char *nfsroot, const struct net_addr *admin, const struct nfs_mount *m)
{
	static const char *const steer[] = { "port", "mountaddr", "mountport", "proto" };
	char want[NET_ADDR_TEXT + 8], a[NET_ADDR_TEXT];
	const char *last = strrchr(m->data, ','), *o = m->data;
	int addrs = 0;

	net_addr_str(admin, a);
	strcpy(want, ",addr=");
	strcat(want, a);
	if (!last || strcmp(last, want) != 0)
		__builtin_trap();
	if (admin->family == AF_INET6 ? (m->source[0] != '[' || strncmp(m->source + 1, a, strlen(a)) != 0 ||
					 strncmp(m->source + 1 + strlen(a), "]:", 2) != 0)
				      : (strncmp(m->source, a, strlen(a)) != 0 || m->source[strlen(a)] != ':'))
		__builtin_trap();
	/* the kernel reads each option, the last of a key winning */
	while (*o) {
		size_t len = strcspn(o, ","), key = strcspn(o, "=,");
		if (key == 4 && strncmp(o, "addr=", 5) == 0)
			addrs++; /* a bare "addr" is no address (the kernel refuses it) */
		for (size_t i = 0; i < sizeof(steer) / sizeof(steer[0]); i++)
			if (key == strlen(steer[i]) && strncmp(o, steer[i], key) == 0 && !admin_said(nfsroot, o, len))
				__builtin_trap();
		o += len;
		if (*o)
			o++;
	}
	if (addrs != 1)
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), *nl, *rp, *nfsroot;
	struct net_addr admin, client, dhcp_server;
	struct nfs_root k;
	struct strv w = { 0 };
	const char *vers[NFS_MAX_TRIES];

	memcpy(text, data, size);
	text[size] = '\0';
	nl = strchr(text, '\n');
	rp = nl ? nl + 1 : text + size;
	if (nl)
		*nl = '\0';
	nfsroot = nl && *text ? text : NULL;
	net_parse_addr("10.0.2.15", &client);
	net_parse_addr("10.0.2.2", &dhcp_server); /* siaddr: the DHCP server's word */

	if (nfs_kernel_parse(nfsroot, rp, &k, &w) == 0) {
		int named = nfsroot && named_server(nfsroot, &admin) == 0;
		int nv = nfs_versions(&k, vers);
		for (int i = 0; i < nv; i++) {
			struct nfs_mount m;
			if (nfs_mount_args(&k, vers[i], &dhcp_server, &client, &m, &w) < 0)
				continue;
			if (named)
				check(nfsroot, &admin, &m);
			else if (!strstr(m.data, ",addr=") || strstr(m.data, ",addr=") != strrchr(m.data, ','))
				__builtin_trap(); /* addr= is ours, once, last */
			nfs_mount_free(&m);
		}
		free(k.server);
		free(k.path);
		free(k.options);
	}
	/* root=dhcp: the root-path alone, any spec it holds */
	{
		struct netroot r;
		if (netroot_from_root_path(rp, &r, &w) == 0 && r.kind == NETROOT_NFS) {
			int nv = nfs_versions(&r.nfs, vers);
			for (int i = 0; i < nv; i++) {
				struct nfs_mount m;
				if (nfs_mount_args(&r.nfs, vers[i], &dhcp_server, &client, &m, &w) == 0)
					nfs_mount_free(&m);
			}
		}
		netroot_free(&r);
	}
	strv_free(&w);
	free(text);
	return 0;
}
