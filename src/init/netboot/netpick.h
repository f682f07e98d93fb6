/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_INIT_NETBOOT_NETPICK_H
#define UNIRAMFS_INIT_NETBOOT_NETPICK_H

#include "init/netboot/netup.h"

/* The ip= for interface ni: one naming it, else one naming none. */
const struct ip_conf *netpick_ip_for(const struct netup *nu, const struct netif *ni);
/* May ni carry the boot? */
bool netpick_candidate(const struct netup *nu, const struct netif *ni);
/* How many ip= name their interface and configure it; several (more
 * than one) are all configured (dracut's TEST-71). */
size_t netpick_named_count(const struct netup *nu);
bool netpick_several(const struct netup *nu);
/* A bare ip=dhcp (or on, any) and an iSCSI root on several targets:
 * every interface's lease is kept (dracut's TEST-70), each target
 * reached through its own wire. */
bool netpick_dhcp_all(const struct netup *nu);
/* ifname= renames ni while it is down; else, unless net.ifnames=0, the
 * name udev would give. */
void netpick_rename_ifname(struct netup *nu, struct netif *ni);
void netpick_rename_as_udev(struct netup *nu, struct netif *ni);

#endif
