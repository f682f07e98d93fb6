/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_IMAGEFILE_H
#define UNIRAMFS_IMAGEFILE_H

#include <stdio.h>
#include <stdint.h>

#include "compress.h"
#include "cpio.h"

/* Reading images made by anyone: one or more cpio archives, each either
 * plain or compressed, concatenated, with zero padding between them. */

/* Called for each entry of each segment; return <0 to stop (error). */
typedef int (*image_entry_fn)(unsigned segment, enum compression c, const struct cpio_entry *e,
			      const uint8_t *data, void *userdata);

int image_foreach(const char *path, image_entry_fn fn, void *userdata);
int image_foreach_buf(const uint8_t *buf, size_t len, image_entry_fn fn, void *userdata);

/* `uniramfs ls`: print every segment and its entries. */
int image_ls(const char *path, FILE *out);
/* `uniramfs extract`: unpack into dir, refusing anything that would
 * land outside it. */
int image_extract(const char *path, const char *dir);

#endif
