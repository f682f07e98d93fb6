// SPDX-License-Identifier: GPL-2.0-or-later
/* The root's servers by name: resolved once the network is up, before
 * the root's mount or login uses them (netnames.h). Those of the command
 * line and those inside a DHCP root-path alike; A records for an IPv4
 * boot, AAAA for an IPv6 one, asked of that family's DNS servers. */
#include "init/netboot/netnames.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "err.h"
#include "init/net/dns_client.h"
#include "init/netboot/netup.h"
#include "log.h"

struct nn_slot {
	char **ref;
	size_t off, len; /* the name is bytes [off, off + len) of *ref */
	size_t name;	 /* index into names */
};

struct nn_name {
	char *text;
	struct net_addr addr;
};

struct netnames {
	struct netup *nu;
	int fd;
	bool busy;
	struct nn_slot *slot;
	size_t n_slot, cap_slot;
	struct nn_name *name;
	size_t n_name, cap_name;
	size_t cur;
	struct dns_client dc;
	long long deadline; /* the resolver's, -1: none */
	struct net_addr srv[DNS_MAX_SERVERS];
	size_t n_srv;
	struct strv search; /* DHCP's option 119 names, then its domain */
	int family;	    /* the boot's: AF_INET asks A, AF_INET6 AAAA */
	char *rootpath;	    /* DHCP's root-path while a name in it is resolved */
};

/* A server written as a name: not an address, but a host name (what is
 * neither stays, for the root's own parser to refuse). */
static bool named(const char *s, size_t len)
{
	char buf[DNS_NAME_TEXT];
	struct net_addr a;

	if (!s || !len || len >= sizeof(buf))
		return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	return net_parse_addr(buf, &a) < 0 && net_hostname_valid(buf);
}

static void add_slot(struct netnames *nn, char **ref, size_t off, size_t l)
{
	size_t i;

	for (i = 0; i < nn->n_name; i++)
		if (strlen(nn->name[i].text) == l && !strncasecmp(nn->name[i].text, *ref + off, l))
			break;
	if (i == nn->n_name) {
		ARRAY_GROW(nn->name, nn->cap_name, nn->n_name + 1);
		nn->name[nn->n_name++] = (struct nn_name){ .text = xstrndup(*ref + off, l) };
	}
	ARRAY_GROW(nn->slot, nn->cap_slot, nn->n_slot + 1);
	nn->slot[nn->n_slot++] = (struct nn_slot){ .ref = ref, .off = off, .len = l, .name = i };
}

static void maybe(struct netnames *nn, char **ref)
{
	if (*ref && named(*ref, strlen(*ref)))
		add_slot(nn, ref, 0, strlen(*ref));
}

/* Where the server is in a DHCP root-path: after nfs:, nfs4:, nbd: or
 * iscsi: (and an iSCSI spec's CHAP part, up to its first '@', as
 * netroot.c splits it), up to the next ':'; else the kernel's
 * SERVER:PATH. false: none there. */
static bool rootpath_server(const char *rp, size_t *off, size_t *len)
{
	static const char *const kinds[] = { "nfs:", "nfs4:", "nbd:", "iscsi:" };
	const char *p = NULL;

	for (size_t i = 0; i < ARRAY_SIZE(kinds) && !p; i++)
		if (!strncmp(rp, kinds[i], strlen(kinds[i])))
			p = rp + strlen(kinds[i]);
	if (p && !strncmp(rp, "iscsi:", 6) && strchr(p, '@'))
		p = strchr(p, '@') + 1;
	if (p) {
		*off = (size_t)(p - rp);
		*len = strcspn(p, ":");
		return p[*len] == ':';
	}
	*off = 0;
	*len = strcspn(rp, ":/,");
	return rp[*len] == ':';
}

/* Every server of the root that is a name. */
static void collect(struct netnames *nn)
{
	struct netup *nu = nn->nu;
	struct netroot *r = &nu->root;

	if (r->kind == NETROOT_NFS && !r->nfs.kernel_form)
		maybe(nn, &r->nfs.server);
	if (r->kind == NETROOT_NFS && r->nfs.kernel_form && nu->nfsroot) {
		/* the kernel's nfsroot=[SERVER:]PATH[,OPTS] */
		size_t l = strcspn(nu->nfsroot, ":/,");
		if (nu->nfsroot[l] == ':' && named(nu->nfsroot, l))
			add_slot(nn, &nu->nfsroot, 0, l);
	}
	/* root=dhcp (or root=/dev/nfs with no nfsroot=): the root-path's
	 * server, resolved as the command line's are */
	if (nu->from_dhcp && nu->lease.root_path[0] &&
	    (r->kind == NETROOT_DHCP || (r->kind == NETROOT_NFS && r->nfs.kernel_form && !nu->nfsroot))) {
		size_t off, l;
		if (rootpath_server(nu->lease.root_path, &off, &l) && named(nu->lease.root_path + off, l)) {
			nn->rootpath = xstrdup(nu->lease.root_path);
			add_slot(nn, &nn->rootpath, off, l);
		}
	}
	if (r->kind == NETROOT_ISCSI) {
		maybe(nn, &r->iscsi.target.server);
		for (size_t i = 0; i < r->iscsi.nmore; i++)
			maybe(nn, &r->iscsi.more[i].server);
	}
	if (r->kind == NETROOT_NBD)
		maybe(nn, &r->nbd.server);
	if (r->kind == NETROOT_HTTP)
		maybe(nn, &r->http.server);
}

static void add_srv6(struct netnames *nn, const struct in6_addr *v6)
{
	if (nn->n_srv < DNS_MAX_SERVERS && !IN6_IS_ADDR_UNSPECIFIED(v6))
		nn->srv[nn->n_srv++] = (struct net_addr){ .family = AF_INET6, .v6 = *v6 };
}

/* The DNS servers of the boot's family (the socket's): nameserver=
 * first, then DHCP's (unless rd.peerdns=0) or ip='s; over IPv6
 * DHCPv6's, the router advertisement's or ip='s. */
static void servers(struct netnames *nn)
{
	struct netup *nu = nn->nu;
	struct net_addr a = { .family = AF_INET };

	for (size_t i = 0; i < nu->cmd.n_nameserver && nn->n_srv < DNS_MAX_SERVERS; i++)
		if (nu->cmd.nameserver[i].family == nn->family)
			nn->srv[nn->n_srv++] = nu->cmd.nameserver[i];
	if (nn->family == AF_INET6) {
		if (nu->how6 == IP_AUTO_DHCP6 && nu->cmd.peerdns) {
			for (unsigned i = 0; i < nu->lease6.n_dns && i < DHCP_MAX_DNS; i++)
				add_srv6(nn, &nu->lease6.dns[i]);
			strv_split(&nn->search, nu->lease6.domains, " ");
		} else if (nu->how6 == IP_AUTO_AUTO6 && nu->cmd.peerdns) {
			for (unsigned i = 0; i < nu->v6.ra.n_dns && i < ND_MAX_DNS; i++)
				add_srv6(nn, &nu->v6.ra.dns[i]);
			strv_split(&nn->search, nu->v6.ra.search, " ");
		} else if (nu->ip) {
			for (int i = 0; i < 2; i++)
				if (nu->ip->dns[i].family == AF_INET6)
					add_srv6(nn, &nu->ip->dns[i].v6);
		}
		return;
	}
	if (nu->from_dhcp && nu->cmd.peerdns) {
		for (unsigned i = 0; i < nu->lease.n_dns && nn->n_srv < DNS_MAX_SERVERS; i++) {
			a.v4 = nu->lease.dns[i];
			if (a.v4.s_addr)
				nn->srv[nn->n_srv++] = a;
		}
		/* checked name by name when read (dhcp_msg.c) */
		strv_split(&nn->search, nu->lease.search, " ");
		if (nu->lease.domain[0] && net_hostname_valid(nu->lease.domain) &&
		    !strv_contains(&nn->search, nu->lease.domain))
			strv_push(&nn->search, nu->lease.domain);
	} else if (!nu->from_dhcp && nu->ip) {
		for (int i = 0; i < 2 && nn->n_srv < DNS_MAX_SERVERS; i++)
			if (nu->ip->dns[i].family == AF_INET)
				nn->srv[nn->n_srv++] = nu->ip->dns[i];
	}
}

static const char *ifname(const struct netnames *nn)
{
	const struct netup *nu = nn->nu;
	return nu->chosen >= 0 ? nu->v[nu->chosen].name : "?";
}

static const char *fam(const struct netnames *nn)
{
	return nn->family == AF_INET6 ? "IPv6" : "IPv4";
}

/* Every name done, or one failed (error): the addresses go into the
 * root's spec, the socket closes, the root's work may start. */
static void finish(struct netnames *nn, char *error)
{
	struct netup *nu = nn->nu;

	nn->busy = false;
	nn->deadline = -1;
	if (nn->fd >= 0) {
		if (nu->loop)
			loop_set_fd(nu->loop, nn, -1);
		nu->ops->close(nn->fd);
		nn->fd = -1;
	}
	if (!error) {
		/* each name's text replaced by its address (one name to a
		 * string); an IPv6 address inside a longer text in brackets */
		for (size_t i = 0; i < nn->n_slot; i++) {
			struct nn_slot *s = &nn->slot[i];
			const struct net_addr *a = &nn->name[s->name].addr;
			bool inside = s->off || (*s->ref)[s->off + s->len];
			char t[NET_ADDR_TEXT];
			char *v = xasprintf("%.*s%s%s%s%s", (int)s->off, *s->ref,
					    inside && a->family == AF_INET6 ? "[" : "", net_addr_str(a, t),
					    inside && a->family == AF_INET6 ? "]" : "", *s->ref + s->off + s->len);
			free(*s->ref);
			*s->ref = v;
		}
	}
	if (!error && nn->rootpath) {
		if (strlen(nn->rootpath) >= sizeof(nu->lease.root_path))
			error = xasprintf("%s: root-path %s: too long once its server's name is replaced by "
					  "its address (%s)", ifname(nn), nu->lease.root_path, nn->rootpath);
		else
			memcpy(nu->lease.root_path, nn->rootpath, strlen(nn->rootpath) + 1);
	}
	free(nn->rootpath);
	nn->rootpath = NULL;
	if (error)
		nu->names_error = error; /* said by the root's mount or login */
	if (nu->on_up)
		nu->on_up(nu->up_arg);
}

static void drive(struct netnames *nn, const uint8_t *rx, size_t rxlen, const struct net_addr *from);

static void start_name(struct netnames *nn)
{
	struct netup *nu = nn->nu;
	struct dns_config cfg = { .name = nn->name[nn->cur].text,
				  .qtype = nn->family == AF_INET6 ? DNS_TYPE_AAAA : DNS_TYPE_A, .servers = nn->srv,
				  .n_servers = nn->n_srv, .search = (const char *const *)nn->search.v,
				  .n_search = nn->search.n,
				  .seed = (uint32_t)nu->ops->now_ms() ^ (uint32_t)(nn->cur * 2654435761u) };

	if (dns_client_init(&nn->dc, &cfg) < 0) {
		finish(nn, xasprintf("%s: %s", ifname(nn), nn->dc.error));
		return;
	}
	log_info("%s: resolving %s (%s)", ifname(nn), cfg.name, fam(nn));
	drive(nn, NULL, 0, NULL);
}

static void drive(struct netnames *nn, const uint8_t *rx, size_t rxlen, const struct net_addr *from)
{
	struct netup *nu = nn->nu;
	uint8_t tx[DNS_QUERY_MAX];
	size_t txlen;
	struct net_addr to;
	uint64_t dl = 0;
	char t[NET_ADDR_TEXT];

	switch (dns_client_step(&nn->dc, (uint64_t)nu->ops->now_ms(), rx, rxlen, from, tx, sizeof(tx), &txlen, &to,
				&dl)) {
	case DNS_ACT_SEND: {
		struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(DNS_PORT), .sin_addr = to.v4 };
		struct sockaddr_in6 sin6 = { .sin6_family = AF_INET6, .sin6_port = htons(DNS_PORT), .sin6_addr = to.v6 };
		ssize_t e;
		/* a link-local server (a router advertisement's) is on the boot's link */
		if (to.family == AF_INET6 && IN6_IS_ADDR_LINKLOCAL(&to.v6) && nu->chosen >= 0)
			sin6.sin6_scope_id = (uint32_t)nu->v[nu->chosen].ifindex;
		e = to.family == AF_INET6 ? nu->ops->sendto(nn->fd, tx, txlen, 0, &sin6, sizeof(sin6))
					  : nu->ops->sendto(nn->fd, tx, txlen, 0, &sin, sizeof(sin));
		if (e < 0) /* as a lost packet: the timer goes on */
			log_debug("DNS: send to %s: %s", net_addr_str(&to, t), strerror((int)-e));
		nn->deadline = (long long)dl;
		return;
	}
	case DNS_ACT_WAIT:
		if (rx && nn->dc.ignored)
			log_debug("DNS: ignored a packet: %s", nn->dc.ignored);
		nn->deadline = (long long)dl;
		return;
	case DNS_ACT_DONE:
		nn->name[nn->cur].addr = nn->dc.result;
		log_info("%s: %s is %s", ifname(nn), nn->name[nn->cur].text, net_addr_str(&nn->dc.result, t));
		if (++nn->cur < nn->n_name)
			start_name(nn);
		else
			finish(nn, NULL);
		return;
	case DNS_ACT_FAIL:
		finish(nn, xasprintf("%s: %s", ifname(nn), nn->dc.error));
		return;
	}
}

static void dns_ready(void *arg)
{
	struct netnames *nn = arg;
	uint8_t buf[2048];

	while (nn->busy && nn->fd >= 0) {
		struct sockaddr_in6 ss; /* the larger of the two */
		struct sockaddr_in *sin = (struct sockaddr_in *)&ss;
		unsigned alen = sizeof(ss);
		struct net_addr from = { .family = nn->family };
		ssize_t n = nn->nu->ops->recvfrom(nn->fd, buf, sizeof(buf), MSG_DONTWAIT, &ss, &alen);

		if (n < 0)
			return;
		if (nn->family == AF_INET6) {
			if (alen < sizeof(ss) || ss.sin6_family != AF_INET6 || ss.sin6_port != htons(DNS_PORT))
				continue;
			from.v6 = ss.sin6_addr;
		} else {
			if (alen < sizeof(*sin) || sin->sin_family != AF_INET || sin->sin_port != htons(DNS_PORT))
				continue;
			from.v4 = sin->sin_addr;
		}
		drive(nn, buf, (size_t)n, &from);
	}
}

static long long dns_deadline(void *arg)
{
	struct netnames *nn = arg;
	return nn->busy ? nn->deadline : -1;
}

static void dns_expired(void *arg)
{
	struct netnames *nn = arg;

	if (nn->busy)
		drive(nn, NULL, 0, NULL);
}

void netnames_start(struct netup *nu)
{
	struct netnames *nn = nu->names;
	struct loop_source src = { .ready = dns_ready, .deadline = dns_deadline, .expired = dns_expired };
	int fd;

	if (!nn) {
		nn = xcalloc(1, sizeof(*nn));
		nn->nu = nu;
		nn->fd = -1;
		nu->names = nn;
	}
	collect(nn);
	if (!nn->n_name) {
		if (nu->on_up)
			nu->on_up(nu->up_arg);
		return;
	}
	nn->family = nu->family == AF_INET6 ? AF_INET6 : AF_INET;
	servers(nn);
	nn->busy = true;
	nn->cur = 0;
	fd = nu->ops->socket(nn->family, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		finish(nn, xasprintf("%s: cannot resolve %s (%s): cannot open a UDP socket: %s", ifname(nn),
				     nn->name[0].text, fam(nn), strerror(-fd)));
		return;
	}
	nn->fd = fd;
	src.fd = fd;
	src.arg = nn;
	if (!nu->loop || loop_add(nu->loop, &src) < 0) {
		finish(nn, xasprintf("%s: cannot resolve %s (%s): %s", ifname(nn), nn->name[0].text, fam(nn),
				     nu->loop ? err_msg() : "no event loop"));
		return;
	}
	start_name(nn);
}

bool netnames_busy(const struct netup *nu)
{
	return nu->names && nu->names->busy;
}

void netnames_free(struct netup *nu)
{
	struct netnames *nn = nu->names;

	if (!nn)
		return;
	if (nn->fd >= 0)
		nu->ops->close(nn->fd);
	for (size_t i = 0; i < nn->n_name; i++)
		free(nn->name[i].text);
	free(nn->name);
	free(nn->slot);
	free(nn->rootpath);
	strv_free(&nn->search);
	free(nn);
	nu->names = NULL;
	free(nu->names_error);
	nu->names_error = NULL;
}
