/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_SPACE_H
#define UNIRAMFS_SPACE_H

#include <stdint.h>

/* Can an image of size bytes be written next to path (the old image at
 * path stays until the new one is renamed over it, so the new one must
 * fit beside it)? -errno + err_* naming how many bytes are missing. */
int space_check(const char *path, uint64_t size);

#endif
