/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_KERNELS_H
#define UNIRAMFS_KERNELS_H

#include "util.h"

/* The installed kernels under sysroot, oldest first (version order): a
 * version with a module directory SYSROOT/lib/modules/KVER and a kernel,
 * SYSROOT/boot/vmlinuz-KVER or the module directory's own vmlinuz (the
 * kernel-install layout), as update-initramfs -k all counts them. */
int kernels_installed(const char *sysroot, struct strv *out);

#endif
