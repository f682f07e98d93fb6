/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_INIT_NETBOOT_NETUP6_H
#define UNIRAMFS_INIT_NETBOOT_NETUP6_H

#include "init/netboot/netup.h"

/* IPv6 for the boot, as dracut's ip= spells it:
 * - static ([ADDR]:…:PREFIX:…:IFACE:none): the address (no duplicate
 *   address detection) and the default route through the gateway;
 * - auto6: the kernel does SLAAC itself once the link is up (accept_ra
 *   is on by default); the init waits for a global address past DAD
 *   (RTM_NEWADDR) and takes DNS from the router advertisement's RDNSS
 *   and DNSSL, which the kernel passes on (RTM_NEWNDUSEROPT, ndopt.h);
 * - link6: the link-local address alone;
 * - dhcp6: once the link-local address is usable, a DHCPv6 client
 *   (dhcp6_client.h) over a UDP socket on port 546, to ff02::1:2 on that
 *   link; the address goes on as a /128, the on-link prefix and the
 *   default route come from router advertisements, as the kernel takes
 *   them;
 * - either6: auto6, and if no address came in NETUP6_WAIT_MS, dhcp6 (as
 *   dracut's ifup does).
 * The first interface configured wins, of either family (netup_chose). */

#define NETUP6_WAIT_MS 30000

/* Is ip= one that IPv6 carries out? */
bool netup6_wanted(const struct ip_conf *ip);
/* ni (nu->v[idx]) is up: configure it as ip says, or start waiting. */
void netup6_bring_up(struct netup *nu, size_t idx, const struct ip_conf *ip);
/* One interface won: every IPv6 client and wait ends, the sockets go. */
void netup6_settle(struct netup *nu);
/* nu->v6 before anything is opened; chose and failed are netup.c's. */
void netup6_init(struct netup *nu, void (*chose)(struct netup *, size_t), void (*failed)(struct netup *, size_t));
void netup6_close(struct netup *nu);

#endif
