/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_INIT_DEV_GPTAUTO_H
#define UNIRAMFS_INIT_DEV_GPTAUTO_H

#include <stdbool.h>
#include <stddef.h>

/* The Discoverable Partitions Specification (uapi-group.org): with no
 * root= the root is the partition of this architecture's root type on
 * the disk the firmware booted from, /usr the one of its usr type on
 * the same disk. Here only the choice, from what blkid said of each
 * partition; stages/gptroot.c gathers and waits. */
enum dps_kind { DPS_OTHER, DPS_ROOT, DPS_USR };

/* GPT attribute bits the specification gives a meaning. */
#define DPS_FLAG_READ_ONLY (1ULL << 60)
#define DPS_FLAG_NO_AUTO (1ULL << 63)

/* "x86-64", or NULL where the specification names no type for this
 * build's architecture (then nothing is ever discovered). */
const char *dps_arch(void);
/* The type GUID of kind for this architecture (lowercase), or NULL. */
const char *dps_type(enum dps_kind kind);
/* What a partition of this type GUID (any case) is to discovery. */
enum dps_kind dps_kind(const char *parttype);
/* The device-mapper name a LUKS partition of kind is opened under, as
 * systemd names it ("root", "usr"), or NULL. */
const char *dps_mapper_name(enum dps_kind kind);

/* One partition as discovery sees it. */
struct dps_part {
	const char *node;   /* "/dev/sda2", for messages */
	const char *disk;   /* its disk's kernel name, "sda" */
	unsigned partno;
	enum dps_kind kind;
	unsigned long long flags; /* the GPT attributes */
};

enum dps_result {
	DPS_FOUND,   /* *pick: the one */
	DPS_NONE,    /* none usable; *pick: the first skipped for no-auto, or -1 */
	DPS_SEVERAL, /* usable ones on more than one disk; *pick: the first */
};

/* Of the n partitions, the one of kind: on disk when disk is not NULL,
 * never one with the no-auto attribute, the lowest partition number of
 * its disk. */
enum dps_result dps_choose(const struct dps_part *v, size_t n, enum dps_kind kind,
			   const char *disk, int *pick);

/* The contents of efivarfs's LoaderDevicePartUUID file (4 bytes of
 * attributes, then the UUID in UTF-16LE, maybe NUL-ended) as a lowercase
 * UUID in out. 0, or -EINVAL when it is not one. */
int dps_loader_uuid(const unsigned char *data, size_t n, char out[37]);

#endif
