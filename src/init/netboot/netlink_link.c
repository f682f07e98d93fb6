// SPDX-License-Identifier: GPL-2.0-or-later
/* RTM_NEWLINK for bond, vlan and bridge links, with nested attributes. */
#include "init/netboot/netlink_link.h"

#include <errno.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <string.h>

#define LINK_BUF 1024 /* a bond's every option and 16 ARP targets fit */

struct lreq {
	unsigned char buf[LINK_BUF] __attribute__((aligned(NLMSG_ALIGNTO)));
	bool full;
};

static struct nlmsghdr *hdr(struct lreq *r)
{
	return (struct nlmsghdr *)r->buf;
}

static struct rtattr *put(struct lreq *r, unsigned type, const void *data, size_t len)
{
	struct nlmsghdr *h = hdr(r);
	struct rtattr *a = (struct rtattr *)(r->buf + NLMSG_ALIGN(h->nlmsg_len));

	if (NLMSG_ALIGN(h->nlmsg_len) + RTA_SPACE(len) > LINK_BUF) {
		r->full = true;
		return NULL;
	}
	a->rta_type = (unsigned short)type;
	a->rta_len = (unsigned short)RTA_LENGTH(len);
	if (len)
		memcpy(RTA_DATA(a), data, len);
	h->nlmsg_len = NLMSG_ALIGN(h->nlmsg_len) + RTA_SPACE(len);
	return a;
}

static void put_u(struct lreq *r, unsigned type, uint32_t v, size_t size)
{
	uint8_t b = (uint8_t)v;
	uint16_t w = (uint16_t)v;

	put(r, type, size == 1 ? (const void *)&b : size == 2 ? (const void *)&w : (const void *)&v, size);
}

/* A nest ends where the message ends when it is closed. */
static void end(struct lreq *r, struct rtattr *nest)
{
	if (nest)
		nest->rta_len = (unsigned short)(r->buf + hdr(r)->nlmsg_len - (unsigned char *)nest);
}

static struct ifinfomsg *begin(struct lreq *r, unsigned flags, int ifindex)
{
	struct nlmsghdr *h = hdr(r);
	struct ifinfomsg *ifi;

	memset(r, 0, sizeof(*r));
	h->nlmsg_len = NLMSG_LENGTH(sizeof(struct ifinfomsg));
	h->nlmsg_type = RTM_NEWLINK;
	h->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	ifi = NLMSG_DATA(h);
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = ifindex;
	return ifi;
}

int nl_link_create(struct nl *nl, const struct netvirt *v, int link, int primary)
{
	struct lreq r;
	struct rtattr *info, *data;
	const char *kind = netvirt_kind_name(v->kind);

	begin(&r, NLM_F_CREATE | NLM_F_EXCL, 0);
	put(&r, IFLA_IFNAME, v->name, strlen(v->name) + 1);
	if (v->mtu)
		put_u(&r, IFLA_MTU, v->mtu, 4);
	if (v->kind == NETVIRT_VLAN)
		put_u(&r, IFLA_LINK, (uint32_t)link, 4);
	info = put(&r, IFLA_LINKINFO, NULL, 0);
	put(&r, IFLA_INFO_KIND, kind, strlen(kind));
	data = put(&r, IFLA_INFO_DATA, NULL, 0);
	switch (v->kind) {
	case NETVIRT_BOND:
		for (size_t i = 0; i < v->n_bond; i++)
			put_u(&r, v->bond[i].type, v->bond[i].val, v->bond[i].size);
		if (primary > 0)
			put_u(&r, IFLA_BOND_PRIMARY, (uint32_t)primary, 4);
		if (v->n_arp) {
			struct rtattr *t = put(&r, IFLA_BOND_ARP_IP_TARGET, NULL, 0);
			for (size_t i = 0; i < v->n_arp; i++)
				put(&r, (unsigned)i, &v->arp_targets[i], 4);
			end(&r, t);
		}
		break;
	case NETVIRT_VLAN:
		put_u(&r, IFLA_VLAN_ID, v->vlan_id, 2);
		break;
	case NETVIRT_BRIDGE:
		/* a boot's bridge has one way out: no STP (the kernel's
		 * default), no learning delay before the port forwards */
		put_u(&r, IFLA_BR_FORWARD_DELAY, 0, 4);
		break;
	}
	end(&r, data);
	end(&r, info);
	if (r.full)
		return -EMSGSIZE;
	return nl_transact(nl, hdr(&r));
}

int nl_link_master(struct nl *nl, int ifindex, int master)
{
	struct lreq r;

	begin(&r, 0, ifindex);
	put_u(&r, IFLA_MASTER, (uint32_t)master, 4);
	return nl_transact(nl, hdr(&r));
}

int nl_link_delete(struct nl *nl, int ifindex)
{
	struct lreq r;

	begin(&r, 0, ifindex);
	hdr(&r)->nlmsg_type = RTM_DELLINK;
	return nl_transact(nl, hdr(&r));
}
