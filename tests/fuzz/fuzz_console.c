// SPDX-License-Identifier: GPL-2.0-or-later
/* The console files of an image, as the init reads them before any
 * prompt: a PSF font with its Unicode table and a binary keymap. A
 * damaged one must be refused, never read past its end. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bkeymap.h"
#include "psf.h"

static int count(void *arg, unsigned glyph, uint32_t codepoint)
{
	(void)glyph;
	(void)codepoint;
	++*(size_t *)arg;
	return 0;
}

static int count_key(void *arg, unsigned table, unsigned key, uint16_t value)
{
	(void)table;
	(void)key;
	(void)value;
	++*(size_t *)arg;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* an exact-size copy, so reading one byte past is caught */
	uint8_t *copy = malloc(size ? size : 1);
	struct psf f;
	size_t n = 0;

	memcpy(copy, data, size);
	if (psf_parse(copy, size, &f) == 0) {
		uint8_t sum = 0;
		for (size_t i = 0; i < (size_t)f.glyphs * f.glyph_bytes; i++)
			sum ^= f.glyph_data[i];
		n += sum;
		psf_unicode_walk(&f, count, &n);
	}
	bkeymap_walk(copy, size, count_key, &n);
	free(copy);
	return 0;
}
