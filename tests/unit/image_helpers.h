/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_TEST_IMAGE_HELPERS_H
#define UNIRAMFS_TEST_IMAGE_HELPERS_H

#include <stdbool.h>
#include <stddef.h>

#include "gen/compress/compress.h"
#include "util.h"

/* Crafting images for the reader and extract tests. */
struct ent {
	const char *name;
	uint32_t mode;
	const char *data; /* file content or symlink target */
	unsigned major, minor;
	unsigned nlink, ino; /* 0: 1 and the entry's index */
	unsigned uid, gid;
};

/* One cpio archive (with trailer) of ents, appended to img compressed
 * with c. */
void add_archive(struct buf *img, enum compression c, const struct ent *ents, size_t n);
char *tmpdir(void);
char *write_tmp(const char *dir, const char *name, const struct buf *b);
void rm_rf(const char *dir);
/* Whether path exists (lstat). */
int exists(const char *dir, const char *rel);

struct image;
/* The bytes of the regular file PATH ("etc/ld.so.cache") in img as
 * written, NUL-terminated after its size; false (out empty) if none. */
bool image_file_of(struct image *img, const char *path, struct buf *out);

#endif
