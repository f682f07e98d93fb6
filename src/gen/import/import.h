/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_IMPORT_H
#define UNIRAMFS_IMPORT_H

#include "util.h"

/* `uniramfs import-config`: read another generator's configuration
 * under sysroot and write the equivalent uniramfs.conf text to out,
 * every setting that cannot be carried over kept as a comment saying
 * why. from is "initramfs-tools", "dracut" or "mkinitcpio", or NULL to
 * take the one whose config is there (an error if none or several). */
int import_config(const char *sysroot, const char *from, struct buf *out);

/* Put text at SYSROOT/etc/uniramfs.conf: links are followed inside the
 * sysroot only, the file is replaced whole (never written through a
 * link), and an existing one is kept unless force. */
int import_write(const char *sysroot, const char *text, bool force);

#endif
