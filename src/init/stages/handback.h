/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_INIT_HANDBACK_H
#define UNIRAMFS_INIT_HANDBACK_H

#include "init/core/ops.h"
#include "layout.h"

/* Where the image carries the shutdown program (src/shutdown/) and
 * where systemd-shutdown looks for it. */
#define HANDBACK_SRC LAYOUT_SHUTDOWN
#define HANDBACK_DIR "/run/initramfs"

/* At switch_root, before /run moves into the new root: copy the image's
 * shutdown program to /run/initramfs/shutdown, with the directories
 * systemd-shutdown pivots into, so that at the end of a shutdown it
 * returns there to unmount the root and take the storage stack apart.
 * Never fatal: a failure is logged (the machine then shuts down as
 * without it) and returned as a negative code (err set); no program in the image is
 * 0, nothing done. */
int handback_shutdown(const struct sysops *ops);

#endif
