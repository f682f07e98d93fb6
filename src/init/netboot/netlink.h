/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_INIT_NETBOOT_NETLINK_H
#define UNIRAMFS_INIT_NETBOOT_NETLINK_H

#include <netinet/in.h>
#include <stdbool.h>

#include "init/core/ops.h"

/* The few rtnetlink requests the boot needs, each sent and its ACK
 * read back before the next: link up and down, a new name, the MTU,
 * an IPv4 address, the default route. Through ops (socket, bind,
 * sendto, recvfrom), so the unit tests see every request. Debian has no
 * static libmnl; this is all of it we would use. */
struct nl {
	const struct sysops *ops;
	int fd;
	unsigned seq;
};

/* 0, or -errno. */
struct nlmsghdr;
/* Send h (its seq set here) and read until its ACK: 0 or the kernel's
 * -errno. For netlink_link.c, which builds the nested link requests. */
int nl_transact(struct nl *nl, struct nlmsghdr *h);
int nl_open(struct nl *nl, const struct sysops *ops);
void nl_close(struct nl *nl);
/* Up or down; mtu 0 and name NULL leave those as they are. */
int nl_link_set(struct nl *nl, int ifindex, bool up, unsigned mtu, const char *name);
/* Add (or with add false, delete) addr/prefix on ifindex. */
int nl_addr(struct nl *nl, bool add, int ifindex, struct in_addr addr, int prefix);
/* The default route through gw on ifindex. */
int nl_default_route(struct nl *nl, int ifindex, struct in_addr gw);
/* IPv6 (netup6.c): addr/prefix on ifindex, without duplicate address
 * detection; the default route through gw. */
int nl_addr6(struct nl *nl, int ifindex, const struct in6_addr *addr, int prefix);
int nl_default_route6(struct nl *nl, int ifindex, const struct in6_addr *gw);

#endif
