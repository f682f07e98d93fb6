/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_IMAGE_READ_H
#define UNIRAMFS_IMAGE_READ_H

#include <stddef.h>
#include <stdint.h>

#include "cpio.h"
#include "gen/compress/compress.h"

/* Walking the segments of an image for ls and extract (imagefile.h has
 * the public side). */

struct segment {
	unsigned n;
	enum compression c;
	size_t offset;     /* in the image */
	size_t size;       /* bytes of the image it spans */
	size_t unpacked;   /* cpio bytes */
	unsigned entries;
	unsigned archive;  /* archives begun in the image so far: the kernel
			    * forgets hard links at each trailer */
};

typedef int (*walk_entry_fn)(const struct segment *s, const struct cpio_entry *e,
			     const uint8_t *data, void *userdata);
typedef int (*walk_segment_fn)(const struct segment *s, void *userdata);

struct walk {
	walk_entry_fn entry;
	walk_segment_fn done;
	void *userdata;
};

int walk_image(const uint8_t *buf, size_t len, const struct walk *w);
/* The image at path: a regular file no larger than the limit. */
int walk_file(const char *path, const struct walk *w);

#endif
