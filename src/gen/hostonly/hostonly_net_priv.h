/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared by hostonly_net.c (which root, which server) and
 * hostonly_route.c (which interface reaches it). Not an API. */
#ifndef UNIRAMFS_HOSTONLY_NET_PRIV_H
#define UNIRAMFS_HOSTONLY_NET_PRIV_H

#include <stdbool.h>

#include "gen/hostonly/hostonly_priv.h"

void hostonly_net_push_module(const struct ctx *c, const char *name);
/* key=val onto the baked command line; what names it in an error. */
int hostonly_net_push_word(const struct ctx *c, const char *key, const char *val, const char *what);
bool hostonly_net_is_addr(const char *s, int *family);
/* The interface that reaches the server, its NIC's drivers, and ip=. */
int hostonly_net_reach_server(const struct ctx *c);

#endif
