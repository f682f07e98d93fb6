// SPDX-License-Identifier: GPL-2.0-or-later
/* Which of several configured interfaces the root's servers are
 * reached through (netkeep.h). */
#include "init/netboot/netkeep.h"

#include <arpa/inet.h>
#include <string.h>

#include "init/netboot/netup.h"
#include "log.h"

#define MAX_SERVERS 16

static void add(struct in_addr *v, size_t *n, const char *s)
{
	struct in_addr a;

	if (s && *n < MAX_SERVERS && net_parse_ipv4(s, &a) == 0)
		v[(*n)++] = a;
}

/* The root's servers as IPv4 addresses (names were resolved before). */
static size_t servers(const struct netup *nu, struct in_addr *v)
{
	const struct netroot *r = &nu->root;
	size_t n = 0;

	if (r->kind == NETROOT_NFS && !r->nfs.kernel_form)
		add(v, &n, r->nfs.server);
	if (r->kind == NETROOT_NFS && r->nfs.kernel_form && nu->nfsroot) {
		char host[NET_ADDR_TEXT];
		size_t l = strcspn(nu->nfsroot, ":/,");
		if (nu->nfsroot[l] == ':' && l < sizeof(host)) {
			memcpy(host, nu->nfsroot, l);
			host[l] = '\0';
			add(v, &n, host);
		}
	}
	if (r->kind == NETROOT_ISCSI) {
		add(v, &n, r->iscsi.target.server);
		for (size_t i = 0; i < r->iscsi.nmore; i++)
			add(v, &n, r->iscsi.more[i].server);
	}
	if (r->kind == NETROOT_NBD)
		add(v, &n, r->nbd.server);
	if (!n && nu->server.s_addr)
		v[n++] = nu->server;
	return n;
}

static bool on_link(const struct netif *ni, const struct in_addr *srv, size_t n)
{
	uint32_t mask = ni->prefix > 0 ? htonl(~0u << (32 - ni->prefix)) : 0;

	for (size_t i = 0; i < n; i++)
		if (ni->prefix > 0 && (srv[i].s_addr & mask) == (ni->addr.s_addr & mask))
			return true;
	return false;
}

bool netkeep_reaches_all(const struct netup *nu)
{
	struct in_addr srv[MAX_SERVERS];
	size_t n = servers(nu, srv), want = 0;

	if (nu->root.kind == NETROOT_ISCSI)
		want = 1 + nu->root.iscsi.nmore;
	if (!n || n != want)
		return false; /* a name, not resolved yet: not known */
	for (size_t i = 0; i < n; i++) {
		bool reached = false;
		for (size_t j = 0; j < nu->n && !reached; j++)
			reached = nu->v[j].up && nu->v[j].configured && on_link(&nu->v[j], &srv[i], 1);
		if (!reached)
			return false;
	}
	return true;
}

void netkeep_prune(struct netup *nu)
{
	struct in_addr srv[MAX_SERVERS];
	size_t n = servers(nu, srv), configured = 0, reaching = 0;
	const char *via = NULL;

	for (size_t i = 0; i < nu->n; i++) {
		const struct netif *ni = &nu->v[i];
		if (!ni->up || !ni->configured)
			continue;
		configured++;
		if (on_link(ni, srv, n)) {
			reaching++;
			via = ni->name;
		}
	}
	if (configured < 2 || !reaching)
		return;
	for (size_t i = 0; i < nu->n; i++) {
		struct netif *ni = &nu->v[i];
		char a[INET_ADDRSTRLEN];
		if (!ni->up || !ni->configured || on_link(ni, srv, n))
			continue;
		nl_addr(&nu->nl, false, ni->ifindex, ni->addr, ni->prefix);
		nl_link_set(&nu->nl, ni->ifindex, false, 0, NULL);
		ni->up = false;
		log_info("%s: down (%s/%d): the root's server%s reached through %s", ni->name,
			 inet_ntop(AF_INET, &ni->addr, a, sizeof(a)), ni->prefix, n > 1 ? "s are" : " is",
			 reaching > 1 ? "other interfaces" : via);
	}
}
