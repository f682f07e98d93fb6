// SPDX-License-Identifier: GPL-2.0-or-later
/* Compression for images, done in-process with the libraries, in the exact
 * stream formats the kernel's initramfs unpacker (init/initramfs.c and
 * lib/decompress_*.c) reads; and the matching decompressors, which report
 * how much input one stream used so concatenated segments can be walked the
 * way the kernel walks them. One file per format (compress_zstd.c, ...),
 * one row per format below; a library left out at build time leaves its
 * row without a codec, and asking for it says how to build it in. */
#include "gen/compress/compress.h"

#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "gen/compress/compress_priv.h"

/* Default levels, measured on the 142 MB cpio of Debian's MODULES=most
 * initrd, 2 cores (compressed size, time):
 *   zstd 1 29.8% 0.2s, 3 27.5% 0.2s, 6 25.2% 0.6s, 9 24.2% 1.3s,
 *        12 24.1% 2.7s, 15 23.9% 9.9s, 19 21.4% 33s
 *   xz 6 19.5% 83s; gzip 6 28.9% 4.0s, 9 28.7% 37s;
 *   lz4 1 43.4% 0.2s, 9 (HC) 35.0% 4.2s, 12 34.8% 29s.
 * zstd 6 is the default: on a generic image (~40 MB of modules) it keeps
 * the whole build well under a second and the peak RSS under 64 MB (level
 * 9 took 1.2 s and 87 MB there for 4% less), at one point of size above
 * the knee at 9. xz 6 and gzip 6 are the tools' defaults; lz4 HC 9 for a
 * third less than the fast mode at the same decompression speed. xz's x86
 * BCJ filter made this input 5% larger (relocatable .ko code), so it is
 * not used. */

static const struct format {
	enum compression id;
	const char *name, *alias;
	struct {
		const char *bytes;
		size_t len;
	} magic[2];
	/* the meson option that builds it in; NULL: uniramfs neither reads
	 * nor writes it (only tells it apart in other tools' images) */
	const char *option;
	const struct codec *codec;
} formats[] = {
	{ COMP_NONE, "none", "cat", { { "070701", 6 }, { "070702", 6 } }, "", &codec_none },
	{ COMP_ZSTD, "zstd", "zst", { { "\x28\xb5\x2f\xfd", 4 } }, "zstd", CODEC_ZSTD },
	{ COMP_XZ, "xz", NULL, { { "\xfd" "7zXZ\0", 6 } }, "xz", CODEC_XZ },
	{ COMP_LZ4, "lz4", NULL, { { "\x02\x21\x4c\x18", 4 } }, "lz4", CODEC_LZ4 },
	/* 1f 9e: old gzip, the kernel accepts it too */
	{ COMP_GZIP, "gzip", "gz", { { "\x1f\x8b", 2 }, { "\x1f\x9e", 2 } }, "zlib", CODEC_GZIP },
	{ COMP_BZIP2, "bzip2", NULL, { { "BZh", 3 } }, NULL, NULL },
	{ COMP_LZMA, "lzma", NULL, { { "\x5d\0\0", 3 } }, NULL, NULL },
	{ COMP_LZO, "lzo", NULL, { { "\x89LZO", 4 } }, NULL, NULL },
};

static const struct format *format_of(enum compression c)
{
	for (size_t i = 0; i < ARRAY_SIZE(formats); i++)
		if (formats[i].id == c)
			return &formats[i];
	return NULL;
}

const char *compression_name(enum compression c)
{
	const struct format *f = format_of(c);
	return f ? f->name : "unknown";
}

int compression_from_name(const char *name, enum compression *out)
{
	for (size_t i = 0; i < ARRAY_SIZE(formats); i++) {
		const struct format *f = &formats[i];
		if (f->option && (strcmp(name, f->name) == 0 || (f->alias && strcmp(name, f->alias) == 0))) {
			*out = f->id;
			return 0;
		}
	}
	return err_set("unknown compression '%s' (use zstd, xz, lz4, gzip or none)", name);
}

bool compression_built_in(enum compression c)
{
	const struct format *f = format_of(c);
	return f && f->codec;
}

static int not_built_in(const struct format *f)
{
	return err_set("compression \"%s\" is not built in (meson -D%s=enabled)", f->name, f->option);
}

int compression_check_built_in(enum compression c)
{
	const struct format *f = format_of(c);
	if (!f || !f->option)
		return err_set("%s: uniramfs can read but not write this compression", compression_name(c));
	return f->codec ? 0 : not_built_in(f);
}

enum compression compression_detect(const uint8_t *buf, size_t len)
{
	for (size_t i = 0; i < ARRAY_SIZE(formats); i++)
		for (size_t m = 0; m < ARRAY_SIZE(formats[i].magic) && formats[i].magic[m].len; m++)
			if (len >= formats[i].magic[m].len &&
			    memcmp(buf, formats[i].magic[m].bytes, formats[i].magic[m].len) == 0)
				return formats[i].id;
	return COMP_UNKNOWN;
}

/* ---- the interface ---- */

struct sink *compress_sink_new(enum compression c, struct sink *out, int level, int threads)
{
	const struct format *f = format_of(c);

	if (compression_check_built_in(c) < 0)
		return NULL;
	if (f->codec->max_level && level > f->codec->max_level()) {
		err_set("%s: level %d is above the maximum %d", f->name, level, f->codec->max_level());
		return NULL;
	}
	return f->codec->sink_new(out, level, threads);
}

int decompress_buf(enum compression c, const uint8_t *in, size_t len, struct buf *out, size_t *consumed)
{
	const struct format *f = format_of(c);

	if (!f)
		return err_set("unknown compression (no known magic)");
	if (!f->option)
		return err_set("%s compression is not supported (uniramfs reads zstd, xz, "
			       "lz4, gzip and plain cpio)", f->name);
	if (!f->codec)
		return not_built_in(f);
	return f->codec->decompress(in, len, out, consumed);
}

int decompress_file(const char *path, struct buf *out)
{
	enum compression c;
	char *data;
	size_t len, off = 0, used;
	int r = read_file(path, &data, &len);

	if (r < 0)
		return err_errno(r, "%s", path);
	if (str_has_suffix(path, ".xz"))
		c = COMP_XZ;
	else if (str_has_suffix(path, ".zst"))
		c = COMP_ZSTD;
	else if (str_has_suffix(path, ".gz"))
		c = COMP_GZIP;
	else
		c = compression_detect((const uint8_t *)data, len);
	if (c == COMP_UNKNOWN)
		c = COMP_NONE;
	/* The command-line tools write concatenated streams (xz/gzip/zstd a
	 * b > c) and xz may add stream padding: read them all. */
	do {
		if (decompress_buf(c, (const uint8_t *)data + off, len - off, out, &used) < 0) {
			free(data);
			return err_wrap("%s", path);
		}
		off += used;
		while (off < len && data[off] == '\0')
			off++;
	} while (off < len && compression_detect((const uint8_t *)data + off, len - off) == c);
	free(data);
	if (off < len)
		return err_set("%s: unexpected data after the %s stream at offset %zu", path,
			       compression_name(c), off);
	return 0;
}
