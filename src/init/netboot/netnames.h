/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_INIT_NETBOOT_NETNAMES_H
#define UNIRAMFS_INIT_NETBOOT_NETNAMES_H

#include <stdbool.h>

struct netup;

/* Servers named rather than numbered (root=nfs:nfsserver.test:/srv,
 * netroot=iscsi:@target.lan::…, nbd:, nfsroot=, rd.iscsi.target.ip=):
 * the kernel's NFS client, iscsistart and nbd-client get addresses, so
 * once netup has configured an interface each name is resolved (A)
 * through the DNS servers of nameserver= and of DHCP (option 6, or
 * ip='s), with DHCP's domain as the search list, by a UDP socket that
 * is a loop source with a timer (net/dns_client.h), never blocking
 * PID 1. The root's spec then holds the address. nu->on_up is called
 * once every name is done, with nu->names_error saying which one could
 * not be resolved and why (the interface, the family, the servers
 * asked, what they answered). Nothing named: on_up at once. */
void netnames_start(struct netup *nu);
/* Still resolving: netup is not settled. */
bool netnames_busy(const struct netup *nu);
void netnames_free(struct netup *nu);

#endif
