// SPDX-License-Identifier: GPL-2.0-or-later
#include "psf.h"

#include <errno.h>
#include <string.h>

#define PSF1_MODE512 0x01
#define PSF1_MODEHASTAB 0x02
#define PSF1_MODESEQ 0x04
#define PSF2_HAS_UNICODE_TABLE 0x01
#define PSF2_HEADER 32

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int parse_psf1(const uint8_t *d, size_t len, struct psf *f)
{
	unsigned mode = d[2];

	f->version = 1;
	f->glyphs = mode & PSF1_MODE512 ? 512 : 256;
	f->width = 8;
	f->height = d[3];
	f->glyph_bytes = d[3];
	f->glyph_data = d + 4;
	if (f->height == 0 || f->height > PSF_MAX_HEIGHT ||
	    len - 4 < (size_t)f->glyphs * f->glyph_bytes)
		return -EINVAL;
	if (mode & (PSF1_MODEHASTAB | PSF1_MODESEQ)) {
		f->table = f->glyph_data + (size_t)f->glyphs * f->glyph_bytes;
		f->table_len = len - 4 - (size_t)f->glyphs * f->glyph_bytes;
	}
	return 0;
}

static int parse_psf2(const uint8_t *d, size_t len, struct psf *f)
{
	uint32_t hsize, flags, size;

	if (len < PSF2_HEADER)
		return -EINVAL;
	hsize = le32(d + 8);
	flags = le32(d + 12);
	f->version = 2;
	f->glyphs = le32(d + 16);
	size = le32(d + 20);
	f->height = le32(d + 24);
	f->width = le32(d + 28);
	if (hsize < PSF2_HEADER || hsize > len || f->glyphs == 0 || f->glyphs > PSF_MAX_GLYPHS ||
	    f->width == 0 || f->width > PSF_MAX_WIDTH || f->height == 0 ||
	    f->height > PSF_MAX_HEIGHT || size != f->height * ((f->width + 7) / 8) ||
	    (size_t)f->glyphs * size > len - hsize)
		return -EINVAL;
	f->glyph_bytes = size;
	f->glyph_data = d + hsize;
	if (flags & PSF2_HAS_UNICODE_TABLE) {
		f->table = f->glyph_data + (size_t)f->glyphs * size;
		f->table_len = len - hsize - (size_t)f->glyphs * size;
	}
	return 0;
}

int psf_parse(const uint8_t *data, size_t len, struct psf *out)
{
	memset(out, 0, sizeof(*out));
	if (len >= 4 && data[0] == 0x36 && data[1] == 0x04)
		return parse_psf1(data, len, out);
	if (len >= 4 && !memcmp(data, "\x72\xb5\x4a\x86", 4))
		return parse_psf2(data, len, out);
	return -EINVAL;
}

/* What a table step gives besides a code point (all above U+10FFFF and
 * any value a step can decode): the glyph's list ends, or a sequence
 * follows (whose code points are not the glyph's own). */
#define TABLE_END (1L << 24)
#define TABLE_SEQ (TABLE_END + 1)

/* PSF1: little-endian u16 code points, 0xFFFE before sequences, 0xFFFF
 * ending each glyph's list. */
static long next_psf1(const uint8_t **p, const uint8_t *end)
{
	unsigned v;

	if (end - *p < 2)
		return -EINVAL;
	v = (unsigned)(*p)[0] | (unsigned)(*p)[1] << 8;
	*p += 2;
	return v == 0xffff ? TABLE_END : v == 0xfffe ? TABLE_SEQ : (long)v;
}

/* One UTF-8 character at *p: its code point, or -1 when malformed. */
static long utf8_next(const uint8_t **p, const uint8_t *end)
{
	const uint8_t *s = *p;
	unsigned n = s[0] < 0x80 ? 0 : s[0] >= 0xc2 && s[0] < 0xe0 ? 1 : s[0] >= 0xe0 && s[0] < 0xf0 ? 2
		   : s[0] >= 0xf0 && s[0] < 0xf5                       ? 3
									: 4;
	long v;

	if (n == 4 || end - s < (long)n + 1)
		return -1;
	v = n ? s[0] & (0x3f >> n) : s[0];
	for (unsigned i = 1; i <= n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return -1;
		v = v << 6 | (s[i] & 0x3f);
	}
	*p = s + n + 1;
	return v;
}

/* PSF2: UTF-8 code points, 0xFE before sequences, 0xFF ending each. */
static long next_psf2(const uint8_t **p, const uint8_t *end)
{
	long v;

	if (*p >= end)
		return -EINVAL;
	if (**p == 0xff) {
		(*p)++;
		return TABLE_END;
	}
	if (**p == 0xfe) {
		(*p)++;
		return TABLE_SEQ;
	}
	v = utf8_next(p, end);
	return v < 0 ? -EINVAL : v;
}

int psf_unicode_walk(const struct psf *f, psf_unicode_fn fn, void *arg)
{
	long (*next)(const uint8_t **, const uint8_t *) = f->version == 1 ? next_psf1 : next_psf2;
	const uint8_t *p = f->table, *end;
	int r = 0;

	if (!f->table)
		return 0;
	end = f->table + f->table_len;
	for (unsigned g = 0; g < f->glyphs && r == 0; g++) {
		int in_seq = 0;
		for (;;) {
			long v = next(&p, end);
			if (v < 0)
				return (int)v;
			if (v == TABLE_END)
				break;
			if (v == TABLE_SEQ)
				in_seq = 1;
			else if (!in_seq && (r = fn(arg, g, (uint32_t)v)) < 0)
				break;
		}
	}
	return r;
}
