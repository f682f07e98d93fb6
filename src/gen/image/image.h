/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_IMAGE_H
#define UNIRAMFS_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cpio.h"

/* The set of entries an image will hold, keyed by destination path
 * ("/usr/bin/foo"). Adding the same path twice is allowed when both say
 * the same thing (it is how "nothing packed twice" is enforced) and an
 * error when they conflict. Parents are created implicitly at write time.
 * Nothing is read from disk until image_write_cpio. */
struct image;
struct buf;

struct image *image_new(void);
void image_free(struct image *img);

int image_add_dir(struct image *img, const char *dst, mode_t perm);
/* Copy a host file; perm 0 means "take it from the source file".
 * flags: 0; none is defined now that compressed modules come in
 * decompressed through image_add_buf (kept for the callers). */
int image_add_file(struct image *img, const char *dst, const char *src, mode_t perm, unsigned flags);
/* Copy data into the image (the image keeps its own copy). */
int image_add_data(struct image *img, const char *dst, const void *data, size_t len, mode_t perm);
/* The same, taking b's memory instead of a copy (b is left empty), and
 * freeing it as soon as image_write_cpio has written it: for large
 * contents held only until the write (decompressed modules). */
int image_add_buf(struct image *img, const char *dst, struct buf *b, mode_t perm);
int image_add_symlink(struct image *img, const char *dst, const char *target);
/* mode is S_IFCHR or S_IFBLK plus permission bits. */
int image_add_node(struct image *img, const char *dst, mode_t mode, unsigned major, unsigned minor);
bool image_has(const struct image *img, const char *dst);
size_t image_count(const struct image *img);

/* Add the host path sysroot+path under the same name, keeping every
 * symlink met on the way (in any component, as usrmerge makes /lib a link
 * to usr/lib) as a symlink in the image, and the final file itself.
 * *resolved (if not NULL) receives the real path inside the image
 * (without sysroot), for callers that read the file next. */
int image_add_host_path(struct image *img, const char *sysroot, const char *path, char **resolved);

/* Put every entry under its canonical path and add the missing parent
 * directories, as image_write_cpio does first: what a caller lists
 * after it is what the cpio will hold. */
int image_finalize(struct image *img);

/* Each host file of the image (not data), sorted by path: fn(ctx, dst,
 * src, mode, size). A non-zero return stops the walk and is returned. */
typedef int (*image_file_fn)(void *ctx, const char *dst, const char *src, mode_t mode, uint64_t size);
int image_each_host_file(const struct image *img, image_file_fn fn, void *ctx);

/* The file at dst becomes a symlink to target (its content now lives
 * elsewhere: squash.c). */
int image_file_to_symlink(struct image *img, const char *dst, const char *target);

/* Emit every entry sorted by path, each parent directory before its
 * children, uid/gid 0, the given mtime. Does not write the trailer.
 * Contents given with image_add_buf are released as they are written,
 * so an image is written once. */
int image_write_cpio(const struct image *img, struct cpio_writer *w, uint32_t mtime);

#endif
