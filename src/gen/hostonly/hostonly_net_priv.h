/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hostonly_route.c (which interface reaches the server), called by
 * hostonly_net.c (which root, which server). Not an API. */
#ifndef UNIRAMFS_HOSTONLY_NET_PRIV_H
#define UNIRAMFS_HOSTONLY_NET_PRIV_H

#include <stdbool.h>

#include "gen/hostonly/hostonly_priv.h"

/* The interface that reaches the server, its NIC's drivers, and ip=. */
int hostonly_net_reach_server(const struct ctx *c);
/* hostonly_netvirt.c: iface (its name under /sys/class/net) is a bond,
 * bridge or VLAN: its driver and its ports' NIC drivers pushed, and the
 * bond=/bridge=/vlan= word that makes it at boot. 0, 1 when it is none
 * of them, or a negative code (err set). */
int hostonly_net_virtual(const struct ctx *c, const char *iface, int depth);
/* hostonly_nvmf.c: the namespace disk dir (a /sys/devices path) on an
 * NVMe over TCP controller: 0 (c->h->net filled), 1 when the disk is
 * not on NVMe over Fabrics, or a negative code (err set). */
int hostonly_net_nvmf(const struct ctx *c, const char *disk);

#endif
