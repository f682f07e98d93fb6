/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_INIT_NETBOOT_NETKEEP_H
#define UNIRAMFS_INIT_NETBOOT_NETKEEP_H

struct netup;

/* Before switch_root, for a root on the network, with several
 * interfaces configured (one ip= each naming its own): only those on
 * the subnet of one of the root's servers (NFS, every iSCSI portal, NBD;
 * the DHCP or ip= server when the root names none) stay; the others lose
 * their address and go down, each said. When no interface is on a
 * server's subnet (a server behind a router) every one stays: which one
 * the kernel routes through is not judged here. */
void netkeep_prune(struct netup *nu);

#endif
