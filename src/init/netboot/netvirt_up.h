/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_INIT_NETBOOT_NETVIRT_UP_H
#define UNIRAMFS_INIT_NETBOOT_NETVIRT_UP_H

#include <stdbool.h>

#include "init/netboot/netup.h"

struct modload;

/* bond=, vlan= and bridge= at boot (net/netvirt.h has their syntax).
 * A port appears as any interface does; netup asks netvirt_claim first:
 * a port is renamed to the name the spec gives it (when that is one of
 * its names), never configured and never a candidate. Once every port
 * of a link is there, netvirt_create_ready makes it (created down, the
 * ports enslaved while down, then all up) and netup scans again: the
 * new link is an interface like the others, chosen by ip=…:bond0 or
 * trying DHCP, and it alone gets an address. */
bool netvirt_claim(struct netup *nu, struct netif *ni);
/* True when a link was made: scan again. */
bool netvirt_create_ready(struct netup *nu);
/* The drivers the command line's links need (bonding, 8021q, bridge),
 * before the links are asked for: the kernel would otherwise ask the
 * usermode helper for rtnl-link-KIND. */
void netvirt_modules(const struct netup *nu, struct modload *ml);
/* The root is not on the network: the links made go (the root's own
 * network configuration makes its own), their ports down. */
void netvirt_teardown(struct netup *nu);

#endif
