/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_BUILD_KDUMP_H
#define UNIRAMFS_BUILD_KDUMP_H

#include "gen/build/opts.h"

/* k: o as --kdump makes it (a shallow copy: the strings stay o's):
 * hostonly, no fallback, rescue shell, microcode, squashfs, SSH, splash
 * or overlay and live tools. An error for what a kdump image cannot be
 * (--uki, a gen_init_cpio list). */
int build_kdump_opts(struct build_opts *k, const struct build_opts *o);
/* The default output for KVER: kdump-tools' /var/lib/kdump/initrd.img-KVER
 * where SYSROOT/etc/debian_version exists, else kdumpctl's
 * /boot/initramfs-KVERkdump.img; never the image the machine boots. */
char *build_kdump_output(const char *sysroot, const char *kver);

#endif
