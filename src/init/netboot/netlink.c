// SPDX-License-Identifier: GPL-2.0-or-later
/* rtnetlink requests, one at a time, each checked by its ACK. */
#include "init/netboot/netlink.h"

#include <errno.h>
#include <linux/if.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <string.h>
#include <unistd.h>

#define NL_BUF 512

struct req {
	unsigned char buf[NL_BUF] __attribute__((aligned(NLMSG_ALIGNTO)));
};

int nl_open(struct nl *nl, const struct sysops *ops)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int e;

	nl->ops = ops;
	nl->seq = 0;
	nl->fd = ops->socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (nl->fd < 0) {
		e = nl->fd;
		nl->fd = -1;
		return e;
	}
	if ((e = ops->bind(nl->fd, &sa, sizeof(sa))) < 0) {
		close(nl->fd);
		nl->fd = -1;
		return e;
	}
	return 0;
}

void nl_close(struct nl *nl)
{
	if (nl->fd >= 0)
		close(nl->fd);
	nl->fd = -1;
}

static struct nlmsghdr *start(struct req *r, unsigned type, unsigned flags, size_t body)
{
	struct nlmsghdr *h = (struct nlmsghdr *)r->buf;

	memset(r, 0, sizeof(*r));
	h->nlmsg_len = NLMSG_LENGTH(body);
	h->nlmsg_type = type;
	h->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	return h;
}

static void attr(struct nlmsghdr *h, unsigned type, const void *data, size_t len)
{
	struct rtattr *a = (struct rtattr *)((char *)h + NLMSG_ALIGN(h->nlmsg_len));

	if (NLMSG_ALIGN(h->nlmsg_len) + RTA_SPACE(len) > NL_BUF)
		return; /* the callers' attributes always fit */
	a->rta_type = type;
	a->rta_len = RTA_LENGTH(len);
	memcpy(RTA_DATA(a), data, len);
	h->nlmsg_len = NLMSG_ALIGN(h->nlmsg_len) + RTA_SPACE(len);
}

int nl_transact(struct nl *nl, struct nlmsghdr *h)
{
	struct sockaddr_nl to = { .nl_family = AF_NETLINK };
	unsigned char rx[1024] __attribute__((aligned(NLMSG_ALIGNTO)));

	ssize_t sent;

	h->nlmsg_seq = ++nl->seq;
	if ((sent = nl->ops->sendto(nl->fd, h, h->nlmsg_len, 0, &to, sizeof(to))) < 0)
		return (int)sent;
	for (;;) {
		ssize_t n = nl->ops->recvfrom(nl->fd, rx, sizeof(rx), 0, NULL, NULL);
		struct nlmsghdr *m = (struct nlmsghdr *)rx;
		size_t len;

		if (n < 0) {
			if (n == -EINTR)
				continue;
			return (int)n;
		}
		len = (size_t)n;
		for (; NLMSG_OK(m, len); m = NLMSG_NEXT(m, len)) {
			if (m->nlmsg_seq != h->nlmsg_seq || m->nlmsg_type != NLMSG_ERROR)
				continue;
			if (m->nlmsg_len < NLMSG_LENGTH(sizeof(struct nlmsgerr)))
				return -EBADMSG;
			return ((struct nlmsgerr *)NLMSG_DATA(m))->error;
		}
		if (n == 0)
			return -EBADMSG;
	}
}

int nl_link_set(struct nl *nl, int ifindex, bool up, unsigned mtu, const char *name)
{
	struct req r;
	struct nlmsghdr *h = start(&r, RTM_NEWLINK, 0, sizeof(struct ifinfomsg));
	struct ifinfomsg *ifi = NLMSG_DATA(h);

	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = ifindex;
	ifi->ifi_flags = up ? IFF_UP : 0;
	ifi->ifi_change = IFF_UP;
	if (mtu)
		attr(h, IFLA_MTU, &mtu, sizeof(mtu));
	if (name)
		attr(h, IFLA_IFNAME, name, strlen(name) + 1);
	return nl_transact(nl, h);
}

int nl_addr(struct nl *nl, bool add, int ifindex, struct in_addr addr, int prefix)
{
	struct req r;
	struct nlmsghdr *h = start(&r, add ? RTM_NEWADDR : RTM_DELADDR,
				   add ? NLM_F_CREATE | NLM_F_REPLACE : 0, sizeof(struct ifaddrmsg));
	struct ifaddrmsg *ifa = NLMSG_DATA(h);

	ifa->ifa_family = AF_INET;
	ifa->ifa_prefixlen = (unsigned char)prefix;
	ifa->ifa_scope = RT_SCOPE_UNIVERSE;
	ifa->ifa_index = (unsigned)ifindex;
	attr(h, IFA_LOCAL, &addr, sizeof(addr));
	attr(h, IFA_ADDRESS, &addr, sizeof(addr));
	if (add && prefix < 31) {
		uint32_t host = prefix ? 0xffffffffu >> prefix : 0xffffffffu;
		struct in_addr b = { addr.s_addr | htonl(host) };
		attr(h, IFA_BROADCAST, &b, sizeof(b));
	}
	return nl_transact(nl, h);
}

int nl_default_route(struct nl *nl, int ifindex, struct in_addr gw)
{
	struct req r;
	struct nlmsghdr *h = start(&r, RTM_NEWROUTE, NLM_F_CREATE | NLM_F_REPLACE,
				   sizeof(struct rtmsg));
	struct rtmsg *rt = NLMSG_DATA(h);
	uint32_t oif = (uint32_t)ifindex;

	rt->rtm_family = AF_INET;
	rt->rtm_table = RT_TABLE_MAIN;
	rt->rtm_protocol = RTPROT_BOOT;
	rt->rtm_scope = RT_SCOPE_UNIVERSE;
	rt->rtm_type = RTN_UNICAST;
	attr(h, RTA_GATEWAY, &gw, sizeof(gw));
	attr(h, RTA_OIF, &oif, sizeof(oif));
	return nl_transact(nl, h);
}

int nl_addr6(struct nl *nl, int ifindex, const struct in6_addr *addr, int prefix)
{
	struct req r;
	struct nlmsghdr *h = start(&r, RTM_NEWADDR, NLM_F_CREATE | NLM_F_REPLACE, sizeof(struct ifaddrmsg));
	struct ifaddrmsg *ifa = NLMSG_DATA(h);
	/* usable at once: the address is the server's to hand out, or the
	 * administrator's; duplicate address detection would hold the
	 * mount back a second for nothing */
	uint32_t flags = IFA_F_NODAD;

	ifa->ifa_family = AF_INET6;
	ifa->ifa_prefixlen = (unsigned char)prefix;
	ifa->ifa_scope = RT_SCOPE_UNIVERSE;
	ifa->ifa_index = (unsigned)ifindex;
	attr(h, IFA_LOCAL, addr, sizeof(*addr));
	attr(h, IFA_ADDRESS, addr, sizeof(*addr));
	attr(h, IFA_FLAGS, &flags, sizeof(flags));
	return nl_transact(nl, h);
}

int nl_default_route6(struct nl *nl, int ifindex, const struct in6_addr *gw)
{
	struct req r;
	struct nlmsghdr *h = start(&r, RTM_NEWROUTE, NLM_F_CREATE | NLM_F_REPLACE, sizeof(struct rtmsg));
	struct rtmsg *rt = NLMSG_DATA(h);
	uint32_t oif = (uint32_t)ifindex;

	rt->rtm_family = AF_INET6;
	rt->rtm_table = RT_TABLE_MAIN;
	rt->rtm_protocol = RTPROT_BOOT;
	rt->rtm_scope = RT_SCOPE_UNIVERSE;
	rt->rtm_type = RTN_UNICAST;
	attr(h, RTA_GATEWAY, gw, sizeof(*gw));
	attr(h, RTA_OIF, &oif, sizeof(oif));
	return nl_transact(nl, h);
}
