/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_INIT_DEV_BTRFSDEV_H
#define UNIRAMFS_INIT_DEV_BTRFSDEV_H

#include "init/core/ops.h"

/* A btrfs filesystem over several devices mounts only once the kernel
 * knows every member: each is registered through /dev/btrfs-control,
 * as udev's "btrfs ready" builtin does. */
#define BTRFS_CONTROL "/dev/btrfs-control"

/* Register devnode with the kernel's btrfs (BTRFS_IOC_DEVICES_READY
 * scans it) and say whether its filesystem has all its devices now: 1
 * complete, 0 not yet, or a negative code (err set: no btrfs-control,
 * not a btrfs member). The btrfs module must be in. */
int btrfs_dev_ready(const struct sysops *ops, const char *devnode);
/* How many devices the filesystem on devnode has (its superblock's
 * num_devices): > 0, or a negative code (err set: unreadable, not
 * btrfs). */
long long btrfs_dev_count(const struct sysops *ops, const char *devnode);

#endif
