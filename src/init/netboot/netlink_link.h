/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_INIT_NETBOOT_NETLINK_LINK_H
#define UNIRAMFS_INIT_NETBOOT_NETLINK_LINK_H

#include "init/net/netvirt.h"
#include "init/netboot/netlink.h"

/* Virtual links through rtnetlink, as `ip link add … type bond|vlan|
 * bridge` makes them: RTM_NEWLINK with IFLA_LINKINFO (its kind, and
 * the bond's IFLA_BOND_* or the VLAN's id as IFLA_INFO_DATA), created
 * down. link: the VLAN's device; primary: the bond's primary port,
 * 0 for none (the kernel keeps its name until it is enslaved). 0 or
 * the kernel's -errno. */
int nl_link_create(struct nl *nl, const struct netvirt *v, int link, int primary);
/* Enslave ifindex to master (0: release it), its flags untouched. */
int nl_link_master(struct nl *nl, int ifindex, int master);
/* Delete a link the boot made. */
int nl_link_delete(struct nl *nl, int ifindex);

#endif
