/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hostonly_route.c (which interface reaches the server), called by
 * hostonly_net.c (which root, which server). Not an API. */
#ifndef UNIRAMFS_HOSTONLY_NET_PRIV_H
#define UNIRAMFS_HOSTONLY_NET_PRIV_H

#include <stdbool.h>

#include "gen/hostonly/hostonly_priv.h"

/* The interface that reaches the server, its NIC's drivers, and ip=. */
int hostonly_net_reach_server(const struct ctx *c);

#endif
