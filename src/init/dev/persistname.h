/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_INIT_PERSISTNAME_H
#define UNIRAMFS_INIT_PERSISTNAME_H

#include "init/core/ops.h"
#include "util.h"

/* The names systemd-udevd (252, with 60-persistent-storage.rules, its
 * path_id builtin and the ata_id, scsi_id and usb_id helpers) gives a
 * block device below /dev/disk/by-id and /dev/disk/by-path, computed
 * from sysfs alone: the init runs no udev. */
struct persistnames {
	struct strv by_id;   /* "virtio-SERIAL", "nvme-eui.…-part2", … */
	struct strv by_path; /* "pci-0000:00:04.0-scsi-0:0:1:0", … */
	/* booster's names where they are not udev's, for its root=WWID=
	 * and root=HWPATH=: a SCSI disk's "scsi-VENDOR_MODEL_SERIAL-0:0",
	 * a path with the kernel's SCSI host number. Never links. */
	struct strv booster_wwid, booster_hwpath;
};

/* Fill pn for the block device NAME ("vda", "nvme0n1p2", "sda"),
 * reading /sys/class/block/NAME and its parents through ops->path.
 * A device udev names nothing gets two empty lists. 0, or -ENOENT
 * when sysfs has no such device. */
int persistname_get(const struct sysops *ops, const char *name, struct persistnames *pn);
void persistnames_free(struct persistnames *pn);
/* Could name be one of ours: not empty, and no part of it (udev keeps
 * a '/' from a serial, making a directory) empty, "." or ".."? */
bool persistname_valid(const char *name);

#endif
