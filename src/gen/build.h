/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_BUILD_H
#define UNIRAMFS_BUILD_H

#include "config.h"

/* Make the image the options describe and write it atomically. */
int build_image(const struct build_opts *o);
/* The distribution's name for KVER's image in /boot: initrd.img-KVER
 * where SYSROOT/etc/debian_version exists, else initramfs-KVER.img. */
char *build_image_name(const char *sysroot, const char *kver);

#endif
