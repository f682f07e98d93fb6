/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A small file of the root or the image read whole, checked first: what
 * the boot reads of another's making (the root's fstab, a PCR signature)
 * is hostile until then. */
#ifndef UNIRAMFS_INIT_CORE_REGFILE_H
#define UNIRAMFS_INIT_CORE_REGFILE_H

#include <stddef.h>

#include "init/core/ops.h"

/* path's bytes into *out (NUL-terminated, the caller frees it) and *len.
 * Not through a link (an absolute one would name the initramfs's own
 * file), only a regular file (a FIFO or a device would block or never
 * end), at most max bytes. 0, or -ENOENT, -ELOOP (a link), -EINVAL (not
 * a regular file), -EFBIG (over max), -EIO (its size changed while
 * read), another -errno of open or read. */
int regfile_read(const struct sysops *ops, const char *path, size_t max, char **out, size_t *len);
/* The same for rel inside the directory root (a path for ops->path, as
 * "/sysroot"), its links followed as the root's own programs would see
 * them but never out of root (core/inroot.h): a root's /etc/fstab may
 * be a link. Codes as regfile_read's, -ELOOP only for a link loop. */
int regfile_read_in_root(const struct sysops *ops, const char *root, const char *rel, size_t max,
			 char **out, size_t *len);

#endif
