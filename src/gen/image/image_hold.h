/* SPDX-License-Identifier: GPL-2.0-or-later */
/* image.c's store for image_add_buf's contents until the write. */
#ifndef UNIRAMFS_IMAGE_HOLD_H
#define UNIRAMFS_IMAGE_HOLD_H

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

/* p[0..len) compressed into *held (*packed true), or nothing done
 * (*packed false: hold p itself) when zstd is not built in. */
int image_hold(const void *p, size_t len, struct buf *held, bool *packed);
/* What image_hold packed, appended to *plain; len is its size. */
int image_unhold(const struct buf *held, size_t len, struct buf *plain);

#endif
