/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The network part of fake_boot's machine, for the whole-boot tests of
 * the network: virtio NICs whose driver is in the image, lo, iscsistart,
 * more modules, and initops whose tools only run and are logged. */
#ifndef UNIRAMFS_FAKE_NET_H
#define UNIRAMFS_FAKE_NET_H

#include "fake_boot.h"

/* Every run is logged in fake_boot_tree's log as "run PATH ARG..."
 * ("run PATH (as @NAME) ..." when argv[0] carries systemd's @ mark for
 * a root storage daemon) and exits with fake_net_tool_status (0 unless
 * a test sets it). */
extern const struct initops fake_net_initops;
extern int fake_net_tool_status;

/* fake_boot_run with fake_net_initops and the kernel's environment. */
int fake_net_run(struct fake_ops *f, struct init *in);

/* fake_boot_setup(cmdline)'s machine with nics virtio NICs: ethI at
 * PCI 0000:00:0(3+I).0, index 2+I, MAC 52:54:00:12:34:(56+I); lo;
 * an executable /usr/sbin/iscsistart. */
struct fake_ops *fake_net_setup(const char *cmdline, unsigned nics);

/* A module file in the image (ko: its path below MODDIR), with its
 * dependencies' paths (NULL: none) in modules.dep. */
void fake_net_module(struct fake_ops *f, const char *ko, const char *deps);

/* An executable the init finds in the image. */
void fake_net_tool(struct fake_ops *f, const char *path);

#endif
