// SPDX-License-Identifier: GPL-2.0-or-later
/* IPv6 for the boot: static, SLAAC by the kernel, link-local, DHCPv6. */
#include "init/netboot/netup6.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "log.h"

static const char *ntop6(const struct in6_addr *a, char t[INET6_ADDRSTRLEN])
{
	return inet_ntop(AF_INET6, a, t, INET6_ADDRSTRLEN) ? t : "?";
}

bool netup6_wanted(const struct ip_conf *ip)
{
	if (!ip)
		return false;
	if (ip->client.family == AF_INET6)
		return true;
	return ip->autoconf == IP_AUTO_DHCP6 || ip->autoconf == IP_AUTO_AUTO6 || ip->autoconf == IP_AUTO_EITHER6 ||
	       ip->autoconf == IP_AUTO_LINK6;
}

void netup6_init(struct netup *nu, void (*chose)(struct netup *, size_t), void (*failed)(struct netup *, size_t))
{
	nu->v6.nu = nu;
	nu->v6.chose = chose;
	nu->v6.failed = failed;
	nu->v6.fd = -1;
	nu->v6.mon = -1;
	nu->v6.sources = false;
}

static void close_fd(struct netup *nu, int *fd)
{
	if (*fd < 0)
		return;
	if (nu->loop && nu->v6.sources)
		loop_set_fd(nu->loop, fd == &nu->v6.fd ? (void *)&nu->v6.fd : (void *)&nu->v6, -1);
	nu->ops->close(*fd);
	*fd = -1;
}

void netup6_close(struct netup *nu)
{
	if (!nu->v6.nu)
		return;
	close_fd(nu, &nu->v6.fd);
	close_fd(nu, &nu->v6.mon);
}

void netup6_settle(struct netup *nu)
{
	for (size_t i = 0; i < nu->n; i++) {
		nu->v[i].dhcp6 = false;
		nu->v[i].deadline6 = -1;
	}
	netup6_close(nu);
}

/* ni gave up on IPv6: the boot fails once every candidate has. */
static void give_up(struct netup *nu, struct netif *ni)
{
	ni->dhcp6 = false;
	ni->deadline6 = -1;
	nu->v6.failed(nu, (size_t)(ni - nu->v));
}

/* ni has addr6/prefix6 (already on it): it carries the boot. */
static void win(struct netup *nu, struct netif *ni, const struct in6_addr *a, int prefix, int how, const char *from)
{
	char t[INET6_ADDRSTRLEN];

	nu->family = AF_INET6;
	nu->from_dhcp = false;
	nu->addr6 = *a;
	nu->prefix6 = prefix;
	nu->how6 = how;
	log_info("%s: %s/%d %s", ni->name, ntop6(a, t), prefix, from);
	nu->v6.chose(nu, (size_t)(ni - nu->v));
}

static struct netif *by_index(struct netup *nu, int ifindex)
{
	for (size_t i = 0; i < nu->n; i++)
		if (nu->v[i].ifindex == ifindex)
			return &nu->v[i];
	return NULL;
}

/* --- DHCPv6 --- */


static int dhcp6_socket(struct netup *nu)
{
	struct sockaddr_in6 sa = { .sin6_family = AF_INET6, .sin6_port = htons(DHCP6_CLIENT_PORT) };
	int fd, e;

	if (nu->v6.fd >= 0)
		return 0;
	fd = nu->ops->socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return fd;
	if ((e = nu->ops->bind(fd, &sa, sizeof(sa))) < 0) {
		nu->ops->close(fd);
		return e;
	}
	nu->v6.fd = fd;
	if (nu->loop && nu->v6.sources)
		loop_set_fd(nu->loop, &nu->v6.fd, fd);
	return 0;
}

static void dhcp6_send(struct netup *nu, struct netif *ni, const uint8_t *tx, size_t len)
{
	struct sockaddr_in6 to = { .sin6_family = AF_INET6, .sin6_port = htons(DHCP6_SERVER_PORT),
				   .sin6_scope_id = (uint32_t)ni->ifindex };
	ssize_t n;

	/* All_DHCP_Relay_Agents_and_Servers, on ni's link */
	inet_pton(AF_INET6, "ff02::1:2", &to.sin6_addr);
	if ((n = nu->ops->sendto(nu->v6.fd, tx, len, 0, &to, sizeof(to))) < 0)
		log_debug("%s: DHCPv6 send: %s", ni->name, strerror((int)-n));
}

static void dhcp6_step(struct netup *nu, struct netif *ni, const uint8_t *rx, size_t rxlen,
		       const struct in6_addr *from)
{
	uint8_t tx[DHCP6_BUILD_MAX];
	size_t txlen = 0;
	uint64_t deadline = 0;
	enum dhcp6_action a = dhcp6_client_step(&ni->dc6, (uint64_t)nu->ops->now_ms(), rx, rxlen, tx, sizeof(tx),
						&txlen, &deadline);
	char t[INET6_ADDRSTRLEN], *msg;
	int e;

	if (rx && ni->dc6.ignored)
		log_debug("%s: DHCPv6: ignored a message: %s", ni->name, ni->dc6.ignored);
	ni->deadline6 = (long long)deadline;
	switch (a) {
	case DHCP6_ACT_SEND:
		dhcp6_send(nu, ni, tx, txlen);
		break;
	case DHCP6_ACT_WAIT:
		break;
	case DHCP6_ACT_DONE:
		ni->dhcp6 = false;
		ni->deadline6 = -1;
		nu->lease6 = ni->dc6.lease;
		if ((e = nl_addr6(&nu->nl, ni->ifindex, &nu->lease6.addr, 128)) < 0) {
			log_warn("%s: IPv6: cannot add the address %s/128 from DHCPv6: %s", ni->name,
				 ntop6(&nu->lease6.addr, t), strerror(-e));
			give_up(nu, ni);
			break;
		}
		msg = xasprintf("from DHCPv6 server %s", from ? ntop6(from, t) : "?");
		win(nu, ni, &nu->lease6.addr, 128, IP_AUTO_DHCP6, msg);
		free(msg);
		break;
	case DHCP6_ACT_FAIL:
		if (ni->dc6.last_ignored)
			log_warn("%s: IPv6: no DHCPv6 lease: the servers' answers were refused (the last: %s)",
				 ni->name, ni->dc6.last_ignored);
		else
			log_warn("%s: IPv6: no DHCPv6 lease: no server answered (SOLICIT to ff02::1:2)", ni->name);
		give_up(nu, ni);
		break;
	}
}

static void dhcp6_start(struct netup *nu, struct netif *ni)
{
	struct dhcp6_config cfg = { 0 };
	int e;

	if ((e = dhcp6_socket(nu)) < 0) {
		log_warn("%s: IPv6: cannot open the DHCPv6 socket (UDP port 546): %s", ni->name, strerror(-e));
		give_up(nu, ni);
		return;
	}
	memcpy(cfg.mac, ni->mac, 6);
	cfg.seed = (uint32_t)nu->ops->now_ms() ^ ((uint32_t)ni->mac[5] << 16 | ni->mac[4]);
	dhcp6_client_init(&ni->dc6, &cfg, (uint64_t)nu->ops->now_ms());
	ni->dhcp6 = true;
	log_info("%s: asking for an IPv6 address by DHCPv6", ni->name);
	dhcp6_step(nu, ni, NULL, 0, NULL);
}

static void dhcp6_ready(void *arg)
{
	struct netup *nu = ((struct netup6 *)((char *)arg - offsetof(struct netup6, fd)))->nu;
	uint8_t buf[2048];

	for (;;) {
		struct sockaddr_in6 from;
		unsigned alen = sizeof(from);
		ssize_t n;

		if (nu->v6.fd < 0)
			return;
		n = nu->ops->recvfrom(nu->v6.fd, buf, sizeof(buf), MSG_DONTWAIT, &from, &alen);
		if (n <= 0)
			return;
		if (alen < sizeof(from) || from.sin6_port != htons(DHCP6_SERVER_PORT))
			continue;
		/* a link-local source names its link; a global one may be
		 * for any client: each checks its own transaction */
		for (size_t i = 0; i < nu->n && nu->chosen < 0; i++) {
			struct netif *ni = &nu->v[i];
			if (ni->dhcp6 && (!from.sin6_scope_id || from.sin6_scope_id == (uint32_t)ni->ifindex))
				dhcp6_step(nu, ni, buf, (size_t)n, &from.sin6_addr);
		}
	}
}

/* --- addresses and router advertisements, from rtnetlink --- */

static void on_address(struct netup *nu, const struct nlmsghdr *h)
{
	const struct ifaddrmsg *ifa = NLMSG_DATA(h);
	size_t len = h->nlmsg_len >= NLMSG_LENGTH(sizeof(*ifa)) ? h->nlmsg_len - NLMSG_LENGTH(sizeof(*ifa)) : 0;
	const struct rtattr *rta = (const struct rtattr *)((const char *)ifa + NLMSG_ALIGN(sizeof(*ifa)));
	const struct in6_addr *a = NULL;
	uint32_t flags;
	struct netif *ni;
	char t[INET6_ADDRSTRLEN], *msg;

	if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*ifa)) || ifa->ifa_family != AF_INET6)
		return;
	flags = ifa->ifa_flags;
	for (; RTA_OK(rta, len); rta = RTA_NEXT(rta, len)) {
		if (rta->rta_type == IFA_ADDRESS && RTA_PAYLOAD(rta) == sizeof(*a))
			a = RTA_DATA(rta);
		else if (rta->rta_type == IFA_FLAGS && RTA_PAYLOAD(rta) == sizeof(flags))
			memcpy(&flags, RTA_DATA(rta), sizeof(flags));
	}
	ni = by_index(nu, (int)ifa->ifa_index);
	if (!a || !ni || !ni->v6 || !ni->up || nu->chosen >= 0 || (flags & (IFA_F_TENTATIVE | IFA_F_DADFAILED)))
		return;
	if (ifa->ifa_scope == RT_SCOPE_LINK) {
		if (ni->ll6)
			return;
		ni->ll6 = true;
		log_debug("%s: link-local address %s", ni->name, ntop6(a, t));
		if (ni->v6 == IP_AUTO_LINK6)
			win(nu, ni, a, ifa->ifa_prefixlen, IP_AUTO_LINK6, "(link-local, ip=link6)");
		else if (ni->v6 == IP_AUTO_DHCP6 && !ni->dhcp6)
			dhcp6_start(nu, ni);
		return;
	}
	if (ifa->ifa_scope != RT_SCOPE_UNIVERSE || (ni->v6 != IP_AUTO_AUTO6 && ni->v6 != IP_AUTO_EITHER6))
		return;
	msg = xasprintf("from a router advertisement (SLAAC%s)",
			nu->v6.ra.ifindex == ni->ifindex && nu->v6.ra.n_dns ? ", with DNS" : "");
	win(nu, ni, a, ifa->ifa_prefixlen, IP_AUTO_AUTO6, msg);
	free(msg);
}

/* The kernel passes each option of an advertisement on in a message of
 * its own: RDNSS and DNSSL add up, for the interface last heard from. */
static void merge_ra(struct nd_dns *ra, const struct nd_dns *d)
{
	size_t used, n;

	if (!d->n_dns && !d->search[0])
		return;
	if (ra->ifindex != d->ifindex) {
		memset(ra, 0, sizeof(*ra));
		ra->ifindex = d->ifindex;
	}
	for (unsigned i = 0; i < d->n_dns; i++) {
		bool have = false;
		for (unsigned j = 0; j < ra->n_dns; j++)
			have |= !memcmp(&ra->dns[j], &d->dns[i], sizeof(d->dns[i]));
		if (!have && ra->n_dns < ND_MAX_DNS)
			ra->dns[ra->n_dns++] = d->dns[i];
	}
	used = strlen(ra->search);
	n = strlen(d->search);
	if (n && !strstr(ra->search, d->search) && used + 1 + n < sizeof(ra->search)) {
		if (used)
			ra->search[used++] = ' ';
		memcpy(ra->search + used, d->search, n + 1);
	}
}

static void on_useropt(struct netup *nu, const struct nlmsghdr *h)
{
	struct nd_dns d;
	const char *why;

	if (h->nlmsg_len < NLMSG_LENGTH(0))
		return;
	if (nd_useropt_parse(NLMSG_DATA(h), h->nlmsg_len - NLMSG_LENGTH(0), &d, &why) < 0) {
		log_debug("IPv6: a router advertisement's options ignored: %s", why);
		return;
	}
	if (d.skipped)
		log_warn("IPv6: a router advertisement's search list: %u name(s) left out, not domain names",
			 d.skipped);
	merge_ra(&nu->v6.ra, &d);
}

static void mon_ready(void *arg)
{
	struct netup *nu = ((struct netup6 *)arg)->nu;
	unsigned char buf[8192] __attribute__((aligned(NLMSG_ALIGNTO)));

	for (;;) {
		ssize_t n;
		size_t len;

		if (nu->v6.mon < 0)
			return;
		n = nu->ops->recvfrom(nu->v6.mon, buf, sizeof(buf), MSG_DONTWAIT, NULL, NULL);
		if (n <= 0)
			return;
		len = (size_t)n;
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, len); h = NLMSG_NEXT(h, len)) {
			if (h->nlmsg_type == RTM_NEWADDR)
				on_address(nu, h);
			else if (h->nlmsg_type == RTM_NEWNDUSEROPT)
				on_useropt(nu, h);
			if (nu->v6.mon < 0) /* settled: closed under us */
				return;
		}
	}
}

static long long deadline6(void *arg)
{
	struct netup *nu = ((struct netup6 *)arg)->nu;
	long long best = -1;

	for (size_t i = 0; i < nu->n; i++)
		if (nu->v[i].v6 && nu->v[i].deadline6 >= 0 && (best < 0 || nu->v[i].deadline6 < best))
			best = nu->v[i].deadline6;
	return best;
}

static void expired6(void *arg)
{
	struct netup *nu = ((struct netup6 *)arg)->nu;
	long long now = nu->ops->now_ms();

	for (size_t i = 0; i < nu->n && nu->chosen < 0; i++) {
		struct netif *ni = &nu->v[i];
		if (!ni->v6 || ni->deadline6 < 0 || ni->deadline6 > now)
			continue;
		if (ni->dhcp6) {
			dhcp6_step(nu, ni, NULL, 0, NULL);
		} else if (ni->v6 == IP_AUTO_EITHER6) {
			log_info("%s: IPv6: no router advertisement gave an address within %d s: trying DHCPv6",
				 ni->name, NETUP6_WAIT_MS / 1000);
			ni->v6 = IP_AUTO_DHCP6;
			ni->deadline6 = now + NETUP6_WAIT_MS;
			if (ni->ll6)
				dhcp6_start(nu, ni);
		} else {
			log_warn("%s: IPv6: %s within %d s", ni->name,
				 ni->v6 == IP_AUTO_AUTO6 ? "no router advertisement gave an address (SLAAC)"
							 : "no usable link-local address",
				 NETUP6_WAIT_MS / 1000);
			give_up(nu, ni);
		}
	}
}

static void add_sources(struct netup *nu)
{
	struct loop_source mon = { .fd = nu->v6.mon, .ready = mon_ready, .deadline = deadline6,
				   .expired = expired6, .arg = &nu->v6 };
	struct loop_source dhcp = { .fd = nu->v6.fd, .ready = dhcp6_ready, .arg = &nu->v6.fd };

	if (nu->v6.sources || !nu->loop)
		return;
	if (loop_add(nu->loop, &mon) < 0 || loop_add(nu->loop, &dhcp) < 0) {
		log_warn("IPv6: %s", err_msg());
		return;
	}
	nu->v6.sources = true;
}

/* The listener, and a dump of the addresses there already: one that
 * came before it counts too. 0 or -errno. */
static int mon_open(struct netup *nu)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK,
				  .nl_groups = RTMGRP_IPV6_IFADDR | (1u << (RTNLGRP_ND_USEROPT - 1)) };
	struct sockaddr_nl to = { .nl_family = AF_NETLINK };
	struct {
		struct nlmsghdr h;
		struct ifaddrmsg ifa;
	} req = { .h = { .nlmsg_len = sizeof(req), .nlmsg_type = RTM_GETADDR,
			 .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP, .nlmsg_seq = 1 },
		  .ifa = { .ifa_family = AF_INET6 } };
	int fd, e;

	if (nu->v6.mon >= 0)
		return 0;
	fd = nu->ops->socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_ROUTE);
	if (fd < 0)
		return fd;
	if ((e = nu->ops->bind(fd, &sa, sizeof(sa))) < 0) {
		nu->ops->close(fd);
		return e;
	}
	nu->v6.mon = fd;
	if (nu->loop && nu->v6.sources)
		loop_set_fd(nu->loop, &nu->v6, fd);
	add_sources(nu);
	if ((e = (int)nu->ops->sendto(fd, &req, sizeof(req), 0, &to, sizeof(to))) < 0)
		log_debug("IPv6: cannot ask for the addresses there already: %s", strerror(-e));
	return 0;
}

static void bring_up_static(struct netup *nu, struct netif *ni, const struct ip_conf *ip)
{
	int prefix = ip->prefix >= 0 ? ip->prefix : 64; /* dracut's default for IPv6 */
	char t[INET6_ADDRSTRLEN], *msg;
	int e;

	if ((e = nl_addr6(&nu->nl, ni->ifindex, &ip->client.v6, prefix)) < 0) {
		log_warn("%s: IPv6: cannot add the address %s/%d: %s", ni->name, ntop6(&ip->client.v6, t), prefix,
			 strerror(-e));
		give_up(nu, ni);
		return;
	}
	if (ip->gateway.family == AF_INET6 && (e = nl_default_route6(&nu->nl, ni->ifindex, &ip->gateway.v6)) < 0)
		log_warn("%s: IPv6: cannot add the route through %s: %s", ni->name, ntop6(&ip->gateway.v6, t),
			 strerror(-e));
	if (ip->mtu && (e = nl_link_set(&nu->nl, ni->ifindex, true, ip->mtu, NULL)) < 0)
		log_warn("%s: cannot set the MTU to %u: %s", ni->name, ip->mtu, strerror(-e));
	msg = xasprintf("as ip=%s says", ip->text);
	win(nu, ni, &ip->client.v6, prefix, IP_AUTO_NONE, msg);
	free(msg);
}

void netup6_bring_up(struct netup *nu, size_t idx, const struct ip_conf *ip)
{
	struct netif *ni = &nu->v[idx];
	int e;

	nu->ip = ip;
	ni->deadline6 = -1;
	if (ip->client.family == AF_INET6) {
		ni->v6 = IP_AUTO_NONE;
		bring_up_static(nu, ni, ip);
		return;
	}
	ni->v6 = ip->autoconf;
	if ((e = mon_open(nu)) < 0) {
		log_warn("%s: IPv6: cannot listen to rtnetlink for addresses: %s", ni->name, strerror(-e));
		give_up(nu, ni);
		return;
	}
	ni->deadline6 = nu->ops->now_ms() + NETUP6_WAIT_MS;
	log_info("%s: IPv6: waiting for %s", ni->name,
		 ni->v6 == IP_AUTO_DHCP6   ? "a link-local address, to ask DHCPv6 from"
		 : ni->v6 == IP_AUTO_LINK6 ? "a link-local address"
					   : "a router advertisement (SLAAC)");
}
