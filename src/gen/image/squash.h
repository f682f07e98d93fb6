/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_SQUASH_H
#define UNIRAMFS_SQUASH_H

#include <stdbool.h>
#include <stdint.h>

#include "gen/compress/compress.h"
#include "gen/image/image.h"
#include "util.h"

/* The squashfs segment (docs/design.md, "The squashfs segment"): the
 * image's programs, libraries and modules in one squashfs, stored in an
 * uncompressed cpio segment the kernel only copies, and mounted by the
 * init through a loop device before it runs or loads any of them. Their
 * places in the main segment become symlinks into the mount, so a boot
 * decompresses only what it reads. */
/* The squashfs config key: auto, yes, no in that order (config.c's T_AUTO). */
enum squashfs_mode { SQUASHFS_AUTO, SQUASHFS_YES, SQUASHFS_NO };

struct squash_plan {
	bool on;
	const char *comp;  /* gensquashfs's name for the compressor */
	struct strv keep;  /* modules (paths below /lib/modules/KVER) the init loads to mount it */
	struct strv store; /* modules (the same) stored uncompressed beside it: most boots' */
	struct strv store_files; /* files (their path without /usr) stored so too */
	struct image *stored; /* what goes beside it, below LAYOUT_STORED_DIR */
	int fd;            /* the squashfs, in memory (memfd); -1 none */
	uint64_t size;
	size_t nfiles;
};

void squash_plan_init(struct squash_plan *s);
/* The segment decided on cannot be after all (a module to mount it is
 * missing): off, with the reason as squash_plan_decide gives one. */
int squash_plan_refuse(struct squash_plan *s, enum squashfs_mode mode, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Does this build get the segment? kconfig: the kernel's config file
 * (NULL: none found). yes: an error says why not; auto: an info line. */
int squash_plan_decide(struct squash_plan *s, enum squashfs_mode mode, bool hostonly, enum compression c,
		       const char *kconfig);
/* Move the image's host files below /usr into the squashfs, or beside
 * it uncompressed (store, store_files), each left as a symlink. */
int squash_plan_build(struct squash_plan *s, struct image *img, enum compression c, int level, uint32_t mtime);
/* The uncompressed cpio segment holding the squashfs and the stored
 * files, when there is one. */
int squash_write_segment(const struct squash_plan *s, struct sink *out, uint32_t mtime);
void squash_plan_free(struct squash_plan *s);

#endif
