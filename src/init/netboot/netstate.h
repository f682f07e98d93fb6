/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_INIT_NETBOOT_NETSTATE_H
#define UNIRAMFS_INIT_NETBOOT_NETSTATE_H

#include "init/netboot/netup.h"

/* The files the real system reads about ni, configured just now (from
 * nu's lease or ip=): never fails the boot, warns what it could not
 * write. */
void netstate_write(struct netup *nu, const struct netif *ni);

#endif
