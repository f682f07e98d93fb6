/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_INIT_BLOCKDEV_H
#define UNIRAMFS_INIT_BLOCKDEV_H

#include <stdbool.h>

#include "init/core/ops.h"
#include "init/dev/persistname.h"

/* A block device as the init knows it after probing. */
struct blockdev {
	char *name;    /* "vda1" */
	char *devnode; /* "/dev/vda1" */
	unsigned major, minor;
	char *type, *uuid, *label, *partuuid, *partlabel; /* NULL when absent */
	char *dmname; /* device-mapper name ("vg0-root"), NULL if not dm */
	char *disk;      /* a partition's disk ("sda" for sda3) from sysfs, else NULL */
	unsigned partno; /* its number in that disk's table, 0 if no partition */
	/* its GPT entry's type GUID (NULL if none) and attributes, for root
	 * discovery (gptauto.h) */
	char *parttype;
	unsigned long long partflags;
	struct persistnames names; /* udev's by-id and by-path names */
	unsigned seen; /* the sysfs scan that last saw it (init.h scan_gen) */
	enum dev_claim { DEV_FREE, DEV_HELD, DEV_CLAIMED } claim; /* registry_hold's answer */
};

/* Probe devnode (opened via ops->path) with libblkid: superblock TYPE,
 * UUID, LABEL and partition PARTUUID, PARTLABEL; and the dm name from
 * /sys/class/block/NAME/dm/name; the by-id and by-path names, and a
 * partition's disk and number, from sysfs (persistname.h). name/major/minor are filled by the caller (from the
 * uevent or sysfs). 0 or a negative code (err set). */
int blockdev_probe(const struct sysops *ops, struct blockdev *bd);
/* Does /sys/class/block/NAME/size say 0 (a loop device with no file, a
 * drive with no medium)? Nothing is there to probe; the kernel sends a
 * change event when something is. */
bool blockdev_empty(const struct sysops *ops, const char *name);
/* Does /sys/class/block/NAME/ro say 1 (a dm-verity mapping, a
 * write-protected card)? It cannot be mounted rw, nor repaired. */
bool blockdev_read_only(const struct sysops *ops, const char *name);
/* /dev/disk/by-uuid/UUID, by-label/LABEL, by-partuuid/PARTUUID,
 * by-partlabel/PARTLABEL -> ../../NAME (udev's escaping of odd chars),
 * by-id/ID and by-path/PATH (names already as udev spells them),
 * and /dev/mapper/DMNAME -> ../NAME unless lvm or cryptsetup made it. */
int blockdev_make_links(const struct sysops *ops, const struct blockdev *bd);
/* Does a root=/resume= spec name this device? Accepts /dev/NAME,
 * UUID=, LABEL=, CDLABEL= (dracut's LABEL=), PARTUUID=, PARTLABEL=, MAJ:MIN, hex MAJMIN (the
 * kernel's old form), /dev/disk/by-{uuid,label,partuuid,partlabel}/X,
 * /dev/disk/by-id/X and /dev/disk/by-path/X (exactly udev's name; booster
 * spells them WWID=X and HWPATH=X), and
 * for a dm device /dev/mapper/DMNAME and /dev/VG/LV (lvm's dm name
 * VG-LV, each '-' inside VG or LV doubled).
 * Case-insensitive for UUIDs as the kernel is. */
bool blockdev_matches(const struct blockdev *bd, const char *spec);
/* Is spec a link in /dev a tool made to bd (mdadm's /dev/md/NAME)? */
bool blockdev_link_matches(const struct sysops *ops, const struct blockdev *bd, const char *spec);
/* Is spec a form we understand at all? (for a clear error early) */
bool blockdev_spec_valid(const char *spec);
/* The kernel's PARTUUID=U/PARTNROFF=N: the partition N after (before, if
 * negative) the one with PARTUUID U on the same disk. No one device
 * answers it (blockdev_matches is false): registry_match asks the
 * neighbours. True when spec is so written, with U (the caller frees)
 * and N; either out pointer may be NULL. */
bool blockdev_partnroff(const char *spec, char **partuuid, int *off);
/* Is bd the partition off places after anchor on the same disk? */
bool blockdev_is_offset_of(const struct blockdev *bd, const struct blockdev *anchor, int off);
void blockdev_clear(struct blockdev *bd);

#endif
