/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_INIT_NETBOOT_NETKEEP_H
#define UNIRAMFS_INIT_NETBOOT_NETKEEP_H

#include <stdbool.h>

struct netup;

/* Before switch_root, for a root on the network, with several
 * interfaces configured (one ip= each naming its own, or each lease of
 * a bare ip=dhcp, netpick_dhcp_all): only those on
 * the subnet of one of the root's servers (NFS, every iSCSI portal, NBD;
 * the DHCP or ip= server when the root names none) stay; the others lose
 * their address and go down, each said. When no interface is on a
 * server's subnet (a server behind a router) every one stays: which one
 * the kernel routes through is not judged here. */
void netkeep_prune(struct netup *nu);
/* Is each of an iSCSI root's targets (addresses; a name is not known
 * before it is resolved: false) on the subnet of a configured
 * interface? Then a bare ip=dhcp with several targets need not wait
 * for the other interfaces' DHCP (netpick_dhcp_all). */
bool netkeep_reaches_all(const struct netup *nu);

#endif
