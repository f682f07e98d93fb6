/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_IMAGEFILE_H
#define UNIRAMFS_IMAGEFILE_H

#include <stdio.h>
#include <stdint.h>

#include "cpio.h"
#include "gen/compress/compress.h"

/* Reading images made by anyone: one or more cpio archives, each either
 * plain or compressed, concatenated, with zero padding between them. */

/* Called for each entry of each segment; return <0 to stop (error). */
typedef int (*image_entry_fn)(unsigned segment, enum compression c, const struct cpio_entry *e,
			      const uint8_t *data, void *userdata);

int image_foreach(const char *path, image_entry_fn fn, void *userdata);
int image_foreach_buf(const uint8_t *buf, size_t len, image_entry_fn fn, void *userdata);

/* What reading a hostile image may cost. A compressed segment may unpack
 * to max_ratio times its size, or ratio_floor if that is more; all
 * segments together to max_total. */
struct image_limits {
	uint64_t max_file;    /* bytes of the image file */
	uint64_t max_total;   /* bytes all its segments unpack to */
	uint64_t ratio_floor;
	unsigned max_ratio;
};
extern const struct image_limits image_default_limits;
/* NULL restores the defaults (tests and fuzzers lower them). */
void image_set_limits(const struct image_limits *l);

/* `uniramfs ls`: print every segment and its entries. */
int image_ls(const char *path, FILE *out);

/* `uniramfs extract`: unpack into dir, refusing anything that would
 * land outside it. By default device nodes are skipped (each named on
 * stderr), set-id bits dropped and nothing chowned; EXTRACT_PRESERVE
 * makes nodes, keeps every mode bit and the owners. */
#define EXTRACT_PRESERVE 1u
/* Without EXTRACT_PRESERVE, skip device nodes without a word: the
 * caller carries them another way (the gen_init_cpio list's nod lines). */
#define EXTRACT_NODES_ELSEWHERE 2u
int image_extract(const char *path, const char *dir, unsigned flags);

#endif
