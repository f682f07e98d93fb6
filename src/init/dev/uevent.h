/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_INIT_UEVENT_H
#define UNIRAMFS_INIT_UEVENT_H

#include <stddef.h>

#include "init/core/ops.h"

/* One kernel uevent. Strings point into the caller's buffer. */
struct uevent {
	const char *action;    /* add, remove, change, bind... */
	const char *devpath;   /* /devices/... */
	const char *subsystem; /* block, pci, ... */
	const char *devtype;   /* disk, partition */
	const char *devname;   /* vda1 */
	const char *modalias;
	unsigned major, minor;
	long long seqnum;
};

/* Open NETLINK_KOBJECT_UEVENT (kernel group), non-blocking, with a
 * large receive buffer (SO_RCVBUFFORCE, then SO_RCVBUF). -errno (err
 * set) on error. */
int uevent_open(void);
/* Parse "action@devpath\0KEY=VAL\0..." from the kernel. 0 or -EINVAL. */
int uevent_parse(char *buf, size_t len, struct uevent *ev);

/* Coldplug: call fn for every device that exists already. Walks
 * /sys/devices (via ops->path) for modalias files and /sys/class/block
 * for block devices, filling a synthetic "add" uevent for each. */
typedef void (*uevent_fn)(const struct uevent *ev, void *userdata);
int uevent_coldplug(const struct sysops *ops, uevent_fn fn, void *userdata);

#endif
