/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_INIT_MODPROBE_H
#define UNIRAMFS_INIT_MODPROBE_H

/* /init run as LAYOUT_MODPROBE_NAME: the kernel's request_module while
 * the initramfs is the root (docs/design.md, "The kernel's module
 * requests"). The exit status the kernel gets: 0 loaded (or built in,
 * or already there), 1 not. */
int modprobe_main(int argc, char **argv);

#endif
