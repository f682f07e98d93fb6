/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_NET_IBFT_H
#define UNIRAMFS_NET_IBFT_H

#include "util.h"
#include "init/net/ipconf.h"
#include "init/net/netroot.h"

/* The iSCSI Boot Firmware Table as the kernel's iscsi_ibft module shows
 * it under /sys/firmware/ibft: initiator/, ethernetN/, targetN/. The
 * firmware is as hostile as any other input. */

/* Read the tree at dir (normally "/sys/firmware/ibft") into an iSCSI
 * root (the target the firmware booted from, or else the first valid
 * one; every other valid target in its more[], in the table's order)
 * and the NIC that reaches it. Returns 0, or -ENOENT when there is no
 * usable target; problems are pushed onto warnings. */
int ibft_read(const char *dir, struct iscsi_root *root, struct ip_conf *nic, struct strv *warnings);

/* The same from attributes got one by one: get returns SUB/NAME's value
 * as sysfs shows it, one line without its newline (malloc'd), or NULL
 * when there is none; where names the table in messages. For the
 * fuzzer, which has no sysfs. */
typedef char *(*ibft_attr_fn)(void *userdata, const char *sub, const char *name);
int ibft_parse(ibft_attr_fn get, void *userdata, const char *where, struct iscsi_root *root, struct ip_conf *nic,
	       struct strv *warnings);

#endif
