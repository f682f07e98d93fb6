/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Upper layers the init makes at boot for the overlay stage (overlay.c):
 * rd.overlay.crypt='s new LUKS device (overlaycrypt.c) and a live
 * medium's automatic overlay partition (autooverlay.c). Both run the
 * programs of uniramfs's overlay-tools plugin; an image without them
 * makes nothing. */
#ifndef UNIRAMFS_INIT_OVERLAYUPPER_H
#define UNIRAMFS_INIT_OVERLAYUPPER_H

#include <stddef.h>

#include "luks2.h"

struct init;

/* The LUKS2 subsystem field of the devices rd.overlay.crypt= formats:
 * such a device is made anew at each boot (its key was never kept);
 * any other LUKS device is left alone. */
#define OVERLAY_CRYPT_SUBSYSTEM LUKS2_SUBSYSTEM_OVERLAY
#define OVERLAY_CRYPT_NAME "overlay-crypt" /* dracut's mapping name */

/* rd.overlay.crypt=SPEC: the device SPEC names formatted as a new LUKS2
 * device with a random key (getrandom, handed to cryptsetup on a pipe,
 * kept nowhere), opened as /dev/mapper/overlay-crypt, an ext4 made on
 * it. 1 and *devnode (to free) when it is ready to mount; 0 when it
 * cannot be made (said why: the caller falls back to a tmpfs). */
int overlay_crypt_make(struct init *in, const char *spec, char **devnode);

/* A partition, in 512-byte sectors as sysfs counts them. */
struct part_extent {
	unsigned partno;
	unsigned long long start, size;
};

/* Where a new partition goes on a disk of disk_sectors holding parts[n]
 * when the live medium is partition medium: after the medium, which
 * must end last (dracut's rule: only the free space after the last
 * partition is used, never a gap between two), from the next MiB to
 * the last MiB but one (room for a backup GPT), at least
 * AUTOOVERLAY_MIN_MB; partno the lowest number unused. 0 and *out, or
 * -EINVAL (err set: the reason). */
#define AUTOOVERLAY_MIN_MB 16
int autooverlay_place(const struct part_extent *parts, size_t n, unsigned medium,
		      unsigned long long disk_sectors, struct part_extent *out);

/* rd.overlay=LABEL=NAME for a live root names no device: make that
 * partition in the free space after the medium's (sfdisk), tell the
 * kernel (BLKPG), format it ext4 labelled NAME. 1 and *devnode (to
 * free); 0 when not made (said why, unless this is no live root or no
 * LABEL=). */
int autooverlay_make(struct init *in, const char *spec, char **devnode);

#endif
