/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_PLUGINS_MULTIPATH_UDEVDB_H
#define UNIRAMFS_PLUGINS_MULTIPATH_UDEVDB_H

#include <stdbool.h>
#include <stddef.h>

/* udev's database entry of a multipath path: what 60-multipath.rules
 * of the root's udev imports (IMPORT{db}) to keep the path claimed
 * after switch_root, and what makes libudev count the device as
 * initialized, so multipath's device scan (which skips devices udev
 * never saw) finds the other paths. */
#define MPATH_DB_ENTRY "E:DM_MULTIPATH_DEVICE_PATH=1\n"

/* Write DATA/bMAJ:MIN for the block device NAME (SYS/NAME/dev holds
 * "MAJ:MIN"): 1 written, 0 an entry was there (left as it is), -errno.
 * NAME is a kernel name: no '/', not "." or "..". */
int mpath_db_mark(const char *sys, const char *data, const char *name);
/* Remove the entry mpath_db_mark wrote (the map was not made). */
void mpath_db_unmark(const char *sys, const char *data, const char *name);
/* The kernel's WWID of a whole disk (SYS/NAME/device/wwid: SCSI VPD
 * 0x83; SYS/NAME/wwid: NVMe), trimmed. */
bool mpath_wwid(const char *sys, const char *name, char *out, size_t size);

#endif
