/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_NETTOOLS_H
#define UNIRAMFS_NETTOOLS_H

#include <stdbool.h>

#include "gen/hostonly/hostonly.h"
#include "gen/image/image.h"
#include "util.h"

/* What an image needs to boot a network root (issue 11) beyond its
 * modules: the client tools (iscsistart, nbd-client; NFS needs none,
 * the init mounts it itself) and, hostonly, the netroot=/ip= words the
 * init reads from the baked command line. */
struct net_plan {
	bool hostonly;
	char *kind;          /* hostonly: "nfs", "iscsi", "nbd", "nvmf"; NULL: a local root */
	char *server, *iface;
	struct strv cmdline; /* hostonly: the words to bake */
	bool have[2];        /* added: iscsistart, nbd-client */
};

/* Remember what hostonly found (call before hostonly_free). */
void net_plan_hostonly(struct net_plan *np, const struct hostonly *h);
/* Add the tools with their libraries. Generic: each one the host has
 * (none is an error). Hostonly: the one the root needs; missing, it is
 * an error naming the package. */
int net_plan_add(struct net_plan *np, struct image *img, const char *sysroot);
/* The command line to bake: the plan's words first, each unless the
 * user's line (may be NULL) already sets that key, then the user's. */
char *net_plan_cmdline(const struct net_plan *np, const char *user);
/* "nfs, iscsi, nbd, nvmf" or what is missing; hostonly: the root's kind,
 * server and interface. NULL: nothing to say (a hostonly local root). */
char *net_plan_summary(const struct net_plan *np);
void net_plan_free(struct net_plan *np);

#endif
