/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UNIRAMFS_PSF_H
#define UNIRAMFS_PSF_H

#include <stddef.h>
#include <stdint.h>

/* A PC Screen Font (PSF1 or PSF2), as kbd and console-setup ship them:
 * the generator checks it before packing, the init loads it with
 * KDFONTOP. Limits are what the kernel's KD_FONT_OP_SET takes: at most
 * 512 glyphs, 32 pixels wide and 32 high. */
#define PSF_MAX_GLYPHS 512
#define PSF_MAX_WIDTH 32
#define PSF_MAX_HEIGHT 32

struct psf {
	unsigned version;   /* 1 or 2 */
	unsigned glyphs, width, height;
	size_t glyph_bytes; /* height * ((width + 7) / 8) */
	const uint8_t *glyph_data;
	const uint8_t *table; /* the Unicode table after the glyphs, or NULL */
	size_t table_len;
};

/* Parse data into *out (pointing into data): 0, or -EINVAL when it is
 * not a font within the limits. */
int psf_parse(const uint8_t *data, size_t len, struct psf *out);

/* Call fn(arg, glyph, codepoint) for every code point of the Unicode
 * table (sequences, which the console cannot map, skipped). A negative
 * return stops the walk and is returned; a malformed table: -EINVAL. */
typedef int (*psf_unicode_fn)(void *arg, unsigned glyph, uint32_t codepoint);
int psf_unicode_walk(const struct psf *f, psf_unicode_fn fn, void *arg);

#endif
